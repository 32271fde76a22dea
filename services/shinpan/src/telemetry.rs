//! Structured logging through `tracing`, and optional export of spans over OTLP/gRPC.
//!
//! * Logs go to stderr (`text` or `json`), filtered by `RUST_LOG` or the `--log` level.
//! * When an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`, e.g.
//!   `http://127.0.0.1:4317`), every `tracing` span is also exported as an OpenTelemetry
//!   span by a batch exporter over OTLP/gRPC (opentelemetry-otlp, tonic), with the resource
//!   attribute `service.name` set to the configured service name.
//! * The W3C trace context (`traceparent`/`tracestate` metadata) is the global text-map
//!   propagator: [`inject_current`] puts the current span's context into outgoing gRPC
//!   metadata and [`server_span`] makes the span of an incoming request a child of the
//!   caller's, so one trace spans the recording and validation services.

use opentelemetry::propagation::{Extractor, Injector};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tonic::codegen::http;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::EnvFilter;

/// Log output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per event.
    Json,
}

/// What [`init`] needs to know.
#[derive(Clone, Debug)]
pub struct TelemetryConfig {
    /// Default filter when `RUST_LOG` is unset, e.g. `"info"` or `"shinpan=debug,info"`.
    pub level: String,
    /// Log format.
    pub format: LogFormat,
    /// OTLP/gRPC endpoint (`http://host:4317`); `None` = no span export.
    pub otlp_endpoint: Option<String>,
    /// The `service.name` resource attribute, e.g. `"shinpan-recording"`.
    pub service_name: String,
}

/// Keeps the tracer provider alive; [`TelemetryGuard::shutdown`] flushes pending spans.
#[must_use = "dropping the guard does not flush spans; call shutdown()"]
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
}

impl TelemetryGuard {
    /// True when spans are exported over OTLP.
    pub fn exporting(&self) -> bool {
        self.provider.is_some()
    }

    /// Exports every span ended so far (blocking call run off the async runtime).
    pub async fn flush(&self) {
        if let Some(p) = self.provider.clone() {
            let _ = tokio::task::spawn_blocking(move || p.force_flush()).await;
        }
    }

    /// Flushes and stops the exporter. Call once, before the process exits.
    pub async fn shutdown(mut self) {
        if let Some(p) = self.provider.take() {
            let _ = tokio::task::spawn_blocking(move || {
                let _ = p.force_flush();
                p.shutdown()
            })
            .await;
        }
    }
}

/// Errors of [`init`].
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// The OTLP exporter could not be built (bad endpoint URL).
    #[error("cannot build the OTLP exporter for {endpoint}: {source}")]
    Exporter {
        /// The endpoint given.
        endpoint: String,
        /// Why.
        source: opentelemetry_otlp::ExporterBuildError,
    },
    /// A global subscriber was already installed.
    #[error("a tracing subscriber is already installed: {0}")]
    AlreadyInstalled(String),
}

/// Installs the global `tracing` subscriber (and the OTLP exporter when configured) and the
/// W3C trace-context propagator. Must run inside a Tokio runtime (the exporter's tonic
/// channel needs one). Errors if a global subscriber is already set.
pub fn init(config: &TelemetryConfig) -> Result<TelemetryGuard, TelemetryError> {
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(config.level.clone()));
    let provider = match &config.otlp_endpoint {
        Some(endpoint) if !endpoint.trim().is_empty() => {
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_tonic()
                .with_endpoint(endpoint.clone())
                .build()
                .map_err(|source| TelemetryError::Exporter { endpoint: endpoint.clone(), source })?;
            let resource = Resource::builder().with_service_name(config.service_name.clone()).build();
            Some(SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build())
        }
        _ => None,
    };
    let otel_layer = provider.as_ref().map(|p| tracing_opentelemetry::layer().with_tracer(p.tracer(config.service_name.clone())));
    let registry = tracing_subscriber::registry().with(filter).with(otel_layer);
    let result = match config.format {
        LogFormat::Text => {
            // Colour codes only on a terminal: a redirected log stays plain text.
            let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
            registry.with(tracing_subscriber::fmt::layer().with_ansi(ansi).with_writer(std::io::stderr)).try_init()
        }
        LogFormat::Json => registry.with(tracing_subscriber::fmt::layer().json().with_writer(std::io::stderr)).try_init(),
    };
    result.map_err(|e| TelemetryError::AlreadyInstalled(e.to_string()))?;
    if let Some(p) = &provider {
        opentelemetry::global::set_tracer_provider(p.clone());
    }
    Ok(TelemetryGuard { provider })
}

struct HeaderExtractor<'a>(&'a http::HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }
    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

/// The span of one incoming gRPC request (`grpc.request`, with the method path), child of
/// the caller's span when the request carries a W3C trace context. Used as the server's
/// `trace_fn`.
pub fn server_span(req: &http::Request<()>) -> tracing::Span {
    let span = tracing::info_span!(
        "grpc.request",
        otel.kind = "server",
        rpc.system = "grpc",
        rpc.method = %req.uri().path(),
    );
    let parent = opentelemetry::global::get_text_map_propagator(|p| p.extract(&HeaderExtractor(req.headers())));
    use opentelemetry::trace::TraceContextExt as _;
    if parent.span().span_context().is_valid() {
        let _ = span.set_parent(parent);
    }
    span
}

// The trace context of the calling span carried to the services this process calls (W3C
// `traceparent`, `tracestate` in the gRPC metadata).

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
