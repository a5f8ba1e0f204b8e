//! A provider's schema in the JSON shape of `terraform providers schema -json`, for one provider
//! (the `tf-schema` subcommand prints it).
//!
//! Shape as Terraform's `internal/command/jsonprovider` writes it: false booleans and empty
//! strings are left out, `description_kind` is always present, types are cty type specs.

use serde_json::{Map, Value as Json, json};

use std::collections::BTreeMap;

use crate::{
    Attribute, AttributeType, Block, Function, IdentitySchema, NestingMode, ProviderSchema, Schema,
    StringKind,
};

impl ProviderSchema {
    /// This provider's entry of the document (the value under its type name in
    /// `provider_schemas`).
    pub fn to_terraform_json(&self) -> Json {
        provider_json(self)
    }
}

impl IdentitySchema {
    /// The `resource_identity_schemas` section of a provider's entry (Terraform 1.12), from
    /// the identity schemas by resource type; `None` when there are none, as Terraform leaves
    /// the section out then.
    pub fn section_json(schemas: &BTreeMap<String, IdentitySchema>) -> Option<Json> {
        (!schemas.is_empty()).then(|| {
            schemas
                .iter()
                .map(|(name, schema)| (name.clone(), identity_json(schema)))
                .collect()
        })
    }
}

fn identity_json(schema: &IdentitySchema) -> Json {
    let mut out = Map::new();
    out.insert("version".into(), schema.version.into());
    if !schema.attributes.is_empty() {
        let attributes = schema
            .attributes
            .iter()
            .map(|(name, a)| {
                let mut attribute = Map::new();
                attribute.insert("type".into(), a.ty.to_json());
                if !a.description.is_empty() {
                    attribute.insert("description".into(), a.description.clone().into());
                }
                flag(&mut attribute, "required_for_import", a.required_for_import);
                flag(&mut attribute, "optional_for_import", a.optional_for_import);
                (name.clone(), Json::Object(attribute))
            })
            .collect();
        out.insert("attributes".into(), Json::Object(attributes));
    }
    Json::Object(out)
}

fn provider_json(schema: &ProviderSchema) -> Json {
    let mut out = Map::new();
    out.insert("provider".into(), schema_json(&schema.provider));
    let mut section = |key: &str, schemas: &std::collections::BTreeMap<String, Schema>| {
        if !schemas.is_empty() {
            let map = schemas
                .iter()
                .map(|(k, s)| (k.clone(), schema_json(s)))
                .collect();
            out.insert(key.into(), Json::Object(map));
        }
    };
    section("resource_schemas", &schema.resources);
    section("data_source_schemas", &schema.data_sources);
    section("ephemeral_resource_schemas", &schema.ephemeral_resources);
    section("list_resource_schemas", &schema.list_resources);
    if !schema.functions.is_empty() {
        let map = schema
            .functions
            .iter()
            .map(|(k, f)| (k.clone(), function_json(f)))
            .collect();
        out.insert("functions".into(), Json::Object(map));
    }
    Json::Object(out)
}

fn schema_json(schema: &Schema) -> Json {
    json!({ "version": schema.version, "block": block_json(&schema.block) })
}

fn block_json(block: &Block) -> Json {
    let mut out = Map::new();
    if !block.attributes.is_empty() {
        let map = block
            .attributes
            .iter()
            .map(|(k, a)| (k.clone(), attribute_json(a)))
            .collect();
        out.insert("attributes".into(), Json::Object(map));
    }
    if !block.block_types.is_empty() {
        let map = block
            .block_types
            .iter()
            .map(|(k, n)| {
                let mut nested = Map::new();
                nested.insert("nesting_mode".into(), nesting(n.nesting).into());
                nested.insert("block".into(), block_json(&n.block));
                if n.min_items > 0 {
                    nested.insert("min_items".into(), n.min_items.into());
                }
                if n.max_items > 0 {
                    nested.insert("max_items".into(), n.max_items.into());
                }
                (k.clone(), Json::Object(nested))
            })
            .collect();
        out.insert("block_types".into(), Json::Object(map));
    }
    describe(&mut out, &block.description, block.description_kind);
    flag(&mut out, "deprecated", block.deprecated);
    Json::Object(out)
}

fn attribute_json(a: &Attribute) -> Json {
    let mut out = Map::new();
    match &a.ty {
        AttributeType::Type(ty) => {
            out.insert("type".into(), ty.to_json());
        }
        AttributeType::Nested(object) => {
            let attributes = object
                .attributes
                .iter()
                .map(|(k, a)| (k.clone(), attribute_json(a)))
                .collect();
            out.insert(
                "nested_type".into(),
                json!({ "attributes": Json::Object(attributes), "nesting_mode": nesting(object.nesting) }),
            );
        }
    }
    describe(&mut out, &a.description, a.description_kind);
    flag(&mut out, "deprecated", a.deprecated);
    flag(&mut out, "required", a.required);
    flag(&mut out, "optional", a.optional);
    flag(&mut out, "computed", a.computed);
    flag(&mut out, "sensitive", a.sensitive);
    flag(&mut out, "write_only", a.write_only);
    Json::Object(out)
}

fn function_json(f: &Function) -> Json {
    let parameter = |p: &crate::Parameter| {
        let mut out = Map::new();
        out.insert("name".into(), p.name.clone().into());
        out.insert("type".into(), p.ty.to_json());
        if !p.description.is_empty() {
            out.insert("description".into(), p.description.clone().into());
        }
        flag(&mut out, "is_nullable", p.allow_null_value);
        Json::Object(out)
    };
    let mut out = Map::new();
    if !f.description.is_empty() {
        out.insert("description".into(), f.description.clone().into());
    }
    if !f.summary.is_empty() {
        out.insert("summary".into(), f.summary.clone().into());
    }
    out.insert("return_type".into(), f.return_type.to_json());
    if !f.parameters.is_empty() {
        out.insert(
            "parameters".into(),
            f.parameters.iter().map(parameter).collect(),
        );
    }
    if let Some(variadic) = &f.variadic_parameter {
        out.insert("variadic_parameter".into(), parameter(variadic));
    }
    Json::Object(out)
}

fn describe(out: &mut Map<String, Json>, description: &str, kind: StringKind) {
    if !description.is_empty() {
        out.insert("description".into(), description.into());
    }
    let kind = match kind {
        StringKind::Plain => "plain",
        StringKind::Markdown => "markdown",
    };
    out.insert("description_kind".into(), kind.into());
}

fn flag(out: &mut Map<String, Json>, key: &str, value: bool) {
    if value {
        out.insert(key.into(), true.into());
    }
}

fn nesting(mode: NestingMode) -> &'static str {
    match mode {
        NestingMode::Single => "single",
        NestingMode::Group => "group",
        NestingMode::List => "list",
        NestingMode::Set => "set",
        NestingMode::Map => "map",
    }
}
