//! Our provider server against the provider it serves, for `cargo xtask bench`.
//!
//! Usage:
//! - `server launch <our binary> <provider> <runs> [moto]`: per run, taking turns to go first,
//!   the provider's own launch + GetProviderSchema through our bare host (`direct_ms`, and
//!   GetProviderSchema alone, `direct_schema_ms`) and our plugin
//!   from start to port (`start_ms`), Parameterize of the provider's local path
//!   (`parameterize_ms`) and the first GetSchema (`get_schema_ms`). With `moto` (the fixture's,
//!   started by `tfp_testkit::moto`), our plugin then configures the AWS provider against it
//!   and creates an S3 bucket (`create_ms`). Each run also
//!   reports the plugin's peak RSS (`peak_rss_kib`, its `VmHWM` read before it stops). Those runs
//!   have the schema cache off; each run then asks Parameterize + GetSchema of a plugin whose
//!   schema cache was filled before the first run (`warm_ms`, of which GetSchema
//!   `warm_get_schema_ms`), with the number of processes it
//!   had started by GetSchema's answer (`warm_launched`, 0 when no provider was launched). With
//!   `storing`, each run then asks Parameterize + GetSchema of a plugin with an empty schema
//!   cache of its own, which it fills (`storing_ms`, of which GetSchema
//!   `storing_get_schema_ms`, and its peak RSS by then, `storing_peak_rss_kib`): a user's first
//!   `package add`. With `go=<binary>` (Pulumi's Go
//!   binary of the same plugin), each run then does with it what it did with ours, cold (it has
//!   no schema cache): `go_start_ms`, `go_parameterize_ms`, `go_get_schema_ms`, `go_create_ms`
//!   with `moto`, `go_peak_rss_kib`; its schema must have the same members as ours.
//! - `server create <our binary> <pyvider> <runs> [go=<binary>]`: a `pyvider_file_content`
//!   Create through our plugin (`create_ms`) against the same Plan + Apply straight to the
//!   provider (`direct_ms`), and with `go=` through the Go binary too (`go_create_ms`), one at a
//!   time (`SINGLE_CREATES_PER_RUN` per run of each, taking turns to go first); then 16 and 64
//!   at once through ours and straight, twice per run, each first once (`ops_per_s_16`,
//!   `direct_ops_per_s_16`, …); then 400
//!   Creates through ours, 16 at a time, with the plugin's RSS after the first 64 and after all
//!   400.
//!
//! One JSON object per line; xtask takes the medians. Nothing here asserts on speed.

mod support;

use std::{
    io::{BufRead as _, BufReader},
    path::Path,
    process::{Child, Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use prost_types::{Struct, Value, value::Kind};
use pulumi_terraform_provider::{
    host::{Client, Provider},
    proto::{
        pulumirpc::{
            self as rpc, parameterize_request::Parameters,
            resource_provider_client::ResourceProviderClient,
        },
        tfplugin6 as v6,
    },
    tfschema,
};
use tfp_cty::Value as Cty;
use tfp_goplugin::Launch;
use tfp_mapping::EPHEMERAL_MODULE;
use tfp_schema_cache::SWITCH;
use tfp_testkit::{
    moto::{Moto, pulumi_config},
    processes::{children_of, running, unix_sockets, wait_for},
};
use tonic::transport::Channel;

const FILE: &str = "pyvider:index/fileContent:FileContent";
/// The S3 bucket resource's token, after the package name.
const BUCKET: &str = "index/s3Bucket:S3Bucket";

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    match args.get(1..).unwrap_or_default() {
        // `cargo bench` appends `--bench` to the arguments it was given.
        [mode, binary, provider, runs, rest @ ..] if mode == "launch" => {
            runtime.block_on(support::until_interrupted(launch(
                binary,
                provider,
                runs.parse()?,
                rest.iter().any(|a| a == "moto"),
                rest.iter().any(|a| a == "storing"),
                rest.iter().find_map(|a| a.strip_prefix("go=")),
            )))
        }
        [mode, binary, pyvider, runs, rest @ ..] if mode == "create" => {
            runtime.block_on(support::until_interrupted(create(
                binary,
                pyvider,
                runs.parse()?,
                rest.iter().find_map(|a| a.strip_prefix("go=")),
            )))
        }
        _ => anyhow::bail!(
            "usage: server launch <our binary> <provider> <runs> [moto] [storing] [go=<binary>] | \
             server create <our binary> <pyvider> <runs> [go=<binary>]"
        ),
    }
}

async fn launch(
    binary: &str,
    provider: &str,
    runs: usize,
    with_moto: bool,
    storing: bool,
    go: Option<&str>,
) -> anyhow::Result<()> {
    let moto = with_moto.then(Moto::start);
    // One schema cache for the warm runs, filled before the first.
    let cache = tempfile::tempdir()?;
    let warm = Env::Cache(cache.path());
    let filled = schema_time(binary, provider, warm).await?.1;
    // Every run's schema is checked to be this one, so its members are read once.
    let our_members = match go {
        Some(_) => Some(members(&serde_json::from_str(&filled.schema)?)),
        None => None,
    };
    for run in 0..runs {
        // Each goes first in turn, so that neither always follows the other's exit.
        let ((direct_time, direct_schema), ours) = if run % 2 == 0 {
            let direct = direct_launch(provider).await?;
            let ours = cold_run(binary, provider, moto.as_ref(), run).await?;
            (direct, ours)
        } else {
            let ours = cold_run(binary, provider, moto.as_ref(), run).await?;
            let direct = direct_launch(provider).await?;
            (direct, ours)
        };
        let schema = ours.schema.as_str();
        let (warm_time, answered) = schema_time(binary, provider, warm).await?;
        anyhow::ensure!(
            answered.schema == schema && filled.schema == schema,
            "the warm schema differs from the cold one"
        );
        let stored = if storing {
            let empty = tempfile::tempdir()?;
            let (time, stored) = schema_time(binary, provider, Env::Cache(empty.path())).await?;
            anyhow::ensure!(
                stored.schema == schema,
                "the schema stored in an empty cache differs from the one made without a cache"
            );
            Some((time, stored))
        } else {
            None
        };
        let go = match go.zip(our_members.as_ref()) {
            Some((go, ours)) => Some(go_cold(go, provider, moto.as_ref(), run, ours).await?),
            None => None,
        };
        println!(
            "{}",
            serde_json::json!({
                "direct_ms": ms(direct_time),
                "direct_schema_ms": ms(direct_schema),
                "start_ms": ms(ours.start),
                "parameterize_ms": ms(ours.parameterize),
                "get_schema_ms": ms(ours.get_schema),
                "create_ms": ours.create.map(ms),
                "warm_ms": ms(warm_time),
                "warm_get_schema_ms": ms(answered.get_schema),
                "storing_ms": stored.as_ref().map(|(time, _)| ms(*time)),
                "storing_get_schema_ms": stored.as_ref().map(|(_, s)| ms(s.get_schema)),
                "storing_peak_rss_kib": stored.as_ref().map(|(_, s)| s.peak_rss_kib),
                "warm_launched": answered.launched,
                "schema_bytes": schema.len(),
                "peak_rss_kib": ours.peak_rss_kib,
                "go_start_ms": go.as_ref().map(|g| ms(g.start)),
                "go_parameterize_ms": go.as_ref().map(|g| ms(g.parameterize)),
                "go_get_schema_ms": go.as_ref().map(|g| ms(g.get_schema)),
                "go_create_ms": go.as_ref().and_then(|g| g.create).map(ms),
                "go_peak_rss_kib": go.as_ref().map(|g| g.peak_rss_kib),
            })
        );
    }
    Ok(())
}

/// The provider's own launch + GetProviderSchema through our bare host, and GetProviderSchema's
/// part of it; the time includes none of its stopping, which ends before this returns.
async fn direct_launch(provider: &str) -> anyhow::Result<(Duration, Duration)> {
    let started = Instant::now();
    let direct = Provider::launch(Launch::new(provider)).await?;
    let asked = Instant::now();
    direct.client().get_provider_schema().await?;
    let times = (started.elapsed(), asked.elapsed());
    direct.shutdown().await;
    Ok(times)
}

/// One cold run of a plugin (ours or the Go binary), with no schema cache.
struct ColdRun {
    start: Duration,
    parameterize: Duration,
    get_schema: Duration,
    create: Option<Duration>,
    peak_rss_kib: u64,
    schema: String,
}

/// Start, Parameterize, first GetSchema (and with moto a Create) through our plugin, which is
/// then stopped, its provider with it, before this returns: what follows finds the machine as
/// it would after [`direct_launch`].
async fn cold_run(
    binary: &str,
    provider: &str,
    moto: Option<&Moto>,
    run: usize,
) -> anyhow::Result<ColdRun> {
    let started = Instant::now();
    let plugin = Plugin::start(binary, Env::Off).await?;
    let start = started.elapsed();
    let cold = cold_steps(&plugin, start, provider, moto, run, |_| Ok("aws".into())).await?;
    let children = children_of(plugin.served.0.id());
    drop(plugin);
    anyhow::ensure!(
        ended(&children),
        "our plugin's provider was still running 10 s after the plugin stopped"
    );
    Ok(cold)
}

/// Parameterize, first GetSchema and with moto a Create of an S3 bucket of the package that
/// `package` names from the schema, through a plugin started in `start`.
async fn cold_steps(
    plugin: &Plugin,
    start: Duration,
    provider: &str,
    moto: Option<&Moto>,
    run: usize,
    package: impl FnOnce(&str) -> anyhow::Result<String>,
) -> anyhow::Result<ColdRun> {
    let mut client = plugin.client.clone();
    let (parameterize, get_schema, schema) = cold_schema(&mut client, provider).await?;
    let package = package(&schema)?;
    let create = match moto {
        Some(moto) => Some(create_bucket(&mut client, &package, &moto.endpoint, run).await?),
        None => None,
    };
    Ok(ColdRun {
        start,
        parameterize,
        get_schema,
        create,
        peak_rss_kib: plugin.peak_rss_kib()?,
        schema,
    })
}

/// Whether every process of `pids` has ended, waiting 10 s at most.
fn ended(pids: &[u32]) -> bool {
    wait_for(Duration::from_secs(10), || {
        (!pids.iter().any(|&pid| running(pid))).then_some(())
    })
    .is_some()
}

/// Parameterize with `provider`'s path, then GetSchema: their times and the schema.
async fn cold_schema(
    client: &mut ResourceProviderClient<Channel>,
    provider: &str,
) -> anyhow::Result<(Duration, Duration, String)> {
    let asked = Instant::now();
    client.parameterize(parameterize(provider)).await?;
    let parameterized = asked.elapsed();
    let asked = Instant::now();
    let schema = client
        .get_schema(rpc::GetSchemaRequest::default())
        .await?
        .into_inner()
        .schema;
    Ok((parameterized, asked.elapsed(), schema))
}

/// Start, Parameterize, first GetSchema (and with moto a Create) through Pulumi's Go binary,
/// as [`launch`] does through ours. Its schema must have the members ours has (`ours`, from
/// [`members`]): the same work was done.
async fn go_cold(
    binary: &str,
    provider: &str,
    moto: Option<&Moto>,
    run: usize,
    ours: &[Vec<String>; 3],
) -> anyhow::Result<ColdRun> {
    let started = Instant::now();
    let plugin = GoPlugin(Some(Plugin::start(binary, Env::Off).await?));
    let start = started.elapsed();
    cold_steps(plugin.get(), start, provider, moto, run, |schema| {
        let schema: serde_json::Value = serde_json::from_str(schema)?;
        anyhow::ensure!(
            members(&schema) == *ours,
            "the Go binary's schema has other resources, functions or types than ours"
        );
        let package = schema["name"].as_str();
        package
            .map(str::to_owned)
            .ok_or_else(|| anyhow::anyhow!("the Go binary's schema has no name"))
    })
    .await
}

/// Pulumi's Go binary, started as ours is. Stopped with SIGTERM, it leaves the provider it
/// launched running; so when dropped, it is stopped, then the processes it had started are
/// ended too, by their PIDs, and the Unix sockets they listened on in the temp directory
/// (go-plugin's `/tmp/plugin…`, which a provider ended so does not remove) are removed.
struct GoPlugin(Option<Plugin>);

impl GoPlugin {
    fn get(&self) -> &Plugin {
        self.0.as_ref().expect("only taken when dropped")
    }
}

impl Drop for GoPlugin {
    fn drop(&mut self) {
        let Some(plugin) = self.0.take() else { return };
        let children = children_of(plugin.served.0.id());
        let sockets: Vec<_> = children
            .iter()
            .flat_map(|&pid| unix_sockets(pid))
            .filter(|path| path.starts_with(std::env::temp_dir()))
            .collect();
        drop(plugin);
        for &pid in &children {
            if running(pid) {
                terminate(pid);
            }
        }
        if ended(&children) {
            for socket in sockets {
                let _ = std::fs::remove_file(socket);
            }
        }
    }
}

/// The tokens of a package schema's resources, functions and types, without its package name
/// (the Go binary names a local `terraform-provider-random_v3.6.3` package `random_v3.6.3`, where
/// we drop the release suffix) and without the `ephemeral` module (the Go binary maps no
/// ephemeral resources), as the README's Differences say.
fn members(json: &serde_json::Value) -> [Vec<String>; 3] {
    let package = json["name"].as_str().unwrap_or_default();
    let ephemeral = format!("{package}:{EPHEMERAL_MODULE}/");
    ["resources", "functions", "types"].map(|map| {
        let mut tokens: Vec<String> = json[map]
            .as_object()
            .map(|m| {
                m.keys()
                    .filter(|t| !t.starts_with(&ephemeral))
                    .map(|t| t.replacen(package, "", 1))
                    .collect()
            })
            .unwrap_or_default();
        tokens.sort();
        tokens
    })
}

/// What Parameterize + GetSchema answered, and how many processes our plugin had started by
/// then.
struct Answered {
    schema: String,
    /// GetSchema's part of the time.
    get_schema: Duration,
    launched: usize,
    /// The plugin's peak RSS by then.
    peak_rss_kib: u64,
}

/// Parameterize + GetSchema through a fresh plugin: the time from Parameterize to GetSchema's
/// answer.
async fn schema_time(
    binary: &str,
    provider: &str,
    env: Env<'_>,
) -> anyhow::Result<(Duration, Answered)> {
    let plugin = Plugin::start(binary, env).await?;
    let mut client = plugin.client.clone();
    let asked = Instant::now();
    client.parameterize(parameterize(provider)).await?;
    let parameterized = asked.elapsed();
    let schema = client
        .get_schema(rpc::GetSchemaRequest::default())
        .await?
        .into_inner()
        .schema;
    let elapsed = asked.elapsed();
    let get_schema = elapsed - parameterized;
    let launched = children_of(plugin.served.0.id()).len();
    let peak_rss_kib = plugin.peak_rss_kib()?;
    Ok((
        elapsed,
        Answered {
            schema,
            get_schema,
            launched,
            peak_rss_kib,
        },
    ))
}

/// Whether a plugin uses the schema cache, and where.
#[derive(Clone, Copy)]
enum Env<'a> {
    Off,
    Cache(&'a Path),
}

/// Configures the AWS provider against moto and creates an S3 bucket, of `package`, through a
/// plugin.
async fn create_bucket(
    client: &mut ResourceProviderClient<Channel>,
    package: &str,
    endpoint: &str,
    run: usize,
) -> anyhow::Result<Duration> {
    let config = pulumi_config(endpoint, "test", "test".into());
    let config: Vec<(&str, &str)> = (config.as_object().into_iter().flatten())
        .filter_map(|(key, value)| Some((key.as_str(), value.as_str()?)))
        .collect();
    let config = strings(&config);
    let checked = client
        .check_config(rpc::CheckRequest {
            urn: "urn:pulumi:bench::bench::pulumi:providers:aws::default".into(),
            olds: Some(Struct::default()),
            news: Some(config),
            ..Default::default()
        })
        .await?
        .into_inner();
    client
        .configure(rpc::ConfigureRequest {
            args: checked.inputs,
            accept_secrets: true,
            accept_resources: true,
            ..Default::default()
        })
        .await?;
    let bucket = format!("tfp-bench-{}-{run}", std::process::id());
    let created = Instant::now();
    client
        .create(rpc::CreateRequest {
            urn: format!("urn:pulumi:bench::bench::{package}:{BUCKET}::b{run}"),
            r#type: format!("{package}:{BUCKET}"),
            properties: Some(strings(&[("bucket", &bucket)])),
            ..Default::default()
        })
        .await?;
    Ok(created.elapsed())
}

/// One Create takes milliseconds, and Pyvider's own time (a Python process) varies by more than
/// our part of it from one to the next: the one-at-a-time figure is the median of this many
/// Creates of each per run asked for. With 4, ours and the Go binary's medians of 40 came out in
/// either order from one run of the bench to the next, 0.9 ms apart; 60 of each, taking turns,
/// put ours 0.7 ms ahead (paired median).
const SINGLE_CREATES_PER_RUN: usize = 8;

async fn create(binary: &str, pyvider: &str, runs: usize, go: Option<&str>) -> anyhow::Result<()> {
    let work = tempfile::tempdir()?;
    let plugin = Plugin::start(binary, Env::Off).await?;
    let client = configured(&plugin, pyvider).await?;
    let go = match go {
        Some(go) => {
            let go = GoPlugin(Some(Plugin::start(go, Env::Off).await?));
            let client = configured(go.get(), pyvider).await?;
            Some((go, client))
        }
        None => None,
    };
    let direct = Direct::start(pyvider).await?;
    let mut serial = 0;
    for turn in 0..runs * SINGLE_CREATES_PER_RUN {
        // Each goes first in turn, so that none always finds the provider just woken by
        // another.
        let (mut create_time, mut direct_time, mut go_time) =
            (Duration::ZERO, Duration::ZERO, None);
        let mut order = [Through::Ours, Through::Straight, Through::Go];
        order.rotate_left(turn % 3);
        for through in order {
            let started = Instant::now();
            match (through, &go) {
                (Through::Ours, _) => {
                    create_file(&client, work.path(), serial).await?;
                    create_time = started.elapsed();
                }
                (Through::Straight, _) => {
                    direct.plan_apply(work.path(), serial).await?;
                    direct_time = started.elapsed();
                }
                (Through::Go, Some((_, go))) => {
                    create_file(go, work.path(), serial + 1_000_000).await?;
                    go_time = Some(started.elapsed());
                }
                (Through::Go, None) => {}
            }
        }
        serial += 1;
        println!(
            "{}",
            serde_json::json!({
                "create_ms": ms(create_time),
                "direct_ms": ms(direct_time),
                "go_create_ms": go_time.map(ms),
            })
        );
    }
    drop(go);
    let ours = |n: usize| {
        let client = client.clone();
        let dir = work.path().to_owned();
        async move { create_file(&client, &dir, n).await }
    };
    let theirs = |n: usize| {
        let direct = direct.clone();
        let dir = work.path().to_owned();
        async move { direct.plan_apply(&dir, n).await }
    };
    for width in [16, 64] {
        // Two pairs per run, each side first in one: Pyvider's throughput from one batch to the
        // next spreads more than either side's share of it (ours over straight read 0.57 to
        // 1.54 in 20 pairs), so each figure is the median of twice as many batches as runs.
        for ours_first in (0..runs).flat_map(|_| [true, false]) {
            let range = serial..serial + width;
            let (ours, theirs) = if ours_first {
                let ours = at_once(range.clone(), ours).await?;
                (ours, at_once(range, theirs).await?)
            } else {
                let theirs = at_once(range.clone(), theirs).await?;
                (at_once(range, ours).await?, theirs)
            };
            serial += width;
            println!(
                "{}",
                serde_json::json!({
                    format!("ops_per_s_{width}"): width as f64 / ours.as_secs_f64(),
                    format!("direct_ops_per_s_{width}"): width as f64 / theirs.as_secs_f64(),
                })
            );
        }
    }
    // RSS that does not grow with the number of operations: 400 Creates, 16 at a time.
    let mut rss_after_64 = 0;
    for wave in 0..25 {
        at_once(serial..serial + 16, ours).await?;
        serial += 16;
        if wave == 3 {
            rss_after_64 = plugin.rss_kib()?;
        }
    }
    println!(
        "{}",
        serde_json::json!({ "rss_kib_after_64": rss_after_64, "rss_kib_after_400": plugin.rss_kib()? })
    );
    if let Ok(provider) = Arc::try_unwrap(direct.provider) {
        provider.shutdown().await;
    }
    Ok(())
}

/// Runs `op` for every number of `range` at once and returns the time until all had finished.
async fn at_once<F, Op>(range: std::ops::Range<usize>, op: Op) -> anyhow::Result<Duration>
where
    Op: Fn(usize) -> F,
    F: Future<Output = anyhow::Result<()>> + Send + 'static,
{
    let started = Instant::now();
    let tasks: Vec<_> = range.map(|n| tokio::spawn(op(n))).collect();
    for task in tasks {
        task.await??;
    }
    Ok(started.elapsed())
}

async fn create_file(
    client: &ResourceProviderClient<Channel>,
    dir: &Path,
    n: usize,
) -> anyhow::Result<()> {
    let file = dir.join(format!("server-{n}.txt"));
    client
        .clone()
        .create(rpc::CreateRequest {
            urn: format!("urn:pulumi:bench::bench::{FILE}::f{n}"),
            r#type: FILE.into(),
            properties: Some(strings(&[
                ("filename", &file.to_string_lossy()),
                ("content", "hello"),
            ])),
            ..Default::default()
        })
        .await?;
    Ok(())
}

/// Who a single Create goes through.
#[derive(Clone, Copy)]
enum Through {
    Ours,
    Straight,
    Go,
}

/// A client of `plugin` parameterized with Pyvider and configured, as the engine leaves it
/// before its first Create.
async fn configured(
    plugin: &Plugin,
    pyvider: &str,
) -> anyhow::Result<ResourceProviderClient<Channel>> {
    let mut client = plugin.client.clone();
    client.parameterize(parameterize(pyvider)).await?;
    client
        .configure(rpc::ConfigureRequest {
            args: Some(Struct::default()),
            accept_secrets: true,
            accept_resources: true,
            ..Default::default()
        })
        .await?;
    Ok(client)
}

/// Pyvider driven straight through our host, as the engine's Create would drive it.
#[derive(Clone)]
struct Direct {
    provider: Arc<pulumi_terraform_provider::host::Provider>,
    client: Client,
    block: Arc<tfp_cty::Block>,
}

impl Direct {
    async fn start(pyvider: &str) -> anyhow::Result<Direct> {
        let provider = Provider::launch(Launch::new(pyvider)).await?;
        let client = provider.client().clone();
        let schema = tfschema::provider_schema(&client.get_provider_schema().await?)?;
        let config_block = &schema.provider.block;
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
        let block = schema.resources["pyvider_file_content"].block.clone();
        Ok(Direct {
            provider: Arc::new(provider),
            client,
            block: Arc::new(block),
        })
    }

    async fn plan_apply(&self, dir: &Path, n: usize) -> anyhow::Result<()> {
        let ty = self.block.implied_type();
        let mut attrs = null_attrs(&self.block);
        let file = dir.join(format!("direct-{n}.txt"));
        attrs.insert("filename".into(), Cty::string(file.to_string_lossy()));
        attrs.insert("content".into(), Cty::string("hello"));
        let config = Cty::object(attrs);
        let null = Cty::null(ty.clone());
        let plan = self
            .client
            .plan_resource_change(v6::plan_resource_change::Request {
                type_name: "pyvider_file_content".into(),
                prior_state: Some(dynamic(&null, &ty)?),
                proposed_new_state: Some(dynamic(&config, &ty)?),
                config: Some(dynamic(&config, &ty)?),
                ..Default::default()
            })
            .await?;
        self.client
            .apply_resource_change(v6::apply_resource_change::Request {
                type_name: "pyvider_file_content".into(),
                prior_state: Some(dynamic(&null, &ty)?),
                planned_state: plan.planned_state,
                config: Some(dynamic(&config, &ty)?),
                planned_private: plan.planned_private,
                ..Default::default()
            })
            .await?;
        Ok(())
    }
}

/// Our plugin, started as the engine starts it, and a client of it.
struct Plugin {
    served: Served,
    client: ResourceProviderClient<Channel>,
}

/// Our plugin's process; stopped as the engine stops it (SIGTERM, then wait) when dropped, so an
/// error part-way through leaves neither it nor its provider behind.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        terminate(self.0.id());
        let _ = self.0.wait();
    }
}

/// Sends SIGTERM to a process the bench started, directly or through a plugin; best effort, as
/// it may have exited already.
fn terminate(pid: u32) {
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
}

impl Plugin {
    async fn start(binary: &str, env: Env<'_>) -> anyhow::Result<Plugin> {
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
        let stdout = child.stdout.take().expect("piped");
        let served = Served(child);
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let port: u16 = line.trim().parse()?;
        // The engine accepts messages up to 400 MiB; AWS's schema is over tonic's 4 MiB default.
        let client = ResourceProviderClient::connect(format!("http://127.0.0.1:{port}"))
            .await?
            .max_decoding_message_size(400 << 20);
        Ok(Plugin { served, client })
    }

    /// The plugin's peak resident set so far.
    fn peak_rss_kib(&self) -> anyhow::Result<u64> {
        support::status_kib(&self.served.0.id().to_string(), "VmHWM:")
    }

    fn rss_kib(&self) -> anyhow::Result<u64> {
        support::status_kib(&self.served.0.id().to_string(), "VmRSS:")
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
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
