//! `shinpan propose [--rules R] [--komi K] [--budget N] [--gnugo PATH] [--level L[,L...]]
//! [--timeout S] [--json] FILE.sgf`: an end-of-game *proposal* — advisory, never a ruling —
//! for the players to start their agreement from (第九条): every chain of the record's final
//! position gets a status and the basis of it, and the position is counted with those
//! statuses (第八条 territory, 第十条 count).
//!
//! * basis `proved`: decided by hypothetical play (第七条, [`shinpan_adjudicator::adjudicate`]
//!   with no agreement and `--budget` nodes per region, as `shinpan adjudicate`), with its
//!   proof line; a pass-alive chain (no line needed) is `proved` with `"pass_alive": true`.
//! * basis `estimated`: a chain hypothetical play left undecided, given the status of an
//!   estimator ([`crate::estimate`]: GNU Go's `final_status_list` over GTP, by default at
//!   `--level 2`, [`estimate::DEFAULT_LEVELS`]), with its `source` and the adjudicator's
//!   `reason` for not deciding it.
//! * basis `undecided`: neither decided it (the estimator failed, timed out, is absent or
//!   named no status): the chain stays undecided and the result is `?`.
//!
//! Where the estimator contradicts a proof, the proof stands and the entry says what the
//! estimate was (`"estimate_overruled": "dead"`). The estimator runs next to the search under a
//! time limit (`--timeout`, default [`estimate::DEFAULT_TIMEOUT`]); its failure never fails
//! the proposal: the `estimator` object then carries `error`, and only the proved statuses
//! are used. Several `--level`s are asked side by side and voted ([`estimate::Vote`]).
//!
//! Where the proposal differs from a server's result on the shared real games (see
//! `tests/propose_games.rs`): the players' marks leaving a dead stone alive (a slip the
//! proposal does not copy), GNU Go misjudging a chain hypothetical play could not decide, and
//! one-point differences of the count itself — a point `goban::score` counts as territory
//! that the server (and GNU Go) leave out because filling the dame would force a protective
//! move there.
//!
//! Output: the diagram of `shinpan adjudicate` (combined statuses), the count, and one line
//! per chain with status, basis and source; with `--json` the object of `shinpan adjudicate
//! --json` ([`crate::report::Report`]) whose `proofs` hold one entry for *every* chain, each
//! with `basis` and `source` (`{"stones": [...], "color": "white", "status": "dead", "basis":
//! "estimated", "source": "gnugo-3.8 --level 2 final_status_list", "line": [], "nodes": n,
//! "reason": "..."}`), plus `"advisory": true`, `"proved_result"` (the count with the proved
//! statuses only) and `"estimator": {"source": ..., "seconds": s}` or `{"source": ...,
//! "error": ...}`. `result` is the proposal's count.
//!
//! Exit codes: 0 every chain has a status (proved or estimated); [`exit::FOUL`] (3) if the
//! record holds an illegal move (第十二条); [`exit::UNREADABLE`] (2) unreadable file;
//! [`exit::UNDECIDED`] (4) if a chain has neither a proof nor an estimate (result `?`).

use crate::adjudicate::diagram;
use crate::app::DEFAULT_BUDGET;
use crate::estimate::{self, Estimator, GnuGo};
use crate::exit;
use crate::proposal::{chain_json, estimator_json, propose, Basis, EstimatorOutcome, Proposal, Subject};
use crate::replay::{load_to_count, Loaded};
use crate::report::{sgf_points, Report};
use goban::{Color, RuleSet};
use shinpan_adjudicator::Options;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// The proposal for a loaded record (no foul) as the JSON object of the module docs.
pub fn report(loaded: &Loaded, proposal: &Proposal, komi: f64) -> Report {
    let game = &loaded.replayed.game;
    let mut r = Report::new(game.board(), &proposal.status, &proposal.score, loaded.rules, komi, game.move_number());
    r.proofs = Some(serde_json::Value::Array(proposal.chains.iter().map(chain_json).collect()));
    r
}

/// Proposes for a loaded record (no foul) with GNU Go as `gnugo` says, `budget` nodes per
/// region and `komi` (default: the record's, else the rule set's).
pub fn propose_loaded(loaded: &Loaded, komi: Option<f64>, budget: u64, estimator: Option<&dyn Estimator>) -> (Proposal, f64) {
    let game = &loaded.replayed.game;
    let komi = komi.unwrap_or_else(|| loaded.record.komi_or_default(loaded.rules));
    let subject = Subject {
        board: game.board(),
        rules: loaded.rules,
        komi,
        prisoners: [game.prisoners(Color::Black), game.prisoners(Color::White)],
        passes: [game.passes(Color::Black), game.passes(Color::White)],
        options: Options { budget_nodes: budget, ko_pending: game.ko_point(), to_move: game.to_move(), ..Options::default() },
    };
    (propose(&subject, estimator, None), komi)
}

/// Arguments of `shinpan propose`.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Rule set: japanese-2011, japanese-1989, chinese, jungo, japanese-jungo.
    /// Default: the record's RU if recognised, else japanese-2011.
    #[arg(long, value_name = "R")]
    pub rules: Option<RuleSet>,
    /// Komi in points (default: the record's KM, else the rule set's default).
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub komi: Option<f64>,
    /// Nodes of hypothetical play per region (as `shinpan adjudicate`).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUDGET)]
    pub budget: u64,
    /// GNU Go program (default: env GNUGO, else `gnugo` on PATH, else /usr/games/gnugo).
    #[arg(long, value_name = "PATH")]
    pub gnugo: Option<PathBuf>,
    /// GNU Go's --level (0-10; lower is faster); several, comma-separated, are asked side by
    /// side and a stone gets the status most of them give (estimate::Vote).
    #[arg(long, value_name = "L", value_delimiter = ',', default_values_t = estimate::DEFAULT_LEVELS.to_vec())]
    pub level: Vec<u8>,
    /// Time limit of the estimate in seconds.
    #[arg(long, value_name = "S", default_value_t = estimate::DEFAULT_TIMEOUT.as_secs_f64())]
    pub timeout: f64,
    /// Print the JSON object instead of a diagram.
    #[arg(long)]
    pub json: bool,
    /// The SGF record.
    #[arg(value_name = "FILE.sgf")]
    pub file: PathBuf,
}

/// Runs `shinpan propose`.
pub fn run(args: Args) -> ExitCode {
    let loaded = match load_to_count(&args.file, args.rules) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let gnugo = estimate::gnugo_levels(
        &args.gnugo.clone().unwrap_or_else(GnuGo::find),
        &args.level,
        Duration::from_secs_f64(args.timeout.clamp(0.0, 3600.0)),
    );
    let (proposal, komi) = propose_loaded(&loaded, args.komi, args.budget, Some(gnugo.as_ref()));
    let report = report(&loaded, &proposal, komi);
    if args.json {
        let mut v = serde_json::to_value(&report).unwrap_or_default();
        v["advisory"] = true.into();
        v["proved_result"] = proposal.proved_score.result.to_sgf().into();
        if let Some(o) = &proposal.estimator {
            v["estimator"] = estimator_json(o);
        }
        println!("{v}");
    } else {
        println!("PROPOSAL (advisory, for the players' agreement, 第九条; not a ruling)");
        print!("{}", diagram(loaded.replayed.game.board(), &proposal.status, &report));
        println!("{}", report.to_text());
        for c in &proposal.chains {
            let how = match c.basis {
                Basis::Proved if c.pass_alive => format!("proved by {}: pass-alive", c.source),
                Basis::Proved if c.line.is_empty() => format!("proved by {}", c.source),
                Basis::Proved => format!("proved by {}: {}", c.source, c.line.join(" ")),
                Basis::Estimated => format!("estimated by {}; not proved: {}", c.source, c.reason.as_deref().unwrap_or("-")),
                Basis::Undecided => format!("undecided: {}", c.reason.as_deref().unwrap_or("-")),
            };
            let overruled = c.estimate_overruled.map(|o| format!(" [estimate {o} overruled]")).unwrap_or_default();
            println!("{} {} {}: {how}{overruled}", c.color.name(), sgf_points(&c.stones).join(","), c.status);
        }
        match &proposal.estimator {
            Some(EstimatorOutcome { source, error: Some(e), .. }) => println!("estimator {source}: failed: {e}"),
            Some(o) => println!("estimator {}: {:.2} s", o.source, o.elapsed.as_secs_f64()),
            None => {}
        }
        println!("proved statuses only: {}", proposal.proved_score.result.to_sgf());
        if let Some(recorded) = &loaded.record.info.result {
            println!("recorded result: {recorded}");
        }
    }
    if proposal.undecided() {
        return exit::code(exit::UNDECIDED);
    }
    exit::code(exit::OK)
}
