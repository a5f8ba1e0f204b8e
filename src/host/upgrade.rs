//! The tfplugin5 → tfplugin6 translation of schemas, the one place where the two protocols'
//! messages differ on the wire.
//!
//! v5 `Schema.Attribute` numbers `write_only` 10 and `deprecation_message` 11; v6 uses 10 for
//! `nested_type` and moves the two to 11 and 12 (terraform-plugin-go's `tfplugin5.proto` and
//! `tfplugin6.proto`, v0.31.0). A v5 attribute never has nested attributes, so nothing is lost.

use crate::proto::{tfplugin5 as v5, tfplugin6 as v6};

/// Upgrades a v5 `GetSchema` answer to a v6 `GetProviderSchema` one.
pub(crate) fn provider_schema(
    r: v5::get_provider_schema::Response,
) -> v6::get_provider_schema::Response {
    let schemas = |m: std::collections::HashMap<String, v5::Schema>| {
        m.into_iter().map(|(k, s)| (k, schema(s))).collect()
    };
    v6::get_provider_schema::Response {
        provider: r.provider.map(schema),
        resource_schemas: schemas(r.resource_schemas),
        data_source_schemas: schemas(r.data_source_schemas),
        diagnostics: r.diagnostics.into_iter().map(diagnostic).collect(),
        provider_meta: r.provider_meta.map(schema),
        server_capabilities: r.server_capabilities.map(|c| v6::ServerCapabilities {
            plan_destroy: c.plan_destroy,
            get_provider_schema_optional: c.get_provider_schema_optional,
            move_resource_state: c.move_resource_state,
            generate_resource_config: c.generate_resource_config,
        }),
        functions: r
            .functions
            .into_iter()
            .map(|(k, f)| (k, function(f)))
            .collect(),
        ephemeral_resource_schemas: schemas(r.ephemeral_resource_schemas),
        list_resource_schemas: schemas(r.list_resource_schemas),
        // Protocol 5 has no state stores.
        state_store_schemas: Default::default(),
        action_schemas: r
            .action_schemas
            .into_iter()
            .map(|(k, a)| {
                (
                    k,
                    v6::ActionSchema {
                        schema: a.schema.map(schema),
                    },
                )
            })
            .collect(),
    }
}

fn schema(s: v5::Schema) -> v6::Schema {
    v6::Schema {
        version: s.version,
        block: s.block.map(block),
    }
}

fn block(b: v5::schema::Block) -> v6::schema::Block {
    v6::schema::Block {
        version: b.version,
        attributes: b.attributes.into_iter().map(attribute).collect(),
        block_types: b.block_types.into_iter().map(nested_block).collect(),
        description: b.description,
        description_kind: b.description_kind,
        deprecated: b.deprecated,
        deprecation_message: b.deprecation_message,
    }
}

fn attribute(a: v5::schema::Attribute) -> v6::schema::Attribute {
    v6::schema::Attribute {
        name: a.name,
        r#type: a.r#type,
        nested_type: None,
        description: a.description,
        required: a.required,
        optional: a.optional,
        computed: a.computed,
        sensitive: a.sensitive,
        description_kind: a.description_kind,
        deprecated: a.deprecated,
        write_only: a.write_only,
        deprecation_message: a.deprecation_message,
    }
}

fn nested_block(n: v5::schema::NestedBlock) -> v6::schema::NestedBlock {
    v6::schema::NestedBlock {
        type_name: n.type_name,
        block: n.block.map(block),
        // The nesting enums have the same numbers in both protocols.
        nesting: n.nesting,
        min_items: n.min_items,
        max_items: n.max_items,
    }
}

fn diagnostic(d: v5::Diagnostic) -> v6::Diagnostic {
    v6::Diagnostic {
        severity: d.severity,
        summary: d.summary,
        detail: d.detail,
        attribute: d.attribute.map(|p| v6::AttributePath {
            steps: p
                .steps
                .into_iter()
                .map(|s| v6::attribute_path::Step {
                    selector: s.selector.map(|sel| {
                        use v5::attribute_path::step::Selector as S5;
                        use v6::attribute_path::step::Selector as S6;
                        match sel {
                            S5::AttributeName(n) => S6::AttributeName(n),
                            S5::ElementKeyString(k) => S6::ElementKeyString(k),
                            S5::ElementKeyInt(i) => S6::ElementKeyInt(i),
                        }
                    }),
                })
                .collect(),
        }),
    }
}

fn function(f: v5::Function) -> v6::Function {
    let parameter = |p: v5::function::Parameter| v6::function::Parameter {
        name: p.name,
        r#type: p.r#type,
        allow_null_value: p.allow_null_value,
        allow_unknown_values: p.allow_unknown_values,
        description: p.description,
        description_kind: p.description_kind,
    };
    v6::Function {
        parameters: f.parameters.into_iter().map(parameter).collect(),
        variadic_parameter: f.variadic_parameter.map(parameter),
        r#return: f
            .r#return
            .map(|r| v6::function::Return { r#type: r.r#type }),
        summary: f.summary,
        description: f.description,
        description_kind: f.description_kind,
        deprecation_message: f.deprecation_message,
    }
}
