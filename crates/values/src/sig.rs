//! The magic strings that mark special values inside a `google.protobuf.Struct`.
//!
//! Pulumi encodes everything JSON cannot say (secrets, assets, references, outputs, unknowns) with
//! fixed random strings: an object whose [`KEY`] field holds one of the signatures below, or a
//! string that equals one of the unknown sentinels. The values are part of the wire protocol and
//! come from pulumi/pulumi `sdk/go/common/resource/sig/sig.go` and `resource/plugin/rpc.go`.

/// The object key whose string value says what kind of special object this is.
pub const KEY: &str = "4dabf18193072939515e22adb298388d";
/// Signature of a secret: `{KEY: SECRET, "value": <value>}`.
pub const SECRET: &str = "1b47061264138c4ac30d75fd1eb44270";
/// Signature of a resource reference: `{KEY: RESOURCE_REFERENCE, "urn", "id"?, "name"?, "type"?,
/// "packageVersion"?}`.
pub const RESOURCE_REFERENCE: &str = "5cf8f73096256a8f31e491e813e4eb8e";
/// Signature of an output value: `{KEY: OUTPUT_VALUE, "value"?, "secret"?, "dependencies"?}`.
pub const OUTPUT_VALUE: &str = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
/// Signature of an asset: `{KEY: ASSET, "hash"?, one of "text" | "path" | "uri"}`.
pub const ASSET: &str = "c44067f5952c0a294b673a41bacd8c17";
/// Signature of an archive: `{KEY: ARCHIVE, "hash"?, one of "assets" | "path" | "uri"}`.
pub const ARCHIVE: &str = "0def7320c3a5731c473e5ecbe6d01bc7";
/// Signature of a string whose bytes are not UTF-8: `{KEY: BYTE_STRING, "value": <std base64>}`.
///
/// The engine only sends it to providers that set `accepts_byte_string` in the handshake.
pub const BYTE_STRING: &str = "803fd3297a5875dc03ca845dda5d2a98";

/// Sentinel for an unknown value of any type; the engine and the Go bridge use it for everything.
pub const UNKNOWN_STRING: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/// Sentinel for an unknown bool.
pub const UNKNOWN_BOOL: &str = "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7";
/// Sentinel for an unknown number.
pub const UNKNOWN_NUMBER: &str = "3eeb2bf0-c639-47a8-9e75-3b44932eb421";
/// Sentinel for an unknown array.
pub const UNKNOWN_ARRAY: &str = "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2";
/// Sentinel for an unknown asset.
pub const UNKNOWN_ASSET: &str = "030794c1-ac77-496b-92df-f27374a8bd58";
/// Sentinel for an unknown archive.
pub const UNKNOWN_ARCHIVE: &str = "e48ece36-62e2-4504-bad9-02848725956a";
/// Sentinel for an unknown object.
pub const UNKNOWN_OBJECT: &str = "dd056dcd-154b-4c76-9bd3-c8f88648b5ff";
