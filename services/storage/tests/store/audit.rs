//! The audit of a game's facts: every changed field named, renamed players, databases stored before the migration, results and cases compared with their events.

use super::*;

/// The fact a verification names, with the value the row holds and the value the chain records.
pub(super) fn fact_break(report: &ChainReport) -> Option<(String, String, String)> {
    match &report.first_break()?.kind {
        BreakKind::FactMismatch { field, stored, recorded, .. } => Some((field.clone(), stored.clone(), recorded.clone())),
        _ => None,
    }
}

/// A game of two new players (ranks and federation ids unique to `tag`) in the tournament
/// "Facts Cup", round 3, board `board`, with a setup stone and handicap 0.
pub(super) async fn facts_game(store: &Store, tag: &str, board: i32) -> Game {
    let t = store.ensure_tournament("Facts Cup", &TournamentSettings::default()).await.unwrap();
    let b = store
        .upsert_player(&NewPlayer { name: format!("Black {tag}"), rank: Some("3d".into()), federation_id: Some(format!("b-{tag}")) })
        .await
        .unwrap();
    let w = store
        .upsert_player(&NewPlayer { name: format!("White {tag}"), rank: Some("2d".into()), federation_id: Some(format!("w-{tag}")) })
        .await
        .unwrap();
    store
        .create_game(&NewGame {
            tournament_id: Some(t.id),
            round: Some(3),
            table_number: Some(board),
            black_player_id: b.id,
            white_player_id: w.id,
            board_width: 19,
            board_height: 19,
            komi: 6.5,
            handicap: 0,
            rule_set: "japanese-2011".into(),
            setup: json!({"AB": ["dd"]}),
            key: None,
        })
        .await
        .unwrap()
        .game
}

/// Every fact of a game changed directly in its row is named by the verification: the field,
/// the row's value and the value the genesis event recorded.
#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn every_fact_changed_in_a_row_is_named_by_the_audit(pool: PgPool) {
    let store = Store::new(pool.clone());
    let other = store.ensure_tournament("Other Cup", &TournamentSettings::default()).await.unwrap();
    let intruder = store.upsert_player(&NewPlayer { name: "Intruder".into(), ..Default::default() }).await.unwrap();
    let cases: Vec<(&str, String, &str, &str)> = vec![
        ("komi", "UPDATE games SET komi = 106.5 WHERE id = $1".into(), "106.5", "6.5"),
        ("rule_set", "UPDATE games SET rule_set = 'japanese-1989' WHERE id = $1".into(), "\"japanese-1989\"", "\"japanese-2011\""),
        (
            "setup",
            "UPDATE games SET setup = '{\"AB\": \"not a list\"}' WHERE id = $1".into(),
            "{\"AB\":\"not a list\"}",
            "{\"AB\":[\"dd\"]}",
        ),
        ("handicap", "UPDATE games SET handicap = 9 WHERE id = $1".into(), "9", "0"),
        ("round", "UPDATE games SET round = 4 WHERE id = $1".into(), "4", "3"),
        ("table_number", "UPDATE games SET table_number = 99 WHERE id = $1".into(), "99", "5"),
        ("board_width", "UPDATE games SET board_width = 13 WHERE id = $1".into(), "13", "19"),
        ("tournament_id", format!("UPDATE games SET tournament_id = '{}' WHERE id = $1", other.id), "", ""),
        (
            "tournament",
            "UPDATE tournaments SET name = 'Renamed Cup' WHERE id = (SELECT tournament_id FROM games WHERE id = $1)".into(),
            "\"Renamed Cup\"",
            "\"Facts Cup\"",
        ),
        ("black_player_id", format!("UPDATE games SET black_player_id = '{}' WHERE id = $1", intruder.id), "", ""),
        (
            "black.name",
            "UPDATE players SET name = 'Someone Else' WHERE id = (SELECT black_player_id FROM games WHERE id = $1)".into(),
            "\"Someone Else\"",
            "",
        ),
        (
            "white.federation_id",
            "UPDATE players SET federation_id = 'forged' WHERE id = (SELECT white_player_id FROM games WHERE id = $1)".into(),
            "\"forged\"",
            "",
        ),
        (
            "white.rank",
            "UPDATE players SET rank = '9p' WHERE id = (SELECT white_player_id FROM games WHERE id = $1)".into(),
            "\"9p\"",
            "\"2d\"",
        ),
    ];
    for (i, (field, sql, stored, recorded)) in cases.into_iter().enumerate() {
        // the tournament rename is last of the games in "Facts Cup" that it affects
        let g = facts_game(&store, &format!("{field}-{i}"), if field == "table_number" { 5 } else { 100 + i as i32 }).await;
        assert!(store.verify_chain(g.id).await.unwrap().is_intact(), "{field}: the untouched game verifies");
        let changed = sqlx::query(sqlx::AssertSqlSafe(sql.clone())).bind(g.id).execute(&pool).await.unwrap();
        assert_eq!(changed.rows_affected(), 1, "{sql}");
        let report = store.verify_chain(g.id).await.unwrap();
        let (f, s, r) = fact_break(&report).unwrap_or_else(|| panic!("{field}: {report:?}"));
        assert_eq!(f, field, "{report:?}");
        assert_eq!(report.first_break().unwrap().seq, 1, "the genesis event recorded it: {report:?}");
        if !stored.is_empty() {
            assert_eq!(s, stored, "{field}");
        }
        if !recorded.is_empty() {
            assert_eq!(r, recorded, "{field}");
        }
        let text = report.first_break().unwrap().to_string();
        assert!(text.contains(&format!("{field} in the ")) && text.contains("event 1 (game_created) says"), "{text}");
        if field == "tournament" {
            sqlx::query("UPDATE tournaments SET name = 'Facts Cup' WHERE name = 'Renamed Cup'").execute(&pool).await.unwrap();
        }
    }
    // several facts changed in one game: the first is the game's break, each other follows
    let g = facts_game(&store, "several", 300).await;
    sqlx::query("UPDATE games SET komi = 0.5, rule_set = 'japanese-1989' WHERE id = $1").bind(g.id).execute(&pool).await.unwrap();
    sqlx::query("UPDATE players SET name = 'Else' WHERE id = $1").bind(g.white.id).execute(&pool).await.unwrap();
    let report = store.verify_chain(g.id).await.unwrap();
    let fields: Vec<String> = report
        .breaks
        .iter()
        .chain(&report.more)
        .map(|b| match &b.kind {
            BreakKind::FactMismatch { field, .. } => field.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(fields, ["white.name", "rule_set", "komi"], "{report:?}");
    assert_eq!(report.breaks.len(), 1, "one broken game");
    // a final game changed behind the guard is caught too
    let g = facts_game(&store, "final", 200).await;
    store.write(GameWrite::event_only(g.id, None, resign(Color::White)).with_set_state(GameState::Ended)).await.unwrap();
    let r = store
        .propose_result(&NewResult {
            game_id: g.id,
            result: "B+R".into(),
            reason: "resignation".into(),
            statuses: json!({}),
            detail: json!({}),
            proposed_by: "referee".into(),
        })
        .await
        .unwrap();
    store.finalize_result(r.id, "director", "confirmed").await.unwrap();
    assert!(store.verify_chain(g.id).await.unwrap().is_intact());
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("ALTER TABLE games DISABLE TRIGGER games_final_guard").execute(&mut *tx).await.unwrap();
    sqlx::query("UPDATE games SET komi = 106.5 WHERE id = $1").bind(g.id).execute(&mut *tx).await.unwrap();
    sqlx::query("ALTER TABLE games ENABLE TRIGGER games_final_guard").execute(&mut *tx).await.unwrap();
    tx.commit().await.unwrap();
    let report = store.verify_chain(g.id).await.unwrap();
    assert_eq!(fact_break(&report).map(|(f, _, _)| f).as_deref(), Some("komi"), "{report:?}");
    // every game changed above is reported, the final one too; the renamed tournament's name
    // was put back, so its game verifies again
    // (more: the other tournament's name with its id, the intruder's name, rank and federation
    // id with the black player's id, and the two further facts of the game above)
    let all = store.verify_all().await.unwrap();
    assert_eq!((all.games, all.breaks.len(), all.more.len()), (15, 14, 6), "{all:?}");
}

/// A player's name or rank changed through the store is recorded in each of their games
/// (final ones included), which keep verifying; the same change made directly does not.
#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn a_player_renamed_through_the_store_keeps_their_games_verifying(pool: PgPool) {
    let store = Store::new(pool.clone());
    let g1 = facts_game(&store, "rename", 1).await;
    let mut second = nine_by_nine(&g1);
    second.black_player_id = g1.white.id;
    second.white_player_id = g1.black.id;
    let g2 = store.create_game(&second).await.unwrap().game;
    store.write(GameWrite::event_only(g2.id, None, resign(Color::Black)).with_set_state(GameState::Ended)).await.unwrap();
    let r = store
        .propose_result(&NewResult {
            game_id: g2.id,
            result: "W+R".into(),
            reason: "resignation".into(),
            statuses: json!({}),
            detail: json!({}),
            proposed_by: "referee".into(),
        })
        .await
        .unwrap();
    store.finalize_result(r.id, "director", "confirmed").await.unwrap();
    let renamed = store
        .upsert_player(&NewPlayer { name: "Black renamed".into(), rank: Some("4d".into()), federation_id: Some("b-rename".into()) })
        .await
        .unwrap();
    assert_eq!((renamed.id, renamed.name.as_str(), renamed.rank.as_deref()), (g1.black.id, "Black renamed", Some("4d")));
    for g in [g1.id, g2.id] {
        let last = store.events_since(g, 0, 100).await.unwrap().pop().unwrap();
        assert_eq!(last.kind, "player_updated");
        assert_eq!(last.payload["previous"], json!({"name": "Black rename", "rank": "3d"}));
        assert!(store.verify_chain(g).await.unwrap().is_intact(), "{:?}", store.verify_chain(g).await.unwrap());
    }
    // the same particulars again change nothing and record nothing
    let before = store.get_game(g1.id).await.unwrap().last_event_seq;
    store.upsert_player(&NewPlayer { name: "Black renamed".into(), rank: None, federation_id: Some("b-rename".into()) }).await.unwrap();
    assert_eq!(store.get_game(g1.id).await.unwrap().last_event_seq, before);
    // a rename behind the store's back is caught in both games, naming the colour played
    sqlx::query("UPDATE players SET name = 'Forged' WHERE id = $1").bind(g1.black.id).execute(&pool).await.unwrap();
    let report = store.verify_all().await.unwrap();
    let fields: Vec<String> = report
        .breaks
        .iter()
        .filter_map(|b| match &b.kind {
            BreakKind::FactMismatch { field, stored, recorded, .. } => Some(format!("{} {field} {stored} {recorded}", b.game_id)),
            _ => None,
        })
        .collect();
    let mut want =
        vec![format!("{} black.name \"Forged\" \"Black renamed\"", g1.id), format!("{} white.name \"Forged\" \"Black renamed\"", g2.id)];
    want.sort();
    let mut got = fields.clone();
    got.sort();
    assert_eq!(got, want, "{report:?}");
}

/// A game stored before the facts were all recorded (its genesis without the players) is given
/// a `game_facts` event by the migration: no existing hash changes, the chain verifies, and a
/// fact changed afterwards — or before, if the genesis recorded it — is named.
#[sqlx::test(migrations = false)]
pub(super) async fn games_stored_before_the_migration_keep_verifying(pool: PgPool) {
    const BEFORE: i64 = 20261124000002;
    MIGRATOR.run_to(BEFORE, &pool).await.unwrap();
    let store = Store::new(pool.clone());
    let t = store.ensure_tournament("Old Cup \"quoted\"", &TournamentSettings::default()).await.unwrap();
    // names that exercise the escaping of the hashed text: quotes, backslash, control characters, non-ASCII
    let b = store
        .upsert_player(&NewPlayer {
            name: "Kato \"Masao\" \\ 加藤\n\t\u{1}\u{7f}".into(),
            rank: Some("9p".into()),
            federation_id: Some("egd-old-1".into()),
        })
        .await
        .unwrap();
    let w = store.upsert_player(&NewPlayer { name: "Cho Chikun".into(), rank: None, federation_id: None }).await.unwrap();
    // the old code's genesis: the game's columns, no players, no tournament name
    let db = &pool;
    let old_game = |id: Uuid, komi: f64, setup: serde_json::Value, round: Option<i32>, board: Option<i32>| async move {
        let payload = chain::normalize_payload(json!({
            "tournament_id": round.map(|_| t.id), "round": round, "table_number": board,
            "black_player_id": b.id, "white_player_id": w.id, "board_width": 19, "board_height": 19,
            "komi": komi, "handicap": 2, "rule_set": "japanese-2011", "setup": setup,
        }));
        let at = chain::to_micros(chrono::Utc::now());
        let hash = chain::event_hash(&chain::GENESIS, id, 1, "game_created", &payload, at);
        let mut tx = db.begin().await.unwrap();
        sqlx::query(
            "INSERT INTO games (id, tournament_id, round, table_number, black_player_id, white_player_id, board_width, board_height,
                                komi, handicap, rule_set, setup, last_seq, last_hash)
             VALUES ($1, $2, $3, $4, $5, $6, 19, 19, $7, 2, 'japanese-2011', $8, 1, $9)",
        )
        .bind(id)
        .bind(round.map(|_| t.id))
        .bind(round)
        .bind(board)
        .bind(b.id)
        .bind(w.id)
        .bind(komi)
        .bind(&setup)
        .bind(hash.to_vec())
        .execute(&mut *tx)
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash) VALUES ($1, 1, 'game_created', $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(&payload)
        .bind(at)
        .bind(chain::GENESIS.to_vec())
        .bind(hash.to_vec())
        .execute(&mut *tx)
        .await
        .unwrap();
        tx.commit().await.unwrap();
    };
    let setup =
        json!({"AB": ["dd", "pp"], "DT": "2024-01-01", "nested": {"z": [1, 2.5, -3, 1.0e20, 0.1], "a": "\u{1f}\"", "b": null, "c": true}});
    let (plain, final_game, zero_komi, changed_before) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    old_game(plain, 6.5, setup.clone(), Some(1), Some(1)).await;
    old_game(final_game, 7.0, json!({}), Some(1), Some(2)).await;
    old_game(zero_komi, 0.0, json!({}), None, None).await;
    old_game(changed_before, 6.5, json!({}), None, None).await;
    for (i, p) in ["dd", "pp", "dp"].into_iter().enumerate() {
        store.write(mv(plain, i as i32 + 1, p)).await.unwrap();
    }
    store.write(GameWrite::event_only(final_game, None, resign(Color::White)).with_set_state(GameState::Ended)).await.unwrap();
    let r = store
        .propose_result(&NewResult {
            game_id: final_game,
            result: "B+R".into(),
            reason: "resignation".into(),
            statuses: json!({}),
            detail: json!({}),
            proposed_by: "referee".into(),
        })
        .await
        .unwrap();
    store.finalize_result(r.id, "director", "confirmed").await.unwrap();
    // changed before the migration: the genesis recorded komi, so this still shows
    sqlx::query("UPDATE games SET komi = 106.5 WHERE id = $1").bind(changed_before).execute(&pool).await.unwrap();
    let hashes = |pool: PgPool| async move {
        sqlx::query_as::<_, (Uuid, i64, Vec<u8>)>("SELECT game_id, seq, hash FROM events ORDER BY game_id, seq")
            .fetch_all(&pool)
            .await
            .unwrap()
    };
    let before = hashes(pool.clone()).await;

    MIGRATOR.run(&pool).await.unwrap();

    let after = hashes(pool.clone()).await;
    let kept: Vec<_> = after.iter().filter(|e| before.contains(e)).cloned().collect();
    assert_eq!(kept, before, "no existing event or hash changed");
    assert_eq!(after.len(), before.len() + 4, "one game_facts event per game");
    let store = Store::new(pool.clone());
    for g in [plain, final_game, zero_komi] {
        let report = store.verify_chain(g).await.unwrap();
        assert!(report.is_intact(), "{g}: {report:?}");
        let last = store.events_since(g, 0, 100).await.unwrap().pop().unwrap();
        assert_eq!(last.kind, "game_facts");
        assert_eq!(store.get_game(g).await.unwrap().last_event_seq, last.seq, "the head advanced");
        // the old genesis (no players, no tournament name) and the migration's game_facts read
        // as their variants, and the facts the migration recorded read as a genesis does
        for e in store.events_since(g, 0, 100).await.unwrap() {
            assert!(Event::try_decode(&e.kind, &e.payload).is_some(), "{} does not decode: {}", e.kind, e.payload);
        }
        let Event::GameFacts { facts } = last.event() else { panic!("not game_facts") };
        let facts: event::GameFacts = serde_json::from_str(&facts).unwrap();
        assert!(facts.black.is_some() && facts.white.is_some());
        let Event::GameCreated(genesis) = store.get_event(g, 1).await.unwrap().event() else { panic!("not game_created") };
        assert_eq!((genesis.black, genesis.white, genesis.komi), (None, None, facts.komi));
    }
    assert_eq!(store.get_game(final_game).await.unwrap().state, GameState::Final);
    let report = store.verify_chain(changed_before).await.unwrap();
    let lines: Vec<String> = report.breaks.iter().chain(&report.more).map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            format!("game {changed_before} event 1: komi in the games table is 106.5, event 1 (game_created) says 6.5"),
            format!(
                "game {changed_before} event 2: komi in an earlier event is 6.5 (event 1, game_created), event 2 (game_facts) says 106.5"
            ),
        ],
        "komi was changed before the migration"
    );
    // changed after the migration: the players are covered now
    sqlx::query("UPDATE players SET federation_id = 'forged' WHERE id = $1").bind(b.id).execute(&pool).await.unwrap();
    let report = store.verify_chain(plain).await.unwrap();
    assert_eq!(fact_break(&report), Some(("black.federation_id".into(), "\"forged\"".into(), "\"egd-old-1\"".into())), "{report:?}");
    // new games, new events and renames after the migration verify as usual
    sqlx::query("UPDATE players SET federation_id = 'egd-old-1' WHERE id = $1").bind(b.id).execute(&pool).await.unwrap();
    store.write(mv(plain, 4, "qq")).await.unwrap();
    store.upsert_player(&NewPlayer { name: "Kato Masao".into(), rank: None, federation_id: Some("egd-old-1".into()) }).await.unwrap();
    for g in [plain, final_game, zero_komi] {
        let report = store.verify_chain(g).await.unwrap();
        assert!(report.is_intact(), "{g}: {report:?}");
    }
}

/// A game with everything an archive keeps of a result: a proposal confirmed once, an
/// objection with its appeal material and its ruled case, an amended proposal that superseded
/// the first and became final (第十条), and a manual case with added evidence. Returns the game,
/// the first and the amended result, the objection's case and the manual case.
pub(super) async fn disputed_game(store: &Store) -> (Game, Uuid, Uuid, Uuid, Uuid) {
    let (g, r) = ended_game_with_result(store).await;
    store.confirm_result(r.id, Role::Black, "kuwabara", &ALL_THREE).await.unwrap();
    let (o, case) = store
        .object(&NewObjection { game_id: g.id, role: Role::White, who: "gennan".into(), reason: "I did not resign".into() })
        .await
        .unwrap();
    store.attach_appeal_material(o.id, Some(json!({"moves": 1})), Some(json!({"result": "B+R"}))).await.unwrap();
    store.rule_case(case.id, json!({"decision": "amend", "result": "B+R"}), "referee-1", "the record shows it").await.unwrap();
    let (manual, _) = store
        .open_case(&NewCase {
            game_id: g.id,
            kind: CaseKind::Manual,
            evidence: json!({"note": "clock stopped"}),
            opened_by: "referee-1".into(),
            reason: "check the clock".into(),
            dedupe_key: Some("clock".into()),
        })
        .await
        .unwrap();
    store.add_case_evidence(manual.id, json!({"photo": "clock.jpg"}), "referee-1").await.unwrap();
    store.set_case_state(manual.id, CaseState::UnderReview, "referee-1", "looking").await.unwrap();
    let amended = store
        .propose_result(&NewResult {
            game_id: g.id,
            result: "B+R".into(),
            reason: "resignation".into(),
            statuses: json!({}),
            detail: json!({"case_id": case.id}),
            proposed_by: "referee-1".into(),
        })
        .await
        .unwrap();
    for (role, who) in [(Role::Black, "kuwabara"), (Role::White, "gennan"), (Role::Referee, "referee-1")] {
        store.confirm_result(amended.id, role, who, &ALL_THREE).await.unwrap();
    }
    (g, r.id, amended.id, case.id, manual.id)
}

/// Every particular of a result, its finality, a case and an objection changed behind the
/// triggers is caught by the audit, naming the result or case (or the game's state).
#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn results_cases_and_objections_changed_in_rows_are_caught(pool: PgPool) {
    let store = Store::new(pool.clone());
    // (change; whose: 0 first result, 1 amended result, 2 objection's case, 3 manual case, 4 the game's state)
    let changes: [(&str, usize); 10] = [
        ("UPDATE results SET proposed_by = 'someone' WHERE id = $2", 1),
        ("UPDATE results SET detail = '{\"forged\": true}' WHERE id = $2", 1),
        ("UPDATE results SET supersedes_result_id = NULL WHERE id = $2", 1),
        ("UPDATE results SET state = 'proposed' WHERE id = $1", 0),
        ("UPDATE games SET state = 'ended' WHERE id = $5", 4),
        ("UPDATE cases SET evidence = '{\"note\": \"clock fine\"}' WHERE id = $4", 3),
        ("UPDATE cases SET state = 'closed', closed_at = now() WHERE id = $4", 3),
        ("UPDATE cases SET dedupe_key = 'other' WHERE id = $4", 3),
        ("UPDATE objections SET result_id = NULL WHERE case_id = $3", 2),
        ("UPDATE objections SET adjudication = '{\"result\": \"W+R\"}' WHERE case_id = $3", 2),
    ];
    for (sql, whose) in changes {
        let (g, first, amended, objection_case, manual) = disputed_game(&store).await;
        assert!(store.verify_chain(g.id).await.unwrap().is_intact(), "{:?}", store.verify_chain(g.id).await.unwrap());
        let mut tx = pool.begin().await.unwrap();
        for t in ["results", "games", "cases", "objections"] {
            sqlx::query(sqlx::AssertSqlSafe(format!("ALTER TABLE {t} DISABLE TRIGGER USER"))).execute(&mut *tx).await.unwrap();
        }
        let changed = sqlx::query(sqlx::AssertSqlSafe(sql.to_string()))
            .bind(first)
            .bind(amended)
            .bind(objection_case)
            .bind(manual)
            .bind(g.id)
            .execute(&mut *tx)
            .await
            .unwrap();
        assert_eq!(changed.rows_affected(), 1, "{sql}");
        for t in ["results", "games", "cases", "objections"] {
            sqlx::query(sqlx::AssertSqlSafe(format!("ALTER TABLE {t} ENABLE TRIGGER USER"))).execute(&mut *tx).await.unwrap();
        }
        tx.commit().await.unwrap();
        let report = store.verify_chain(g.id).await.unwrap();
        let kind = report.first_break().unwrap_or_else(|| panic!("{sql}: not caught")).kind.clone();
        match (whose, kind) {
            (0, BreakKind::ResultMismatch { result_id }) => assert_eq!(result_id, first, "{sql}"),
            (1, BreakKind::ResultMismatch { result_id }) => assert_eq!(result_id, amended, "{sql}"),
            (2, BreakKind::CaseMismatch { case_id }) => assert_eq!(case_id, objection_case, "{sql}"),
            (3, BreakKind::CaseMismatch { case_id }) => assert_eq!(case_id, manual, "{sql}"),
            (4, BreakKind::FactMismatch { field, stored, recorded, .. }) => {
                assert_eq!((field.as_str(), stored.as_str(), recorded.as_str()), ("state", "\"ended\"", "\"final\""), "{sql}")
            }
            (_, other) => panic!("{sql}: {other:?}"),
        }
    }
}

/// An annotation event of kind `note` (a kind without a variant of its own).
pub(super) fn note(payload: serde_json::Value) -> Event {
    note_of("note", payload)
}

/// An event of `kind` kept as given.
pub(super) fn note_of(kind: &str, payload: serde_json::Value) -> Event {
    Event::Other { kind: kind.into(), payload }
}

/// A resignation of `colour` (第六条), without the result and article the service adds.
pub(super) fn resign(colour: Color) -> Event {
    Event::Resign { colour, result: None, article: None }
}

/// Every event the store writes, read back from the database, reads as its typed variant and
/// serialises to exactly the payload stored (so a chain written by the enum is the chain the
/// `json!` payloads before it wrote, and the events of old chains decode).
#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn every_event_the_store_writes_reads_back_as_its_variant(pool: PgPool) {
    use shinpan_storage::event::{AdjudicatedStatuses, Adjudication, MoveRecord, RepetitionRecord, Score, KINDS};
    let store = Store::new(pool);
    let g = new_game(&store).await;
    // player_updated
    store.upsert_player(&NewPlayer { name: "Honinbo Shusaku".into(), rank: None, federation_id: Some("egd-1".into()) }).await.unwrap();
    // move with every optional part; foul; adjudicated
    let played = MovePlayed {
        captured: Some(vec!["pc".into()]),
        phase: Some("PLAYING".into()),
        ko: Some("pc".into()),
        repetition: Some(RepetitionRecord { first: 0, again: 1, cycles: 1 }),
        ..Default::default()
    };
    store.write(mv(g.id, 1, "pd").with_event(Event::Move(played.clone()))).await.unwrap();
    let foul = FoulRecord {
        move_number: 2,
        colour: Some(Color::White),
        point: Some("pd".into()),
        rule: "occupied".into(),
        article: "第十二条".into(),
        description: "played on a stone".into(),
    };
    store.write(GameWrite::event_only(g.id, Some(2), Event::Foul { foul })).await.unwrap();
    let adjudication = Adjudication {
        result: "W+0.5".into(),
        rule_set: "japanese-2011".into(),
        komi: 6.5,
        move_number: 1,
        nodes: 42,
        statuses: AdjudicatedStatuses { dead: vec!["pd".into()], seki: vec![], undecided: vec![] },
        score: Score { black: 0.0, white: 6.5 },
        agreements: false,
        refuted: 0,
    };
    store.append_event(g.id, &Event::Adjudicated(adjudication)).await.unwrap();
    // a result proposed, objected to, with appeal material; the case reviewed and ruled; play resumed
    let new_result = |result: &str| NewResult {
        game_id: g.id,
        result: result.into(),
        reason: "counting".into(),
        statuses: json!({"dead": ["pd"]}),
        detail: json!({"note": "counted"}),
        proposed_by: "referee".into(),
    };
    let r1 = store.propose_result(&new_result("W+0.5")).await.unwrap();
    let (objection, case) =
        store.object(&NewObjection { game_id: g.id, role: Role::Black, who: "b".into(), reason: "alive".into() }).await.unwrap();
    store.attach_appeal_material(objection.id, Some(json!({"moves": 1})), None).await.unwrap();
    store.add_case_evidence(case.id, json!({"photo": "p1"}), "arbiter").await.unwrap();
    store.set_case_state(case.id, CaseState::UnderReview, "arbiter", "looking").await.unwrap();
    store.rule_case(case.id, json!({"decision": "resume", "article": "第九条"}), "arbiter", "the corner lives").await.unwrap();
    let resumed = Event::PlayResumed {
        case_id: case.id,
        by: "arbiter".into(),
        reason: "the corner lives".into(),
        article: "第九条".into(),
        from_state: None,
        to_state: None,
    };
    store.set_game_state(g.id, GameState::Playing, &resumed).await.unwrap();
    // a new proposal supersedes the first; both players confirm it: final; then corrected
    store.propose_result(&new_result("W+1.5")).await.unwrap();
    let r2 = store.propose_result(&new_result("W+2.5")).await.unwrap();
    assert!(r2.supersedes_result_id.is_some());
    store.confirm_result(r2.id, Role::Black, "b", &[Role::Black, Role::White]).await.unwrap();
    store.confirm_result(r2.id, Role::White, "w", &[Role::Black, Role::White]).await.unwrap();
    store.correct_result(r2.id, &new_result("B+0.5")).await.unwrap();
    assert_ne!(r1.id, r2.id);
    // a resignation; an imported record that ended by passes
    let other = new_game(&store).await;
    let resign = Event::Resign { colour: Color::White, result: Some("B+R".into()), article: Some("第六条".into()) };
    store.write(GameWrite::event_only(other.id, None, resign).with_set_state(GameState::Ended)).await.unwrap();
    let record: Vec<ImportedMove> = [Some("ee"), None, None]
        .iter()
        .enumerate()
        .map(|(i, p)| ImportedMove {
            colour: if i % 2 == 0 { Color::Black } else { Color::White },
            point: p.map(str::to_string),
            client_time: None,
            event: MovePlayed { captured: Some(vec![]), phase: Some("PLAYING".into()), imported: Some(true), ..Default::default() },
        })
        .collect();
    let end = Event::Ended { reason: "consecutive passes (第九条)".into(), moves: 3, from_state: None, to_state: None };
    let imported = store.import_game(&nine_by_nine(&g), &record, Some(GameEnd { state: GameState::Ended, event: end })).await.unwrap().game;

    let mut seen = HashSet::new();
    for game in [g.id, other.id, imported.id] {
        for e in store.events_since(game, 0, 1000).await.unwrap() {
            let typed = Event::try_decode(&e.kind, &e.payload).unwrap_or_else(|| panic!("{} does not decode: {}", e.kind, e.payload));
            assert_eq!(typed.kind(), e.kind);
            assert_eq!(typed.payload(), e.payload, "{}", e.kind);
            assert_eq!(e.event(), typed);
            seen.insert(e.kind.clone());
        }
    }
    // the move as the store filled it in
    let first_move = store.events_since(g.id, 0, 1000).await.unwrap().into_iter().find(|e| e.kind == "move").unwrap();
    let Event::Move(m) = first_move.event() else { panic!("not a move") };
    assert_eq!(m, MovePlayed { mv: Some(MoveRecord { number: 1, colour: Color::Black, point: Some("pd".into()) }), ..played });
    // every kind but `game_facts` (written only by a migration, see below) was written here
    let missing: Vec<_> = KINDS.iter().filter(|k| **k != "game_facts" && !seen.contains(**k)).collect();
    assert!(missing.is_empty(), "not written: {missing:?}");
    let report = store.verify_all().await.unwrap();
    assert!(report.is_intact(), "{report:?}");
}
