//! Replay speed of the rules engine: every record of `../shared/games` replayed and
//! validated under `japanese-2011` (ko and repetition tracking on), and under `chinese`
//! (positional superko on). Reports moves per second (criterion "elements").
//!
//! Run: `CARGO_TARGET_DIR=/work/targets/goban cargo bench -p goban --bench replay`.

#[path = "../tests/common/sgf_lite.rs"]
mod sgf_lite;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use goban::{Board, Color, Game, RuleSet};
use sgf_lite::{corpus, corpus_dir, Event, Record};

/// A record prepared for replay: the starting board, first player and the moves.
struct Prepared {
    board: Board,
    to_move: Color,
    moves: Vec<(Color, goban::Move)>,
}

fn prepare(rec: &Record) -> Prepared {
    let mut board = Board::new(rec.width, rec.height).unwrap();
    let mut to_move = None;
    let mut moves = Vec::new();
    for e in &rec.events {
        match e {
            Event::Setup(ch) if moves.is_empty() => {
                for &(p, c) in ch {
                    board.set(p, c).unwrap();
                }
            }
            Event::ToMove(c) if moves.is_empty() => to_move = Some(*c),
            Event::Move(c, m) => moves.push((*c, *m)),
            _ => {}
        }
    }
    let to_move = moves.first().map(|m| m.0).or(to_move).unwrap_or(Color::Black);
    Prepared { board, to_move, moves }
}

fn replay_all(recs: &[Prepared], rules: RuleSet) -> u32 {
    let mut n = 0;
    for r in recs {
        let mut g = Game::new(r.board.clone(), rules, r.to_move);
        for &(c, m) in &r.moves {
            if g.apply(c, m).is_err() {
                break;
            }
        }
        n += g.move_number();
    }
    n
}

fn bench(c: &mut Criterion) {
    let recs: Vec<Prepared> = corpus(&corpus_dir()).iter().map(|(_, r)| prepare(r)).collect();
    assert!(!recs.is_empty(), "no records at {}", corpus_dir().display());
    let total: u64 = recs.iter().map(|r| r.moves.len() as u64).sum();
    // Every record must replay completely, or the figure would be flattering.
    assert_eq!(replay_all(&recs, RuleSet::Japanese2011) as u64, total);
    eprintln!("corpus: {} records, {} moves", recs.len(), total);

    let mut g = c.benchmark_group("replay-corpus");
    g.throughput(Throughput::Elements(total));
    g.bench_function("japanese-2011", |b| b.iter(|| black_box(replay_all(black_box(&recs), RuleSet::Japanese2011))));
    g.bench_function("chinese-superko", |b| b.iter(|| black_box(replay_all(black_box(&recs), RuleSet::Chinese))));
    g.finish();

    // One long 19x19 record on its own.
    let longest = recs.iter().filter(|r| r.board.width() == 19).max_by_key(|r| r.moves.len()).unwrap();
    let mut g = c.benchmark_group("replay-one-19x19");
    g.throughput(Throughput::Elements(longest.moves.len() as u64));
    g.bench_function(format!("{}-moves", longest.moves.len()), |b| {
        b.iter(|| black_box(replay_all(std::slice::from_ref(longest), RuleSet::Japanese2011)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
