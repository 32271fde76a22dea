//! `shinpan case ...`: the arbiter's cases from the command line, against a running server.
//!
//! ```text
//! shinpan case list [--tournament T] [--game G] [--state open|under-review|ruled|closed]
//! shinpan case show <CASE>
//! shinpan case open <GAME> --kind referee|resumption --reason "..."
//! shinpan case review|close <CASE> --reason "..."
//! shinpan case policy --tournament T [--set no-result|time-used|nigiri]   # 第十一条 note
//! shinpan case rule <CASE> --kind no-result --reason "neither player yields the triple ko"
//! shinpan case rule <CASE> --kind foul-loss --loser W --move 24 --rule ko --article 第五条 --reason "..."
//! shinpan case rule <CASE> --kind amend --result W+6.5 --reason "..."
//! shinpan case rule <CASE> --kind keep-result|both-lose|resumption --reason "..."
//! ```
//! `--server`/`SHINPAN_SERVER` and `--token`/`SHINPAN_TOKEN` as for `shinpan result`.
//! Exit codes: 0 success, 1 failure.

use crate::exit;
use crate::remote::{authed, status_line, Connection};
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::arbitration_service_client::ArbitrationServiceClient;
use shinpan_proto::ValueName;
use std::process::ExitCode;

/// `shinpan case`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    conn: Connection,
    #[command(subcommand)]
    command: Command,
}

/// A case state filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StateArg {
    /// Open.
    Open,
    /// Under review.
    UnderReview,
    /// Ruled.
    Ruled,
    /// Closed.
    Closed,
}

/// The kind of case a referee opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KindArg {
    /// Any other matter (opened by the referee).
    Referee,
    /// A resumption dispute (第九条).
    Resumption,
    /// A foul (第十二条).
    Foul,
    /// A repetition (第十一条).
    Repetition,
    /// An undecided status (第七条).
    Undecided,
}

/// The kind of ruling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RulingArg {
    /// 無勝負 (第十一条).
    NoResult,
    /// 反則負け (第十二条).
    FoulLoss,
    /// 両負け.
    BothLose,
    /// Play resumes (第九条).
    Resumption,
    /// The proposed result stands: an objection is not upheld (第十条2).
    #[value(name = "keep-result")]
    Uphold,
    /// The result is amended.
    Amend,
    /// 第九条2: no agreement on the end: the game is counted by 第七条・第八条.
    EndByCount,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// List cases (of a tournament or a game).
    List {
        /// Tournament name or id.
        #[arg(long, default_value = "")]
        tournament: String,
        /// Game (UUID).
        #[arg(long, default_value = "")]
        game: String,
        /// Only cases in this state.
        #[arg(long, value_enum)]
        state: Option<StateArg>,
    },
    /// Show a case with its evidence and ruling.
    Show {
        /// The case (UUID).
        case: String,
    },
    /// Open a case (referees).
    Open {
        /// The game (UUID).
        game: String,
        /// Kind of case.
        #[arg(long, value_enum, default_value = "referee")]
        kind: KindArg,
        /// Why.
        #[arg(long)]
        reason: String,
    },
    /// Show or set (chief arbiter, federation admin) the tournament's 無勝負 policy
    /// (第十一条 note): no-result, time-used or nigiri.
    Policy {
        /// Tournament name or id.
        #[arg(long)]
        tournament: String,
        /// The new policy; omit to show the current one.
        #[arg(long)]
        set: Option<String>,
    },
    /// Take a case under review (referees).
    Review {
        /// The case (UUID).
        case: String,
        /// Why.
        #[arg(long)]
        reason: String,
    },
    /// Close a case (referees): dismissed without a ruling, or done after one.
    Close {
        /// The case (UUID).
        case: String,
        /// Why.
        #[arg(long)]
        reason: String,
    },
    /// Rule on a case (referees), with a written reason.
    Rule {
        /// The case (UUID).
        case: String,
        /// The ruling.
        #[arg(long, value_enum)]
        kind: RulingArg,
        /// The written reason.
        #[arg(long)]
        reason: String,
        /// 反則負け: the player who committed the foul (B or W).
        #[arg(long, value_parser = crate::token::parse_color)]
        loser: Option<goban::Color>,
        /// 反則負け: the move number of the foul.
        #[arg(long = "move")]
        move_number: Option<u32>,
        /// 反則負け: the rule broken (ko, suicide, occupied, out-of-turn, ...).
        #[arg(long, default_value = "")]
        rule: String,
        /// 反則負け: the article broken (e.g. 第五条).
        #[arg(long, default_value = "")]
        article: String,
        /// Amend: the new result (SGF RE, e.g. W+6.5).
        #[arg(long, default_value = "")]
        result: String,
        /// 無勝負 under a time-used or nigiri policy: the winner so decided.
        #[arg(long, value_parser = crate::token::parse_color)]
        winner: Option<goban::Color>,
    },
}

use crate::convert::opt_color_to_pb as colour;

/// A case as text: id, game, kind, state, who opened it and why, evidence summary, ruling.
pub fn case_text(k: &pb::Case) -> String {
    // Kinds print as CASE_FOUL, CASE_REFEREE, ...; states as OPEN, UNDER_REVIEW, ...
    let kind = pb::CaseKind::try_from(k.kind).map(|x| format!("CASE_{}", x.value_name())).unwrap_or_else(|_| "?".into());
    let state = pb::CaseState::try_from(k.state).map(|x| x.value_name()).unwrap_or("?");
    let mut s = format!("case {} game {}: {kind} {state}\n  opened by {}: {}", k.id, k.game_id, k.opened_by, k.reason);
    if let Some(e) = &k.evidence {
        if !e.move_numbers.is_empty() {
            s.push_str(&format!("\n  moves: {:?}", e.move_numbers));
        }
        for f in &e.fouls {
            s.push_str(&format!("\n  foul: move {} {} ({}) {}", f.move_number, f.rule, f.article, f.description));
        }
        for r in e.repetitions.iter().filter(|r| r.cycles >= 2).take(3) {
            s.push_str(&format!("\n  repetition: moves {}..{} cycled {} times", r.first + 1, r.again, r.cycles));
        }
        if let Some(a) = &e.readjudication {
            s.push_str(&format!("\n  re-adjudication: {}", a.result));
        }
        if !e.reconstruction_sgf.is_empty() {
            s.push_str(&format!("\n  reconstruction: {} bytes of SGF", e.reconstruction_sgf.len()));
        }
    }
    if let Some(r) = &k.ruling {
        let kind = pb::RulingKind::try_from(r.kind).map(|x| x.value_name()).unwrap_or("?");
        s.push_str(&format!("\n  ruling: {kind} → {} by {}: {}", r.result, r.by, r.reason));
        if !r.policy.is_empty() {
            s.push_str(&format!(" (policy {})", r.policy));
        }
    }
    s
}

/// Runs `shinpan case`.
pub fn run(args: Args) -> ExitCode {
    exit::block_on(async move { exit::from_result(run_async(args).await) })
}

async fn run_async(args: Args) -> anyhow::Result<()> {
    let channel = crate::remote::channel(&args.conn.server).await?;
    let mut c = ArbitrationServiceClient::new(channel);
    let t = args.conn.token.as_str();
    let st = |s: tonic::Status| anyhow::anyhow!(status_line(&s));
    match args.command {
        Command::List { tournament, game, state } => {
            let state = match state {
                None => 0,
                Some(StateArg::Open) => pb::CaseState::Open as i32,
                Some(StateArg::UnderReview) => pb::CaseState::UnderReview as i32,
                Some(StateArg::Ruled) => pb::CaseState::Ruled as i32,
                Some(StateArg::Closed) => pb::CaseState::Closed as i32,
            };
            let l = c.list_cases(authed(pb::ListCasesRequest { tournament, state, game_id: game }, t)).await.map_err(st)?.into_inner();
            for k in &l.cases {
                println!("{}", case_text(k));
            }
            eprintln!("{} case(s)", l.cases.len());
        }
        Command::Show { case } => {
            let k = c.get_case(authed(pb::GetCaseRequest { case_id: case }, t)).await.map_err(st)?.into_inner().case.unwrap_or_default();
            println!("{}", case_text(&k));
        }
        Command::Open { game, kind, reason } => {
            let kind = match kind {
                KindArg::Referee => pb::CaseKind::Referee,
                KindArg::Resumption => pb::CaseKind::Resumption,
                KindArg::Foul => pb::CaseKind::Foul,
                KindArg::Repetition => pb::CaseKind::Repetition,
                KindArg::Undecided => pb::CaseKind::Undecided,
            } as i32;
            let k = c
                .open_case(authed(pb::OpenCaseRequest { game_id: game, kind, reason, evidence: None }, t))
                .await
                .map_err(st)?
                .into_inner()
                .case
                .unwrap_or_default();
            println!("{}", case_text(&k));
        }
        Command::Policy { tournament, set } => {
            let p = match set {
                Some(policy) => c
                    .set_no_result_policy(authed(pb::SetNoResultPolicyRequest { tournament, policy }, t))
                    .await
                    .map(|r| r.into_inner().no_result_policy),
                None => c
                    .get_no_result_policy(authed(pb::GetNoResultPolicyRequest { tournament }, t))
                    .await
                    .map(|r| r.into_inner().no_result_policy),
            }
            .map_err(st)?
            .unwrap_or_default();
            println!("{}: 無勝負 policy {}", p.tournament, p.policy);
        }
        Command::Review { case, reason } => {
            let k = c
                .set_case_state(authed(pb::SetCaseStateRequest { case_id: case, state: pb::CaseState::UnderReview as i32, reason }, t))
                .await
                .map_err(st)?
                .into_inner()
                .case
                .unwrap_or_default();
            println!("{}", case_text(&k));
        }
        Command::Close { case, reason } => {
            let k = c
                .set_case_state(authed(pb::SetCaseStateRequest { case_id: case, state: pb::CaseState::Closed as i32, reason }, t))
                .await
                .map_err(st)?
                .into_inner()
                .case
                .unwrap_or_default();
            println!("{}", case_text(&k));
        }
        Command::Rule { case, kind, reason, loser, move_number, rule, article, result, winner } => {
            let kind = match kind {
                RulingArg::NoResult => pb::RulingKind::NoResult,
                RulingArg::FoulLoss => pb::RulingKind::FoulLoss,
                RulingArg::BothLose => pb::RulingKind::BothLose,
                RulingArg::Resumption => pb::RulingKind::Resumption,
                RulingArg::Uphold => pb::RulingKind::Uphold,
                RulingArg::Amend => pb::RulingKind::Amend,
                RulingArg::EndByCount => pb::RulingKind::EndByCount,
            } as i32;
            let foul = move_number.map(|n| pb::Foul { move_number: n, rule, article, ..Default::default() });
            let ruling = pb::Ruling {
                kind,
                reason,
                loser: colour(loser),
                foul,
                amended_result: result,
                winner: colour(winner),
                ..Default::default()
            };
            let k = c
                .rule_case(authed(pb::RuleCaseRequest { case_id: case, ruling: Some(ruling) }, t))
                .await
                .map_err(st)?
                .into_inner()
                .case
                .unwrap_or_default();
            println!("{}", case_text(&k));
        }
    }
    Ok(())
}
