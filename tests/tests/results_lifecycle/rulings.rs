//! The arbiter's rulings: 無勝負 on a triple ko, 反則負け on an illegal ko recapture, both lose, resumption.

use super::*;

#[tokio::test]
pub(super) async fn triple_ko_no_result_ruling() {
    let env = Env::new().await;
    let g = env.game(1, 9, 6.5, "B-1", "W-1").await;
    env.record(&g, 1, TRIPLE_KO_SETUP).await;
    // One cycle: not yet 無勝負 (第十一条 解説: twice or more).
    let out = env.record(&g, 23, CYCLE).await;
    assert_eq!(out.last().unwrap().repetition.as_ref().unwrap().cycles, 1);
    let mut a = env.arbitration();
    let list =
        a.list_cases(authed(pb::ListCasesRequest { game_id: g.clone(), ..Default::default() }, &referee())).await.unwrap().into_inner();
    let rep = list.cases.iter().find(|c| c.kind == pb::CaseKind::Repetition as i32).expect("the engine opened a repetition case");
    let no_result =
        pb::Ruling { kind: pb::RulingKind::NoResult as i32, reason: "neither player yields the triple ko".into(), ..Default::default() };
    let early = a
        .rule_case(authed(pb::RuleCaseRequest { case_id: rep.id.clone(), ruling: Some(no_result.clone()) }, &referee()))
        .await
        .unwrap_err();
    assert_eq!(early.code(), Code::FailedPrecondition, "{early:?}");
    // Second time round: the same sequence has cycled twice.
    let out = env.record(&g, 29, CYCLE).await;
    assert_eq!(out.last().unwrap().repetition.as_ref().unwrap().cycles, 2);
    let case = a.get_case(authed(pb::GetCaseRequest { case_id: rep.id.clone() }, &player("B-1"))).await.unwrap().into_inner().case.unwrap();
    let ev = case.evidence.unwrap();
    let cycled = ev.repetitions.iter().find(|r| r.cycles == 2).expect("the engine's cycle is evidence");
    assert_eq!((cycled.first, cycled.again, cycled.sequence.len()), (28, 34, 6));
    let pos = ev.positions.first().expect("the position is evidence");
    assert_eq!((pos.black.len(), pos.white.len(), pos.to_move), (10, 11, B as i32));
    let ruled = a
        .rule_case(authed(pb::RuleCaseRequest { case_id: rep.id.clone(), ruling: Some(no_result) }, &referee()))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();
    assert_eq!(ruled.ruling.as_ref().unwrap().policy, "no-result");
    let p = env
        .results()
        .get_result(authed(pb::GetResultRequest { game_id: g.clone() }, &referee()))
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!((p.result.as_str(), p.ending), ("Void", pb::Ending::NoResult as i32));
    assert!(p.ruling_text.contains("無勝負"), "{}", p.ruling_text);
    confirm_all(&env, &g, "B-1", "W-1").await;

    // Export: the archive reader gets RE[Void] with the ruling in GC, and the EGF table.
    let reader = testing_token(Role::ArchiveReader, "archive", None, None, None);
    let x = env
        .results()
        .export_results(authed(pb::ExportResultsRequest { tournament: T.into(), egf_class: "A".into(), ..Default::default() }, &reader))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(x.sgf.len(), 1);
    assert!(x.sgf[0].contains("RE[Void]") && x.sgf[0].contains("GC[無勝負"), "{}", x.sgf[0]);
    let rec = shinpan_sgf::Record::parse(&x.sgf[0]).unwrap();
    assert_eq!(rec.moves.len(), 34);
    assert!(x.egf_table.starts_with("; CL[A]\n; EV[Kisei Cup]\n"), "{}", x.egf_table);
    let rows: Vec<&str> = x.egf_table.lines().filter(|l| !l.starts_with(';')).collect();
    assert_eq!(rows.len(), 2, "{}", x.egf_table);
    assert!(rows.iter().all(|l| l.contains(" 0- |")), "無勝負 is not rated: {}", x.egf_table);
    // A player may not export.
    let e = env
        .results()
        .export_results(authed(pb::ExportResultsRequest { tournament: T.into(), ..Default::default() }, &player("B-1")))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
}

#[tokio::test]
pub(super) async fn foul_loss_ruling_on_an_illegal_ko_recapture() {
    let env = Env::new().await;
    let g = env.game(1, 9, 6.5, "B-1", "W-1").await;
    env.record(&g, 1, TRIPLE_KO_SETUP).await;
    let out = env.record(&g, 23, "B cb, W bb").await;
    // White retook the ko at once (第五条): a foul, recorded and not applied.
    let foul = out[1].foul.clone().expect("the recapture is a foul");
    assert!(!out[1].legal);
    assert_eq!((foul.move_number, foul.rule.as_str(), foul.article.as_str()), (24, "ko", "第五条"));
    let mut a = env.arbitration();
    let cases = a
        .list_cases(authed(pb::ListCasesRequest { tournament: T.into(), ..Default::default() }, &referee()))
        .await
        .unwrap()
        .into_inner()
        .cases;
    let fc = cases.iter().find(|c| c.kind == pb::CaseKind::Foul as i32).expect("validation opened a foul case");
    let ruling = |loser: pb::Color, mv: u32| pb::Ruling {
        kind: pb::RulingKind::FoulLoss as i32,
        reason: "White recaptured the ko immediately".into(),
        loser: loser as i32,
        foul: Some(pb::Foul { move_number: mv, rule: "ko".into(), article: "第五条".into(), ..Default::default() }),
        ..Default::default()
    };
    // The ruling must name the player who committed the recorded foul.
    let wrong =
        a.rule_case(authed(pb::RuleCaseRequest { case_id: fc.id.clone(), ruling: Some(ruling(B, 24)) }, &referee())).await.unwrap_err();
    assert_eq!(wrong.code(), Code::FailedPrecondition);
    let wrong =
        a.rule_case(authed(pb::RuleCaseRequest { case_id: fc.id.clone(), ruling: Some(ruling(W, 23)) }, &referee())).await.unwrap_err();
    assert_eq!(wrong.code(), Code::FailedPrecondition);
    // A player may not rule, not even against the opponent.
    let e =
        a.rule_case(authed(pb::RuleCaseRequest { case_id: fc.id.clone(), ruling: Some(ruling(W, 24)) }, &player("B-1"))).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let ruled = a
        .rule_case(authed(pb::RuleCaseRequest { case_id: fc.id.clone(), ruling: Some(ruling(W, 24)) }, &referee()))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();
    let rl = ruled.ruling.unwrap();
    assert_eq!((rl.result.as_str(), rl.loser), ("B+F", W as i32));
    let f = confirm_all(&env, &g, "B-1", "W-1").await;
    assert_eq!((f.result.as_str(), f.ending), ("B+F", pb::Ending::FoulLoss as i32));
    assert!(f.ruling_text.contains("反則負け") && f.ruling_text.contains("move 24"), "{}", f.ruling_text);

    // After finality a foul changes nothing (第十二条: only before the result is confirmed).
    let late = a
        .open_case(authed(
            pb::OpenCaseRequest { game_id: g.clone(), kind: pb::CaseKind::Referee as i32, reason: "late claim".into(), evidence: None },
            &referee(),
        ))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();
    let e =
        a.rule_case(authed(pb::RuleCaseRequest { case_id: late.id.clone(), ruling: Some(ruling(W, 24)) }, &referee())).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    // The referee dismisses it; a player may not.
    let close = |t: &str| {
        authed(
            pb::SetCaseStateRequest {
                case_id: late.id.clone(),
                state: pb::CaseState::Closed as i32,
                reason: "the result is final (第十二条)".into(),
            },
            t,
        )
    };
    assert_eq!(a.set_case_state(close(&player("B-1"))).await.unwrap_err().code(), Code::PermissionDenied);
    let closed = a.set_case_state(close(&referee())).await.unwrap().into_inner().case.unwrap();
    assert_eq!((closed.state, closed.ruling.is_none()), (pb::CaseState::Closed as i32, true));
    assert_eq!(a.set_case_state(close(&referee())).await.unwrap_err().code(), Code::FailedPrecondition);
}

#[tokio::test]
pub(super) async fn both_lose_and_resumption_rulings() {
    let env = Env::new().await;
    let g = env.game(1, 5, 6.5, "B-1", "W-1").await;
    env.record(&g, 1, WALLS).await;
    let mut a = env.arbitration();
    let open = |reason: &str| {
        authed(
            pb::OpenCaseRequest { game_id: g.clone(), kind: pb::CaseKind::Resumption as i32, reason: reason.into(), evidence: None },
            &referee(),
        )
    };
    // A player does not open cases.
    let e = a
        .open_case(authed(
            pb::OpenCaseRequest { game_id: g.clone(), kind: pb::CaseKind::Resumption as i32, reason: "x".into(), evidence: None },
            &player("B-1"),
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // 第九条: a resumption dispute; the referee lets play resume.
    let c1 = a.open_case(open("Black wants to resume after the stop")).await.unwrap().into_inner().case.unwrap();
    assert_eq!(c1.state, pb::CaseState::Open as i32);
    a.rule_case(authed(
        pb::RuleCaseRequest {
            case_id: c1.id.clone(),
            ruling: Some(pb::Ruling {
                kind: pb::RulingKind::Resumption as i32,
                reason: "the stop was not agreed (第九条)".into(),
                ..Default::default()
            }),
        },
        &referee(),
    ))
    .await
    .unwrap();
    let game = env.app.recording().get_game(pb::GetGameRequest { game_id: g.clone() }).await.unwrap().into_inner().game.unwrap();
    assert_ne!(game.phase, pb::Phase::Ended as i32);
    // 要請II-[vii] 3: after the stop a player finds a valid move that decides the game and
    // they cannot agree: both lose.
    let c2 = a.open_case(open("the players cannot agree on the end")).await.unwrap().into_inner().case.unwrap();
    let ruled = a
        .rule_case(authed(
            pb::RuleCaseRequest {
                case_id: c2.id.clone(),
                ruling: Some(pb::Ruling {
                    kind: pb::RulingKind::BothLose as i32,
                    reason: "要請II-[vii]3: no agreement".into(),
                    ..Default::default()
                }),
            },
            &referee(),
        ))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();
    assert_eq!(ruled.ruling.unwrap().result, "BothLose");
    let f = confirm_all(&env, &g, "B-1", "W-1").await;
    assert_eq!((f.result.as_str(), f.ending), ("BothLose", pb::Ending::BothLose as i32));

    // A resumption dispute where White refuses the end (第九条 解説 forbids refusing it by a
    // one-sided cycle with passes); 第九条2: the referee ends the game by count.
    let g2 = env.game(2, 5, 6.5, "B-2", "W-2").await;
    env.record(&g2, 1, WALLS).await;
    let c3 = a
        .open_case(authed(
            pb::OpenCaseRequest {
                game_id: g2.clone(),
                kind: pb::CaseKind::Resumption as i32,
                reason: "White keeps refusing the end".into(),
                evidence: None,
            },
            &referee(),
        ))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();
    let ruled = a
        .rule_case(authed(
            pb::RuleCaseRequest {
                case_id: c3.id.clone(),
                ruling: Some(pb::Ruling {
                    kind: pb::RulingKind::EndByCount as i32,
                    reason: "第九条 解説: a one-sided cycle to refuse the end is not allowed".into(),
                    ..Default::default()
                }),
            },
            &referee(),
        ))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();
    assert_eq!(ruled.ruling.unwrap().result, "W+6.5");
    let f = confirm_all(&env, &g2, "B-2", "W-2").await;
    assert_eq!((f.result.as_str(), f.ending), ("W+6.5", pb::Ending::Count as i32));
    assert!(f.ruling_text.contains("第九条2"), "{}", f.ruling_text);
}
