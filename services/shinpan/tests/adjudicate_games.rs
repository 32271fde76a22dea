//! `shinpan adjudicate` over every real game in `shared/games/` (env `SHINPAN_GAMES`
//! overrides): reports how many final positions reproduce `RE`, how many agree with the
//! players' `TB`/`TW` marks, how GNU Go's `final_score` (column `gnugo_final_score`)
//! compares, and how many stay undecided within the budget (env
//! `SHINPAN_ADJUDICATE_BUDGET`, default 20000 nodes per region).
//!
//! Agreement first (第九条) is exercised too: each marked game is adjudicated again with the
//! marks as the players' agreement; no agreement may be refuted on the games whose marks
//! reproduce `RE`, and the number of agreed counts equal to `RE` is printed.
//!
//! Every game whose result is not `RE` is listed with its cause: how many stones stayed
//! undecided and why (a region larger than the exhaustive search — with the largest such
//! region's size — or the budget), the points the count gives to neither side, and what the players' marks give when
//! taken as their agreement (第九条).
//!
//! Exactness is asserted: on the games whose marks reproduce `RE`, a *decided* result
//! must equal `RE`, and no decided chain may be dead where the marks keep it alive or the
//! other way round. Undecided is allowed (it is not a guess); the counts are printed.

use goban::{GameResult, Status};
use shinpan::adjudicate::adjudicate_loaded;
use shinpan::replay::load;
use shinpan::score::status_from_marks;
use shinpan_adjudicator::Undecided;
use std::path::{Path, PathBuf};

fn games_dir() -> PathBuf {
    match std::env::var_os("SHINPAN_GAMES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games"),
    }
}

#[test]
fn real_games_final_positions() {
    let dir = games_dir();
    let index = std::fs::read_to_string(dir.join("index.tsv")).expect("index.tsv");
    let budget: u64 = std::env::var("SHINPAN_ADJUDICATE_BUDGET").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let mut lines = index.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("column {name}"));
    let (c_file, c_re, c_agree, c_gnugo) = (col("file"), col("RE"), col("marks_agree_with_RE"), col("gnugo_final_score"));
    let (mut games, mut fouls, mut re_ok, mut undecided, mut gnugo_ok, mut marked, mut marks_ok) = (0, 0, 0, 0, 0, 0, 0);
    let (mut stones, mut stones_decided) = (0usize, 0usize);
    let mut undecided_by_reason = [0usize; 3];
    let (mut agreement_re, mut agreement_refuted) = (0usize, 0usize);
    let mut decided_wrong: Vec<String> = Vec::new();
    // Every game whose result is not RE, with its cause (the "listed with its cause").
    let mut mismatches: Vec<String> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut refutations: Vec<String> = Vec::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() <= c_gnugo.max(c_agree) {
            continue;
        }
        games += 1;
        let path = dir.join(f[c_file]);
        let loaded = load(&path, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if loaded.replayed.foul.is_some() {
            fouls += 1;
            continue;
        }
        let re = GameResult::from_sgf(f[c_re]);
        if GameResult::from_sgf(f[c_gnugo]) == re {
            gnugo_ok += 1;
        }
        let out = adjudicate_loaded(&loaded, None, &[], None, budget);
        let ours = GameResult::from_sgf(&out.report.result);
        let board = loaded.replayed.game.board();
        for p in board.points().filter(|&p| board.get(p).is_some()) {
            stones += 1;
            if out.adjudication.status.get(p) != Status::Undecided {
                stones_decided += 1;
            }
        }
        // Why the undecided stones are undecided (the reasons an arbiter sees).
        let mut game_reasons = [0usize; 3];
        let mut largest = 0usize;
        for pr in &out.adjudication.proofs {
            let k = match pr.undecided {
                Some(Undecided::RegionTooLarge { empty, .. }) => {
                    largest = largest.max(empty);
                    0
                }
                Some(Undecided::Budget { .. } | Undecided::Stopped { .. }) => 1,
                Some(Undecided::SekiDependsOnUndecided) => 2,
                None => continue,
            };
            undecided_by_reason[k] += pr.stones.len();
            game_reasons[k] += pr.stones.len();
        }
        let mut cause = if ours == Some(GameResult::Undecided) {
            assert!(game_reasons.iter().sum::<usize>() > 0, "{}: result ? without an undecided stone that says why", f[c_file]);
            format!(
                "undecided: {} stones in regions larger than the exhaustive search (largest {largest} empty points), {} out of \
                 budget, {} 1989 seki depending on undecided; {} points counted as neither's (dame, or next to undecided stones)",
                game_reasons[0],
                game_reasons[1],
                game_reasons[2],
                out.report.dame.len()
            )
        } else {
            format!("decided: {} dame", out.report.dame.len())
        };
        if ours == Some(GameResult::Undecided) {
            undecided += 1;
        } else if ours == re {
            re_ok += 1;
        } else {
            decided_wrong.push(format!("{}: shinpan {} RE {}", f[c_file], out.report.result, f[c_re]));
        }
        let strict = f[c_agree] == "1";
        if let Some(marks) = &loaded.record.territory {
            marked += 1;
            let m = status_from_marks(board, marks);
            let mut agree = true;
            for p in board.points().filter(|&p| board.get(p).is_some()) {
                let a = out.adjudication.status.get(p);
                if a == Status::Undecided {
                    agree = false;
                    continue;
                }
                if (a == Status::Dead) != (m.get(p) == Status::Dead) {
                    agree = false;
                    // A decided status is a proof; where it contradicts the players' marks
                    // the marks are refuted (第十条2: grounds for an objection) and listed
                    // with the proof, which must exist and say the same.
                    let proof = out.adjudication.proofs.iter().find(|pr| pr.stones.contains(&p));
                    match proof {
                        // Listed once per proof: at its first stone.
                        Some(pr) if pr.status == a && pr.stones[0] == p => {
                            refutations.push(format!(
                                "{}: {} marked {}, proved {a} ({})",
                                f[c_file],
                                pr.stones.iter().map(|q| q.to_sgf()).collect::<Vec<_>>().join(","),
                                m.get(p),
                                if pr.line.is_empty() { "from the start".to_string() } else { pr.line_text().join(" ") }
                            ));
                        }
                        Some(pr) if pr.status == a => {}
                        _ if strict => failures.push(format!("{}: {} is {a} but the marks say {}, with no proof", f[c_file], p, m.get(p))),
                        _ => {}
                    }
                }
            }
            if agree {
                marks_ok += 1;
            }
        }
        // Agreement first (第九条): the marks as the players' agreement, nothing disputed.
        // The engine must refute no agreement on the games whose marks reproduce RE, and the
        // agreed count must then be RE (up to the one-point protective-move cases of
        // `cli_score`).
        if let Some(marks) = &loaded.record.territory {
            let m = status_from_marks(board, marks);
            let dead: Vec<goban::Point> = board.points().filter(|&p| board.get(p).is_some() && m.get(p) == Status::Dead).collect();
            let agreed = adjudicate_loaded(&loaded, Some(&dead), &[], None, budget);
            let refuted = agreed.adjudication.refuted_agreements.len();
            agreement_refuted += refuted;
            cause.push_str(&format!(
                "; with the players' marks as agreement (第九条) {} ({})",
                agreed.report.result,
                if GameResult::from_sgf(&agreed.report.result) == re { "= RE" } else { "not RE" }
            ));
            if GameResult::from_sgf(&agreed.report.result) == re {
                agreement_re += 1;
            }
            // An agreement the engine refutes (第十条2: grounds for an objection) is listed with
            // its proof, not treated as a failure of the engine.
            for r in &agreed.adjudication.refuted_agreements {
                let proof = out.adjudication.proofs.iter().find(|pr| pr.stones == r.stones);
                assert!(proof.is_some_and(|pr| pr.status == r.found), "{}: refutation of {:?} without its proof", f[c_file], r.stones);
                refutations.push(format!(
                    "{}: {} agreed {}, proved {} ({})",
                    f[c_file],
                    r.stones.iter().map(|p| p.to_sgf()).collect::<Vec<_>>().join(","),
                    r.agreed,
                    r.found,
                    if r.line.is_empty() {
                        "in the opponent's unconditional area from the start".to_string()
                    } else {
                        r.line.iter().map(|(c, m)| format!("{} {m}", c.letter())).collect::<Vec<_>>().join(" ")
                    }
                ));
            }
        }
        if ours != re {
            mismatches.push(format!("{}: shinpan {} RE {}: {cause}", f[c_file], out.report.result, f[c_re]));
        }
        if strict && ours != Some(GameResult::Undecided) && ours != re {
            failures.push(format!("{}: decided {} but marks and RE say {}", f[c_file], out.report.result, f[c_re]));
        }
    }
    eprintln!(
        "games {games} (fouls {fouls}): shinpan reproduces RE in {re_ok}, undecided {undecided}, decided but different {}; \
         GNU Go final_score reproduces RE in {gnugo_ok}; marked games {marked}, shinpan agrees with the marks in {marks_ok} \
         (budget {budget} nodes per region); stones decided {stones_decided} of {stones}; \
         with the marks as agreement (第九条): result = RE in {agreement_re} of {marked}, agreed statuses refuted {agreement_refuted}; \
         undecided stones with a proof entry by reason: region larger than the exhaustive search {}, budget {}, 1989 seki depending on undecided {}",
        decided_wrong.len(),
        undecided_by_reason[0],
        undecided_by_reason[1],
        undecided_by_reason[2],
    );
    for d in &decided_wrong {
        eprintln!("  {d}");
    }
    eprintln!("agreements refuted with their proofs ({}):", refutations.len());
    for r in &refutations {
        eprintln!("  {r}");
    }
    eprintln!("games whose result is not RE, with the cause:");
    for m in &mismatches {
        eprintln!("  {m}");
    }
    assert_eq!(mismatches.len(), games - fouls - re_ok, "every game not reproducing RE is listed");
    assert!(games > 0);
    assert_eq!(undecided_by_reason.iter().sum::<usize>(), stones - stones_decided, "every undecided stone says why");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
