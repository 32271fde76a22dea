//! The `shinpan` command line: one module per subcommand (an `Args` struct for clap and a
//! `run(args) -> std::process::ExitCode`), and what they share ([`remote`]: server, token and
//! channel; [`exit`]: the exit codes; [`report`]: the text and JSON of an adjudication).
//!
//! The commands that talk to a server do so over gRPC ([`client`], [`result_cli`],
//! [`case_cli`], [`token`]'s remote checks); the offline ones (`replay`, `score`,
//! `adjudicate`, `propose`, `audit`) call the pure crates and the store directly; `serve`, `demo`
//! and `bench` start the server of [`crate::startup`]. Nothing outside this tree imports it.

pub mod adjudicate;
pub mod audit;
pub mod bench;
pub mod case_cli;
pub mod client;
pub mod demo;
pub mod exit;
pub mod propose;
pub mod remote;
pub mod replay;
pub mod report;
pub mod result_cli;
pub mod score;
pub mod serve;
pub mod token;
