//! The arbiter's (立会人) cases and rulings: the use cases behind `ArbitrationService`.
//!
//! Cases open automatically — a foul recorded by validation (opened by `GameRecordingService`), a
//! whole-board repetition found by the rules engine in the recorded moves (opened here,
//! kind `repetition`, whenever a game's cases or result are looked at), an undecided count
//! (`ProposeResult`), an objection (`Object`) — or by a referee (`OpenCase`). States: open →
//! under review → ruled → closed (`SetCaseState` takes a case under review or closes it —
//! dismissed without a ruling — with a reason; ruled cases close when the game's result
//! becomes final).
//!
//! `RuleCase` checks the ruling with [`crate::lifecycle::rule`] against the evidence the
//! engine supplies (the game is replayed from its recorded moves; fouls come from the event
//! log) and then:
//! * 無勝負 (第十一条) — only when the same sequence has cycled twice or more
//!   (`goban::Repetition::cycles >= 2`); under the tournament's policy (`no_result_policy`
//!   of its settings: `no-result`, `time-used`, `nigiri` — 第十一条's note) the ruling names
//!   the winner and the policy applied is recorded in the ruling;
//! * 反則負け (第十二条) — names the player and the foul (move, rule, article), which must be
//!   a recorded foul of that player; only before the result is final;
//! * 両負け (要請II-\[vii\] 3, 4); resumption (第九条: play resumes, the game returns to
//!   `playing`); end by count (第九条2: agreement is not reached — e.g. a one-sided cycle
//!   with passes to refuse the end — so the adjudicator counts by 第七条・第八条); uphold /
//!   amend an objected result (第十条2).
//!
//! Every ruling that keeps or changes the result makes a new proposal carrying the ruling's
//! text (exported as SGF `GC`), so the players and the referee confirm again. Only officials
//! (referee of the tournament, chief arbiter, federation admin) open and rule cases.
//!
//! The use cases take commands ([`OpenCase`], [`ListCases`], [`RuleCase`], [`SetCaseState`],
//! [`PolicyRequest`]: identifiers, kinds, states and colours read, lengths within
//! [`crate::limits`]) and answer with the stored case rows (`shinpan_storage::Case`, its
//! evidence and ruling as the store's JSON) or a [`TournamentPolicy`]; the protocol's form is
//! the transport's.

use crate::auth::{Claims, Role};
use crate::cases::{colour_letter, ruling_kind_name};
use crate::count::count;
use crate::error::AppError;
use crate::games::{find_tournament, load_game, phase_of, reconstruct, recorded_fouls, sync_repetition_case, uuid_field, GameCtx};
use crate::lifecycle::{self, Effect, Ending, FoulRef, NoResultPolicy, RulingInput, RulingKind};
use crate::AppState;
use goban::Color;
use serde_json::{json, Value};
use shinpan_storage::{self as storage, CaseFilter, NewCase, NewResult, Store};
use uuid::Uuid;

/// `OpenCase`: a case of a game, opened by one of its officials.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenCase {
    /// The game.
    pub game_id: Uuid,
    /// The kind (a referee's own case is `Manual`; an objection is refused: the players file
    /// it, 第十条2).
    pub kind: storage::CaseKind,
    /// Why (required; trimmed).
    pub reason: String,
    /// The evidence attached, as the store keeps it (`move_numbers`, `fouls`, `repetitions`,
    /// `positions`, `note`); `None` = none. The engine's reconstruction is added.
    pub evidence: Option<Value>,
}

/// `ListCases`: the cases of a game or a tournament (at least one of them, unless the caller
/// may read every tournament's), of one state or any.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ListCases {
    /// The tournament's name or id; empty = any.
    pub tournament: String,
    /// The game; `None` = any.
    pub game_id: Option<Uuid>,
    /// The state; `None` = any.
    pub state: Option<storage::CaseState>,
}

/// A ruling as asked for (`RuleCase`), checked by [`crate::lifecycle::rule`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    /// What is decided; `None` when the request gave none (refused with `INVALID_ARGUMENT`).
    pub kind: Option<RulingKind>,
    /// The written reason (trimmed).
    pub reason: String,
    /// The player who loses (反則負け, 第十二条), if named.
    pub loser: Option<Color>,
    /// The winner a 無勝負 policy names (第十一条's note), if named.
    pub winner: Option<Color>,
    /// The recorded foul a 反則負け is for (move number, rule, article).
    pub foul: Option<FoulRef>,
    /// The amended result in SGF `RE` syntax (第十条2); empty = none.
    pub amended_result: String,
}

/// `RuleCase`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCase {
    /// The case: its UUID or a unique prefix of at least 4 hexadecimal digits.
    pub case_id: String,
    /// The ruling; `None` when the request gave none (refused with `INVALID_ARGUMENT`).
    pub ruling: Option<Ruling>,
}

/// `SetCaseState`: take a case under review or close it (dismissed without a ruling).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetCaseState {
    /// The case: its UUID or a unique prefix of at least 4 hexadecimal digits.
    pub case_id: String,
    /// The new state: `UnderReview` or `Closed` (anything else, or none, is refused).
    pub state: Option<storage::CaseState>,
    /// Why (required; trimmed).
    pub reason: String,
}

/// `GetNoResultPolicy` / `SetNoResultPolicy` (第十一条 and its note).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyRequest {
    /// The tournament's name or id.
    pub tournament: String,
    /// The policy to set (`no-result`, `time-used` or `nigiri`); `None` = read it.
    pub set: Option<String>,
}

/// A tournament's 無勝負 policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentPolicy {
    /// The tournament's name.
    pub tournament: String,
    /// Its policy.
    pub policy: NoResultPolicy,
}

/// The case `text` names (as [`case_id`] reads it), its game, and the check that `c` may
/// rule on it (the game's officials, 第十一条・第十二条); `doing` names the action in a refusal.
///
/// # Errors
/// As [`case_id`]; `NOT_FOUND` for an unknown case; `PERMISSION_DENIED`.
async fn case_to_rule(store: &Store, c: &Claims, text: &str, doing: &str) -> Result<(Uuid, storage::Case, GameCtx), AppError> {
    let case_id = case_id(store, text).await?;
    let case = store.get_case(case_id).await.map_err(AppError::from)?;
    let ctx = load_game(store, case.game_id).await?;
    if !c.may_rule(&ctx.scope) {
        return Err(crate::denied(c, doing));
    }
    Ok((case_id, case, ctx))
}

/// A case id as a client gives it: the full UUID, or (as the CLI prints ids shortened) a
/// unique prefix of at least 4 hexadecimal digits. INVALID_ARGUMENT for anything else or an
/// ambiguous prefix, NOT_FOUND when no case matches.
async fn case_id(store: &Store, text: &str) -> Result<Uuid, AppError> {
    if let Ok(id) = uuid_field("case_id", text) {
        return Ok(id);
    }
    if text.len() > 36 {
        return uuid_field("case_id", text);
    }
    store.resolve_case_prefix(text).await.map_err(AppError::from)
}

fn policy_of(ctx: &GameCtx) -> NoResultPolicy {
    ctx.tournament.as_ref().map_or(NoResultPolicy::NoResult, |t| t.settings.no_result_policy)
}

/// The arbiter's use cases, each for the caller `c` (their verified token's claims): see
/// the module docs.
#[derive(Clone)]
pub struct Arbitration {
    state: AppState,
}

impl Arbitration {
    /// The use cases on the shared state (they need the store).
    pub fn new(state: AppState) -> Arbitration {
        Arbitration { state }
    }

    fn store(&self) -> Result<&Store, AppError> {
        self.state.store()
    }

    /// Opens a case of a game (a referee's own, or of a kind the engine opens), with its
    /// reason and evidence: the game's officials only.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT`, `NOT_FOUND`, `PERMISSION_DENIED`, store errors.
    pub async fn open(&self, c: &Claims, req: OpenCase) -> Result<storage::Case, AppError> {
        crate::limits::check(&[("reason", &req.reason, crate::limits::MAX_TEXT_BYTES)])?;
        let store = self.store()?;
        let id = req.game_id;
        let ctx = load_game(store, id).await?;
        if !c.may_rule(&ctx.scope) {
            return Err(crate::denied(c, "open an arbiter case"));
        }
        if req.reason.trim().is_empty() {
            return Err(AppError::invalid("reason: a case is opened with its reason"));
        }
        let kind = req.kind;
        if kind == storage::CaseKind::Objection {
            return Err(AppError::invalid("kind: objections are filed by the players (ResultConfirmationService.Object)"));
        }
        let mut evidence = req.evidence.unwrap_or_else(|| json!({}));
        // The engine's view of the recorded game goes with every case.
        let recon = reconstruct(store, &ctx).await?;
        evidence["reconstruction"] = recon.to_json();
        evidence["max_cycles"] = json!(recon.max_cycles());
        let (case, _) = store
            .open_case(&NewCase {
                game_id: id,
                kind,
                evidence,
                opened_by: c.sub.clone(),
                reason: req.reason.trim().to_string(),
                dedupe_key: None,
            })
            .await
            .map_err(AppError::from)?;
        tracing::info!(game = %id, case = %case.id, kind = %kind, by = %c.sub, "case opened");
        Ok(case)
    }

    /// Lists the cases of a game or a tournament, filtered by kind and state, for those who
    /// may read them.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT`, `NOT_FOUND`, `PERMISSION_DENIED`, store errors.
    pub async fn list(&self, c: &Claims, req: ListCases) -> Result<Vec<storage::Case>, AppError> {
        crate::limits::check(&[("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES)])?;
        let store = self.store()?;
        let mut filter = CaseFilter { state: req.state, ..Default::default() };
        if let Some(id) = req.game_id {
            let ctx = load_game(store, id).await?;
            if !c.may_read(&ctx.scope) {
                return Err(crate::denied(c, "read this game's cases"));
            }
            if ctx.game.state != storage::GameState::Final {
                let recon = reconstruct(store, &ctx).await?;
                sync_repetition_case(store, &ctx, &recon).await?;
            }
            filter.game_id = Some(id);
        }
        if !req.tournament.trim().is_empty() {
            let t = find_tournament(store, &req.tournament).await?;
            if filter.game_id.is_none() && !c.may_export(t.id, &t.name) {
                return Err(crate::denied(c, "list this tournament's cases"));
            }
            if filter.game_id.is_none() {
                for g in store.list_games(Some(t.id), None).await.map_err(AppError::from)? {
                    if g.state != storage::GameState::Final {
                        let ctx = load_game(store, g.id).await?;
                        let recon = reconstruct(store, &ctx).await?;
                        sync_repetition_case(store, &ctx, &recon).await?;
                    }
                }
            }
            filter.tournament_id = Some(t.id);
        }
        if filter.game_id.is_none() && filter.tournament_id.is_none() {
            let everywhere =
                matches!(c.role, Role::FederationAdmin | Role::ArchiveReader) || (c.role == Role::ChiefArbiter && c.tournament.is_none());
            if !everywhere {
                return Err(crate::denied(c, "list every tournament's cases (name a tournament or a game)"));
            }
        }
        store.list_cases(&filter).await.map_err(AppError::from)
    }

    /// One case by its id (or a unique prefix of at least 4 hexadecimal digits).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT`, `NOT_FOUND`, `PERMISSION_DENIED`, store errors.
    pub async fn get(&self, c: &Claims, case: &str) -> Result<storage::Case, AppError> {
        let store = self.store()?;
        let id = case_id(store, case).await?;
        let case = store.get_case(id).await.map_err(AppError::from)?;
        let ctx = load_game(store, case.game_id).await?;
        if !c.may_read(&ctx.scope) {
            return Err(crate::denied(c, "read this case"));
        }
        if case.kind == storage::CaseKind::Repetition && ctx.game.state != storage::GameState::Final {
            // The engine's newest view of the cycle goes into the case before it is shown.
            let recon = reconstruct(store, &ctx).await?;
            sync_repetition_case(store, &ctx, &recon).await?;
            return store.get_case(id).await.map_err(AppError::from);
        }
        Ok(case)
    }

    /// Rules a case (第九条, 第十条2, 第十一条, 第十二条, 要請II-\[vii\]): the ruling is checked
    /// against the engine's evidence ([`crate::lifecycle::rule`]) and applied (a new
    /// proposal, resumption of play, ...); the game's officials only.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` when the evidence does not support it or the result is final,
    /// `INVALID_ARGUMENT`, `NOT_FOUND`, `PERMISSION_DENIED`, store errors.
    pub async fn rule(&self, c: &Claims, req: RuleCase) -> Result<storage::Case, AppError> {
        let r = req.ruling.as_ref();
        crate::limits::check(&[
            ("case_id", &req.case_id, crate::limits::MAX_NAME_BYTES),
            ("ruling.reason", r.map_or("", |r| r.reason.as_str()), crate::limits::MAX_TEXT_BYTES),
            ("ruling.amended_result", r.map_or("", |r| r.amended_result.as_str()), crate::limits::MAX_NAME_BYTES),
        ])?;
        let store = self.store()?;
        let (case_id, case, ctx) = case_to_rule(store, c, &req.case_id, "rule on an arbiter case").await?;
        let r = req.ruling.ok_or_else(|| AppError::invalid("ruling: required"))?;
        let kind = r.kind.ok_or_else(|| AppError::invalid("ruling.kind: required"))?;
        let input = RulingInput {
            kind,
            reason: r.reason.trim().to_string(),
            loser: r.loser,
            foul: r.foul,
            amended_result: Some(r.amended_result).filter(|s| !s.trim().is_empty()),
            winner: r.winner,
        };
        if !matches!(case.state, storage::CaseState::Open | storage::CaseState::UnderReview) {
            return Err(AppError::precondition(format!("case {case_id} is {}: a ruling is given once", case.state)));
        }
        // The evidence the engine supplies: the recorded moves replayed, the recorded fouls.
        let recon = reconstruct(store, &ctx).await?;
        sync_repetition_case(store, &ctx, &recon).await?;
        let fouls = recorded_fouls(store, ctx.game.id).await?;
        let evidence = lifecycle::Evidence { max_cycles: recon.max_cycles(), fouls: fouls.iter().map(|(f, _)| f.clone()).collect() };
        let (phase, cur) = phase_of(store, ctx.game.id).await?;
        let policy = policy_of(&ctx);
        let (effect, applied) = lifecycle::rule(phase, &input, &evidence, policy).map_err(AppError::from)?;
        // 第九条2: the count by 第七条・第八条 is computed before the ruling is stored; an
        // undecided status cannot end the game this way.
        let counted = if effect == Effect::Count {
            let cnt = count(&self.state, &recon, ctx.game.komi, &[]).await?;
            let (text, ending) = lifecycle::result_text(Ending::Count, None, Some(&cnt.result)).map_err(AppError::from)?;
            Some((text, ending, cnt))
        } else {
            None
        };
        let result_text = match &effect {
            Effect::Propose { result, .. } => Some(result.clone()),
            Effect::Repropose => cur.as_ref().map(|r| r.result.clone()),
            Effect::Resume => None,
            Effect::Count => counted.as_ref().map(|(t, _, _)| t.clone()),
        };
        let foul_json = input.foul.as_ref().map(|f| {
            let description = fouls
                .iter()
                .find(|(e, _)| e.move_number == f.move_number)
                .and_then(|(_, v)| v.get("description").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_default();
            json!({"move_number": f.move_number, "rule": f.rule, "article": f.article, "description": description})
        });
        let text = ruling_text(&input, applied, result_text.as_deref(), &c.sub, case_id, foul_json.as_ref());
        let ruling = json!({
            "decision": ruling_kind_name(kind),
            "loser": colour_letter(input.loser),
            "winner": colour_letter(input.winner),
            "foul": foul_json,
            "amended_result": input.amended_result,
            "policy": applied.map(|p| p.as_str()),
            "result": result_text,
            "ruling_text": text,
            "max_cycles": evidence.max_cycles,
            "article": match kind {
                RulingKind::NoResult => "第十一条",
                RulingKind::FoulLoss => "第十二条",
                RulingKind::BothLose => "要請II-[vii]",
                RulingKind::Resumption => "第九条",
                RulingKind::Uphold | RulingKind::Amend => "第十条2",
                RulingKind::EndByCount => "第九条2",
            },
        });
        let ruled = store.rule_case(case_id, ruling.clone(), &c.sub, &input.reason).await.map_err(AppError::from)?;
        tracing::info!(game = %ctx.game.id, case = %case_id, decision = ruling_kind_name(kind), by = %c.sub, "case ruled");
        let detail = |ending: &str, article: &str| json!({"ruling_text": text, "ruling": ruling, "case_id": case_id, "ending": ending, "article": article});
        match effect {
            Effect::Propose { result, ending } => {
                let statuses = cur.as_ref().map(|r| r.statuses.clone()).unwrap_or_else(|| json!({}));
                store
                    .propose_result(&NewResult {
                        game_id: ctx.game.id,
                        result,
                        reason: ending.reason().into(),
                        statuses,
                        detail: detail(ending.reason(), ending.article()),
                        proposed_by: format!("ruling:{}", c.sub),
                    })
                    .await
                    .map_err(AppError::from)?;
            }
            Effect::Repropose => {
                let cur = cur.ok_or_else(|| AppError::precondition("no result is proposed"))?;
                store
                    .propose_result(&NewResult {
                        game_id: ctx.game.id,
                        result: cur.result.clone(),
                        reason: cur.reason.clone(),
                        statuses: cur.statuses.clone(),
                        detail: {
                            let mut d = cur.detail.clone();
                            if let (Value::Object(m), Value::Object(n)) = (&mut d, detail(&cur.reason, "第十条2")) {
                                m.extend(n);
                            }
                            d
                        },
                        proposed_by: format!("ruling:{}", c.sub),
                    })
                    .await
                    .map_err(AppError::from)?;
            }
            Effect::Count => {
                let (result, ending, cnt) = counted.ok_or_else(|| AppError::bug("count missing"))?;
                let mut d = detail(ending.reason(), "第九条2");
                d["count"] = cnt.detail["count"].clone();
                d["decided_by"] = cnt.detail["decided_by"].clone();
                d["proofs"] = cnt.detail["proofs"].clone();
                store
                    .propose_result(&NewResult {
                        game_id: ctx.game.id,
                        result,
                        reason: ending.reason().into(),
                        statuses: cnt.statuses,
                        detail: d,
                        proposed_by: format!("ruling:{}", c.sub),
                    })
                    .await
                    .map_err(AppError::from)?;
            }
            Effect::Resume => {
                store
                    .set_game_state(
                        ctx.game.id,
                        storage::GameState::Playing,
                        &storage::Event::PlayResumed {
                            case_id,
                            by: c.sub.clone(),
                            reason: input.reason.clone(),
                            article: "第九条".into(),
                            from_state: None,
                            to_state: None,
                        },
                    )
                    .await
                    .map_err(AppError::from)?;
            }
        }
        Ok(ruled)
    }
}

impl Arbitration {
    /// Takes a case under review or closes it (dismissed without a ruling), with a reason.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for another state or no reason, `FAILED_PRECONDITION` for a
    /// transition the case's state refuses, `NOT_FOUND`, `PERMISSION_DENIED`.
    pub async fn set_state(&self, c: &Claims, req: SetCaseState) -> Result<storage::Case, AppError> {
        crate::limits::check(&[
            ("case_id", &req.case_id, crate::limits::MAX_NAME_BYTES),
            ("reason", &req.reason, crate::limits::MAX_TEXT_BYTES),
        ])?;
        let store = self.store()?;
        let (case_id, _, _) = case_to_rule(store, c, &req.case_id, "change the state of an arbiter case").await?;
        let to = match req.state {
            Some(s @ (storage::CaseState::UnderReview | storage::CaseState::Closed)) => s,
            _ => return Err(AppError::invalid("state: UNDER_REVIEW or CLOSED (a case is RULED by RuleCase)")),
        };
        if req.reason.trim().is_empty() {
            return Err(AppError::invalid("reason: required"));
        }
        let updated = store.set_case_state(case_id, to, &c.sub, req.reason.trim()).await.map_err(AppError::from)?;
        tracing::info!(case = %case_id, to = %to, by = %c.sub, "case state changed");
        Ok(updated)
    }
}

impl Arbitration {
    /// Reads (`set` false) or sets a tournament's 無勝負 policy (第十一条 and its note); setting
    /// it is for a chief arbiter or a federation admin.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an unknown policy, `NOT_FOUND`, `PERMISSION_DENIED`.
    pub async fn policy(&self, c: &Claims, req: PolicyRequest) -> Result<TournamentPolicy, AppError> {
        crate::limits::check(&[
            ("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES),
            ("policy", req.set.as_deref().unwrap_or_default(), crate::limits::MAX_NAME_BYTES),
        ])?;
        let set = req.set.is_some();
        let store = self.store()?;
        let t = find_tournament(store, &req.tournament).await?;
        if !c.may_export(t.id, &t.name) || (c.role == Role::ArchiveReader && set) {
            return Err(crate::denied(c, "see or set this tournament's 無勝負 policy"));
        }
        if !set {
            return Ok(TournamentPolicy { tournament: t.name, policy: t.settings.no_result_policy });
        }
        if !matches!(c.role, Role::ChiefArbiter | Role::FederationAdmin) {
            return Err(crate::denied(c, "set the tournament's 無勝負 policy (chief arbiter or federation admin)"));
        }
        let policy: NoResultPolicy = req
            .set
            .as_deref()
            .unwrap_or_default()
            .trim()
            .parse()
            .map_err(|_| AppError::invalid("policy: no-result, time-used or nigiri"))?;
        let mut settings = t.settings.clone();
        settings.no_result_policy = policy;
        let t = store.update_tournament_settings(t.id, &settings).await.map_err(AppError::from)?;
        tracing::info!(tournament = %t.name, policy = %policy, by = %c.sub, "無勝負 policy set");
        Ok(TournamentPolicy { tournament: t.name, policy: t.settings.no_result_policy })
    }
}

/// The ruling as one line for the record (SGF `GC`): what was decided, under which
/// article, the particulars, the policy applied, the written reason, who ruled and the case.
pub fn ruling_text(
    r: &RulingInput,
    policy: Option<NoResultPolicy>,
    result: Option<&str>,
    by: &str,
    case_id: Uuid,
    foul: Option<&Value>,
) -> String {
    let what = match r.kind {
        RulingKind::NoResult => match policy {
            Some(NoResultPolicy::TimeUsed) => "無勝負 (第十一条), decided on time used by the tournament's policy".to_string(),
            Some(NoResultPolicy::Nigiri) => "無勝負 (第十一条), decided by nigiri by the tournament's policy".to_string(),
            _ => "無勝負 (第十一条): no result".to_string(),
        },
        RulingKind::FoulLoss => {
            let who = r.loser.map_or("?", |c| c.name());
            let f = foul.map(|f| {
                format!(
                    "move {} ({}, {}{})",
                    f["move_number"],
                    f["rule"].as_str().unwrap_or(""),
                    f["article"].as_str().unwrap_or(""),
                    f["description"].as_str().filter(|d| !d.is_empty()).map(|d| format!(": {d}")).unwrap_or_default()
                )
            });
            format!("反則負け (第十二条) of {who} for the foul at {}", f.unwrap_or_default())
        }
        RulingKind::BothLose => "両負け (要請II-[vii]): both players lose".to_string(),
        RulingKind::Resumption => "resumption (第九条): play resumes".to_string(),
        RulingKind::Uphold => "objection (第十条2) not upheld: the proposed result stands".to_string(),
        RulingKind::Amend => "objection (第十条2): the result is amended".to_string(),
        RulingKind::EndByCount => {
            "第九条2: agreement on the end is not reached; the game ends, life and death by 第七条, territory by 第八条".to_string()
        }
    };
    let mut s = what;
    if let Some(res) = result {
        s.push_str(&format!("; result {res}"));
    }
    s.push_str(&format!("; reason: {}; ruled by {by} (case {case_id})", r.reason));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruling_text_names_the_article_reason_and_referee() {
        let id = Uuid::from_u128(9);
        let mut r = RulingInput {
            kind: RulingKind::FoulLoss,
            reason: "immediate recapture".into(),
            loser: Some(Color::White),
            foul: None,
            amended_result: None,
            winner: None,
        };
        let foul = json!({"move_number": 24, "rule": "ko", "article": "第五条", "description": "ko recapture forbidden"});
        let t = ruling_text(&r, None, Some("B+F"), "ref-1", id, Some(&foul));
        assert!(
            t.starts_with("反則負け (第十二条) of white for the foul at move 24 (ko, 第五条: ko recapture forbidden); result B+F"),
            "{t}"
        );
        assert!(t.contains("reason: immediate recapture; ruled by ref-1"), "{t}");
        r.kind = RulingKind::NoResult;
        assert!(ruling_text(&r, Some(NoResultPolicy::NoResult), Some("Void"), "ref-1", id, None).starts_with("無勝負 (第十一条)"));
        assert!(ruling_text(&r, Some(NoResultPolicy::TimeUsed), Some("B+T"), "ref-1", id, None).contains("time used"));
        r.kind = RulingKind::EndByCount;
        assert!(ruling_text(&r, None, Some("W+6.5"), "ref-1", id, None).starts_with("第九条2"));
    }
}
