//! `shinpan`: one binary, many subcommands. Each subcommand is a module of the `shinpan`
//! library crate with an `Args` type and a `run` function; this file only dispatches.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// shinpan (審判): the referee for Go games under the Japanese rules.
#[derive(Parser)]
#[command(name = "shinpan", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    // Each helper adds its own variant here (one line) and one match arm below.
    /// Replay SGF records and validate every move (exit 3 on a foul, 2 if unreadable).
    Replay(shinpan::replay::Args),
    /// Count the final position of a record with given dead stones.
    Score(shinpan::score::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Replay(a) => shinpan::replay::run(a),
        Command::Score(a) => shinpan::score::run(a),
    }
}
