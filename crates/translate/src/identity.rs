//! Resource identities as the bridge keeps and takes them: the JSON that `__meta` stores (and
//! that List gives as the importable ID of a resource without an `id`), and an import ID that is
//! such a JSON object, which imports by identity as Terraform's `import { identity = {...} }`
//! does.

use tfp_cty::{IdentitySchema, Value};

use crate::StoredIdentity;

/// Why an import ID that is a JSON object is not an identity of the resource type.
#[derive(Debug, thiserror::Error)]
pub enum ImportIdentityError {
    /// Not JSON of the identity type; the codec's error says where.
    #[error(transparent)]
    Json(tfp_cty::Error),
    #[error("it lacks the attributes an import requires: {}", .0.join(", "))]
    Missing(Vec<String>),
}

/// An identity as `__meta` stores it: go-cty's JSON of the identity type, with the version of
/// the identity schema.
pub fn stored_identity(
    identity: &Value,
    schema: &IdentitySchema,
) -> Result<StoredIdentity, tfp_cty::Error> {
    let json = tfp_cty::to_json(identity, &schema.implied_type())?;
    Ok(StoredIdentity {
        schema_version: schema.version,
        json: String::from_utf8_lossy(&json).into_owned(),
    })
}

/// The identity an import ID stands for, if it is a JSON object matching `schema` (no attribute
/// the schema lacks, every attribute it requires for import); `Ok(None)` is any other ID, which
/// imports by ID.
pub fn import_identity(
    id: &str,
    schema: &IdentitySchema,
) -> Result<Option<Value>, ImportIdentityError> {
    if !id.trim_start().starts_with('{') {
        return Ok(None);
    }
    let identity = tfp_cty::from_json(id.as_bytes(), &schema.implied_type())
        .map_err(ImportIdentityError::Json)?;
    let missing: Vec<String> = schema
        .attributes
        .iter()
        .filter(|(name, attribute)| {
            attribute.required_for_import && identity.attr(name).is_none_or(Value::is_null)
        })
        .map(|(name, _)| name.clone())
        .collect();
    if !missing.is_empty() {
        return Err(ImportIdentityError::Missing(missing));
    }
    Ok(Some(identity))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use tfp_cty::{IdentityAttribute, Type};

    use super::*;

    fn schema() -> IdentitySchema {
        let attribute = |required_for_import| IdentityAttribute {
            ty: Type::String,
            required_for_import,
            optional_for_import: !required_for_import,
            description: String::new(),
        };
        IdentitySchema {
            version: 2,
            attributes: BTreeMap::from([
                ("id".to_owned(), attribute(true)),
                ("region".to_owned(), attribute(false)),
            ]),
        }
    }

    #[test]
    fn a_json_object_of_the_identity_type_imports_by_identity() {
        let schema = schema();
        let identity = import_identity(r#" {"id": "i-1"}"#, &schema)
            .expect("an identity")
            .expect("a JSON object");
        assert_eq!(identity.attr("id").and_then(Value::as_str), Some("i-1"));
        let stored = stored_identity(&identity, &schema).expect("stored");
        assert_eq!(stored.schema_version, 2);
        assert_eq!(
            import_identity(&stored.json, &schema)
                .expect("the stored JSON")
                .as_ref(),
            Some(&identity)
        );
    }

    #[test]
    fn other_ids_import_by_id_and_mismatched_objects_say_why() {
        let schema = schema();
        assert!(matches!(import_identity("i-1", &schema), Ok(None)));
        let missing = import_identity(r#"{"region": "eu"}"#, &schema).expect_err("no id");
        assert_eq!(
            missing.to_string(),
            "it lacks the attributes an import requires: id"
        );
        assert!(matches!(
            import_identity(r#"{"nope": 1}"#, &schema),
            Err(ImportIdentityError::Json(_))
        ));
    }
}
