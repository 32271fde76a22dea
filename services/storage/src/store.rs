//! [`Store`]: tournaments, players, games, moves and the hash-chained event log.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use sqlx::postgres::{PgPool, PgRow};
use sqlx::{Postgres, Row, Transaction};
use uuid::Uuid;

use crate::chain::{self, ChainReport, ChainWalker, GENESIS};
use crate::error::{StoreError, StoreResult};
use crate::model::*;
use crate::watch::EventHub;

/// Handle to the database; cheap to clone (a pool and a shared event hub).
///
/// Every query the services run lives here. Methods that change a game lock the game's row
/// (`SELECT … FOR UPDATE`) first, so all writes to one game — moves, events, results, cases — are
/// serialized and its event log is a single chain; writes to different games run in parallel.
#[derive(Clone)]
pub struct Store {
    pub(crate) pool: PgPool,
    pub(crate) hub: Arc<tokio::sync::Mutex<Option<Arc<EventHub>>>>,
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
    /// Kind of the event (e.g. "move", "foul", "resign", "pass").
    pub event_kind: String,
    /// Payload of the event, a JSON object (or null for `{}`). For a move the store adds the key
    /// `"move": {"number": n, "colour": "B"|"W", "point": "dd"|null}` (it overwrites any such key).
    pub event_payload: Value,
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
            event_kind: "move".into(),
            event_payload: json!({}),
            require_state: Some(GameState::Playing),
            set_state: None,
            response: Value::Null,
        }
    }

    /// An event without a move (foul, resign, ...), requiring `playing`, no idempotency key.
    pub fn event_only(game_id: Uuid, expected_move_number: Option<i32>, kind: &str, payload: Value) -> Self {
        GameWrite {
            game_id,
            expected_move_number,
            idempotency_key: None,
            mv: None,
            event_kind: kind.into(),
            event_payload: payload,
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

    /// Builder: set the event payload.
    pub fn with_payload(mut self, payload: Value) -> Self {
        self.event_payload = payload;
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
            "kind": self.event_kind,
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
const MOVE_COLUMNS: &str =
    "game_id, move_number, colour, point, client_time, idempotency_key, event_seq, recorded_at";

const GAME_SELECT: &str = "SELECT g.id, g.tournament_id, g.round, g.table_number, g.board_width, g.board_height,
        g.komi, g.handicap, g.rule_set, g.state, g.setup, g.created_at,
        b.id AS b_id, b.name AS b_name, b.rank AS b_rank, b.federation_id AS b_fed,
        w.id AS w_id, w.name AS w_name, w.rank AS w_rank, w.federation_id AS w_fed,
        (SELECT coalesce(max(m.move_number), 0) FROM moves m WHERE m.game_id = g.id) AS move_count,
        (SELECT coalesce(max(e.seq), 0) FROM events e WHERE e.game_id = g.id) AS last_event_seq
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
        settings: serde_json::from_value(settings)
            .map_err(|e| StoreError::Other(format!("bad tournament settings: {e}")))?,
        created_at: r.try_get("created_at")?,
    })
}

/// Lock a game's row for the rest of the transaction; returns its state.
pub(crate) async fn lock_game(tx: &mut Transaction<'_, Postgres>, game_id: Uuid) -> StoreResult<GameState> {
    let state: Option<String> = sqlx::query_scalar("SELECT state FROM games WHERE id = $1 FOR UPDATE")
        .bind(game_id)
        .fetch_optional(&mut **tx)
        .await?;
    match state {
        Some(s) => s.parse(),
        None => Err(StoreError::NotFound(format!("game {game_id}"))),
    }
}

/// Append an event to a game whose row the transaction has locked ([`lock_game`]).
pub(crate) async fn append_event_locked(
    tx: &mut Transaction<'_, Postgres>,
    game_id: Uuid,
    kind: &str,
    payload: Value,
) -> StoreResult<StoredEvent> {
    let last: Option<(i64, Vec<u8>)> =
        sqlx::query_as("SELECT seq, hash FROM events WHERE game_id = $1 ORDER BY seq DESC LIMIT 1")
            .bind(game_id)
            .fetch_optional(&mut **tx)
            .await?;
    let event = build_event(game_id, last, kind, payload);
    insert_event(tx, &event).await?;
    Ok(event)
}

/// Compute the next event of a chain whose last event is `last` (seq, hash).
pub(crate) fn build_event(game_id: Uuid, last: Option<(i64, Vec<u8>)>, kind: &str, payload: Value) -> StoredEvent {
    let (seq, prev_hash) = match last {
        Some((s, h)) => (s + 1, h),
        None => (1, GENESIS.to_vec()),
    };
    let payload = if payload.is_null() { json!({}) } else { payload };
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
        Store { pool, hub: Arc::new(tokio::sync::Mutex::new(None)) }
    }

    /// Connect to `url` (a `postgres://` URL), apply the migrations, and return the store.
    /// Errors: [`StoreError::Unavailable`] when the server cannot be reached.
    pub async fn connect(url: &str) -> StoreResult<Self> {
        Self::connect_with(url, 20).await
    }

    /// Like [`Store::connect`] with at most `max_connections` pooled connections.
    pub async fn connect_with(url: &str, max_connections: u32) -> StoreResult<Self> {
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(std::time::Duration::from_secs(10))
            .connect(url)
            .await?;
        crate::migrate(&pool).await?;
        Ok(Store::new(pool))
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
        let row = sqlx::query(
            "INSERT INTO tournaments (id, name, settings) VALUES ($1, $2, $3) RETURNING id, name, settings, created_at",
        )
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
        sqlx::query(
            "INSERT INTO tournaments (id, name, settings) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
        )
        .bind(Uuid::new_v4())
        .bind(name)
        .bind(settings_json)
        .execute(&self.pool)
        .await?;
        self.find_tournament(name)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("tournament {name:?}")))
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
        let rows = sqlx::query("SELECT id, name, settings, created_at FROM tournaments ORDER BY created_at, name")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(tournament_from_row).collect()
    }

    /// Replace a tournament's settings (e.g. its 無勝負 policy). Errors: [`StoreError::NotFound`].
    pub async fn update_tournament_settings(&self, id: Uuid, settings: &TournamentSettings) -> StoreResult<Tournament> {
        let settings = serde_json::to_value(settings).map_err(|e| StoreError::Other(e.to_string()))?;
        let row = sqlx::query(
            "UPDATE tournaments SET settings = $2 WHERE id = $1 RETURNING id, name, settings, created_at",
        )
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
    /// name, rank and no federation id is reused, else a new one is created.
    pub async fn upsert_player(&self, p: &NewPlayer) -> StoreResult<Player> {
        if let Some(fed) = &p.federation_id {
            let row = sqlx::query_as::<_, Player>(
                "INSERT INTO players (id, name, rank, federation_id) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (federation_id) DO UPDATE
                    SET name = EXCLUDED.name, rank = coalesce(EXCLUDED.rank, players.rank)
                 RETURNING id, name, rank, federation_id",
            )
            .bind(Uuid::new_v4())
            .bind(&p.name)
            .bind(&p.rank)
            .bind(fed)
            .fetch_one(&self.pool)
            .await?;
            return Ok(row);
        }
        let existing = sqlx::query_as::<_, Player>(
            "SELECT id, name, rank, federation_id FROM players
             WHERE federation_id IS NULL AND name = $1 AND rank IS NOT DISTINCT FROM $2
             ORDER BY created_at LIMIT 1",
        )
        .bind(&p.name)
        .bind(&p.rank)
        .fetch_optional(&self.pool)
        .await?;
        if let Some(pl) = existing {
            return Ok(pl);
        }
        Ok(sqlx::query_as::<_, Player>(
            "INSERT INTO players (id, name, rank) VALUES ($1, $2, $3) RETURNING id, name, rank, federation_id",
        )
        .bind(Uuid::new_v4())
        .bind(&p.name)
        .bind(&p.rank)
        .fetch_one(&self.pool)
        .await?)
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
    /// payload holds the game's particulars. Errors: [`StoreError::AlreadyExists`] when the
    /// tournament's round already has a game on that table; [`StoreError::NotFound`] for an unknown
    /// tournament or player; [`StoreError::InvalidArgument`] for a board size outside 1..=52.
    pub async fn create_game(&self, g: &NewGame) -> StoreResult<Game> {
        let id = Uuid::new_v4();
        let setup = if g.setup.is_null() { json!({}) } else { g.setup.clone() };
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO games (id, tournament_id, round, table_number, black_player_id, white_player_id,
                                board_width, board_height, komi, handicap, rule_set, setup)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
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
        .execute(&mut *tx)
        .await?;
        let payload = json!({
            "tournament_id": g.tournament_id,
            "round": g.round,
            "table_number": g.table_number,
            "black_player_id": g.black_player_id,
            "white_player_id": g.white_player_id,
            "board_width": g.board_width,
            "board_height": g.board_height,
            "komi": g.komi,
            "handicap": g.handicap,
            "rule_set": g.rule_set,
            "setup": setup,
        });
        let event = build_event(id, None, "game_created", payload);
        insert_event(&mut tx, &event).await?;
        tx.commit().await?;
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

    /// Set a game's state and record an event of `kind` with `payload` about it, atomically
    /// (e.g. "play_ended" after the passes of 第九条, "play_resumed" after a ruling on a
    /// resumption dispute). Errors: [`StoreError::NotFound`]; [`StoreError::Immutable`] when the
    /// game is final (第十条).
    pub async fn set_game_state(&self, game_id: Uuid, state: GameState, kind: &str, payload: Value) -> StoreResult<StoredEvent> {
        let mut tx = self.pool.begin().await?;
        let old = lock_game(&mut tx, game_id).await?;
        if old == GameState::Final {
            return Err(StoreError::Immutable(format!("game {game_id} is final (第十条)")));
        }
        sqlx::query("UPDATE games SET state = $2 WHERE id = $1")
            .bind(game_id)
            .bind(state.as_str())
            .execute(&mut *tx)
            .await?;
        let mut payload = object_or_empty(payload)?;
        payload.insert("from_state".into(), json!(old.as_str()));
        payload.insert("to_state".into(), json!(state.as_str()));
        let ev = append_event_locked(&mut tx, game_id, kind, Value::Object(payload)).await?;
        tx.commit().await?;
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
        event_payload: Value,
        response: Value,
    ) -> StoreResult<WriteOutcome> {
        self.write(GameWrite {
            game_id,
            expected_move_number: Some(expected_move_number),
            idempotency_key,
            mv: Some(mv),
            event_kind: "move".into(),
            event_payload,
            require_state: Some(GameState::Playing),
            set_state: None,
            response,
        })
        .await
    }

    /// Perform a [`GameWrite`] exactly once. In one transaction: lock the game row; if the
    /// idempotency key was seen, return the stored outcome (`replayed = true`); check the state
    /// and the expected move number; insert the event (hash-chained), the move, the idempotency
    /// record and the new state; commit. Concurrent writers of the same game queue on the lock, so
    /// of N clients sending move n at once exactly one stores it and the others get
    /// [`StoreError::Conflict`] with the current move number.
    ///
    /// Errors: [`StoreError::NotFound`] (game), [`StoreError::Conflict`], [`StoreError::FailedPrecondition`]
    /// (game not `playing`, or not in `require_state`), [`StoreError::AlreadyExists`] (key reused
    /// for a different request), [`StoreError::InvalidArgument`] (bad SGF point, payload not an
    /// object), [`StoreError::Unavailable`].
    pub async fn write(&self, w: GameWrite) -> StoreResult<WriteOutcome> {
        let mut payload = object_or_empty(w.event_payload.clone())?;
        if let Some(p) = w.mv.as_ref().and_then(|m| m.point.as_ref()) {
            if p.len() != 2 || !p.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err(StoreError::InvalidArgument(format!("point {p:?} is not an SGF point like \"dd\"")));
            }
        }
        let mut tx = self.pool.begin().await?;
        let state = lock_game(&mut tx, w.game_id).await?;
        let row = sqlx::query(
            "SELECT (SELECT coalesce(max(move_number), 0) FROM moves WHERE game_id = $1) AS move_count,
                    e.seq AS last_seq, e.hash AS last_hash,
                    i.request AS i_request, i.response AS i_response,
                    i.move_number AS i_move, i.event_seq AS i_seq
             FROM (SELECT 1) AS one
             LEFT JOIN LATERAL (SELECT seq, hash FROM events WHERE game_id = $1 ORDER BY seq DESC LIMIT 1) e ON true
             LEFT JOIN idempotency i ON i.game_id = $1 AND i.key = $2::text",
        )
        .bind(w.game_id)
        .bind(&w.idempotency_key)
        .fetch_one(&mut *tx)
        .await?;
        let fingerprint = w.fingerprint();
        if let Some(stored_request) = row.try_get::<Option<Value>, _>("i_request")? {
            let key = w.idempotency_key.as_deref().unwrap_or_default();
            if stored_request != fingerprint {
                return Err(StoreError::AlreadyExists(format!(
                    "idempotency key {key:?} of game {} was used for a different request",
                    w.game_id
                )));
            }
            let i_move: Option<i32> = row.try_get("i_move")?;
            let i_seq: i64 = row.try_get("i_seq")?;
            let response: Value = row.try_get("i_response")?;
            let event = sqlx::query_as::<_, StoredEvent>(sqlx::AssertSqlSafe(format!(
                "SELECT {EVENT_COLUMNS} FROM events WHERE game_id = $1 AND seq = $2"
            )))
            .bind(w.game_id)
            .bind(i_seq)
            .fetch_one(&mut *tx)
            .await?;
            let mv = match i_move {
                Some(n) => Some(
                    sqlx::query_as::<_, StoredMove>(sqlx::AssertSqlSafe(format!(
                        "SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = $1 AND move_number = $2"
                    )))
                    .bind(w.game_id)
                    .bind(n)
                    .fetch_one(&mut *tx)
                    .await?,
                ),
                None => None,
            };
            tx.rollback().await?;
            return Ok(WriteOutcome { mv, event, response, replayed: true });
        }
        let required = if w.mv.is_some() { Some(GameState::Playing) } else { w.require_state };
        if let Some(req) = required {
            if state != req {
                return Err(StoreError::FailedPrecondition(format!(
                    "game {} is {}, not {}",
                    w.game_id,
                    state.as_str(),
                    req.as_str()
                )));
            }
        }
        let move_count: i32 = row.try_get("move_count")?;
        if let Some(expected) = w.expected_move_number {
            if expected != move_count + 1 {
                return Err(StoreError::Conflict { current_move_number: move_count, expected });
            }
        }
        let move_number = w.mv.as_ref().map(|_| move_count + 1);
        if let (Some(m), Some(n)) = (w.mv.as_ref(), move_number) {
            payload.insert("move".into(), json!({"number": n, "colour": m.colour.as_str(), "point": m.point}));
        }
        let last_seq: Option<i64> = row.try_get("last_seq")?;
        let last_hash: Option<Vec<u8>> = row.try_get("last_hash")?;
        let event = build_event(w.game_id, last_seq.zip(last_hash), &w.event_kind, Value::Object(payload));
        let recorded_at: Option<DateTime<Utc>> = sqlx::query_scalar(
            "WITH ev AS (
                INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash)
                VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq
             ), mv AS (
                INSERT INTO moves (game_id, move_number, colour, point, client_time, idempotency_key, event_seq)
                SELECT $1, $8::int4, $9::text, $10::text, $11::timestamptz, $12::text, $2
                WHERE $8::int4 IS NOT NULL
                RETURNING recorded_at
             ), idem AS (
                INSERT INTO idempotency (game_id, key, request, response, move_number, event_seq)
                SELECT $1, $12::text, $13::jsonb, $14::jsonb, $8::int4, $2
                WHERE $12::text IS NOT NULL
                RETURNING 1
             ), st AS (
                UPDATE games SET state = $15::text WHERE id = $1 AND $15::text IS NOT NULL RETURNING 1
             )
             SELECT (SELECT recorded_at FROM mv)",
        )
        .bind(w.game_id)
        .bind(event.seq)
        .bind(&event.kind)
        .bind(&event.payload)
        .bind(event.created_at)
        .bind(&event.prev_hash)
        .bind(&event.hash)
        .bind(move_number)
        .bind(w.mv.as_ref().map(|m| m.colour.as_str()))
        .bind(w.mv.as_ref().and_then(|m| m.point.clone()))
        .bind(w.mv.as_ref().and_then(|m| m.client_time))
        .bind(&w.idempotency_key)
        .bind(&fingerprint)
        .bind(&w.response)
        .bind(w.set_state.map(|s| s.as_str()))
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        let mv = match (w.mv, move_number) {
            (Some(m), Some(n)) => Some(StoredMove {
                game_id: w.game_id,
                move_number: n,
                colour: m.colour,
                point: m.point,
                client_time: m.client_time,
                idempotency_key: w.idempotency_key,
                event_seq: event.seq,
                recorded_at: recorded_at.unwrap_or(event.created_at),
            }),
            _ => None,
        };
        Ok(WriteOutcome { mv, event, response: w.response, replayed: false })
    }

    /// Append an event of `kind` with `payload` (a JSON object or null) to a game's log,
    /// hash-chained and serialized with every other write of the game. Errors:
    /// [`StoreError::NotFound`], [`StoreError::InvalidArgument`] (payload not an object).
    pub async fn append_event(&self, game_id: Uuid, kind: &str, payload: Value) -> StoreResult<StoredEvent> {
        let payload = Value::Object(object_or_empty(payload)?);
        let mut tx = self.pool.begin().await?;
        lock_game(&mut tx, game_id).await?;
        let ev = append_event_locked(&mut tx, game_id, kind, payload).await?;
        tx.commit().await?;
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
        sqlx::query_as::<_, StoredEvent>(sqlx::AssertSqlSafe(format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE game_id = $1 AND seq = $2"
        )))
        .bind(game_id)
        .bind(seq)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("event {seq} of game {game_id}")))
    }

    // ------------------------------------------------------------------------------ audit

    /// Recompute a game's hash chain ([`crate::chain`]) and check that every move row and result
    /// row agrees with the event that recorded it. The report's `breaks` holds the game's first
    /// broken link, if any. Errors: [`StoreError::NotFound`] for an unknown game.
    pub async fn verify_chain(&self, game_id: Uuid) -> StoreResult<ChainReport> {
        let exists: Option<Uuid> = sqlx::query_scalar("SELECT id FROM games WHERE id = $1")
            .bind(game_id)
            .fetch_optional(&self.pool)
            .await?;
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

    async fn verify_game_into(&self, game_id: Uuid, report: &mut ChainReport) -> StoreResult<()> {
        use futures::TryStreamExt;
        report.games += 1;
        let mut walker = ChainWalker::new(game_id);
        // Move and result events, by the number / id they record.
        let mut move_events: std::collections::BTreeMap<i32, (i64, Value)> = Default::default();
        let mut result_events: std::collections::HashMap<Uuid, Vec<(i64, String, Value)>> = Default::default();
        {
            let mut rows = sqlx::query_as::<_, StoredEvent>(sqlx::AssertSqlSafe(format!(
                "SELECT {EVENT_COLUMNS} FROM events WHERE game_id = $1 ORDER BY seq"
            )))
            .bind(game_id)
            .fetch(&self.pool);
            while let Some(e) = rows.try_next().await? {
                report.events += 1;
                walker.push(e.seq, &e.kind, &e.payload, e.created_at, &e.prev_hash, &e.hash);
                if let Some(n) = e.payload.get("move").and_then(|m| m.get("number")).and_then(Value::as_i64) {
                    move_events.insert(n as i32, (e.seq, e.payload["move"].clone()));
                }
                if let Some(rid) = e.payload.get("result_id").and_then(Value::as_str).and_then(|s| s.parse::<Uuid>().ok()) {
                    result_events.entry(rid).or_default().push((e.seq, e.kind.clone(), e.payload.clone()));
                }
            }
        }
        if let Some(b) = walker.finish() {
            report.breaks.push(b);
            return Ok(());
        }
        // Moves against their events.
        let moves = self.moves(game_id).await?;
        let mut first: Option<chain::ChainBreak> = None;
        let mut note = |b: chain::ChainBreak| {
            if first.as_ref().is_none_or(|f| b.seq < f.seq) {
                first = Some(b);
            }
        };
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
        for r in &results {
            let evs = result_events.get(&r.id).map(Vec::as_slice).unwrap_or(&[]);
            let created = evs.iter().find(|(_, k, _)| k == "result_proposed" || k == "result_corrected");
            let ok_created = created.is_some_and(|(_, _, p)| {
                p.get("result") == Some(&json!(r.result))
                    && p.get("reason") == Some(&json!(r.reason))
                    && p.get("statuses") == Some(&r.statuses)
            });
            let ok_final = r.state != ResultState::Final
                || evs.iter().any(|(_, k, _)| k == "result_finalized" || k == "result_corrected");
            if !(ok_created && ok_final) {
                note(chain::ChainBreak {
                    game_id,
                    seq: created.map(|(s, _, _)| *s).unwrap_or(0),
                    kind: chain::BreakKind::ResultMismatch { result_id: r.id },
                });
            }
        }
        if let Some(b) = first {
            report.breaks.push(b);
        }
        Ok(())
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
