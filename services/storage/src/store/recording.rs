//! Recording: [`GameWrite`] (a move, a foul, a resignation) applied exactly once, with its
//! idempotency key, by compare-and-swap on the game's head or under its row lock.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use sqlx::Postgres;
use uuid::Uuid;

use super::*;
use crate::error::{Exists, Precondition, StoreError, StoreResult};
use crate::event::{Event, MovePlayed};
use crate::model::*;
use crate::rows::*;

/// A move to record (part of a [`GameWrite`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMove {
    /// Who plays it.
    pub colour: Color,
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
    pub fn new_move(game_id: Uuid, expected_move_number: i32, colour: Color, point: Option<&str>) -> Self {
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
            "move": self.mv.as_ref().map(|m| json!({"colour": colour_text(m.colour), "point": m.point})),
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

impl Store {
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
            colour: w.mv.as_ref().map(|m| colour_text(m.colour).to_string()),
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
}

/// The stored answer of an idempotency key.
struct StoredAnswer {
    request: Value,
    response: Value,
    move_number: Option<i32>,
    event_seq: i64,
}

async fn read_head(ex: &mut sqlx::PgConnection, game_id: Uuid, key: Option<&str>) -> StoreResult<(Head, Option<StoredAnswer>)> {
    let row = sqlx::query!(
        r#"SELECT g.state, g.move_count, g.last_seq, g.last_hash,
                i.request AS "i_request?", i.response AS "i_response?", i.move_number AS "i_move?", i.event_seq AS "i_seq?"
         FROM games g LEFT JOIN idempotency i ON i.game_id = g.id AND i.key = $2::text
         WHERE g.id = $1"#,
        game_id,
        key
    )
    .fetch_optional(ex)
    .await?
    .ok_or_else(|| StoreError::NotFound(format!("game {game_id}")))?;
    let head = Head { state: row.state.parse()?, move_count: row.move_count, last_seq: row.last_seq, last_hash: row.last_hash };
    // the joined row is there exactly when its request (a NOT NULL column) is
    let missing = |c: &str| StoreError::Other(format!("idempotency record of game {game_id} without its {c}"));
    let stored = match row.i_request {
        Some(request) => Some(StoredAnswer {
            request,
            response: row.i_response.ok_or_else(|| missing("response"))?,
            move_number: row.i_move,
            event_seq: row.i_seq.ok_or_else(|| missing("event_seq"))?,
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
    let event = sqlx::query_as!(
        StoredEvent,
        "SELECT game_id, seq, kind, payload, created_at, prev_hash, hash FROM events WHERE game_id = $1 AND seq = $2",
        w.game_id,
        stored.event_seq
    )
    .fetch_one(&mut *conn)
    .await?;
    let mv = match stored.move_number {
        Some(n) => Some(
            sqlx::query_as!(
                MoveRow,
                "SELECT game_id, move_number, colour, point, client_time, idempotency_key, event_seq, recorded_at
                 FROM moves WHERE game_id = $1 AND move_number = $2",
                w.game_id,
                n
            )
            .fetch_one(&mut *conn)
            .await?
            .into_move()?,
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
        payload.insert("move".into(), json!({"number": n, "colour": colour_text(m.colour), "point": m.point}));
    }
    let last = (head.last_seq > 0).then(|| (head.last_seq, head.last_hash.clone()));
    let event = build_event(w.game_id, last, w.event.kind(), Value::Object(payload));
    Planned { event, move_number, set_state: w.set_state }
}

/// Apply a planned write in one statement if the game's head is still the one it was planned
/// on; `None` if it is not (another write got there first).
async fn apply_write(ex: &mut sqlx::PgConnection, w: &GameWrite, p: &Planned, fingerprint: &Value) -> StoreResult<Option<WriteOutcome>> {
    let e = &p.event;
    // the event is built for `w.game_id` (plan_write), so it binds `$1` too
    let row = sqlx::query!(
        r#"WITH upd AS (
            UPDATE games SET last_seq = $2, last_hash = $7,
                   move_count = coalesce($8::int4, move_count),
                   state = coalesce($15::text, state)
            WHERE id = $1 AND last_seq = $2::int8 - 1 AND last_hash = $6
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
         SELECT (SELECT count(*) FROM upd) AS "applied!", (SELECT recorded_at FROM mv) AS "recorded_at?""#,
        e.game_id,
        e.seq,
        &e.kind,
        &e.payload,
        e.created_at,
        &e.prev_hash,
        &e.hash,
        p.move_number,
        w.mv.as_ref().map(|m| colour_text(m.colour)),
        w.mv.as_ref().and_then(|m| m.point.clone()),
        w.mv.as_ref().and_then(|m| m.client_time),
        w.idempotency_key.as_deref(),
        fingerprint,
        &w.response,
        w.set_state.map(|s| s.as_str()),
    )
    .fetch_one(ex)
    .await?;
    if row.applied == 0 {
        return Ok(None);
    }
    let recorded_at = row.recorded_at;
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
