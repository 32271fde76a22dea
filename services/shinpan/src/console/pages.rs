//! The console's pages and live streams (see the [module docs](super)).

use super::board::{self, Drawing, Mark};
use super::errors::explain;
use super::i18n::Lang;
use super::{call, Console, LANG_COOKIE, TOKEN_COOKIE, TOURNAMENT_REFRESH};
use crate::app::games::GameCtx;
use crate::auth::{Claims, Role};
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
    let redeemed = if f.code.trim().is_empty() { None } else { Some(c.redeem_code(&f.code)) };
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

fn result_state_label(lang: Lang, state: i32) -> &'static str {
    let ja = lang == Lang::Ja;
    match pb::ResultState::try_from(state) {
        Ok(pb::ResultState::Proposed) => {
            if ja {
                "提案済み"
            } else {
                "proposed"
            }
        }
        Ok(pb::ResultState::Disputed) => {
            if ja {
                "異議あり"
            } else {
                "objected"
            }
        }
        Ok(pb::ResultState::Final) => {
            if ja {
                "確定"
            } else {
                "final"
            }
        }
        _ => "",
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

/// The open cases of the token's tournament (every tournament's for a token naming none);
/// none for a player (their cases are on their games' pages).
async fn open_cases(c: &Console, claims: &Claims) -> Result<Vec<pb::Case>, Status> {
    if claims.role == crate::auth::Role::Player {
        return Ok(Vec::new());
    }
    let req = pb::ListCasesRequest { tournament: claims.tournament.clone().unwrap_or_default(), ..Default::default() };
    let all = c.arbitration.list(claims, req).await?.cases;
    Ok(all
        .into_iter()
        .filter(|k| matches!(pb::CaseState::try_from(k.state), Ok(pb::CaseState::Open | pb::CaseState::UnderReview)))
        .collect())
}

/// The tournament view's live part: every game by tournament and round, and the open cases.
async fn tournament_fragment(c: &Console, claims: &Claims, lang: Lang) -> Markup {
    let games = c.recording.list_games(pb::ListGamesRequest::default()).await.map_err(Status::from);
    let cases = open_cases(c, claims).await;
    let with_case: std::collections::HashSet<String> = cases.iter().flatten().map(|k| k.game_id.clone()).collect();
    let mut results = HashMap::new();
    if let Ok(games) = &games {
        for g in games.iter().filter(|g| g.phase != pb::Phase::Playing as i32) {
            if let Ok(r) = c.results.get(claims, &g.id).await {
                results.insert(g.id.clone(), r);
            }
        }
    }
    let mut by_tournament: BTreeMap<String, Vec<&pb::Game>> = BTreeMap::new();
    if let Ok(games) = &games {
        for g in games {
            by_tournament.entry(g.tournament.clone()).or_default().push(g);
        }
    }
    for gs in by_tournament.values_mut() {
        gs.sort_by_key(|g| (g.round, g.board_number));
    }
    html! {
        h2 { (lang.t("games")) }
        @match &games {
            Err(s) => { (error_box(lang, &explain(lang, s))) }
            Ok(gs) if gs.is_empty() => { p { (lang.t("no_games")) } }
            Ok(_) => {
                @for (t, gs) in by_tournament {
                    h3 { (lang.t("tournament")) ": " (if t.is_empty() { "—" } else { &t }) }
                    table.games {
                        thead { tr {
                            th { (lang.t("round")) } th { (lang.t("board")) } th { (lang.t("black")) } th { (lang.t("white")) }
                            th { (lang.t("state")) } th { (lang.t("moves")) } th { (lang.t("result")) }
                        } }
                        tbody {
                            @for g in gs {
                                tr data-game=(g.id) {
                                    td { (g.round) } td { (g.board_number) }
                                    td { a href={"/console/games/" (g.id)} { (player(g.black.as_ref())) } }
                                    td { a href={"/console/games/" (g.id)} { (player(g.white.as_ref())) } }
                                    td {
                                        (phase_label(lang, g.phase))
                                        @if let Some(r) = results.get(&g.id) { " · " (result_state_label(lang, r.state)) }
                                        @if with_case.contains(&g.id) { " · " span.badge { (lang.t("case")) } }
                                        @if g.flagged { " · " span.badge { (lang.t("flagged")) } }
                                    }
                                    td { (g.move_number) }
                                    td { (g.result) }
                                }
                            }
                        }
                    }
                }
            }
        }
        h2 { (lang.t("open_cases")) }
        @match &cases {
            Err(s) => { (error_box(lang, &explain(lang, s))) }
            Ok(ks) if ks.is_empty() => { p { (lang.t("no_cases")) } }
            Ok(ks) => {
                table.cases {
                    thead { tr { th { (lang.t("kind")) } th { (lang.t("game")) } th { (lang.t("reason")) } th { (lang.t("age")) } } }
                    tbody {
                        @for k in ks {
                            tr {
                                td { a href={"/console/cases/" (k.id)} { (case_kind_label(lang, k.kind)) } }
                                td { a href={"/console/games/" (k.game_id)} { (k.game_id.get(..8).unwrap_or(&k.game_id)) } }
                                td { (k.reason) }
                                td { (age(lang, k.open_time.as_ref())) }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn player(p: Option<&pb::Player>) -> String {
    match p {
        Some(p) if !p.rank.is_empty() => format!("{} {}", p.name, p.rank),
        Some(p) => p.name.clone(),
        None => String::new(),
    }
}

/// `GET /console`: the sign-in page, or the tournament view (live).
pub async fn index(State(c): State<Console>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else {
        return respond(&q, lang, StatusCode::OK, sign_in_page(lang, None, &next_path(q.next.as_deref())));
    };
    let fragment = tournament_fragment(&c, &claims, lang).await;
    let body = html! {
        h1 { (lang.t("tournament")) " " span.badge.live { (lang.t("live")) } }
        div id="tournament" data-live="/console/live" data-live-target="tournament" data-live-events="update" { (fragment) }
        @if matches!(claims.role, Role::ChiefArbiter | Role::FederationAdmin) && claims.tournament.is_some() {
            h2 { (lang.t("one_time_code")) ": " (lang.t("role_referee")) }
            form.codes method="post" action="/console/codes" {
                input type="hidden" name="role" value="referee";
                label { (lang.t("subject")) " " input name="subject" required size="14"; }
                " " button type="submit" { (lang.t("create_code")) }
            }
        }
    };
    respond(&q, lang, StatusCode::OK, layout(lang, Some(&claims), lang.t("tournament"), body))
}

/// `GET /console/live`: the tournament view's fragment as server-sent events (`update`),
/// sent whenever it changes, re-read every [`TOURNAMENT_REFRESH`]; ends when the server shuts
/// down.
pub async fn tournament_live(State(c): State<Console>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else {
        return (StatusCode::UNAUTHORIZED, lang.t("sign_in")).into_response();
    };
    let shutdown = c.state.shutdown.clone();
    let stream = futures::stream::unfold((c, claims, String::new(), shutdown), move |(c, claims, last, mut shutdown)| async move {
        loop {
            if *shutdown.borrow() {
                return None;
            }
            let html = tournament_fragment(&c, &claims, lang).await.into_string();
            if html != last {
                let event = Event::default().event("update").data(html.clone());
                return Some((Ok::<_, Infallible>(event), (c, claims, html, shutdown)));
            }
            tokio::select! {
                _ = tokio::time::sleep(TOURNAMENT_REFRESH) => {}
                changed = shutdown.changed() => if changed.is_err() { return None },
            }
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default()).into_response()
}

/// A game at one move of its record.
pub struct View {
    /// The game as the recording service returns it.
    pub game: pb::Game,
    /// Its stored form and role scope.
    pub ctx: GameCtx,
    /// The move shown (0 = the start).
    pub at: u32,
    /// The position at that move.
    pub drawing: Drawing,
    /// Prisoners (black's, white's) at that move.
    pub prisoners: (u32, u32),
    /// Who is to move then.
    pub to_move: Color,
    /// The fouls recorded in the game.
    pub fouls: Vec<pb::Foul>,
}

/// Loads game `id` at move `at` (the latest when `None`): the moves are replayed by the rules
/// engine from the stored start.
pub async fn load_view(c: &Console, _claims: &Claims, id: &str, at: Option<u32>) -> Result<View, Status> {
    let game = c.recording.get_game(id).await?;
    let store = c.state.store().map_err(Status::from)?;
    let gid = crate::app::games::uuid_field("game_id", id)?;
    let ctx = crate::app::games::load_game(store, gid).await?;
    let start = crate::app::events::stored_start(&ctx.game).map_err(Status::from)?;
    let mut engine = start.game().map_err(Status::from)?;
    let at = at.unwrap_or(game.move_number).min(game.moves.len() as u32);
    let mut last = None;
    for (i, m) in game.moves.iter().take(at as usize).enumerate() {
        let (color, mv) = crate::convert::move_from_pb(&format!("moves[{i}]"), Some(m), start.size, start.size).map_err(Status::from)?;
        engine.play(color, mv).map_err(|f| Status::internal(format!("replaying move {}: {f:?}", i + 1)))?;
        last = match mv {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        };
    }
    let b = engine.board();
    let stones = b.points().filter_map(|p| b.get(p).map(|c| (p, c))).collect();
    let drawing = Drawing { size: b.width(), stones, last, ..Drawing::default() };
    let events = store.events_since(gid, 0, i64::MAX).await.map_err(crate::error::store_status)?;
    let fouls: Vec<pb::Foul> = events.iter().filter(|e| e.kind == "foul").filter_map(|e| crate::app::events::event_to_pb(e).foul).collect();
    let mut drawing = drawing;
    // The fouls played as the next move of the position shown (never applied).
    drawing.fouls = fouls
        .iter()
        .filter(|f| f.move_number == at + 1)
        .filter_map(|f| match f.r#move.as_ref().and_then(|m| m.action.as_ref()) {
            Some(pb::r#move::Action::Point(p)) => Point::from_sgf(p).ok(),
            _ => None,
        })
        .collect();
    Ok(View {
        prisoners: (engine.prisoners(Color::Black), engine.prisoners(Color::White)),
        to_move: engine.to_move(),
        game,
        ctx,
        at,
        drawing,
        fouls,
    })
}

fn colour_name(lang: Lang, c: Color) -> &'static str {
    if c == Color::Black {
        lang.t("black")
    } else {
        lang.t("white")
    }
}

fn pb_colour(lang: Lang, c: i32) -> &'static str {
    match pb::Color::try_from(c) {
        Ok(pb::Color::White) => lang.t("white"),
        _ => lang.t("black"),
    }
}

fn sgf_name(p: &str, size: u8) -> String {
    Point::from_sgf(p).map(|p| board::point_name(p, size)).unwrap_or_else(|_| p.to_string())
}

fn move_name(lang: Lang, m: Option<&pb::Move>, size: u8) -> String {
    match m.and_then(|m| m.action.as_ref()) {
        Some(pb::r#move::Action::Point(p)) => sgf_name(p, size),
        _ => lang.t("pass").to_string(),
    }
}

/// The live part of a game page: the board and what a referee reads beside it.
pub fn live_fragment(lang: Lang, v: &View) -> Markup {
    let g = &v.game;
    let size = v.drawing.size;
    html! {
        div.game {
            (board::svg(&v.drawing))
            dl.info {
                dt { (lang.t("move_number")) } dd.move-number data-move=(v.at) { (v.at) " / " (g.move_number) }
                @if v.at > 0 {
                    @let m = g.moves.get(v.at as usize - 1);
                    dt { (lang.t("move")) } dd.last-move { (pb_colour(lang, m.map_or(1, |m| m.color))) " " (move_name(lang, m, size)) }
                }
                dt { (lang.t("to_move")) } dd { (colour_name(lang, v.to_move)) }
                dt { (lang.t("prisoners")) } dd.prisoners {
                    (lang.t("black")) " " (v.prisoners.0) " · " (lang.t("white")) " " (v.prisoners.1)
                }
                dt { (lang.t("komi")) } dd { (g.komi) }
                dt { (lang.t("state")) } dd.phase { (phase_label(lang, g.phase)) }
                @if !g.result.is_empty() { dt { (lang.t("result")) } dd { (g.result) } }
            }
        }
    }
}

/// `GET /console/games/{id}`: the game page (`?at=N` shows move N and stays there; without
/// it the page follows the game live).
pub async fn game(State(c): State<Console>, Path(id): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return to_sign_in(&format!("/console/games/{id}")) };
    let v = match load_view(&c, &claims, &id, q.at).await {
        Ok(v) => v,
        Err(s) => return error_page(&q, lang, Some(&claims), &s),
    };
    let result = c.results.get(&claims, &id).await.ok();
    let cases = match c.arbitration.list(&claims, pb::ListCasesRequest { game_id: id.clone(), ..Default::default() }).await {
        Ok(r) => r.cases,
        Err(_) => Vec::new(),
    };
    let g = &v.game;
    let size = v.drawing.size;
    let following = q.at.is_none();
    let title = format!("{} – {}", player(g.black.as_ref()), player(g.white.as_ref()));
    let nav = |n: u32| format!("/console/games/{id}?at={n}");
    let scope = &v.ctx.scope;
    let body = html! {
        h1 { (title) @if following { " " span.badge.live { (lang.t("live")) } } }
        p { (lang.t("tournament")) " " (g.tournament) " · " (lang.t("round")) " " (g.round) " · " (lang.t("board")) " " (g.board_number) " · " (g.rule_set) }
        p.nav {
            a.first href=(nav(0)) { "|◀ " (lang.t("first")) }
            a.prev href=(nav(v.at.saturating_sub(1))) { "◀ " (lang.t("prev")) }
            a.next href=(nav((v.at + 1).min(g.move_number))) { (lang.t("next")) " ▶" }
            a.last href={"/console/games/" (id)} { (lang.t("last")) " ▶|" }
        }
        @if following {
            div id="live" data-live={"/console/games/" (id) "/live?from=" (g.last_sequence + 1)} data-live-target="live" data-live-events=(GAME_EVENTS) { (live_fragment(lang, &v)) }
        } @else {
            div id="live" { (live_fragment(lang, &v)) }
        }
        h2 { (lang.t("fouls")) }
        @if v.fouls.is_empty() { p { (lang.t("no_fouls")) } } @else {
            ul.fouls {
                @for f in &v.fouls {
                    li.foul {
                        a href=(nav(f.move_number.saturating_sub(1))) { (lang.t("move")) " " (f.move_number) }
                        ": " (pb_colour(lang, f.r#move.as_ref().map_or(1, |m| m.color))) " " (move_name(lang, f.r#move.as_ref(), size))
                        " — " strong.rule { (f.rule) } " (" span.article { (f.article) } ") " (f.description)
                    }
                }
            }
        }
        @if !cases.is_empty() {
            h2 { (lang.t("cases")) }
            ul.cases {
                @for k in &cases {
                    li { a href={"/console/cases/" (k.id)} { (case_kind_label(lang, k.kind)) } " · " (k.reason) }
                }
            }
        }
        @if let Some(r) = &result {
            h2 { (lang.t("result")) }
            p.result { strong { (r.result) } " · " (result_state_label(lang, r.state)) @if !r.note.is_empty() { " · " (r.note) } }
            @if !r.pending.is_empty() { p { (lang.t("pending")) ": " (r.pending.join(", ")) } }
            @if r.state != pb::ResultState::Final as i32 {
                @let colours = claims.player_colours(scope);
                @if claims.officiates(scope) || !colours.is_empty() {
                    form.inline method="post" action={"/console/games/" (id) "/result"} {
                        input type="hidden" name="action" value="confirm";
                        button.confirm type="submit" { (lang.t("confirm")) }
                    }
                }
                @if !colours.is_empty() && r.state == pb::ResultState::Proposed as i32 {
                    form method="post" action={"/console/games/" (id) "/result"} {
                        input type="hidden" name="action" value="object";
                        p { label { (lang.t("objection_reason")) br; textarea name="reason" rows="2" required {} } }
                        button.object type="submit" { (lang.t("object")) }
                    }
                }
            }
        }
        @if claims.officiates(scope) {
            h2 { (lang.t("one_time_code")) }
            @for (colour, label) in [("B", lang.t("black")), ("W", lang.t("white"))] {
                form.inline method="post" action="/console/codes" {
                    input type="hidden" name="role" value="player";
                    input type="hidden" name="game" value=(id);
                    input type="hidden" name="colour" value=(colour);
                    button type="submit" data-colour=(colour) { (lang.t("create_code")) ": " (label) }
                }
                " "
            }
        }
        @if g.phase != pb::Phase::Playing as i32 && claims.may_propose(scope) {
            h2 { (lang.t("end_of_game")) }
            p { a.proposal href={"/console/games/" (id) "/end"} { (lang.t("show_proposal")) } }
        }
    };
    respond(&q, lang, StatusCode::OK, layout(lang, Some(&claims), &title, body))
}

/// `GET /console/games/{id}/board`: the live fragment alone (board and information), at
/// `?at=N` or the latest move.
pub async fn game_board(State(c): State<Console>, Path(id): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return (StatusCode::UNAUTHORIZED, lang.t("sign_in")).into_response() };
    match load_view(&c, &claims, &id, q.at).await {
        Ok(v) => live_fragment(lang, &v).into_response(),
        Err(s) => (StatusCode::NOT_FOUND, explain(lang, &s)).into_response(),
    }
}

/// `GET /console/games/{id}/live`: the game's events (`WatchGame`) as server-sent events
/// named by their kind (`move`, `foul`, …), each carrying the live fragment of the position
/// after it; the event id is the event's sequence (a reconnecting browser resumes after it).
pub async fn game_live(State(c): State<Console>, Path(id): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return (StatusCode::UNAUTHORIZED, lang.t("sign_in")).into_response() };
    let resumed = headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok()).map(|s| s + 1);
    let from = resumed.or(q.from).unwrap_or(1).max(1);
    let watch = c.recording.watch(pb::WatchGameRequest { game_id: id.clone(), from_sequence: from, until_end: false }).await;
    let events = match watch {
        Ok(r) => r,
        Err(e) => return (StatusCode::NOT_FOUND, explain(lang, &Status::from(e))).into_response(),
    };
    let stream = events.take_while(|r| std::future::ready(r.is_ok())).then(move |r| {
        let (c, claims, id) = (c.clone(), claims.clone(), id.clone());
        async move {
            let e = r.ok().and_then(|r| r.event).unwrap_or_default();
            let data = match load_view(&c, &claims, &id, None).await {
                Ok(v) => live_fragment(lang, &v).into_string(),
                Err(s) => error_box(lang, &explain(lang, &s)).into_string(),
            };
            let kind = if e.kind.is_empty() { "update".to_string() } else { e.kind };
            Ok::<_, Infallible>(Event::default().event(kind).id(e.sequence.to_string()).data(data))
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default()).into_response()
}

fn status_name(lang: Lang, s: i32) -> &'static str {
    match pb::ChainStatus::try_from(s) {
        Ok(pb::ChainStatus::Dead) => lang.t("dead"),
        Ok(pb::ChainStatus::Seki) => lang.t("seki"),
        Ok(pb::ChainStatus::Undecided) => lang.t("undecided"),
        _ => lang.t("alive"),
    }
}

/// Marks parsed from `pd:dead,dp:alive`.
fn parse_marks(s: Option<&str>) -> Vec<(Point, pb::ChainStatus)> {
    s.unwrap_or("")
        .split(',')
        .filter_map(|kv| kv.split_once(':'))
        .filter_map(|(p, st)| {
            let st = match st {
                "dead" => pb::ChainStatus::Dead,
                "alive" => pb::ChainStatus::Alive,
                "seki" => pb::ChainStatus::Seki,
                _ => return None,
            };
            Point::from_sgf(p).ok().map(|p| (p, st))
        })
        .collect()
}

fn marks_text(marks: &[(Point, pb::ChainStatus)]) -> String {
    marks
        .iter()
        .map(|(p, s)| {
            let s = match s {
                pb::ChainStatus::Dead => "dead",
                pb::ChainStatus::Seki => "seki",
                _ => "alive",
            };
            format!("{}:{s}", p.to_sgf())
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The game's proposal (`Propose`), computed once per state of the game.
async fn proposal(c: &Console, claims: &Claims, game: &pb::Game) -> Result<pb::ProposeResponse, Status> {
    let key = (crate::app::games::uuid_field("game_id", &game.id)?, game.last_sequence);
    if let Some(p) = c.proposals.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(p);
    }
    let req = pb::ProposeRequest {
        request: Some(pb::AdjudicateRequest {
            position: Some(pb::adjudicate_request::Position::GameId(game.id.clone())),
            ..Default::default()
        }),
    };
    c.state.expensive.admit(&call(claims, ()), "Propose")?;
    let p = crate::app::adjudication::propose(&c.state, &req.request.unwrap_or_default(), None).await?;
    if let Ok(mut m) = c.proposals.lock() {
        if m.len() > 1000 {
            m.clear();
        }
        m.insert(key, p.clone());
    }
    Ok(p)
}

/// The statuses at the end: the proposal's, with the person's marks over them, by chain.
struct EndState {
    view: View,
    proposal: pb::ProposeResponse,
    marks: Vec<(Point, pb::ChainStatus)>,
    /// Each stone's chain (its smallest stone in SGF order stands for it).
    chain_of: HashMap<Point, Point>,
    /// Each chain's effective status and whether it is proved (else estimated, or marked).
    chains: BTreeMap<Point, (pb::ChainStatus, &'static str)>,
}

async fn end_state(c: &Console, claims: &Claims, id: &str, q: &PageQuery) -> Result<EndState, Status> {
    let view = load_view(c, claims, id, None).await?;
    if !claims.may_propose(&view.ctx.scope) {
        return Err(crate::auth::denied(claims, "settle the end of a game they neither play nor officiate"));
    }
    let proposal = proposal(c, claims, &view.game).await?;
    let p = proposal.proposal.clone().unwrap_or_default();
    let mut chain_of = HashMap::new();
    let mut chains = BTreeMap::new();
    for proof in &p.proofs {
        let stones: Vec<Point> = proof.stones.iter().filter_map(|s| Point::from_sgf(s).ok()).collect();
        let Some(&rep) = stones.iter().min_by_key(|p| p.to_sgf()) else { continue };
        for s in &stones {
            chain_of.insert(*s, rep);
        }
        let basis = match proof.basis.as_str() {
            "proved" => "proved",
            "estimated" => "estimated",
            _ => "undecided",
        };
        let status = pb::ChainStatus::try_from(proof.status).unwrap_or(pb::ChainStatus::Undecided);
        chains.insert(rep, (status, basis));
    }
    let mut marks = parse_marks(q.marks.as_deref());
    if let Some(t) = q.toggle.as_deref().and_then(|t| Point::from_sgf(t).ok()) {
        let rep = chain_of.get(&t).copied().unwrap_or(t);
        let current = marks
            .iter()
            .find(|(p, _)| chain_of.get(p).copied().unwrap_or(*p) == rep)
            .map(|(_, s)| *s)
            .or_else(|| chains.get(&rep).map(|(s, _)| *s))
            .unwrap_or(pb::ChainStatus::Alive);
        marks.retain(|(p, _)| chain_of.get(p).copied().unwrap_or(*p) != rep);
        let next = if current == pb::ChainStatus::Dead { pb::ChainStatus::Alive } else { pb::ChainStatus::Dead };
        marks.push((rep, next));
    }
    for (p, s) in &marks {
        let rep = chain_of.get(p).copied().unwrap_or(*p);
        chains.insert(rep, (*s, "marked"));
    }
    Ok(EndState { view, proposal, marks, chain_of, chains })
}

impl EndState {
    fn drawing(&self, id: &str) -> Drawing {
        let mut d = self.view.drawing.clone();
        d.last = None;
        for (p, _) in &d.stones {
            let rep = self.chain_of.get(p).copied().unwrap_or(*p);
            if let Some((s, basis)) = self.chains.get(&rep) {
                let proved = *basis != "estimated";
                let mark = match s {
                    pb::ChainStatus::Dead => Mark::Dead { proved },
                    pb::ChainStatus::Seki => Mark::Seki,
                    pb::ChainStatus::Undecided => Mark::Undecided,
                    _ if !proved => Mark::EstimatedAlive,
                    _ => Mark::Alive,
                };
                d.marks.insert(*p, mark);
            }
        }
        if self.marks.is_empty() {
            let p = self.proposal.proposal.clone().unwrap_or_default();
            d.territory_black = p.territory_black.iter().filter_map(|s| Point::from_sgf(s).ok()).collect();
            d.territory_white = p.territory_white.iter().filter_map(|s| Point::from_sgf(s).ok()).collect();
        }
        let marks = marks_text(&self.marks);
        d.stone_link = Some(format!("/console/games/{id}/end?marks={marks}&toggle={{point}}"));
        d
    }

    /// The agreements the marks and the proposal make (undecided chains and `except` left out).
    fn agreements(&self, except: Option<Point>) -> Vec<pb::Agreement> {
        let skip = except.map(|p| self.chain_of.get(&p).copied().unwrap_or(p));
        self.chains
            .iter()
            .filter(|(rep, (s, _))| Some(**rep) != skip && *s != pb::ChainStatus::Undecided)
            .map(|(rep, (s, _))| pb::Agreement { stones: vec![rep.to_sgf()], status: *s as i32 })
            .collect()
    }
}

fn count_table(lang: Lang, a: &pb::AdjudicateResponse) -> Markup {
    let (tb, tw) = (a.territory_black.len(), a.territory_white.len());
    let jigo = a.result == "0";
    html! {
        table.count {
            thead { tr { th {} th { (lang.t("black")) } th { (lang.t("white")) } } }
            tbody {
                tr { th { (lang.t("territory")) } td.territory-black { (tb) } td.territory-white { (tw) } }
                tr { th { "ハマ" } td { (a.prisoners_black) } td { (a.prisoners_white) } }
                tr { th { "コミ" } td { "—" } td { (a.komi) } }
                tr { th { (lang.t("count")) } td { (a.score_black) } td { (a.score_white) } }
            }
        }
        p.count-result { strong { (lang.t("result")) ": " (if jigo { lang.t("jigo") } else { &a.result }) } }
    }
}

/// `GET /console/games/{id}/end`: the proposal at the end of a game, the chains marked by
/// clicking (`?marks=…&toggle=…`), the count, and the forms to dispute a chain and to
/// propose the result.
pub async fn end_of_game(State(c): State<Console>, Path(id): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return Redirect::to("/console").into_response() };
    let end = match end_state(&c, &claims, &id, &q).await {
        Ok(e) => e,
        Err(s) => return error_page(&q, lang, Some(&claims), &s),
    };
    let scope = &end.view.ctx.scope;
    let may_act = claims.may_propose(scope);
    let size = end.view.drawing.size;
    let p = end.proposal.proposal.clone().unwrap_or_default();
    let marks = marks_text(&end.marks);
    let body = html! {
        h1 { (lang.t("end_of_game")) }
        p { a href={"/console/games/" (id)} { "◀ " (lang.t("game")) } }
        p { (lang.t("click_to_mark")) }
        p.legend { (lang.t("legend")) }
        div.game {
            (board::svg(&end.drawing(&id)))
            div {
                h2 { (lang.t("proposal")) }
                table.proofs {
                    thead { tr { th { (lang.t("chain")) } th { (lang.t("state")) } th { (lang.t("basis")) } th { (lang.t("source")) } th { (lang.t("reason")) } } }
                    tbody {
                        @for proof in &p.proofs {
                            @let first = proof.stones.first().map(|s| sgf_name(s, size)).unwrap_or_default();
                            tr class={"proof-row " (proof.basis)} {
                                td { (first) " (" (proof.stones.len()) ")" }
                                td { (status_name(lang, proof.status)) }
                                td.basis { (match proof.basis.as_str() { "proved" => lang.t("proved"), "estimated" => lang.t("estimated"), _ => lang.t("undecided") }) }
                                td { (proof.source) }
                                td { (proof.reason) }
                            }
                        }
                    }
                }
                @if !end.proposal.estimator_error.is_empty() { p.estimator { (lang.t("estimated")) ": " (end.proposal.estimator_error) } }
                @if end.marks.is_empty() { (count_table(lang, &p)) p { "(" (lang.t("proved")) ": " (end.proposal.proved_result) ")" } }
                @if may_act {
                    h2 { (lang.t("dispute")) }
                    form method="post" action={"/console/games/" (id) "/dispute"} {
                        input type="hidden" name="marks" value=(marks);
                        select name="point" {
                            @for (rep, (s, _)) in &end.chains {
                                option value=(rep.to_sgf()) { (board::point_name(*rep, size)) " — " (status_name(lang, *s as i32)) }
                            }
                        }
                        " " button.dispute type="submit" { (lang.t("dispute")) }
                    }
                    h2 { (lang.t("propose_result")) }
                    form method="post" action={"/console/games/" (id) "/result"} {
                        input type="hidden" name="action" value="propose";
                        input type="hidden" name="marks" value=(marks);
                        button.propose type="submit" { (lang.t("propose_result")) }
                    }
                }
            }
        }
    };
    respond(&q, lang, StatusCode::OK, layout(lang, Some(&claims), lang.t("end_of_game"), body))
}

/// The form of `POST /console/games/{id}/dispute` and `…/result`.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ActionForm {
    /// `propose`, `confirm` or `object` (results).
    #[serde(default)]
    pub action: String,
    /// The disputed chain (a stone of it).
    #[serde(default)]
    pub point: String,
    /// The marks in force (see [`PageQuery::marks`]).
    #[serde(default)]
    pub marks: String,
    /// An objection's reason.
    #[serde(default)]
    pub reason: String,
}

/// `POST /console/games/{id}/dispute`: adjudicates the chain by hypothetical play with the
/// other chains' statuses as the agreement (第九条・第七条), and shows the answer: the
/// statuses, the proof line on the board, `undecided` with its reason, the count.
pub async fn dispute(State(c): State<Console>, Path(id): Path<String>, headers: HeaderMap, Form(f): Form<ActionForm>) -> Response {
    let q = PageQuery { marks: Some(f.marks.clone()), ..PageQuery::default() };
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return Redirect::to("/console").into_response() };
    let end = match end_state(&c, &claims, &id, &q).await {
        Ok(e) => e,
        Err(s) => return error_page(&q, lang, Some(&claims), &s),
    };
    let point = Point::from_sgf(f.point.trim()).ok();
    let req = pb::AdjudicateRequest {
        position: Some(pb::adjudicate_request::Position::GameId(id.clone())),
        agreements: end.agreements(point),
        disputed: vec![f.point.trim().to_string()],
        ..Default::default()
    };
    let adjudicated = match c.state.expensive.admit(&call(&claims, ()), "Adjudicate") {
        Ok(()) => crate::app::adjudication::adjudicate(&c.state, Some(&claims), &req, None).await.map_err(Status::from),
        Err(s) => Err(s),
    };
    let answer = match adjudicated {
        Ok(a) => a,
        Err(s) => return error_page(&q, lang, Some(&claims), &s),
    };
    let size = end.view.drawing.size;
    let rep = point.map(|p| end.chain_of.get(&p).copied().unwrap_or(p));
    let proof = answer.proofs.iter().find(|pr| {
        pr.stones.iter().filter_map(|s| Point::from_sgf(s).ok()).any(|s| Some(end.chain_of.get(&s).copied().unwrap_or(s)) == rep)
    });
    let mut d = end.view.drawing.clone();
    d.last = None;
    for st in &answer.statuses {
        if let Ok(p) = Point::from_sgf(&st.point) {
            let mark = match pb::ChainStatus::try_from(st.status) {
                Ok(pb::ChainStatus::Dead) => Mark::Dead { proved: true },
                Ok(pb::ChainStatus::Seki) => Mark::Seki,
                Ok(pb::ChainStatus::Undecided) => Mark::Undecided,
                _ => Mark::Alive,
            };
            d.marks.insert(p, mark);
        }
    }
    if let Some(pr) = proof {
        for (k, step) in pr.line.iter().enumerate() {
            let mut parts = step.split_whitespace();
            let colour = if parts.next() == Some("W") { Color::White } else { Color::Black };
            if let Some(p) = parts.next().and_then(|p| Point::from_sgf(p).ok()) {
                d.numbered.push((p, colour, k as u32 + 1));
            }
        }
    }
    let body = html! {
        h1 { (lang.t("adjudication")) }
        p { a href={"/console/games/" (id) "/end?marks=" (marks_text(&end.marks))} { "◀ " (lang.t("proposal")) } }
        div.game {
            (board::svg(&d))
            div {
                @if let Some(pr) = proof {
                    p.status { (point.map(|p| board::point_name(p, size)).unwrap_or_default()) ": " strong { (status_name(lang, pr.status)) } }
                    @if !pr.reason.is_empty() { p.undecided-reason { (lang.t("reason")) ": " (pr.reason) } }
                    @if !d.numbered.is_empty() {
                        @let n = pr.line.len();
                        p.steps data-steps=(n) {
                            button type="button" data-go="-1" { "◀" } " " output { (n) " / " (n) } " " button type="button" data-go="1" { "▶" }
                        }
                    }
                    p { (lang.t("proof_line")) ": " span.proof {
                        @for (k, step) in pr.line.iter().enumerate() { (k + 1) ". " (step_name(lang, step, size)) " " }
                    } }
                }
                @for r in &answer.refuted {
                    p.refuted { (r.stones.first().map(|s| sgf_name(s, size)).unwrap_or_default()) ": " (status_name(lang, r.agreed)) " → " (status_name(lang, r.found)) }
                }
                @for dr in &answer.drawn_in { p.drawn-in { (dr.reason) } }
                (count_table(lang, &answer))
            }
        }
    };
    respond(&q, lang, StatusCode::OK, layout(lang, Some(&claims), lang.t("adjudication"), body))
}

fn step_name(lang: Lang, step: &str, size: u8) -> String {
    let mut parts = step.split_whitespace();
    let c = if parts.next() == Some("W") { lang.t("white") } else { lang.t("black") };
    match parts.next() {
        Some("pass") | None => format!("{c} {}", lang.t("pass")),
        Some(p) => format!("{c} {}", sgf_name(p, size)),
    }
}

/// `POST /console/games/{id}/result`: propose the count with the marks as the agreement
/// (第九条), confirm (第十条), or object with a reason (第十条2).
pub async fn result_action(State(c): State<Console>, Path(id): Path<String>, headers: HeaderMap, Form(f): Form<ActionForm>) -> Response {
    let q = PageQuery { marks: Some(f.marks.clone()), ..PageQuery::default() };
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return Redirect::to("/console").into_response() };
    let done: Result<(), Status> = async {
        match f.action.as_str() {
            "propose" => {
                let end = end_state(&c, &claims, &id, &q).await?;
                let req = pb::ProposeResultRequest {
                    game_id: id.clone(),
                    ending: pb::Ending::Count as i32,
                    agreements: end.agreements(None),
                    note: format!("proposed in the console by {}", claims.sub),
                    ..Default::default()
                };
                c.results.propose(&claims, req).await?;
            }
            "confirm" => {
                c.results.confirm(&claims, pb::ConfirmResultRequest { game_id: id.clone(), ..Default::default() }).await?;
            }
            "object" => {
                if f.reason.trim().is_empty() {
                    return Err(Status::invalid_argument(lang.t("objection_reason")));
                }
                c.results.object(&claims, pb::ObjectRequest { game_id: id.clone(), reason: f.reason.trim().to_string() }).await?;
            }
            other => return Err(Status::invalid_argument(format!("action `{other}`"))),
        }
        Ok(())
    }
    .await;
    match done {
        Ok(()) => Redirect::to(&format!("/console/games/{id}")).into_response(),
        Err(s) => error_page(&q, lang, Some(&claims), &s),
    }
}

const RULINGS: &[(pb::RulingKind, &str, &str)] = &[
    (pb::RulingKind::Uphold, "uphold: the proposed result stands", "維持：提案された結果のまま"),
    (pb::RulingKind::Amend, "amend the result", "結果を訂正"),
    (pb::RulingKind::NoResult, "無勝負 (第十一条)", "無勝負（第十一条）"),
    (pb::RulingKind::FoulLoss, "反則負け (第十二条)", "反則負け（第十二条）"),
    (pb::RulingKind::BothLose, "両負け", "両負け"),
    (pb::RulingKind::Resumption, "resumption of play (第九条)", "対局再開（第九条）"),
    (pb::RulingKind::EndByCount, "end by count (第九条2)", "計算による終局（第九条2）"),
];

/// `GET /console/cases/{id}`: a case, its evidence, its ruling or the form to rule.
pub async fn case(State(c): State<Console>, Path(id): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return to_sign_in(&format!("/console/cases/{id}")) };
    let k = match c.arbitration.get(&claims, pb::GetCaseRequest { case_id: id.clone() }).await {
        Ok(k) => k,
        Err(e) => return error_page(&q, lang, Some(&claims), &Status::from(e)),
    };
    let may_rule = match (c.state.store(), uuid::Uuid::parse_str(&k.game_id)) {
        (Ok(store), Ok(gid)) => crate::app::games::load_game(store, gid).await.is_ok_and(|g| claims.may_rule(&g.scope)),
        _ => false,
    };
    let open = matches!(pb::CaseState::try_from(k.state), Ok(pb::CaseState::Open | pb::CaseState::UnderReview));
    let e = k.evidence.clone().unwrap_or_default();
    let body = html! {
        h1 { (lang.t("case")) ": " (case_kind_label(lang, k.kind)) }
        p { a href={"/console/games/" (k.game_id)} { (lang.t("game")) } " · " (lang.t("opened_by")) " " (k.opened_by) " · " (age(lang, k.open_time.as_ref())) }
        p.reason { (k.reason) }
        h2 { (lang.t("evidence")) }
        @if !e.move_numbers.is_empty() { p { (lang.t("moves")) ": " (e.move_numbers.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")) } }
        @for f in &e.fouls {
            p.foul { a href={"/console/games/" (k.game_id) "?at=" (f.move_number.saturating_sub(1))} { (lang.t("move")) " " (f.move_number) } ": " strong { (f.rule) } " (" (f.article) ") " (f.description) }
        }
        @for r in &e.repetitions {
            p.repetition {
                a href={"/console/games/" (k.game_id) "?at=" (r.first)} { (r.first) } " → "
                a href={"/console/games/" (k.game_id) "?at=" (r.again)} { (r.again) } " ×" (r.cycles)
            }
        }
        @for pr in &e.proofs { p.proof { (status_name(lang, pr.status)) ": " (pr.line.join(" ")) " " (pr.reason) } }
        @if let Some(a) = &e.readjudication { (count_table(lang, a)) }
        @if !e.note.is_empty() { p { (e.note) } }
        @if let Some(r) = &k.ruling {
            h2 { (lang.t("ruling")) }
            p.ruling { strong { (r.result) } " · " (r.reason) " — " (r.by) }
        }
        @if open && may_rule {
            h2 { (lang.t("rule")) }
            form method="post" action={"/console/cases/" (id) "/rule"} {
                p { select name="kind" {
                    @for (kind, en, ja) in RULINGS { option value=(*kind as i32) { (if lang == Lang::Ja { ja } else { en }) } }
                } }
                p { label { (lang.t("black")) "/" (lang.t("white")) " (反則負け) " select name="loser" {
                    option value="0" { "—" } option value="1" { (lang.t("black")) } option value="2" { (lang.t("white")) }
                } } }
                p { label { "RE (amend) " input name="amended_result" size="8"; } }
                p { label { (lang.t("written_reason")) br; textarea name="reason" rows="3" required {} } }
                button.rule type="submit" { (lang.t("rule")) }
            }
        }
    };
    respond(&q, lang, StatusCode::OK, layout(lang, Some(&claims), lang.t("case"), body))
}

/// The form of `POST /console/cases/{id}/rule`.
#[derive(Debug, Default, serde::Deserialize)]
pub struct RuleForm {
    /// A `RulingKind` number.
    pub kind: i32,
    /// The written reason.
    #[serde(default)]
    pub reason: String,
    /// For 反則負け: the colour that loses (a `Color` number).
    #[serde(default)]
    pub loser: i32,
    /// For an amendment: the result in SGF RE syntax.
    #[serde(default)]
    pub amended_result: String,
}

/// `POST /console/cases/{id}/rule`: rules the case (`RuleCase`); a written reason is required.
pub async fn rule_case(State(c): State<Console>, Path(id): Path<String>, headers: HeaderMap, Form(f): Form<RuleForm>) -> Response {
    let q = PageQuery::default();
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return Redirect::to("/console").into_response() };
    if f.reason.trim().is_empty() {
        return error_page(&q, lang, Some(&claims), &Status::invalid_argument(lang.t("written_reason")));
    }
    let foul = if f.kind == pb::RulingKind::FoulLoss as i32 {
        c.arbitration
            .get(&claims, pb::GetCaseRequest { case_id: id.clone() })
            .await
            .ok()
            .and_then(|k| k.evidence)
            .and_then(|e| e.fouls.into_iter().next())
    } else {
        None
    };
    let ruling = pb::Ruling {
        kind: f.kind,
        reason: f.reason.trim().to_string(),
        loser: f.loser,
        foul,
        amended_result: f.amended_result.trim().to_string(),
        ..Default::default()
    };
    match c.arbitration.rule(&claims, pb::RuleCaseRequest { case_id: id.clone(), ruling: Some(ruling) }).await {
        Ok(_) => Redirect::to(&format!("/console/cases/{id}")).into_response(),
        Err(e) => error_page(&q, lang, Some(&claims), &Status::from(e)),
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
                let store = c.state.store().map_err(Status::from)?;
                let ctx = crate::app::games::load_game(store, crate::app::games::uuid_field("game", &f.game)?).await?;
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
    let code = c.new_code(token);
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
