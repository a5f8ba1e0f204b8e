//! Provider-defined functions (`pkg/tfgen/generate_functions.go`) and the `terraformConfig`
//! method every provider gets (`generate_schema.go`).
//!
//! A function becomes an invoke with positional arguments (`multiArgumentInputs`); a
//! variadic parameter becomes a final array argument that is never required; a parameter is
//! required when it refuses null or a later one is required. Anonymous object types become
//! named types `<function><Argument>` and `<function>Result`, and Go refuses a name that is
//! already taken. Descriptions are not rewritten, only given Go's line endings.

use std::collections::BTreeMap;
use std::sync::Arc;

use tfp_cty::{Function, Type};
use tfp_mapping::{FunctionMapping, Shape, type_shape};

use crate::SchemaError;
use crate::json::{Members, Sorted, Written};
use crate::members::member_name;
use crate::spec::{
    FunctionOutputs, FunctionSpec, ObjectTypeSpec, Properties, PropertySpec, TypeSpec,
};
use crate::text::doc_comment;

/// The spec of a provider-defined function; its object types are added to `types`.
pub(crate) fn provider_function(
    package: &str,
    mapping: &FunctionMapping,
    function: &Function,
    types: &mut Members,
) -> Result<FunctionSpec<'static>, SchemaError> {
    let name = member_name(&mapping.token);
    let mut types_gen = TypeGen { package, types };
    let description = match (function.summary.as_str(), function.description.as_str()) {
        ("", "") => String::new(),
        ("", d) => doc_comment(d),
        (s, "") => doc_comment(s),
        (s, d) => doc_comment(&format!("{s}\n\n{d}")),
    };
    let mut spec = FunctionSpec {
        description,
        deprecation_message: function.deprecation_message.clone(),
        ..FunctionSpec::default()
    };

    if !mapping.arguments.is_empty() {
        let mut inputs = ObjectTypeSpec {
            ty: "object".into(),
            ..ObjectTypeSpec::default()
        };
        let mut required = vec![false; function.parameters.len()];
        let mut any_later = false;
        for (i, p) in function.parameters.iter().enumerate().rev() {
            required[i] = !p.allow_null_value || any_later;
            any_later |= required[i];
        }
        let parameters = function
            .parameters
            .iter()
            .chain(&function.variadic_parameter);
        for (i, (argument, parameter)) in mapping.arguments.iter().zip(parameters).enumerate() {
            let hint = format!("{name}{}", upper_first(&argument.name));
            let element = types_gen
                .type_spec(&parameter.ty, &hint)
                .map_err(|e| e.within(&mapping.tf_name))?;
            let variadic = i >= function.parameters.len();
            let ty = if variadic {
                TypeSpec::array(element)
            } else {
                element
            };
            let description = if parameter.description.is_empty() {
                String::new()
            } else {
                doc_comment(&parameter.description)
            };
            inputs.properties.insert(
                argument.name.clone(),
                Arc::new(PropertySpec {
                    ty,
                    description,
                    ..PropertySpec::default()
                }),
            );
            spec.multi_argument_inputs.push(argument.name.clone());
            if required.get(i).copied().unwrap_or(false) {
                inputs.required.push(argument.name.clone().into());
            }
        }
        spec.inputs = Some(inputs);
    }

    let result_hint = format!("{name}Result");
    let returned = match &function.return_type {
        Type::Object {
            attributes,
            optional,
        } => Sorted::of(
            &types_gen
                .object_spec(attributes, optional, &result_hint)
                .map_err(|e| e.within(&mapping.tf_name))?,
        ),
        other => Sorted::of(
            &types_gen
                .type_spec(other, &result_hint)
                .map_err(|e| e.within(&mapping.tf_name))?,
        ),
    }
    .map_err(|e| SchemaError::Internal(e.to_string()))?;
    spec.outputs = Some(FunctionOutputs::ReturnType(returned));
    Ok(spec)
}

/// Go's `upperFirst`: the first character upper-cased.
fn upper_first(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Why a function signature has no schema.
#[derive(Debug)]
pub(crate) enum SignatureError {
    Tuple,
    TypeTaken(String),
    NameTaken { attribute: String, name: String },
}

impl SignatureError {
    fn within(self, function: &str) -> SchemaError {
        let function = function.to_owned();
        match self {
            SignatureError::Tuple => SchemaError::FunctionTuple { function },
            SignatureError::TypeTaken(token) => SchemaError::TypeTaken { function, token },
            SignatureError::NameTaken { attribute, name } => SchemaError::AttributeNameTaken {
                function,
                attribute,
                name,
            },
        }
    }
}

struct TypeGen<'t> {
    package: &'t str,
    types: &'t mut Members,
}

impl TypeGen<'_> {
    fn type_spec(&mut self, ty: &Type, hint: &str) -> Result<TypeSpec, SignatureError> {
        Ok(match ty {
            Type::Object {
                attributes,
                optional,
            } => {
                let object = self.object_spec(attributes, optional, hint)?;
                let token = format!("{0}:index/{1}:{1}", self.package, hint);
                if self.types.contains_key(&token) {
                    return Err(SignatureError::TypeTaken(token));
                }
                let reference = format!("#/types/{token}");
                self.types.insert(Written::member(token, &object));
                TypeSpec::reference(reference)
            }
            Type::List(e) | Type::Set(e) => TypeSpec::array(self.type_spec(e, hint)?),
            Type::Map(e) => TypeSpec::map(self.type_spec(e, hint)?),
            Type::Tuple(_) => return Err(SignatureError::Tuple),
            Type::Dynamic => TypeSpec::reference("pulumi.json#/Any".to_owned()),
            Type::String => TypeSpec::primitive("string"),
            Type::Bool => TypeSpec::primitive("boolean"),
            Type::Number => TypeSpec::primitive("number"),
        })
    }

    fn object_spec(
        &mut self,
        attributes: &BTreeMap<String, Type>,
        optional: &std::collections::BTreeSet<String>,
        hint: &str,
    ) -> Result<ObjectTypeSpec<'static>, SignatureError> {
        if attributes.values().any(has_tuple) {
            return Err(SignatureError::Tuple);
        }
        let shape = type_shape(&Type::Object {
            attributes: attributes.clone(),
            optional: optional.clone(),
        });
        let Shape::Object(fields) = shape else {
            return Err(SignatureError::Tuple);
        };
        let mut spec = ObjectTypeSpec {
            ty: "object".into(),
            ..ObjectTypeSpec::default()
        };
        for (attribute, ty) in attributes {
            let name = fields
                .get(attribute)
                .map_or_else(|| attribute.clone(), |f| f.name.clone());
            if spec.properties.contains_key(&name) {
                return Err(SignatureError::NameTaken {
                    attribute: attribute.clone(),
                    name,
                });
            }
            let ts = self.type_spec(ty, &format!("{hint}{}", upper_first(&name)))?;
            spec.properties.insert(
                name.clone(),
                Arc::new(PropertySpec {
                    ty: ts,
                    ..PropertySpec::default()
                }),
            );
            if !optional.contains(attribute) {
                spec.required.push(name.into());
            }
        }
        Ok(spec)
    }
}

fn has_tuple(ty: &Type) -> bool {
    match ty {
        Type::Tuple(_) => true,
        Type::List(e) | Type::Set(e) | Type::Map(e) => has_tuple(e),
        Type::Object { attributes, .. } => attributes.values().any(has_tuple),
        Type::String | Type::Number | Type::Bool | Type::Dynamic => false,
    }
}

/// The `terraformConfig` function of package `package` and its token.
pub(crate) fn terraform_config(
    package: &str,
) -> Result<(String, FunctionSpec<'static>), SchemaError> {
    let token = format!("pulumi:providers:{package}/terraformConfig");
    let inputs = ObjectTypeSpec {
        properties: Properties::from([(
            "__self__".into(),
            Arc::new(PropertySpec {
                ty: TypeSpec {
                    ty: "ref".into(),
                    reference: "#/provider".to_owned(),
                    ..TypeSpec::default()
                },
                ..PropertySpec::default()
            }),
        )]),
        ty: token.clone().into(),
        required: vec!["__self__".into()],
        ..ObjectTypeSpec::default()
    };
    let result = ObjectTypeSpec {
        properties: Properties::from([(
            "result".into(),
            Arc::new(PropertySpec {
                ty: TypeSpec::map(TypeSpec::reference("pulumi.json#/Any".to_owned())),
                ..PropertySpec::default()
            }),
        )]),
        ty: "object".into(),
        required: vec!["result".into()],
        ..ObjectTypeSpec::default()
    };
    let outputs = Sorted::of(&result).map_err(|e| SchemaError::Internal(e.to_string()))?;
    Ok((
        token.clone(),
        FunctionSpec {
            description: "This function returns a Terraform config object with terraform-namecased keys,to be used with the Terraform Module Provider.".to_owned(),
            inputs: Some(inputs),
            outputs: Some(FunctionOutputs::ReturnType(outputs)),
            ..FunctionSpec::default()
        },
    ))
}
