//! Fixed handicap placement (置石, 第二条3): the standard points for 2 to 9 stones.

use crate::board::BoardError;
use crate::point::Point;
use std::fmt;

/// Error for a handicap the standard fixed placement cannot give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandicapError {
    /// Fixed placement exists only on 19x19, 13x13 and 9x9 boards (use free placement,
    /// SGF `AB`, on others).
    Size {
        /// Columns.
        width: u8,
        /// Rows.
        height: u8,
    },
    /// The number of stones must be 0 (even game) or 2..=9.
    Count(u8),
    /// The board size itself is invalid.
    Board(BoardError),
}

impl fmt::Display for HandicapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandicapError::Size { width, height } => {
                write!(f, "no fixed handicap placement on a {width}x{height} board (only 19x19, 13x13, 9x9; use AB for free placement)")
            }
            HandicapError::Count(n) => write!(f, "handicap {n} is not 0 or 2..=9"),
            HandicapError::Board(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for HandicapError {}

/// The standard fixed handicap points (置石) for `n` stones on a 19x19, 13x13 or 9x9 board,
/// in the customary order: upper right (`pd` on 19x19), lower left (`dp`), lower right
/// (`pp`), upper left (`dd`); 5, 7, 9 add the centre; 6 and 7 add the left and right side
/// points (`dj`, `pj`); 8 and 9 also the top and bottom side points (`jd`, `jp`). Corner
/// points are on the 4-4 point (3-3 on 9x9). `n = 0` gives no points.
///
/// # Errors
/// [`HandicapError::Size`] for other boards, [`HandicapError::Count`] unless `n` is 0 or
/// 2..=9.
pub fn handicap_points(width: u8, height: u8, n: u8) -> Result<Vec<Point>, HandicapError> {
    let (near, mid, far) = match (width, height) {
        (19, 19) => (3, 9, 15),
        (13, 13) => (3, 6, 9),
        (9, 9) => (2, 4, 6),
        _ => return Err(HandicapError::Size { width, height }),
    };
    if n == 1 || n > 9 {
        return Err(HandicapError::Count(n));
    }
    let p = Point::new;
    let corners = [p(far, near), p(near, far), p(far, far), p(near, near)];
    let centre = p(mid, mid);
    let (left, right, top, bottom) = (p(near, mid), p(far, mid), p(mid, near), p(mid, far));
    let mut out: Vec<Point> = corners.iter().copied().take((n as usize).min(4)).collect();
    match n {
        5 => out.push(centre),
        6 => out.extend([left, right]),
        7 => out.extend([left, right, centre]),
        8 => out.extend([left, right, top, bottom]),
        9 => out.extend([left, right, top, bottom, centre]),
        _ => {}
    }
    Ok(out)
}
