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
pub use record::{GameInfo, LaterSetup, Record, RecordMove, Setup, TerritoryMarks};
pub use replay::Replayed;
