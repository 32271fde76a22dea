//! Resignation, counts by adjudication and agreement, jigo, objection with reconstruction and re-adjudication.

use super::*;

#[tokio::test]
pub(super) async fn resignation_becomes_final_and_then_nothing_changes() {
    let env = Env::new().await;
    let g = env.game(1, 9, 6.5, "B-1", "W-1").await;
    env.record(&g, 1, "B ee, W cc, B gg").await;
    env.app.recording().resign(pb::ResignRequest { game_id: g.clone(), color: W as i32, idempotency_key: String::new() }).await.unwrap();
    // 第六条: White resigned, so Black wins 中押勝 — the recorded resignation decides.
    let bad = propose(&env, &g, pb::Ending::Resignation, W as i32, &player("B-1")).await.unwrap_err();
    assert_eq!(bad.code(), Code::InvalidArgument);
    let p = propose(&env, &g, pb::Ending::Resignation, 0, &player("B-1")).await.unwrap();
    assert_eq!((p.result.as_str(), p.ending, p.version), ("B+R", pb::Ending::Resignation as i32, 1));
    assert_eq!(p.pending, vec!["black", "white", "referee"]);
    // Confirming an outdated version is refused.
    let stale = env
        .results()
        .confirm_result(authed(pb::ConfirmResultRequest { game_id: g.clone(), version: 7, color: 0 }, &player("B-1")))
        .await
        .unwrap_err();
    assert_eq!(stale.code(), Code::FailedPrecondition);
    let f = confirm_all(&env, &g, "B-1", "W-1").await;
    assert_eq!(f.result, "B+R");

    // After finality nothing changes (第十条 解説).
    let mut r = env.results();
    for token in [player("B-1"), player("W-1"), referee()] {
        let e = confirm(&mut r, &g, &token).await.unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    }
    let e = r.object(authed(pb::ObjectRequest { game_id: g.clone(), reason: "too late".into() }, &player("W-1"))).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    let e = propose(&env, &g, pb::Ending::Resignation, 0, &referee()).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);

    // The database refuses it too: the row of a final result cannot be updated or deleted.
    let pool = env.store.pool();
    let id: uuid::Uuid = f.result_id.parse().unwrap();
    let upd = sqlx::query("UPDATE results SET result = 'W+R' WHERE id = $1").bind(id).execute(pool).await;
    let err = upd.expect_err("UPDATE of a final result must fail");
    assert!(err.to_string().contains("never changed"), "{err}");
    match &err {
        sqlx::Error::Database(d) => assert_eq!(d.code().as_deref(), Some("SH010")),
        other => panic!("unexpected error {other}"),
    }
    assert!(sqlx::query("DELETE FROM results WHERE id = $1").bind(id).execute(pool).await.is_err());
    assert!(sqlx::query("UPDATE confirmations SET who = 'x' WHERE result_id = $1").bind(id).execute(pool).await.is_err());
    assert!(sqlx::query("UPDATE events SET kind = 'x' WHERE game_id = $1")
        .bind(uuid::Uuid::parse_str(&g).unwrap())
        .execute(pool)
        .await
        .is_err());
    let still: String = sqlx::query_scalar("SELECT result FROM results WHERE id = $1").bind(id).fetch_one(pool).await.unwrap();
    assert_eq!(still, "B+R");

    // A federation correction is a new linked record; the original is kept.
    let admin = testing_token(Role::FederationAdmin, "egf-admin", None, None, None);
    let denied = r
        .correct_result(authed(
            pb::CorrectResultRequest {
                game_id: g.clone(),
                result: "W+R".into(),
                ending: pb::Ending::Resignation as i32,
                reason: "x".into(),
            },
            &referee(),
        ))
        .await
        .unwrap_err();
    assert_eq!(denied.code(), Code::PermissionDenied);
    let c = r
        .correct_result(authed(
            pb::CorrectResultRequest {
                game_id: g.clone(),
                result: "W+R".into(),
                ending: pb::Ending::Resignation as i32,
                reason: "the resignation was recorded for the wrong colour".into(),
            },
            &admin,
        ))
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!((c.result.as_str(), c.corrects.as_str()), ("W+R", f.result_id.as_str()));
    let kept: String = sqlx::query_scalar("SELECT result FROM results WHERE id = $1").bind(id).fetch_one(pool).await.unwrap();
    assert_eq!(kept, "B+R");
    let now = r.get_result(authed(pb::GetResultRequest { game_id: g.clone() }, &referee())).await.unwrap().into_inner().result.unwrap();
    assert_eq!(now.result, "W+R");
    // The event log is intact.
    assert!(env.store.verify_chain(uuid::Uuid::parse_str(&g).unwrap()).await.unwrap().is_intact());
}

#[tokio::test]
pub(super) async fn counts_by_adjudication_by_agreement_jigo_and_time() {
    let env = Env::new().await;
    // 第七条・第八条: no agreed statuses — the adjudicator decides, 第十条 counts: 4 : 4 + 6.5.
    let g = env.game(1, 5, 6.5, "B-1", "W-1").await;
    let moves = env.record(&g, 1, WALLS).await;
    assert_eq!(moves.last().unwrap().phase, pb::Phase::Stopped as i32);
    let p = propose(&env, &g, pb::Ending::Count, 0, &player("W-1")).await.unwrap();
    assert_eq!((p.result.as_str(), p.ending), ("W+6.5", pb::Ending::Count as i32));
    assert!(p.statuses.is_empty(), "every stone is alive: {:?}", p.statuses);
    confirm_all(&env, &g, "B-1", "W-1").await;

    // 第九条: the players' agreed statuses stand (here: they agree Black's wall is dead).
    let g2 = env.game(2, 5, 6.5, "B-2", "W-2").await;
    env.record(&g2, 1, WALLS).await;
    let p = env
        .results()
        .propose_result(authed(
            pb::ProposeResultRequest {
                game_id: g2.clone(),
                ending: pb::Ending::Count as i32,
                agreements: vec![pb::Agreement { stones: vec!["ba".into()], status: pb::ChainStatus::Dead as i32 }],
                ..Default::default()
            },
            &player("B-2"),
        ))
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(p.statuses.len(), 6, "the agreed dead chain: {:?}", p.statuses);
    assert!(p.statuses.iter().all(|s| s.status == pb::ChainStatus::Dead as i32 && s.color == B as i32));
    assert!(p.result.starts_with("W+"), "{}", p.result);
    assert_ne!(p.result, "W+6.5");

    // 持碁 (第十条): equal counts without komi.
    let g3 = env.game(3, 5, 0.0, "B-3", "W-3").await;
    env.record(&g3, 1, WALLS).await;
    let p = propose(&env, &g3, pb::Ending::Count, 0, &referee()).await.unwrap();
    assert_eq!((p.result.as_str(), p.ending), ("0", pb::Ending::Jigo as i32));
    confirm_all(&env, &g3, "B-3", "W-3").await;
    // JIGO proposed for an unequal count is refused.
    let g4 = env.game(4, 5, 6.5, "B-4", "W-4").await;
    env.record(&g4, 1, WALLS).await;
    assert_eq!(propose(&env, &g4, pb::Ending::Jigo, 0, &referee()).await.unwrap_err().code(), Code::InvalidArgument);
    // Play has not stopped: nothing to count.
    let g5 = env.game(5, 5, 6.5, "B-5", "W-5").await;
    env.record(&g5, 1, "B ba, W da").await;
    assert_eq!(propose(&env, &g5, pb::Ending::Count, 0, &referee()).await.unwrap_err().code(), Code::FailedPrecondition);

    // Loss on time: the time-keeper's decision names the winner.
    let p = propose(&env, &g5, pb::Ending::TimeForfeit, B as i32, &referee()).await.unwrap();
    assert_eq!((p.result.as_str(), p.ending), ("B+T", pb::Ending::TimeForfeit as i32));
    confirm_all(&env, &g5, "B-5", "W-5").await;
    // 反則負け, 無勝負 and 両負け are not proposed: they are rulings.
    for e in [pb::Ending::FoulLoss, pb::Ending::NoResult, pb::Ending::BothLose] {
        assert_eq!(propose(&env, &g4, e, B as i32, &referee()).await.unwrap_err().code(), Code::FailedPrecondition);
    }
}

#[tokio::test]
pub(super) async fn objection_reconstruction_readjudication_ruling_and_reconfirmation() {
    let env = Env::new().await;
    let g = env.game(1, 5, 6.5, "B-1", "W-1").await;
    env.record(&g, 1, WALLS).await;
    // Black and White agree (wrongly) that White's wall is dead: B wins by the agreement.
    let p = env
        .results()
        .propose_result(authed(
            pb::ProposeResultRequest {
                game_id: g.clone(),
                ending: pb::Ending::Count as i32,
                agreements: vec![pb::Agreement { stones: vec!["da".into()], status: pb::ChainStatus::Dead as i32 }],
                ..Default::default()
            },
            &player("B-1"),
        ))
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert!(p.result.starts_with("B+"), "{}", p.result);
    let mut r = env.results();
    confirm(&mut r, &g, &player("B-1")).await.unwrap();
    // 第十条2: White objects before finality.
    let no_reason = r.object(authed(pb::ObjectRequest { game_id: g.clone(), reason: " ".into() }, &player("W-1"))).await.unwrap_err();
    assert_eq!(no_reason.code(), Code::InvalidArgument);
    let case = r
        .object(authed(pb::ObjectRequest { game_id: g.clone(), reason: "my wall has two eyes".into() }, &player("W-1")))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();
    assert_eq!((case.kind, case.state), (pb::CaseKind::Objection as i32, pb::CaseState::UnderReview as i32));
    let ev = case.evidence.clone().unwrap();
    // The reconstruction replays the recorded moves again; the re-adjudication counts anew.
    let rec = shinpan_sgf::Record::parse(&ev.reconstruction_sgf).expect("reconstruction is SGF");
    assert_eq!(rec.moves.len(), 15);
    assert_eq!(ev.readjudication.as_ref().unwrap().result, "W+6.5");
    // While the objection is open, nobody confirms.
    assert_eq!(confirm(&mut r, &g, &player("W-1")).await.unwrap_err().code(), Code::FailedPrecondition);
    assert_eq!(confirm(&mut r, &g, &referee()).await.unwrap_err().code(), Code::FailedPrecondition);
    let disputed =
        r.get_result(authed(pb::GetResultRequest { game_id: g.clone() }, &player("W-1"))).await.unwrap().into_inner().result.unwrap();
    assert_eq!(disputed.state, pb::ResultState::Disputed as i32);
    // A player cannot rule; the referee amends with a written reason.
    let mut a = env.arbitration();
    let ruling = |kind: pb::RulingKind, amended: &str, reason: &str| pb::Ruling {
        kind: kind as i32,
        reason: reason.into(),
        amended_result: amended.into(),
        ..Default::default()
    };
    let e = a
        .rule_case(authed(
            pb::RuleCaseRequest { case_id: case.id.clone(), ruling: Some(ruling(pb::RulingKind::Amend, "W+6.5", "x")) },
            &player("W-1"),
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let ruled = a
        .rule_case(authed(
            pb::RuleCaseRequest {
                case_id: case.id.clone(),
                ruling: Some(ruling(pb::RulingKind::Amend, "W+6.5", "re-adjudication: White's wall is pass-alive (two eyes)")),
            },
            &referee(),
        ))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();
    assert_eq!(ruled.state, pb::CaseState::Ruled as i32);
    let rl = ruled.ruling.unwrap();
    assert_eq!((rl.by.as_str(), rl.result.as_str()), ("referee-1", "W+6.5"));
    assert!(rl.rule_time.is_some());
    // A ruling is given once.
    let again = a
        .rule_case(authed(
            pb::RuleCaseRequest { case_id: case.id.clone(), ruling: Some(ruling(pb::RulingKind::Uphold, "", "again")) },
            &referee(),
        ))
        .await
        .unwrap_err();
    assert_eq!(again.code(), Code::FailedPrecondition);
    // The players confirm again: a new proposal, no confirmations carried over.
    let now = r.get_result(authed(pb::GetResultRequest { game_id: g.clone() }, &player("B-1"))).await.unwrap().into_inner().result.unwrap();
    assert_eq!((now.result.as_str(), now.version, now.state), ("W+6.5", 2, pb::ResultState::Proposed as i32));
    assert!(now.ruling_text.contains("two eyes") && now.ruling_text.contains("第十条2"), "{}", now.ruling_text);
    assert_eq!(now.pending, vec!["black", "white", "referee"]);
    confirm_all(&env, &g, "B-1", "W-1").await;
    let closed = a.get_case(authed(pb::GetCaseRequest { case_id: case.id.clone() }, &referee())).await.unwrap().into_inner().case.unwrap();
    assert_eq!(closed.state, pb::CaseState::Closed as i32);
}
