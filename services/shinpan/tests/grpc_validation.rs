//! RuleValidationService over real gRPC (the validation-only deployment: no database).

use shinpan::configuration::{ServeArgs, ServiceKind};
use shinpan::startup::Application;
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::rule_validation_service_client::RuleValidationServiceClient;
use shinpan_proto::v1::Color::{Black, White};
use tonic::transport::Channel;
use tonic_types::StatusExt;

async fn spawn() -> (RuleValidationServiceClient<Channel>, tokio::sync::oneshot::Sender<()>) {
    let mut args = ServeArgs::local(None, "/nonexistent".into());
    args.service = ServiceKind::Validation;
    let app = Application::with_store(&args, None).await.expect("validation needs no database");
    assert_eq!(app.services(), &[shinpan_proto::service_names::RULE_VALIDATION]);
    let url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    (RuleValidationServiceClient::new(shinpan::remote::channel(&url).await.unwrap()), tx)
}

fn play(c: pb::Color, p: &str) -> pb::Move {
    pb::Move { color: c as i32, action: Some(pb::r#move::Action::Point(p.into())) }
}

fn state(size: u32, moves: &[(pb::Color, &str)]) -> pb::GameState {
    pb::GameState { board_size: size, moves: moves.iter().map(|&(c, p)| play(c, p)).collect(), ..Default::default() }
}

const KO: [(pb::Color, &str); 9] =
    [(Black, "cb"), (White, "db"), (Black, "bc"), (White, "ec"), (Black, "cd"), (White, "dd"), (Black, "ii"), (White, "cc"), (Black, "dc")];

fn check(s: pb::GameState, m: pb::Move) -> pb::ValidateMoveRequest {
    pb::ValidateMoveRequest { state: Some(pb::validate_move_request::State::Game(s)), r#move: Some(m), rule_set: String::new() }
}

#[tokio::test]
async fn ko_capture_and_immediate_retake() {
    let (mut c, _stop) = spawn().await;
    let take = c.validate_move(check(state(9, &KO[..8]), play(Black, "dc"))).await.unwrap().into_inner();
    assert!(take.legal);
    assert_eq!(take.move_number, 9);
    assert_eq!(take.captured, vec!["cc".to_string()]);
    assert_eq!(take.ko_point.as_deref(), Some("cc"));
    let retake = c.validate_move(check(state(9, &KO), play(White, "cc"))).await.unwrap().into_inner();
    assert!(!retake.legal);
    let f = retake.foul.unwrap();
    assert_eq!((f.rule.as_str(), f.article.as_str(), f.move_number), ("ko", "第五条", 10));
    // After a ko threat elsewhere the retake is legal again.
    let mut later = KO.to_vec();
    later.extend([(White, "aa"), (Black, "ab")]);
    let ok = c.validate_move(check(state(9, &later), play(White, "cc"))).await.unwrap().into_inner();
    assert!(ok.legal, "{:?}", ok.foul);
    assert_eq!(ok.captured, vec!["dc".to_string()]);
}

#[tokio::test]
async fn bare_positions_suicide_occupied_ko_point_and_out_of_turn() {
    let (mut c, _stop) = spawn().await;
    let pos = |to_move: pb::Color, ko: Option<&str>| pb::Position {
        width: 9,
        height: 9,
        black: vec!["ba".into(), "ab".into()],
        white: vec!["ca".into(), "bb".into(), "ac".into()],
        to_move: to_move as i32,
        ko_point: ko.map(str::to_string),
    };
    let ask = |p: pb::Position, m: pb::Move| pb::ValidateMoveRequest {
        state: Some(pb::validate_move_request::State::Position(p)),
        r#move: Some(m),
        rule_set: String::new(),
    };
    // Black at aa has no liberty and takes nothing: suicide (第四条).
    let r = c.validate_move(ask(pos(Black, None), play(Black, "aa"))).await.unwrap().into_inner();
    assert_eq!(r.foul.map(|f| (f.rule, f.article)), Some(("suicide".into(), "第四条".into())));
    // White at aa captures ba and ab.
    let r = c.validate_move(ask(pos(White, None), play(White, "aa"))).await.unwrap().into_inner();
    assert!(r.legal);
    let mut cap = r.captured.clone();
    cap.sort();
    assert_eq!(cap, vec!["ab".to_string(), "ba".to_string()]);
    let r = c.validate_move(ask(pos(White, None), play(White, "bb"))).await.unwrap().into_inner();
    assert_eq!(r.foul.map(|f| f.rule), Some("occupied".into()));
    let r = c.validate_move(ask(pos(White, Some("ee")), play(White, "ee"))).await.unwrap().into_inner();
    assert_eq!(r.foul.map(|f| (f.rule, f.article)), Some(("ko".into(), "第五条".into())));
    let r = c.validate_move(ask(pos(White, None), play(Black, "ee"))).await.unwrap().into_inner();
    assert_eq!(r.foul.map(|f| f.rule), Some("out-of-turn".into()));
}

#[tokio::test]
async fn malformed_requests_name_the_field() {
    let (mut c, _stop) = spawn().await;
    let e = c.validate_move(check(state(9, &[(Black, "ee"), (White, "zz")]), play(Black, "aa"))).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert_eq!(e.get_error_details().bad_request().unwrap().field_violations[0].field, "game.moves[1].point");
    let e = c.validate_move(check(state(30, &[]), play(Black, "aa"))).await.unwrap_err();
    assert_eq!(e.get_error_details().bad_request().unwrap().field_violations[0].field, "game.board_size");
    let e = c
        .validate_move(pb::ValidateMoveRequest { state: None, r#move: Some(play(Black, "aa")), rule_set: String::new() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    // A history with a foul in it is refused with the foul in ErrorInfo.
    let mut bad = KO.to_vec();
    bad.push((White, "cc"));
    let e = c.validate_move(check(state(9, &bad), play(Black, "aa"))).await.unwrap_err();
    let d = e.get_error_details();
    let info = d.error_info().unwrap();
    assert_eq!((info.reason.as_str(), info.metadata["rule"].as_str(), info.metadata["move_number"].as_str()), ("FOUL", "ko", "10"));
}

#[tokio::test]
async fn every_shared_record_validates_and_a_foul_is_found_first() {
    let (mut c, _stop) = spawn().await;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games");
    let mut n = 0;
    for sub in ["9", "13", "19"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap().flatten() {
            let text = String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap()).into_owned();
            let moves = shinpan_sgf::Record::parse(&text).unwrap().moves.len() as u32;
            let r = c
                .validate_record(pb::ValidateRecordRequest {
                    record: Some(pb::validate_record_request::Record::Sgf(text)),
                    rule_set: String::new(),
                })
                .await
                .unwrap()
                .into_inner();
            assert!(r.first_foul.is_none(), "{}: {:?}", entry.path().display(), r.first_foul);
            assert_eq!(r.moves_checked, moves, "{}", entry.path().display());
            n += 1;
        }
    }
    assert!(n >= 100, "{n} records");
    let mut bad = KO.to_vec();
    bad.extend([(White, "cc"), (Black, "aa")]);
    let r = c
        .validate_record(pb::ValidateRecordRequest {
            record: Some(pb::validate_record_request::Record::Game(state(9, &bad))),
            rule_set: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.moves_checked, 9);
    assert_eq!(r.first_foul.map(|f| (f.rule, f.move_number)), Some(("ko".into(), 10)));
    let sgf = "(;GM[1]FF[4]SZ[9];B[cb];W[db];B[bc];W[ec];B[cd];W[dd];B[ii];W[cc];B[dc];W[cc];B[aa])";
    let r = c
        .validate_record(pb::ValidateRecordRequest {
            record: Some(pb::validate_record_request::Record::Sgf(sgf.into())),
            rule_set: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!((r.moves_checked, r.first_foul.map(|f| (f.rule, f.article, f.move_number))), (9, Some(("ko".into(), "第五条".into(), 10))));
}

#[tokio::test]
async fn rule_sets_are_listed() {
    let (mut c, _stop) = spawn().await;
    let sets = c.list_rule_sets(pb::ListRuleSetsRequest {}).await.unwrap().into_inner().rule_sets;
    let names: Vec<_> = sets.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["japanese-2011", "japanese-1989", "chinese", "jungo", "japanese-jungo"]);
    let j = &sets[0];
    assert_eq!((j.scoring.as_str(), j.ko_rule.as_str(), j.allow_suicide, j.passes_to_end), ("territory", "basic", false, 4));
    assert_eq!(sets[2].ko_rule, "positional-superko");
}
