//! The bridge's `__meta` property: a string of compact JSON holding the Terraform schema version
//! of the state and the provider's private state (the Go bridge's
//! `pkg/pf/tfbridge/resource_state.go` `parseMeta` and `updateMeta`).
//!
//! Shape: `{"private_state":"<std base64>","schema_version":"<decimal>"}`, both keys optional,
//! the version a *string*. It is written only when the version is not 0 or the private state is
//! not empty; keys we do not know are kept; keys are sorted and escaped as Go writes them.

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
}

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
        let schema_version = match text("schema_version")? {
            None => 0,
            Some(s) => s.parse().map_err(|_| {
                meta_error(format!(
                    "expected \"schema_version\" to be an integer, got {s:?}"
                ))
            })?,
        };
        let private_state = match text("private_state")? {
            None => Vec::new(),
            Some(s) => STANDARD
                .decode(s)
                .map_err(|e| meta_error(format!("\"private_state\" is not base64: {e}")))?,
        };
        Ok(Meta {
            schema_version,
            private_state,
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
