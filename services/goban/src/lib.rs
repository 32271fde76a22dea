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
//!
//! ## Example
//!
//! ```
//! use goban::{score, Board, Color, Game, Move, Point, RuleSet, StatusMap};
//!
//! let mut g = Game::new(Board::new(9, 9).unwrap(), RuleSet::Japanese2011, Color::Black);
//! g.play(Color::Black, Move::Play(Point::from_sgf("ee").unwrap())).unwrap();
//! // Out of turn: a foul (第十二条), reported and not applied.
//! let foul = g.play(Color::Black, Move::Play(Point::from_sgf("dd").unwrap())).unwrap_err();
//! assert_eq!(foul.to_string(), "move 2: black at dd: play out of turn (第二条)");
//! for c in [Color::White, Color::Black, Color::White, Color::Black] {
//!     g.play(c, Move::Pass).unwrap();
//! }
//! assert_eq!(g.phase(), goban::Phase::Ended); // four passes (第九条2)
//! let s = score(g.board(), &StatusMap::new(g.board()),
//!               [g.prisoners(Color::Black), g.prisoners(Color::White)],
//!               [g.passes(Color::Black), g.passes(Color::White)], 6.5, g.rules());
//! assert_eq!(s.result.to_sgf(), "B+73.5"); // 80 points of territory against komi
//! ```
//!
//! ## Speed
//!
//! `cargo bench -p goban --bench replay` replays the
//! 153 records of `../shared/games` (31 155 moves) with every move validated, ko and
//! repetition tracking on. Measured on the shared 2-core development machine: about
//! 10 million moves per second under `japanese-2011`, 6 million under `chinese`
//! (positional superko), and a 386-move 19x19 record in about 25 µs.

#![warn(missing_docs)]

pub mod board;
pub mod game;
pub mod handicap;
pub mod outcome;
pub mod point;
pub mod rules;
pub mod score;

pub use board::{Board, BoardError, Placed, PlayError, Preview};
pub use game::{handicap_points, Foul, FoulRule, Game, HandicapError, MoveOutcome, Phase, Repetition};
pub use point::{Color, Move, Point, PointParseError, MAX_SIZE, MIN_SIZE};
pub use rules::{KoRule, RuleSet, Scoring, UnknownRuleSet};
pub use score::{score, GameResult, Score, Status, StatusMap};
