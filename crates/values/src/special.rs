//! Decoding of special objects: those whose signature key names a secret, asset, archive,
//! resource reference, output value or byte string.
//!
//! Mirrors the signature switch of pulumi/pulumi `plugin.UnmarshalPropertyValue` (rpc.go) and
//! `asset.Deserialize` / `archive.Deserialize`, with three deliberate differences, all stricter or
//! safer: an asset or archive naming two sources is an error (Go silently picks one); a secret
//! whose value the options drop is dropped whole (Go fails with "missing value"); and `skip_nulls`
//! never applies inside a special object (in Go it turned `{"value": null}` into a missing value).
//! Fields a special object does not use are ignored, as in Go; the caller frees them.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{GeneralPurpose, GeneralPurposeConfig};
use prost_types::Value;
use prost_types::value::Kind;

use crate::asset::{Archive, ArchiveMember, ArchiveSource, Asset, AssetSource};
use crate::decode::{Decoder, discard, wire_kind_name};
use crate::error::{Error, ErrorKind, Result};
use crate::property_path::Path;
use crate::sig;
use crate::value::{OutputValue, PropertyValue, ReferenceId, ResourceReference, UnknownKind};

/// The raw fields of a special object, signature removed.
type Fields = BTreeMap<String, Value>;

const SECRET: &str = "a secret";
const BYTE_STRING: &str = "a byte string";
const ASSET: &str = "an asset";
const ARCHIVE: &str = "an archive";
const REFERENCE: &str = "a resource reference";
const OUTPUT: &str = "an output value";

impl Decoder<'_> {
    /// Decodes a special object whose signature is `signature`.
    pub(crate) fn special(
        &self,
        signature: &str,
        fields: &mut Fields,
        path: &Path<'_>,
        depth: usize,
    ) -> Result<Option<PropertyValue>> {
        // Each kind has its own function so the recursion through one kind does not carry the
        // stack frame of all the others (it matters in debug builds).
        match signature {
            sig::SECRET => self.secret_object(fields, path, depth),
            sig::BYTE_STRING => byte_string(fields, path).map(Some),
            sig::ASSET => {
                self.reject_assets("asset", path)?;
                Ok(Some(PropertyValue::asset(asset(fields, path)?)))
            }
            sig::ARCHIVE => {
                self.reject_assets("archive", path)?;
                Ok(Some(PropertyValue::archive(
                    self.archive(fields, path, depth)?,
                )))
            }
            sig::RESOURCE_REFERENCE => self.reference(fields, path, depth),
            sig::OUTPUT_VALUE => self.output(fields, path, depth),
            other => Err(Error::new(path, ErrorKind::unknown_signature(other))),
        }
    }

    /// Decodes a secret; a secret whose value the options drop is dropped whole.
    fn secret_object(
        &self,
        fields: &mut Fields,
        path: &Path<'_>,
        depth: usize,
    ) -> Result<Option<PropertyValue>> {
        let value = required(fields, SECRET, "value", path)?;
        let value = self.value(value, path, depth + 1)?;
        Ok(value.map(|value| self.secret(value)))
    }

    fn reject_assets(&self, what: &'static str, path: &Path<'_>) -> Result<()> {
        if self.opts.reject_assets {
            return Err(Error::new(path, ErrorKind::UnexpectedAsset(what)));
        }
        Ok(())
    }

    /// Decodes an archive; members are decoded recursively, one level deeper each.
    fn archive(&self, fields: &mut Fields, path: &Path<'_>, depth: usize) -> Result<Archive> {
        self.check_depth(path, depth)?;
        let hash = take_string(fields, ARCHIVE, "hash", path)?;
        let file = take_string(fields, ARCHIVE, "path", path)?.filter(|p| !p.is_empty());
        let uri = take_string(fields, ARCHIVE, "uri", path)?.filter(|u| !u.is_empty());
        let members = match fields.remove("assets") {
            None => None,
            Some(Value {
                kind: Some(Kind::StructValue(members)),
            }) => Some(members.fields),
            Some(other) => return Err(field_type(ARCHIVE, "assets", "an object", other, path)),
        };
        let mut sources = Vec::with_capacity(1);
        if let Some(file) = file {
            sources.push(ArchiveSource::Path(file));
        }
        if let Some(uri) = uri {
            sources.push(ArchiveSource::Uri(uri));
        }
        if let Some(members) = members {
            let mut decoded = BTreeMap::new();
            let mut members = members.into_iter();
            while let Some((name, member)) = members.next() {
                match self.member(member, &path.key(&name), depth + 1) {
                    Ok(member) => decoded.insert(name, member),
                    Err(err) => {
                        discard(members.map(|(_, member)| member));
                        return Err(err);
                    }
                };
            }
            sources.push(ArchiveSource::Assets(decoded));
        }
        if sources.len() > 1 {
            return Err(Error::new(
                path,
                ErrorKind::AmbiguousSource { object: ARCHIVE },
            ));
        }
        Ok(Archive {
            hash,
            source: sources.pop(),
        })
    }

    /// Decodes one member of an archive: an asset or archive object, nothing else.
    fn member(&self, input: Value, path: &Path<'_>, depth: usize) -> Result<ArchiveMember> {
        let mut fields = match input.kind {
            Some(Kind::StructValue(object)) => object.fields,
            other => {
                discard(other.map(|kind| Value { kind: Some(kind) }));
                return Err(Error::new(path, ErrorKind::ArchiveMember));
            }
        };
        let signature = match fields.remove(sig::KEY) {
            Some(Value {
                kind: Some(Kind::StringValue(signature)),
            }) => signature,
            other => {
                discard(other);
                String::new()
            }
        };
        let member = match signature.as_str() {
            sig::ASSET => asset(&mut fields, path).map(ArchiveMember::Asset),
            sig::ARCHIVE => self
                .archive(&mut fields, path, depth)
                .map(ArchiveMember::Archive),
            _ => Err(Error::new(path, ErrorKind::ArchiveMember)),
        };
        discard(fields.into_values());
        member
    }

    /// Decodes a resource reference, or flattens it to its ID or URN without `keep_resources`.
    fn reference(
        &self,
        fields: &mut Fields,
        path: &Path<'_>,
        depth: usize,
    ) -> Result<Option<PropertyValue>> {
        let urn = take_string(fields, REFERENCE, "urn", path)?
            .ok_or_else(|| missing(REFERENCE, "urn", path))?;
        let name = take_string(fields, REFERENCE, "name", path)?;
        let type_ = take_string(fields, REFERENCE, "type", path)?;
        let package_version = take_string(fields, REFERENCE, "packageVersion", path)?;
        let id = match fields.remove("id") {
            None => None,
            // The ID goes through the options first, as in rpc.go: without `keep_unknowns` an
            // unknown-sentinel ID is dropped, so the reference has no ID.
            Some(id) => match self.value(id, path, depth + 1)? {
                None => None,
                Some(id) => Some(reference_id(id, path)?),
            },
        };
        if !self.opts.keep_resources {
            let flat = match id {
                None => PropertyValue::String(urn),
                Some(ReferenceId::Known(id)) => PropertyValue::String(id),
                // rpc.go yields the empty string for an unknown ID when unknowns are not kept.
                Some(ReferenceId::Unknown) => self
                    .unknown(UnknownKind::Any, path)?
                    .unwrap_or_else(|| PropertyValue::String(String::new())),
            };
            return Ok(Some(flat));
        }
        Ok(Some(PropertyValue::reference(ResourceReference {
            urn,
            id,
            name,
            type_,
            package_version,
        })))
    }

    /// Decodes an output value, or unwraps it without `keep_output_values`.
    fn output(
        &self,
        fields: &mut Fields,
        path: &Path<'_>,
        depth: usize,
    ) -> Result<Option<PropertyValue>> {
        let element = match fields.remove("value") {
            None => None,
            Some(value) => self.value(value, path, depth + 1)?,
        };
        let secret = match fields.remove("secret") {
            None => false,
            Some(Value {
                kind: Some(Kind::BoolValue(secret)),
            }) => secret,
            Some(other) => return Err(field_type(OUTPUT, "secret", "a bool", other, path)),
        };
        if !self.opts.keep_output_values {
            let value = match element {
                Some(element) => Some(element),
                None => self.unknown(UnknownKind::Any, path)?,
            };
            return Ok(value.map(|v| if secret { self.secret(v) } else { v }));
        }
        let dependencies = match fields.remove("dependencies") {
            None => Vec::new(),
            Some(Value {
                kind: Some(Kind::ListValue(list)),
            }) => {
                let mut urns = Vec::with_capacity(list.values.len());
                let mut dependencies = list.values.into_iter();
                while let Some(dependency) = dependencies.next() {
                    match dependency.kind {
                        Some(Kind::StringValue(urn)) => urns.push(urn),
                        other => {
                            discard(dependencies);
                            return Err(field_type(
                                OUTPUT,
                                "dependencies",
                                "a list of strings",
                                Value { kind: other },
                                path,
                            ));
                        }
                    }
                }
                urns
            }
            Some(other) => {
                return Err(field_type(OUTPUT, "dependencies", "a list", other, path));
            }
        };
        Ok(Some(PropertyValue::output(OutputValue {
            element,
            secret,
            dependencies,
        })))
    }
}

/// How byte strings are encoded: Pulumi writes them with Go's `base64.StdEncoding`, padded with
/// the standard alphabet. Decoding is as lenient as Go's, which ignores set bits after the last
/// byte; unlike Go, it does not skip newlines, which Pulumi never writes.
const STD_ENCODING: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

/// Decodes a byte string; its bytes must be UTF-8 because a Rust string must be.
fn byte_string(fields: &mut Fields, path: &Path<'_>) -> Result<PropertyValue> {
    let text = take_string(fields, BYTE_STRING, "value", path)?
        .ok_or_else(|| missing(BYTE_STRING, "value", path))?;
    let bytes = STD_ENCODING
        .decode(&text)
        .map_err(|_| Error::new(path, ErrorKind::ByteStringBase64))?;
    let text = String::from_utf8(bytes).map_err(|_| Error::new(path, ErrorKind::ByteStringUtf8))?;
    Ok(PropertyValue::String(text))
}

/// Decodes an asset. Empty sources count as absent, as in Go; an empty `text` alone is an empty
/// text asset.
fn asset(fields: &mut Fields, path: &Path<'_>) -> Result<Asset> {
    let hash = take_string(fields, ASSET, "hash", path)?;
    let text = take_string(fields, ASSET, "text", path)?;
    let file = take_string(fields, ASSET, "path", path)?;
    let uri = take_string(fields, ASSET, "uri", path)?;
    let had_text = text.is_some();
    let mut sources: Vec<AssetSource> = [
        text.map(AssetSource::Text),
        file.map(AssetSource::Path),
        uri.map(AssetSource::Uri),
    ]
    .into_iter()
    .flatten()
    .filter(|source| match source {
        AssetSource::Text(s) | AssetSource::Path(s) | AssetSource::Uri(s) => !s.is_empty(),
    })
    .collect();
    if sources.len() > 1 {
        return Err(Error::new(
            path,
            ErrorKind::AmbiguousSource { object: ASSET },
        ));
    }
    let source = match sources.pop() {
        Some(source) => Some(source),
        None if had_text => Some(AssetSource::Text(String::new())),
        None => None,
    };
    Ok(Asset { hash, source })
}

/// Interprets a decoded `id` field: a string (empty meaning unknown), an unknown, or an output
/// holding either.
fn reference_id(id: PropertyValue, path: &Path<'_>) -> Result<ReferenceId> {
    match id {
        PropertyValue::String(id) => Ok(ReferenceId::from_wire(id)),
        PropertyValue::Computed(_) => Ok(ReferenceId::Unknown),
        PropertyValue::Output(output) => match output.element {
            None | Some(PropertyValue::Computed(_)) => Ok(ReferenceId::Unknown),
            Some(PropertyValue::String(id)) => Ok(ReferenceId::from_wire(id)),
            Some(other) => Err(id_type(&other, path)),
        },
        other => Err(id_type(&other, path)),
    }
}

fn id_type(found: &PropertyValue, path: &Path<'_>) -> Error {
    Error::new(
        path,
        ErrorKind::FieldType {
            object: REFERENCE,
            field: "id",
            expected: "a string",
            found: found.kind_name(),
        },
    )
}

fn missing(object: &'static str, field: &'static str, path: &Path<'_>) -> Error {
    Error::new(path, ErrorKind::MissingField { object, field })
}

/// A wrong-type error for `found`, which is then freed without recursion.
fn field_type(
    object: &'static str,
    field: &'static str,
    expected: &'static str,
    found: Value,
    path: &Path<'_>,
) -> Error {
    let found_name = wire_kind_name(found.kind.as_ref());
    discard([found]);
    Error::new(
        path,
        ErrorKind::FieldType {
            object,
            field,
            expected,
            found: found_name,
        },
    )
}

/// Removes a field that must be present.
fn required(
    fields: &mut Fields,
    object: &'static str,
    field: &'static str,
    path: &Path<'_>,
) -> Result<Value> {
    fields
        .remove(field)
        .ok_or_else(|| missing(object, field, path))
}

/// Removes an optional string field; present with another kind is an error.
fn take_string(
    fields: &mut Fields,
    object: &'static str,
    field: &'static str,
    path: &Path<'_>,
) -> Result<Option<String>> {
    match fields.remove(field) {
        None => Ok(None),
        Some(Value {
            kind: Some(Kind::StringValue(s)),
        }) => Ok(Some(s)),
        Some(other) => Err(field_type(object, field, "a string", other, path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_strings_decode_as_go_std_encoding_does() {
        let cases: &[(&str, Option<&[u8]>)] = &[
            ("", Some(b"")),
            ("Zg==", Some(b"f")),
            ("Zm8=", Some(b"fo")),
            ("Zm9v", Some(b"foo")),
            ("Zm9vYg==", Some(b"foob")),
            ("Zm9vYmE=", Some(b"fooba")),
            ("Zm9vYmFy", Some(b"foobar")),
            ("/+8=", Some(&[0xff, 0xef])),
            // Go's StdEncoding is not strict: bits after the last byte are ignored.
            ("Zh==", Some(b"f")),
            ("Zg", None),
            ("Zg=a", None),
            ("Z===", None),
            ("Zg==Zg==", None),
            ("Zm9v\n", None),
            ("Zm-v", None),
            ("====", None),
        ];
        for (text, expected) in cases {
            assert_eq!(
                STD_ENCODING.decode(text).ok().as_deref(),
                *expected,
                "decoding {text:?}"
            );
        }
    }
}
