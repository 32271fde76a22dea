//! The trace context of the calling span carried to the services this process calls (W3C
//! `traceparent`, `tracestate` in the gRPC metadata).

use opentelemetry::propagation::Injector;
use tracing_opentelemetry::OpenTelemetrySpanExt;

struct MetadataInjector<'a>(&'a mut tonic::metadata::MetadataMap);

impl Injector for MetadataInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(k), Ok(v)) =
            (tonic::metadata::MetadataKey::from_bytes(key.as_bytes()), tonic::metadata::MetadataValue::try_from(value.as_str()))
        {
            self.0.insert(k, v);
        }
    }
}

/// Writes the current span's trace context (W3C `traceparent`, `tracestate`) into gRPC
/// request metadata. A no-op when no OpenTelemetry layer is installed.
pub fn inject_current(metadata: &mut tonic::metadata::MetadataMap) {
    let cx = tracing::Span::current().context();
    opentelemetry::global::get_text_map_propagator(|p| p.inject_context(&cx, &mut MetadataInjector(metadata)));
}

/// A tonic client interceptor that propagates the trace context of the calling span.
#[derive(Clone, Copy, Debug, Default)]
pub struct TracePropagation;

impl tonic::service::Interceptor for TracePropagation {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        inject_current(req.metadata_mut());
        Ok(req)
    }
}
