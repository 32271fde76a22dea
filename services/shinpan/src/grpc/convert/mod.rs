//! The protocol's edge: the `shinpan.v1` messages decoded into the use cases' commands and
//! their answers encoded back, for the gRPC handlers ([`crate::grpc`]) and the console.
//!
//! Decoding validates: every malformed field becomes an [`AppError::InvalidArgument`] naming
//! the field (`"game.moves[3].point"`), with the same codes, messages and details as the use
//! cases' own checks. Points cross the boundary as SGF coordinates (`"dd"`: column letter
//! then row letter, `"aa"` = top-left).
//!
//! The checks of a request's values that the use cases make themselves (SGF points on a
//! board, rule set names, board sides, the start of a game:
//! [`shinpan_application::convert`]) are defined there and re-exported here, so that the
//! transports name one module.

pub use shinpan_application::convert::*;

use crate::app::adjudication::{Adjudicate, Adjudicated, Agreement, Progress, Proposed, Source, Subject};
use crate::app::arbitration::{ListCases, OpenCase, RuleCase, Ruling, SetCaseState, TournamentPolicy};
use crate::app::games::uuid_field;
use crate::app::lifecycle::{Ending, FoulRef, ResultStage, RulingKind};
use crate::app::limits::{self, MAX_NAME_BYTES, MAX_TEXT_BYTES};
use crate::app::results::{ConfirmResult, CorrectResult, Export, ExportResults, Objection, ProposeResult, ResultView};
use crate::app::validation::{self, MoveCheck, MoveContext, Position, RecordCheck, ValidateMove, ValidateRecord};
use crate::error::AppError;
use goban::{Color, Move, Point, RuleSet, Score, StatusMap};
use serde_json::{json, Value};
use shinpan_proto::v1 as pb;
use shinpan_storage as storage;

mod adjudication;
mod cases;
mod recording;
mod results;
mod validate;

pub use adjudication::*;
pub use cases::*;
pub use recording::*;
pub use results::*;
pub use validate::*;

/// Colour from its protobuf value. `COLOR_UNSPECIFIED` or an unknown number is an error
/// on `field`.
pub fn color_from_pb(field: &str, c: i32) -> Result<Color, AppError> {
    match pb::Color::try_from(c) {
        Ok(pb::Color::Black) => Ok(Color::Black),
        Ok(pb::Color::White) => Ok(Color::White),
        _ => Err(AppError::field(field, "colour must be BLACK or WHITE")),
    }
}

/// Protobuf value of a colour.
pub fn color_to_pb(c: Color) -> i32 {
    match c {
        Color::Black => pb::Color::Black as i32,
        Color::White => pb::Color::White as i32,
    }
}

/// A protobuf move as (colour, move). A point off the board is INVALID_ARGUMENT (not a foul:
/// it cannot be played at all). Errors name `field` (`"move"`, `"moves[3]"`).
pub fn move_from_pb(field: &str, m: Option<&pb::Move>, width: u32, height: u32) -> Result<(Color, Move), AppError> {
    let m = m.ok_or_else(|| AppError::field(field, "a move is required"))?;
    let color = color_from_pb(&format!("{field}.color"), m.color)?;
    let mv = match &m.action {
        Some(pb::r#move::Action::Point(s)) => Move::Play(point_from_sgf(&format!("{field}.point"), s, width, height)?),
        Some(pb::r#move::Action::Pass(true)) => Move::Pass,
        _ => return Err(AppError::field(field, "a move is a point (SGF coordinates) or pass = true")),
    };
    Ok((color, mv))
}

/// Protobuf form of a move.
pub fn move_to_pb(color: Color, mv: Move) -> pb::Move {
    pb::Move {
        color: color_to_pb(color),
        action: Some(match mv {
            Move::Play(p) => pb::r#move::Action::Point(p.to_sgf()),
            Move::Pass => pb::r#move::Action::Pass(true),
        }),
    }
}

/// Moves in protobuf form.
pub fn moves_to_pb(moves: &[(Color, Move)]) -> Vec<pb::Move> {
    moves.iter().map(|&(c, m)| move_to_pb(c, m)).collect()
}

/// Protobuf form of a foul (第十二条).
pub fn foul_to_pb(f: &goban::Foul) -> pb::Foul {
    pb::Foul {
        move_number: f.move_number,
        r#move: Some(move_to_pb(f.color, f.mv)),
        rule: f.rule.code().to_string(),
        article: f.rule.article().to_string(),
        description: f.to_string(),
    }
}

/// Protobuf form of a move's verdict ([`MoveCheck`]): points in SGF coordinates, the foul
/// with its rule and article (第十二条).
pub fn move_check_to_pb(v: MoveCheck) -> pb::ValidateMoveResponse {
    pb::ValidateMoveResponse {
        legal: v.legal(),
        move_number: v.move_number,
        captured: v.captured.iter().map(|p| p.to_sgf()).collect(),
        ko_point: v.ko_point.map(|p| p.to_sgf()),
        foul: v.foul.as_ref().map(foul_to_pb),
        repetition: v.repetition.as_ref().map(repetition_to_pb),
        phase: phase_to_pb(v.phase),
    }
}

/// Protobuf form of a whole-board repetition (第十一条).
pub fn repetition_to_pb(r: &goban::Repetition) -> pb::Repetition {
    pb::Repetition {
        first: r.first,
        again: r.again,
        sequence: r.sequence.iter().map(|&(c, m)| move_to_pb(c, m)).collect(),
        cycles: r.cycles,
    }
}

/// Protobuf value of a phase.
pub fn phase_to_pb(p: goban::Phase) -> i32 {
    match p {
        goban::Phase::Playing => pb::Phase::Playing as i32,
        goban::Phase::Stopped => pb::Phase::Stopped as i32,
        goban::Phase::Ended => pb::Phase::Ended as i32,
    }
}

/// The protobuf [`pb::GameState`] of a start and its moves.
pub fn game_state(start: &GameStart, moves: Vec<pb::Move>) -> pb::GameState {
    pb::GameState {
        rule_set: start.rules.name().to_string(),
        board_size: start.size,
        handicap: start.handicap,
        setup_black: start.setup_black.iter().map(|p| p.to_sgf()).collect(),
        setup_white: start.setup_white.iter().map(|p| p.to_sgf()).collect(),
        first_to_move: start.first_to_move.map(color_to_pb).unwrap_or(0),
        moves,
    }
}

/// Converts a `chrono` time to a protobuf timestamp.
pub fn timestamp(t: chrono::DateTime<chrono::Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp { seconds: t.timestamp(), nanos: t.timestamp_subsec_nanos() as i32 }
}

/// Converts a protobuf timestamp to `chrono` (None when out of range).
pub fn from_timestamp(t: &prost_types::Timestamp) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::from_timestamp(t.seconds, t.nanos.max(0) as u32)
}

/// An optional colour on the wire: `COLOR_UNSPECIFIED` (0) for `None`.
pub fn opt_color_to_pb(c: Option<Color>) -> i32 {
    c.map_or(pb::Color::Unspecified as i32, color_to_pb)
}

/// Reads a [`pb::GameState`]'s start (everything but the moves).
pub fn game_start(s: &pb::GameState) -> Result<GameStart, AppError> {
    let rules = rule_set("game.rule_set", &s.rule_set)?;
    let size = board_size("game.board_size", s.board_size)?;
    let first_to_move = match s.first_to_move {
        0 => None,
        c => Some(color_from_pb("game.first_to_move", c)?),
    };
    Ok(GameStart {
        rules,
        size,
        handicap: s.handicap,
        setup_black: points_from_sgf("game.setup_black", &s.setup_black, size, size)?,
        setup_white: points_from_sgf("game.setup_white", &s.setup_white, size, size)?,
        first_to_move,
    })
}

/// A stone's status (第七条) as the wire enum `shinpan.v1.Status`.
pub fn status_to_pb(s: goban::Status) -> i32 {
    (match s {
        goban::Status::Alive => pb::ChainStatus::Alive,
        goban::Status::Dead => pb::ChainStatus::Dead,
        goban::Status::Seki => pb::ChainStatus::Seki,
        goban::Status::Undecided => pb::ChainStatus::Undecided,
    }) as i32
}

/// The wire enum `shinpan.v1.Status` as a stone's status; `None` for
/// `STATUS_UNSPECIFIED` or an unknown value (the caller names the field in its error).
pub fn status_from_pb(s: i32) -> Option<goban::Status> {
    match pb::ChainStatus::try_from(s) {
        Ok(pb::ChainStatus::Alive) => Some(goban::Status::Alive),
        Ok(pb::ChainStatus::Dead) => Some(goban::Status::Dead),
        Ok(pb::ChainStatus::Seki) => Some(goban::Status::Seki),
        Ok(pb::ChainStatus::Undecided) => Some(goban::Status::Undecided),
        _ => None,
    }
}

/// The moves of a game history on a `size × size` board as (colour, move); errors name
/// `field[i]` (`"game.moves[2].point"`).
///
/// # Errors
/// `INVALID_ARGUMENT`: a missing or unknown colour, a move neither a point nor a pass, a
/// point that is not SGF or off the board.
pub fn moves_from_pb(field: &str, moves: &[pb::Move], size: u32) -> Result<Vec<(Color, Move)>, AppError> {
    moves.iter().enumerate().map(|(i, m)| move_from_pb(&format!("{field}[{i}]"), Some(m), size, size)).collect()
}

/// A bare `Position` with its fields named `{prefix}.width`, `{prefix}.black[i]`, ...; its
/// height is `height` (the transport's default applied: `position.height`, or for an
/// adjudication the width when 0). Points are checked against the board.
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field: a board side outside 2..=25 (0 = 19), a point that is
/// not SGF or off the board, a colour to move that is not BLACK or WHITE.
pub fn position_from_pb(prefix: &str, pos: &pb::Position, height: u32) -> Result<Position, AppError> {
    let width = board_size(&format!("{prefix}.width"), pos.width)?;
    let height = board_size(&format!("{prefix}.height"), height)?;
    let black = points_from_sgf(&format!("{prefix}.black"), &pos.black, width, height)?;
    let white = points_from_sgf(&format!("{prefix}.white"), &pos.white, width, height)?;
    let to_move = color_from_pb(&format!("{prefix}.to_move"), pos.to_move)?;
    let ko_point = match &pos.ko_point {
        Some(k) if !k.is_empty() => Some(point_from_sgf(&format!("{prefix}.ko_point"), k, width, height)?),
        _ => None,
    };
    Ok(Position { width, height, black, white, to_move, ko_point })
}
