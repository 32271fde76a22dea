//! `AdjudicationService`: the transport of adjudication ([`crate::app::adjudication`]): the
//! call's deadline (`grpc-timeout`) and the rate limit of the expensive calls are read here,
//! the rest is the use case's.

use crate::app::adjudication;
use crate::app::AppState;
use crate::auth::Claims;
use crate::error::status;
use crate::grpc::convert;
use futures::StreamExt;
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::adjudication_service_server::AdjudicationServiceServer;
use std::pin::Pin;
use std::time::Duration;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

/// The call's deadline from its `grpc-timeout` header (gRPC over HTTP/2: at most 8 digits
/// and a unit, `H` hours, `M` minutes, `S` seconds, `m` milliseconds, `u` microseconds, `n`
/// nanoseconds), if it has a valid one.
pub fn grpc_timeout(meta: &tonic::metadata::MetadataMap) -> Option<Duration> {
    let v = meta.get("grpc-timeout")?.to_str().ok()?;
    let (digits, unit) = v.split_at(v.len().checked_sub(1)?);
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n * 3600),
        "M" => Duration::from_secs(n * 60),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// The `AdjudicationService` gRPC service.
#[derive(Clone)]
pub struct AdjudicationService {
    state: AppState,
}

impl AdjudicationService {
    /// A service over the shared state (the store is needed for stored games only).
    pub fn new(state: AppState) -> AdjudicationService {
        AdjudicationService { state }
    }
}

type ProgressStream = Pin<Box<dyn Stream<Item = Result<pb::AdjudicateStreamResponse, Status>> + Send>>;

#[tonic::async_trait]
impl pb::adjudication_service_server::AdjudicationService for AdjudicationService {
    async fn adjudicate(&self, req: Request<pb::AdjudicateRequest>) -> Result<Response<pb::AdjudicateResponse>, Status> {
        crate::ratelimit::admit(&self.state.expensive, &req, "Adjudicate")?;
        let timeout = grpc_timeout(req.metadata());
        let claims = req.extensions().get::<Claims>().cloned();
        let cmd = convert::adjudicate_from_pb(req.get_ref()).map_err(status)?;
        let answer = adjudication::adjudicate(&self.state, claims.as_ref(), &cmd, timeout).await.map_err(status)?;
        Ok(Response::new(convert::adjudicated_to_pb(&answer)))
    }

    async fn propose(&self, req: Request<pb::ProposeRequest>) -> Result<Response<pb::ProposeResponse>, Status> {
        crate::ratelimit::admit(&self.state.expensive, &req, "Propose")?;
        let timeout = grpc_timeout(req.metadata());
        let cmd = convert::adjudicate_from_pb(&req.into_inner().request.unwrap_or_default()).map_err(status)?;
        Ok(Response::new(convert::proposed_to_pb(&adjudication::propose(&self.state, &cmd, timeout).await.map_err(status)?)))
    }

    type AdjudicateStreamStream = ProgressStream;

    async fn adjudicate_stream(&self, req: Request<pb::AdjudicateStreamRequest>) -> Result<Response<ProgressStream>, Status> {
        crate::ratelimit::admit(&self.state.expensive, &req, "AdjudicateStream")?;
        let timeout = grpc_timeout(req.metadata());
        let claims = req.extensions().get::<Claims>().cloned();
        let cmd = convert::adjudicate_from_pb(&req.into_inner().request.unwrap_or_default()).map_err(status)?;
        let progress = adjudication::adjudicate_stream(&self.state, claims.as_ref(), &cmd, timeout).await.map_err(status)?;
        Ok(Response::new(progress.map(|m| m.map(|p| convert::progress_to_pb(&p)).map_err(status)).boxed()))
    }
}
/// Adds `AdjudicationService` to a router: behind the bearer-token interceptor of `auth`
/// when `auth_all` (`--auth all`), else open (as `GameRecordingService`).
pub fn add_service(routes: &mut tonic::service::RoutesBuilder, state: &AppState, auth: &crate::auth::AuthConfig, auth_all: bool) {
    let svc = AdjudicationService::new(state.clone());
    if auth_all {
        routes.add_service(tonic::service::interceptor::InterceptedService::new(
            AdjudicationServiceServer::new(svc).max_decoding_message_size(crate::limits::MAX_REQUEST_BYTES),
            crate::auth::interceptor(auth),
        ));
    } else {
        routes.add_service(AdjudicationServiceServer::new(svc).max_decoding_message_size(crate::limits::MAX_REQUEST_BYTES));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_timeout_headers_are_read_as_the_protocol_writes_them() {
        let t = |v: &str| {
            let mut m = tonic::metadata::MetadataMap::new();
            m.insert("grpc-timeout", v.parse().unwrap());
            grpc_timeout(&m)
        };
        assert_eq!(t("2000m"), Some(Duration::from_millis(2000)));
        assert_eq!(t("3S"), Some(Duration::from_secs(3)));
        assert_eq!(t("1H"), Some(Duration::from_secs(3600)));
        assert_eq!(t("2M"), Some(Duration::from_secs(120)));
        assert_eq!(t("99999999u"), Some(Duration::from_micros(99_999_999)));
        assert_eq!(t("5n"), Some(Duration::from_nanos(5)));
        for bad in ["", "m", "123456789m", "12x", "-1S", "1.5S"] {
            assert_eq!(t(bad), None, "{bad:?}");
        }
        assert_eq!(grpc_timeout(&tonic::metadata::MetadataMap::new()), None);
    }
}
