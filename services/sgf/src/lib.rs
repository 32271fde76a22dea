//! # shinpan-sgf — SGF game records
//!
//! Reads SGF FF\[4\] and FF\[3\] records (with the `sgf-parse` crate behind a grammar check
//! that says *where* a file is broken), holds the main line as a [`Record`], replays it into
//! a [`goban::Game`] ([`Record::to_game`]) and writes records back out
//! ([`Record::to_sgf`]). Points are SGF coordinates at every boundary (`aa` = top-left).
//!
//! Malformed input gives an [`SgfError`] naming what is wrong and where; nothing panics.

#![warn(missing_docs)]

mod error;
mod record;
mod replay;
pub mod scan;
mod write;

pub use error::{Location, SgfError};

/// Largest SGF record read, in bytes of text (1 MiB; the largest record of the shared corpus,
/// with commentary, is far below it). Larger: [`SgfError::TooLarge`].
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// Most nodes (`;`) in the first game tree of a record, variations included (a 19x19 game has
/// a few hundred). More: [`SgfError::TooLarge`].
pub const MAX_NODES: usize = 100_000;

/// Deepest nesting of game trees (`(` inside `(`: variations of variations). Deeper:
/// [`SgfError::TooLarge`].
pub const MAX_DEPTH: usize = 1_000;
pub use record::{GameInfo, LaterSetup, Record, RecordMove, Setup, TerritoryMarks};
pub use replay::Replayed;
