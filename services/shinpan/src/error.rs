//! Errors at the gRPC boundary, mapped to standard status codes with rich details
//! (`google.rpc` `ErrorDetails` through tonic-types).
//!
//! | variant | code | details |
//! | --- | --- | --- |
//! | [`ApiError::InvalidArgument`] | `INVALID_ARGUMENT` | `BadRequest` field violations |
//! | [`ApiError::Foul`] | `INVALID_ARGUMENT` | `ErrorInfo` reason `FOUL`, metadata `rule`, `article`, `move_number`, `color`, `point` |
//! | [`ApiError::OutOfSequence`] | `FAILED_PRECONDITION` | `ErrorInfo` reason `MOVE_OUT_OF_SEQUENCE`, metadata `current_move_number`, `expected_move_number`; `PreconditionFailure` |
//! | [`ApiError::GameOver`] | `FAILED_PRECONDITION` | `ErrorInfo` reason `GAME_OVER` |
//! | [`ApiError::NotFound`] | `NOT_FOUND` | `ResourceInfo` |
//! | [`ApiError::AlreadyExists`] | `ALREADY_EXISTS` | `ResourceInfo` |
//! | [`ApiError::Unavailable`] | `UNAVAILABLE` | `RetryInfo` (1 s) |
//! | [`ApiError::Internal`] | `INTERNAL` | — |
//! | [`ApiError::Remote`] | the remote service's code | the remote service's details |
//!
//! The `ErrorInfo` domain is always [`DOMAIN`]. The message is cut at 4 KiB and each
//! violation's field and description at [`crate::limits::MAX_DESCRIPTION_BYTES`], so that no
//! input, however long, makes an error exceed gRPC's metadata limits.

use std::collections::HashMap;
use std::time::Duration;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

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

/// Every error a shinpan gRPC service returns.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
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
}

fn describe(v: &[FieldViolation]) -> String {
    v.iter().map(|f| format!("{}: {}", f.field, f.description)).collect::<Vec<_>>().join("; ")
}

impl ApiError {
    /// One invalid field.
    pub fn field(field: impl Into<String>, description: impl Into<String>) -> ApiError {
        ApiError::InvalidArgument(vec![FieldViolation { field: field.into(), description: description.into() }])
    }
}

impl From<ApiError> for Status {
    fn from(e: ApiError) -> Status {
        let message = crate::limits::truncate(&e.to_string(), 4 * crate::limits::MAX_DESCRIPTION_BYTES);
        let cap = |s: String| crate::limits::truncate(&s, crate::limits::MAX_DESCRIPTION_BYTES);
        match e {
            ApiError::InvalidArgument(violations) => {
                let mut d = ErrorDetails::new();
                for v in violations {
                    d.add_bad_request_violation(cap(v.field), cap(v.description));
                }
                Status::with_error_details(Code::InvalidArgument, message, d)
            }
            ApiError::Foul(f) => {
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
            ApiError::OutOfSequence { game_id, current, got } => {
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
            ApiError::GameOver { game_id, result } => {
                let metadata: HashMap<String, String> =
                    [("game_id".to_string(), game_id), ("result".to_string(), result)].into_iter().collect();
                Status::with_error_details(Code::FailedPrecondition, message, ErrorDetails::with_error_info("GAME_OVER", DOMAIN, metadata))
            }
            ApiError::NotFound { kind, id } => {
                Status::with_error_details(Code::NotFound, message, ErrorDetails::with_resource_info(kind, id, "", "not found"))
            }
            ApiError::AlreadyExists { kind, id } => {
                Status::with_error_details(Code::AlreadyExists, message, ErrorDetails::with_resource_info(kind, id, "", "already exists"))
            }
            ApiError::Unavailable(_) => {
                Status::with_error_details(Code::Unavailable, message, ErrorDetails::with_retry_info(Some(Duration::from_secs(1))))
            }
            ApiError::Internal(_) => Status::internal(message),
            ApiError::Remote(status) => *status,
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

/// Errors of starting or running the server process.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// Bad configuration (flags, environment).
    #[error("configuration: {0}")]
    Config(String),
    /// The listen address cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// The database cannot be opened or migrated, or the embedded cluster cannot start.
    #[error("database: {0}")]
    Database(String),
    /// Telemetry could not be set up.
    #[error(transparent)]
    Telemetry(#[from] crate::telemetry::TelemetryError),
    /// The gRPC server failed.
    #[error("server: {0}")]
    Serve(#[from] tonic::transport::Error),
}
