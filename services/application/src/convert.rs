//! Conversions between the `shinpan.v1` messages and the rules engine's types, with
//! request validation: every malformed field becomes an [`AppError::InvalidArgument`]
//! naming the field.
//!
//! Points cross the boundary as SGF coordinates (`"dd"`: column letter then row letter,
//! `"aa"` = top-left).

// `AppError` carries rich details; errors are the cold path, so returning it by value is fine.
#![allow(clippy::result_large_err)]

use crate::error::{AppError, FoulInfo};
use goban::{Board, Color, Game, Move, Point, RuleSet};
use shinpan_proto::v1 as pb;

/// Largest board side (第一条 allows any size; the engine supports 2..=25).
pub const MAX_BOARD: u32 = goban::MAX_SIZE as u32;

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

/// Parses an SGF point on a `width × height` board. Errors name `field`.
pub fn point_from_sgf(field: &str, s: &str, width: u32, height: u32) -> Result<Point, AppError> {
    let p = Point::from_sgf(s).map_err(|e| {
        if s.len() <= crate::limits::EXCERPT_CHARS {
            AppError::field(field, e.to_string())
        } else {
            AppError::field(field, format!("`{}` is not an SGF point (two letters, e.g. `dd`)", crate::limits::excerpt(s)))
        }
    })?;
    if u32::from(p.x) >= width || u32::from(p.y) >= height {
        return Err(AppError::field(field, format!("point `{}` is off the {width}x{height} board", crate::limits::excerpt(s))));
    }
    Ok(p)
}

/// Parses a list of SGF points (`field[i]` in errors).
pub fn points_from_sgf(field: &str, v: &[String], width: u32, height: u32) -> Result<Vec<Point>, AppError> {
    v.iter().enumerate().map(|(i, s)| point_from_sgf(&format!("{field}[{i}]"), s, width, height)).collect()
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

/// `"B dd"` / `"W pass"`.
pub fn move_text(color: Color, mv: Move) -> String {
    match mv {
        Move::Play(p) => format!("{} {}", color.letter(), p.to_sgf()),
        Move::Pass => format!("{} pass", color.letter()),
    }
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

/// A foul as error details (for [`AppError::Foul`]).
pub fn foul_info(f: &goban::Foul) -> FoulInfo {
    FoulInfo {
        move_number: f.move_number,
        color: f.color.name().to_string(),
        point: match f.mv {
            Move::Play(p) => p.to_sgf(),
            Move::Pass => "pass".to_string(),
        },
        rule: f.rule.code().to_string(),
        article: f.rule.article().to_string(),
        description: f.to_string(),
    }
}

/// Protobuf form of a move's verdict ([`crate::validation::MoveCheck`]): points in SGF
/// coordinates, the foul with its rule and article (第十二条).
pub fn move_check_to_pb(v: crate::validation::MoveCheck) -> pb::ValidateMoveResponse {
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

/// Protobuf form of a whole-board repetition.
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

/// Rule set by name; empty = `japanese-2011`. Unknown names are an error on `field`.
pub fn rule_set(field: &str, name: &str) -> Result<RuleSet, AppError> {
    if name.trim().is_empty() {
        return Ok(RuleSet::Japanese2011);
    }
    RuleSet::from_name(name.trim()).ok_or_else(|| {
        AppError::field(
            field,
            format!(
                "unknown rule set `{}`; known: {}",
                crate::limits::excerpt(name),
                RuleSet::ALL.iter().map(|r| r.name()).collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

/// Board side from a request: 0 = 19; otherwise 2..=25.
pub fn board_size(field: &str, size: u32) -> Result<u32, AppError> {
    match size {
        0 => Ok(19),
        2..=MAX_BOARD => Ok(size),
        _ => Err(AppError::field(field, format!("board size must be 2..={MAX_BOARD} (0 = 19)"))),
    }
}

/// The start of a game: rule set, size, handicap, setup stones, first player.
#[derive(Clone, Debug, PartialEq)]
pub struct GameStart {
    /// Rule set.
    pub rules: RuleSet,
    /// Board side (square boards).
    pub size: u32,
    /// Fixed handicap stones (used only when there are no setup stones).
    pub handicap: u32,
    /// Setup stones (SGF AB).
    pub setup_black: Vec<Point>,
    /// Setup stones (SGF AW).
    pub setup_white: Vec<Point>,
    /// Who moves first; `None` = Black, or White after handicap or black setup stones (第二条).
    pub first_to_move: Option<Color>,
}

impl GameStart {
    /// The game before its first move.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for an impossible handicap or overlapping setup stones.
    pub fn game(&self) -> Result<Game, AppError> {
        if self.setup_black.is_empty() && self.setup_white.is_empty() && self.handicap >= 2 {
            let h = u8::try_from(self.handicap).map_err(|_| AppError::field("handicap", "too many handicap stones"))?;
            let mut g = Game::with_handicap(self.size as u8, self.size as u8, self.rules, h)
                .map_err(|e| AppError::field("handicap", e.to_string()))?;
            if let Some(c) = self.first_to_move {
                g.set_to_move(c);
            }
            return Ok(g);
        }
        let mut board = Board::new(self.size, self.size).map_err(|e| AppError::field("board_size", e.to_string()))?;
        for (field, color, stones) in [("setup_black", Color::Black, &self.setup_black), ("setup_white", Color::White, &self.setup_white)] {
            for (i, &p) in stones.iter().enumerate() {
                if board.get(p).is_some() {
                    return Err(AppError::field(format!("{field}[{i}]"), format!("two setup stones on {}", p.to_sgf())));
                }
                board.set(p, Some(color)).map_err(|e| AppError::field(format!("{field}[{i}]"), e.to_string()))?;
            }
        }
        let first = self.first_to_move.unwrap_or(if !self.setup_black.is_empty() && self.setup_white.is_empty() || self.handicap >= 2 {
            Color::White
        } else {
            Color::Black
        });
        Ok(Game::new(board, self.rules, first))
    }
}

/// Replays `moves` from `start`. A foul in the history is [`AppError::Foul`] (a history must
/// be legal); malformed moves are INVALID_ARGUMENT on `moves[i]`.
pub fn replay(start: &GameStart, moves: &[pb::Move]) -> Result<Game, AppError> {
    let mut game = start.game()?;
    for (i, m) in moves.iter().enumerate() {
        let (c, mv) = move_from_pb(&format!("game.moves[{i}]"), Some(m), start.size, start.size)?;
        game.play(c, mv).map_err(|f| AppError::Foul(foul_info(&f)))?;
    }
    Ok(game)
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
