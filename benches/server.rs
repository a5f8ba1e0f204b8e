//! Our provider server, for `cargo xtask bench server`.
//!
//! Usage: `server <our binary> <terraform-provider-aws> <terraform-provider-pyvider> <runs>`.
//! Prints JSON lines: plugin start to port printed (`start_ms`); Parameterize + GetSchema of
//! AWS 3.39.0 with the schema cache off (`schema_ms`) and warm (`warm_schema_ms`), the same for
//! Pyvider (`pyvider_cold_ms`, `pyvider_warm_ms`), with the number of providers our server had
//! started when GetSchema returned (`warm_launched`, AWS and Pyvider together); a
//! `pyvider_file_content` Create through our server (`create_ms`) and the same Plan + Apply
//! sent straight to the provider through our host (`direct_ms`).

use std::{
    io::{BufRead as _, BufReader},
    process::{Child, Command, Stdio},
    time::Instant,
};

use prost_types::{Struct, Value, value::Kind};
use pulumi_terraform_provider::{
    host::Launch,
    proto::{
        pulumirpc::{
            self as rpc, parameterize_request::Parameters,
            resource_provider_client::ResourceProviderClient,
        },
        tfplugin6 as v6,
    },
    schema_cache::SWITCH,
    tfschema,
};
use tfp_cty::Value as Cty;

const FILE: &str = "pyvider:index/fileContent:FileContent";

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, binary, aws, pyvider, runs, ..] = args.as_slice() else {
        anyhow::bail!("usage: server <our binary> <aws provider> <pyvider provider> <runs>");
    };
    let runs: usize = runs.parse()?;
    let work = tempfile::tempdir()?;
    // One schema cache for the warm runs, filled before the first.
    let cache = tempfile::tempdir()?;
    let off = Env::Off;
    let warm = Env::Cache(cache.path());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        for provider in [aws, pyvider] {
            schema_time(binary, provider, warm).await?;
        }
        for run in 0..runs {
            // Start to port.
            let started = Instant::now();
            let (served, _) = serve(binary, off)?;
            let start = started.elapsed();
            drop(served);
            // Parameterize + GetSchema, cold and warm.
            let (schema_time_ms, schema) = schema_time(binary, aws, off).await?;
            let (warm_schema_ms, warm_schema) = schema_time(binary, aws, warm).await?;
            let (pyvider_cold_ms, _) = schema_time(binary, pyvider, off).await?;
            let (pyvider_warm_ms, pyvider_schema) = schema_time(binary, pyvider, warm).await?;
            if warm_schema.schema != schema.schema {
                anyhow::bail!("the warm AWS schema differs from the cold one");
            }

            // Create through our server.
            let (served, port) = serve(binary, off)?;
            let mut client =
                ResourceProviderClient::connect(format!("http://127.0.0.1:{port}")).await?;
            client.parameterize(parameterize(pyvider)).await?;
            client
                .configure(rpc::ConfigureRequest {
                    args: Some(Struct::default()),
                    accept_secrets: true,
                    accept_resources: true,
                    ..Default::default()
                })
                .await?;
            let file = work.path().join(format!("server-{run}.txt"));
            let created = Instant::now();
            client
                .create(rpc::CreateRequest {
                    urn: format!("urn:pulumi:bench::bench::{FILE}::f{run}"),
                    r#type: FILE.into(),
                    properties: Some(strings(&[
                        ("filename", &file.to_string_lossy()),
                        ("content", "hello"),
                    ])),
                    ..Default::default()
                })
                .await?;
            let create = created.elapsed();
            drop(client);
            drop(served);

            // The same Plan + Apply straight to the provider.
            let provider = Launch::new(pyvider).start().await?;
            let client = provider.client();
            let schema6 = tfschema::provider_schema(&client.get_provider_schema().await?)?;
            let config_block = &schema6.provider.block;
            client
                .configure_provider(v6::configure_provider::Request {
                    terraform_version: "1.10.0".into(),
                    config: Some(dynamic(
                        &null_object(config_block),
                        &config_block.implied_type(),
                    )?),
                    client_capabilities: None,
                })
                .await?;
            let block = &schema6.resources["pyvider_file_content"].block;
            let ty = block.implied_type();
            let direct_file = work.path().join(format!("direct-{run}.txt"));
            let mut attrs = null_attrs(block);
            attrs.insert(
                "filename".into(),
                Cty::string(direct_file.to_string_lossy()),
            );
            attrs.insert("content".into(), Cty::string("hello"));
            let config = Cty::object(attrs);
            let null = Cty::null(ty.clone());
            let direct = Instant::now();
            let plan = client
                .plan_resource_change(v6::plan_resource_change::Request {
                    type_name: "pyvider_file_content".into(),
                    prior_state: Some(dynamic(&null, &ty)?),
                    proposed_new_state: Some(dynamic(&config, &ty)?),
                    config: Some(dynamic(&config, &ty)?),
                    ..Default::default()
                })
                .await?;
            client
                .apply_resource_change(v6::apply_resource_change::Request {
                    type_name: "pyvider_file_content".into(),
                    prior_state: Some(dynamic(&null, &ty)?),
                    planned_state: plan.planned_state,
                    config: Some(dynamic(&config, &ty)?),
                    planned_private: plan.planned_private,
                    ..Default::default()
                })
                .await?;
            let direct_time = direct.elapsed();
            provider.shutdown().await;
            println!(
                "{}",
                serde_json::json!({
                    "start_ms": start.as_secs_f64() * 1000.0,
                    "schema_ms": schema_time_ms,
                    "warm_schema_ms": warm_schema_ms,
                    "pyvider_cold_ms": pyvider_cold_ms,
                    "pyvider_warm_ms": pyvider_warm_ms,
                    "warm_launched": warm_schema.launched + pyvider_schema.launched,
                    "schema_bytes": schema.schema.len(),
                    "create_ms": create.as_secs_f64() * 1000.0,
                    "direct_ms": direct_time.as_secs_f64() * 1000.0,
                })
            );
        }
        anyhow::Ok(())
    })
}

/// What Parameterize + GetSchema returned, and how many providers our server had started by
/// then.
struct Answered {
    schema: String,
    launched: usize,
}

/// The time from Parameterize to GetSchema's answer through a fresh server, in ms.
async fn schema_time(
    binary: &str,
    provider: &str,
    env: Env<'_>,
) -> anyhow::Result<(f64, Answered)> {
    let (served, port) = serve(binary, env)?;
    // The engine accepts messages up to 400 MiB; AWS's schema is over tonic's 4 MiB default.
    let mut client = ResourceProviderClient::connect(format!("http://127.0.0.1:{port}"))
        .await?
        .max_decoding_message_size(400 << 20);
    let asked = Instant::now();
    client.parameterize(parameterize(provider)).await?;
    let schema = client
        .get_schema(rpc::GetSchemaRequest::default())
        .await?
        .into_inner()
        .schema;
    let elapsed = asked.elapsed().as_secs_f64() * 1000.0;
    let launched = children(served.0.id());
    drop(client);
    drop(served);
    Ok((elapsed, Answered { schema, launched }))
}

/// How many processes `pid` has started that still run.
fn children(pid: u32) -> usize {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .map(|task| {
            std::fs::read_to_string(task.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .count()
        })
        .sum()
}

/// Whether a server uses the schema cache, and where.
#[derive(Clone, Copy)]
enum Env<'a> {
    Off,
    Cache(&'a std::path::Path),
}

/// Our server process; stopped as the engine stops it (SIGTERM, then wait) when dropped, so an
/// error part-way through a run leaves neither it nor its provider behind.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        stop(&mut self.0);
    }
}

/// Starts our binary in serve mode and reads the port it prints.
fn serve(binary: &str, env: Env<'_>) -> anyhow::Result<(Served, u16)> {
    let mut command = Command::new(binary);
    match env {
        Env::Off => command.env(SWITCH, "off"),
        Env::Cache(dir) => command
            .env(SWITCH, "on")
            .env("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", dir),
    };
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut line = String::new();
    let stdout = child.stdout.take().expect("piped");
    let served = Served(child);
    BufReader::new(stdout).read_line(&mut line)?;
    Ok((served, line.trim().parse()?))
}

/// Stops our server as the engine does and waits for it.
fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

fn parameterize(path: &str) -> rpc::ParameterizeRequest {
    rpc::ParameterizeRequest {
        parameters: Some(Parameters::Args(
            rpc::parameterize_request::ParametersArgs {
                args: vec![path.to_owned()],
            },
        )),
    }
}

fn strings(pairs: &[(&str, &str)]) -> Struct {
    Struct {
        fields: pairs
            .iter()
            .map(|(k, v)| {
                (
                    (*k).to_owned(),
                    Value {
                        kind: Some(Kind::StringValue((*v).to_owned())),
                    },
                )
            })
            .collect(),
    }
}

fn null_attrs(block: &tfp_cty::Block) -> std::collections::BTreeMap<String, Cty> {
    block
        .attributes
        .iter()
        .map(|(name, a)| (name.clone(), Cty::null(a.implied_type())))
        .collect()
}

fn null_object(block: &tfp_cty::Block) -> Cty {
    Cty::object(null_attrs(block))
}

fn dynamic(value: &Cty, ty: &tfp_cty::Type) -> anyhow::Result<v6::DynamicValue> {
    Ok(v6::DynamicValue {
        msgpack: tfp_cty::to_msgpack(value, ty)?,
        json: vec![],
    })
}
