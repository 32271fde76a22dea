//! Adjudications bounded in time and memory, against the real server (`--service
//! adjudication` in-process on 127.0.0.1:0, no database: positions and records only): a call cancelled by its deadline or
//! by the client stops its search (the core it held is free again at once, not after the
//! search would have ended), and the largest budget on an open 6x6 board ends at the
//! server's memory or time cap with the chains undecided and the cap named.

use shinpan::configuration::{ServeArgs, ServiceKind};
use shinpan::startup::Application;
use shinpan_proto::v1 as pb;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tonic::transport::Channel;
use tonic::Code;

struct Server {
    channel: Channel,
    /// The server's search permits (one per core): all available = no search running.
    searches: Arc<Semaphore>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

async fn server(configure: impl FnOnce(&mut ServeArgs)) -> Server {
    let mut args = ServeArgs::local(None, std::path::PathBuf::from("/nonexistent"));
    args.service = ServiceKind::Adjudication;
    configure(&mut args);
    let app = Application::with_store(&args, None).await.expect("the server starts");
    let searches = app.state().searches.clone();
    let url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let channel = shinpan::remote::channel(&url).await.expect("connect");
    Server { channel, searches, stop: Some(tx) }
}

fn client(s: &Server) -> pb::adjudication_service_client::AdjudicationServiceClient<Channel> {
    pb::adjudication_service_client::AdjudicationServiceClient::new(s.channel.clone())
}

/// Six stones in the middle of an empty 6x6 board: one region of 30 empty points that no
/// budget settles.
fn open_6x6(budget_ms: u64) -> pb::AdjudicateRequest {
    pb::AdjudicateRequest {
        position: Some(pb::adjudicate_request::Position::Board(pb::Position {
            width: 6,
            height: 6,
            black: ["cc", "dc", "cd"].map(String::from).to_vec(),
            white: ["dd", "ed", "de"].map(String::from).to_vec(),
            to_move: pb::Color::Black as i32,
            ko_point: None,
        })),
        budget_nodes: shinpan::configuration::DEFAULT_MAX_BUDGET,
        budget_ms,
        ..Default::default()
    }
}

/// Waits until no search holds a core (every permit of `s` free again), for at most `limit`:
/// how long it took, or `None` if a search was still running.
async fn searches_end(s: &Server, limit: Duration) -> Option<Duration> {
    let total = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let start = Instant::now();
    while start.elapsed() < limit {
        if s.searches.available_permits() == total {
            return Some(start.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

/// Waits until a search holds a core (for at most 20 s).
async fn a_search_runs(s: &Server) {
    let total = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let start = Instant::now();
    while s.searches.available_permits() == total {
        assert!(start.elapsed() < Duration::from_secs(20), "no search started");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_deadline_stops_its_search() {
    let s = server(|_| {}).await;
    assert!(searches_end(&s, Duration::from_secs(1)).await.is_some(), "no search before the call");
    let mut req = tonic::Request::new(open_6x6(0));
    req.set_timeout(Duration::from_secs(2));
    let start = Instant::now();
    let err =
        client(&s).adjudicate(req).await.expect_err("the open board at the largest budget runs until its memory cap, far more than 2 s");
    assert!(matches!(err.code(), Code::DeadlineExceeded | Code::Cancelled), "{err:?}");
    assert!(start.elapsed() < Duration::from_secs(10), "the call ended after {:?}", start.elapsed());
    // The search stops within a few milliseconds of search and frees its tables; uncancelled
    // it would hold its core for tens of seconds more.
    let took = searches_end(&s, Duration::from_secs(5)).await;
    assert!(took.is_some(), "the search still ran 5 s after the deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_the_client_drops_stops_its_search() {
    let s = server(|_| {}).await;
    let mut c = client(&s);
    let call = tokio::spawn(async move { c.adjudicate(open_6x6(0)).await });
    a_search_runs(&s).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    call.abort();
    assert!(call.await.unwrap_err().is_cancelled());
    let took = searches_end(&s, Duration::from_secs(5)).await;
    assert!(took.is_some(), "the search still ran 5 s after the client went away");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_progress_stream_the_client_drops_stops_its_search() {
    let s = server(|_| {}).await;
    let stream = client(&s)
        .adjudicate_stream(pb::AdjudicateStreamRequest { request: Some(open_6x6(0)) })
        .await
        .expect("the stream opens")
        .into_inner();
    a_search_runs(&s).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    drop(stream);
    let took = searches_end(&s, Duration::from_secs(5)).await;
    assert!(took.is_some(), "the search still ran 5 s after the client dropped the stream");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_budget_on_an_open_board_ends_at_the_memory_cap() {
    let s = server(|a| a.max_search_memory_mib = 32).await;
    let r = client(&s).adjudicate(open_6x6(0)).await.expect("an answer").into_inner();
    assert_eq!(r.result, "?");
    assert!(r.statuses.iter().all(|p| p.status == pb::ChainStatus::Undecided as i32), "{:?}", r.statuses);
    assert_eq!(r.proofs.len(), 2);
    for p in &r.proofs {
        assert!(p.reason.contains("memory cap of 32 MiB reached"), "{}", p.reason);
    }
    assert!(r.nodes < shinpan::configuration::DEFAULT_MAX_BUDGET / 10, "{} nodes", r.nodes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_budget_on_an_open_board_ends_at_the_time_cap() {
    let s = server(|a| a.max_search_seconds = 1).await;
    let start = Instant::now();
    let r = client(&s).adjudicate(open_6x6(0)).await.expect("an answer").into_inner();
    assert!(start.elapsed() < Duration::from_secs(15), "took {:?}", start.elapsed());
    assert_eq!(r.result, "?");
    for p in &r.proofs {
        assert!(p.reason.contains("time budget exhausted"), "{}", p.reason);
    }
    // A request's own time budget: within the server's, else refused naming the flag.
    let r = client(&s).adjudicate(open_6x6(300)).await.expect("an answer").into_inner();
    assert!(r.proofs.iter().all(|p| p.reason.contains("time budget exhausted")), "{:?}", r.proofs);
    let err = client(&s).adjudicate(open_6x6(1001)).await.expect_err("more than the server allows");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("budget_ms") || format!("{err:?}").contains("--max-search-seconds"), "{err:?}");
}

/// `shinpan adjudicate --budget-ms`: the open 6x6 board at the largest budget ends when the
/// time runs out, with exit code 4 (undecided) and the reason printed.
#[test]
fn the_command_line_search_stops_at_its_time_budget() {
    let dir = std::env::temp_dir().join(format!("shinpan-search-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("open-6x6.sgf");
    std::fs::write(&file, "(;GM[1]FF[4]SZ[6]AB[cc][dc][cd]AW[dd][ed][de])").unwrap();
    let start = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shinpan"))
        .args(["adjudicate", "--budget", "100000000", "--budget-ms", "500"])
        .arg(&file)
        .output()
        .expect("shinpan runs");
    let took = start.elapsed();
    std::fs::remove_dir_all(&dir).ok();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(text.contains("result: ?"), "{text}");
    assert_eq!(text.matches("time budget exhausted").count(), 2, "{text}");
    assert!(took < Duration::from_secs(15), "took {took:?}");
}
