//! Fuzzes the Check and Create input path with a real schema: protobuf bytes decoded as a
//! `google.protobuf.Struct` (prost), read as Pulumi properties the way the server reads the
//! engine's inputs (unknowns, secrets and resource references kept), translated to cty against
//! the `aws_instance` schema of the AWS provider 3.39.0 (`testdata/cty/aws_instance.schema.json`,
//! with the mapping's names: `instanceType`, `ebsBlockDevices`, MaxItemsOne blocks flattened),
//! and encoded as the msgpack a provider receives.
//!
//! Input layout: byte 0 chooses the encoding mode (its value modulo 3: configuration, apply,
//! state); the rest is the Struct.
//!
//! Invariants checked, beyond "never panics": the msgpack decodes, with the schema's type, to a
//! value that encodes to the same bytes; in apply and state modes the value is wholly known; and
//! an error never quotes a secret (no string inside a secret appears quoted in its message).
//!
//! Run with `cargo +nightly fuzz run check_input fuzz/corpus/check_input fuzz/seeds --
//! -dict=fuzz/check_input.dict -max_total_time=600` in the crate directory (`crates/translate`):
//! `seeds/` holds an instance's inputs with secrets, unknowns, nested blocks and a flattened block
//! in each mode, and the dictionary the schema's property names and Pulumi's magic strings.

#![no_main]

#[path = "../../../cty/benches/support/aws_instance.rs"]
#[expect(dead_code, reason = "the benchmarks' timing helpers are not used here")]
mod aws_instance;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use prost::Message as _;
use tfp_cty::{ProviderSchema, Schema};
use tfp_mapping::{Mapping, Options as MappingOptions};
use tfp_translate::{Mode, ObjectSchema, properties_to_cty};
use tfp_values::{Options, PropertyMap, PropertyValue, struct_to_properties};

/// How the server reads the engine's inputs (`src/server/wire.rs`).
const INPUT: Options = Options {
    keep_unknowns: true,
    keep_resources: true,
    keep_secrets: true,
    ..Options::DEFAULT
};

fuzz_target!(|data: &[u8]| check(data));

fn check(data: &[u8]) {
    let [mode, rest @ ..] = data else {
        return;
    };
    let mode = match mode % 3 {
        0 => Mode::Config,
        1 => Mode::Apply,
        _ => Mode::State,
    };
    let Ok(input) = prost_types::Struct::decode(rest) else {
        return;
    };
    let Ok(props) = struct_to_properties(input, &INPUT) else {
        return;
    };
    let mapping = mapping();
    let schema = ObjectSchema::resource(mapping, "aws_instance").expect("aws_instance is mapped");
    let ty = schema.implied_type();
    match properties_to_cty(&schema, &props, mode) {
        Ok(value) => {
            if mode != Mode::Config {
                assert!(value.is_wholly_known(), "{mode:?} let an unknown through");
            }
            let bytes = tfp_cty::to_msgpack(&value, &ty).expect("an encoded value is msgpack");
            let decoded = tfp_cty::from_msgpack(&bytes, &ty).expect("our msgpack decodes");
            let again = tfp_cty::to_msgpack(&decoded, &ty).expect("a decoded value encodes");
            assert_eq!(again, bytes, "msgpack is a fixed point");
        }
        Err(err) => {
            let text = err.to_string();
            for secret in secrets(&props) {
                assert!(
                    !text.contains(&format!("{secret:?}")),
                    "the error quotes the secret {secret:?}: {text}"
                );
            }
        }
    }
}

/// Every string inside a secret of `props`.
fn secrets(props: &PropertyMap) -> Vec<String> {
    fn walk(value: &PropertyValue, secret: bool, out: &mut Vec<String>) {
        match value {
            PropertyValue::Secret(inner) => walk(inner, true, out),
            PropertyValue::Output(o) => {
                if let Some(element) = &o.element {
                    walk(element, secret || o.secret, out);
                }
            }
            PropertyValue::String(s) if secret => out.push(s.clone()),
            PropertyValue::Array(items) => items.iter().for_each(|v| walk(v, secret, out)),
            PropertyValue::Object(map) => map.values().for_each(|v| walk(v, secret, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    props.values().for_each(|v| walk(v, false, &mut out));
    out
}

/// The mapping of a provider `aws` whose one resource is `aws_instance`.
fn mapping() -> &'static Mapping {
    static MAPPING: OnceLock<Mapping> = OnceLock::new();
    MAPPING.get_or_init(|| {
        let (block, _) = aws_instance::aws_instance();
        let schema = ProviderSchema {
            resources: [("aws_instance".to_owned(), Schema { version: 1, block })].into(),
            ..ProviderSchema::default()
        };
        Mapping::new(schema, "aws", "3.39.0", MappingOptions::default())
            .expect("the mapping builds")
    })
}
