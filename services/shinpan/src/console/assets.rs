//! The console's style sheet and script, compiled into the binary.

use axum::http::header;
use axum::response::IntoResponse;

/// The style sheet.
pub const CSS: &str = include_str!("console.css");
/// The script: follows a page's server-sent events and swaps in the fragments they carry.
pub const JS: &str = include_str!("console.js");

/// `GET /console/assets/console.css`.
pub async fn css() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8"), (header::CACHE_CONTROL, "max-age=3600")], CSS)
}

/// `GET /console/assets/console.js`.
pub async fn js() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8"), (header::CACHE_CONTROL, "max-age=3600")], JS)
}
