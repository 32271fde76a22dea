//! The rows as the checked queries (`sqlx::query_as!`) read them, and their conversion to the
//! types of [`crate::model`]: the columns' own types, the enums still as their stored text, which
//! `into_*` parses (unknown text: [`StoreError::Other`]).

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use crate::error::StoreError;
use crate::model::*;

/// A row of `moves` as read; see [`MoveRow::into_move`].
pub(crate) struct MoveRow {
    pub(crate) game_id: Uuid,
    pub(crate) move_number: i32,
    pub(crate) colour: String,
    pub(crate) point: Option<String>,
    pub(crate) client_time: Option<DateTime<Utc>>,
    pub(crate) idempotency_key: Option<String>,
    pub(crate) event_seq: i64,
    pub(crate) recorded_at: DateTime<Utc>,
}

impl MoveRow {
    pub(crate) fn into_move(self) -> Result<StoredMove, StoreError> {
        Ok(StoredMove {
            game_id: self.game_id,
            move_number: self.move_number,
            colour: parse_colour(&self.colour)?,
            point: self.point,
            client_time: self.client_time,
            idempotency_key: self.idempotency_key,
            event_seq: self.event_seq,
            recorded_at: self.recorded_at,
        })
    }
}

/// A row of `results` as read; see [`ResultRow::into_result`].
pub(crate) struct ResultRow {
    pub(crate) id: Uuid,
    pub(crate) game_id: Uuid,
    pub(crate) state: String,
    pub(crate) result: String,
    pub(crate) reason: String,
    pub(crate) statuses: Value,
    pub(crate) detail: Value,
    pub(crate) proposed_by: String,
    pub(crate) created_at: DateTime<Utc>,
    pub(crate) finalized_at: Option<DateTime<Utc>>,
    pub(crate) supersedes_result_id: Option<Uuid>,
    pub(crate) corrects_result_id: Option<Uuid>,
}

impl ResultRow {
    pub(crate) fn into_result(self) -> Result<StoredResult, StoreError> {
        Ok(StoredResult {
            id: self.id,
            game_id: self.game_id,
            state: self.state.parse()?,
            result: self.result,
            reason: self.reason,
            statuses: self.statuses,
            detail: self.detail,
            proposed_by: self.proposed_by,
            created_at: self.created_at,
            finalized_at: self.finalized_at,
            supersedes_result_id: self.supersedes_result_id,
            corrects_result_id: self.corrects_result_id,
        })
    }
}

/// A row of `confirmations` as read; see [`ConfirmationRow::into_confirmation`].
pub(crate) struct ConfirmationRow {
    pub(crate) result_id: Uuid,
    pub(crate) role: String,
    pub(crate) who: String,
    pub(crate) confirmed_at: DateTime<Utc>,
}

impl ConfirmationRow {
    pub(crate) fn into_confirmation(self) -> Result<Confirmation, StoreError> {
        Ok(Confirmation { result_id: self.result_id, role: self.role.parse()?, who: self.who, confirmed_at: self.confirmed_at })
    }
}

/// A row of `cases` as read; see [`CaseRow::into_case`].
pub(crate) struct CaseRow {
    pub(crate) id: Uuid,
    pub(crate) game_id: Uuid,
    pub(crate) kind: String,
    pub(crate) state: String,
    pub(crate) evidence: Value,
    pub(crate) dedupe_key: Option<String>,
    pub(crate) opened_by: String,
    pub(crate) opened_reason: String,
    pub(crate) opened_at: DateTime<Utc>,
    pub(crate) updated_at: DateTime<Utc>,
    pub(crate) ruling: Option<Value>,
    pub(crate) ruled_by: Option<String>,
    pub(crate) ruled_at: Option<DateTime<Utc>>,
    pub(crate) ruling_reason: Option<String>,
    pub(crate) closed_at: Option<DateTime<Utc>>,
}

impl CaseRow {
    pub(crate) fn into_case(self) -> Result<Case, StoreError> {
        Ok(Case {
            id: self.id,
            game_id: self.game_id,
            kind: self.kind.parse()?,
            state: self.state.parse()?,
            evidence: self.evidence,
            dedupe_key: self.dedupe_key,
            opened_by: self.opened_by,
            opened_reason: self.opened_reason,
            opened_at: self.opened_at,
            updated_at: self.updated_at,
            ruling: self.ruling,
            ruled_by: self.ruled_by,
            ruled_at: self.ruled_at,
            ruling_reason: self.ruling_reason,
            closed_at: self.closed_at,
        })
    }
}

/// A row of `objections` as read; see [`ObjectionRow::into_objection`].
pub(crate) struct ObjectionRow {
    pub(crate) id: Uuid,
    pub(crate) game_id: Uuid,
    pub(crate) result_id: Option<Uuid>,
    pub(crate) role: String,
    pub(crate) who: String,
    pub(crate) reason: String,
    pub(crate) created_at: DateTime<Utc>,
    pub(crate) case_id: Uuid,
    pub(crate) reconstruction: Option<Value>,
    pub(crate) adjudication: Option<Value>,
}

impl ObjectionRow {
    pub(crate) fn into_objection(self) -> Result<Objection, StoreError> {
        Ok(Objection {
            id: self.id,
            game_id: self.game_id,
            result_id: self.result_id,
            role: self.role.parse()?,
            who: self.who,
            reason: self.reason,
            created_at: self.created_at,
            case_id: self.case_id,
            reconstruction: self.reconstruction,
            adjudication: self.adjudication,
        })
    }
}
