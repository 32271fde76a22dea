//! Errors reading an SGF record.

use std::fmt;

/// Where in the main line of a record something was found: `node` counts nodes from the
/// root (node 0), `moves` is the number of moves (passes included) that precede that node.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// 0-based node index along the main line (0 = root node).
    pub node: usize,
    /// Moves (B/W properties, passes included) played before this node.
    pub moves: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.node == 0 {
            f.write_str("root node")
        } else {
            write!(f, "node {} (after move {})", self.node, self.moves)
        }
    }
}

/// Why an SGF record could not be read. Every variant names what is wrong and where;
/// reading never panics.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SgfError {
    /// The file could not be read from disk.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// The text breaks the SGF grammar (`(;PROP[value]...)`) at the given 1-based line and
    /// column (columns count characters).
    #[error("SGF syntax error at line {line}, column {column}: {what}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        column: usize,
        /// What was expected or found.
        what: String,
    },
    /// The text holds no game tree at all (no `(` starting a collection).
    #[error("no SGF game tree found (an SGF record starts with `(;`)")]
    NoGameTree,
    /// A game tree without a root node: `(` not followed by `;`.
    #[error("game tree at line {line}, column {column} has no root node (`(` must be followed by `;`)")]
    MissingRoot {
        /// 1-based line of the `(`.
        line: usize,
        /// 1-based column of the `(`.
        column: usize,
    },
    /// The root says the record is not a game of Go (`GM` other than 1).
    #[error("not a game of Go: GM[{0}] (only GM[1] is read)")]
    NotGo(String),
    /// `SZ` outside 2..=25 on a side (第一条; SGF letters reach 25 comfortably) or not a number.
    #[error("SZ[{value}]: unsupported board size (each side must be 2..=25)")]
    BadSize {
        /// The raw value.
        value: String,
    },
    /// A property the replay needs has a value that cannot be read.
    #[error("{prop}[{value}] in {at}: {why}")]
    BadProperty {
        /// Where.
        at: Location,
        /// Property identifier (`KM`, `B`, `AB`...).
        prop: String,
        /// The raw value(s), joined by `][`.
        value: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A point (move, setup stone or mark) outside the `width × height` board.
    #[error("{prop}[{point}] in {at}: point is off the {width}x{height} board")]
    OffBoard {
        /// Where.
        at: Location,
        /// Property identifier.
        prop: String,
        /// The point as written (SGF letters).
        point: String,
        /// Board columns.
        width: u8,
        /// Board rows.
        height: u8,
    },
    /// Something valid in SGF that a game record for refereeing cannot hold: two moves in one
    /// node, setup stones or `PL` after the first move.
    #[error("{what} in {at}")]
    Unsupported {
        /// Where.
        at: Location,
        /// What.
        what: String,
    },
    /// `HA[n]` without `AB` stones on a board where no fixed placement exists (第二条3).
    #[error("HA[{handicap}] cannot be placed on a {width}x{height} board: {message}")]
    Handicap {
        /// Requested handicap stones.
        handicap: u8,
        /// Board columns.
        width: u8,
        /// Board rows.
        height: u8,
        /// The engine's explanation.
        message: String,
    },
    /// The record exceeds one of the reader's limits ([`crate::MAX_RECORD_BYTES`],
    /// [`crate::MAX_NODES`], [`crate::MAX_DEPTH`]); checked by the grammar scan before the
    /// record is parsed, so that a hostile record costs at most one pass over its text.
    #[error("SGF record too large: {what} exceeds the limit of {limit}")]
    TooLarge {
        /// What was counted: `"bytes"`, `"nodes"` or `"nesting depth of game trees"`.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
    /// The parser crate rejected text that passed the syntax check (should not happen).
    #[error("SGF parser error: {0}")]
    Parser(String),
}
