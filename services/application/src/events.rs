//! Stored games, moves and events in the rules engine's and the protocol's forms: the start
//! of a stored game, its moves, the typed events of its hash-chained log (`move`, `foul`,
//! `resign`, `ended`, ...) and the answer kept under an idempotency key.

use crate::convert::{self, GameStart};
use crate::error::AppError;
use goban::{Color, Move, RuleSet};
use serde_json::{json, Value};
use shinpan_proto::v1 as pb;
use shinpan_proto::ValueName;
use shinpan_storage::event::{FoulRecord, MovePlayed, RepetitionRecord};
use shinpan_storage::{self as storage, Event};

/// The stored colour (its SQL text `B`/`W`) of a colour of the rules engine: with
/// [`from_colour`], the one conversion between the two.
pub fn colour(c: Color) -> storage::Colour {
    match c {
        Color::Black => storage::Colour::Black,
        Color::White => storage::Colour::White,
    }
}

/// The colour of the rules engine of a stored colour ([`colour`]'s inverse).
pub fn from_colour(c: storage::Colour) -> Color {
    match c {
        storage::Colour::Black => Color::Black,
        storage::Colour::White => Color::White,
    }
}

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
            Ok((from_colour(m.colour), mv))
        })
        .collect()
}

/// Moves in protobuf form.
pub fn pb_moves(moves: &[(Color, Move)]) -> Vec<pb::Move> {
    moves.iter().map(|&(c, m)| convert::move_to_pb(c, m)).collect()
}

/// The `RecordMoveResponse` kept under an idempotency key: protobuf bytes, hex-encoded.
pub fn encode_response(r: &pb::RecordMoveResponse) -> Value {
    use prost::Message;
    json!({ "record_move_response": hex::encode(r.encode_to_vec()) })
}

/// The `RecordMoveResponse` kept by [`encode_response`], if `v` holds one.
pub fn decode_response(v: &Value) -> Option<pb::RecordMoveResponse> {
    use prost::Message;
    let bytes = hex::decode(v.get("record_move_response")?.as_str()?).ok()?;
    pb::RecordMoveResponse::decode(bytes.as_slice()).ok()
}

/// The `move` event of a legal move, from the validation's verdict (captures, phase, ko,
/// repetition).
pub fn move_event(r: &pb::ValidateMoveResponse) -> Event {
    Event::Move(MovePlayed {
        captured: Some(r.captured.clone()),
        phase: Some(pb::Phase::try_from(r.phase).map(|p| p.value_name()).unwrap_or("PLAYING").to_string()),
        ko: r.ko_point.clone(),
        repetition: r.repetition.as_ref().map(|rep| RepetitionRecord { first: rep.first, again: rep.again, cycles: rep.cycles }),
        ..Default::default()
    })
}

/// The `foul` event of a foul (第十二条).
pub fn foul_event(f: &pb::Foul) -> Event {
    let m = f.r#move.as_ref();
    Event::Foul {
        foul: FoulRecord {
            move_number: f.move_number,
            colour: m.map(|m| if m.color == pb::Color::White as i32 { storage::Colour::White } else { storage::Colour::Black }),
            point: m.and_then(|m| match &m.action {
                Some(pb::r#move::Action::Point(p)) => Some(p.clone()),
                _ => None,
            }),
            rule: f.rule.clone(),
            article: f.article.clone(),
            description: f.description.clone(),
        },
    }
}

/// A stored event in protobuf form (typed fields for `move` and `foul` events).
pub fn event_to_pb(e: &storage::StoredEvent) -> pb::GameEvent {
    let mut out = pb::GameEvent {
        game_id: e.game_id.to_string(),
        sequence: e.seq.max(0) as u64,
        kind: e.kind.clone(),
        payload_json: e.payload.to_string(),
        record_time: Some(convert::timestamp(e.created_at)),
        hash: hex::encode(&e.hash),
        prev_hash: hex::encode(&e.prev_hash),
        ..Default::default()
    };
    let colour_of = |c: Option<storage::Colour>| match c {
        Some(storage::Colour::White) => pb::Color::White as i32,
        _ => pb::Color::Black as i32,
    };
    let action_of = |p: &Option<String>| match p {
        Some(p) => pb::r#move::Action::Point(p.clone()),
        None => pb::r#move::Action::Pass(true),
    };
    match e.event() {
        Event::Move(MovePlayed { mv: Some(m), captured, .. }) => {
            out.move_number = m.number.max(0) as u32;
            out.r#move = Some(pb::Move { color: colour_of(Some(m.colour)), action: Some(action_of(&m.point)) });
            out.captured = captured.unwrap_or_default();
        }
        Event::Foul { foul: f } => {
            let mv = pb::Move { color: colour_of(f.colour), action: Some(action_of(&f.point)) };
            out.move_number = f.move_number;
            out.r#move = Some(mv.clone());
            out.foul = Some(pb::Foul {
                move_number: f.move_number,
                r#move: Some(mv),
                rule: f.rule,
                article: f.article,
                description: f.description,
            });
        }
        _ => {}
    }
    out
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

/// A stored player in protobuf form.
pub fn player_pb(p: &storage::Player) -> pb::Player {
    pb::Player {
        name: p.name.clone(),
        rank: p.rank.clone().unwrap_or_default(),
        federation_id: p.federation_id.clone().unwrap_or_default(),
    }
}
