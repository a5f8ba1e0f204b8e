//! Our binary in serve mode, driven with our generated pulumirpc client: what the provider-RPC
//! tests share. Property structs are written and read as JSON.

use std::{
    io::{BufRead as _, BufReader},
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use prost_types::{ListValue, Struct, Value, value::Kind};
use pulumi_terraform_provider::proto::pulumirpc::{
    self as rpc, parameterize_request::Parameters, resource_provider_client::ResourceProviderClient,
};
use serde_json::Value as Json;
use tfp_schema_cache::SWITCH as SCHEMA_CACHE;
use tonic::transport::Channel;

use crate::processes::{connections_to, running};

/// The key that marks a secret in a property struct, and the value it holds.
pub(crate) const SECRET_SIG: &str = "4dabf18193072939515e22adb298388d";
pub(crate) const SECRET: &str = "1b47061264138c4ac30d75fd1eb44270";

/// A value as the engine sends a secret, and as our answers mark one.
pub(crate) fn secret(value: Json) -> Json {
    serde_json::json!({SECRET_SIG: SECRET, "value": value})
}

const BIN: &str = env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider");

/// Our binary, in attach mode, with its stderr in a file; killed when dropped.
pub(crate) struct Plugin {
    child: Child,
    pub(crate) client: ResourceProviderClient<Channel>,
    port: u16,
    stderr: tempfile::NamedTempFile,
    /// What the binary wrote to stdout after the port line, read until it exits: the engine
    /// reads only that line, so anything more is a fault that `stop` reports.
    stdout: Option<std::thread::JoinHandle<String>>,
}

impl Plugin {
    pub(crate) async fn start() -> Plugin {
        Plugin::start_with_env(&[]).await
    }

    /// Starts our binary with `env` added to its environment.
    pub(crate) async fn start_with_env(env: &[(&str, &Path)]) -> Plugin {
        Plugin::start_with_args(&[], env).await
    }

    /// Starts our binary with `args` after its flags (an engine address) and `env` added to its
    /// environment. The schema cache is off unless `env` turns it on, so that every test
    /// launches its provider at Parameterize.
    pub(crate) async fn start_with_args(args: &[String], env: &[(&str, &Path)]) -> Plugin {
        let stderr = tempfile::NamedTempFile::new().expect("stderr file");
        let mut child = Command::new(BIN)
            .args(["--logtostderr", "-v=9"])
            .args(args)
            .env(SCHEMA_CACHE, "off")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr.reopen().expect("stderr handle"))
            .spawn()
            .expect("our binary starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the port line");
        let port: u16 = line.trim().parse().expect("the first line is the port");
        let stdout = std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut rest);
            rest
        });
        let client = ResourceProviderClient::connect(format!("http://127.0.0.1:{port}"))
            .await
            .expect("connects")
            .max_decoding_message_size(usize::MAX);
        Plugin {
            child,
            client,
            port,
            stderr,
            stdout: Some(stdout),
        }
    }

    /// A new connection to the binary, for clients other than the generated one.
    pub(crate) async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://127.0.0.1:{}", self.port))
            .expect("a valid URI")
            .connect()
            .await
            .expect("connects")
    }

    /// Parameterizes with args and checks the answer's name.
    pub(crate) async fn parameterize(&mut self, path: &Path, name: &str) {
        let response = self
            .client
            .parameterize(rpc::ParameterizeRequest {
                parameters: Some(Parameters::Args(
                    rpc::parameterize_request::ParametersArgs {
                        args: vec![path.to_string_lossy().into_owned()],
                    },
                )),
            })
            .await
            .expect("Parameterize")
            .into_inner();
        assert_eq!(response.name, name);
    }

    /// CheckConfig, then Configure with what it returned, for the default provider of
    /// `package` configured with `news`; returns both answers.
    pub(crate) async fn configure(
        &mut self,
        package: &str,
        news: Json,
    ) -> (rpc::CheckResponse, rpc::ConfigureResponse) {
        let checked = self
            .client
            .check_config(rpc::CheckRequest {
                urn: format!("urn:pulumi:test::proj::pulumi:providers:{package}::default"),
                olds: Some(object(serde_json::json!({}))),
                news: Some(object(news)),
                ..Default::default()
            })
            .await
            .expect("CheckConfig")
            .into_inner();
        let configured = self
            .client
            .configure(rpc::ConfigureRequest {
                args: checked.inputs.clone(),
                accept_secrets: true,
                accept_resources: true,
                ..Default::default()
            })
            .await
            .expect("Configure")
            .into_inner();
        (checked, configured)
    }

    /// Check of the resource `urn` with `news` (and a fixed random seed), which must find nothing
    /// wrong; returns the checked inputs.
    pub(crate) async fn check(&mut self, urn: &str, news: Json) -> Struct {
        check(&mut self.client, urn, news).await
    }

    /// Our binary's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits at most `limit` for our binary to exit.
    pub(crate) fn exited_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        crate::processes::exited_within(&mut self.child, limit)
    }

    /// A Parameterize request with `args`.
    pub(crate) fn parameterize_args(args: &[&str]) -> rpc::ParameterizeRequest {
        rpc::ParameterizeRequest {
            parameters: Some(Parameters::Args(
                rpc::parameterize_request::ParametersArgs {
                    args: args.iter().map(|a| (*a).to_owned()).collect(),
                },
            )),
        }
    }

    /// GetMapping's data for converters from Terraform (key `terraform`).
    pub(crate) async fn get_mapping(&mut self) -> Vec<u8> {
        self.client
            .get_mapping(rpc::GetMappingRequest {
                key: "terraform".into(),
                ..Default::default()
            })
            .await
            .expect("GetMapping")
            .into_inner()
            .data
    }

    /// The providers our binary started: its children but its guard (`tfp_goplugin::guard`).
    pub(crate) fn children(&self) -> Vec<u32> {
        crate::support::providers_of(self.child.id())
    }

    /// Stops the binary with SIGTERM as the engine does, checks that it and the providers it
    /// ran are gone, and returns its stderr.
    pub(crate) async fn stop(self) -> String {
        self.stop_with("TERM").await
    }

    /// Stops the binary with `signal` (`TERM`, `INT`), checks that it and the providers it ran
    /// are gone, and returns its stderr.
    pub(crate) async fn stop_with(mut self, signal: &str) -> String {
        // Every process our binary started, its guard included.
        let children = crate::processes::children_of(self.child.id());
        // Hang up first, as the engine does before it signals: the server drains connections
        // for up to 2 s before it stops.
        drop(std::mem::replace(
            &mut self.client,
            ResourceProviderClient::new(Channel::from_static("http://127.0.0.1:9").connect_lazy()),
        ));
        // Let the connection's task hang up before this thread blocks in `wait`. A dropped
        // channel says nothing when it has closed, so watch /proc, for at most the server's
        // drain: a connection the test still holds only makes the stop take that long.
        let deadline = Instant::now() + Duration::from_secs(2);
        while connections_to(self.port) > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        let status = self.child.wait().expect("exits");
        assert!(status.success(), "SIG{signal} stops the server cleanly");
        let deadline = Instant::now() + Duration::from_secs(5);
        for pid in children {
            while running(pid) {
                assert!(
                    Instant::now() < deadline,
                    "{pid}, a provider or the guard, left running"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        // Read once every process that could hold our stdout is gone.
        let rest = (self.stdout.take().expect("read until now"))
            .join()
            .expect("the stdout reader ends with the binary");
        assert!(
            rest.is_empty(),
            "stdout carries only the port line, then got {rest:?}"
        );
        std::fs::read_to_string(self.stderr.path()).unwrap_or_default()
    }
}

impl Drop for Plugin {
    /// A failed test still stops the binary with SIGTERM first, so that it stops the providers
    /// it ran; SIGKILL would orphan them.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Check of the resource `urn` with `news` (and a fixed random seed) through `client`, which
/// must find nothing wrong; returns the checked inputs.
pub(crate) async fn check(
    client: &mut ResourceProviderClient<Channel>,
    urn: &str,
    news: Json,
) -> Struct {
    let checked = client
        .check(rpc::CheckRequest {
            urn: urn.to_owned(),
            news: Some(object(news)),
            random_seed: b"seed".to_vec(),
            ..Default::default()
        })
        .await
        .expect("Check")
        .into_inner();
    assert_eq!(checked.failures, vec![]);
    checked.inputs.expect("checked inputs")
}

/// A JSON object as a Struct.
pub(crate) fn object(json: Json) -> Struct {
    match value(json).kind {
        Some(Kind::StructValue(s)) => s,
        _ => panic!("expected a JSON object"),
    }
}

fn value(json: Json) -> Value {
    let kind = match json {
        Json::Null => Kind::NullValue(0),
        Json::Bool(b) => Kind::BoolValue(b),
        Json::Number(n) => Kind::NumberValue(n.as_f64().expect("a finite number")),
        Json::String(s) => Kind::StringValue(s),
        Json::Array(items) => Kind::ListValue(ListValue {
            values: items.into_iter().map(value).collect(),
        }),
        Json::Object(map) => Kind::StructValue(Struct {
            fields: map.into_iter().map(|(k, v)| (k, value(v))).collect(),
        }),
    };
    Value { kind: Some(kind) }
}

/// A Struct as JSON; `null` for none.
pub(crate) fn json(s: Option<&Struct>) -> Json {
    match s {
        None => Json::Null,
        Some(s) => Json::Object(
            s.fields
                .iter()
                .map(|(k, v)| (k.clone(), from_value(v)))
                .collect(),
        ),
    }
}

fn from_value(v: &Value) -> Json {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => Json::Null,
        Some(Kind::BoolValue(b)) => Json::Bool(*b),
        Some(Kind::NumberValue(n)) => {
            serde_json::Number::from_f64(*n).map_or(Json::Null, Json::Number)
        }
        Some(Kind::StringValue(s)) => Json::String(s.clone()),
        Some(Kind::ListValue(l)) => Json::Array(l.values.iter().map(from_value).collect()),
        Some(Kind::StructValue(s)) => json(Some(s)),
    }
}

/// The detailed diff of a Diff response as `{path: kind name}`.
pub(crate) fn detailed(diff: &rpc::DiffResponse) -> Json {
    Json::Object(
        diff.detailed_diff
            .iter()
            .map(|(path, d)| {
                let kind = rpc::property_diff::Kind::try_from(d.kind)
                    .map(|k| k.as_str_name().to_owned())
                    .unwrap_or_default();
                (path.clone(), Json::String(kind))
            })
            .collect(),
    )
}
