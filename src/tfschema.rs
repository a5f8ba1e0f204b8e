//! tfplugin6 schema messages → our provider-schema model (`tfp_cty`), the one place where
//! that conversion happens.
//!
//! A provider's schema is untrusted input: an attribute type that is not valid cty JSON, or an
//! unknown nesting mode, is an error that names the schema and attribute.

use std::collections::{BTreeMap, BTreeSet};

use tfp_cty::{
    Function, IdentityAttribute, IdentitySchema, NestingMode, Parameter, ProviderSchema, Schema,
    StringKind, Type,
};

use tfp_mapping::{BlockKind, MappedBlock, MappedBlocks, Mapper, Mapping, MappingError, Options};

use crate::proto::tfplugin6 as v6;

mod wire;

pub(crate) use wire::MAX_NESTING;

/// A schema element the provider described in a way we cannot use.
#[derive(Debug, thiserror::Error)]
#[error("invalid provider schema at {path}: {reason}")]
pub struct SchemaError {
    pub path: String,
    pub reason: String,
}

/// Why a provider's answer could not be converted and mapped ([`SchemaAnswer::mapping`]).
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    #[error(transparent)]
    Schema(#[from] SchemaError),
    #[error(transparent)]
    Mapping(#[from] MappingError),
}

/// The kinds of schemas a `GetProviderSchema` answer holds by name, many and independent
/// (resources, data sources, ephemeral and list resources): what they are called in errors, the
/// answer's field of each, and what the mapping makes of them.
const KINDS: [(&str, u32, BlockKind); 4] = [
    ("resource", 2, BlockKind::Resource),
    ("data source", 3, BlockKind::DataSource),
    ("ephemeral resource", 8, BlockKind::Ephemeral),
    ("list resource", 9, BlockKind::List),
];

/// Converts a `GetProviderSchema` answer decoded already: it is encoded again and read as one
/// received is ([`SchemaAnswer`]), so that every schema is converted by one reading of the wire
/// form.
pub fn provider_schema(
    r: &v6::get_provider_schema::Response,
) -> Result<ProviderSchema, SchemaError> {
    use prost::Message as _;
    let bytes = r.encode_to_vec();
    SchemaAnswer::split(&bytes)?.provider_schema()
}

/// A `GetProviderSchema` answer read from its bytes (v6's wire form) in parts: everything but
/// the schemas by name (`KINDS`) decoded at once, and those kept as the bytes of their map
/// entries, each decoded, converted and freed on its own, on all cores
/// ([`SchemaAnswer::provider_schema`]). The provider's answer is thus never decoded whole: for
/// AWS 3.39.0 (1,300 schemas in 615 KB) that took one core about 6 ms, in memory the process
/// had never touched, and held every decoded schema until the last was converted.
pub struct SchemaAnswer<'a> {
    /// The answer without its schemas by name.
    pub rest: v6::get_provider_schema::Response,
    /// Each schema by name: its kind (an index into [`KINDS`]) and its map entry's bytes.
    entries: Vec<(usize, &'a [u8])>,
}

impl<'a> SchemaAnswer<'a> {
    /// Splits the answer's `bytes`, as `host::Client` gives them: a v6 answer bounded in depth
    /// whole, a v5 answer's schemas bounded by its renumbering walk (which refuses groups), so
    /// the schemas' reader never recurses without a bound; what is not a schema is checked
    /// here before prost decodes it.
    pub fn split(bytes: &'a [u8]) -> Result<SchemaAnswer<'a>, SchemaError> {
        use prost::{
            Message as _,
            encoding::{DecodeContext, WireType, decode_key, decode_varint, skip_field},
        };
        let malformed = |err: prost::DecodeError| SchemaError {
            path: "the answer".into(),
            reason: format!("it cannot be decoded: {err}"),
        };
        let mut rest = Vec::new();
        let mut entries = Vec::new();
        let mut left = bytes;
        while !left.is_empty() {
            let start = bytes.len() - left.len();
            let (field, wire_type) = decode_key(&mut left).map_err(malformed)?;
            let kind = KINDS.iter().position(|&(_, number, _)| number == field);
            match kind {
                Some(kind) if wire_type == WireType::LengthDelimited => {
                    let len = decode_varint(&mut left).map_err(malformed)?;
                    let entry = usize::try_from(len)
                        .ok()
                        .and_then(|len| left.get(..len))
                        .ok_or_else(|| SchemaError {
                            path: "the answer".into(),
                            reason: "a schema goes beyond its end".into(),
                        })?;
                    left = &left[entry.len()..];
                    entries.push((kind, entry));
                }
                _ => {
                    skip_field(wire_type, field, &mut left, DecodeContext::default())
                        .map_err(malformed)?;
                    rest.extend_from_slice(&bytes[start..bytes.len() - left.len()]);
                }
            }
        }
        // A protocol-5 answer was not checked for depth whole (`host::Client`'s schema bytes).
        tfp_depth::check_as::<v6::get_provider_schema::Response>(&rest).map_err(|err| {
            SchemaError {
                path: "the answer".into(),
                reason: err.to_string(),
            }
        })?;
        let rest = v6::get_provider_schema::Response::decode(rest.as_slice()).map_err(malformed)?;
        Ok(SchemaAnswer { rest, entries })
    }

    /// Converts the answer.
    pub fn provider_schema(&self) -> Result<ProviderSchema, SchemaError> {
        let converted = tfp_mapping::parallel::map_with_weights(
            &self.entries,
            |(_, bytes)| bytes.len(),
            || (),
            |(), &(kind, bytes)| wire::entry(KINDS[kind].0, bytes),
        );
        let mut maps: [BTreeMap<String, Schema>; 4] = Default::default();
        for (&(kind, _), converted) in self.entries.iter().zip(converted) {
            let (name, converted) = converted?;
            maps[kind].insert(name, converted);
        }
        with_named(&self.rest, maps)
    }

    /// Converts the answer and maps it (as `tfp_mapping::Mapping::new` maps the schema
    /// [`SchemaAnswer::provider_schema`] gives) in one loop on all cores: each schema by name
    /// is decoded, converted and mapped on one thread, while it is still in that core's cache,
    /// and the tokens, which need only the names, are made on the way, as the loop's first
    /// item. Errors come as they would one step after the other: the conversion's first.
    pub fn mapping(
        &self,
        provider_type: &str,
        version: &str,
        options: Options,
    ) -> Result<Mapping, MapError> {
        // The names, read ahead of their schemas; an entry that cannot be read has no name
        // here, and its conversion fails below.
        let mut names: [BTreeSet<&str>; 4] = Default::default();
        for &(kind, bytes) in &self.entries {
            if let Some(name) = wire::entry_name(bytes) {
                names[kind].insert(name);
            }
        }
        let mapper = Mapper::new(provider_type, version, options, names[0].iter().copied());
        // `None` is the tokens, taken first; `Some` an entry, the largest first.
        let work: Vec<Option<usize>> = std::iter::once(None)
            .chain((0..self.entries.len()).map(Some))
            .collect();
        let done = tfp_mapping::parallel::map_with_weights(
            &work,
            |item| item.map_or(usize::MAX, |i| self.entries[i].1.len()),
            || (),
            |(), item| match *item {
                None => Done::Tokens(mapper.tokens(&names[0], &names[1], &names[2])),
                Some(i) => {
                    let (kind, bytes) = self.entries[i];
                    let (what, _, block_kind) = KINDS[kind];
                    let converted = wire::entry(what, bytes).map(|(name, schema)| {
                        let mapped = mapper.block(block_kind, &name, &schema.block);
                        (name, schema, mapped)
                    });
                    Done::Entry(kind, converted)
                }
            },
        );
        let mut tokens = None;
        let mut maps: [BTreeMap<String, Schema>; 4] = Default::default();
        let mut blocks = MappedBlocks::default();
        for done in done {
            match done {
                Done::Tokens(made) => tokens = Some(made),
                Done::Entry(kind, converted) => {
                    let (name, schema, mapped) = converted?;
                    if let Some(mapped) = mapped {
                        blocks.insert(KINDS[kind].2, name.clone(), mapped);
                    }
                    maps[kind].insert(name, schema);
                }
            }
        }
        let schema = with_named(&self.rest, maps)?;
        let tokens = tokens.expect("the tokens are an item of the loop, and every item is made");
        Ok(mapper.finish(schema, tokens, blocks)?)
    }
}

/// What one item of [`SchemaAnswer::mapping`]'s loop made: the tokens, or a schema by name of
/// a kind (an index into [`KINDS`]), converted and mapped.
#[expect(
    clippy::large_enum_variant,
    reason = "the large variant is every item but one: boxing it would allocate per schema"
)]
enum Done {
    Tokens(tfp_mapping::Tokens),
    Entry(
        usize,
        Result<(String, Schema, Option<MappedBlock>), SchemaError>,
    ),
}

/// The provider's schema from the answer `r` and its schemas by name, converted.
fn with_named(
    r: &v6::get_provider_schema::Response,
    maps: [BTreeMap<String, Schema>; 4],
) -> Result<ProviderSchema, SchemaError> {
    let [resources, data_sources, ephemeral_resources, list_resources] = maps;
    Ok(ProviderSchema {
        provider: match &r.provider {
            Some(s) => encoded(At::Root("provider"), s)?,
            None => Schema::default(),
        },
        provider_meta: r
            .provider_meta
            .as_ref()
            .map(|s| encoded(At::Root("provider_meta"), s))
            .transpose()?,
        resources,
        data_sources,
        ephemeral_resources,
        list_resources,
        functions: functions(&r.functions)?,
    })
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

/// The provider's own schema or its `provider_meta`, decoded with the rest of the answer (a few
/// kilobytes), read from its wire form as every other schema is.
fn encoded(at: At<'_>, s: &v6::Schema) -> Result<Schema, SchemaError> {
    use prost::Message as _;
    wire::schema(at, &s.encode_to_vec())
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

    /// The conversion of the generated messages that reading the wire form replaced ([`wire`]),
    /// kept as what that reading must make.
    pub(super) mod generated {
        use tfp_cty::{Attribute, AttributeType, Block, NameMap, NestedBlock, NestedObject};

        use super::super::*;

        /// What the conversion of the generated messages made of `s`.
        pub(in crate::tfschema) fn converted(
            at: At<'_>,
            s: v6::Schema,
        ) -> Result<Schema, SchemaError> {
            Ok(Schema {
                version: s.version,
                block: match s.block {
                    Some(b) => block(at, b)?,
                    None => Block::default(),
                },
            })
        }

        fn block(at: At<'_>, b: v6::schema::Block) -> Result<Block, SchemaError> {
            let mut block_types = Vec::with_capacity(b.block_types.len());
            for n in b.block_types {
                let at = At::Key(&at, &n.type_name);
                let nested = NestedBlock {
                    block: match n.block {
                        Some(b) => block(at, b)?,
                        None => Block::default(),
                    },
                    nesting: nesting(at, n.nesting, true)?,
                    min_items: n.min_items,
                    max_items: n.max_items,
                };
                block_types.push((n.type_name, nested));
            }
            Ok(Block {
                attributes: attributes(at, b.attributes)?,
                block_types: NameMap::from_vec(block_types),
                description: b.description,
                description_kind: string_kind(b.description_kind),
                deprecated: b.deprecated,
                deprecation_message: b.deprecation_message,
            })
        }

        /// Attributes by name: sorted once, when all are converted.
        fn attributes(
            at: At<'_>,
            attributes: Vec<v6::schema::Attribute>,
        ) -> Result<NameMap<Attribute>, SchemaError> {
            let mut converted = Vec::with_capacity(attributes.len());
            for a in attributes {
                converted.push(attribute(at, a)?);
            }
            Ok(NameMap::from_vec(converted))
        }

        /// Attribute `a` of the element at `parent`, and its name.
        fn attribute(
            parent: At<'_>,
            a: v6::schema::Attribute,
        ) -> Result<(String, Attribute), SchemaError> {
            let at = At::Key(&parent, &a.name);
            let ty = match a.nested_type {
                Some(object) => AttributeType::Nested(NestedObject {
                    attributes: attributes(at, object.attributes)?,
                    nesting: nesting(at, object.nesting, false)?,
                }),
                None => AttributeType::Type(cty_type(|| at.path(), &a.r#type)?),
            };
            let attribute = Attribute {
                ty,
                description: a.description,
                description_kind: string_kind(a.description_kind),
                required: a.required,
                optional: a.optional,
                computed: a.computed,
                sensitive: a.sensitive,
                deprecated: a.deprecated,
                deprecation_message: a.deprecation_message,
                write_only: a.write_only,
            };
            Ok((a.name, attribute))
        }
    }

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
            tfp_cty::AttributeType::Type(Type::Number)
        );
        assert_eq!(
            outer.block.attributes["tags"].ty,
            tfp_cty::AttributeType::Type(Type::Map(std::sync::Arc::new(Type::String)))
        );

        let bad_type = provider_schema(&response(vec![attribute("n", b"\"nonsense\"")], list))
            .expect_err("an unknown type is refused");
        assert_eq!(bad_type.path, "resource test_res.outer.n");
        let bad_nesting =
            provider_schema(&response(vec![], 42)).expect_err("nesting 42 is refused");
        assert_eq!(bad_nesting.path, "resource test_res.outer");
        assert_eq!(bad_nesting.reason, "invalid nesting mode 42");
    }

    /// An answer with something in every field `SchemaAnswer` splits or keeps.
    fn full_answer() -> v6::get_provider_schema::Response {
        let list = v6::schema::nested_block::NestingMode::List as i32;
        let mut r = response(
            vec![
                attribute("n", b"\"number\""),
                attribute("tags", br#"["map","string"]"#),
            ],
            list,
        );
        let block = |name: &str| v6::Schema {
            version: 3,
            block: Some(v6::schema::Block {
                attributes: vec![attribute(name, b"\"bool\"")],
                description: format!("{name} described"),
                ..Default::default()
            }),
        };
        r.resource_schemas.insert("test_other".into(), block("o"));
        r.resource_schemas
            .insert("test_empty".into(), v6::Schema::default());
        r.data_source_schemas.insert("test_data".into(), block("d"));
        r.ephemeral_resource_schemas
            .insert("test_eph".into(), block("e"));
        r.list_resource_schemas
            .insert("test_list".into(), block("l"));
        r.provider = Some(block("region"));
        r.provider_meta = Some(block("module_name"));
        r.diagnostics.push(v6::Diagnostic {
            severity: 2,
            summary: "a warning".into(),
            ..Default::default()
        });
        r.server_capabilities = Some(v6::ServerCapabilities {
            plan_destroy: true,
            get_provider_schema_optional: true,
            ..Default::default()
        });
        r.functions.insert(
            "double".into(),
            v6::Function {
                r#return: Some(v6::function::Return {
                    r#type: b"\"number\"".to_vec(),
                }),
                ..Default::default()
            },
        );
        r
    }

    #[test]
    fn an_answer_read_in_parts_converts_as_the_answer_decoded_whole() {
        use prost::Message as _;
        let whole = full_answer();
        let bytes = whole.encode_to_vec();
        let answer = SchemaAnswer::split(&bytes).expect("a valid answer splits");
        assert_eq!(answer.entries.len(), 6, "every schema by name is an entry");
        let in_parts = answer.provider_schema().expect("a valid answer converts");
        let converted = |kind: &str, schemas: &std::collections::HashMap<String, v6::Schema>| {
            (schemas.iter())
                .map(|(name, s)| {
                    let at = At::Named(kind, name);
                    (name.clone(), generated::converted(at, s.clone()).unwrap())
                })
                .collect::<BTreeMap<_, _>>()
        };
        let whole_converted = ProviderSchema {
            provider: generated::converted(At::Root("provider"), whole.provider.clone().unwrap())
                .expect("the provider's schema converts"),
            provider_meta: (whole.provider_meta.clone())
                .map(|s| generated::converted(At::Root("provider_meta"), s).unwrap()),
            resources: converted("resource", &whole.resource_schemas),
            data_sources: converted("data source", &whole.data_source_schemas),
            ephemeral_resources: converted("ephemeral resource", &whole.ephemeral_resource_schemas),
            list_resources: converted("list resource", &whole.list_resource_schemas),
            functions: functions(&whole.functions).expect("the functions convert"),
        };
        assert_eq!(in_parts, whole_converted);
        assert_eq!(
            in_parts,
            provider_schema(&whole).expect("it converts whole")
        );
        assert_eq!(in_parts.resources.len(), 3);
        assert_eq!(in_parts.ephemeral_resources["test_eph"].version, 3);
        assert_eq!(
            in_parts.list_resources["test_list"].block.description,
            "l described"
        );
        let rest = v6::get_provider_schema::Response {
            resource_schemas: Default::default(),
            data_source_schemas: Default::default(),
            ephemeral_resource_schemas: Default::default(),
            list_resource_schemas: Default::default(),
            ..whole
        };
        assert_eq!(
            answer.rest, rest,
            "everything else is decoded as it was sent"
        );
    }

    /// `SchemaAnswer::mapping` against `Mapping::new` of the converted answer: the same
    /// mapping, or the same error, for `options`.
    fn mapped_as_one_step_after_the_other(bytes: &[u8], options: &Options) -> String {
        let answer = SchemaAnswer::split(bytes).expect("it splits");
        let in_one_loop = answer.mapping("test", "1.2.3", options.clone());
        let stepwise = answer
            .provider_schema()
            .map_err(MapError::from)
            .and_then(|schema| Ok(Mapping::new(schema, "test", "1.2.3", options.clone())?));
        match (in_one_loop, stepwise) {
            (Ok(in_one_loop), Ok(stepwise)) => {
                assert_eq!(in_one_loop, stepwise);
                "mapped".to_owned()
            }
            (Err(in_one_loop), Err(stepwise)) => {
                let (in_one_loop, stepwise) = (in_one_loop.to_string(), stepwise.to_string());
                assert_eq!(in_one_loop, stepwise);
                in_one_loop
            }
            (in_one_loop, stepwise) => panic!("{in_one_loop:?} against {stepwise:?}"),
        }
    }

    #[test]
    fn an_answer_mapped_in_one_loop_is_mapped_as_step_after_step() {
        use prost::Message as _;
        let mut whole = full_answer();
        // A list resource of a resource's name gives that resource's `list` fields.
        let listed = whole.resource_schemas["test_other"].clone();
        whole
            .list_resource_schemas
            .insert("test_other".into(), listed);
        let bytes = whole.encode_to_vec();
        let excluded = |names: &[&str]| Options {
            excludes: names.iter().map(|&n| n.to_owned()).collect(),
            ..Options::default()
        };
        for options in [
            Options::default(),
            excluded(&["test_other", "test_data"]),
            Options {
                includes: vec!["test_res".into(), "test_eph".into()],
                provider_name: Some("renamed".into()),
                ..Options::default()
            },
        ] {
            assert_eq!(
                mapped_as_one_step_after_the_other(&bytes, &options),
                "mapped"
            );
        }
        let answer = SchemaAnswer::split(&bytes).expect("it splits");
        let mapping = (answer.mapping("test", "1.2.3", Options::default())).expect("it maps");
        let other = mapping.resource("test_other").expect("mapped");
        assert!(other.list.is_some(), "its list resource's fields");
        assert_eq!(
            mapping.schema(),
            &answer.provider_schema().expect("it converts")
        );

        // A resource without the prefix the others share: no token (a mapping's problem).
        let mut unprefixed = full_answer();
        let schema = unprefixed.resource_schemas["test_other"].clone();
        unprefixed.resource_schemas.insert("stray".into(), schema);
        let err =
            mapped_as_one_step_after_the_other(&unprefixed.encode_to_vec(), &Options::default());
        assert!(err.contains("\"stray\""), "{err}");

        // A schema that does not convert: the conversion's error, before any mapping's.
        let list = v6::schema::nested_block::NestingMode::List as i32;
        let mut invalid = response(vec![attribute("n", b"\"nonsense\"")], list);
        invalid
            .resource_schemas
            .insert("stray".into(), v6::Schema::default());
        let err = mapped_as_one_step_after_the_other(&invalid.encode_to_vec(), &Options::default());
        assert!(err.contains("resource test_res.outer.n"), "{err}");

        // Of two entries of one name, the last is converted and mapped.
        let first = response(vec![attribute("first", b"\"string\"")], list).encode_to_vec();
        let last = response(vec![attribute("last", b"\"string\"")], list).encode_to_vec();
        let both = [first, last].concat();
        assert_eq!(
            mapped_as_one_step_after_the_other(&both, &Options::default()),
            "mapped"
        );
    }

    #[test]
    fn an_answer_read_in_parts_names_an_invalid_element_and_keeps_the_last_of_a_name() {
        use prost::Message as _;
        let list = v6::schema::nested_block::NestingMode::List as i32;
        let bad = response(vec![attribute("n", b"\"nonsense\"")], list).encode_to_vec();
        let err = SchemaAnswer::split(&bad)
            .expect("it splits")
            .provider_schema()
            .expect_err("an unknown type is refused");
        assert_eq!(err.path, "resource test_res.outer.n");

        // Protobuf's maps keep the last entry of a key; so do we.
        let first = response(vec![attribute("first", b"\"string\"")], list).encode_to_vec();
        let last = response(vec![attribute("last", b"\"string\"")], list).encode_to_vec();
        let both = [first, last].concat();
        let converted = SchemaAnswer::split(&both)
            .and_then(|answer| answer.provider_schema())
            .expect("it converts");
        let outer = &converted.resources["test_res"].block.block_types["outer"];
        assert!(outer.block.attributes.get("last").is_some());
        assert!(outer.block.attributes.get("first").is_none());
    }

    #[test]
    fn an_answer_cut_short_is_refused_not_read() {
        use prost::Message as _;
        let bytes = full_answer().encode_to_vec();
        // Maps are encoded in no fixed order, so only cuts that fall inside a field for sure.
        for cut in [1, 2, bytes.len() - 1] {
            let refused = SchemaAnswer::split(&bytes[..cut])
                .and_then(|answer| answer.provider_schema().map(|_| ()));
            assert!(refused.is_err(), "an answer cut at {cut} bytes was read");
        }
        let err = SchemaAnswer::split(&[0x12, 0x05, 0x0a])
            .err()
            .expect("a schema longer than the answer is refused");
        assert_eq!(err.reason, "a schema goes beyond its end");
    }

    /// What is not a schema is decoded by prost, which recurses through groups without a
    /// limit: it is checked for depth first, since a protocol-5 answer is not checked whole.
    #[test]
    fn the_rest_of_an_answer_is_bounded_before_it_is_decoded() {
        let levels = tfp_depth::MAX_DEPTH + 1;
        // A diagnostic (field 4) holding unknown groups (field 15) nested one too deep.
        let mut diagnostic = vec![0x7b; levels];
        diagnostic.extend(std::iter::repeat_n(0x7c, levels));
        let answer = tfp_testkit::protobuf::field(4, &diagnostic);
        let err = SchemaAnswer::split(&answer)
            .err()
            .expect("refused, not decoded");
        assert!(err.reason.contains("nested more than"), "{}", err.reason);
    }

    #[test]
    fn the_threads_that_decode_schemas_have_the_stack_of_the_runtime_threads() {
        assert_eq!(
            tfp_mapping::parallel::HELPER_STACK_BYTES,
            tfp_depth::STACK_BYTES
        );
    }
}
