//! The tournament view: every game by tournament and round, the open cases, live.

use super::*;

/// The open cases of the token's tournament (every tournament's for a token naming none);
/// none for a player (their cases are on their games' pages).
pub(super) async fn open_cases(c: &Console, claims: &Claims) -> Result<Vec<pb::Case>, Status> {
    if claims.role == crate::auth::Role::Player {
        return Ok(Vec::new());
    }
    let req = crate::app::arbitration::ListCases { tournament: claims.tournament.clone().unwrap_or_default(), ..Default::default() };
    let all = c.arbitration.list(claims, req).await.map_err(status)?;
    Ok(all
        .iter()
        .filter(|k| matches!(k.state, shinpan_storage::CaseState::Open | shinpan_storage::CaseState::UnderReview))
        .map(crate::convert::case_pb)
        .collect())
}

/// The tournament view's live part: every game by tournament and round, and the open cases.
pub(super) async fn tournament_fragment(c: &Console, claims: &Claims, lang: Lang) -> Markup {
    let games = c
        .recording
        .list_games(ListGames::default())
        .await
        .map(|g| g.iter().map(crate::convert::game_to_pb).collect::<Vec<_>>())
        .map_err(status);
    let cases = open_cases(c, claims).await;
    let with_case: std::collections::HashSet<String> = cases.iter().flatten().map(|k| k.game_id.clone()).collect();
    let mut results = HashMap::new();
    if let Ok(games) = &games {
        for g in games.iter().filter(|g| g.phase != pb::Phase::Playing as i32) {
            let Ok(id) = crate::app::games::uuid_field("game_id", &g.id) else { continue };
            if let Ok(r) = c.results.get(claims, id).await {
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
                                        @if let Some(r) = results.get(&g.id) { " · " (result_state_label(lang, r.stage)) }
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

pub(super) fn player(p: Option<&pb::Player>) -> String {
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
