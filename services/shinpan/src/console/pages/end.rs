//! The end of a game (第九条, 第十条2): the proposal, marks, a dispute decided by hypothetical
//! play (第七条) with its proof line, the count, and propose / confirm / object.

use super::*;

pub(super) fn status_name(lang: Lang, s: i32) -> &'static str {
    match pb::ChainStatus::try_from(s) {
        Ok(pb::ChainStatus::Dead) => lang.t("dead"),
        Ok(pb::ChainStatus::Seki) => lang.t("seki"),
        Ok(pb::ChainStatus::Undecided) => lang.t("undecided"),
        _ => lang.t("alive"),
    }
}

/// Marks parsed from `pd:dead,dp:alive`.
pub(super) fn parse_marks(s: Option<&str>) -> Vec<(Point, pb::ChainStatus)> {
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

pub(super) fn marks_text(marks: &[(Point, pb::ChainStatus)]) -> String {
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
pub(super) async fn proposal(c: &Console, claims: &Claims, game: &pb::Game) -> Result<pb::ProposeResponse, Status> {
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
pub(super) struct EndState {
    view: View,
    proposal: pb::ProposeResponse,
    marks: Vec<(Point, pb::ChainStatus)>,
    /// Each stone's chain (its smallest stone in SGF order stands for it).
    chain_of: HashMap<Point, Point>,
    /// Each chain's effective status and whether it is proved (else estimated, or marked).
    chains: BTreeMap<Point, (pb::ChainStatus, &'static str)>,
}

pub(super) async fn end_state(c: &Console, claims: &Claims, id: &str, q: &PageQuery) -> Result<EndState, Status> {
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

pub(super) fn count_table(lang: Lang, a: &pb::AdjudicateResponse) -> Markup {
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
                    form method="post" action={"/console/games/" (id) "/dispute"} data-dispute-live={"/console/games/" (id) "/dispute/live"} {
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
    let req = dispute_request(&id, &end, &f.point);
    let adjudicated = match c.state.expensive.admit(&call(&claims, ()), "Adjudicate") {
        Ok(()) => crate::app::adjudication::adjudicate(&c.state, Some(&claims), &req, None).await.map_err(Status::from),
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
fn dispute_request(id: &str, end: &EndState, point: &str) -> pb::AdjudicateRequest {
    pb::AdjudicateRequest {
        position: Some(pb::adjudicate_request::Position::GameId(id.to_string())),
        agreements: end.agreements(Point::from_sgf(point.trim()).ok()),
        disputed: vec![point.trim().to_string()],
        ..Default::default()
    }
}

/// The answer to a dispute: the board with the statuses found and the proof line numbered
/// on it (stepped by the page's script), the status with its reason, refuted agreements,
/// chains drawn in, and the count.
fn dispute_answer(lang: Lang, id: &str, end: &EndState, point: Option<Point>, answer: &pb::AdjudicateResponse) -> Markup {
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
    html! {
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
                (count_table(lang, answer))
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
        c.state.expensive.admit(&call(&claims, ()), "AdjudicateStream")?;
        let req = dispute_request(&id, &end, &point);
        let stream = crate::app::adjudication::adjudicate_stream(&c.state, Some(&claims), &req, None).await.map_err(Status::from)?;
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
            Ok(pb::AdjudicateStreamResponse { result: Some(answer), .. }) => {
                Event::default().event("done").data(dispute_answer(lang, &id, &end, at, &answer).into_string())
            }
            Ok(p) => Event::default().event("progress").data(
                html! { p.progress { (lang.t("searching")) ": " (p.regions_done) " / " (p.regions_total) " · " (p.nodes) " " (lang.t("nodes")) } }
                    .into_string(),
            ),
            Err(e) => Event::default().event("done").data(error_box(lang, &explain(lang, &Status::from(e))).into_string()),
        };
        Ok::<_, Infallible>(event)
    });
    Sse::new(events).keep_alive(KeepAlive::default()).into_response()
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
