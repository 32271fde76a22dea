//! Group commit of game writes: the optimistic [`crate::Store::write`] path hands its planned write to
//! the store's batch worker ([`WORKERS`]), which stores every write queued at that moment — for
//! different games — with ONE statement in ONE transaction.
//!
//! Why: at 2,000 moves/s on two cores the per-statement and per-commit work of PostgreSQL
//! (executor start-up, the round trip, the commit record and its WAL flush) dominates the cost
//! of a move. A batch of k writes pays it once. Nothing waits for a batch to fill: the worker takes
//! what is queued when it becomes free, so at low load a batch is one write and the latency is
//! that of a single statement; under load a write waits at most for the batch in flight.
//!
//! Guarantees are those of the single-write statement, per write: each row of the batch advances
//! its game's head only if the head is still the one the write was planned on (compare-and-swap
//! on the game row), and its event, move and idempotency record are inserted only for the rows
//! whose head advanced; the caller is answered only after the commit (durable, as
//! `synchronous_commit` is on). A write whose head moved is answered "not applied" and the
//! caller re-plans it, exactly as after a lost race. If the batch statement fails as a whole
//! (e.g. one write's idempotency key already exists), nothing of it is stored and every write
//! of the batch is retried alone, so each gets its own answer. Two writes of the same game never
//! share a statement: the later ones are applied alone after the batch. A game whose row another
//! transaction holds locked (a result, a case, a write under the row lock) is skipped
//! (`SKIP LOCKED`) and its write answered "not applied", so that one busy game never holds up
//! the batch of all the others; the caller re-plans it and, after repeated misses, waits for the
//! lock on its own ([`crate::Store::write_locking`]).

use std::collections::HashSet;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, Mutex};
use uuid::Uuid;

use crate::error::{StoreError, StoreResult};

/// Batch workers per store: statements in flight at once. One: a batch then holds every write
/// that arrived while the previous one was executed and flushed, so the fewer statements and
/// commits the better at a given load. Measured with `shinpan bench --rate 2000` on the 2-core
/// machine (in-process server, 3 runs each): 1 worker used 15–25% less CPU than 2 for the same
/// latency (p99 6–11 ms against 8–18 ms); more workers made smaller batches still.
pub const WORKERS: usize = 1;

/// Writes per statement at most.
pub const MAX_BATCH: usize = 64;

/// One planned write, flattened to the columns of the statement.
#[derive(Debug, Clone)]
pub(crate) struct BatchRow {
    pub game_id: Uuid,
    pub seq: i64,
    pub kind: String,
    pub payload: Value,
    pub created_at: DateTime<Utc>,
    pub prev_hash: Vec<u8>,
    pub hash: Vec<u8>,
    pub move_number: Option<i32>,
    pub colour: Option<String>,
    pub point: Option<String>,
    pub client_time: Option<DateTime<Utc>>,
    pub key: Option<String>,
    pub request: Value,
    pub response: Value,
    pub set_state: Option<String>,
}

/// The answer for one row: `None` when its game's head had moved (not applied), else the move's
/// `recorded_at` (None for a write without a move).
pub(crate) type Applied = Option<Option<DateTime<Utc>>>;

struct Item {
    row: BatchRow,
    reply: oneshot::Sender<StoreResult<Applied>>,
}

/// The queue of a store's batch workers.
pub(crate) struct Batcher {
    tx: mpsc::UnboundedSender<Item>,
}

impl Batcher {
    /// Starts [`WORKERS`] workers on `pool`, each with a connection of its own besides the pool's
    /// (they end, closing it, when the batcher is dropped or the pool closes). Must be called
    /// within a Tokio runtime.
    pub(crate) fn start(pool: sqlx::PgPool) -> Batcher {
        let (tx, rx) = mpsc::unbounded_channel();
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..WORKERS {
            tokio::spawn(worker(pool.clone(), rx.clone()));
        }
        Batcher { tx }
    }

    /// Stores `row` in the next batch; see the [module docs](self).
    pub(crate) async fn apply(&self, row: BatchRow) -> StoreResult<Applied> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(Item { row, reply }).map_err(|_| StoreError::Unavailable("the store's batch writer has stopped".into()))?;
        answer.await.map_err(|_| StoreError::Unavailable("the store's batch writer stopped before answering".into()))?
    }
}

/// A worker's connection unused for this long is pinged before its next write (a round trip
/// on an idle connection only; under load no batch pays it).
const IDLE_CHECK: std::time::Duration = std::time::Duration::from_secs(1);

/// A worker's own connection (outside the pool): generic plans from the first execution (the
/// statement has only array parameters, so a custom plan is never better, and planning it per
/// execution on every pooled connection cost the first moves of a run tens of milliseconds).
/// Refused on a standby in recovery ([`crate::primary`]).
async fn connect(pool: &sqlx::PgPool) -> StoreResult<sqlx::PgConnection> {
    use sqlx::{ConnectOptions, Executor};
    let mut c = pool.connect_options().connect().await?;
    crate::primary::require_primary(&mut c).await?;
    c.execute("SET plan_cache_mode = force_generic_plan").await?;
    Ok(c)
}

async fn worker(pool: sqlx::PgPool, rx: Arc<Mutex<mpsc::UnboundedReceiver<Item>>>) {
    let closed = pool.close_event();
    tokio::pin!(closed);
    // Connect at once, so the first writes do not wait for it; reconnect after a failure.
    let mut conn = tokio::select! {
        _ = &mut closed => return,
        c = connect(&pool) => c.ok(),
    };
    let mut last_used = std::time::Instant::now();
    loop {
        let mut batch = Vec::new();
        {
            let mut rx = tokio::select! {
                _ = &mut closed => break,
                rx = rx.lock() => rx,
            };
            let first = tokio::select! {
                _ = &mut closed => break,
                m = rx.recv() => match m {
                    Some(m) => m,
                    None => break,
                },
            };
            batch.push(first);
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(m) => batch.push(m),
                    Err(_) => break,
                }
            }
        }
        // A connection idle for a while may have died with the server (a restart): it is
        // checked before a write goes out on it, so the write is not lost to a stale socket.
        if last_used.elapsed() >= IDLE_CHECK {
            if let Some(c) = conn.as_mut() {
                if sqlx::Connection::ping(c).await.is_err() {
                    conn = None;
                }
            }
        }
        if conn.is_none() {
            match connect(&pool).await {
                Ok(c) => conn = Some(c),
                Err(e) => {
                    // nothing was sent: the message says why (e.g. a standby in recovery)
                    let msg = match e {
                        StoreError::Unavailable(m) => m,
                        other => other.to_string(),
                    };
                    for it in batch {
                        let _ = it.reply.send(Err(StoreError::Unavailable(msg.clone())));
                    }
                    continue;
                }
            }
        }
        let c = conn.as_mut().expect("connected above");
        let healthy = run(c, batch).await;
        last_used = std::time::Instant::now();
        if !healthy {
            conn = None; // broken: a new connection for the next batch
        }
    }
    if let Some(c) = conn {
        let _ = sqlx::Connection::close(c).await;
    }
}

/// Stores a batch and answers every item; false if the connection failed.
async fn run(conn: &mut sqlx::PgConnection, batch: Vec<Item>) -> bool {
    let mut healthy = true;
    let mut check = |r: &StoreResult<Vec<Applied>>| {
        if matches!(r, Err(StoreError::Unavailable(_))) {
            healthy = false;
        }
    };
    // One write per game per statement; the others go alone afterwards.
    let mut seen = HashSet::with_capacity(batch.len());
    let (first, later): (Vec<Item>, Vec<Item>) = batch.into_iter().partition(|it| seen.insert(it.row.game_id));
    let rows: Vec<&BatchRow> = first.iter().map(|it| &it.row).collect();
    let r = apply_rows(conn, &rows).await.map_err(unknown_outcome);
    check(&r);
    match r {
        Ok(applied) => {
            for (it, a) in first.into_iter().zip(applied) {
                let _ = it.reply.send(Ok(a));
            }
        }
        Err(_) if first.len() > 1 => {
            // Nothing of the batch was stored: each write alone, for its own answer.
            for it in first {
                let r = apply_rows(conn, &[&it.row]).await.map_err(unknown_outcome);
                check(&r);
                let _ = it.reply.send(r.map(|mut v| v.remove(0)));
            }
        }
        Err(e) => {
            if let Some(it) = first.into_iter().next() {
                let _ = it.reply.send(Err(e));
            }
        }
    }
    for it in later {
        let r = apply_rows(conn, &[&it.row]).await.map_err(unknown_outcome);
        check(&r);
        let _ = it.reply.send(r.map(|mut v| v.remove(0)));
    }
    healthy
}

/// A write that failed for want of the database (the connection broke, the server shut down)
/// may or may not have been committed: the message says so and what to do.
fn unknown_outcome(e: StoreError) -> StoreError {
    match e {
        StoreError::Unavailable(m) => StoreError::Unavailable(format!(
            "{m} (the write may or may not have been stored; with the same idempotency key it is stored once)"
        )),
        other => other,
    }
}

/// The batch statement: for each row, advance its game's head if unchanged, and insert its
/// event, move and idempotency record; one answer per row, in order.
async fn apply_rows(conn: &mut sqlx::PgConnection, rows: &[&BatchRow]) -> StoreResult<Vec<Applied>> {
    let col = |f: fn(&BatchRow) -> Value| -> Vec<Value> { rows.iter().map(|r| f(r)).collect() };
    // arrays of borrowed or optional elements are bound with `as _`: the macro knows only
    // arrays of owned, non-null elements
    let out = sqlx::query!(
        r#"WITH v AS MATERIALIZED (
            SELECT * FROM unnest($1::uuid[], $2::int8[], $3::text[], $4::jsonb[], $5::timestamptz[],
                                 $6::bytea[], $7::bytea[], $8::int4[], $9::text[], $10::text[],
                                 $11::timestamptz[], $12::text[], $13::jsonb[], $14::jsonb[], $15::text[])
                AS v(game_id, seq, kind, payload, created_at, prev_hash, hash, move_number, colour,
                     point, client_time, key, request, response, set_state)
         ), free AS MATERIALIZED (
            -- the batch's games that no other transaction holds locked (locked once, here)
            SELECT id FROM games WHERE id = ANY($1::uuid[]) FOR NO KEY UPDATE SKIP LOCKED
         ), upd AS (
            UPDATE games g SET last_seq = v.seq, last_hash = v.hash,
                   move_count = coalesce(v.move_number, g.move_count),
                   state = coalesce(v.set_state, g.state)
            FROM v JOIN free ON free.id = v.game_id
            WHERE g.id = v.game_id AND g.last_seq = v.seq - 1 AND g.last_hash = v.prev_hash
            RETURNING g.id
         ), ok AS MATERIALIZED (
            SELECT v.* FROM v JOIN upd ON upd.id = v.game_id
         ), ev AS (
            INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash)
            SELECT game_id, seq, kind, payload, created_at, prev_hash, hash FROM ok
         ), mv AS (
            INSERT INTO moves (game_id, move_number, colour, point, client_time, idempotency_key, event_seq)
            SELECT game_id, move_number, colour, point, client_time, key, seq FROM ok
            WHERE move_number IS NOT NULL
            RETURNING game_id, recorded_at
         ), idem AS (
            INSERT INTO idempotency (game_id, key, request, response, move_number, event_seq)
            SELECT game_id, key, request, response, move_number, seq FROM ok
            WHERE key IS NOT NULL
         )
         SELECT ok.game_id AS "game_id!", mv.recorded_at AS "recorded_at?" FROM ok LEFT JOIN mv ON mv.game_id = ok.game_id"#,
        &rows.iter().map(|r| r.game_id).collect::<Vec<_>>(),
        &rows.iter().map(|r| r.seq).collect::<Vec<_>>(),
        rows.iter().map(|r| r.kind.as_str()).collect::<Vec<_>>() as _,
        &col(|r| r.payload.clone()),
        &rows.iter().map(|r| r.created_at).collect::<Vec<_>>(),
        rows.iter().map(|r| r.prev_hash.as_slice()).collect::<Vec<_>>() as _,
        rows.iter().map(|r| r.hash.as_slice()).collect::<Vec<_>>() as _,
        rows.iter().map(|r| r.move_number).collect::<Vec<_>>() as _,
        rows.iter().map(|r| r.colour.as_deref()).collect::<Vec<_>>() as _,
        rows.iter().map(|r| r.point.as_deref()).collect::<Vec<_>>() as _,
        rows.iter().map(|r| r.client_time).collect::<Vec<_>>() as _,
        rows.iter().map(|r| r.key.as_deref()).collect::<Vec<_>>() as _,
        &col(|r| r.request.clone()),
        &col(|r| r.response.clone()),
        rows.iter().map(|r| r.set_state.as_deref()).collect::<Vec<_>>() as _,
    )
    .fetch_all(&mut *conn)
    .await?;
    let done: std::collections::HashMap<Uuid, Option<DateTime<Utc>>> = out.into_iter().map(|r| (r.game_id, r.recorded_at)).collect();
    Ok(rows.iter().map(|r| done.get(&r.game_id).copied()).collect())
}
