//! NOTIFY and WatchGame streams, fresh databases, concurrent player upserts.

use super::*;

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn notify_announces_each_new_event(pool: PgPool) {
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

pub(super) async fn next(s: &mut EventStream) -> StoredEvent {
    tokio::time::timeout(std::time::Duration::from_secs(30), s.next()).await.expect("event arrives").unwrap().unwrap()
}

#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
pub(super) async fn watch_streams_stored_then_live_events_in_order(pool: PgPool) {
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
pub(super) async fn fresh_pool_is_migrated_and_isolated() {
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
pub(super) async fn concurrent_upserts_of_a_player_without_federation_id_make_one_player(pool: PgPool) {
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
