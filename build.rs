//! Compiles every `.proto` file under `proto/` into Rust with a pure-Rust protobuf
//! compiler (protox), so no system `protoc` is needed.
//!
//! All files share one include root, `proto/`, and import each other by paths relative
//! to it (`pulumi/plugin.proto`). Well-known types come from protox's bundled copies.
//! The encoded descriptor set is written next to the generated code for the recorder
//! and the replayer, which need message reflection.

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
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)?;
    Ok(())
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
