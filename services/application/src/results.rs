//! The result lifecycle (第九条–第十二条) on PostgreSQL: the use cases behind `ResultConfirmationService`.
//!
//! * `ProposeResult` — after play stops: 中押勝 (第六条, from the recorded resignation or the
//!   named winner), a count (第九条: the players' agreed statuses; 第七条・第八条: when no
//!   statuses are agreed, the adjudicator `shinpan_adjudicator::adjudicate` decides every
//!   chain by hypothetical play and `goban::score` counts, 第十条), 持碁, loss on time.
//!   反則負け, 無勝負 and 両負け come only from a referee's ruling (`ArbitrationService.RuleCase`):
//!   proposing them here is `FAILED_PRECONDITION`. An undecided status opens an arbiter case
//!   of kind `undecided` and is `FAILED_PRECONDITION` naming the case.
//! * `ConfirmResult` — a player confirms their own colour, an official (referee, chief
//!   arbiter, federation admin) confirms as the 立会人; with black, white and referee in, the
//!   result is FINAL (第十条 解説) and never changes: a later confirmation, objection or
//!   ruling is `FAILED_PRECONDITION`, and PostgreSQL refuses any UPDATE of the row.
//! * `Object` (第十条2) — a player, for their own colour, before finality: an appeal case
//!   opens, the game is reconstructed from its recorded moves (replayed and validated again
//!   by the rules engine through `shinpan-sgf`) and re-adjudicated; both are attached to the
//!   objection and the case. No confirmation is accepted until a referee has ruled.
//! * `GetResult`, `ExportResults` (SGF records with `RE` and the ruling in `GC`, and the EGF
//!   results table, see [`crate::archive`]), `CorrectResult` (federation admin: a new final
//!   row linked to the one it corrects).
//!
//! Every call needs a bearer token (see [`crate::auth`]); every transition is an event of the
//! game's hash-chained log (written by `shinpan-storage`). The use cases take commands
//! ([`ProposeResult`], [`ConfirmResult`], [`Objection`], [`ExportResults`], [`CorrectResult`]:
//! identifiers, colours, endings and statuses read, lengths within [`crate::limits`]) and
//! answer with a [`ResultView`], the objection's case row or an [`Export`]; the protocol's form
//! is the transport's.

use crate::adjudication::Agreement;
use crate::archive;
use crate::auth::{Claims, Role};
use crate::count::count;
use crate::error::AppError;
use crate::games::{archive_game, find_tournament, load_game, phase_of, reconstruct, recorded_fouls, sync_repetition_case};
use crate::lifecycle::{self, Action, Ending, LifecycleError, Party, ResultStage};
use crate::AppState;
use goban::{Color, GameResult, Status as StoneStatus};
use serde_json::{json, Value};
use shinpan_storage::{self as storage, CaseFilter, NewCase, NewObjection, NewResult, Store};
use uuid::Uuid;

/// `INVALID_ARGUMENT` for a request without an ending (or with one the protocol does not know).
fn ending_required() -> AppError {
    AppError::invalid("ending: required (RESIGNATION, COUNT, TIME_FORFEIT, FOUL_LOSS, NO_RESULT, BOTH_LOSE, JIGO)")
}

/// `ProposeResult` (第六条, 第九条, 第七条・第八条, 持碁, time).
#[derive(Clone, Debug, PartialEq)]
pub struct ProposeResult {
    /// The game.
    pub game_id: Uuid,
    /// How the game ended; `None` when the request gave none (refused with `INVALID_ARGUMENT`
    /// once the caller may propose).
    pub ending: Option<Ending>,
    /// The winner named (resignation, time); `None` = not named.
    pub winner: Option<Color>,
    /// The players' agreed statuses (第九条) for a count; none = the adjudicator decides
    /// (第七条・第八条). Stones are SGF-valid points; each must hold a stone.
    pub agreements: Vec<Agreement>,
    /// A note kept with the result (at most [`crate::limits::MAX_TEXT_BYTES`]; trimmed).
    pub note: String,
}

/// `ConfirmResult` (第十条).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfirmResult {
    /// The game.
    pub game_id: Uuid,
    /// The colour a player confirms for; `None` = the only colour they play (ignored for
    /// officials, who confirm as the 立会人).
    pub color: Option<Color>,
    /// The proposal's version the caller read (`GetResult`); 0 = any.
    pub version: u64,
}

/// `Object` (第十条2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Objection {
    /// The game.
    pub game_id: Uuid,
    /// Why (required; at most [`crate::limits::MAX_TEXT_BYTES`]; trimmed).
    pub reason: String,
}

/// `ExportResults`: a tournament's final results and the EGF header's fields.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ExportResults {
    /// The tournament's name or id.
    pub tournament: String,
    /// EGF class (`CL`).
    pub egf_class: String,
    /// EGF place (`PC`).
    pub egf_place: String,
    /// EGF dates (`DT`); empty = the games' first and last dates.
    pub egf_dates: String,
    /// EGF time in minutes (`TM`).
    pub egf_time_minutes: u32,
}

/// The answer to `ExportResults`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    /// One SGF record per final game, with `RE` and the ruling in `GC`.
    pub sgf: Vec<String>,
    /// The EGF results table.
    pub egf_table: String,
}

/// `CorrectResult` (federation admin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorrectResult {
    /// The game.
    pub game_id: Uuid,
    /// The corrected result in SGF `RE` syntax (not `?`).
    pub result: String,
    /// The corrected ending; `None` when the request gave none (refused).
    pub ending: Option<Ending>,
    /// Why (required; trimmed).
    pub reason: String,
}

/// A result row as the lifecycle reads it: what `GetResult` and the other calls answer.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultView {
    /// The game.
    pub game_id: Uuid,
    /// The row's id.
    pub result_id: Uuid,
    /// The ending (`None` for a stored reason the lifecycle does not know).
    pub ending: Option<Ending>,
    /// The result in SGF `RE` syntax.
    pub result: String,
    /// [`ResultStage::Final`], [`ResultStage::Disputed`] (objected, 第十条2) or
    /// [`ResultStage::Proposed`].
    pub stage: ResultStage,
    /// The stones with a status other than alive, as stored: SGF point, colour (if stored),
    /// status (dead, seki, undecided, in that order).
    pub statuses: Vec<(String, Option<Color>, StoneStatus)>,
    /// The confirmations given, in order.
    pub confirmations: Vec<storage::Confirmation>,
    /// The parties still to confirm (none once final).
    pub pending: Vec<Party>,
    /// The final result this row corrects, if any.
    pub corrects: Option<Uuid>,
    /// When it became final.
    pub final_time: Option<chrono::DateTime<chrono::Utc>>,
    /// 1-based position of the row among the game's results.
    pub version: u64,
    /// The ruling's text, if a ruling gave it.
    pub ruling_text: String,
    /// Who proposed it.
    pub proposed_by: String,
    /// The proposal's note.
    pub note: String,
}

fn party_of(role: storage::Role) -> Option<Party> {
    match role {
        storage::Role::Black => Some(Party::Black),
        storage::Role::White => Some(Party::White),
        storage::Role::Referee | storage::Role::Director => Some(Party::Referee),
    }
}

/// The result row `r` as the lifecycle reads it, with its confirmations, pending parties
/// and version; `phase` is the game's result stage (a proposed row is `Disputed` under an
/// objection).
///
/// # Errors
/// Store errors.
pub async fn result_view(store: &Store, r: &storage::StoredResult, phase: ResultStage) -> Result<ResultView, AppError> {
    let all = store.results_of_game(r.game_id).await.map_err(AppError::from)?;
    let version = all.iter().position(|x| x.id == r.id).map(|i| i as u64 + 1).unwrap_or(0);
    let confirmations = store.confirmations(r.id).await.map_err(AppError::from)?;
    let parties: Vec<Party> = confirmations.iter().filter_map(|c| party_of(c.role)).collect();
    let stage = match (r.state, phase) {
        (storage::ResultState::Final, _) => ResultStage::Final,
        (storage::ResultState::Proposed, ResultStage::Disputed) => ResultStage::Disputed,
        _ => ResultStage::Proposed,
    };
    let mut statuses = Vec::new();
    for (key, st) in [("dead", StoneStatus::Dead), ("seki", StoneStatus::Seki), ("undecided", StoneStatus::Undecided)] {
        if let Some(a) = r.statuses.get(key).and_then(Value::as_array) {
            for p in a.iter().filter_map(Value::as_str) {
                let color = match r.statuses.get("colours").and_then(|c| c.get(p)).and_then(Value::as_str) {
                    Some("B") => Some(Color::Black),
                    Some("W") => Some(Color::White),
                    _ => None,
                };
                statuses.push((p.to_string(), color, st));
            }
        }
    }
    Ok(ResultView {
        game_id: r.game_id,
        result_id: r.id,
        ending: Ending::from_reason(&r.reason),
        result: r.result.clone(),
        stage,
        statuses,
        confirmations,
        pending: if r.state == storage::ResultState::Final { vec![] } else { lifecycle::pending(&parties) },
        corrects: r.corrects_result_id,
        final_time: r.finalized_at,
        version,
        ruling_text: r.detail.get("ruling_text").and_then(Value::as_str).unwrap_or_default().to_string(),
        proposed_by: r.proposed_by.clone(),
        note: r.detail.get("note").and_then(Value::as_str).unwrap_or_default().to_string(),
    })
}

/// The use cases of the result lifecycle (第九条–第十二条), each for the caller `c` (their
/// verified token's claims): see the module docs.
#[derive(Clone)]
pub struct Results {
    state: AppState,
}

impl Results {
    /// The use cases on the shared state (they need the store).
    pub fn new(state: AppState) -> Results {
        Results { state }
    }

    fn store(&self) -> Result<&Store, AppError> {
        self.state.store()
    }

    /// The result in force of a game, for anyone who may read the game.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown game or when nothing is proposed, `PERMISSION_DENIED`,
    /// store errors.
    pub async fn get(&self, c: &Claims, id: Uuid) -> Result<ResultView, AppError> {
        let store = self.store()?;
        let ctx = load_game(store, id).await?;
        if !c.may_read(&ctx.scope) {
            return Err(crate::denied(c, "read this game's result"));
        }
        let (phase, cur) = phase_of(store, id).await?;
        let cur = cur.ok_or_else(|| AppError::missing(format!("no result proposed for game {id}")))?;
        result_view(store, &cur, phase).await
    }

    /// Proposes a result after play stops (第六条 resignation, 第九条 agreement or 第七条・第八条
    /// count, 持碁, time): by the players or the game's officials.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` for an ending only a ruling gives, while play goes on, for an
    /// undecided count (an arbiter case opens), or in the wrong phase; `INVALID_ARGUMENT`,
    /// `NOT_FOUND`, `PERMISSION_DENIED`, store errors.
    pub async fn propose(&self, c: &Claims, req: ProposeResult) -> Result<ResultView, AppError> {
        crate::limits::check(&[("note", &req.note, crate::limits::MAX_TEXT_BYTES)])?;
        let store = self.store()?;
        let id = req.game_id;
        let ctx = load_game(store, id).await?;
        if !c.may_propose(&ctx.scope) {
            return Err(crate::denied(c, "propose a result of this game"));
        }
        let ending = req.ending.ok_or_else(ending_required)?;
        let (phase, _) = phase_of(store, id).await?;
        lifecycle::check(phase, Action::Propose).map_err(AppError::from)?;
        if matches!(ending, Ending::FoulLoss | Ending::NoResult | Ending::BothLose) {
            return Err(AppError::precondition(format!(
                "{} ({}) is given by a referee's ruling: open or rule an arbiter case (ArbitrationService.RuleCase)",
                ending,
                ending.article()
            )));
        }
        let winner = req.winner;
        let recon = reconstruct(store, &ctx).await?;
        sync_repetition_case(store, &ctx, &recon).await?;
        let mut detail = json!({
            "ending": ending.reason(),
            "article": ending.article(),
            "reconstruction": {"moves": recon.record.moves.len(), "phase": recon.replayed.game.phase().name()},
        });
        if !req.note.trim().is_empty() {
            detail["note"] = json!(req.note.trim());
        }
        let mut statuses = json!({});
        let (text, ending) = match ending {
            Ending::Resignation => {
                // The recorded resignation names the winner (第六条).
                let events = store.events_since(id, 0, i64::MAX).await.map_err(AppError::from)?;
                let resigned = events.iter().rev().find_map(|e| match e.event() {
                    storage::Event::Resign { colour, .. } => Some(colour),
                    _ => None,
                });
                let w = match (resigned, winner) {
                    (Some(r), Some(w)) if r.opponent() != w => {
                        return Err(AppError::invalid(format!(
                            "winner: {} resigned (recorded), so {} wins, not {}",
                            r.name(),
                            r.opponent().name(),
                            w.name()
                        )))
                    }
                    (Some(r), _) => Some(r.opponent()),
                    (None, w) => w,
                };
                lifecycle::result_text(ending, w, None).map_err(AppError::from)?
            }
            Ending::TimeForfeit => lifecycle::result_text(ending, winner, None).map_err(AppError::from)?,
            Ending::Count | Ending::Jigo => {
                if recon.replayed.game.phase() == goban::Phase::Playing && req.agreements.is_empty() {
                    return Err(AppError::precondition(
                        "play has not stopped (第九条: three consecutive passes, or both players wish to end and give agreed statuses): nothing to count yet",
                    ));
                }
                let cnt = count(&self.state, &recon, ctx.game.komi, &req.agreements).await?;
                detail["count"] = cnt.detail["count"].clone();
                detail["decided_by"] = cnt.detail["decided_by"].clone();
                detail["proofs"] = cnt.detail["proofs"].clone();
                statuses = cnt.statuses.clone();
                if cnt.result == GameResult::Undecided {
                    let (case, _) = store
                        .open_case(&NewCase {
                            game_id: id,
                            kind: storage::CaseKind::Undecided,
                            evidence: json!({"statuses": cnt.statuses, "proofs": cnt.detail["proofs"], "move_numbers": [recon.record.moves.len()]}),
                            opened_by: "adjudicator".into(),
                            reason: "life and death could not be decided within the search budget (第七条): the arbiter rules".into(),
                            dedupe_key: Some(format!("undecided:{}", recon.record.moves.len())),
                        })
                        .await
                        .map_err(AppError::from)?;
                    return Err(AppError::precondition(format!(
                        "the count is undecided (第七条): arbiter case {} is open for a ruling",
                        case.id
                    )));
                }
                lifecycle::result_text(ending, None, Some(&cnt.result)).map_err(AppError::from)?
            }
            Ending::FoulLoss | Ending::NoResult | Ending::BothLose => unreachable!("refused above"),
        };
        detail["ending"] = json!(ending.reason());
        detail["article"] = json!(ending.article());
        let stored = store
            .propose_result(&NewResult {
                game_id: id,
                result: text,
                reason: ending.reason().into(),
                statuses,
                detail,
                proposed_by: c.sub.clone(),
            })
            .await
            .map_err(AppError::from)?;
        tracing::info!(game = %id, result = %stored.result, ending = %ending, by = %c.sub, "result proposed");
        result_view(store, &stored, ResultStage::Proposed).await
    }

    /// Confirms the proposed result (第十条): a player for their colour, an official as the
    /// 立会人; the third confirmation makes it final and closes the game's ruled cases.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` (final, disputed, nothing proposed, stale version, play
    /// resumed), `INVALID_ARGUMENT`, `NOT_FOUND`, `PERMISSION_DENIED`, store errors.
    pub async fn confirm(&self, c: &Claims, req: ConfirmResult) -> Result<ResultView, AppError> {
        let store = self.store()?;
        let id = req.game_id;
        let ctx = load_game(store, id).await?;
        // Which party the caller confirms for: an official confirms as the referee (立会人);
        // a player for their own colour (the one asked for, or the only one they play).
        let party = if c.role == Role::Player {
            let mine = c.player_colours(&ctx.scope);
            match (req.color, mine.as_slice()) {
                (Some(a), _) => Party::of(a),
                (None, [one]) => Party::of(*one),
                (None, []) => return Err(crate::denied(c, "confirm a result of a game they do not play")),
                (None, _) => return Err(AppError::invalid("color: this player plays both colours; say which")),
            }
        } else {
            Party::Referee
        };
        if !c.may_confirm(&ctx.scope, party) {
            return Err(crate::denied(c, &format!("confirm for {}", party.name())));
        }
        let (phase, cur) = phase_of(store, id).await?;
        lifecycle::check(phase, Action::Confirm(party)).map_err(AppError::from)?;
        if ctx.game.state == storage::GameState::Playing {
            return Err(AppError::precondition("play has resumed (第九条): the proposal lapsed; propose the result again when play stops"));
        }
        let cur = cur.ok_or_else(|| AppError::from(LifecycleError::NothingProposed))?;
        if req.version != 0 {
            let now = result_view(store, &cur, phase).await?.version;
            if now != req.version {
                return Err(AppError::precondition(format!(
                    "version {} is not the current proposal (version {now}): read it again (GetResult)",
                    req.version
                )));
            }
        }
        let role = match party {
            Party::Black => storage::Role::Black,
            Party::White => storage::Role::White,
            Party::Referee => storage::Role::Referee,
        };
        let out = store
            .confirm_result(cur.id, role, &c.sub, &[storage::Role::Black, storage::Role::White, storage::Role::Referee])
            .await
            .map_err(AppError::from)?;
        tracing::info!(game = %id, party = party.name(), by = %c.sub, finalized = out.finalized, "result confirmed");
        if out.finalized {
            // The arbiter record of the game is complete: close its ruled cases.
            let cases = store.list_cases(&CaseFilter { game_id: Some(id), ..Default::default() }).await.map_err(AppError::from)?;
            for case in cases.iter().filter(|k| k.state == storage::CaseState::Ruled) {
                if let Err(e) = store.set_case_state(case.id, storage::CaseState::Closed, &c.sub, "the result is final (第十条)").await {
                    tracing::warn!(case = %case.id, error = %e, "could not close a ruled case");
                }
            }
        }
        let phase = if out.finalized { ResultStage::Final } else { ResultStage::Proposed };
        result_view(store, &out.result, phase).await
    }

    /// Objects to the proposed result (第十条2): a player, for their own colour. An appeal case
    /// opens with the game reconstructed and re-adjudicated; its row is returned under
    /// review.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` once final, `INVALID_ARGUMENT` without a reason, `NOT_FOUND`,
    /// `PERMISSION_DENIED`, store errors.
    pub async fn object(&self, c: &Claims, req: Objection) -> Result<storage::Case, AppError> {
        crate::limits::check(&[("reason", &req.reason, crate::limits::MAX_TEXT_BYTES)])?;
        let store = self.store()?;
        let id = req.game_id;
        if req.reason.trim().is_empty() {
            return Err(AppError::invalid("reason: an objection gives its reason (第十条2)"));
        }
        let ctx = load_game(store, id).await?;
        let colours = c.player_colours(&ctx.scope);
        let colour = match colours.as_slice() {
            [one] => *one,
            [] => return Err(crate::denied(c, "object to the result of a game they do not play (第十条2: the players object)")),
            _ => Color::Black,
        };
        let (phase, _) = phase_of(store, id).await?;
        lifecycle::check(phase, Action::Object).map_err(AppError::from)?;
        let (objection, case) = store
            .object(&NewObjection {
                game_id: id,
                role: if colour == Color::Black { storage::Role::Black } else { storage::Role::White },
                who: c.sub.clone(),
                reason: req.reason.trim().to_string(),
            })
            .await
            .map_err(AppError::from)?;
        tracing::info!(game = %id, case = %case.id, by = %c.sub, "objection filed (第十条2)");
        // The appeal: reconstruction from the recorded moves and a new adjudication.
        let recon = reconstruct(store, &ctx).await?;
        sync_repetition_case(store, &ctx, &recon).await?;
        // Re-adjudicate when there is a count to check: the proposal is a count or 持碁, or
        // play has stopped (第九条). A resignation or a loss on time in the middle of the game
        // has no final position to count.
        let objected = store.current_result(id).await.map_err(AppError::from)?;
        let is_count = objected.as_ref().is_some_and(|r| matches!(Ending::from_reason(&r.reason), Some(Ending::Count | Ending::Jigo)));
        let readj = if is_count || recon.replayed.game.phase() != goban::Phase::Playing {
            let cnt = count(&self.state, &recon, ctx.game.komi, &[]).await?;
            json!({
                "engine": "shinpan-adjudicator",
                "result": cnt.result.to_sgf(),
                "statuses": cnt.statuses,
                "detail": cnt.detail,
            })
        } else {
            json!({
                "engine": "shinpan-adjudicator",
                "result": "",
                "skipped": format!(
                    "the objected result is not a count ({}) and play had not stopped: no final position to adjudicate",
                    objected.as_ref().map_or("none", |r| r.reason.as_str())
                ),
            })
        };
        let fouls: Vec<Value> = recorded_fouls(store, id).await?.into_iter().map(|(_, v)| v).collect();
        store.attach_appeal_material(objection.id, Some(recon.to_json()), Some(readj.clone())).await.map_err(AppError::from)?;
        store
            .add_case_evidence(
                case.id,
                json!({
                    "reconstruction": recon.to_json(),
                    "readjudication": readj,
                    "fouls": fouls,
                    "move_numbers": [recon.record.moves.len()],
                }),
                "appeal",
            )
            .await
            .map_err(AppError::from)?;
        let case = store
            .set_case_state(case.id, storage::CaseState::UnderReview, "appeal", "reconstruction and re-adjudication attached")
            .await
            .map_err(AppError::from)?;
        Ok(case)
    }

    /// Exports a tournament's final results: SGF records with `RE` and the ruling in `GC`,
    /// and the EGF results table ([`crate::archive`]).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an over-long field, `NOT_FOUND` for an unknown tournament,
    /// `PERMISSION_DENIED`, store errors.
    pub async fn export(&self, c: &Claims, req: ExportResults) -> Result<Export, AppError> {
        crate::limits::check(&[
            ("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES),
            ("egf_class", &req.egf_class, crate::limits::MAX_NAME_BYTES),
            ("egf_place", &req.egf_place, crate::limits::MAX_NAME_BYTES),
            ("egf_dates", &req.egf_dates, crate::limits::MAX_NAME_BYTES),
        ])?;
        let store = self.store()?;
        let t = find_tournament(store, &req.tournament).await?;
        if !c.may_export(t.id, &t.name) {
            return Err(crate::denied(c, "export this tournament's results"));
        }
        let finals = store.final_results(t.id).await.map_err(AppError::from)?;
        let mut sgf = Vec::with_capacity(finals.len());
        let mut egf = Vec::with_capacity(finals.len());
        let mut dates: Vec<String> = Vec::new();
        let mut komi = None;
        for (g, r) in &finals {
            let ctx = load_game(store, g.id).await?;
            let ag = archive_game(store, &ctx).await?;
            let rec = archive::record_of(&ag).map_err(AppError::bug)?;
            let mut gc = String::new();
            if let Some(rt) = r.detail.get("ruling_text").and_then(Value::as_str) {
                gc.push_str(rt);
            }
            if let Some(id) = r.corrects_result_id {
                if !gc.is_empty() {
                    gc.push_str("; ");
                }
                gc.push_str(&format!(
                    "federation correction of result {id}: {}",
                    r.detail.get("note").and_then(Value::as_str).unwrap_or("")
                ));
            }
            sgf.push(archive::sgf_with_result(&rec, &r.result, Some(&gc)));
            if let Some(d) = &ag.date {
                dates.push(d.clone());
            }
            komi.get_or_insert(g.komi);
            egf.push(archive::EgfGame {
                round: g.round.unwrap_or(1),
                table: g.table_number,
                black: ag.black.clone(),
                white: ag.white.clone(),
                handicap: ag.handicap,
                result: r.result.clone(),
                // 無勝負 decided off the board (time used, nigiri) is a point, not a rated game.
                decided_by_play: r.reason != Ending::NoResult.reason(),
            });
        }
        dates.sort();
        let header = archive::EgfHeader {
            class: req.egf_class.clone(),
            event: t.name.clone(),
            place: req.egf_place.clone(),
            dates: if req.egf_dates.is_empty() {
                match (dates.first(), dates.last()) {
                    (Some(a), Some(b)) => format!("{a},{b}"),
                    _ => String::new(),
                }
            } else {
                req.egf_dates.clone()
            },
            komi,
            time_minutes: req.egf_time_minutes,
        };
        Ok(Export { sgf, egf_table: archive::egf_table(&header, &egf) })
    }

    /// Corrects a final result (federation admin only): a new final row linked to the one
    /// it corrects.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` before finality, `INVALID_ARGUMENT`, `PERMISSION_DENIED`, store
    /// errors.
    pub async fn correct(&self, c: &Claims, req: CorrectResult) -> Result<ResultView, AppError> {
        crate::limits::check(&[
            ("result", &req.result, crate::limits::MAX_NAME_BYTES),
            ("reason", &req.reason, crate::limits::MAX_TEXT_BYTES),
        ])?;
        let store = self.store()?;
        if c.role != Role::FederationAdmin {
            return Err(crate::denied(c, "correct a final result (federation admins only)"));
        }
        let id = req.game_id;
        if req.reason.trim().is_empty() {
            return Err(AppError::invalid("reason: a correction gives its reason"));
        }
        let parsed = GameResult::from_sgf(&req.result)
            .filter(|r| *r != GameResult::Undecided)
            .ok_or_else(|| AppError::invalid(format!("result: `{}` is not an SGF result", crate::limits::excerpt(&req.result))))?;
        let ending = req.ending.ok_or_else(ending_required)?;
        let (phase, cur) = phase_of(store, id).await?;
        lifecycle::check(phase, Action::Correct).map_err(AppError::from)?;
        let cur = cur.ok_or_else(|| AppError::from(LifecycleError::NotFinal))?;
        let stored = store
            .correct_result(
                cur.id,
                &NewResult {
                    game_id: id,
                    result: parsed.to_sgf(),
                    reason: ending.reason().into(),
                    statuses: cur.statuses.clone(),
                    detail: json!({"note": req.reason.trim(), "ruling_text": format!("federation correction by {}: {}", c.sub, req.reason.trim())}),
                    proposed_by: c.sub.clone(),
                },
            )
            .await
            .map_err(AppError::from)?;
        result_view(store, &stored, ResultStage::Final).await
    }
}
