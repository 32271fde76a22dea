//! End-to-end tests of `ResultConfirmationService` and `ArbitrationService` over real gRPC on 127.0.0.1:0
//! against a real PostgreSQL: every ending (第六条 中押勝, 第九条 count by agreement and by
//! 第七条・第八条, time, 反則負け 第十二条, 無勝負 第十一条, 両負け, 持碁), an objection (第十条2)
//! with reconstruction, re-adjudication and a referee's ruling, finality (第十条) in the
//! service and in the database, the export, and the role boundaries.

use shinpan::auth::{testing_token, AuthConfig, Claims, Role, DEV_SECRET, ISSUER};
use shinpan_e2e::{pass, play, TestApp};
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::arbitration_service_client::ArbitrationServiceClient;
use shinpan_proto::v1::result_confirmation_service_client::ResultConfirmationServiceClient;
use shinpan_proto::v1::Color::{Black as B, White as W};
use shinpan_storage::Store;
use tonic::transport::Channel;
use tonic::{Code, Request};

const T: &str = "Kisei Cup";

struct Env {
    app: TestApp,
    store: Store,
}

impl Env {
    async fn new() -> Env {
        let store = shinpan_storage::testing::fresh_store().await;
        let app = TestApp::spawn_on(shinpan::configuration::ServiceKind::All, None, Some(store.clone())).await;
        Env { app, store }
    }
    fn results(&self) -> ResultConfirmationServiceClient<Channel> {
        ResultConfirmationServiceClient::new(self.app.channel.clone())
    }
    fn arbitration(&self) -> ArbitrationServiceClient<Channel> {
        ArbitrationServiceClient::new(self.app.channel.clone())
    }

    /// A game of the tournament between "Kato Masao" (federation id `black_id`, Black) and
    /// "Cho Chikun" (`white_id`, White).
    async fn game(&self, table: u32, size: u32, komi: f64, black_id: &str, white_id: &str) -> String {
        let g = self
            .app
            .recording()
            .create_game(pb::CreateGameRequest {
                tournament: T.into(),
                round: 1,
                board_number: table,
                black: Some(pb::Player { name: format!("Kato Masao {black_id}"), rank: "5d".into(), federation_id: black_id.into() }),
                white: Some(pb::Player { name: format!("Cho Chikun {white_id}"), rank: "4d".into(), federation_id: white_id.into() }),
                board_size: size,
                komi: Some(komi),
                handicap: 0,
                rule_set: "japanese-2011".into(),
                ..Default::default()
            })
            .await
            .expect("create game")
            .into_inner()
            .game
            .unwrap();
        g.id
    }

    /// Records moves through RecordMove ("B dd", "W pass"), starting at move `first`;
    /// returns the responses.
    async fn record(&self, game: &str, first: u32, moves: &str) -> Vec<pb::RecordMoveResponse> {
        let mut out = Vec::new();
        let mut n = first;
        for m in moves.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (c, p) = m.split_once(' ').unwrap();
            let c = if c == "B" { B } else { W };
            let mv = if p == "pass" { pass(c) } else { play(c, p) };
            let r = self
                .app
                .recording()
                .record_move(pb::RecordMoveRequest { game_id: game.into(), move_number: n, r#move: Some(mv), ..Default::default() })
                .await
                .unwrap_or_else(|e| panic!("move {n} {m}: {e}"))
                .into_inner();
            if r.legal {
                n += 1;
            }
            out.push(r);
        }
        out
    }
}

fn authed<T>(msg: T, token: &str) -> Request<T> {
    let mut r = Request::new(msg);
    r.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

fn player(id: &str) -> String {
    testing_token(Role::Player, id, None, None, None)
}
fn referee() -> String {
    testing_token(Role::Referee, "referee-1", Some(T), None, None)
}

/// Two walls on a 5x5 board, each with two eyes (pass-alive), column c neutral: 4 points
/// of territory each; then three passes stop play (第九条).
const WALLS: &str = "B ba, W da, B bb, W db, B bc, W dc, B bd, W dd, B be, W de, B ac, W ec, B pass, W pass, B pass";

/// The 三劫 (triple ko) position of goban's tests, built by real moves: ko 1 (bb/cb) and
/// ko 3 (bg/cg) hold a White stone Black can take, ko 2 (gb/hb) a Black stone White can.
const TRIPLE_KO_SETUP: &str = "B ba, W ca, B ga, W ha, B ab, W bb, B fb, W db, B hb, W ib, B bc, W cc, B gc, W hc, \
     B bf, W cf, B ag, W bg, B bh, W dg, B pass, W ch";
const CYCLE: &str = "B cb, W gb, B cg, W bb, B hb, W bg";

async fn confirm(r: &mut ResultConfirmationServiceClient<Channel>, game: &str, token: &str) -> Result<pb::GameResult, tonic::Status> {
    r.confirm_result(authed(pb::ConfirmResultRequest { game_id: game.into(), version: 0, color: 0 }, token))
        .await
        .map(|x| x.into_inner().result.unwrap())
}

async fn confirm_all(env: &Env, game: &str, black: &str, white: &str) -> pb::GameResult {
    let mut r = env.results();
    let a = confirm(&mut r, game, &player(black)).await.expect("black confirms");
    assert_eq!(a.pending, vec!["white", "referee"]);
    assert_eq!(a.state, pb::ResultState::Proposed as i32);
    let b = confirm(&mut r, game, &player(white)).await.expect("white confirms");
    assert_eq!(b.pending, vec!["referee"]);
    let f = confirm(&mut r, game, &referee()).await.expect("referee confirms");
    assert_eq!(f.state, pb::ResultState::Final as i32, "{f:?}");
    assert!(f.pending.is_empty() && f.final_time.is_some());
    assert_eq!(f.confirmations.len(), 3);
    f
}

async fn propose(env: &Env, game: &str, ending: pb::Ending, winner: i32, token: &str) -> Result<pb::GameResult, tonic::Status> {
    env.results()
        .propose_result(authed(
            pb::ProposeResultRequest { game_id: game.into(), ending: ending as i32, winner, ..Default::default() },
            token,
        ))
        .await
        .map(|r| r.into_inner().result.unwrap())
}

#[tokio::test]
async fn resignation_becomes_final_and_then_nothing_changes() {
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
async fn counts_by_adjudication_by_agreement_jigo_and_time() {
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
async fn objection_reconstruction_readjudication_ruling_and_reconfirmation() {
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

#[tokio::test]
async fn triple_ko_no_result_ruling() {
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
async fn foul_loss_ruling_on_an_illegal_ko_recapture() {
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
async fn both_lose_and_resumption_rulings() {
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

#[tokio::test]
async fn role_boundaries() {
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
async fn auth_all_guards_recording_too() {
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

#[tokio::test]
async fn undecided_count_on_a_real_game_opens_a_case_and_the_referee_decides() {
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
async fn no_result_replaced_by_the_tournament_policy() {
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
