//! The Pulumi ID of a resource, computed from its outputs as the Go bridge computes it
//! (pulumi-terraform-bridge `pkg/tfbridge/tokens/fixups.go` and `pkg/pf/tfbridge/ids.go`).

use tfp_gostd::strconv::{FloatFormat, format_float};
use tfp_mapping::{IdStrategy, MISSING_ID, REPORT_URL};
use tfp_values::{PropertyMap, PropertyValue};

/// A resource ID, and whether the property it was delegated to is secret: the ID itself never
/// is, so the caller warns that the secret shows in the ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceId {
    pub id: String,
    pub from_secret: bool,
}

/// Why outputs have no resource ID. The delegated-ID messages are the Go bridge's wording,
/// which users search for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResourceIdError {
    #[error(
        "Could not find required property '{property}' in state. This is an error in {package} \
         resource provider, please report at {}",
        REPORT_URL
    )]
    MissingProperty { property: String, package: String },
    #[error(
        "Expected '{property}' property to be a string, found {found}. This is an error in \
         {package} resource provider, please report at {}",
        REPORT_URL
    )]
    NotAString {
        property: String,
        found: &'static str,
        package: String,
    },
    #[error("the {tf_name} state has an `id` that cannot be a resource ID ({found})")]
    UnusableId {
        tf_name: String,
        found: &'static str,
    },
    #[error("the {tf_name} state has no `id`")]
    NoId { tf_name: String },
}

/// The ID of a resource of Terraform type `tf_name`, in provider package `package`, whose
/// outputs are `props`, by the mapping's `strategy`.
pub fn resource_id(
    strategy: &IdStrategy,
    props: &PropertyMap,
    package: &str,
    tf_name: &str,
) -> Result<ResourceId, ResourceIdError> {
    let id = |id: String| ResourceId {
        id,
        from_secret: false,
    };
    match strategy {
        IdStrategy::Missing => Ok(id(MISSING_ID.to_owned())),
        IdStrategy::Delegate { property } => {
            let Some(value) = props.get(property) else {
                return Err(ResourceIdError::MissingProperty {
                    property: property.clone(),
                    package: package.to_owned(),
                });
            };
            let (value, secret) = value.peel_secret();
            match value {
                PropertyValue::String(id) => Ok(ResourceId {
                    id: id.clone(),
                    from_secret: secret,
                }),
                other => Err(ResourceIdError::NotAString {
                    property: property.clone(),
                    found: other.kind_name(),
                    package: package.to_owned(),
                }),
            }
        }
        IdStrategy::Attribute => match props.get("id") {
            Some(PropertyValue::String(s)) => Ok(id(s.clone())),
            Some(PropertyValue::Number(n)) => Ok(id(go_property_text(&go_float(*n)))),
            Some(PropertyValue::Bool(b)) => Ok(id(go_property_text(&b.to_string()))),
            Some(other) => Err(ResourceIdError::UnusableId {
                tf_name: tf_name.to_owned(),
                found: other.kind_name(),
            }),
            None => Err(ResourceIdError::NoId {
                tf_name: tf_name.to_owned(),
            }),
        },
    }
}

/// A number or bool `id` as the Go bridge makes it a resource ID: `fmt.Sprintf("%v", idValue)`
/// of the `resource.PropertyValue` (`pkg/pf/tfbridge/ids.go` `extractID`), whose `String()` is
/// `{%v}` of the Go value (`{42}`, `{1e+21}`, `{true}`).
fn go_property_text(go_value: &str) -> String {
    format!("{{{go_value}}}")
}

/// A float64 as Go's `%v` prints it.
fn go_float(n: f64) -> String {
    format_float(n, FloatFormat::G)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_and_bool_ids_are_written_as_go_prints_property_values() {
        let number = |n: f64| go_property_text(&go_float(n));
        assert_eq!(number(42.0), "{42}");
        assert_eq!(number(1.5), "{1.5}");
        // `%v` of a float64 switches to the exponent form where the copy this replaced did not.
        assert_eq!(number(1e6), "{1e+06}");
        assert_eq!(number(1e21), "{1e+21}");
        assert_eq!(go_property_text("true"), "{true}");
    }

    #[test]
    fn a_missing_delegated_property_is_reported_in_the_go_wording() {
        let strategy = IdStrategy::Delegate {
            property: "name".to_owned(),
        };
        let err = resource_id(&strategy, &PropertyMap::new(), "pyvider", "pyvider_file")
            .expect_err("no property");
        assert_eq!(
            err.to_string(),
            format!(
                "Could not find required property 'name' in state. This is an error in pyvider \
                 resource provider, please report at {REPORT_URL}"
            )
        );
    }
}
