//! Code generated from `proto/` by `build.rs`, and nothing else.
//!
//! Every other module converts these wire types to its own model in one place; crates
//! under `crates/` never see them.

#![expect(clippy::all, clippy::pedantic, reason = "generated code")]


/// go-plugin's own services: controller, stdio and broker.
pub mod plugin {
    tonic::include_proto!("plugin");
}

/// The encoded `FileDescriptorSet` of every compiled proto file.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("descriptors");
