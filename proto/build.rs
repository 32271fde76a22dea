//! Generates the Rust code of `shinpan.v1` from `proto/shinpan/v1/*.proto` with protox
//! (a pure-Rust protobuf compiler: no `protoc` needed) and tonic-prost-build, and writes
//! the file descriptor set used by gRPC server reflection.

use prost::Message;
use std::path::PathBuf;

const FILES: &[&str] = &[
    "shinpan/v1/common.proto",
    "shinpan/v1/recording.proto",
    "shinpan/v1/validation.proto",
    "shinpan/v1/adjudication.proto",
    "shinpan/v1/results.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=shinpan");
    println!("cargo:rerun-if-changed=build.rs");
    let fds = protox::compile(FILES, ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("shinpan_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure().build_server(true).build_client(true).compile_fds(fds)?;
    Ok(())
}
