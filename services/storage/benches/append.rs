//! Store-level recording benchmark: N concurrent games, each recording moves one after another
//! through `Store::write` (the path under `RecordMove`), against a durable embedded cluster
//! (fsync on, as `shinpan serve` runs it) or `DATABASE_URL` when set.
//!
//! `cargo bench -p shinpan-storage --bench append -- [games] [moves per game] [pool size]`
//! (defaults 100, 40, 20); `SHINPAN_BENCH_ASYNC_COMMIT=1` runs the embedded cluster with
//! `synchronous_commit = off`. Prints throughput and p50/p99/max latency of one write.

use std::time::{Duration, Instant};

use serde_json::json;
use shinpan_storage::{Color, EmbeddedOptions, EmbeddedPostgres, GameWrite, NewGame, NewPlayer, Store, TournamentSettings};

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let games = *args.first().unwrap_or(&100);
    let moves = *args.get(1).unwrap_or(&40);
    let pool_size = *args.get(2).unwrap_or(&20) as u32;

    let (_pg, root, url) = match std::env::var("DATABASE_URL") {
        Ok(u) if !u.is_empty() => (None, None, u),
        _ => {
            let root = std::env::temp_dir().join(format!("shinpan-bench-{}", uuid::Uuid::new_v4().simple()));
            let mut opts = EmbeddedOptions::persistent(root.join("pg"));
            // SHINPAN_BENCH_ASYNC_COMMIT=1: synchronous_commit off
            opts.synchronous_commit = std::env::var("SHINPAN_BENCH_ASYNC_COMMIT").map_or(true, |v| v != "1");
            // SHINPAN_BENCH_PG_SETTINGS="commit_delay=200,commit_siblings=2": extra server settings
            if let Ok(extra) = std::env::var("SHINPAN_BENCH_PG_SETTINGS") {
                for kv in extra.split(',').filter(|s| !s.is_empty()) {
                    if let Some((k, v)) = kv.split_once('=') {
                        opts.settings.push((k.trim().into(), v.trim().into()));
                    }
                }
            }
            println!("embedded cluster, synchronous_commit = {}, settings {:?}", opts.synchronous_commit, opts.settings);
            let pg = EmbeddedPostgres::start(opts).expect("start PostgreSQL");
            let rt = tokio::runtime::Runtime::new().unwrap();
            let url = rt.block_on(pg.ensure_database("bench")).unwrap();
            (Some(pg), Some(root), url)
        }
    };

    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        let store = Store::connect_with(&url, pool_size).await.expect("connect");

        let t = store.ensure_tournament(&format!("bench-{}", uuid::Uuid::new_v4()), &TournamentSettings::default()).await.unwrap();
        let b = store.upsert_player(&NewPlayer { name: "Black".into(), ..Default::default() }).await.unwrap();
        let w = store.upsert_player(&NewPlayer { name: "White".into(), ..Default::default() }).await.unwrap();
        let mut ids = Vec::new();
        for i in 0..games {
            let g = store
                .create_game(&NewGame {
                    tournament_id: Some(t.id),
                    round: Some(1),
                    table_number: Some(i as i32 + 1),
                    ..NewGame::between(b.id, w.id)
                })
                .await
                .unwrap();
            ids.push(g.game.id);
        }
        let start = Instant::now();
        let mut tasks = Vec::new();
        for id in ids {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::with_capacity(moves);
                for n in 1..=moves as i32 {
                    let colour = if n % 2 == 1 { Color::Black } else { Color::White };
                    let p = format!("{}{}", (b'a' + (n % 19) as u8) as char, (b'a' + (n / 19) as u8) as char);
                    let t0 = Instant::now();
                    store
                        .write(
                            GameWrite::new_move(id, n, colour, Some(&p))
                                .with_key(format!("{id}-{n}"))
                                .with_event(shinpan_storage::Event::Move(shinpan_storage::event::MovePlayed {
                                    captured: Some(vec![]),
                                    ..Default::default()
                                }))
                                .with_response(json!({"move_number": n})),
                        )
                        .await
                        .unwrap();
                    lat.push(t0.elapsed());
                }
                lat
            }));
        }
        let mut all: Vec<Duration> = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        let elapsed = start.elapsed();
        all.sort();
        let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)];
        println!(
            "store write: {} games x {} moves = {} writes in {:.2?}: {:.0} writes/s; latency p50 {:.2?} p99 {:.2?} max {:.2?} (pool {})",
            games,
            moves,
            all.len(),
            elapsed,
            all.len() as f64 / elapsed.as_secs_f64(),
            pct(0.50),
            pct(0.99),
            all[all.len() - 1],
            pool_size
        );
        let report = store.verify_all().await.unwrap();
        assert!(report.is_intact());
        println!("verify_all: {} games, {} events intact", report.games, report.events);
        store.pool().close().await;
    });
    drop(_pg);
    if let Some(r) = root {
        let _ = std::fs::remove_dir_all(r);
    }
}
