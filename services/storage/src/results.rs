//! The result lifecycle (第九条–第十二条, 第十条 finality) and objections (第十条2).
//!
//! ```text
//!            propose                 confirm … (all required roles)
//!  game ─────────────► proposed ─────────────────────────────────► final ──► (correction rows)
//!                         │  ▲ propose again / amend after an appeal
//!                         ▼  │
//!                      superseded
//! ```
//!
//! Every transition is also an event in the game's hash-chained log: `result_proposed`,
//! `result_confirmed`, `result_finalized`, `result_corrected`, `objection_filed`. Rows that left
//! `proposed` never change; the database refuses it (SQLSTATE SH010 → [`StoreError::Immutable`]).

use serde_json::{json, Value};
use uuid::Uuid;

use crate::error::{Exists, Immutability, Precondition, StoreError, StoreResult};
use crate::event::Event;
use crate::model::*;
use crate::rows::*;
use crate::store::{append_event_locked, lock_game, Store};

/// A result to propose (or, for [`Store::correct_result`], the corrected result).
#[derive(Debug, Clone, PartialEq)]
pub struct NewResult {
    /// The game.
    pub game_id: Uuid,
    /// SGF `RE` text: "B+3.5", "W+R", "0" (jigo, 持碁), "Void" (無勝負), "B+F"/"W+F" (foul or
    /// forfeit), "B+T"/"W+T" (time), ... Both-lose (両負け) is recorded with reason "both-lose".
    pub result: String,
    /// How the game ended: "resignation" (第六条), "count" (第九条), "adjudication" (第七条/第八条),
    /// "time", "foul" (第十二条), "no-result" (第十一条), "both-lose", "jigo", ...
    pub reason: String,
    /// Agreed or adjudicated life-and-death statuses (JSON), e.g. `{"dead":["dd"],"seki":[]}`.
    pub statuses: Value,
    /// Anything else to keep (adjudicator output, ruling reference), a JSON object or null.
    pub detail: Value,
    /// Who proposes it (user id, or "adjudicator").
    pub proposed_by: String,
}

/// Outcome of [`Store::confirm_result`].
#[derive(Debug, Clone, PartialEq)]
pub struct Confirmed {
    /// The result after the confirmation (state `final` if this confirmation completed it).
    pub result: StoredResult,
    /// All confirmations of the result so far.
    pub confirmations: Vec<Confirmation>,
    /// True when this confirmation made the result final.
    pub finalized: bool,
}

/// An objection to file (第十条2).
#[derive(Debug, Clone, PartialEq)]
pub struct NewObjection {
    /// The game.
    pub game_id: Uuid,
    /// The objecting player's colour role: [`Role::Black`] or [`Role::White`].
    pub role: Role,
    /// Who objects (user id).
    pub who: String,
    /// The reason given.
    pub reason: String,
}

async fn result_game(store: &Store, result_id: Uuid) -> StoreResult<Uuid> {
    sqlx::query_scalar!("SELECT game_id FROM results WHERE id = $1", result_id)
        .fetch_optional(&store.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("result {result_id}")))
}

async fn lock_result(tx: &mut sqlx::Transaction<'_, sqlx::Postgres>, result_id: Uuid) -> StoreResult<StoredResult> {
    sqlx::query_as!(
        ResultRow,
        "SELECT id, game_id, state, result, reason, statuses, detail, proposed_by,
                created_at, finalized_at, supersedes_result_id, corrects_result_id
         FROM results WHERE id = $1 FOR UPDATE",
        result_id
    )
    .fetch_optional(&mut **tx)
    .await?
    .ok_or_else(|| StoreError::NotFound(format!("result {result_id}")))?
    .into_result()
}

fn detail_object(v: &Value) -> StoreResult<Value> {
    match v {
        Value::Null => Ok(json!({})),
        Value::Object(_) => Ok(v.clone()),
        other => Err(StoreError::InvalidArgument(format!("result detail must be a JSON object, got {other}"))),
    }
}

fn statuses_value(v: &Value) -> Value {
    if v.is_null() {
        json!({})
    } else {
        v.clone()
    }
}

impl Store {
    /// Propose a result for a game that has stopped (a game still `playing` is set to `ended` by
    /// the proposal). An earlier open proposal of the game is marked `superseded` and linked from
    /// the new one (`supersedes_result_id`), its confirmations kept with it. Records the event
    /// `result_proposed` {result_id, result, reason, statuses, proposed_by, detail,
    /// supersedes_result_id, game_state_before}.
    /// Errors: [`StoreError::NotFound`] (game); [`StoreError::Immutable`] when the game's result is
    /// already final (第十条: use [`Store::correct_result`]).
    pub async fn propose_result(&self, r: &NewResult) -> StoreResult<StoredResult> {
        let detail = detail_object(&r.detail)?;
        let statuses = statuses_value(&r.statuses);
        let mut tx = self.pool.begin().await?;
        let state = lock_game(&mut tx, r.game_id).await?;
        if state == GameState::Final {
            return Err(StoreError::Immutable(Immutability::Final(format!(
                "game {} has a final result; it is never changed (第十条) — a federation correction is a new linked record",
                r.game_id
            ))));
        }
        if state == GameState::Playing {
            sqlx::query!("UPDATE games SET state = 'ended' WHERE id = $1", r.game_id).execute(&mut *tx).await?;
        }
        let previous: Option<Uuid> = sqlx::query_scalar!(
            "UPDATE results SET state = 'superseded' WHERE game_id = $1 AND state = 'proposed' RETURNING id",
            r.game_id
        )
        .fetch_optional(&mut *tx)
        .await?;
        let id = Uuid::new_v4();
        let stored = sqlx::query_as!(
            ResultRow,
            "INSERT INTO results (id, game_id, state, result, reason, statuses, detail, proposed_by, supersedes_result_id)
             VALUES ($1, $2, 'proposed', $3, $4, $5, $6, $7, $8)
             RETURNING id, game_id, state, result, reason, statuses, detail, proposed_by,
                       created_at, finalized_at, supersedes_result_id, corrects_result_id",
            id,
            r.game_id,
            &r.result,
            &r.reason,
            &statuses,
            &detail,
            &r.proposed_by,
            previous
        )
        .fetch_one(&mut *tx)
        .await?
        .into_result()?;
        append_event_locked(
            &mut tx,
            r.game_id,
            &Event::ResultProposed {
                result_id: id,
                result: r.result.clone(),
                reason: r.reason.clone(),
                statuses: statuses.clone(),
                proposed_by: r.proposed_by.clone(),
                detail: Some(detail.clone()),
                supersedes_result_id: previous,
                game_state_before: Some(state),
            },
        )
        .await?;
        self.commit_announce(tx, r.game_id).await?;
        Ok(stored)
    }

    /// Confirm a proposed result in `role` (the player of a colour, the referee 立会人, or the
    /// director). When every role in `required` has confirmed, the result becomes `final` and the
    /// game `final` in the same transaction (第十条). Events: `result_confirmed` {result_id, role,
    /// who} and, on completion, `result_finalized` {result_id, result, reason}.
    ///
    /// Errors: [`StoreError::NotFound`]; [`StoreError::Immutable`] when the result is final (a
    /// confirmation after finality is refused); [`StoreError::FailedPrecondition`] when it was
    /// superseded; [`StoreError::AlreadyExists`] when `role` already confirmed it.
    pub async fn confirm_result(&self, result_id: Uuid, role: Role, who: &str, required: &[Role]) -> StoreResult<Confirmed> {
        let game_id = result_game(self, result_id).await?;
        let mut tx = self.pool.begin().await?;
        lock_game(&mut tx, game_id).await?;
        let current = lock_result(&mut tx, result_id).await?;
        match current.state {
            ResultState::Final => {
                return Err(StoreError::Immutable(Immutability::Final(format!(
                    "result {result_id} is final; confirmations are closed (第十条)"
                ))))
            }
            ResultState::Superseded => {
                return Err(StoreError::FailedPrecondition(Precondition::Other(format!(
                    "result {result_id} was superseded by an amended proposal"
                ))))
            }
            ResultState::Proposed => {}
        }
        sqlx::query!("INSERT INTO confirmations (result_id, role, who) VALUES ($1, $2, $3)", result_id, role.as_str(), who)
            .execute(&mut *tx)
            .await
            .map_err(|e| match StoreError::from(e) {
                StoreError::AlreadyExists(_) => {
                    StoreError::AlreadyExists(Exists::Row(format!("result {result_id} is already confirmed by {role}")))
                }
                other => other,
            })?;
        append_event_locked(&mut tx, game_id, &Event::ResultConfirmed { result_id, role, who: who.to_string() }).await?;
        let confirmations = sqlx::query_as!(
            ConfirmationRow,
            "SELECT result_id, role, who, confirmed_at FROM confirmations WHERE result_id = $1 ORDER BY confirmed_at, role",
            result_id
        )
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .map(ConfirmationRow::into_confirmation)
        .collect::<StoreResult<Vec<_>>>()?;
        let complete = required.iter().all(|r| confirmations.iter().any(|c| c.role == *r));
        let result = if complete {
            let r = finalize_locked(&mut tx, &current, who, "confirmations complete").await?;
            Some(r)
        } else {
            None
        };
        self.commit_announce(tx, game_id).await?;
        let finalized = result.is_some();
        Ok(Confirmed { result: result.unwrap_or(current), confirmations, finalized })
    }

    /// Make a proposed result final without further confirmations (a director's decision, or a
    /// tournament whose rules require fewer confirmations). Event `result_finalized`.
    /// Errors: as [`Store::confirm_result`].
    pub async fn finalize_result(&self, result_id: Uuid, who: &str, why: &str) -> StoreResult<StoredResult> {
        let game_id = result_game(self, result_id).await?;
        let mut tx = self.pool.begin().await?;
        lock_game(&mut tx, game_id).await?;
        let current = lock_result(&mut tx, result_id).await?;
        match current.state {
            ResultState::Final => {
                return Err(StoreError::Immutable(Immutability::Final(format!("result {result_id} is already final (第十条)"))))
            }
            ResultState::Superseded => {
                return Err(StoreError::FailedPrecondition(Precondition::Other(format!("result {result_id} was superseded"))))
            }
            ResultState::Proposed => {}
        }
        let r = finalize_locked(&mut tx, &current, who, why).await?;
        self.commit_announce(tx, game_id).await?;
        Ok(r)
    }

    /// A federation's correction of a final result: a new `final` row linked by
    /// `corrects_result_id` to the result it corrects, which is kept unchanged (第十条). Only the
    /// latest result of a correction chain can be corrected. Event `result_corrected`
    /// {result_id, corrects_result_id, result, reason, statuses, proposed_by, detail}.
    /// Errors: [`StoreError::NotFound`]; [`StoreError::FailedPrecondition`] when `corrects` is not
    /// final; [`StoreError::AlreadyExists`] when it was already corrected.
    pub async fn correct_result(&self, corrects: Uuid, r: &NewResult) -> StoreResult<StoredResult> {
        let game_id = result_game(self, corrects).await?;
        if game_id != r.game_id {
            return Err(StoreError::InvalidArgument(format!("result {corrects} is not of game {}", r.game_id)));
        }
        let detail = detail_object(&r.detail)?;
        let statuses = statuses_value(&r.statuses);
        let mut tx = self.pool.begin().await?;
        lock_game(&mut tx, game_id).await?;
        let original = lock_result(&mut tx, corrects).await?;
        if original.state != ResultState::Final {
            return Err(StoreError::FailedPrecondition(Precondition::Other(format!(
                "result {corrects} is {}; only a final result is corrected",
                original.state
            ))));
        }
        let id = Uuid::new_v4();
        let stored = sqlx::query_as!(
            ResultRow,
            "INSERT INTO results (id, game_id, state, result, reason, statuses, detail, proposed_by, finalized_at, corrects_result_id)
             VALUES ($1, $2, 'final', $3, $4, $5, $6, $7, now(), $8)
             RETURNING id, game_id, state, result, reason, statuses, detail, proposed_by,
                       created_at, finalized_at, supersedes_result_id, corrects_result_id",
            id,
            game_id,
            &r.result,
            &r.reason,
            &statuses,
            &detail,
            &r.proposed_by,
            corrects
        )
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| match StoreError::from(e) {
            StoreError::AlreadyExists(_) => StoreError::AlreadyExists(Exists::Row(format!("result {corrects} was already corrected"))),
            other => other,
        })?
        .into_result()?;
        append_event_locked(
            &mut tx,
            game_id,
            &Event::ResultCorrected {
                result_id: id,
                corrects_result_id: corrects,
                result: r.result.clone(),
                reason: r.reason.clone(),
                statuses: statuses.clone(),
                proposed_by: r.proposed_by.clone(),
                detail: Some(detail.clone()),
            },
        )
        .await?;
        self.commit_announce(tx, game_id).await?;
        Ok(stored)
    }

    /// A result by id. Errors: [`StoreError::NotFound`].
    pub async fn get_result(&self, id: Uuid) -> StoreResult<StoredResult> {
        sqlx::query_as!(
            ResultRow,
            "SELECT id, game_id, state, result, reason, statuses, detail, proposed_by,
                    created_at, finalized_at, supersedes_result_id, corrects_result_id
             FROM results WHERE id = $1",
            id
        )
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("result {id}")))?
        .into_result()
    }

    /// Every result row of a game (proposals, superseded ones, the final one, corrections), oldest first.
    pub async fn results_of_game(&self, game_id: Uuid) -> StoreResult<Vec<StoredResult>> {
        let rows = sqlx::query_as!(
            ResultRow,
            "SELECT id, game_id, state, result, reason, statuses, detail, proposed_by,
                    created_at, finalized_at, supersedes_result_id, corrects_result_id
             FROM results WHERE game_id = $1 ORDER BY created_at, id",
            game_id
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(ResultRow::into_result).collect()
    }

    /// The game's result in force: the last correction of its final result, else its final
    /// result, else its open proposal, else `None`.
    pub async fn current_result(&self, game_id: Uuid) -> StoreResult<Option<StoredResult>> {
        let all = self.results_of_game(game_id).await?;
        Ok(effective_result(&all))
    }

    /// The confirmations of a result, in order.
    pub async fn confirmations(&self, result_id: Uuid) -> StoreResult<Vec<Confirmation>> {
        let rows = sqlx::query_as!(
            ConfirmationRow,
            "SELECT result_id, role, who, confirmed_at FROM confirmations WHERE result_id = $1 ORDER BY confirmed_at, role",
            result_id
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(ConfirmationRow::into_confirmation).collect()
    }

    /// The final results in force of a tournament's games (corrections applied), with their
    /// games, ordered by round and table — the archive of `ExportResults`.
    pub async fn final_results(&self, tournament_id: Uuid) -> StoreResult<Vec<(Game, StoredResult)>> {
        let games = self.list_games(Some(tournament_id), None).await?;
        let rows = sqlx::query_as!(
            ResultRow,
            "SELECT r.id, r.game_id, r.state, r.result, r.reason, r.statuses, r.detail, r.proposed_by,
                    r.created_at, r.finalized_at, r.supersedes_result_id, r.corrects_result_id
             FROM results r JOIN games g ON g.id = r.game_id
             WHERE g.tournament_id = $1 AND r.state = 'final' ORDER BY r.created_at, r.id",
            tournament_id
        )
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(ResultRow::into_result)
        .collect::<StoreResult<Vec<_>>>()?;
        let mut out = Vec::new();
        for g in games {
            let mine: Vec<StoredResult> = rows.iter().filter(|r| r.game_id == g.id).cloned().collect();
            if let Some(r) = effective_result(&mine) {
                if r.state == ResultState::Final {
                    out.push((g, r));
                }
            }
        }
        Ok(out)
    }

    /// File an objection (第十条2) before the result is final: stores it, opens an arbiter case
    /// of kind `objection` (evidence {objection_id, result_id, role, reason}), and records the
    /// events `objection_filed` and `case_opened`. The objection refers to the open proposal, if
    /// any. Errors: [`StoreError::NotFound`]; [`StoreError::Immutable`] when the game's result is
    /// final (an objection after finality changes nothing); [`StoreError::InvalidArgument`] for a
    /// role other than black/white.
    pub async fn object(&self, o: &NewObjection) -> StoreResult<(Objection, Case)> {
        if !matches!(o.role, Role::Black | Role::White) {
            return Err(StoreError::InvalidArgument("only a player (black or white) objects".into()));
        }
        let mut tx = self.pool.begin().await?;
        let state = lock_game(&mut tx, o.game_id).await?;
        if state == GameState::Final {
            return Err(StoreError::Immutable(Immutability::Final(format!(
                "game {} has a final result; an objection is possible only before finality (第十条2)",
                o.game_id
            ))));
        }
        let result_id: Option<Uuid> = sqlx::query_scalar!("SELECT id FROM results WHERE game_id = $1 AND state = 'proposed'", o.game_id)
            .fetch_optional(&mut *tx)
            .await?;
        let objection_id = Uuid::new_v4();
        let evidence = json!({
            "objection_id": objection_id,
            "result_id": result_id,
            "role": o.role.as_str(),
            "reason": o.reason,
        });
        let (case, _) = crate::cases::open_case_locked(
            &mut tx,
            &crate::cases::NewCase {
                game_id: o.game_id,
                kind: CaseKind::Objection,
                evidence,
                opened_by: o.who.clone(),
                reason: o.reason.clone(),
                dedupe_key: Some(format!("objection:{objection_id}")),
            },
        )
        .await?;
        let objection = sqlx::query_as!(
            ObjectionRow,
            "INSERT INTO objections (id, game_id, result_id, role, who, reason, case_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             RETURNING id, game_id, result_id, role, who, reason, created_at, case_id, reconstruction, adjudication",
            objection_id,
            o.game_id,
            result_id,
            o.role.as_str(),
            &o.who,
            &o.reason,
            case.id
        )
        .fetch_one(&mut *tx)
        .await?
        .into_objection()?;
        append_event_locked(
            &mut tx,
            o.game_id,
            &Event::ObjectionFiled {
                objection_id,
                result_id,
                role: o.role,
                who: o.who.clone(),
                reason: o.reason.clone(),
                case_id: case.id,
            },
        )
        .await?;
        self.commit_announce(tx, o.game_id).await?;
        Ok((objection, case))
    }

    /// Attach the appeal material to an objection: the reconstruction of the game from its
    /// recorded moves (対局の再現) and the new adjudication (JSON, either may be `None` to keep the
    /// stored one). Event `appeal_material_attached` {objection_id, reconstruction, adjudication}.
    /// Errors: [`StoreError::NotFound`]; [`StoreError::Immutable`] once the game is final.
    pub async fn attach_appeal_material(
        &self,
        objection_id: Uuid,
        reconstruction: Option<Value>,
        adjudication: Option<Value>,
    ) -> StoreResult<Objection> {
        let game_id: Uuid = sqlx::query_scalar!("SELECT game_id FROM objections WHERE id = $1", objection_id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("objection {objection_id}")))?;
        let mut tx = self.pool.begin().await?;
        let state = lock_game(&mut tx, game_id).await?;
        if state == GameState::Final {
            return Err(StoreError::Immutable(Immutability::Final(format!("game {game_id} is final (第十条)"))));
        }
        let o = sqlx::query_as!(
            ObjectionRow,
            "UPDATE objections SET reconstruction = coalesce($2, reconstruction), adjudication = coalesce($3, adjudication)
             WHERE id = $1
             RETURNING id, game_id, result_id, role, who, reason, created_at, case_id, reconstruction, adjudication",
            objection_id,
            reconstruction.as_ref(),
            adjudication.as_ref()
        )
        .fetch_one(&mut *tx)
        .await?
        .into_objection()?;
        append_event_locked(
            &mut tx,
            game_id,
            &Event::AppealMaterialAttached { objection_id, reconstruction: reconstruction.clone(), adjudication: adjudication.clone() },
        )
        .await?;
        self.commit_announce(tx, game_id).await?;
        Ok(o)
    }

    /// An objection by id. Errors: [`StoreError::NotFound`].
    pub async fn get_objection(&self, id: Uuid) -> StoreResult<Objection> {
        sqlx::query_as!(
            ObjectionRow,
            "SELECT id, game_id, result_id, role, who, reason, created_at, case_id, reconstruction, adjudication
             FROM objections WHERE id = $1",
            id
        )
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("objection {id}")))?
        .into_objection()
    }

    /// The objection that opened a case, if the case is an objection case.
    pub async fn objection_of_case(&self, case_id: Uuid) -> StoreResult<Option<Objection>> {
        sqlx::query_as!(
            ObjectionRow,
            "SELECT id, game_id, result_id, role, who, reason, created_at, case_id, reconstruction, adjudication
             FROM objections WHERE case_id = $1",
            case_id
        )
        .fetch_optional(&self.pool)
        .await?
        .map(ObjectionRow::into_objection)
        .transpose()
    }

    /// The objections of a game, oldest first.
    pub async fn objections(&self, game_id: Uuid) -> StoreResult<Vec<Objection>> {
        let rows = sqlx::query_as!(
            ObjectionRow,
            "SELECT id, game_id, result_id, role, who, reason, created_at, case_id, reconstruction, adjudication
             FROM objections WHERE game_id = $1 ORDER BY created_at, id",
            game_id
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(ObjectionRow::into_objection).collect()
    }
}

async fn finalize_locked(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    current: &StoredResult,
    who: &str,
    why: &str,
) -> StoreResult<StoredResult> {
    let r = sqlx::query_as!(
        ResultRow,
        "UPDATE results SET state = 'final', finalized_at = now() WHERE id = $1
         RETURNING id, game_id, state, result, reason, statuses, detail, proposed_by,
                   created_at, finalized_at, supersedes_result_id, corrects_result_id",
        current.id
    )
    .fetch_one(&mut **tx)
    .await?
    .into_result()?;
    sqlx::query!("UPDATE games SET state = 'final' WHERE id = $1", current.game_id).execute(&mut **tx).await?;
    append_event_locked(
        tx,
        current.game_id,
        &Event::ResultFinalized {
            result_id: current.id,
            result: current.result.clone(),
            reason: current.reason.clone(),
            who: who.to_string(),
            why: why.to_string(),
        },
    )
    .await?;
    Ok(r)
}

/// The result in force among a game's result rows (see [`Store::current_result`]).
pub fn effective_result(all: &[StoredResult]) -> Option<StoredResult> {
    let mut cur = all.iter().find(|r| r.state == ResultState::Final && r.corrects_result_id.is_none());
    if let Some(mut c) = cur {
        while let Some(next) = all.iter().find(|r| r.corrects_result_id == Some(c.id)) {
            c = next;
        }
        cur = Some(c);
        return cur.cloned();
    }
    all.iter().find(|r| r.state == ResultState::Proposed).cloned()
}
