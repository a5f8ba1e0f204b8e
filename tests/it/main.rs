//! Integration tests of the root package against real Terraform providers.
//!
//! One test binary (linking is the slow step). The peers come from `cargo xtask fixtures`,
//! found through `$TFP_FIXTURES_DIR/fixtures.json`; a missing peer fails the test.

mod aws;
mod aws_server;
mod cancel;
mod cli;
mod depth;
mod echo;
mod engine_death;
mod ephemeral;
mod faults;
mod go_providers;
mod identity;
mod interrupts;
mod list;
mod logs;
mod mapping;
mod passthrough;
mod plugin;
use tfp_testkit::processes;
mod protocols;
mod pulumi_client;
mod pyvider;
mod readme;
mod reattach;
mod record;
mod replace;
mod replay;
mod replay_server;
mod schema;
mod schema_cache;
mod secret_answers;
mod secrets;
mod server;
mod server_rpcs;
mod standalone;
mod support;
mod terraform_calls;
mod unknowns;
mod write_only;
