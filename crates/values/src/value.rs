//! The Pulumi property value model: what a `google.protobuf.Struct` from the engine means.
//!
//! Mirrors pulumi/pulumi `sdk/go/common/resource/properties.go`. Objects are `BTreeMap`s so every
//! encoding and every iteration is deterministic. The large variants are boxed so a value stays
//! small (arrays of values are common and long).

use std::collections::BTreeMap;

use crate::Urn;
use crate::asset::{Archive, Asset};
use crate::sig;

/// An object: property names to values, sorted by name.
pub type PropertyMap = BTreeMap<String, PropertyValue>;

/// One Pulumi property value.
#[derive(Clone, Debug, PartialEq)]
pub enum PropertyValue {
    /// An explicit null (a missing value).
    Null,
    /// A boolean.
    Bool(bool),
    /// A number; Pulumi has only IEEE-754 doubles.
    Number(f64),
    /// A UTF-8 string.
    String(String),
    /// An ordered list.
    Array(Vec<PropertyValue>),
    /// An object.
    Object(PropertyMap),
    /// A file-like blob (text, path or URI).
    Asset(Box<Asset>),
    /// A collection of assets (a map of members, a path or a URI).
    Archive(Box<Archive>),
    /// A value that must be stored encrypted and shown masked.
    Secret(Box<PropertyValue>),
    /// A value not known yet (during preview); the kind says which unknown sentinel carried it.
    Computed(UnknownKind),
    /// An output value: possibly unknown, possibly secret, with the resources it depends on.
    Output(Box<OutputValue>),
    /// A reference to another resource.
    ResourceReference(Box<ResourceReference>),
}

/// The expected type of an unknown value, as its sentinel string says.
///
/// Only the engine's typed sentinels carry the type; the engine and the Go bridge send
/// [`UnknownKind::Any`] for almost everything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnknownKind {
    /// Any type, sent as the string sentinel ([`sig::UNKNOWN_STRING`]).
    #[default]
    Any,
    /// A bool.
    Bool,
    /// A number.
    Number,
    /// An array.
    Array,
    /// An object.
    Object,
    /// An asset.
    Asset,
    /// An archive.
    Archive,
}

impl UnknownKind {
    /// Every kind, for tests and generators.
    pub const ALL: [UnknownKind; 7] = [
        UnknownKind::Any,
        UnknownKind::Bool,
        UnknownKind::Number,
        UnknownKind::Array,
        UnknownKind::Object,
        UnknownKind::Asset,
        UnknownKind::Archive,
    ];

    /// The sentinel string that encodes this kind of unknown.
    #[must_use]
    pub fn sentinel(self) -> &'static str {
        match self {
            UnknownKind::Any => sig::UNKNOWN_STRING,
            UnknownKind::Bool => sig::UNKNOWN_BOOL,
            UnknownKind::Number => sig::UNKNOWN_NUMBER,
            UnknownKind::Array => sig::UNKNOWN_ARRAY,
            UnknownKind::Object => sig::UNKNOWN_OBJECT,
            UnknownKind::Asset => sig::UNKNOWN_ASSET,
            UnknownKind::Archive => sig::UNKNOWN_ARCHIVE,
        }
    }

    /// The kind a string stands for, if it is one of the unknown sentinels.
    #[must_use]
    pub fn from_sentinel(s: &str) -> Option<UnknownKind> {
        // Every sentinel is 36 bytes long; the length check keeps ordinary strings cheap.
        if s.len() != sig::UNKNOWN_STRING.len() {
            return None;
        }
        UnknownKind::ALL
            .into_iter()
            .find(|kind| kind.sentinel() == s)
    }
}

/// An output value (`resource.Output` in Go).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutputValue {
    /// The value when known; `None` means unknown.
    pub element: Option<PropertyValue>,
    /// Whether the value is secret.
    pub secret: bool,
    /// URNs of the resources the value depends on.
    pub dependencies: Vec<String>,
}

/// A reference to a resource (`resource.ResourceReference` in Go).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceReference {
    /// The referenced resource's URN.
    pub urn: String,
    /// The resource's ID: `None` for a component resource, which has no ID.
    pub id: Option<ReferenceId>,
    /// The resource's name when the sender gave it; see [`ResourceReference::name`].
    pub name: Option<String>,
    /// The resource's type token when the sender gave it; see [`ResourceReference::type_token`].
    pub type_: Option<String>,
    /// The version of the package that defines the resource.
    pub package_version: Option<String>,
}

/// The ID of a referenced custom resource.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReferenceId {
    /// A known ID. It is never empty: the wire uses the empty string for an unknown ID.
    Known(String),
    /// An ID not known yet.
    Unknown,
}

impl ReferenceId {
    /// The ID as Pulumi sends it, where the empty string means unknown (rpc.go).
    #[must_use]
    pub fn from_wire(id: String) -> ReferenceId {
        if id.is_empty() {
            ReferenceId::Unknown
        } else {
            ReferenceId::Known(id)
        }
    }
}

impl ResourceReference {
    /// A reference to a component resource, which has no ID.
    #[must_use]
    pub fn component(urn: impl Into<String>) -> ResourceReference {
        ResourceReference {
            urn: urn.into(),
            ..ResourceReference::default()
        }
    }

    /// A reference to a custom resource; an empty `id` means the ID is unknown, as in Go.
    #[must_use]
    pub fn custom(urn: impl Into<String>, id: impl Into<String>) -> ResourceReference {
        ResourceReference {
            urn: urn.into(),
            id: Some(ReferenceId::from_wire(id.into())),
            ..ResourceReference::default()
        }
    }

    /// The resource's name: the one sent, else the last component of a well-formed URN.
    #[must_use]
    pub fn name(&self) -> Option<&str> {
        self.name
            .as_deref()
            .or_else(|| Urn::parse(&self.urn).map(|urn| urn.name))
    }

    /// The resource's type token: the one sent, else the one in a well-formed URN.
    #[must_use]
    pub fn type_token(&self) -> Option<&str> {
        self.type_
            .as_deref()
            .or_else(|| Urn::parse(&self.urn).map(|urn| urn.token))
    }
}

impl PropertyValue {
    /// A string value.
    #[must_use]
    pub fn string(s: impl Into<String>) -> PropertyValue {
        PropertyValue::String(s.into())
    }

    /// An object value from `(name, value)` pairs.
    #[must_use]
    pub fn object<K: Into<String>>(
        pairs: impl IntoIterator<Item = (K, PropertyValue)>,
    ) -> PropertyValue {
        PropertyValue::Object(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// An array value.
    #[must_use]
    pub fn array(items: impl IntoIterator<Item = PropertyValue>) -> PropertyValue {
        PropertyValue::Array(items.into_iter().collect())
    }

    /// The value wrapped as a secret.
    #[must_use]
    pub fn secret(value: PropertyValue) -> PropertyValue {
        PropertyValue::Secret(Box::new(value))
    }

    /// An unknown value of any type, which encodes to the generic sentinel.
    #[must_use]
    pub fn unknown() -> PropertyValue {
        PropertyValue::Computed(UnknownKind::Any)
    }

    /// An output value.
    #[must_use]
    pub fn output(output: OutputValue) -> PropertyValue {
        PropertyValue::Output(Box::new(output))
    }

    /// A resource reference value.
    #[must_use]
    pub fn reference(reference: ResourceReference) -> PropertyValue {
        PropertyValue::ResourceReference(Box::new(reference))
    }

    /// An asset value.
    #[must_use]
    pub fn asset(asset: Asset) -> PropertyValue {
        PropertyValue::Asset(Box::new(asset))
    }

    /// An archive value.
    #[must_use]
    pub fn archive(archive: Archive) -> PropertyValue {
        PropertyValue::Archive(Box::new(archive))
    }

    /// The name of the variant, for error messages.
    #[must_use]
    pub fn kind_name(&self) -> &'static str {
        match self {
            PropertyValue::Null => "null",
            PropertyValue::Bool(_) => "bool",
            PropertyValue::Number(_) => "number",
            PropertyValue::String(_) => "string",
            PropertyValue::Array(_) => "array",
            PropertyValue::Object(_) => "object",
            PropertyValue::Asset(_) => "asset",
            PropertyValue::Archive(_) => "archive",
            PropertyValue::Secret(_) => "secret",
            PropertyValue::Computed(_) => "unknown",
            PropertyValue::Output(_) => "output",
            PropertyValue::ResourceReference(_) => "resource reference",
        }
    }

    /// Whether the value is null.
    #[must_use]
    pub fn is_null(&self) -> bool {
        matches!(self, PropertyValue::Null)
    }

    /// Whether the value itself is unknown: a computed value or an output without a value.
    /// Secrets are looked through.
    #[must_use]
    pub fn is_unknown(&self) -> bool {
        match self {
            PropertyValue::Computed(_) => true,
            PropertyValue::Output(o) => o.element.as_ref().is_none_or(PropertyValue::is_unknown),
            PropertyValue::Secret(inner) => inner.is_unknown(),
            _ => false,
        }
    }

    /// Whether the value is secret at its top: a secret or a secret output.
    #[must_use]
    pub fn is_secret(&self) -> bool {
        match self {
            PropertyValue::Secret(_) => true,
            PropertyValue::Output(o) => o.secret,
            _ => false,
        }
    }

    /// The bool, if this is one.
    #[must_use]
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            PropertyValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is one.
    #[must_use]
    pub fn as_number(&self) -> Option<f64> {
        match self {
            PropertyValue::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The string, if this is one.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            PropertyValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    #[must_use]
    pub fn as_array(&self) -> Option<&[PropertyValue]> {
        match self {
            PropertyValue::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The fields, if this is an object.
    #[must_use]
    pub fn as_object(&self) -> Option<&PropertyMap> {
        match self {
            PropertyValue::Object(map) => Some(map),
            _ => None,
        }
    }

    /// The fields, mutably, if this is an object.
    pub fn as_object_mut(&mut self) -> Option<&mut PropertyMap> {
        match self {
            PropertyValue::Object(map) => Some(map),
            _ => None,
        }
    }

    /// The value without its secret wrappers, and whether there were any. A known secret output
    /// counts as a secret and yields its element.
    #[must_use]
    pub fn peel_secret(&self) -> (&PropertyValue, bool) {
        let mut value = self;
        let mut secret = false;
        loop {
            match value {
                PropertyValue::Secret(inner) => {
                    secret = true;
                    value = inner;
                }
                PropertyValue::Output(o) if o.secret && o.element.is_some() => {
                    secret = true;
                    value = o.element.as_ref().expect("guarded by is_some above");
                }
                _ => return (value, secret),
            }
        }
    }

    /// Whether an unknown appears anywhere in the value (inside arrays, objects, secrets and
    /// outputs; an unknown resource ID counts).
    #[must_use]
    pub fn contains_unknowns(&self) -> bool {
        match self {
            PropertyValue::Computed(_) => true,
            PropertyValue::Output(o) => o
                .element
                .as_ref()
                .is_none_or(PropertyValue::contains_unknowns),
            PropertyValue::Secret(inner) => inner.contains_unknowns(),
            PropertyValue::Array(items) => items.iter().any(PropertyValue::contains_unknowns),
            PropertyValue::Object(map) => map.values().any(PropertyValue::contains_unknowns),
            PropertyValue::ResourceReference(r) => r.id == Some(ReferenceId::Unknown),
            _ => false,
        }
    }

    /// Whether a secret appears anywhere in the value.
    #[must_use]
    pub fn contains_secrets(&self) -> bool {
        match self {
            PropertyValue::Secret(_) => true,
            PropertyValue::Output(o) => {
                o.secret
                    || o.element
                        .as_ref()
                        .is_some_and(PropertyValue::contains_secrets)
            }
            PropertyValue::Array(items) => items.iter().any(PropertyValue::contains_secrets),
            PropertyValue::Object(map) => map.values().any(PropertyValue::contains_secrets),
            _ => false,
        }
    }

    /// The value with every secret unwrapped and every output's secret flag cleared
    /// (`propertyvalue.RemoveSecrets` in the bridge, which applies it before encoding to cty).
    #[must_use]
    pub fn remove_secrets(self) -> PropertyValue {
        match self {
            PropertyValue::Secret(inner) => inner.remove_secrets(),
            PropertyValue::Output(mut o) => {
                o.secret = false;
                o.element = o.element.map(PropertyValue::remove_secrets);
                PropertyValue::Output(o)
            }
            PropertyValue::Array(items) => PropertyValue::Array(
                items
                    .into_iter()
                    .map(PropertyValue::remove_secrets)
                    .collect(),
            ),
            PropertyValue::Object(map) => PropertyValue::Object(
                map.into_iter()
                    .map(|(k, v)| (k, v.remove_secrets()))
                    .collect(),
            ),
            other => other,
        }
    }
}

impl From<bool> for PropertyValue {
    fn from(b: bool) -> PropertyValue {
        PropertyValue::Bool(b)
    }
}

impl From<f64> for PropertyValue {
    fn from(n: f64) -> PropertyValue {
        PropertyValue::Number(n)
    }
}

impl From<i32> for PropertyValue {
    fn from(n: i32) -> PropertyValue {
        PropertyValue::Number(f64::from(n))
    }
}

impl From<u32> for PropertyValue {
    fn from(n: u32) -> PropertyValue {
        PropertyValue::Number(f64::from(n))
    }
}

impl From<&str> for PropertyValue {
    fn from(s: &str) -> PropertyValue {
        PropertyValue::String(s.to_owned())
    }
}

impl From<String> for PropertyValue {
    fn from(s: String) -> PropertyValue {
        PropertyValue::String(s)
    }
}

impl From<Vec<PropertyValue>> for PropertyValue {
    fn from(items: Vec<PropertyValue>) -> PropertyValue {
        PropertyValue::Array(items)
    }
}

impl From<PropertyMap> for PropertyValue {
    fn from(map: PropertyMap) -> PropertyValue {
        PropertyValue::Object(map)
    }
}

impl From<Asset> for PropertyValue {
    fn from(asset: Asset) -> PropertyValue {
        PropertyValue::asset(asset)
    }
}

impl From<Archive> for PropertyValue {
    fn from(archive: Archive) -> PropertyValue {
        PropertyValue::archive(archive)
    }
}

impl From<ResourceReference> for PropertyValue {
    fn from(reference: ResourceReference) -> PropertyValue {
        PropertyValue::reference(reference)
    }
}

impl From<OutputValue> for PropertyValue {
    fn from(output: OutputValue) -> PropertyValue {
        PropertyValue::output(output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentinels_map_back_to_their_kind() {
        for kind in UnknownKind::ALL {
            assert_eq!(UnknownKind::from_sentinel(kind.sentinel()), Some(kind));
        }
        assert_eq!(UnknownKind::from_sentinel("04da6b54"), None);
        assert_eq!(
            UnknownKind::from_sentinel("04da6b54-80e4-46f7-96ec-b56ff0331ba8"),
            None
        );
    }

    #[test]
    fn peel_secret_looks_through_nested_secrets_and_secret_outputs() {
        let inner = PropertyValue::from("x");
        let v = PropertyValue::secret(PropertyValue::output(OutputValue {
            element: Some(PropertyValue::secret(inner.clone())),
            secret: true,
            dependencies: vec![],
        }));
        assert_eq!(v.peel_secret(), (&inner, true));
        assert_eq!(inner.peel_secret(), (&inner, false));
        let unknown_secret = PropertyValue::output(OutputValue {
            element: None,
            secret: true,
            dependencies: vec![],
        });
        assert_eq!(unknown_secret.peel_secret(), (&unknown_secret, false));
        assert!(unknown_secret.is_unknown());
        assert!(unknown_secret.is_secret());
    }

    #[test]
    fn deep_queries_and_remove_secrets() {
        let v = PropertyValue::object([
            ("a", PropertyValue::array([PropertyValue::secret(1.into())])),
            ("b", PropertyValue::unknown()),
        ]);
        assert!(v.contains_secrets());
        assert!(v.contains_unknowns());
        assert!(!v.is_unknown());
        let plain = v.remove_secrets();
        assert!(!plain.contains_secrets());
        assert_eq!(
            plain,
            PropertyValue::object([
                ("a", PropertyValue::array([1.into()])),
                ("b", PropertyValue::unknown()),
            ])
        );
        let reference = PropertyValue::reference(ResourceReference::custom("urn", ""));
        assert!(reference.contains_unknowns());
    }

    #[test]
    fn reference_name_and_type_fall_back_to_the_urn() {
        let mut r = ResourceReference::component(
            "urn:pulumi:dev::proj::aws:s3/bucket:Bucket$random:index/id:Id::my::name",
        );
        assert_eq!(r.name(), Some("my::name"));
        assert_eq!(r.type_token(), Some("random:index/id:Id"));
        r.name = Some("given".into());
        r.type_ = Some("t:m:T".into());
        assert_eq!(r.name(), Some("given"));
        assert_eq!(r.type_token(), Some("t:m:T"));
        assert_eq!(ResourceReference::component("not-a-urn").name(), None);
    }
}
