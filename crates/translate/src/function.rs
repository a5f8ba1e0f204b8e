//! Provider-defined functions: Pulumi invoke arguments to positional cty arguments, and the
//! function's result back (the Go bridge's `pkg/pf/tfbridge/provider_functions.go`).
//!
//! Arguments are named by the mapping; secrets are not sent as such (cty has no marks on the
//! wire) but an error never quotes one; any unknown argument makes every result property unknown
//! without a call; unexpected arguments, missing ones (Terraform's "Not enough function
//! arguments": every parameter must be given, null or not) and nulls for parameters that do not
//! allow them are check failures; the variadic argument is a list whose elements are passed as
//! trailing arguments. An object result is the invoke's outputs; any other result is
//! the single property `result`.

use std::borrow::Cow;

use tfp_cty::{Function, Type, Value};
use tfp_mapping::{FunctionMapping, Shape};
use tfp_values::{PropertyMap, PropertyValue};

use crate::decode::Decoder;
use crate::encode::{Encoder, Mode};
use crate::error::{Error, PropertyPath, Result};
use crate::schema::Node;

/// The property that carries a non-object function result (SDKs unwrap it).
pub const RESULT_PROPERTY: &str = "result";

/// A check failure of an invoke: the argument and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub property: String,
    pub reason: String,
}

/// What to do with a function invoke.
#[derive(Clone, Debug, PartialEq)]
pub enum FunctionCall {
    /// Call the function with these positional arguments (variadic elements expanded).
    Call(Vec<Value>),
    /// An argument is unknown: answer these outputs, all unknown, without calling.
    Unknown(PropertyMap),
    /// The arguments are invalid: answer these failures.
    Failures(Vec<Failure>),
}

/// The call to make for an invoke of `function` with Pulumi arguments `args`.
pub fn function_call(
    function: &Function,
    mapping: &FunctionMapping,
    args: &PropertyMap,
) -> Result<FunctionCall> {
    if args.values().any(PropertyValue::contains_unknowns) {
        return Ok(FunctionCall::Unknown(unknown_result(function, mapping)));
    }
    let tf = &mapping.tf_name;
    let mut failures: Vec<Failure> = args
        .keys()
        .filter(|key| !mapping.arguments.iter().any(|a| &a.name == *key))
        .map(|key| Failure {
            property: key.clone(),
            reason: format!("unexpected argument for function {tf:?}"),
        })
        .collect();
    let null_failure = |allow_null: bool, name: &str, value: &PropertyValue| {
        (value.peel_secret().0.is_null() && !allow_null).then(|| Failure {
            property: name.to_owned(),
            reason: format!("function {tf:?} requires a non-null value for argument {name:?}"),
        })
    };
    // A secret variadic list gives secret elements, so that errors about them quote none.
    let mut positional: Vec<(&Type, &Shape, &str, Cow<'_, PropertyValue>)> = Vec::new();
    let expected = function.parameters.len();
    for (param, argument) in function.parameters.iter().zip(&mapping.arguments) {
        let Some(value) = args.get(&argument.name) else {
            failures.push(Failure {
                property: argument.name.clone(),
                reason: format!(
                    "Not enough function arguments: function {tf:?} expects {expected} \
                     argument(s). Missing value for {:?}.",
                    argument.name
                ),
            });
            continue;
        };
        failures.extend(null_failure(param.allow_null_value, &argument.name, value));
        positional.push((
            &param.ty,
            &argument.shape,
            &argument.name,
            Cow::Borrowed(value),
        ));
    }
    if let (Some(param), Some(argument)) = (
        &function.variadic_parameter,
        mapping.arguments.get(function.parameters.len()),
    ) {
        match args.get(&argument.name).map(PropertyValue::peel_secret) {
            None | Some((PropertyValue::Null, _)) => {}
            Some((PropertyValue::Array(items), secret)) => {
                for item in items {
                    failures.extend(null_failure(param.allow_null_value, &argument.name, item));
                    let item = if secret {
                        Cow::Owned(PropertyValue::secret(item.clone()))
                    } else {
                        Cow::Borrowed(item)
                    };
                    positional.push((&param.ty, &argument.shape, &argument.name, item));
                }
            }
            Some((other, _)) => {
                let mut path = PropertyPath::root();
                path.push_key(&argument.name);
                return Err(Error::value(
                    &path,
                    format!(
                        "argument of function {tf:?} must be a list, found {}",
                        other.kind_name()
                    ),
                ));
            }
        }
    }
    if !failures.is_empty() {
        return Ok(FunctionCall::Failures(failures));
    }
    let mut encoder = Encoder::new(Mode::Config);
    let mut values = Vec::with_capacity(positional.len());
    for (ty, shape, name, value) in positional {
        encoder.path.push_key(name);
        let encoded = encoder.encode(Node::Type(ty, shape), false, &value);
        encoder.path.pop();
        // Functions take no marks: a secret argument is sent as its value, as in Go.
        values.push(encoded?.unmark_deep());
    }
    Ok(FunctionCall::Call(values))
}

/// The outputs of an invoke whose arguments are not known yet: every result property unknown.
fn unknown_result(function: &Function, mapping: &FunctionMapping) -> PropertyMap {
    match (&function.return_type, &mapping.result) {
        (Type::Object { .. }, Shape::Object(fields)) => fields
            .iter()
            .map(|(_, field)| (field.name.clone(), PropertyValue::unknown()))
            .collect(),
        _ => PropertyMap::from([(RESULT_PROPERTY.to_owned(), PropertyValue::unknown())]),
    }
}

/// The invoke's outputs for the value `function` returned.
pub fn function_result(
    function: &Function,
    mapping: &FunctionMapping,
    value: &Value,
) -> Result<PropertyMap> {
    let mut decoder = Decoder {
        path: PropertyPath::root(),
    };
    let node = Node::Type(&function.return_type, &mapping.result);
    if matches!(function.return_type, Type::Object { .. }) {
        return match decoder.decode(node, false, value)? {
            PropertyValue::Object(map) => Ok(map),
            PropertyValue::Null => Ok(PropertyMap::new()),
            other => Err(Error::value(
                &decoder.path,
                format!("expected an object result, found {}", other.kind_name()),
            )),
        };
    }
    decoder.path.push_key(RESULT_PROPERTY);
    let decoded = decoder.decode(node, false, value)?;
    let mut out = PropertyMap::new();
    if !decoded.is_null() {
        out.insert(RESULT_PROPERTY.to_owned(), decoded);
    }
    Ok(out)
}
