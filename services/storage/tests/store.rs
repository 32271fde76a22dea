//! Storage tests against a real PostgreSQL (DATABASE_URL, or a throwaway cluster).

use std::collections::HashSet;

use futures::StreamExt;
use serde_json::json;
use shinpan_storage::event::{FoulRecord, MovePlayed};
use shinpan_storage::*;
use sqlx::PgPool;
use uuid::Uuid;

shinpan_storage::test_cluster!();

async fn new_game(store: &Store) -> Game {
    let t = store.ensure_tournament("Test Cup", &TournamentSettings::default()).await.unwrap();
    let b = store
        .upsert_player(&NewPlayer { name: "Kuwabara Shusaku".into(), rank: Some("7d".into()), federation_id: Some("egd-1".into()) })
        .await
        .unwrap();
    let w = store
        .upsert_player(&NewPlayer { name: "Gennan Inseki".into(), rank: Some("8d".into()), federation_id: Some("egd-2".into()) })
        .await
        .unwrap();
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM games").fetch_one(store.pool()).await.unwrap();
    store
        .create_game(&NewGame {
            tournament_id: Some(t.id),
            round: Some(1),
            table_number: Some(n as i32 + 1),
            black_player_id: b.id,
            white_player_id: w.id,
            board_width: 19,
            board_height: 19,
            komi: 6.5,
            handicap: 0,
            rule_set: "japanese-2011".into(),
            setup: json!({}),
            key: None,
        })
        .await
        .unwrap()
        .game
}

/// A 9x9 game between `g`'s players, komi 6.5, filed under no tournament, without a key.
fn nine_by_nine(g: &Game) -> NewGame {
    NewGame {
        tournament_id: None,
        round: None,
        table_number: None,
        black_player_id: g.black.id,
        white_player_id: g.white.id,
        board_width: 9,
        board_height: 9,
        komi: 6.5,
        handicap: 0,
        rule_set: "japanese-2011".into(),
        setup: json!({}),
        key: None,
    }
}

fn mv(game: Uuid, n: i32, point: &str) -> GameWrite {
    let colour = if n % 2 == 1 { Colour::Black } else { Colour::White };
    GameWrite::new_move(game, n, colour, Some(point))
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn moves_read_before_are_kept_and_checked_against_the_database(pool: PgPool) {
    let store = Store::new(pool.clone());
    let g = new_game(&store).await;
    for (n, p) in [(1, "pd"), (2, "dp"), (3, "pp")] {
        store.write(mv(g.id, n, p)).await.unwrap();
    }
    assert_eq!(store.moves(g.id).await.unwrap().len(), 3);
    // another process records two more: this store reads them too, after the three it kept
    let other = Store::new(pool.clone());
    for (n, p) in [(4, "dd"), (5, "qf")] {
        other.get_game(g.id).await.unwrap(); // a write after a read of the game, as RecordMove does
        other.write(mv(g.id, n, p)).await.unwrap();
    }
    let moves = store.moves(g.id).await.unwrap();
    assert_eq!(moves, other.moves(g.id).await.unwrap());
    assert_eq!(moves.iter().map(|m| m.move_number).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5]);
    assert_eq!(moves[4].point.as_deref(), Some("qf"));
    // the database no longer holds the last moves kept (as after a failover to a standby
    // that lacked them): the game's moves are read anew
    sqlx::query("ALTER TABLE moves DISABLE TRIGGER USER").execute(&pool).await.unwrap();
    sqlx::query("DELETE FROM moves WHERE game_id = $1 AND move_number >= 4").bind(g.id).execute(&pool).await.unwrap();
    sqlx::query("ALTER TABLE moves ENABLE TRIGGER USER").execute(&pool).await.unwrap();
    assert_eq!(store.moves(g.id).await.unwrap().len(), 3);
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn create_and_get_game(pool: PgPool) {
    let store = Store::new(pool);
    let g = new_game(&store).await;
    let got = store.get_game(g.id).await.unwrap();
    assert_eq!(got.black.name, "Kuwabara Shusaku");
    assert_eq!(got.white.federation_id.as_deref(), Some("egd-2"));
    assert_eq!((got.board_width, got.komi, got.state, got.move_count, got.last_event_seq), (19, 6.5, GameState::Playing, 0, 1));
    let ev = store.events_since(g.id, 0, 100).await.unwrap();
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].kind, "game_created");
    assert_eq!(ev[0].prev_hash, vec![0u8; 32]);
    let listed = store.list_games(g.tournament_id, Some(1)).await.unwrap();
    assert_eq!(listed.iter().map(|x| x.id).collect::<Vec<_>>(), vec![g.id]);
    assert!(store.list_games(g.tournament_id, Some(2)).await.unwrap().is_empty());
    assert!(matches!(store.get_game(Uuid::new_v4()).await, Err(StoreError::NotFound(_))));
    // the same table of the same round twice is refused
    let dup = store
        .create_game(&NewGame {
            tournament_id: g.tournament_id,
            round: Some(1),
            table_number: g.table_number,
            black_player_id: g.black.id,
            white_player_id: g.white.id,
            board_width: 9,
            board_height: 9,
            komi: 0.0,
            handicap: 0,
            rule_set: "japanese-2011".into(),
            setup: json!({}),
            key: None,
        })
        .await;
    assert!(matches!(dup, Err(StoreError::AlreadyExists(_))), "{dup:?}");
    // upsert by federation id updates, does not duplicate
    let again =
        store.upsert_player(&NewPlayer { name: "Honinbo Shusaku".into(), rank: None, federation_id: Some("egd-1".into()) }).await.unwrap();
    assert_eq!(again.id, g.black.id);
    assert_eq!(again.rank.as_deref(), Some("7d"));
    assert_eq!(store.get_player(g.black.id).await.unwrap().name, "Honinbo Shusaku");
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn import_game_stores_a_whole_record_atomically(pool: PgPool) {
    let store = Store::new(pool);
    let g = new_game(&store).await;
    let mut ng = NewGame {
        tournament_id: g.tournament_id,
        round: Some(2),
        table_number: Some(1),
        setup: json!({"EV": "Test Cup"}),
        ..nine_by_nine(&g)
    };
    let record: Vec<ImportedMove> = ["ee", "cc", "", ""]
        .iter()
        .enumerate()
        .map(|(i, p)| ImportedMove {
            colour: if i % 2 == 0 { Colour::Black } else { Colour::White },
            point: (!p.is_empty()).then(|| p.to_string()),
            client_time: None,
            event: MovePlayed { captured: Some(vec![]), ..Default::default() },
        })
        .collect();
    let end = GameEnd { state: GameState::Ended, event: note_of("play_ended", json!({"article": "第九条"})) };
    let imported = store.import_game(&ng, &record, Some(end.clone())).await.unwrap().game;
    assert_eq!((imported.move_count, imported.last_event_seq, imported.state), (4, 6, GameState::Ended));
    let moves = store.moves(imported.id).await.unwrap();
    assert_eq!(moves.iter().map(|m| m.point.clone()).collect::<Vec<_>>(), vec![Some("ee".into()), Some("cc".into()), None, None]);
    assert_eq!(moves[1].colour, Colour::White);
    let events = store.events_since(imported.id, 0, 100).await.unwrap();
    assert_eq!(events.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(), ["game_created", "move", "move", "move", "move", "play_ended"]);
    assert_eq!(events[2].payload, json!({"captured": [], "move": {"number": 2, "colour": "W", "point": "cc"}}));
    assert!(store.verify_chain(imported.id).await.unwrap().is_intact());
    // all or nothing: a bad point anywhere stores nothing
    ng.round = Some(3);
    let mut bad = record.clone();
    bad[3].point = Some("zzz".into());
    assert!(matches!(store.import_game(&ng, &bad, None).await, Err(StoreError::InvalidArgument(_))));
    // the same table twice: refused, and no partial game is left behind
    ng.round = Some(2);
    assert!(matches!(store.import_game(&ng, &record, None).await, Err(StoreError::AlreadyExists(_))));
    assert_eq!(store.list_games(g.tournament_id, None).await.unwrap().len(), 2);
    // recording continues on an imported game that is still being played
    ng.round = Some(4);
    let live = store.import_game(&ng, &record[..2], None).await.unwrap().game;
    let out = store.write(mv(live.id, 3, "gg")).await.unwrap();
    assert_eq!((out.mv.unwrap().move_number, out.event.seq), (3, 4));
    assert!(store.verify_chain(live.id).await.unwrap().is_intact());
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn a_game_created_with_a_key_is_created_once(pool: PgPool) {
    let store = Store::new(pool);
    let g = new_game(&store).await;
    let key = |k: &str, d: u8| Some(GameKey { key: k.into(), request_digest: vec![d; 32] });
    let ng = NewGame { key: key("board-7-retry", 1), ..nine_by_nine(&g) };
    // Eight racing calls with one key (a client retrying over a flaky link): one game.
    let calls = (0..8).map(|_| {
        let (store, ng) = (store.clone(), ng.clone());
        tokio::spawn(async move { store.create_game(&ng).await })
    });
    let answers: Vec<Created> = futures::future::join_all(calls).await.into_iter().map(|r| r.unwrap().unwrap()).collect();
    let first = answers[0].game.id;
    assert!(answers.iter().all(|c| c.game.id == first), "one game for one key");
    assert_eq!(answers.iter().filter(|c| !c.replayed).count(), 1, "exactly one call created it");
    assert_eq!(store.list_games(None, None).await.unwrap().len(), 2, "the first game and the keyed one");
    // A later retry gets the game as it is now, moves included.
    store.write(mv(first, 1, "ee")).await.unwrap();
    let again = store.create_game(&ng).await.unwrap();
    assert!(again.replayed);
    assert_eq!((again.game.id, again.game.move_count), (first, 1));
    // The same key with another request is refused; nothing is created.
    let other = NewGame { komi: 0.5, key: key("board-7-retry", 2), ..ng.clone() };
    let e = store.create_game(&other).await.unwrap_err();
    assert!(matches!(&e, StoreError::AlreadyExists(m) if m.contains("different request")), "{e:?}");
    // Imports: the same, and a key is unique over created and imported games alike.
    let record = vec![ImportedMove { colour: Colour::Black, point: Some("cc".into()), client_time: None, event: MovePlayed::default() }];
    let imported = store.import_game(&NewGame { key: key("import-1", 3), ..ng.clone() }, &record, None).await.unwrap();
    assert!(!imported.replayed);
    let retried = store.import_game(&NewGame { key: key("import-1", 3), ..ng.clone() }, &record, None).await.unwrap();
    assert!(retried.replayed);
    assert_eq!(retried.game.id, imported.game.id);
    let clash = NewGame { key: key("board-7-retry", 4), ..ng.clone() };
    assert!(matches!(store.import_game(&clash, &record, None).await, Err(StoreError::AlreadyExists(_))));
    assert_eq!(store.list_games(None, None).await.unwrap().len(), 3);
    // Without a key every call creates a game (no way to tell a retry from a new game).
    let unkeyed = NewGame { key: None, ..ng.clone() };
    let (a, b) = (store.create_game(&unkeyed).await.unwrap(), store.create_game(&unkeyed).await.unwrap());
    assert_ne!(a.game.id, b.game.id);
    assert!(!a.replayed && !b.replayed);
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn tournament_settings_hold_the_no_result_policy(pool: PgPool) {
    let store = Store::new(pool.clone());
    let mut s = TournamentSettings { no_result_policy: NoResultPolicy::Nigiri, extra: Default::default() };
    s.extra.insert("required_confirmations".into(), json!(["black", "white", "referee"]));
    let t = store.create_tournament("Meijin League", &s).await.unwrap();
    let got = store.get_tournament(t.id).await.unwrap();
    assert_eq!(got.settings, s);
    let raw: String = sqlx::query_scalar("SELECT settings->>'no_result_policy' FROM tournaments WHERE id = $1")
        .bind(t.id)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(raw, "nigiri");
    assert!(matches!(store.create_tournament("Meijin League", &s).await, Err(StoreError::AlreadyExists(_))));
    // the database refuses an unknown policy
    let bad = sqlx::query("UPDATE tournaments SET settings = '{\"no_result_policy\":\"coin\"}' WHERE id = $1")
        .bind(t.id)
        .execute(&pool)
        .await
        .map_err(StoreError::from);
    assert!(matches!(bad, Err(StoreError::InvalidArgument(_))), "{bad:?}");
    s.no_result_policy = NoResultPolicy::TimeUsed;
    assert_eq!(store.update_tournament_settings(t.id, &s).await.unwrap().settings.no_result_policy, NoResultPolicy::TimeUsed);
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn concurrent_append_is_exactly_once(pool: PgPool) {
    concurrent_append(pool, false).await
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn concurrent_append_is_exactly_once_with_row_locks(pool: PgPool) {
    concurrent_append(pool, true).await
}

/// 10 clients send move n of one game at once, through two stores standing for two server
/// processes (separate head caches), optimistic or locking.
async fn concurrent_append(pool: PgPool, locking: bool) {
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
async fn concurrent_writes_of_many_games_each_get_their_own_answer(pool: PgPool) {
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
async fn a_locked_game_does_not_hold_up_other_games(pool: PgPool) {
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
async fn writes_interleave_with_other_events_and_other_servers(pool: PgPool) {
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
async fn out_of_sequence_move_reports_current_number(pool: PgPool) {
    let store = Store::new(pool);
    let g = new_game(&store).await;
    store.write(mv(g.id, 1, "pd")).await.unwrap();
    let e = store.write(mv(g.id, 3, "dd")).await.unwrap_err();
    assert!(matches!(e, StoreError::Conflict { current_move_number: 1, expected: 3 }), "{e:?}");
    let e = store.write(mv(g.id, 1, "dd")).await.unwrap_err();
    assert!(matches!(e, StoreError::Conflict { current_move_number: 1, expected: 1 }), "{e:?}");
    // a pass is a move with no point
    let pass = store.write(GameWrite::new_move(g.id, 2, Colour::White, None)).await.unwrap();
    assert_eq!(pass.mv.as_ref().unwrap().point, None);
    assert_eq!(pass.event.payload["move"], json!({"number": 2, "colour": "W", "point": null}));
    // a bad SGF point is refused
    assert!(matches!(store.write(mv(g.id, 3, "d")).await, Err(StoreError::InvalidArgument(_))));
    assert!(matches!(store.write(mv(Uuid::new_v4(), 1, "dd")).await, Err(StoreError::NotFound(_))));
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn idempotent_retry_returns_the_original_answer(pool: PgPool) {
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
async fn foul_is_an_event_not_a_move(pool: PgPool) {
    let store = Store::new(pool);
    let g = new_game(&store).await;
    store.write(mv(g.id, 1, "pd")).await.unwrap();
    let foul = GameWrite::event_only(
        g.id,
        Some(2),
        Event::Foul {
            foul: FoulRecord {
                move_number: 2,
                colour: Some(Colour::White),
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
    store.write(GameWrite::event_only(g.id, None, resign(Colour::White)).with_set_state(GameState::Ended)).await.unwrap();
    assert_eq!(store.get_game(g.id).await.unwrap().state, GameState::Ended);
    let e = store.write(mv(g.id, 2, "dd")).await.unwrap_err();
    assert!(matches!(e, StoreError::FailedPrecondition(_)), "{e:?}");
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn tampering_is_detected_by_the_hash_chain(pool: PgPool) {
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
async fn awkward_payloads_survive_jsonb_and_verify(pool: PgPool) {
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
async fn database_refuses_changes_to_moves_and_events(pool: PgPool) {
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

async fn ended_game_with_result(store: &Store) -> (Game, StoredResult) {
    let g = new_game(store).await;
    store.write(mv(g.id, 1, "pd")).await.unwrap();
    store.write(GameWrite::event_only(g.id, None, resign(Colour::White)).with_set_state(GameState::Ended)).await.unwrap();
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

const ALL_THREE: [Role; 3] = [Role::Black, Role::White, Role::Referee];

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn result_becomes_final_after_all_confirmations_and_never_changes(pool: PgPool) {
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
async fn final_game_rows_are_guarded_and_every_row_names_a_real_game(pool: PgPool) {
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
async fn a_confirmation_removed_behind_the_triggers_is_caught(pool: PgPool) {
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
async fn objection_opens_a_case_and_an_amended_result_supersedes(pool: PgPool) {
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
async fn cases_follow_their_state_machine(pool: PgPool) {
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

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn notify_announces_each_new_event(pool: PgPool) {
    let store = Store::new(pool.clone());
    let g = new_game(&store).await;
    let mut listener = sqlx::postgres::PgListener::connect_with(&pool).await.unwrap();
    listener.listen(CHANNEL).await.unwrap();
    store.write(mv(g.id, 1, "pd")).await.unwrap();
    // announcements are "<game>:<seq>" entries, comma-separated; the game's seq 2 must come
    loop {
        let n = tokio::time::timeout(std::time::Duration::from_secs(30), listener.recv()).await.expect("NOTIFY arrives").unwrap();
        let entries: Vec<&str> = n.payload().split(',').collect();
        assert!(entries.iter().all(|e| e.starts_with(&g.id.to_string())), "{entries:?}");
        if entries.contains(&format!("{}:2", g.id).as_str()) {
            break;
        }
    }
}

async fn next(s: &mut EventStream) -> StoredEvent {
    tokio::time::timeout(std::time::Duration::from_secs(30), s.next()).await.expect("event arrives").unwrap().unwrap()
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn watch_streams_stored_then_live_events_in_order(pool: PgPool) {
    let store = Store::new(pool);
    let g = new_game(&store).await;
    let other = new_game(&store).await;
    store.write(mv(g.id, 1, "pd")).await.unwrap();
    let mut stream = store.watch(g.id, 0).await.unwrap();
    assert_eq!(next(&mut stream).await.kind, "game_created");
    assert_eq!(next(&mut stream).await.seq, 2);
    let writer = {
        let store = store.clone();
        tokio::spawn(async move {
            for n in 2..=20 {
                store.write(mv(other.id, n - 1, "aa")).await.ok();
                store.write(mv(g.id, n, &format!("{}{}", (b'a' + n as u8) as char, 'c'))).await.unwrap();
            }
        })
    };
    for n in 2..=20 {
        let e = next(&mut stream).await;
        assert_eq!(e.seq, n as i64 + 1);
        assert_eq!(e.game_id, g.id);
        assert_eq!(e.payload["move"]["number"], json!(n));
    }
    writer.await.unwrap();
    // a watcher in another process (another store) follows writes made here, via NOTIFY
    let elsewhere = Store::new(store.pool().clone());
    let mut remote = elsewhere.watch(g.id, 21).await.unwrap();
    store.append_event(g.id, &note(json!({"text": "byo-yomi"}))).await.unwrap();
    let e = next(&mut remote).await;
    assert_eq!((e.seq, e.kind.as_str()), (22, "note"));
    // resuming from a sequence number skips what was seen
    let mut resumed = store.watch(g.id, 19).await.unwrap();
    assert_eq!(next(&mut resumed).await.seq, 20);
    assert!(matches!(store.watch(Uuid::new_v4(), 0).await, Err(StoreError::NotFound(_))));
}

#[tokio::test]
async fn fresh_pool_is_migrated_and_isolated() {
    let a = shinpan_storage::testing::fresh_store().await;
    let b = shinpan_storage::testing::fresh_store().await;
    let g = new_game(&a).await;
    assert!(a.get_game(g.id).await.is_ok());
    assert!(matches!(b.get_game(g.id).await, Err(StoreError::NotFound(_))));
    // migrating twice is a no-op
    migrate(a.pool()).await.unwrap();
}

/// Several calls for the same new player without a federation id at once (two boards'
/// CreateGame naming the same player) make one player, not several.
#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn concurrent_upserts_of_a_player_without_federation_id_make_one_player(pool: PgPool) {
    let store = Store::new(pool.clone());
    for rank in [None, Some("3d".to_string())] {
        let calls = (0..8).map(|_| {
            let store = store.clone();
            let rank = rank.clone();
            tokio::spawn(async move { store.upsert_player(&NewPlayer { name: "Fujisawa Hosai".into(), rank, federation_id: None }).await })
        });
        let ids: HashSet<Uuid> = futures::future::join_all(calls).await.into_iter().map(|r| r.unwrap().unwrap().id).collect();
        assert_eq!(ids.len(), 1, "rank {rank:?}: {ids:?}");
    }
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM players WHERE name = 'Fujisawa Hosai'").fetch_one(&pool).await.unwrap();
    assert_eq!(rows, 2, "one per rank");
}

/// The fact a verification names, with the value the row holds and the value the chain records.
fn fact_break(report: &ChainReport) -> Option<(String, String, String)> {
    match &report.first_break()?.kind {
        BreakKind::FactMismatch { field, stored, recorded, .. } => Some((field.clone(), stored.clone(), recorded.clone())),
        _ => None,
    }
}

/// A game of two new players (ranks and federation ids unique to `tag`) in the tournament
/// "Facts Cup", round 3, board `board`, with a setup stone and handicap 0.
async fn facts_game(store: &Store, tag: &str, board: i32) -> Game {
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
async fn every_fact_changed_in_a_row_is_named_by_the_audit(pool: PgPool) {
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
    store.write(GameWrite::event_only(g.id, None, resign(Colour::White)).with_set_state(GameState::Ended)).await.unwrap();
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
async fn a_player_renamed_through_the_store_keeps_their_games_verifying(pool: PgPool) {
    let store = Store::new(pool.clone());
    let g1 = facts_game(&store, "rename", 1).await;
    let mut second = nine_by_nine(&g1);
    second.black_player_id = g1.white.id;
    second.white_player_id = g1.black.id;
    let g2 = store.create_game(&second).await.unwrap().game;
    store.write(GameWrite::event_only(g2.id, None, resign(Colour::Black)).with_set_state(GameState::Ended)).await.unwrap();
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
async fn games_stored_before_the_migration_keep_verifying(pool: PgPool) {
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
    store.write(GameWrite::event_only(final_game, None, resign(Colour::White)).with_set_state(GameState::Ended)).await.unwrap();
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
async fn disputed_game(store: &Store) -> (Game, Uuid, Uuid, Uuid, Uuid) {
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
async fn results_cases_and_objections_changed_in_rows_are_caught(pool: PgPool) {
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
fn note(payload: serde_json::Value) -> Event {
    note_of("note", payload)
}

/// An event of `kind` kept as given.
fn note_of(kind: &str, payload: serde_json::Value) -> Event {
    Event::Other { kind: kind.into(), payload }
}

/// A resignation of `colour` (第六条), without the result and article the service adds.
fn resign(colour: Colour) -> Event {
    Event::Resign { colour, result: None, article: None }
}

/// Every event the store writes, read back from the database, reads as its typed variant and
/// serialises to exactly the payload stored (so a chain written by the enum is the chain the
/// `json!` payloads before it wrote, and the events of old chains decode).
#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
async fn every_event_the_store_writes_reads_back_as_its_variant(pool: PgPool) {
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
        colour: Some(Colour::White),
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
    let resign = Event::Resign { colour: Colour::White, result: Some("B+R".into()), article: Some("第六条".into()) };
    store.write(GameWrite::event_only(other.id, None, resign).with_set_state(GameState::Ended)).await.unwrap();
    let record: Vec<ImportedMove> = [Some("ee"), None, None]
        .iter()
        .enumerate()
        .map(|(i, p)| ImportedMove {
            colour: if i % 2 == 0 { Colour::Black } else { Colour::White },
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
    assert_eq!(m, MovePlayed { mv: Some(MoveRecord { number: 1, colour: Colour::Black, point: Some("pd".into()) }), ..played });
    // every kind but `game_facts` (written only by a migration, see below) was written here
    let missing: Vec<_> = KINDS.iter().filter(|k| **k != "game_facts" && !seen.contains(**k)).collect();
    assert!(missing.is_empty(), "not written: {missing:?}");
    let report = store.verify_all().await.unwrap();
    assert!(report.is_intact(), "{report:?}");
}
