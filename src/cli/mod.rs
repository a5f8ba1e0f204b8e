//! The command line: subcommands users run by hand.

pub mod install;
pub mod replay;
pub mod schema;
pub mod tf_schema;
