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
    /// Run the gRPC services: ALL of them on ONE port by default (simplest for one machine),
    /// or one with --service. Embedded PostgreSQL unless DATABASE_URL is set.
    Serve(shinpan::serve::Args),
    /// Start the services on the embedded PostgreSQL and load a real game through the API.
    Demo(shinpan::demo::Args),
    /// Record and inspect games on a running server (create, move, pass, resign, show, watch, import, export).
    Game(shinpan::client::Args),
    /// Measure RecordMove throughput and latency with N concurrent games.
    Bench(shinpan::bench::Args),
    /// Replay SGF records and validate every move (exit 3 on a foul, 2 if unreadable).
    Replay(shinpan::replay::Args),
    /// Count the final position of a record with given dead stones.
    Score(shinpan::score::Args),
    /// Decide life and death by hypothetical play (第七条) and count the final position.
    ///
    /// The diagram: `X`/`O` alive black/white stones, `x`/`o` dead, `S`/`s` seki, `?`
    /// undecided; `b`/`w` black/white territory, `.` other empty points (dame); columns and
    /// rows lettered as SGF points (`aa` top left).
    Adjudicate(shinpan::adjudicate::Args),
    /// Propose statuses and a count for the players' agreement (第九条): proved by hypothetical
    /// play where it decides, else estimated by GNU Go (advisory, never a ruling).
    Propose(shinpan::propose::Args),
    /// Mint a bearer token (signed JWT) for a role: player, referee, chief-arbiter, federation-admin, archive-reader.
    Token(shinpan::token::Args),
    /// Recompute every game's hash-chained event log and report the first broken link.
    Audit(shinpan::audit::Args),
    /// Propose, confirm, object to, show and export results (第九条–第十二条) on a running server.
    Result(shinpan::result_cli::Args),
    /// List, show, open and rule on arbiter cases (無勝負, 反則負け, 両負け, resumption, objections).
    Case(shinpan::case_cli::Args),
}

/// Ends the process quietly by SIGPIPE, as Unix filters do, when standard output is closed
/// under it: `shinpan adjudicate … | head` then stops when `head` has read enough instead of
/// panicking on the failed write. Only a failed write to stdout does this: SIGPIPE itself
/// stays ignored (Rust's default), so a write to a socket or to GNU Go's pipe that the other
/// side closed is an error the command reports, not a silent death. Used for the
/// subcommands that write to stdout; the servers keep Rust's default.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied()).unwrap_or("");
        #[cfg(unix)]
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            // SAFETY: SIG_DFL is a valid action for SIGPIPE; raising it ends the process
            // (its default action), which is what the user's shell expects of a filter.
            unsafe {
                libc::signal(libc::SIGPIPE, libc::SIG_DFL);
                libc::raise(libc::SIGPIPE);
            }
        }
        default(info)
    }));
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if matches!(
        cli.command,
        Command::Replay(_)
            | Command::Score(_)
            | Command::Adjudicate(_)
            | Command::Propose(_)
            | Command::Token(_)
            | Command::Game(_)
            | Command::Result(_)
            | Command::Case(_)
            | Command::Audit(_)
    ) {
        quiet_on_broken_pipe();
    }
    match cli.command {
        Command::Serve(a) => shinpan::serve::run(a),
        Command::Demo(a) => shinpan::demo::run(a),
        Command::Game(a) => shinpan::client::run(a),
        Command::Bench(a) => shinpan::bench::run(a),
        Command::Replay(a) => shinpan::replay::run(a),
        Command::Score(a) => shinpan::score::run(a),
        Command::Adjudicate(a) => shinpan::adjudicate::run(a),
        Command::Propose(a) => shinpan::propose::run(a),
        Command::Token(a) => shinpan::token::run(a),
        Command::Audit(a) => shinpan::audit::run(a),
        Command::Result(a) => shinpan::result_cli::run(a),
        Command::Case(a) => shinpan::case_cli::run(a),
    }
}
