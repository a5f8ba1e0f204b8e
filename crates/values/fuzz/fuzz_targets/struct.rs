//! Fuzzes the Struct decoder: `struct_to_properties` (or `value_to_property`) on protobuf bytes
//! decoded with prost, under options that the input also chooses.
//!
//! Input layout: byte 0 holds the boolean options (keep unknowns, reject unknowns, keep secrets,
//! keep resources, keep output values, upgrade to output values, skip nulls, skip internal keys,
//! from bit 0 up); byte 1 holds elide asset contents (bit 0), reject assets (bit 1), whether the
//! rest is a `google.protobuf.Value` instead of a `Struct` (bit 2), and in its high nibble a small
//! depth limit (0 keeps the default). The rest is the protobuf message.
//!
//! Invariants checked, beyond "never panics": what decodes encodes under the same options; the
//! encoding is a fixed point of decode-then-encode; and under lossless options decoding the
//! encoding gives back the decoded value.
//!
//! Run with `cargo +nightly fuzz run struct fuzz/corpus/struct fuzz/seeds --
//! -dict=fuzz/struct.dict -max_total_time=600` in the crate directory (`crates/values`): `seeds/`
//! holds one small Struct per kind of special value, and the dictionary Pulumi's magic strings.

#![no_main]

use libfuzzer_sys::fuzz_target;
use prost::Message as _;
use tfp_values::{
    Options, PropertyMap, PropertyValue, properties_to_struct, property_to_value,
    struct_to_properties, value_to_property,
};

fuzz_target!(|data: &[u8]| check(data));

fn check(data: &[u8]) {
    let [flags, more, rest @ ..] = data else {
        return;
    };
    let bit = |byte: u8, n: u8| byte & (1 << n) != 0;
    let depth = usize::from(more >> 4);
    let opts = Options {
        keep_unknowns: bit(*flags, 0),
        reject_unknowns: bit(*flags, 1),
        keep_secrets: bit(*flags, 2),
        keep_resources: bit(*flags, 3),
        keep_output_values: bit(*flags, 4),
        upgrade_to_output_values: bit(*flags, 5),
        skip_nulls: bit(*flags, 6),
        skip_internal_keys: bit(*flags, 7),
        elide_asset_contents: bit(*more, 0),
        reject_assets: bit(*more, 1),
        max_depth: if depth == 0 {
            tfp_values::DEFAULT_MAX_DEPTH
        } else {
            depth
        },
    };
    if bit(*more, 2) {
        let Ok(input) = prost_types::Value::decode(rest) else {
            return;
        };
        if let Ok(Some(decoded)) = value_to_property(input, &opts) {
            check_value(&decoded, &opts);
        }
    } else {
        let Ok(input) = prost_types::Struct::decode(rest) else {
            return;
        };
        if let Ok(decoded) = struct_to_properties(input, &opts) {
            check_map(&decoded, &opts);
        }
    }
}

/// Checks the round trip of a decoded property map.
fn check_map(decoded: &PropertyMap, opts: &Options) {
    let encoded = properties_to_struct(decoded, opts).expect("a decoded map encodes");
    let bytes = encoded.encode_to_vec();
    let again = struct_to_properties(encoded, opts).expect("an encoded map decodes");
    let re_encoded = properties_to_struct(&again, opts).expect("a decoded map encodes");
    assert_eq!(
        re_encoded.encode_to_vec(),
        bytes,
        "encoding is a fixed point"
    );
    if *opts == Options::lossless() && !again.values().any(has_nan) {
        assert_eq!(&again, decoded, "lossless decode(encode(v)) == v");
    }
}

/// Checks the round trip of a decoded property value.
fn check_value(decoded: &PropertyValue, opts: &Options) {
    let encoded = property_to_value(decoded, opts).expect("a decoded value encodes");
    let Some(encoded) = encoded else {
        // Only an unknown is dropped whole, and decoding kept it, so the options keep unknowns.
        panic!("a decoded value is dropped when encoded: {decoded:?}");
    };
    let bytes = encoded.encode_to_vec();
    let again = value_to_property(encoded, opts)
        .expect("an encoded value decodes")
        .expect("an encoded value is kept");
    let re_encoded = property_to_value(&again, opts)
        .expect("a decoded value encodes")
        .expect("a decoded value is kept");
    assert_eq!(
        re_encoded.encode_to_vec(),
        bytes,
        "encoding is a fixed point"
    );
    if *opts == Options::lossless() && !has_nan(&again) {
        assert_eq!(&again, decoded, "lossless decode(encode(v)) == v");
    }
}

/// Whether a NaN occurs anywhere, which `PartialEq` never finds equal to itself.
fn has_nan(value: &PropertyValue) -> bool {
    match value {
        PropertyValue::Number(n) => n.is_nan(),
        PropertyValue::Array(items) => items.iter().any(has_nan),
        PropertyValue::Object(map) => map.values().any(has_nan),
        PropertyValue::Secret(inner) => has_nan(inner),
        PropertyValue::Output(output) => output.element.as_ref().is_some_and(has_nan),
        _ => false,
    }
}
