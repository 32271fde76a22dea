//! Health, reflection, and the services deployed as separate processes.

use shinpan::configuration::ServiceKind;
use shinpan_e2e::{new_game, play, TestApp};
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::Color::{Black, White};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
use tonic_reflection::pb::v1::ServerReflectionRequest;

async fn health(app: &TestApp, service: &str) -> Result<i32, tonic::Status> {
    let mut h = HealthClient::new(app.channel.clone());
    Ok(h.check(HealthCheckRequest { service: service.into() }).await?.into_inner().status)
}

async fn reflected_services(app: &TestApp) -> Vec<String> {
    let mut r = ServerReflectionClient::new(app.channel.clone());
    let req = ServerReflectionRequest { host: String::new(), message_request: Some(MessageRequest::ListServices(String::new())) };
    let mut stream = r.server_reflection_info(futures::stream::iter(vec![req])).await.unwrap().into_inner();
    let resp = stream.message().await.unwrap().expect("a reflection answer");
    match resp.message_response {
        Some(MessageResponse::ListServicesResponse(l)) => {
            let mut v: Vec<String> = l.service.into_iter().map(|s| s.name).collect();
            v.sort();
            v
        }
        other => panic!("unexpected reflection answer {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_is_serving_and_reflection_lists_the_services() {
    let app = TestApp::spawn().await;
    assert_eq!(health(&app, "").await.unwrap(), ServingStatus::Serving as i32);
    for s in [shinpan_proto::service_names::GAME_RECORDING, shinpan_proto::service_names::RULE_VALIDATION] {
        assert_eq!(health(&app, s).await.unwrap(), ServingStatus::Serving as i32, "{s}");
    }
    assert_eq!(health(&app, "no.such.Service").await.unwrap_err().code(), tonic::Code::NotFound);
    let services = reflected_services(&app).await;
    for s in ["grpc.health.v1.Health", "shinpan.v1.GameRecordingService", "shinpan.v1.RuleValidationService"] {
        assert!(services.iter().any(|x| x == s), "{s} missing from {services:?}");
    }
    // The descriptor of a service can be fetched (clients like grpcurl need it).
    let mut r = ServerReflectionClient::new(app.channel.clone());
    let req = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::FileContainingSymbol("shinpan.v1.GameRecordingService".into())),
    };
    let resp = r.server_reflection_info(futures::stream::iter(vec![req])).await.unwrap().into_inner().message().await.unwrap().unwrap();
    assert!(matches!(resp.message_response, Some(MessageResponse::FileDescriptorResponse(ref f)) if !f.file_descriptor_proto.is_empty()));
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recording_validates_through_a_separate_validation_service() {
    let validation = TestApp::spawn_with(ServiceKind::Validation, None, false).await;
    assert_eq!(health(&validation, shinpan_proto::service_names::RULE_VALIDATION).await.unwrap(), ServingStatus::Serving as i32);
    // The validation process serves only validation.
    let err = validation.recording().get_game(pb::GetGameRequest { game_id: uuid::Uuid::new_v4().to_string() }).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::Unimplemented);

    let recording = TestApp::spawn_with(ServiceKind::Recording, Some(validation.url.clone()), true).await;
    let services = reflected_services(&recording).await;
    assert!(services.contains(&"shinpan.v1.GameRecordingService".to_string()));
    assert!(!services.contains(&"shinpan.v1.RuleValidationService".to_string()));
    let mut client = recording.recording();
    let game = client.create_game(new_game("Split Cup", 1, 9)).await.unwrap().into_inner().game.unwrap();
    let req = |n: u32, m: pb::Move| pb::RecordMoveRequest {
        game_id: game.id.clone(),
        move_number: n,
        r#move: Some(m),
        client_time: None,
        idempotency_key: String::new(),
    };
    assert!(client.record_move(req(1, play(Black, "ee"))).await.unwrap().into_inner().legal);
    let foul = client.record_move(req(2, play(White, "ee"))).await.unwrap().into_inner();
    assert_eq!(foul.foul.map(|f| f.rule), Some("occupied".to_string()));
    // With the validation service gone, recording is UNAVAILABLE, and nothing is stored.
    validation.stop().await;
    let down = client.record_move(req(2, play(White, "cc"))).await.unwrap_err();
    assert_eq!(down.code(), tonic::Code::Unavailable, "{down:?}");
    let g = client.get_game(pb::GetGameRequest { game_id: game.id.clone() }).await.unwrap().into_inner().game.unwrap();
    assert_eq!(g.move_number, 1);
    recording.stop().await;
}
