//! # shinpan — the referee's command line and services
//!
//! The command line is the module tree [`cli`] (each subcommand of the `shinpan` binary in its
//! own module with an `Args` struct (clap) and a `run(args) -> std::process::ExitCode`
//! function; exit codes in [`exit`]). The server is the rest: [`configuration`], [`startup`],
//! [`telemetry`], [`connections`], [`supervision`], the gRPC transport ([`grpc`]: decode,
//! call a use case of [`app`], encode) and the referee [`console`]. The server's modules never
//! import the command line's.

/// The allocator of every process built on this crate (server, command line, tests):
/// mimalloc, whose small-block allocation suits the adjudicator's searches, which allocate
/// and free a board state per node. Built without transparent huge pages (`no_thp`): the
/// search tables grow and are freed chain after chain, and each 2 MB page the allocator
/// asked the kernel to back with a huge page is zeroed whole again when it is touched after
/// a purge.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod auth;
pub mod cli;
pub mod configuration;
pub mod connections;
pub mod console;
pub mod error;
pub mod grpc;
pub mod ratelimit;
pub mod startup;
pub mod supervision;
pub mod telemetry;

// The command line's modules, under the names the binary and the tests know them by.
pub use cli::{adjudicate, audit, bench, case_cli, client, demo, exit, propose, remote, replay, report, result_cli, score, serve, token};

// The application layer (crate `shinpan-application`) and its domain modules, under the
// names this crate's modules and its users know them by.
pub use grpc::convert;
pub use shinpan_application as app;
pub use shinpan_application::{archive, estimate, lifecycle, limits, proposal};
