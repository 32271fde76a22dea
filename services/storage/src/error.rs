//! [`StoreError`]: the one error type of every storage call.

use thiserror::Error;

/// SQLSTATE raised by the immutability triggers of the migrations (第十条).
pub const SQLSTATE_IMMUTABLE: &str = "SH010";

/// Every failure of a storage call. The services map it to a gRPC status:
///
/// | variant | gRPC code |
/// |---|---|
/// | `NotFound` | `NOT_FOUND` |
/// | `AlreadyExists` | `ALREADY_EXISTS` |
/// | `Conflict` | `FAILED_PRECONDITION` (carry `current_move_number` in the details) |
/// | `FailedPrecondition` | `FAILED_PRECONDITION` |
/// | `Immutable` | `FAILED_PRECONDITION` (第十条: the record is final) |
/// | `InvalidArgument` | `INVALID_ARGUMENT` |
/// | `Unavailable` | `UNAVAILABLE` (the database cannot be reached, or is a standby in recovery; the message says to retry the call) |
/// | `Other` | `INTERNAL` |
#[derive(Debug, Error)]
pub enum StoreError {
    /// The named row does not exist (game, tournament, player, result, case, ...).
    #[error("not found: {0}")]
    NotFound(String),
    /// A row with the same unique key exists (tournament name, table of a round, confirmation
    /// of the same role, ...), or an idempotency key was reused for a different request
    /// ([`Exists::IdempotencyKey`]).
    #[error("already exists: {0}")]
    AlreadyExists(Exists),
    /// A move was sent out of sequence: the caller expected move number `expected`, but
    /// `current_move_number` moves are already recorded, so the next move is number
    /// `current_move_number + 1` (exactly-once recording: the client retries with the right number).
    #[error("move {expected} is out of sequence: {current_move_number} moves are recorded")]
    Conflict {
        /// The number of moves recorded so far (the number of the last recorded move; 0 if none).
        current_move_number: i32,
        /// The move number the caller expected to record.
        expected: i32,
    },
    /// The call is valid but the game, result or case is not in a state that allows it (e.g. a
    /// move on a game that has ended, [`Precondition::GameState`]; a ruling on a closed case).
    #[error("failed precondition: {0}")]
    FailedPrecondition(Precondition),
    /// The database refused to change an immutable row: moves and events are append-only, and a
    /// final result and its confirmations never change (第十条). [`Immutability::Final`] when
    /// the game or result is final.
    #[error("immutable: {0}")]
    Immutable(Immutability),
    /// A value the database's constraints reject (bad SGF point, unknown state, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The database cannot be reached, is shutting down, or is a standby in recovery
    /// ([`crate::primary`]); the call may be retried.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Anything else (a bug, a corrupt row, a migration failure).
    #[error("storage error: {0}")]
    Other(String),
}

/// What exists already, in a [`StoreError::AlreadyExists`]. `Display` gives the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exists {
    /// An idempotency key was used before for a different request (a game created with the
    /// key, or a write of the game with it).
    IdempotencyKey(String),
    /// Any other row with the same unique key (tournament name, table of a round, confirmation of
    /// the same role, a correction of the same result, ...).
    Row(String),
}

impl std::fmt::Display for Exists {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exists::IdempotencyKey(m) | Exists::Row(m) => f.write_str(m),
        }
    }
}

impl std::ops::Deref for Exists {
    type Target = str;
    /// The message.
    fn deref(&self) -> &str {
        match self {
            Exists::IdempotencyKey(m) | Exists::Row(m) => m,
        }
    }
}

impl From<String> for Exists {
    fn from(m: String) -> Self {
        Exists::Row(m)
    }
}

/// Which precondition failed, in a [`StoreError::FailedPrecondition`]. `Display` gives the
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Precondition {
    /// The game is not in the state the write requires (a move needs `playing`; play is over
    /// when it is `ended` or `final`, 第九条/第十条).
    GameState {
        /// The game.
        game_id: uuid::Uuid,
        /// Its state.
        state: crate::model::GameState,
        /// The state the write requires.
        required: crate::model::GameState,
    },
    /// Any other (a result superseded, a case already ruled, ...): the message.
    Other(String),
}

impl std::fmt::Display for Precondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Precondition::GameState { game_id, state, required } => write!(f, "game {game_id} is {state}, not {required}"),
            Precondition::Other(m) => f.write_str(m),
        }
    }
}

impl From<String> for Precondition {
    fn from(m: String) -> Self {
        Precondition::Other(m)
    }
}

impl From<&str> for Precondition {
    fn from(m: &str) -> Self {
        Precondition::Other(m.to_string())
    }
}

/// Why a row is immutable, in a [`StoreError::Immutable`]. `Display` gives the message (the
/// database's, when its trigger refused).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Immutability {
    /// The game or its result is final (第十条): nothing about it changes any more.
    Final(String),
    /// Any other immutable row (moves and events are append-only; confirmations, cases and
    /// objections are kept as made).
    Other(String),
}

impl std::fmt::Display for Immutability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Immutability::Final(m) | Immutability::Other(m) => f.write_str(m),
        }
    }
}

impl std::ops::Deref for Immutability {
    type Target = str;
    /// The message.
    fn deref(&self) -> &str {
        match self {
            Immutability::Final(m) | Immutability::Other(m) => m,
        }
    }
}

impl Immutability {
    /// The refusal of a trigger of the migrations (SQLSTATE [`SQLSTATE_IMMUTABLE`]), by its
    /// message: [`Immutability::Final`] when it says the game or result is final.
    fn of_trigger(message: String) -> Self {
        if message.contains(" is final") {
            Immutability::Final(message)
        } else {
            Immutability::Other(message)
        }
    }
}

impl StoreError {
    /// Whether a retry of the same call may succeed (connection trouble, deadlock, serialization).
    pub fn is_retryable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::RowNotFound => StoreError::NotFound("row not found".into()),
            sqlx::Error::Database(db) => {
                let code = db.code().map(|c| c.into_owned()).unwrap_or_default();
                let msg = db.message().to_string();
                let constraint = db.constraint().map(str::to_string);
                match code.as_str() {
                    SQLSTATE_IMMUTABLE => StoreError::Immutable(Immutability::of_trigger(msg)),
                    "23505" => StoreError::AlreadyExists(Exists::Row(match constraint {
                        Some(c) => format!("{msg} ({c})"),
                        None => msg,
                    })),
                    "23503" => StoreError::NotFound(msg),
                    "23514" | "23502" | "22P02" | "22P05" | "22021" | "22001" | "22003" | "22007" | "22008" | "22023" => {
                        StoreError::InvalidArgument(msg)
                    }
                    // deadlock, serialization failure, connection exceptions, shutdown, too many
                    // connections, cannot connect now
                    "40001" | "40P01" | "53300" | "57P01" | "57P02" | "57P03" => retry(format!("{msg} (SQLSTATE {code})")),
                    c if c.starts_with("08") => retry(format!("{msg} (SQLSTATE {code})")),
                    _ => StoreError::Other(format!("{msg} (SQLSTATE {code})")),
                }
            }
            // the pool's connections were refused meanwhile: the server was a standby
            sqlx::Error::PoolTimedOut if refused_recently() => {
                StoreError::Unavailable(format!("no connection within the pool's timeout: {}", IN_RECOVERY))
            }
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed
            | sqlx::Error::Protocol(_) => retry(e.to_string()),
            _ => StoreError::Other(e.to_string()),
        }
    }
}

/// [`StoreError::Unavailable`] whose message says what to do: the call may be sent again (a
/// write with its idempotency key is stored at most once).
fn retry(what: String) -> StoreError {
    StoreError::Unavailable(format!("{what}; retry the call"))
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        match e {
            sqlx::migrate::MigrateError::Execute(inner) => StoreError::from(inner),
            other => StoreError::Other(format!("migration failed: {other}")),
        }
    }
}

impl From<crate::model::UnknownText> for StoreError {
    fn from(e: crate::model::UnknownText) -> StoreError {
        StoreError::Other(e.0)
    }
}

/// Result alias of the storage crate.
pub type StoreResult<T> = Result<T, StoreError>;

/// The message of a call refused because the database is a standby in recovery.
pub const IN_RECOVERY: &str = "the database is a standby in recovery, not the primary; retry the call";

/// The last time a connection of this process was refused as a standby's. The pool swallows
/// the error of its connect hook (it retries, then reports only a timeout), so the timeout is
/// explained by looking here ([`refused_recently`]).
pub(crate) static LAST_REFUSAL: std::sync::Mutex<Option<std::time::Instant>> = std::sync::Mutex::new(None);

/// How long a refusal explains a pool timeout: longer than the pool's acquire timeout.
const REFUSAL_EXPLAINS: std::time::Duration = std::time::Duration::from_secs(10);

/// Whether a connection was refused as a standby's within the last [`REFUSAL_EXPLAINS`]
/// (module `primary` records the refusals).
fn refused_recently() -> bool {
    LAST_REFUSAL.lock().unwrap_or_else(|p| p.into_inner()).is_some_and(|t| t.elapsed() < REFUSAL_EXPLAINS)
}
