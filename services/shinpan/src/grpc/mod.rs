//! The gRPC services of shinpan (package `shinpan.v1`, see `proto/`).
//!
//! * [`recording`]: `GameRecordingService` — games, moves, the event log, SGF import/export.
//! * [`validation`]: `RuleValidationService` — stateless legality checks by the rules engine.
//! * [`convert`]: protobuf ⇄ rules-engine conversions and request checks.
//!
//! Every service shares one [`AppState`].

// `ApiError` carries rich details (a foul's rule, article, point...); errors are the cold
// path, so returning it by value is fine.
#![allow(clippy::result_large_err)]

pub mod adjudication;
pub mod arbitration;
pub mod convert;
pub mod recording;
pub mod results;
pub mod validation;

use shinpan_storage::Store;
use validation::Validator;

/// What every service needs: the store (absent for a validation-only process) and the
/// validator the recording service checks moves with.
#[derive(Clone)]
pub struct AppState {
    /// The PostgreSQL store (all SQL lives in `shinpan-storage`).
    pub store: Option<Store>,
    /// In-process or remote `RuleValidationService`.
    pub validator: Validator,
    /// Becomes `true` when the server begins to shut down: open `WatchGame` streams end
    /// (with UNAVAILABLE) so that the graceful shutdown does not wait for them forever.
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    /// The largest node budget per region an adjudication may ask for
    /// ([`crate::configuration::ServeArgs::max_budget_nodes`]).
    pub max_budget_nodes: u64,
    /// Adjudications searching at once, at most one per core: the others wait their turn
    /// instead of sharing the cores (and memory) with them.
    pub searches: std::sync::Arc<tokio::sync::Semaphore>,
    /// Time and memory bounds of every adjudication's search.
    pub search_limits: adjudication::SearchLimits,
    /// The per-caller rate limit of the expensive calls ([`crate::ratelimit`]).
    pub expensive: crate::ratelimit::ExpensiveCalls,
}

impl AppState {
    /// The store, or UNAVAILABLE when this process runs without one.
    pub fn store(&self) -> Result<&Store, crate::error::ApiError> {
        self.store.as_ref().ok_or_else(|| crate::error::ApiError::Unavailable("this process has no database".into()))
    }

    /// Runs a search of the adjudicator (`f`) on a blocking thread once a core is free
    /// ([`AppState::searches`]: one search per core at a time, the others wait), for every
    /// service that adjudicates.
    ///
    /// # Errors
    /// `INTERNAL` if the search thread panicked.
    pub async fn search<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> Result<T, tonic::Status> {
        let internal = |e: String| tonic::Status::from(crate::error::ApiError::Internal(format!("adjudication: {e}")));
        let permit = self.searches.clone().acquire_owned().await.map_err(|e| internal(e.to_string()))?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            f()
        })
        .await
        .map_err(|e| internal(e.to_string()))
    }
}
