//! Proof on real input: every record of `../shared/games` (override with env
//! `SHINPAN_GAMES`) replays under `japanese-2011` without a foul, and after every move the
//! board equals the one an independent implementation (Python's sgfmill, via
//! `tests/sgfmill_check.py`) computes.

use goban::{Board, Move, Point, RuleSet};
use shinpan_sgf::Record;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn games_dir() -> PathBuf {
    match std::env::var_os("SHINPAN_GAMES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games"),
    }
}

/// Every `*.sgf` directly under the games directory's subdirectories (9/, 13/, 19/...), sorted.
fn records() -> Vec<PathBuf> {
    let dir = games_dir();
    let mut out = Vec::new();
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("games directory {} unreadable ({e}); set SHINPAN_GAMES", dir.display()));
    for sub in entries.flatten() {
        let p = sub.path();
        if p.is_dir() {
            for f in std::fs::read_dir(&p).unwrap().flatten() {
                let f = f.path();
                if f.extension().and_then(|x| x.to_str()) == Some("sgf") {
                    out.push(f);
                }
            }
        } else if p.extension().and_then(|x| x.to_str()) == Some("sgf") {
            out.push(p);
        }
    }
    out.sort();
    assert!(!out.is_empty(), "no .sgf records under {}", dir.display());
    // The index lists every record: none may be silently missing.
    if let Ok(index) = std::fs::read_to_string(dir.join("index.tsv")) {
        let listed = index.lines().skip(1).filter(|l| !l.trim().is_empty()).count();
        assert_eq!(out.len(), listed, "records on disk vs rows of index.tsv");
    }
    out
}

fn board_text(b: &Board) -> String {
    let mut s = String::with_capacity(b.width() as usize * b.height() as usize);
    for y in 0..b.height() {
        for x in 0..b.width() {
            s.push(match b.get(Point::new(x, y)) {
                Some(goban::Color::Black) => 'X',
                Some(goban::Color::White) => 'O',
                None => '.',
            });
        }
    }
    s
}

#[test]
fn every_real_record_replays_under_japanese_2011() {
    let files = records();
    let mut fouls = Vec::new();
    let mut total_moves = 0usize;
    for path in &files {
        let record = Record::read_file(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let replayed = record.to_game(RuleSet::Japanese2011).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match &replayed.foul {
            Some(f) => fouls.push(format!(
                "{}: move {} {} at {}: {} ({})",
                path.display(),
                f.move_number,
                f.color,
                f.mv,
                f.rule.code(),
                f.rule.article()
            )),
            None => {
                // Every stone of the record was played (passes after the end may be skipped).
                let stones = |it: &mut dyn Iterator<Item = Move>| it.filter(|m| *m != Move::Pass).count();
                let recorded = stones(&mut record.moves.iter().map(|m| m.mv));
                let played = stones(&mut replayed.game.history().iter().map(|&(_, m)| m));
                assert_eq!(played, recorded, "{}: stones played", path.display());
                assert!(replayed.game.move_number() as usize <= record.moves.len());
                total_moves += replayed.game.move_number() as usize;
            }
        }
    }
    assert!(fouls.is_empty(), "records rejected under japanese-2011:\n{}", fouls.join("\n"));
    assert!(total_moves > 10_000, "the corpus was replayed ({total_moves} moves)");
}

/// What sgfmill printed for one record.
#[derive(Default)]
struct Theirs {
    setup: String,
    boards: Vec<(usize, String, String)>,     // (index, point, board)
    illegal: Option<(usize, String, String)>, // (index, point, reason)
    unreadable: Option<String>,
}

/// Installs sgfmill with pip when `python` lacks it, saying so (a bare machine needs nothing
/// installed by hand to run the tests); `SHINPAN_NO_INSTALL` refuses.
fn provision_sgfmill(python: &str) {
    let has = |py: &str| Command::new(py).args(["-c", "import sgfmill"]).output().is_ok_and(|o| o.status.success());
    if has(python) || std::env::var_os("SHINPAN_NO_INSTALL").is_some() {
        return;
    }
    eprintln!("sgfmill is missing: installing it with `{python} -m pip install sgfmill` (SHINPAN_NO_INSTALL=1 refuses) …");
    let ok = Command::new(python).args(["-m", "pip", "install", "--quiet", "sgfmill"]).status().is_ok_and(|s| s.success())
        || Command::new(python)
            .args(["-m", "pip", "install", "--quiet", "--break-system-packages", "sgfmill"])
            .status()
            .is_ok_and(|s| s.success());
    assert!(ok && has(python), "could not install sgfmill with pip: the cross-check needs it");
}

fn run_sgfmill(files: &[PathBuf]) -> HashMap<String, Theirs> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sgfmill_check.py");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    provision_sgfmill(&python);
    let out = Command::new(&python).arg(&script).args(files).output().unwrap_or_else(|e| {
        panic!(
            "cannot run `{python}` ({e}): the cross-check needs Python 3 with sgfmill \
             (`pip install sgfmill`; .ci/run installs it)"
        )
    });
    assert!(
        out.status.success(),
        "sgfmill cross-check script failed ({}): {}\nInstall it with `pip install sgfmill` (.ci/run does).",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("script prints ASCII");
    let mut map: HashMap<String, Theirs> = HashMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let mut parts = line.splitn(2, ' ');
        let tag = parts.next().unwrap();
        let rest = parts.next().unwrap_or("");
        match tag {
            "R" => {
                let (path, _size) = rest.rsplit_once(' ').unwrap();
                current = Some(path.to_string());
                map.insert(path.to_string(), Theirs::default());
            }
            "X" => {
                // "X <path> <message>": paths have no blanks here.
                let (path, msg) = rest.split_once(' ').unwrap_or((rest, ""));
                map.entry(path.to_string()).or_default().unreadable = Some(msg.to_string());
            }
            "S" => map.get_mut(current.as_ref().unwrap()).unwrap().setup = rest.to_string(),
            "M" => {
                let f: Vec<&str> = rest.split(' ').collect();
                map.get_mut(current.as_ref().unwrap()).unwrap().boards.push((f[0].parse().unwrap(), f[2].to_string(), f[3].to_string()));
            }
            "I" => {
                let f: Vec<&str> = rest.split(' ').collect();
                map.get_mut(current.as_ref().unwrap()).unwrap().illegal = Some((f[0].parse().unwrap(), f[2].to_string(), f[3].to_string()));
            }
            "E" => current = None,
            other => panic!("unexpected line from the sgfmill script: {other} {rest}"),
        }
    }
    map
}

#[test]
fn boards_agree_with_sgfmill_after_every_move() {
    let files = records();
    let theirs = run_sgfmill(&files);
    let mut compared = 0usize;
    let mut problems = Vec::new();
    for path in &files {
        let key = path.display().to_string();
        let t = theirs.get(&key).unwrap_or_else(|| panic!("sgfmill printed nothing for {key}"));
        if let Some(msg) = &t.unreadable {
            problems.push(format!("{key}: sgfmill cannot read it: {msg}"));
            continue;
        }
        let record = Record::read_file(path).unwrap();
        let initial = record.initial_game(RuleSet::Japanese2011).unwrap();
        if board_text(initial.board()) != t.setup {
            problems.push(format!("{key}: setup positions differ"));
            continue;
        }
        let mut ours: Vec<(usize, String, String)> = Vec::new();
        let replayed = record
            .replay_with(RuleSet::Japanese2011, |i, game| {
                let pt = match record.moves[i].mv {
                    Move::Play(p) => p.to_sgf(),
                    Move::Pass => "pass".to_string(),
                };
                ours.push((i, pt, board_text(game.board())));
            })
            .unwrap();
        // Move by move: same point, same board.
        let mut theirs_by_index: HashMap<usize, &(usize, String, String)> = HashMap::new();
        for b in &t.boards {
            theirs_by_index.insert(b.0, b);
        }
        for (i, pt, board) in &ours {
            match theirs_by_index.get(i) {
                Some((_, tpt, tboard)) => {
                    if tpt != pt {
                        problems.push(format!("{key}: move index {i}: we read {pt}, sgfmill {tpt}"));
                        break;
                    }
                    if tboard != board {
                        problems.push(format!("{key}: boards differ after move {} ({pt})", i + 1));
                        break;
                    }
                    compared += 1;
                }
                None => {
                    problems.push(format!("{key}: sgfmill has no position after move {}", i + 1));
                    break;
                }
            }
        }
        // Legality: the same first illegal move, or none on both sides.
        match (&replayed.foul, &t.illegal) {
            (None, None) => {
                let last_theirs = t.boards.last().map(|b| b.0);
                let last_ours = ours.last().map(|b| b.0);
                if last_theirs != last_ours && !record.moves[last_ours.map_or(0, |i| i + 1)..].iter().all(|m| m.mv == Move::Pass) {
                    problems.push(format!("{key}: sgfmill replayed to {last_theirs:?}, we to {last_ours:?}"));
                }
            }
            (Some(f), Some((i, pt, reason))) => {
                let ours_i = f.move_number as usize - 1;
                if ours_i != *i || f.rule.code() != reason || f.mv.to_string() != *pt {
                    problems.push(format!(
                        "{key}: we reject move {} ({}, {}), sgfmill move {} ({pt}, {reason})",
                        f.move_number,
                        f.mv,
                        f.rule.code(),
                        i + 1
                    ));
                }
            }
            (Some(f), None) => problems.push(format!(
                "{key}: we reject move {} ({} at {}, {}), sgfmill accepts it",
                f.move_number,
                f.color,
                f.mv,
                f.rule.code()
            )),
            (None, Some((i, pt, reason))) => problems.push(format!("{key}: sgfmill rejects move {} ({pt}: {reason}), we accept it", i + 1)),
        }
    }
    assert!(problems.is_empty(), "disagreements with sgfmill:\n{}", problems.join("\n"));
    assert!(compared > 10_000, "positions compared: {compared}");
}
