//! [`Store`]: tournaments, players, games, moves and the hash-chained event log.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use sqlx::postgres::{PgPool, PgRow};
use sqlx::{Postgres, Row, Transaction};
use uuid::Uuid;

use crate::chain::{self, ChainReport, ChainWalker, GENESIS};
use crate::error::{Exists, Immutability, Precondition, StoreError, StoreResult};
use crate::event::{Event, MovePlayed, MoveRecord, PlayerFacts, PreviousPlayer};
use crate::model::*;
use crate::watch::EventHub;

/// Handle to the database; cheap to clone (a pool, a shared event hub, a cache of game heads).
///
/// Every query the services run lives here. Methods that change a game lock the game's row
/// (`SELECT … FOR UPDATE`) first, so all writes to one game — moves, events, results, cases — are
/// serialized and its event log is a single chain; writes to different games run in parallel.
#[derive(Clone)]
pub struct Store {
    pub(crate) pool: PgPool,
    pub(crate) hub: Arc<tokio::sync::Mutex<Option<Arc<EventHub>>>>,
    pub(crate) wake: tokio::sync::broadcast::Sender<crate::watch::Wake>,
    pub(crate) notifier: Arc<std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<(Uuid, i64)>>>,
    batcher: Arc<std::sync::OnceLock<crate::batch::Batcher>>,
    heads: Arc<std::sync::Mutex<std::collections::HashMap<Uuid, Head>>>,
}

/// A move to record (part of a [`GameWrite`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMove {
    /// Who plays it.
    pub colour: Colour,
    /// SGF point ("dd"); `None` is a pass.
    pub point: Option<String>,
    /// The client's timestamp, if it sent one.
    pub client_time: Option<DateTime<Utc>>,
}

/// One atomic, idempotent write to a game: optionally a move, always one event, optionally a
/// change of the game's state — all in one transaction under the game's row lock.
///
/// Use it for `RecordMove` (a legal move: `mv = Some`, kind "move"), for a foul (第十二条: `mv =
/// None`, kind "foul"; the move is not applied), for `Resign` (第六条: `mv = None`, kind
/// "resign", `set_state = Some(Ended)`), and for passes that end play.
#[derive(Debug, Clone, PartialEq)]
pub struct GameWrite {
    /// The game.
    pub game_id: Uuid,
    /// The move number the client expects this write to be (moves are numbered from 1): the write
    /// is refused with [`StoreError::Conflict`] unless exactly `expected - 1` moves are recorded.
    /// `None` skips the check.
    pub expected_move_number: Option<i32>,
    /// Idempotency key (unique per game). A second write with the same key stores nothing and
    /// returns the first write's outcome with `replayed = true`; a second write with the same key
    /// but a different request (move number, colour, point or event kind) is refused with
    /// [`StoreError::AlreadyExists`].
    pub idempotency_key: Option<String>,
    /// The move to record, if any; it gets number `recorded moves + 1`.
    pub mv: Option<NewMove>,
    /// The event ([`Event::Move`], [`Event::Foul`], [`Event::Resign`], …). For a move the store
    /// fills in the key `"move": {"number": n, "colour": "B"|"W", "point": "dd"|null}` (it
    /// overwrites any such key).
    pub event: Event,
    /// Refuse the write with [`StoreError::FailedPrecondition`] unless the game is in this state
    /// (checked under the lock). A write with a move always requires [`GameState::Playing`].
    pub require_state: Option<GameState>,
    /// Set the game to this state in the same transaction.
    pub set_state: Option<GameState>,
    /// The caller's answer to keep under the idempotency key (any JSON), returned on replay.
    pub response: Value,
}

impl GameWrite {
    /// A legal move (kind "move", requires `playing`), no idempotency key, empty payload.
    pub fn new_move(game_id: Uuid, expected_move_number: i32, colour: Colour, point: Option<&str>) -> Self {
        GameWrite {
            game_id,
            expected_move_number: Some(expected_move_number),
            idempotency_key: None,
            mv: Some(NewMove { colour, point: point.map(str::to_string), client_time: None }),
            event: Event::Move(MovePlayed::default()),
            require_state: Some(GameState::Playing),
            set_state: None,
            response: Value::Null,
        }
    }

    /// An event without a move (foul, resign, ...), requiring `playing`, no idempotency key.
    pub fn event_only(game_id: Uuid, expected_move_number: Option<i32>, event: Event) -> Self {
        GameWrite {
            game_id,
            expected_move_number,
            idempotency_key: None,
            mv: None,
            event,
            require_state: Some(GameState::Playing),
            set_state: None,
            response: Value::Null,
        }
    }

    /// Builder: set the idempotency key.
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }

    /// Builder: set the event (for a move, [`Event::Move`] with what the validator found).
    pub fn with_event(mut self, event: Event) -> Self {
        self.event = event;
        self
    }

    /// Builder: set the answer kept under the idempotency key.
    pub fn with_response(mut self, response: Value) -> Self {
        self.response = response;
        self
    }

    /// Builder: set the client timestamp of the move.
    pub fn with_client_time(mut self, t: DateTime<Utc>) -> Self {
        if let Some(m) = self.mv.as_mut() {
            m.client_time = Some(t);
        }
        self
    }

    /// Builder: change the game's state in the same transaction.
    pub fn with_set_state(mut self, state: GameState) -> Self {
        self.set_state = Some(state);
        self
    }

    fn fingerprint(&self) -> Value {
        json!({
            "expected_move_number": self.expected_move_number,
            "move": self.mv.as_ref().map(|m| json!({"colour": m.colour.as_str(), "point": m.point})),
            "kind": self.event.kind(),
        })
    }
}

/// What a [`GameWrite`] stored (or, on replay, had stored).
#[derive(Debug, Clone, PartialEq)]
pub struct WriteOutcome {
    /// The move recorded, if the write had one.
    pub mv: Option<StoredMove>,
    /// The event recorded.
    pub event: StoredEvent,
    /// The answer kept under the idempotency key ([`GameWrite::response`]).
    pub response: Value,
    /// True when this is the stored outcome of an earlier write with the same idempotency key.
    pub replayed: bool,
}

pub(crate) const EVENT_COLUMNS: &str = "game_id, seq, kind, payload, created_at, prev_hash, hash";
const MOVE_COLUMNS: &str = "game_id, move_number, colour, point, client_time, idempotency_key, event_seq, recorded_at";

const GAME_SELECT: &str = "SELECT g.id, g.tournament_id, g.round, g.table_number, g.board_width, g.board_height,
        g.komi, g.handicap, g.rule_set, g.state, g.setup, g.created_at,
        b.id AS b_id, b.name AS b_name, b.rank AS b_rank, b.federation_id AS b_fed,
        w.id AS w_id, w.name AS w_name, w.rank AS w_rank, w.federation_id AS w_fed,
        g.move_count, g.last_seq AS last_event_seq
    FROM games g
    JOIN players b ON b.id = g.black_player_id
    JOIN players w ON w.id = g.white_player_id";

fn game_from_row(r: &PgRow) -> StoreResult<Game> {
    let state: String = r.try_get("state")?;
    Ok(Game {
        id: r.try_get("id")?,
        tournament_id: r.try_get("tournament_id")?,
        round: r.try_get("round")?,
        table_number: r.try_get("table_number")?,
        black: Player {
            id: r.try_get("b_id")?,
            name: r.try_get("b_name")?,
            rank: r.try_get("b_rank")?,
            federation_id: r.try_get("b_fed")?,
        },
        white: Player {
            id: r.try_get("w_id")?,
            name: r.try_get("w_name")?,
            rank: r.try_get("w_rank")?,
            federation_id: r.try_get("w_fed")?,
        },
        board_width: r.try_get("board_width")?,
        board_height: r.try_get("board_height")?,
        komi: r.try_get("komi")?,
        handicap: r.try_get("handicap")?,
        rule_set: r.try_get("rule_set")?,
        state: state.parse()?,
        setup: r.try_get("setup")?,
        created_at: r.try_get("created_at")?,
        move_count: r.try_get("move_count")?,
        last_event_seq: r.try_get("last_event_seq")?,
    })
}

fn tournament_from_row(r: &PgRow) -> StoreResult<Tournament> {
    let settings: Value = r.try_get("settings")?;
    Ok(Tournament {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        settings: serde_json::from_value(settings).map_err(|e| StoreError::Other(format!("bad tournament settings: {e}")))?,
        created_at: r.try_get("created_at")?,
    })
}

/// Lock a game's row for the rest of the transaction; returns its state.
pub(crate) async fn lock_game(tx: &mut Transaction<'_, Postgres>, game_id: Uuid) -> StoreResult<GameState> {
    let state: Option<String> =
        sqlx::query_scalar("SELECT state FROM games WHERE id = $1 FOR UPDATE").bind(game_id).fetch_optional(&mut **tx).await?;
    match state {
        Some(s) => s.parse(),
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
    let (last_seq, last_hash): (i64, Vec<u8>) =
        sqlx::query_as("SELECT last_seq, last_hash FROM games WHERE id = $1").bind(game_id).fetch_one(&mut **tx).await?;
    let last = (last_seq > 0).then_some((last_seq, last_hash));
    let event = build_event(game_id, last, kind, payload);
    sqlx::query(
        "WITH ev AS (
            INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
         )
         UPDATE games SET last_seq = $2, last_hash = $7 WHERE id = $1",
    )
    .bind(event.game_id)
    .bind(event.seq)
    .bind(&event.kind)
    .bind(&event.payload)
    .bind(event.created_at)
    .bind(&event.prev_hash)
    .bind(&event.hash)
    .execute(&mut **tx)
    .await?;
    Ok(event)
}

/// The first event of a new game, `game_created`.
fn genesis_event(game_id: Uuid, facts: crate::event::GameFacts) -> StoredEvent {
    let event = Event::GameCreated(facts);
    build_event(game_id, None, event.kind(), event.payload())
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
    sqlx::query(
        "INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(e.game_id)
    .bind(e.seq)
    .bind(&e.kind)
    .bind(&e.payload)
    .bind(e.created_at)
    .bind(&e.prev_hash)
    .bind(&e.hash)
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
    pub async fn connect_with(url: &str, max_connections: u32) -> StoreResult<Self> {
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(std::time::Duration::from_secs(5))
            .test_before_acquire(false)
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
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    // ----------------------------------------------------------------------------- tournaments

    /// Create a tournament. Errors: [`StoreError::AlreadyExists`] when the name is taken.
    pub async fn create_tournament(&self, name: &str, settings: &TournamentSettings) -> StoreResult<Tournament> {
        let settings = serde_json::to_value(settings).map_err(|e| StoreError::Other(e.to_string()))?;
        let row = sqlx::query("INSERT INTO tournaments (id, name, settings) VALUES ($1, $2, $3) RETURNING id, name, settings, created_at")
            .bind(Uuid::new_v4())
            .bind(name)
            .bind(settings)
            .fetch_one(&self.pool)
            .await?;
        tournament_from_row(&row)
    }

    /// The tournament named `name`, created with `settings` if it does not exist yet.
    pub async fn ensure_tournament(&self, name: &str, settings: &TournamentSettings) -> StoreResult<Tournament> {
        let settings_json = serde_json::to_value(settings).map_err(|e| StoreError::Other(e.to_string()))?;
        sqlx::query("INSERT INTO tournaments (id, name, settings) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING")
            .bind(Uuid::new_v4())
            .bind(name)
            .bind(settings_json)
            .execute(&self.pool)
            .await?;
        self.find_tournament(name).await?.ok_or_else(|| StoreError::NotFound(format!("tournament {name:?}")))
    }

    /// A tournament by id. Errors: [`StoreError::NotFound`].
    pub async fn get_tournament(&self, id: Uuid) -> StoreResult<Tournament> {
        let row = sqlx::query("SELECT id, name, settings, created_at FROM tournaments WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("tournament {id}")))?;
        tournament_from_row(&row)
    }

    /// A tournament by name, if it exists.
    pub async fn find_tournament(&self, name: &str) -> StoreResult<Option<Tournament>> {
        let row = sqlx::query("SELECT id, name, settings, created_at FROM tournaments WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(tournament_from_row).transpose()
    }

    /// All tournaments, oldest first.
    pub async fn list_tournaments(&self) -> StoreResult<Vec<Tournament>> {
        let rows =
            sqlx::query("SELECT id, name, settings, created_at FROM tournaments ORDER BY created_at, name").fetch_all(&self.pool).await?;
        rows.iter().map(tournament_from_row).collect()
    }

    /// Replace a tournament's settings (e.g. its 無勝負 policy). Errors: [`StoreError::NotFound`].
    pub async fn update_tournament_settings(&self, id: Uuid, settings: &TournamentSettings) -> StoreResult<Tournament> {
        let settings = serde_json::to_value(settings).map_err(|e| StoreError::Other(e.to_string()))?;
        let row = sqlx::query("UPDATE tournaments SET settings = $2 WHERE id = $1 RETURNING id, name, settings, created_at")
            .bind(id)
            .bind(settings)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("tournament {id}")))?;
        tournament_from_row(&row)
    }

    // --------------------------------------------------------------------------------- players

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
            // `FOR SHARE`, see `facts::genesis_payload`), so that the list of games below
            // includes them; foreign-key checks (`FOR KEY SHARE`) do not wait for it.
            let mut tx = self.pool.begin().await?;
            let existing =
                sqlx::query_as::<_, Player>("SELECT id, name, rank, federation_id FROM players WHERE federation_id = $1 FOR NO KEY UPDATE")
                    .bind(fed)
                    .fetch_optional(&mut *tx)
                    .await?;
            let Some(old) = existing else {
                let row = sqlx::query_as::<_, Player>(
                    "INSERT INTO players (id, name, rank, federation_id) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (federation_id) DO NOTHING
                     RETURNING id, name, rank, federation_id",
                )
                .bind(Uuid::new_v4())
                .bind(&p.name)
                .bind(&p.rank)
                .bind(fed)
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
            let row = sqlx::query_as::<_, Player>(
                "UPDATE players SET name = $2, rank = $3 WHERE id = $1 RETURNING id, name, rank, federation_id",
            )
            .bind(old.id)
            .bind(&p.name)
            .bind(&rank)
            .fetch_one(&mut *tx)
            .await?;
            let games: Vec<Uuid> =
                sqlx::query_scalar("SELECT id FROM games WHERE black_player_id = $1 OR white_player_id = $1 ORDER BY id FOR UPDATE")
                    .bind(old.id)
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
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('shinpan.player:' || $1 || chr(31) || coalesce($2, chr(30)), 0))")
            .bind(&p.name)
            .bind(&p.rank)
            .execute(&mut *tx)
            .await?;
        let existing = sqlx::query_as::<_, Player>(
            "SELECT id, name, rank, federation_id FROM players
             WHERE federation_id IS NULL AND name = $1 AND rank IS NOT DISTINCT FROM $2
             ORDER BY created_at LIMIT 1",
        )
        .bind(&p.name)
        .bind(&p.rank)
        .fetch_optional(&mut *tx)
        .await?;
        let player = match existing {
            Some(pl) => pl,
            None => {
                sqlx::query_as::<_, Player>(
                    "INSERT INTO players (id, name, rank) VALUES ($1, $2, $3) RETURNING id, name, rank, federation_id",
                )
                .bind(Uuid::new_v4())
                .bind(&p.name)
                .bind(&p.rank)
                .fetch_one(&mut *tx)
                .await?
            }
        };
        tx.commit().await?;
        Ok(player)
    }

    /// A player by id. Errors: [`StoreError::NotFound`].
    pub async fn get_player(&self, id: Uuid) -> StoreResult<Player> {
        sqlx::query_as::<_, Player>("SELECT id, name, rank, federation_id FROM players WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("player {id}")))
    }

    // ----------------------------------------------------------------------------------- games

    /// Create a game (state `playing`) and its first event, seq 1, kind "game_created", whose
    /// payload records every fact of the game: its columns, the two players' rows (name, rank,
    /// federation id) and the tournament's name (see [`crate::facts`]).
    ///
    /// Errors: [`StoreError::AlreadyExists`] when the tournament's round already has a game on
    /// that table; [`StoreError::NotFound`] for an unknown tournament or player;
    /// [`StoreError::InvalidArgument`] for a board size outside 1..=52.
    ///
    /// With a [`GameKey`]: if a game was created with that key and the same request digest,
    /// that game is returned (`replayed`), whatever was recorded in it since, and nothing is
    /// written — also when two calls with the key race (the second finds the first's game).
    /// The key with another digest: [`StoreError::AlreadyExists`].
    pub async fn create_game(&self, g: &NewGame) -> StoreResult<Created> {
        self.keyed(g.key.as_ref(), self.insert_game(g)).await
    }

    /// Runs `insert` (which creates a game with `key`) unless a game with `key` exists:
    /// then that game, replayed — also when `insert` fails on the key's unique index because
    /// a concurrent call with the same key created it first.
    async fn keyed(&self, key: Option<&GameKey>, insert: impl std::future::Future<Output = StoreResult<Game>>) -> StoreResult<Created> {
        if let Some(game) = self.game_by_key(key).await? {
            return Ok(Created { game, replayed: true });
        }
        match insert.await {
            Err(StoreError::AlreadyExists(m)) => match self.game_by_key(key).await? {
                Some(game) => Ok(Created { game, replayed: true }),
                None => Err(StoreError::AlreadyExists(m)),
            },
            r => r.map(|game| Created { game, replayed: false }),
        }
    }

    /// The game created with `key` (`None` when no game has it, or no key is given).
    /// Errors: `AlreadyExists` when the key was used with a different request digest.
    pub async fn game_by_key(&self, key: Option<&GameKey>) -> StoreResult<Option<Game>> {
        let Some(k) = key else { return Ok(None) };
        let row: Option<(Uuid, Vec<u8>)> = sqlx::query_as("SELECT id, request_digest FROM games WHERE idempotency_key = $1")
            .bind(&k.key)
            .fetch_optional(&self.pool)
            .await?;
        match row {
            None => Ok(None),
            Some((id, digest)) if digest == k.request_digest => Ok(Some(self.get_game(id).await?)),
            Some((id, _)) => Err(StoreError::AlreadyExists(Exists::IdempotencyKey(format!(
                "idempotency key {:?} was used for a different request (game {id})",
                k.key
            )))),
        }
    }

    async fn insert_game(&self, g: &NewGame) -> StoreResult<Game> {
        let id = Uuid::new_v4();
        let setup = if g.setup.is_null() { json!({}) } else { g.setup.clone() };
        let mut tx = self.pool.begin().await?;
        let event = genesis_event(id, crate::facts::genesis_facts(&mut tx, g, &setup).await?);
        sqlx::query(
            "INSERT INTO games (id, tournament_id, round, table_number, black_player_id, white_player_id,
                                board_width, board_height, komi, handicap, rule_set, setup, last_seq, last_hash,
                                idempotency_key, request_digest)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
        )
        .bind(id)
        .bind(g.tournament_id)
        .bind(g.round)
        .bind(g.table_number)
        .bind(g.black_player_id)
        .bind(g.white_player_id)
        .bind(g.board_width)
        .bind(g.board_height)
        .bind(g.komi)
        .bind(g.handicap)
        .bind(&g.rule_set)
        .bind(&setup)
        .bind(event.seq)
        .bind(&event.hash)
        .bind(g.key.as_ref().map(|k| &k.key))
        .bind(g.key.as_ref().map(|k| &k.request_digest))
        .execute(&mut *tx)
        .await?;
        insert_event(&mut tx, &event).await?;
        tx.commit().await?;
        // the new game's head, so that its first write needs no read
        self.cache_head(id, Head { state: GameState::Playing, move_count: 0, last_seq: event.seq, last_hash: event.hash.clone() });
        self.announce(id, event.seq);
        self.get_game(id).await
    }

    /// Create a game together with its whole record, atomically (all or nothing) — for
    /// `ImportSgf`. The log gets `game_created` (seq 1), one `move` event per move (payload =
    /// the move's `event_payload` plus the `"move"` key, as [`Store::write`] records it), and, if
    /// `end` is given, a final event of `end.kind` that sets the game's state (payload plus
    /// `from_state`/`to_state`, as [`Store::set_game_state`] records it). Moves are numbered from
    /// 1 in the order given. Errors: as [`Store::create_game`]; [`StoreError::InvalidArgument`]
    /// for a bad SGF point or a payload that is not an object. A [`GameKey`] works as for
    /// [`Store::create_game`].
    pub async fn import_game(&self, g: &NewGame, moves: &[ImportedMove], end: Option<GameEnd>) -> StoreResult<Created> {
        self.keyed(g.key.as_ref(), self.insert_imported(g, moves, end)).await
    }

    async fn insert_imported(&self, g: &NewGame, moves: &[ImportedMove], end: Option<GameEnd>) -> StoreResult<Game> {
        let id = Uuid::new_v4();
        let setup = if g.setup.is_null() { json!({}) } else { g.setup.clone() };
        let mut tx = self.pool.begin().await?;
        let mut events = vec![genesis_event(id, crate::facts::genesis_facts(&mut tx, g, &setup).await?)];
        for (i, m) in moves.iter().enumerate() {
            if let Some(p) = &m.point {
                if p.len() != 2 || !p.bytes().all(|b| b.is_ascii_alphabetic()) {
                    return Err(StoreError::InvalidArgument(format!("move {}: point {p:?} is not an SGF point like \"dd\"", i + 1)));
                }
            }
            let mv = MoveRecord { number: i as i32 + 1, colour: m.colour, point: m.point.clone() };
            let event = Event::Move(MovePlayed { mv: Some(mv), ..m.event.clone() });
            let last = events.last().map(|e| (e.seq, e.hash.clone()));
            events.push(build_event(id, last, event.kind(), event.payload()));
        }
        let mut state = GameState::Playing;
        if let Some(end) = &end {
            let mut payload = object_or_empty(end.event.payload())?;
            payload.insert("from_state".into(), json!(GameState::Playing.as_str()));
            payload.insert("to_state".into(), json!(end.state.as_str()));
            let last = events.last().map(|e| (e.seq, e.hash.clone()));
            events.push(build_event(id, last, end.event.kind(), Value::Object(payload)));
            state = end.state;
        }
        let head = events.last().expect("game_created").clone();
        sqlx::query(
            "INSERT INTO games (id, tournament_id, round, table_number, black_player_id, white_player_id,
                                board_width, board_height, komi, handicap, rule_set, setup, state,
                                move_count, last_seq, last_hash, idempotency_key, request_digest)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
        )
        .bind(id)
        .bind(g.tournament_id)
        .bind(g.round)
        .bind(g.table_number)
        .bind(g.black_player_id)
        .bind(g.white_player_id)
        .bind(g.board_width)
        .bind(g.board_height)
        .bind(g.komi)
        .bind(g.handicap)
        .bind(&g.rule_set)
        .bind(&setup)
        .bind(state.as_str())
        .bind(moves.len() as i32)
        .bind(head.seq)
        .bind(&head.hash)
        .bind(g.key.as_ref().map(|k| &k.key))
        .bind(g.key.as_ref().map(|k| &k.request_digest))
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash)
             SELECT $1, t.* FROM UNNEST($2::int8[], $3::text[], $4::jsonb[], $5::timestamptz[], $6::bytea[], $7::bytea[]) AS t",
        )
        .bind(id)
        .bind(events.iter().map(|e| e.seq).collect::<Vec<_>>())
        .bind(events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>())
        .bind(events.iter().map(|e| e.payload.clone()).collect::<Vec<_>>())
        .bind(events.iter().map(|e| e.created_at).collect::<Vec<_>>())
        .bind(events.iter().map(|e| e.prev_hash.clone()).collect::<Vec<_>>())
        .bind(events.iter().map(|e| e.hash.clone()).collect::<Vec<_>>())
        .execute(&mut *tx)
        .await?;
        if !moves.is_empty() {
            sqlx::query(
                "INSERT INTO moves (game_id, move_number, colour, point, client_time, event_seq)
                 SELECT $1, t.* FROM UNNEST($2::int4[], $3::text[], $4::text[], $5::timestamptz[], $6::int8[]) AS t",
            )
            .bind(id)
            .bind((1..=moves.len() as i32).collect::<Vec<_>>())
            .bind(moves.iter().map(|m| m.colour.as_str().to_string()).collect::<Vec<_>>())
            .bind(moves.iter().map(|m| m.point.clone()).collect::<Vec<_>>())
            .bind(moves.iter().map(|m| m.client_time).collect::<Vec<_>>())
            .bind((2..=moves.len() as i64 + 1).collect::<Vec<_>>())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        self.announce(id, head.seq);
        self.get_game(id).await
    }

    /// A game with its players, move count and last event number. Errors: [`StoreError::NotFound`].
    pub async fn get_game(&self, id: Uuid) -> StoreResult<Game> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("{GAME_SELECT} WHERE g.id = $1")))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("game {id}")))?;
        game_from_row(&row)
    }

    /// Games of a tournament (all tournaments when `None`), optionally of one round, ordered by
    /// round, table number and creation time.
    pub async fn list_games(&self, tournament_id: Option<Uuid>, round: Option<i32>) -> StoreResult<Vec<Game>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{GAME_SELECT} WHERE ($1::uuid IS NULL OR g.tournament_id = $1) AND ($2::int4 IS NULL OR g.round = $2)
             ORDER BY g.round NULLS LAST, g.table_number NULLS LAST, g.created_at, g.id"
        )))
        .bind(tournament_id)
        .bind(round)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(game_from_row).collect()
    }

    /// All moves of a game in order (moves 1..=n).
    pub async fn moves(&self, game_id: Uuid) -> StoreResult<Vec<StoredMove>> {
        Ok(sqlx::query_as::<_, StoredMove>(sqlx::AssertSqlSafe(format!(
            "SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = $1 ORDER BY move_number"
        )))
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Set a game's state and record `event` about it, atomically (e.g. [`Event::PlayResumed`]
    /// after a ruling on a resumption dispute, 第九条); the store adds `from_state` and
    /// `to_state` to its payload. Errors: [`StoreError::NotFound`]; [`StoreError::Immutable`]
    /// when the game is final (第十条); [`StoreError::InvalidArgument`] when an
    /// [`Event::Other`]'s payload is not an object.
    pub async fn set_game_state(&self, game_id: Uuid, state: GameState, event: &Event) -> StoreResult<StoredEvent> {
        let mut tx = self.pool.begin().await?;
        let old = lock_game(&mut tx, game_id).await?;
        if old == GameState::Final {
            return Err(StoreError::Immutable(Immutability::Final(format!("game {game_id} is final (第十条)"))));
        }
        sqlx::query("UPDATE games SET state = $2 WHERE id = $1").bind(game_id).bind(state.as_str()).execute(&mut *tx).await?;
        let mut payload = object_or_empty(event.payload())?;
        payload.insert("from_state".into(), json!(old.as_str()));
        payload.insert("to_state".into(), json!(state.as_str()));
        let ev = append_raw_locked(&mut tx, game_id, event.kind(), Value::Object(payload)).await?;
        tx.commit().await?;
        self.announce(game_id, ev.seq);
        Ok(ev)
    }

    // ---------------------------------------------------------------------------- moves/events

    /// Record a move and its event in one transaction, exactly once. Shorthand for
    /// [`Store::write`] with `GameWrite::new_move(..)` plus key, payload and response.
    pub async fn append_move_with_event(
        &self,
        game_id: Uuid,
        expected_move_number: i32,
        mv: NewMove,
        idempotency_key: Option<String>,
        event: MovePlayed,
        response: Value,
    ) -> StoreResult<WriteOutcome> {
        self.write(GameWrite {
            game_id,
            expected_move_number: Some(expected_move_number),
            idempotency_key,
            mv: Some(mv),
            event: Event::Move(event),
            require_state: Some(GameState::Playing),
            set_state: None,
            response,
        })
        .await
    }

    /// Perform a [`GameWrite`] exactly once.
    ///
    /// The write is computed against the game's head (state, move count, last event's seq and
    /// hash: from a per-store cache, else read together with the idempotency record) and applied
    /// by one statement that advances the head only if it is unchanged (compare-and-swap on the
    /// game row) and inserts the event (hash-chained), the move and the idempotency record in the
    /// same statement. If another write got there first, the head is re-read and the checks
    /// redone; after a few lost races the write falls back to locking the game row
    /// (`SELECT … FOR UPDATE`). Writes of different games issued at the same time share that
    /// statement and its commit (group commit, see [`crate::batch`]); each is answered only after
    /// the commit. Consequences: of N clients sending move n at once exactly one
    /// stores it and the others get [`StoreError::Conflict`] with the current move number; a
    /// retry with the same idempotency key returns the stored outcome (`replayed = true`); a crash
    /// before commit stores nothing.
    ///
    /// Errors: [`StoreError::NotFound`] (game), [`StoreError::Conflict`], [`StoreError::FailedPrecondition`]
    /// (game not `playing`, or not in `require_state`), [`StoreError::AlreadyExists`] (key reused
    /// for a different request), [`StoreError::InvalidArgument`] (bad SGF point, payload not an
    /// object), [`StoreError::Unavailable`].
    pub async fn write(&self, w: GameWrite) -> StoreResult<WriteOutcome> {
        let payload = object_or_empty(w.event.payload())?;
        check_point(&w)?;
        let fingerprint = w.fingerprint();
        // A pooled connection only for reads here; the write itself goes to the batch workers.
        let mut conn: Option<sqlx::pool::PoolConnection<Postgres>> = None;
        let mut use_cache = true;
        for _ in 0..4 {
            let cached = if use_cache { self.cached_head(w.game_id) } else { None };
            let fresh = cached.is_none();
            let head = match cached {
                Some(h) => h,
                None => {
                    if conn.is_none() {
                        conn = Some(self.pool.acquire().await?);
                    }
                    let c = conn.as_deref_mut().expect("acquired above");
                    let (h, stored) = read_head(c, w.game_id, w.idempotency_key.as_deref()).await?;
                    if let Some(stored) = stored {
                        return replay(c, &w, &fingerprint, stored).await;
                    }
                    self.cache_head(w.game_id, h.clone());
                    h
                }
            };
            if let Err(e) = check_write(&w, &head) {
                if fresh {
                    return Err(e);
                }
                use_cache = false; // the cache may be stale: decide on the stored head
                continue;
            }
            let planned = plan_write(&w, &head, payload.clone());
            drop(conn.take()); // never hold a pooled connection while waiting for a batch
            match self.apply_batched(&w, &planned, &fingerprint).await {
                Ok(Some(out)) => {
                    self.cache_head(w.game_id, planned.next_head(&head));
                    self.announce(w.game_id, out.event.seq);
                    return Ok(out);
                }
                // lost the race, or the key exists after all: re-read and decide again
                Ok(None) | Err(StoreError::AlreadyExists(_)) => {
                    self.forget_head(w.game_id);
                    use_cache = false;
                }
                Err(e) => {
                    self.forget_head(w.game_id);
                    return Err(e);
                }
            }
        }
        drop(conn);
        self.write_locked(w, payload, fingerprint).await
    }

    /// [`Store::write`] that always takes the game's row lock (`SELECT … FOR UPDATE`) first
    /// instead of the optimistic compare-and-swap; same semantics and errors. `write` falls back
    /// to it after repeatedly losing races.
    pub async fn write_locking(&self, w: GameWrite) -> StoreResult<WriteOutcome> {
        let payload = object_or_empty(w.event.payload())?;
        check_point(&w)?;
        let fingerprint = w.fingerprint();
        self.write_locked(w, payload, fingerprint).await
    }

    async fn write_locked(&self, w: GameWrite, payload: serde_json::Map<String, Value>, fingerprint: Value) -> StoreResult<WriteOutcome> {
        let mut tx = self.pool.begin().await?;
        let head = lock_head(&mut tx, w.game_id).await?;
        let (_, stored) = read_head(&mut tx, w.game_id, w.idempotency_key.as_deref()).await?;
        if let Some(stored) = stored {
            let out = replay(&mut tx, &w, &fingerprint, stored).await;
            tx.rollback().await?;
            return out;
        }
        check_write(&w, &head)?;
        let planned = plan_write(&w, &head, payload);
        let out = apply_write(&mut tx, &w, &planned, &fingerprint)
            .await?
            .ok_or_else(|| StoreError::Other("write under the game lock did not apply".into()))?;
        tx.commit().await?;
        self.cache_head(w.game_id, planned.next_head(&head));
        self.announce(w.game_id, out.event.seq);
        Ok(out)
    }

    /// [`apply_write`] through the batch workers ([`crate::batch`]).
    async fn apply_batched(&self, w: &GameWrite, p: &Planned, fingerprint: &Value) -> StoreResult<Option<WriteOutcome>> {
        let batcher = self.batcher();
        let e = &p.event;
        let row = crate::batch::BatchRow {
            game_id: w.game_id,
            seq: e.seq,
            kind: e.kind.clone(),
            payload: e.payload.clone(),
            created_at: e.created_at,
            prev_hash: e.prev_hash.clone(),
            hash: e.hash.clone(),
            move_number: p.move_number,
            colour: w.mv.as_ref().map(|m| m.colour.as_str().to_string()),
            point: w.mv.as_ref().and_then(|m| m.point.clone()),
            client_time: w.mv.as_ref().and_then(|m| m.client_time),
            key: w.idempotency_key.clone(),
            request: fingerprint.clone(),
            response: w.response.clone(),
            set_state: p.set_state.map(|s| s.as_str().to_string()),
        };
        let Some(recorded_at) = batcher.apply(row).await? else { return Ok(None) };
        Ok(Some(outcome(w, p, recorded_at)))
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
        Ok(sqlx::query_as::<_, StoredEvent>(sqlx::AssertSqlSafe(format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
        )))
        .bind(game_id)
        .bind(after_seq)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// One event of a game. Errors: [`StoreError::NotFound`].
    pub async fn get_event(&self, game_id: Uuid, seq: i64) -> StoreResult<StoredEvent> {
        sqlx::query_as::<_, StoredEvent>(sqlx::AssertSqlSafe(format!("SELECT {EVENT_COLUMNS} FROM events WHERE game_id = $1 AND seq = $2")))
            .bind(game_id)
            .bind(seq)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("event {seq} of game {game_id}")))
    }

    // ------------------------------------------------------------------------------ audit

    /// The tail of every game's event log, ordered by game id ([`crate::ChainHead`]; read
    /// from the events themselves, not from the game rows' heads).
    pub async fn chain_heads(&self) -> StoreResult<Vec<crate::ChainHead>> {
        let rows: Vec<(Uuid, Option<i64>, Option<Vec<u8>>)> = sqlx::query_as(
            "SELECT g.id, e.seq, e.hash FROM games g \
             LEFT JOIN LATERAL (SELECT seq, hash FROM events WHERE game_id = g.id ORDER BY seq DESC LIMIT 1) e ON true \
             ORDER BY g.id",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(game_id, seq, hash)| crate::ChainHead {
                game_id,
                seq: seq.unwrap_or(0),
                hash: hash.unwrap_or_else(|| crate::chain::GENESIS.to_vec()),
            })
            .collect())
    }

    /// The stored hash of event `seq` of a game (`None`: no such event). Seq 0 is the
    /// [`crate::chain::GENESIS`] hash of every game that exists.
    pub async fn event_hash(&self, game_id: Uuid, seq: i64) -> StoreResult<Option<Vec<u8>>> {
        if seq == 0 {
            let exists: Option<Uuid> =
                sqlx::query_scalar("SELECT id FROM games WHERE id = $1").bind(game_id).fetch_optional(&self.pool).await?;
            return Ok(exists.map(|_| crate::chain::GENESIS.to_vec()));
        }
        Ok(sqlx::query_scalar("SELECT hash FROM events WHERE game_id = $1 AND seq = $2")
            .bind(game_id)
            .bind(seq)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Recompute a game's hash chain ([`crate::chain`]) and check that every move, result,
    /// confirmation, case and objection row agrees with the event that recorded it, and that the
    /// game's own facts in the `games`, `players` and `tournaments` rows (players' names, ranks
    /// and federation ids, rule set, komi, handicap, setup, board size, tournament, round, board
    /// number) equal what its events record ([`crate::facts`]; a difference is a
    /// [`crate::BreakKind::FactMismatch`] naming the field). The rows are read column by column,
    /// so a row that no longer reads as a game (a setup that is not a position) is reported, not
    /// an error. The report's `breaks` holds the game's first broken link (lowest seq), if any.
    /// Errors: [`StoreError::NotFound`] for an unknown game; [`StoreError::Unavailable`].
    pub async fn verify_chain(&self, game_id: Uuid) -> StoreResult<ChainReport> {
        let exists: Option<Uuid> =
            sqlx::query_scalar("SELECT id FROM games WHERE id = $1").bind(game_id).fetch_optional(&self.pool).await?;
        if exists.is_none() {
            return Err(StoreError::NotFound(format!("game {game_id}")));
        }
        let mut report = ChainReport::default();
        self.verify_game_into(game_id, &mut report).await?;
        Ok(report)
    }

    /// [`Store::verify_chain`] for every game, ordered by game id.
    pub async fn verify_all(&self) -> StoreResult<ChainReport> {
        let ids: Vec<Uuid> = sqlx::query_scalar("SELECT id FROM games ORDER BY id").fetch_all(&self.pool).await?;
        let mut report = ChainReport::default();
        for id in ids {
            self.verify_game_into(id, &mut report).await?;
        }
        Ok(report)
    }

    // The payloads are read as stored, not as `Event`s: the hash covers the stored text, and the
    // comparisons with the rows tell a missing key from a null and see keys a typed variant
    // would drop.
    async fn verify_game_into(&self, game_id: Uuid, report: &mut ChainReport) -> StoreResult<()> {
        use futures::TryStreamExt;
        report.games += 1;
        let mut walker = ChainWalker::new(game_id);
        // Move and result events, by the number / id they record.
        let mut move_events: std::collections::BTreeMap<i32, (i64, Value)> = Default::default();
        let mut result_events: std::collections::HashMap<Uuid, Vec<(i64, String, Value)>> = Default::default();
        let mut tail: Option<(i64, Vec<u8>)> = None;
        let mut case_events: std::collections::HashMap<Uuid, Vec<(i64, String, Value)>> = Default::default();
        let mut objection_events: std::collections::HashMap<Uuid, (i64, Value)> = Default::default();
        let mut appeal_events: std::collections::HashMap<Uuid, Vec<(i64, Value)>> = Default::default();
        // The first event that made the game final by a recorded change of state.
        let mut made_final: Option<(i64, String)> = None;
        let mut facts = crate::facts::FactsRecorder::new(game_id);
        {
            let mut rows = sqlx::query_as::<_, StoredEvent>(sqlx::AssertSqlSafe(format!(
                "SELECT {EVENT_COLUMNS} FROM events WHERE game_id = $1 ORDER BY seq"
            )))
            .bind(game_id)
            .fetch(&self.pool);
            while let Some(e) = rows.try_next().await? {
                report.events += 1;
                tail = Some((e.seq, e.hash.clone()));
                walker.push(e.seq, &e.kind, &e.payload, e.created_at, &e.prev_hash, &e.hash);
                facts.push(e.seq, &e.kind, &e.payload);
                if made_final.is_none() && e.payload.get("to_state") == Some(&json!(GameState::Final.as_str())) {
                    made_final = Some((e.seq, e.kind.clone()));
                }
                if let Some(n) = e.payload.get("move").and_then(|m| m.get("number")).and_then(Value::as_i64) {
                    move_events.insert(n as i32, (e.seq, e.payload["move"].clone()));
                }
                let id_of = |key: &str| e.payload.get(key).and_then(Value::as_str).and_then(|s| s.parse::<Uuid>().ok());
                if let Some(rid) = id_of("result_id") {
                    result_events.entry(rid).or_default().push((e.seq, e.kind.clone(), e.payload.clone()));
                }
                if let Some(cid) = id_of("case_id") {
                    case_events.entry(cid).or_default().push((e.seq, e.kind.clone(), e.payload.clone()));
                }
                if let Some(oid) = id_of("objection_id") {
                    if e.kind == "objection_filed" {
                        objection_events.insert(oid, (e.seq, e.payload.clone()));
                    } else {
                        appeal_events.entry(oid).or_default().push((e.seq, e.payload.clone()));
                    }
                }
            }
        }
        if let Some(b) = walker.finish() {
            report.breaks.push(b);
            return Ok(());
        }
        // The head kept on the game row against the log's tail (catches events cut off the end).
        let (head_seq, head_hash, head_moves): (i64, Vec<u8>, i32) =
            sqlx::query_as("SELECT last_seq, last_hash, move_count FROM games WHERE id = $1").bind(game_id).fetch_one(&self.pool).await?;
        let (tail_seq, tail_hash) = tail.unwrap_or((0, GENESIS.to_vec()));
        if head_seq != tail_seq || head_hash != tail_hash {
            report.breaks.push(chain::ChainBreak {
                game_id,
                seq: head_seq.min(tail_seq) + 1,
                kind: chain::BreakKind::HeadMismatch { head_seq },
            });
            return Ok(());
        }
        // Moves against their events.
        let moves = self.moves(game_id).await?;
        let mut found: Vec<chain::ChainBreak> = Vec::new();
        let mut note = |b: chain::ChainBreak| found.push(b);
        if moves.last().map_or(0, |m| m.move_number) != head_moves {
            note(chain::ChainBreak { game_id, seq: tail_seq, kind: chain::BreakKind::MoveMismatch { move_number: head_moves } });
        }
        let mut seen = std::collections::BTreeSet::new();
        for m in &moves {
            seen.insert(m.move_number);
            let expected = json!({"number": m.move_number, "colour": m.colour.as_str(), "point": m.point});
            match move_events.get(&m.move_number) {
                Some((seq, recorded)) if *seq == m.event_seq && *recorded == expected => {}
                other => note(chain::ChainBreak {
                    game_id,
                    seq: other.map(|(s, _)| *s).unwrap_or(m.event_seq),
                    kind: chain::BreakKind::MoveMismatch { move_number: m.move_number },
                }),
            }
        }
        for (n, (seq, _)) in &move_events {
            if !seen.contains(n) {
                note(chain::ChainBreak { game_id, seq: *seq, kind: chain::BreakKind::MoveMismatch { move_number: *n } });
            }
        }
        // Results against their events.
        let results = sqlx::query_as::<_, StoredResult>(sqlx::AssertSqlSafe(format!(
            "SELECT {} FROM results WHERE game_id = $1",
            crate::results::RESULT_COLUMNS
        )))
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?;
        // The proposals an amended proposal superseded, as its event recorded.
        let superseded: std::collections::HashSet<Uuid> = result_events
            .values()
            .flatten()
            .filter(|(_, k, _)| k == "result_proposed")
            .filter_map(|(_, _, p)| p.get("supersedes_result_id").and_then(Value::as_str).and_then(|s| s.parse().ok()))
            .collect();
        let mut game_final_by = made_final;
        for r in &results {
            let evs = result_events.get(&r.id).map(Vec::as_slice).unwrap_or(&[]);
            let created = evs.iter().find(|(_, k, _)| k == "result_proposed" || k == "result_corrected");
            let link = |p: &Value, key: &str| p.get(key).cloned().unwrap_or(Value::Null);
            let ok_created = created.is_some_and(|(_, k, p)| {
                p.get("result") == Some(&json!(r.result))
                    && p.get("reason") == Some(&json!(r.reason))
                    && p.get("statuses") == Some(&r.statuses)
                    && p.get("proposed_by") == Some(&json!(r.proposed_by))
                    // recorded since the detail is kept in the event too
                    && p.get("detail").is_none_or(|d| *d == r.detail)
                    && link(p, "supersedes_result_id") == json!(r.supersedes_result_id)
                    && link(p, "corrects_result_id") == json!(r.corrects_result_id)
                    && (k == "result_corrected") == r.corrects_result_id.is_some()
            });
            let finalized = evs.iter().find(|(_, k, _)| k == "result_finalized" || k == "result_corrected");
            if let Some((seq, k, _)) = finalized {
                if game_final_by.as_ref().is_none_or(|(s, _)| s > seq) {
                    game_final_by = Some((*seq, k.clone()));
                }
            }
            let expected_state = match (finalized, superseded.contains(&r.id)) {
                (Some(_), _) => ResultState::Final,
                (None, true) => ResultState::Superseded,
                (None, false) => ResultState::Proposed,
            };
            if !(ok_created && r.state == expected_state) {
                note(chain::ChainBreak {
                    game_id,
                    seq: created.map(|(s, _, _)| *s).unwrap_or(0),
                    kind: chain::BreakKind::ResultMismatch { result_id: r.id },
                });
            }
        }
        // A game is final exactly when an event made it so (第十条): a result made final or
        // corrected, or a change of state recorded with `to_state` "final".
        let game_state: String = sqlx::query_scalar("SELECT state FROM games WHERE id = $1").bind(game_id).fetch_one(&self.pool).await?;
        if (game_state == GameState::Final.as_str()) != game_final_by.is_some() {
            let (seq, recorded_by, recorded) = match &game_final_by {
                Some((seq, kind)) => (*seq, format!("event {seq} ({kind})"), format!("{:?}", GameState::Final.as_str())),
                None => (0, "no event".to_string(), "no final result".to_string()),
            };
            note(chain::ChainBreak {
                game_id,
                seq,
                kind: chain::BreakKind::FactMismatch {
                    field: "state".into(),
                    held_by: "the games table".into(),
                    stored: format!("{game_state:?}"),
                    recorded_by,
                    recorded,
                },
            });
        }
        // Confirmations against their events, both ways.
        let confirmations = sqlx::query_as::<_, Confirmation>(
            "SELECT c.result_id, c.role, c.who, c.confirmed_at FROM confirmations c
             JOIN results r ON r.id = c.result_id WHERE r.game_id = $1",
        )
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?;
        for c in &confirmations {
            let evs = result_events.get(&c.result_id).map(Vec::as_slice).unwrap_or(&[]);
            let found = evs.iter().find(|(_, k, p)| {
                k == "result_confirmed" && p.get("role") == Some(&json!(c.role.as_str())) && p.get("who") == Some(&json!(c.who))
            });
            if found.is_none() {
                note(chain::ChainBreak { game_id, seq: 0, kind: chain::BreakKind::ResultMismatch { result_id: c.result_id } });
            }
        }
        for (rid, evs) in &result_events {
            for (seq, k, p) in evs {
                if k == "result_confirmed"
                    && !confirmations.iter().any(|c| c.result_id == *rid && p.get("role") == Some(&json!(c.role.as_str())))
                {
                    note(chain::ChainBreak { game_id, seq: *seq, kind: chain::BreakKind::ResultMismatch { result_id: *rid } });
                }
                if k == "result_proposed" && !results.iter().any(|r| r.id == *rid) {
                    note(chain::ChainBreak { game_id, seq: *seq, kind: chain::BreakKind::ResultMismatch { result_id: *rid } });
                }
            }
        }
        // Cases: opened as recorded, ruled as recorded (or not at all), none missing.
        let cases =
            sqlx::query_as::<_, Case>(sqlx::AssertSqlSafe(format!("SELECT {} FROM cases WHERE game_id = $1", crate::cases::CASE_COLUMNS)))
                .bind(game_id)
                .fetch_all(&self.pool)
                .await?;
        for c in &cases {
            let evs = case_events.get(&c.id).map(Vec::as_slice).unwrap_or(&[]);
            let opened = evs.iter().find(|(_, k, _)| k == "case_opened");
            let ok_opened = opened.is_some_and(|(_, _, p)| {
                p.get("kind") == Some(&json!(c.kind.as_str()))
                    && p.get("opened_by") == Some(&json!(c.opened_by))
                    && p.get("reason") == Some(&json!(c.opened_reason))
                    && p.get("dedupe_key").cloned().unwrap_or(Value::Null) == json!(c.dedupe_key)
            });
            // Its evidence and state as its events built them: the evidence opened with, each
            // addition joined to it as `||` joins them; open, then each change.
            let mut evidence = opened.and_then(|(_, _, p)| p.get("evidence").cloned());
            let mut state = CaseState::Open;
            for (_, k, p) in evs {
                match k.as_str() {
                    "case_evidence_added" => {
                        evidence = match (evidence.take(), p.get("evidence")) {
                            (Some(have), Some(added)) => Some(jsonb_concat(have, added.clone())),
                            _ => None,
                        }
                    }
                    "case_state_changed" => {
                        if let Some(to) = p.get("to").and_then(Value::as_str).and_then(|t| t.parse().ok()) {
                            state = to;
                        }
                    }
                    "case_ruled" => state = CaseState::Ruled,
                    _ => {}
                }
            }
            let ok_opened = ok_opened && evidence.as_ref() == Some(&c.evidence) && state == c.state;
            let ruled = evs.iter().find(|(_, k, _)| k == "case_ruled");
            let ok_ruled = match (ruled, &c.ruling) {
                (None, None) => true,
                (Some((_, _, p)), Some(ruling)) => {
                    p.get("ruling") == Some(ruling)
                        && p.get("who") == c.ruled_by.as_ref().map(|w| json!(w)).as_ref()
                        && p.get("why") == c.ruling_reason.as_ref().map(|w| json!(w)).as_ref()
                }
                _ => false,
            };
            if !(ok_opened && ok_ruled) {
                note(chain::ChainBreak {
                    game_id,
                    seq: ruled.or(opened).map(|(s, _, _)| *s).unwrap_or(0),
                    kind: chain::BreakKind::CaseMismatch { case_id: c.id },
                });
            }
        }
        for (cid, evs) in &case_events {
            if let Some((seq, _, _)) = evs.iter().find(|(_, k, _)| k == "case_opened") {
                if !cases.iter().any(|c| c.id == *cid) {
                    note(chain::ChainBreak { game_id, seq: *seq, kind: chain::BreakKind::CaseMismatch { case_id: *cid } });
                }
            }
        }
        // Objections as filed.
        let objections = self.objections(game_id).await?;
        for o in &objections {
            // The appeal material as its events attached it (a null keeps the earlier one).
            let mut material = (None, None);
            for (_, p) in appeal_events.get(&o.id).map(Vec::as_slice).unwrap_or(&[]) {
                for (key, slot) in [("reconstruction", &mut material.0), ("adjudication", &mut material.1)] {
                    if let Some(v) = p.get(key).filter(|v| !v.is_null()) {
                        *slot = Some(v.clone());
                    }
                }
            }
            let stored_material = (o.reconstruction.clone().filter(|v| !v.is_null()), o.adjudication.clone().filter(|v| !v.is_null()));
            let ok = material == stored_material
                && objection_events.get(&o.id).is_some_and(|(_, p)| {
                    p.get("role") == Some(&json!(o.role.as_str()))
                        && p.get("result_id").cloned().unwrap_or(Value::Null) == json!(o.result_id)
                        && p.get("who") == Some(&json!(o.who))
                        && p.get("reason") == Some(&json!(o.reason))
                        && p.get("case_id") == Some(&json!(o.case_id))
                });
            if !ok {
                note(chain::ChainBreak {
                    game_id,
                    seq: objection_events.get(&o.id).map_or(0, |(s, _)| *s),
                    kind: chain::BreakKind::CaseMismatch { case_id: o.case_id },
                });
            }
        }
        for (oid, (seq, p)) in &objection_events {
            if !objections.iter().any(|o| o.id == *oid) {
                let case_id = p.get("case_id").and_then(Value::as_str).and_then(|s| s.parse().ok()).unwrap_or_default();
                note(chain::ChainBreak { game_id, seq: *seq, kind: chain::BreakKind::CaseMismatch { case_id } });
            }
        }
        // The game's own facts (players, rules, setup, tournament, round, board) against the
        // events that recorded them.
        let stored = crate::facts::stored_facts(&self.pool, game_id).await?;
        found.extend(facts.check(&stored));
        // The first (lowest seq, first found among equals) is the game's break; the rest follow.
        found.sort_by_key(|b| b.seq);
        let mut found = found.into_iter();
        if let Some(b) = found.next() {
            report.breaks.push(b);
        }
        report.more.extend(found);
        Ok(())
    }
}

/// `a || b` as PostgreSQL computes it for `jsonb`: two objects merge (`b`'s keys win), two
/// arrays concatenate, an array and another value make the array with the value appended (or
/// prepended), two other values make a two-element array.
fn jsonb_concat(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut x), Value::Object(y)) => {
            x.extend(y);
            Value::Object(x)
        }
        (Value::Array(mut x), Value::Array(y)) => {
            x.extend(y);
            Value::Array(x)
        }
        (Value::Array(mut x), y) => {
            x.push(y);
            Value::Array(x)
        }
        (x, Value::Array(y)) => Value::Array(std::iter::once(x).chain(y).collect()),
        (x, y) => Value::Array(vec![x, y]),
    }
}

/// A move of a whole record given to [`Store::import_game`].
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedMove {
    /// Who played it.
    pub colour: Colour,
    /// SGF point ("dd"); `None` is a pass.
    pub point: Option<String>,
    /// The record's time for the move, if any.
    pub client_time: Option<DateTime<Utc>>,
    /// The move's event as the validator found it (captures, phase, …; `"move"` is filled in).
    pub event: MovePlayed,
}

/// How an imported record ends (see [`Store::import_game`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GameEnd {
    /// The game's state after the record, e.g. [`GameState::Ended`] after the passes of 第九条.
    pub state: GameState,
    /// The closing event, e.g. [`Event::Ended`] (the store adds `from_state` and `to_state`).
    pub event: Event,
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

/// The head of a game's log, as kept on its row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) state: GameState,
    pub(crate) move_count: i32,
    pub(crate) last_seq: i64,
    pub(crate) last_hash: Vec<u8>,
}

/// The stored answer of an idempotency key.
struct StoredAnswer {
    request: Value,
    response: Value,
    move_number: Option<i32>,
    event_seq: i64,
}

/// Lock a game's row for the rest of the transaction; returns its head.
pub(crate) async fn lock_head(tx: &mut Transaction<'_, Postgres>, game_id: Uuid) -> StoreResult<Head> {
    let row = sqlx::query("SELECT state, move_count, last_seq, last_hash FROM games WHERE id = $1 FOR UPDATE")
        .bind(game_id)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("game {game_id}")))?;
    head_from_row(&row)
}

fn head_from_row(row: &PgRow) -> StoreResult<Head> {
    let state: String = row.try_get("state")?;
    Ok(Head {
        state: state.parse()?,
        move_count: row.try_get("move_count")?,
        last_seq: row.try_get("last_seq")?,
        last_hash: row.try_get("last_hash")?,
    })
}

async fn read_head(ex: &mut sqlx::PgConnection, game_id: Uuid, key: Option<&str>) -> StoreResult<(Head, Option<StoredAnswer>)> {
    let row = sqlx::query(
        "SELECT g.state, g.move_count, g.last_seq, g.last_hash,
                i.request AS i_request, i.response AS i_response, i.move_number AS i_move, i.event_seq AS i_seq
         FROM games g LEFT JOIN idempotency i ON i.game_id = g.id AND i.key = $2::text
         WHERE g.id = $1",
    )
    .bind(game_id)
    .bind(key)
    .fetch_optional(ex)
    .await?
    .ok_or_else(|| StoreError::NotFound(format!("game {game_id}")))?;
    let head = head_from_row(&row)?;
    let stored = match row.try_get::<Option<Value>, _>("i_request")? {
        Some(request) => Some(StoredAnswer {
            request,
            response: row.try_get("i_response")?,
            move_number: row.try_get("i_move")?,
            event_seq: row.try_get("i_seq")?,
        }),
        None => None,
    };
    Ok((head, stored))
}

async fn replay(conn: &mut sqlx::PgConnection, w: &GameWrite, fingerprint: &Value, stored: StoredAnswer) -> StoreResult<WriteOutcome> {
    if stored.request != *fingerprint {
        return Err(StoreError::AlreadyExists(Exists::IdempotencyKey(format!(
            "idempotency key {:?} of game {} was used for a different request",
            w.idempotency_key.as_deref().unwrap_or_default(),
            w.game_id
        ))));
    }
    let event = sqlx::query_as::<_, StoredEvent>(sqlx::AssertSqlSafe(format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE game_id = $1 AND seq = $2"
    )))
    .bind(w.game_id)
    .bind(stored.event_seq)
    .fetch_one(&mut *conn)
    .await?;
    let mv = match stored.move_number {
        Some(n) => Some(
            sqlx::query_as::<_, StoredMove>(sqlx::AssertSqlSafe(format!(
                "SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = $1 AND move_number = $2"
            )))
            .bind(w.game_id)
            .bind(n)
            .fetch_one(&mut *conn)
            .await?,
        ),
        None => None,
    };
    Ok(WriteOutcome { mv, event, response: stored.response, replayed: true })
}

fn check_point(w: &GameWrite) -> StoreResult<()> {
    if let Some(p) = w.mv.as_ref().and_then(|m| m.point.as_ref()) {
        if p.len() != 2 || !p.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(StoreError::InvalidArgument(format!("point {p:?} is not an SGF point like \"dd\"")));
        }
    }
    Ok(())
}

/// The state and move-number checks of a write against a head.
fn check_write(w: &GameWrite, head: &Head) -> StoreResult<()> {
    let required = if w.mv.is_some() { Some(GameState::Playing) } else { w.require_state };
    if let Some(req) = required {
        if head.state != req {
            return Err(StoreError::FailedPrecondition(Precondition::GameState { game_id: w.game_id, state: head.state, required: req }));
        }
    }
    if let Some(expected) = w.expected_move_number {
        if expected != head.move_count + 1 {
            return Err(StoreError::Conflict { current_move_number: head.move_count, expected });
        }
    }
    Ok(())
}

/// A write computed against a head: the event to insert and the move number.
struct Planned {
    event: StoredEvent,
    move_number: Option<i32>,
    set_state: Option<GameState>,
}

impl Planned {
    fn next_head(&self, head: &Head) -> Head {
        Head {
            state: self.set_state.unwrap_or(head.state),
            move_count: self.move_number.unwrap_or(head.move_count),
            last_seq: self.event.seq,
            last_hash: self.event.hash.clone(),
        }
    }
}

fn plan_write(w: &GameWrite, head: &Head, mut payload: serde_json::Map<String, Value>) -> Planned {
    let move_number = w.mv.as_ref().map(|_| head.move_count + 1);
    if let (Some(m), Some(n)) = (w.mv.as_ref(), move_number) {
        payload.insert("move".into(), json!({"number": n, "colour": m.colour.as_str(), "point": m.point}));
    }
    let last = (head.last_seq > 0).then(|| (head.last_seq, head.last_hash.clone()));
    let event = build_event(w.game_id, last, w.event.kind(), Value::Object(payload));
    Planned { event, move_number, set_state: w.set_state }
}

/// Apply a planned write in one statement if the game's head is still the one it was planned
/// on; `None` if it is not (another write got there first).
async fn apply_write(ex: &mut sqlx::PgConnection, w: &GameWrite, p: &Planned, fingerprint: &Value) -> StoreResult<Option<WriteOutcome>> {
    let e = &p.event;
    let row = sqlx::query(
        "WITH upd AS (
            UPDATE games SET last_seq = $2, last_hash = $7,
                   move_count = coalesce($8::int4, move_count),
                   state = coalesce($15::text, state)
            WHERE id = $1 AND last_seq = $2 - 1 AND last_hash = $6
            RETURNING id
         ), ev AS (
            INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash)
            SELECT $1, $2, $3, $4, $5, $6, $7 FROM upd
            RETURNING seq
         ), mv AS (
            INSERT INTO moves (game_id, move_number, colour, point, client_time, idempotency_key, event_seq)
            SELECT $1, $8::int4, $9::text, $10::text, $11::timestamptz, $12::text, $2 FROM upd
            WHERE $8::int4 IS NOT NULL
            RETURNING recorded_at
         ), idem AS (
            INSERT INTO idempotency (game_id, key, request, response, move_number, event_seq)
            SELECT $1, $12::text, $13::jsonb, $14::jsonb, $8::int4, $2 FROM upd
            WHERE $12::text IS NOT NULL
            RETURNING 1
         )
         SELECT (SELECT count(*) FROM upd) AS applied, (SELECT recorded_at FROM mv) AS recorded_at",
    )
    .bind(w.game_id)
    .bind(e.seq)
    .bind(&e.kind)
    .bind(&e.payload)
    .bind(e.created_at)
    .bind(&e.prev_hash)
    .bind(&e.hash)
    .bind(p.move_number)
    .bind(w.mv.as_ref().map(|m| m.colour.as_str()))
    .bind(w.mv.as_ref().and_then(|m| m.point.clone()))
    .bind(w.mv.as_ref().and_then(|m| m.client_time))
    .bind(&w.idempotency_key)
    .bind(fingerprint)
    .bind(&w.response)
    .bind(w.set_state.map(|s| s.as_str()))
    .fetch_one(ex)
    .await?;
    let applied: i64 = row.try_get("applied")?;
    if applied == 0 {
        return Ok(None);
    }
    let recorded_at: Option<DateTime<Utc>> = row.try_get("recorded_at")?;
    Ok(Some(outcome(w, p, recorded_at)))
}

/// What a planned write stored, given the move's `recorded_at` (if it had a move).
fn outcome(w: &GameWrite, p: &Planned, recorded_at: Option<DateTime<Utc>>) -> WriteOutcome {
    let e = &p.event;
    let mv = match (&w.mv, p.move_number) {
        (Some(m), Some(n)) => Some(StoredMove {
            game_id: w.game_id,
            move_number: n,
            colour: m.colour,
            point: m.point.clone(),
            client_time: m.client_time,
            idempotency_key: w.idempotency_key.clone(),
            event_seq: e.seq,
            recorded_at: recorded_at.unwrap_or(e.created_at),
        }),
        _ => None,
    };
    WriteOutcome { mv, event: e.clone(), response: w.response.clone(), replayed: false }
}
