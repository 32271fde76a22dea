//! The game's own facts in the hash chain: who played (name, rank, federation id of each
//! player), under which rules (rule set, komi, handicap, setup stones, board size) and where
//! (tournament, round, board number).
//!
//! A result rests on these facts as much as on the moves: 第十条2's confirmation makes a result
//! final, and the archive must show that none of them was changed after it. They live in
//! ordinary rows (`games`, `players`, `tournaments`); the chain covers them by recording them
//! in hashed events, and [`crate::Store::verify_chain`] compares the rows with those events
//! field by field, naming the field that differs ([`crate::BreakKind::FactMismatch`]).
//!
//! # Events that record facts
//!
//! * `game_created` (seq 1, the genesis of every game): the flat keys
//!   `tournament_id`, `round`, `table_number`, `black_player_id`, `white_player_id`,
//!   `board_width`, `board_height`, `komi`, `handicap`, `rule_set`, `setup`, and
//!   `tournament` (the tournament's name or null), `black` and `white` (each
//!   `{"id", "name", "rank", "federation_id"}`, the player's row when the game was created).
//!   Games created before the players and the tournament name were recorded have only the
//!   flat keys.
//! * `game_facts`: appended by the migration `20261125001000_game_facts.sql` to every game
//!   that existed before it, at the end of its chain (seq = its last seq + 1, linked to its
//!   last hash, so that no existing hash changes). Payload `{"facts": "<JSON text>"}`: the text
//!   is a JSON object of the same shape as the `game_created` payload, built from the rows as
//!   they were at the migration. It is a string so that PostgreSQL could hash the payload
//!   itself (the canonical text of an object holding one string is that string escaped, which
//!   `to_json(text)` produces exactly as serde_json does) without reproducing serde_json's
//!   number formatting. For such a game, a fact recorded by both events must agree in both,
//!   and the facts that only `game_facts` records (the players' names, ranks and federation
//!   ids, the tournament's name) are covered from the migration on, not from creation.
//! * `player_updated`: [`crate::Store::upsert_player`] changing a player's name or rank
//!   appends it to every game of that player, payload `{"player": {"id", "name", "rank",
//!   "federation_id"}, "previous": {"name", "rank"}}`; it supersedes what earlier events
//!   recorded of that player in that game.
//!
//! For each fact, the value recorded last (in `seq` order) must equal the row's, and a
//! `game_facts` event must record what `game_created` recorded. Every fact that differs is
//! reported, each as its own [`crate::ChainBreak`] (the first of a game in
//! [`crate::ChainReport::breaks`], the others in [`crate::ChainReport::more`]).

use std::collections::BTreeMap;

use serde_json::{json, Value};
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

use crate::chain::{BreakKind, ChainBreak};
use crate::error::{StoreError, StoreResult};
use crate::event::{GameFacts, PlayerFacts};
use crate::model::NewGame;

/// Kind of the event that records the facts of a game created before they were all recorded.
pub const GAME_FACTS_KIND: &str = "game_facts";

/// Kind of the event that records a change of a player's name or rank in a game of theirs.
pub const PLAYER_UPDATED_KIND: &str = "player_updated";

/// The fields checked, in the order they are checked (and reported): field name as printed,
/// the table that holds it.
const FIELDS: &[(&str, &str)] = &[
    ("tournament_id", "games"),
    ("tournament", "tournaments"),
    ("round", "games"),
    ("table_number", "games"),
    ("black_player_id", "games"),
    ("white_player_id", "games"),
    ("black.name", "players"),
    ("black.rank", "players"),
    ("black.federation_id", "players"),
    ("white.name", "players"),
    ("white.rank", "players"),
    ("white.federation_id", "players"),
    ("board_width", "games"),
    ("board_height", "games"),
    ("rule_set", "games"),
    ("komi", "games"),
    ("handicap", "games"),
    ("setup", "games"),
];

/// The payload of a new game's `game_created` event: every fact of [`FIELDS`], the players'
/// and the tournament's as their rows hold them now. The player rows are read `FOR SHARE`, so
/// that a concurrent [`crate::Store::upsert_player`] renaming one either finishes first (and
/// this game records the new name) or waits for this game to be committed (and then records
/// its change in it). Errors: [`StoreError::NotFound`] for an unknown player or tournament.
pub(crate) async fn genesis_facts(tx: &mut Transaction<'_, Postgres>, g: &NewGame, setup: &Value) -> StoreResult<GameFacts> {
    let mut players = Vec::with_capacity(2);
    for id in [g.black_player_id, g.white_player_id] {
        let player = sqlx::query_as!(PlayerFacts, "SELECT id, name, rank, federation_id FROM players WHERE id = $1 FOR SHARE", id)
            .fetch_optional(&mut **tx)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("player {id}")))?;
        players.push(player);
    }
    let tournament: Option<String> = match g.tournament_id {
        None => None,
        Some(t) => Some(
            sqlx::query_scalar!("SELECT name FROM tournaments WHERE id = $1", t)
                .fetch_optional(&mut **tx)
                .await?
                .ok_or_else(|| StoreError::NotFound(format!("tournament {t}")))?,
        ),
    };
    let white = players.pop();
    let black = players.pop();
    Ok(GameFacts {
        tournament_id: g.tournament_id,
        tournament,
        round: g.round,
        table_number: g.table_number,
        black_player_id: g.black_player_id,
        white_player_id: g.white_player_id,
        black,
        white,
        board_width: g.board_width,
        board_height: g.board_height,
        komi: g.komi,
        handicap: g.handicap,
        rule_set: g.rule_set.clone(),
        setup: setup.clone(),
    })
}

/// The facts as the rows hold them now, by field name. Read column by column into plain
/// values, so that a row no longer readable as a game (e.g. a setup that is not a position)
/// is still compared, not an error. Errors: [`StoreError::NotFound`] when the game is gone.
pub(crate) async fn stored_facts(pool: &sqlx::PgPool, game_id: Uuid) -> StoreResult<BTreeMap<&'static str, Value>> {
    let r = sqlx::query!(
        r#"SELECT g.tournament_id, t.name AS "tournament?", g.round, g.table_number,
                g.black_player_id, g.white_player_id,
                b.name AS "b_name?", b.rank AS "b_rank?", b.federation_id AS "b_fed?",
                w.name AS "w_name?", w.rank AS "w_rank?", w.federation_id AS "w_fed?",
                g.board_width, g.board_height, g.rule_set, g.komi, g.handicap, g.setup
         FROM games g
         LEFT JOIN tournaments t ON t.id = g.tournament_id
         LEFT JOIN players b ON b.id = g.black_player_id
         LEFT JOIN players w ON w.id = g.white_player_id
         WHERE g.id = $1"#,
        game_id
    )
    .fetch_optional(pool)
    .await?
    .ok_or_else(|| StoreError::NotFound(format!("game {game_id}")))?;
    let mut m = BTreeMap::new();
    m.insert("tournament_id", json!(r.tournament_id));
    m.insert("tournament", json!(r.tournament));
    m.insert("round", json!(r.round));
    m.insert("table_number", json!(r.table_number));
    m.insert("black_player_id", json!(r.black_player_id));
    m.insert("white_player_id", json!(r.white_player_id));
    m.insert("black.name", json!(r.b_name));
    m.insert("black.rank", json!(r.b_rank));
    m.insert("black.federation_id", json!(r.b_fed));
    m.insert("white.name", json!(r.w_name));
    m.insert("white.rank", json!(r.w_rank));
    m.insert("white.federation_id", json!(r.w_fed));
    m.insert("board_width", json!(r.board_width));
    m.insert("board_height", json!(r.board_height));
    m.insert("rule_set", json!(r.rule_set));
    m.insert("komi", json!(r.komi));
    m.insert("handicap", json!(r.handicap));
    m.insert("setup", r.setup);
    Ok(m)
}

/// A fact as an event recorded it: value, and the seq and kind of that event.
#[derive(Debug, Clone)]
struct Recorded {
    value: Value,
    seq: i64,
    kind: String,
}

/// Collects the facts recorded by a game's events, fed in `seq` order.
#[derive(Debug, Default)]
pub(crate) struct FactsRecorder {
    game_id: Uuid,
    recorded: BTreeMap<String, Recorded>,
    /// Disagreements between two events that both record a fact (a `game_facts` event
    /// recording a value other than the `game_created` event's).
    conflicts: Vec<ChainBreak>,
}

impl FactsRecorder {
    pub(crate) fn new(game_id: Uuid) -> Self {
        FactsRecorder { game_id, ..Default::default() }
    }

    /// Feed the next event of the game.
    pub(crate) fn push(&mut self, seq: i64, kind: &str, payload: &Value) {
        match kind {
            "game_created" => self.record_all(seq, kind, payload),
            GAME_FACTS_KIND => match payload.get("facts").and_then(Value::as_str).map(serde_json::from_str::<Value>) {
                Some(Ok(facts)) => self.record_all(seq, kind, &facts),
                _ => self.note_conflict(seq, "facts", "a JSON object", "something unreadable".into(), kind),
            },
            PLAYER_UPDATED_KIND => {
                let Some(player) = payload.get("player") else { return };
                let id = player.get("id").cloned().unwrap_or(Value::Null);
                for colour in ["black", "white"] {
                    if self.recorded.get(&format!("{colour}_player_id")).is_some_and(|r| r.value == id) {
                        for key in ["name", "rank", "federation_id"] {
                            let value = player.get(key).cloned().unwrap_or(Value::Null);
                            self.recorded.insert(format!("{colour}.{key}"), Recorded { value, seq, kind: kind.into() });
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Record every fact a `game_created`-shaped object holds; a fact an earlier event recorded
    /// with another value is a conflict.
    fn record_all(&mut self, seq: i64, kind: &str, facts: &Value) {
        for (field, _) in FIELDS {
            let value = match field.split_once('.') {
                Some((colour, key)) => match facts.get(colour) {
                    Some(p) => p.get(key).cloned().unwrap_or(Value::Null),
                    None => continue,
                },
                None => match facts.get(*field) {
                    Some(v) => v.clone(),
                    None => continue,
                },
            };
            if let Some(earlier) = self.recorded.get(*field) {
                if !same(&earlier.value, &value) {
                    let (earlier_text, earlier_seq, earlier_kind) = (shown(&earlier.value), earlier.seq, earlier.kind.clone());
                    self.note_conflict(seq, field, &format!("{earlier_text} (event {earlier_seq}, {earlier_kind})"), shown(&value), kind);
                    continue;
                }
            }
            self.recorded.insert(field.to_string(), Recorded { value, seq, kind: kind.into() });
        }
    }

    fn note_conflict(&mut self, seq: i64, field: &str, stored: &str, recorded: String, kind: &str) {
        self.conflicts.push(ChainBreak {
            game_id: self.game_id,
            seq,
            kind: BreakKind::FactMismatch {
                field: field.to_string(),
                held_by: "an earlier event".into(),
                stored: stored.to_string(),
                recorded_by: format!("event {seq} ({kind})"),
                recorded,
            },
        });
    }

    /// Every disagreement: each conflict between two events, then each fact (in the order of
    /// `FIELDS`) whose row differs from the event that recorded it last, or that no event
    /// records. Empty when all agree.
    pub(crate) fn check(self, stored: &BTreeMap<&'static str, Value>) -> Vec<ChainBreak> {
        let FactsRecorder { game_id, recorded, conflicts: mut out } = self;
        for (field, table) in FIELDS {
            let Some(row) = stored.get(field) else { continue };
            let brk = |seq, recorded_by: String, value: String| ChainBreak {
                game_id,
                seq,
                kind: BreakKind::FactMismatch {
                    field: field.to_string(),
                    held_by: format!("the {table} table"),
                    stored: shown(row),
                    recorded_by,
                    recorded: value,
                },
            };
            match recorded.get(*field) {
                None => out.push(brk(0, "no event".into(), "nothing".into())),
                Some(r) if !same(&r.value, row) => out.push(brk(r.seq, format!("event {} ({})", r.seq, r.kind), shown(&r.value))),
                Some(_) => {}
            }
        }
        out
    }
}

/// Equal as facts: numbers by value (an integer komi read back from `jsonb` is an integer,
/// the column's is a float), everything else exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// A value as shown in a report: its JSON text, cut to 300 characters.
fn shown(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(komi: f64) -> BTreeMap<&'static str, Value> {
        let mut m = BTreeMap::new();
        for (f, _) in FIELDS {
            m.insert(*f, Value::Null);
        }
        m.insert("komi", json!(komi));
        m.insert("black_player_id", json!(Uuid::from_u128(1)));
        m.insert("white_player_id", json!(Uuid::from_u128(2)));
        m.insert("black.name", json!("A"));
        m.insert("white.name", json!("B"));
        m
    }

    fn genesis() -> Value {
        let mut g = serde_json::Map::new();
        for (f, _) in FIELDS {
            if !f.contains('.') {
                g.insert(f.to_string(), Value::Null);
            }
        }
        g.insert("komi".into(), json!(6.5));
        g.insert("black_player_id".into(), json!(Uuid::from_u128(1)));
        g.insert("white_player_id".into(), json!(Uuid::from_u128(2)));
        g.insert("black".into(), json!({"id": Uuid::from_u128(1), "name": "A", "rank": null, "federation_id": null}));
        g.insert("white".into(), json!({"id": Uuid::from_u128(2), "name": "B", "rank": null, "federation_id": null}));
        Value::Object(g)
    }

    #[test]
    fn the_field_that_differs_is_named() {
        let mut r = FactsRecorder::new(Uuid::nil());
        r.push(1, "game_created", &genesis());
        let b = r.check(&stored(106.5)).into_iter().next().expect("komi differs");
        assert_eq!(b.seq, 1);
        assert_eq!(
            b.to_string(),
            format!("game {} event 1: komi in the games table is 106.5, event 1 (game_created) says 6.5", Uuid::nil())
        );
        let mut r = FactsRecorder::new(Uuid::nil());
        r.push(1, "game_created", &genesis());
        assert!(r.check(&stored(6.5)).is_empty());
    }

    #[test]
    fn a_later_player_update_supersedes_the_genesis() {
        let mut renamed = stored(6.5);
        renamed.insert("white.name", json!("C"));
        let mut r = FactsRecorder::new(Uuid::nil());
        r.push(1, "game_created", &genesis());
        r.push(2, PLAYER_UPDATED_KIND, &json!({"player": {"id": Uuid::from_u128(2), "name": "C", "rank": null, "federation_id": null}}));
        assert!(r.check(&renamed).is_empty());
        let mut r = FactsRecorder::new(Uuid::nil());
        r.push(1, "game_created", &genesis());
        assert!(
            matches!(&r.check(&renamed)[..], [ChainBreak { kind: BreakKind::FactMismatch { field, .. }, .. }] if field == "white.name")
        );
    }

    #[test]
    fn facts_recorded_twice_must_agree() {
        let mut old = genesis();
        let obj = old.as_object_mut().unwrap();
        obj.remove("black");
        obj.remove("white");
        obj.remove("tournament");
        let mut later = genesis();
        later["komi"] = json!(106.5);
        let mut r = FactsRecorder::new(Uuid::nil());
        r.push(1, "game_created", &old);
        r.push(7, GAME_FACTS_KIND, &json!({"facts": later.to_string()}));
        let b = r.check(&stored(106.5)).into_iter().next().expect("the two events disagree");
        assert_eq!(b.seq, 7);
        assert!(b.to_string().contains("komi"), "{b}");
        // a game created before the players were recorded is not covered without the event
        let mut r = FactsRecorder::new(Uuid::nil());
        r.push(1, "game_created", &old);
        assert!(matches!(&r.check(&stored(6.5))[0].kind, BreakKind::FactMismatch { recorded_by, .. } if recorded_by == "no event"));
    }
}
