//! Errors of the server process ([`StartupError`]), and the application layer's error enum
//! with its mapping to gRPC statuses (re-exported from `shinpan_application::error`).

pub use shinpan_application::error::*;

/// Errors of starting or running the server process.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// Bad configuration (flags, environment).
    #[error("configuration: {0}")]
    Config(String),
    /// The listen address cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// The database cannot be opened or migrated, or the embedded cluster cannot start.
    #[error("database: {0}")]
    Database(String),
    /// Telemetry could not be set up.
    #[error(transparent)]
    Telemetry(#[from] crate::telemetry::TelemetryError),
    /// The gRPC server failed.
    #[error("server: {0}")]
    Serve(#[from] tonic::transport::Error),
}
