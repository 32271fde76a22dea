//! `shinpan audit verify` against a real PostgreSQL: an intact log verifies; a row changed
//! behind the triggers' back (the only way to change one) is caught at its sequence number;
//! events cut off the end together with the game row's head are caught by an anchor.

use serde_json::json;
use shinpan_storage::{Color, GameWrite, NewGame, NewPlayer, Store};
use std::process::Command;

async fn database_url(store: &Store) -> String {
    let db: String = sqlx::query_scalar("SELECT current_database()").fetch_one(store.pool()).await.unwrap();
    let server = shinpan_storage::testing::ensure_database_url();
    // `postgres://…/<database>[?host=<socket dir>]`: replace the database, keep the query.
    let (path, query) = server.split_once('?').map_or((server.as_str(), None), |(p, q)| (p, Some(q)));
    let (base, _) = path.rsplit_once('/').expect("a URL with a database");
    format!("{base}/{db}{}", query.map(|q| format!("?{q}")).unwrap_or_default())
}

/// A 9x9 game between `black` and `white` with three moves (events: created, then one per
/// move); its id.
async fn game_with_three_moves(store: &Store, black: uuid::Uuid, white: uuid::Uuid) -> uuid::Uuid {
    let g = store
        .create_game(&NewGame {
            tournament_id: None,
            round: None,
            table_number: None,
            black_player_id: black,
            white_player_id: white,
            board_width: 9,
            board_height: 9,
            komi: 6.5,
            handicap: 0,
            rule_set: "japanese-2011".into(),
            setup: serde_json::json!({}),
            key: None,
        })
        .await
        .unwrap()
        .game;
    for (n, (c, p)) in [(Color::Black, "ee"), (Color::White, "cc"), (Color::Black, "gg")].into_iter().enumerate() {
        store.write(GameWrite::new_move(g.id, n as i32 + 1, c, Some(p))).await.unwrap();
    }
    g.id
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
        ids.push(game_with_three_moves(&store, b.id, w.id).await);
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

fn shinpan(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shinpan")).args(args).output().expect("run shinpan");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Whoever owns the database can cut events off the end of a log *and* rewrite the game
/// row's head to match: the chain and the head then verify. An anchor kept outside the
/// database still shows it.
#[tokio::test]
async fn an_anchor_shows_events_cut_off_the_end_with_the_head_rewritten() {
    let store = shinpan_storage::testing::fresh_store().await;
    let b = store.upsert_player(&NewPlayer { name: "Sakata Eio".into(), rank: None, federation_id: Some("331".into()) }).await.unwrap();
    let w = store.upsert_player(&NewPlayer { name: "Fujisawa Shuko".into(), rank: None, federation_id: Some("332".into()) }).await.unwrap();
    let g = store.get_game(game_with_three_moves(&store, b.id, w.id).await).await.unwrap();
    let url = database_url(&store).await;
    let dir = std::env::temp_dir().join(format!("shinpan-anchor-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let anchor = dir.join("anchor.txt");
    let (code, _, err) = shinpan(&["audit", "anchor", "--database-url", &url, "--out", anchor.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&anchor).unwrap();
    let heads = shinpan::audit::parse_anchor(&text).unwrap();
    assert_eq!(heads.len(), 1);
    assert_eq!((heads[0].game_id, heads[0].seq), (g.id, 4), "created + three moves: {text}");
    let verify = || shinpan(&["audit", "verify", "--database-url", &url, "--anchor", anchor.to_str().unwrap()]);
    let (code, out, err) = verify();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("every anchored event still there"), "{out}");
    // A log may grow after its anchor.
    store.write(GameWrite::new_move(g.id, 4, Color::White, Some("cg"))).await.unwrap();
    let (code, out, err) = verify();
    assert_eq!(code, 0, "{out}{err}");

    // The owner cuts moves 3 and 4 off the end and rewrites the head to match.
    let pool = store.pool();
    let mut tx = pool.begin().await.unwrap();
    for t in ["events", "moves", "games"] {
        sqlx::query(sqlx::AssertSqlSafe(format!("ALTER TABLE {t} DISABLE TRIGGER USER"))).execute(&mut *tx).await.unwrap();
    }
    sqlx::query("DELETE FROM moves WHERE game_id = $1 AND move_number > 2").bind(g.id).execute(&mut *tx).await.unwrap();
    let cut = sqlx::query("DELETE FROM events WHERE game_id = $1 AND seq > 3").bind(g.id).execute(&mut *tx).await.unwrap();
    assert_eq!(cut.rows_affected(), 2);
    sqlx::query(
        "UPDATE games SET last_seq = 3, move_count = 2, last_hash = (SELECT hash FROM events WHERE game_id = $1 AND seq = 3) WHERE id = $1",
    )
    .bind(g.id)
    .execute(&mut *tx)
    .await
    .unwrap();
    for t in ["events", "moves", "games"] {
        sqlx::query(sqlx::AssertSqlSafe(format!("ALTER TABLE {t} ENABLE TRIGGER USER"))).execute(&mut *tx).await.unwrap();
    }
    tx.commit().await.unwrap();
    // The database alone cannot tell.
    let (code, out) = audit(&url);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("every chain intact"), "{out}");
    // The anchor can.
    let (code, out, err) = verify();
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!("ROLLED BACK game {}: anchored event 4 is missing", g.id)), "{out}");
    assert!(out.contains("anchor: 1 game(s): 1 rolled back"), "{out}");

    // An altered anchor is refused as such (exit 2), before any database is asked.
    std::fs::write(&anchor, text.replacen(" 4 ", " 3 ", 1)).unwrap();
    let (code, out, err) = verify();
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("the anchor was altered"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each of a game's own facts changed directly in the database (komi, rule set, setup stones,
/// a player's name or federation id, handicap, tournament, round, board number) is reported by
/// `shinpan audit verify` as a broken game naming the field, its value in the row and the value
/// the genesis event recorded; an untouched game is not reported. Rows changed so far that the
/// game no longer loads (an unknown rule set, overlapping setup stones) are reported the same way.
#[tokio::test]
async fn audit_verify_names_every_fact_changed_in_the_database() {
    let store = shinpan_storage::testing::fresh_store().await;
    let cup = store.ensure_tournament("Meijin League", &Default::default()).await.unwrap();
    let other = store.ensure_tournament("Other League", &Default::default()).await.unwrap();
    // (field, table, change, the row's value, the recorded value)
    let case = |field: &'static str, table: &'static str, sql: &str, stored: &str, recorded: &str| {
        (field, table, sql.to_string(), stored.to_string(), recorded.to_string())
    };
    let cases = [
        case("komi", "games", "UPDATE games SET komi = 106.5 WHERE id = $1", "106.5", "6.5"),
        case("rule_set", "games", "UPDATE games SET rule_set = 'no-such-rules' WHERE id = $1", "\"no-such-rules\"", "\"japanese-2011\""),
        case(
            "setup",
            "games",
            "UPDATE games SET setup = '{\"AB\":[\"dd\"],\"AW\":[\"dd\"]}' WHERE id = $1",
            "{\"AB\":[\"dd\"],\"AW\":[\"dd\"]}",
            "{\"AB\":[\"dd\"]}",
        ),
        case(
            "black.name",
            "players",
            "UPDATE players SET name = 'Someone Else' WHERE id = (SELECT black_player_id FROM games WHERE id = $1)",
            "\"Someone Else\"",
            "\"Black 3\"",
        ),
        case(
            "white.federation_id",
            "players",
            "UPDATE players SET federation_id = 'forged' WHERE id = (SELECT white_player_id FROM games WHERE id = $1)",
            "\"forged\"",
            "\"w-4\"",
        ),
        case("handicap", "games", "UPDATE games SET handicap = 9 WHERE id = $1", "9", "0"),
        case(
            "tournament_id",
            "games",
            &format!("UPDATE games SET tournament_id = '{}' WHERE id = $1", other.id),
            &format!("\"{}\"", other.id),
            &format!("\"{}\"", cup.id),
        ),
        case("round", "games", "UPDATE games SET round = 7 WHERE id = $1", "7", "2"),
        case("table_number", "games", "UPDATE games SET table_number = 42 WHERE id = $1", "42", "9"),
    ];
    let mut games = Vec::new();
    for i in 0..=cases.len() {
        let b = store
            .upsert_player(&NewPlayer { name: format!("Black {i}"), rank: Some("5d".into()), federation_id: Some(format!("b-{i}")) })
            .await
            .unwrap();
        let w = store
            .upsert_player(&NewPlayer { name: format!("White {i}"), rank: Some("4d".into()), federation_id: Some(format!("w-{i}")) })
            .await
            .unwrap();
        let g = store
            .create_game(&NewGame {
                tournament_id: Some(cup.id),
                round: Some(2),
                table_number: Some(if i == 8 { 9 } else { 10 + i as i32 }),
                black_player_id: b.id,
                white_player_id: w.id,
                board_width: 9,
                board_height: 9,
                komi: 6.5,
                handicap: 0,
                rule_set: "japanese-2011".into(),
                setup: serde_json::json!({"AB": ["dd"]}),
                key: None,
            })
            .await
            .unwrap()
            .game;
        store.write(GameWrite::new_move(g.id, 1, Color::White, Some("ee"))).await.unwrap();
        games.push(g.id);
    }
    let url = database_url(&store).await;
    let (code, out) = audit(&url);
    assert_eq!(code, 0, "{out}");

    for ((_, _, sql, _, _), g) in cases.iter().zip(&games) {
        let changed = sqlx::query(sqlx::AssertSqlSafe(sql.clone())).bind(g).execute(store.pool()).await.unwrap();
        assert_eq!(changed.rows_affected(), 1, "{sql}");
    }
    // the changed rule set and setup no longer load as a game
    for g in &games[1..3] {
        let stored = store.get_game(*g).await.unwrap();
        let loads = match shinpan::app::events::stored_start(&stored) {
            Ok(start) => start.game().is_ok(),
            Err(_) => false,
        };
        assert!(!loads, "game {g} should no longer load");
    }

    let (code, out) = audit(&url);
    assert_eq!(code, 1, "{out}");
    for ((field, table, _, stored, recorded), g) in cases.iter().zip(&games) {
        let line = format!("BROKEN game {g} event 1: {field} in the {table} table is {stored}, event 1 (game_created) says {recorded}\n");
        assert!(out.contains(&line), "{field}: no line\n{line}in\n{out}");
        let r = shinpan::audit::verify(&store, Some(*g)).await.unwrap();
        match &r.first_break().unwrap().kind {
            shinpan_storage::BreakKind::FactMismatch { field: f, .. } => assert_eq!(f, field),
            other => panic!("{field}: {other:?}"),
        }
    }
    let untouched = games.last().unwrap();
    assert!(!out.contains(&untouched.to_string()), "the untouched game verifies: {out}");
    assert!(shinpan::audit::verify(&store, Some(*untouched)).await.unwrap().is_intact());
    assert!(out.contains(&format!("{} game(s)", games.len())) && out.contains(&format!("{} broken", cases.len())), "{out}");

    // A second fact changed in the game whose rule set was changed: both are named, the
    // second on an `also` line under the game's line (`--game`: that game only).
    sqlx::query("UPDATE games SET komi = 0.5 WHERE id = $1").bind(games[1]).execute(store.pool()).await.unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_shinpan"))
        .args(["audit", "verify", "--database-url", &url, "--game", &games[1].to_string()])
        .output()
        .expect("run shinpan");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(
        text,
        format!(
            "BROKEN game {g} event 1: rule_set in the games table is \"no-such-rules\", event 1 (game_created) says \"japanese-2011\"\n  \
             also game {g} event 1: komi in the games table is 0.5, event 1 (game_created) says 6.5\n1 game(s), 2 event(s): 1 broken\n",
            g = games[1]
        )
    );
}

/// A database whose games were stored before the game's facts were all recorded: its games
/// (genesis without the players) and an anchor taken then still verify after `shinpan audit
/// verify` applied the migration that records their facts — no existing hash changed — and a
/// player's federation id changed afterwards is named.
#[tokio::test]
async fn a_database_from_before_the_facts_were_recorded_keeps_verifying() {
    use shinpan_storage::chain;
    const BEFORE: i64 = 20261124000002;
    // a new database, migrated only up to the schema the old games were stored with
    let server = shinpan_storage::testing::ensure_database_url();
    let opts: sqlx::postgres::PgConnectOptions = server.parse().unwrap();
    let name = format!("shinpan_old_{}", uuid::Uuid::new_v4().simple());
    let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect_with(&opts).await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\""))).execute(&mut admin).await.unwrap();
    let pool = sqlx::PgPool::connect_with(opts.clone().database(&name)).await.unwrap();
    shinpan_storage::MIGRATOR.run_to(BEFORE, &pool).await.unwrap();
    let store = Store::new(pool.clone());
    let b = store.upsert_player(&NewPlayer { name: "Ishida Yoshio".into(), rank: None, federation_id: Some("710".into()) }).await.unwrap();
    let w = store.upsert_player(&NewPlayer { name: "Rin Kaiho".into(), rank: None, federation_id: Some("711".into()) }).await.unwrap();
    // the genesis as it was written then: the game's columns only
    let id = uuid::Uuid::new_v4();
    let payload = json!({
        "tournament_id": null, "round": null, "table_number": null, "black_player_id": b.id, "white_player_id": w.id,
        "board_width": 9, "board_height": 9, "komi": 6.5, "handicap": 0, "rule_set": "japanese-2011", "setup": {},
    });
    let at = chain::to_micros(chrono::Utc::now());
    let hash = chain::event_hash(&chain::GENESIS, id, 1, "game_created", &payload, at).to_vec();
    sqlx::query(
        "INSERT INTO games (id, black_player_id, white_player_id, board_width, board_height, komi, last_seq, last_hash)
         VALUES ($1, $2, $3, 9, 9, 6.5, 1, $4)",
    )
    .bind(id)
    .bind(b.id)
    .bind(w.id)
    .bind(&hash)
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash) VALUES ($1, 1, 'game_created', $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(&payload)
    .bind(at)
    .bind(chain::GENESIS.to_vec())
    .bind(&hash)
    .execute(&pool)
    .await
    .unwrap();
    for (n, (c, p)) in [(Color::Black, "ee"), (Color::White, "cc")].into_iter().enumerate() {
        store.write(GameWrite::new_move(id, n as i32 + 1, c, Some(p))).await.unwrap();
    }
    let dir = std::env::temp_dir().join(format!("shinpan-old-anchor-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let anchor = dir.join("anchor.txt");
    std::fs::write(&anchor, shinpan::audit::anchor_text(&store.chain_heads().await.unwrap(), chrono::Utc::now())).unwrap();
    pool.close().await;

    let url = database_url_of(&server, &name);
    let verify = || shinpan(&["audit", "verify", "--database-url", &url, "--anchor", anchor.to_str().unwrap()]);
    let (code, out, err) = verify();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 game(s), 4 event(s): every chain intact"), "created, two moves, and the facts: {out}");
    assert!(out.contains("anchor: 1 game(s): every anchored event still there"), "{out}");

    let pool = sqlx::PgPool::connect_with(opts.clone().database(&name)).await.unwrap();
    let facts: String =
        sqlx::query_scalar("SELECT kind FROM events WHERE game_id = $1 AND seq = 4").bind(id).fetch_one(&pool).await.unwrap();
    assert_eq!(facts, "game_facts");
    sqlx::query("UPDATE players SET federation_id = 'forged' WHERE id = $1").bind(b.id).execute(&pool).await.unwrap();
    pool.close().await;
    let (code, out, err) = verify();
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(&format!(
            "BROKEN game {id} event 4: black.federation_id in the players table is \"forged\", event 4 (game_facts) says \"710\""
        )),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `server` (the test server's URL) with its database replaced by `name`.
fn database_url_of(server: &str, name: &str) -> String {
    let (path, query) = server.split_once('?').map_or((server, None), |(p, q)| (p, Some(q)));
    let (base, _) = path.rsplit_once('/').expect("a URL with a database");
    format!("{base}/{name}{}", query.map(|q| format!("?{q}")).unwrap_or_default())
}

/// `shinpan audit verify` where there is no database (another directory, a mistyped
/// `--data-dir`) says so and fails; it does not create an empty cluster and call it intact.
#[test]
fn audit_verify_without_a_database_there_fails_and_creates_nothing() {
    let dir = std::env::temp_dir().join(format!("shinpan-audit-nowhere-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shinpan"))
        .args(["audit", "verify", "--data-dir", dir.to_str().unwrap()])
        .env_remove("DATABASE_URL")
        .output()
        .expect("run shinpan");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no shinpan database in") && err.contains("--data-dir"), "{err}");
    assert!(!dir.join("pg").exists(), "a cluster was created in {}", dir.display());
    let _ = std::fs::remove_dir_all(&dir);
}
