//! moto, the AWS API, on 127.0.0.1 at a port the kernel picked, and the AWS provider's
//! configuration that points at it.
//!
//! moto's own `moto_server` wants a port number, which a test could only find by binding a
//! free port and releasing it: another process may take it in between. Our launcher
//! (`moto.py`, run by the fixtures' tools Python) binds port 0 through moto's
//! `ThreadedMotoServer` and prints the port it got once it listens, so the first line of its
//! stdout is both the port and the sign that moto is ready.

use std::{
    io::{BufRead as _, BufReader, Read as _, Seek as _},
    process::{Child, ChildStdin, Command, Stdio},
};

use serde_json::{Value as Json, json};
use tfp_cty::{Block, Value};

use crate::{fixtures::Fixtures, schema::object};

const LAUNCHER: &str = include_str!("moto.py");

/// A running moto; stopped when dropped.
pub struct Moto {
    child: Child,
    /// Held open for as long as moto should serve: the launcher stops when it closes, so moto
    /// ends with the test process even if the test never drops this.
    stdin: Option<ChildStdin>,
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
}

impl Moto {
    /// Starts moto and waits until it listens.
    ///
    /// # Panics
    ///
    /// When the tools Python is not installed or moto does not start, quoting its stderr.
    pub fn start() -> Moto {
        let python = Fixtures::load().path("tools_python");
        let mut log = stderr_file();
        let mut child = Command::new(&python)
            .args(["-c", LAUNCHER])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log.try_clone().expect("the log file's handle clones"))
            .spawn()
            .unwrap_or_else(|err| panic!("{} does not start: {err}", python.display()));
        let stdin = child.stdin.take();
        let mut line = String::new();
        let read =
            BufReader::new(child.stdout.take().expect("stdout is piped")).read_line(&mut line);
        let Some(port) = read.ok().and_then(|_| line.trim().parse::<u16>().ok()) else {
            let _ = child.kill();
            let _ = child.wait();
            let mut stderr = String::new();
            let _ = log.rewind();
            let _ = log.read_to_string(&mut stderr);
            panic!("moto did not say its port (first line {line:?}); its stderr:\n{stderr}");
        };
        Moto {
            child,
            stdin,
            endpoint: format!("http://127.0.0.1:{port}"),
        }
    }

    /// The HTTP status of `GET path` on moto.
    ///
    /// # Panics
    ///
    /// When moto does not answer with a status line.
    pub fn status(&self, path: &str) -> u16 {
        use std::io::Write as _;
        let addr = self.endpoint.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(addr).expect("moto accepts a connection");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )
        .expect("send request");
        let mut response = String::new();
        let _ = stream.read_to_string(&mut response);
        response
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("moto answered GET {path} without a status: {response:?}"))
    }
}

/// The AWS provider 3.39.0's configuration as `pulumi config` stores it (strings, JSON for
/// the rest), with S3, STS and IAM at the moto of `endpoint` and the checks moto cannot
/// answer skipped. A function of the endpoint, not of a running moto, so that a replay
/// configures the provider as the recorded session did after moto stopped.
pub fn pulumi_config(endpoint: &str, access_key: &str, secret_key: Json) -> Json {
    let endpoints = format!(r#"[{{"s3":"{endpoint}","sts":"{endpoint}","iam":"{endpoint}"}}]"#);
    json!({
        "region": "us-east-1",
        "accessKey": access_key,
        "secretKey": secret_key,
        "skipCredentialsValidation": "true",
        "skipRequestingAccountId": "true",
        "skipMetadataApiCheck": "true",
        "skipRegionValidation": "true",
        // As in `terraform_config`: without it, every ConfigureProvider retries EC2's
        // DescribeAccountAttributes, which moto does not serve here, for about 20 seconds.
        "skipGetEc2Platforms": "true",
        "s3ForcePathStyle": "true",
        "endpoints": endpoints,
    })
}

/// The same configuration as a value of the provider's configuration `block`, as Terraform
/// sends it to ConfigureProvider.
pub fn terraform_config(endpoint: &str, block: &Block, secret_key: &str) -> Value {
    let endpoints_block = &block.block_types["endpoints"].block;
    let endpoint = || Value::string(endpoint);
    let endpoints = object(
        endpoints_block,
        vec![("s3", endpoint()), ("sts", endpoint()), ("iam", endpoint())],
    );
    object(
        block,
        vec![
            ("region", Value::string("us-east-1")),
            ("access_key", Value::string("test")),
            ("secret_key", Value::string(secret_key)),
            ("skip_credentials_validation", Value::bool(true)),
            ("skip_requesting_account_id", Value::bool(true)),
            ("skip_metadata_api_check", Value::bool(true)),
            ("skip_region_validation", Value::bool(true)),
            // Otherwise Configure retries EC2's DescribeAccountAttributes, which moto does
            // not serve here, for about 20 seconds.
            ("skip_get_ec2_platforms", Value::bool(true)),
            ("s3_force_path_style", Value::bool(true)),
            (
                "endpoints",
                Value::set(endpoints_block.implied_type(), vec![endpoints]),
            ),
        ],
    )
}

impl Drop for Moto {
    /// Closes the launcher's stdin, then kills it by its PID and reaps it, so no moto outlives
    /// its test.
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A temporary file for moto's stderr: a file, not a pipe, so that moto never blocks
/// on a log line nobody reads.
fn stderr_file() -> std::fs::File {
    tempfile::tempfile().expect("a temporary file for moto's stderr")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moto_listens_on_the_port_it_printed_and_stops_when_dropped() {
        let moto = Moto::start();
        let pid = moto.child.id();
        assert_eq!(moto.status("/no-such-bucket"), 404);
        drop(moto);
        assert!(!crate::gone::alive(pid), "moto {pid} outlived its handle");
    }
}
