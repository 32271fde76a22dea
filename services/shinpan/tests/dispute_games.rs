//! A referee's disputes on real games (第九条 with 第七条): on every record of
//! `shared/games/` (env `SHINPAN_GAMES` overrides) whose players marked dead stones, the marks
//! are taken as the agreement and each marked-dead chain is disputed alone, as
//! `shinpan adjudicate --agreed-dead <the other dead stones> --dispute <the chain>` does, at
//! the command line's default budget.
//!
//! A debug build takes every third record (`SHINPAN_DISPUTE_EVERY=n` sets the step); the
//! figures of the README are those of the release build, which takes them all.
//!
//! `SHINPAN_DISPUTE_BUDGET=n` sets the nodes per dispute, which its regions share (default: the command
//! line's).
//!
//! Printed: disputes decided / total (all records, the older ones and the `kgs2017` human
//! games apart), the decisions that differ from the marks with their proof lines, the
//! chains drawn into disputes, the time per dispute (p50, p95, max) and the nodes the decided ones took.
//!
//! Asserted: every decision that differs from the marks is reported as a refuted agreement
//! carrying its proof; every undecided disputed chain says why; on the records whose marks
//! reproduce `RE`, at least 55% of the disputes are decided (the product's target is 95%;
//! the printed figure is what the engine reaches today).

use goban::{Point, Status};
use shinpan::adjudicate::adjudicate_loaded;
use shinpan::app::DEFAULT_BUDGET;
use shinpan::replay::load;
use shinpan::score::marked_dead_chains;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn games_dir() -> PathBuf {
    match std::env::var_os("SHINPAN_GAMES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games"),
    }
}

/// The record `rel` of the games directory, replayed.
fn record(rel: &str) -> shinpan::replay::Loaded {
    let path = games_dir().join(rel);
    load(&path, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The point named in SGF coordinates.
fn pt(s: &str) -> Point {
    Point::from_sgf(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Disputes the marked-dead chain at `d` (SGF point) of the record `rel` alone, of `colour`, as
/// a referee would: the players' other marked-dead chains are the agreement, at the command
/// line's default budget.
fn dispute_marked(rel: &str, d: &str, colour: goban::Color) -> shinpan::adjudicate::Adjudicated {
    let loaded = record(rel);
    let d = pt(d);
    assert_eq!(loaded.replayed.game.board().get(d), Some(colour));
    let others = other_marked_dead(&loaded, d);
    adjudicate_loaded(&loaded, Some(&others), &[d], None, DEFAULT_BUDGET)
}

/// The players' marked-dead chains of `loaded` (one stone each) but the one at `d`, which
/// must be marked dead: the agreement of a dispute of `d`.
fn other_marked_dead(loaded: &shinpan::replay::Loaded, d: Point) -> Vec<Point> {
    let board = loaded.replayed.game.board();
    let heads = marked_dead_chains(board, loaded.record.territory.as_ref().expect("the players' marks"));
    let id = board.chain_id(d).unwrap_or_else(|| panic!("a stone at {d}"));
    assert!(heads.contains(&id), "{d} is marked dead");
    heads.into_iter().filter(|&h| h != id).collect()
}

/// The proof entry of the chain at `d` in `adj`, asserting that it is proved *dead* with a
/// line of at least `min_line` moves (a proved status carries its line).
fn dead_with_line(adj: &shinpan_adjudicator::Adjudication, d: Point, min_line: usize) -> &shinpan_adjudicator::Proof {
    let proof = adj.proofs.iter().find(|p| p.stones.contains(&d)).expect("a proof entry");
    assert_eq!(adj.status.get(d), Status::Dead, "{proof:?}");
    assert!(proof.line.len() >= min_line, "a proved status carries its line: {:?}", proof.line_text());
    proof
}

#[derive(Default)]
struct Tally {
    disputes: usize,
    decided: usize,
}

#[test]
fn every_marked_dead_chain_disputed_alone() {
    let dir = games_dir();
    let index = std::fs::read_to_string(dir.join("index.tsv")).expect("index.tsv");
    let mut lines = index.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("column {name}"));
    let (c_file, c_agree) = (col("file"), col("marks_agree_with_RE"));
    let (mut older, mut human, mut strict) = (Tally::default(), Tally::default(), Tally::default());
    let mut times: Vec<f64> = Vec::new();
    let mut slowest: Vec<(f64, String)> = Vec::new();
    let mut differ: Vec<String> = Vec::new();
    let mut drawn: Vec<String> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut records = 0;
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    // Undecided disputes by the empty points of the last region searched, in tens (50: 50 or more).
    let mut sizes: std::collections::BTreeMap<usize, usize> = Default::default();
    // Every record in a release build; every third in a debug build (the README's test
    // command), which searches several times slower. SHINPAN_DISPUTE_EVERY=n overrides.
    let default_every = if cfg!(debug_assertions) { 3 } else { 1 };
    let every: usize = std::env::var("SHINPAN_DISPUTE_EVERY").ok().and_then(|s| s.parse().ok()).unwrap_or(default_every);
    let budget: u64 = std::env::var("SHINPAN_DISPUTE_BUDGET").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_BUDGET);
    let mut decided_nodes: Vec<u64> = Vec::new();
    for (row, line) in lines.enumerate() {
        if row % every != 0 {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() <= c_agree {
            continue;
        }
        let path = dir.join(f[c_file]);
        let loaded = load(&path, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Some(marks) = &loaded.record.territory else { continue };
        if loaded.replayed.foul.is_some() {
            continue;
        }
        records += 1;
        let board = loaded.replayed.game.board();
        let heads = marked_dead_chains(board, marks);
        let tally = if f[c_file].contains("kgs2017__") { &mut human } else { &mut older };
        for &d in &heads {
            let others: Vec<Point> = heads.iter().copied().filter(|&h| h != d).collect();
            let t = Instant::now();
            let out = adjudicate_loaded(&loaded, Some(&others), &[d], None, budget);
            let elapsed = t.elapsed().as_secs_f64();
            times.push(elapsed);
            let adj = &out.adjudication;
            let found = adj.status.get(d);
            slowest.push((
                elapsed,
                format!(
                    "{} {d}: {found}, {} nodes in {} region searches, {} chains drawn in",
                    f[c_file],
                    adj.regions.iter().map(|r| r.nodes).sum::<u64>(),
                    adj.regions.len(),
                    adj.drawn_in.len()
                ),
            ));
            tally.disputes += 1;
            if f[c_agree] == "1" {
                strict.disputes += 1;
            }
            if found != Status::Undecided {
                tally.decided += 1;
                decided_nodes.push(adj.proofs.iter().find(|pr| pr.stones.contains(&d)).map_or(0, |pr| pr.nodes));
                if f[c_agree] == "1" {
                    strict.decided += 1;
                }
            } else {
                let pr = adj.proofs.iter().find(|pr| pr.stones.contains(&d));
                let region = adj.regions.iter().rev().find(|r| r.points.contains(&d));
                let empty = region.map_or(0, |r| r.points.iter().filter(|&&q| board.get(q).is_none()).count());
                *sizes.entry(empty.min(50) / 10 * 10).or_default() += 1;
                if std::env::var_os("SHINPAN_DISPUTE_VERBOSE").is_some() {
                    let stones = board.chain(d).len();
                    eprintln!(
                        "undecided: {} {d}: {:?}; region of {empty} empty points, chain of {stones} stones, {} chains drawn in",
                        f[c_file],
                        pr.and_then(|pr| pr.undecided),
                        adj.drawn_in.len()
                    );
                }
                match pr.and_then(|pr| pr.undecided) {
                    None => failures.push(format!("{}: disputed {d} undecided without a reason", f[c_file])),
                    Some(shinpan_adjudicator::Undecided::RegionTooLarge { empty, .. }) => {
                        *reasons.entry(format!("region of {:>3}+ empty points", empty / 20 * 20)).or_default() += 1
                    }
                    // The kind of reason, without its figures.
                    Some(u) => {
                        *reasons.entry(format!("{u:?}").split([' ', '{', '(']).next().unwrap_or_default().to_string()).or_default() += 1
                    }
                }
            }
            if found != Status::Undecided && found != Status::Dead {
                match adj.refuted_agreements.iter().find(|r| r.stones.contains(&d)) {
                    Some(r) => differ.push(format!(
                        "{}: {d} marked dead, found {found}: {}",
                        f[c_file],
                        r.line.iter().map(|(c, m)| format!("{} {m}", c.letter())).collect::<Vec<_>>().join(" ")
                    )),
                    None => failures.push(format!("{}: {d} found {found} against the marks, not reported as refuted", f[c_file])),
                }
            }
            for di in &adj.drawn_in {
                drawn.push(format!("{}: {d} drew in {} ({}): {}", f[c_file], di.stones[0], di.agreed, di.reason));
            }
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |x: f64| times.get(((times.len() as f64 - 1.0) * x).round() as usize).copied().unwrap_or(0.0) * 1e3;
    let all = older.disputes + human.disputes;
    let decided = older.decided + human.decided;
    eprintln!(
        "marked records {records}: disputes decided {decided} of {all} ({:.1}%); older records {} of {}, kgs2017 human games {} of {}; \
         records whose marks reproduce RE {} of {}; budget {budget} nodes per dispute; time per dispute p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        100.0 * decided as f64 / all.max(1) as f64,
        older.decided,
        older.disputes,
        human.decided,
        human.disputes,
        strict.decided,
        strict.disputes,
        q(0.5),
        q(0.95),
        q(1.0),
    );
    decided_nodes.sort_unstable();
    let nq = |x: f64| decided_nodes.get(((decided_nodes.len() as f64 - 1.0) * x).round() as usize).copied().unwrap_or(0);
    eprintln!("nodes of the decided disputes: p50 {}, p95 {}, p99 {}, max {}", nq(0.5), nq(0.95), nq(0.99), nq(1.0));
    eprintln!("undecided by reason: {reasons:?}");
    eprintln!(
        "undecided by empty points of the region searched: {}",
        sizes
            .iter()
            .map(|(k, v)| if *k == 50 { format!("50+: {v}") } else { format!("{k}-{}: {v}", k + 9) })
            .collect::<Vec<_>>()
            .join(", ")
    );
    slowest.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
    eprintln!("slowest disputes:");
    for (t, what) in slowest.iter().take(12) {
        eprintln!("  {:.2} s {what}", t);
    }
    eprintln!("decisions that differ from the marks ({}):", differ.len());
    for d in &differ {
        eprintln!("  {d}");
    }
    eprintln!("chains drawn into disputes ({}):", drawn.len());
    for d in drawn.iter().take(40) {
        eprintln!("  {d}");
    }
    assert!(records > 0 && all > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(strict.decided * 100 >= strict.disputes * 55, "only {} of {} disputes decided", strict.decided, strict.disputes);
}

/// Each end has its own quick-proof allowance: a stone thrown into the eye of a group whose
/// walls are drawn into the dispute (`sg` of this record: *dead* by a short forced line,
/// *alive* without a short proof) is decided by the quick proofs at the default budget, in
/// under 60,000 nodes: with one allowance shared by both ends, the first end's failed
/// attempt would leave the second none and the proof would wait for the avoidance searches
/// to run out.
#[test]
fn a_short_dead_proof_is_found_whatever_the_other_end_costs() {
    let loaded = record("19/kgs2017__kgs-19-2017-02-new__2017-02-13-3.sgf");
    let board = loaded.replayed.game.board();
    let others: Vec<Point> = ["bp", "cq", "cr", "hl", "ig", "ik", "il", "jl", "kl", "nc", "ra"].iter().map(|&s| pt(s)).collect();
    let d = pt("sg");
    assert_eq!(board.get(d), Some(goban::Color::Black));
    let out = adjudicate_loaded(&loaded, Some(&others), &[d], None, DEFAULT_BUDGET);
    let adj = &out.adjudication;
    let proof = dead_with_line(adj, d, 1);
    assert!(proof.nodes < 60_000, "{} nodes", proof.nodes);
    assert!(adj.drawn_in.iter().any(|di| di.color == goban::Color::White), "the walls around the eye are drawn in");
}

/// An invader's *dead* gets most of the default budget before the avoidance searches: the
/// white stone at nc in this record, inside Black's upper side, is proved dead with the marks
/// as the agreement, by a line of about a dozen moves that the deepening needs far more than
/// its quick allowance (20,000 nodes) to find.
#[test]
fn an_invader_gets_most_of_the_budget_for_its_dead_proof() {
    let out = dispute_marked("19/kgs2017__kgs-19-2017-02-new__2017-02-13-3.sgf", "nc", goban::Color::White);
    let (adj, d) = (&out.adjudication, pt("nc"));
    let proof = dead_with_line(adj, d, 8);
    assert!(proof.nodes > 40_000, "beyond both quick allowances: {} nodes", proof.nodes);
}

/// The killer's narrow deepening comes first: White's single stone at `do` in this record,
/// thrown into Black's left side (a region of about 40 points), is proved dead with the marks
/// as the agreement by a line of a dozen moves (Black pushes White along the edge and
/// captures) that the full deepening does not reach within the default budget. The narrow
/// one, where Black tries only its first seven moves at each of its states, reaches it in
/// under 100,000 nodes.
#[test]
fn an_invader_of_a_wide_region_is_proved_dead_by_the_narrow_deepening() {
    let out = dispute_marked("19/kgs2017__kgs-19-2017-05-new__2017-05-10-12.sgf", "do", goban::Color::White);
    let (adj, d) = (&out.adjudication, pt("do"));
    let proof = dead_with_line(adj, d, 8);
    assert!(proof.nodes < 100_000, "{} nodes", proof.nodes);
}

/// An invasion in a region of 30 empty points is tried first in its walled region (the 24
/// empty points nearest it, the rest standing for White stones that never change) and
/// proved dead there; the region's own search is not needed.
#[test]
fn a_disputed_invasion_is_proved_dead_in_its_walled_region() {
    let rel = "19/gnugo__kgs__melonhead1-GNU.sgf";
    let out = dispute_marked(rel, "mo", goban::Color::White);
    let (adj, d) = (&out.adjudication, pt("mo"));
    dead_with_line(adj, d, 1);
    let loaded = record(rel);
    let board = loaded.replayed.game.board();
    let sizes: Vec<usize> = adj.regions.iter().map(|r| r.points.iter().filter(|&&q| board.get(q).is_none()).count()).collect();
    assert_eq!(sizes, [24], "the walled region alone is searched");
}

/// The narrow deepening keeps the killer's moves next to the disputed chain, whatever their
/// rank in the learnt order: Black's `qp`-`qq` in this record, in White's lower right corner,
/// is proved dead with the marks as the agreement by a line of about fifteen moves in the
/// corner. Among the killer's first seven moves alone, the proof is not found within the
/// default budget.
#[test]
fn the_narrow_deepening_keeps_the_moves_next_to_the_disputed_chain() {
    let out = dispute_marked("19/kgs2017__kgs-19-2017-05-new__2017-05-13-7.sgf", "qp", goban::Color::Black);
    let (adj, d) = (&out.adjudication, pt("qp"));
    dead_with_line(adj, d, 8);
}

/// A wider region draws in only the walls an answer could lean on: disputing Black's `rd`
/// in this record (the other marked stones agreed dead), a *dead* answer in the first region
/// could lean on a White wall racing Black's agreed-alive `nd` chain, which races White's
/// own walls in turn. The transitive closure of those races spans the top of the board and
/// is not decided within the default budget; the region with only that White wall drawn in
/// (a dead Black chain can lean only on White walls staying) decides `rd` dead with a line,
/// and Black's `nd` stays a wall.
#[test]
fn a_wider_region_draws_in_only_the_walls_an_answer_leans_on() {
    let loaded = record("19/gnugo__kgs__20050408-janine-GNU.sgf");
    let board = loaded.replayed.game.board();
    let others: Vec<Point> = ["cm", "om", "pi", "qc", "qh", "qi"].iter().map(|&s| pt(s)).collect();
    let (d, nd, ne) = (pt("rd"), pt("nd"), pt("ne"));
    assert_eq!(
        (board.get(d), board.get(nd), board.get(ne)),
        (Some(goban::Color::Black), Some(goban::Color::Black), Some(goban::Color::White))
    );
    let out = adjudicate_loaded(&loaded, Some(&others), &[d], None, DEFAULT_BUDGET);
    let adj = &out.adjudication;
    dead_with_line(adj, d, 1);
    let wall = adj.drawn_in.iter().find(|di| di.stones.contains(&ne)).expect("the White wall racing nd drawn in");
    assert!(
        matches!(wall.reason, shinpan_adjudicator::DrawReason::LeanedOn { with } if board.chain(with).contains(&nd)),
        "{:?}",
        wall.reason
    );
    assert!(wall.reason.to_string().contains("could rest on it never being captured"), "{}", wall.reason);
    assert!(adj.drawn_in.iter().all(|di| !di.stones.contains(&nd)), "nd stays a wall: {:?}", adj.drawn_in);
}

/// A region widened for a *dead* answer tries *dead* first: disputing Black's single stone at
/// `qq` in this record (the other marked stones agreed dead), a proof of *dead* in its first
/// region could lean on White walls racing Black chains all along the lower edge, so the
/// dispute widens at once (without searching that region) into a region that Black's
/// agreed-alive stones bound for the most part. By the region's shape alone the stone would
/// be tried for *alive* first, and the avoidance searches and the proof of *alive* would
/// spend most of the budget before the proof of *dead* (about 400,000 nodes); tried for
/// *dead* first, it is proved with fewer (about 250,000, most of them in the narrow deepening).
#[test]
fn a_region_widened_for_a_dead_answer_tries_dead_first() {
    let out = dispute_marked("19/kgs2017__kgs-19-2017-01-new__2017-01-02-27.sgf", "qq", goban::Color::Black);
    let (adj, d) = (&out.adjudication, pt("qq"));
    let proof = dead_with_line(adj, d, 1);
    assert!(
        adj.drawn_in.iter().any(|di| matches!(di.reason, shinpan_adjudicator::DrawReason::LeanedOn { .. })),
        "the dispute widened: {:?}",
        adj.drawn_in
    );
    assert!(proof.nodes < 300_000, "{} nodes", proof.nodes);
}

/// The links rule ends the lines of the search with up to eight points paired through lent
/// ones: White's single stone at ne in this record, inside Black's centre territory of some
/// fifty points with other White stones agreed dead, is proved dead by a line of about ten
/// moves after which Black's stones have made the area thin enough to pair. With four lent
/// points at most the rule waits for a thinner area, and the search does not reach it within
/// the default budget.
#[test]
fn a_wide_territory_is_filled_through_lent_links_at_the_ends_of_the_search() {
    let out = dispute_marked("19/kgs2017__kgs-19-2017-01-new__2017-01-08-17.sgf", "ne", goban::Color::White);
    let (adj, d) = (&out.adjudication, pt("ne"));
    let proof = dead_with_line(adj, d, 1);
    assert!(proof.nodes < 300_000, "{} nodes", proof.nodes);
}

/// A dispute whose *dead* answer would lean on walls of the other colour is searched in the
/// wider region at once: disputing White's `mo` in this record (the other marked stones
/// agreed dead), a proof of *dead* in the region with only its race partners drawn in would
/// lean on Black walls racing chains of the dispute. The dispute is searched once, in the
/// region with those walls drawn in too (reported as it is searched), where `mo` is proved
/// dead within the budget; searching the narrower region first takes about 390,000 nodes of
/// the dispute's budget, and what is left does not decide the wider one.
#[test]
fn a_dispute_whose_dead_answer_would_widen_is_searched_wide_at_once() {
    let loaded = record("19/kgs2017__kgs-19-2017-02-new__2017-02-04-7.sgf");
    let board = loaded.replayed.game.board();
    let d = pt("mo");
    let id = board.chain_id(d).expect("a stone at mo");
    let others = other_marked_dead(&loaded, d);
    let opts = shinpan_adjudicator::Options {
        budget_nodes: DEFAULT_BUDGET,
        agreed: Some(goban::StatusMap::with_dead(board, &others)),
        dispute: vec![d],
        ko_pending: loaded.replayed.game.ko_point(),
        to_move: loaded.replayed.game.to_move(),
        ..shinpan_adjudicator::Options::default()
    };
    let mut searched: Vec<u64> = Vec::new();
    let adj = shinpan_adjudicator::adjudicate_with_progress(board, loaded.rules, &opts, &mut |r| {
        if r.chains.iter().any(|&c| board.chain_id(c) == Some(id)) {
            searched.push(r.nodes);
        }
    });
    assert_eq!(searched.len(), 1, "one search: {searched:?}");
    dead_with_line(&adj, d, 1);
    assert!(
        adj.drawn_in
            .iter()
            .any(|di| di.color == goban::Color::Black && matches!(di.reason, shinpan_adjudicator::DrawReason::LeanedOn { .. })),
        "Black walls drawn in for the answer to lean on nothing: {:?}",
        adj.drawn_in
    );
}
