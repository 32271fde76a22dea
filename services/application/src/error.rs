//! The one error enum of the application layer ([`AppError`], returned by every use case of
//! this crate). The transport maps it once to a gRPC status with standard codes and rich
//! details (`google.rpc` `ErrorDetails`): `shinpan::error::status`, as the table says. This
//! module sits below the application layer: it imports nothing of it, of the gRPC services,
//! the console or the command line.
//!
//! | variant | code | details |
//! | --- | --- | --- |
//! | [`AppError::InvalidArgument`] | `INVALID_ARGUMENT` | `BadRequest` field violations |
//! | [`AppError::Foul`] | `INVALID_ARGUMENT` | `ErrorInfo` reason `FOUL`, metadata `rule`, `article`, `move_number`, `color`, `point` |
//! | [`AppError::OutOfSequence`] | `FAILED_PRECONDITION` | `ErrorInfo` reason `MOVE_OUT_OF_SEQUENCE`, metadata `current_move_number`, `expected_move_number`; `PreconditionFailure` |
//! | [`AppError::GameOver`] | `FAILED_PRECONDITION` | `ErrorInfo` reason `GAME_OVER` |
//! | [`AppError::NotFound`] | `NOT_FOUND` | `ResourceInfo` |
//! | [`AppError::AlreadyExists`] | `ALREADY_EXISTS` | `ResourceInfo` |
//! | [`AppError::Unavailable`] | `UNAVAILABLE` | `RetryInfo` (1 s) |
//! | [`AppError::Internal`] | `INTERNAL` | — |
//! | [`AppError::Remote`] | the remote service's code | the remote service's details |
//! | [`AppError::FoulInRecord`] | `FAILED_PRECONDITION` | as [`AppError::Foul`] |
//! | [`AppError::Store`] | as `shinpan::error::store_status` says | `ErrorInfo` `RESULT_FINAL` for a final result |
//! | [`AppError::Lifecycle`] | `INVALID_ARGUMENT` or `FAILED_PRECONDITION` | `ErrorInfo` (see `shinpan::error::lifecycle_status`) |
//! | [`AppError::PermissionDenied`] | `PERMISSION_DENIED` | — |
//! | [`AppError::Refused`] | its code | — |
//!
//! The `ErrorInfo` domain is always [`DOMAIN`]. The message is cut at 4 KiB and each
//! violation's field and description at [`MAX_DESCRIPTION_BYTES`], so that no
//! input, however long, makes an error exceed gRPC's metadata limits.

use crate::lifecycle::LifecycleError;
use shinpan_storage::StoreError;

/// Longest description of one field violation, in bytes (the error's message and details
/// stay well within gRPC's metadata limits).
pub const MAX_DESCRIPTION_BYTES: usize = 1024;

/// Cuts `s` to at most `max` bytes at a character boundary, appending `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// `ErrorInfo.domain` of every shinpan error.
pub const DOMAIN: &str = "shinpan.v1";

/// One bad field of a request: its path (e.g. `"move.point"`) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldViolation {
    /// Field path in the request message, e.g. `"board_size"`, `"move.point"`.
    pub field: String,
    /// What is wrong with it.
    pub description: String,
}

/// A foul (反則, 第十二条) to report as an error (e.g. inside an imported record).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoulInfo {
    /// 1-based number of the illegal move.
    pub move_number: u32,
    /// `"black"` or `"white"`.
    pub color: String,
    /// SGF point, or `"pass"`.
    pub point: String,
    /// Machine-readable rule (`"ko"`, `"suicide"`, `"occupied"`, ...).
    pub rule: String,
    /// Article, e.g. `"第五条"`.
    pub article: String,
    /// Human-readable description.
    pub description: String,
}

/// The status code of a refusal without structured details ([`AppError::Refused`]): the
/// gRPC code of the same name, to which the transport maps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// `INVALID_ARGUMENT`: a malformed request.
    InvalidArgument,
    /// `FAILED_PRECONDITION`: not in the state the call needs.
    FailedPrecondition,
    /// `NOT_FOUND`.
    NotFound,
    /// `INTERNAL`: a bug or an unexpected state.
    Internal,
    /// `DEADLINE_EXCEEDED`: out of time.
    DeadlineExceeded,
    /// `UNAVAILABLE`: retry later (e.g. the server shuts down).
    Unavailable,
    /// `RESOURCE_EXHAUSTED`: a rate limit reached.
    ResourceExhausted,
}

/// Every error a use case of shinpan returns (and so every error its gRPC services return).
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Malformed request fields.
    #[error("invalid argument: {}", describe(.0))]
    InvalidArgument(Vec<FieldViolation>),
    /// An illegal move where only legal moves are accepted (an imported record).
    #[error("foul: {}", .0.description)]
    Foul(FoulInfo),
    /// The move number is not the game's next one: another move was recorded first.
    #[error("move {got} is out of sequence for game {game_id}: {current} moves recorded, the next is {}", .current + 1)]
    OutOfSequence {
        /// The game.
        game_id: String,
        /// Moves recorded so far (the current move number).
        current: u32,
        /// The move number the request gave.
        got: u32,
    },
    /// The game has ended (resignation, four passes, ruling): nothing more can be played.
    #[error("game {game_id} has ended{}", if .result.is_empty() { String::new() } else { format!(" ({})", .result) })]
    GameOver {
        /// The game.
        game_id: String,
        /// Its result in SGF `RE` syntax, if any.
        result: String,
    },
    /// No such resource.
    #[error("{kind} {id} not found")]
    NotFound {
        /// `"game"`, `"tournament"`, ...
        kind: &'static str,
        /// Its identifier.
        id: String,
    },
    /// The resource exists already.
    #[error("{kind} {id} already exists")]
    AlreadyExists {
        /// `"game"`, ...
        kind: &'static str,
        /// Its identifier (e.g. `"tournament/round/board"`).
        id: String,
    },
    /// A dependency (the store, the validation service) cannot be reached.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// A bug or an unexpected state.
    #[error("internal error: {0}")]
    Internal(String),
    /// A status returned by another shinpan service (e.g. remote validation), passed on as
    /// it is: the transport's own error (a `tonic::Status`), opaque here, with its message.
    #[error("{message}")]
    Remote {
        /// The remote service's message.
        message: String,
        /// The remote service's status, as the transport received it.
        status: Box<dyn std::any::Any + Send + Sync>,
    },
    /// A foul in a record submitted for adjudication: the record has no legal final position,
    /// so `FAILED_PRECONDITION`, with the same `FOUL` details as [`AppError::Foul`].
    #[error("foul: {}", .0.description)]
    FoulInRecord(FoulInfo),
    /// A storage error of the result and arbiter workflow, mapped by
    /// `shinpan::error::store_status`.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// A transition the result lifecycle refuses (第九条–第十二条), mapped by
    /// `shinpan::error::lifecycle_status`.
    #[error("{0}")]
    Lifecycle(#[from] LifecycleError),
    /// The caller's role may not do this (`PERMISSION_DENIED`); the message names the role,
    /// the caller and the action (see `crate::auth::denial`).
    #[error("{0}")]
    PermissionDenied(String),
    /// A refusal without structured details: the status code and the message, as they are.
    #[error("{message}")]
    Refused {
        /// The status code.
        code: Code,
        /// The message, verbatim.
        message: String,
    },
}

fn describe(v: &[FieldViolation]) -> String {
    v.iter().map(|f| format!("{}: {}", f.field, f.description)).collect::<Vec<_>>().join("; ")
}

impl AppError {
    /// One invalid field.
    pub fn field(field: impl Into<String>, description: impl Into<String>) -> AppError {
        AppError::InvalidArgument(vec![FieldViolation { field: field.into(), description: description.into() }])
    }

    /// `INVALID_ARGUMENT` with `message` and no details.
    pub fn invalid(message: impl Into<String>) -> AppError {
        AppError::Refused { code: Code::InvalidArgument, message: message.into() }
    }

    /// `FAILED_PRECONDITION` with `message` and no details.
    pub fn precondition(message: impl Into<String>) -> AppError {
        AppError::Refused { code: Code::FailedPrecondition, message: message.into() }
    }

    /// `NOT_FOUND` with `message` and no details.
    pub fn missing(message: impl Into<String>) -> AppError {
        AppError::Refused { code: Code::NotFound, message: message.into() }
    }

    /// `INTERNAL` with `message` as it is (no prefix, unlike [`AppError::Internal`]).
    pub fn bug(message: impl Into<String>) -> AppError {
        AppError::Refused { code: Code::Internal, message: message.into() }
    }

    /// `DEADLINE_EXCEEDED` with `message`.
    pub fn deadline(message: impl Into<String>) -> AppError {
        AppError::Refused { code: Code::DeadlineExceeded, message: message.into() }
    }
}
