//! Role boundaries, and recording under --auth all.

use super::*;

#[tokio::test]
pub(super) async fn role_boundaries() {
    let env = Env::new().await;
    let g = env.game(1, 9, 6.5, "B-1", "W-1").await;
    env.record(&g, 1, "B ee").await;
    env.app.recording().resign(pb::ResignRequest { game_id: g.clone(), color: B as i32, idempotency_key: String::new() }).await.unwrap();
    let mut r = env.results();
    let req = |t: &str| authed(pb::GetResultRequest { game_id: g.clone() }, t);
    // No token, a malformed one, a wrong signature, an expired one: UNAUTHENTICATED.
    let e = r.get_result(pb::GetResultRequest { game_id: g.clone() }).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    assert_eq!(r.get_result(req("garbage")).await.unwrap_err().code(), Code::Unauthenticated);
    let forged = AuthConfig::new("not the server's secret").issue(Role::FederationAdmin, "mallory", None, None, None, 60).unwrap();
    assert_eq!(r.get_result(req(&forged)).await.unwrap_err().code(), Code::Unauthenticated);
    let expired = AuthConfig::new(DEV_SECRET)
        .sign(&Claims {
            sub: "B-1".into(),
            role: Role::Player,
            tournament: None,
            game: None,
            color: None,
            iat: 1,
            exp: 2,
            iss: ISSUER.into(),
        })
        .unwrap();
    let e = r.get_result(req(&expired)).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    assert!(e.message().contains("expired"), "{}", e.message());

    let p = propose(&env, &g, pb::Ending::Resignation, 0, &player("W-1")).await.unwrap();
    assert_eq!(p.result, "W+R");
    // A stranger, an archive reader and a referee of another tournament may not propose.
    for t in [
        player("X-9"),
        testing_token(Role::ArchiveReader, "archive", None, None, None),
        testing_token(Role::Referee, "referee-2", Some("Other Cup"), None, None),
    ] {
        assert_eq!(propose(&env, &g, pb::Ending::Resignation, 0, &t).await.unwrap_err().code(), Code::PermissionDenied);
    }
    // A player confirming the opponent's side.
    let e = r
        .confirm_result(authed(pb::ConfirmResultRequest { game_id: g.clone(), version: 0, color: W as i32 }, &player("B-1")))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // A token limited to White's side of this game confirms White only.
    let limited = testing_token(Role::Player, "tablet-3", None, Some(&g), Some(goban::Color::White));
    let ok = r
        .confirm_result(authed(pb::ConfirmResultRequest { game_id: g.clone(), version: 1, color: 0 }, &limited))
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(ok.pending, vec!["black", "referee"]);
    let e =
        r.confirm_result(authed(pb::ConfirmResultRequest { game_id: g.clone(), version: 1, color: B as i32 }, &limited)).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // A player confirming twice.
    assert_eq!(confirm(&mut r, &g, &player("W-1")).await.unwrap_err().code(), Code::AlreadyExists);
    // The opponent's player objects only for themself; a referee does not object.
    let e = r.object(authed(pb::ObjectRequest { game_id: g.clone(), reason: "x".into() }, &referee())).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // Readers read.
    let reader = testing_token(Role::ArchiveReader, "archive", None, None, None);
    assert_eq!(r.get_result(req(&reader)).await.unwrap().into_inner().result.unwrap().result, "W+R");
    assert_eq!(r.get_result(req(&player("X-9"))).await.unwrap_err().code(), Code::PermissionDenied);
    let mut a = env.arbitration();
    let e = a.list_cases(authed(pb::ListCasesRequest::default(), &player("B-1"))).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // Black objects to the resignation (e.g. "I did not resign"): the game is reconstructed;
    // with no count to check, the re-adjudication is skipped and says why.
    let case = r
        .object(authed(pb::ObjectRequest { game_id: g.clone(), reason: "I did not resign".into() }, &player("B-1")))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();
    let ev = case.evidence.unwrap();
    assert_eq!(shinpan_sgf::Record::parse(&ev.reconstruction_sgf).unwrap().moves.len(), 1);
    assert_eq!(ev.readjudication.unwrap().result, "");
    assert!(ev.note.contains("not a count"), "{}", ev.note);
}

#[tokio::test]
pub(super) async fn auth_all_guards_recording_too() {
    let store = shinpan_storage::testing::fresh_store().await;
    let mut args = shinpan::configuration::ServeArgs::local(None, std::path::PathBuf::from("/nonexistent"));
    args.auth = shinpan::auth::AuthScope::All;
    args.jwt_secret = Some("a production secret of at least 32 bytes".into());
    let app = shinpan::startup::Application::with_store(&args, Some(store)).await.unwrap();
    let url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let channel = shinpan::remote::channel(&url).await.unwrap();
    let mut rec = shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient::new(channel.clone());
    let create = || pb::CreateGameRequest {
        tournament: T.into(),
        round: 1,
        board_number: 1,
        black: Some(pb::Player { name: "Kato Masao".into(), ..Default::default() }),
        white: Some(pb::Player { name: "Cho Chikun".into(), ..Default::default() }),
        board_size: 9,
        ..Default::default()
    };
    let e = rec.create_game(create()).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    // Tokens signed with the development secret are not this server's.
    let e = rec.create_game(authed(create(), &referee())).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    let good =
        AuthConfig::new("a production secret of at least 32 bytes").issue(Role::Referee, "referee-1", Some(T), None, None, 60).unwrap();
    let g = rec.create_game(authed(create(), &good)).await.unwrap().into_inner().game.unwrap();
    assert!(!g.id.is_empty());

    // Writes follow the role rules: only the tournament's officials create games, only the
    // game's officials and its player of that colour record a move or resign.
    let tok = |role: Role, sub: &str, tournament: Option<&str>| {
        AuthConfig::new("a production secret of at least 32 bytes").issue(role, sub, tournament, None, None, 60).unwrap()
    };
    let reader = tok(Role::ArchiveReader, "archive", None);
    let other_referee = tok(Role::Referee, "referee-9", Some("Meijin League"));
    let kato = tok(Role::Player, "Kato Masao", None);
    let cho = tok(Role::Player, "Cho Chikun", None);
    let stranger = tok(Role::Player, "Go Seigen", None);
    for t in [&reader, &other_referee, &kato] {
        let mut c = create();
        c.board_number = 2;
        assert_eq!(rec.create_game(authed(c, t)).await.unwrap_err().code(), Code::PermissionDenied);
        let sgf = "(;GM[1]FF[4]SZ[9]PB[Kato Masao]PW[Cho Chikun];B[ee])".to_string();
        let imp =
            pb::ImportSgfRequest { sgf, tournament: T.into(), round: 1, board_number: 3, rule_set: String::new(), ..Default::default() };
        assert_eq!(rec.import_sgf(authed(imp, t)).await.unwrap_err().code(), Code::PermissionDenied);
    }
    let mv = |n: u32, color: pb::Color, point: &str| pb::RecordMoveRequest {
        game_id: g.id.clone(),
        move_number: n,
        r#move: Some(pb::Move { color: color as i32, action: Some(pb::r#move::Action::Point(point.into())) }),
        ..Default::default()
    };
    for t in [&reader, &other_referee, &stranger, &cho] {
        let e = rec.record_move(authed(mv(1, pb::Color::Black, "ee"), t)).await.unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    }
    let last = |rec: &mut shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient<Channel>| {
        let mut rec = rec.clone();
        let r = authed(pb::GetGameRequest { game_id: g.id.clone() }, &reader);
        async move { rec.get_game(r).await.unwrap().into_inner().game.unwrap() }
    };
    assert_eq!(last(&mut rec).await.move_number, 0, "a refused move is not stored");
    // Black's player records Black's move, White's player White's, the referee either.
    rec.record_move(authed(mv(1, pb::Color::Black, "ee"), &kato)).await.unwrap();
    rec.record_move(authed(mv(2, pb::Color::White, "cc"), &cho)).await.unwrap();
    rec.record_move(authed(mv(3, pb::Color::Black, "gg"), &good)).await.unwrap();
    assert_eq!(last(&mut rec).await.move_number, 3);
    // No one resigns for the opponent (第六条); a player resigns for themself.
    for t in [&kato, &reader, &stranger] {
        let r = pb::ResignRequest { game_id: g.id.clone(), color: pb::Color::White as i32, idempotency_key: String::new() };
        assert_eq!(rec.resign(authed(r, t)).await.unwrap_err().code(), Code::PermissionDenied);
    }
    assert_eq!(last(&mut rec).await.result, "", "not resigned");
    let r = pb::ResignRequest { game_id: g.id.clone(), color: pb::Color::White as i32, idempotency_key: String::new() };
    assert_eq!(rec.resign(authed(r, &cho)).await.unwrap().into_inner().game.unwrap().result, "B+R");
    // RuleValidationService stays open (stateless).
    let mut v = shinpan_proto::v1::rule_validation_service_client::RuleValidationServiceClient::new(channel);
    assert!(v.list_rule_sets(pb::ListRuleSetsRequest::default()).await.is_ok());
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}
