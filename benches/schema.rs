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
//!   size. Then times the generation from the schema in memory as Parameterize and the first
//!   GetSchema do it, in this fresh process, its patterns compiled beforehand as the plugin
//!   compiles them while the provider starts (`tfp_schema::prepare`): the mapping
//!   (`mapping_ms`), the package schema (`package_ms`) and its JSON (`json_ms`), the pieces
//!   GetSchema sends (joining them, which GetSchema does not, cost AWS another 4 to 5 ms).
//!   Prints one JSON object with those, the CPU time of each step, every thread's together
//!   (`*_cpu_ms`: against its `*_ms`, how much work the step is and how well it uses the
//!   cores), the peak RSS of the process before and after generating (`VmHWM`), the minor
//!   page faults of each step (`*_faults`: pages touched for the first time; `start_faults` are
//!   the process's start and the answer's reading), and the sizes.
//! - `schema map <file>`: converts and maps the answer in `file` in one loop, as the plugin's
//!   Parameterize does (`tfschema::SchemaAnswer::mapping`), its patterns compiled beforehand:
//!   `map_ms`, `map_cpu_ms` and `map_faults`, against `generate`'s conversion and mapping one
//!   after the other.
//!
//! Timing only: nothing here asserts on speed.

mod support;

use std::time::{Duration, Instant};

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
        [mode, file, ..] if mode == "map" => map(file),
        _ => anyhow::bail!(
            "usage: schema dump <provider-executable> <file> | \
             schema scale <file> <scale> <out> | schema generate <file> | schema map <file>"
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
    let start = Mark::now()?;
    let schema = tfschema::SchemaAnswer::split(&bytes)?.provider_schema()?;
    let converted = Mark::now()?;
    drop(bytes);
    let resources = schema.resources.len();
    let parameter = ParameterValue {
        source: Source::Local {
            path: "terraform-provider-aws".to_owned(),
        },
        includes: vec![],
        excludes: vec![],
        provider_name: String::new(),
        auto_names: vec![],
    };
    // The plugin compiles these patterns while the provider starts (`main`), before the
    // schema arrives.
    tfp_schema::prepare();
    let rss_before = support::status_kib("self", "VmHWM:")?;
    let before = Mark::now()?;
    let mapping = Mapping::new(schema, "aws", "0.0.0", parameter.options())?;
    let mapped = Mark::now()?;
    let spec =
        tfp_schema::package_schema(&mapping, &parameter, pulumi_terraform_provider::VERSION)?;
    let packaged = Mark::now()?;
    // The pieces GetSchema sends, as it sends them: never joined into one buffer.
    let json = spec.into_json();
    let written = Mark::now()?;
    let mut figures = serde_json::json!({
        "resources": resources,
        "generate_ms": ms(written.at - before.at),
        "start_faults": start.faults,
        "schema_bytes": json.len(),
        "peak_rss_kib_before": rss_before,
        "peak_rss_kib": support::status_kib("self", "VmHWM:")?,
    });
    for (step, from, to) in [
        ("convert", &start, &converted),
        ("mapping", &before, &mapped),
        ("package", &mapped, &packaged),
        ("json", &packaged, &written),
    ] {
        figures[format!("{step}_ms")] = ms(to.at - from.at).into();
        figures[format!("{step}_cpu_ms")] = ms(to.cpu - from.cpu).into();
        figures[format!("{step}_faults")] = (to.faults - from.faults).into();
    }
    println!("{figures}");
    Ok(())
}

fn map(file: &str) -> anyhow::Result<()> {
    let bytes = std::fs::read(file)?;
    let options = tfp_mapping::Options::default();
    tfp_schema::prepare();
    let start = Mark::now()?;
    let mapping = tfschema::SchemaAnswer::split(&bytes)?.mapping("aws", "0.0.0", options)?;
    let mapped = Mark::now()?;
    println!(
        "{}",
        serde_json::json!({
            "resources": mapping.resources().count(),
            "map_ms": ms(mapped.at - start.at),
            "map_cpu_ms": ms(mapped.cpu - start.cpu),
            "map_faults": mapped.faults - start.faults,
        })
    );
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Where this process stands at one moment, for the steps between two such marks.
struct Mark {
    /// Its minor page faults so far, every thread's (`minflt`, the tenth field of
    /// `/proc/self/stat`): on this kind of virtual machine each first touch of a page costs
    /// microseconds, so pages touched are a measure of their own.
    faults: u64,
    /// Its CPU time so far, every thread's (those ended included).
    cpu: Duration,
    at: Instant,
}

impl Mark {
    fn now() -> anyhow::Result<Mark> {
        let stat = std::fs::read_to_string("/proc/self/stat")?;
        // The command name, in parentheses, may hold spaces; the fields after it are plain.
        let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let faults = (after_name.split_whitespace().nth(7))
            .and_then(|field| field.parse().ok())
            .ok_or_else(|| anyhow::anyhow!("no minflt in /proc/self/stat"))?;
        let cpu = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
        Ok(Mark {
            faults,
            cpu: Duration::new(cpu.tv_sec.unsigned_abs(), cpu.tv_nsec.unsigned_abs() as u32),
            at: Instant::now(),
        })
    }
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
