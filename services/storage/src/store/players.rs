//! Tournaments and players.

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use super::*;
use crate::error::{StoreError, StoreResult};
use crate::event::{Event, PlayerFacts, PreviousPlayer};
use crate::model::*;

/// A row of `tournaments` as read; its settings are decoded by [`TournamentRow::into_tournament`].
struct TournamentRow {
    id: Uuid,
    name: String,
    settings: Value,
    created_at: DateTime<Utc>,
}

impl TournamentRow {
    fn into_tournament(self) -> StoreResult<Tournament> {
        Ok(Tournament {
            id: self.id,
            name: self.name,
            settings: serde_json::from_value(self.settings).map_err(|e| StoreError::Other(format!("bad tournament settings: {e}")))?,
            created_at: self.created_at,
        })
    }
}

impl Store {
    /// Create a tournament. Errors: [`StoreError::AlreadyExists`] when the name is taken.
    pub async fn create_tournament(&self, name: &str, settings: &TournamentSettings) -> StoreResult<Tournament> {
        let settings = serde_json::to_value(settings).map_err(|e| StoreError::Other(e.to_string()))?;
        sqlx::query_as!(
            TournamentRow,
            "INSERT INTO tournaments (id, name, settings) VALUES ($1, $2, $3) RETURNING id, name, settings, created_at",
            Uuid::new_v4(),
            name,
            settings
        )
        .fetch_one(&self.pool)
        .await?
        .into_tournament()
    }

    /// The tournament named `name`, created with `settings` if it does not exist yet.
    pub async fn ensure_tournament(&self, name: &str, settings: &TournamentSettings) -> StoreResult<Tournament> {
        let settings_json = serde_json::to_value(settings).map_err(|e| StoreError::Other(e.to_string()))?;
        sqlx::query!(
            "INSERT INTO tournaments (id, name, settings) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
            Uuid::new_v4(),
            name,
            settings_json
        )
        .execute(&self.pool)
        .await?;
        self.find_tournament(name).await?.ok_or_else(|| StoreError::NotFound(format!("tournament {name:?}")))
    }

    /// A tournament by id. Errors: [`StoreError::NotFound`].
    pub async fn get_tournament(&self, id: Uuid) -> StoreResult<Tournament> {
        sqlx::query_as!(TournamentRow, "SELECT id, name, settings, created_at FROM tournaments WHERE id = $1", id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("tournament {id}")))?
            .into_tournament()
    }

    /// A tournament by name, if it exists.
    pub async fn find_tournament(&self, name: &str) -> StoreResult<Option<Tournament>> {
        sqlx::query_as!(TournamentRow, "SELECT id, name, settings, created_at FROM tournaments WHERE name = $1", name)
            .fetch_optional(&self.pool)
            .await?
            .map(TournamentRow::into_tournament)
            .transpose()
    }

    /// All tournaments, oldest first.
    pub async fn list_tournaments(&self) -> StoreResult<Vec<Tournament>> {
        let rows = sqlx::query_as!(TournamentRow, "SELECT id, name, settings, created_at FROM tournaments ORDER BY created_at, name")
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter().map(TournamentRow::into_tournament).collect()
    }

    /// Replace a tournament's settings (e.g. its 無勝負 policy). Errors: [`StoreError::NotFound`].
    pub async fn update_tournament_settings(&self, id: Uuid, settings: &TournamentSettings) -> StoreResult<Tournament> {
        let settings = serde_json::to_value(settings).map_err(|e| StoreError::Other(e.to_string()))?;
        sqlx::query_as!(
            TournamentRow,
            "UPDATE tournaments SET settings = $2 WHERE id = $1 RETURNING id, name, settings, created_at",
            id,
            settings
        )
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("tournament {id}")))?
        .into_tournament()
    }

    /// Insert or update a player. With a federation id, the player with that id is updated
    /// (name, and rank when given) or created; without one, an existing player with the same
    /// name, rank and no federation id is reused, else a new one is created — one, even when
    /// several calls for the same new player run at once (they take a transaction-scoped
    /// advisory lock on the name and rank, so the second finds the first's row).
    ///
    /// A player's name and rank are facts of every game they play ([`crate::facts`]): an update
    /// that changes either appends a `player_updated` event (`{"player": {id, name, rank,
    /// federation_id}, "previous": {name, rank}}`) to each of the player's games, final ones
    /// included, in the same transaction, so that the chain shows when and how the row changed.
    pub async fn upsert_player(&self, p: &NewPlayer) -> StoreResult<Player> {
        if let Some(fed) = &p.federation_id {
            // Waits for games being created with this player (their genesis reads the row
            // `FOR SHARE`, see `facts::genesis_facts`), so that the list of games below
            // includes them; foreign-key checks (`FOR KEY SHARE`) do not wait for it.
            let mut tx = self.pool.begin().await?;
            let existing = sqlx::query_as!(
                Player,
                "SELECT id, name, rank, federation_id FROM players WHERE federation_id = $1 FOR NO KEY UPDATE",
                fed
            )
            .fetch_optional(&mut *tx)
            .await?;
            let Some(old) = existing else {
                let row = sqlx::query_as!(
                    Player,
                    "INSERT INTO players (id, name, rank, federation_id) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (federation_id) DO NOTHING
                     RETURNING id, name, rank, federation_id",
                    Uuid::new_v4(),
                    &p.name,
                    p.rank.as_deref(),
                    fed
                )
                .fetch_optional(&mut *tx)
                .await?;
                tx.commit().await?;
                return match row {
                    Some(row) => Ok(row),
                    // a concurrent call created the player first: now an existing player
                    None => Box::pin(self.upsert_player(p)).await,
                };
            };
            let rank = p.rank.clone().or_else(|| old.rank.clone());
            if old.name == p.name && old.rank == rank {
                return Ok(old);
            }
            let row = sqlx::query_as!(
                Player,
                "UPDATE players SET name = $2, rank = $3 WHERE id = $1 RETURNING id, name, rank, federation_id",
                old.id,
                &p.name,
                rank.as_deref()
            )
            .fetch_one(&mut *tx)
            .await?;
            let games: Vec<Uuid> = sqlx::query_scalar!(
                "SELECT id FROM games WHERE black_player_id = $1 OR white_player_id = $1 ORDER BY id FOR UPDATE",
                old.id
            )
            .fetch_all(&mut *tx)
            .await?;
            let event = Event::PlayerUpdated {
                player: PlayerFacts {
                    id: row.id,
                    name: row.name.clone(),
                    rank: row.rank.clone(),
                    federation_id: row.federation_id.clone(),
                },
                previous: PreviousPlayer { name: old.name.clone(), rank: old.rank.clone() },
            };
            let mut appended = Vec::with_capacity(games.len());
            for g in &games {
                let ev = append_event_locked(&mut tx, *g, &event).await?;
                appended.push(ev.seq);
            }
            tx.commit().await?;
            for (g, seq) in games.iter().zip(appended) {
                self.forget_head(*g);
                self.announce(*g, seq);
            }
            return Ok(row);
        }
        let mut tx = self.pool.begin().await?;
        sqlx::query!(
            "SELECT pg_advisory_xact_lock(hashtextextended('shinpan.player:' || $1 || chr(31) || coalesce($2, chr(30)), 0))",
            &p.name,
            p.rank.as_deref()
        )
        .fetch_one(&mut *tx)
        .await?;
        let existing = sqlx::query_as!(
            Player,
            "SELECT id, name, rank, federation_id FROM players
             WHERE federation_id IS NULL AND name = $1 AND rank IS NOT DISTINCT FROM $2
             ORDER BY created_at LIMIT 1",
            &p.name,
            p.rank.as_deref(),
        )
        .fetch_optional(&mut *tx)
        .await?;
        let player = match existing {
            Some(pl) => pl,
            None => {
                sqlx::query_as!(
                    Player,
                    "INSERT INTO players (id, name, rank) VALUES ($1, $2, $3) RETURNING id, name, rank, federation_id",
                    Uuid::new_v4(),
                    &p.name,
                    p.rank.as_deref(),
                )
                .fetch_one(&mut *tx)
                .await?
            }
        };
        tx.commit().await?;
        Ok(player)
    }

    /// A player by id. Errors: [`StoreError::NotFound`].
    pub async fn get_player(&self, id: Uuid) -> StoreResult<Player> {
        sqlx::query_as!(Player, "SELECT id, name, rank, federation_id FROM players WHERE id = $1", id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("player {id}")))
    }
}
