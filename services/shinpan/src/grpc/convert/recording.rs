//! `GameRecordingService`'s messages to and from the recording use cases' commands and
//! answers ([`crate::app::recording`]), the events of a game's log in protobuf form, and the
//! stored form of `RecordMove`'s answers ([`StoredAnswers`]).
//!
//! Decoding leaves the checks of ids, names, rule sets, board sides and keys to the use cases
//! (the commands carry those values as sent), so that every malformed field is refused with
//! the same code, field and message, in the same order, as before the use cases took
//! commands. A move is decoded here (its colour, its point as SGF); its point is checked
//! against the game's board by the use case, once the game is read.

use super::{color_from_pb, color_to_pb, from_timestamp, move_from_pb, moves_to_pb, phase_to_pb, repetition_to_pb, timestamp};
use crate::app::recording::{
    AnswerCodec, CreateGame, GameView, ImportSgf, Imported, ListGames, Player, RecordMove, Recorded, Resign, WatchGame,
};
use crate::app::validation::MoveCheck;
use goban::{Color, FoulRule, Move, Phase, Point};
use prost::Message;
use serde_json::{json, Value};
use shinpan_proto::v1 as pb;
use shinpan_storage::event::MovePlayed;
use shinpan_storage::{self as storage, Event};

/// A player of a request (absent: all fields empty).
pub fn player_from_pb(p: Option<&pb::Player>) -> Player {
    p.map(|p| Player { name: p.name.clone(), rank: p.rank.clone(), federation_id: p.federation_id.clone() }).unwrap_or_default()
}

/// A stored player in protobuf form.
pub fn player_pb(p: &storage::Player) -> pb::Player {
    pb::Player {
        name: p.name.clone(),
        rank: p.rank.clone().unwrap_or_default(),
        federation_id: p.federation_id.clone().unwrap_or_default(),
    }
}

/// `CreateGame`'s command; its fingerprint is the request's encoding with the idempotency
/// key cleared (stored as SHA-256 with the key: it must not change).
pub fn create_game_from_pb(req: &pb::CreateGameRequest) -> CreateGame {
    let unkeyed = pb::CreateGameRequest { idempotency_key: String::new(), ..req.clone() };
    CreateGame {
        tournament: req.tournament.clone(),
        round: req.round,
        board_number: req.board_number,
        black: player_from_pb(req.black.as_ref()),
        white: player_from_pb(req.white.as_ref()),
        board_size: req.board_size,
        komi: req.komi,
        handicap: req.handicap,
        rule_set: req.rule_set.clone(),
        idempotency_key: req.idempotency_key.clone(),
        fingerprint: unkeyed.encode_to_vec(),
    }
}

/// `RecordMove`'s command: the move decoded (errors on `move`, `move.color`, `move.point`,
/// kept for the use case to report once the game is found), its client time when in range.
pub fn record_move_from_pb(req: pb::RecordMoveRequest) -> RecordMove {
    RecordMove {
        colour: req.r#move.as_ref().and_then(|m| color_from_pb("move.color", m.color).ok()),
        // the board is the game's: the use case checks the point against it
        mv: move_from_pb("move", req.r#move.as_ref(), u32::MAX, u32::MAX),
        client_time: req.client_time.as_ref().and_then(from_timestamp),
        game_id: req.game_id,
        move_number: req.move_number,
        idempotency_key: req.idempotency_key,
    }
}

/// `Resign`'s command (a colour neither BLACK nor WHITE: `None`, refused by the use case).
pub fn resign_from_pb(req: pb::ResignRequest) -> Resign {
    Resign { color: color_from_pb("color", req.color).ok(), game_id: req.game_id, idempotency_key: req.idempotency_key }
}

/// `ListGames`' command.
pub fn list_games_from_pb(req: pb::ListGamesRequest) -> ListGames {
    ListGames { tournament: req.tournament, round: req.round }
}

/// `WatchGame`'s command.
pub fn watch_game_from_pb(req: pb::WatchGameRequest) -> WatchGame {
    WatchGame { game_id: req.game_id, from_sequence: req.from_sequence, until_end: req.until_end }
}

/// `ImportSgf`'s command; its fingerprint is the request's encoding with the idempotency key
/// cleared (as [`create_game_from_pb`]).
pub fn import_sgf_from_pb(req: pb::ImportSgfRequest) -> ImportSgf {
    let fingerprint = pb::ImportSgfRequest { idempotency_key: String::new(), ..req.clone() }.encode_to_vec();
    ImportSgf {
        sgf: req.sgf,
        tournament: req.tournament,
        round: req.round,
        board_number: req.board_number,
        rule_set: req.rule_set,
        idempotency_key: req.idempotency_key,
        fingerprint,
    }
}

/// The protobuf game of a [`GameView`] (its moves only when the view has them).
pub fn game_to_pb(v: &GameView) -> pb::Game {
    let g = &v.game;
    pb::Game {
        id: g.id.to_string(),
        tournament: v.tournament.clone(),
        round: g.round.unwrap_or(0).max(0) as u32,
        board_number: g.table_number.unwrap_or(0).max(0) as u32,
        black: Some(player_pb(&g.black)),
        white: Some(player_pb(&g.white)),
        board_size: v.start.size,
        komi: g.komi,
        handicap: v.start.handicap,
        rule_set: g.rule_set.clone(),
        setup_black: v.start.setup_black.iter().map(|p| p.to_sgf()).collect(),
        setup_white: v.start.setup_white.iter().map(|p| p.to_sgf()).collect(),
        moves: moves_to_pb(&v.moves),
        move_number: v.move_number,
        to_move: color_to_pb(v.to_move),
        phase: phase_to_pb(v.phase),
        prisoners_black: v.prisoners_black,
        prisoners_white: v.prisoners_white,
        flagged: v.flagged,
        result: v.result.clone(),
        create_time: Some(timestamp(g.created_at)),
        last_sequence: g.last_event_seq.max(0) as u64,
    }
}

/// The `RecordMoveResponse` of a [`Recorded`] answer.
pub fn recorded_to_pb(r: &Recorded) -> pb::RecordMoveResponse {
    let v = super::move_check_to_pb(r.check.clone());
    pb::RecordMoveResponse {
        move_number: v.move_number,
        legal: v.legal,
        captured: v.captured,
        ko_point: v.ko_point,
        foul: v.foul,
        repetition: v.repetition,
        phase: v.phase,
        sequence: r.sequence,
        replayed: r.replayed,
    }
}

/// The `ImportSgfResponse` of an [`Imported`] answer.
pub fn imported_to_pb(r: &Imported) -> pb::ImportSgfResponse {
    pb::ImportSgfResponse {
        game: Some(game_to_pb(&r.game)),
        moves: r.moves,
        repetitions: r.repetitions.iter().map(repetition_to_pb).collect(),
        replayed: r.replayed,
    }
}

/// A stored event in protobuf form (typed fields for `move` and `foul` events).
pub fn event_to_pb(e: &storage::StoredEvent) -> pb::GameEvent {
    let mut out = pb::GameEvent {
        game_id: e.game_id.to_string(),
        sequence: e.seq.max(0) as u64,
        kind: e.kind.clone(),
        payload_json: e.payload.to_string(),
        record_time: Some(timestamp(e.created_at)),
        hash: hex::encode(&e.hash),
        prev_hash: hex::encode(&e.prev_hash),
        ..Default::default()
    };
    // An event without a colour (a foul whose player is unknown) is shown as Black.
    let colour_of = |c: Option<Color>| color_to_pb(c.unwrap_or(Color::Black));
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

/// A verdict on a move from its protobuf fields (a `ValidateMoveResponse`'s, or a stored
/// `RecordMoveResponse`'s); `None` when a field does not read back (a point that is not SGF,
/// an unknown foul rule, a phase unspecified).
pub fn move_check_from_pb(
    move_number: u32,
    captured: &[String],
    ko_point: Option<&str>,
    foul: Option<&pb::Foul>,
    repetition: Option<&pb::Repetition>,
    phase: i32,
) -> Option<MoveCheck> {
    let point = |s: &str| Point::from_sgf(s).ok();
    let mv = |m: &pb::Move| move_from_pb("move", Some(m), u32::MAX, u32::MAX).ok();
    let foul = match foul {
        None => None,
        Some(f) => {
            let (color, mv) = mv(f.r#move.as_ref()?)?;
            Some(goban::Foul { move_number: f.move_number, color, mv, rule: FoulRule::from_code(&f.rule)? })
        }
    };
    let repetition = match repetition {
        None => None,
        Some(r) => Some(goban::Repetition {
            first: r.first,
            again: r.again,
            sequence: r.sequence.iter().map(mv).collect::<Option<Vec<(Color, Move)>>>()?,
            cycles: r.cycles,
        }),
    };
    let phase = match pb::Phase::try_from(phase).ok()? {
        pb::Phase::Playing => Phase::Playing,
        pb::Phase::Stopped => Phase::Stopped,
        pb::Phase::Ended => Phase::Ended,
        pb::Phase::Unspecified => return None,
    };
    Some(MoveCheck {
        move_number,
        captured: captured.iter().map(|s| point(s)).collect::<Option<Vec<Point>>>()?,
        ko_point: match ko_point {
            Some(k) => Some(point(k)?),
            None => None,
        },
        repetition,
        foul,
        phase,
    })
}

/// The stored form of `RecordMove`'s answers (see [`crate::app::recording::AnswerCodec`]):
/// the `RecordMoveResponse`'s protobuf encoding, hex-encoded, under
/// `"record_move_response"` — `{"record_move_response": "0801…"}`. This is the form every
/// stored answer has; it must not change (the tests compare it byte for byte).
#[derive(Clone, Copy, Debug, Default)]
pub struct StoredAnswers;

impl AnswerCodec for StoredAnswers {
    fn encode(&self, answer: &Recorded) -> Value {
        json!({ "record_move_response": hex::encode(recorded_to_pb(answer).encode_to_vec()) })
    }

    fn decode(&self, stored: &Value) -> Option<Recorded> {
        let bytes = hex::decode(stored.get("record_move_response")?.as_str()?).ok()?;
        let r = pb::RecordMoveResponse::decode(bytes.as_slice()).ok()?;
        let check = move_check_from_pb(r.move_number, &r.captured, r.ko_point.as_deref(), r.foul.as_ref(), r.repetition.as_ref(), r.phase)?;
        Some(Recorded { check, sequence: r.sequence, replayed: r.replayed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Point {
        Point::from_sgf(s).unwrap()
    }

    /// A foul, a capture with a ko and a repetition: every field of the stored answer set.
    fn answers() -> Vec<Recorded> {
        let foul = MoveCheck {
            move_number: 7,
            captured: vec![],
            ko_point: None,
            repetition: None,
            foul: Some(goban::Foul { move_number: 7, color: Color::White, mv: Move::Play(p("dd")), rule: FoulRule::Ko }),
            phase: Phase::Playing,
        };
        let capture = MoveCheck {
            move_number: 12,
            captured: vec![p("cd"), p("ce")],
            ko_point: Some(p("cd")),
            repetition: Some(goban::Repetition {
                first: 4,
                again: 8,
                sequence: vec![(Color::Black, Move::Play(p("aa"))), (Color::White, Move::Pass)],
                cycles: 1,
            }),
            foul: None,
            phase: Phase::Stopped,
        };
        let pass = MoveCheck { move_number: 40, captured: vec![], ko_point: None, repetition: None, foul: None, phase: Phase::Ended };
        [foul, capture, pass].into_iter().map(|check| Recorded { check, sequence: 0, replayed: false }).collect()
    }

    /// The stored form is the protobuf `RecordMoveResponse` the service answers (sequence 0,
    /// not replayed), hex-encoded under `record_move_response`, byte for byte.
    #[test]
    fn stored_answers_are_the_record_move_response_encoding() {
        for a in answers() {
            let stored = StoredAnswers.encode(&a);
            let pb = pb::RecordMoveResponse {
                move_number: a.check.move_number,
                legal: a.check.legal(),
                captured: a.check.captured.iter().map(|p| p.to_sgf()).collect(),
                ko_point: a.check.ko_point.map(|p| p.to_sgf()),
                foul: a.check.foul.as_ref().map(super::super::foul_to_pb),
                repetition: a.check.repetition.as_ref().map(repetition_to_pb),
                phase: phase_to_pb(a.check.phase),
                sequence: 0,
                replayed: false,
            };
            assert_eq!(stored, json!({ "record_move_response": hex::encode(pb.encode_to_vec()) }));
            assert_eq!(StoredAnswers.decode(&stored), Some(a.clone()), "reads back");
        }
    }

    /// Answers stored before the use cases took domain types read back, and encode to the
    /// very same bytes.
    #[test]
    fn stored_answers_of_earlier_versions_read_back() {
        // as stored by the versions whose use cases answered the protocol's messages
        let stored = [
            "08072a52080712060802120264641a026b6f2209e7acace4ba94e69da12a376d6f766520373a2077686974652061742064643a206b6f2072656361707475726520666f7262696464656e2028e7acace4ba94e69da1293801",
            "080c10011a0263641a026365220263643214080410081a060801120261611a040802180120013802",
            "082810013803",
        ];
        for (a, hex) in answers().into_iter().zip(stored) {
            let stored = json!({ "record_move_response": hex });
            assert_eq!(StoredAnswers.decode(&stored), Some(a.clone()), "{hex} reads back");
            assert_eq!(StoredAnswers.encode(&a), stored, "{hex} is written again byte for byte");
        }
        assert_eq!(StoredAnswers.decode(&json!({ "record_move_response": "zz" })), None);
        assert_eq!(StoredAnswers.decode(&json!({})), None);
    }
}
