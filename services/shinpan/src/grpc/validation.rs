//! `RuleValidationService`: the transport of the stateless legality checks
//! ([`crate::app::validation`]).

use crate::app::validation::{rule_sets, validate_move, validate_record};
use crate::error::status;
use crate::error::AppError;
use crate::grpc::convert;
use shinpan_proto::v1 as pb;
use tonic::{Request, Response, Status};

/// The `RuleValidationService` gRPC service.
///
/// `ValidateMove` and `ListRuleSets` are open to every caller (a recording service calls
/// `ValidateMove` for every move, and it reads nothing stored). `ValidateRecord`, which parses
/// and replays a whole record (up to [`crate::limits::MAX_SGF_BYTES`]), needs a valid bearer
/// token when `auth` is set (`shinpan serve --auth all`), and at most `parses` of them run at
/// once (the others wait their turn).
#[derive(Clone)]
pub struct RuleValidationService {
    auth: Option<crate::auth::AuthConfig>,
    parses: std::sync::Arc<tokio::sync::Semaphore>,
    expensive: crate::ratelimit::ExpensiveCalls,
}

impl RuleValidationService {
    /// The service; `auth` = the token check of `ValidateRecord` (None: open), `parses` = how
    /// many records are parsed at once at most (at least 1), `expensive` = the per-caller rate
    /// limit `ValidateRecord` counts against.
    pub fn new(auth: Option<crate::auth::AuthConfig>, parses: usize, expensive: crate::ratelimit::ExpensiveCalls) -> RuleValidationService {
        RuleValidationService { auth, parses: std::sync::Arc::new(tokio::sync::Semaphore::new(parses.max(1))), expensive }
    }
}

impl Default for RuleValidationService {
    /// Open, one parse per core, no rate limit.
    fn default() -> RuleValidationService {
        RuleValidationService::new(
            None,
            std::thread::available_parallelism().map_or(1, |n| n.get()),
            crate::ratelimit::ExpensiveCalls::unlimited(),
        )
    }
}

#[tonic::async_trait]
impl pb::rule_validation_service_server::RuleValidationService for RuleValidationService {
    #[tracing::instrument(name = "RuleValidationService.ValidateMove", skip_all)]
    async fn validate_move(&self, req: Request<pb::ValidateMoveRequest>) -> Result<Response<pb::ValidateMoveResponse>, Status> {
        let r = validate_move(&convert::validate_move_from_pb(req.get_ref()).map_err(status)?).map_err(status)?;
        tracing::debug!(legal = r.legal(), move_number = r.move_number, "validated move");
        Ok(Response::new(convert::move_check_to_pb(r)))
    }

    #[tracing::instrument(name = "RuleValidationService.ValidateRecord", skip_all)]
    async fn validate_record(&self, req: Request<pb::ValidateRecordRequest>) -> Result<Response<pb::ValidateRecordResponse>, Status> {
        let mut req = req;
        if let Some(auth) = &self.auth {
            match crate::auth::authenticate(auth, req.metadata()) {
                Ok(c) => {
                    req.extensions_mut().insert(c);
                }
                Err(e) => {
                    tracing::warn!(target: "shinpan::auth", reason = %e, "UNAUTHENTICATED");
                    return Err(Status::unauthenticated(e.to_string()));
                }
            }
        }
        crate::ratelimit::admit(&self.expensive, &req, "ValidateRecord")?;
        let _permit = self.parses.acquire().await.map_err(|e| AppError::Internal(e.to_string())).map_err(status)?;
        let req = convert::validate_record_from_pb(req.into_inner()).map_err(status)?;
        let r = tokio::task::spawn_blocking(move || validate_record(&req))
            .await
            .map_err(|e| AppError::Internal(e.to_string()))
            .map_err(status)?
            .map_err(status)?;
        Ok(Response::new(convert::record_check_to_pb(&r)))
    }

    async fn list_rule_sets(&self, _req: Request<pb::ListRuleSetsRequest>) -> Result<Response<pb::ListRuleSetsResponse>, Status> {
        Ok(Response::new(pb::ListRuleSetsResponse { rule_sets: rule_sets().iter().map(|&r| convert::rule_set_to_pb(r)).collect() }))
    }
}
