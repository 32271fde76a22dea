//! `GameRecordingService`: the transport of recording ([`crate::app::recording`]). Open by
//! default; behind tokens (`--auth all`) the caller's claims come from the interceptor and
//! the use cases apply the role rules. Each handler decodes its request into the use case's
//! command ([`crate::grpc::convert`]), calls it and encodes its answer.

use crate::app::recording::Recording;
use crate::app::AppState;
use crate::auth::Claims;
use crate::error::status;
use crate::grpc::convert;
use futures::{Stream, StreamExt};
use shinpan_proto::v1 as pb;
use std::pin::Pin;
use std::sync::Arc;
use tonic::{Request, Response, Status};

/// The `GameRecordingService` gRPC service.
#[derive(Clone)]
pub struct RecordingService {
    recording: Recording,
    expensive: crate::ratelimit::ExpensiveCalls,
}

impl RecordingService {
    /// A service on the shared state (which must have a store).
    pub fn new(state: AppState) -> RecordingService {
        RecordingService { expensive: state.expensive.clone(), recording: Recording::new(state, Arc::new(convert::StoredAnswers)) }
    }
}

/// The stream type of `WatchGame`.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<pb::WatchGameResponse, Status>> + Send>>;

#[tonic::async_trait]
impl pb::game_recording_service_server::GameRecordingService for RecordingService {
    #[tracing::instrument(name = "GameRecordingService.CreateGame", skip_all)]
    async fn create_game(&self, req: Request<pb::CreateGameRequest>) -> Result<Response<pb::CreateGameResponse>, Status> {
        let claims = req.extensions().get::<Claims>().cloned();
        let game = self.recording.create_game(claims.as_ref(), convert::create_game_from_pb(req.get_ref())).await.map_err(status)?;
        Ok(Response::new(pb::CreateGameResponse { game: Some(convert::game_to_pb(&game)) }))
    }

    #[tracing::instrument(name = "GameRecordingService.RecordMove", skip_all, fields(game = %req.get_ref().game_id, move_number = req.get_ref().move_number))]
    async fn record_move(&self, req: Request<pb::RecordMoveRequest>) -> Result<Response<pb::RecordMoveResponse>, Status> {
        let claims = req.extensions().get::<Claims>().cloned();
        let recorded = self.recording.record_move(claims.as_ref(), convert::record_move_from_pb(req.into_inner())).await.map_err(status)?;
        Ok(Response::new(convert::recorded_to_pb(&recorded)))
    }

    #[tracing::instrument(name = "GameRecordingService.Resign", skip_all)]
    async fn resign(&self, req: Request<pb::ResignRequest>) -> Result<Response<pb::ResignResponse>, Status> {
        let claims = req.extensions().get::<Claims>().cloned();
        let game = self.recording.resign(claims.as_ref(), convert::resign_from_pb(req.into_inner())).await.map_err(status)?;
        Ok(Response::new(pb::ResignResponse { game: Some(convert::game_to_pb(&game)) }))
    }

    #[tracing::instrument(name = "GameRecordingService.GetGame", skip_all)]
    async fn get_game(&self, req: Request<pb::GetGameRequest>) -> Result<Response<pb::GetGameResponse>, Status> {
        let game = self.recording.get_game(&req.get_ref().game_id).await.map_err(status)?;
        Ok(Response::new(pb::GetGameResponse { game: Some(convert::game_to_pb(&game)) }))
    }

    #[tracing::instrument(name = "GameRecordingService.ListGames", skip_all)]
    async fn list_games(&self, req: Request<pb::ListGamesRequest>) -> Result<Response<pb::ListGamesResponse>, Status> {
        let games = self.recording.list_games(convert::list_games_from_pb(req.into_inner())).await.map_err(status)?;
        Ok(Response::new(pb::ListGamesResponse { games: games.iter().map(convert::game_to_pb).collect() }))
    }

    type WatchGameStream = EventStream;

    #[tracing::instrument(name = "GameRecordingService.WatchGame", skip_all)]
    async fn watch_game(&self, req: Request<pb::WatchGameRequest>) -> Result<Response<EventStream>, Status> {
        let events = self.recording.watch(convert::watch_game_from_pb(req.into_inner())).await.map_err(status)?;
        Ok(Response::new(
            events.map(|e| e.map(|e| pb::WatchGameResponse { event: Some(convert::event_to_pb(&e)) }).map_err(status)).boxed(),
        ))
    }

    #[tracing::instrument(name = "GameRecordingService.ImportSgf", skip_all)]
    async fn import_sgf(&self, req: Request<pb::ImportSgfRequest>) -> Result<Response<pb::ImportSgfResponse>, Status> {
        crate::limits::check(&[("tournament", &req.get_ref().tournament, crate::limits::MAX_NAME_BYTES)]).map_err(status)?;
        self.recording.may_organise(req.extensions().get(), &req.get_ref().tournament).await.map_err(status)?;
        crate::ratelimit::admit(&self.expensive, &req, "ImportSgf")?;
        let r = self.recording.import(convert::import_sgf_from_pb(req.into_inner())).await.map_err(status)?;
        tracing::info!(game = %r.game.game.id, moves = r.moves, "record imported");
        Ok(Response::new(convert::imported_to_pb(&r)))
    }

    #[tracing::instrument(name = "GameRecordingService.ExportSgf", skip_all)]
    async fn export_sgf(&self, req: Request<pb::ExportSgfRequest>) -> Result<Response<pb::ExportSgfResponse>, Status> {
        Ok(Response::new(pb::ExportSgfResponse { sgf: self.recording.export(&req.get_ref().game_id).await.map_err(status)? }))
    }
}
