//! [`Event`]: the typed events of a game's hash-chained log — the audit format.
//!
//! An event is stored as a `kind` (text) and a `payload` (a JSON object); the hash of the chain
//! ([`crate::chain`]) covers both. [`Event`] serialises (serde, adjacently tagged) to exactly
//! `{"kind": <kind>, "payload": <payload>}`, and [`Event::kind`] / [`Event::payload`] give the
//! two parts the store writes. Fields that events written by earlier versions lack are
//! `Option`s (a missing key reads as `None`); a field written only sometimes is left out of the
//! payload when `None`, as it always was.
//!
//! Reading a log: [`Event::decode`] turns a stored kind and payload back into an `Event`; a kind
//! this version does not know, or a payload that does not read as its kind, gives
//! [`Event::Other`] with the stored text untouched. Verification ([`crate::Store::verify_chain`])
//! always hashes the payload as stored, never a re-serialisation.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::model::{CaseKind, CaseState, Color, GameState, Role};

/// One event of a game's log. The variant is the stored `kind` (its name in snake case, e.g.
/// [`Event::ResultConfirmed`] is `result_confirmed`), the fields the stored `payload`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "payload", rename_all = "snake_case")]
pub enum Event {
    /// `game_created`, seq 1 of every game ([`crate::Store::create_game`]): the game's facts
    /// ([`crate::facts`]).
    GameCreated(GameFacts),
    /// `game_facts`: the facts of a game created before `game_created` recorded them all,
    /// appended by a migration. `facts` is the JSON text of a [`GameFacts`] object.
    GameFacts {
        /// The facts, as JSON text.
        facts: String,
    },
    /// `player_updated`: a player's name or rank changed ([`crate::Store::upsert_player`]);
    /// appended to each of the player's games.
    PlayerUpdated {
        /// The player's row after the change.
        player: PlayerFacts,
        /// The name and rank before it.
        previous: PreviousPlayer,
    },
    /// `move`: a legal move recorded (第七条); the store fills in [`MovePlayed::mv`].
    Move(MovePlayed),
    /// `foul` (第十二条): an illegal move, recorded without changing the board.
    Foul {
        /// What was played and which rule it broke.
        foul: FoulRecord,
    },
    /// `resign` (第六条): a player resigned; play ends.
    Resign {
        /// Who resigned: `"B"` or `"W"`.
        #[serde(with = "crate::model::colour_serde")]
        colour: Color,
        /// The result it gives, e.g. `"W+R"`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<String>,
        /// The article, `"第六条"`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        article: Option<String>,
    },
    /// `ended`: closes an imported record whose play ended by consecutive passes (第九条);
    /// written by [`crate::Store::import_game`] with the change of state.
    Ended {
        /// Why play ended, e.g. `"consecutive passes (第九条)"`.
        reason: String,
        /// Moves in the record.
        moves: u64,
        /// The game's state before (filled in by the store).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from_state: Option<GameState>,
        /// The game's state after (filled in by the store).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to_state: Option<GameState>,
    },
    /// `play_resumed` (第九条): a ruling on a dispute about the end of play sent the game back
    /// to play ([`crate::Store::set_game_state`]).
    PlayResumed {
        /// The case whose ruling resumed play.
        case_id: Uuid,
        /// Who ruled.
        by: String,
        /// Why.
        reason: String,
        /// The article, `"第九条"`.
        article: String,
        /// The game's state before (filled in by the store).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from_state: Option<GameState>,
        /// The game's state after (filled in by the store).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to_state: Option<GameState>,
    },
    /// `adjudicated`: life and death decided by the adjudicator after a move (第七条, 第八条)
    /// and the count it gives.
    Adjudicated(Adjudication),
    /// `result_proposed` (第十条): a result proposed ([`crate::Store::propose_result`]).
    ResultProposed {
        /// The result row.
        result_id: Uuid,
        /// The result, e.g. `"B+3.5"`.
        result: String,
        /// Its reason, e.g. `"counting"`.
        reason: String,
        /// The stones' statuses (JSON).
        statuses: Value,
        /// Who proposed it.
        proposed_by: String,
        /// Its detail (JSON); events written before the detail was recorded lack it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<Value>,
        /// The proposal it supersedes, if any.
        #[serde(default)]
        supersedes_result_id: Option<Uuid>,
        /// The game's state when it was proposed; absent in older events.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        game_state_before: Option<GameState>,
    },
    /// `result_confirmed` (第十条2): one role confirmed a proposed result.
    ResultConfirmed {
        /// The result.
        result_id: Uuid,
        /// Who confirmed, by role.
        role: Role,
        /// Who confirmed.
        who: String,
    },
    /// `result_finalized` (第十条): a result became final.
    ResultFinalized {
        /// The result.
        result_id: Uuid,
        /// The result text.
        result: String,
        /// Its reason.
        reason: String,
        /// Who made it final.
        who: String,
        /// Why (e.g. `"confirmations complete"`).
        why: String,
    },
    /// `result_corrected` (第十条): a final result corrected by a new, final result.
    ResultCorrected {
        /// The new result.
        result_id: Uuid,
        /// The result it corrects.
        corrects_result_id: Uuid,
        /// The result text.
        result: String,
        /// Its reason.
        reason: String,
        /// The stones' statuses (JSON).
        statuses: Value,
        /// Who proposed it.
        proposed_by: String,
        /// Its detail (JSON); events written before the detail was recorded lack it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<Value>,
    },
    /// `objection_filed` (第十条2): a player objected to a result; a case was opened.
    ObjectionFiled {
        /// The objection.
        objection_id: Uuid,
        /// The result objected to, if any.
        #[serde(default)]
        result_id: Option<Uuid>,
        /// Who objected, by role.
        role: Role,
        /// Who objected.
        who: String,
        /// Why.
        reason: String,
        /// The case opened for it.
        case_id: Uuid,
    },
    /// `appeal_material_attached`: the reconstruction and adjudication attached to an
    /// objection (`None`: the stored one is kept).
    AppealMaterialAttached {
        /// The objection.
        objection_id: Uuid,
        /// The reconstruction of the game (JSON).
        #[serde(default)]
        reconstruction: Option<Value>,
        /// The new adjudication (JSON).
        #[serde(default)]
        adjudication: Option<Value>,
    },
    /// `case_opened`: an arbiter case opened (e.g. for a foul, 第十二条).
    CaseOpened {
        /// The case.
        case_id: Uuid,
        /// Its kind.
        kind: CaseKind,
        /// Its evidence (JSON).
        evidence: Value,
        /// Who opened it.
        opened_by: String,
        /// Why.
        reason: String,
        /// Its de-duplication key, if any.
        #[serde(default)]
        dedupe_key: Option<String>,
    },
    /// `case_evidence_added`: evidence joined to a case's (`||` of `jsonb`).
    CaseEvidenceAdded {
        /// The case.
        case_id: Uuid,
        /// The evidence added (JSON).
        evidence: Value,
        /// Who added it.
        who: String,
    },
    /// `case_state_changed`: a case moved to under review or closed.
    CaseStateChanged {
        /// The case.
        case_id: Uuid,
        /// Its state before.
        from: CaseState,
        /// Its state after.
        to: CaseState,
        /// Who moved it.
        who: String,
        /// Why.
        why: String,
    },
    /// `case_ruled`: an arbiter ruled on a case.
    CaseRuled {
        /// The case.
        case_id: Uuid,
        /// The ruling (a JSON object, e.g. `{"decision": "foul-loss", "article": "第十二条"}`).
        ruling: Value,
        /// Who ruled.
        who: String,
        /// Why.
        why: String,
    },
    /// An event of any other kind (an annotation such as `note`, or a kind written by another
    /// version), or a stored event whose payload does not read as its kind: kept as stored.
    /// Written as is; its payload must be a JSON object (or null for `{}`). serde skips this
    /// variant (serialising it is an error): [`Event::kind`] and [`Event::payload`] give its parts.
    #[serde(skip)]
    Other {
        /// The stored kind.
        kind: String,
        /// The stored payload.
        payload: Value,
    },
}

/// The facts of a game as `game_created` (and `game_facts`) record them ([`crate::facts`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameFacts {
    /// The tournament, if any.
    pub tournament_id: Option<Uuid>,
    /// The tournament's name; `None` without a tournament, and in events written before it was
    /// recorded.
    #[serde(default)]
    pub tournament: Option<String>,
    /// Round, if any.
    pub round: Option<i32>,
    /// Board (table) number, if any.
    pub table_number: Option<i32>,
    /// Black's player id.
    pub black_player_id: Uuid,
    /// White's player id.
    pub white_player_id: Uuid,
    /// Black's row; absent in events written before the players were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<PlayerFacts>,
    /// White's row; absent in events written before the players were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<PlayerFacts>,
    /// Board width (intersections).
    pub board_width: i16,
    /// Board height (intersections).
    pub board_height: i16,
    /// Komi (points).
    pub komi: f64,
    /// Handicap stones.
    pub handicap: i16,
    /// Rule set, e.g. `"japanese-2011"`.
    pub rule_set: String,
    /// The setup (SGF properties of the starting position, JSON object).
    pub setup: Value,
}

/// A player's row as events record it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerFacts {
    /// Player id.
    pub id: Uuid,
    /// Name.
    pub name: String,
    /// Rank, if any.
    #[serde(default)]
    pub rank: Option<String>,
    /// Federation id, if any.
    #[serde(default)]
    pub federation_id: Option<String>,
}

/// A player's name and rank before a `player_updated` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviousPlayer {
    /// Name.
    pub name: String,
    /// Rank, if any.
    #[serde(default)]
    pub rank: Option<String>,
}

/// The payload of a `move` event. Every field is left out when `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovePlayed {
    /// The move itself, filled in by the store when it records the move.
    #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
    pub mv: Option<MoveRecord>,
    /// The points captured (SGF points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured: Option<Vec<String>>,
    /// The phase after the move, as the protocol names it (`"PLAYING"`, `"ENDED"`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The ko point the move creates (SGF point), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ko: Option<String>,
    /// The repetition of a position the move completes, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetition: Option<RepetitionRecord>,
    /// `Some(true)` for a move of an imported record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<bool>,
    /// `Some(true)` for an imported move played after the end of play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_end: Option<bool>,
}

/// The `"move"` object of a `move` event: `{"number", "colour", "point"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// Move number, from 1.
    pub number: i32,
    /// Who played it: `"B"` or `"W"`.
    #[serde(with = "crate::model::colour_serde")]
    pub colour: Color,
    /// SGF point; `None` is a pass.
    pub point: Option<String>,
}

/// A repeated position in a `move` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepetitionRecord {
    /// The move number after which the position first occurred.
    pub first: u32,
    /// The move number after which it occurred again.
    pub again: u32,
    /// How many times the cycle has been played in a row.
    pub cycles: u32,
}

/// The `"foul"` object of a `foul` event (第十二条).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoulRecord {
    /// The number the move would have had.
    pub move_number: u32,
    /// Who played it, if known: `"B"`, `"W"` or `null`.
    #[serde(default, with = "crate::model::opt_colour_serde")]
    pub colour: Option<Color>,
    /// Where (SGF point); `None` for a pass or when unknown.
    pub point: Option<String>,
    /// The rule broken, e.g. `"ko"`.
    pub rule: String,
    /// The article, e.g. `"第十二条"`.
    pub article: String,
    /// A sentence for people.
    pub description: String,
}

/// The payload of an `adjudicated` event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Adjudication {
    /// The result, e.g. `"W+0.5"`.
    pub result: String,
    /// The rule set.
    pub rule_set: String,
    /// Komi (points).
    pub komi: f64,
    /// The move after which the position was adjudicated.
    pub move_number: u32,
    /// Search nodes spent.
    pub nodes: u64,
    /// The stones' statuses.
    pub statuses: AdjudicatedStatuses,
    /// The count.
    pub score: Score,
    /// Whether the players' agreements were given.
    pub agreements: bool,
    /// How many claims were refuted.
    pub refuted: u64,
}

/// The points of dead, seki and undecided stones (SGF points) of an [`Adjudication`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdjudicatedStatuses {
    /// Dead stones.
    pub dead: Vec<String>,
    /// Stones in seki.
    pub seki: Vec<String>,
    /// Stones left undecided.
    pub undecided: Vec<String>,
}

/// Black's and White's score (points, komi included for White).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// Black's score.
    pub black: f64,
    /// White's score.
    pub white: f64,
}

/// Every kind a typed variant stands for.
pub const KINDS: &[&str] = &[
    "game_created",
    "game_facts",
    "player_updated",
    "move",
    "foul",
    "resign",
    "ended",
    "play_resumed",
    "adjudicated",
    "result_proposed",
    "result_confirmed",
    "result_finalized",
    "result_corrected",
    "objection_filed",
    "appeal_material_attached",
    "case_opened",
    "case_evidence_added",
    "case_state_changed",
    "case_ruled",
];

impl Event {
    /// The stored kind, e.g. `"move"`.
    pub fn kind(&self) -> &str {
        match self {
            Event::GameCreated(_) => "game_created",
            Event::GameFacts { .. } => "game_facts",
            Event::PlayerUpdated { .. } => "player_updated",
            Event::Move(_) => "move",
            Event::Foul { .. } => "foul",
            Event::Resign { .. } => "resign",
            Event::Ended { .. } => "ended",
            Event::PlayResumed { .. } => "play_resumed",
            Event::Adjudicated(_) => "adjudicated",
            Event::ResultProposed { .. } => "result_proposed",
            Event::ResultConfirmed { .. } => "result_confirmed",
            Event::ResultFinalized { .. } => "result_finalized",
            Event::ResultCorrected { .. } => "result_corrected",
            Event::ObjectionFiled { .. } => "objection_filed",
            Event::AppealMaterialAttached { .. } => "appeal_material_attached",
            Event::CaseOpened { .. } => "case_opened",
            Event::CaseEvidenceAdded { .. } => "case_evidence_added",
            Event::CaseStateChanged { .. } => "case_state_changed",
            Event::CaseRuled { .. } => "case_ruled",
            Event::Other { kind, .. } => kind,
        }
    }

    /// The payload to store (a JSON object for every typed variant; [`Event::Other`]'s as given).
    pub fn payload(&self) -> Value {
        if let Event::Other { payload, .. } = self {
            return payload.clone();
        }
        match serde_json::to_value(self) {
            Ok(Value::Object(mut m)) => m.remove("payload").unwrap_or(Value::Null),
            _ => unreachable!("a typed event serialises to an object with a payload"),
        }
    }

    /// The event a stored `kind` and `payload` record: the typed variant of a known kind, or
    /// [`Event::Other`] (kind and payload as stored) for an unknown kind or a payload that does
    /// not read as its kind.
    pub fn decode(kind: &str, payload: &Value) -> Event {
        Self::try_decode(kind, payload).unwrap_or_else(|| Event::Other { kind: kind.to_string(), payload: payload.clone() })
    }

    /// The typed variant of a stored `kind` and `payload`; `None` for an unknown kind or a
    /// payload that does not read as its kind.
    pub fn try_decode(kind: &str, payload: &Value) -> Option<Event> {
        if !KINDS.contains(&kind) {
            return None;
        }
        let tagged = serde_json::json!({"kind": kind, "payload": payload});
        Event::deserialize(tagged).ok()
    }

    /// [`Event::decode`] of a stored event.
    pub fn of(e: &crate::model::StoredEvent) -> Event {
        Event::decode(&e.kind, &e.payload)
    }
}

impl crate::model::StoredEvent {
    /// This event, typed ([`Event::decode`]).
    pub fn event(&self) -> Event {
        Event::of(self)
    }
}

#[cfg(test)]
mod tests;
