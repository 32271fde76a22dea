//! `shinpan result ...`: the result lifecycle from the command line, against a running server.
//!
//! ```text
//! shinpan result propose <GAME> --ending resignation            # winner from the recorded resignation (第六条)
//! shinpan result propose <GAME> --ending count                  # the adjudicator decides (第七条・第八条)
//! shinpan result propose <GAME> --ending count --dead dc,ed     # agreed statuses (第九条)
//! shinpan result propose <GAME> --ending time --winner B
//! shinpan result confirm <GAME> [--color B|W] [--version N]     # your own colour, or as referee
//! shinpan result object  <GAME> --reason "my group has two eyes" # 第十条2
//! shinpan result show    <GAME>
//! shinpan result export  --tournament T [--egf FILE.h9] [--sgf-dir DIR] [--class A]
//! ```
//! `--server` (env `SHINPAN_SERVER`, default `http://127.0.0.1:50051`) and `--token` (env
//! `SHINPAN_TOKEN`, a bearer token from `shinpan token issue`). Exit codes: 0 success, 1
//! failure (unreachable server, refused call: the gRPC code and message are printed).

use crate::exit;
use crate::remote::{authed, status_line, Connection};
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::result_confirmation_service_client::ResultConfirmationServiceClient;
use shinpan_proto::ValueName;
use std::path::PathBuf;
use std::process::ExitCode;

/// `shinpan result`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    conn: Connection,
    #[command(subcommand)]
    command: Command,
}

/// How the game ended (see `Ending` in results.proto).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EndingArg {
    /// 中押勝 (第六条).
    Resignation,
    /// Count after life and death (第九条; 第七条・第八条 when no statuses are given).
    Count,
    /// Loss on time.
    Time,
    /// 持碁 (第十条).
    Jigo,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Propose the result of a game whose play has stopped.
    Propose {
        /// The game (UUID).
        game: String,
        /// How the game ended.
        #[arg(long, value_enum)]
        ending: EndingArg,
        /// The winner (time; resignation when none is recorded): B or W.
        #[arg(long, value_parser = crate::token::parse_color)]
        winner: Option<goban::Color>,
        /// Agreed dead stones (any stone of each chain), comma-separated SGF points.
        #[arg(long, value_delimiter = ',')]
        dead: Vec<String>,
        /// Agreed seki stones.
        #[arg(long, value_delimiter = ',')]
        seki: Vec<String>,
        /// Agreed living stones (when everything is alive, pass one stone).
        #[arg(long, value_delimiter = ',')]
        alive: Vec<String>,
        /// A note kept with the result.
        #[arg(long, default_value = "")]
        note: String,
    },
    /// Confirm the proposed result: a player for their own colour, an official as referee.
    Confirm {
        /// The game (UUID).
        game: String,
        /// The colour you confirm for (players; default: your own).
        #[arg(long, value_parser = crate::token::parse_color)]
        color: Option<goban::Color>,
        /// The version you read (0 = the current one).
        #[arg(long, default_value_t = 0)]
        version: u64,
    },
    /// Object to the proposed result (第十条2): opens an appeal case.
    Object {
        /// The game (UUID).
        game: String,
        /// Why.
        #[arg(long)]
        reason: String,
    },
    /// Show the game's result in force.
    Show {
        /// The game (UUID).
        game: String,
    },
    /// Export a tournament's confirmed results (SGF records and the EGF table).
    Export {
        /// Tournament name or id.
        #[arg(long)]
        tournament: String,
        /// Write the EGF results table here (default: print it).
        #[arg(long)]
        egf: Option<PathBuf>,
        /// Write one SGF file per game into this directory.
        #[arg(long)]
        sgf_dir: Option<PathBuf>,
        /// EGF tournament class (A, B, C, D).
        #[arg(long, default_value = "B")]
        class: String,
        /// EGF place, e.g. "NL, Amsterdam".
        #[arg(long, default_value = "")]
        place: String,
    },
}

use crate::convert::opt_color_to_pb as color_pb;

/// One-paragraph text of a result.
pub fn result_text(r: &pb::GameResult) -> String {
    let state = pb::ResultState::try_from(r.state).map(|s| s.value_name()).unwrap_or("?");
    let ending = pb::Ending::try_from(r.ending).map(|e| e.value_name()).unwrap_or("?");
    let mut s = format!("game {}: {} ({ending}) {state} version {}", r.game_id, r.result, r.version);
    if !r.pending.is_empty() {
        s.push_str(&format!("; awaiting {}", r.pending.join(", ")));
    }
    for c in &r.confirmations {
        let who = match pb::Color::try_from(c.color) {
            Ok(pb::Color::Black) => "black",
            Ok(pb::Color::White) => "white",
            _ => "referee",
        };
        s.push_str(&format!("\n  confirmed by {} ({who})", c.by));
    }
    if !r.ruling_text.is_empty() {
        s.push_str(&format!("\n  ruling: {}", r.ruling_text));
    }
    if !r.corrects.is_empty() {
        s.push_str(&format!("\n  corrects result {}", r.corrects));
    }
    s
}

/// Runs `shinpan result`.
pub fn run(args: Args) -> ExitCode {
    exit::block_on(async move { exit::from_result(run_async(args).await) })
}

async fn run_async(args: Args) -> anyhow::Result<()> {
    let channel = crate::remote::channel(&args.conn.server).await?;
    let mut c = ResultConfirmationServiceClient::new(channel);
    let t = args.conn.token.as_str();
    let st = |s: tonic::Status| anyhow::anyhow!(status_line(&s));
    match args.command {
        Command::Propose { game, ending, winner, dead, seki, alive, note } => {
            let mut agreements = Vec::new();
            for (pts, status) in [(dead, pb::ChainStatus::Dead), (seki, pb::ChainStatus::Seki), (alive, pb::ChainStatus::Alive)] {
                for p in pts.into_iter().filter(|p| !p.trim().is_empty()) {
                    agreements.push(pb::Agreement { stones: vec![p.trim().to_string()], status: status as i32 });
                }
            }
            let ending = match ending {
                EndingArg::Resignation => pb::Ending::Resignation,
                EndingArg::Count => pb::Ending::Count,
                EndingArg::Time => pb::Ending::TimeForfeit,
                EndingArg::Jigo => pb::Ending::Jigo,
            } as i32;
            let r = c
                .propose_result(authed(pb::ProposeResultRequest { game_id: game, ending, agreements, winner: color_pb(winner), note }, t))
                .await
                .map_err(st)?
                .into_inner()
                .result
                .unwrap_or_default();
            println!("{}", result_text(&r));
        }
        Command::Confirm { game, color, version } => {
            let r = c
                .confirm_result(authed(pb::ConfirmResultRequest { game_id: game, version, color: color_pb(color) }, t))
                .await
                .map_err(st)?
                .into_inner()
                .result
                .unwrap_or_default();
            println!("{}", result_text(&r));
        }
        Command::Object { game, reason } => {
            let k =
                c.object(authed(pb::ObjectRequest { game_id: game, reason }, t)).await.map_err(st)?.into_inner().case.unwrap_or_default();
            println!("{}", crate::case_cli::case_text(&k));
        }
        Command::Show { game } => {
            let r =
                c.get_result(authed(pb::GetResultRequest { game_id: game }, t)).await.map_err(st)?.into_inner().result.unwrap_or_default();
            println!("{}", result_text(&r));
        }
        Command::Export { tournament, egf, sgf_dir, class, place } => {
            let x = c
                .export_results(authed(
                    pb::ExportResultsRequest { tournament, egf_class: class, egf_place: place, ..Default::default() },
                    t,
                ))
                .await
                .map_err(st)?
                .into_inner();
            match egf {
                Some(p) => std::fs::write(&p, &x.egf_table)?,
                None => print!("{}", x.egf_table),
            }
            if let Some(dir) = sgf_dir {
                std::fs::create_dir_all(&dir)?;
                for (i, s) in x.sgf.iter().enumerate() {
                    std::fs::write(dir.join(format!("{:03}.sgf", i + 1)), s)?;
                }
                eprintln!("{} SGF record(s) written to {}", x.sgf.len(), dir.display());
            }
        }
    }
    Ok(())
}
