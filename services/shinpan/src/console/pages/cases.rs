//! The arbiter's cases: the evidence, and the ruling with its written reason.

use super::*;

pub(super) const RULINGS: &[(pb::RulingKind, &str, &str)] = &[
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
    let k = match c.arbitration.get(&claims, &id).await {
        Ok(k) => crate::convert::case_pb(&k),
        Err(e) => return error_page(&q, lang, Some(&claims), &status(e)),
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
        @for pr in &e.proofs { p.proof { (status_name_pb(lang, pr.status)) ": " (pr.line.join(" ")) " " (pr.reason) } }
        @if let Some(a) = &e.readjudication { (count_table_pb(lang, a)) }
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
            .get(&claims, &id)
            .await
            .ok()
            .and_then(|k| crate::convert::case_pb(&k).evidence)
            .and_then(|e| e.fouls.into_iter().next())
            .map(|f| crate::app::lifecycle::FoulRef { move_number: f.move_number, rule: f.rule, article: f.article })
    } else {
        None
    };
    let ruling = crate::convert::ruling_from_pb(pb::Ruling {
        kind: f.kind,
        reason: f.reason.trim().to_string(),
        loser: f.loser,
        amended_result: f.amended_result.trim().to_string(),
        ..Default::default()
    })
    .map(|r| crate::app::arbitration::Ruling { foul, ..r });
    let ruled = match ruling {
        Ok(r) => c.arbitration.rule(&claims, crate::app::arbitration::RuleCase { case_id: id.clone(), ruling: Some(r) }).await,
        Err(e) => Err(e),
    };
    match ruled {
        Ok(_) => Redirect::to(&format!("/console/cases/{id}")).into_response(),
        Err(e) => error_page(&q, lang, Some(&claims), &status(e)),
    }
}
