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
            ..NewGame::between(b.id, w.id)
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
    let colour = if n % 2 == 1 { Color::Black } else { Color::White };
    GameWrite::new_move(game, n, colour, Some(point))
}

mod audit;
mod games;
mod results_and_cases;
mod watch;
mod writes;
use audit::note;
use audit::note_of;
use audit::resign;
use results_and_cases::ended_game_with_result;
use results_and_cases::ALL_THREE;
