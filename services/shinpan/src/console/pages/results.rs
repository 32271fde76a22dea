//! A tournament's confirmed results (第十条2: a result confirmed by both players is final): by
//! round and board, with the EGF results table and the SGF records (`RE`, and the ruling in
//! `GC`) to download. For officials of the tournament and archive readers; the downloads are
//! what `ExportResults` returns, so the page refuses exactly what the API refuses.

use super::*;
use crate::app::lifecycle::ResultStage;
use crate::app::results::{Export, ExportResults, ResultView};

/// `GET /console/results`: every tournament of the games the token may see, each with its
/// final results by round and board and the links to its EGF table and SGF collection.
/// Results not yet final (proposed, objected) are not listed: they can still change.
pub async fn results(State(c): State<Console>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return to_sign_in("/console/results") };
    let games = match c.recording.list_games(ListGames::default()).await {
        Ok(games) => games.iter().map(crate::convert::game_to_pb).collect::<Vec<_>>(),
        Err(e) => return error_page(&q, lang, Some(&claims), &status(e)),
    };
    let mut by_tournament: BTreeMap<String, Vec<(pb::Game, ResultView)>> = BTreeMap::new();
    for g in games.into_iter().filter(|g| g.phase != pb::Phase::Playing as i32) {
        let Ok(id) = crate::app::games::uuid_field("game_id", &g.id) else { continue };
        let Ok(r) = c.results.get(&claims, id).await else { continue };
        if r.stage == ResultStage::Final {
            by_tournament.entry(g.tournament.clone()).or_default().push((g, r));
        }
    }
    for rows in by_tournament.values_mut() {
        rows.sort_by_key(|(g, _)| (g.round, g.board_number));
    }
    let body = html! {
        h1 { (lang.t("final_results")) }
        @if by_tournament.is_empty() { p { (lang.t("no_final_results")) } }
        @for (t, rows) in &by_tournament {
            h2 { (lang.t("tournament")) ": " (if t.is_empty() { "—" } else { t }) }
            @if !t.is_empty() {
                p.downloads {
                    a href={"/console/results/egf?tournament=" (urlencode(t))} download { (lang.t("egf_table")) }
                    " · "
                    a href={"/console/results/sgf?tournament=" (urlencode(t))} download { (lang.t("sgf_collection")) }
                }
            }
            table.results {
                thead { tr {
                    th { (lang.t("round")) } th { (lang.t("board")) } th { (lang.t("black")) } th { (lang.t("white")) }
                    th { (lang.t("result")) } th { (lang.t("ruling")) } th { "SGF" }
                } }
                tbody {
                    @for (g, r) in rows {
                        tr data-game=(g.id) {
                            td { (g.round) } td { (g.board_number) }
                            td { a href={"/console/games/" (g.id)} { (player(g.black.as_ref())) } }
                            td { a href={"/console/games/" (g.id)} { (player(g.white.as_ref())) } }
                            td.result { (r.result) }
                            td { (r.ruling_text) }
                            td { a href={"/console/games/" (g.id) "/sgf"} download { "SGF" } }
                        }
                    }
                }
            }
        }
        p { a href="/console" { (lang.t("back_to_tournament")) } }
    };
    respond(&q, lang, StatusCode::OK, layout(lang, Some(&claims), lang.t("final_results"), body))
}

/// `GET /console/results/egf?tournament=T`: the tournament's EGF results table
/// (`text/plain`, a download).
pub async fn results_egf(State(c): State<Console>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    export(&c, &q, &headers, |r, t| download("text/plain; charset=utf-8", &format!("{}.egf.txt", file_stem(t)), r.egf_table)).await
}

/// `GET /console/results/sgf?tournament=T`: the tournament's final games as one SGF
/// collection (the records one after the other, FF\[4\] §2), a download.
pub async fn results_sgf(State(c): State<Console>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    export(&c, &q, &headers, |r, t| download("application/x-go-sgf", &format!("{}.sgf", file_stem(t)), r.sgf.join("\n"))).await
}

/// `GET /console/games/{id}/sgf`: the game's record as SGF (`ExportSgf`), a download.
pub async fn game_sgf(State(c): State<Console>, Path(id): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return to_sign_in(&format!("/console/games/{id}")) };
    match c.recording.export(&id).await {
        Ok(sgf) => download("application/x-go-sgf", &format!("{}.sgf", file_stem(&id)), sgf),
        Err(e) => error_page(&q, lang, Some(&claims), &status(e)),
    }
}

/// Calls `ExportResults` for `?tournament=` with the session's claims and answers with
/// `ok`'s response, or the error page.
async fn export(c: &Console, q: &PageQuery, headers: &HeaderMap, ok: impl FnOnce(Export, &str) -> Response) -> Response {
    let lang = lang_of(q, headers);
    let Some(claims) = c.session(headers) else { return to_sign_in("/console/results") };
    let tournament = q.tournament.clone().unwrap_or_default();
    let req = ExportResults { tournament: tournament.clone(), ..ExportResults::default() };
    match c.results.export(&claims, req).await {
        Ok(r) => ok(r, &tournament),
        Err(e) => error_page(q, lang, Some(&claims), &status(e)),
    }
}

/// A download: `body` with its content type and a file name.
fn download(content_type: &'static str, name: &str, body: String) -> Response {
    let mut r = body.into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        r.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    r
}

/// A file name's stem from a tournament name or id: letters, digits, `-` and `_` kept,
/// every other character `_`.
fn file_stem(s: &str) -> String {
    let stem: String = s.chars().map(|ch| if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' { ch } else { '_' }).collect();
    if stem.is_empty() {
        "results".to_string()
    } else {
        stem
    }
}

/// `s` percent-encoded for a query value.
fn urlencode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
