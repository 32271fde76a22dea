//! `ResultConfirmationService`: the transport of the result lifecycle
//! ([`crate::app::results`]). Every call needs a bearer token ([`crate::auth`]).

use crate::app::results::Results;
use crate::app::AppState;
use crate::auth;
use crate::error::status;
use crate::grpc::convert;
use shinpan_proto::v1 as pb;
use tonic::{Request, Response, Status};

/// The `ResultConfirmationService` gRPC service.
#[derive(Clone)]
pub struct ResultsService {
    results: Results,
}

impl ResultsService {
    /// A service on the shared state (it needs the store).
    pub fn new(state: AppState) -> ResultsService {
        ResultsService { results: Results::new(state) }
    }
}

#[tonic::async_trait]
impl pb::result_confirmation_service_server::ResultConfirmationService for ResultsService {
    #[tracing::instrument(name = "ResultConfirmationService.ProposeResult", skip_all, fields(game = %req.get_ref().game_id))]
    async fn propose_result(&self, req: Request<pb::ProposeResultRequest>) -> Result<Response<pb::ProposeResultResponse>, Status> {
        let c = auth::claims(&req)?;
        let r = self.results.propose(&c, convert::propose_result_from_pb(req.into_inner()).map_err(status)?).await.map_err(status)?;
        Ok(Response::new(pb::ProposeResultResponse { result: Some(convert::result_view_to_pb(&r)) }))
    }

    #[tracing::instrument(name = "ResultConfirmationService.ConfirmResult", skip_all, fields(game = %req.get_ref().game_id))]
    async fn confirm_result(&self, req: Request<pb::ConfirmResultRequest>) -> Result<Response<pb::ConfirmResultResponse>, Status> {
        let c = auth::claims(&req)?;
        let r = self.results.confirm(&c, convert::confirm_result_from_pb(req.get_ref()).map_err(status)?).await.map_err(status)?;
        Ok(Response::new(pb::ConfirmResultResponse { result: Some(convert::result_view_to_pb(&r)) }))
    }

    #[tracing::instrument(name = "ResultConfirmationService.Object", skip_all, fields(game = %req.get_ref().game_id))]
    async fn object(&self, req: Request<pb::ObjectRequest>) -> Result<Response<pb::ObjectResponse>, Status> {
        let c = auth::claims(&req)?;
        let case = self.results.object(&c, convert::objection_from_pb(req.into_inner()).map_err(status)?).await.map_err(status)?;
        Ok(Response::new(pb::ObjectResponse { case: Some(convert::case_pb(&case)) }))
    }

    #[tracing::instrument(name = "ResultConfirmationService.GetResult", skip_all, fields(game = %req.get_ref().game_id))]
    async fn get_result(&self, req: Request<pb::GetResultRequest>) -> Result<Response<pb::GetResultResponse>, Status> {
        let c = auth::claims(&req)?;
        let id = crate::app::games::uuid_field("game_id", &req.get_ref().game_id).map_err(status)?;
        Ok(Response::new(pb::GetResultResponse {
            result: Some(convert::result_view_to_pb(&self.results.get(&c, id).await.map_err(status)?)),
        }))
    }

    #[tracing::instrument(name = "ResultConfirmationService.ExportResults", skip_all)]
    async fn export_results(&self, req: Request<pb::ExportResultsRequest>) -> Result<Response<pb::ExportResultsResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(convert::export_to_pb(
            self.results.export(&c, convert::export_results_from_pb(req.into_inner()).map_err(status)?).await.map_err(status)?,
        )))
    }

    #[tracing::instrument(name = "ResultConfirmationService.CorrectResult", skip_all)]
    async fn correct_result(&self, req: Request<pb::CorrectResultRequest>) -> Result<Response<pb::CorrectResultResponse>, Status> {
        let c = auth::claims(&req)?;
        let r = self.results.correct(&c, convert::correct_result_from_pb(req.into_inner()).map_err(status)?).await.map_err(status)?;
        Ok(Response::new(pb::CorrectResultResponse { result: Some(convert::result_view_to_pb(&r)) }))
    }
}

/// Adds `ResultConfirmationService` and `ArbitrationService` to a router, both behind the
/// bearer-token interceptor of `auth`.
pub fn add_services(routes: &mut tonic::service::RoutesBuilder, state: &AppState, auth: &crate::auth::AuthConfig) {
    use tonic::service::interceptor::InterceptedService;
    let limit = crate::limits::MAX_REQUEST_BYTES;
    routes.add_service(InterceptedService::new(
        pb::result_confirmation_service_server::ResultConfirmationServiceServer::new(ResultsService::new(state.clone()))
            .max_decoding_message_size(limit),
        crate::auth::interceptor(auth),
    ));
    routes.add_service(InterceptedService::new(
        pb::arbitration_service_server::ArbitrationServiceServer::new(crate::grpc::arbitration::ArbitrationService::new(state.clone()))
            .max_decoding_message_size(limit),
        crate::auth::interceptor(auth),
    ));
}
