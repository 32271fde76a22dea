//! `shinpan propose` over the real games of `shared/games/` (env `SHINPAN_GAMES` overrides):
//! how often the proposal's count equals `RE`, per set — the older records (every file
//! but `19/kgs2017__*`), the 100 human `19/kgs2017__*` games, and the games whose players'
//! `TB`/`TW` marks reproduce `RE` (`marks_agree_with_RE` = 1) — next to GNU Go's own
//! `final_score` (column `gnugo_final_score`), with every record that differs listed with
//! its reason, and the time per 19x19 proposal. On the marked games it also counts how often
//! the proposal's count equals the count of the players' own marks here (第八条, 第十条):
//! where a server's count differs from 第八条's territory, `RE` follows the server. Every
//! estimated status that contradicts the marks is disputed as a referee would, with the rest
//! of the proposal as the agreement (`adjudicate --agreed-dead … --dispute …`), and printed
//! with the answer and its line.
//!
//! Asserted: no *proved* status contradicts the players' marks on the games whose marks
//! reproduce `RE` — except a chain proved dead without search (every liberty inside the
//! opponent's pass-alive area: dead under any rule set), which is printed as the players'
//! marking slip, and a proof that the chain disputed with the marks as the players'
//! agreement (第九条 with 第七条) confirms (the marks refuted, 第十条2), printed with its
//! line —, every chain has a basis, and the counts are printed. Skipped, saying so,
//! when GNU Go is absent (`apt-get install gnugo`; `.ci/run` installs it).
//!
//! By default every 4th record of the index runs (about a minute in a debug build); env
//! `SHINPAN_PROPOSE_ALL=1` runs all 253 (several minutes). Env `SHINPAN_PROPOSE_LEVEL` sets
//! GNU Go's `--level` (comma-separated: a vote), `SHINPAN_PROPOSE_BUDGET` the nodes per region (default: the CLI's).

use goban::{GameResult, Point, Status};
use shinpan::adjudicate::adjudicate_loaded;
use shinpan::estimate::{gnugo_levels, GnuGo, DEFAULT_LEVELS, DEFAULT_TIMEOUT};
use shinpan::proposal::Basis;
use shinpan::propose::propose_loaded;
use shinpan::replay::load;
use shinpan::score::status_from_marks;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn games_dir() -> PathBuf {
    match std::env::var_os("SHINPAN_GAMES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games"),
    }
}

fn env_num<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

fn quantiles(mut t: Vec<f64>) -> String {
    if t.is_empty() {
        return "none".into();
    }
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |f: f64| t[((t.len() - 1) as f64 * f).round() as usize];
    format!("p50 {:.2} s, p95 {:.2} s, max {:.2} s", q(0.5), q(0.95), t[t.len() - 1])
}

/// Matches and totals of one set: (proposal = RE, GNU Go final_score = RE, records).
#[derive(Default)]
struct Tally {
    proposal: usize,
    gnugo: usize,
    total: usize,
}

#[test]
fn proposals_on_real_games() {
    let probe = GnuGo::default();
    if !probe.provision() {
        eprintln!("SKIPPED: GNU Go not found ({}; apt-get install gnugo, or env GNUGO)", probe.program.display());
        return;
    }
    let levels: Vec<u8> = match std::env::var("SHINPAN_PROPOSE_LEVEL") {
        Ok(s) => s.split(',').map(|l| l.trim().parse().expect("SHINPAN_PROPOSE_LEVEL: levels 0-10, comma-separated")).collect(),
        Err(_) => DEFAULT_LEVELS.to_vec(),
    };
    let gnugo = gnugo_levels(&probe.program, &levels, DEFAULT_TIMEOUT);
    let budget = env_num("SHINPAN_PROPOSE_BUDGET").unwrap_or(shinpan::app::DEFAULT_BUDGET);
    let all = std::env::var_os("SHINPAN_PROPOSE_ALL").is_some();
    let dir = games_dir();
    let index = std::fs::read_to_string(dir.join("index.tsv")).expect("index.tsv");
    let mut lines = index.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("column {name}"));
    let (c_file, c_re, c_agree, c_gnugo) = (col("file"), col("RE"), col("marks_agree_with_RE"), col("gnugo_final_score"));
    let (mut older, mut human, mut marked) = (Tally::default(), Tally::default(), Tally::default());
    let (mut chains, mut proved, mut estimated, mut undecided, mut overruled) = (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut estimator_errors: Vec<String> = Vec::new();
    let mut differ: Vec<String> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut slips: Vec<String> = Vec::new();
    let mut refutations: Vec<String> = Vec::new();
    // Estimates against the marks, disputed: (the dispute decided as estimated, undecided).
    let mut checked: Vec<(bool, bool)> = Vec::new();
    // The players' own marks counted by goban::score: the most a proposal can reach there.
    let mut marks_count_re = 0usize;
    // The proposal against the same count of the players' marks (their agreement, 第九条,
    // counted by 第八条 and 第十条): how often it proposes what they agreed, whatever the
    // server's own count made of it.
    let mut proposal_is_marks = 0usize;
    let mut times: Vec<f64> = Vec::new();
    for (i, line) in lines.enumerate() {
        if !all && i % 4 != 0 {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() <= c_gnugo.max(c_agree) {
            continue;
        }
        let path = dir.join(f[c_file]);
        let loaded = load(&path, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(loaded.replayed.foul.is_none(), "{}: foul", f[c_file]);
        let re = GameResult::from_sgf(f[c_re]);
        let t = Instant::now();
        let (p, _) = propose_loaded(&loaded, None, budget, Some(gnugo.as_ref()));
        if loaded.record.width == 19 {
            times.push(t.elapsed().as_secs_f64());
        }
        let ours = Some(p.score.result);
        let gnugo_ok = GameResult::from_sgf(f[c_gnugo]) == re;
        let strict = f[c_agree] == "1";
        let sets: Vec<&mut Tally> = {
            let mut v = vec![if f[c_file].starts_with("19/kgs2017__") { &mut human } else { &mut older }];
            if strict {
                v.push(&mut marked);
            }
            v
        };
        for s in sets {
            s.total += 1;
            s.proposal += usize::from(ours == re);
            s.gnugo += usize::from(gnugo_ok);
        }
        if strict {
            let marks_result = GameResult::from_sgf(&shinpan::score::count(&loaded, None, None).result);
            marks_count_re += usize::from(marks_result == re);
            proposal_is_marks += usize::from(ours == marks_result);
        }
        let board = loaded.replayed.game.board();
        for c in &p.chains {
            chains += 1;
            match c.basis {
                Basis::Proved => proved += 1,
                Basis::Estimated => estimated += 1,
                Basis::Undecided => undecided += 1,
            }
            overruled += usize::from(c.estimate_overruled.is_some());
            assert!(!c.stones.is_empty() && (c.basis == Basis::Undecided) == (c.status == Status::Undecided), "{}: {c:?}", f[c_file]);
        }
        if let Some(e) = p.estimator.as_ref().and_then(|e| e.error.clone()) {
            estimator_errors.push(format!("{}: {e}", f[c_file]));
        }
        // Against the players' marks: proved statuses must agree (asserted); estimated ones
        // are listed as the reason of a difference.
        let mut reasons: Vec<String> = Vec::new();
        if let Some(marks) = &loaded.record.territory {
            let m = status_from_marks(board, marks);
            for c in &p.chains {
                if c.status == Status::Undecided || (c.status == Status::Dead) == (m.get(c.stones[0]) == Status::Dead) {
                    continue;
                }
                let text = format!(
                    "{} {} {} {} ({} stones) where the marks say {}",
                    c.color.name(),
                    c.stones[0],
                    c.basis.name(),
                    c.status,
                    c.stones.len(),
                    if m.get(c.stones[0]) == Status::Dead { "dead" } else { "alive" }
                );
                // Dead without search and without a line: its liberties lie in the opponent's
                // pass-alive area (adjudicator crate docs), dead under any rule set; marks that
                // leave it alive (and its liberty as dame) are a marking slip, listed not failed.
                let dead_at_start = c.status == Status::Dead && c.line.is_empty() && c.nodes == 0;
                // Any other proof against the marks must hold as a referee would find it: the
                // chain disputed with the marks as the players' agreement (第九条 with 第七条)
                // gets the same status — the marks refuted (grounds for an objection under
                // 第十条2), listed with the line.
                let refuted = c.basis == Basis::Proved && !dead_at_start && {
                    let dead: Vec<Point> =
                        board.points().filter(|&q| board.get(q).is_some() && m.get(q) == Status::Dead && !c.stones.contains(&q)).collect();
                    let out = adjudicate_loaded(&loaded, Some(&dead), &[c.stones[0]], None, budget);
                    out.adjudication.status.get(c.stones[0]) == c.status
                };
                if strict && c.basis == Basis::Proved && !dead_at_start && !refuted {
                    failures.push(format!("{}: {text}", f[c_file]));
                }
                if dead_at_start {
                    slips.push(format!("{}: {text}", f[c_file]));
                }
                if refuted {
                    refutations.push(format!("{}: {text} ({})", f[c_file], c.line.join(" ")));
                }
                // An estimate against the marks, checked as a referee would: the chain disputed
                // with the rest of the proposal as the agreement (第九条 with 第七条).
                let text = if c.basis == Basis::Estimated {
                    let others: Vec<Point> =
                        board.points().filter(|&q| p.status.get(q) == Status::Dead && !c.stones.contains(&q)).collect();
                    let out = adjudicate_loaded(&loaded, Some(&others), &[c.stones[0]], None, budget);
                    let proof = out.adjudication.proofs.iter().find(|pr| pr.stones.contains(&c.stones[0]));
                    let status = out.adjudication.status.get(c.stones[0]);
                    checked.push((status == c.status, status == Status::Undecided));
                    // And with the players' own marks as the agreement.
                    let marked: Vec<Point> =
                        board.points().filter(|&q| board.get(q).is_some() && m.get(q) == Status::Dead && !c.stones.contains(&q)).collect();
                    let with_marks =
                        adjudicate_loaded(&loaded, Some(&marked), &[c.stones[0]], None, budget).adjudication.status.get(c.stones[0]);
                    format!(
                        "{text}; disputed with the rest of the proposal as the agreement: {status}{}; with the marks as the agreement: {with_marks}",
                        proof.map(|pr| pr.line_text().join(" ")).filter(|l| !l.is_empty()).map(|l| format!(" ({l})")).unwrap_or_default()
                    )
                } else {
                    text
                };
                reasons.push(text);
            }
        }
        if ours != re {
            if let Some(e) = p.estimator.as_ref().and_then(|e| e.error.as_ref()) {
                reasons.push(format!("estimator failed: {e}"));
            }
            if reasons.is_empty() {
                match &loaded.record.territory {
                    // Same statuses as the marks: the count itself differs from the server's.
                    Some(marks) => {
                        let mut extra = Vec::new();
                        for (k, name) in [(0, "Black"), (1, "White")] {
                            let marked = if k == 0 { &marks.black } else { &marks.white };
                            for q in p.score.territory[k].iter().filter(|q| !marked.contains(q)) {
                                extra.push(format!("{q} {name}'s territory here, not marked"));
                            }
                            for q in marked.iter().filter(|q| board.get(**q).is_none() && !p.score.territory[k].contains(q)) {
                                extra.push(format!("{q} marked {name}'s, not territory here"));
                            }
                        }
                        reasons.push(format!("statuses as the marks; the count differs: {}", extra.join(", ")));
                    }
                    None => reasons.push(format!(
                        "no marks to compare; score B {} W {}, dame {}",
                        p.score.score[0],
                        p.score.score[1],
                        p.score.dame.len()
                    )),
                }
            }
            differ.push(format!(
                "{}: proposal {} (proved only {}) RE {} GNU Go {}: {}",
                f[c_file],
                p.score.result.to_sgf(),
                p.proved_score.result.to_sgf(),
                f[c_re],
                f[c_gnugo],
                reasons.join("; ")
            ));
        }
    }
    let pct = |t: &Tally| if t.total == 0 { 0.0 } else { 100.0 * t.proposal as f64 / t.total as f64 };
    eprintln!(
        "proposal ({}, GNU Go --level {:?}, budget {budget}) = RE: older {}/{} (GNU Go final_score {}), human kgs2017 {}/{} (GNU Go {}), \
         marked {}/{} = {:.1}% (GNU Go {}; the players' own marks counted here: {}); \
         marked games whose proposal counts as the players' marks counted here: {}/{}",
        if all { "all records" } else { "every 4th record; SHINPAN_PROPOSE_ALL=1 for all" },
        levels,
        older.proposal,
        older.total,
        older.gnugo,
        human.proposal,
        human.total,
        human.gnugo,
        marked.proposal,
        marked.total,
        pct(&marked),
        marked.gnugo,
        marks_count_re,
        proposal_is_marks,
        marked.total
    );
    eprintln!(
        "chains {chains}: proved {proved}, estimated {estimated}, undecided {undecided}; estimates overruled by a proof {overruled}; \
         estimator failures {}; 19x19 proposal time {}",
        estimator_errors.len(),
        quantiles(times)
    );
    for e in &estimator_errors {
        eprintln!("  estimator: {e}");
    }
    eprintln!("chains proved dead inside the opponent's pass-alive area that the players' marks leave alive (their slip):");
    for e in &slips {
        eprintln!("  {e}");
    }
    eprintln!("other proofs against the players' marks, each confirmed by the chain disputed with the marks as the agreement (第十条2):");
    for e in &refutations {
        eprintln!("  {e}");
    }
    eprintln!(
        "estimated statuses against the players' marks: {}; disputed with the rest of the proposal as the agreement, \
         decided as estimated {}, undecided {}, decided as the marks {}",
        checked.len(),
        checked.iter().filter(|c| c.0).count(),
        checked.iter().filter(|c| c.1).count(),
        checked.iter().filter(|c| !c.0 && !c.1).count()
    );
    eprintln!("records whose proposal is not RE, with the reason:");
    for d in &differ {
        eprintln!("  {d}");
    }
    assert!(older.total + human.total > 0, "records found");
    assert_eq!(chains, proved + estimated + undecided, "every chain has a basis");
    assert!(failures.is_empty(), "proved statuses against the players' marks:\n{}", failures.join("\n"));
}
