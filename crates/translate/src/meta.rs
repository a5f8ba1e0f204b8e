//! The bridge's `__meta` property: a string of compact JSON holding the Terraform schema version
//! of the state and the provider's private state (the Go bridge's
//! `pkg/pf/tfbridge/resource_state.go` `parseMeta` and `updateMeta`).
//!
//! Shape: `{"private_state":"<std base64>","schema_version":"<decimal>"}`, both keys optional,
//! the version a *string*. It is written only when the version is not 0 or the private state is
//! not empty; keys we do not know are kept; keys are sorted and escaped as Go writes them.
//!
//! Ours beyond the Go bridge, which keeps no resource identity: `"identity"`, the identity the
//! provider last returned as the JSON object Terraform's state file holds (go-cty JSON of the
//! identity type, numbers as written), and `"identity_schema_version"`, the version of the
//! identity schema it was written with, a decimal string as `schema_version` is. Both are absent
//! when there is no identity, as in every state the Go bridge wrote.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use tfp_gostd::json::{self, Value as Json};
use tfp_values::{PropertyMap, PropertyValue};

use crate::config::parse_json;
use crate::error::{Error, Result};

/// The name of the property.
pub const META_KEY: &str = "__meta";

/// What `__meta` records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// The Terraform schema version the state was written with; 0 when absent.
    pub schema_version: i64,
    /// The provider's private state bytes; empty when absent.
    pub private_state: Vec<u8>,
    /// The resource's identity, when the provider returned one.
    pub identity: Option<StoredIdentity>,
}

/// A resource identity as `__meta` stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredIdentity {
    /// The version of the identity schema it was written with.
    pub schema_version: i64,
    /// The identity as a JSON object, go-cty's JSON of the identity type.
    pub json: String,
}

/// The keys of a stored identity.
const IDENTITY_KEY: &str = "identity";
const IDENTITY_VERSION_KEY: &str = "identity_schema_version";

fn meta_error(reason: impl Into<String>) -> Error {
    Error::Meta {
        reason: reason.into(),
    }
}

/// The JSON object inside `__meta`, if the property is a string.
fn parse_meta(props: &PropertyMap) -> Result<Option<BTreeMap<String, Json>>> {
    let Some(PropertyValue::String(text)) = props.get(META_KEY) else {
        return Ok(None);
    };
    match parse_json(text)
        .map_err(|e| meta_error(format!("expected a JSON-marshalled string: {e}")))?
    {
        Json::Object(members) => Ok(Some(json::into_map(members))),
        // Go decodes `null` into an empty map.
        Json::Null => Ok(Some(BTreeMap::new())),
        _ => Err(meta_error("expected a JSON object")),
    }
}

impl Meta {
    /// Reads `__meta` from resource properties. An absent property, or one that is not a
    /// string, means version 0 and no private state, as in Go.
    pub fn read(props: &PropertyMap) -> Result<Meta> {
        let Some(map) = parse_meta(props)? else {
            return Ok(Meta::default());
        };
        let text = |key: &str| -> Result<Option<&str>> {
            match map.get(key) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::String(s)) if s.is_empty() => Ok(None),
                Some(Json::String(s)) => Ok(Some(s)),
                Some(_) => Err(meta_error(format!("{key:?} must be a string"))),
            }
        };
        let version = |key: &str| -> Result<i64> {
            match text(key)? {
                None => Ok(0),
                Some(s) => s.parse().map_err(|_| {
                    meta_error(format!("expected {key:?} to be an integer, got {s:?}"))
                }),
            }
        };
        let schema_version = version("schema_version")?;
        let private_state = match text("private_state")? {
            None => Vec::new(),
            Some(s) => STANDARD
                .decode(s)
                .map_err(|e| meta_error(format!("\"private_state\" is not base64: {e}")))?,
        };
        let identity = match map.get(IDENTITY_KEY) {
            None | Some(Json::Null) => None,
            Some(object @ Json::Object(_)) => Some(StoredIdentity {
                schema_version: version(IDENTITY_VERSION_KEY)?,
                json: object.to_text(),
            }),
            Some(_) => {
                return Err(meta_error(format!(
                    "{IDENTITY_KEY:?} must be a JSON object"
                )));
            }
        };
        Ok(Meta {
            schema_version,
            private_state,
            identity,
        })
    }

    /// Records this in `__meta`, keeping the keys already there that we do not know. Nothing is
    /// written when the version is 0 and the private state empty and there is no `__meta`.
    pub fn write(&self, props: &mut PropertyMap) -> Result<()> {
        let mut map: BTreeMap<String, Json> = match parse_meta(props)? {
            None => BTreeMap::new(),
            Some(parsed) => parsed
                .into_iter()
                .map(|(k, v)| Ok((k, parsed_to_json(v)?)))
                .collect::<Result<_>>()?,
        };
        if self.schema_version != 0 {
            map.insert(
                "schema_version".to_owned(),
                Json::String(self.schema_version.to_string()),
            );
        }
        if !self.private_state.is_empty() {
            map.insert(
                "private_state".to_owned(),
                Json::String(STANDARD.encode(&self.private_state)),
            );
        }
        match &self.identity {
            Some(identity) => {
                let object = parse_json(&identity.json)
                    .ok()
                    .filter(|json| matches!(json, Json::Object(_)))
                    .ok_or_else(|| meta_error("the identity to store is not a JSON object"))?;
                map.insert(IDENTITY_KEY.to_owned(), object);
                map.insert(
                    IDENTITY_VERSION_KEY.to_owned(),
                    Json::String(identity.schema_version.to_string()),
                );
            }
            None => {
                map.remove(IDENTITY_KEY);
                map.remove(IDENTITY_VERSION_KEY);
            }
        }
        if map.is_empty() {
            return Ok(());
        }
        let text = Json::sorted_object(map).to_text();
        props.insert(META_KEY.to_owned(), PropertyValue::String(text));
        Ok(())
    }
}

/// Parsed JSON as Go re-marshals it after decoding into `any` (numbers become float64s).
fn parsed_to_json(parsed: Json) -> Result<Json> {
    Ok(match parsed {
        Json::Number(text) => {
            let f: f64 = text
                .parse()
                .map_err(|_| meta_error(format!("invalid number {text}")))?;
            Json::float(f).map_err(|_| meta_error("a number in it is not finite"))?
        }
        Json::Array(items) => Json::Array(
            items
                .into_iter()
                .map(parsed_to_json)
                .collect::<Result<_>>()?,
        ),
        Json::Object(members) => Json::sorted_object(
            members
                .into_iter()
                .map(|(k, v)| Ok((k, parsed_to_json(v)?)))
                .collect::<Result<Vec<_>>>()?,
        ),
        other @ (Json::Null | Json::Bool(_) | Json::String(_)) => other,
    })
}
