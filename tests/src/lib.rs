//! # shinpan-e2e — end-to-end tests of the shinpan services
//!
//! Every test starts the real server ([`shinpan::startup::Application`]) on `127.0.0.1:0`
//! against a real PostgreSQL: a fresh, migrated database of the test server
//! (`shinpan_storage::testing`: `DATABASE_URL` if set, else a throwaway cluster started from
//! the system's PostgreSQL binaries) and talks to it over gRPC like any client.
//!
//! The tests live in `tests/tests/*.rs`; this library holds the shared harness.

use shinpan::configuration::{ServeArgs, ServiceKind};
use shinpan::startup::Application;
use shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient;
use shinpan_proto::v1::rule_validation_service_client::RuleValidationServiceClient;
use std::path::PathBuf;
use tonic::transport::Channel;

/// A server running in the test process; stops (gracefully) when dropped or on [`TestApp::stop`].
pub struct TestApp {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    /// A connected channel.
    pub channel: Channel,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<Result<(), shinpan::error::StartupError>>>,
}

impl TestApp {
    /// All services on one port, on a fresh database.
    pub async fn spawn() -> TestApp {
        TestApp::spawn_with(ServiceKind::All, None, true).await
    }

    /// The services of `kind` on a fresh database (or none, for validation only), validating
    /// remotely when `validation_url` is given.
    pub async fn spawn_with(kind: ServiceKind, validation_url: Option<String>, database: bool) -> TestApp {
        let store = if database { Some(shinpan_storage::testing::fresh_store().await) } else { None };
        TestApp::spawn_on(kind, validation_url, store).await
    }

    /// The services of `kind` on the given store.
    pub async fn spawn_on(kind: ServiceKind, validation_url: Option<String>, store: Option<shinpan_storage::Store>) -> TestApp {
        let mut args = ServeArgs::local(None, PathBuf::from("/nonexistent"));
        args.service = kind;
        args.validation_url = validation_url;
        let app = Application::with_store(&args, store).await.expect("the application starts");
        let url = app.url();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(app.run_until(async move {
            let _ = rx.await;
        }));
        let channel = shinpan::remote::channel(&url).await.expect("connect to the test server");
        TestApp { url, channel, stop: Some(tx), server: Some(server) }
    }

    /// A `GameRecordingService` client.
    pub fn recording(&self) -> GameRecordingServiceClient<Channel> {
        GameRecordingServiceClient::new(self.channel.clone())
    }

    /// A `RuleValidationService` client.
    pub fn validation(&self) -> RuleValidationServiceClient<Channel> {
        RuleValidationServiceClient::new(self.channel.clone())
    }

    /// Stops the server gracefully and waits for it.
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(s) = self.server.take() {
            s.await.expect("server task").expect("server ran cleanly");
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// The shared game records: `../shared/games` from the workspace root.
pub fn games_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/games")
}

/// Every `.sgf` under [`games_dir`], sorted.
pub fn all_records() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["9", "13", "19"] {
        if let Ok(rd) = std::fs::read_dir(games_dir().join(sub)) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "sgf") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// Reads a record as text (UTF-8, lossy).
pub fn read_record(path: &std::path::Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).expect("record readable")).into_owned()
}

/// A move message.
pub fn play(color: shinpan_proto::v1::Color, point: &str) -> shinpan_proto::v1::Move {
    shinpan_proto::v1::Move { color: color as i32, action: Some(shinpan_proto::v1::r#move::Action::Point(point.into())) }
}

/// A pass message.
pub fn pass(color: shinpan_proto::v1::Color) -> shinpan_proto::v1::Move {
    shinpan_proto::v1::Move { color: color as i32, action: Some(shinpan_proto::v1::r#move::Action::Pass(true)) }
}

/// A `CreateGame` request for round 1 of `tournament` on table `board`: two named, ranked
/// players, a `size` x `size` board, the rule set's default komi, no handicap.
pub fn new_game(tournament: &str, board: u32, size: u32) -> shinpan_proto::v1::CreateGameRequest {
    shinpan_proto::v1::CreateGameRequest {
        tournament: tournament.into(),
        round: 1,
        board_number: board,
        black: Some(shinpan_proto::v1::Player { name: "Honinbo Shusaku".into(), rank: "7d".into(), federation_id: String::new() }),
        white: Some(shinpan_proto::v1::Player { name: "Gennan Inseki".into(), rank: "8d".into(), federation_id: String::new() }),
        board_size: size,
        komi: None,
        handicap: 0,
        rule_set: String::new(),
        idempotency_key: String::new(),
    }
}
