//! Recording: concurrent and interleaved writes exactly once, sequence and idempotency, fouls, tampering caught by the hash chain, guards in the database.

use super::*;

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn concurrent_append_is_exactly_once(pool: PgPool) {
    concurrent_append(pool, false).await
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn concurrent_append_is_exactly_once_with_row_locks(pool: PgPool) {
    concurrent_append(pool, true).await
}

/// 10 clients send move n of one game at once, through two stores standing for two server
/// processes (separate head caches), optimistic or locking.
pub(super) async fn concurrent_append(pool: PgPool, locking: bool) {
    let store = Store::new(pool.clone());
    let other_server = Store::new(pool);
    let g = new_game(&store).await;
    for n in 1..=3 {
        let mut tasks = Vec::new();
        for i in 0..10 {
            let store = if i % 2 == 0 { store.clone() } else { other_server.clone() };
            let point = format!("{}{}", (b'a' + i as u8) as char, (b'a' + n as u8) as char);
            tasks.push(tokio::spawn(async move {
                let w = mv(g.id, n, &point).with_key(format!("client-{i}-move-{n}"));
                if locking {
                    store.write_locking(w).await
                } else {
                    store.write(w).await
                }
            }));
        }
        let mut won = 0;
        let mut conflicts = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(out) => {
                    won += 1;
                    assert_eq!(out.mv.unwrap().move_number, n);
                    assert!(!out.replayed);
                }
                Err(StoreError::Conflict { current_move_number, expected }) => {
                    conflicts += 1;
                    assert_eq!((current_move_number, expected), (n, n));
                }
                Err(e) => panic!("unexpected {e:?}"),
            }
        }
        assert_eq!((won, conflicts), (1, 9), "move {n}");
    }
    let moves = store.moves(g.id).await.unwrap();
    assert_eq!(moves.iter().map(|m| m.move_number).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert_eq!(store.get_game(g.id).await.unwrap().move_count, 3);
    // 1 game_created + 3 moves, a single unbroken chain
    assert_eq!(store.events_since(g.id, 0, 100).await.unwrap().len(), 4);
    assert!(store.verify_chain(g.id).await.unwrap().is_intact());
}

/// Writes of many games at once share statements and commits (group commit, `batch`): every
/// one is stored exactly once with its own answer, also when one write of a shared statement
/// fails (an idempotency key reused for a different request makes the whole statement fail;
/// its writes are then retried one by one).
#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn concurrent_writes_of_many_games_each_get_their_own_answer(pool: PgPool) {
    let store = Store::new(pool);
    let mut games = Vec::new();
    for _ in 0..40 {
        games.push(new_game(&store).await.id);
    }
    let point = |i: usize, n: i32| format!("{}{}", (b'a' + (i % 19) as u8) as char, (b'a' + n as u8) as char);
    for n in 1..=3 {
        let mut tasks = Vec::new();
        for (i, &g) in games.iter().enumerate() {
            let good = {
                let s = store.clone();
                let p = point(i, n);
                async move { s.write(mv(g, n, &p).with_key(format!("m{n}"))).await }
            };
            // key "m2" was stored for move 2: reusing it for move 3 is refused (sent before
            // the good write for some games, after it for others)
            let bad = (n == 3 && i % 2 == 0).then(|| {
                let s = store.clone();
                async move {
                    let e = s.write(mv(g, 3, "ss").with_key("m2")).await.unwrap_err();
                    assert!(matches!(e, StoreError::AlreadyExists(_)), "{e:?}");
                    Err(e)
                }
            });
            match bad {
                Some(bad) if i % 4 == 0 => {
                    tasks.push(tokio::spawn(bad));
                    tasks.push(tokio::spawn(good));
                }
                Some(bad) => {
                    tasks.push(tokio::spawn(good));
                    tasks.push(tokio::spawn(bad));
                }
                None => tasks.push(tokio::spawn(good)),
            }
        }
        let mut ok = 0;
        for t in tasks {
            if let Ok(out) = t.await.unwrap() {
                assert!(!out.replayed);
                assert_eq!(out.mv.as_ref().unwrap().move_number, n);
                ok += 1;
            }
        }
        assert_eq!(ok, games.len(), "move {n}: every game's write stored");
    }
    for (i, &g) in games.iter().enumerate() {
        let moves = store.moves(g).await.unwrap();
        let stored: Vec<(i32, Option<String>, Option<String>)> =
            moves.into_iter().map(|m| (m.move_number, m.point, m.idempotency_key)).collect();
        let expected: Vec<(i32, Option<String>, Option<String>)> = (1..=3).map(|n| (n, Some(point(i, n)), Some(format!("m{n}")))).collect();
        assert_eq!(stored, expected, "game {i}");
        assert_eq!(store.get_game(g).await.unwrap().move_count, 3);
        assert!(store.verify_chain(g).await.unwrap().is_intact());
        // a retry of move 2 replays the stored answer
        let again = store.write(mv(g, 2, &point(i, 2)).with_key("m2")).await.unwrap();
        assert!(again.replayed);
        assert_eq!(again.event.seq, 3);
    }
}

/// A game whose row another transaction holds locked does not hold up the moves of other games
/// (they share the batch statement, which skips locked games); its own move is stored once the
/// lock is released.
#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn a_locked_game_does_not_hold_up_other_games(pool: PgPool) {
    let store = Store::new(pool.clone());
    let busy = new_game(&store).await;
    let other = new_game(&store).await;
    store.write(mv(busy.id, 1, "pd")).await.unwrap();
    store.write(mv(other.id, 1, "pd")).await.unwrap();
    // another transaction (e.g. a result being confirmed) holds the busy game's row
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("SELECT 1 FROM games WHERE id = $1 FOR UPDATE").bind(busy.id).execute(&mut *tx).await.unwrap();
    let waiting = {
        let store = store.clone();
        tokio::spawn(async move { store.write(mv(busy.id, 2, "dp").with_key("busy-2")).await })
    };
    // the other game's moves are stored meanwhile (a guard against a hang, not a speed check)
    let guard = std::time::Duration::from_secs(60);
    for n in 2..=4 {
        let p = format!("{}d", (b'a' + n as u8) as char);
        let out = tokio::time::timeout(guard, store.write(mv(other.id, n, &p))).await.expect("not held up by the locked game").unwrap();
        assert_eq!(out.mv.unwrap().move_number, n);
    }
    assert!(!waiting.is_finished(), "the busy game's move waits for its row");
    tx.commit().await.unwrap();
    let out = tokio::time::timeout(guard, waiting).await.expect("stored after the lock is released").unwrap().unwrap();
    assert_eq!((out.mv.unwrap().move_number, out.replayed), (2, false));
    assert_eq!(store.moves(busy.id).await.unwrap().len(), 2);
    assert_eq!(store.moves(other.id).await.unwrap().len(), 4);
    assert!(store.verify_chain(busy.id).await.unwrap().is_intact());
    assert!(store.verify_chain(other.id).await.unwrap().is_intact());
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn writes_interleave_with_other_events_and_other_servers(pool: PgPool) {
    let a = Store::new(pool.clone());
    let b = Store::new(pool);
    let g = new_game(&a).await;
    a.write(mv(g.id, 1, "pd")).await.unwrap();
    // the log advances behind a's cached head: a case event, and a move through another server
    b.open_case(&NewCase {
        game_id: g.id,
        kind: CaseKind::Manual,
        evidence: json!({}),
        opened_by: "referee".into(),
        reason: "check clock".into(),
        dedupe_key: None,
    })
    .await
    .unwrap();
    b.write(mv(g.id, 2, "dp")).await.unwrap();
    // a's stale view is not trusted: the conflict names the stored move count
    let e = a.write(mv(g.id, 2, "dd")).await.unwrap_err();
    assert!(matches!(e, StoreError::Conflict { current_move_number: 2, expected: 2 }), "{e:?}");
    let out = a.write(mv(g.id, 3, "dd").with_key("k3")).await.unwrap();
    assert_eq!((out.mv.as_ref().unwrap().move_number, out.event.seq), (3, 5));
    // a retry through the other server replays
    let again = b.write(mv(g.id, 3, "dd").with_key("k3")).await.unwrap();
    assert!(again.replayed);
    assert_eq!(again.event, out.event);
    let game = a.get_game(g.id).await.unwrap();
    assert_eq!((game.move_count, game.last_event_seq), (3, 5));
    assert!(a.verify_chain(g.id).await.unwrap().is_intact());
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn out_of_sequence_move_reports_current_number(pool: PgPool) {
    let store = Store::new(pool);
    let g = new_game(&store).await;
    store.write(mv(g.id, 1, "pd")).await.unwrap();
    let e = store.write(mv(g.id, 3, "dd")).await.unwrap_err();
    assert!(matches!(e, StoreError::Conflict { current_move_number: 1, expected: 3 }), "{e:?}");
    let e = store.write(mv(g.id, 1, "dd")).await.unwrap_err();
    assert!(matches!(e, StoreError::Conflict { current_move_number: 1, expected: 1 }), "{e:?}");
    // a pass is a move with no point
    let pass = store.write(GameWrite::new_move(g.id, 2, Color::White, None)).await.unwrap();
    assert_eq!(pass.mv.as_ref().unwrap().point, None);
    assert_eq!(pass.event.payload["move"], json!({"number": 2, "colour": "W", "point": null}));
    // a bad SGF point is refused
    assert!(matches!(store.write(mv(g.id, 3, "d")).await, Err(StoreError::InvalidArgument(_))));
    assert!(matches!(store.write(mv(Uuid::new_v4(), 1, "dd")).await, Err(StoreError::NotFound(_))));
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn idempotent_retry_returns_the_original_answer(pool: PgPool) {
    let store = Store::new(pool);
    let g = new_game(&store).await;
    let first = store
        .write(
            mv(g.id, 1, "pd")
                .with_key("abc")
                .with_event(Event::Move(MovePlayed { captured: Some(vec![]), ..Default::default() }))
                .with_response(json!({"ok": 1})),
        )
        .await
        .unwrap();
    assert!(!first.replayed);
    // a later move, then the retry of move 1: the original answer, nothing stored twice
    store.write(mv(g.id, 2, "dp").with_key("def")).await.unwrap();
    let again = store.write(mv(g.id, 1, "pd").with_key("abc").with_response(json!({"ok": 2}))).await.unwrap();
    assert!(again.replayed);
    assert_eq!(again.mv, first.mv);
    assert_eq!(again.event, first.event);
    assert_eq!(again.response, json!({"ok": 1}));
    assert_eq!(store.moves(g.id).await.unwrap().len(), 2);
    // concurrent retries of one request: one store, the rest replays of it
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move { store.write(mv(g.id, 3, "qq").with_key("same")).await.unwrap() }));
    }
    let mut outs = Vec::new();
    for t in tasks {
        outs.push(t.await.unwrap());
    }
    assert_eq!(outs.iter().filter(|o| !o.replayed).count(), 1);
    assert_eq!(outs.iter().map(|o| o.event.seq).collect::<HashSet<_>>().len(), 1);
    assert_eq!(store.moves(g.id).await.unwrap().len(), 3);
    // the same key for a different request is refused
    let e = store.write(mv(g.id, 4, "cc").with_key("abc")).await.unwrap_err();
    assert!(matches!(e, StoreError::AlreadyExists(_)), "{e:?}");
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn foul_is_an_event_not_a_move(pool: PgPool) {
    let store = Store::new(pool);
    let g = new_game(&store).await;
    store.write(mv(g.id, 1, "pd")).await.unwrap();
    let foul = GameWrite::event_only(
        g.id,
        Some(2),
        Event::Foul {
            foul: FoulRecord {
                move_number: 2,
                colour: Some(Color::White),
                point: Some("pd".into()),
                rule: "occupied".into(),
                article: "第三条".into(),
                description: String::new(),
            },
        },
    )
    .with_key("w-2");
    let out = store.write(foul.clone()).await.unwrap();
    assert!(out.mv.is_none());
    assert_eq!(out.event.kind, "foul");
    assert_eq!(store.get_game(g.id).await.unwrap().move_count, 1);
    let replay = store.write(foul).await.unwrap();
    assert!(replay.replayed);
    assert_eq!(replay.event.seq, out.event.seq);
    // resign ends the game; then no more moves
    store.write(GameWrite::event_only(g.id, None, resign(Color::White)).with_set_state(GameState::Ended)).await.unwrap();
    assert_eq!(store.get_game(g.id).await.unwrap().state, GameState::Ended);
    let e = store.write(mv(g.id, 2, "dd")).await.unwrap_err();
    assert!(matches!(e, StoreError::FailedPrecondition(_)), "{e:?}");
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn tampering_is_detected_by_the_hash_chain(pool: PgPool) {
    let store = Store::new(pool.clone());
    let g = new_game(&store).await;
    let other = new_game(&store).await;
    for (n, p) in [(1, "pd"), (2, "dp"), (3, "pp"), (4, "dd")] {
        store.write(mv(g.id, n, p)).await.unwrap();
        store.write(mv(other.id, n, p)).await.unwrap();
    }
    store.append_event(g.id, &note(json!({"text": "clock started", "komi": 6.5, "ünïcode": "持碁"}))).await.unwrap();
    let report = store.verify_all().await.unwrap();
    assert_eq!((report.games, report.events, report.is_intact()), (2, 11, true), "{report:?}");

    // a superuser disables the guard and rewrites event 3 (move 2) of g
    sqlx::query("ALTER TABLE events DISABLE TRIGGER events_immutable").execute(&pool).await.unwrap();
    sqlx::query("UPDATE events SET payload = jsonb_set(payload, '{move,point}', '\"qq\"') WHERE game_id = $1 AND seq = 3")
        .bind(g.id)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("ALTER TABLE events ENABLE TRIGGER events_immutable").execute(&pool).await.unwrap();
    let report = store.verify_chain(g.id).await.unwrap();
    assert_eq!(report.first_break(), Some(&ChainBreak { game_id: g.id, seq: 3, kind: BreakKind::HashMismatch }));
    let all = store.verify_all().await.unwrap();
    assert_eq!(all.breaks.len(), 1);
    assert_eq!(all.breaks[0].game_id, g.id);
    assert!(store.verify_chain(other.id).await.unwrap().is_intact());

    // rewriting a move row (not the event) is caught by the move/event cross-check
    sqlx::query("ALTER TABLE moves DISABLE TRIGGER moves_immutable").execute(&pool).await.unwrap();
    sqlx::query("UPDATE moves SET point = 'aa' WHERE game_id = $1 AND move_number = 3").bind(other.id).execute(&pool).await.unwrap();
    sqlx::query("ALTER TABLE moves ENABLE TRIGGER moves_immutable").execute(&pool).await.unwrap();
    let report = store.verify_chain(other.id).await.unwrap();
    assert_eq!(report.first_break(), Some(&ChainBreak { game_id: other.id, seq: 4, kind: BreakKind::MoveMismatch { move_number: 3 } }));

    // cutting events off the end is caught by the head kept on the game row
    let third = new_game(&store).await;
    store.write(mv(third.id, 1, "pd")).await.unwrap();
    store.append_event(third.id, &note(json!({}))).await.unwrap();
    sqlx::query("ALTER TABLE events DISABLE TRIGGER events_immutable").execute(&pool).await.unwrap();
    sqlx::query("DELETE FROM events WHERE game_id = $1 AND seq = 3").bind(third.id).execute(&pool).await.unwrap();
    sqlx::query("ALTER TABLE events ENABLE TRIGGER events_immutable").execute(&pool).await.unwrap();
    let report = store.verify_chain(third.id).await.unwrap();
    assert_eq!(report.first_break(), Some(&ChainBreak { game_id: third.id, seq: 3, kind: BreakKind::HeadMismatch { head_seq: 3 } }));
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn awkward_payloads_survive_jsonb_and_verify(pool: PgPool) {
    let store = Store::new(pool);
    let g = new_game(&store).await;
    let payload = json!({
        "komi": -0.0, "half": 6.5, "big": 1e300, "tiny": 1.5e-7, "u": u64::MAX, "i": i64::MIN,
        "text": "持碁 \"quoted\" \\ back\nslash \u{1F600}", "z": {"b": [1, {"y": null, "x": true}], "a": []},
    });
    let ev = store.append_event(g.id, &note(payload)).await.unwrap();
    assert_eq!(ev.payload["komi"], json!(0.0));
    let back = store.get_event(g.id, ev.seq).await.unwrap();
    assert_eq!(back.hash, ev.hash);
    assert!(store.verify_chain(g.id).await.unwrap().is_intact());
    // a NUL character cannot be stored in jsonb: refused as an invalid argument, nothing stored
    let e = store.append_event(g.id, &note(json!({"text": "a\u{0}b"}))).await.unwrap_err();
    assert!(matches!(e, StoreError::InvalidArgument(_)), "{e:?}");
    assert_eq!(store.get_game(g.id).await.unwrap().last_event_seq, ev.seq);
    // a payload that is not an object is refused
    assert!(matches!(store.append_event(g.id, &note(json!([1]))).await, Err(StoreError::InvalidArgument(_))));
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn database_refuses_changes_to_moves_and_events(pool: PgPool) {
    let store = Store::new(pool.clone());
    let g = new_game(&store).await;
    store.write(mv(g.id, 1, "pd")).await.unwrap();
    for sql in [
        "UPDATE events SET kind = 'x' WHERE game_id = $1",
        "DELETE FROM events WHERE game_id = $1",
        "UPDATE moves SET point = 'aa' WHERE game_id = $1",
        "DELETE FROM moves WHERE game_id = $1",
    ] {
        let e = sqlx::query(sql).bind(g.id).execute(&pool).await.map_err(StoreError::from).unwrap_err();
        match e {
            StoreError::Immutable(msg) => assert!(msg.contains("第十条"), "{msg}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
    for sql in ["TRUNCATE events CASCADE", "TRUNCATE moves"] {
        let e = sqlx::query(sql).execute(&pool).await.map_err(StoreError::from).unwrap_err();
        assert!(matches!(e, StoreError::Immutable(_)), "{sql}: {e:?}");
    }
    assert_eq!(store.moves(g.id).await.unwrap().len(), 1);
    assert!(store.verify_chain(g.id).await.unwrap().is_intact());
}
