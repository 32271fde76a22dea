//! `ArbitrationService`: the transport of the arbiter's cases and rulings
//! ([`crate::app::arbitration`]). Every call needs a bearer token ([`crate::auth`]).

use crate::app::arbitration::Arbitration;
use crate::app::arbitration::PolicyRequest;
use crate::app::AppState;
use crate::auth;
use crate::error::status;
use crate::grpc::convert;
use shinpan_proto::v1 as pb;
use tonic::{Request, Response, Status};

/// The `ArbitrationService` gRPC service.
#[derive(Clone)]
pub struct ArbitrationService {
    arbitration: Arbitration,
}

impl ArbitrationService {
    /// A service on the shared state (it needs the store).
    pub fn new(state: AppState) -> ArbitrationService {
        ArbitrationService { arbitration: Arbitration::new(state) }
    }
}

#[tonic::async_trait]
impl pb::arbitration_service_server::ArbitrationService for ArbitrationService {
    #[tracing::instrument(name = "ArbitrationService.OpenCase", skip_all, fields(game = %req.get_ref().game_id))]
    async fn open_case(&self, req: Request<pb::OpenCaseRequest>) -> Result<Response<pb::OpenCaseResponse>, Status> {
        let c = auth::claims(&req)?;
        let case = self.arbitration.open(&c, convert::open_case_from_pb(req.into_inner()).map_err(status)?).await.map_err(status)?;
        Ok(Response::new(pb::OpenCaseResponse { case: Some(convert::case_pb(&case)) }))
    }

    #[tracing::instrument(name = "ArbitrationService.ListCases", skip_all)]
    async fn list_cases(&self, req: Request<pb::ListCasesRequest>) -> Result<Response<pb::ListCasesResponse>, Status> {
        let c = auth::claims(&req)?;
        let cases = self.arbitration.list(&c, convert::list_cases_from_pb(req.into_inner()).map_err(status)?).await.map_err(status)?;
        Ok(Response::new(pb::ListCasesResponse { cases: cases.iter().map(convert::case_pb).collect() }))
    }

    #[tracing::instrument(name = "ArbitrationService.GetCase", skip_all, fields(case = %req.get_ref().case_id))]
    async fn get_case(&self, req: Request<pb::GetCaseRequest>) -> Result<Response<pb::GetCaseResponse>, Status> {
        let c = auth::claims(&req)?;
        let case = self.arbitration.get(&c, &req.get_ref().case_id).await.map_err(status)?;
        Ok(Response::new(pb::GetCaseResponse { case: Some(convert::case_pb(&case)) }))
    }

    #[tracing::instrument(name = "ArbitrationService.SetNoResultPolicy", skip_all)]
    async fn set_no_result_policy(
        &self,
        req: Request<pb::SetNoResultPolicyRequest>,
    ) -> Result<Response<pb::SetNoResultPolicyResponse>, Status> {
        let c = auth::claims(&req)?;
        let pb::SetNoResultPolicyRequest { tournament, policy } = req.into_inner();
        let set = self.arbitration.policy(&c, PolicyRequest { tournament, set: Some(policy) }).await.map_err(status)?;
        Ok(Response::new(pb::SetNoResultPolicyResponse { no_result_policy: Some(convert::policy_to_pb(&set)) }))
    }

    #[tracing::instrument(name = "ArbitrationService.GetNoResultPolicy", skip_all)]
    async fn get_no_result_policy(
        &self,
        req: Request<pb::GetNoResultPolicyRequest>,
    ) -> Result<Response<pb::GetNoResultPolicyResponse>, Status> {
        let c = auth::claims(&req)?;
        let tournament = req.into_inner().tournament;
        let got = self.arbitration.policy(&c, PolicyRequest { tournament, set: None }).await.map_err(status)?;
        Ok(Response::new(pb::GetNoResultPolicyResponse { no_result_policy: Some(convert::policy_to_pb(&got)) }))
    }

    #[tracing::instrument(name = "ArbitrationService.SetCaseState", skip_all, fields(case = %req.get_ref().case_id))]
    async fn set_case_state(&self, req: Request<pb::SetCaseStateRequest>) -> Result<Response<pb::SetCaseStateResponse>, Status> {
        let c = auth::claims(&req)?;
        let case =
            self.arbitration.set_state(&c, convert::set_case_state_from_pb(req.into_inner()).map_err(status)?).await.map_err(status)?;
        Ok(Response::new(pb::SetCaseStateResponse { case: Some(convert::case_pb(&case)) }))
    }

    #[tracing::instrument(name = "ArbitrationService.RuleCase", skip_all, fields(case = %req.get_ref().case_id))]
    async fn rule_case(&self, req: Request<pb::RuleCaseRequest>) -> Result<Response<pb::RuleCaseResponse>, Status> {
        let c = auth::claims(&req)?;
        let case = self.arbitration.rule(&c, convert::rule_case_from_pb(req.into_inner()).map_err(status)?).await.map_err(status)?;
        Ok(Response::new(pb::RuleCaseResponse { case: Some(convert::case_pb(&case)) }))
    }
}
