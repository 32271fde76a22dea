//! The gRPC client of a remote `RuleValidationService`: the transport's side of the
//! application's port [`RemoteValidation`] (`shinpan serve --validation-url`), by which the
//! recording use cases validate each move in a separate process. It speaks the protocol's
//! messages and propagates the trace context of the calling span.

use crate::app::validation::MoveCheck;
use crate::app::validator::{MoveToValidate, RemoteValidation, Validator};
use crate::error::AppError;
use crate::grpc::convert;
use crate::telemetry::TracePropagation;
use futures::future::BoxFuture;
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::rule_validation_service_client::RuleValidationServiceClient;
use std::sync::Arc;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Request, Response};

/// A gRPC client of a remote `RuleValidationService`, propagating the trace context.
pub type RemoteClient = RuleValidationServiceClient<InterceptedService<Channel, TracePropagation>>;

/// The remote validator over gRPC ([`RemoteValidation`]).
#[derive(Clone, Debug)]
pub struct GrpcValidator {
    client: RemoteClient,
}

/// A lazily connecting remote validator for `url` (e.g. `http://127.0.0.1:50052`).
///
/// # Errors
/// A malformed URL: the message names the flag (`--validation-url`) and the URL.
pub fn remote(url: &str) -> Result<Validator, String> {
    let endpoint = Channel::from_shared(url.to_string()).map_err(|e| format!("--validation-url {url}: {e}"))?;
    let channel = endpoint.connect_lazy();
    Ok(Validator::Remote(Arc::new(GrpcValidator { client: RuleValidationServiceClient::with_interceptor(channel, TracePropagation) })))
}

impl RemoteValidation for GrpcValidator {
    /// Validates one move remotely (`ValidateMove`): the request names the game's start and
    /// history, the answer is the service's verdict.
    ///
    /// # Errors
    /// A transport failure (or the service's `UNAVAILABLE`, `UNKNOWN`, `DEADLINE_EXCEEDED`,
    /// or `CANCELLED`, which it answers when it shuts down mid-call: our caller cancelled
    /// nothing) is `UNAVAILABLE`; any other status of the service is passed on
    /// ([`AppError::Remote`]); an answer that does not read back (a point that is not SGF, an
    /// unknown foul rule) is `INTERNAL`.
    fn validate_move(&self, request: MoveToValidate) -> BoxFuture<'static, Result<MoveCheck, AppError>> {
        let mut client = self.client.clone();
        let req = pb::ValidateMoveRequest {
            state: Some(pb::validate_move_request::State::Game(convert::game_state(
                &request.start,
                convert::moves_to_pb(&request.history),
            ))),
            r#move: Some(convert::move_to_pb(request.color, request.mv)),
            rule_set: String::new(),
        };
        Box::pin(async move {
            let r = client.validate_move(Request::new(req)).await.map(Response::into_inner).map_err(|s| match s.code() {
                tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::DeadlineExceeded | tonic::Code::Cancelled => {
                    AppError::Unavailable(format!("rule validation service: {}", s.message()))
                }
                _ => AppError::Remote { message: s.message().to_string(), status: Box::new(s) },
            })?;
            convert::move_check_from_pb(r.move_number, &r.captured, r.ko_point.as_deref(), r.foul.as_ref(), r.repetition.as_ref(), r.phase)
                .ok_or_else(|| AppError::Internal("the rule validation service answered a verdict that does not read back".into()))
        })
    }
}
