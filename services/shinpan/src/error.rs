//! Errors of the server process ([`StartupError`]), and the application layer's error enum
//! ([`AppError`], re-exported from `shinpan_application::error`) with its mapping to gRPC
//! statuses ([`status`]: the transport's, as the orphan rule keeps a `From` impl between
//! the application's error and tonic's status out of this crate).

pub use shinpan_application::error::*;

use crate::app::lifecycle::LifecycleError;
use shinpan_storage::StoreError;
use std::collections::HashMap;
use std::time::Duration;
use tonic::Code as GrpcCode;
use tonic::Status;
use tonic_types::{ErrorDetails, StatusExt};

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

/// A storage error of the result and arbiter workflow as a gRPC status: NOT_FOUND,
/// ALREADY_EXISTS, FAILED_PRECONDITION for conflicts and for anything refused because a
/// result is final (`ErrorInfo` reason `RESULT_FINAL`), INVALID_ARGUMENT, UNAVAILABLE,
/// INTERNAL. (Recording maps its storage errors itself, naming the game:
/// `crate::app::recording::store_error`.)
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
        LifecycleError::Final => (GrpcCode::FailedPrecondition, "RESULT_FINAL"),
        LifecycleError::NothingProposed => (GrpcCode::FailedPrecondition, "NOTHING_PROPOSED"),
        LifecycleError::Disputed => (GrpcCode::FailedPrecondition, "RESULT_DISPUTED"),
        LifecycleError::NotFinal => (GrpcCode::FailedPrecondition, "RESULT_NOT_FINAL"),
        LifecycleError::Invalid(_) => (GrpcCode::InvalidArgument, "INVALID"),
        LifecycleError::Evidence(_) => (GrpcCode::FailedPrecondition, "EVIDENCE"),
    };
    Status::with_error_details(code, e.to_string(), ErrorDetails::with_error_info(reason, DOMAIN, HashMap::<String, String>::new()))
}

/// An [`AppError`] as a gRPC status, once, for every transport (the table of
/// [`shinpan_application::error`]): the code of its variant and rich details (`google.rpc`
/// `ErrorDetails`: `BadRequest` field violations, `ErrorInfo` with domain [`DOMAIN`] and its
/// reason, `PreconditionFailure`, `ResourceInfo`, `RetryInfo`). The message is cut at 4 KiB
/// and each violation's field and description at [`MAX_DESCRIPTION_BYTES`] bytes. Every
/// handler maps its use case's error with it (`.map_err(status)`).
pub fn status(e: AppError) -> Status {
    let message = truncate(&e.to_string(), 4 * MAX_DESCRIPTION_BYTES);
    let cap = |s: String| truncate(&s, MAX_DESCRIPTION_BYTES);
    match e {
        AppError::InvalidArgument(violations) => {
            let mut d = ErrorDetails::new();
            for v in violations {
                d.add_bad_request_violation(cap(v.field), cap(v.description));
            }
            Status::with_error_details(GrpcCode::InvalidArgument, message, d)
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
            Status::with_error_details(GrpcCode::InvalidArgument, message, d)
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
            Status::with_error_details(GrpcCode::FailedPrecondition, message, d)
        }
        AppError::GameOver { game_id, result } => {
            let metadata: HashMap<String, String> =
                [("game_id".to_string(), game_id), ("result".to_string(), result)].into_iter().collect();
            Status::with_error_details(GrpcCode::FailedPrecondition, message, ErrorDetails::with_error_info("GAME_OVER", DOMAIN, metadata))
        }
        AppError::NotFound { kind, id } => {
            Status::with_error_details(GrpcCode::NotFound, message, ErrorDetails::with_resource_info(kind, id, "", "not found"))
        }
        AppError::AlreadyExists { kind, id } => {
            Status::with_error_details(GrpcCode::AlreadyExists, message, ErrorDetails::with_resource_info(kind, id, "", "already exists"))
        }
        AppError::Unavailable(_) => {
            Status::with_error_details(GrpcCode::Unavailable, message, ErrorDetails::with_retry_info(Some(Duration::from_secs(1))))
        }
        AppError::Internal(_) => Status::internal(message),
        AppError::Remote { message, status } => status.downcast::<Status>().map(|s| *s).unwrap_or_else(|_| Status::unknown(message)),
        AppError::FoulInRecord(f) => {
            let s = status(AppError::Foul(f));
            Status::with_details(GrpcCode::FailedPrecondition, s.message().to_string(), s.details().to_vec().into())
        }
        AppError::Store(e) => store_status(e),
        AppError::Lifecycle(e) => lifecycle_status(&e),
        AppError::PermissionDenied(m) => Status::permission_denied(m),
        AppError::Refused { code, message } => Status::new(code_of(code), message),
    }
}

/// The gRPC code of a refusal's [`shinpan_application::error::Code`] (the one of the same
/// name).
pub fn code_of(code: shinpan_application::error::Code) -> GrpcCode {
    use shinpan_application::error::Code as C;
    match code {
        C::InvalidArgument => GrpcCode::InvalidArgument,
        C::FailedPrecondition => GrpcCode::FailedPrecondition,
        C::NotFound => GrpcCode::NotFound,
        C::Internal => GrpcCode::Internal,
        C::DeadlineExceeded => GrpcCode::DeadlineExceeded,
        C::Unavailable => GrpcCode::Unavailable,
        C::ResourceExhausted => GrpcCode::ResourceExhausted,
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
