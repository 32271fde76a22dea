//! # shinpan-application — the application layer of shinpan
//!
//! The referee's domain and use cases — record a move, resign, end play, propose a result and
//! count it, confirm it, object to it, open and rule an arbiter's case, export the results,
//! adjudicate a position, validate moves — over the store (`shinpan-storage`) and the pure
//! crates (`goban`, `shinpan-sgf`, `shinpan-adjudicator`).
//!
//! Use cases:
//! * [`recording`]: games, moves, the event log, SGF import/export.
//! * [`results`]: the result lifecycle (第九条–第十二条): propose, confirm, object, export, correct.
//! * [`arbitration`]: the arbiter's cases and rulings.
//! * [`adjudication`]: life and death by hypothetical play (第七条) and the count.
//! * [`validation`]: stateless legality checks by the rules engine; [`validator`]: how
//!   recording checks a move (in-process, or over gRPC by a remote validation service).
//! * [`games`], [`count`], [`cases`], [`events`]: what the use cases share (a stored game with
//!   its tournament, its phase, its reconstruction; the count of a final position; the names
//!   rulings are stored under; stored events and the log's audit payloads).
//!
//! Domain: [`lifecycle`] (the result lifecycle and rulings as pure functions), [`auth`] (roles,
//! tokens and their rules), [`archive`] (reconstruction, SGF and EGF export), [`proposal`] and
//! [`estimate`] (the advisory proposal, 第九条), [`limits`] (what a request may carry),
//! [`ratelimit`] (the expensive calls), [`error`] ([`AppError`]), [`convert`] (the checks of a
//! request's values, the start of a game).
//!
//! The layering rule: this crate knows nothing of the transports nor of the protocol (it
//! depends on neither tonic nor prost nor the generated messages) — the gRPC services, their
//! protobuf messages, the interceptors (bearer tokens, trace context, the caller of a rate
//! limit), the console and the command line live in the `shinpan` crate, which depends on
//! this one and never the other way. The transports decode a request into a use case's
//! command, call the use case and encode its answer; every use case takes commands and
//! answers in the domain's types, and fails with the one error enum [`AppError`], which the
//! transport maps once to a gRPC status (`shinpan::error::status`; the table is in
//! [`error`]). What the use cases need of the protocol is a port the transport fills: the
//! remote [`validator`] ([`validator::RemoteValidation`]) and the stored answers of
//! `RecordMove` ([`recording::AnswerCodec`]).

// `AppError` carries rich details (a foul's rule, article, point...); errors are the cold
// path, so returning it by value is fine.
#![allow(clippy::result_large_err)]

pub mod adjudication;
pub mod arbitration;
pub mod archive;
pub mod auth;
pub mod cases;
pub mod convert;
pub mod count;
pub mod error;
pub mod estimate;
pub mod events;
pub mod games;
pub mod lifecycle;
pub mod limits;
pub mod proposal;
pub mod ratelimit;
pub mod recording;
pub mod results;
pub mod validation;
pub mod validator;

pub use crate::error::AppError;

use shinpan_storage::Store;
use validator::Validator;

/// Default node budget per region of an adjudication (a search of `shinpan-adjudicator`)
/// when a request or the command line gives none: the one default of the service and the
/// command line (`shinpan adjudicate`, `score`, `propose`) and of the count of a result
/// proposed without dead stones.
pub const DEFAULT_BUDGET: u64 = 500_000;

/// What every use case needs: the store (absent for a validation-only process), the
/// validator recording checks moves with, and the bounds of the searches.
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
    /// (`shinpan serve --max-budget`).
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
    pub fn store(&self) -> Result<&Store, AppError> {
        self.store.as_ref().ok_or_else(|| AppError::Unavailable("this process has no database".into()))
    }

    /// Runs a search of the adjudicator (`f`) on a blocking thread once a core is free
    /// ([`AppState::searches`]: one search per core at a time, the others wait), for every
    /// use case that adjudicates.
    ///
    /// # Errors
    /// `INTERNAL` if the search thread panicked.
    pub async fn search<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> Result<T, AppError> {
        let internal = |e: String| AppError::Internal(format!("adjudication: {e}"));
        let permit = self.searches.clone().acquire_owned().await.map_err(|e| internal(e.to_string()))?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            f()
        })
        .await
        .map_err(|e| internal(e.to_string()))
    }
}

/// `PERMISSION_DENIED` for `what`, refused to the caller `c` (logged with who tried what:
/// [`crate::auth::denial`]).
pub fn denied(c: &crate::auth::Claims, what: &str) -> AppError {
    AppError::PermissionDenied(crate::auth::denial(c, what))
}
