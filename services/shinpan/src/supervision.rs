//! What `shinpan serve` watches while it serves: the embedded PostgreSQL it started
//! ([`supervise_embedded`]: reaped and restarted with backoff when its postmaster dies) and
//! the store's reachability ([`watch_store`]: gRPC health `NOT_SERVING` for every service
//! while the database does not answer, `SERVING` again when it does). Each change is logged.
//! Both tasks end when the application's shutdown signal turns `true`; [`StoreHealth`] is
//! the health state they share.

use shinpan_storage::{EmbeddedPostgres, Store};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tonic_health::server::HealthReporter;
use tonic_health::ServingStatus;

/// How often the supervisor looks whether the embedded postmaster is still running.
pub const SUPERVISE_EVERY: Duration = Duration::from_millis(500);

/// The first wait between two restart attempts of the embedded PostgreSQL; it doubles after
/// each failed attempt up to [`RESTART_BACKOFF_MAX`].
pub const RESTART_BACKOFF_MIN: Duration = Duration::from_millis(250);

/// The longest wait between two restart attempts.
pub const RESTART_BACKOFF_MAX: Duration = Duration::from_secs(10);

/// How often the store is pinged for the health status.
pub const HEALTH_EVERY: Duration = Duration::from_secs(1);

/// How long one ping of the store may take before the store counts as unreachable.
pub const PING_TIMEOUT: Duration = Duration::from_secs(2);

/// Waits `d` or until shutdown; whether shutdown came.
async fn sleep_or_stop(d: Duration, stop: &mut watch::Receiver<bool>) -> bool {
    if *stop.borrow() {
        return true;
    }
    tokio::select! {
        _ = tokio::time::sleep(d) => *stop.borrow(),
        r = stop.changed() => r.is_err() || *stop.borrow(),
    }
}

/// Supervises an embedded cluster this process started: every [`SUPERVISE_EVERY`] it
/// reaps the postmaster if it exited ([`EmbeddedPostgres::try_reap`]) and then restarts it
/// ([`EmbeddedPostgres::restart`], in a blocking task) until that succeeds, waiting
/// [`RESTART_BACKOFF_MIN`] doubling to [`RESTART_BACKOFF_MAX`] between attempts. Logs the
/// exit (ERROR), each failed attempt (WARN) and the restart (INFO, with the time since the
/// exit was noticed). The exit turns `health` down at once ([`StoreHealth::down`]);
/// [`watch_store`] turns it up once the restarted server answers. Returns when `stop` turns
/// `true`.
pub async fn supervise_embedded(cluster: Arc<Mutex<EmbeddedPostgres>>, health: Arc<StoreHealth>, mut stop: watch::Receiver<bool>) {
    loop {
        if sleep_or_stop(SUPERVISE_EVERY, &mut stop).await {
            return;
        }
        let exited = match cluster.lock() {
            Ok(mut c) => c.try_reap(),
            Err(_) => return,
        };
        let Some(status) = exited else { continue };
        tracing::error!(%status, "embedded PostgreSQL exited; restarting it");
        if *stop.borrow() {
            return;
        }
        health.down("the embedded PostgreSQL exited").await;
        let noticed = Instant::now();
        let mut backoff = RESTART_BACKOFF_MIN;
        for attempt in 1u32.. {
            let c = cluster.clone();
            let result = tokio::task::spawn_blocking(move || match c.lock() {
                Ok(mut c) => c.restart().map_err(|e| e.to_string()),
                Err(_) => Err("the cluster's lock is poisoned".to_string()),
            })
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
            match result {
                Ok(()) => {
                    tracing::info!(attempt, after_ms = noticed.elapsed().as_millis() as u64, "embedded PostgreSQL is running again");
                    break;
                }
                Err(error) => {
                    let error: String = error.chars().take(2000).collect();
                    tracing::warn!(attempt, %error, retry_in_ms = backoff.as_millis() as u64, "restarting embedded PostgreSQL failed");
                }
            }
            if sleep_or_stop(backoff, &mut stop).await {
                return;
            }
            backoff = (backoff * 2).min(RESTART_BACKOFF_MAX);
        }
    }
}

/// The health of the store as gRPC health shows it: `SERVING` for `""` and every served
/// service while the store answers, `NOT_SERVING` from the moment it is found unreachable
/// ([`StoreHealth::down`]) until a ping answers again ([`StoreHealth::up`]). Shared by
/// [`watch_store`] and [`supervise_embedded`]; only changes are applied and logged.
pub struct StoreHealth {
    health: HealthReporter,
    services: Vec<&'static str>,
    down_since: tokio::sync::Mutex<Option<Instant>>,
}

impl StoreHealth {
    /// Health of `""` and `services` through `health`, taken to be `SERVING` now.
    pub fn new(health: HealthReporter, services: Vec<&'static str>) -> Arc<StoreHealth> {
        Arc::new(StoreHealth { health, services, down_since: tokio::sync::Mutex::new(None) })
    }

    /// The store is unreachable (`why`): `NOT_SERVING` everywhere (logged at WARN).
    pub async fn down(&self, why: &str) {
        let mut since = self.down_since.lock().await;
        if since.is_none() {
            tracing::warn!(why, "the database is unreachable: health NOT_SERVING");
            set_all(&self.health, &self.services, ServingStatus::NotServing).await;
            *since = Some(Instant::now());
        }
    }

    /// The store answers: `SERVING` everywhere again (logged at INFO, with how long it was
    /// unreachable).
    pub async fn up(&self) {
        let mut since = self.down_since.lock().await;
        if let Some(t) = since.take() {
            tracing::info!(down_ms = t.elapsed().as_millis() as u64, "the database answers again: health SERVING");
            set_all(&self.health, &self.services, ServingStatus::Serving).await;
        }
    }
}

/// Sets `status` for `""` and every name in `services`.
pub async fn set_all(health: &HealthReporter, services: &[&'static str], status: ServingStatus) {
    for name in services {
        health.set_service_status(*name, status).await;
    }
    health.set_service_status("", status).await;
}

/// Pings `store` every [`HEALTH_EVERY`] (each ping bounded by [`PING_TIMEOUT`]) and keeps
/// `health` in step ([`StoreHealth::down`] on a failed ping, with the error;
/// [`StoreHealth::up`] on one that answers). A ping that only waited for a connection of a
/// pool whose every connection is in use changes nothing (the database is busy, not gone:
/// a pool on a server that went away loses its connections at once). Returns when `stop`
/// turns `true`, without touching health after that.
pub async fn watch_store(store: Store, health: Arc<StoreHealth>, mut stop: watch::Receiver<bool>) {
    loop {
        if sleep_or_stop(HEALTH_EVERY, &mut stop).await {
            return;
        }
        let ping = match tokio::time::timeout(PING_TIMEOUT, store.ping()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {PING_TIMEOUT:?}")),
        };
        let pool = store.pool();
        if ping.is_err() && pool.num_idle() == 0 && pool.size() >= pool.options().get_max_connections() {
            tracing::debug!("every pooled connection is in use: the health ping waited");
            continue;
        }
        if *stop.borrow() {
            return;
        }
        match ping {
            Ok(()) => health.up().await,
            Err(error) => health.down(&error).await,
        }
    }
}
