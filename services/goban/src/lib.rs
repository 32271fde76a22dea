//! # goban — the shinpan rules engine
//!
//! A pure implementation of the rules of Go as written in the 2011 draft revision of the
//! Japanese rules (日本囲碁規約「修正案」, `../shared/rules/kiyaku-2011-draft-commentary.txt`)
//! and the rule sets that differ from it only in parameters (`japanese-1989`, `chinese`,
//! `jungo`, `japanese-jungo`).
//!
//! No I/O, no async, no dependency on the rest of the workspace.
//!
//! * [`Point`], [`Color`], [`Move`]: the small value types. Points are `(x, y)` with
//!   `x` the column and `y` the row, both 0-based from the top-left corner, exactly as
//!   SGF writes them (`aa` is the top-left corner).
//! * [`Board`]: stones on a `width × height` grid (2..=25 each, 第一条), with captures
//!   (第三条) and suicide detection (第四条).
//! * [`Game`] ([`game`]): turns, passes, resignation, handicap, prisoners, ko (第五条),
//!   fouls (第十二条), end of play (第九条), whole-board repetition (第十一条).
//! * [`RuleSet`] ([`rules`]): the named rule sets and their parameters.
//! * [`score()`] ([`score`](mod@score)): counting with given stone statuses (第八条, 第十条), the result.

pub mod board;
pub mod game;
pub mod point;
pub mod rules;
pub mod score;

pub use board::{Board, BoardError, PlayError, Placed, Preview};
pub use game::{handicap_points, Foul, FoulRule, Game, HandicapError, MoveOutcome, Phase, Repetition};
pub use point::{Color, Move, Point, PointParseError, MAX_SIZE, MIN_SIZE};
pub use rules::{KoRule, RuleSet, Scoring, UnknownRuleSet};
pub use score::{score, GameResult, Score, Status, StatusMap};
