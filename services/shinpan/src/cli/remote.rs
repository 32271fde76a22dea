//! How the command line reaches a running server: the `--server` and `--token` options,
//! the connection, the bearer token on each request, a refusal as one line. Shared by the
//! client commands (`game`, `result`, `case`, `demo`, `bench`); it imports none of them.

use tonic::transport::Channel;
use tonic::Request;

/// Default server URL.
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:50051";

/// Server and token options shared by `result` and `case`.
#[derive(clap::Args, Debug, Clone)]
pub struct Connection {
    /// Server URL.
    #[arg(long, global = true, env = "SHINPAN_SERVER", default_value = DEFAULT_SERVER)]
    pub server: String,
    /// Bearer token (from `shinpan token issue`).
    #[arg(long, global = true, env = "SHINPAN_TOKEN", hide_env_values = true, default_value = "")]
    pub token: String,
}

/// A request with `authorization: Bearer <token>` (none when the token is empty).
pub fn authed<T>(msg: T, token: &str) -> Request<T> {
    let mut r = Request::new(msg);
    if !token.is_empty() {
        if let Ok(v) = format!("Bearer {token}").parse() {
            r.metadata_mut().insert("authorization", v);
        }
    }
    r
}

/// Connects to `url` (e.g. `http://127.0.0.1:50051`).
///
/// # Errors
/// A malformed URL, or the server cannot be reached: the message names the URL and says how
/// to start the server (`shinpan serve`) or point at another one (`--server`).
pub async fn channel(url: &str) -> anyhow::Result<Channel> {
    let endpoint = Channel::from_shared(url.to_string()).map_err(|e| anyhow::anyhow!("bad server URL {url}: {e}"))?;
    endpoint.connect().await.map_err(|e| {
        anyhow::anyhow!(
            "cannot reach the shinpan server at {url} ({e}): is `shinpan serve` running there? \
             Start it, or give the right address with --server (or SHINPAN_SERVER)"
        )
    })
}

/// The gRPC error as one line.
pub fn status_line(s: &tonic::Status) -> String {
    format!("{:?}: {}", s.code(), s.message())
}
