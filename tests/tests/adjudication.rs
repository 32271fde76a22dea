//! End-to-end tests of `AdjudicationService` (第七条 life and death by hypothetical play, 第八条
//! territory, 第九条 agreements, 第十条 count) over real gRPC on 127.0.0.1:0 against a real
//! PostgreSQL: the official kakunin examples as SGF, a stored game (the `adjudicated` event in
//! the game's log), agreements and their refutation, the progress stream, the errors, and the
//! deployment (`--service adjudication`, `--auth all`).

use shinpan::auth::{AuthConfig, AuthScope, Role};
use shinpan::configuration::ServiceKind;
use shinpan_e2e::TestApp;
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::adjudication_service_client::AdjudicationServiceClient;
use shinpan_storage::{CaseFilter, CaseKind, Store};
use std::collections::BTreeMap;
use std::path::PathBuf;
use tonic::transport::Channel;
use tonic::Code;
use tonic_types::StatusExt;

fn kakunin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/kakunin")
}

fn kakunin_sgf(n: &str) -> String {
    std::fs::read_to_string(kakunin_dir().join(format!("kakunin-{n}.sgf"))).expect("kakunin record")
}

/// The verdict of `kakunin-N.json`: SGF point → expected status.
fn kakunin_expect(n: &str) -> BTreeMap<String, i32> {
    let text = std::fs::read_to_string(kakunin_dir().join(format!("kakunin-{n}.json"))).expect("kakunin verdict");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut out = BTreeMap::new();
    for (key, st) in [("alive", pb::ChainStatus::Alive), ("dead", pb::ChainStatus::Dead), ("seki", pb::ChainStatus::Seki)] {
        for p in v["expect"][key].as_array().into_iter().flatten() {
            out.insert(p.as_str().unwrap().to_string(), st as i32);
        }
    }
    assert!(!out.is_empty(), "kakunin-{n}.json lists stones");
    out
}

fn statuses(r: &pb::AdjudicateResponse) -> BTreeMap<String, i32> {
    r.statuses.iter().map(|s| (s.point.clone(), s.status)).collect()
}

struct Env {
    app: TestApp,
    store: Store,
}

impl Env {
    async fn new() -> Env {
        let store = shinpan_storage::testing::fresh_store().await;
        let app = TestApp::spawn_on(ServiceKind::All, None, Some(store.clone())).await;
        Env { app, store }
    }
    fn adj(&self) -> AdjudicationServiceClient<Channel> {
        AdjudicationServiceClient::new(self.app.channel.clone())
    }
    async fn import(&self, sgf: String, board: u32) -> String {
        self.app
            .recording()
            .import_sgf(pb::ImportSgfRequest {
                sgf,
                tournament: "Honinbo League".into(),
                round: 1,
                board_number: board,
                rule_set: String::new(),
                ..Default::default()
            })
            .await
            .expect("import")
            .into_inner()
            .game
            .unwrap()
            .id
    }
}

fn sgf_req(sgf: String) -> pb::AdjudicateRequest {
    pb::AdjudicateRequest { position: Some(pb::adjudicate_request::Position::Sgf(sgf)), ..Default::default() }
}

fn game_req(id: &str) -> pb::AdjudicateRequest {
    pb::AdjudicateRequest { position: Some(pb::adjudicate_request::Position::GameId(id.into())), ..Default::default() }
}

fn stream_req(r: pb::AdjudicateRequest) -> pb::AdjudicateStreamRequest {
    pb::AdjudicateStreamRequest { request: Some(r) }
}

fn check_kakunin(n: &str, r: &pb::AdjudicateResponse) {
    let got = statuses(r);
    for (p, want) in kakunin_expect(n) {
        assert_eq!(got.get(&p), Some(&want), "kakunin-{n}: {p}: got {:?}, want {want}", got.get(&p));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kakunin_examples_as_sgf_have_the_commentary_statuses() {
    let env = Env::new().await;
    let mut a = env.adj();
    for n in ["1", "9"] {
        let r = a.adjudicate(sgf_req(kakunin_sgf(n))).await.unwrap_or_else(|e| panic!("kakunin-{n}: {e}")).into_inner();
        check_kakunin(n, &r);
        // Every stone of the board is listed once, decided, and the count has a result.
        let rec = shinpan_sgf::Record::parse(&kakunin_sgf(n)).unwrap();
        assert_eq!(r.statuses.len(), rec.setup.black.len() + rec.setup.white.len());
        let mut seen = std::collections::HashSet::new();
        assert!(r.statuses.iter().all(|s| seen.insert(s.point.clone())), "kakunin-{n}: a stone listed twice");
        assert!(r.statuses.iter().all(|s| s.status != pb::ChainStatus::Undecided as i32));
        assert_ne!(r.result, "?");
        assert_eq!(r.rule_set, "japanese-2011");
        assert_eq!(r.sequence, 0, "an SGF adjudication is not stored");
        // A proof for every chain that is not pass-alive, with its line of hypothetical play.
        assert!(!r.proofs.is_empty());
        for p in &r.proofs {
            assert!(!p.stones.is_empty());
            assert!(p.line.iter().all(|m| m.starts_with("B ") || m.starts_with("W ")), "{:?}", p.line);
        }
    }
    // Kakunin 1 (取らず三目): both sides' stones in the corner are dead, neither side
    // gains by capturing; the dead stones are outside any territory.
    let r = a.adjudicate(sgf_req(kakunin_sgf("1"))).await.unwrap().into_inner();
    let s = statuses(&r);
    assert_eq!(s["ab"], pb::ChainStatus::Dead as i32);
    assert_eq!(s["ba"], pb::ChainStatus::Dead as i32);
    // Score = territory + prisoners (+ komi for White) under 第十条.
    let komi = r.komi;
    assert!((r.score_white - (r.territory_white.len() as f64 + r.prisoners_white as f64 + komi)).abs() < 1e-9);
    assert!((r.score_black - (r.territory_black.len() as f64 + r.prisoners_black as f64)).abs() < 1e-9);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_game_is_adjudicated_and_the_adjudication_is_an_event_of_the_game() {
    let env = Env::new().await;
    // A small record: kakunin 9 as setup, then two passes.
    let sgf = kakunin_sgf("9").replacen("SZ[9]", "SZ[9]PB[Sakata]PW[Fujisawa]KM[6.5]", 1);
    let sgf = format!("{};B[];W[])", sgf.trim_end().trim_end_matches(')'));
    let id = env.import(sgf, 1).await;
    let r = env.adj().adjudicate(game_req(&id)).await.unwrap().into_inner();
    check_kakunin("9", &r);
    assert_eq!(r.komi, 6.5, "the game's komi");
    assert_eq!(r.rule_set, "japanese-2011");
    assert!(r.sequence > 0, "stored as an event");
    // The event is in the game's log at that sequence (WatchGame from it).
    let mut w = env
        .app
        .recording()
        .watch_game(pb::WatchGameRequest { game_id: id.clone(), from_sequence: r.sequence, until_end: false })
        .await
        .unwrap()
        .into_inner();
    let ev = w.message().await.unwrap().expect("the adjudicated event").event.unwrap();
    assert_eq!((ev.kind.as_str(), ev.sequence), ("adjudicated", r.sequence));
    let payload: serde_json::Value = serde_json::from_str(&ev.payload_json).unwrap();
    assert_eq!(payload["result"], serde_json::json!(r.result));
    assert_eq!(payload["nodes"], serde_json::json!(r.nodes));
    assert_eq!(payload["move_number"], serde_json::json!(2));
    assert!(payload["statuses"]["undecided"].as_array().unwrap().is_empty());
    let g = env.app.recording().get_game(pb::GetGameRequest { game_id: id.clone() }).await.unwrap().into_inner().game.unwrap();
    assert_eq!(g.last_sequence, r.sequence, "the adjudication is the game's last event");
    // Komi override applies to the count only.
    let mut req = game_req(&id);
    req.komi = Some(0.5);
    let r2 = env.adj().adjudicate(req).await.unwrap().into_inner();
    assert_eq!(r2.komi, 0.5);
    assert!((r.score_white - r2.score_white - 6.0).abs() < 1e-9);
    assert!(r2.sequence > r.sequence);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undecided_stored_adjudication_opens_an_arbiter_case() {
    let env = Env::new().await;
    let id = env.import(kakunin_sgf("1"), 2).await;
    // A budget of one node per region cannot decide the corner: undecided, never a guess.
    let mut req = game_req(&id);
    req.budget_nodes = 1;
    let r = env.adj().adjudicate(req).await.unwrap().into_inner();
    assert_eq!(r.result, "?");
    let undecided: Vec<&str> =
        r.statuses.iter().filter(|s| s.status == pb::ChainStatus::Undecided as i32).map(|s| s.point.as_str()).collect();
    assert!(undecided.contains(&"ab"), "{undecided:?}");
    // Every undecided chain says why (here: the budget), decided ones say nothing.
    for p in &r.proofs {
        let undecided = p.status == pb::ChainStatus::Undecided as i32;
        assert_eq!(p.reason.contains("budget exhausted"), undecided, "{p:?}");
    }
    let cases = env
        .store
        .list_cases(&CaseFilter {
            game_id: Some(uuid::Uuid::parse_str(&id).unwrap()),
            kind: Some(CaseKind::Undecided),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].opened_by, "adjudicator");
    // The arbiter's case carries the reasons with the proofs.
    let reasons: Vec<&str> = cases[0].evidence["proofs"].as_array().unwrap().iter().filter_map(|p| p["reason"].as_str()).collect();
    assert!(reasons.iter().any(|r| r.contains("budget exhausted")), "{:?}", cases[0].evidence);
    // Adjudicating the same position again finds the same case (one per move number).
    let mut again = game_req(&id);
    again.budget_nodes = 1;
    env.adj().adjudicate(again).await.unwrap();
    let cases = env
        .store
        .list_cases(&CaseFilter {
            game_id: Some(uuid::Uuid::parse_str(&id).unwrap()),
            kind: Some(CaseKind::Undecided),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(cases.len(), 1);
    // With the default budget the same game is decided (kakunin 1 verdicts).
    let r = env.adj().adjudicate(game_req(&id)).await.unwrap().into_inner();
    check_kakunin("1", &r);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agreements_stand_unless_disputed_and_refuted_agreements_are_reported() {
    let env = Env::new().await;
    let mut a = env.adj();
    // Kakunin 1: the players agree White's ab is alive (it is dead) and Black's corner dead.
    let agreements = vec![
        pb::Agreement { stones: vec!["ab".into()], status: pb::ChainStatus::Alive as i32 },
        pb::Agreement { stones: vec!["ba".into()], status: pb::ChainStatus::Dead as i32 },
    ];
    let mut req = sgf_req(kakunin_sgf("1"));
    req.agreements = agreements.clone();
    let r = a.adjudicate(req).await.unwrap().into_inner();
    let s = statuses(&r);
    assert_eq!(s["ab"], pb::ChainStatus::Alive as i32, "the agreement stands (第九条)");
    assert_eq!(s["ba"], pb::ChainStatus::Dead as i32);
    // Disputed: the engine's status replaces the agreement, which is reported refuted.
    let mut req = sgf_req(kakunin_sgf("1"));
    req.agreements = agreements;
    req.disputed = vec!["ab".into()];
    let r = a.adjudicate(req).await.unwrap().into_inner();
    assert_eq!(statuses(&r)["ab"], pb::ChainStatus::Dead as i32);
    let f = r.refuted.iter().find(|f| f.stones == vec!["ab".to_string()]).expect("ab refuted");
    assert_eq!((f.agreed, f.found), (pb::ChainStatus::Alive as i32, pb::ChainStatus::Dead as i32));
    assert_eq!(f.proof.as_ref().unwrap().status, pb::ChainStatus::Dead as i32);
    check_kakunin("1", &r);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_reports_progress_and_ends_with_the_unary_result() {
    let env = Env::new().await;
    let mut a = env.adj();
    let unary = a.adjudicate(sgf_req(kakunin_sgf("9"))).await.unwrap().into_inner();
    let mut stream = a.adjudicate_stream(stream_req(sgf_req(kakunin_sgf("9")))).await.unwrap().into_inner();
    let mut msgs = Vec::new();
    while let Some(m) = stream.message().await.unwrap() {
        msgs.push(m);
    }
    assert!(msgs.len() >= 2, "at least one progress message and the result: {msgs:?}");
    let (last, progress) = msgs.split_last().unwrap();
    for (i, p) in progress.iter().enumerate() {
        assert!(p.result.is_none());
        assert_eq!(p.regions_done, i as u32 + 1);
        assert!(p.regions_done <= p.regions_total);
    }
    assert!(progress.windows(2).all(|w| w[0].nodes <= w[1].nodes));
    assert_eq!(last.regions_done, last.regions_total);
    assert_eq!(last.result.as_ref(), Some(&unary));
    assert_eq!(last.nodes, unary.nodes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bare_positions_and_errors() {
    let env = Env::new().await;
    let mut a = env.adj();
    // A bare position: kakunin 1's stones as a Position is adjudicated exactly as the
    // setup-only record (Black to move, no ko pending).
    let rec = shinpan_sgf::Record::parse(&kakunin_sgf("1")).unwrap();
    let board = pb::Position {
        width: 9,
        height: 9,
        black: rec.setup.black.iter().map(|p| p.to_sgf()).collect(),
        white: rec.setup.white.iter().map(|p| p.to_sgf()).collect(),
        to_move: pb::Color::Black as i32,
        ko_point: None,
    };
    let r = a
        .adjudicate(pb::AdjudicateRequest { position: Some(pb::adjudicate_request::Position::Board(board.clone())), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    check_kakunin("1", &r);
    assert_eq!(r, a.adjudicate(sgf_req(kakunin_sgf("1"))).await.unwrap().into_inner());

    // A bad point in an agreement: INVALID_ARGUMENT naming the field.
    let mut req = sgf_req(kakunin_sgf("1"));
    req.agreements = vec![pb::Agreement { stones: vec!["zz".into()], status: pb::ChainStatus::Dead as i32 }];
    let e = a.adjudicate(req).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    let br = e.get_details_bad_request().expect("field violations");
    assert_eq!(br.field_violations[0].field, "agreements[0].stones[0]");
    // A budget above the server's --max-budget: INVALID_ARGUMENT naming the field, for the
    // stream too; the largest allowed budget is accepted.
    let max = shinpan::configuration::DEFAULT_MAX_BUDGET;
    let mut req = sgf_req(kakunin_sgf("1"));
    req.budget_nodes = max + 1;
    let e = a.adjudicate(req.clone()).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    let br = e.get_details_bad_request().expect("field violations");
    assert_eq!(br.field_violations[0].field, "budget_nodes");
    assert!(br.field_violations[0].description.contains(&max.to_string()), "{br:?}");
    assert_eq!(a.adjudicate_stream(stream_req(req.clone())).await.expect_err("refused").code(), Code::InvalidArgument);
    req.budget_nodes = max;
    check_kakunin("1", &a.adjudicate(req).await.unwrap().into_inner());
    // An empty point named as disputed, an unknown rule set, a broken SGF, no position.
    let mut req = sgf_req(kakunin_sgf("1"));
    req.disputed = vec!["aa".into()];
    assert_eq!(a.adjudicate(req).await.unwrap_err().code(), Code::InvalidArgument);
    let mut req = sgf_req(kakunin_sgf("1"));
    req.rule_set = "go-moku".into();
    let e = a.adjudicate(req).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(e.get_details_bad_request().unwrap().field_violations[0].field, "rule_set");
    assert_eq!(a.adjudicate(sgf_req("(;SZ[9];B[ee]".into())).await.unwrap_err().code(), Code::InvalidArgument);
    assert_eq!(a.adjudicate(pb::AdjudicateRequest::default()).await.unwrap_err().code(), Code::InvalidArgument);
    let mut bad_board = board;
    bad_board.white.push("ba".into());
    let e = a
        .adjudicate(pb::AdjudicateRequest { position: Some(pb::adjudicate_request::Position::Board(bad_board)), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    // A foul in the record (第十二条: a stone on an occupied point): FAILED_PRECONDITION
    // with the FOUL details.
    let e = a.adjudicate(sgf_req("(;SZ[9];B[ee];W[ee])".into())).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    let info = e.get_details_error_info().expect("error info");
    assert_eq!(info.reason, "FOUL");
    assert_eq!(info.metadata.get("rule").map(String::as_str), Some("occupied"));
    assert_eq!(info.metadata.get("move_number").map(String::as_str), Some("2"));
    // An unknown game: NOT_FOUND; a malformed id: INVALID_ARGUMENT.
    let e = a.adjudicate(game_req(&uuid::Uuid::new_v4().to_string())).await.unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert_eq!(a.adjudicate(game_req("not-a-uuid")).await.unwrap_err().code(), Code::InvalidArgument);
    // The stream refuses the same way, before any progress.
    assert_eq!(a.adjudicate_stream(stream_req(game_req(&uuid::Uuid::new_v4().to_string()))).await.unwrap_err().code(), Code::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_alone_with_health_and_reflection_and_behind_tokens_with_auth_all() {
    use tonic_health::pb::health_client::HealthClient;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    let store = shinpan_storage::testing::fresh_store().await;
    let app = TestApp::spawn_on(ServiceKind::Adjudication, None, Some(store)).await;
    let mut h = HealthClient::new(app.channel.clone());
    let st = h
        .check(tonic_health::pb::HealthCheckRequest { service: shinpan_proto::service_names::ADJUDICATION.into() })
        .await
        .unwrap()
        .into_inner()
        .status;
    assert_eq!(st, tonic_health::pb::health_check_response::ServingStatus::Serving as i32);
    let mut r = ServerReflectionClient::new(app.channel.clone());
    let req = ServerReflectionRequest { host: String::new(), message_request: Some(MessageRequest::ListServices(String::new())) };
    let resp = r.server_reflection_info(futures::stream::iter(vec![req])).await.unwrap().into_inner().message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(l)) = resp.message_response else { panic!("no service list") };
    let names: Vec<String> = l.service.into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"shinpan.v1.AdjudicationService".to_string()), "{names:?}");
    assert!(!names.contains(&"shinpan.v1.GameRecordingService".to_string()), "{names:?}");
    let ok = AdjudicationServiceClient::new(app.channel.clone()).adjudicate(sgf_req(kakunin_sgf("9"))).await.unwrap().into_inner();
    check_kakunin("9", &ok);
    app.stop().await;

    // --auth all: a token is required.
    let store = shinpan_storage::testing::fresh_store().await;
    let mut args = shinpan::configuration::ServeArgs::local(None, PathBuf::from("/nonexistent"));
    args.auth = AuthScope::All;
    args.jwt_secret = Some("a production secret of at least 32 bytes".into());
    let app = shinpan::startup::Application::with_store(&args, Some(store)).await.unwrap();
    assert!(app.services().contains(&shinpan_proto::service_names::ADJUDICATION));
    let url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let mut c = AdjudicationServiceClient::new(shinpan::remote::channel(&url).await.unwrap());
    assert_eq!(c.adjudicate(sgf_req(kakunin_sgf("9"))).await.unwrap_err().code(), Code::Unauthenticated);
    let token =
        AuthConfig::new("a production secret of at least 32 bytes").issue(Role::Referee, "referee-1", None, None, None, 60).unwrap();
    let mut req = tonic::Request::new(sgf_req(kakunin_sgf("9")));
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    check_kakunin("9", &c.adjudicate(req).await.unwrap().into_inner());
    // ValidateRecord (a whole record parsed) needs a token too; ValidateMove and ListRuleSets
    // stay open for the recording services that call them.
    let mut v =
        shinpan_proto::v1::rule_validation_service_client::RuleValidationServiceClient::new(shinpan::remote::channel(&url).await.unwrap());
    let record = || pb::ValidateRecordRequest {
        record: Some(pb::validate_record_request::Record::Sgf("(;SZ[9];B[ee];W[gc])".into())),
        rule_set: String::new(),
    };
    assert_eq!(v.validate_record(record()).await.unwrap_err().code(), Code::Unauthenticated);
    let mut req = tonic::Request::new(record());
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    let checked = v.validate_record(req).await.unwrap().into_inner();
    assert_eq!((checked.moves_checked, checked.first_foul), (2, None));
    assert!(!v.list_rule_sets(pb::ListRuleSetsRequest::default()).await.unwrap().into_inner().rule_sets.is_empty());
    let position = pb::Position { width: 9, height: 9, to_move: pb::Color::Black as i32, ..Default::default() };
    let mv = pb::Move { color: pb::Color::Black as i32, action: Some(pb::r#move::Action::Point("ee".into())) };
    let legal = v
        .validate_move(pb::ValidateMoveRequest {
            state: Some(pb::validate_move_request::State::Position(position)),
            r#move: Some(mv),
            rule_set: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .legal;
    assert!(legal);

    // A stored game: only its players and officials may adjudicate it (the adjudication is
    // an event of the game); an SGF record or position anyone with a token.
    let secret = AuthConfig::new("a production secret of at least 32 bytes");
    let bearer = |role: Role, sub: &str, tournament: Option<&str>| {
        format!("Bearer {}", secret.issue(role, sub, tournament, None, None, 60).unwrap())
            .parse::<tonic::metadata::MetadataValue<_>>()
            .unwrap()
    };
    let channel = shinpan::remote::channel(&url).await.unwrap();
    let mut rec = shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient::new(channel.clone());
    let sgf = kakunin_sgf("9").replacen("SZ[9]", "SZ[9]PB[Sakata]PW[Fujisawa]KM[6.5]", 1);
    let sgf = format!("{};B[];W[])", sgf.trim_end().trim_end_matches(')'));
    let mut imp = tonic::Request::new(pb::ImportSgfRequest {
        sgf,
        tournament: "Honinbo League".into(),
        round: 1,
        board_number: 1,
        rule_set: String::new(),
        ..Default::default()
    });
    imp.metadata_mut().insert("authorization", bearer(Role::Referee, "referee-1", Some("Honinbo League")));
    let id = rec.import_sgf(imp).await.unwrap().into_inner().game.unwrap().id;
    let last_sequence =
        |rec: &mut shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient<tonic::transport::Channel>, id: String| {
            let mut r = tonic::Request::new(pb::GetGameRequest { game_id: id });
            r.metadata_mut().insert("authorization", bearer(Role::ArchiveReader, "archive", None));
            let mut rec = rec.clone();
            async move { rec.get_game(r).await.unwrap().into_inner().game.unwrap().last_sequence }
        };
    let before = last_sequence(&mut rec, id.clone()).await;
    let call = |role: Role, sub: &str, tournament: Option<&str>, req: pb::AdjudicateRequest| {
        let mut r = tonic::Request::new(req);
        r.metadata_mut().insert("authorization", bearer(role, sub, tournament));
        r
    };
    for (role, sub, tournament) in
        [(Role::ArchiveReader, "archive", None), (Role::Player, "Go Seigen", None), (Role::Referee, "referee-2", Some("Kisei League"))]
    {
        let e = c.adjudicate(call(role, sub, tournament, game_req(&id))).await.unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{role} {sub}: {e:?}");
        assert!(e.message().contains("may not adjudicate a stored game"), "{}", e.message());
        let e = c.adjudicate_stream(call(role, sub, tournament, game_req(&id)).map(stream_req)).await.expect_err("the stream refuses too");
        assert_eq!(e.code(), Code::PermissionDenied, "{role} {sub}: {e:?}");
    }
    assert_eq!(last_sequence(&mut rec, id.clone()).await, before, "a refused adjudication records nothing");
    // The archive reader may still adjudicate a record (nothing is stored).
    check_kakunin("9", &c.adjudicate(call(Role::ArchiveReader, "archive", None, sgf_req(kakunin_sgf("9")))).await.unwrap().into_inner());
    // The game's Black player and its tournament's referee may; each adjudication is an event.
    let mut seq = before;
    for (role, sub, tournament) in [(Role::Player, "Sakata", None), (Role::Referee, "referee-1", Some("Honinbo League"))] {
        let r = c.adjudicate(call(role, sub, tournament, game_req(&id))).await.unwrap().into_inner();
        check_kakunin("9", &r);
        assert!(r.sequence > seq, "{role} {sub}: recorded after {seq}: {}", r.sequence);
        seq = r.sequence;
    }
    assert_eq!(last_sequence(&mut rec, id).await, seq);
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dispute_names_the_agreed_chains_it_draws_in() {
    let env = Env::new().await;
    let mut a = env.adj();
    // Two stones side by side in the open, both agreed alive (no agreement names them
    // dead); Black's is disputed. White's, in a capturing race with it, is drawn in and the
    // answer says so (第九条・第七条).
    let board = pb::Position {
        width: 9,
        height: 9,
        black: vec!["dd".into()],
        white: vec!["ed".into()],
        to_move: pb::Color::Black as i32,
        ko_point: None,
    };
    let req = pb::AdjudicateRequest {
        position: Some(pb::adjudicate_request::Position::Board(board)),
        agreements: vec![pb::Agreement { stones: vec!["dd".into(), "ed".into()], status: pb::ChainStatus::Alive as i32 }],
        disputed: vec!["dd".into()],
        budget_nodes: 2_000,
        ..Default::default()
    };
    let r = a.adjudicate(req).await.unwrap().into_inner();
    let d = r.drawn_in.iter().find(|d| d.stones == vec!["ed".to_string()]).expect("ed drawn in");
    assert_eq!((d.agreed, d.by.as_str()), (pb::ChainStatus::Alive as i32, "dd"));
    assert!(d.reason.contains("第七条"), "{}", d.reason);
    // 2,000 nodes leave the disputed stone undecided: ed keeps the agreement, unsearched.
    assert!(!d.searched, "the answer says ed was not searched");
}
