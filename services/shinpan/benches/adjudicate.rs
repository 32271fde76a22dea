//! Adjudication time per final position: every 19x19 record of `shared/games/` (env
//! `SHINPAN_GAMES`) is replayed once, then each final position is adjudicated and timed;
//! p50/p95/max per position, the number with undecided stones and the share of the stones
//! decided are printed (budget: env `SHINPAN_BENCH_BUDGET` nodes per region, default 20000). In
//! the same run GNU Go's `final_score` (GTP, `loadsgf` then `final_score`; env `GNUGO`, default
//! `/usr/games/gnugo`; skipped if absent) is timed on the same records, process start included,
//! and its scores equal to `RE` are counted. Then `shinpan propose` ([`shinpan::propose`]: the
//! adjudication at the command line's budget next to GNU Go's `final_status_list` at `--level`
//! env `SHINPAN_PROPOSE_LEVEL`, comma-separated, default the CLI's) is timed on the same
//! records: p50/p95/max per 19x19 game, and how many proposals equal `RE`. On the records with
//! the players' dead-stone marks, each marked-dead chain is disputed alone with the other marks
//! as the agreement (`shinpan adjudicate --agreed-dead … --dispute …`, the command line's
//! budget): how many are decided, and p50/p95/max per dispute. Each kakunin example (env
//! `SHINPAN_KAKUNIN`) is then adjudicated once at the command line's and the service's
//! default budget (500,000 nodes per region), its nodes, undecided chains and time printed,
//! and measured by Criterion.

use criterion::{criterion_group, criterion_main, Criterion};
use goban::{Board, Color, Point, RuleSet};
use shinpan::replay::{load, Loaded};
use shinpan_adjudicator::{adjudicate, Options, Status};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn shared(env: &str, sub: &str) -> PathBuf {
    match std::env::var_os(env) {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(sub),
    }
}

fn quantiles(mut times: Vec<f64>) -> String {
    if times.is_empty() {
        return "none".to_string();
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |f: f64| times[((times.len() - 1) as f64 * f).round() as usize];
    format!("p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms", q(0.5), q(0.95), times[times.len() - 1])
}

/// Milliseconds GNU Go takes for `final_score` on each record (none if GNU Go is absent),
/// and on how many its score equals the record's `RE` (both read by
/// [`goban::GameResult::from_sgf`]).
fn gnugo_times(records: &[Position]) -> (Vec<f64>, usize) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let gnugo = std::env::var("GNUGO").unwrap_or_else(|_| "/usr/games/gnugo".to_string());
    if !Path::new(&gnugo).exists() {
        return (Vec::new(), 0);
    }
    let mut equal = 0;
    let times = records
        .iter()
        .filter_map(|Position { file: f, loaded, .. }| {
            let t = Instant::now();
            let mut child = Command::new(&gnugo).args(["--mode", "gtp"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().ok()?;
            child.stdin.take()?.write_all(format!("loadsgf {f}\nfinal_score\nquit\n").as_bytes()).ok()?;
            let out = child.wait_with_output().ok()?;
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            let text = String::from_utf8_lossy(&out.stdout);
            // The answers: "= <colour>" to loadsgf, then "= <score>" to final_score.
            let score = text.lines().filter_map(|l| l.strip_prefix("= ")).nth(1)?;
            let recorded = loaded.record.result();
            equal += usize::from(recorded.is_some() && goban::GameResult::from_sgf(score.trim()) == recorded);
            Some(ms)
        })
        .collect();
    (times, equal)
}

/// A 19x19 record of `shared/games` replayed to its end, and the options of its adjudication.
struct Position {
    file: String,
    loaded: Loaded,
    opts: Options,
}

fn final_positions() -> Vec<Position> {
    let dir = shared("SHINPAN_GAMES", "games").join("19");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    names.sort();
    let budget = std::env::var("SHINPAN_BENCH_BUDGET").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    names
        .into_iter()
        .filter_map(|p| {
            let l = load(&p, None).ok()?;
            if l.replayed.foul.is_some() {
                return None;
            }
            let g = &l.replayed.game;
            let opts = Options { budget_nodes: budget, ko_pending: g.ko_point(), to_move: g.to_move(), ..Options::default() };
            Some(Position { file: p.display().to_string(), loaded: l, opts })
        })
        .collect()
}

fn setup(path: &Path) -> Board {
    let text = std::fs::read_to_string(path).unwrap();
    let size: u32 = text.split("SZ[").nth(1).and_then(|s| s.split(']').next()).and_then(|s| s.parse().ok()).unwrap_or(19);
    let mut b = Board::new(size, size).unwrap();
    for (tag, c) in [("AB", Color::Black), ("AW", Color::White)] {
        if let Some(rest) = text.split(tag).nth(1) {
            for v in rest.split(']').map_while(|s| s.strip_prefix('[')) {
                b.set(Point::from_sgf(v).unwrap(), Some(c)).unwrap();
            }
        }
    }
    b
}

fn bench(c: &mut Criterion) {
    let positions = final_positions();
    let mut times: Vec<f64> = Vec::new();
    let (mut undecided, mut stones, mut decided) = (0, 0usize, 0usize);
    for Position { loaded, opts, .. } in &positions {
        let board = loaded.replayed.game.board();
        let t = Instant::now();
        let adj = adjudicate(board, loaded.rules, opts);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        if adj.undecided(board) {
            undecided += 1;
        }
        for p in board.points().filter(|&p| board.get(p).is_some()) {
            stones += 1;
            decided += usize::from(adj.status.get(p) != Status::Undecided);
        }
    }
    eprintln!(
        "19x19 final positions: {} adjudicated, {}, {} with undecided stones; stones decided {decided} of {stones} ({:.1}%)",
        times.len(),
        quantiles(times),
        undecided,
        100.0 * decided as f64 / stones.max(1) as f64
    );
    let (g, equal) = gnugo_times(&positions);
    eprintln!("GNU Go final_score on the same records: {} scored, {}, {equal} equal to RE", g.len(), quantiles(g));
    let levels: Vec<u8> = std::env::var("SHINPAN_PROPOSE_LEVEL")
        .map(|s| s.split(',').filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_else(|_| shinpan::estimate::DEFAULT_LEVELS.to_vec());
    let probe = shinpan::estimate::GnuGo::default();
    let gnugo = shinpan::estimate::gnugo_levels(&probe.program, &levels, shinpan::estimate::DEFAULT_TIMEOUT);
    if probe.available() {
        let (mut times, mut equal) = (Vec::new(), 0);
        for Position { loaded: l, .. } in &positions {
            let t = Instant::now();
            let (p, _) = shinpan::propose::propose_loaded(l, None, shinpan::app::DEFAULT_BUDGET, Some(gnugo.as_ref()));
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            equal += usize::from(Some(p.score.result) == l.record.result());
        }
        eprintln!(
            "propose (budget {}, GNU Go --level {:?}) on the same records: {} proposed, {}, {equal} equal to RE",
            shinpan::app::DEFAULT_BUDGET,
            levels,
            times.len(),
            quantiles(times)
        );
    }
    // A referee's disputes (第九条 with 第七条): on the same records, those with the players'
    // dead-stone marks, each marked-dead chain disputed alone with the other marks as the
    // agreement, at the command line's budget.
    let (mut times, mut decided) = (Vec::new(), 0);
    for Position { loaded: l, .. } in &positions {
        let Some(marks) = &l.record.territory else { continue };
        let board = l.replayed.game.board();
        let heads = shinpan::score::marked_dead_chains(board, marks);
        for &d in &heads {
            let others: Vec<Point> = heads.iter().copied().filter(|&h| h != d).collect();
            let t = Instant::now();
            let out = shinpan::adjudicate::adjudicate_loaded(l, Some(&others), &[d], None, shinpan::app::DEFAULT_BUDGET);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            decided += usize::from(out.adjudication.status.get(d) != Status::Undecided);
        }
    }
    eprintln!(
        "disputes on the same records' marks (budget {}): {decided} of {} decided, {}",
        shinpan::app::DEFAULT_BUDGET,
        times.len(),
        quantiles(times)
    );
    let dir = shared("SHINPAN_KAKUNIN", "kakunin");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "sgf")).collect())
        .unwrap_or_default();
    names.sort();
    // Each example once: nodes (every region's), chains left undecided, time.
    let opts = Options { budget_nodes: shinpan::app::DEFAULT_BUDGET, ..Options::default() };
    for p in &names {
        let b = setup(p);
        let t = Instant::now();
        let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let nodes: u64 = adj.regions.iter().map(|r| r.nodes).sum();
        let undecided = adj.proofs.iter().filter(|pr| pr.status == shinpan_adjudicator::Status::Undecided).count();
        println!(
            "{}: {nodes} nodes, {undecided} chains undecided, {ms:.1} ms (budget {} nodes per region)",
            p.file_stem().unwrap().to_string_lossy(),
            opts.budget_nodes
        );
    }
    let mut g = c.benchmark_group("kakunin");
    g.sample_size(10);
    for p in names {
        let b = setup(&p);
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        g.bench_function(name, |bch| bch.iter(|| adjudicate(&b, RuleSet::Japanese2011, &opts)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
