//! The command line: subcommands users run by hand.

pub mod install;
pub mod record;
pub mod replay;
pub mod schema;
pub mod show_recording;
pub mod tf_schema;
