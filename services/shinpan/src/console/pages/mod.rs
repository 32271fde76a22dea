//! The console's pages and live streams (see the [module docs](super)).

use super::board::{self, Drawing, Mark};
use super::errors::explain;
use super::i18n::Lang;
use super::{call, Console, LANG_COOKIE, TOKEN_COOKIE, TOURNAMENT_REFRESH};
use crate::app::games::GameCtx;
use crate::app::recording::{ListGames, WatchGame};
use crate::auth::{Claims, Role};
use crate::error::status;
use axum::extract::{Form, Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use futures::StreamExt;
use goban::{Color, Move, Point};
use maud::{html, Markup, DOCTYPE};
use shinpan_proto::v1 as pb;
use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use tonic::Status;

mod cases;
mod end;
mod game;
mod results;
mod tournament;

pub use cases::*;
pub use end::*;
pub use game::*;
pub use results::*;
pub use tournament::*;

/// The query parameters the pages understand.
#[derive(Debug, Default, serde::Deserialize)]
pub struct PageQuery {
    /// `ja` or `en`: the language (remembered in a cookie).
    pub lang: Option<String>,
    /// The move number to show (a game page stepping through its record); absent = the latest.
    pub at: Option<u32>,
    /// Chains marked by the person at the end of a game: `pd:dead,dp:alive` (one stone each).
    pub marks: Option<String>,
    /// A stone whose chain's mark is switched (dead ⇄ alive).
    pub toggle: Option<String>,
    /// The first event sequence a live stream sends.
    pub from: Option<u64>,
    /// Where the sign-in leads (a path under `/console`).
    pub next: Option<String>,
    /// The stone of a disputed chain (SGF), for the dispute's live stream.
    pub point: Option<String>,
    /// A tournament's name (the results' downloads).
    pub tournament: Option<String>,
}

/// `next` when it is a path of the console, else `/console`.
fn next_path(next: Option<&str>) -> String {
    match next {
        Some(n) if n.starts_with("/console") && !n.contains("//") && !n.contains('\\') => n.to_string(),
        _ => "/console".to_string(),
    }
}

/// To the sign-in page, coming back to `path` afterwards.
fn to_sign_in(path: &str) -> Response {
    Redirect::to(&format!("/console?next={path}")).into_response()
}

/// The event kinds a game page follows.
const GAME_EVENTS: &str =
    "move foul resign ended created imported adjudicated result-proposed result-confirmed objection case-opened ruling update";

fn lang_of(q: &PageQuery, headers: &HeaderMap) -> Lang {
    Lang::of_request(q.lang.as_deref(), headers)
}

/// A page, with the language cookie set when the language was chosen by `?lang=`.
fn respond(q: &PageQuery, lang: Lang, status: StatusCode, markup: Markup) -> Response {
    let mut r = (status, markup).into_response();
    if q.lang.as_deref().and_then(Lang::parse).is_some() {
        let v = format!("{LANG_COOKIE}={}; Path=/; SameSite=Lax; Max-Age=31536000", lang.code());
        if let Ok(v) = HeaderValue::from_str(&v) {
            r.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    r
}

fn layout(lang: Lang, claims: Option<&Claims>, title: &str, body: Markup) -> Markup {
    let other = if lang == Lang::Ja { "en" } else { "ja" };
    html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · " (lang.t("title")) }
                link rel="stylesheet" href="/console/assets/console.css";
            }
            body {
                header {
                    a href="/console" { strong { (lang.t("title")) } }
                    a.lang href={"?lang=" (other)} { (lang.t("language")) }
                    @if let Some(c) = claims {
                        a href="/console/results" { (lang.t("final_results")) }
                        span.who { (lang.t("signed_in_as")) " " (c.sub) " (" (c.role) ")" }
                        form.inline method="post" action="/console/sign-out" { button type="submit" { (lang.t("sign_out")) } }
                    }
                }
                main { (body) }
                script src="/console/assets/console.js" {}
            }
        }
    }
}

fn error_box(lang: Lang, text: &str) -> Markup {
    html! { div.error role="alert" { strong { (lang.t("error")) ": " } (text) } }
}

fn error_page(q: &PageQuery, lang: Lang, claims: Option<&Claims>, status: &Status) -> Response {
    let code = match status.code() {
        tonic::Code::NotFound => StatusCode::NOT_FOUND,
        tonic::Code::PermissionDenied => StatusCode::FORBIDDEN,
        tonic::Code::Unauthenticated => StatusCode::UNAUTHORIZED,
        tonic::Code::Unavailable | tonic::Code::Internal => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::CONFLICT,
    };
    let body = html! {
        (error_box(lang, &explain(lang, status)))
        p { a href="/console" { (lang.t("back_to_tournament")) } }
    };
    respond(q, lang, code, layout(lang, claims, lang.t("error"), body))
}

fn sign_in_page(lang: Lang, error: Option<&str>, next: &str) -> Markup {
    layout(
        lang,
        None,
        lang.t("sign_in"),
        html! {
            h1 { (lang.t("sign_in")) }
            @if let Some(e) = error { (error_box(lang, e)) }
            form method="post" action="/console/sign-in" {
                p { label for="token" { (lang.t("token")) } }
                p { textarea id="token" name="token" rows="4" required autocomplete="off" {} }
                input type="hidden" name="next" value=(next);
                p.help { (lang.t("token_help")) }
                button type="submit" { (lang.t("sign_in")) }
            }
            h2 { (lang.t("one_time_code")) }
            form method="post" action="/console/sign-in" {
                input type="hidden" name="next" value=(next);
                p { input name="code" size="12" autocomplete="off" required; " " button type="submit" { (lang.t("sign_in")) } }
            }
        },
    )
}

/// `GET /`: to the console.
pub async fn root() -> Redirect {
    Redirect::to("/console")
}

/// The form of `POST /console/sign-in`.
#[derive(Debug, serde::Deserialize)]
pub struct SignInForm {
    /// The pasted role token.
    #[serde(default)]
    pub token: String,
    /// Or a one-time code.
    #[serde(default)]
    pub code: String,
    /// Where to go once signed in (a path under `/console`).
    #[serde(default)]
    pub next: Option<String>,
}

/// `POST /console/sign-in`: verifies the token and keeps it in an HttpOnly cookie.
pub async fn sign_in(State(c): State<Console>, Query(q): Query<PageQuery>, headers: HeaderMap, Form(f): Form<SignInForm>) -> Response {
    let lang = lang_of(&q, &headers);
    let redeemed = if f.code.trim().is_empty() { None } else { Some(c.redeem_code(&f.code).await) };
    let token = match &redeemed {
        Some(Some(t)) => t.as_str(),
        Some(None) => {
            let text = if lang == Lang::Ja {
                "このコードは無効か、使用済みか、期限切れです。"
            } else {
                "This code is unknown, already used or expired."
            };
            return respond(&q, lang, StatusCode::UNAUTHORIZED, sign_in_page(lang, Some(text), &next_path(f.next.as_deref())));
        }
        None => f.token.trim(),
    };
    match c.auth.verify(token) {
        Ok(claims) => {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
            let age = claims.exp.saturating_sub(now);
            let cookie = format!("{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={age}");
            let mut r = Redirect::to(&next_path(f.next.as_deref())).into_response();
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                r.headers_mut().append(header::SET_COOKIE, v);
            }
            r
        }
        Err(e) => {
            let text = if lang == Lang::Ja {
                format!("トークンを受け付けられませんでした: {e}")
            } else {
                format!("The token was not accepted: {e}")
            };
            respond(&q, lang, StatusCode::UNAUTHORIZED, sign_in_page(lang, Some(&text), &next_path(f.next.as_deref())))
        }
    }
}

/// `POST /console/sign-out`: forgets the token.
pub async fn sign_out() -> Response {
    let mut r = Redirect::to("/console").into_response();
    r.headers_mut().append(header::SET_COOKIE, HeaderValue::from_static("shinpan_token=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"));
    r
}

fn phase_label(lang: Lang, phase: i32) -> &'static str {
    match pb::Phase::try_from(phase) {
        Ok(pb::Phase::Stopped) => lang.t("state_stopped"),
        Ok(pb::Phase::Ended) => lang.t("state_ended"),
        _ => lang.t("state_playing"),
    }
}

fn case_kind_label(lang: Lang, kind: i32) -> &'static str {
    let ja = lang == Lang::Ja;
    match pb::CaseKind::try_from(kind) {
        Ok(pb::CaseKind::Foul) => {
            if ja {
                "反則"
            } else {
                "foul"
            }
        }
        Ok(pb::CaseKind::Repetition) => {
            if ja {
                "同形反復（第十一条）"
            } else {
                "repetition (第十一条)"
            }
        }
        Ok(pb::CaseKind::Undecided) => {
            if ja {
                "死活未決定（第七条）"
            } else {
                "undecided life and death (第七条)"
            }
        }
        Ok(pb::CaseKind::Objection) => {
            if ja {
                "異議（第十条2）"
            } else {
                "objection (第十条2)"
            }
        }
        Ok(pb::CaseKind::Referee) => {
            if ja {
                "立会人による"
            } else {
                "opened by the referee"
            }
        }
        Ok(pb::CaseKind::Resumption) => {
            if ja {
                "再開の争い（第九条）"
            } else {
                "resumption dispute (第九条)"
            }
        }
        _ => "?",
    }
}

fn result_state_label(lang: Lang, stage: crate::app::lifecycle::ResultStage) -> &'static str {
    use crate::app::lifecycle::ResultStage;
    let ja = lang == Lang::Ja;
    match stage {
        ResultStage::Proposed => {
            if ja {
                "提案済み"
            } else {
                "proposed"
            }
        }
        ResultStage::Disputed => {
            if ja {
                "異議あり"
            } else {
                "objected"
            }
        }
        ResultStage::Final => {
            if ja {
                "確定"
            } else {
                "final"
            }
        }
        ResultStage::Open => "",
    }
}

fn age(lang: Lang, t: Option<&prost_types::Timestamp>) -> String {
    let Some(t) = t else { return String::new() };
    let now = chrono::Utc::now().timestamp();
    let minutes = (now - t.seconds).max(0) / 60;
    match lang {
        Lang::Ja => format!("{minutes}分"),
        Lang::En => format!("{minutes} min"),
    }
}

/// The form of `POST /console/codes`.
#[derive(Debug, serde::Deserialize)]
pub struct CodeForm {
    /// `player` or `referee`.
    pub role: String,
    /// A referee's id (referee codes).
    #[serde(default)]
    pub subject: String,
    /// The game (player codes).
    #[serde(default)]
    pub game: String,
    /// `B` or `W` (player codes).
    #[serde(default)]
    pub colour: String,
}

/// `POST /console/codes`: a one-time code, shown once. An official of a game creates one for
/// its black or white player (the token is limited to that game and colour); a chief arbiter
/// or federation admin whose token names a tournament creates one for a referee of it.
pub async fn new_code(State(c): State<Console>, Query(q): Query<PageQuery>, headers: HeaderMap, Form(f): Form<CodeForm>) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return Redirect::to("/console").into_response() };
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let ttl = super::CODE_TOKEN_LIFETIME_SECS.min(claims.exp.saturating_sub(now));
    let minted: Result<(String, String), Status> = async {
        match f.role.as_str() {
            "player" => {
                let store = c.state.store().map_err(status)?;
                let ctx = crate::app::games::load_game(store, crate::app::games::uuid_field("game", &f.game).map_err(status)?)
                    .await
                    .map_err(status)?;
                if !claims.officiates(&ctx.scope) {
                    return Err(crate::auth::denied(&claims, "create a sign-in code for a game they do not officiate"));
                }
                let (colour, player) = match f.colour.as_str() {
                    "W" => (Color::White, &ctx.scope.white),
                    _ => (Color::Black, &ctx.scope.black),
                };
                let subject = player.0.clone().filter(|s| !s.is_empty()).unwrap_or_else(|| player.1.clone());
                let game = ctx.game.id.to_string();
                let token = c
                    .auth
                    .issue(Role::Player, &subject, None, Some(&game), Some(colour), ttl)
                    .map_err(|e| Status::invalid_argument(e.to_string()))?;
                Ok((token, format!("{subject} ({}, {})", Role::Player, colour_name(lang, colour))))
            }
            "referee" => {
                let tournament = claims.tournament.as_deref().filter(|_| matches!(claims.role, Role::ChiefArbiter | Role::FederationAdmin));
                let Some(tournament) = tournament else {
                    return Err(crate::auth::denied(&claims, "create a sign-in code for a referee"));
                };
                let token = c
                    .auth
                    .issue(Role::Referee, f.subject.trim(), Some(tournament), None, None, ttl)
                    .map_err(|e| Status::invalid_argument(e.to_string()))?;
                Ok((token, format!("{} ({}, {tournament})", f.subject.trim(), Role::Referee)))
            }
            other => Err(crate::auth::denied(&claims, &format!("create a sign-in code for the role `{other}`"))),
        }
    }
    .await;
    let (token, who) = match minted {
        Ok(m) => m,
        Err(s) => return error_page(&q, lang, Some(&claims), &s),
    };
    let code = match c.new_code(token).await {
        Ok(code) => code,
        Err(s) => return error_page(&q, lang, Some(&claims), &s),
    };
    let minutes = super::CODE_LIFETIME.as_secs() / 60;
    let body = html! {
        h1 { (lang.t("one_time_code")) }
        p { (who) }
        p { strong.code style="font-size: 2em; letter-spacing: .1em" { (code) } }
        p { (lang.t("code_help")) " (" (minutes) " min)" }
        p { a href="/console" { (lang.t("back_to_tournament")) } }
    };
    respond(&q, lang, StatusCode::OK, layout(lang, Some(&claims), lang.t("one_time_code"), body))
}
