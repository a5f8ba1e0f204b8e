//! Integration tests of tfp-translate through its public API: the translation rules, round
//! trips, the proposed new state, `__meta`, the raw-state delta and the Go binary's goldens.

mod config;
mod function;
mod golden;
mod meta;
mod paths;
mod proposed;
mod rawstate;
mod roundtrip;
mod support;
mod translate;
mod write_only;
