//! The wire forms the provider RPCs exchange, converted to and from our models in one place:
//! `google.protobuf.Struct` ⇄ Pulumi properties, tfplugin6 `DynamicValue` ⇄ cty values,
//! tfplugin6 attribute paths → cty paths, detailed-diff kinds → `PropertyDiff`s, check
//! failures and autonaming options.
//!
//! Invariants: nothing received can panic here; a value the provider sends that does not fit
//! its own schema is an error naming the RPC, not a crash.

use prost_types::Struct;
use tfp_cty::{Path, PathStep, Type, Value};
use tfp_values::{DiffKind, Options, PropertyMap};

use crate::{
    proto::{pulumirpc as rpc, tfplugin6 as v6},
    server::error::Error,
};

/// How the engine's property structs are read: unknowns, resource references and secrets kept
/// (the Go bridge's `unmarshalOptions` unwrap secrets; we keep them so that the translation
/// knows which values it must never quote), nested as deeply as the protobuf decoder allowed.
const INPUT: Options = Options {
    keep_unknowns: true,
    keep_resources: true,
    keep_secrets: true,
    max_depth: tfp_depth::MAX_DEPTH,
    ..Options::DEFAULT
};

/// Reads a property struct from the engine; an absent struct is empty. Every value the engine
/// sent as secret is remembered ([`tfp_secrets`]), so that no text we give out shows it.
pub fn properties(what: &'static str, input: Option<Struct>) -> Result<PropertyMap, Error> {
    let Some(input) = input else {
        return Ok(PropertyMap::new());
    };
    let props = tfp_values::struct_to_properties(input, &INPUT)
        .map_err(|source| Error::Properties { what, source })?;
    tfp_secrets::Secrets::global().remember_secrets_in_map(&props);
    Ok(props)
}

/// How properties are written back: unknowns kept, secrets and resource references as
/// `Configure` allowed.
#[derive(Clone, Copy, Debug)]
pub struct Output {
    pub secrets: bool,
    pub resources: bool,
}

impl Output {
    /// Writes a property struct for the engine.
    pub fn write(self, what: &'static str, map: &PropertyMap) -> Result<Struct, Error> {
        let options = Options {
            keep_unknowns: true,
            keep_secrets: self.secrets,
            keep_resources: self.resources,
            max_depth: tfp_depth::MAX_DEPTH,
            ..Options::DEFAULT
        };
        tfp_values::properties_to_struct(map, &options)
            .map_err(|source| Error::Properties { what, source })
    }
}

/// A cty value as a msgpack `DynamicValue` of type `ty`.
pub fn dynamic(value: &Value, ty: &Type) -> Result<v6::DynamicValue, Error> {
    let msgpack = tfp_cty::to_msgpack(value, ty).map_err(|source| Error::Encode { source })?;
    Ok(v6::DynamicValue {
        msgpack,
        json: Vec::new(),
    })
}

/// The null `DynamicValue` of type `ty`.
pub fn null(ty: &Type) -> Result<v6::DynamicValue, Error> {
    dynamic(&Value::null(ty.clone()), ty)
}

/// The value of a `DynamicValue` the provider sent in its answer to `method`; an absent or empty
/// one is null, as terraform-plugin-go reads it.
pub fn value(
    method: &'static str,
    dv: Option<&v6::DynamicValue>,
    ty: &Type,
) -> Result<Value, Error> {
    let decoded = match dv {
        Some(dv) if !dv.msgpack.is_empty() => tfp_cty::from_msgpack(&dv.msgpack, ty),
        Some(dv) if !dv.json.is_empty() => tfp_cty::from_json(&dv.json, ty),
        _ => return Ok(Value::null(ty.clone())),
    };
    decoded.map_err(|source| Error::Decode { method, source })
}

/// One entry of a detailed diff for the engine; `input_diff` says whether it compares inputs
/// (DiffConfig) rather than the state (Diff).
pub fn property_diff(kind: DiffKind, input_diff: bool) -> rpc::PropertyDiff {
    use rpc::property_diff::Kind;
    let kind = match kind {
        DiffKind::Add => Kind::Add,
        DiffKind::AddReplace => Kind::AddReplace,
        DiffKind::Delete => Kind::Delete,
        DiffKind::DeleteReplace => Kind::DeleteReplace,
        DiffKind::Update => Kind::Update,
        DiffKind::UpdateReplace => Kind::UpdateReplace,
    };
    rpc::PropertyDiff {
        kind: kind as i32,
        input_diff,
    }
}

/// The engine's autonaming options; a mode we do not know proposes, as in Go.
pub fn autonaming(options: &rpc::check_request::AutonamingOptions) -> tfp_translate::Autonaming {
    use rpc::check_request::autonaming_options::Mode;
    use tfp_translate::Autonaming;
    let name = options.proposed_name.clone();
    match Mode::try_from(options.mode) {
        Ok(Mode::Enforce) => Autonaming::Enforce(name),
        Ok(Mode::Disable) => Autonaming::Disable,
        Ok(Mode::Propose) | Err(_) => Autonaming::Propose(name),
    }
}

/// A check failure for the engine.
pub fn check_failure(failure: tfp_translate::Failure) -> rpc::CheckFailure {
    rpc::CheckFailure {
        property: failure.property,
        reason: failure.reason,
    }
}

/// A tfplugin6 attribute path as a cty path. A step that names nothing (no selector, or a
/// negative index) ends it there: the path then names the element that holds what the
/// provider meant, rather than another element.
pub fn path(attribute: &v6::AttributePath) -> Path {
    use v6::attribute_path::step::Selector;
    let steps = attribute
        .steps
        .iter()
        .map_while(|step| match step.selector.as_ref()? {
            Selector::AttributeName(name) => Some(PathStep::Attr(name.clone())),
            Selector::ElementKeyString(key) => Some(PathStep::Key(key.clone())),
            Selector::ElementKeyInt(i) => u64::try_from(*i).ok().map(PathStep::Index),
        })
        .collect();
    Path(steps)
}

#[cfg(test)]
mod tests {
    use tfp_cty::PathStep;

    use crate::proto::tfplugin6 as v6;
    use v6::attribute_path::{Step, step::Selector};

    #[test]
    fn a_path_ends_at_a_step_that_names_nothing() {
        let step = |selector| Step {
            selector: Some(selector),
        };
        let path = |steps: Vec<Step>| super::path(&v6::AttributePath { steps }).0;
        let rule = step(Selector::AttributeName("rule".into()));
        let port = step(Selector::AttributeName("port".into()));
        assert_eq!(
            path(vec![
                rule.clone(),
                step(Selector::ElementKeyInt(1)),
                port.clone()
            ]),
            [
                PathStep::Attr("rule".into()),
                PathStep::Index(1),
                PathStep::Attr("port".into())
            ]
        );
        for broken in [step(Selector::ElementKeyInt(-1)), Step { selector: None }] {
            assert_eq!(
                path(vec![rule.clone(), broken, port.clone()]),
                [PathStep::Attr("rule".into())],
                "not rule[0].port, nor rule.port"
            );
        }
    }
}
