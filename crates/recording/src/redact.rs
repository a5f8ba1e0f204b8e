//! Keeping secrets out of recordings: every sensitive value in a request or response is
//! replaced by a fixed marker before the record is written.
//!
//! A value is sensitive when the provider's schema marks its attribute `sensitive` or
//! `write_only` (a write-only value is there to be kept out of state, and so out of records), or
//! when it is a string attribute of the provider configuration whose name ends in a credential word
//! (`secret_key`, `password`, `api_token`, `access_key`: see [`looks_secret`]), because many
//! providers (AWS among them) do not mark their credentials. Inside a sensitive value, strings
//! become [`REDACTED`], numbers 0 and booleans false; nulls, unknowns and the shape of
//! collections are kept, so the value still has its type and the recording still decodes.
//!
//! The values are `DynamicValue`s (msgpack, or JSON) and `RawState`s (JSON or flatmap), decoded
//! with the implied type of the schema block that types them (`Scope`). A value whose schema is
//! unknown (no schema captured yet, an unknown type name, a call whose schemas the recording does
//! not keep: actions, state stores, methods newer than this code) or that does not decode is
//! replaced whole by the marker: we cannot tell what in it is secret, so what is not known to be
//! safe is hidden. The bytes of a state store's state, which hold every resource's attributes,
//! sensitive ones included, are hidden whole too. Values no schema types and which are kept by
//! design (function arguments and results, identities, private state, a list call's limits) are
//! kept here; `hide` still hides the known secrets in them, and the result of a function given a
//! known secret is hidden whole ([`Context::with_secret_inputs`]).

use prost_reflect::{DynamicMessage, Kind as FieldKind, Value as Field};
use serde_json::Value as Json;
use tfp_cty::{
    Attribute, AttributeType, Block, Kind, NestedBlock, NestedObject, NestingMode, ProviderSchema,
    Type, Value,
};

use crate::{DYNAMIC_VALUE, RAW_STATE};

/// What replaces a sensitive string.
pub use tfp_secrets::REDACTED;

/// The schemas of one provider, as its `GetProviderSchema` answer gave them.
#[derive(Debug)]
pub struct Schemas {
    schema: ProviderSchema,
}

/// Which schema block types a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    Provider,
    ProviderMeta,
    Resource(String),
    DataSource(String),
    Ephemeral(String),
    ListResource(String),
    /// A value of a call whose schemas the recording does not keep: hidden whole.
    Untyped,
    /// A value no schema types that may hold a secret where no match can find it (a function's
    /// result from a secret argument): every leaf is hidden, its shape and types kept.
    Leaves,
}

impl Schemas {
    pub fn new(schema: ProviderSchema) -> Schemas {
        Schemas { schema }
    }

    /// The provider schema the redaction follows.
    pub fn schema(&self) -> &ProviderSchema {
        &self.schema
    }

    /// The block for `scope`, and whether it is the provider configuration.
    pub(crate) fn block(&self, scope: &Scope) -> Option<(&Block, bool)> {
        let s = &self.schema;
        let schema = match scope {
            Scope::Provider => return Some((&s.provider.block, true)),
            Scope::ProviderMeta => s.provider_meta.as_ref(),
            Scope::Resource(name) => s.resources.get(name),
            Scope::DataSource(name) => s.data_sources.get(name),
            Scope::Ephemeral(name) => s.ephemeral_resources.get(name),
            Scope::ListResource(name) => s.list_resources.get(name),
            Scope::Untyped | Scope::Leaves => None,
        };
        schema.map(|schema| (&schema.block, false))
    }
}

/// What a call's values are about: its method and the type names its request gives.
#[derive(Clone, Debug)]
pub struct Context {
    method: String,
    type_name: String,
    source_type_name: String,
    /// Whether the request carried a known secret (see [`Context::with_secret_inputs`]).
    secret_inputs: bool,
}

impl Context {
    pub fn of(method: &str, request: &DynamicMessage) -> Context {
        let text = |name: &str| match request.get_field_by_name(name).as_deref() {
            Some(Field::String(s)) => s.clone(),
            _ => String::new(),
        };
        let mut type_name = text("type_name");
        if type_name.is_empty() {
            type_name = text("target_type_name");
        }
        Context {
            method: method.to_owned(),
            type_name,
            source_type_name: text("source_type_name"),
            secret_inputs: false,
        }
    }

    /// The same call, whose request was found to carry a known secret: a function's result is
    /// then hidden whole, since it may hold the secret transformed (upper-cased, hashed,
    /// encoded) where no match could find it, and the plugin returns it to the engine as secret.
    pub fn with_secret_inputs(mut self) -> Context {
        self.secret_inputs = true;
        self
    }

    /// Whether messages of this call can hold values at all (schemas and metadata cannot, and
    /// are large, so they are not walked).
    pub fn has_values(&self) -> bool {
        !matches!(
            self.method.as_str(),
            "GetProviderSchema" | "GetMetadata" | "GetFunctions" | "GetResourceIdentitySchemas"
        )
    }

    /// The scope of the value in field `field`, or `None` for a value kept as it is by design;
    /// `nested_type` is the `type_name` of the message holding it, when that message has one
    /// (imported resources).
    pub(crate) fn scope(&self, field: &str, nested_type: Option<&str>) -> Option<Scope> {
        if field == "provider_meta" {
            return Some(Scope::ProviderMeta);
        }
        if matches!(field, "identity_data" | "raw_identity" | "source_identity") {
            return None;
        }
        let name = if field == "source_state" {
            self.source_type_name.clone()
        } else {
            nested_type.unwrap_or(&self.type_name).to_owned()
        };
        match self.method.as_str() {
            "ValidateProviderConfig" | "ConfigureProvider" => Some(Scope::Provider),
            "ValidateResourceConfig"
            | "UpgradeResourceState"
            | "ReadResource"
            | "PlanResourceChange"
            | "ApplyResourceChange"
            | "ImportResourceState"
            | "MoveResourceState"
            | "GenerateResourceConfig" => Some(Scope::Resource(name)),
            "ValidateDataResourceConfig" | "ReadDataSource" => Some(Scope::DataSource(name)),
            "ValidateEphemeralResourceConfig" | "OpenEphemeralResource" => {
                Some(Scope::Ephemeral(name))
            }
            "ValidateListResourceConfig" | "ListResource" => match field {
                "config" => Some(Scope::ListResource(name)),
                "resource_object" => Some(Scope::Resource(name)),
                // `include_resource_object` and `limit`: a flag and a count.
                _ => None,
            },
            "CallFunction" if self.secret_inputs && field == "result" => Some(Scope::Leaves),
            "CallFunction" | "UpgradeResourceIdentity" => None,
            // Actions, state stores and methods newer than this code.
            _ => Some(Scope::Untyped),
        }
    }

    /// Whether the call moves a state store's state, whose chunks are hidden whole.
    fn moves_state(&self) -> bool {
        matches!(self.method.as_str(), "ReadStateBytes" | "WriteStateBytes")
    }
}

/// Redacts every sensitive value in `message`, a request or response of `context`'s call.
pub fn redact_message(schemas: Option<&Schemas>, context: &Context, message: &mut DynamicMessage) {
    if context.has_values() {
        walk(schemas, context, message, None);
    }
    if context.moves_state()
        && let Some(Field::Bytes(bytes)) = message.get_field_by_name_mut("bytes")
        && !bytes.is_empty()
    {
        *bytes = REDACTED.as_bytes().to_vec().into();
    }
}

fn walk(
    schemas: Option<&Schemas>,
    context: &Context,
    message: &mut DynamicMessage,
    nested_type: Option<&str>,
) {
    let own_type = match message.get_field_by_name("type_name").as_deref() {
        Some(Field::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    };
    let nested_type = own_type.as_deref().or(nested_type);
    for (field, value) in message.fields_mut() {
        let FieldKind::Message(desc) = field.kind() else {
            continue;
        };
        let each: Vec<&mut Field> = match value {
            Field::List(items) => items.iter_mut().collect(),
            Field::Map(entries) => entries.values_mut().collect(),
            single => vec![single],
        };
        for item in each {
            let Some(inner) = item.as_message_mut() else {
                continue;
            };
            match desc.full_name() {
                DYNAMIC_VALUE | RAW_STATE => {
                    let Some(scope) = context.scope(field.name(), nested_type) else {
                        continue;
                    };
                    if scope == Scope::Leaves {
                        redact_leaves(inner);
                        continue;
                    }
                    let block = schemas.and_then(|s| s.block(&scope));
                    redact_encoded(inner, block);
                }
                _ => walk(schemas, context, inner, nested_type),
            }
        }
    }
}

/// Redacts the `msgpack`, `json` and `flatmap` fields of a `DynamicValue` or `RawState`.
fn redact_encoded(message: &mut DynamicMessage, block: Option<(&Block, bool)>) {
    if let Some(Field::Bytes(bytes)) = message.get_field_by_name_mut("msgpack")
        && !bytes.is_empty()
    {
        *bytes = redact_msgpack(bytes, block).into();
    }
    if let Some(Field::Bytes(bytes)) = message.get_field_by_name_mut("json")
        && !bytes.is_empty()
    {
        let redacted = match serde_json::from_slice::<Json>(bytes) {
            Ok(mut json) => match block {
                Some((block, config)) => {
                    redact_json(block, config, &mut json);
                    json
                }
                None => Json::String(REDACTED.into()),
            },
            Err(_) => Json::String(REDACTED.into()),
        };
        *bytes = serde_json::to_vec(&redacted)
            .expect("a JSON value always serialises")
            .into();
    }
    if let Some(Field::Map(entries)) = message.get_field_by_name_mut("flatmap") {
        for (key, value) in entries.iter_mut() {
            let prefix = match key {
                prost_reflect::MapKey::String(k) => k.split('.').next().unwrap_or(k),
                _ => continue,
            };
            let sensitive = match block {
                Some((block, config)) => block.attributes.get(prefix).is_none_or(|a| {
                    a.sensitive || a.write_only || (config && looks_secret(prefix))
                }),
                None => true,
            };
            if sensitive && let Field::String(s) = value {
                REDACTED.clone_into(s);
            }
        }
    }
}

/// Redacts every leaf of a `DynamicValue`'s msgpack or JSON, decoded without a schema: strings
/// become [`REDACTED`], numbers 0 and booleans false; nulls and unknowns stay, so the value keeps
/// its type for a replay.
fn redact_leaves(message: &mut DynamicMessage) {
    fn leaves_mp(value: &mut rmpv::Value) {
        use rmpv::Value as Mp;
        match value {
            Mp::String(_) => *value = Mp::from(REDACTED),
            Mp::Integer(_) | Mp::F32(_) | Mp::F64(_) => *value = Mp::from(0),
            Mp::Boolean(_) => *value = Mp::from(false),
            Mp::Array(items) => items.iter_mut().for_each(leaves_mp),
            Mp::Map(entries) => entries.iter_mut().for_each(|(_, v)| leaves_mp(v)),
            _ => {}
        }
    }
    fn leaves_js(json: &mut Json) {
        match json {
            Json::String(_) => *json = Json::from(REDACTED),
            Json::Number(_) => *json = Json::from(0),
            Json::Bool(_) => *json = Json::from(false),
            Json::Array(items) => items.iter_mut().for_each(leaves_js),
            Json::Object(map) => map.values_mut().for_each(leaves_js),
            Json::Null => {}
        }
    }
    if let Some(Field::Bytes(bytes)) = message.get_field_by_name_mut("msgpack")
        && !bytes.is_empty()
    {
        let mut out = Vec::new();
        let hidden = rmpv::decode::read_value(&mut &bytes[..])
            .ok()
            .and_then(|mut v| {
                leaves_mp(&mut v);
                rmpv::encode::write_value(&mut out, &v).ok()
            });
        *bytes = match hidden {
            Some(()) => out.into(),
            None => redact_msgpack(bytes, None).into(),
        };
    }
    if let Some(Field::Bytes(bytes)) = message.get_field_by_name_mut("json")
        && !bytes.is_empty()
    {
        let json = match serde_json::from_slice::<Json>(bytes) {
            Ok(mut json) => {
                leaves_js(&mut json);
                json
            }
            Err(_) => Json::String(REDACTED.into()),
        };
        *bytes = serde_json::to_vec(&json)
            .expect("a JSON value always serialises")
            .into();
    }
}

/// The strings and numbers of `value`, a value of `block`, that its redaction hides: those of
/// attributes the schema marks sensitive or write-only at any depth, and, in the provider's
/// configuration (`config`), credential-like settings.
pub fn sensitive_leaves(block: &Block, config: bool, value: &Value) -> Vec<Value> {
    let mut redacted = value.clone();
    let mut out = Vec::new();
    if redact_block(block, config, &mut redacted) {
        changed_leaves(value, &redacted, &mut out);
    }
    out
}

fn changed_leaves(original: &Value, redacted: &Value, out: &mut Vec<Value>) {
    if original == redacted {
        return;
    }
    match (&original.kind, &redacted.kind) {
        // The redaction changes elements in place, sets' included.
        (Kind::List(_, a), Kind::List(_, b))
        | (Kind::Set(_, a), Kind::Set(_, b))
        | (Kind::Tuple(a), Kind::Tuple(b))
            if a.len() == b.len() =>
        {
            a.iter().zip(b).for_each(|(a, b)| changed_leaves(a, b, out));
        }
        (Kind::Map(_, a), Kind::Map(_, b)) | (Kind::Object(a), Kind::Object(b)) => {
            for (key, a) in a {
                match b.get(key) {
                    Some(b) => changed_leaves(a, b, out),
                    None => all_leaves(a, out),
                }
            }
        }
        _ => all_leaves(original, out),
    }
}

fn all_leaves(value: &Value, out: &mut Vec<Value>) {
    match &value.kind {
        Kind::String(_) | Kind::Number(_) => out.push(value.clone()),
        Kind::List(_, items) | Kind::Set(_, items) | Kind::Tuple(items) => {
            items.iter().for_each(|item| all_leaves(item, out));
        }
        Kind::Map(_, items) | Kind::Object(items) => {
            items.values().for_each(|item| all_leaves(item, out));
        }
        _ => {}
    }
}

/// The msgpack bytes of a value of `block`, with its sensitive values redacted.
fn redact_msgpack(bytes: &[u8], block: Option<(&Block, bool)>) -> Vec<u8> {
    let whole = || {
        tfp_cty::to_msgpack(&Value::string(REDACTED), &Type::String)
            .expect("a string encodes as a string")
    };
    let Some((block, config)) = block else {
        return whole();
    };
    let ty = block.implied_type();
    let Ok(mut value) = tfp_cty::from_msgpack(bytes, &ty) else {
        return whole();
    };
    if !redact_block(block, config, &mut value) {
        return bytes.to_vec();
    }
    tfp_cty::to_msgpack(&value, &ty).unwrap_or_else(|_| whole())
}

/// The attributes and nested blocks of a block, or the attributes of a nested attribute's object,
/// which has no blocks: what the redaction walks, without copying a nested object into a block.
type Fields<'s> = (
    &'s tfp_cty::NameMap<Attribute>,
    &'s tfp_cty::NameMap<NestedBlock>,
);

const NO_BLOCKS: &tfp_cty::NameMap<NestedBlock> = &tfp_cty::NameMap::new();

fn fields_of_block(block: &Block) -> Fields<'_> {
    (&block.attributes, &block.block_types)
}

fn fields_of_object(object: &NestedObject) -> Fields<'_> {
    (&object.attributes, NO_BLOCKS)
}

/// Whether an attribute's whole value is redacted: the schema marks it sensitive or write-only,
/// or, in a provider configuration (`config`), it is a string whose name looks like a credential.
fn hides(name: &str, attribute: &Attribute, config: bool) -> bool {
    attribute.sensitive
        || attribute.write_only
        || (config
            && looks_secret(name)
            && matches!(attribute.ty, AttributeType::Type(Type::String)))
}

/// Redacts the sensitive attributes of a value of `block`; says whether anything changed.
pub(crate) fn redact_block(block: &Block, config: bool, value: &mut Value) -> bool {
    redact_fields(fields_of_block(block), config, value)
}

fn redact_fields((attributes, blocks): Fields<'_>, config: bool, value: &mut Value) -> bool {
    let Kind::Object(attrs) = &mut value.kind else {
        return false;
    };
    let mut changed = false;
    for (name, attribute) in attributes {
        let Some(v) = attrs.get_mut(name) else {
            continue;
        };
        if hides(name, attribute, config) {
            changed |= redact_all(v);
        } else if let AttributeType::Nested(object) = &attribute.ty {
            changed |= each_nested(object.nesting, v, &mut |v| {
                redact_fields(fields_of_object(object), config, v)
            });
        }
    }
    for (name, nested) in blocks {
        if attributes.contains_key(name) {
            continue;
        }
        if let Some(v) = attrs.get_mut(name) {
            changed |= each_nested(nested.nesting, v, &mut |v| {
                redact_block(&nested.block, config, v)
            });
        }
    }
    changed
}

/// Applies `f` to each object of a nested block or nested attribute value.
fn each_nested(
    nesting: NestingMode,
    value: &mut Value,
    f: &mut dyn FnMut(&mut Value) -> bool,
) -> bool {
    let mut changed = false;
    match (nesting, &mut value.kind) {
        (NestingMode::Single | NestingMode::Group, _) => changed |= f(value),
        (_, Kind::List(_, items) | Kind::Set(_, items) | Kind::Tuple(items)) => {
            for item in items {
                changed |= f(item);
            }
        }
        (NestingMode::Map, Kind::Map(_, items) | Kind::Object(items)) => {
            for item in items.values_mut() {
                changed |= f(item);
            }
        }
        _ => {}
    }
    changed
}

/// Redacts every leaf of a sensitive value; says whether anything changed.
fn redact_all(value: &mut Value) -> bool {
    match &mut value.kind {
        Kind::String(s) if s != REDACTED => {
            REDACTED.clone_into(s);
            true
        }
        Kind::Number(n) if *n != tfp_cty::Number::from(0i64) => {
            *n = tfp_cty::Number::from(0i64);
            true
        }
        Kind::Bool(b) if *b => {
            *b = false;
            true
        }
        Kind::List(_, items) | Kind::Set(_, items) | Kind::Tuple(items) => {
            items.iter_mut().fold(false, |c, v| redact_all(v) | c)
        }
        Kind::Map(_, items) | Kind::Object(items) => {
            items.values_mut().fold(false, |c, v| redact_all(v) | c)
        }
        _ => false,
    }
}

/// The same walk over a JSON state (`RawState.json`, `DynamicValue.json`).
pub(crate) fn redact_json(block: &Block, config: bool, json: &mut Json) {
    redact_json_fields(fields_of_block(block), config, json);
}

fn redact_json_fields((attributes, blocks): Fields<'_>, config: bool, json: &mut Json) {
    let Json::Object(attrs) = json else {
        return;
    };
    for (name, attribute) in attributes {
        let Some(v) = attrs.get_mut(name) else {
            continue;
        };
        if hides(name, attribute, config) {
            redact_json_all(v);
        } else if let AttributeType::Nested(object) = &attribute.ty {
            each_json(object.nesting, v, &mut |v| {
                redact_json_fields(fields_of_object(object), config, v);
            });
        }
    }
    for (name, nested) in blocks {
        if let Some(v) = attrs.get_mut(name) {
            each_json(nested.nesting, v, &mut |v| {
                redact_json(&nested.block, config, v);
            });
        }
    }
}

fn each_json(nesting: NestingMode, json: &mut Json, f: &mut dyn FnMut(&mut Json)) {
    match (nesting, json) {
        (NestingMode::Single | NestingMode::Group, json) => f(json),
        (_, Json::Array(items)) => items.iter_mut().for_each(f),
        (NestingMode::Map, Json::Object(items)) => items.values_mut().for_each(f),
        _ => {}
    }
}

fn redact_json_all(json: &mut Json) {
    match json {
        Json::String(s) => REDACTED.clone_into(s),
        Json::Number(n) => *n = 0.into(),
        Json::Bool(b) => *b = false,
        Json::Array(items) => items.iter_mut().for_each(redact_json_all),
        Json::Object(items) => items.values_mut().for_each(redact_json_all),
        Json::Null => {}
    }
}

/// Whether a provider configuration attribute is probably a credential: its last word is one
/// that names one (`secret_key`, `access_key`, `password`, `api_token`, `client_secret`).
pub fn looks_secret(name: &str) -> bool {
    let last = name.rsplit(['_', '-']).next().unwrap_or(name);
    matches!(
        last.to_ascii_lowercase().as_str(),
        "secret" | "password" | "passwd" | "passphrase" | "token" | "key" | "credentials"
    )
}

#[cfg(test)]
mod tests {
    use tfp_testkit::schema::{
        OPTIONAL, SENSITIVE, WRITE_ONLY, attr, block, nested_attr, nested_block,
    };

    use super::*;

    /// `name`, `access_key`, sensitive `password` and `pin`, nested attributes `users` (a list
    /// of `{login, secret}` with `secret` sensitive) and a list block `conf` with a sensitive
    /// `token`.
    fn schema() -> Block {
        let users = block(
            &[
                ("login", attr(Type::String, OPTIONAL)),
                ("secret", attr(Type::String, OPTIONAL | SENSITIVE)),
            ],
            &[],
        );
        let conf = block(&[("token", attr(Type::String, OPTIONAL | SENSITIVE))], &[]);
        block(
            &[
                ("name", attr(Type::String, OPTIONAL)),
                ("access_key", attr(Type::String, OPTIONAL)),
                ("password", attr(Type::String, OPTIONAL | SENSITIVE)),
                ("pin", attr(Type::Number, OPTIONAL | SENSITIVE)),
                ("users", nested_attr(NestingMode::List, users, OPTIONAL)),
            ],
            &[("conf", nested_block(NestingMode::List, .., conf))],
        )
    }

    fn value(name: &str, key: &str, password: &str, pin: i64, secret: &str, token: &str) -> Value {
        let user = Value::object([
            ("login", Value::string("me")),
            ("secret", Value::string(secret)),
        ]);
        let conf = Value::object([("token", Value::string(token))]);
        Value::object([
            ("name", Value::string(name)),
            ("access_key", Value::string(key)),
            ("password", Value::string(password)),
            ("pin", Value::number(pin)),
            ("users", Value::list(user.ty(), vec![user])),
            ("conf", Value::list(conf.ty(), vec![conf])),
        ])
    }

    #[test]
    fn the_sensitive_leaves_of_a_configuration_are_found_at_every_depth() {
        // A set block whose `password` alone is sensitive, as Docker's `registry_auth` is.
        let auth = block(
            &[
                ("address", attr(Type::String, OPTIONAL)),
                ("password", attr(Type::String, OPTIONAL | SENSITIVE)),
            ],
            &[],
        );
        let config_block = block(
            &[("access_key", attr(Type::String, OPTIONAL))],
            &[("auth", nested_block(NestingMode::Set, .., auth))],
        );
        let entry = |address: &str, password: &str| {
            Value::object([
                ("address", Value::string(address)),
                ("password", Value::string(password)),
            ])
        };
        let auths = vec![entry("registry-a", "pw-a"), entry("registry-b", "pw-b")];
        let config = Value::object([
            ("access_key", Value::string("AKIA-0001")),
            ("auth", Value::set(auths[0].ty(), auths)),
        ]);
        let mut found: Vec<String> = sensitive_leaves(&config_block, true, &config)
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        found.sort();
        assert_eq!(found, ["AKIA-0001", "pw-a", "pw-b"], "not the addresses");
        let plain = Value::object([
            ("access_key", Value::null(Type::String)),
            ("auth", Value::set(entry("r", "").ty(), vec![])),
        ]);
        assert!(sensitive_leaves(&config_block, true, &plain).is_empty());
    }

    #[test]
    fn sensitive_values_are_replaced_at_every_depth() {
        let block = schema();
        let r = REDACTED;
        let mut v = value("n", "AKIA", "hunter2", 1234, "s3cr3t", "tok");
        assert!(redact_block(&block, false, &mut v));
        assert_eq!(v, value("n", "AKIA", r, 0, r, r));
        // The provider configuration also hides what looks like a credential.
        let mut v = value("n", "AKIA", "hunter2", 1234, "s3cr3t", "tok");
        assert!(redact_block(&block, true, &mut v));
        assert_eq!(v, value("n", r, r, 0, r, r));
        // Redacting twice changes nothing more.
        assert!(!redact_block(&block, true, &mut v));
    }

    #[test]
    fn msgpack_and_json_are_redacted_alike() {
        let block = schema();
        let ty = block.implied_type();
        let plain = value("n", "AKIA", "hunter2", 1234, "s3cr3t", "tok");
        let bytes = tfp_cty::to_msgpack(&plain, &ty).expect("encodes");
        let redacted = redact_msgpack(&bytes, Some((&block, false)));
        let decoded = tfp_cty::from_msgpack(&redacted, &ty).expect("still decodes");
        assert_eq!(decoded, value("n", "AKIA", REDACTED, 0, REDACTED, REDACTED));
        // Without a schema the whole value goes.
        let whole = redact_msgpack(&bytes, None);
        assert_eq!(
            tfp_cty::from_msgpack(&whole, &Type::String).expect("a string"),
            Value::string(REDACTED)
        );

        let json = tfp_cty::to_json(&plain, &ty).expect("encodes");
        let mut json: Json = serde_json::from_slice(&json).expect("parses");
        redact_json(&block, false, &mut json);
        let expected = tfp_cty::to_json(&decoded, &ty).expect("encodes");
        assert_eq!(
            json,
            serde_json::from_slice::<Json>(&expected).expect("parses")
        );
    }

    #[test]
    fn write_only_values_are_redacted_like_sensitive_ones() {
        let mut block = Block::default();
        block.attributes.insert(
            "content_wo".into(),
            attr(Type::String, OPTIONAL | WRITE_ONLY),
        );
        let mut v = Value::object([("content_wo", Value::string("written once"))]);
        assert!(redact_block(&block, false, &mut v));
        assert_eq!(v, Value::object([("content_wo", Value::string(REDACTED))]));
        let mut json = serde_json::json!({"content_wo": "written once"});
        redact_json(&block, false, &mut json);
        assert_eq!(json, serde_json::json!({"content_wo": REDACTED}));
    }

    #[test]
    fn credential_names() {
        for name in [
            "secret_key",
            "access_key",
            "password",
            "api_token",
            "token",
            "client_secret",
        ] {
            assert!(looks_secret(name), "{name}");
        }
        for name in [
            "region",
            "shared_credentials_file",
            "token_url",
            "skip_credentials_validation",
        ] {
            assert!(!looks_secret(name), "{name}");
        }
    }
}
