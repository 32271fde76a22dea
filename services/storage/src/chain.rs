//! The hash chain of a game's event log (tamper evidence for 第十条's "never changed").
//!
//! # Definition
//!
//! Each event row of a game carries `prev_hash` (the `hash` of the game's previous event; 32 zero
//! bytes, [`GENESIS`], for the event with `seq = 1`) and
//!
//! ```text
//! hash = SHA-256( "shinpan-event-v1"                         16 bytes ASCII, domain tag
//!              || prev_hash                                  32 bytes
//!              || game_id                                    16 bytes, the UUID's RFC 4122 bytes
//!              || seq                                         8 bytes, i64 big-endian
//!              || len(kind)                                   4 bytes, u32 big-endian
//!              || kind                                        UTF-8
//!              || len(payload_text)                           8 bytes, u64 big-endian
//!              || payload_text                                UTF-8
//!              || created_at                                  8 bytes, i64 big-endian:
//!                                                             microseconds since 1970-01-01T00:00:00Z )
//! ```
//!
//! where `payload_text` is the canonical JSON text of the payload ([`canonical_json`]): object
//! keys sorted by their UTF-8 bytes, no whitespace, strings escaped as serde_json escapes them,
//! numbers as serde_json prints them (integers in decimal, floats in shortest round-trip form).
//! The payload is stored as `jsonb`; keys order and whitespace are not kept by `jsonb`, which is
//! why the text is canonicalised. Payloads should hold strings, integers, booleans, arrays and
//! objects; floats survive too (e.g. komi 6.5) but `-0.0` does not (PostgreSQL's numeric has no
//! negative zero); the store normalizes it to `0.0` before hashing ([`normalize_payload`]).
//!
//! A chain is intact when for every event, in `seq` order: `seq` is the previous `seq + 1`
//! (starting at 1), `prev_hash` equals the previous event's `hash` (or [`GENESIS`]), and `hash`
//! equals the recomputation above. Verification ([`crate::Store::verify_chain`]) also checks that
//! the head kept on the game row matches the last event, that every move, result,
//! confirmation, case and objection row agrees with the event that recorded it (and vice versa),
//! and that the game's own facts (players, rules, setup, tournament, round, board) in the
//! `games`, `players` and `tournaments` rows equal what its events record ([`crate::facts`]).

use chrono::{DateTime, Utc};
use serde_json::Value;
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// Domain tag hashed first, naming the encoding version.
pub const DOMAIN_TAG: &[u8; 16] = b"shinpan-event-v1";

/// `prev_hash` of a game's first event: 32 zero bytes.
pub const GENESIS: [u8; 32] = [0u8; 32];

/// Canonical JSON text of `value`: object keys sorted (byte order), no insignificant whitespace.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).expect("string serialises"));
                out.push(':');
                write_canonical(&map[*k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&serde_json::to_string(other).expect("scalar serialises")),
    }
}

/// The payload as it will read back from `jsonb`: `-0.0` becomes `0.0` (PostgreSQL's numeric
/// has no negative zero). Applied to every payload before hashing and storing, so that a stored
/// event always verifies.
pub fn normalize_payload(value: Value) -> Value {
    match value {
        Value::Number(n) if n.as_f64() == Some(0.0) && n.is_f64() => serde_json::json!(0.0),
        Value::Array(items) => Value::Array(items.into_iter().map(normalize_payload).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, normalize_payload(v))).collect()),
        other => other,
    }
}

/// Truncate a time to the microsecond precision PostgreSQL's `timestamptz` keeps.
pub fn to_micros(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(t.timestamp_micros()).expect("time in range")
}

/// The hash of an event, as defined in the [module docs](self). `created_at` must already be
/// truncated to microseconds ([`to_micros`]); sub-microsecond digits are ignored.
pub fn event_hash(prev_hash: &[u8], game_id: Uuid, seq: i64, kind: &str, payload: &Value, created_at: DateTime<Utc>) -> [u8; 32] {
    let payload_text = canonical_json(payload);
    let mut h = Sha256::new();
    h.update(DOMAIN_TAG);
    h.update(prev_hash);
    h.update(game_id.as_bytes());
    h.update(seq.to_be_bytes());
    h.update((kind.len() as u32).to_be_bytes());
    h.update(kind.as_bytes());
    h.update((payload_text.len() as u64).to_be_bytes());
    h.update(payload_text.as_bytes());
    h.update(created_at.timestamp_micros().to_be_bytes());
    h.finalize().into()
}

/// Why a link of a chain is broken. `Display` gives a sentence for reports. More kinds may be
/// added (non-exhaustive).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub enum BreakKind {
    /// `seq` is not the previous `seq + 1` (an event was removed or inserted); `expected` is the
    /// sequence number that should have come.
    Gap {
        /// The expected sequence number.
        expected: i64,
    },
    /// `prev_hash` differs from the previous event's `hash`.
    PrevHashMismatch,
    /// The stored `hash` differs from the recomputed one (the row was altered).
    HashMismatch,
    /// The head kept on the game row (last event's seq and hash) disagrees with the log's last
    /// event: events were removed from (or added to) the end behind the store's back.
    HeadMismatch {
        /// The last seq the game row records.
        head_seq: i64,
    },
    /// A move row disagrees with (or has no) the event that recorded it.
    MoveMismatch {
        /// The move number concerned.
        move_number: i32,
    },
    /// A result row or one of its confirmations disagrees with (or has no) the event that
    /// recorded it, or an event records a result or confirmation that is gone. Compared: the
    /// result text, reason, statuses, who proposed it, its detail (recorded in the event by
    /// this version), the result it supersedes or corrects, and its state (final when an event
    /// made it final, superseded when a later proposal's event says so, else proposed).
    ResultMismatch {
        /// The result concerned.
        result_id: Uuid,
    },
    /// A case row (opening, ruling) or its objection disagrees with (or has no) the event that
    /// recorded it, or an event records a case or objection that is gone. Compared: the case's
    /// kind, who opened it and why, its de-duplication key, its evidence (as opened, with each
    /// addition merged), its state (as its events moved it), its ruling with who ruled and why;
    /// the objection's role, who, reason, result and case, and its appeal material.
    CaseMismatch {
        /// The case concerned.
        case_id: Uuid,
    },
    /// A fact of the game (see [`crate::facts`]: a player's name, rank or federation id, the
    /// rule set, komi, handicap, setup, board size, tournament, round or board number) held by a
    /// row differs from what the event that recorded it last says, or two events that both
    /// record it disagree, or no event records it. Texts are JSON values as shown in a report.
    FactMismatch {
        /// The fact: a column of `games` (e.g. `komi`, `setup`, `table_number`), `tournament`
        /// (the tournament's name), or `black.`/`white.` and a column of `players` (e.g.
        /// `white.federation_id`); or `state`, when the game's row says `final` without a
        /// result made final by an event, or the other way round.
        field: String,
        /// Where the value that disagrees is held: "the games table", "the players table",
        /// "the tournaments table", or "an earlier event".
        held_by: String,
        /// That value (JSON text).
        stored: String,
        /// The event that records the fact: "event <seq> (<kind>)", or "no event".
        recorded_by: String,
        /// The value it records (JSON text; "nothing" when no event records it).
        recorded: String,
    },
}

impl std::fmt::Display for BreakKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BreakKind::Gap { expected } => write!(f, "sequence gap (expected event {expected}): an event was removed or inserted"),
            BreakKind::PrevHashMismatch => f.write_str("prev_hash does not match the previous event's hash"),
            BreakKind::HashMismatch => f.write_str("the stored hash does not match the recomputed one: the row was altered"),
            BreakKind::HeadMismatch { head_seq } => {
                write!(f, "the game row records {head_seq} as its last event, the log disagrees: events were cut off or added")
            }
            BreakKind::MoveMismatch { move_number } => write!(f, "move {move_number} disagrees with the event that recorded it"),
            BreakKind::ResultMismatch { result_id } => {
                write!(f, "result {result_id} (or a confirmation of it) disagrees with the events that recorded it")
            }
            BreakKind::CaseMismatch { case_id } => {
                write!(f, "case {case_id} (its opening, ruling or objection) disagrees with the events that recorded it")
            }
            BreakKind::FactMismatch { field, held_by, stored, recorded_by, recorded } => {
                write!(f, "{field} in {held_by} is {stored}, {recorded_by} says {recorded}")
            }
        }
    }
}

/// The first broken link of a game's chain: the game and the sequence number of the first event
/// that does not verify.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ChainBreak {
    /// Game.
    pub game_id: Uuid,
    /// Sequence number of the first event that fails (for a move or result mismatch, the event
    /// that recorded it, or 0 if there is none).
    pub seq: i64,
    /// What is wrong.
    pub kind: BreakKind,
}

impl std::fmt::Display for ChainBreak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "game {} event {}: {}", self.game_id, self.seq, self.kind)
    }
}

/// The tail of one game's event log: its last event's sequence number and hash (0 and
/// [`GENESIS`] for a game without events). An *anchor* is a list of them kept outside the
/// database (`shinpan audit anchor`): a later log must still hold each anchored event with
/// the same hash, which — the chain being intact — proves nothing up to it was changed or
/// cut off, even by someone who can rewrite the whole database.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ChainHead {
    /// Game.
    pub game_id: Uuid,
    /// Sequence number of the game's last event (0: none).
    pub seq: i64,
    /// SHA-256 of that event (32 bytes; [`GENESIS`] when there is none).
    pub hash: Vec<u8>,
}

/// Outcome of a verification.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ChainReport {
    /// Games checked.
    pub games: u64,
    /// Events checked.
    pub events: u64,
    /// The first broken link of every broken game, ordered by game id.
    pub breaks: Vec<ChainBreak>,
    /// Every further disagreement found in a broken game besides its first (each other changed
    /// fact, each other result, case or move that disagrees with its event), ordered by game id,
    /// then seq. Empty for a game whose chain itself is broken (an event that does not verify,
    /// or a head that does not match): its rows are not compared with events that cannot be
    /// trusted.
    pub more: Vec<ChainBreak>,
}

impl ChainReport {
    /// True when no link is broken.
    pub fn is_intact(&self) -> bool {
        self.breaks.is_empty()
    }
    /// The first broken link, if any.
    pub fn first_break(&self) -> Option<&ChainBreak> {
        self.breaks.first()
    }
}

/// Incremental verifier of one game's events in `seq` order.
pub(crate) struct ChainWalker {
    game_id: Uuid,
    prev_seq: i64,
    prev_hash: Vec<u8>,
    broken: Option<ChainBreak>,
}

impl ChainWalker {
    pub(crate) fn new(game_id: Uuid) -> Self {
        ChainWalker { game_id, prev_seq: 0, prev_hash: GENESIS.to_vec(), broken: None }
    }

    /// Feed the next event; returns false once the chain is broken (later events are not checked).
    pub(crate) fn push(&mut self, seq: i64, kind: &str, payload: &Value, created_at: DateTime<Utc>, prev_hash: &[u8], hash: &[u8]) -> bool {
        if self.broken.is_some() {
            return false;
        }
        let brk = |k| ChainBreak { game_id: self.game_id, seq, kind: k };
        if seq != self.prev_seq + 1 {
            self.broken = Some(brk(BreakKind::Gap { expected: self.prev_seq + 1 }));
        } else if prev_hash != self.prev_hash.as_slice() {
            self.broken = Some(brk(BreakKind::PrevHashMismatch));
        } else if event_hash(prev_hash, self.game_id, seq, kind, payload, created_at).as_slice() != hash {
            self.broken = Some(brk(BreakKind::HashMismatch));
        }
        self.prev_seq = seq;
        self.prev_hash = hash.to_vec();
        self.broken.is_none()
    }

    pub(crate) fn finish(self) -> Option<ChainBreak> {
        self.broken
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_sorts_keys_and_drops_whitespace() {
        let v: Value = serde_json::from_str(r#"{ "b": [1, {"z": true, "a": null}], "a": "x\"y", "ä": 6.5 }"#).unwrap();
        assert_eq!(canonical_json(&v), r#"{"a":"x\"y","b":[1,{"a":null,"z":true}],"ä":6.5}"#);
    }

    #[test]
    fn hash_depends_on_every_field() {
        let g = Uuid::from_u128(1);
        let t = DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap();
        let base = event_hash(&GENESIS, g, 1, "move", &json!({"a":1}), t);
        assert_ne!(base, event_hash(&[1u8; 32], g, 1, "move", &json!({"a":1}), t));
        assert_ne!(base, event_hash(&GENESIS, Uuid::from_u128(2), 1, "move", &json!({"a":1}), t));
        assert_ne!(base, event_hash(&GENESIS, g, 2, "move", &json!({"a":1}), t));
        assert_ne!(base, event_hash(&GENESIS, g, 1, "foul", &json!({"a":1}), t));
        assert_ne!(base, event_hash(&GENESIS, g, 1, "move", &json!({"a":2}), t));
        assert_ne!(base, event_hash(&GENESIS, g, 1, "move", &json!({"a":1}), t + chrono::Duration::microseconds(1)));
        // key order does not matter
        let a: Value = serde_json::from_str(r#"{"x":1,"y":2}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"y":2,"x":1}"#).unwrap();
        assert_eq!(event_hash(&GENESIS, g, 1, "k", &a, t), event_hash(&GENESIS, g, 1, "k", &b, t));
    }

    #[test]
    fn hash_matches_the_documented_encoding() {
        // Recompute by hand from the byte layout in the module docs.
        let g = Uuid::from_u128(0x0102030405060708090a0b0c0d0e0f10);
        let t = DateTime::from_timestamp_micros(42).unwrap();
        let mut bytes = Vec::new();
        bytes.extend_from_slice(b"shinpan-event-v1");
        bytes.extend_from_slice(&[0u8; 32]);
        bytes.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 7]);
        bytes.extend_from_slice(&[0, 0, 0, 4]);
        bytes.extend_from_slice(b"move");
        bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 7]);
        bytes.extend_from_slice(br#"{"a":1}"#);
        bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 42]);
        let expected: [u8; 32] = Sha256::digest(&bytes).into();
        assert_eq!(event_hash(&GENESIS, g, 7, "move", &json!({"a": 1}), t), expected);
    }

    #[test]
    fn negative_zero_is_normalized() {
        let v = normalize_payload(json!({"komi": -0.0, "list": [-0.0, 1.5, 0]}));
        assert_eq!(canonical_json(&v), r#"{"komi":0.0,"list":[0.0,1.5,0]}"#);
    }

    #[test]
    fn walker_finds_first_break() {
        let g = Uuid::from_u128(9);
        let t = DateTime::from_timestamp_micros(1).unwrap();
        let h1 = event_hash(&GENESIS, g, 1, "a", &json!({}), t);
        let h2 = event_hash(&h1, g, 2, "b", &json!({}), t);
        let mut w = ChainWalker::new(g);
        assert!(w.push(1, "a", &json!({}), t, &GENESIS, &h1));
        assert!(!w.push(2, "b", &json!({"x":1}), t, &h1, &h2));
        assert_eq!(w.finish(), Some(ChainBreak { game_id: g, seq: 2, kind: BreakKind::HashMismatch }));
        let mut w = ChainWalker::new(g);
        assert!(w.push(1, "a", &json!({}), t, &GENESIS, &h1));
        assert!(!w.push(3, "b", &json!({}), t, &h1, &h2));
        assert_eq!(w.finish().unwrap().kind, BreakKind::Gap { expected: 2 });
    }
}
