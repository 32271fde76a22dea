//! How the recording use cases validate a move: in-process ([`Validator::Local`], a call of
//! [`crate::validation::check_move`]) or by a separate `RuleValidationService` process
//! ([`Validator::Remote`]). The remote form is the port [`RemoteValidation`], in the
//! domain's types: its gRPC client (which speaks the protocol's messages and propagates the
//! trace context) is the transport's, in the `shinpan` crate (`shinpan::grpc::validator`).

use crate::convert::GameStart;
use crate::error::AppError;
use crate::validation::MoveCheck;
use goban::{Color, Move};
use std::sync::Arc;

/// One move to validate remotely: the game's start, its history before the move, the move.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveToValidate {
    /// The game's start (rule set, board side, handicap, setup stones, first player).
    pub start: GameStart,
    /// The moves recorded before this one, in order (all legal: a history is replayed).
    pub history: Vec<(Color, Move)>,
    /// Who plays the move.
    pub color: Color,
    /// The move (a point on the board, or a pass).
    pub mv: Move,
}

/// A remote `RuleValidationService`, as the recording use cases need it: the verdict on one
/// move (第十二条 for a foul, 第九条 for the passes that stop and end play), numbered
/// `history.len() + 1`.
pub trait RemoteValidation: Send + Sync + std::fmt::Debug {
    /// Validates `request.mv` after `request.history`.
    ///
    /// # Errors
    /// A transport failure of the remote service (or its `UNAVAILABLE`, `UNKNOWN`,
    /// `DEADLINE_EXCEEDED` or `CANCELLED`, which it answers when it shuts down mid-call: our
    /// caller cancelled nothing) is [`AppError::Unavailable`]; any other refusal of the
    /// service is passed on ([`AppError::Remote`]).
    fn validate_move(&self, request: MoveToValidate) -> futures::future::BoxFuture<'static, Result<MoveCheck, AppError>>;
}

/// How the recording service validates moves.
#[derive(Clone, Debug)]
pub enum Validator {
    /// In-process (co-hosted services): a function call.
    Local,
    /// By a separate `RuleValidationService` process (`shinpan serve --validation-url`).
    Remote(Arc<dyn RemoteValidation>),
}
