//! How much stack a request nested as deeply as `tfp_depth` allows takes on its way through
//! the server, to choose `depth::STACK_BYTES`: `cargo bench --bench depth` (release) or
//! `cargo build --bench depth` and run the binary in `target/debug/deps` (debug).
//!
//! For nested lists and nested objects at the deepest depth accepted, a child process runs what
//! Check does with a key the schema does not know (which it gives back unchanged, the longest
//! path a deep value takes): the depth check, prost decoding, the Struct codec into Pulumi
//! values and the secrets walk (`server::wire::properties`), the Struct codec back
//! (`wire::Output::write`), prost encoding and dropping it all, on a thread with a given stack.
//! The smallest stack that carries it is found by bisection, since an overflow kills the child.
//! Prints one JSON line per shape.

use std::process::{Command, Stdio};

use prost::Message as _;
use prost_reflect::ReflectMessage as _;
use prost_types::{ListValue, Struct, Value, value::Kind};
use pulumi_terraform_provider::{
    proto::pulumirpc as rpc,
    server::wire::{self, Output},
};
use tfp_depth as depth;

const PROBE: &str = "TFP_DEPTH_PROBE";

fn main() {
    if let Ok(probe) = std::env::var(PROBE) {
        let [shape, stack] = probe.split(':').collect::<Vec<_>>()[..] else {
            panic!("bad {PROBE}");
        };
        let objects = shape == "objects";
        let stack: usize = stack.parse().expect("a stack size");
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || check(objects))
            .expect("spawns")
            .join()
            .expect("the probe ran");
        return;
    }
    let exe = std::env::current_exe().expect("our own path");
    for shape in ["lists", "objects"] {
        let carries = |stack: usize| {
            Command::new(&exe)
                .env(PROBE, format!("{shape}:{stack}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let (mut low, mut high) = (64 << 10, 1 << 30);
        assert!(carries(high), "{shape}: even 1 GiB of stack is not enough");
        while high - low > 64 << 10 {
            let mid = low + (high - low) / 2;
            if carries(mid) {
                high = mid;
            } else {
                low = mid;
            }
        }
        println!(
            "{}",
            serde_json::json!({
                "bench": "depth",
                "shape": shape,
                "levels": levels(),
                "min_stack_kib": high >> 10,
                "stack_kib": depth::STACK_BYTES >> 10,
            })
        );
    }
}

/// The deepest nesting accepted: the request, its `news`, the key's value, then two messages per
/// level.
fn levels() -> usize {
    (depth::MAX_DEPTH - 3) / 2
}

/// What Check does with the deep value.
fn check(objects: bool) {
    let mut deep = Value {
        kind: Some(Kind::StringValue("bottom".into())),
    };
    for _ in 0..levels() {
        let kind = if objects {
            Kind::StructValue(Struct {
                fields: [("a".to_owned(), deep)].into(),
            })
        } else {
            Kind::ListValue(ListValue { values: vec![deep] })
        };
        deep = Value { kind: Some(kind) };
    }
    let request = rpc::CheckRequest {
        urn: "urn:pulumi:test::proj::pyvider:index/fileContent:FileContent::f".into(),
        news: Some(Struct {
            fields: [("deep".to_owned(), deep)].into(),
        }),
        ..Default::default()
    };
    let bytes = request.encode_to_vec();
    drop(request);
    depth::check(&rpc::CheckRequest::default().descriptor(), &bytes).expect("within the limit");
    let request = rpc::CheckRequest::decode(bytes.as_slice()).expect("decodes");
    let props = wire::properties("inputs", request.news).expect("reads");
    let output = Output {
        secrets: true,
        resources: true,
    };
    let inputs = output.write("inputs", &props).expect("writes");
    let response = rpc::CheckResponse {
        inputs: Some(inputs),
        failures: Vec::new(),
    };
    assert!(response.encode_to_vec().len() > bytes.len() / 2);
}
