//! Replay speed on the real records of `../shared/games` (override with env `SHINPAN_GAMES`):
//! every move validated (turn, occupied point, suicide 第四条, ko 第五条) with repetition
//! tracking on, under `japanese-2011`.
//!
//! Run: `cargo bench -p shinpan --bench replay`. Criterion prints, per benchmark, the time
//! per iteration and (Throughput::Elements) moves per second:
//! * `replay/corpus`: every record of the corpus, parsed beforehand;
//! * `replay/19x19-record`: one typical 19x19 record (time per whole record);
//! * `parse+replay/corpus`: reading the SGF text too.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use goban::RuleSet;
use shinpan_sgf::Record;
use std::hint::black_box;
use std::path::{Path, PathBuf};

fn games_dir() -> PathBuf {
    match std::env::var_os("SHINPAN_GAMES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games"),
    }
}

fn corpus() -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let dir = games_dir();
    for sub in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
        if sub.path().is_dir() {
            for f in std::fs::read_dir(sub.path()).unwrap().flatten() {
                let p = f.path();
                if p.extension().and_then(|x| x.to_str()) == Some("sgf") {
                    let bytes = std::fs::read(&p).unwrap();
                    out.push((p, bytes));
                }
            }
        }
    }
    out.sort();
    out
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    let records: Vec<Record> = files.iter().map(|(_, b)| Record::parse_bytes(b).unwrap()).collect();
    let total: u64 = records.iter().map(|r| r.moves.len() as u64).sum();
    eprintln!("corpus: {} records, {} moves", records.len(), total);

    let mut g = c.benchmark_group("replay");
    g.throughput(Throughput::Elements(total));
    g.bench_function("corpus", |b| {
        b.iter(|| {
            for r in &records {
                let replayed = r.to_game(RuleSet::Japanese2011).unwrap();
                assert!(replayed.foul.is_none());
                black_box(&replayed.game);
            }
        })
    });
    // A typical 19x19 record: the one with the median number of moves.
    let mut big: Vec<&Record> = records.iter().filter(|r| r.width == 19 && r.height == 19).collect();
    big.sort_by_key(|r| r.moves.len());
    if let Some(r) = big.get(big.len() / 2) {
        g.throughput(Throughput::Elements(r.moves.len() as u64));
        g.bench_function(format!("19x19-record ({} moves)", r.moves.len()), |b| {
            b.iter(|| black_box(r.to_game(RuleSet::Japanese2011).unwrap()))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("parse+replay");
    g.throughput(Throughput::Elements(total));
    g.bench_function("corpus", |b| {
        b.iter(|| {
            for (_, bytes) in &files {
                let r = Record::parse_bytes(bytes).unwrap();
                black_box(r.to_game(RuleSet::Japanese2011).unwrap());
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
