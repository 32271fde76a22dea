//! Test harness (feature `testing`): a real PostgreSQL for every test process.
//!
//! If `DATABASE_URL` is set, tests use that server. Otherwise the first call of
//! [`ensure_database_url`] starts a throwaway cluster ([`EmbeddedPostgres`] in ephemeral mode:
//! `initdb` in a temporary directory, `postgres` on a free loopback port, run as the `postgres`
//! user when the tests run as root) once per test process and sets `DATABASE_URL` to it. A
//! watchdog process stops the cluster and removes its directory when the test process exits,
//! however it exits.
//!
//! Because `#[sqlx::test]` reads `DATABASE_URL` when each test starts, a test file that uses it
//! starts the cluster before any test runs with one line at top level:
//!
//! ```ignore
//! shinpan_storage::test_cluster!();
//!
//! #[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]
//! async fn my_test(pool: sqlx::PgPool) {
//!     let store = shinpan_storage::Store::new(pool);
//!     // ...
//! }
//! ```
//!
//! (the test crate needs `sqlx` as a dev-dependency and `shinpan-storage` with feature
//! `testing`). Tests that do not use the macro call [`fresh_pool`] / [`fresh_store`]: a new
//! database with the migrations applied.

use std::sync::{Mutex, OnceLock};

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::Connection;

use crate::embedded::{EmbeddedOptions, EmbeddedPostgres};
use crate::Store;

#[doc(hidden)]
pub use ctor;

static CLUSTER: OnceLock<Mutex<Option<EmbeddedPostgres>>> = OnceLock::new();
static URL: OnceLock<String> = OnceLock::new();

/// The URL of the test server: `DATABASE_URL` if set, else that of a throwaway cluster started
/// now (once per process), which is then exported as `DATABASE_URL`. Panics with the reason (e.g.
/// which Debian package to install) if no server can be had.
pub fn ensure_database_url() -> String {
    URL.get_or_init(|| {
        if let Ok(url) = std::env::var("DATABASE_URL") {
            if !url.is_empty() {
                return url;
            }
        }
        let pg =
            EmbeddedPostgres::start(EmbeddedOptions::ephemeral()).unwrap_or_else(|e| panic!("cannot start a test PostgreSQL cluster: {e}"));
        let url = pg.url("postgres");
        // SAFETY (edition 2024 semantics): called from the ctor before main or under the OnceLock
        // before tests read the variable.
        std::env::set_var("DATABASE_URL", &url);
        CLUSTER.get_or_init(|| Mutex::new(Some(pg)));
        url
    })
    .clone()
}

/// The data directory of this process's throwaway cluster, if one was started.
pub fn cluster_dir() -> Option<std::path::PathBuf> {
    let m = CLUSTER.get()?;
    let g = m.lock().unwrap_or_else(|p| p.into_inner());
    g.as_ref().map(|pg| pg.data_dir().to_path_buf())
}

/// Start the test cluster before `main` (and so before `#[sqlx::test]` reads `DATABASE_URL`).
/// Put `shinpan_storage::test_cluster!();` once at the top level of each test file (integration
/// test crate) that uses `#[sqlx::test]`.
#[macro_export]
macro_rules! test_cluster {
    () => {
        #[$crate::testing::ctor::ctor(unsafe, crate_path = $crate::testing::ctor)]
        fn __shinpan_storage_test_cluster() {
            let _ = $crate::testing::ensure_database_url();
        }
    };
}

/// A pool on a new, empty database of the test server with the migrations applied. The
/// database is named `shinpan_fresh_<uuid>`; it disappears with a throwaway cluster (with an
/// external `DATABASE_URL` it is left behind).
pub async fn fresh_pool() -> PgPool {
    let url = ensure_database_url();
    let opts: PgConnectOptions = url.parse().expect("DATABASE_URL parses");
    let name = format!("shinpan_fresh_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect_with(&opts).await.expect("connect to the test server");
    // dynamic: the database's name is an identifier, which cannot be a bind parameter
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\""))).execute(&mut admin).await.expect("create test database");
    let _ = admin.close().await;
    let pool = PgPoolOptions::new().max_connections(20).connect_with(opts.database(&name)).await.expect("connect to the fresh database");
    crate::migrate(&pool).await.expect("migrations apply");
    pool
}

/// A [`Store`] on a [`fresh_pool`].
pub async fn fresh_store() -> Store {
    Store::new(fresh_pool().await)
}

/// Stop the throwaway cluster now (normally the watchdog does it after the process exits).
pub fn stop_cluster() {
    if let Some(m) = CLUSTER.get() {
        if let Some(pg) = m.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = pg.stop();
        }
    }
}
