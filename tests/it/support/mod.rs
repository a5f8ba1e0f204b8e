//! What the root package's tests share beyond `tfp-testkit`: what needs our generated types
//! or our host (launching a provider, `DynamicValue`s, plan and apply over a client, the
//! engine's log service), and a world with a provider mirror.

mod resource;

pub(crate) use resource::Resource;

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;
use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
};

use pulumi_terraform_provider::{
    host::Provider,
    proto::{
        pulumirpc::{
            self as rpc,
            engine_server::{Engine, EngineServer},
        },
        tfplugin6 as v6,
    },
    recording::{
        Record, parse_recording, protocols,
        replay::{self, Replayed, Replayer},
    },
};
use tfp_cty::{Block, Type, Value};
use tfp_goplugin::{Launch, handshake::Address};
pub(crate) use tfp_testkit::{fixtures::Fixtures, gone::Traces, moto::Moto, schema::object};
use tokio::task::JoinHandle;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::{Request, Response, Status};

/// What `provider` must leave behind when stopped: nothing of its process and its socket.
pub(crate) fn traces_of(provider: &Provider) -> Traces {
    let socket = match provider.address() {
        Some(Address::Unix(path)) => Some(path.clone()),
        _ => None,
    };
    Traces {
        pid: provider.pid(),
        socket,
    }
}

/// The providers our binary running as `pid` has started: its children but the guard
/// (`tfp_goplugin::guard`).
pub(crate) fn providers_of(pid: u32) -> Vec<u32> {
    crate::processes::children_of(pid)
        .into_iter()
        .filter(|child| !is_guard(*child))
        .collect()
}

/// The guard process our binary running as `pid` has started, if any.
pub(crate) fn guard_of(pid: u32) -> Option<u32> {
    crate::processes::children_of(pid)
        .into_iter()
        .find(|child| is_guard(*child))
}

fn is_guard(pid: u32) -> bool {
    crate::processes::command_line(pid).contains(tfp_goplugin::guard::ARGUMENT)
}

/// The socket Pyvider listens on when its process is `pid`: named after the process, in the
/// temporary directory (pyvider `rpcplugin/handshake/negotiation.py`), which follows `TMPDIR`
/// as ours does.
pub(crate) fn pyvider_socket(pid: u32) -> PathBuf {
    std::env::temp_dir().join(format!("pyvider-{pid}.sock"))
}

/// The recording at `path` replayed in this process, behind a client named `name`.
pub(crate) async fn replayed(path: &Path, name: &str) -> Replayed {
    let replayer = Replayer::from_file(protocols(), path)
        .unwrap_or_else(|err| panic!("loading {}: {err:#}", path.display()));
    replay::client(replayer, name)
        .await
        .unwrap_or_else(|err| panic!("connecting to the replay of {}: {err:#}", path.display()))
}

/// Launches the provider `key` of the fixtures with AutoMTLS.
pub(crate) async fn launch(key: &str) -> Provider {
    let fixtures = Fixtures::load();
    Provider::launch(Launch::new(fixtures.path(key)))
        .await
        .unwrap_or_else(|err| panic!("launching {key}: {err:#}"))
}

/// A user's world with terraform-provider-random 3.6.3 in an implied filesystem mirror
/// (`$HOME/.terraform.d/plugins`), so that installing it needs no network, and an empty
/// provider cache.
pub(crate) struct Mirror {
    dir: tempfile::TempDir,
}

impl Mirror {
    pub(crate) const SOURCE: &str = "hashicorp/random";
    pub(crate) const VERSION: &str = "3.6.3";
    pub(crate) const EXECUTABLE: &str = "terraform-provider-random_v3.6.3_x5";

    pub(crate) fn new() -> Mirror {
        let fixtures = Fixtures::load();
        let dir = tempfile::tempdir().expect("temp dir");
        let package = dir
            .path()
            .join("home/.terraform.d/plugins/registry.opentofu.org/hashicorp/random/3.6.3")
            .join(platform());
        std::fs::create_dir_all(&package).expect("mirror directory");
        std::os::unix::fs::symlink(
            fixtures.path("random_3_6_3"),
            package.join(Self::EXECUTABLE),
        )
        .expect("link the provider into the mirror");
        std::fs::create_dir_all(dir.path().join("cache")).expect("cache directory");
        // An empty CLI configuration of our own, whatever the one of the user running the test.
        std::fs::write(dir.path().join("home/.terraformrc"), "").expect("CLI configuration");
        Mirror { dir }
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub(crate) fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    /// The environment that points our binary at this world.
    pub(crate) fn env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("HOME", self.home()),
            ("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", self.cache()),
            ("TF_CLI_CONFIG_FILE", self.home().join(".terraformrc")),
        ]
    }

    fn version_dir(&self) -> PathBuf {
        self.cache()
            .join("registry.opentofu.org/hashicorp/random")
            .join(Self::VERSION)
    }

    /// The cache entry's directory.
    pub(crate) fn entry(&self) -> PathBuf {
        self.version_dir().join(platform())
    }

    /// The package's lock file, at OpenTofu's path.
    pub(crate) fn lock_path(&self) -> PathBuf {
        self.version_dir().join(format!("{}.lock", platform()))
    }

    /// Takes the package's lock as another installer would; released when dropped.
    pub(crate) fn hold_lock(&self) -> std::fs::File {
        std::fs::create_dir_all(self.version_dir()).expect("version directory");
        let file = std::fs::File::create(self.lock_path()).expect("lock file");
        file.lock().expect("take the lock");
        file
    }

    /// Files an install left in the version directory that a finished one never leaves:
    /// staging directories and partial downloads.
    pub(crate) fn leftovers(&self) -> Vec<String> {
        std::fs::read_dir(self.version_dir())
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|name| name.starts_with(".tmp-"))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The provider platform of this machine, as cache and mirror directories name it.
fn platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{}_{arch}", std::env::consts::OS)
}

/// A temporary directory with an executable script in it, for launch faults.
pub(crate) fn script(dir: &tempfile::TempDir, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.path().join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod script");
    path
}

/// A msgpack `DynamicValue`.
/// The records of the recording at `path`.
pub(crate) fn records(path: &Path) -> Vec<Record> {
    parse_recording(&std::fs::read_to_string(path).expect("the recording reads"))
        .expect("the recording parses")
}

pub(crate) fn dynamic(value: &Value, ty: &Type) -> v6::DynamicValue {
    v6::DynamicValue {
        msgpack: tfp_cty::to_msgpack(value, ty).expect("value encodes"),
        json: vec![],
    }
}

/// The value of a msgpack `DynamicValue`, after checking that our encoder writes the
/// provider's bytes back exactly.
pub(crate) fn value(dv: Option<&v6::DynamicValue>, ty: &Type) -> Value {
    let dv = dv.expect("a DynamicValue");
    let value = tfp_cty::from_msgpack(&dv.msgpack, ty).expect("provider's value decodes");
    let again = tfp_cty::to_msgpack(&value, ty).expect("the decoded value encodes");
    assert!(
        again == dv.msgpack,
        "re-encoding the provider's bytes changed them"
    );
    value
}

/// Like [`value`], and with `UPDATE_CAPTURES=1` also saves the bytes and their type under
/// `testdata/cty/captures/<name>.json`, where the cty crate's conformance test reads them.
pub(crate) fn captured(name: &str, dv: Option<&v6::DynamicValue>, ty: &Type) -> Value {
    let decoded = value(dv, ty);
    if std::env::var_os("UPDATE_CAPTURES").is_some() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/cty/captures");
        std::fs::create_dir_all(&dir).expect("create the captures directory");
        let bytes = &dv.expect("a DynamicValue").msgpack;
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let record = serde_json::json!({ "type": ty.to_json(), "msgpack": hex });
        let text = serde_json::to_string_pretty(&record).expect("JSON prints") + "\n";
        std::fs::write(dir.join(format!("{name}.json")), text).expect("write the capture");
    }
    decoded
}

/// Fails on error diagnostics, quoting them.
pub(crate) fn no_errors(what: &str, diagnostics: &[v6::Diagnostic]) {
    let errors: Vec<_> = diagnostics
        .iter()
        .filter(|d| d.severity == v6::diagnostic::Severity::Error as i32)
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
}

/// The block of a resource, data source or the provider.
pub(crate) fn block<'a>(schemas: &'a BTreeMap<String, tfp_cty::Schema>, name: &str) -> &'a Block {
    &schemas
        .get(name)
        .unwrap_or_else(|| panic!("no schema for {name}"))
        .block
}

/// The engine's side of the log protocol, a real gRPC server answering `Log` and nothing else;
/// it keeps every message it gets.
#[derive(Clone, Default)]
pub(crate) struct EngineLogs {
    messages: Arc<Mutex<Vec<String>>>,
}

#[tonic::async_trait]
impl Engine for EngineLogs {
    async fn log(&self, request: Request<rpc::LogRequest>) -> Result<Response<()>, Status> {
        self.messages
            .lock()
            .expect("not poisoned")
            .push(request.into_inner().message);
        Ok(Response::new(()))
    }

    async fn get_root_resource(
        &self,
        _: Request<rpc::GetRootResourceRequest>,
    ) -> Result<Response<rpc::GetRootResourceResponse>, Status> {
        Err(Status::unimplemented("not an engine"))
    }

    async fn set_root_resource(
        &self,
        _: Request<rpc::SetRootResourceRequest>,
    ) -> Result<Response<rpc::SetRootResourceResponse>, Status> {
        Err(Status::unimplemented("not an engine"))
    }

    async fn start_debugging(
        &self,
        _: Request<rpc::StartDebuggingRequest>,
    ) -> Result<Response<()>, Status> {
        Err(Status::unimplemented("not an engine"))
    }

    async fn require_pulumi_version(
        &self,
        _: Request<rpc::RequirePulumiVersionRequest>,
    ) -> Result<Response<rpc::RequirePulumiVersionResponse>, Status> {
        Err(Status::unimplemented("not an engine"))
    }
}

impl EngineLogs {
    /// Serves the engine's services on a port of 127.0.0.1 the kernel picks; abort the task to
    /// stop.
    pub(crate) async fn serve(
        &self,
    ) -> (SocketAddr, JoinHandle<Result<(), tonic::transport::Error>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let address = listener.local_addr().expect("bound");
        let service = EngineServer::new(self.clone());
        let server = tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(TcpListenerStream::new(listener)),
        );
        (address, server)
    }

    /// Every message logged so far, one per line.
    pub(crate) fn all(&self) -> String {
        self.messages.lock().expect("not poisoned").join("\n")
    }
}
