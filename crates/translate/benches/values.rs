//! End-to-end speed of the value path of a resource call, for `cargo xtask bench values`
//! (`cargo bench -p tfp-translate --bench values`).
//!
//! Forward, as for Create or Update: a `google.protobuf.Struct` from the engine becomes property
//! values, then a cty value through the mapping, then msgpack for the provider. Backward, as for
//! the provider's answer: msgpack becomes a cty value, then property values, then a Struct. The
//! object is the `aws_instance` state of the `tfp-cty` values bench (every attribute and block of
//! the AWS provider 3.39.0 schema set), mapped as the bridge maps the provider. MB/s is over the
//! msgpack size; values/s counts whole states. Timing only: nothing here asserts on speed.

#[path = "../../cty/benches/support/aws_instance.rs"]
mod aws_instance;

use std::collections::BTreeMap;
use std::error::Error;

use aws_instance::{Measure, count_nodes, report};
use tfp_cty::{ProviderSchema, Schema, from_msgpack, to_msgpack};
use tfp_mapping::Mapping;
use tfp_translate::{Mode, ObjectSchema, cty_to_properties, properties_to_cty};
use tfp_values::{Options, properties_to_struct, struct_to_properties};

fn main() -> Result<(), Box<dyn Error>> {
    let (block, value) = aws_instance::aws_instance();
    let provider = ProviderSchema {
        resources: BTreeMap::from([("aws_instance".to_owned(), Schema { version: 1, block })]),
        ..ProviderSchema::default()
    };
    let mapping = Mapping::new(provider, "aws", "3.39.0", tfp_mapping::Options::default())?;
    let schema =
        ObjectSchema::resource(&mapping, "aws_instance").ok_or("aws_instance is mapped")?;
    let ty = schema.implied_type();
    let opts = Options::lossless();

    let props = cty_to_properties(&schema, &value)?;
    let input = properties_to_struct(&props, &opts)?;
    let msgpack = to_msgpack(&properties_to_cty(&schema, &props, Mode::Config)?, &ty)?;
    let measure = |name| Measure {
        name,
        bytes: msgpack.len(),
        nodes: count_nodes(&value),
    };

    report(
        &measure("struct_to_properties"),
        || input.clone(),
        |s| struct_to_properties(s, &opts).map(|p| p.len()),
    );
    report(
        &measure("properties_to_cty"),
        || &props,
        |p| properties_to_cty(&schema, p, Mode::Config).map(|v| v.is_null()),
    );
    report(
        &measure("struct_to_msgpack"),
        || input.clone(),
        |s| -> Result<usize, Box<dyn Error>> {
            let props = struct_to_properties(s, &opts)?;
            let value = properties_to_cty(&schema, &props, Mode::Config)?;
            Ok(to_msgpack(&value, &ty)?.len())
        },
    );
    report(
        &measure("msgpack_to_struct"),
        || msgpack.as_slice(),
        |b| -> Result<usize, Box<dyn Error>> {
            let value = from_msgpack(b, &ty)?;
            let props = cty_to_properties(&schema, &value)?;
            Ok(properties_to_struct(&props, &opts)?.fields.len())
        },
    );
    Ok(())
}
