//! `shinpan bench`: `RecordMove` throughput and latency with N concurrent games.
//!
//! Against a running server (`--server URL`) or, by default, an in-process one on the
//! embedded PostgreSQL (or `DATABASE_URL`), which runs on a Tokio runtime (threads) of its own,
//! apart from the client's, as a separate server process would. Each of `--games` games is created, then one
//! task per game records `--moves` legal moves one after the other (each waits for the
//! previous answer, as a real game does); every call is timed. Prints moves/s, p50, p90,
//! p99 and max latency. Without `--rate` the games record as fast as they are answered
//! (saturation throughput; latency is then ≈ games / throughput by Little's law); with
//! `--rate R` the games together offer R moves/s and the latency at that load is measured, each
//! call from the time it was due (open loop: a call sent late because the previous answer came
//! late carries that delay). The games are created concurrently before the clock starts, so the
//! server's database pool is open when timing begins. The move sequence is a fixed, legal, capture-rich random game
//! (seeded), the same for every game.

use crate::configuration::ServeArgs;
use crate::exit;
use crate::startup::Application;
use goban::{Board, Color, Game, Move, Point, RuleSet};
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

/// Arguments of `shinpan bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Server URL; unset: start the services in-process.
    #[arg(long)]
    pub server: Option<String>,
    /// Concurrent games.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Moves recorded per game.
    #[arg(long, default_value_t = 100)]
    pub moves: usize,
    /// gRPC connections shared by the games.
    #[arg(long, default_value_t = 4)]
    pub connections: usize,
    /// PostgreSQL URL for the in-process server; unset: the embedded cluster.
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// Data directory for the in-process server.
    #[arg(long, env = "SHINPAN_DATA_DIR", default_value = ".shinpan")]
    pub data_dir: PathBuf,
    /// Seed of the move sequence.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// PostgreSQL connections of the in-process server's pool.
    #[arg(long, default_value_t = 16)]
    pub db_connections: u32,
    /// Offered load in moves per second across all games (each game plays one move every
    /// games/rate seconds, as players with thinking time do); 0 = every game records its
    /// next move as soon as the previous one is answered (saturation).
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// Also print (to stderr) the latency p50/p99/max of the moves due in each 250 ms of the
    /// run, to tell a start-up transient or a stall from a steady tail.
    #[arg(long)]
    pub timeline: bool,
}

/// Figures of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Games played concurrently.
    pub games: usize,
    /// Moves recorded in all.
    pub moves: usize,
    /// Wall time of the recording phase.
    pub elapsed: Duration,
    /// Latency percentiles (p50, p90, p99) and maximum.
    pub p50: Duration,
    /// 90th percentile.
    pub p90: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// Slowest call.
    pub max: Duration,
    /// Calls that failed.
    pub errors: usize,
}

impl Report {
    /// Recorded moves per second.
    pub fn throughput(&self) -> f64 {
        self.moves as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        write!(
            f,
            "RecordMove: {} moves in {} concurrent games in {:.2} s = {:.0} moves/s; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {} errors",
            self.moves,
            self.games,
            self.elapsed.as_secs_f64(),
            self.throughput(),
            ms(self.p50),
            ms(self.p90),
            ms(self.p99),
            ms(self.max),
            self.errors
        )
    }
}

/// A legal sequence of `n` stones on 19x19 under `japanese-2011`, pseudo-random from `seed`
/// (never a pass, never a foul).
pub fn legal_sequence(n: usize, seed: u64) -> Vec<(Color, Move)> {
    let mut game = Game::new(Board::new(19, 19).expect("19x19"), RuleSet::Japanese2011, Color::Black);
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let c = game.to_move();
        let mut played = false;
        for _ in 0..2000 {
            let p = Point::new((next() % 19) as u8, (next() % 19) as u8);
            if game.play(c, Move::Play(p)).is_ok() {
                out.push((c, Move::Play(p)));
                played = true;
                break;
            }
        }
        if !played {
            break;
        }
    }
    out
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Runs the benchmark against `url` and returns the figures.
///
/// # Errors
/// Connection failures and failures to create the games.
///
/// `rate` 0 = closed loop (each game sends its next move on the previous answer); `rate` > 0 =
/// open loop, each call's latency counted from the time it was due. `timeline`: also print the
/// latency per 250 ms of due time to stderr.
pub async fn measure(
    url: &str,
    games: usize,
    moves: usize,
    connections: usize,
    seed: u64,
    rate: f64,
    timeline: bool,
) -> anyhow::Result<Report> {
    let sequence = std::sync::Arc::new(legal_sequence(moves, seed));
    let mut channels = Vec::new();
    for _ in 0..connections.max(1) {
        channels.push(crate::remote::channel(url).await?);
    }
    let tournament = format!("bench {}", uuid::Uuid::new_v4());
    // The games are created concurrently (untimed), so the server's database pool has opened
    // its connections before the clock starts: the figures are the steady state, not the
    // connection set-up of the first moves.
    let creates = (0..games).map(|i| {
        let mut client = GameRecordingServiceClient::new(channels[i % channels.len()].clone());
        let tournament = tournament.clone();
        async move {
            client
                .create_game(pb::CreateGameRequest {
                    tournament,
                    round: 1,
                    board_number: i as u32 + 1,
                    black: Some(pb::Player { name: format!("bench black {i}"), ..Default::default() }),
                    white: Some(pb::Player { name: format!("bench white {i}"), ..Default::default() }),
                    board_size: 19,
                    komi: Some(6.5),
                    handicap: 0,
                    rule_set: "japanese-2011".into(),
                    ..Default::default()
                })
                .await
                .map(|g| g.into_inner().game.unwrap_or_default().id)
        }
    });
    let ids: Vec<String> = futures::future::try_join_all(creates).await?;
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(games);
    for (i, id) in ids.into_iter().enumerate() {
        let mut client: GameRecordingServiceClient<Channel> = GameRecordingServiceClient::new(channels[i % channels.len()].clone());
        let sequence = sequence.clone();
        // With a rate, game i plays at start + offset_i + k * period (staggered).
        let period = if rate > 0.0 { Some(Duration::from_secs_f64(games as f64 / rate)) } else { None };
        let offset = period.map(|p| p.mul_f64(i as f64 / games as f64)).unwrap_or_default();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(sequence.len());
            let mut errors = 0usize;
            for (n, &(c, m)) in sequence.iter().enumerate() {
                // Open loop: with a rate, the call is due at its scheduled time and its latency
                // counts from then (a call sent late because the previous answer came late
                // carries that delay, so slow answers are not hidden by fewer samples).
                let due = match period {
                    Some(p) => {
                        let due = started + offset + p * n as u32;
                        tokio::time::sleep_until(due.into()).await;
                        due
                    }
                    None => Instant::now(),
                };
                let req = pb::RecordMoveRequest {
                    game_id: id.clone(),
                    move_number: n as u32 + 1,
                    r#move: Some(crate::convert::move_to_pb(c, m)),
                    client_time: None,
                    idempotency_key: format!("{id}:{}", n + 1),
                };
                match client.record_move(req).await {
                    Ok(r) if r.get_ref().legal => lat.push((due.duration_since(started), due.elapsed())),
                    _ => {
                        errors += 1;
                        break;
                    }
                }
            }
            (lat, errors)
        }));
    }
    let mut all = Vec::with_capacity(games * moves);
    let mut errors = 0;
    for t in tasks {
        let (lat, e) = t.await?;
        all.extend(lat);
        errors += e;
    }
    let elapsed = started.elapsed();
    if timeline {
        let mut buckets: std::collections::BTreeMap<u128, Vec<Duration>> = Default::default();
        for (at, l) in &all {
            buckets.entry(at.as_millis() / 250).or_default().push(*l);
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        for (k, mut v) in buckets {
            v.sort();
            let max = v.last().copied().unwrap_or_default();
            eprintln!(
                "due {:>6} ms: {:>5} moves, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                k * 250,
                v.len(),
                ms(percentile(&v, 0.5)),
                ms(percentile(&v, 0.99)),
                ms(max)
            );
        }
    }
    let mut all: Vec<Duration> = all.into_iter().map(|(_, l)| l).collect();
    all.sort();
    Ok(Report {
        games,
        moves: all.len(),
        elapsed,
        p50: percentile(&all, 0.50),
        p90: percentile(&all, 0.90),
        p99: percentile(&all, 0.99),
        max: all.last().copied().unwrap_or_default(),
        errors,
    })
}

/// Runs `shinpan bench`.
pub fn run(args: Args) -> ExitCode {
    exit::block_on(async move {
        let result = match &args.server {
            Some(url) => measure(url, args.games, args.moves, args.connections, args.seed, args.rate, args.timeline).await,
            None => {
                let mut serve = ServeArgs::local(args.database_url.clone(), args.data_dir.clone());
                serve.max_connections = args.db_connections;
                // The server runs on a runtime (threads) of its own, as a server process would:
                // on the bench client's runtime, the server's tasks would wait behind the
                // client's and the latency measured would include that queueing.
                let (url_tx, url_rx) = tokio::sync::oneshot::channel::<anyhow::Result<String>>();
                let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
                let server = std::thread::spawn(move || {
                    let rt = match tokio::runtime::Builder::new_multi_thread().enable_all().thread_name("shinpan-server").build() {
                        Ok(rt) => rt,
                        Err(e) => {
                            let _ = url_tx.send(Err(e.into()));
                            return;
                        }
                    };
                    rt.block_on(async move {
                        match Application::build(&serve).await {
                            Ok(app) => {
                                let _ = url_tx.send(Ok(app.url()));
                                if let Err(e) = app
                                    .run_until(async move {
                                        let _ = stop_rx.await;
                                    })
                                    .await
                                {
                                    eprintln!("in-process server: {e}");
                                }
                            }
                            Err(e) => {
                                let _ = url_tx.send(Err(e.into()));
                            }
                        }
                    });
                });
                let r = match url_rx.await {
                    Ok(Ok(url)) => {
                        eprintln!(
                            "in-process server on {url} ({})",
                            if args.database_url.is_some() { "DATABASE_URL" } else { "embedded PostgreSQL" }
                        );
                        measure(&url, args.games, args.moves, args.connections, args.seed, args.rate, args.timeline).await
                    }
                    Ok(Err(e)) => Err(e),
                    Err(_) => Err(anyhow::anyhow!("the in-process server did not start")),
                };
                let _ = stop_tx.send(());
                let _ = tokio::task::spawn_blocking(move || server.join()).await;
                r
            }
        };
        match result {
            Ok(report) => {
                println!("{report}");
                exit::code(if report.errors == 0 { exit::OK } else { exit::FAILURE })
            }
            Err(e) => {
                eprintln!("error: {e:#}");
                exit::code(exit::FAILURE)
            }
        }
    })
}
