//! # shinpan — the referee's command line and services
//!
//! Each subcommand of the `shinpan` binary lives in its own module with an `Args`
//! struct (clap) and a `run(args) -> std::process::ExitCode` function.
//!
//! Exit codes shared by every subcommand: see [`exit`].

pub mod adjudicate;
pub mod audit;
pub mod bench;
pub mod case_cli;
pub mod client;
pub mod configuration;
pub mod connections;
pub mod console;
pub mod demo;
pub mod error;
pub mod exit;
pub mod grpc;
pub mod propose;
pub mod remote;
pub mod replay;
pub mod report;
pub mod result_cli;
pub mod score;
pub mod serve;
pub mod startup;
pub mod supervision;
pub mod telemetry;
pub mod token;

// The application layer (crate `shinpan-application`) and its domain modules, under the
// names this crate's modules and its users know them by.
pub use shinpan_application as app;
pub use shinpan_application::{archive, auth, convert, estimate, lifecycle, limits, proposal, ratelimit};
