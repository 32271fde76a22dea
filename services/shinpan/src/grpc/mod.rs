//! The gRPC services of shinpan (package `shinpan.v1`, see `proto/`): the transport only.
//! Each handler decodes its request (the caller's verified claims from the bearer-token
//! interceptor, the message), calls a use case of [`crate::app`] and encodes its answer;
//! the use case's [`crate::error::AppError`] becomes the status once, by
//! [`crate::error::status`] (`.map_err(status)`).
//!
//! * [`recording`]: `GameRecordingService` — games, moves, the event log, SGF import/export.
//! * [`validation`]: `RuleValidationService` — stateless legality checks by the rules engine.
//! * [`results`]: `ResultConfirmationService` — the result lifecycle (第九条–第十二条).
//! * [`arbitration`]: `ArbitrationService` — the arbiter's cases and rulings.
//! * [`adjudication`]: `AdjudicationService` — life and death by hypothetical play (第七条).
//!
//! * [`convert`]: the protocol's messages to and from the use cases' commands and answers.
//! * [`validator`]: the gRPC client of a remote `RuleValidationService`, by which recording
//!   validates moves in a separate process (the application's port
//!   [`crate::app::validator::RemoteValidation`]).
//!
//! Every service shares one [`crate::app::AppState`].

// `AppError` carries rich details (a foul's rule, article, point...); errors are the cold
// path, so returning it by value is fine.
#![allow(clippy::result_large_err)]

pub mod adjudication;
pub mod arbitration;
pub mod convert;
pub mod recording;
pub mod results;
pub mod validation;
pub mod validator;
