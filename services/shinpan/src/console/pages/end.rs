//! The end of a game (第九条, 第十条2): the proposal, marks, a dispute decided by hypothetical
//! play (第七条) with its proof line, the count, and propose / confirm / object.

use super::*;
use crate::app::adjudication::{Adjudicate, Adjudicated, Agreement, Progress, Proposed};
use crate::app::lifecycle::Ending;
use crate::app::results::{ConfirmResult, Objection, ProposeResult};
use goban::{Score, Status as StoneStatus};
use shinpan_adjudicator::DrawReason;
use std::sync::Arc;

/// A chain status (第七条) in the page's language.
pub(super) fn status_name(lang: Lang, s: StoneStatus) -> &'static str {
    match s {
        StoneStatus::Dead => lang.t("dead"),
        StoneStatus::Seki => lang.t("seki"),
        StoneStatus::Undecided => lang.t("undecided"),
        StoneStatus::Alive => lang.t("alive"),
    }
}

/// A chain status given as the protocol's `ChainStatus` number, in the page's language
/// (an unknown number reads as alive).
pub(super) fn status_name_pb(lang: Lang, s: i32) -> &'static str {
    status_name(lang, crate::convert::status_from_pb(s).unwrap_or(StoneStatus::Alive))
}

/// Marks parsed from `pd:dead,dp:alive`.
pub(super) fn parse_marks(s: Option<&str>) -> Vec<(Point, StoneStatus)> {
    s.unwrap_or("")
        .split(',')
        .filter_map(|kv| kv.split_once(':'))
        .filter_map(|(p, st)| {
            let st = match st {
                "dead" => StoneStatus::Dead,
                "alive" => StoneStatus::Alive,
                "seki" => StoneStatus::Seki,
                _ => return None,
            };
            Point::from_sgf(p).ok().map(|p| (p, st))
        })
        .collect()
}

pub(super) fn marks_text(marks: &[(Point, StoneStatus)]) -> String {
    marks
        .iter()
        .map(|(p, s)| {
            let s = match s {
                StoneStatus::Dead => "dead",
                StoneStatus::Seki => "seki",
                _ => "alive",
            };
            format!("{}:{s}", p.to_sgf())
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The game's proposal (`Propose`), computed once per state of the game.
pub(super) async fn proposal(c: &Console, claims: &Claims, game: &pb::Game) -> Result<Arc<Proposed>, Status> {
    let key = (crate::app::games::uuid_field("game_id", &game.id).map_err(status)?, game.last_sequence);
    if let Some(p) = c.proposals.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(p);
    }
    crate::ratelimit::admit(&c.state.expensive, &call(claims, ()), "Propose")?;
    let p = Arc::new(crate::app::adjudication::propose(&c.state, &Adjudicate::game(key.0), None).await.map_err(status)?);
    if let Ok(mut m) = c.proposals.lock() {
        if m.len() > 1000 {
            m.clear();
        }
        m.insert(key, p.clone());
    }
    Ok(p)
}

/// The statuses at the end: the proposal's, with the person's marks over them, by chain.
pub(super) struct EndState {
    view: View,
    proposal: Arc<Proposed>,
    marks: Vec<(Point, StoneStatus)>,
    /// Each stone's chain (its smallest stone in SGF order stands for it).
    chain_of: HashMap<Point, Point>,
    /// Each chain's effective status and whether it is proved (else estimated, or marked).
    chains: BTreeMap<Point, (StoneStatus, &'static str)>,
}

pub(super) async fn end_state(c: &Console, claims: &Claims, id: &str, q: &PageQuery) -> Result<EndState, Status> {
    let view = load_view(c, claims, id, None).await?;
    if !claims.may_propose(&view.ctx.scope) {
        return Err(crate::auth::denied(claims, "settle the end of a game they neither play nor officiate"));
    }
    let proposal = proposal(c, claims, &view.game).await?;
    let mut chain_of = HashMap::new();
    let mut chains = BTreeMap::new();
    for chain in &proposal.proposal.chains {
        let Some(&rep) = chain.stones.iter().min_by_key(|p| p.to_sgf()) else { continue };
        for s in &chain.stones {
            chain_of.insert(*s, rep);
        }
        let basis = match chain.basis.name() {
            "proved" => "proved",
            "estimated" => "estimated",
            _ => "undecided",
        };
        chains.insert(rep, (chain.status, basis));
    }
    let mut marks = parse_marks(q.marks.as_deref());
    if let Some(t) = q.toggle.as_deref().and_then(|t| Point::from_sgf(t).ok()) {
        let rep = chain_of.get(&t).copied().unwrap_or(t);
        let current = marks
            .iter()
            .find(|(p, _)| chain_of.get(p).copied().unwrap_or(*p) == rep)
            .map(|(_, s)| *s)
            .or_else(|| chains.get(&rep).map(|(s, _)| *s))
            .unwrap_or(StoneStatus::Alive);
        marks.retain(|(p, _)| chain_of.get(p).copied().unwrap_or(*p) != rep);
        let next = if current == StoneStatus::Dead { StoneStatus::Alive } else { StoneStatus::Dead };
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
                    StoneStatus::Dead => Mark::Dead { proved },
                    StoneStatus::Seki => Mark::Seki,
                    StoneStatus::Undecided => Mark::Undecided,
                    _ if !proved => Mark::EstimatedAlive,
                    _ => Mark::Alive,
                };
                d.marks.insert(*p, mark);
            }
        }
        if self.marks.is_empty() {
            d.territory_black = self.proposal.count.territory[0].clone();
            d.territory_white = self.proposal.count.territory[1].clone();
        }
        let marks = marks_text(&self.marks);
        d.stone_link = Some(format!("/console/games/{id}/end?marks={marks}&toggle={{point}}"));
        d
    }

    /// The agreements the marks and the proposal make (undecided chains and `except` left out).
    fn agreements(&self, except: Option<Point>) -> Vec<Agreement> {
        let skip = except.map(|p| self.chain_of.get(&p).copied().unwrap_or(p));
        self.chains
            .iter()
            .filter(|(rep, (s, _))| Some(**rep) != skip && *s != StoneStatus::Undecided)
            .map(|(rep, (s, _))| Agreement { stones: vec![*rep], status: *s })
            .collect()
    }
}

pub(super) fn count_table(lang: Lang, count: &Score, komi: f64) -> Markup {
    let result = count.result.to_sgf();
    count_rows(lang, [count.territory[0].len(), count.territory[1].len()], count.prisoners, komi, count.score, &result)
}

/// The count table of an adjudication in the protocol's form (an arbiter's case's
/// re-adjudication).
pub(super) fn count_table_pb(lang: Lang, a: &pb::AdjudicateResponse) -> Markup {
    let territory = [a.territory_black.len(), a.territory_white.len()];
    count_rows(lang, territory, [a.prisoners_black, a.prisoners_white], a.komi, [a.score_black, a.score_white], &a.result)
}

/// The count table: territory points, prisoners, komi and the count `[black, white]`, and
/// the result (SGF `RE`; `0` reads as jigo).
fn count_rows(lang: Lang, territory: [usize; 2], prisoners: [u32; 2], komi: f64, score: [f64; 2], result: &str) -> Markup {
    let (tb, tw) = (territory[0], territory[1]);
    let jigo = result == "0";
    html! {
        table.count {
            thead { tr { th {} th { (lang.t("black")) } th { (lang.t("white")) } } }
            tbody {
                tr { th { (lang.t("territory")) } td.territory-black { (tb) } td.territory-white { (tw) } }
                tr { th { "ハマ" } td { (prisoners[0]) } td { (prisoners[1]) } }
                tr { th { "コミ" } td { "—" } td { (komi) } }
                tr { th { (lang.t("count")) } td { (score[0]) } td { (score[1]) } }
            }
        }
        p.count-result { strong { (lang.t("result")) ": " (if jigo { lang.t("jigo") } else { result }) } }
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
    let proposed = &end.proposal;
    let estimator_error = proposed.proposal.estimator.as_ref().and_then(|e| e.error.clone()).unwrap_or_default();
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
                        @for chain in &proposed.proposal.chains {
                            @let first = chain.stones.first().map(|&p| board::point_name(p, size)).unwrap_or_default();
                            tr class={"proof-row " (chain.basis.name())} {
                                td { (first) " (" (chain.stones.len()) ")" }
                                td { (status_name(lang, chain.status)) }
                                td.basis { (match chain.basis.name() { "proved" => lang.t("proved"), "estimated" => lang.t("estimated"), _ => lang.t("undecided") }) }
                                td { (chain.source) }
                                td { (chain.reason.as_deref().unwrap_or_default()) }
                            }
                        }
                    }
                }
                @if !estimator_error.is_empty() { p.estimator { (lang.t("estimated")) ": " (estimator_error) } }
                @if end.marks.is_empty() { (count_table(lang, &proposed.count, proposed.subject.komi)) p { "(" (lang.t("proved")) ": " (proposed.proposal.proved_score.result.to_sgf()) ")" } }
                @if may_act {
                    h2 { (lang.t("dispute")) }
                    form method="post" action={"/console/games/" (id) "/dispute"} data-dispute-live={"/console/games/" (id) "/dispute/live"} {
                        input type="hidden" name="marks" value=(marks);
                        select name="point" {
                            @for (rep, (s, _)) in &end.chains {
                                option value=(rep.to_sgf()) { (board::point_name(*rep, size)) " — " (status_name(lang, *s)) }
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
    let adjudicated = match crate::ratelimit::admit(&c.state.expensive, &call(&claims, ()), "Adjudicate") {
        Ok(()) => match dispute_request(&id, &end, &f.point) {
            Ok(req) => crate::app::adjudication::adjudicate(&c.state, Some(&claims), &req, None).await.map_err(status),
            Err(s) => Err(s),
        },
        Err(s) => Err(s),
    };
    let answer = match adjudicated {
        Ok(a) => a,
        Err(s) => return error_page(&q, lang, Some(&claims), &s),
    };
    let body = dispute_answer(lang, &id, &end, point, &answer);
    respond(&q, lang, StatusCode::OK, layout(lang, Some(&claims), lang.t("adjudication"), body))
}

/// The adjudication request of a dispute of the chain through `point` (SGF) of game `id`,
/// with the end state's marks as the agreement (第九条) around it.
///
/// # Errors
/// `INVALID_ARGUMENT` for a game id that is not a UUID or a point that is not SGF
/// (`disputed[0]`).
fn dispute_request(id: &str, end: &EndState, point: &str) -> Result<Adjudicate, Status> {
    let disputed = crate::convert::point_from_sgf("disputed[0]", point.trim(), crate::convert::MAX_BOARD, crate::convert::MAX_BOARD)
        .map_err(status)?;
    Ok(Adjudicate {
        agreements: end.agreements(Some(disputed)),
        disputed: vec![disputed],
        ..Adjudicate::game(crate::app::games::uuid_field("game_id", id).map_err(status)?)
    })
}

/// The answer to a dispute: the board with the statuses found, the links of kept walls and
/// the proof line numbered on it (stepped by the page's script), the status with its reason,
/// refuted agreements, the agreed chains drawn into the dispute (each with its colour,
/// stones and reason) and the agreed walls kept by two links (each with its colour, stones
/// and links; module `dispute` of the adjudicator, 第七条), and the count.
fn dispute_answer(lang: Lang, id: &str, end: &EndState, point: Option<Point>, answer: &Adjudicated) -> Markup {
    let size = end.view.drawing.size;
    let names = |ps: &[Point]| ps.iter().map(|&p| board::point_name(p, size)).collect::<Vec<_>>().join(" · ");
    let rep = point.map(|p| end.chain_of.get(&p).copied().unwrap_or(p));
    let adj = &answer.adjudication;
    let proof = adj.proofs.iter().find(|pr| pr.stones.iter().any(|&s| Some(end.chain_of.get(&s).copied().unwrap_or(s)) == rep));
    let mut d = end.view.drawing.clone();
    d.last = None;
    d.links = adj.kept_by_links.iter().flat_map(|k| k.links).collect();
    let board = &answer.subject.board;
    for p in board.points().filter(|&p| board.get(p).is_some()) {
        let mark = match adj.status.get(p) {
            StoneStatus::Dead => Mark::Dead { proved: true },
            StoneStatus::Seki => Mark::Seki,
            StoneStatus::Undecided => Mark::Undecided,
            StoneStatus::Alive => Mark::Alive,
        };
        d.marks.insert(p, mark);
    }
    if let Some(pr) = proof {
        for (k, &(colour, mv)) in pr.line.iter().enumerate() {
            if let Move::Play(p) = mv {
                d.numbered.push((p, colour, k as u32 + 1));
            }
        }
    }
    let line = proof.map(|pr| pr.line_text()).unwrap_or_default();
    let reason = proof.and_then(|pr| pr.undecided).map(|u| u.to_string()).unwrap_or_default();
    html! {
        h1 { (lang.t("adjudication")) }
        p { a href={"/console/games/" (id) "/end?marks=" (marks_text(&end.marks))} { "◀ " (lang.t("proposal")) } }
        div.game {
            (board::svg(&d))
            div {
                @if let Some(pr) = proof {
                    p.status { (point.map(|p| board::point_name(p, size)).unwrap_or_default()) ": " strong { (status_name(lang, pr.status)) } }
                    @if !reason.is_empty() { p.undecided-reason { (lang.t("reason")) ": " (reason) } }
                    @if !d.numbered.is_empty() {
                        @let n = line.len();
                        p.steps data-steps=(n) {
                            button type="button" data-go="-1" { "◀" } " " output { (n) " / " (n) } " " button type="button" data-go="1" { "▶" }
                        }
                    }
                    p { (lang.t("proof_line")) ": " span.proof {
                        @for (k, step) in line.iter().enumerate() { (k + 1) ". " (step_name(lang, step, size)) " " }
                    } }
                }
                @for r in &adj.refuted_agreements {
                    p.refuted { (r.stones.first().map(|&p| board::point_name(p, size)).unwrap_or_default()) ": " (status_name(lang, r.agreed)) " → " (status_name(lang, r.found)) }
                }
                @for dr in &adj.drawn_in {
                    p.drawn-in { (lang.t("drawn_in")) ": " (colour_name(lang, dr.color)) " " (names(&dr.stones)) " — " (draw_reason(lang, &dr.reason, size)) }
                }
                @for k in &adj.kept_by_links {
                    p.kept-by-links {
                        (lang.t("kept_by_links")) ": " (colour_name(lang, k.color)) " " (names(&k.stones)) " — "
                        (lang.t("links")) " " (names(&k.links)) ": " (lang.t("kept_by_links_why"))
                    }
                }
                (count_table(lang, &answer.count, answer.subject.komi))
            }
        }
    }
}

/// `GET /console/games/{id}/dispute/live?point=…&marks=…`: the dispute of `POST …/dispute`
/// decided through `AdjudicateStream`, as server-sent events: `progress` (regions searched
/// and nodes so far, as they come) and, last, `done` with the answer (as `POST …/dispute`
/// draws it) or the refusal in a sentence. The page's script opens it when the dispute form
/// is sent, so a long adjudication shows where it stands.
pub async fn dispute_live(State(c): State<Console>, Path(id): Path<String>, Query(q): Query<PageQuery>, headers: HeaderMap) -> Response {
    let lang = lang_of(&q, &headers);
    let Some(claims) = c.session(&headers) else { return StatusCode::UNAUTHORIZED.into_response() };
    let point = q.point.clone().unwrap_or_default();
    let first: Result<(EndState, _), Status> = async {
        let end = end_state(&c, &claims, &id, &q).await?;
        crate::ratelimit::admit(&c.state.expensive, &call(&claims, ()), "AdjudicateStream")?;
        let req = dispute_request(&id, &end, &point)?;
        let stream = crate::app::adjudication::adjudicate_stream(&c.state, Some(&claims), &req, None).await.map_err(status)?;
        Ok((end, stream))
    }
    .await;
    let (end, stream) = match first {
        Ok(x) => x,
        Err(s) => {
            let once = futures::stream::once(async move {
                Ok::<_, Infallible>(Event::default().event("done").data(error_box(lang, &explain(lang, &s)).into_string()))
            });
            return Sse::new(once).into_response();
        }
    };
    let at = Point::from_sgf(point.trim()).ok();
    let events = stream.map(move |m| {
        let event = match m {
            Ok(Progress::Done(answer)) => Event::default().event("done").data(dispute_answer(lang, &id, &end, at, &answer).into_string()),
            Ok(Progress::Region { done, total, nodes }) => Event::default().event("progress").data(
                html! { p.progress { (lang.t("searching")) ": " (done) " / " (total) " · " (nodes) " " (lang.t("nodes")) } }.into_string(),
            ),
            Err(e) => Event::default().event("done").data(error_box(lang, &explain(lang, &status(e))).into_string()),
        };
        Ok::<_, Infallible>(event)
    });
    Sse::new(events).keep_alive(KeepAlive::default()).into_response()
}

/// Why an agreed chain was drawn into a dispute, in `lang`, the chain it races named on the
/// board of `size` (the adjudicator's [`DrawReason`], 第七条).
fn draw_reason(lang: Lang, reason: &DrawReason, size: u8) -> String {
    let (key, with) = match reason {
        DrawReason::CapturingRace { with } => ("drawn_in_race", with),
        DrawReason::LeanedOn { with } => ("drawn_in_leaned_on", with),
    };
    lang.t(key).replace("{}", &board::point_name(*with, size))
}

pub(super) fn step_name(lang: Lang, step: &str, size: u8) -> String {
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
                let req = ProposeResult {
                    game_id: crate::app::games::uuid_field("game_id", &id).map_err(status)?,
                    ending: Some(Ending::Count),
                    winner: None,
                    agreements: end.agreements(None),
                    note: format!("proposed in the console by {}", claims.sub),
                };
                c.results.propose(&claims, req).await.map_err(status)?;
            }
            "confirm" => {
                let req =
                    ConfirmResult { game_id: crate::app::games::uuid_field("game_id", &id).map_err(status)?, color: None, version: 0 };
                c.results.confirm(&claims, req).await.map_err(status)?;
            }
            "object" => {
                if f.reason.trim().is_empty() {
                    return Err(Status::invalid_argument(lang.t("objection_reason")));
                }
                let req = Objection {
                    game_id: crate::app::games::uuid_field("game_id", &id).map_err(status)?,
                    reason: f.reason.trim().to_string(),
                };
                c.results.object(&claims, req).await.map_err(status)?;
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
