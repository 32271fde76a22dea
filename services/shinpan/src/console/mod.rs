//! The referee console: shinpan in the browser, served by `shinpan serve` on the same
//! listener as the gRPC services (under `/console`).
//!
//! Pages are drawn on the server (HTML from [`maud`] templates, the board as SVG, see
//! [`board`]) and kept live with server-sent events: the tournament view re-reads the games
//! and the open cases every [`TOURNAMENT_REFRESH`], a game's page follows the game's event
//! log (`WatchGame`) and receives each new position as it is recorded. The one script and
//! style sheet are compiled into the binary ([`assets`]); nothing is fetched from elsewhere.
//!
//! A person signs in by pasting a role token (`shinpan token issue …`), or with a one-time
//! code an official created in the console for a player (or a chief arbiter for a referee)
//! of their tournament ([`Console::new_code`]; kept in the database for [`CODE_LIFETIME`], so
//! that any replica exchanges it, once). The token is verified with
//! the server's JWT secret and kept in an HttpOnly, SameSite=Lax cookie (sent when a link to a page is followed from elsewhere, never with a form posted from another site). Every action
//! calls the use cases of [`crate::app`] with the token's claims, as the gRPC services do, so
//! the console refuses exactly what the API refuses, and it offers only what the role may do
//! ([`crate::auth::Claims`]). Labels come in English and Japanese ([`i18n`]); refusals
//! are written as sentences citing the article ([`errors`]).

pub mod assets;
pub mod board;
pub mod errors;
pub mod i18n;
pub mod pages;

use crate::app::arbitration::Arbitration;
use crate::app::recording::Recording;
use crate::app::results::Results;
use crate::app::AppState;
use crate::auth::{AuthConfig, Claims};
use crate::error::status;
use axum::http::HeaderMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uuid::Uuid;

/// The cookie that holds the role token.
pub const TOKEN_COOKIE: &str = "shinpan_token";
/// The cookie that holds the chosen language.
pub const LANG_COOKIE: &str = "shinpan_lang";
/// How long a one-time sign-in code can be exchanged for its token.
pub const CODE_LIFETIME: Duration = Duration::from_secs(10 * 60);
/// How long the token a one-time code stands for lives (at most the issuer's own token's life).
pub const CODE_TOKEN_LIFETIME_SECS: u64 = 12 * 3600;

/// How often the tournament view's live stream re-reads the games and cases.
pub const TOURNAMENT_REFRESH: Duration = Duration::from_secs(2);

/// What the console's handlers share: the use cases they call ([`crate::app`]) and the
/// verifier of tokens.
#[derive(Clone)]
pub struct Console {
    /// The shared state of the services (store, shutdown signal).
    pub state: AppState,
    /// Verifies the role tokens.
    pub auth: AuthConfig,
    recording: Arc<Recording>,
    results: Arc<Results>,
    arbitration: Arc<Arbitration>,
    /// Proposals already computed, by game and the event sequence they were made at.
    proposals: Arc<Mutex<Proposals>>,
}

/// Proposals (`Propose`) already computed, by game and the event sequence they were made at.
type Proposals = HashMap<(Uuid, u64), Arc<crate::app::adjudication::Proposed>>;

impl Console {
    /// The console on the services' shared state (which must have a store).
    pub fn new(state: AppState, auth: AuthConfig) -> Console {
        Console {
            recording: Arc::new(Recording::new(state.clone(), Arc::new(crate::convert::StoredAnswers))),
            results: Arc::new(Results::new(state.clone())),
            arbitration: Arc::new(Arbitration::new(state.clone())),
            state,
            auth,
            proposals: Arc::default(),
        }
    }

    /// Keeps `token` under a new one-time code (ten letters and digits, random) valid for
    /// [`CODE_LIFETIME`], in the database so that any replica can exchange it, and returns the
    /// code. Errors: the store's (no database, or it failed), as a gRPC status.
    pub async fn new_code(&self, token: String) -> Result<String, tonic::Status> {
        const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        let store = self.state.store().map_err(status)?;
        let until = chrono::Utc::now() + CODE_LIFETIME;
        let mut tries = 0;
        loop {
            let random = Uuid::new_v4().into_bytes();
            let code: String = random.iter().take(10).map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()])).collect();
            match store.put_sign_in_code(&code, &token, until).await {
                Ok(()) => return Ok(code),
                Err(shinpan_storage::StoreError::AlreadyExists(_)) if tries < 3 => tries += 1,
                Err(e) => return Err(crate::error::store_status(e)),
            }
        }
    }

    /// Exchanges a one-time code for its token (once, on every replica: the code is gone
    /// afterwards); `None` for an unknown, used or expired code, or when the database cannot
    /// be reached.
    pub async fn redeem_code(&self, code: &str) -> Option<String> {
        let code = code.trim().to_ascii_uppercase().replace([' ', '-'], "");
        let store = self.state.store().ok()?;
        store.take_sign_in_code(&code).await.ok().flatten()
    }

    /// The verified claims of the request's token cookie, if any.
    pub fn session(&self, headers: &HeaderMap) -> Option<Claims> {
        cookie(headers, TOKEN_COOKIE).and_then(|t| self.auth.verify(&t).ok())
    }
}

/// A request carrying the caller's claims (as the token interceptor leaves them): what the
/// per-caller rate limit of the expensive calls ([`crate::ratelimit`]) counts by.
pub fn call<T>(claims: &Claims, message: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(message);
    r.extensions_mut().insert(claims.clone());
    r
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim().to_string())
}

/// The console's routes (under `/console`), to be merged with the gRPC routes.
pub fn router(console: Console) -> axum::Router {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/", get(pages::root))
        .route("/console", get(pages::index))
        .route("/console/sign-in", post(pages::sign_in))
        .route("/console/sign-out", post(pages::sign_out))
        .route("/console/codes", post(pages::new_code))
        .route("/console/live", get(pages::tournament_live))
        .route("/console/games/{id}", get(pages::game))
        .route("/console/games/{id}/board", get(pages::game_board))
        .route("/console/games/{id}/sgf", get(pages::game_sgf))
        .route("/console/results", get(pages::results))
        .route("/console/results/egf", get(pages::results_egf))
        .route("/console/results/sgf", get(pages::results_sgf))
        .route("/console/games/{id}/live", get(pages::game_live))
        .route("/console/games/{id}/end", get(pages::end_of_game))
        .route("/console/games/{id}/dispute", post(pages::dispute))
        .route("/console/games/{id}/dispute/live", get(pages::dispute_live))
        .route("/console/games/{id}/result", post(pages::result_action))
        .route("/console/cases/{id}", get(pages::case))
        .route("/console/cases/{id}/rule", post(pages::rule_case))
        .route("/console/assets/console.css", get(assets::css))
        .route("/console/assets/console.js", get(assets::js))
        .with_state(console)
}
