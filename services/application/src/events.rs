//! Stored games, moves and events in the rules engine's forms: the start of a stored game,
//! its moves, and the typed events of its hash-chained log (`move`, `foul`, `resign`,
//! `ended`, ...). The events' JSON payloads are the audit format of the log (hash-chained:
//! `shinpan audit verify` recomputes the chain), so [`move_event`] and [`foul_event`] write
//! exactly the fields, names and texts they always have. The protocol's form of an event is
//! the transport's (`shinpan::grpc::convert`).

use crate::convert::{self, GameStart};
use crate::error::AppError;
use crate::validation::MoveCheck;
use goban::{Color, Move, RuleSet};
use serde_json::Value;
use shinpan_storage::event::{FoulRecord, MovePlayed, RepetitionRecord};
use shinpan_storage::{self as storage, Event};

/// Points as a JSON array of SGF points (`["dd", "pp"]`).
pub fn points_json(v: &[goban::Point]) -> Value {
    Value::Array(v.iter().map(|p| Value::String(p.to_sgf())).collect())
}

/// The SGF points of a JSON array (points that do not parse are left out; `None`: none).
pub fn points_from_json(v: Option<&Value>) -> Vec<goban::Point> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|s| s.as_str()).filter_map(|s| goban::Point::from_sgf(s).ok()).collect())
        .unwrap_or_default()
}

/// The start of a stored game (rule set, size, handicap, setup stones from the `setup` JSON:
/// `{"AB": [...], "AW": [...], "PL": "B"|"W"}`).
pub fn stored_start(g: &storage::Game) -> Result<GameStart, AppError> {
    let rules =
        RuleSet::from_name(&g.rule_set).ok_or_else(|| AppError::Internal(format!("game {} has unknown rule set {}", g.id, g.rule_set)))?;
    let first_to_move = match g.setup.get("PL").and_then(Value::as_str) {
        Some("B") => Some(Color::Black),
        Some("W") => Some(Color::White),
        _ => None,
    };
    Ok(GameStart {
        rules,
        size: g.board_width.max(0) as u32,
        handicap: g.handicap.max(0) as u32,
        setup_black: points_from_json(g.setup.get("AB")),
        setup_white: points_from_json(g.setup.get("AW")),
        first_to_move,
    })
}

/// The `setup` JSON of a game to store: `extra` (SGF root properties such as `DT`, `EV`)
/// with the setup stones `AB`, `AW` and the first player `PL` when the start names one.
pub fn setup_json(start: &GameStart, extra: serde_json::Map<String, Value>) -> Value {
    let mut m = extra;
    m.insert("AB".into(), points_json(&start.setup_black));
    m.insert("AW".into(), points_json(&start.setup_white));
    if let Some(c) = start.first_to_move {
        m.insert("PL".into(), Value::String(c.letter().to_string()));
    }
    Value::Object(m)
}

/// Stored moves as (colour, move) pairs.
pub fn stored_moves(moves: &[storage::StoredMove]) -> Result<Vec<(Color, Move)>, AppError> {
    moves
        .iter()
        .map(|m| {
            let mv = match &m.point {
                Some(p) => {
                    Move::Play(goban::Point::from_sgf(p).map_err(|e| AppError::Internal(format!("stored move {}: {e}", m.move_number)))?)
                }
                None => Move::Pass,
            };
            Ok((m.colour, mv))
        })
        .collect()
}

/// The `move` event of a legal move, from the validation's verdict (第三条 captures as SGF
/// points, the phase after it by [`convert::phase_name`], the ko point of 第五条, the
/// whole-board repetition of 第十一条).
pub fn move_event(v: &MoveCheck) -> Event {
    Event::Move(MovePlayed {
        captured: Some(v.captured.iter().map(|p| p.to_sgf()).collect()),
        phase: Some(convert::phase_name(v.phase).to_string()),
        ko: v.ko_point.map(|p| p.to_sgf()),
        repetition: v.repetition.as_ref().map(|rep| RepetitionRecord { first: rep.first, again: rep.again, cycles: rep.cycles }),
        ..Default::default()
    })
}

/// The `foul` event of a foul (第十二条): its move number, colour, point (none for a pass),
/// rule code, article and description.
pub fn foul_event(f: &goban::Foul) -> Event {
    Event::Foul {
        foul: FoulRecord {
            move_number: f.move_number,
            colour: Some(f.color),
            point: match f.mv {
                Move::Play(p) => Some(p.to_sgf()),
                Move::Pass => None,
            },
            rule: f.rule.code().to_string(),
            article: f.rule.article().to_string(),
            description: f.to_string(),
        },
    }
}

/// Whether an event ends play (for `WatchGame.until_end`): a resignation (第六条), the
/// `ended` event that closes an imported record, or a recorded move after which play has
/// ended (第九条2). An imported move with phase `ENDED` is not the last event: the import
/// closes the log with its own `ended` event, which the watcher must still receive.
pub fn ends_game(e: &storage::StoredEvent) -> bool {
    match e.event() {
        Event::Resign { .. } | Event::Ended { .. } => true,
        Event::Move(m) => m.imported != Some(true) && m.phase.as_deref() == Some("ENDED"),
        Event::Other { kind, .. } => kind == "resign" || kind == "ended",
        _ => false,
    }
}
