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
    // Messages and servers, the servers with the codec that makes an undecodable request
    // INVALID_ARGUMENT (src/codec.rs); then the clients alone, with tonic's codec, on the
    // same messages.
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(false)
        .codec_path("crate::codec::RequestCodec")
        .compile_fds(fds.clone())?;
    let clients = out.join("clients");
    std::fs::create_dir_all(&clients)?;
    tonic_prost_build::configure()
        .build_server(false)
        .build_client(true)
        .extern_path(".shinpan.v1", "crate::v1")
        .out_dir(&clients)
        .compile_fds(fds)?;
    Ok(())
}
