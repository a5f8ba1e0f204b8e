//! Shared by the value benchmarks of `tfp-cty` and `tfp-translate` and the `check_input` fuzz target: the `aws_instance` schema of
//! the AWS provider 3.39.0 read from its Terraform JSON form, a state that sets every attribute and
//! nested block to a plausible value, and the timing loop that prints one JSON line per
//! measurement (median of repeated runs). Included with `#[path]`, so it is compiled into each
//! bench; it lives in a subdirectory so that cargo does not take it for a bench of its own.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use tfp_cty::{
    Attribute, AttributeType, Block, NestedBlock, NestedObject, NestingMode, Type, Value,
};

/// Timed runs per measurement; the median is reported.
const RUNS: usize = 21;
/// Each run repeats the operation for at least this long, so that timer resolution is noise.
const RUN_TIME: Duration = Duration::from_millis(50);

/// The `aws_instance` schema block and a state that sets all of it.
pub(crate) fn aws_instance() -> (Block, Value) {
    // Found from this file, not the crate that includes it (the benches and the fuzz targets).
    let text = include_str!("../../../../testdata/cty/aws_instance.schema.json");
    let schema: Json = serde_json::from_str(text).expect("the schema file is JSON");
    let block = block_from_json(&schema["block"]);
    let value = fill_block(&block);
    (block, value)
}

/// What one measurement is about: its name, the size of the encoded form and how many cty values
/// one state holds.
pub(crate) struct Measure<'a> {
    pub(crate) name: &'a str,
    pub(crate) bytes: usize,
    pub(crate) nodes: usize,
}

/// Times `op` and prints one JSON line.
///
/// `prepare` runs outside the timed loop once per iteration and hands `op` its input, for
/// operations that consume it. Words given on the command line (`cargo bench … -- msgpack_decode`)
/// select the measurements whose name holds one of them, so that a profiler sees one operation.
pub(crate) fn report<I, T, E: std::fmt::Debug>(
    measure: &Measure<'_>,
    mut prepare: impl FnMut() -> I,
    mut op: impl FnMut(I) -> Result<T, E>,
) {
    let Measure { name, bytes, nodes } = *measure;
    // cargo passes `--bench` itself; flags are not filters.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
        return;
    }
    let mut run = |iters: u32| {
        let inputs: Vec<I> = (0..iters).map(|_| prepare()).collect();
        let started = Instant::now();
        for input in inputs {
            black_box(op(black_box(input)).expect("the benchmarked operation succeeds"));
        }
        started.elapsed()
    };
    // Calibrate: how many iterations fill one run.
    let mut iters: u32 = 1;
    loop {
        if run(iters) >= RUN_TIME || iters >= 1 << 24 {
            break;
        }
        iters *= 2;
    }
    let mut per_op: Vec<f64> = (0..RUNS)
        .map(|_| run(iters).as_secs_f64() / f64::from(iters))
        .collect();
    per_op.sort_by(f64::total_cmp);
    let median = per_op[per_op.len() / 2];
    println!(
        "{}",
        serde_json::json!({
            "bench": name,
            "bytes": bytes,
            "nodes": nodes,
            "runs": RUNS,
            "iters_per_run": iters,
            "median_us": median * 1e6,
            "mb_per_s": bytes as f64 / median / 1e6,
            "values_per_s": 1.0 / median,
            "nodes_per_s": nodes as f64 / median,
        })
    );
}

/// Reads a block in the Terraform JSON schema shape.
fn block_from_json(json: &Json) -> Block {
    let mut block = Block::default();
    for (name, attr) in json["attributes"].as_object().into_iter().flatten() {
        block
            .attributes
            .insert(name.clone(), attribute_from_json(attr));
    }
    for (name, nested) in json["block_types"].as_object().into_iter().flatten() {
        block.block_types.insert(
            name.clone(),
            NestedBlock {
                block: block_from_json(&nested["block"]),
                nesting: nesting_from_json(&nested["nesting_mode"]),
                min_items: nested["min_items"].as_i64().unwrap_or(0),
                max_items: nested["max_items"].as_i64().unwrap_or(0),
            },
        );
    }
    block
}

fn attribute_from_json(json: &Json) -> Attribute {
    let flag = |key: &str| json[key].as_bool().unwrap_or(false);
    let ty = if let Some(nested) = json.get("nested_type") {
        let attributes = nested["attributes"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, attr)| (name.clone(), attribute_from_json(attr)))
            .collect();
        AttributeType::Nested(NestedObject {
            attributes,
            nesting: nesting_from_json(&nested["nesting_mode"]),
        })
    } else {
        AttributeType::Type(Type::from_json(&json["type"]).expect("the schema has valid types"))
    };
    Attribute {
        ty,
        required: flag("required"),
        optional: flag("optional"),
        computed: flag("computed"),
        sensitive: flag("sensitive"),
        deprecated: flag("deprecated"),
        write_only: flag("write_only"),
        ..Attribute::default()
    }
}

fn nesting_from_json(json: &Json) -> NestingMode {
    match json.as_str() {
        Some("single") => NestingMode::Single,
        Some("group") => NestingMode::Group,
        Some("list") => NestingMode::List,
        Some("set") => NestingMode::Set,
        Some("map") => NestingMode::Map,
        other => panic!("unknown nesting mode {other:?}"),
    }
}

/// A value for every attribute and nested block: one element for blocks limited to one, three
/// for other repeated blocks.
fn fill_block(block: &Block) -> Value {
    let mut attrs: BTreeMap<String, Value> = block
        .attributes
        .iter()
        .map(|(name, attr)| (name.clone(), fill_attribute(name, attr)))
        .collect();
    for (name, nested) in &block.block_types {
        let count = if nested.max_items == 1 { 1 } else { 3 };
        let items: Vec<Value> = (0..count)
            .map(|i| vary(fill_block(&nested.block), i))
            .collect();
        let element = nested.block.implied_type();
        let value = match nested.nesting {
            NestingMode::Single | NestingMode::Group => items.into_iter().next().expect("one"),
            NestingMode::List => Value::list(element, items),
            NestingMode::Set => Value::set(element, items),
            NestingMode::Map => Value::map(
                element,
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| (format!("key{i}"), v))
                    .collect(),
            ),
        };
        attrs.insert(name.clone(), value);
    }
    Value::object(attrs)
}

fn fill_attribute(name: &str, attr: &Attribute) -> Value {
    match &attr.ty {
        AttributeType::Type(ty) => fill(name, ty),
        AttributeType::Nested(nested) => {
            let block = Block {
                attributes: nested.attributes.clone(),
                ..Block::default()
            };
            let one = fill_block(&block);
            let element = block.implied_type();
            match nested.nesting {
                NestingMode::Single | NestingMode::Group => one,
                NestingMode::List => Value::list(element, vec![one]),
                NestingMode::Set => Value::set(element, vec![one]),
                NestingMode::Map => Value::map(element, BTreeMap::from([("key".into(), one)])),
            }
        }
    }
}

/// A plausible value of type `ty` for an attribute called `name`.
fn fill(name: &str, ty: &Type) -> Value {
    match ty {
        Type::String => Value::string(sample_string(name)),
        Type::Number => Value::number(match name {
            "volume_size" => 100,
            "iops" => 3000,
            "throughput" => 125,
            "cpu_core_count" => 4,
            "http_put_response_hop_limit" | "cpu_threads_per_core" => 2,
            _ => 1,
        }),
        Type::Bool => Value::bool(name.len().is_multiple_of(2)),
        Type::List(e) | Type::Set(e) => {
            let items: Vec<Value> = (0..3).map(|i| vary(fill(name, e), i)).collect::<Vec<_>>();
            if matches!(ty, Type::List(_)) {
                Value::list((**e).clone(), items)
            } else {
                Value::set((**e).clone(), items)
            }
        }
        Type::Map(e) => Value::map(
            (**e).clone(),
            [
                ("Name", "web-server-01"),
                ("Environment", "production"),
                ("Team", "platform"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), fill(v, e)))
            .collect(),
        ),
        Type::Object { attributes, .. } => Value::object(
            attributes
                .iter()
                .map(|(k, t)| (k.clone(), fill(k, t)))
                .collect::<Vec<_>>(),
        ),
        Type::Tuple(types) => Value::tuple(types.iter().map(|t| fill(name, t)).collect()),
        Type::Dynamic => Value::string(sample_string(name)),
    }
}

/// Strings as AWS returns them, by attribute name.
fn sample_string(name: &str) -> String {
    match name {
        "ami" => "ami-0c55b159cbfafe1f0".into(),
        "arn" => "arn:aws:ec2:us-west-2:123456789012:instance/i-0a1b2c3d4e5f67890".into(),
        "outpost_arn" => {
            "arn:aws:outposts:us-west-2:123456789012:outpost/op-0ab12c3d4e5f6789a".into()
        }
        "id" => "i-0a1b2c3d4e5f67890".into(),
        "availability_zone" => "us-west-2a".into(),
        "instance_type" => "m5.xlarge".into(),
        "private_ip" | "secondary_private_ips" => "10.0.1.25".into(),
        "public_ip" => "54.201.13.77".into(),
        "private_dns" => "ip-10-0-1-25.us-west-2.compute.internal".into(),
        "public_dns" => "ec2-54-201-13-77.us-west-2.compute.amazonaws.com".into(),
        "ipv6_addresses" => "2600:1f14:abc:de00:1234:5678:9abc:def0".into(),
        "subnet_id" => "subnet-0bb1c79de3EXAMPLE".into(),
        "security_groups" | "vpc_security_group_ids" => "sg-0123456789abcdef0".into(),
        "kms_key_id" => {
            "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab".into()
        }
        "snapshot_id" => "snap-0123456789abcdef0".into(),
        "volume_id" => "vol-0123456789abcdef0".into(),
        "network_interface_id" | "primary_network_interface_id" => "eni-0123456789abcdef0".into(),
        "device_name" => "/dev/sdb".into(),
        "volume_type" => "gp3".into(),
        "user_data" => "3dc39e0ac2b8c1a7a0c2e84e9f0a3a5ba17f4c2b".into(),
        "user_data_base64" => "IyEvYmluL2Jhc2gKZWNobyAiSGVsbG8sIFdvcmxkIiA+IGluZGV4Lmh0bWwK".into(),
        "password_data" => "QmFzZTY0RW5jcnlwdGVkUGFzc3dvcmREYXRhRm9yV2luZG93c0luc3RhbmNl".into(),
        "instance_state" => "running".into(),
        "tenancy" => "default".into(),
        "cpu_credits" => "standard".into(),
        "http_endpoint" => "enabled".into(),
        "http_tokens" => "required".into(),
        "create" | "update" => "10m".into(),
        "delete" => "20m".into(),
        "instance_initiated_shutdown_behavior" => "stop".into(),
        "iam_instance_profile" => "web-server-profile".into(),
        "key_name" => "deployer-key".into(),
        "placement_group" => "web-cluster-pg".into(),
        "host_id" => "h-0123456789abcdef0".into(),
        "virtual_name" => "ephemeral0".into(),
        other => format!("{other}-value"),
    }
}

/// Makes the `i`-th element of a repeated value distinct, so that sets keep every element.
fn vary(value: Value, i: usize) -> Value {
    if i == 0 {
        return value;
    }
    match value.kind {
        tfp_cty::Kind::String(s) => Value::string(format!("{s}-{i}")),
        tfp_cty::Kind::Object(mut attrs) => {
            for v in attrs.values_mut() {
                if v.as_str().is_some() {
                    *v = vary(v.clone(), i);
                }
            }
            Value::object(attrs)
        }
        kind => kind.into(),
    }
}

/// How many cty values a value holds, itself included.
pub(crate) fn count_nodes(value: &Value) -> usize {
    1 + value.children().map(count_nodes).sum::<usize>()
}
