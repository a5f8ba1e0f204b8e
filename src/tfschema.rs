//! tfplugin6 schema messages → our provider-schema model (`tfp_cty`), the one place where
//! that conversion happens.
//!
//! A provider's schema is untrusted input: an attribute type that is not valid cty JSON, or an
//! unknown nesting mode, is an error that names the schema and attribute.

use std::collections::BTreeMap;

use tfp_cty::{
    Attribute, AttributeType, Block, Function, IdentityAttribute, IdentitySchema, NameMap,
    NestedBlock, NestedObject, NestingMode, Parameter, ProviderSchema, Schema, StringKind, Type,
};

use crate::proto::tfplugin6 as v6;

/// A schema element the provider described in a way we cannot use.
#[derive(Debug, thiserror::Error)]
#[error("invalid provider schema at {path}: {reason}")]
pub struct SchemaError {
    pub path: String,
    pub reason: String,
}

/// Converts a `GetProviderSchema` answer.
pub fn provider_schema(
    r: &v6::get_provider_schema::Response,
) -> Result<ProviderSchema, SchemaError> {
    // Resources, data sources, ephemeral and list resources are many and independent:
    // converted in one loop on all cores, the largest first.
    let kinds = [
        ("resource", &r.resource_schemas),
        ("data source", &r.data_source_schemas),
        ("ephemeral resource", &r.ephemeral_resource_schemas),
        ("list resource", &r.list_resource_schemas),
    ];
    let named: Vec<(usize, &String, &v6::Schema)> = (kinds.iter().enumerate())
        .flat_map(|(kind, (_, schemas))| schemas.iter().map(move |(n, s)| (kind, n, s)))
        .collect();
    let converted = tfp_mapping::parallel::map_with_weights(
        &named,
        |(_, _, s)| s.block.as_ref().map_or(0, block_size),
        || (),
        |(), &(kind, name, s)| schema(At::Named(kinds[kind].0, name), s),
    );
    let mut maps: [BTreeMap<String, Schema>; 4] = Default::default();
    for ((kind, name, _), converted) in named.into_iter().zip(converted) {
        maps[kind].insert(name.clone(), converted?);
    }
    let [resources, data_sources, ephemeral_resources, list_resources] = maps;
    Ok(ProviderSchema {
        provider: match &r.provider {
            Some(s) => schema(At::Root("provider"), s)?,
            None => Schema::default(),
        },
        provider_meta: r
            .provider_meta
            .as_ref()
            .map(|s| schema(At::Root("provider_meta"), s))
            .transpose()?,
        resources,
        data_sources,
        ephemeral_resources,
        list_resources,
        functions: functions(&r.functions)?,
    })
}

/// How many attributes and nested blocks `b` holds, at every depth: the work of converting it.
fn block_size(b: &v6::schema::Block) -> usize {
    let blocks: usize = b
        .block_types
        .iter()
        .map(|nested| 1 + nested.block.as_ref().map_or(0, block_size))
        .sum();
    b.attributes.len() + blocks
}

/// Converts a `GetResourceIdentitySchemas` answer: identity schemas by resource type.
pub fn identity_schemas(
    r: &v6::get_resource_identity_schemas::Response,
) -> Result<BTreeMap<String, IdentitySchema>, SchemaError> {
    r.identity_schemas
        .iter()
        .map(|(name, s)| {
            let path = format!("identity of {name}");
            let mut attributes = BTreeMap::new();
            for a in &s.identity_attributes {
                let attribute = IdentityAttribute {
                    ty: cty_type(|| format!("{path}.{}", a.name), &a.r#type)?,
                    required_for_import: a.required_for_import,
                    optional_for_import: a.optional_for_import,
                    description: a.description.clone(),
                };
                attributes.insert(a.name.clone(), attribute);
            }
            let schema = IdentitySchema {
                version: s.version,
                attributes,
            };
            Ok((name.clone(), schema))
        })
        .collect()
}

/// Converts the functions of a `GetProviderSchema` or `GetFunctions` answer.
pub fn functions(
    m: &std::collections::HashMap<String, v6::Function>,
) -> Result<BTreeMap<String, Function>, SchemaError> {
    m.iter()
        .map(|(name, f)| Ok((name.clone(), function(&format!("function {name}"), f)?)))
        .collect()
}

/// Where a schema element is, spelled out only when it is found invalid: the schema's name,
/// then the keys down to the element, joined by dots.
#[derive(Clone, Copy)]
enum At<'a> {
    Root(&'a str),
    /// A schema of a kind (`resource`) and name.
    Named(&'a str, &'a str),
    Key(&'a At<'a>, &'a str),
}

impl At<'_> {
    fn path(&self) -> String {
        match self {
            At::Root(name) => (*name).to_owned(),
            At::Named(kind, name) => format!("{kind} {name}"),
            At::Key(parent, key) => format!("{}.{key}", parent.path()),
        }
    }
}

fn schema(at: At<'_>, s: &v6::Schema) -> Result<Schema, SchemaError> {
    Ok(Schema {
        version: s.version,
        block: match &s.block {
            Some(b) => block(at, b)?,
            None => Block::default(),
        },
    })
}

fn block(at: At<'_>, b: &v6::schema::Block) -> Result<Block, SchemaError> {
    let mut block_types = Vec::with_capacity(b.block_types.len());
    for n in &b.block_types {
        let at = At::Key(&at, &n.type_name);
        let nested = NestedBlock {
            block: match &n.block {
                Some(b) => block(at, b)?,
                None => Block::default(),
            },
            nesting: nesting(at, n.nesting, true)?,
            min_items: n.min_items,
            max_items: n.max_items,
        };
        block_types.push((n.type_name.clone(), nested));
    }
    Ok(Block {
        attributes: attributes(at, &b.attributes)?,
        block_types: NameMap::from_vec(block_types),
        description: b.description.clone(),
        description_kind: string_kind(b.description_kind),
        deprecated: b.deprecated,
        deprecation_message: b.deprecation_message.clone(),
    })
}

/// Attributes by name: sorted once, when all are converted.
fn attributes(
    at: At<'_>,
    attributes: &[v6::schema::Attribute],
) -> Result<NameMap<Attribute>, SchemaError> {
    let mut converted = Vec::with_capacity(attributes.len());
    for a in attributes {
        converted.push((a.name.clone(), attribute(At::Key(&at, &a.name), a)?));
    }
    Ok(NameMap::from_vec(converted))
}

fn attribute(at: At<'_>, a: &v6::schema::Attribute) -> Result<Attribute, SchemaError> {
    let ty = match &a.nested_type {
        Some(object) => AttributeType::Nested(NestedObject {
            attributes: attributes(at, &object.attributes)?,
            nesting: nesting(at, object.nesting, false)?,
        }),
        None => AttributeType::Type(cty_type(|| at.path(), &a.r#type)?),
    };
    Ok(Attribute {
        ty,
        description: a.description.clone(),
        description_kind: string_kind(a.description_kind),
        required: a.required,
        optional: a.optional,
        computed: a.computed,
        sensitive: a.sensitive,
        deprecated: a.deprecated,
        deprecation_message: a.deprecation_message.clone(),
        write_only: a.write_only,
    })
}

fn function(path: &str, f: &v6::Function) -> Result<Function, SchemaError> {
    let parameter = |p: &v6::function::Parameter| -> Result<Parameter, SchemaError> {
        Ok(Parameter {
            name: p.name.clone(),
            ty: cty_type(|| format!("{path}({})", p.name), &p.r#type)?,
            allow_null_value: p.allow_null_value,
            allow_unknown_values: p.allow_unknown_values,
            description: p.description.clone(),
            description_kind: string_kind(p.description_kind),
        })
    };
    let return_type = match &f.r#return {
        Some(r) => cty_type(|| format!("{path} return"), &r.r#type)?,
        None => {
            return Err(SchemaError {
                path: path.to_owned(),
                reason: "no return type".into(),
            });
        }
    };
    Ok(Function {
        parameters: f
            .parameters
            .iter()
            .map(parameter)
            .collect::<Result<_, _>>()?,
        variadic_parameter: f.variadic_parameter.as_ref().map(parameter).transpose()?,
        return_type,
        summary: f.summary.clone(),
        description: f.description.clone(),
        description_kind: string_kind(f.description_kind),
        deprecation_message: f.deprecation_message.clone(),
    })
}

fn cty_type(path: impl FnOnce() -> String, bytes: &[u8]) -> Result<Type, SchemaError> {
    // Most attributes are plain strings, numbers or bools: no JSON parse for those.
    match bytes {
        b"\"string\"" => return Ok(Type::String),
        b"\"number\"" => return Ok(Type::Number),
        b"\"bool\"" => return Ok(Type::Bool),
        _ => {}
    }
    Type::from_json_bytes(bytes).map_err(|err| SchemaError {
        path: path(),
        reason: err.to_string(),
    })
}

fn nesting(at: At<'_>, mode: i32, block: bool) -> Result<NestingMode, SchemaError> {
    use v6::schema::nested_block::NestingMode as Mode;
    // Schema.Object's nesting enum has the same numbers as NestedBlock's, without GROUP.
    match Mode::try_from(mode) {
        Ok(Mode::Single) => Ok(NestingMode::Single),
        Ok(Mode::List) => Ok(NestingMode::List),
        Ok(Mode::Set) => Ok(NestingMode::Set),
        Ok(Mode::Map) => Ok(NestingMode::Map),
        Ok(Mode::Group) if block => Ok(NestingMode::Group),
        _ => Err(SchemaError {
            path: at.path(),
            reason: format!("invalid nesting mode {mode}"),
        }),
    }
}

fn string_kind(kind: i32) -> StringKind {
    if kind == v6::StringKind::Markdown as i32 {
        StringKind::Markdown
    } else {
        StringKind::Plain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attribute(name: &str, ty: &[u8]) -> v6::schema::Attribute {
        v6::schema::Attribute {
            name: name.to_owned(),
            r#type: ty.to_vec(),
            optional: true,
            ..Default::default()
        }
    }

    /// A response with resource `test_res` whose block `outer` holds `attributes`.
    fn response(
        attributes: Vec<v6::schema::Attribute>,
        nesting: i32,
    ) -> v6::get_provider_schema::Response {
        let outer = v6::schema::NestedBlock {
            type_name: "outer".to_owned(),
            block: Some(v6::schema::Block {
                attributes,
                ..Default::default()
            }),
            nesting,
            ..Default::default()
        };
        let resource = v6::Schema {
            block: Some(v6::schema::Block {
                attributes: vec![attribute("plain", b"\"string\"")],
                block_types: vec![outer],
                ..Default::default()
            }),
            ..Default::default()
        };
        v6::get_provider_schema::Response {
            resource_schemas: [("test_res".to_owned(), resource)].into(),
            ..Default::default()
        }
    }

    #[test]
    fn converts_types_and_names_where_an_invalid_element_is() {
        let list = v6::schema::nested_block::NestingMode::List as i32;
        let converted = provider_schema(&response(
            vec![
                attribute("n", b"\"number\""),
                attribute("tags", br#"["map","string"]"#),
            ],
            list,
        ))
        .expect("a valid schema converts");
        let outer = &converted.resources["test_res"].block.block_types["outer"];
        assert_eq!(
            outer.block.attributes["n"].ty,
            AttributeType::Type(Type::Number)
        );
        assert_eq!(
            outer.block.attributes["tags"].ty,
            AttributeType::Type(Type::Map(std::sync::Arc::new(Type::String)))
        );

        let bad_type = provider_schema(&response(vec![attribute("n", b"\"nonsense\"")], list))
            .expect_err("an unknown type is refused");
        assert_eq!(bad_type.path, "resource test_res.outer.n");
        let bad_nesting =
            provider_schema(&response(vec![], 42)).expect_err("nesting 42 is refused");
        assert_eq!(bad_nesting.path, "resource test_res.outer");
        assert_eq!(bad_nesting.reason, "invalid nesting mode 42");
    }
}
