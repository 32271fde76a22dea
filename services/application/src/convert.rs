//! The domain's side of the protocol's edge: the checks every request's values go through
//! (SGF points on a board, rule set names, board sides) and the start of a game. Every
//! malformed value becomes an [`AppError::InvalidArgument`] naming its field. The protocol's
//! messages themselves are converted in the `shinpan` crate (`shinpan::grpc::convert`); this
//! module knows nothing of them.
//!
//! Points cross the boundary as SGF coordinates (`"dd"`: column letter then row letter,
//! `"aa"` = top-left).

// `AppError` carries rich details; errors are the cold path, so returning it by value is fine.
#![allow(clippy::result_large_err)]

use crate::error::{AppError, FoulInfo};
use goban::{Board, Color, Game, Move, Point, RuleSet};

/// Largest board side (第一条 allows any size; the engine supports 2..=25).
pub const MAX_BOARD: u32 = goban::MAX_SIZE as u32;

/// Parses an SGF point on a `width × height` board. Errors name `field`.
pub fn point_from_sgf(field: &str, s: &str, width: u32, height: u32) -> Result<Point, AppError> {
    let p = Point::from_sgf(s).map_err(|e| {
        if s.len() <= crate::limits::EXCERPT_CHARS {
            AppError::field(field, e.to_string())
        } else {
            AppError::field(field, format!("`{}` is not an SGF point (two letters, e.g. `dd`)", crate::limits::excerpt(s)))
        }
    })?;
    on_board(field, p, width, height)
}

/// `p` when it is on a `width × height` board (第一条: the board's intersections). Errors:
/// `INVALID_ARGUMENT` on `field`, "point `dd` is off the 9x9 board".
pub fn on_board(field: &str, p: Point, width: u32, height: u32) -> Result<Point, AppError> {
    if u32::from(p.x) >= width || u32::from(p.y) >= height {
        return Err(AppError::field(field, format!("point `{}` is off the {width}x{height} board", crate::limits::excerpt(&p.to_sgf()))));
    }
    Ok(p)
}

/// Parses a list of SGF points (`field[i]` in errors).
pub fn points_from_sgf(field: &str, v: &[String], width: u32, height: u32) -> Result<Vec<Point>, AppError> {
    v.iter().enumerate().map(|(i, s)| point_from_sgf(&format!("{field}[{i}]"), s, width, height)).collect()
}

/// `"B dd"` / `"W pass"`.
pub fn move_text(color: Color, mv: Move) -> String {
    match mv {
        Move::Play(p) => format!("{} {}", color.letter(), p.to_sgf()),
        Move::Pass => format!("{} pass", color.letter()),
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

/// The name of a phase as the event log's JSON payloads write it (`"PLAYING"`,
/// `"STOPPED"`, `"ENDED"`: the protocol's `Phase` value without its `PHASE_` prefix): play
/// stops after two passes and ends after the passes of 第九条.
pub fn phase_name(p: goban::Phase) -> &'static str {
    match p {
        goban::Phase::Playing => "PLAYING",
        goban::Phase::Stopped => "STOPPED",
        goban::Phase::Ended => "ENDED",
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
