//! `shinpan audit verify` against a real PostgreSQL: an intact log verifies; a row changed
//! behind the triggers' back (the only way to change one) is caught at its sequence number.

use shinpan_storage::{Colour, GameWrite, NewGame, NewPlayer, Store};
use std::process::Command;

async fn database_url(store: &Store) -> String {
    let db: String = sqlx::query_scalar("SELECT current_database()").fetch_one(store.pool()).await.unwrap();
    let server = shinpan_storage::testing::ensure_database_url();
    // `postgres://…/<database>[?host=<socket dir>]`: replace the database, keep the query.
    let (path, query) = server.split_once('?').map_or((server.as_str(), None), |(p, q)| (p, Some(q)));
    let (base, _) = path.rsplit_once('/').expect("a URL with a database");
    format!("{base}/{db}{}", query.map(|q| format!("?{q}")).unwrap_or_default())
}

fn audit(url: &str) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shinpan")).args(["audit", "verify", "--database-url", url]).output().expect("run shinpan");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[tokio::test]
async fn audit_verify_reports_the_first_broken_link() {
    let store = shinpan_storage::testing::fresh_store().await;
    let b = store
        .upsert_player(&NewPlayer { name: "Kato Masao".into(), rank: Some("5d".into()), federation_id: Some("111".into()) })
        .await
        .unwrap();
    let w = store
        .upsert_player(&NewPlayer { name: "Cho Chikun".into(), rank: Some("4d".into()), federation_id: Some("222".into()) })
        .await
        .unwrap();
    let mut ids = Vec::new();
    for _ in 0..2 {
        let g = store
            .create_game(&NewGame {
                tournament_id: None,
                round: None,
                table_number: None,
                black_player_id: b.id,
                white_player_id: w.id,
                board_width: 9,
                board_height: 9,
                komi: 6.5,
                handicap: 0,
                rule_set: "japanese-2011".into(),
                setup: serde_json::json!({}),
            })
            .await
            .unwrap();
        for (n, (c, p)) in [(Colour::Black, "ee"), (Colour::White, "cc"), (Colour::Black, "gg")].into_iter().enumerate() {
            store.write(GameWrite::new_move(g.id, n as i32 + 1, c, Some(p))).await.unwrap();
        }
        ids.push(g.id);
    }
    let url = database_url(&store).await;
    let (code, out) = audit(&url);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("2 game(s)") && out.contains("every chain intact"), "{out}");

    // The triggers refuse any change; a tamperer with the owner's rights turns them off first.
    let pool = store.pool();
    assert!(sqlx::query("UPDATE events SET payload = '{}' WHERE game_id = $1 AND seq = 3").bind(ids[1]).execute(pool).await.is_err());
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("ALTER TABLE events DISABLE TRIGGER events_immutable").execute(&mut *tx).await.unwrap();
    let changed = sqlx::query("UPDATE events SET payload = jsonb_set(payload, '{move,point}', '\"aa\"') WHERE game_id = $1 AND seq = 3")
        .bind(ids[1])
        .execute(&mut *tx)
        .await
        .unwrap();
    assert_eq!(changed.rows_affected(), 1);
    sqlx::query("ALTER TABLE events ENABLE TRIGGER events_immutable").execute(&mut *tx).await.unwrap();
    tx.commit().await.unwrap();

    let (code, out) = audit(&url);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&format!("BROKEN game {} event 3:", ids[1])), "{out}");
    assert!(!out.contains(&ids[0].to_string()), "the untouched game verifies: {out}");
    assert!(out.contains("1 broken"), "{out}");
    // The library reports the same first break.
    let r = shinpan::audit::verify(&store, Some(ids[1])).await.unwrap();
    assert_eq!(r.first_break().map(|b| b.seq), Some(3));
}
