//! An undecided count on a real game opens a case; 無勝負 replaced by the tournament's policy.

use super::*;

#[tokio::test]
pub(super) async fn undecided_count_on_a_real_game_opens_a_case_and_the_referee_decides() {
    // ../shared/games/9/gnugo__incident221.sgf (recorded W+38.5). The players agree on
    // every chain but Black's fg-gg-hg, which they leave UNDECIDED for the arbiter (第九条:
    // no agreement on its life and death). The count is then undecided whatever the
    // adjudicator's budget (第七条: never a guess), so an arbiter case opens.
    let env = Env::new().await;
    let sgf = shinpan_e2e::read_record(&shinpan_e2e::games_dir().join("9/gnugo__incident221.sgf"));
    let imported = env
        .app
        .recording()
        .import_sgf(pb::ImportSgfRequest {
            sgf,
            tournament: T.into(),
            round: 1,
            board_number: 1,
            rule_set: String::new(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let g = imported.game.unwrap().id;
    assert_eq!(imported.moves, 59);
    // The record ends with two passes; a third stops play (第九条).
    let out = env.record(&g, 60, "W pass").await;
    assert_eq!(out[0].phase, pb::Phase::Stopped as i32);
    // Players without federation ids are known by their registered names ("Black", "White").
    let undecided = pb::Agreement { stones: vec!["fg".into()], status: pb::ChainStatus::Undecided as i32 };
    let e = env
        .results()
        .propose_result(authed(
            pb::ProposeResultRequest {
                game_id: g.clone(),
                ending: pb::Ending::Count as i32,
                agreements: vec![undecided],
                ..Default::default()
            },
            &player("White"),
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(e.message().contains("undecided"), "{}", e.message());
    let mut a = env.arbitration();
    let cases = a
        .list_cases(authed(pb::ListCasesRequest { game_id: g.clone(), ..Default::default() }, &player("Black")))
        .await
        .unwrap()
        .into_inner()
        .cases;
    let u = cases.iter().find(|c| c.kind == pb::CaseKind::Undecided as i32).expect("an undecided case");
    assert!(e.message().contains(&u.id));
    assert_eq!(u.opened_by, "adjudicator");
    let ruled = a
        .rule_case(authed(
            pb::RuleCaseRequest {
                case_id: u.id.clone(),
                ruling: Some(pb::Ruling {
                    kind: pb::RulingKind::Amend as i32,
                    amended_result: "W+38.5".into(),
                    reason: "fg-gg-hg have one eye at most: dead (第七条); count as recorded".into(),
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
    assert_eq!(ruled.ruling.unwrap().result, "W+38.5");
    let f = confirm_all(&env, &g, "Black", "White").await;
    assert_eq!((f.result.as_str(), f.ending), ("W+38.5", pb::Ending::Count as i32));
}

#[tokio::test]
pub(super) async fn no_result_replaced_by_the_tournament_policy() {
    // 第十一条's note: where 無勝負 must be avoided, the winner is decided by time used or
    // by nigiri; the policy is the tournament's setting and the ruling records it.
    let env = Env::new().await;
    let g = env.game(1, 9, 6.5, "B-1", "W-1").await;
    let mut a = env.arbitration();
    let set = |t: &str| authed(pb::SetNoResultPolicyRequest { tournament: T.into(), policy: "nigiri".into() }, t);
    assert_eq!(a.set_no_result_policy(set(&referee())).await.unwrap_err().code(), Code::PermissionDenied);
    let chief = testing_token(Role::ChiefArbiter, "director", Some(T), None, None);
    let p = a.set_no_result_policy(set(&chief)).await.unwrap().into_inner().no_result_policy.unwrap();
    assert_eq!(p.policy, "nigiri");
    let seen = a.get_no_result_policy(authed(pb::GetNoResultPolicyRequest { tournament: T.into() }, &referee())).await.unwrap();
    assert_eq!(seen.into_inner().no_result_policy.unwrap().policy, "nigiri");
    env.record(&g, 1, TRIPLE_KO_SETUP).await;
    env.record(&g, 23, CYCLE).await;
    env.record(&g, 29, CYCLE).await;
    let case = a
        .open_case(authed(
            pb::OpenCaseRequest {
                game_id: g.clone(),
                kind: pb::CaseKind::Repetition as i32,
                reason: "triple ko, neither yields".into(),
                evidence: None,
            },
            &testing_token(Role::ChiefArbiter, "director", None, None, None),
        ))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();
    let rule = |winner: i32| {
        authed(
            pb::RuleCaseRequest {
                case_id: case.id.clone(),
                ruling: Some(pb::Ruling {
                    kind: pb::RulingKind::NoResult as i32,
                    reason: "triple ko; decided by nigiri under the tournament rules".into(),
                    winner,
                    ..Default::default()
                }),
            },
            &referee(),
        )
    };
    // Under a nigiri policy the ruling names the winner the nigiri gave.
    assert_eq!(a.rule_case(rule(0)).await.unwrap_err().code(), Code::InvalidArgument);
    let ruled = a.rule_case(rule(W as i32)).await.unwrap().into_inner().case.unwrap();
    let rl = ruled.ruling.unwrap();
    assert_eq!((rl.policy.as_str(), rl.result.as_str(), rl.winner), ("nigiri", "W+F", W as i32));
    let f = confirm_all(&env, &g, "B-1", "W-1").await;
    assert_eq!((f.result.as_str(), f.ending), ("W+F", pb::Ending::NoResult as i32));
    assert!(f.ruling_text.contains("nigiri"), "{}", f.ruling_text);
    // In the EGF table the decision is a point without a rated game.
    let x = env
        .results()
        .export_results(authed(pb::ExportResultsRequest { tournament: T.into(), ..Default::default() }, &referee()))
        .await
        .unwrap()
        .into_inner();
    let rows: Vec<&str> = x.egf_table.lines().filter(|l| !l.starts_with(';')).collect();
    assert_eq!(rows, vec!["1 Cho Chikun_W-1 4d -- -- 1 0+ |W-1", "2 Kato Masao_B-1 5d -- -- 0 0- |B-1"], "{}", x.egf_table);
    assert!(x.sgf[0].contains("RE[W+F]") && x.sgf[0].contains("nigiri"), "{}", x.sgf[0]);
}
