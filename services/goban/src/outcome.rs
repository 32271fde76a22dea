//! What a move did: its [`MoveOutcome`] (captures, ko, repetition, phase), or the [`Foul`]
//! that kept it off the board (第十二条) and the [`FoulRule`] it broke; a whole-board
//! [`Repetition`] (第十一条).

use crate::point::{Color, Move, Point};
use std::fmt;

/// Which rule an illegal move breaks. Every foul loses the game under 第十二条 (反則負け)
/// unless the rule set says otherwise ([`RuleSet::fouls_lose`](crate::RuleSet::fouls_lose)).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FoulRule {
    /// The point is not on the board (第二条: stones are played on the intersections).
    OffBoard,
    /// The point already holds a stone (第二条).
    Occupied,
    /// Suicide: the stone would be taken at once without taking anything (第四条 禁着).
    Suicide,
    /// Immediate recapture of a ko (第五条).
    Ko,
    /// The move recreates an earlier arrangement of the stones (positional superko,
    /// `chinese`: 全局同形再現の禁止).
    Superko,
    /// The player moved out of turn (第二条: the players move alternately).
    OutOfTurn,
    /// A move after the end of the game (第九条).
    AfterEnd,
}

impl FoulRule {
    /// Every foul rule.
    pub const ALL: [FoulRule; 7] = [
        FoulRule::OffBoard,
        FoulRule::Occupied,
        FoulRule::Suicide,
        FoulRule::Ko,
        FoulRule::Superko,
        FoulRule::OutOfTurn,
        FoulRule::AfterEnd,
    ];

    /// Short machine name: `"off-board"`, `"occupied"`, `"suicide"`, `"ko"`, `"superko"`,
    /// `"out-of-turn"`, `"after-end"`.
    pub const fn code(self) -> &'static str {
        match self {
            FoulRule::OffBoard => "off-board",
            FoulRule::Occupied => "occupied",
            FoulRule::Suicide => "suicide",
            FoulRule::Ko => "ko",
            FoulRule::Superko => "superko",
            FoulRule::OutOfTurn => "out-of-turn",
            FoulRule::AfterEnd => "after-end",
        }
    }

    /// Parses [`FoulRule::code`].
    pub fn from_code(s: &str) -> Option<FoulRule> {
        FoulRule::ALL.into_iter().find(|r| r.code() == s)
    }

    /// The article broken: `"第二条"` (off the board, occupied, out of turn), `"第四条"`
    /// (suicide), `"第五条"` (ko), `"第九条"` (after the end), `"全局同形禁止"` (superko,
    /// the Chinese rules' ban on recreating a whole-board position; no article of the
    /// Japanese rules). The loss itself is 第十二条.
    pub const fn article(self) -> &'static str {
        match self {
            FoulRule::OffBoard | FoulRule::Occupied | FoulRule::OutOfTurn => "第二条",
            FoulRule::Suicide => "第四条",
            FoulRule::Ko => "第五条",
            FoulRule::Superko => "全局同形禁止",
            FoulRule::AfterEnd => "第九条",
        }
    }

    /// One-line English description, e.g. `"ko recapture forbidden"`.
    pub const fn description(self) -> &'static str {
        match self {
            FoulRule::OffBoard => "point is off the board",
            FoulRule::Occupied => "point is already occupied",
            FoulRule::Suicide => "suicide is forbidden",
            FoulRule::Ko => "ko recapture forbidden",
            FoulRule::Superko => "recreates an earlier whole-board position (superko)",
            FoulRule::OutOfTurn => "play out of turn",
            FoulRule::AfterEnd => "play after the end of the game",
        }
    }
}

impl fmt::Display for FoulRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.description(), self.article())
    }
}

/// An illegal move (第十二条), which was not applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Foul {
    /// The number the move would have had (1-based; [`Game::move_number`](crate::Game::move_number) + 1).
    pub move_number: u32,
    /// Who played it.
    pub color: Color,
    /// The move (its point in SGF coordinates when displayed).
    pub mv: Move,
    /// The rule broken.
    pub rule: FoulRule,
}

impl fmt::Display for Foul {
    /// `"move 123: white at dd: ko recapture forbidden (第五条)"`; a pass reads
    /// `"move 9: black pass: …"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mv {
            Move::Play(p) => write!(f, "move {}: {} at {}: {}", self.move_number, self.color, p, self.rule),
            Move::Pass => write!(f, "move {}: {} pass: {}", self.move_number, self.color, self.rule),
        }
    }
}
impl std::error::Error for Foul {}

/// A whole-board repetition (第十一条): the position (stones and player to move) after
/// move `again` is the one after move `first` (move 0 = the starting position).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repetition {
    /// The earlier (latest earlier) move number after which the position occurred.
    pub first: u32,
    /// The move number after which it occurred again.
    pub again: u32,
    /// The moves `first+1 ..= again` that lead from the one to the other: the cycle.
    pub sequence: Vec<(Color, Move)>,
    /// How many times this same cycle (same moves, same length) has now been played in a
    /// row, ≥ 1: the moves `again − cycles·L + 1 ..= again` (`L = again − first`) are the
    /// cycle repeated `cycles` times. 第十一条 解説: a sequence that has cycled twice or
    /// more (`cycles >= 2`) can be 無勝負.
    pub cycles: u32,
}

impl Repetition {
    /// Length of the cycle in moves (`again − first`).
    pub fn period(&self) -> u32 {
        self.again - self.first
    }
}

/// What a legal move did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveOutcome {
    /// The move's number (1-based).
    pub move_number: u32,
    /// Stones removed: the opponent's captured stones (第三条), then — only where suicide
    /// is allowed — the player's own suicided stones.
    pub captured: Vec<Point>,
    /// Point where the opponent may not retake on the next turn (第五条), if the move
    /// took a ko.
    pub ko: Option<Point>,
    /// The whole-board repetition this move created, if any.
    pub repetition: Option<Repetition>,
    /// Phase after the move.
    pub phase: Phase,
}

/// Where the game stands with respect to its end (第九条).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Moves are being played.
    Playing,
    /// Play has stopped for agreement on life and death (第九条: three consecutive passes
    /// in `japanese-2011`; two in `japanese-1989` and `chinese`). If the players disagree,
    /// play resumes ([`Game::resume`](crate::Game::resume)); a move in a record after the stop resumes it
    /// implicitly.
    Stopped,
    /// The game is over (four consecutive passes in `japanese-2011`, 第九条2; agreement,
    /// [`Game::agree`](crate::Game::agree); resignation, 第六条; two passes in the 純碁 rule sets). Any further
    /// move is the foul [`FoulRule::AfterEnd`].
    Ended,
}

impl Phase {
    /// `"playing"`, `"stopped"` or `"ended"`.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Playing => "playing",
            Phase::Stopped => "stopped",
            Phase::Ended => "ended",
        }
    }
}
