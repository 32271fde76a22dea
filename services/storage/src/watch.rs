//! Live event streams for `WatchGame`.
//!
//! Every write of the store, once committed, *announces* the game's new last `seq`: at once to
//! the watchers in this process, and to every other process through PostgreSQL
//! `NOTIFY shinpan_events` ([`CHANNEL`]; payload: comma-separated `"<game uuid>:<seq>"` entries,
//! coalesced per game), sent by a background task on its own autocommit statements. One
//! `PgListener` per [`Store`] receives the notifications of all processes.
//!
//! Why not `NOTIFY` from a trigger in the writing transaction: PostgreSQL serializes the commits
//! of all transactions that issued a `NOTIFY` (a global lock held through the WAL flush), which
//! caps durable recording at one fsync per move (~450 moves/s on this machine's disk, against
//! ~2,300 without it). Migration 4 drops that trigger.
//!
//! Announcements are only wake-ups: a watcher always reads the events themselves from the table
//! (`seq > last seen`), and re-reads every [`POLL_INTERVAL`] even without a wake-up, so a lost
//! notification (a crash between commit and announcement, a listener reconnect, lag, a row
//! inserted by hand) delays an event by at most that interval and never loses it. A stream yields
//! each event of the game exactly once, in `seq` order, without gaps.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use sqlx::postgres::PgListener;
use tokio::sync::{broadcast, mpsc, oneshot};
use uuid::Uuid;

use crate::error::{StoreError, StoreResult};
use crate::model::StoredEvent;
use crate::store::{EventHub, Store, Wake};

/// The NOTIFY channel announcing new events.
pub const CHANNEL: &str = "shinpan_events";

/// A watcher re-reads the log at least this often, wake-up or not.
pub const POLL_INTERVAL: Duration = Duration::from_secs(2);

/// Events read from the table per query while catching up.
const BATCH: i64 = 500;

/// How long announcements are gathered before they are sent as one NOTIFY.
pub const NOTIFY_COALESCE: Duration = Duration::from_millis(5);

/// Entries per NOTIFY payload (each at most 57 bytes; PostgreSQL allows 8000).
const ENTRIES_PER_NOTIFY: usize = 120;

/// Parse a NOTIFY payload: comma-separated `"<uuid>:<seq>"`.
pub(crate) fn parse_payload(payload: &str) -> Option<Vec<(Uuid, i64)>> {
    payload
        .split(',')
        .filter(|e| !e.is_empty())
        .map(|e| {
            let (g, s) = e.split_once(':')?;
            Some((g.parse().ok()?, s.parse().ok()?))
        })
        .collect()
}

impl EventHub {
    async fn start(store: &Store) -> StoreResult<Arc<EventHub>> {
        let mut listener = PgListener::connect_with(&store.pool).await?;
        listener.listen(CHANNEL).await?;
        let (stop_tx, mut stop_rx) = oneshot::channel::<()>();
        let alive = Arc::new(AtomicBool::new(true));
        let wake = store.wake.clone();
        let task_alive = alive.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = &mut stop_rx => break,
                    r = listener.try_recv() => match r {
                        Ok(Some(n)) => match parse_payload(n.payload()) {
                            Some(entries) => {
                                for (g, s) in entries {
                                    let _ = wake.send(Wake::Event(g, s));
                                }
                            }
                            None => {
                                let _ = wake.send(Wake::Resync);
                            }
                        },
                        Ok(None) => {
                            tracing::warn!("event listener reconnected; watchers re-read");
                            let _ = wake.send(Wake::Resync);
                        }
                        Err(sqlx::Error::PoolClosed) => break,
                        Err(e) => {
                            tracing::warn!(error = %e, "event listener failed; retrying");
                            let _ = wake.send(Wake::Resync);
                            tokio::time::sleep(Duration::from_millis(500)).await;
                        }
                    }
                }
            }
            task_alive.store(false, Ordering::SeqCst);
        });
        Ok(Arc::new(EventHub { alive, _stop: stop_tx }))
    }
}

/// A live stream of one game's events (see [`Store::watch`]).
pub type EventStream = std::pin::Pin<Box<dyn Stream<Item = StoreResult<StoredEvent>> + Send + 'static>>;

impl Store {
    /// Announce that `game_id`'s log now ends at `seq`: wakes this process's watchers and queues
    /// a NOTIFY for other processes. Must be called from within a Tokio runtime.
    pub(crate) fn announce(&self, game_id: Uuid, seq: i64) {
        let _ = self.wake.send(Wake::Event(game_id, seq));
        let tx = self.notifier.get_or_init(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(notifier(self.pool.clone(), rx));
            tx
        });
        let _ = tx.send((game_id, seq));
    }

    /// Commit `tx` and announce the game's new last event.
    pub(crate) async fn commit_announce(&self, mut tx: sqlx::Transaction<'_, sqlx::Postgres>, game_id: Uuid) -> StoreResult<()> {
        let seq: i64 = sqlx::query_scalar!("SELECT last_seq FROM games WHERE id = $1", game_id).fetch_one(&mut *tx).await?;
        tx.commit().await?;
        self.announce(game_id, seq);
        Ok(())
    }

    async fn hub(&self) -> StoreResult<Arc<EventHub>> {
        let mut slot = self.hub.lock().await;
        if let Some(h) = slot.as_ref() {
            if h.alive.load(Ordering::SeqCst) {
                return Ok(h.clone());
            }
        }
        let h = EventHub::start(self).await?;
        *slot = Some(h.clone());
        Ok(h)
    }

    /// Follow a game's log: the stream yields every event with `seq > after_seq` already stored,
    /// then each new event soon after its transaction commits — whichever process wrote it — in
    /// order, without gaps or repeats, until the stream is dropped. It ends with an error item
    /// ([`StoreError::Unavailable`]) if the database fails. Errors (before streaming):
    /// [`StoreError::NotFound`] for an unknown game, [`StoreError::Unavailable`] when LISTEN cannot
    /// be set up.
    pub async fn watch(&self, game_id: Uuid, after_seq: i64) -> StoreResult<EventStream> {
        let hub = self.hub().await?;
        // Subscribe before the first read so no event committed in between is missed.
        let mut wake = self.wake.subscribe();
        self.get_game(game_id).await?;
        let (out, rx) = mpsc::channel::<StoreResult<StoredEvent>>(256);
        let store = self.clone();
        tokio::spawn(async move {
            let _hub = hub; // keep the listener alive while watching
            let mut last = after_seq;
            loop {
                loop {
                    match store.events_since(game_id, last, BATCH).await {
                        Ok(events) => {
                            let n = events.len() as i64;
                            for e in events {
                                last = e.seq;
                                if out.send(Ok(e)).await.is_err() {
                                    return;
                                }
                            }
                            if n < BATCH {
                                break;
                            }
                        }
                        Err(e) => {
                            let _ = out.send(Err(e)).await;
                            return;
                        }
                    }
                }
                let poll = tokio::time::sleep(POLL_INTERVAL);
                tokio::pin!(poll);
                loop {
                    tokio::select! {
                        _ = out.closed() => return,
                        _ = &mut poll => break,
                        w = wake.recv() => match w {
                            Ok(Wake::Event(g, s)) if g == game_id && s > last => break,
                            Ok(Wake::Event(..)) => continue,
                            Ok(Wake::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => break,
                            Err(broadcast::error::RecvError::Closed) => {
                                let _ = out.send(Err(StoreError::Unavailable("event hub stopped".into()))).await;
                                return;
                            }
                        }
                    }
                }
            }
        });
        Ok(Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx)))
    }
}

/// Sends queued announcements as NOTIFYs, coalescing per game; ends when the store is dropped or
/// its pool closed. Failures are logged and dropped (watchers poll).
///
/// Cost per move matters here (the NOTIFY runs beside every recorded move): announcements are
/// gathered for [`NOTIFY_COALESCE`] after the first one and sent as one statement, and they go
/// over a connection of their own (outside the pool) with `synchronous_commit = off`. A NOTIFY
/// transaction gets a transaction id and so a commit record; a wake-up has nothing worth an
/// fsync (the events it announces are already durably committed), and waiting for one would
/// hold a pooled connection for a disk flush. The moves' own transactions keep
/// `synchronous_commit` on.
async fn notifier(pool: sqlx::PgPool, mut rx: mpsc::UnboundedReceiver<(Uuid, i64)>) {
    use sqlx::{ConnectOptions, Executor};
    let mut conn: Option<sqlx::PgConnection> = None;
    let closed = pool.close_event();
    tokio::pin!(closed);
    loop {
        let (g, s) = tokio::select! {
            _ = &mut closed => break,
            m = rx.recv() => match m {
                Some(m) => m,
                None => break,
            },
        };
        tokio::time::sleep(NOTIFY_COALESCE).await;
        let mut latest: HashMap<Uuid, i64> = HashMap::new();
        latest.insert(g, s);
        while latest.len() < 10_000 {
            match rx.try_recv() {
                Ok((g, s)) => {
                    let e = latest.entry(g).or_insert(s);
                    *e = (*e).max(s);
                }
                Err(_) => break,
            }
        }
        if conn.is_none() {
            match pool.connect_options().connect().await {
                Ok(mut c) => match crate::primary::require_primary(&mut c).await {
                    Ok(()) => match c.execute("SET synchronous_commit = off").await {
                        Ok(_) => conn = Some(c),
                        Err(e) => tracing::debug!(error = %e, "notifier connection setup failed; watchers will poll"),
                    },
                    Err(e) => tracing::debug!(error = %e, "notifier connection refused; watchers will poll"),
                },
                Err(e) => tracing::debug!(error = %e, "notifier cannot connect; watchers will poll"),
            }
        }
        let Some(c) = conn.as_mut() else { continue };
        let entries: Vec<String> = latest.into_iter().map(|(g, s)| format!("{g}:{s}")).collect();
        for chunk in entries.chunks(ENTRIES_PER_NOTIFY) {
            let payload = chunk.join(",");
            if let Err(e) = sqlx::query!("SELECT pg_notify($1, $2)", CHANNEL, &payload).fetch_one(&mut *c).await {
                tracing::debug!(error = %e, "NOTIFY failed; watchers will poll");
                conn = None; // reconnect on the next announcement
                break;
            }
        }
    }
    if let Some(c) = conn {
        let _ = sqlx::Connection::close(c).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_round_trip() {
        let a = Uuid::from_u128(1);
        let b = Uuid::from_u128(2);
        assert_eq!(parse_payload(&format!("{a}:5,{b}:12")), Some(vec![(a, 5), (b, 12)]));
        assert_eq!(parse_payload(&format!("{a}:5,junk")), None);
        assert_eq!(parse_payload(""), Some(vec![]));
    }
}
