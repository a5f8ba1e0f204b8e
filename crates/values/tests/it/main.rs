//! Integration tests of the Struct codec, one binary with a module per area.

mod golden;
mod hostile;
mod options;
mod prop;
mod roundtrip;
mod support;
