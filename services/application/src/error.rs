//! The one error enum of the application layer ([`AppError`], returned by every use case of
//! this crate), mapped once to a gRPC status with standard codes and rich details
//! (`google.rpc` `ErrorDetails` through tonic-types) by `From<AppError> for tonic::Status`.
//! This module sits below the application layer: it imports nothing of it, of the gRPC
//! services, the console or the command line.
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
//! | [`AppError::Store`] | as [`store_status`] says | `ErrorInfo` `RESULT_FINAL` for a final result |
//! | [`AppError::Lifecycle`] | `INVALID_ARGUMENT` or `FAILED_PRECONDITION` | `ErrorInfo` (see [`lifecycle_status`]) |
//! | [`AppError::PermissionDenied`] | `PERMISSION_DENIED` | — |
//! | [`AppError::Refused`] | its code | — |
//!
//! The `ErrorInfo` domain is always [`DOMAIN`]. The message is cut at 4 KiB and each
//! violation's field and description at [`MAX_DESCRIPTION_BYTES`], so that no
//! input, however long, makes an error exceed gRPC's metadata limits.

use crate::lifecycle::LifecycleError;
use shinpan_storage::StoreError;
use std::collections::HashMap;
use std::time::Duration;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

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
    /// A status returned by another shinpan service (e.g. remote validation), passed on.
    #[error("{}", .0.message())]
    Remote(Box<Status>),
    /// A foul in a record submitted for adjudication: the record has no legal final position,
    /// so `FAILED_PRECONDITION`, with the same `FOUL` details as [`AppError::Foul`].
    #[error("foul: {}", .0.description)]
    FoulInRecord(FoulInfo),
    /// A storage error of the result and arbiter workflow, mapped by [`store_status`].
    #[error("{0}")]
    Store(#[from] StoreError),
    /// A transition the result lifecycle refuses (第九条–第十二条), mapped by
    /// [`lifecycle_status`].
    #[error("{0}")]
    Lifecycle(#[from] LifecycleError),
    /// The caller's role may not do this (`PERMISSION_DENIED`); the message names the role,
    /// the caller and the action (see `crate::auth::denial`).
    #[error("{0}")]
    PermissionDenied(String),
    /// A refusal without structured details: the status code and the message, as they are.
    #[error("{message}")]
    Refused {
        /// The gRPC status code.
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

/// A storage error of the result and arbiter workflow as a gRPC status: NOT_FOUND,
/// ALREADY_EXISTS, FAILED_PRECONDITION for conflicts and for anything refused because a
/// result is final (`ErrorInfo` reason `RESULT_FINAL`), INVALID_ARGUMENT, UNAVAILABLE,
/// INTERNAL. (Recording maps its storage errors itself, naming the game:
/// `crate::recording::store_error`.)
pub fn store_status(e: StoreError) -> Status {
    match e {
        StoreError::NotFound(m) => Status::not_found(m),
        StoreError::AlreadyExists(m) => Status::already_exists(m.to_string()),
        StoreError::Conflict { current_move_number, expected } => {
            Status::failed_precondition(format!("move {expected} is out of sequence: {current_move_number} recorded"))
        }
        StoreError::FailedPrecondition(m) => Status::failed_precondition(m.to_string()),
        StoreError::Immutable(m) => {
            let final_ = lifecycle_status(&LifecycleError::Final);
            Status::with_error_details(final_.code(), m.to_string(), final_.get_error_details())
        }
        StoreError::InvalidArgument(m) => Status::invalid_argument(m),
        StoreError::Unavailable(m) => Status::unavailable(format!("store: {m}")),
        StoreError::Other(m) => Status::internal(m),
    }
}

/// A lifecycle refusal as a gRPC status: `INVALID_ARGUMENT` for a malformed request,
/// else `FAILED_PRECONDITION`, with `ErrorInfo` reason `RESULT_FINAL`, `NOTHING_PROPOSED`,
/// `RESULT_DISPUTED`, `RESULT_NOT_FINAL` or `EVIDENCE` (domain [`DOMAIN`]).
pub fn lifecycle_status(e: &LifecycleError) -> Status {
    let (code, reason) = match e {
        LifecycleError::Final => (Code::FailedPrecondition, "RESULT_FINAL"),
        LifecycleError::NothingProposed => (Code::FailedPrecondition, "NOTHING_PROPOSED"),
        LifecycleError::Disputed => (Code::FailedPrecondition, "RESULT_DISPUTED"),
        LifecycleError::NotFinal => (Code::FailedPrecondition, "RESULT_NOT_FINAL"),
        LifecycleError::Invalid(_) => (Code::InvalidArgument, "INVALID"),
        LifecycleError::Evidence(_) => (Code::FailedPrecondition, "EVIDENCE"),
    };
    Status::with_error_details(code, e.to_string(), ErrorDetails::with_error_info(reason, DOMAIN, HashMap::<String, String>::new()))
}

impl From<AppError> for Status {
    fn from(e: AppError) -> Status {
        let message = truncate(&e.to_string(), 4 * MAX_DESCRIPTION_BYTES);
        let cap = |s: String| truncate(&s, MAX_DESCRIPTION_BYTES);
        match e {
            AppError::InvalidArgument(violations) => {
                let mut d = ErrorDetails::new();
                for v in violations {
                    d.add_bad_request_violation(cap(v.field), cap(v.description));
                }
                Status::with_error_details(Code::InvalidArgument, message, d)
            }
            AppError::Foul(f) => {
                let metadata: HashMap<String, String> = [
                    ("rule", f.rule.clone()),
                    ("article", f.article.clone()),
                    ("move_number", f.move_number.to_string()),
                    ("color", f.color.clone()),
                    ("point", f.point.clone()),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
                let mut d = ErrorDetails::with_error_info("FOUL", DOMAIN, metadata);
                d.add_bad_request_violation(format!("moves[{}]", f.move_number.saturating_sub(1)), f.description);
                Status::with_error_details(Code::InvalidArgument, message, d)
            }
            AppError::OutOfSequence { game_id, current, got } => {
                let metadata: HashMap<String, String> = [
                    ("current_move_number".to_string(), current.to_string()),
                    ("expected_move_number".to_string(), (current + 1).to_string()),
                    ("requested_move_number".to_string(), got.to_string()),
                ]
                .into_iter()
                .collect();
                let mut d = ErrorDetails::with_error_info("MOVE_OUT_OF_SEQUENCE", DOMAIN, metadata);
                d.add_precondition_failure_violation(
                    "MOVE_NUMBER",
                    format!("games/{game_id}"),
                    format!("{current} moves are recorded; the next move is {}", current + 1),
                );
                Status::with_error_details(Code::FailedPrecondition, message, d)
            }
            AppError::GameOver { game_id, result } => {
                let metadata: HashMap<String, String> =
                    [("game_id".to_string(), game_id), ("result".to_string(), result)].into_iter().collect();
                Status::with_error_details(Code::FailedPrecondition, message, ErrorDetails::with_error_info("GAME_OVER", DOMAIN, metadata))
            }
            AppError::NotFound { kind, id } => {
                Status::with_error_details(Code::NotFound, message, ErrorDetails::with_resource_info(kind, id, "", "not found"))
            }
            AppError::AlreadyExists { kind, id } => {
                Status::with_error_details(Code::AlreadyExists, message, ErrorDetails::with_resource_info(kind, id, "", "already exists"))
            }
            AppError::Unavailable(_) => {
                Status::with_error_details(Code::Unavailable, message, ErrorDetails::with_retry_info(Some(Duration::from_secs(1))))
            }
            AppError::Internal(_) => Status::internal(message),
            AppError::Remote(status) => *status,
            AppError::FoulInRecord(f) => {
                let s = Status::from(AppError::Foul(f));
                Status::with_details(Code::FailedPrecondition, s.message().to_string(), s.details().to_vec().into())
            }
            AppError::Store(e) => store_status(e),
            AppError::Lifecycle(e) => lifecycle_status(&e),
            AppError::PermissionDenied(m) => Status::permission_denied(m),
            AppError::Refused { code, message } => Status::new(code, message),
        }
    }
}

/// Reads the current move number from a `FAILED_PRECONDITION` status returned for a move
/// out of sequence (`ErrorInfo` metadata `current_move_number`). `None` for any other status.
pub fn current_move_number(status: &Status) -> Option<u32> {
    let details = status.get_error_details();
    let info = details.error_info()?;
    if info.reason != "MOVE_OUT_OF_SEQUENCE" {
        return None;
    }
    info.metadata.get("current_move_number")?.parse().ok()
}
