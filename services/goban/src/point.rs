//! Small value types: [`Point`], [`Color`], [`Move`].

use std::fmt;

/// Smallest board side accepted (第一条 allows boards other than 19x19; 2 is the least
/// on which a move can be legal).
pub const MIN_SIZE: u8 = 2;
/// Largest board side accepted: 25, the largest side SGF's single-letter coordinates
/// (`a`..=`y`, skipping nothing) cover comfortably alongside `z` for FF\[3\] passes.
pub const MAX_SIZE: u8 = 25;

/// An intersection of the board: `x` is the column, `y` the row, both 0-based from the
/// top-left corner. At every external boundary a point is written in SGF coordinates:
/// two lower-case letters, column then row, `aa` = top-left (see [`Point::to_sgf`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// Column, 0-based from the left.
    pub x: u8,
    /// Row, 0-based from the top.
    pub y: u8,
}

/// Error for text that is not an SGF point (`"aa"`..`"yy"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointParseError(pub String);

impl fmt::Display for PointParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not an SGF point (two letters a..y, column then row)", self.0)
    }
}
impl std::error::Error for PointParseError {}

impl Point {
    /// The point at column `x`, row `y` (0-based, top-left origin).
    pub const fn new(x: u8, y: u8) -> Point {
        Point { x, y }
    }

    /// SGF coordinates: column letter then row letter, `aa` = top-left. Coordinates 0..=25
    /// are `a`..`z`, 26..=51 are `A`..`Z` (FF\[4\]'s convention for large boards); larger
    /// ones (never on a board, but a `Point` can hold them) print as `?` rather than panic.
    pub fn to_sgf(self) -> String {
        let letter = |v: u8| match v {
            0..=25 => (b'a' + v) as char,
            26..=51 => (b'A' + (v - 26)) as char,
            _ => '?',
        };
        let mut s = String::with_capacity(2);
        s.push(letter(self.x));
        s.push(letter(self.y));
        s
    }

    /// Parses SGF coordinates (`"dd"`). Accepts `a`..`y` in each position (board sides up
    /// to [`MAX_SIZE`]); whether the point lies on a given board is the board's check.
    ///
    /// # Errors
    /// [`PointParseError`] if the text is not exactly two letters in `a..=y`.
    pub fn from_sgf(s: &str) -> Result<Point, PointParseError> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(PointParseError(s.to_string()));
        }
        let c = |ch: u8| -> Option<u8> {
            if ch.is_ascii_lowercase() && ch - b'a' < MAX_SIZE {
                Some(ch - b'a')
            } else {
                None
            }
        };
        match (c(b[0]), c(b[1])) {
            (Some(x), Some(y)) => Ok(Point { x, y }),
            _ => Err(PointParseError(s.to_string())),
        }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_sgf())
    }
}

/// The colour of a player or stone (第二条: one player holds Black, the other White).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// 黒, moves first in an even game (第二条3).
    Black,
    /// 白, moves first after handicap stones (第二条3).
    White,
}

impl Color {
    /// The other colour.
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
    /// `'B'` or `'W'`, as in SGF properties.
    pub const fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }
    /// `"black"` or `"white"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
    /// Index 0 for Black, 1 for White (for per-colour arrays).
    #[inline]
    pub const fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A turn: a stone played on a point, or a pass (着手放棄, 第二条2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A stone placed on the point.
    Play(Point),
    /// 着手放棄 (第二条2).
    Pass,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Play(p) => write!(f, "{p}"),
            Move::Pass => f.write_str("pass"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgf_points_round_trip_and_never_panic() {
        for x in 0..MAX_SIZE {
            for y in 0..MAX_SIZE {
                let p = Point::new(x, y);
                assert_eq!(Point::from_sgf(&p.to_sgf()), Ok(p));
            }
        }
        assert_eq!(Point::new(3, 15).to_sgf(), "dp");
        assert_eq!(Point::new(25, 26).to_sgf(), "zA");
        assert_eq!(Point::new(255, 0).to_sgf(), "?a");
        for bad in ["", "a", "abc", "zz", "A1", "aZ"] {
            assert!(Point::from_sgf(bad).is_err(), "{bad}");
        }
        assert_eq!(Move::Pass.to_string(), "pass");
        assert_eq!(Color::White.opponent(), Color::Black);
        assert_eq!((Color::Black.letter(), Color::White.index()), ('B', 1));
    }
}
