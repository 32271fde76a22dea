//! `shinpan serve`: run the gRPC services until SIGTERM or Ctrl-C.
//!
//! All services on one port by default; `--service X` for just one (see
//! [`crate::configuration::ServeArgs`]).

use crate::configuration::ServeArgs;
use crate::exit;
use crate::startup::Application;
use std::process::ExitCode;

/// Arguments of `shinpan serve`.
pub type Args = ServeArgs;

/// Runs the server; exit code 0 after a clean shutdown, 1 on a start-up or serving failure.
pub fn run(args: Args) -> ExitCode {
    exit::block_on(async move {
        let guard = match crate::telemetry::init(&args.telemetry()) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("error: {e}");
                return exit::code(exit::FAILURE);
            }
        };
        match crate::connections::raise_open_file_limit() {
            Ok((before, now)) if now > before => tracing::info!(before, now, "open-file limit (RLIMIT_NOFILE) raised to its hard limit"),
            Ok((_, now)) => tracing::info!(limit = now, "open-file limit (RLIMIT_NOFILE) is at its hard limit"),
            Err(e) => tracing::warn!(error = %e, limit = crate::connections::open_file_limit(), "could not raise the open-file limit"),
        }
        let code = match Application::build(&args).await {
            Ok(app) => {
                eprintln!("shinpan serving {} on {}", app.services().join(", "), app.url());
                match app.run_until_stopped().await {
                    Ok(()) => exit::code(exit::OK),
                    Err(e) => {
                        tracing::error!(error = %e, "server failed");
                        eprintln!("error: {e}");
                        exit::code(exit::FAILURE)
                    }
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "start-up failed");
                eprintln!("error: {e}");
                exit::code(exit::FAILURE)
            }
        };
        guard.shutdown().await;
        code
    })
}
