//! A game's page: the board at any move of the record, followed live as moves are recorded.

use super::*;
use crate::app::lifecycle::ResultStage;

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
    let view = c.recording.get_game(id).await.map_err(status)?;
    let game = crate::convert::game_to_pb(&view);
    let store = c.state.store().map_err(status)?;
    let gid = crate::app::games::uuid_field("game_id", id).map_err(status)?;
    let ctx = crate::app::games::load_game(store, gid).await.map_err(status)?;
    let start = crate::app::events::stored_start(&ctx.game).map_err(status)?;
    let mut engine = start.game().map_err(status)?;
    let at = at.unwrap_or(view.move_number).min(view.moves.len() as u32);
    let mut last = None;
    for (i, &(color, mv)) in view.moves.iter().take(at as usize).enumerate() {
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
    let fouls: Vec<pb::Foul> = events.iter().filter(|e| e.kind == "foul").filter_map(|e| crate::convert::event_to_pb(e).foul).collect();
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

pub(super) fn colour_name(lang: Lang, c: Color) -> &'static str {
    if c == Color::Black {
        lang.t("black")
    } else {
        lang.t("white")
    }
}

pub(super) fn pb_colour(lang: Lang, c: i32) -> &'static str {
    match pb::Color::try_from(c) {
        Ok(pb::Color::White) => lang.t("white"),
        _ => lang.t("black"),
    }
}

pub(super) fn sgf_name(p: &str, size: u8) -> String {
    Point::from_sgf(p).map(|p| board::point_name(p, size)).unwrap_or_else(|_| p.to_string())
}

pub(super) fn move_name(lang: Lang, m: Option<&pb::Move>, size: u8) -> String {
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
    let result = match crate::app::games::uuid_field("game_id", &id) {
        Ok(uuid) => c.results.get(&claims, uuid).await.ok(),
        Err(_) => None,
    };
    let cases: Vec<pb::Case> = match crate::app::games::uuid_field("game_id", &id) {
        Ok(game_id) => {
            match c.arbitration.list(&claims, crate::app::arbitration::ListCases { game_id: Some(game_id), ..Default::default() }).await {
                Ok(r) => r.iter().map(crate::convert::case_pb).collect(),
                Err(_) => Vec::new(),
            }
        }
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
            p.result { strong { (r.result) } " · " (result_state_label(lang, r.stage)) @if !r.note.is_empty() { " · " (r.note) } }
            @if !r.pending.is_empty() { p { (lang.t("pending")) ": " (r.pending.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")) } }
            @if r.stage != ResultStage::Final {
                @let colours = claims.player_colours(scope);
                @if claims.officiates(scope) || !colours.is_empty() {
                    form.inline method="post" action={"/console/games/" (id) "/result"} {
                        input type="hidden" name="action" value="confirm";
                        button.confirm type="submit" { (lang.t("confirm")) }
                    }
                }
                @if !colours.is_empty() && r.stage == ResultStage::Proposed {
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
    let watch = c.recording.watch(WatchGame { game_id: id.clone(), from_sequence: from, until_end: false }).await;
    let events = match watch {
        Ok(r) => r,
        Err(e) => return (StatusCode::NOT_FOUND, explain(lang, &status(e))).into_response(),
    };
    let stream = events.take_while(|r| std::future::ready(r.is_ok())).then(move |r| {
        let (c, claims, id) = (c.clone(), claims.clone(), id.clone());
        async move {
            let e = r.ok().map(|e| crate::convert::event_to_pb(&e)).unwrap_or_default();
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
