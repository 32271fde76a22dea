//! Only a primary is written to. Every connection the store opens (its pool's, the batch
//! writer's, the NOTIFY sender's) first asks `SELECT pg_is_in_recovery()` and is refused when
//! the server is a standby in recovery.
//!
//! Why: a `postgres://` URL names one host (sqlx has no `target_session_attrs`). When the
//! primary changes, the name (a Kubernetes `-rw` Service, a proxy) can still lead to a server
//! that is, or has just become, a standby: the old primary restarted as a replica, or the new
//! one before its promotion has finished. A standby accepts connections and reads, and
//! refuses writes with "cannot execute … in a read-only transaction" only once a write is
//! tried. Refusing such a connection when it is opened keeps it out of the pool, so the store
//! comes back by itself as soon as the name leads to the primary again, without a restart.
//!
//! What callers see meanwhile: the pool retries a refused connection with back-off until its
//! acquire timeout (5 s, [`crate::Store::connect_with`]) and then fails the call; a call of
//! the batch writer fails at once. Either is [`StoreError::Unavailable`] with [`IN_RECOVERY`]
//! in its message (`UNAVAILABLE` in gRPC).

use crate::error::{StoreError, StoreResult};

pub use crate::error::IN_RECOVERY;
use crate::error::LAST_REFUSAL;

/// Refuses `conn` with [`StoreError::Unavailable`] ([`IN_RECOVERY`]) when its server is in
/// recovery; errors of the query itself as usual.
pub(crate) async fn require_primary(conn: &mut sqlx::PgConnection) -> StoreResult<()> {
    let in_recovery: bool = sqlx::query_scalar!(r#"SELECT pg_is_in_recovery() AS "in_recovery!""#).fetch_one(&mut *conn).await?;
    if in_recovery {
        *LAST_REFUSAL.lock().unwrap_or_else(|p| p.into_inner()) = Some(std::time::Instant::now());
        return Err(StoreError::Unavailable(IN_RECOVERY.into()));
    }
    Ok(())
}

/// [`require_primary`] as the pool's `after_connect` hook wants it.
pub(crate) async fn require_primary_hook(conn: &mut sqlx::PgConnection) -> Result<(), sqlx::Error> {
    match require_primary(conn).await {
        Ok(()) => Ok(()),
        Err(StoreError::Unavailable(m)) if m == IN_RECOVERY => {
            Err(sqlx::Error::Io(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, IN_RECOVERY)))
        }
        // the query failed: the connection is unusable, and the pool retries as for any other
        Err(e) => Err(sqlx::Error::Io(std::io::Error::other(e.to_string()))),
    }
}
