//! [`Store`]: tournaments, players, games, moves and the hash-chained event log, by area:
//! [`players`] (tournaments and players), [`games`], [`recording`] (moves, fouls, resignations,
//! idempotency), [`events`] (the log), [`verify`] (the audit), and the console's one-time sign-in codes ([`codes`]).

mod codes;
mod events;
mod games;
mod players;
mod recording;
mod verify;

pub use games::{GameEnd, ImportedMove};
pub use recording::{GameWrite, NewMove, WriteOutcome};

use std::sync::Arc;

use chrono::Utc;
use serde_json::{json, Value};
use sqlx::postgres::PgPool;
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

use crate::chain::{self, GENESIS};
use crate::error::{StoreError, StoreResult};
use crate::event::Event;
use crate::model::*;

/// What the event hub ([`crate::watch`]) tells a store's watchers.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Wake {
    /// A new event of a game (game, seq).
    Event(Uuid, i64),
    /// Notifications may have been lost: every watcher re-reads.
    Resync,
}

/// One LISTEN connection per store (started by [`crate::watch`]), forwarding other processes' announcements to the watchers.
pub(crate) struct EventHub {
    pub(crate) alive: Arc<std::sync::atomic::AtomicBool>,
    pub(crate) _stop: tokio::sync::oneshot::Sender<()>,
}

/// Handle to the database; cheap to clone (a pool, a shared event hub, caches of game heads
/// and of moves read before).
///
/// Every query the services run lives here. Methods that change a game lock the game's row
/// (`SELECT … FOR UPDATE`) first, so all writes to one game — moves, events, results, cases — are
/// serialized and its event log is a single chain; writes to different games run in parallel.
#[derive(Clone)]
pub struct Store {
    pub(crate) pool: PgPool,
    pub(crate) hub: Arc<tokio::sync::Mutex<Option<Arc<EventHub>>>>,
    pub(crate) wake: tokio::sync::broadcast::Sender<Wake>,
    pub(crate) notifier: Arc<std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<(Uuid, i64)>>>,
    batcher: Arc<std::sync::OnceLock<crate::batch::Batcher>>,
    heads: Arc<std::sync::Mutex<std::collections::HashMap<Uuid, Head>>>,
    moves: Arc<std::sync::Mutex<MoveCache>>,
}

/// The moves of games read before, per game ([`Store::moves`]).
#[derive(Default)]
struct MoveCache {
    games: std::collections::HashMap<Uuid, Arc<[StoredMove]>>,
    /// Moves held, over all games.
    held: usize,
}

/// Lock a game's row for the rest of the transaction; returns its state.
pub(crate) async fn lock_game(tx: &mut Transaction<'_, Postgres>, game_id: Uuid) -> StoreResult<GameState> {
    let state: Option<String> =
        sqlx::query_scalar!("SELECT state FROM games WHERE id = $1 FOR UPDATE", game_id).fetch_optional(&mut **tx).await?;
    match state {
        Some(s) => Ok(s.parse()?),
        None => Err(StoreError::NotFound(format!("game {game_id}"))),
    }
}

/// Append an event to a game whose row the transaction has locked ([`lock_game`]), advancing
/// the head kept on the game row.
pub(crate) async fn append_event_locked(tx: &mut Transaction<'_, Postgres>, game_id: Uuid, event: &Event) -> StoreResult<StoredEvent> {
    append_raw_locked(tx, game_id, event.kind(), event.payload()).await
}

/// [`append_event_locked`] of a kind and payload as they are stored.
async fn append_raw_locked(tx: &mut Transaction<'_, Postgres>, game_id: Uuid, kind: &str, payload: Value) -> StoreResult<StoredEvent> {
    let head = sqlx::query!("SELECT last_seq, last_hash FROM games WHERE id = $1", game_id).fetch_one(&mut **tx).await?;
    let (last_seq, last_hash) = (head.last_seq, head.last_hash);
    let last = (last_seq > 0).then_some((last_seq, last_hash));
    let event = build_event(game_id, last, kind, payload);
    let e = &event;
    sqlx::query!(
        "WITH ev AS (
            INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
         )
         UPDATE games SET last_seq = $2, last_hash = $7 WHERE id = $1",
        e.game_id,
        e.seq,
        &e.kind,
        &e.payload,
        e.created_at,
        &e.prev_hash,
        &e.hash
    )
    .execute(&mut **tx)
    .await?;
    Ok(event)
}

/// Compute the next event of a chain whose last event is `last` (seq, hash).
pub(crate) fn build_event(game_id: Uuid, last: Option<(i64, Vec<u8>)>, kind: &str, payload: Value) -> StoredEvent {
    let (seq, prev_hash) = match last {
        Some((s, h)) => (s + 1, h),
        None => (1, GENESIS.to_vec()),
    };
    let payload = if payload.is_null() { json!({}) } else { chain::normalize_payload(payload) };
    let created_at = chain::to_micros(Utc::now());
    let hash = chain::event_hash(&prev_hash, game_id, seq, kind, &payload, created_at);
    StoredEvent { game_id, seq, kind: kind.to_string(), payload, created_at, prev_hash, hash: hash.to_vec() }
}

async fn insert_event(tx: &mut Transaction<'_, Postgres>, e: &StoredEvent) -> StoreResult<()> {
    sqlx::query!(
        "INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        e.game_id,
        e.seq,
        &e.kind,
        &e.payload,
        e.created_at,
        &e.prev_hash,
        &e.hash
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

impl Store {
    /// Wrap a pool (migrations are not run; see [`crate::migrate`] or [`Store::connect`]).
    pub fn new(pool: PgPool) -> Self {
        Store {
            pool,
            hub: Arc::new(tokio::sync::Mutex::new(None)),
            wake: tokio::sync::broadcast::channel(4096).0,
            notifier: Default::default(),
            batcher: Default::default(),
            heads: Default::default(),
            moves: Default::default(),
        }
    }

    /// Connect to `url` (a `postgres://` URL), apply the migrations, and return the store.
    /// Errors: [`StoreError::Unavailable`] when the server cannot be reached.
    pub async fn connect(url: &str) -> StoreResult<Self> {
        Self::connect_with(url, 20).await
    }

    /// Like [`Store::connect`] with at most `max_connections` pooled connections. A call that
    /// cannot get a connection within 5 s (server down) fails with [`StoreError::Unavailable`].
    ///
    /// A pooled connection that has been idle for more than [`PING_IDLE_AFTER`] is pinged
    /// before use (a dead one is replaced); one in steady use is not, which saves a round trip
    /// per call under load. So after the server restarts, a connection last used less than
    /// that long ago can fail one call with [`StoreError::Unavailable`] (retryable; nothing is
    /// stored by a call that fails so), and is then replaced.
    ///
    /// Only a primary is used: a new connection to a standby in recovery is refused and
    /// retried until the acquire timeout ([`crate::primary`]); a call that gets no connection
    /// so fails with [`StoreError::Unavailable`] saying so, and so does this function when
    /// `url` leads to a standby.
    pub async fn connect_with(url: &str, max_connections: u32) -> StoreResult<Self> {
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(std::time::Duration::from_secs(5))
            .test_before_acquire(false)
            .after_connect(|conn, _meta| Box::pin(crate::primary::require_primary_hook(conn)))
            .before_acquire(|conn, meta| {
                Box::pin(async move {
                    if meta.idle_for > PING_IDLE_AFTER {
                        sqlx::Connection::ping(conn).await?;
                    }
                    Ok(true)
                })
            })
            .connect(url)
            .await?;
        crate::migrate(&pool).await?;
        let store = Store::new(pool);
        // the batch writers connect now, not on the first move
        store.batcher();
        Ok(store)
    }

    /// The underlying pool.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Whether the database answers (for health checks). Errors: [`StoreError::Unavailable`].
    pub async fn ping(&self) -> StoreResult<()> {
        sqlx::query_scalar!("SELECT 1").fetch_one(&self.pool).await?;
        Ok(())
    }

    /// The batch writers of this store, started on first use (within a Tokio runtime).
    fn batcher(&self) -> &crate::batch::Batcher {
        self.batcher.get_or_init(|| crate::batch::Batcher::start(self.pool.clone()))
    }

    fn cached_head(&self, game_id: Uuid) -> Option<Head> {
        self.heads.lock().unwrap_or_else(|p| p.into_inner()).get(&game_id).cloned()
    }

    fn cache_head(&self, game_id: Uuid, head: Head) {
        let mut m = self.heads.lock().unwrap_or_else(|p| p.into_inner());
        if m.len() >= HEAD_CACHE_LIMIT {
            m.clear();
        }
        m.insert(game_id, head);
    }

    fn forget_head(&self, game_id: Uuid) {
        self.heads.lock().unwrap_or_else(|p| p.into_inner()).remove(&game_id);
    }

    fn cached_moves(&self, game_id: Uuid) -> Option<Arc<[StoredMove]>> {
        self.moves.lock().unwrap_or_else(|p| p.into_inner()).games.get(&game_id).cloned()
    }

    fn cache_moves(&self, game_id: Uuid, moves: Arc<[StoredMove]>) {
        let mut c = self.moves.lock().unwrap_or_else(|p| p.into_inner());
        if c.held + moves.len() > MOVE_CACHE_LIMIT {
            c.games.clear();
            c.held = 0;
        }
        c.held += moves.len();
        if let Some(old) = c.games.insert(game_id, moves) {
            c.held -= old.len();
        }
    }
}

/// A JSON object from `v` (null → empty object). Errors: [`StoreError::InvalidArgument`].
pub(crate) fn object_or_empty(v: Value) -> StoreResult<serde_json::Map<String, Value>> {
    match v {
        Value::Null => Ok(Default::default()),
        Value::Object(m) => Ok(m),
        other => Err(StoreError::InvalidArgument(format!("event payload must be a JSON object, got {other}"))),
    }
}

/// A pooled connection idle for longer than this is pinged before it is used again (see
/// [`Store::connect_with`]).
pub const PING_IDLE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// Games whose head is cached per store before the cache is cleared.
const HEAD_CACHE_LIMIT: usize = 100_000;

/// Moves cached per store ([`Store::moves`]) before the cache is cleared: some 20 MB, the
/// moves of 400 games of 250 moves.
const MOVE_CACHE_LIMIT: usize = 100_000;

/// The head of a game's log, as kept on its row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) state: GameState,
    pub(crate) move_count: i32,
    pub(crate) last_seq: i64,
    pub(crate) last_hash: Vec<u8>,
}

/// Lock a game's row for the rest of the transaction; returns its head.
pub(crate) async fn lock_head(tx: &mut Transaction<'_, Postgres>, game_id: Uuid) -> StoreResult<Head> {
    let row = sqlx::query!("SELECT state, move_count, last_seq, last_hash FROM games WHERE id = $1 FOR UPDATE", game_id)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("game {game_id}")))?;
    Ok(Head { state: row.state.parse()?, move_count: row.move_count, last_seq: row.last_seq, last_hash: row.last_hash })
}
