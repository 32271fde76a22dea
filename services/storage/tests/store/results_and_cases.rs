//! Results to finality (第十条2), guarded rows, objections and cases.

use super::*;

pub(super) async fn ended_game_with_result(store: &Store) -> (Game, StoredResult) {
    let g = new_game(store).await;
    store.write(mv(g.id, 1, "pd")).await.unwrap();
    store.write(GameWrite::event_only(g.id, None, resign(Color::White)).with_set_state(GameState::Ended)).await.unwrap();
    let r = store
        .propose_result(&NewResult {
            game_id: g.id,
            result: "B+R".into(),
            reason: "resignation".into(),
            statuses: json!({}),
            detail: json!({"article": "第六条"}),
            proposed_by: "referee-1".into(),
        })
        .await
        .unwrap();
    (g, r)
}

pub(super) const ALL_THREE: [Role; 3] = [Role::Black, Role::White, Role::Referee];

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn result_becomes_final_after_all_confirmations_and_never_changes(pool: PgPool) {
    let store = Store::new(pool.clone());
    let (g, r) = ended_game_with_result(&store).await;
    assert_eq!(r.state, ResultState::Proposed);
    let c1 = store.confirm_result(r.id, Role::Black, "kuwabara", &ALL_THREE).await.unwrap();
    assert!(!c1.finalized);
    let dup = store.confirm_result(r.id, Role::Black, "kuwabara", &ALL_THREE).await.unwrap_err();
    assert!(matches!(dup, StoreError::AlreadyExists(_)), "{dup:?}");
    assert!(!store.confirm_result(r.id, Role::White, "gennan", &ALL_THREE).await.unwrap().finalized);
    let done = store.confirm_result(r.id, Role::Referee, "referee-1", &ALL_THREE).await.unwrap();
    assert!(done.finalized);
    assert_eq!(done.result.state, ResultState::Final);
    assert!(done.result.finalized_at.is_some());
    assert_eq!(done.confirmations.len(), 3);
    assert_eq!(store.get_game(g.id).await.unwrap().state, GameState::Final);

    // after finality: confirmation, new proposal, objection refused
    let e = store.confirm_result(r.id, Role::Director, "td", &ALL_THREE).await.unwrap_err();
    assert!(matches!(e, StoreError::Immutable(_)), "{e:?}");
    let e = store
        .propose_result(&NewResult {
            game_id: g.id,
            result: "W+R".into(),
            reason: "resignation".into(),
            statuses: json!({}),
            detail: json!(null),
            proposed_by: "x".into(),
        })
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::Immutable(_)), "{e:?}");
    let e =
        store.object(&NewObjection { game_id: g.id, role: Role::White, who: "gennan".into(), reason: "late".into() }).await.unwrap_err();
    assert!(matches!(e, StoreError::Immutable(_)), "{e:?}");

    // ... and the database itself refuses direct SQL
    for sql in [
        "UPDATE results SET result = 'W+R' WHERE id = $1",
        "UPDATE results SET state = 'proposed', finalized_at = NULL WHERE id = $1",
        "DELETE FROM results WHERE id = $1",
        "UPDATE confirmations SET who = 'someone' WHERE result_id = $1",
        "DELETE FROM confirmations WHERE result_id = $1",
        "INSERT INTO confirmations (result_id, role, who) VALUES ($1, 'director', 'td')",
    ] {
        let e = sqlx::query(sql).bind(r.id).execute(&pool).await.map_err(StoreError::from).unwrap_err();
        match e {
            StoreError::Immutable(msg) => assert!(msg.contains("第十条"), "{msg}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
    let e = sqlx::query("UPDATE games SET komi = 0 WHERE id = $1").bind(g.id).execute(&pool).await.map_err(StoreError::from).unwrap_err();
    assert!(matches!(e, StoreError::Immutable(_)), "{e:?}");
    assert_eq!(store.get_result(r.id).await.unwrap().result, "B+R");

    // a federation correction is a new linked row; the original is kept
    let fix = store
        .correct_result(
            r.id,
            &NewResult {
                game_id: g.id,
                result: "W+F".into(),
                reason: "foul".into(),
                statuses: json!({}),
                detail: json!({"note": "appeal board"}),
                proposed_by: "federation".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!((fix.state, fix.corrects_result_id), (ResultState::Final, Some(r.id)));
    assert_eq!(store.current_result(g.id).await.unwrap().unwrap().id, fix.id);
    assert_eq!(store.get_result(r.id).await.unwrap().result, "B+R");
    let e = store
        .correct_result(
            r.id,
            &NewResult {
                game_id: g.id,
                result: "B+R".into(),
                reason: "x".into(),
                statuses: json!({}),
                detail: json!({}),
                proposed_by: "f".into(),
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::AlreadyExists(_)), "{e:?}");
    let finals = store.final_results(g.tournament_id.unwrap()).await.unwrap();
    assert_eq!(finals.len(), 1);
    assert_eq!(finals[0].1.result, "W+F");

    let kinds: Vec<String> = store.events_since(g.id, 0, 100).await.unwrap().into_iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            "game_created",
            "move",
            "resign",
            "result_proposed",
            "result_confirmed",
            "result_confirmed",
            "result_confirmed",
            "result_finalized",
            "result_corrected"
        ]
    );
    assert!(store.verify_chain(g.id).await.unwrap().is_intact());

    // tampering with a final result row is caught by the audit
    sqlx::query("ALTER TABLE results DISABLE TRIGGER results_immutable").execute(&pool).await.unwrap();
    sqlx::query("UPDATE results SET result = 'W+R' WHERE id = $1").bind(r.id).execute(&pool).await.unwrap();
    sqlx::query("ALTER TABLE results ENABLE TRIGGER results_immutable").execute(&pool).await.unwrap();
    let report = store.verify_chain(g.id).await.unwrap();
    assert_eq!(report.first_break().unwrap().kind, BreakKind::ResultMismatch { result_id: r.id });
}

/// Migration 5 narrowed the final-game guard to `WHEN (OLD.state = 'final')` and dropped the
/// foreign keys moves → games and idempotency → games (implied through events). The guard must
/// still refuse every change of a final game's row except its head, and no move, idempotency
/// record or event can name a game that does not exist.
#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn final_game_rows_are_guarded_and_every_row_names_a_real_game(pool: PgPool) {
    let store = Store::new(pool.clone());
    let playing = new_game(&store).await;
    // a game that is not final may be edited (the guard does not fire)
    sqlx::query("UPDATE games SET komi = 7.5 WHERE id = $1").bind(playing.id).execute(&pool).await.unwrap();
    assert_eq!(store.get_game(playing.id).await.unwrap().komi, 7.5);

    let (g, r) = ended_game_with_result(&store).await;
    for role in ALL_THREE {
        store.confirm_result(r.id, role, "someone", &ALL_THREE).await.unwrap();
    }
    assert_eq!(store.get_game(g.id).await.unwrap().state, GameState::Final);
    for sql in [
        "UPDATE games SET state = 'playing' WHERE id = $1",
        "UPDATE games SET komi = 0.5 WHERE id = $1",
        "UPDATE games SET setup = '{\"AB\":[\"dd\"]}' WHERE id = $1",
        "DELETE FROM games WHERE id = $1",
    ] {
        let e = sqlx::query(sql).bind(g.id).execute(&pool).await.map_err(StoreError::from).unwrap_err();
        match e {
            StoreError::Immutable(msg) => assert!(msg.contains("第十条"), "{sql}: {msg}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
    // the head of a final game still advances (a later event, e.g. a federation note)
    let before = store.get_game(g.id).await.unwrap();
    let ev = store.append_event(g.id, &note(json!({"text": "appeal window closed"}))).await.unwrap();
    let after = store.get_game(g.id).await.unwrap();
    assert_eq!((after.state, after.komi, after.last_event_seq), (GameState::Final, before.komi, ev.seq));
    assert!(store.verify_chain(g.id).await.unwrap().is_intact());

    // rows naming a game that does not exist are refused (foreign keys, through events)
    let ghost = Uuid::new_v4();
    let zeros = vec![0u8; 32];
    for sql in [
        "INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash) VALUES ($1, 1, 'move', '{}', now(), $2, $2)",
        "INSERT INTO moves (game_id, move_number, colour, point, event_seq) SELECT $1, 1, 'B', 'dd', 1 WHERE $2::bytea IS NOT NULL",
        "INSERT INTO idempotency (game_id, key, request, response, event_seq) SELECT $1, 'k', '{}', '{}', 1 WHERE $2::bytea IS NOT NULL",
    ] {
        let e = sqlx::query(sql).bind(ghost).bind(&zeros).execute(&pool).await.unwrap_err();
        match &e {
            sqlx::Error::Database(d) => assert_eq!(d.code().as_deref(), Some("23503"), "{sql}: {e}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
    // ... and a move of a real game must name one of that game's events
    let e = sqlx::query("INSERT INTO moves (game_id, move_number, colour, point, event_seq) VALUES ($1, 9, 'B', 'dd', 99)")
        .bind(playing.id)
        .execute(&pool)
        .await
        .unwrap_err();
    assert!(matches!(&e, sqlx::Error::Database(d) if d.code().as_deref() == Some("23503")), "{e}");
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn a_confirmation_removed_behind_the_triggers_is_caught(pool: PgPool) {
    let store = Store::new(pool.clone());
    let (g, r) = ended_game_with_result(&store).await;
    store.confirm_result(r.id, Role::Black, "kuwabara", &ALL_THREE).await.unwrap();
    store.confirm_result(r.id, Role::White, "gennan", &ALL_THREE).await.unwrap();
    assert!(store.verify_chain(g.id).await.unwrap().is_intact());
    sqlx::query("ALTER TABLE confirmations DISABLE TRIGGER confirmations_guard").execute(&pool).await.unwrap();
    sqlx::query("DELETE FROM confirmations WHERE result_id = $1 AND role = 'white'").bind(r.id).execute(&pool).await.unwrap();
    sqlx::query("ALTER TABLE confirmations ENABLE TRIGGER confirmations_guard").execute(&pool).await.unwrap();
    let report = store.verify_chain(g.id).await.unwrap();
    // the white confirmation's event (seq 6) has no row any more
    assert_eq!(report.first_break(), Some(&ChainBreak { game_id: g.id, seq: 6, kind: BreakKind::ResultMismatch { result_id: r.id } }));
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn objection_opens_a_case_and_an_amended_result_supersedes(pool: PgPool) {
    let store = Store::new(pool.clone());
    let (g, r) = ended_game_with_result(&store).await;
    store.confirm_result(r.id, Role::Black, "kuwabara", &ALL_THREE).await.unwrap();
    let (o, case) = store
        .object(&NewObjection { game_id: g.id, role: Role::White, who: "gennan".into(), reason: "I did not resign".into() })
        .await
        .unwrap();
    assert_eq!(o.result_id, Some(r.id));
    assert_eq!((case.kind, case.state), (CaseKind::Objection, CaseState::Open));
    assert_eq!(case.evidence["objection_id"], json!(o.id));
    let o2 = store.attach_appeal_material(o.id, Some(json!({"moves": 1, "fouls": []})), Some(json!({"result": "B+R"}))).await.unwrap();
    assert_eq!(o2.reconstruction.unwrap()["moves"], json!(1));
    assert_eq!(store.objection_of_case(case.id).await.unwrap().unwrap().id, o.id);
    store.set_case_state(case.id, CaseState::UnderReview, "referee-1", "reviewing").await.unwrap();
    let ruled = store
        .rule_case(case.id, json!({"decision": "amend", "result": "W+R"}), "referee-1", "the record shows White resigned? no: Black did")
        .await
        .unwrap();
    assert_eq!(ruled.state, CaseState::Ruled);
    assert_eq!(ruled.ruled_by.as_deref(), Some("referee-1"));
    let amended = store
        .propose_result(&NewResult {
            game_id: g.id,
            result: "W+R".into(),
            reason: "resignation".into(),
            statuses: json!({}),
            detail: json!({"case_id": case.id}),
            proposed_by: "referee-1".into(),
        })
        .await
        .unwrap();
    assert_eq!(amended.supersedes_result_id, Some(r.id));
    let old = store.get_result(r.id).await.unwrap();
    assert_eq!(old.state, ResultState::Superseded);
    assert_eq!(store.confirmations(r.id).await.unwrap().len(), 1, "the old confirmation is kept");
    let e = store.confirm_result(r.id, Role::White, "gennan", &ALL_THREE).await.unwrap_err();
    assert!(matches!(e, StoreError::FailedPrecondition(_)), "{e:?}");
    // the players confirm again
    for (role, who) in [(Role::Black, "kuwabara"), (Role::White, "gennan"), (Role::Referee, "referee-1")] {
        store.confirm_result(amended.id, role, who, &ALL_THREE).await.unwrap();
    }
    assert_eq!(store.current_result(g.id).await.unwrap().unwrap().result, "W+R");
    assert!(store.verify_chain(g.id).await.unwrap().is_intact());
    // the superseded proposal is history: immutable
    let e = sqlx::query("UPDATE results SET detail = '{}' WHERE id = $1")
        .bind(r.id)
        .execute(&pool)
        .await
        .map_err(StoreError::from)
        .unwrap_err();
    assert!(matches!(e, StoreError::Immutable(_)), "{e:?}");
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn cases_follow_their_state_machine(pool: PgPool) {
    let store = Store::new(pool.clone());
    let g = new_game(&store).await;
    let nc = NewCase {
        game_id: g.id,
        kind: CaseKind::Repetition,
        evidence: json!({"cycle": [5, 6, 7, 8], "kind": "triple-ko"}),
        opened_by: "engine".into(),
        reason: "the same position repeated twice".into(),
        dedupe_key: Some("repetition:8".into()),
    };
    let (c, created) = store.open_case(&nc).await.unwrap();
    assert!(created);
    let (c2, created2) = store.open_case(&nc).await.unwrap();
    assert!(!created2);
    assert_eq!(c2.id, c.id);
    let c = store.add_case_evidence(c.id, json!({"positions": ["..."]}), "engine").await.unwrap();
    assert_eq!(c.evidence["cycle"], json!([5, 6, 7, 8]));
    assert_eq!(c.evidence["positions"], json!(["..."]));
    let listed =
        store.list_cases(&CaseFilter { tournament_id: g.tournament_id, state: Some(CaseState::Open), ..Default::default() }).await.unwrap();
    assert_eq!(listed.iter().map(|x| x.id).collect::<Vec<_>>(), vec![c.id]);
    assert!(store.list_cases(&CaseFilter { kind: Some(CaseKind::Foul), ..Default::default() }).await.unwrap().is_empty());
    let e = store.set_case_state(c.id, CaseState::Ruled, "r", "x").await.unwrap_err();
    assert!(matches!(e, StoreError::FailedPrecondition(_)));
    let ruled = store
        .rule_case(
            c.id,
            json!({"decision": "no-result", "policy": "no-result", "article": "第十一条"}),
            "referee-1",
            "triple ko, neither yields",
        )
        .await
        .unwrap();
    assert_eq!(ruled.state, CaseState::Ruled);
    let e = store.rule_case(c.id, json!({"decision": "foul-loss"}), "referee-2", "changed my mind").await.unwrap_err();
    assert!(matches!(e, StoreError::FailedPrecondition(_)), "{e:?}");
    let e = store.add_case_evidence(c.id, json!({"x": 1}), "r").await.unwrap_err();
    assert!(matches!(e, StoreError::FailedPrecondition(_)), "{e:?}");
    // the database refuses rewriting a ruling or deleting a case
    let e = sqlx::query("UPDATE cases SET ruling = '{\"decision\":\"foul-loss\"}' WHERE id = $1")
        .bind(c.id)
        .execute(&pool)
        .await
        .map_err(StoreError::from)
        .unwrap_err();
    assert!(matches!(e, StoreError::Immutable(_)), "{e:?}");
    let e = sqlx::query("DELETE FROM cases WHERE id = $1").bind(c.id).execute(&pool).await.map_err(StoreError::from).unwrap_err();
    assert!(matches!(e, StoreError::Immutable(_)), "{e:?}");
    let closed = store.set_case_state(c.id, CaseState::Closed, "referee-1", "done").await.unwrap();
    assert!(closed.closed_at.is_some());
    let e = sqlx::query("UPDATE cases SET opened_reason = 'x' WHERE id = $1")
        .bind(c.id)
        .execute(&pool)
        .await
        .map_err(StoreError::from)
        .unwrap_err();
    assert!(matches!(e, StoreError::Immutable(_)), "{e:?}");
    let kinds: Vec<String> = store.events_since(g.id, 0, 100).await.unwrap().into_iter().map(|e| e.kind).collect();
    assert_eq!(kinds, ["game_created", "case_opened", "case_evidence_added", "case_ruled", "case_state_changed"]);
    assert!(store.verify_chain(g.id).await.unwrap().is_intact());
    // rewriting the ruling behind the triggers is caught by the audit
    sqlx::query("ALTER TABLE cases DISABLE TRIGGER cases_guard").execute(&pool).await.unwrap();
    sqlx::query("UPDATE cases SET ruling = '{\"decision\":\"foul-loss\"}' WHERE id = $1").bind(c.id).execute(&pool).await.unwrap();
    sqlx::query("ALTER TABLE cases ENABLE TRIGGER cases_guard").execute(&pool).await.unwrap();
    let report = store.verify_chain(g.id).await.unwrap();
    assert_eq!(report.first_break(), Some(&ChainBreak { game_id: g.id, seq: 4, kind: BreakKind::CaseMismatch { case_id: c.id } }));
}
