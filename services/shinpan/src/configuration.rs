//! Configuration of `shinpan serve` (and of the in-process servers of `demo` and `bench`),
//! from flags and the environment (clap `env`): every flag has an environment variable.

use crate::telemetry::{LogFormat, TelemetryConfig};
use std::net::SocketAddr;
use std::path::PathBuf;

/// Which gRPC services one process serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ServiceKind {
    /// Every service on one port (GameRecordingService, RuleValidationService, AdjudicationService,
    /// ResultConfirmationService, ArbitrationService): the simplest deployment for one machine.
    #[default]
    All,
    /// GameRecordingService only (needs the database; validates in-process unless
    /// --validation-url names a RuleValidationService server).
    Recording,
    /// RuleValidationService only (stateless: no database).
    Validation,
    /// AdjudicationService only.
    Adjudication,
    /// ResultConfirmationService and ArbitrationService.
    Results,
}

impl ServiceKind {
    /// The name used in `service.name` (`shinpan`, `shinpan-recording`, ...).
    pub fn service_name(self) -> &'static str {
        match self {
            ServiceKind::All => "shinpan",
            ServiceKind::Recording => "shinpan-recording",
            ServiceKind::Validation => "shinpan-validation",
            ServiceKind::Adjudication => "shinpan-adjudication",
            ServiceKind::Results => "shinpan-results",
        }
    }

    /// Whether this kind needs PostgreSQL.
    pub fn needs_database(self) -> bool {
        !matches!(self, ServiceKind::Validation)
    }
}

/// `shinpan serve`: run the gRPC services.
///
/// By default ALL services are served on ONE port (`--listen`, 127.0.0.1:50051), with
/// gRPC health (`grpc.health.v1.Health`) and server reflection. `--service X` serves just
/// one of them, so that each can be deployed and scaled on its own; then point the
/// recording service at the validation service with `--validation-url`.
///
/// Without `--database-url`/`DATABASE_URL`, a private PostgreSQL cluster is started (and
/// reused on the next start) under `<data-dir>/pg` on a free loopback port, restarted if it
/// dies, and stopped on exit; health is NOT_SERVING while the database does not answer. Stop the server with Ctrl-C or SIGTERM: in-flight calls finish first.
#[derive(clap::Args, Clone, Debug)]
pub struct ServeArgs {
    /// PostgreSQL URL, e.g. postgres://user:pass@host/db. Unset: the embedded private cluster.
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,

    /// Address to listen on (port 0 picks a free port).
    #[arg(long, env = "SHINPAN_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// Which service(s) to serve.
    #[arg(long, env = "SHINPAN_SERVICE", value_enum, default_value_t = ServiceKind::All)]
    pub service: ServiceKind,

    /// URL of a RuleValidationService server (e.g. http://127.0.0.1:50052) for the recording
    /// service; unset: validate in-process.
    #[arg(long, env = "SHINPAN_VALIDATION_URL")]
    pub validation_url: Option<String>,

    /// Directory for local state (the embedded cluster lives in its subdirectory pg).
    #[arg(long, env = "SHINPAN_DATA_DIR", default_value = ".shinpan")]
    pub data_dir: PathBuf,

    /// Maximum PostgreSQL connections in the pool.
    #[arg(long, env = "SHINPAN_DB_MAX_CONNECTIONS", default_value_t = 16)]
    pub max_connections: u32,

    /// Log level/filter when RUST_LOG is unset (e.g. info, shinpan=debug).
    #[arg(long, env = "SHINPAN_LOG", default_value = "info")]
    pub log: String,

    /// Log format.
    #[arg(long, env = "SHINPAN_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// OTLP/gRPC endpoint for spans (e.g. http://127.0.0.1:4317); unset: no export.
    #[arg(long, env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<String>,

    /// service.name of exported spans; default shinpan or shinpan-SERVICE (the --service value).
    #[arg(long, env = "OTEL_SERVICE_NAME")]
    pub otel_service_name: Option<String>,

    /// Secret that signs bearer tokens (HS256 JWT). Unset: the documented development
    /// default (`shinpan::auth::DEV_SECRET`), accepted on a loopback --listen address only:
    /// `serve` refuses to start on any other address without a secret of its own.
    #[arg(long, env = "SHINPAN_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,

    /// Which services require a bearer token: `results` (ResultConfirmationService and
    /// ArbitrationService) or `all` (GameRecordingService and AdjudicationService too; RuleValidationService, stateless,
    /// stays open).
    #[arg(long, env = "SHINPAN_AUTH", value_enum, default_value_t = crate::auth::AuthScope::Results)]
    pub auth: crate::auth::AuthScope,

    /// The largest node budget per region an `Adjudicate` request may ask for (nodes of
    /// hypothetical play; a larger one is INVALID_ARGUMENT): enough to reproduce every kakunin
    /// example (kakunin 4 needs about 400,000 in its region at 500,000 nodes, 370,000 at 2,000,000). Time and memory are bounded
    /// apart (--max-search-seconds, --max-search-memory).
    #[arg(long = "max-budget", env = "SHINPAN_MAX_BUDGET", default_value_t = DEFAULT_MAX_BUDGET)]
    pub max_budget_nodes: u64,

    /// Expensive calls (ValidateRecord, ImportSgf, Adjudicate, AdjudicateStream, Propose) a
    /// caller (a token's subject, else an IP address) may make a minute, in bursts of a
    /// quarter of that; one more is RESOURCE_EXHAUSTED naming this flag. 0 = no limit.
    #[arg(long, env = "SHINPAN_EXPENSIVE_CALLS_PER_MINUTE", default_value_t = crate::ratelimit::DEFAULT_PER_MINUTE)]
    pub expensive_calls_per_minute: u32,

    /// The most client connections open at once; a call on one more is refused with
    /// RESOURCE_EXHAUSTED naming this flag. Lowered at start to what the open-file limit
    /// (raised to its hard limit first) leaves room for: that limit minus 128 minus
    /// --max-connections.
    #[arg(long, env = "SHINPAN_MAX_CLIENT_CONNECTIONS", default_value_t = DEFAULT_MAX_CLIENT_CONNECTIONS)]
    pub max_client_connections: usize,

    /// Seconds a new connection has to send the HTTP/2 preface before it is closed.
    #[arg(long, env = "SHINPAN_HANDSHAKE_TIMEOUT", default_value_t = DEFAULT_HANDSHAKE_TIMEOUT_SECS, value_parser = positive_secs)]
    pub handshake_timeout: f64,

    /// Seconds a connection may stay without a call in progress before it is closed (an open
    /// WatchGame stream is a call in progress); 0: never.
    #[arg(long, env = "SHINPAN_IDLE_TIMEOUT", default_value_t = DEFAULT_IDLE_TIMEOUT_SECS, value_parser = non_negative_secs)]
    pub idle_timeout: f64,

    /// Seconds between the HTTP/2 PINGs the server sends on every connection; a client that
    /// does not answer one within --keepalive-timeout is disconnected. 0: no PINGs.
    #[arg(long, env = "SHINPAN_KEEPALIVE_INTERVAL", default_value_t = DEFAULT_KEEPALIVE_INTERVAL_SECS, value_parser = non_negative_secs)]
    pub keepalive_interval: f64,

    /// Seconds a client has to answer a keep-alive PING.
    #[arg(long, env = "SHINPAN_KEEPALIVE_TIMEOUT", default_value_t = DEFAULT_KEEPALIVE_TIMEOUT_SECS, value_parser = positive_secs)]
    pub keepalive_timeout: f64,

    /// The longest an adjudication searches, in seconds of wall time on its core (waiting for a
    /// core not counted): the search then stops and leaves what it has not decided
    /// UNDECIDED ("time budget exhausted"). A request's `budget_ms` may ask for less; more is
    /// INVALID_ARGUMENT.
    #[arg(long = "max-search-seconds", env = "SHINPAN_MAX_SEARCH_SECONDS", default_value_t = DEFAULT_MAX_SEARCH_SECONDS)]
    pub max_search_seconds: u64,

    /// Memory cap of one adjudication's search tables, in MiB: reached, the search stops and
    /// leaves what it has not decided UNDECIDED ("memory cap of N MiB reached"). One search
    /// runs per core, so the searches together take at most this times the cores.
    #[arg(long = "max-search-memory", env = "SHINPAN_MAX_SEARCH_MEMORY_MIB", default_value_t = DEFAULT_MAX_SEARCH_MEMORY_MIB)]
    pub max_search_memory_mib: u64,
}

/// Default of [`ServeArgs::max_client_connections`]: room for every board of a large
/// tournament (a recording client per board, watchers, arbiters) many times over.
pub const DEFAULT_MAX_CLIENT_CONNECTIONS: usize = 4096;

/// Default of [`ServeArgs::handshake_timeout`], seconds (a client on a slow network sends
/// the preface within one round trip of connecting).
pub const DEFAULT_HANDSHAKE_TIMEOUT_SECS: f64 = 10.0;

/// Default of [`ServeArgs::idle_timeout`], seconds.
pub const DEFAULT_IDLE_TIMEOUT_SECS: f64 = 600.0;

/// Default of [`ServeArgs::keepalive_interval`], seconds.
pub const DEFAULT_KEEPALIVE_INTERVAL_SECS: f64 = 60.0;

/// Default of [`ServeArgs::keepalive_timeout`], seconds.
pub const DEFAULT_KEEPALIVE_TIMEOUT_SECS: f64 = 20.0;

/// Parses a number of seconds greater than 0 (at most a year).
fn positive_secs(s: &str) -> Result<f64, String> {
    let v = non_negative_secs(s)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err("must be more than 0 seconds".into())
    }
}

/// Parses a number of seconds, 0 or more (at most a year).
fn non_negative_secs(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if v.is_finite() && (0.0..=31_536_000.0).contains(&v) {
        Ok(v)
    } else {
        Err("must be between 0 and 31536000 seconds".into())
    }
}

/// `Some(duration)` of a number of seconds, `None` for 0.
fn secs(v: f64) -> Option<std::time::Duration> {
    (v > 0.0).then(|| std::time::Duration::from_secs_f64(v))
}

/// Default of [`ServeArgs::max_search_seconds`]: a minute (an open board at the largest
/// budget reaches the memory cap in about half of it).
pub const DEFAULT_MAX_SEARCH_SECONDS: u64 = 60;

/// Default of [`ServeArgs::max_search_memory_mib`]: the adjudicator's own default
/// ([`shinpan_adjudicator::DEFAULT_MAX_MEMORY_BYTES`], 1 GiB).
pub const DEFAULT_MAX_SEARCH_MEMORY_MIB: u64 = shinpan_adjudicator::DEFAULT_MAX_MEMORY_BYTES >> 20;

/// Default of [`ServeArgs::max_budget_nodes`].
pub const DEFAULT_MAX_BUDGET: u64 = 100_000_000;

impl ServeArgs {
    /// Defaults for an in-process server (tests, demo, bench): listen on 127.0.0.1:0, all
    /// services, the given database (None = embedded under `data_dir`), no rate limit on the
    /// expensive calls (the demo and tests make them in loops from one caller); otherwise
    /// `shinpan serve`'s defaults.
    pub fn local(database_url: Option<String>, data_dir: PathBuf) -> ServeArgs {
        ServeArgs {
            database_url,
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            service: ServiceKind::All,
            validation_url: None,
            data_dir,
            max_connections: 16,
            log: "info".into(),
            log_format: LogFormat::Text,
            otlp_endpoint: None,
            otel_service_name: None,
            jwt_secret: None,
            auth: crate::auth::AuthScope::Results,
            max_budget_nodes: DEFAULT_MAX_BUDGET,
            expensive_calls_per_minute: 0,
            max_client_connections: DEFAULT_MAX_CLIENT_CONNECTIONS,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT_SECS,
            idle_timeout: DEFAULT_IDLE_TIMEOUT_SECS,
            keepalive_interval: DEFAULT_KEEPALIVE_INTERVAL_SECS,
            keepalive_timeout: DEFAULT_KEEPALIVE_TIMEOUT_SECS,
            max_search_seconds: DEFAULT_MAX_SEARCH_SECONDS,
            max_search_memory_mib: DEFAULT_MAX_SEARCH_MEMORY_MIB,
        }
    }

    /// The connection limits of these arguments, the cap lowered to what an open-file limit
    /// of `open_files` descriptors leaves room for ([`crate::connections::connection_budget`];
    /// `None`: unknown, the flag as given).
    pub fn connection_limits(&self, open_files: Option<u64>) -> crate::connections::ConnectionLimits {
        let budget = open_files.map_or(usize::MAX, |n| crate::connections::connection_budget(n, self.max_connections));
        crate::connections::ConnectionLimits {
            max_connections: self.max_client_connections.clamp(1, budget),
            handshake_timeout: secs(self.handshake_timeout).unwrap_or(std::time::Duration::from_secs(1)),
            idle_timeout: secs(self.idle_timeout),
        }
    }

    /// The bounds of every adjudication's search (`--max-search-seconds`,
    /// `--max-search-memory`, in MiB).
    pub fn search_limits(&self) -> crate::app::adjudication::SearchLimits {
        crate::app::adjudication::SearchLimits {
            max_time: std::time::Duration::from_secs(self.max_search_seconds),
            max_memory_bytes: self.max_search_memory_mib.saturating_mul(1 << 20),
        }
    }

    /// The HTTP/2 keep-alive PING interval (`None`: no PINGs) and timeout.
    pub fn keepalive(&self) -> (Option<std::time::Duration>, Option<std::time::Duration>) {
        (secs(self.keepalive_interval), secs(self.keepalive_timeout))
    }

    /// The telemetry settings of these arguments.
    pub fn telemetry(&self) -> TelemetryConfig {
        TelemetryConfig {
            level: self.log.clone(),
            format: self.log_format,
            otlp_endpoint: self.otlp_endpoint.clone().filter(|s| !s.trim().is_empty()),
            service_name: self.otel_service_name.clone().unwrap_or_else(|| self.service.service_name().to_string()),
        }
    }
}
