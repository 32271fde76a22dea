//! The event log: appending an event, reading events, the heads and hashes of the chains.

use uuid::Uuid;

use super::*;
use crate::error::{StoreError, StoreResult};
use crate::event::Event;
use crate::model::*;

impl Store {
    /// Append `event` to a game's log, hash-chained and serialized with every other write of
    /// the game. Errors: [`StoreError::NotFound`], [`StoreError::InvalidArgument`] (an
    /// [`Event::Other`] whose payload is not an object).
    pub async fn append_event(&self, game_id: Uuid, event: &Event) -> StoreResult<StoredEvent> {
        object_or_empty(event.payload())?;
        let mut tx = self.pool.begin().await?;
        lock_game(&mut tx, game_id).await?;
        let ev = append_event_locked(&mut tx, game_id, event).await?;
        tx.commit().await?;
        self.announce(game_id, ev.seq);
        Ok(ev)
    }

    /// Events of a game with `seq > after_seq`, in order, at most `limit` of them (`after_seq = 0`
    /// gives the log from the start).
    pub async fn events_since(&self, game_id: Uuid, after_seq: i64, limit: i64) -> StoreResult<Vec<StoredEvent>> {
        Ok(sqlx::query_as!(
            StoredEvent,
            "SELECT game_id, seq, kind, payload, created_at, prev_hash, hash
             FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            game_id,
            after_seq,
            limit
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// One event of a game. Errors: [`StoreError::NotFound`].
    pub async fn get_event(&self, game_id: Uuid, seq: i64) -> StoreResult<StoredEvent> {
        sqlx::query_as!(
            StoredEvent,
            "SELECT game_id, seq, kind, payload, created_at, prev_hash, hash FROM events WHERE game_id = $1 AND seq = $2",
            game_id,
            seq
        )
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("event {seq} of game {game_id}")))
    }

    /// The tail of every game's event log, ordered by game id ([`crate::ChainHead`]; read
    /// from the events themselves, not from the game rows' heads).
    pub async fn chain_heads(&self) -> StoreResult<Vec<crate::ChainHead>> {
        let rows = sqlx::query!(
            r#"SELECT g.id, e.seq AS "seq?", e.hash AS "hash?" FROM games g
             LEFT JOIN LATERAL (SELECT seq, hash FROM events WHERE game_id = g.id ORDER BY seq DESC LIMIT 1) e ON true
             ORDER BY g.id"#
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| crate::ChainHead {
                game_id: r.id,
                seq: r.seq.unwrap_or(0),
                hash: r.hash.unwrap_or_else(|| crate::chain::GENESIS.to_vec()),
            })
            .collect())
    }

    /// The stored hash of event `seq` of a game (`None`: no such event). Seq 0 is the
    /// [`crate::chain::GENESIS`] hash of every game that exists.
    pub async fn event_hash(&self, game_id: Uuid, seq: i64) -> StoreResult<Option<Vec<u8>>> {
        if seq == 0 {
            let exists: Option<Uuid> =
                sqlx::query_scalar!("SELECT id FROM games WHERE id = $1", game_id).fetch_optional(&self.pool).await?;
            return Ok(exists.map(|_| crate::chain::GENESIS.to_vec()));
        }
        Ok(sqlx::query_scalar!("SELECT hash FROM events WHERE game_id = $1 AND seq = $2", game_id, seq).fetch_optional(&self.pool).await?)
    }
}
