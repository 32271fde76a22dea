//! Games, imports, keys and tournament settings.

use super::*;

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn moves_read_before_are_kept_and_checked_against_the_database(pool: PgPool) {
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
pub(super) async fn create_and_get_game(pool: PgPool) {
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
pub(super) async fn import_game_stores_a_whole_record_atomically(pool: PgPool) {
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
            colour: if i % 2 == 0 { Color::Black } else { Color::White },
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
    assert_eq!(moves[1].colour, Color::White);
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
pub(super) async fn a_game_created_with_a_key_is_created_once(pool: PgPool) {
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
    let record = vec![ImportedMove { colour: Color::Black, point: Some("cc".into()), client_time: None, event: MovePlayed::default() }];
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
pub(super) async fn tournament_settings_hold_the_no_result_policy(pool: PgPool) {
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
