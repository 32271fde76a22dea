//! Client connections against the real server (in-process, 127.0.0.1:0, real PostgreSQL,
//! real gRPC over loopback): sockets that never finish the HTTP/2 handshake are closed
//! within `--handshake-timeout` while calls go on being served, connections beyond
//! `--max-client-connections` are refused, and a connection without a call in progress is
//! closed after `--idle-timeout` while a quiet `WatchGame` stream is kept; and a real
//! `shinpan serve` process under an open-file limit of 1,024 (systemd's default) keeps
//! serving while 1,100 sockets hang in the handshake.

mod common;

use common::Server;
use shinpan::configuration::ServeArgs;
use shinpan_proto::v1 as pb;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tonic::transport::Channel;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

/// The first 16 of the 24 bytes of the HTTP/2 client preface.
const HALF_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n";

/// The whole client preface and an empty SETTINGS frame: a completed handshake.
const FULL_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";

async fn server(configure: impl FnOnce(&mut ServeArgs)) -> Server {
    // The idle sockets' both ends are in this process.
    shinpan::connections::raise_open_file_limit().expect("raise the open-file limit");
    common::start(configure).await
}

/// A new channel (a new connection) and one health check plus one `CreateGame` over it,
/// each within `bound`; the time both took.
async fn call(url: &str, bound: Duration, board: u32) -> Result<Duration, String> {
    let start = Instant::now();
    let work = async {
        let channel = Channel::from_shared(url.to_string()).unwrap().connect().await.map_err(|e| format!("connect: {e:?}"))?;
        let health = HealthClient::new(channel.clone())
            .check(HealthCheckRequest { service: String::new() })
            .await
            .map_err(|e| format!("health: {e:?}"))?
            .into_inner();
        assert_eq!(health.status, tonic_health::pb::health_check_response::ServingStatus::Serving as i32);
        pb::game_recording_service_client::GameRecordingServiceClient::new(channel)
            .create_game(new_game(board))
            .await
            .map_err(|e| format!("create_game: {e:?}"))?;
        Ok::<_, String>(())
    };
    match tokio::time::timeout(bound, work).await {
        Ok(Ok(())) => Ok(start.elapsed()),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(format!("no answer within {bound:?}")),
    }
}

fn new_game(board: u32) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        tournament: "Connections Cup".into(),
        round: 1,
        board_number: board,
        black: Some(pb::Player { name: "Honinbo Shusaku".into(), rank: "7d".into(), federation_id: String::new() }),
        white: Some(pb::Player { name: "Gennan Inseki".into(), rank: "8d".into(), federation_id: String::new() }),
        board_size: 9,
        komi: None,
        handicap: 0,
        rule_set: String::new(),
        idempotency_key: String::new(),
    }
}

/// Opens `n` connections, each sending `greeting`.
async fn open(addr: SocketAddr, n: usize, greeting: &'static [u8]) -> Vec<TcpStream> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut s = TcpStream::connect(addr).await.expect("connect");
        s.write_all(greeting).await.expect("send");
        out.push(s);
    }
    out
}

/// Waits (at most `bound`) until the server closes `s` (end of file or reset), discarding
/// what it sends; whether it did.
async fn closed_by_server(mut s: TcpStream, bound: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let drain = async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(bound, drain).await.is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_half_prefaces_are_closed_and_calls_go_on() {
    let handshake = Duration::from_secs(2);
    let s = server(|a| a.handshake_timeout = handshake.as_secs_f64()).await;
    let opened = Instant::now();
    let idle = open(s.addr, 1500, HALF_PREFACE).await;
    let opening = opened.elapsed();
    // (a) While 1,500 sockets hang in the handshake, a new client is served promptly.
    let took = call(&s.url, Duration::from_secs(10), 1).await.expect("a call while 1,500 sockets are idle");
    // (b) The server closes every one of them once the handshake timeout has passed.
    let bound = handshake + opening + Duration::from_secs(20);
    let results = futures::future::join_all(idle.into_iter().map(|c| closed_by_server(c, bound))).await;
    let open_still = results.iter().filter(|closed| !**closed).count();
    let all_closed = opened.elapsed();
    eprintln!(
        "1500 half prefaces opened in {opening:?}; a call took {took:?}; all closed after {all_closed:?} (handshake timeout {handshake:?})"
    );
    assert_eq!(open_still, 0, "{open_still} of 1500 idle sockets still open after {bound:?}");
    call(&s.url, Duration::from_secs(10), 2).await.expect("a call afterwards");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_cap_are_refused_until_one_closes() {
    let s = server(|a| {
        a.max_client_connections = 20;
        a.handshake_timeout = 120.0;
    })
    .await;
    let idle = open(s.addr, 20, HALF_PREFACE).await;
    // A call on a 21st connection is refused, naming the limit and the flag, and the
    // connection is closed soon after.
    let refused = call(&s.url, Duration::from_secs(10), 1).await.expect_err("no room for another connection");
    assert!(refused.contains("ResourceExhausted"), "{refused}");
    assert!(refused.contains("connection limit of 20 reached (--max-client-connections)"), "{refused}");
    let lingering = open(s.addr, 1, FULL_PREFACE).await.pop().unwrap();
    assert!(closed_by_server(lingering, Duration::from_secs(20)).await, "a connection over the cap is closed");
    // Past the connections answered that way, one more is sent a GOAWAY saying why and closed.
    let overflow = open(s.addr, shinpan::connections::OVERFLOW_CONNECTIONS, HALF_PREFACE).await;
    let mut extra = TcpStream::connect(s.addr).await.unwrap();
    extra.write_all(FULL_PREFACE).await.unwrap();
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), extra.read_to_end(&mut got)).await;
    assert!(read.is_ok(), "the connection over the cap is closed");
    let text = String::from_utf8_lossy(&got);
    assert!(text.contains("connection limit of 20 reached (--max-client-connections)"), "GOAWAY debug data: {text:?}");
    drop(overflow);
    // Once the idle sockets are gone there is room again.
    drop(idle);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match call(&s.url, Duration::from_secs(5), 2).await {
            Ok(_) => break,
            Err(e) if Instant::now() > deadline => panic!("no room after the idle sockets closed: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_close_but_a_quiet_watch_stream_stays() {
    let s = server(|a| {
        a.idle_timeout = 1.5;
        a.handshake_timeout = 120.0;
    })
    .await;
    // A client that completed the handshake and calls nothing is closed (the handshake
    // timeout is far away, so it is the idle timeout that closes it).
    let idle = open(s.addr, 1, FULL_PREFACE).await.pop().unwrap();
    assert!(closed_by_server(idle, Duration::from_secs(30)).await, "an idle connection is closed");

    // A WatchGame stream with no event for longer than the idle timeout is kept.
    let channel = Channel::from_shared(s.url.clone()).unwrap().connect().await.unwrap();
    let mut client = pb::game_recording_service_client::GameRecordingServiceClient::new(channel);
    let game = client.create_game(new_game(1)).await.unwrap().into_inner().game.expect("the game");
    let mut stream = client
        .watch_game(pb::WatchGameRequest { game_id: game.id.clone(), from_sequence: 1, until_end: false })
        .await
        .unwrap()
        .into_inner();
    let first = stream.message().await.unwrap().expect("game_created").event.expect("an event");
    assert_eq!(first.sequence, 1);
    tokio::time::sleep(Duration::from_secs(5)).await;
    let mv = pb::Move { color: pb::Color::Black as i32, action: Some(pb::r#move::Action::Point("ee".into())) };
    let req = pb::RecordMoveRequest {
        game_id: game.id.clone(),
        move_number: 1,
        r#move: Some(mv),
        client_time: None,
        idempotency_key: "k1".into(),
    };
    let recorded = client.record_move(req).await.expect("the connection is still open").into_inner();
    assert!(recorded.legal);
    let next = tokio::time::timeout(Duration::from_secs(10), stream.message()).await.expect("the event arrives");
    assert_eq!(next.expect("the stream is open").expect("an event").event.expect("an event").sequence, 2);
}

/// A `shinpan serve --service validation` process (no database) with `RLIMIT_NOFILE` set to
/// 1,024 (soft and hard, as systemd's default), its stderr collected.
struct Process {
    child: std::process::Child,
    addr: SocketAddr,
    log: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_with_1024_files(extra: &[&str]) -> Process {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_shinpan"));
    cmd.args(["serve", "--service", "validation", "--listen", "127.0.0.1:0", "--log-format", "json"])
        .args(extra)
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    // SAFETY: setrlimit only, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit { rlim_cur: 1024, rlim_max: 1024 };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let mut child = cmd.spawn().expect("start shinpan serve");
    let stderr = child.stderr.take().unwrap();
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let sink = log.clone();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("shinpan serving ").and_then(|l| l.split(" on http://").nth(1)) {
                let _ = tx.send(url.trim().to_string());
            }
            let mut l = sink.lock().unwrap();
            l.push_str(&line);
            l.push('\n');
        }
    });
    let addr = rx.recv_timeout(Duration::from_secs(30)).expect("the server says where it listens").parse().unwrap();
    Process { child, addr, log }
}

/// One health check over a new connection, within 5 s.
async fn health_check(addr: SocketAddr) -> Result<(), String> {
    let work = async {
        let channel = Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.map_err(|e| format!("connect: {e:?}"))?;
        let r = HealthClient::new(channel).check(HealthCheckRequest { service: String::new() }).await.map_err(|e| format!("{e:?}"))?;
        assert_eq!(r.get_ref().status, tonic_health::pb::health_check_response::ServingStatus::Serving as i32);
        Ok::<_, String>(())
    };
    tokio::time::timeout(Duration::from_secs(5), work).await.unwrap_or_else(|_| Err("no answer within 5 s".into()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_at_1024_open_files_outlives_1100_idle_sockets() {
    shinpan::connections::raise_open_file_limit().expect("raise the open-file limit");
    let handshake = Duration::from_secs(8);
    let p = serve_with_1024_files(&["--handshake-timeout", "8"]);
    health_check(p.addr).await.expect("serving");
    let opened = Instant::now();
    let idle = open(p.addr, 1100, HALF_PREFACE).await;
    let opening = opened.elapsed();
    // Calls are served again within a bounded time: the idle sockets are closed after the
    // handshake timeout (the cap keeps the server within its open files meanwhile).
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut refused = Vec::new();
    loop {
        match health_check(p.addr).await {
            Ok(()) => break,
            Err(e) => {
                assert!(Instant::now() < deadline, "no call served within 60 s: {e} (earlier: {refused:?})");
                refused.push(e);
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        }
    }
    let served_after = opened.elapsed();
    let results = futures::future::join_all(idle.into_iter().map(|c| closed_by_server(c, Duration::from_secs(30)))).await;
    let open_still = results.iter().filter(|closed| !**closed).count();
    assert_eq!(open_still, 0, "{open_still} of 1100 idle sockets still open");
    let log = p.log.lock().unwrap().clone();
    eprintln!(
        "served again {served_after:?} after opening 1100 idle sockets; {} calls refused before: {:?}",
        refused.len(),
        refused.first()
    );
    assert!(log.contains("the open-file limit leaves room for 880 client connections"), "{log}");
    if opening < handshake {
        // All 1,100 were open at once: the ones over the cap were refused, and that is logged.
        assert!(log.contains("refused a client connection: 880 are open, the limit set by --max-client-connections"), "{log}");
    }
}
