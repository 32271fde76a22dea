//! How the recording use cases validate a move: in-process ([`Validator::Local`], a call of
//! [`crate::validation::check_move`]) or over gRPC to a separate `RuleValidationService`
//! process ([`Validator::Remote`], propagating the trace context). The remote form is a
//! client of the protocol, so it speaks the protocol's messages (`shinpan_proto::v1`).

use crate::error::AppError;
use crate::trace::TracePropagation;
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::rule_validation_service_client::RuleValidationServiceClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Request, Response};

/// A gRPC client of a remote `RuleValidationService`, propagating the trace context.
pub type RemoteValidation = RuleValidationServiceClient<InterceptedService<Channel, TracePropagation>>;

/// How the recording service validates moves.
#[derive(Clone, Debug)]
pub enum Validator {
    /// In-process (co-hosted services): a function call.
    Local,
    /// Over gRPC to a separate `RuleValidationService` process.
    Remote(RemoteValidation),
}

impl Validator {
    /// A lazily connecting remote validator for `url` (e.g. `http://127.0.0.1:50052`).
    ///
    /// # Errors
    /// A malformed URL: the message names the flag (`--validation-url`) and the URL.
    pub fn remote(url: &str) -> Result<Validator, String> {
        let endpoint = Channel::from_shared(url.to_string()).map_err(|e| format!("--validation-url {url}: {e}"))?;
        let channel = endpoint.connect_lazy();
        Ok(Validator::Remote(RuleValidationServiceClient::with_interceptor(channel, TracePropagation)))
    }
}

/// Validates one move remotely (`ValidateMove` of the `RuleValidationService` behind
/// `client`): the request names the game's start and history, the answer is the service's.
///
/// # Errors
/// A transport failure (or the service's `UNAVAILABLE`, `UNKNOWN`, `DEADLINE_EXCEEDED`, or
/// `CANCELLED`, which it answers when it shuts down mid-call: our caller cancelled nothing)
/// is `UNAVAILABLE`; any other status of the service is passed on ([`AppError::Remote`]).
pub async fn validate_remote(client: &RemoteValidation, req: pb::ValidateMoveRequest) -> Result<pb::ValidateMoveResponse, AppError> {
    let mut client = client.clone();
    client.validate_move(Request::new(req)).await.map(Response::into_inner).map_err(|s| match s.code() {
        tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::DeadlineExceeded | tonic::Code::Cancelled => {
            AppError::Unavailable(format!("rule validation service: {}", s.message()))
        }
        _ => AppError::Remote(Box::new(s)),
    })
}
