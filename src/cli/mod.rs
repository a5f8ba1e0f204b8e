//! The command line: subcommands users run by hand.

pub mod tf_schema;
