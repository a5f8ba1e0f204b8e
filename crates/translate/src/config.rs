//! The provider configuration's string encoding, and the `terraformConfig` method's result.
//!
//! Pulumi configuration values arrive as strings (`pulumi config set`), so the Go bridge
//! JSON-decodes a string given for a top-level configuration key whose type is not string
//! ("" is the type's zero value; secret objects inside the JSON are honoured), and encodes the
//! checked configuration back: non-string known values become JSON text, nulls become `""`,
//! values with unknowns become unknown, secrets stay around the encoded text
//! (`pkg/tfbridge/config_encoding.go`). Keys the schema does not know pass unchanged.

use std::collections::BTreeMap;

use tfp_cty::{NestingMode, Type};
use tfp_gostd::json::{self, ParseError, Value as Json};
use tfp_values::{PropertyMap, PropertyValue, sig};

use crate::encode::{Mode, REDACTED, downgrade_reference, properties_to_cty};
use crate::error::{Error, PropertyPath, Result};
use crate::schema::{Node, ObjectSchema};

/// The kind of a top-level configuration key, as the Go bridge's shim reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConfigKind {
    String,
    Bool,
    Number,
    List,
    /// Maps, objects, single and map blocks, dynamic values.
    Map,
}

impl ConfigKind {
    /// The value of `""` for the kind.
    fn zero(self) -> PropertyValue {
        match self {
            ConfigKind::String => PropertyValue::String(String::new()),
            ConfigKind::Bool => PropertyValue::Bool(false),
            ConfigKind::Number => PropertyValue::Number(0.0),
            ConfigKind::List => PropertyValue::Array(Vec::new()),
            ConfigKind::Map => PropertyValue::Object(PropertyMap::new()),
        }
    }
}

fn kinds(schema: &ObjectSchema<'_>) -> BTreeMap<String, ConfigKind> {
    schema
        .node()
        .children()
        .into_iter()
        .map(|child| {
            let list = matches!(
                child.node.nesting(),
                Some(NestingMode::List | NestingMode::Set)
            );
            let kind = match child.node {
                Node::Type(Type::String, _) => ConfigKind::String,
                Node::Type(Type::Bool, _) => ConfigKind::Bool,
                Node::Type(Type::Number, _) => ConfigKind::Number,
                Node::Type(Type::List(_) | Type::Set(_), _) => ConfigKind::List,
                Node::Blocks(..) | Node::Objects(..) if list => ConfigKind::List,
                _ => ConfigKind::Map,
            };
            (child.name.into_owned(), kind)
        })
        .collect()
}

/// Decodes the JSON-in-strings of configuration values (CheckConfig, DiffConfig, Configure). A
/// secret string is decoded inside its secret, and an error about it quotes none of it.
pub fn unfold_config(schema: &ObjectSchema<'_>, props: PropertyMap) -> Result<PropertyMap> {
    let kinds = kinds(schema);
    let mut out = PropertyMap::new();
    for (key, value) in props {
        let (value, secret) = match value {
            PropertyValue::Secret(inner) => (*inner, true),
            value => (value, false),
        };
        let value = match (kinds.get(&key), value) {
            (Some(&kind), PropertyValue::String(s)) if kind != ConfigKind::String => {
                unfold_text(&key, kind, &s, secret)?
            }
            (_, value) => value,
        };
        let value = if secret {
            PropertyValue::secret(value)
        } else {
            value
        };
        out.insert(key, value);
    }
    Ok(out)
}

/// The value of the JSON text `text` given for configuration key `key`.
fn unfold_text(key: &str, kind: ConfigKind, text: &str, secret: bool) -> Result<PropertyValue> {
    if text.is_empty() {
        return Ok(kind.zero());
    }
    let mut path = PropertyPath::root();
    path.push_key(key);
    // The parser's errors name an offset, never the text.
    let parsed = parse_json(text)
        .map_err(|e| Error::value(&path, format!("expected a JSON-encoded value: {e}")))?;
    parsed_to_property(parsed, true).map_err(|reason| {
        let reason = if secret {
            format!("the secret value {REDACTED} holds a number that is invalid or out of range")
        } else {
            reason
        };
        Error::value(&path, reason)
    })
}

/// Encodes checked configuration back into its string form (CheckConfig's result).
pub fn fold_config(schema: &ObjectSchema<'_>, props: PropertyMap) -> Result<PropertyMap> {
    let kinds = kinds(schema);
    let mut out = PropertyMap::new();
    for (key, value) in props {
        let folded = fold_value(&key, kinds.contains_key(&key), value)?;
        out.insert(key, folded);
    }
    Ok(out)
}

fn fold_value(key: &str, known_key: bool, value: PropertyValue) -> Result<PropertyValue> {
    if value.contains_unknowns() {
        return Ok(PropertyValue::unknown());
    }
    if value.contains_secrets() {
        let inner = fold_value(key, known_key, value.remove_secrets())?;
        return Ok(PropertyValue::secret(inner));
    }
    Ok(match value {
        PropertyValue::Null if known_key => PropertyValue::String(String::new()),
        PropertyValue::String(_) | PropertyValue::Null => value,
        value if known_key => {
            let mut path = PropertyPath::root();
            path.push_key(key);
            let text = property_to_json(&value)
                .map(|json| json.to_text())
                .map_err(|reason| Error::value(&path, reason))?;
            PropertyValue::String(text)
        }
        value => value,
    })
}

/// How deeply the JSON kept inside Pulumi strings may nest.
const JSON_DEPTH: usize = 128;

/// Parses JSON kept inside a Pulumi string (configuration, `__meta`, raw state).
pub(crate) fn parse_json(text: &str) -> Result<Json, ParseError> {
    json::parse(text.as_bytes(), JSON_DEPTH)
}

/// A plain Pulumi value as Go's `encoding/json` sees its `Mappable()` form.
pub(crate) fn property_to_json(value: &PropertyValue) -> Result<Json, String> {
    Ok(match value {
        PropertyValue::Null => Json::Null,
        PropertyValue::Bool(b) => Json::Bool(*b),
        PropertyValue::Number(n) => {
            Json::float(*n).map_err(|_| "NaN and infinities cannot be JSON".to_owned())?
        }
        PropertyValue::String(s) => Json::String(s.clone()),
        PropertyValue::Array(items) => Json::Array(
            items
                .iter()
                .map(property_to_json)
                .collect::<Result<_, _>>()?,
        ),
        PropertyValue::Object(map) => Json::sorted_object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), property_to_json(v)?)))
                .collect::<Result<Vec<_>, String>>()?,
        ),
        PropertyValue::Secret(inner) => property_to_json(inner)?,
        PropertyValue::Output(output) => match &output.element {
            Some(element) => property_to_json(element)?,
            None => return Err("unknown values cannot be JSON".to_owned()),
        },
        PropertyValue::Computed(_) => return Err("unknown values cannot be JSON".to_owned()),
        PropertyValue::ResourceReference(reference) => {
            property_to_json(&downgrade_reference(reference))?
        }
        PropertyValue::Asset(_) | PropertyValue::Archive(_) => {
            return Err(format!("{}s cannot be JSON", value.kind_name()));
        }
    })
}

/// Parsed JSON as a Pulumi value the way Go's `json.Unmarshal` into `any` and
/// `NewPropertyValue` see it: numbers are float64s. With `secrets`, objects with the secret
/// signature and a `value` become secrets.
pub(crate) fn parsed_to_property(parsed: Json, secrets: bool) -> Result<PropertyValue, String> {
    Ok(match parsed {
        Json::Null => PropertyValue::Null,
        Json::Bool(b) => PropertyValue::Bool(b),
        Json::Number(text) => {
            let f: f64 = text.parse().map_err(|_| format!("invalid number {text}"))?;
            if f.is_infinite() {
                return Err(format!("number {text} is out of range"));
            }
            PropertyValue::Number(f)
        }
        Json::String(s) => PropertyValue::String(s),
        Json::Array(items) => PropertyValue::Array(
            items
                .into_iter()
                .map(|item| parsed_to_property(item, secrets))
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(members) => {
            let mut map = json::into_map(members);
            let is_secret = secrets
                && matches!(map.get(sig::KEY), Some(Json::String(s)) if s == sig::SECRET)
                && map.contains_key("value");
            if is_secret {
                let inner = map.remove("value").expect("checked just above");
                return Ok(PropertyValue::secret(parsed_to_property(inner, secrets)?));
            }
            PropertyValue::Object(
                map.into_iter()
                    .map(|(k, v)| Ok((k, parsed_to_property(v, secrets)?)))
                    .collect::<Result<_, String>>()?,
            )
        }
    })
}

/// The configuration keys whose Pulumi name differs from the Terraform one, each as it appears
/// quoted in a provider's message and as it should read instead (`"access_key"` →
/// `"accessKey"`): the Go bridge rewrites ConfigureProvider's errors so.
pub fn config_key_renames(mapping: &tfp_mapping::Mapping) -> Vec<(String, String)> {
    mapping
        .config()
        .iter()
        .filter(|(tf, field)| *tf != field.name)
        .map(|(tf, field)| (format!("\"{tf}\""), format!("\"{}\"", field.name)))
        .collect()
}

/// The deprecated `variables` form of Configure: `<pkg>:config:<key>` (or `<pkg>:<key>`) to a
/// JSON text, or to a plain string when it is not JSON.
pub fn legacy_config<'a>(variables: impl IntoIterator<Item = (&'a str, &'a str)>) -> PropertyMap {
    variables
        .into_iter()
        .map(|(key, text)| {
            let name = key.rsplit(':').next().unwrap_or(key).to_owned();
            let value = parse_json(text)
                .ok()
                .and_then(|json| parsed_to_property(json, false).ok())
                .unwrap_or_else(|| PropertyValue::String(text.to_owned()));
            (name, value)
        })
        .collect()
}

/// The result of the provider's `terraformConfig` method: `{"result": {<tf_key>: secret(v)}}`,
/// the configuration encoded for Terraform and read back as JSON. Any unknown is an error.
pub fn terraform_config(schema: &ObjectSchema<'_>, props: &PropertyMap) -> Result<PropertyMap> {
    let value = properties_to_cty(schema, props, Mode::Config)?;
    if !value.is_wholly_known() {
        return Err(Error::UnknownConfig);
    }
    let json = tfp_cty::to_json(&value, &schema.implied_type()).map_err(Error::Json)?;
    let text = String::from_utf8(json).map_err(|_| Error::Value {
        path: String::new(),
        reason: "the configuration is not UTF-8 JSON".to_owned(),
    })?;
    let parsed = parse_json(&text).map_err(|err| Error::Value {
        path: String::new(),
        reason: err.to_string(),
    })?;
    let Json::Object(members) = parsed else {
        return Ok(PropertyMap::new());
    };
    let mut result = PropertyMap::new();
    for (key, item) in json::into_map(members) {
        let value = parsed_to_property(item, false).map_err(|reason| Error::Value {
            path: key.clone(),
            reason,
        })?;
        result.insert(key, PropertyValue::secret(value));
    }
    Ok(PropertyMap::from([(
        "result".to_owned(),
        PropertyValue::Object(result),
    )]))
}
