//! The embedded PostgreSQL under supervision, against the real server (in-process,
//! 127.0.0.1:0, its own embedded cluster, real gRPC over loopback): after SIGKILL of the
//! postmaster the server reaps it, health turns NOT_SERVING, the cluster is restarted and
//! health turns SERVING again, and what was recorded before is there and new writes work;
//! with a database the server does not own, health alone follows it.

use shinpan::configuration::ServeArgs;
use shinpan::startup::Application;
use shinpan_proto::v1 as pb;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tonic::transport::Channel;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

fn new_game() -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        tournament: "Supervision Cup".into(),
        round: 1,
        board_number: 0,
        black: Some(pb::Player { name: "Honinbo Shusaku".into(), rank: "7d".into(), federation_id: String::new() }),
        white: Some(pb::Player { name: "Gennan Inseki".into(), rank: "8d".into(), federation_id: String::new() }),
        board_size: 9,
        komi: None,
        handicap: 0,
        rule_set: String::new(),
        idempotency_key: String::new(),
    }
}

fn record(game: &str, n: u32, colour: pb::Color, point: &str) -> pb::RecordMoveRequest {
    let mv = pb::Move { color: colour as i32, action: Some(pb::r#move::Action::Point(point.into())) };
    pb::RecordMoveRequest {
        game_id: game.into(),
        move_number: n,
        r#move: Some(mv),
        client_time: None,
        idempotency_key: format!("move-{n}"),
    }
}

/// The pid in a data directory's `postmaster.pid`.
fn postmaster_pid(data_dir: &Path) -> Option<i32> {
    std::fs::read_to_string(data_dir.join("postmaster.pid")).ok()?.lines().next()?.trim().parse().ok()
}

/// The state letter of `/proc/<pid>/stat` (`Z` for a zombie), `None` when there is no such process.
fn process_state(pid: i32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(stat[stat.rfind(')')? + 1..].split_whitespace().next()?.to_string())
}

/// Polls the whole server's health every 50 ms until it is `want`, for at most `bound`;
/// the time it took.
async fn wait_health(channel: &Channel, want: ServingStatus, bound: Duration) -> Duration {
    let start = Instant::now();
    let mut health = HealthClient::new(channel.clone());
    loop {
        let got = health.check(HealthCheckRequest { service: String::new() }).await.map(|r| r.into_inner().status);
        if got.as_ref().is_ok_and(|s| *s == want as i32) {
            return start.elapsed();
        }
        assert!(start.elapsed() < bound, "health is not {want:?} after {bound:?} (last: {got:?})");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Retries `RecordMove` (its idempotency key makes that safe) until it is acknowledged, for
/// at most 30 s; the failed attempts.
async fn record_until_acknowledged(
    client: &mut pb::game_recording_service_client::GameRecordingServiceClient<Channel>,
    req: pb::RecordMoveRequest,
) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut failures = Vec::new();
    loop {
        match client.record_move(req.clone()).await {
            Ok(r) => {
                assert!(r.get_ref().legal, "{:?}", r.get_ref());
                return failures;
            }
            Err(e) => {
                assert!(Instant::now() < deadline, "RecordMove still fails after 30 s: {e:?} (earlier: {failures:?})");
                failures.push(format!("{:?}: {}", e.code(), e.message()));
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_embedded_postgres_is_reaped_restarted_and_health_follows() {
    let root: PathBuf = std::env::temp_dir().join(format!("shinpan-supervision-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&root).unwrap();
    let args = ServeArgs::local(None, root.clone());
    let app = Application::build(&args).await.expect("the server starts with an embedded cluster");
    let url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let channel = shinpan::remote::channel(&url).await.expect("connect");
    let mut client = pb::game_recording_service_client::GameRecordingServiceClient::new(channel.clone());
    wait_health(&channel, ServingStatus::Serving, Duration::from_secs(5)).await;

    // A game with one move, acknowledged before the kill.
    let game = client.create_game(new_game()).await.unwrap().into_inner().game.expect("the game");
    assert!(client.record_move(record(&game.id, 1, pb::Color::Black, "ee")).await.unwrap().get_ref().legal);

    let data_dir = root.join("pg");
    let old = postmaster_pid(&data_dir).expect("postmaster.pid names the postmaster");
    // SAFETY: SIGKILL to the postmaster this test's server started.
    assert_eq!(unsafe { libc::kill(old, libc::SIGKILL) }, 0);
    let killed = Instant::now();

    let down = wait_health(&channel, ServingStatus::NotServing, Duration::from_secs(30)).await;
    // Every service is NOT_SERVING, not just the whole server.
    let mut health = HealthClient::new(channel.clone());
    for name in ["", shinpan_proto::service_names::GAME_RECORDING, shinpan_proto::service_names::ADJUDICATION] {
        let s = health.check(HealthCheckRequest { service: name.into() }).await.unwrap().into_inner().status;
        if s != ServingStatus::NotServing as i32 {
            // It may already be back; then it must be SERVING everywhere.
            assert_eq!(s, ServingStatus::Serving as i32, "{name}");
        }
    }
    wait_health(&channel, ServingStatus::Serving, Duration::from_secs(90)).await;
    let recovered = killed.elapsed();

    // The killed postmaster was reaped (no zombie), and a new one runs on the directory.
    assert_ne!(process_state(old).as_deref(), Some("Z"), "the killed postmaster is a zombie");
    let new = postmaster_pid(&data_dir).expect("a new postmaster.pid");
    assert_ne!(new, old);
    assert!(process_state(new).is_some_and(|s| s != "Z"), "the new postmaster runs");

    // Nothing lost, and writes work again.
    let failures = record_until_acknowledged(&mut client, record(&game.id, 2, pb::Color::White, "cc")).await;
    let stored = client.get_game(pb::GetGameRequest { game_id: game.id.clone() }).await.unwrap().into_inner().game.expect("the game");
    assert_eq!(stored.moves.len(), 2, "{stored:?}");
    let other = client.create_game(new_game()).await.expect("a new game after recovery").into_inner().game.expect("the game");
    assert_ne!(other.id, game.id);
    // Once health says SERVING, the first write goes through: no stale connection left.
    assert!(failures.is_empty(), "RecordMove failed after health said SERVING: {failures:?}");
    eprintln!(
        "NOT_SERVING {down:?} after SIGKILL; SERVING again {recovered:?} after it; {} failed RecordMove attempts after recovery: {failures:?}",
        failures.len()
    );

    tx.send(()).unwrap();
    served.await.unwrap().expect("the server stops cleanly");
    assert!(!data_dir.join("postmaster.pid").exists(), "the restarted cluster is stopped with the server");
    std::fs::remove_dir_all(&root).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_follows_a_database_the_server_does_not_own() {
    use shinpan_storage::{EmbeddedOptions, EmbeddedPostgres};
    let root: PathBuf = std::env::temp_dir().join(format!("shinpan-supervision-ext-{}", uuid::Uuid::new_v4().simple()));
    let dir = root.join("pg");
    let d2 = dir.clone();
    let pg = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(EmbeddedOptions::persistent(d2))).await.unwrap().unwrap();
    let url = pg.ensure_database("shinpan").await.unwrap();
    let store = shinpan_storage::Store::connect_with(&url, 4).await.unwrap();
    // The server is given the URL's store: it neither owns nor restarts this cluster.
    let args = ServeArgs::local(Some(url.clone()), root.clone());
    let app = Application::with_store(&args, Some(store)).await.expect("the server starts");
    let app_url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let channel = shinpan::remote::channel(&app_url).await.expect("connect");
    wait_health(&channel, ServingStatus::Serving, Duration::from_secs(5)).await;

    // The database goes away: health turns NOT_SERVING.
    let pid = pg.postmaster_pid().unwrap() as i32;
    // SAFETY: SIGKILL to the postmaster this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let down = wait_health(&channel, ServingStatus::NotServing, Duration::from_secs(30)).await;

    // This test brings it back: health turns SERVING, and calls work.
    let pg = tokio::task::spawn_blocking(move || {
        let mut pg = pg;
        let deadline = Instant::now() + Duration::from_secs(60);
        while pg.try_reap().is_none() {
            assert!(Instant::now() < deadline, "the postmaster is not reaped");
            std::thread::sleep(Duration::from_millis(50));
        }
        loop {
            match pg.restart() {
                Ok(()) => return pg,
                Err(e) => assert!(Instant::now() < deadline, "no restart: {e}"),
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    })
    .await
    .unwrap();
    let up = wait_health(&channel, ServingStatus::Serving, Duration::from_secs(30)).await;
    eprintln!("NOT_SERVING {down:?} after SIGKILL; SERVING {up:?} after PostgreSQL accepted connections again");
    let mut client = pb::game_recording_service_client::GameRecordingServiceClient::new(channel.clone());
    let deadline = Instant::now() + Duration::from_secs(30);
    while let Err(e) = client.create_game(new_game()).await {
        assert!(Instant::now() < deadline, "CreateGame still fails: {e:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    tx.send(()).unwrap();
    served.await.unwrap().expect("the server stops cleanly");
    assert!(dir.join("postmaster.pid").exists(), "a cluster the server does not own is left running");
    tokio::task::spawn_blocking(move || pg.stop()).await.unwrap().unwrap();
    std::fs::remove_dir_all(&root).unwrap();
}
