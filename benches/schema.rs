//! Pulumi schema generation, for `cargo xtask bench` (`schema` and the generation rows of the
//! whole table).
//!
//! Usage:
//! - `schema dump <provider-executable> <file>`: launches the provider, asks GetProviderSchema
//!   and writes the answer (protobuf) to `file`, so that generation can be measured from a
//!   schema in memory, in fresh processes.
//! - `schema scale <file> <scale> <out>`: writes to `out` a synthetic answer `scale` times as
//!   large as the dump in `file`: every resource and data source again under `scale - 1` new
//!   names (`aws_instance_copy1`, …), with its real attributes, blocks and descriptions.
//! - `schema generate <file>`: decodes and converts the answer in `file` (`convert_ms`, not part
//!   of the generation, which starts from the schema in memory), then frees it, as the plugin
//!   does with a provider's, so that a synthetic answer is measured exactly as a real one of its
//!   size. Then times the generation as Parameterize and the first GetSchema do it,
//!   in this fresh process, its patterns compiled beforehand as the plugin compiles them while the
//!   provider starts (`tfp_schema::prepare`): the mapping (`mapping_ms`), the package schema
//!   (`package_ms`) and its JSON (`json_ms`), the pieces GetSchema sends (joining them, which
//!   GetSchema does not, cost AWS another 4 to 5 ms). Prints one JSON object with those, the
//!   CPU time of each step, every thread's together (`*_cpu_ms`: against its `*_ms`, how much
//!   work the step is and how well it uses the cores), the peak RSS of the process before and
//!   after generating (`VmHWM`), the minor page faults of each step (`*_faults`: pages touched
//!   for the first time; `start_faults` are the process's start and the answer's reading), and
//!   the sizes.
//!
//! Timing only: nothing here asserts on speed.

mod support;

use std::time::Instant;

use prost::Message as _;
use pulumi_terraform_provider::{host::Provider, proto::tfplugin6 as v6, tfschema};
use tfp_goplugin::Launch;
use tfp_mapping::Mapping;
use tfp_schema::{ParameterValue, Source};

/// The plugin's allocator, so that generation is timed as the plugin runs it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1..).unwrap_or_default() {
        [mode, executable, file, ..] if mode == "dump" => dump(executable, file),
        [mode, file, times, out, ..] if mode == "scale" => scale(file, times.parse()?, out),
        [mode, file, ..] if mode == "generate" => generate(file),
        _ => anyhow::bail!(
            "usage: schema dump <provider-executable> <file> | \
             schema scale <file> <scale> <out> | schema generate <file>"
        ),
    }
}

fn dump(executable: &str, file: &str) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let response = runtime.block_on(support::until_interrupted(async {
        let provider = Provider::launch(Launch::new(executable)).await?;
        let response = provider.client().get_provider_schema().await;
        provider.shutdown().await;
        anyhow::Ok(response?)
    }))?;
    std::fs::write(file, response.encode_to_vec())?;
    Ok(())
}

fn scale(file: &str, scale: usize, out: &str) -> anyhow::Result<()> {
    let response = v6::get_provider_schema::Response::decode(std::fs::read(file)?.as_slice())?;
    std::fs::write(out, scaled(response, scale).encode_to_vec())?;
    Ok(())
}

fn generate(file: &str) -> anyhow::Result<()> {
    let bytes = std::fs::read(file)?;
    // Read in parts and converted as the plugin reads a provider's answer
    // (`tfschema::SchemaAnswer`); without a schema cache it then frees the bytes.
    let faults_start = minor_faults()?;
    let cpu_start = cpu();
    let converting = Instant::now();
    let schema = tfschema::SchemaAnswer::split(&bytes)?.provider_schema()?;
    let converted = converting.elapsed();
    let cpu_converted = cpu();
    let faults_converted = minor_faults()?;
    drop(bytes);
    let resources = schema.resources.len();
    let parameter = ParameterValue {
        source: Source::Local {
            path: "terraform-provider-aws".to_owned(),
        },
        includes: vec![],
        excludes: vec![],
        provider_name: String::new(),
    };
    // The plugin compiles these patterns while the provider starts (`main`), before the
    // schema arrives.
    tfp_schema::prepare();
    let rss_before = support::status_kib("self", "VmHWM:")?;
    let faults_before = minor_faults()?;
    let cpu_before = cpu();
    let started = Instant::now();
    let mapping = Mapping::new(schema, "aws", "0.0.0", parameter.options())?;
    let mapped = started.elapsed();
    let cpu_mapped = cpu();
    let faults_mapped = minor_faults()?;
    let spec =
        tfp_schema::package_schema(&mapping, &parameter, pulumi_terraform_provider::VERSION)?;
    let packaged = started.elapsed();
    let cpu_packaged = cpu();
    let faults_packaged = minor_faults()?;
    // The pieces GetSchema sends, as it sends them: never joined into one buffer.
    let json = spec.into_json();
    let written = started.elapsed();
    let cpu_written = cpu();
    let faults_written = minor_faults()?;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{}",
        serde_json::json!({
            "resources": resources,
            "convert_ms": ms(converted),
            "generate_ms": ms(written),
            "mapping_ms": ms(mapped),
            "package_ms": ms(packaged - mapped),
            "json_ms": ms(written - packaged),
            "convert_cpu_ms": ms(cpu_converted - cpu_start),
            "mapping_cpu_ms": ms(cpu_mapped - cpu_before),
            "package_cpu_ms": ms(cpu_packaged - cpu_mapped),
            "json_cpu_ms": ms(cpu_written - cpu_packaged),
            "start_faults": faults_start,
            "convert_faults": faults_converted - faults_start,
            "mapping_faults": faults_mapped - faults_before,
            "package_faults": faults_packaged - faults_mapped,
            "json_faults": faults_written - faults_packaged,
            "schema_bytes": json.len(),
            "peak_rss_kib_before": rss_before,
            "peak_rss_kib": support::status_kib("self", "VmHWM:")?,
        })
    );
    Ok(())
}

/// `response` with every resource and data source repeated under `scale - 1` more names.
fn scaled(
    mut response: v6::get_provider_schema::Response,
    scale: usize,
) -> v6::get_provider_schema::Response {
    for map in [
        &mut response.resource_schemas,
        &mut response.data_source_schemas,
    ] {
        let copies: Vec<_> = (1..scale)
            .flat_map(|copy| {
                map.iter()
                    .map(move |(name, s)| (format!("{name}_copy{copy}"), s.clone()))
            })
            .collect();
        map.extend(copies);
    }
    response
}

/// The CPU time this process has spent so far, every thread's (those ended included).
fn cpu() -> std::time::Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    std::time::Duration::new(t.tv_sec.unsigned_abs(), t.tv_nsec.unsigned_abs() as u32)
}

/// The minor page faults of this process so far, all threads included (`minflt`, the tenth
/// field of `/proc/self/stat`): on this kind of virtual machine each first touch of a page
/// costs microseconds, so pages touched are a measure of their own.
fn minor_faults() -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // The command name, in parentheses, may hold spaces; the fields after it are plain.
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    after_name
        .split_whitespace()
        .nth(7)
        .and_then(|field| field.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("no minflt in /proc/self/stat"))
}
