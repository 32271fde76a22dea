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
//! and that every move, result, confirmation, case and objection row agrees with the event
//! that recorded it. It also compares the game's own facts — the players' names, ranks and
//! federation ids, the rule set, komi, handicap, setup stones, board size, tournament, round
//! and board number, as the `games`, `players` and `tournaments` rows hold them — with the
//! events that recorded them (`shinpan_storage::facts`): 第十条2's confirmation makes a result
//! final, and a result is only as final as the facts it was counted under.
//!
//! Output: one line per broken game (`BROKEN game <id> event <seq>: <what>`), each followed by
//! one `  also game <id> event <seq>: <what>` line per further disagreement in it, then a
//! summary.
//! A changed fact names the field, the row's value and the recorded one, e.g.
//! `BROKEN game <id> event 1: komi in the games table is 106.5, event 1 (game_created) says 6.5`.
//! A row changed so far that the game no longer loads (setup stones on one point, an unknown
//! rule set) is reported the same way. Exit code 0 when every chain is intact, 1 when a link
//! is broken or the database cannot be reached.
//!
//! ## Anchors: what the database alone cannot show
//! A chain shows any change *inside* a log, and the head kept on each game row shows events
//! cut off its end — unless whoever cut them also rewrote the head, as the database's owner
//! can. An *anchor* closes that gap from outside:
//!
//! ```text
//! shinpan audit anchor --out anchor-2026-11-24.txt     # after each round: keep it elsewhere
//! shinpan audit verify --anchor anchor-2026-11-24.txt  # later: nothing anchored was lost
//! ```
//! The anchor lists every game's last event (`<game> <seq> <sha-256 hex>`, see
//! [`shinpan_storage::ChainHead`]) and ends with `digest <sha-256 hex>` over the lines
//! before it, so that publishing or signing that one line (a federation bulletin, an e-mail
//! to the federation) fixes the whole file. `verify --anchor` checks the file's digest (exit
//! 2 if it does not match: the anchor itself was altered), then that every anchored game
//! still holds its anchored event with the same hash; with the chain intact, that event's
//! hash covers every event before it. A log may grow after its anchor; it may not lose or
//! change anything anchored. Each loss is one line, `ROLLED BACK game <id>: <what>`, and
//! exits 1.

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
    /// Print an anchor: every game's last event and hash, and a digest of the list, to keep
    /// outside the database (see `verify --anchor`).
    Anchor(AnchorArgs),
}

/// `shinpan audit anchor`.
#[derive(clap::Args, Debug)]
pub struct AnchorArgs {
    /// PostgreSQL URL; unset: the embedded cluster under DATA_DIR/pg (--data-dir).
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// Directory of the embedded cluster (as for `shinpan serve`).
    #[arg(long, env = "SHINPAN_DATA_DIR", default_value = ".shinpan")]
    pub data_dir: PathBuf,
    /// Write the anchor to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
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
    /// Also check an anchor written by `shinpan audit anchor`: every anchored event must
    /// still be there, unchanged.
    #[arg(long)]
    pub anchor: Option<PathBuf>,
}

/// First line of an anchor file.
pub const ANCHOR_HEADER: &str = "shinpan-anchor v1";

/// An anchor's text: [`ANCHOR_HEADER`] and the time it was taken (RFC 3339), one line per
/// game (`<game id> <last seq> <sha-256 hex>`), then `digest <sha-256 hex>` of every line
/// before it (each with its `\n`).
pub fn anchor_text(heads: &[shinpan_storage::ChainHead], taken_at: chrono::DateTime<chrono::Utc>) -> String {
    use sha2::Digest;
    let mut body = format!("{ANCHOR_HEADER} {}\n", taken_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    for h in heads {
        body.push_str(&format!("{} {} {}\n", h.game_id, h.seq, hex::encode(&h.hash)));
    }
    let digest = hex::encode(sha2::Sha256::digest(body.as_bytes()));
    format!("{body}digest {digest}\n")
}

/// Reads an anchor's text back (see [`anchor_text`]).
///
/// # Errors
/// A message naming the line that is malformed, or that the digest does not match the
/// lines above it (the anchor was altered).
pub fn parse_anchor(text: &str) -> Result<Vec<shinpan_storage::ChainHead>, String> {
    use sha2::Digest;
    let Some(cut) = text.rfind("digest ") else { return Err("no `digest` line: not a complete anchor".into()) };
    let (body, last) = text.split_at(cut);
    let want = last.trim_start_matches("digest ").trim();
    if hex::encode(sha2::Sha256::digest(body.as_bytes())) != want {
        return Err("the digest does not match the lines above it: the anchor was altered".into());
    }
    let mut lines = body.lines().enumerate();
    match lines.next() {
        Some((_, l)) if l.starts_with(ANCHOR_HEADER) => {}
        _ => return Err(format!("line 1: not `{ANCHOR_HEADER} <time>`")),
    }
    let mut heads = Vec::new();
    for (i, l) in lines {
        let bad = || format!("line {}: not `<game id> <seq> <sha-256 hex>`: {l}", i + 1);
        let mut f = l.split_whitespace();
        let (Some(g), Some(q), Some(h), None) = (f.next(), f.next(), f.next(), f.next()) else { return Err(bad()) };
        let game_id = uuid::Uuid::parse_str(g).map_err(|_| bad())?;
        let seq: i64 = q.parse().map_err(|_| bad())?;
        let hash = hex::decode(h).map_err(|_| bad())?;
        if hash.len() != 32 || seq < 0 {
            return Err(bad());
        }
        heads.push(shinpan_storage::ChainHead { game_id, seq, hash });
    }
    Ok(heads)
}

/// What the store lost of an anchor (one message per anchored game whose anchored event is
/// missing or changed; only `game` when given).
///
/// # Errors
/// The store's error (database unreachable).
pub async fn check_anchor(
    store: &Store,
    heads: &[shinpan_storage::ChainHead],
    game: Option<uuid::Uuid>,
) -> Result<Vec<String>, shinpan_storage::StoreError> {
    let mut lost = Vec::new();
    for h in heads.iter().filter(|h| game.is_none_or(|g| g == h.game_id)) {
        match store.event_hash(h.game_id, h.seq).await? {
            Some(hash) if hash == h.hash => {}
            Some(_) => lost.push(format!("ROLLED BACK game {}: event {} differs from the anchored one", h.game_id, h.seq)),
            None if h.seq == 0 => lost.push(format!("ROLLED BACK game {}: the anchored game is gone", h.game_id)),
            None => lost.push(format!("ROLLED BACK game {}: anchored event {} is missing", h.game_id, h.seq)),
        }
    }
    Ok(lost)
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

/// The report as text: one `BROKEN game <id> event <seq>: <what>` line per broken game (`<what>`
/// is the [`shinpan_storage::BreakKind`]'s sentence), each followed by an indented `also game
/// <id> event <seq>: <what>` line for every further disagreement found in it (each other
/// changed fact), then the summary line.
pub fn report_text(r: &ChainReport) -> String {
    let mut out = String::new();
    for b in &r.breaks {
        out.push_str(&format!("BROKEN game {} event {}: {}\n", b.game_id, b.seq, b.kind));
        for m in r.more.iter().filter(|m| m.game_id == b.game_id) {
            out.push_str(&format!("  also game {} event {}: {}\n", m.game_id, m.seq, m.kind));
        }
    }
    out.push_str(&format!(
        "{} game(s), {} event(s): {}\n",
        r.games,
        r.events,
        if r.is_intact() { "every chain intact".to_string() } else { format!("{} broken", r.breaks.len()) }
    ));
    out
}

/// Opens the store of `shinpan audit <cmd>` (the URL, or the embedded cluster under
/// `data_dir/pg`, which must exist: an audit never creates one); on failure the reason is
/// printed and the exit code returned.
async fn open(
    cmd: &str,
    database_url: &Option<String>,
    data_dir: &std::path::Path,
) -> Result<(Store, Option<shinpan_storage::EmbeddedPostgres>), ExitCode> {
    let opened: anyhow::Result<_> = async {
        match database_url {
            Some(url) => Ok((Store::connect(url).await?, None)),
            None => {
                let dir = data_dir.join("pg");
                // An audit never creates a cluster: an empty one would report "every chain
                // intact" for a database that is simply elsewhere.
                if !dir.join("PG_VERSION").is_file() {
                    anyhow::bail!(
                        "no shinpan database in {}: run this where `shinpan serve` keeps its data (its --data-dir), \
                         or give --data-dir or --database-url",
                        dir.display()
                    );
                }
                let opts = shinpan_storage::EmbeddedOptions::persistent(dir.clone());
                let cluster = tokio::task::spawn_blocking(move || shinpan_storage::EmbeddedPostgres::start(opts))
                    .await?
                    .map_err(|e| anyhow::anyhow!("embedded PostgreSQL in {}: {e}", dir.display()))?;
                let url = cluster.ensure_database("shinpan").await?;
                Ok((Store::connect(&url).await?, Some(cluster)))
            }
        }
    }
    .await;
    opened.map_err(|e| {
        eprintln!("shinpan audit {cmd}: {e}");
        exit::code(exit::FAILURE)
    })
}

/// Runs `shinpan audit`.
pub fn run(args: Args) -> ExitCode {
    match args.command {
        Command::Verify(a) => run_verify(a),
        Command::Anchor(a) => run_anchor(a),
    }
}

fn run_verify(a: VerifyArgs) -> ExitCode {
    // The anchor is read first: a bad anchor needs no database.
    let anchor = match &a.anchor {
        None => None,
        Some(path) => match std::fs::read_to_string(path).map_err(|e| e.to_string()).and_then(|t| parse_anchor(&t)) {
            Ok(h) => Some(h),
            Err(e) => {
                eprintln!("shinpan audit verify: anchor {}: {e}", path.display());
                return exit::code(exit::UNREADABLE);
            }
        },
    };
    exit::block_on(async move {
        let (store, cluster) = match open("verify", &a.database_url, &a.data_dir).await {
            Ok(x) => x,
            Err(code) => return code,
        };
        let out = verify(&store, a.game).await;
        let lost = match &anchor {
            Some(heads) => check_anchor(&store, heads, a.game).await.map(Some),
            None => Ok(None),
        };
        store.pool().close().await;
        drop(cluster);
        match (out, lost) {
            (Ok(r), Ok(lost)) => {
                print!("{}", report_text(&r));
                let rolled_back = lost.as_ref().is_some_and(|l| !l.is_empty());
                if let (Some(lost), Some(heads)) = (&lost, &anchor) {
                    for l in lost {
                        println!("{l}");
                    }
                    let n = heads.iter().filter(|h| a.game.is_none_or(|g| g == h.game_id)).count();
                    println!(
                        "anchor: {n} game(s): {}",
                        if lost.is_empty() {
                            "every anchored event still there".to_string()
                        } else {
                            format!("{} rolled back", lost.len())
                        }
                    );
                }
                if r.is_intact() && !rolled_back {
                    exit::code(exit::OK)
                } else {
                    exit::code(exit::FAILURE)
                }
            }
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("shinpan audit verify: {e}");
                exit::code(exit::FAILURE)
            }
        }
    })
}

fn run_anchor(a: AnchorArgs) -> ExitCode {
    exit::block_on(async move {
        let (store, cluster) = match open("anchor", &a.database_url, &a.data_dir).await {
            Ok(x) => x,
            Err(code) => return code,
        };
        let heads = store.chain_heads().await;
        store.pool().close().await;
        drop(cluster);
        let text = match heads {
            Ok(h) => anchor_text(&h, chrono::Utc::now()),
            Err(e) => {
                eprintln!("shinpan audit anchor: {e}");
                return exit::code(exit::FAILURE);
            }
        };
        match &a.out {
            None => print!("{text}"),
            Some(path) => {
                if let Err(e) = std::fs::write(path, &text) {
                    eprintln!("shinpan audit anchor: {}: {e}", path.display());
                    return exit::code(exit::FAILURE);
                }
                eprintln!("anchor of {} game(s) written to {}", text.lines().count().saturating_sub(2), path.display());
            }
        }
        exit::code(exit::OK)
    })
}
