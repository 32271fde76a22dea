//! `shinpan audit verify`: recompute every game's hash-chained event log and report the
//! first broken link of each game (第十条: a confirmed result and the record it rests on
//! never change; the chain makes any change visible).
//!
//! ```text
//! shinpan audit verify                      # the embedded cluster under .shinpan/pg
//! shinpan audit verify --database-url postgres://…/shinpan [--game <uuid>]
//! ```
//! Every event row carries the hash of the previous row of its game; the verifier recomputes
//! each row's SHA-256 (`shinpan_storage::chain`) and checks the links, the sequence numbers,
//! and that every move and result row agrees with the event that recorded it.
//! Output: one line per broken game (`BROKEN game <id> event <seq>: <what>`), then a summary.
//! Exit code 0 when every chain is intact, 1 when a link is broken or the database cannot
//! be reached.

use crate::exit;
use shinpan_storage::{ChainReport, Store};
use std::path::PathBuf;
use std::process::ExitCode;

/// `shinpan audit`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Recompute every game's event hash chain and report the first broken link.
    Verify(VerifyArgs),
}

/// `shinpan audit verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// PostgreSQL URL; unset: the embedded cluster under DATA_DIR/pg (--data-dir).
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// Directory of the embedded cluster (as for `shinpan serve`).
    #[arg(long, env = "SHINPAN_DATA_DIR", default_value = ".shinpan")]
    pub data_dir: PathBuf,
    /// Verify only this game.
    #[arg(long)]
    pub game: Option<uuid::Uuid>,
}

/// Verifies one game's chain or all of them.
///
/// # Errors
/// The store's error (unknown game, database unreachable).
pub async fn verify(store: &Store, game: Option<uuid::Uuid>) -> Result<ChainReport, shinpan_storage::StoreError> {
    match game {
        Some(g) => store.verify_chain(g).await,
        None => store.verify_all().await,
    }
}

/// The report as text: one `BROKEN` line per broken game, then the summary line.
pub fn report_text(r: &ChainReport) -> String {
    let mut out = String::new();
    for b in &r.breaks {
        let what = match &b.kind {
            shinpan_storage::BreakKind::Gap { expected } => {
                format!("sequence gap (expected event {expected}): an event was removed or inserted")
            }
            shinpan_storage::BreakKind::PrevHashMismatch => "prev_hash does not match the previous event's hash".to_string(),
            shinpan_storage::BreakKind::HashMismatch => {
                "the stored hash does not match the recomputed one: the row was altered".to_string()
            }
            shinpan_storage::BreakKind::MoveMismatch { move_number } => {
                format!("move {move_number} disagrees with the event that recorded it")
            }
            shinpan_storage::BreakKind::ResultMismatch { result_id } => {
                format!("result {result_id} disagrees with the event that recorded it")
            }
            #[allow(unreachable_patterns)]
            other => format!("{other:?}"),
        };
        out.push_str(&format!("BROKEN game {} event {}: {what}\n", b.game_id, b.seq));
    }
    out.push_str(&format!(
        "{} game(s), {} event(s): {}\n",
        r.games,
        r.events,
        if r.is_intact() { "every chain intact".to_string() } else { format!("{} broken", r.breaks.len()) }
    ));
    out
}

async fn open(args: &VerifyArgs) -> anyhow::Result<(Store, Option<shinpan_storage::EmbeddedPostgres>)> {
    match &args.database_url {
        Some(url) => Ok((Store::connect(url).await?, None)),
        None => {
            let dir = args.data_dir.join("pg");
            let opts = shinpan_storage::EmbeddedOptions::persistent(dir.clone());
            let cluster = tokio::task::spawn_blocking(move || shinpan_storage::EmbeddedPostgres::start(opts))
                .await?
                .map_err(|e| anyhow::anyhow!("embedded PostgreSQL in {}: {e}", dir.display()))?;
            let url = cluster.ensure_database("shinpan").await?;
            Ok((Store::connect(&url).await?, Some(cluster)))
        }
    }
}

/// Runs `shinpan audit`.
pub fn run(args: Args) -> ExitCode {
    let Command::Verify(a) = args.command;
    exit::block_on(async move {
        let (store, cluster) = match open(&a).await {
            Ok(x) => x,
            Err(e) => {
                eprintln!("shinpan audit verify: {e}");
                return exit::code(exit::FAILURE);
            }
        };
        let out = verify(&store, a.game).await;
        store.pool().close().await;
        drop(cluster);
        match out {
            Ok(r) => {
                print!("{}", report_text(&r));
                if r.is_intact() {
                    exit::code(exit::OK)
                } else {
                    exit::code(exit::FAILURE)
                }
            }
            Err(e) => {
                eprintln!("shinpan audit verify: {e}");
                exit::code(exit::FAILURE)
            }
        }
    })
}
