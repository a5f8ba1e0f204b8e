//! Compiles every `.proto` file under `proto/` into Rust with a pure-Rust protobuf
//! compiler (protox), so no system `protoc` is needed.
//!
//! All files share one include root, `proto/`, and import each other by paths relative
//! to it (`pulumi/plugin.proto`). Well-known types come from protox's bundled copies.
//! The encoded descriptor set is written next to the generated code for the recorder
//! and the replayer, which need message reflection, and for the depth check of every message we
//! decode (`crates/depth`): each generated message derives prost-reflect's `ReflectMessage`, so a
//! decoder knows the descriptor of the message it is given, and every service decodes with our
//! depth-checking codec.

use std::{
    env,
    path::{Path, PathBuf},
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let mut files = Vec::new();
    collect_protos(Path::new("proto"), &mut files)?;
    files.sort();
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
    }

    let fds = protox::compile(&files, ["proto"])?;
    let out = PathBuf::from(env::var("OUT_DIR")?);
    // compile_fds does not write a descriptor set file, so write it ourselves.
    std::fs::write(
        out.join("descriptors.bin"),
        prost::Message::encode_to_vec(&fds),
    )?;
    let mut builder = tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .codec_path("tfp_depth::Codec");
    for file in &fds.file {
        for message in &file.message_type {
            builder = reflect(builder, file.package(), message);
        }
    }
    builder.compile_fds(fds)?;
    Ok(())
}

/// Derives `ReflectMessage` for `message` and the messages nested in it. The names are given
/// without their leading dot: prost-build would apply a dotted name to every nested message too.
fn reflect(
    builder: tonic_prost_build::Builder,
    scope: &str,
    message: &prost_types::DescriptorProto,
) -> tonic_prost_build::Builder {
    let name = format!("{scope}.{}", message.name());
    let mut builder = builder.message_attribute(
        &name,
        format!(
            "#[derive(::prost_reflect::ReflectMessage)] \
             #[prost_reflect(descriptor_pool = \"crate::proto::DESCRIPTOR_POOL\", \
             message_name = \"{name}\")]"
        ),
    );
    for nested in &message.nested_type {
        builder = reflect(builder, &name, nested);
    }
    builder
}

fn collect_protos(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_protos(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "proto") {
            out.push(path);
        }
    }
    Ok(())
}
