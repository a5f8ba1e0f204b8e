//! Code generated from `proto/` by `build.rs`, and the descriptor pool it reflects on.
//!
//! Every other module converts these wire types to its own model in one place; crates
//! under `crates/` never see them.

#![expect(clippy::all, clippy::pedantic, reason = "generated code")]

/// go-plugin's own services: controller, stdio and broker.
pub mod plugin {
    tonic::include_proto!("plugin");
}

/// Terraform plugin protocol 5.11: the provider and provisioner services.
pub mod tfplugin5 {
    tonic::include_proto!("tfplugin5");
}

/// Terraform plugin protocol 6.11: the provider service.
pub mod tfplugin6 {
    tonic::include_proto!("tfplugin6");
}

/// Pulumi's plugin protocol: the resource provider service we serve and the engine we call.
pub mod pulumirpc {
    tonic::include_proto!("pulumirpc");
}

/// The encoded `FileDescriptorSet` of every compiled proto file.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("descriptors");

/// The descriptors of every compiled proto file; every generated message's `ReflectMessage`
/// looks itself up here.
pub static DESCRIPTOR_POOL: std::sync::LazyLock<prost_reflect::DescriptorPool> =
    std::sync::LazyLock::new(|| {
        prost_reflect::DescriptorPool::decode(FILE_DESCRIPTOR_SET)
            .expect("the descriptor set compiled into this binary decodes")
    });
