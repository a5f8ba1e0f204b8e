//! Integration tests of the root package against real Terraform providers.
//!
//! One test binary (linking is the slow step). The peers come from `cargo xtask fixtures`,
//! found through `$TFP_FIXTURES_DIR/fixtures.json`; a missing peer fails the test.

mod aws;
mod cli;
mod faults;
mod go_providers;
mod logs;
mod protocols;
mod pyvider;
mod reattach;
mod schema;
mod server;
mod support;
