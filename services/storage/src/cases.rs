//! Arbiter cases: 無勝負 (第十一条), 反則負け (第十二条), resumption disputes (第九条), 両負け,
//! objections (第十条2), undecided adjudications (第七条/第八条), manual cases.
//!
//! State machine: `open` → `under_review` → `ruled` → `closed`; `open` may be ruled directly,
//! and `open`/`under_review` may be closed without a ruling (dismissed). A ruling, once given, is
//! never rewritten and a closed case never changes (enforced by the database). Every change is
//! an event of the game's log: `case_opened`, `case_evidence_added`, `case_state_changed`,
//! `case_ruled`.

use serde_json::{json, Value};
use uuid::Uuid;

use crate::error::{Precondition, StoreError, StoreResult};
use crate::event::Event;
use crate::model::*;
use crate::rows::*;
use crate::store::{append_event_locked, lock_game, Store};

/// A case to open.
#[derive(Debug, Clone, PartialEq)]
pub struct NewCase {
    /// The game.
    pub game_id: Uuid,
    /// Kind of case.
    pub kind: CaseKind,
    /// Evidence (JSON object): move numbers, the repeating sequence, positions, proofs.
    pub evidence: Value,
    /// Who opens it: "validation", "engine", "adjudicator", or a referee's user id.
    pub opened_by: String,
    /// Why.
    pub reason: String,
    /// De-duplication key: opening a case with a key the game already has returns the existing
    /// case (e.g. `"foul:57"` for the foul at move 57, so a retried foul opens one case).
    pub dedupe_key: Option<String>,
}

/// Filter of [`Store::list_cases`]; `None` fields do not filter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaseFilter {
    /// Cases of games of this tournament.
    pub tournament_id: Option<Uuid>,
    /// Cases of this game.
    pub game_id: Option<Uuid>,
    /// Cases in this state.
    pub state: Option<CaseState>,
    /// Cases of this kind.
    pub kind: Option<CaseKind>,
}

pub(crate) async fn open_case_locked(tx: &mut sqlx::Transaction<'_, sqlx::Postgres>, c: &NewCase) -> StoreResult<(Case, bool)> {
    let evidence = match &c.evidence {
        Value::Null => json!({}),
        v => v.clone(),
    };
    if let Some(key) = &c.dedupe_key {
        let existing = sqlx::query_as!(
            CaseRow,
            "SELECT id, game_id, kind, state, evidence, dedupe_key, opened_by, opened_reason,
                    opened_at, updated_at, ruling, ruled_by, ruled_at, ruling_reason, closed_at
             FROM cases WHERE game_id = $1 AND dedupe_key = $2",
            c.game_id,
            key
        )
        .fetch_optional(&mut **tx)
        .await?;
        if let Some(case) = existing {
            return Ok((case.into_case()?, false));
        }
    }
    let case = sqlx::query_as!(
        CaseRow,
        "INSERT INTO cases (id, game_id, kind, evidence, dedupe_key, opened_by, opened_reason)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         RETURNING id, game_id, kind, state, evidence, dedupe_key, opened_by, opened_reason,
                   opened_at, updated_at, ruling, ruled_by, ruled_at, ruling_reason, closed_at",
        Uuid::new_v4(),
        c.game_id,
        c.kind.as_str(),
        &evidence,
        c.dedupe_key.as_deref(),
        &c.opened_by,
        &c.reason
    )
    .fetch_one(&mut **tx)
    .await?
    .into_case()?;
    append_event_locked(
        tx,
        c.game_id,
        &Event::CaseOpened {
            case_id: case.id,
            kind: c.kind,
            evidence: evidence.clone(),
            opened_by: c.opened_by.clone(),
            reason: c.reason.clone(),
            dedupe_key: c.dedupe_key.clone(),
        },
    )
    .await?;
    Ok((case, true))
}

async fn case_game(store: &Store, case_id: Uuid) -> StoreResult<Uuid> {
    sqlx::query_scalar!("SELECT game_id FROM cases WHERE id = $1", case_id)
        .fetch_optional(&store.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("case {case_id}")))
}

async fn lock_case(tx: &mut sqlx::Transaction<'_, sqlx::Postgres>, case_id: Uuid) -> StoreResult<Case> {
    sqlx::query_as!(
        CaseRow,
        "SELECT id, game_id, kind, state, evidence, dedupe_key, opened_by, opened_reason,
                opened_at, updated_at, ruling, ruled_by, ruled_at, ruling_reason, closed_at
         FROM cases WHERE id = $1 FOR UPDATE",
        case_id
    )
    .fetch_optional(&mut **tx)
    .await?
    .ok_or_else(|| StoreError::NotFound(format!("case {case_id}")))?
    .into_case()
}

impl Store {
    /// Open a case (or return the existing one with the same `dedupe_key`; the flag is true when
    /// a new case was opened). Event `case_opened` {case_id, kind, evidence, opened_by, reason,
    /// dedupe_key}. Errors: [`StoreError::NotFound`] (game).
    pub async fn open_case(&self, c: &NewCase) -> StoreResult<(Case, bool)> {
        let mut tx = self.pool.begin().await?;
        lock_game(&mut tx, c.game_id).await?;
        let out = open_case_locked(&mut tx, c).await?;
        self.commit_announce(tx, c.game_id).await?;
        Ok(out)
    }

    /// A case by id. Errors: [`StoreError::NotFound`].
    pub async fn get_case(&self, id: Uuid) -> StoreResult<Case> {
        sqlx::query_as!(
            CaseRow,
            "SELECT id, game_id, kind, state, evidence, dedupe_key, opened_by, opened_reason,
                    opened_at, updated_at, ruling, ruled_by, ruled_at, ruling_reason, closed_at
             FROM cases WHERE id = $1",
            id
        )
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("case {id}")))?
        .into_case()
    }

    /// The case whose id (hyphenated lower-case UUID text) starts with `prefix`, as a referee
    /// types a case id shortened the way the CLI prints it (`b5f57eb8`).
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`] when `prefix` is shorter than 4 characters, holds
    /// anything but hexadecimal digits and hyphens, or matches more than one case (the message
    /// says to give more characters); [`StoreError::NotFound`] when it matches none.
    pub async fn resolve_case_prefix(&self, prefix: &str) -> StoreResult<Uuid> {
        let prefix = prefix.trim().to_ascii_lowercase();
        if prefix.len() < 4 || !prefix.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            return Err(StoreError::InvalidArgument(format!(
                "case id `{prefix}`: give the case's UUID or at least its first 4 hexadecimal digits"
            )));
        }
        let ids: Vec<Uuid> = sqlx::query_scalar!("SELECT id FROM cases WHERE id::text LIKE $1 || '%' ORDER BY id LIMIT 2", &prefix)
            .fetch_all(&self.pool)
            .await?;
        match ids.as_slice() {
            [] => Err(StoreError::NotFound(format!("case {prefix}…"))),
            [id] => Ok(*id),
            _ => Err(StoreError::InvalidArgument(format!(
                "case id `{prefix}` is the start of more than one case's id: give more characters"
            ))),
        }
    }

    /// Cases matching `f`, oldest first.
    pub async fn list_cases(&self, f: &CaseFilter) -> StoreResult<Vec<Case>> {
        let rows = sqlx::query_as!(
            CaseRow,
            "SELECT c.id, c.game_id, c.kind, c.state, c.evidence, c.dedupe_key, c.opened_by, c.opened_reason,
                    c.opened_at, c.updated_at, c.ruling, c.ruled_by, c.ruled_at, c.ruling_reason, c.closed_at
             FROM cases c JOIN games g ON g.id = c.game_id
             WHERE ($1::uuid IS NULL OR g.tournament_id = $1) AND ($2::uuid IS NULL OR c.game_id = $2)
               AND ($3::text IS NULL OR c.state = $3) AND ($4::text IS NULL OR c.kind = $4)
             ORDER BY c.opened_at, c.id",
            f.tournament_id,
            f.game_id,
            f.state.map(|s| s.as_str()),
            f.kind.map(|k| k.as_str())
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(CaseRow::into_case).collect()
    }

    /// Merge `evidence` (a JSON object) into a case's evidence (top-level keys replaced), while
    /// the case is not yet ruled. Event `case_evidence_added` {case_id, evidence, who}.
    /// Errors: [`StoreError::NotFound`]; [`StoreError::FailedPrecondition`] once ruled or closed.
    pub async fn add_case_evidence(&self, case_id: Uuid, evidence: Value, who: &str) -> StoreResult<Case> {
        if !evidence.is_object() {
            return Err(StoreError::InvalidArgument("case evidence must be a JSON object".into()));
        }
        let game_id = case_game(self, case_id).await?;
        let mut tx = self.pool.begin().await?;
        lock_game(&mut tx, game_id).await?;
        let case = lock_case(&mut tx, case_id).await?;
        if matches!(case.state, CaseState::Ruled | CaseState::Closed) {
            return Err(StoreError::FailedPrecondition(Precondition::Other(format!("case {case_id} is {}", case.state))));
        }
        let updated = sqlx::query_as!(
            CaseRow,
            "UPDATE cases SET evidence = evidence || $2, updated_at = now() WHERE id = $1
             RETURNING id, game_id, kind, state, evidence, dedupe_key, opened_by, opened_reason,
                       opened_at, updated_at, ruling, ruled_by, ruled_at, ruling_reason, closed_at",
            case_id,
            &evidence
        )
        .fetch_one(&mut *tx)
        .await?
        .into_case()?;
        append_event_locked(&mut tx, game_id, &Event::CaseEvidenceAdded { case_id, evidence: evidence.clone(), who: who.to_string() })
            .await?;
        self.commit_announce(tx, game_id).await?;
        Ok(updated)
    }

    /// Move a case to `under_review` or `closed` (see [`CaseState::can_become`]); use
    /// [`Store::rule_case`] to rule. Event `case_state_changed` {case_id, from, to, who, why}.
    /// Errors: [`StoreError::NotFound`]; [`StoreError::FailedPrecondition`] for a transition the
    /// state machine does not allow (or `to = ruled`).
    pub async fn set_case_state(&self, case_id: Uuid, to: CaseState, who: &str, why: &str) -> StoreResult<Case> {
        if to == CaseState::Ruled {
            return Err(StoreError::FailedPrecondition("a case becomes ruled through a ruling (rule_case)".into()));
        }
        let game_id = case_game(self, case_id).await?;
        let mut tx = self.pool.begin().await?;
        lock_game(&mut tx, game_id).await?;
        let case = lock_case(&mut tx, case_id).await?;
        if !case.state.can_become(to) {
            return Err(StoreError::FailedPrecondition(Precondition::Other(format!(
                "case {case_id} cannot go from {} to {to}",
                case.state
            ))));
        }
        let updated = sqlx::query_as!(
            CaseRow,
            "UPDATE cases SET state = $2, updated_at = now(),
                    closed_at = CASE WHEN $2 = 'closed' THEN now() ELSE closed_at END
             WHERE id = $1
             RETURNING id, game_id, kind, state, evidence, dedupe_key, opened_by, opened_reason,
                       opened_at, updated_at, ruling, ruled_by, ruled_at, ruling_reason, closed_at",
            case_id,
            to.as_str()
        )
        .fetch_one(&mut *tx)
        .await?
        .into_case()?;
        append_event_locked(
            &mut tx,
            game_id,
            &Event::CaseStateChanged { case_id, from: case.state, to, who: who.to_string(), why: why.to_string() },
        )
        .await?;
        self.commit_announce(tx, game_id).await?;
        Ok(updated)
    }

    /// Rule on an open or under-review case: store the ruling (a JSON object naming the decision
    /// and its particulars, e.g. `{"decision":"foul-loss","player":"B","move_number":57,
    /// "rule":"ko","article":"第十二条"}` or `{"decision":"no-result","policy":"nigiri"}`), who
    /// ruled and why; the case becomes `ruled`. Event `case_ruled` {case_id, ruling, who, why}.
    /// Errors: [`StoreError::NotFound`]; [`StoreError::FailedPrecondition`] when the case is
    /// already ruled or closed; [`StoreError::InvalidArgument`] when `ruling` is not an object.
    pub async fn rule_case(&self, case_id: Uuid, ruling: Value, who: &str, why: &str) -> StoreResult<Case> {
        if !ruling.is_object() {
            return Err(StoreError::InvalidArgument("a ruling must be a JSON object".into()));
        }
        let game_id = case_game(self, case_id).await?;
        let mut tx = self.pool.begin().await?;
        lock_game(&mut tx, game_id).await?;
        let case = lock_case(&mut tx, case_id).await?;
        if !case.state.can_become(CaseState::Ruled) {
            return Err(StoreError::FailedPrecondition(Precondition::Other(format!(
                "case {case_id} is {}; it cannot be ruled",
                case.state
            ))));
        }
        let updated = sqlx::query_as!(
            CaseRow,
            "UPDATE cases SET state = 'ruled', ruling = $2, ruled_by = $3, ruled_at = now(), ruling_reason = $4,
                    updated_at = now()
             WHERE id = $1
             RETURNING id, game_id, kind, state, evidence, dedupe_key, opened_by, opened_reason,
                       opened_at, updated_at, ruling, ruled_by, ruled_at, ruling_reason, closed_at",
            case_id,
            &ruling,
            who,
            why
        )
        .fetch_one(&mut *tx)
        .await?
        .into_case()?;
        append_event_locked(
            &mut tx,
            game_id,
            &Event::CaseRuled { case_id, ruling: ruling.clone(), who: who.to_string(), why: why.to_string() },
        )
        .await?;
        self.commit_announce(tx, game_id).await?;
        Ok(updated)
    }
}
