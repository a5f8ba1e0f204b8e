//! The Go bridge's "marshallable ProviderInfo" (`MarshalProviderInfo`,
//! `pkg/tfbridge/info/info.go`) of a mapped provider: the data GetMapping answers for the keys
//! `tf` and `terraform` (`pkg/pf/tfbridge/provider_get_mapping.go`), which the mapping
//! converters (`pulumi convert --from terraform`) read. It holds the provider's Terraform schema
//! as the bridge's schema shim sees it (`pkg/pf/proto`), and the tokens and field overrides the
//! dynamic bridge computed (`dynamic/info.go`).
//!
//! Invariants: the bytes are those of Go's `encoding/json`: struct fields in Go's declaration
//! order, map keys sorted, `omitempty` honoured field by field (including Go's quirks: the
//! `typeomitempty` key of `SchemaInfo.Type`, `fields` always present, `idFields` always
//! `null`), HTML-safe escaping, no trailing newline. Before Parameterize the Go binary answers
//! for its base provider, `terraform-provider`, with an empty schema
//! ([`unparameterized_json`]).

use std::collections::BTreeMap;

use tfp_gostd::json::Object;
use tfp_mapping::{Mapping, ResourceMapping};

use crate::BASE_PROVIDER;

mod shim;

/// Top-level resource properties the bridge's default fix-ups rename (`id`, `pulumi`, `urn`,
/// `pkg/tfbridge/tokens/fixups.go`); each renamed one has a `SchemaInfo` with its new name.
const RESERVED: [&str; 3] = ["id", "pulumi", "urn"];

/// The data of the bare plugin: no schema, no resources, and the version with its `v` (Go's
/// `version.Version()`).
pub fn unparameterized_json(version: &str) -> Vec<u8> {
    let mut out = String::new();
    let mut info = Object::start(&mut out);
    info.key("provider").push_str("{}");
    info.string("name", BASE_PROVIDER);
    info.string("version", &format!("v{}", version.trim_start_matches('v')));
    info.end();
    out.into_bytes()
}

/// The marshallable ProviderInfo of a mapped provider (`MarshallableProvider`).
pub fn provider_info_json(mapping: &Mapping) -> Vec<u8> {
    let mut out = String::with_capacity(64 * 1024);
    let mut info = Object::start(&mut out);
    shim::provider(info.key("provider"), mapping.schema());
    info.string("name", mapping.package());
    info.string("version", mapping.version());
    // `config` is omitted: the dynamic bridge gives the provider configuration no SchemaInfo.
    let mut resources = mapping.resources().peekable();
    if resources.peek().is_some() {
        map(
            info.key("resources"),
            resources.map(|r| (r.tf_name.as_str(), r)),
            resource_info,
        );
    }
    let mut data_sources = mapping.data_sources().peekable();
    if data_sources.peek().is_some() {
        map(
            info.key("dataSources"),
            data_sources.map(|d| (d.tf_name.as_str(), d.token.as_str())),
            |out, token| {
                let mut d = Object::start(out);
                d.string("tok", token);
                d.key("fields").push_str("{}");
                d.end();
            },
        );
    }
    let mut functions = mapping.functions().peekable();
    if functions.peek().is_some() {
        map(
            info.key("functions"),
            functions.map(|f| (f.tf_name.as_str(), f.token.as_str())),
            |out, token| {
                let mut f = Object::start(out);
                f.string("tok", token);
                f.end();
            },
        );
    }
    // `tfProviderVersion` and `skipDefaultFixups` are empty and omitted.
    info.end();
    out.into_bytes()
}

/// A `MarshallableResource`: the token, the fields the fix-ups and autonaming set, and the
/// deprecated `idFields`, which Go writes as `null` because nothing sets it.
fn resource_info(out: &mut String, resource: &ResourceMapping) {
    let mut fields: BTreeMap<&str, Override<'_>> = BTreeMap::new();
    for key in RESERVED {
        if let Some(field) = resource.fields.get(key)
            && field.name != key
        {
            fields.insert(key, Override::Renamed(&field.name));
        }
    }
    if let Some(auto) = &resource.autoname {
        fields.insert(&auto.tf_name, Override::AutoNamed(&auto.property));
    }
    let mut r = Object::start(out);
    r.string("tok", &resource.token);
    map(r.key("fields"), fields, |out, field| {
        let mut s = Object::start(out);
        let (Override::Renamed(name) | Override::AutoNamed(name)) = field;
        s.string("name", name);
        // Go's tag is `json:"typeomitempty"`, a key named so and never omitted.
        s.string("typeomitempty", "");
        if let Override::AutoNamed(_) = field {
            // `AutoName` sets `AutoNamed` and a `ComputeDefault` function.
            let mut default = Object::start(s.key("default"));
            default.bool_omitempty("autonamed", true);
            default.bool_omitempty("isFunc", true);
            default.end();
        }
        s.end();
    });
    r.key("idFields").push_str("null");
    r.end();
}

/// The `SchemaInfo` a resource field gets from the dynamic bridge.
#[derive(Clone, Copy)]
enum Override<'a> {
    /// A reserved name moved out of the way: only `Name` is set.
    Renamed(&'a str),
    /// `name`, autonamed (`SetAutonaming(255, "-")`).
    AutoNamed(&'a str),
}

/// Writes a Go map: keys come sorted from the caller (a `BTreeMap` or sorted iterator).
fn map<'k, V>(
    out: &mut String,
    entries: impl IntoIterator<Item = (&'k str, V)>,
    mut value: impl FnMut(&mut String, V),
) {
    let mut o = Object::start(out);
    for (key, v) in entries {
        value(o.key(key), v);
    }
    o.end();
}

#[cfg(test)]
mod tests;
