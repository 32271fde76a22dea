//! High availability under faults, on this machine (loopback only, bounded in time).
//!
//! A PostgreSQL primary and a streaming standby made with `pg_basebackup -R`, replication
//! **synchronous** (`synchronous_standby_names = '*'`); a TCP proxy standing in for the
//! Kubernetes `-rw` Service; three `shinpan serve --service recording` processes reaching the
//! database through the proxy; and a load of real games (`../shared/games/19`, 12 at once or
//! `SHINPAN_HA_GAMES`) recorded move by move through the three, round robin (or each game
//! through one process, `SHINPAN_HA_BALANCE=game`), each call retried on the next process
//! until it is acknowledged (every move carries an idempotency key, so a retry never records
//! twice). During the load:
//!
//! 1. one process is killed (SIGKILL) and started again;
//! 2. one process is stopped with SIGTERM (graceful drain) and started again;
//! 3. the replication link (a second proxy) holds everything back for a second, the primary
//!    is stopped abruptly (`pg_ctl stop -m immediate`), what the link held is dropped, the
//!    standby is promoted and the proxy switched to it.
//!
//! Meanwhile a fourth process (`recording-probe`, its own proxy) has its database switched
//! from the primary to the standby while that is still in recovery: it must refuse a move
//! with `UNAVAILABLE` saying the database is a standby in recovery and to retry, and record
//! it without a restart once the standby is promoted.
//!
//! Then, on the promoted primary: every acknowledged move is there (and nothing else), no move
//! is stored twice, every game's move numbers run 1..n, every event hash chain verifies (as
//! `shinpan audit verify`), a `WatchGame` subscriber that resumed from its last sequence
//! number after every broken stream saw every event of its game exactly once, and every
//! game's exported SGF has exactly the moves the client had acknowledged. It prints
//! throughput and RecordMove latency per phase and the time to recover after each fault.
//!
//! The negative control runs the same load and the same database fault with asynchronous
//! replication: acknowledged moves are then missing after the failover, and the test
//! asserts that the check finds them (so the check can fail).
//!
//! `cargo test -p shinpan-e2e --test ha_faults -- --nocapture` (it needs the `shinpan`
//! binary of the same profile, built first when missing, and PostgreSQL's server binaries).

use futures::StreamExt;
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient;
use shinpan_storage::{EmbeddedOptions, EmbeddedPostgres, Store};
use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tonic::transport::{Channel, Endpoint};

/// Concurrent games under load (one client task each), unless `SHINPAN_HA_GAMES` says.
const GAMES_AT_ONCE: usize = 12;
/// A call not acknowledged within this long (all retries) fails the test.
const GIVE_UP: Duration = Duration::from_secs(60);

type Client = GameRecordingServiceClient<Channel>;

// ---------------------------------------------------------------------------------------
// The shinpan binary

/// `<target>/<profile>/shinpan` beside this test's executable (`<target>/<profile>/deps/…`),
/// built with cargo when missing (a `cargo test -p shinpan-e2e` alone does not build it).
fn shinpan_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let profile_dir = exe.parent().and_then(Path::parent).expect("<target>/<profile>/deps").to_path_buf();
    let bin = profile_dir.join("shinpan");
    if !bin.is_file() {
        let target_dir = profile_dir.parent().expect("<target>").to_path_buf();
        let release = profile_dir.file_name().is_some_and(|n| n == "release");
        let mut cmd = std::process::Command::new(env!("CARGO"));
        cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).args(["build", "-p", "shinpan", "--bin", "shinpan"]);
        cmd.arg("--target-dir").arg(&target_dir);
        if release {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("run cargo build");
        assert!(status.success(), "cargo build -p shinpan failed");
    }
    assert!(bin.is_file(), "{} missing", bin.display());
    bin
}

// ---------------------------------------------------------------------------------------
// PostgreSQL: primary and standby

fn bin_dir() -> PathBuf {
    shinpan_storage::embedded::find_bin_dir().expect("PostgreSQL server binaries (apt-get install postgresql)")
}

/// A command of PostgreSQL's run as the owner of `data_dir` (PostgreSQL refuses root; the
/// embedded clusters of a root process belong to the `postgres` user).
fn pg_command(program: &str, data_dir: &Path) -> std::process::Command {
    let owner = std::fs::metadata(data_dir).expect("data directory");
    let me = std::fs::metadata("/proc/self").expect("/proc/self");
    let mut cmd = std::process::Command::new(bin_dir().join(program));
    if owner.uid() != me.uid() {
        cmd.uid(owner.uid()).gid(owner.gid());
    }
    cmd.env_remove("PGDATA").env("LC_ALL", "C.UTF-8").stdin(std::process::Stdio::null());
    cmd
}

fn run(mut cmd: std::process::Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(out.status.success(), "{what} failed: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

struct Pair {
    primary: Option<EmbeddedPostgres>,
    standby: EmbeddedPostgres,
    password: String,
    /// The replication link: the standby streams from the primary through it.
    link: Proxy,
}

impl Pair {
    /// A primary in `root/primary` and a standby cloned from it in `root/standby`, streaming
    /// synchronously or not.
    async fn start(root: &Path, synchronous: bool) -> Pair {
        let mut opts = EmbeddedOptions::persistent(root.join("primary"));
        opts.unix_socket = false;
        // A process crash (what this test makes) loses nothing without fsync: the page cache
        // survives. Only an operating-system crash would need it.
        opts.settings.push(("fsync".into(), "off".into()));
        let primary = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(opts)).await.unwrap().expect("primary starts");
        primary.ensure_database("shinpan").await.expect("database shinpan");
        let password = std::fs::read_to_string(primary.data_dir().join("shinpan-password")).unwrap().trim().to_string();

        // The standby: a base backup of the primary with its replication settings (-R),
        // owned by the primary's owner.
        let standby_dir = root.join("standby");
        std::fs::create_dir_all(&standby_dir).unwrap();
        let owner = std::fs::metadata(primary.data_dir()).unwrap();
        std::os::unix::fs::chown(&standby_dir, Some(owner.uid()), Some(owner.gid())).unwrap();
        std::fs::set_permissions(&standby_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        // Every file of the data directory is copied, so the server's user must read them all
        // (the embedded cluster's password file is written by this process).
        let password_file = primary.data_dir().join("shinpan-password");
        std::os::unix::fs::chown(&password_file, Some(owner.uid()), Some(owner.gid())).unwrap();
        // Through the link, so that the standby's primary_conninfo (-R) names it too.
        let link = Proxy::start(primary.port()).await;
        let mut backup = pg_command("pg_basebackup", primary.data_dir());
        backup
            .env("PGPASSWORD", &password)
            .args(["-h", "127.0.0.1", "-p", &link.port.to_string(), "-U", "postgres", "-R", "-X", "stream", "-c", "fast", "-D"])
            .arg(&standby_dir);
        run(backup, "pg_basebackup");
        let mut opts = EmbeddedOptions::persistent(standby_dir);
        opts.unix_socket = false;
        opts.settings.push(("fsync".into(), "off".into()));
        // A promotion waits for the next attempt to fetch WAL (5 s by default) before it ends
        // recovery; an operator's failover does not wait that long.
        opts.settings.push(("wal_retrieve_retry_interval".into(), "200ms".into()));
        let standby = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(opts)).await.unwrap().expect("standby starts");
        // Synchronous from now on (not before: with no standby, every commit would wait), on
        // the primary only (the standby, once promoted, has none to wait for).
        if synchronous {
            let mut c = sqlx_connect(&primary.url("postgres")).await;
            sqlx::query("ALTER SYSTEM SET synchronous_standby_names = '*'").execute(&mut c).await.unwrap();
            sqlx::query("SELECT pg_reload_conf()").execute(&mut c).await.unwrap();
        }

        // Streaming, in the expected mode, before anything is written.
        let want = if synchronous { "sync" } else { "async" };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let state: Option<String> = sqlx::query_scalar("SELECT sync_state FROM pg_stat_replication LIMIT 1")
                .fetch_optional(&mut sqlx_connect(&primary.url("postgres")).await)
                .await
                .unwrap();
            if state.as_deref() == Some(want) {
                break;
            }
            assert!(Instant::now() < deadline, "the standby is not streaming ({state:?}, want {want})");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Pair { primary: Some(primary), standby, password, link }
    }

    fn url(&self, port: u16, database: &str) -> String {
        format!("postgres://postgres:{}@127.0.0.1:{port}/{database}", self.password)
    }

    /// `pg_ctl stop -m immediate` on the primary: no shutdown checkpoint, connections cut.
    fn stop_primary_immediately(&mut self) {
        let primary = self.primary.as_ref().expect("a primary");
        let mut stop = pg_command("pg_ctl", primary.data_dir());
        stop.args(["stop", "-m", "immediate", "-w", "-D"]).arg(primary.data_dir());
        run(stop, "pg_ctl stop -m immediate");
    }

    /// `pg_ctl promote` on the standby, waiting until it accepts writes.
    fn promote_standby(&self) {
        let mut promote = pg_command("pg_ctl", self.standby.data_dir());
        promote.args(["promote", "-w", "-D"]).arg(self.standby.data_dir());
        run(promote, "pg_ctl promote");
    }
}

async fn sqlx_connect(url: &str) -> sqlx::PgConnection {
    use sqlx::Connection;
    sqlx::PgConnection::connect(url).await.expect("connect to PostgreSQL")
}

fn signal(pid: i32, sig: &str) {
    let status = std::process::Command::new("kill").arg(format!("-{sig}")).arg(pid.to_string()).status().expect("kill");
    assert!(status.success(), "kill -{sig} {pid}");
}

// ---------------------------------------------------------------------------------------
// The proxy standing in for the `-rw` Service

/// A TCP proxy on 127.0.0.1 whose upstream can be switched, and which can hold back what
/// it forwards (a link that stalls). Stands in for the `-rw` Service, and for the network
/// between primary and standby.
struct Proxy {
    port: u16,
    upstream: Arc<AtomicU16>,
    generation: tokio::sync::watch::Sender<u64>,
    paused: tokio::sync::watch::Sender<bool>,
}

/// Forwards `from` to `to` until either closes; while `paused`, what was read is held back.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut paused: tokio::sync::watch::Receiver<bool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        while *paused.borrow_and_update() {
            if paused.changed().await.is_err() {
                return;
            }
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

impl Proxy {
    async fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let target = Arc::new(AtomicU16::new(upstream));
        let (generation, rx) = tokio::sync::watch::channel(0u64);
        let (paused, paused_rx) = tokio::sync::watch::channel(false);
        let t = target.clone();
        tokio::spawn(async move {
            loop {
                let Ok((inbound, _)) = listener.accept().await else { continue };
                let mut switched = rx.clone();
                switched.borrow_and_update();
                let upstream = t.load(SeqCst);
                let paused = paused_rx.clone();
                tokio::spawn(async move {
                    let Ok(outbound) = TcpStream::connect(("127.0.0.1", upstream)).await else { return };
                    let _ = inbound.set_nodelay(true);
                    let _ = outbound.set_nodelay(true);
                    let (ir, iw) = inbound.into_split();
                    let (or, ow) = outbound.into_split();
                    // Either direction ending, or a switch, closes both sides.
                    tokio::select! {
                        _ = pump(ir, ow, paused.clone()) => {}
                        _ = pump(or, iw, paused) => {}
                        _ = switched.changed() => {}
                    }
                });
            }
        });
        Proxy { port, upstream: target, generation, paused }
    }

    /// Hold back everything from now on (the link stalls).
    fn pause(&self) {
        self.paused.send_replace(true);
    }

    /// Cut every open connection; what was held back is never delivered (the link stays
    /// paused: resuming it could deliver held data before a connection notices the cut).
    fn cut(&self) {
        self.generation.send_modify(|g| *g += 1);
    }

    /// New connections go to `upstream`; open ones are cut (as when the Service's endpoint
    /// changes and the old primary is gone).
    fn switch(&self, upstream: u16) {
        self.upstream.store(upstream, SeqCst);
        self.generation.send_modify(|g| *g += 1);
    }
}

// ---------------------------------------------------------------------------------------
// The recording processes

struct Replica {
    name: String,
    port: u16,
    database_url: String,
    log: PathBuf,
    child: Option<tokio::process::Child>,
}

impl Replica {
    fn new(name: &str, root: &Path, database_url: String) -> Replica {
        let port = shinpan_storage::embedded::free_port().unwrap();
        Replica { name: name.into(), port, database_url, log: root.join(format!("{name}.log")), child: None }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(&self.log).unwrap();
        let child = tokio::process::Command::new(shinpan_bin())
            .args(["serve", "--service", "recording", "--listen", &format!("127.0.0.1:{}", self.port), "--max-connections", "8"])
            .arg("--database-url")
            .arg(&self.database_url)
            .env("SHINPAN_LOG", "warn")
            .env_remove("DATABASE_URL")
            .env_remove("SHINPAN_VALIDATION_URL")
            .stdin(std::process::Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .expect("start shinpan serve");
        self.child = Some(child);
    }

    /// Waits until gRPC health says GameRecordingService is SERVING.
    async fn wait_serving(&self, timeout: Duration) {
        use tonic_health::pb::health_client::HealthClient;
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(ch) = Endpoint::from_shared(self.url()).unwrap().connect_timeout(Duration::from_millis(500)).connect().await {
                let req = tonic_health::pb::HealthCheckRequest { service: shinpan_proto::service_names::GAME_RECORDING.into() };
                if let Ok(r) = HealthClient::new(ch).check(req).await {
                    if r.into_inner().status == tonic_health::pb::health_check_response::ServingStatus::Serving as i32 {
                        return;
                    }
                }
            }
            assert!(Instant::now() < deadline, "{} is not serving after {timeout:?}; log: {}", self.name, self.log.display());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn pid(&self) -> i32 {
        self.child.as_ref().and_then(|c| c.id()).expect("running") as i32
    }

    /// SIGKILL and reap.
    async fn kill(&mut self) {
        let mut child = self.child.take().expect("running");
        child.kill().await.unwrap();
    }

    /// SIGTERM and wait for the drain to finish; returns the exit status.
    async fn terminate(&mut self) -> std::process::ExitStatus {
        signal(self.pid(), "TERM");
        let mut child = self.child.take().expect("running");
        tokio::time::timeout(Duration::from_secs(30), child.wait()).await.expect("drained within 30 s").unwrap()
    }
}

// ---------------------------------------------------------------------------------------
// The load

/// What the clients saw.
#[derive(Default)]
struct Observed {
    /// Per phase: latency of every acknowledged RecordMove (µs), and failed attempts by code.
    latencies: Vec<Vec<u64>>,
    errors: Vec<BTreeMap<String, u64>>,
    /// Per phase: the messages of UNAVAILABLE answers, counted.
    unavailable: Vec<BTreeMap<String, u64>>,
    /// Each acknowledged attempt: when it was sent and when its answer arrived.
    acks: Vec<(Instant, Instant)>,
    /// Every game: its id and the moves acknowledged, in order.
    games: Vec<(String, Vec<pb::Move>)>,
    /// Calls that were answered with an error no retry can cure: (game, move number, status).
    refused: Vec<String>,
}

struct Load {
    clients: Vec<Client>,
    next_client: AtomicUsize,
    phase: AtomicUsize,
    stop: AtomicBool,
    observed: Mutex<Observed>,
    records: Vec<shinpan_sgf::Record>,
    next_record: AtomicUsize,
    tournament: String,
    next_board: AtomicU32,
    acked: AtomicU64,
    /// A game's moves to a process of its own (`SHINPAN_HA_BALANCE=game`), not round robin.
    per_game: bool,
}

impl Load {
    fn new(urls: &[String], phases: usize) -> Arc<Load> {
        let clients = urls
            .iter()
            .map(|u| {
                let ch = Endpoint::from_shared(u.clone())
                    .unwrap()
                    .connect_timeout(Duration::from_millis(500))
                    .timeout(Duration::from_secs(5))
                    .connect_lazy();
                GameRecordingServiceClient::new(ch)
            })
            .collect();
        let mut records: Vec<shinpan_sgf::Record> = std::fs::read_dir(shinpan_e2e::games_dir().join("19"))
            .expect("../shared/games/19")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
            .filter_map(|p| shinpan_sgf::Record::parse(&shinpan_e2e::read_record(&p)).ok())
            .filter(|r| r.width == 19 && r.height == 19 && r.setup.is_empty() && r.later_setup.is_empty() && r.moves.len() >= 50)
            .filter(|r| r.moves.first().is_some_and(|m| m.color == goban::Color::Black))
            .collect();
        records.sort_by_key(|r| std::cmp::Reverse(r.moves.len()));
        assert!(records.len() >= 20, "too few 19x19 records without handicap in ../shared/games/19");
        let observed = Observed {
            latencies: vec![Vec::new(); phases],
            errors: vec![BTreeMap::new(); phases],
            unavailable: vec![BTreeMap::new(); phases],
            ..Default::default()
        };
        Arc::new(Load {
            clients,
            next_client: AtomicUsize::new(0),
            phase: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            observed: Mutex::new(observed),
            records,
            next_record: AtomicUsize::new(0),
            tournament: format!("HA Cup {}", &uuid::Uuid::new_v4().simple().to_string()[..8]),
            next_board: AtomicU32::new(1),
            acked: AtomicU64::new(0),
            per_game: std::env::var("SHINPAN_HA_BALANCE").is_ok_and(|v| v == "game"),
        })
    }

    fn client(&self) -> Client {
        self.clients[self.next_process()].clone()
    }

    /// The next process, round robin.
    fn next_process(&self) -> usize {
        self.next_client.fetch_add(1, SeqCst) % self.clients.len()
    }

    fn failed(&self, status: &tonic::Status) {
        let phase = self.phase.load(SeqCst);
        let mut o = self.observed.lock().unwrap();
        *o.errors[phase].entry(format!("{:?}", status.code())).or_default() += 1;
        if status.code() == tonic::Code::Unavailable {
            *o.unavailable[phase].entry(status.message().to_string()).or_default() += 1;
        }
    }

    /// Creates a game (retried on every process until it is acknowledged).
    async fn create_game(&self) -> String {
        let mut req = shinpan_e2e::new_game(&self.tournament, self.next_board.fetch_add(1, SeqCst), 19);
        req.idempotency_key = uuid::Uuid::new_v4().to_string();
        let started = Instant::now();
        loop {
            match self.client().create_game(req.clone()).await {
                Ok(r) => return r.into_inner().game.expect("a game").id,
                Err(s) => {
                    self.failed(&s);
                    assert!(started.elapsed() < GIVE_UP, "CreateGame not acknowledged within {GIVE_UP:?}: {s}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    }

    /// Records move `n` until it is acknowledged, every attempt through the next process
    /// (round robin: consecutive moves of a game are recorded by different processes, as
    /// behind an L7 balancer). With `SHINPAN_HA_BALANCE=game` a game's moves go to its own
    /// process `home` while it answers, else to the next, which becomes `home` (a client
    /// whose channel reaches one pod through an L4 Service, and another once its connection
    /// breaks). `false` when the server refuses the move for good (FAILED_PRECONDITION,
    /// NOT_FOUND, …: the game is not what the client knows).
    async fn record(&self, game: &str, n: u32, mv: &pb::Move, home: &mut usize) -> bool {
        let req = pb::RecordMoveRequest {
            game_id: game.into(),
            move_number: n,
            r#move: Some(mv.clone()),
            client_time: None,
            idempotency_key: format!("{game}/{n}"),
        };
        let started = Instant::now();
        loop {
            let t0 = Instant::now();
            if !self.per_game {
                *home = self.next_process();
            }
            match self.clients[*home].clone().record_move(req.clone()).await {
                Ok(r) => {
                    let latency = t0.elapsed();
                    let r = r.into_inner();
                    let phase = self.phase.load(SeqCst);
                    let mut o = self.observed.lock().unwrap();
                    o.latencies[phase].push(latency.as_micros() as u64);
                    o.acks.push((t0, Instant::now()));
                    self.acked.fetch_add(1, SeqCst);
                    if !r.legal || r.move_number != n {
                        o.refused.push(format!("game {game} move {n}: answered as move {} legal {}", r.move_number, r.legal));
                        return false;
                    }
                    return true;
                }
                Err(s) => {
                    use tonic::Code::*;
                    self.failed(&s);
                    if matches!(s.code(), FailedPrecondition | NotFound | InvalidArgument | AlreadyExists | PermissionDenied) {
                        self.observed.lock().unwrap().refused.push(format!("game {game} move {n}: {:?} {}", s.code(), s.message()));
                        return false;
                    }
                    assert!(started.elapsed() < GIVE_UP, "move {n} of {game} not acknowledged within {GIVE_UP:?}: {s}");
                    *home = (*home + 1) % self.clients.len();
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    }

    /// One client: game after game, move after move, `pace` apart, until stopped (a move
    /// under way is finished first).
    async fn play_games(self: Arc<Self>, pace: Duration, first_game: Option<tokio::sync::oneshot::Sender<String>>) {
        let mut first_game = first_game;
        while !self.stop.load(SeqCst) {
            let record = &self.records[self.next_record.fetch_add(1, SeqCst) % self.records.len()];
            let game = self.create_game().await;
            if let Some(tx) = first_game.take() {
                let _ = tx.send(game.clone());
            }
            let mut acked = Vec::new();
            let mut home = self.next_process();
            // Up to the first pass: the game stays in progress (two passes would end it).
            let moves = record.moves.iter().take_while(|m| m.mv != goban::Move::Pass);
            for (i, m) in moves.enumerate() {
                if self.stop.load(SeqCst) {
                    break;
                }
                let mv = shinpan::convert::move_to_pb(m.color, m.mv);
                if !self.record(&game, i as u32 + 1, &mv, &mut home).await {
                    break;
                }
                acked.push(mv);
                if !pace.is_zero() {
                    tokio::time::sleep(pace).await;
                }
            }
            self.observed.lock().unwrap().games.push((game, acked));
        }
    }
}

/// A WatchGame subscriber that resumes from its next sequence number on another process
/// whenever its stream breaks. Appends the sequence numbers received to `seen`, in order;
/// returns how many streams it opened.
async fn subscribe(load: Arc<Load>, game: String, seen: Arc<Mutex<Vec<u64>>>, stop: tokio::sync::watch::Receiver<bool>) -> usize {
    let mut streams = 0;
    let mut stop = stop;
    while !*stop.borrow() {
        let next = seen.lock().unwrap().last().map_or(1, |s| s + 1);
        let req = pb::WatchGameRequest { game_id: game.clone(), from_sequence: next, until_end: false };
        let mut client = load.client();
        let opened = tokio::select! {
            r = client.watch_game(req) => r,
            _ = stop.changed() => break,
        };
        let Ok(stream) = opened else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        streams += 1;
        let mut stream = stream.into_inner();
        loop {
            tokio::select! {
                m = stream.next() => match m {
                    Some(Ok(m)) => seen.lock().unwrap().push(m.event.expect("an event").sequence),
                    _ => break,
                },
                _ = stop.changed() => return streams,
            }
        }
    }
    streams
}

// ---------------------------------------------------------------------------------------
// A process whose database becomes a standby in recovery

/// One game recorded through one process of its own (`recording-probe`), whose database URL
/// leads through a proxy of its own. The proxy is switched from the primary to the standby
/// while it is still in recovery: the process must refuse the game's next move with
/// `UNAVAILABLE` saying so, and record it, without a restart, once the standby is promoted.
struct Probe {
    replica: Replica,
    proxy: Proxy,
    client: Client,
    game: String,
    moves: Vec<pb::Move>,
    acked: Vec<pb::Move>,
}

/// What the probe saw while its database was a standby in recovery.
struct Refusal {
    /// From the switch to the first answer naming the standby.
    after: Duration,
    /// That answer's message.
    message: String,
    /// Every failed attempt until then: code and message.
    attempts: Vec<String>,
}

impl Probe {
    /// Starts `recording-probe` on the primary (through a proxy of its own) and records the
    /// first move of a game through it.
    async fn start(root: &Path, pair: &Pair, load: &Load) -> Probe {
        let proxy = Proxy::start(pair.primary.as_ref().expect("a primary").port()).await;
        let mut replica = Replica::new("recording-probe", root, pair.url(proxy.port, "shinpan"));
        replica.spawn();
        replica.wait_serving(Duration::from_secs(60)).await;
        // Longer than the pool's acquire timeout (5 s), which a refused connection waits out.
        let ch = Endpoint::from_shared(replica.url()).unwrap().timeout(Duration::from_secs(15)).connect_lazy();
        let client = GameRecordingServiceClient::new(ch);
        let game = load.create_game().await;
        let record = &load.records[0];
        let moves = record.moves.iter().take(3).map(|m| shinpan::convert::move_to_pb(m.color, m.mv)).collect();
        let mut probe = Probe { replica, proxy, client, game, moves, acked: Vec::new() };
        probe.record_next(Duration::from_secs(30)).await.expect("the probe's first move");
        probe
    }

    fn request(&self) -> pb::RecordMoveRequest {
        let n = self.acked.len() as u32 + 1;
        pb::RecordMoveRequest {
            game_id: self.game.clone(),
            move_number: n,
            r#move: Some(self.moves[self.acked.len()].clone()),
            client_time: None,
            idempotency_key: format!("{}/{n}", self.game),
        }
    }

    /// Sends the next move until it is acknowledged; the failed attempts, or the last error
    /// when it is not acknowledged within `timeout` (or refused for good).
    async fn record_next(&mut self, timeout: Duration) -> Result<Vec<String>, String> {
        let started = Instant::now();
        let mut attempts = Vec::new();
        loop {
            match self.client.record_move(self.request()).await {
                Ok(r) if r.get_ref().legal => {
                    self.acked.push(self.moves[self.acked.len()].clone());
                    return Ok(attempts);
                }
                Ok(r) => return Err(format!("answered {:?}", r.into_inner())),
                Err(s) if s.code() == tonic::Code::Unavailable || s.code() == tonic::Code::DeadlineExceeded => {
                    attempts.push(format!("{:?}: {}", s.code(), s.message()));
                    if started.elapsed() > timeout {
                        return Err(format!("not acknowledged within {timeout:?}: {attempts:?}"));
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(s) => return Err(format!("refused: {:?} {}", s.code(), s.message())),
            }
        }
    }

    /// Switches the process's database to `standby` (in recovery) and sends the next move
    /// until the answer says the database is a standby in recovery.
    async fn refused_by_standby(&mut self, standby: u16) -> Refusal {
        self.proxy.switch(standby);
        let t = Instant::now();
        let mut attempts = Vec::new();
        loop {
            let s = match self.client.record_move(self.request()).await {
                Ok(r) => panic!("the probe's move was acknowledged by a standby in recovery: {:?}", r.into_inner()),
                Err(s) => s,
            };
            attempts.push(format!("{:?}: {}", s.code(), s.message()));
            assert_eq!(s.code(), tonic::Code::Unavailable, "a move sent to a standby in recovery: {attempts:?}");
            if s.message().contains(shinpan_storage::primary::IN_RECOVERY) {
                return Refusal { after: t.elapsed(), message: s.message().to_string(), attempts };
            }
            assert!(t.elapsed() < Duration::from_secs(30), "no answer named the standby in recovery within 30 s: {attempts:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

// ---------------------------------------------------------------------------------------
// The checks

/// What the promoted primary holds, compared with what the clients were told.
#[derive(Debug, Default)]
struct Verdict {
    games: usize,
    acknowledged: usize,
    /// Acknowledged moves missing (or different) on the promoted primary.
    lost: Vec<String>,
    /// Moves stored but never acknowledged.
    unacknowledged: Vec<String>,
    duplicates: i64,
    gaps: Vec<String>,
    chain_events: u64,
    chain_breaks: usize,
    sgf_mismatches: Vec<String>,
    refused: Vec<String>,
}

impl Verdict {
    fn nothing_lost(&self) -> bool {
        self.lost.is_empty()
            && self.unacknowledged.is_empty()
            && self.duplicates == 0
            && self.gaps.is_empty()
            && self.chain_breaks == 0
            && self.sgf_mismatches.is_empty()
            && self.refused.is_empty()
    }
}

async fn check(database_url: &str, load: &Load, export_through: &Client) -> Verdict {
    let pool = sqlx::postgres::PgPoolOptions::new().max_connections(2).connect(database_url).await.expect("promoted primary");
    let (games, refused) = {
        let o = load.observed.lock().unwrap();
        (o.games.clone(), o.refused.clone())
    };
    let mut v = Verdict { games: games.len(), refused, ..Default::default() };
    for (game, acked) in &games {
        v.acknowledged += acked.len();
        let id: uuid::Uuid = game.parse().unwrap();
        let stored: Vec<(i32, String, Option<String>)> =
            sqlx::query_as("SELECT move_number, colour, point FROM moves WHERE game_id = $1 ORDER BY move_number")
                .bind(id)
                .fetch_all(&pool)
                .await
                .unwrap();
        for (i, mv) in acked.iter().enumerate() {
            let n = i as i32 + 1;
            let want_colour = if mv.color == pb::Color::Black as i32 { "B" } else { "W" };
            let want_point = match &mv.action {
                Some(pb::r#move::Action::Point(p)) => Some(p.clone()),
                _ => None,
            };
            match stored.iter().find(|(m, _, _)| *m == n) {
                Some((_, c, p)) if c == want_colour && *p == want_point => {}
                Some(other) => v.lost.push(format!("game {game} move {n}: acknowledged {want_colour} {want_point:?}, stored {other:?}")),
                None => v.lost.push(format!("game {game} move {n}: acknowledged, not stored")),
            }
        }
        for (n, _, _) in &stored {
            if *n as usize > acked.len() {
                v.unacknowledged.push(format!("game {game} move {n}"));
            }
        }
        let numbers: Vec<i32> = stored.iter().map(|s| s.0).collect();
        if numbers != (1..=numbers.len() as i32).collect::<Vec<_>>() {
            v.gaps.push(format!("game {game}: move numbers {:?}…", &numbers[..numbers.len().min(10)]));
        }
        match export_through.clone().export_sgf(pb::ExportSgfRequest { game_id: game.clone() }).await {
            Ok(sgf) => {
                let exported = shinpan_sgf::Record::parse(&sgf.into_inner().sgf).expect("exported SGF parses");
                let exported: Vec<pb::Move> = exported.moves.iter().map(|m| shinpan::convert::move_to_pb(m.color, m.mv)).collect();
                if &exported != acked {
                    v.sgf_mismatches.push(format!("game {game}: exported {} moves, acknowledged {}", exported.len(), acked.len()));
                }
            }
            Err(s) => v.sgf_mismatches.push(format!("game {game}: ExportSgf {:?} {}", s.code(), s.message())),
        }
    }
    v.duplicates = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT game_id, move_number FROM moves GROUP BY 1, 2 HAVING count(*) > 1 \
         UNION ALL SELECT game_id, NULL FROM moves WHERE idempotency_key IS NOT NULL GROUP BY game_id, idempotency_key HAVING count(*) > 1) d",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let report = Store::new(pool.clone()).verify_all().await.expect("verify the chains");
    v.chain_events = report.events;
    v.chain_breaks = report.breaks.len();
    pool.close().await;
    v
}

// ---------------------------------------------------------------------------------------
// The scenario

struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

/// One run: the load through three recording processes, the faults, the checks. Returns the
/// verdict and what the subscriber saw against what the game holds.
async fn scenario(synchronous: bool, replica_faults: bool) -> (Verdict, bool) {
    let mode = if synchronous { "synchronous" } else { "asynchronous" };
    println!("\n== {mode} replication{}", if replica_faults { "" } else { " (negative control: the database fault only)" });
    let root = std::env::temp_dir().join(format!("shinpan-ha-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Removed last, also when a check fails (after the clusters and processes are stopped).
    let _root = RemoveOnDrop(root.clone());

    let mut pair = Pair::start(&root, synchronous).await;
    let proxy = Proxy::start(pair.primary.as_ref().unwrap().port()).await;
    let url = pair.url(proxy.port, "shinpan");
    let mut replicas: Vec<Replica> = (1..=3).map(|i| Replica::new(&format!("recording-{i}"), &root, url.clone())).collect();
    // The first applies the migrations; the others find them applied.
    for r in &mut replicas {
        r.spawn();
    }
    for r in &replicas {
        r.wait_serving(Duration::from_secs(60)).await;
    }

    let phases: Vec<&str> = if replica_faults {
        vec!["steady", "SIGKILL recording-1, restart", "SIGTERM recording-2, restart", "primary failover", "after failover"]
    } else {
        vec!["steady", "primary failover", "after failover"]
    };
    let urls: Vec<String> = replicas.iter().map(Replica::url).collect();
    let load = Load::new(&urls, phases.len());
    // The process whose database becomes a standby: refused during the steady phase, back
    // after the promotion.
    let probe = if replica_faults {
        let mut probe = Probe::start(&root, &pair, &load).await;
        let standby = pair.standby.port();
        Some(tokio::spawn(async move {
            let refusal = probe.refused_by_standby(standby).await;
            (probe, refusal)
        }))
    } else {
        None
    };
    let mut phase_start = vec![Instant::now()];
    let mut workers = Vec::new();
    let games_at_once = std::env::var("SHINPAN_HA_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(GAMES_AT_ONCE);
    for _ in 0..games_at_once {
        workers.push(tokio::spawn(load.clone().play_games(Duration::ZERO, None)));
    }
    // The watched game: the longest record, a move every 100 ms, so it spans the faults.
    let (first_tx, first_rx) = tokio::sync::oneshot::channel();
    let watched_load = load.clone();
    workers.push(tokio::spawn(async move { watched_load.play_games(Duration::from_millis(100), Some(first_tx)).await }));
    let watched = first_rx.await.expect("the watched game");
    let (stop_watch, stop_rx) = tokio::sync::watch::channel(false);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let subscriber = tokio::spawn(subscribe(load.clone(), watched.clone(), seen.clone(), stop_rx));

    let steady = Duration::from_secs(if replica_faults { 6 } else { 4 });
    let mut recovery: Vec<String> = Vec::new();
    let next_phase = |load: &Load, starts: &mut Vec<Instant>| {
        starts.push(Instant::now());
        load.phase.fetch_add(1, SeqCst);
    };
    tokio::time::sleep(steady).await;

    if replica_faults {
        next_phase(&load, &mut phase_start);
        let t = Instant::now();
        replicas[0].kill().await;
        replicas[0].spawn();
        replicas[0].wait_serving(Duration::from_secs(30)).await;
        recovery.push(format!("SIGKILL recording-1: serving again {:.2} s after the kill", t.elapsed().as_secs_f64()));
        tokio::time::sleep(steady.saturating_sub(t.elapsed())).await;

        next_phase(&load, &mut phase_start);
        let t = Instant::now();
        let status = replicas[1].terminate().await;
        let drained = t.elapsed();
        assert!(status.success(), "recording-2 exits cleanly after SIGTERM: {status}");
        replicas[1].spawn();
        replicas[1].wait_serving(Duration::from_secs(30)).await;
        recovery.push(format!(
            "SIGTERM recording-2: drained and exited in {:.2} s, serving again {:.2} s after the signal",
            drained.as_secs_f64(),
            t.elapsed().as_secs_f64()
        ));
        tokio::time::sleep(steady.saturating_sub(t.elapsed())).await;
    }

    // The database: the link to the standby stalls for a second, then the primary dies and
    // what the link held back is lost with it.
    next_phase(&load, &mut phase_start);
    pair.link.pause();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let acked_before = load.acked.load(SeqCst);
    let t = Instant::now();
    tokio::task::block_in_place(|| pair.stop_primary_immediately());
    let stopped_at = Instant::now();
    pair.link.cut();
    tokio::task::block_in_place(|| pair.promote_standby());
    let promoted = Instant::now();
    proxy.switch(pair.standby.port());
    let switched = t.elapsed();
    // The probe's process, refused by the standby before, records its move now, unrestarted.
    let probe = match probe {
        Some(task) => {
            let (mut probe, refusal) = task.await.expect("the probe");
            Some(tokio::spawn(async move {
                let back = probe.record_next(Duration::from_secs(30)).await.map(|_| promoted.elapsed());
                (probe, refusal, back)
            }))
        }
        None => None,
    };
    // The first acknowledgement of a call sent after the primary stopped.
    let first_ack = loop {
        let first = {
            let o = load.observed.lock().unwrap();
            o.acks.iter().filter(|(sent, _)| *sent > stopped_at).map(|(_, a)| *a).min()
        };
        if let Some(a) = first {
            break a.duration_since(stopped_at);
        }
        assert!(t.elapsed() < Duration::from_secs(60), "no RecordMove acknowledged within 60 s of the failover");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    recovery.push(format!(
        "primary failover: standby promoted and proxy switched {:.2} s after the stop, first RecordMove acknowledged after {:.2} s ({} acknowledged before the stop)",
        switched.as_secs_f64(),
        first_ack.as_secs_f64(),
        acked_before
    ));
    tokio::time::sleep(steady.saturating_sub(t.elapsed())).await;
    next_phase(&load, &mut phase_start);
    tokio::time::sleep(steady).await;

    load.stop.store(true, SeqCst);
    let end = Instant::now();
    for w in workers {
        w.await.expect("a client task");
    }
    phase_start.push(end);

    // The subscriber catches up with what the promoted primary holds, then stops.
    let direct = pair.url(pair.standby.port(), "shinpan");
    let stored_events: i64 = {
        let mut c = sqlx_connect(&direct).await;
        sqlx::query_scalar("SELECT coalesce(max(seq), 0) FROM events WHERE game_id = $1")
            .bind(watched.parse::<uuid::Uuid>().unwrap())
            .fetch_one(&mut c)
            .await
            .unwrap()
    };
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline && seen.lock().unwrap().last().copied().unwrap_or(0) < stored_events as u64 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = stop_watch.send(true);
    let streams = subscriber.await.expect("the subscriber");
    let seen = seen.lock().unwrap().clone();
    let exactly_once = seen == (1..=stored_events as u64).collect::<Vec<_>>();

    // Report.
    {
        let o = load.observed.lock().unwrap();
        println!("{:<32} {:>6} {:>7} {:>9} {:>9} {:>9}  failed attempts", "phase", "s", "moves", "moves/s", "p50 ms", "p99 ms");
        for (i, name) in phases.iter().enumerate() {
            let secs = phase_start[i + 1].duration_since(phase_start[i]).as_secs_f64();
            let mut l = o.latencies[i].clone();
            l.sort_unstable();
            println!(
                "{:<32} {:>6.1} {:>7} {:>9.0} {:>9.2} {:>9.2}  {:?}",
                name,
                secs,
                l.len(),
                l.len() as f64 / secs,
                percentile(&l, 0.5),
                percentile(&l, 0.99),
                o.errors[i]
            );
        }
    }
    let probe = match probe {
        Some(task) => {
            let (mut probe, refusal, back) = task.await.expect("the probe");
            let back = back.expect("the probe's process records its move after the promotion, without a restart");
            load.observed.lock().unwrap().games.push((probe.game.clone(), probe.acked.clone()));
            let mut line = format!(
                "recording-probe, its database switched to the standby in recovery: the move refused after {:.2} s, \
                 recorded {:.2} s after the promotion, without a restart; its attempts:",
                refusal.after.as_secs_f64(),
                back.as_secs_f64()
            );
            for a in &refusal.attempts {
                line.push_str(&format!("\n  {a}"));
            }
            recovery.push(line);
            probe.replica.terminate().await;
            Some(refusal)
        }
        None => None,
    };
    for r in &recovery {
        println!("recovery: {r}");
    }
    {
        let o = load.observed.lock().unwrap();
        if let Some(i) = phases.iter().position(|p| *p == "primary failover") {
            let mut messages: Vec<(&String, &u64)> = o.unavailable[i].iter().collect();
            messages.sort_by(|a, b| b.1.cmp(a.1));
            for (m, n) in messages.iter().take(4) {
                println!("UNAVAILABLE during the failover, {n}×: {m}");
            }
        }
    }
    let verdict = check(&direct, &load, &load.clients[2]).await;
    println!(
        "checked on the promoted primary: {} games, {} acknowledged moves; lost {}, stored but unacknowledged {}, duplicated {}, \
         games with gaps {}, refused calls {}; hash chains: {} events, {} broken; exported SGF differing {}",
        verdict.games,
        verdict.acknowledged,
        verdict.lost.len(),
        verdict.unacknowledged.len(),
        verdict.duplicates,
        verdict.gaps.len(),
        verdict.refused.len(),
        verdict.chain_events,
        verdict.chain_breaks,
        verdict.sgf_mismatches.len()
    );
    for line in verdict.lost.iter().chain(&verdict.refused).chain(&verdict.gaps).chain(&verdict.sgf_mismatches).take(5) {
        println!("  {line}");
    }
    println!(
        "WatchGame subscriber: {} events over {streams} streams, the game holds {stored_events}: {}",
        seen.len(),
        if exactly_once { "every event exactly once" } else { "NOT every event exactly once" }
    );

    for r in &mut replicas {
        if r.child.is_some() {
            r.terminate().await;
        }
    }
    drop(pair);
    if let Some(refusal) = probe {
        assert!(refusal.message.contains("retry the call"), "the refusal says what to do: {}", refusal.message);
    }
    (verdict, exactly_once)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_acknowledged_is_lost_through_replica_and_primary_failures() {
    let bounded = Duration::from_secs(420);
    tokio::time::timeout(bounded, async {
        let (verdict, exactly_once) = scenario(true, true).await;
        assert!(verdict.acknowledged > 1000, "the load recorded too little to mean anything: {verdict:?}");
        assert!(verdict.nothing_lost(), "synchronous replication lost or changed something: {verdict:#?}");
        assert!(exactly_once, "the WatchGame subscriber did not see every event exactly once");

        // Negative control: the same database fault without synchronous replication loses
        // acknowledged moves, and the same check says so.
        let (control, _) = scenario(false, false).await;
        assert!(!control.lost.is_empty(), "asynchronous replication lost nothing: the check could not tell ({control:?})");
        assert!(!control.nothing_lost());
    })
    .await
    .expect("the fault test finishes within 7 minutes");
}
