//! # shinpan — the referee's command line and services
//!
//! Each subcommand of the `shinpan` binary lives in its own module with an `Args`
//! struct (clap) and a `run(args) -> std::process::ExitCode` function.
//!
//! Exit codes shared by every subcommand: see [`exit`].

pub mod exit;
pub mod replay;
pub mod report;
pub mod score;
pub mod adjudicate;
pub mod client;
pub mod configuration;
pub mod error;
pub mod grpc;
pub mod telemetry;
pub mod startup;
pub mod serve;
pub mod demo;
pub mod bench;
pub mod lifecycle;
pub mod auth;
pub mod token;
pub mod archive;
pub mod audit;
pub mod result_cli;
pub mod case_cli;
