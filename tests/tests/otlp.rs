//! OpenTelemetry export: with an OTLP endpoint configured, the server's spans reach a real
//! OTLP/gRPC receiver (a tonic server implementing opentelemetry-proto's TraceService) with
//! the configured `service.name`, and one trace spans the recording service and the separate
//! validation service it calls (W3C trace context in the gRPC metadata).
//!
//! Its own test binary: it installs the process-wide tracing subscriber.

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{TraceService, TraceServiceServer};
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use shinpan::configuration::ServiceKind;
use shinpan::telemetry::{LogFormat, TelemetryConfig};
use shinpan_e2e::{new_game, play, TestApp};
use shinpan_proto::v1 as pb;
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
struct Receiver {
    got: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
}

#[tonic::async_trait]
impl TraceService for Receiver {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        self.got.lock().unwrap().push(request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse { partial_success: None }))
    }
}

/// (service.name, span name, trace id, span id, parent span id) of a received span.
type SpanInfo = (String, String, Vec<u8>, Vec<u8>, Vec<u8>);

/// Every received span.
fn spans(got: &[ExportTraceServiceRequest]) -> Vec<SpanInfo> {
    let mut out = Vec::new();
    for req in got {
        for rs in &req.resource_spans {
            let service = rs
                .resource
                .as_ref()
                .and_then(|r| r.attributes.iter().find(|a| a.key == "service.name"))
                .and_then(|a| a.value.as_ref())
                .and_then(|v| match &v.value {
                    Some(Value::StringValue(s)) => Some(s.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            for ss in &rs.scope_spans {
                for s in &ss.spans {
                    out.push((service.clone(), s.name.clone(), s.trace_id.clone(), s.span_id.clone(), s.parent_span_id.clone()));
                }
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_reach_a_real_otlp_receiver_with_the_service_name_and_one_trace_spans_both_services() {
    // The receiver.
    let receiver = Receiver::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let incoming = tonic::transport::server::TcpIncoming::from(listener);
    let svc = TraceServiceServer::new(receiver.clone());
    tokio::spawn(async move {
        tonic::transport::Server::builder().add_service(svc).serve_with_incoming(incoming).await.unwrap();
    });

    // What `shinpan serve` does with OTEL_EXPORTER_OTLP_ENDPOINT set.
    let guard = shinpan::telemetry::init(&TelemetryConfig {
        level: "info".into(),
        format: LogFormat::Text,
        otlp_endpoint: Some(format!("http://{addr}")),
        service_name: "shinpan-otlp-test".into(),
    })
    .expect("telemetry starts");
    assert!(guard.exporting());

    let validation = TestApp::spawn_with(ServiceKind::Validation, None, false).await;
    let recording = TestApp::spawn_with(ServiceKind::Recording, Some(validation.url.clone()), true).await;
    let mut client = recording.recording();
    let game = client.create_game(new_game("Trace Cup", 1, 9)).await.unwrap().into_inner().game.unwrap();
    let r = client
        .record_move(pb::RecordMoveRequest {
            game_id: game.id.clone(),
            move_number: 1,
            r#move: Some(play(pb::Color::Black, "ee")),
            client_time: None,
            idempotency_key: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(r.legal);
    guard.flush().await;

    let mut found = Vec::new();
    for _ in 0..100 {
        found = spans(&receiver.got.lock().unwrap());
        if found.iter().any(|s| s.1 == "RuleValidationService.ValidateMove")
            && found.iter().any(|s| s.1 == "GameRecordingService.RecordMove")
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        guard.flush().await;
    }
    assert!(!found.is_empty(), "the receiver got spans");
    assert!(
        found.iter().all(|s| s.0 == "shinpan-otlp-test"),
        "service.name on every span: {:?}",
        found.iter().map(|s| &s.0).collect::<Vec<_>>()
    );
    let record = found.iter().find(|s| s.1 == "GameRecordingService.RecordMove").expect("the RecordMove span");
    let validate = found.iter().find(|s| s.1 == "RuleValidationService.ValidateMove").expect("the ValidateMove span");
    assert_eq!(record.2, validate.2, "one trace spans the recording and the validation service");
    // The validation service's request span is a child of a span of the recording side.
    let ids: std::collections::HashSet<_> = found.iter().filter(|s| s.2 == record.2).map(|s| s.3.clone()).collect();
    assert!(!validate.4.is_empty() && ids.contains(&validate.4), "ValidateMove has a parent in the same trace");
    recording.stop().await;
    validation.stop().await;
    guard.shutdown().await;
}
