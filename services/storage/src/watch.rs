//! Live event streams for `WatchGame`: PostgreSQL `NOTIFY` on every event insert (trigger
//! `events_notify`, channel [`CHANNEL`], payload `"<game uuid>:<seq>"`) fanned out by one
//! `PgListener` per [`Store`] to every watcher.
//!
//! Notifications are only wake-ups: a watcher always reads the events themselves from the table
//! (`seq > last seen`), so a lost or coalesced notification (listener reconnect, lag) costs a
//! re-read, never an event. A stream therefore yields each event of the game exactly once, in
//! `seq` order, with no gaps.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use sqlx::postgres::PgListener;
use tokio::sync::{broadcast, mpsc, oneshot};
use uuid::Uuid;

use crate::error::{StoreError, StoreResult};
use crate::model::StoredEvent;
use crate::store::Store;

/// The NOTIFY channel announcing new events.
pub const CHANNEL: &str = "shinpan_events";

/// Events read from the table per query while catching up.
const BATCH: i64 = 500;

#[derive(Debug, Clone, Copy)]
enum Wake {
    /// A new event of a game (game, seq).
    Event(Uuid, i64),
    /// Notifications may have been lost: every watcher re-reads.
    Resync,
    /// The listener stopped (its pool was closed).
    Stopped,
}

/// One LISTEN connection shared by every watcher of a store.
pub(crate) struct EventHub {
    tx: broadcast::Sender<Wake>,
    alive: Arc<AtomicBool>,
    _stop: oneshot::Sender<()>,
}

impl EventHub {
    async fn start(store: &Store) -> StoreResult<Arc<EventHub>> {
        let mut listener = PgListener::connect_with(&store.pool).await?;
        listener.listen(CHANNEL).await?;
        let (tx, _) = broadcast::channel(4096);
        let (stop_tx, mut stop_rx) = oneshot::channel::<()>();
        let alive = Arc::new(AtomicBool::new(true));
        let task_tx = tx.clone();
        let task_alive = alive.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = &mut stop_rx => break,
                    r = listener.try_recv() => match r {
                        Ok(Some(n)) => {
                            if let Some((g, s)) = n.payload().split_once(':') {
                                if let (Ok(g), Ok(s)) = (g.parse::<Uuid>(), s.parse::<i64>()) {
                                    let _ = task_tx.send(Wake::Event(g, s));
                                    continue;
                                }
                            }
                            let _ = task_tx.send(Wake::Resync);
                        }
                        Ok(None) => {
                            tracing::warn!("event listener reconnected; watchers re-read");
                            let _ = task_tx.send(Wake::Resync);
                        }
                        Err(sqlx::Error::PoolClosed) => break,
                        Err(e) => {
                            tracing::warn!(error = %e, "event listener failed; retrying");
                            let _ = task_tx.send(Wake::Resync);
                            tokio::time::sleep(Duration::from_millis(500)).await;
                        }
                    }
                }
            }
            task_alive.store(false, Ordering::SeqCst);
            let _ = task_tx.send(Wake::Stopped);
        });
        Ok(Arc::new(EventHub { tx, alive, _stop: stop_tx }))
    }
}

/// A live stream of one game's events (see [`Store::watch`]).
pub type EventStream = std::pin::Pin<Box<dyn Stream<Item = StoreResult<StoredEvent>> + Send + 'static>>;

impl Store {
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
    /// then each new event as its transaction commits, in order, without gaps or repeats, until
    /// the stream is dropped. It ends with an error item ([`StoreError::Unavailable`]) if the
    /// database fails. Errors (before streaming): [`StoreError::NotFound`] for an unknown game,
    /// [`StoreError::Unavailable`] when LISTEN cannot be set up.
    pub async fn watch(&self, game_id: Uuid, after_seq: i64) -> StoreResult<EventStream> {
        let hub = self.hub().await?;
        // Subscribe before the first read so no event committed in between is missed.
        let mut wake = hub.tx.subscribe();
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
                loop {
                    tokio::select! {
                        _ = out.closed() => return,
                        w = wake.recv() => match w {
                            Ok(Wake::Event(g, s)) if g == game_id && s > last => break,
                            Ok(Wake::Event(..)) => continue,
                            Ok(Wake::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => break,
                            Ok(Wake::Stopped) | Err(broadcast::error::RecvError::Closed) => {
                                let _ = out.send(Err(StoreError::Unavailable("event listener stopped".into()))).await;
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
