//! Encode and decode speed of an AWS-sized value, for `cargo xtask bench values`
//! (`cargo bench -p tfp-cty --bench values`).
//!
//! The value is an `aws_instance` state with every attribute and nested block set, under the real
//! schema of the AWS provider 3.39.0 (`testdata/cty/aws_instance.schema.json`, the resource's entry
//! of `tf-schema` output, which has the shape of `terraform providers schema -json`). Each codec
//! direction is timed over repeated runs; the bench prints one JSON object per measurement with the
//! median time per value, MB/s over the encoded size and values/s (whole states per second; `nodes`
//! says how many cty values one state holds). Timing only: nothing here asserts on speed.

#[path = "support/aws_instance.rs"]
mod aws_instance;

use aws_instance::{Measure, count_nodes, report};
use tfp_cty::{from_json, from_msgpack, to_json, to_msgpack};

fn main() {
    let (block, value) = aws_instance::aws_instance();
    let ty = block.implied_type();
    let nodes = count_nodes(&value);
    let msgpack = to_msgpack(&value, &ty).expect("the filled state encodes as msgpack");
    let json = to_json(&value, &ty).expect("the filled state encodes as JSON");
    // The measurements are only meaningful if the codecs give the state back.
    assert_eq!(from_msgpack(&msgpack, &ty).expect("decodes"), value);
    assert_eq!(from_json(&json, &ty).expect("decodes"), value);

    let measure = |name, bytes| Measure { name, bytes, nodes };
    report(
        &measure("msgpack_encode", msgpack.len()),
        || &value,
        |v| to_msgpack(v, &ty).map(|b| b.len()),
    );
    report(
        &measure("msgpack_decode", msgpack.len()),
        || msgpack.as_slice(),
        |b| from_msgpack(b, &ty).map(|v| v.is_null()),
    );
    report(
        &measure("json_encode", json.len()),
        || &value,
        |v| to_json(v, &ty).map(|b| b.len()),
    );
    report(
        &measure("json_decode", json.len()),
        || json.as_slice(),
        |b| from_json(b, &ty).map(|v| v.is_null()),
    );
}
