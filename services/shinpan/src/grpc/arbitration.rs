//! `ArbitrationService`: the transport of the arbiter's cases and rulings
//! ([`crate::app::arbitration`]). Every call needs a bearer token ([`crate::auth`]).

use crate::app::arbitration::Arbitration;
use crate::app::AppState;
use crate::auth;
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
        Ok(Response::new(pb::OpenCaseResponse { case: Some(self.arbitration.open(&c, req.into_inner()).await?) }))
    }

    #[tracing::instrument(name = "ArbitrationService.ListCases", skip_all)]
    async fn list_cases(&self, req: Request<pb::ListCasesRequest>) -> Result<Response<pb::ListCasesResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(self.arbitration.list(&c, req.into_inner()).await?))
    }

    #[tracing::instrument(name = "ArbitrationService.GetCase", skip_all, fields(case = %req.get_ref().case_id))]
    async fn get_case(&self, req: Request<pb::GetCaseRequest>) -> Result<Response<pb::GetCaseResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::GetCaseResponse { case: Some(self.arbitration.get(&c, req.into_inner()).await?) }))
    }

    #[tracing::instrument(name = "ArbitrationService.SetNoResultPolicy", skip_all)]
    async fn set_no_result_policy(
        &self,
        req: Request<pb::SetNoResultPolicyRequest>,
    ) -> Result<Response<pb::SetNoResultPolicyResponse>, Status> {
        let c = auth::claims(&req)?;
        let pb::SetNoResultPolicyRequest { tournament, policy } = req.into_inner();
        let set = self.arbitration.policy(&c, pb::NoResultPolicy { tournament, policy }, true).await?;
        Ok(Response::new(pb::SetNoResultPolicyResponse { no_result_policy: Some(set) }))
    }

    #[tracing::instrument(name = "ArbitrationService.GetNoResultPolicy", skip_all)]
    async fn get_no_result_policy(
        &self,
        req: Request<pb::GetNoResultPolicyRequest>,
    ) -> Result<Response<pb::GetNoResultPolicyResponse>, Status> {
        let c = auth::claims(&req)?;
        let tournament = req.into_inner().tournament;
        let got = self.arbitration.policy(&c, pb::NoResultPolicy { tournament, policy: String::new() }, false).await?;
        Ok(Response::new(pb::GetNoResultPolicyResponse { no_result_policy: Some(got) }))
    }

    #[tracing::instrument(name = "ArbitrationService.SetCaseState", skip_all, fields(case = %req.get_ref().case_id))]
    async fn set_case_state(&self, req: Request<pb::SetCaseStateRequest>) -> Result<Response<pb::SetCaseStateResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::SetCaseStateResponse { case: Some(self.arbitration.set_state(&c, req.into_inner()).await?) }))
    }

    #[tracing::instrument(name = "ArbitrationService.RuleCase", skip_all, fields(case = %req.get_ref().case_id))]
    async fn rule_case(&self, req: Request<pb::RuleCaseRequest>) -> Result<Response<pb::RuleCaseResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::RuleCaseResponse { case: Some(self.arbitration.rule(&c, req.into_inner()).await?) }))
    }
}
