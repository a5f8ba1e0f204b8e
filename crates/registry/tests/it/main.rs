//! Integration tests for `tfp-registry`: parity tables from OpenTofu's own libraries, and
//! installs against a real HTTPS registry that the tests start on 127.0.0.1, serving packages
//! made from the real terraform-provider-random binary of the fixture manifest.

mod concurrency;
mod config;
mod faults;
mod install;
mod mirrors;
mod parity;
mod support;
