//! `shinpan adjudicate [--rules R] [--komi K] [--agreed-dead POINTS] [--dispute POINTS]
//! [--budget N] [--budget-ms MS] [--json] FILE.sgf`: replays a record, decides the life and death of every
//! chain of the final position by hypothetical play (第七条, see the
//! `shinpan-adjudicator` crate), and counts it (第八条, 第十条).
//!
//! * `--agreed-dead POINTS`: the players' agreement (第九条): the chains through these
//!   SGF points are dead, every other chain alive. Agreed statuses stand except for the
//!   chains named by `--dispute`, which hypothetical play (第七条) decides with the
//!   agreement as its context: agreed-alive chains are walls it never captures, agreed-dead
//!   stones stay on the board (see `shinpan_adjudicator`'s module `dispute`). Agreed chains
//!   a disputed chain's verification depends on are drawn into the dispute (`drawn_in` in the
//!   JSON, with the reason and `searched`: false when it keeps the agreement), except the
//!   walls two links keep (`kept_by_links` in the JSON, with its two links); undisputed
//!   agreements are not searched, but every one the whole-board analysis proves wrong is
//!   reported (`refuted` in the JSON, with its line).
//! * `--dispute POINTS`: chains to adjudicate even though an agreement is given.
//! * `--budget N`: nodes of hypothetical play per region (default 500000); a region not
//!   decided within it leaves its chains `undecided`. The regions searched for one disputed
//!   chain share it.
//! * `--budget-ms MS`: wall time of the whole search in milliseconds (default: none); the
//!   chains not decided when it runs out are `undecided` ("time budget exhausted"). The
//!   search's tables are capped at [`shinpan_adjudicator::DEFAULT_MAX_MEMORY_BYTES`] per
//!   region ("memory cap of N MiB reached").
//!
//! Output: a board diagram with statuses and territory, or with `--json` the object of
//! `shinpan score --json` ([`crate::report::Report`]) plus `"proofs"`: one entry per
//! chain that is not pass-alive, `{"stones": [...], "color": "black", "status": "dead",
//! "line": ["B dc", "W pass", ...], "nodes": n}` (an undecided chain also has `"reason"`:
//! why — its region is larger than the searched maximum, or the budget ran out — see
//! [`shinpan_adjudicator::Undecided`]), and `"refuted"` when agreements are refuted.
//!
//! Exit codes: 0 everything decided; [`exit::FOUL`] (3) if the record holds an illegal
//! move (第十二条); [`exit::UNREADABLE`] (2) unreadable file or bad point list;
//! [`exit::UNDECIDED`] (4) if some stone is undecided (result `?`).

use crate::app::DEFAULT_BUDGET;
use crate::exit;
use crate::replay::{load_to_count, Loaded};
use crate::report::{sgf_points, Report};
use crate::score::parse_dead;
use goban::{score, Color, Status, StatusMap};
use shinpan_adjudicator::{adjudicate, Adjudication, Options};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `shinpan adjudicate`.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Rule set: japanese-2011, japanese-1989, chinese, jungo, japanese-jungo.
    /// Default: the record's RU if recognised, else japanese-2011.
    #[arg(long, value_name = "R")]
    pub rules: Option<goban::RuleSet>,
    /// Komi in points (default: the record's KM, else the rule set's default).
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub komi: Option<f64>,
    /// Agreed dead stones (第九条): comma-separated SGF points, each marking its chain.
    #[arg(long, value_name = "POINTS")]
    pub agreed_dead: Option<String>,
    /// Disputed chains: comma-separated SGF points; adjudicated despite an agreement.
    #[arg(long, value_name = "POINTS")]
    pub dispute: Option<String>,
    /// Nodes of hypothetical play per region (the regions searched for one disputed chain
    /// share them); a region not decided within it leaves its chains undecided.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUDGET)]
    pub budget: u64,
    /// Milliseconds of wall time the search may take in all (default: no limit).
    #[arg(long, value_name = "MS")]
    pub budget_ms: Option<u64>,
    /// Print the JSON object instead of a diagram.
    #[arg(long)]
    pub json: bool,
    /// The SGF record.
    #[arg(value_name = "FILE.sgf")]
    pub file: PathBuf,
}

/// The adjudication of a loaded record and its count.
pub struct Adjudicated {
    /// The count (statuses from the adjudication), with `proofs` filled.
    pub report: Report,
    /// The adjudication itself.
    pub adjudication: Adjudication,
}

/// Adjudicates the final position of `loaded` (no foul): `agreed_dead`/`dispute` as in
/// the module docs, `budget` nodes per region, `komi` as `shinpan score`.
pub fn adjudicate_loaded(
    loaded: &Loaded,
    agreed_dead: Option<&[goban::Point]>,
    dispute: &[goban::Point],
    komi: Option<f64>,
    budget: u64,
) -> Adjudicated {
    adjudicate_loaded_until(loaded, agreed_dead, dispute, komi, budget, None)
}

/// As [`adjudicate_loaded`], the search stopping at `deadline` if one is given (the chains
/// not decided by then are undecided, "time budget exhausted").
pub fn adjudicate_loaded_until(
    loaded: &Loaded,
    agreed_dead: Option<&[goban::Point]>,
    dispute: &[goban::Point],
    komi: Option<f64>,
    budget: u64,
    deadline: Option<std::time::Instant>,
) -> Adjudicated {
    let game = &loaded.replayed.game;
    let board = game.board();
    let opts = Options {
        budget_nodes: budget,
        agreed: agreed_dead.map(|d| StatusMap::with_dead(board, d)),
        dispute: dispute.to_vec(),
        ko_pending: game.ko_point(),
        to_move: game.to_move(),
        deadline,
        ..Options::default()
    };
    let adj = adjudicate(board, loaded.rules, &opts);
    let komi = komi.unwrap_or_else(|| loaded.record.komi_or_default(loaded.rules));
    let s = score(
        board,
        &adj.status,
        [game.prisoners(Color::Black), game.prisoners(Color::White)],
        [game.passes(Color::Black), game.passes(Color::White)],
        komi,
        loaded.rules,
    );
    let mut report = Report::new(board, &adj.status, &s, loaded.rules, komi, game.move_number());
    let proofs: Vec<serde_json::Value> = adj
        .proofs
        .iter()
        .map(|p| {
            let mut v = serde_json::json!({
                "stones": sgf_points(&p.stones),
                "color": p.color.name(),
                "status": p.status.name(),
                "line": p.line_text(),
                "nodes": p.nodes,
            });
            if let Some(u) = &p.undecided {
                v["reason"] = u.to_string().into();
            }
            v
        })
        .collect();
    report.proofs = Some(serde_json::Value::Array(proofs));
    Adjudicated { report, adjudication: adj }
}

/// A diagram of the final position: `X`/`O` alive, `x`/`o` dead, `S`/`s` seki (black /
/// white), `?` undecided, `b`/`w` territory, `.` other empty points; columns and rows
/// lettered as SGF.
pub fn diagram(board: &goban::Board, status: &StatusMap, report: &Report) -> String {
    let mut s = String::new();
    let letters: String = (0..board.width()).map(|x| (b'a' + x) as char).collect();
    let _ = writeln!(s, "   {letters}");
    for y in 0..board.height() {
        let _ = write!(s, " {} ", (b'a' + y) as char);
        for x in 0..board.width() {
            let p = goban::Point::new(x, y);
            let t = p.to_sgf();
            let ch = match board.get(p) {
                Some(c) => match (c, status.get(p)) {
                    (_, Status::Undecided) => '?',
                    (Color::Black, Status::Alive) => 'X',
                    (Color::White, Status::Alive) => 'O',
                    (Color::Black, Status::Dead) => 'x',
                    (Color::White, Status::Dead) => 'o',
                    (Color::Black, Status::Seki) => 'S',
                    (Color::White, Status::Seki) => 's',
                },
                None if report.territory.black.contains(&t) => 'b',
                None if report.territory.white.contains(&t) => 'w',
                None => '.',
            };
            s.push(ch);
        }
        s.push('\n');
    }
    s
}

/// Runs `shinpan adjudicate`.
pub fn run(args: Args) -> ExitCode {
    let loaded = match load_to_count(&args.file, args.rules) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let board = loaded.replayed.game.board();
    let parse = |t: &Option<String>, what: &str| -> Result<Option<Vec<goban::Point>>, String> {
        match t {
            None => Ok(None),
            Some(t) => parse_dead(t, board).map(Some).map_err(|e| e.replace("--dead", what)),
        }
    };
    let agreed = match parse(&args.agreed_dead, "--agreed-dead") {
        Ok(v) => v,
        Err(m) => {
            eprintln!("{m}");
            return exit::code(exit::UNREADABLE);
        }
    };
    let dispute = match parse(&args.dispute, "--dispute") {
        Ok(v) => v.unwrap_or_default(),
        Err(m) => {
            eprintln!("{m}");
            return exit::code(exit::UNREADABLE);
        }
    };
    let deadline = args.budget_ms.map(|ms| std::time::Instant::now() + std::time::Duration::from_millis(ms));
    let out = adjudicate_loaded_until(&loaded, agreed.as_deref(), &dispute, args.komi, args.budget, deadline);
    let undecided = out.adjudication.undecided(board);
    if args.json {
        let mut v = serde_json::to_value(&out.report).unwrap_or_default();
        let a = &out.adjudication;
        list_field(&mut v, "refuted", &a.refuted_agreements, |r| {
            serde_json::json!({
                "stones": sgf_points(&r.stones),
                "agreed": r.agreed.name(),
                "found": r.found.name(),
                "line": r.line.iter().map(|(c, m)| format!("{} {}", c.letter(), m)).collect::<Vec<_>>(),
            })
        });
        list_field(&mut v, "drawn_in", &a.drawn_in, |d| {
            serde_json::json!({
                "stones": sgf_points(&d.stones),
                "color": d.color.name(),
                "agreed": d.agreed.name(),
                "by": d.by.to_sgf(),
                "reason": d.reason.to_string(),
                "searched": d.searched,
            })
        });
        list_field(&mut v, "kept_by_links", &a.kept_by_links, |k| {
            serde_json::json!({
                "stones": sgf_points(&k.stones),
                "color": k.color.name(),
                "by": k.by.to_sgf(),
                "links": sgf_points(&k.links),
            })
        });
        println!("{v}");
    } else {
        print!("{}", diagram(board, &out.adjudication.status, &out.report));
        println!("{}", out.report.to_text());
        for p in &out.adjudication.proofs {
            println!(
                "{} {} {}: {} ({} nodes)",
                p.color.name(),
                sgf_points(&p.stones).join(","),
                p.status,
                match (&p.undecided, p.line.is_empty()) {
                    (Some(u), _) => u.to_string(),
                    (None, true) => "-".to_string(),
                    (None, false) => p.line_text().join(" "),
                },
                p.nodes
            );
        }
        for d in &out.adjudication.drawn_in {
            println!(
                "drawn into the dispute of {}: {} {} (agreed {}; {}): {}",
                d.by.to_sgf(),
                d.color.name(),
                sgf_points(&d.stones).join(","),
                d.agreed,
                if d.searched { "searched" } else { "keeps the agreement, not searched" },
                d.reason
            );
        }
        for k in &out.adjudication.kept_by_links {
            println!(
                "kept a wall in the dispute of {}: {} {} (agreed alive; not drawn in): a move on {} or {} is answered on the other, which joins it to a wall that stays (第七条)",
                k.by.to_sgf(),
                k.color.name(),
                sgf_points(&k.stones).join(","),
                k.links[0].to_sgf(),
                k.links[1].to_sgf()
            );
        }
        for r in &out.adjudication.refuted_agreements {
            println!("agreement refuted: {} agreed {}, found {}", sgf_points(&r.stones).join(","), r.agreed, r.found);
        }
        if let Some(recorded) = &loaded.record.info.result {
            println!("recorded result: {recorded}");
        }
    }
    if undecided {
        return exit::code(exit::UNDECIDED);
    }
    exit::code(exit::OK)
}

/// Sets `v[key]` to the JSON of each of `items` (by `f`), when there is any: an empty list is
/// left out of the answer.
fn list_field<T>(v: &mut serde_json::Value, key: &str, items: &[T], f: impl Fn(&T) -> serde_json::Value) {
    if !items.is_empty() {
        v[key] = serde_json::Value::Array(items.iter().map(f).collect());
    }
}
