//! `shinpan game ...`: client subcommands that talk to a running server over gRPC.
//!
//! ```text
//! shinpan game create --tournament "Spring Cup" --round 1 --board 3 --black "Honinbo Shusaku" --white "Gennan Inseki"
//! shinpan game move <GAME> dd          # colour and move number default to the game's next move
//! shinpan game pass <GAME>
//! shinpan game resign <GAME> --color white
//! shinpan game show <GAME>
//! shinpan game list --tournament "Spring Cup"
//! shinpan game watch <GAME> [--from 1]
//! shinpan game import FILE.sgf [--tournament T --round R --board N]
//! shinpan game export <GAME> [-o FILE.sgf]
//! ```
//! `--server` (env `SHINPAN_SERVER`) defaults to the local server, `http://127.0.0.1:50051`;
//! `--token` (env `SHINPAN_TOKEN`, a bearer token from `shinpan token issue`) is sent as
//! `authorization: Bearer <token>` on every call when given (needed when the server runs with
//! `--auth all`).
//! Exit codes: 0 success, 1 failure (server unreachable, error status), 2 unreadable file,
//! 3 when a recorded move was a foul.

use crate::convert::color_to_pb as color_pb;
use crate::exit;
use crate::remote::{authed, channel, Connection};
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient;
use shinpan_proto::ValueName;
use std::path::PathBuf;
use std::process::ExitCode;
use tonic::transport::Channel;

/// `shinpan game`: record and inspect games on a running server.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Server URL (`--server`, env `SHINPAN_SERVER`) and bearer token (`--token`, env `SHINPAN_TOKEN`).
    #[command(flatten)]
    pub conn: Connection,
    #[command(subcommand)]
    pub command: GameCommand,
}

/// The `game` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum GameCommand {
    /// Create a game; prints its id.
    Create {
        /// Tournament name.
        #[arg(long, default_value = "local")]
        tournament: String,
        /// Round number.
        #[arg(long, default_value_t = 1)]
        round: u32,
        /// Board (table) number.
        #[arg(long, default_value_t = 1)]
        board: u32,
        /// Black player's name.
        #[arg(long)]
        black: String,
        /// Black player's rank (e.g. 3d).
        #[arg(long, default_value = "")]
        black_rank: String,
        /// White player's name.
        #[arg(long)]
        white: String,
        /// White player's rank.
        #[arg(long, default_value = "")]
        white_rank: String,
        /// Board size.
        #[arg(long, default_value_t = 19)]
        size: u32,
        /// Komi (default: the rule set's).
        #[arg(long)]
        komi: Option<f64>,
        /// Handicap stones.
        #[arg(long, default_value_t = 0)]
        handicap: u32,
        /// Rule set.
        #[arg(long, default_value = "japanese-2011")]
        rules: String,
        /// Idempotency key: running the command again with the same key and arguments
        /// prints the game the first run created instead of creating a second one.
        #[arg(long, default_value = "")]
        key: String,
    },
    /// Record a stone (SGF point, e.g. dd).
    Move {
        /// Game id.
        game: String,
        /// SGF point.
        point: String,
        /// Colour: B or W (also black, white; default: the player to move).
        #[arg(long, value_parser = crate::cli::token::parse_color)]
        color: Option<goban::Color>,
        /// Move number (default: the next one).
        #[arg(long)]
        number: Option<u32>,
        /// Idempotency key (default: a fresh UUID).
        #[arg(long)]
        key: Option<String>,
    },
    /// Record a pass.
    Pass {
        /// Game id.
        game: String,
        /// Colour: B or W (also black, white; default: the player to move).
        #[arg(long, value_parser = crate::cli::token::parse_color)]
        color: Option<goban::Color>,
        /// Move number (default: the next one).
        #[arg(long)]
        number: Option<u32>,
    },
    /// A player resigns.
    Resign {
        /// Game id.
        game: String,
        /// The player who resigns: B or W (also black, white).
        #[arg(long, value_parser = crate::cli::token::parse_color)]
        color: goban::Color,
    },
    /// Show a game.
    Show {
        /// Game id.
        game: String,
    },
    /// List games.
    List {
        /// Tournament (empty: all).
        #[arg(long, default_value = "")]
        tournament: String,
        /// Round (0: all).
        #[arg(long, default_value_t = 0)]
        round: u32,
    },
    /// Follow a game's events live (Ctrl-C to stop).
    Watch {
        /// Game id.
        game: String,
        /// First event sequence number.
        #[arg(long, default_value_t = 1)]
        from: u64,
        /// Stop when the game ends.
        #[arg(long)]
        until_end: bool,
    },
    /// Import an SGF record (validated move by move).
    Import {
        /// The SGF file.
        file: PathBuf,
        /// Tournament to file it under.
        #[arg(long, default_value = "")]
        tournament: String,
        /// Round.
        #[arg(long, default_value_t = 0)]
        round: u32,
        /// Board number (0: next free).
        #[arg(long, default_value_t = 0)]
        board: u32,
        /// Rule set override.
        #[arg(long, default_value = "")]
        rules: String,
        /// Idempotency key: importing again with the same key and arguments prints the
        /// game the first run imported instead of filing a second copy.
        #[arg(long, default_value = "")]
        key: String,
    },
    /// Export a game as SGF.
    Export {
        /// Game id.
        game: String,
        /// Output file (default: stdout).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// A `GameRecordingService` client connected to `url`.
///
/// # Errors
/// As [`channel`].
pub async fn connect(url: &str) -> anyhow::Result<GameRecordingServiceClient<Channel>> {
    Ok(GameRecordingServiceClient::new(channel(url).await?))
}

/// Runs a `game` subcommand.
pub fn run(args: Args) -> ExitCode {
    exit::block_on(run_async(args))
}

fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {e}");
    exit::code(exit::FAILURE)
}

fn status_text(s: &tonic::Status) -> String {
    let mut t = format!("{:?}: {}", s.code(), s.message());
    if let Some(n) = crate::error::current_move_number(s) {
        t.push_str(&format!(" (current move number {n})"));
    }
    t
}

fn color_name(c: i32) -> &'static str {
    match pb::Color::try_from(c) {
        Ok(pb::Color::Black) => "black",
        Ok(pb::Color::White) => "white",
        _ => "?",
    }
}

fn move_text(m: &pb::Move) -> String {
    let c = match pb::Color::try_from(m.color) {
        Ok(pb::Color::Black) => "B",
        Ok(pb::Color::White) => "W",
        _ => "?",
    };
    match &m.action {
        Some(pb::r#move::Action::Point(p)) => format!("{c} {p}"),
        _ => format!("{c} pass"),
    }
}

/// One line describing an event.
pub fn event_line(e: &pb::GameEvent) -> String {
    match e.kind.as_str() {
        "move" => format!(
            "#{:<4} move {:>3}: {}{}",
            e.sequence,
            e.move_number,
            e.r#move.as_ref().map(move_text).unwrap_or_default(),
            if e.captured.is_empty() { String::new() } else { format!(" (captures {})", e.captured.join(" ")) }
        ),
        "foul" => format!("#{:<4} FOUL {}", e.sequence, e.foul.as_ref().map(|f| f.description.clone()).unwrap_or_default()),
        _ => format!("#{:<4} {} {}", e.sequence, e.kind, e.payload_json),
    }
}

/// A short human-readable summary of a game.
pub fn game_summary(g: &pb::Game) -> String {
    let p = |p: &Option<pb::Player>| {
        p.as_ref().map(|p| if p.rank.is_empty() { p.name.clone() } else { format!("{} ({})", p.name, p.rank) }).unwrap_or_default()
    };
    format!(
        "game {id}\n  {t}\n  black {bl} — white {wh}\n  {s}x{s}, komi {k}, handicap {h}, rules {rules}\n  {n} moves, {to} to play, phase {phase}, prisoners B {pb_} W {pw}{flag}{res}",
        id = g.id,
        t = if g.tournament.is_empty() {
            "no tournament".to_string()
        } else {
            format!("{} round {} board {}", g.tournament, g.round, g.board_number)
        },
        bl = p(&g.black),
        wh = p(&g.white),
        s = g.board_size,
        k = g.komi,
        h = g.handicap,
        rules = g.rule_set,
        n = g.move_number,
        to = color_name(g.to_move),
        phase = pb::Phase::try_from(g.phase).map(|p| p.value_name()).unwrap_or("?"),
        pb_ = g.prisoners_black,
        pw = g.prisoners_white,
        flag = if g.flagged { "\n  FLAGGED for the arbiter (a foul was recorded)" } else { "" },
        res = if g.result.is_empty() { String::new() } else { format!("\n  result {}", g.result) },
    )
}

async fn record(
    client: &mut GameRecordingServiceClient<Channel>,
    token: &str,
    game: String,
    action: pb::r#move::Action,
    color: Option<goban::Color>,
    number: Option<u32>,
    key: Option<String>,
) -> ExitCode {
    let (color, number) = match (color, number) {
        (Some(c), Some(n)) => (color_pb(c), n),
        _ => match client.get_game(authed(pb::GetGameRequest { game_id: game.clone() }, token)).await {
            Ok(g) => {
                let g = g.into_inner().game.unwrap_or_default();
                (color.map(color_pb).unwrap_or(g.to_move), number.unwrap_or(g.move_number + 1))
            }
            Err(s) => return fail(status_text(&s)),
        },
    };
    let req = pb::RecordMoveRequest {
        game_id: game,
        move_number: number,
        r#move: Some(pb::Move { color, action: Some(action) }),
        client_time: Some(crate::convert::timestamp(chrono::Utc::now())),
        idempotency_key: key.unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
    };
    match client.record_move(authed(req, token)).await {
        Ok(r) => {
            let r = r.into_inner();
            if let Some(f) = r.foul {
                println!("foul recorded (not applied): {} [{} {}]", f.description, f.rule, f.article);
                return exit::code(exit::FOUL);
            }
            print!("move {} recorded", r.move_number);
            if !r.captured.is_empty() {
                print!(", captures {}", r.captured.join(" "));
            }
            if let Some(k) = r.ko_point {
                print!(", ko at {k}");
            }
            println!();
            exit::code(exit::OK)
        }
        Err(s) => fail(status_text(&s)),
    }
}

async fn run_async(args: Args) -> ExitCode {
    if let GameCommand::Import { file, .. } = &args.command {
        if let Err(e) = std::fs::read(file) {
            eprintln!("error: cannot read {}: {e}", file.display());
            return exit::code(exit::UNREADABLE);
        }
    }
    let mut client = match connect(&args.conn.server).await {
        Ok(c) => c,
        Err(e) => return fail(format!("cannot reach {}: {e}", args.conn.server)),
    };
    let token = args.conn.token.as_str();
    match args.command {
        GameCommand::Create { tournament, round, board, black, black_rank, white, white_rank, size, komi, handicap, rules, key } => {
            let req = pb::CreateGameRequest {
                tournament,
                round,
                board_number: board,
                black: Some(pb::Player { name: black, rank: black_rank, federation_id: String::new() }),
                white: Some(pb::Player { name: white, rank: white_rank, federation_id: String::new() }),
                board_size: size,
                komi,
                handicap,
                rule_set: rules,
                idempotency_key: key,
            };
            match client.create_game(authed(req, token)).await {
                Ok(g) => {
                    println!("{}", g.into_inner().game.unwrap_or_default().id);
                    exit::code(exit::OK)
                }
                Err(s) => fail(status_text(&s)),
            }
        }
        GameCommand::Move { game, point, color, number, key } => {
            record(&mut client, token, game, pb::r#move::Action::Point(point), color, number, key).await
        }
        GameCommand::Pass { game, color, number } => {
            record(&mut client, token, game, pb::r#move::Action::Pass(true), color, number, None).await
        }
        GameCommand::Resign { game, color } => {
            let req = pb::ResignRequest { game_id: game, color: color_pb(color), idempotency_key: uuid::Uuid::new_v4().to_string() };
            match client.resign(authed(req, token)).await {
                Ok(g) => {
                    println!("resigned; result {}", g.into_inner().game.unwrap_or_default().result);
                    exit::code(exit::OK)
                }
                Err(s) => fail(status_text(&s)),
            }
        }
        GameCommand::Show { game } => match client.get_game(authed(pb::GetGameRequest { game_id: game }, token)).await {
            Ok(g) => {
                let g = g.into_inner().game.unwrap_or_default();
                println!("{}", game_summary(&g));
                let moves: Vec<String> = g.moves.iter().map(move_text).collect();
                for (i, chunk) in moves.chunks(10).enumerate() {
                    println!("  {:>4}: {}", i * 10 + 1, chunk.join(", "));
                }
                exit::code(exit::OK)
            }
            Err(s) => fail(status_text(&s)),
        },
        GameCommand::List { tournament, round } => match client.list_games(authed(pb::ListGamesRequest { tournament, round }, token)).await
        {
            Ok(r) => {
                for g in r.into_inner().games {
                    let name = |p: &Option<pb::Player>| p.as_ref().map(|p| p.name.clone()).unwrap_or_default();
                    println!(
                        "{}  {} r{} b{}  {} - {}  {} moves  {}",
                        g.id,
                        g.tournament,
                        g.round,
                        g.board_number,
                        name(&g.black),
                        name(&g.white),
                        g.move_number,
                        if g.result.is_empty() { "-" } else { g.result.as_str() }
                    );
                }
                exit::code(exit::OK)
            }
            Err(s) => fail(status_text(&s)),
        },
        GameCommand::Watch { game, from, until_end } => {
            let req = pb::WatchGameRequest { game_id: game, from_sequence: from, until_end };
            match client.watch_game(authed(req, token)).await {
                Ok(stream) => {
                    let mut stream = stream.into_inner();
                    loop {
                        tokio::select! {
                            m = stream.message() => match m {
                                Ok(Some(m)) => println!("{}", event_line(&m.event.unwrap_or_default())),
                                Ok(None) => return exit::code(exit::OK),
                                Err(s) => return fail(status_text(&s)),
                            },
                            _ = tokio::signal::ctrl_c() => return exit::code(exit::OK),
                        }
                    }
                }
                Err(s) => fail(status_text(&s)),
            }
        }
        GameCommand::Import { file, tournament, round, board, rules, key } => {
            // Readable: checked in `run_async`. Decoded here by its CA[] charset (Shift_JIS,
            // EUC-JP, ...; shinpan_sgf::scan::decode): the server takes text.
            let bytes = std::fs::read(&file).unwrap_or_default();
            let sgf = shinpan_sgf::scan::decode(&bytes);
            let req = pb::ImportSgfRequest { sgf, tournament, round, board_number: board, rule_set: rules, idempotency_key: key };
            match client.import_sgf(authed(req, token)).await {
                Ok(r) => {
                    let r = r.into_inner();
                    let g = r.game.unwrap_or_default();
                    println!("{}", g.id);
                    if r.replayed {
                        eprintln!("already imported with this key: {} moves from {}", r.moves, file.display());
                    } else {
                        eprintln!("imported {} moves from {}", r.moves, file.display());
                    }
                    exit::code(exit::OK)
                }
                Err(s) => {
                    let code = if s.message().starts_with("foul") { exit::FOUL } else { exit::FAILURE };
                    eprintln!("error: {}", status_text(&s));
                    exit::code(code)
                }
            }
        }
        GameCommand::Export { game, output } => match client.export_sgf(authed(pb::ExportSgfRequest { game_id: game }, token)).await {
            Ok(r) => {
                let sgf = r.into_inner().sgf;
                match output {
                    Some(path) => match std::fs::write(&path, sgf) {
                        Ok(()) => exit::code(exit::OK),
                        Err(e) => fail(format!("cannot write {}: {e}", path.display())),
                    },
                    None => {
                        println!("{sgf}");
                        exit::code(exit::OK)
                    }
                }
            }
            Err(s) => fail(status_text(&s)),
        },
    }
}
