//! Process exit codes of the `shinpan` command line.

use std::process::ExitCode;

/// Everything went well (all moves legal, everything decided).
pub const OK: u8 = 0;
/// A generic failure (server unreachable, internal error).
pub const FAILURE: u8 = 1;
/// Unreadable input: a file that cannot be read or is not a valid SGF record.
pub const UNREADABLE: u8 = 2;
/// A foul (第十二条) was found in a record: an illegal move.
pub const FOUL: u8 = 3;
/// Life and death could not be decided within the budget: an arbiter must rule.
pub const UNDECIDED: u8 = 4;

/// Converts one of the codes above into an [`ExitCode`].
pub fn code(c: u8) -> ExitCode {
    ExitCode::from(c)
}

/// Runs an async subcommand to completion on a multi-threaded tokio runtime and returns
/// its exit code; [`FAILURE`] (with the reason on stderr) if the runtime cannot start.
pub fn block_on<F: std::future::Future<Output = ExitCode>>(f: F) -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt.block_on(f),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            code(FAILURE)
        }
    }
}

/// [`OK`] for `Ok`, else [`FAILURE`] with the error (and its causes) on stderr.
pub fn from_result(r: anyhow::Result<()>) -> ExitCode {
    match r {
        Ok(()) => code(OK),
        Err(e) => {
            eprintln!("error: {e:#}");
            code(FAILURE)
        }
    }
}
