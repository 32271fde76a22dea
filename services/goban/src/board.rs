//! The board: stones, chains, liberties, captures (第三条) and suicide (第四条).
//!
//! Representation: a padded grid (one border cell on every side) indexed by
//! `(y + 1) * stride + (x + 1)`, `stride = width + 2`. Every stone belongs to a chain kept
//! as a circular linked list with a representative ("head") that carries the chain's
//! size and *pseudo-liberty* count: the number of (stone, empty neighbour) pairs. A chain
//! is captured exactly when that count reaches zero, and a chain's only liberty is `p`
//! exactly when all its pseudo-liberties are adjacencies of `p`. This keeps a move at a
//! few dozen memory operations, so replay runs at millions of moves per second.
//!
//! The ko rule (第五条) and repetition are not the board's business: a board only knows
//! stones. [`Board::play`] reports what a ko rule needs ([`Placed::ko`]).

use crate::point::{Color, Point, MAX_SIZE, MIN_SIZE};
use std::fmt;

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const BORDER: u8 = 3;

#[inline]
const fn cell_of(c: Color) -> u8 {
    match c {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

/// Zobrist keys: one 64-bit key per (point index, colour), from a fixed SplitMix64
/// stream so hashes are the same in every process.
const PADDED: usize = (MAX_SIZE as usize + 2) * (MAX_SIZE as usize + 2);
static ZOBRIST: [[u64; 2]; PADDED] = {
    let mut t = [[0u64; 2]; PADDED];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut i = 0;
    while i < PADDED {
        let mut c = 0;
        while c < 2 {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            t[i][c] = z ^ (z >> 31);
            c += 1;
        }
        i += 1;
    }
    t
};

/// Key xor-ed into a position hash when White is to move (see [`Board::hash`]).
pub const WHITE_TO_MOVE_KEY: u64 = 0x5BD1_E995_2F8A_3C7D;

/// Error creating a board of an unsupported size (第一条: 19x19 is standard; shinpan
/// accepts every side from 2 to 25).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardError {
    /// Requested columns.
    pub width: u32,
    /// Requested rows.
    pub height: u32,
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "board size {}x{} is not supported (each side must be {}..={}, 第一条)", self.width, self.height, MIN_SIZE, MAX_SIZE)
    }
}
impl std::error::Error for BoardError {}

/// Why a stone cannot be placed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The point is not on this board.
    OffBoard,
    /// The point already holds a stone (第二条: stones are played on empty points).
    Occupied,
    /// The stone would be captured at once without capturing anything (禁着, 第四条).
    Suicide,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlayError::OffBoard => "point is off the board",
            PlayError::Occupied => "point is occupied (第二条)",
            PlayError::Suicide => "suicide is forbidden (第四条 禁着)",
        })
    }
}
impl std::error::Error for PlayError {}

/// What a legal placement did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placed {
    /// Opponent stones removed by the move (第三条), in no particular order.
    pub captured: Vec<Point>,
    /// Own stones removed by the move (only when suicide is allowed by the rule set).
    pub suicided: Vec<Point>,
    /// If the move captured exactly one stone and the new stone is then a single stone
    /// with that point as its only liberty, that point: the opponent may not retake there
    /// on the very next turn (劫, 第五条).
    pub ko: Option<Point>,
}

/// What a placement would do ([`Board::preview`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Preview {
    /// Opponent stones the move would capture (第三条).
    pub captured: u32,
    /// The move would be suicide (第四条).
    pub suicide: bool,
    /// [`Board::stones_hash`] after the move.
    pub stones_hash: u64,
}

/// A Go board: `width × height` intersections holding black and white stones.
///
/// The board knows chains, liberties, captures (第三条) and suicide (第四条); it does not
/// know whose turn it is or the ko rule — see the game replay for those.
#[derive(Clone)]
pub struct Board {
    width: u8,
    height: u8,
    stride: usize,
    cells: Vec<u8>,
    /// Representative index of each stone's chain.
    head: Vec<u16>,
    /// Next stone in the chain's circular list.
    next: Vec<u16>,
    /// Pseudo-liberties, valid at heads.
    libs: Vec<u16>,
    /// Stones in the chain, valid at heads.
    size: Vec<u16>,
    hash: u64,
    stones: [u32; 2],
}

impl PartialEq for Board {
    fn eq(&self, other: &Self) -> bool {
        self.width == other.width && self.height == other.height && self.cells == other.cells
    }
}
impl Eq for Board {}

impl Board {
    /// An empty board of `width` columns and `height` rows.
    ///
    /// # Errors
    /// [`BoardError`] unless both sides are within `2..=25`.
    pub fn new(width: u32, height: u32) -> Result<Board, BoardError> {
        let ok = |s: u32| (MIN_SIZE as u32..=MAX_SIZE as u32).contains(&s);
        if !ok(width) || !ok(height) {
            return Err(BoardError { width, height });
        }
        let stride = width as usize + 2;
        let n = stride * (height as usize + 2);
        let mut cells = vec![BORDER; n];
        for y in 0..height as usize {
            for x in 0..width as usize {
                cells[(y + 1) * stride + x + 1] = EMPTY;
            }
        }
        Ok(Board {
            width: width as u8,
            height: height as u8,
            stride,
            cells,
            head: vec![0; n],
            next: vec![0; n],
            libs: vec![0; n],
            size: vec![0; n],
            hash: 0,
            stones: [0, 0],
        })
    }

    /// Columns.
    #[inline]
    pub fn width(&self) -> u8 {
        self.width
    }
    /// Rows.
    #[inline]
    pub fn height(&self) -> u8 {
        self.height
    }

    /// Whether `p` lies on this board.
    #[inline]
    pub fn contains(&self, p: Point) -> bool {
        p.x < self.width && p.y < self.height
    }

    #[inline]
    fn idx(&self, p: Point) -> usize {
        (p.y as usize + 1) * self.stride + p.x as usize + 1
    }
    #[inline]
    fn pt(&self, i: usize) -> Point {
        Point::new((i % self.stride - 1) as u8, (i / self.stride - 1) as u8)
    }
    #[inline]
    fn neighbours(&self, i: usize) -> [usize; 4] {
        [i - self.stride, i - 1, i + 1, i + self.stride]
    }

    /// Every point of the board, row by row from the top-left.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        let (w, h) = (self.width, self.height);
        (0..h).flat_map(move |y| (0..w).map(move |x| Point::new(x, y)))
    }

    /// The on-board orthogonal neighbours of `p` (2 to 4 points).
    pub fn adjacent(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        let i = self.idx(p);
        self.neighbours(i).into_iter().filter(move |&n| self.cells[n] != BORDER).map(move |n| self.pt(n))
    }

    /// The stone on `p`, or `None` if it is empty (or off the board).
    #[inline]
    pub fn get(&self, p: Point) -> Option<Color> {
        if !self.contains(p) {
            return None;
        }
        match self.cells[self.idx(p)] {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// Number of stones of `c` on the board.
    pub fn stone_count(&self, c: Color) -> u32 {
        self.stones[c.index()]
    }

    /// Zobrist hash of the stones on the board (not of whose turn it is). Two boards
    /// with the same stones have the same hash in every process.
    #[inline]
    pub fn stones_hash(&self) -> u64 {
        self.hash
    }

    /// Hash of the position in the sense of repetition (第十一条): the stones and the
    /// player to move.
    #[inline]
    pub fn hash(&self, to_move: Color) -> u64 {
        match to_move {
            Color::Black => self.hash,
            Color::White => self.hash ^ WHITE_TO_MOVE_KEY,
        }
    }

    /// The stones of the chain (連) through `p`, or an empty list if `p` is empty.
    pub fn chain(&self, p: Point) -> Vec<Point> {
        let mut out = Vec::new();
        if self.get(p).is_none() {
            return out;
        }
        let start = self.idx(p);
        let mut i = start;
        loop {
            out.push(self.pt(i));
            i = self.next[i] as usize;
            if i == start {
                break;
            }
        }
        out
    }

    /// The liberties (adjacent empty points) of the chain through `p`, sorted; empty if
    /// `p` holds no stone.
    pub fn liberties(&self, p: Point) -> Vec<Point> {
        let mut libs: Vec<Point> = Vec::new();
        for s in self.chain(p) {
            for n in self.adjacent(s) {
                if self.get(n).is_none() {
                    libs.push(n);
                }
            }
        }
        libs.sort();
        libs.dedup();
        libs
    }

    /// Number of distinct liberties of the chain through `p` (0 if `p` is empty).
    pub fn liberty_count(&self, p: Point) -> usize {
        self.liberties(p).len()
    }

    /// A representative point of the chain through `p` (the same for every stone of the
    /// chain until the chain changes), or `None` if `p` is empty.
    pub fn chain_id(&self, p: Point) -> Option<Point> {
        self.get(p)?;
        Some(self.pt(self.head[self.idx(p)] as usize))
    }

    /// Whether the chain at index `h` (a head) has `i` as its only liberty.
    #[inline]
    fn only_liberty_is(&self, h: usize, i: usize) -> bool {
        let mut adj = 0;
        for n in self.neighbours(i) {
            let c = self.cells[n];
            if (c == BLACK || c == WHITE) && self.head[n] as usize == h {
                adj += 1;
            }
        }
        self.libs[h] as usize == adj
    }

    /// Whether `color` may place a stone on `p` as far as the board is concerned
    /// (on the board, empty, not suicide — 第四条). The ko rule is checked by the game.
    pub fn check(&self, color: Color, p: Point) -> Result<(), PlayError> {
        if !self.contains(p) {
            return Err(PlayError::OffBoard);
        }
        let i = self.idx(p);
        if self.cells[i] != EMPTY {
            return Err(PlayError::Occupied);
        }
        if self.is_suicide(cell_of(color), i) {
            return Err(PlayError::Suicide);
        }
        Ok(())
    }

    fn is_suicide(&self, me: u8, i: usize) -> bool {
        let opp = BLACK + WHITE - me;
        for n in self.neighbours(i) {
            let c = self.cells[n];
            if c == EMPTY {
                return false;
            }
            if c == opp && self.only_liberty_is(self.head[n] as usize, i) {
                return false; // captures
            }
            if c == me && !self.only_liberty_is(self.head[n] as usize, i) {
                return false; // joins a chain with another liberty
            }
        }
        true
    }

    /// What placing a stone of `color` on `p` would do, without doing it: the number of
    /// opponent stones it would capture (第三条), whether it would be suicide (第四条: no
    /// capture and no liberty), and the Zobrist [`stones_hash`](Board::stones_hash) of the
    /// resulting stones (for a suicide: with the player's own chain removed, as
    /// [`Board::play`] does when suicide is allowed). Used for the ko rule (第五条: a retake
    /// captures exactly one stone) and positional superko.
    ///
    /// # Errors
    /// [`PlayError::OffBoard`] or [`PlayError::Occupied`].
    pub fn preview(&self, color: Color, p: Point) -> Result<Preview, PlayError> {
        if !self.contains(p) {
            return Err(PlayError::OffBoard);
        }
        let i = self.idx(p);
        if self.cells[i] != EMPTY {
            return Err(PlayError::Occupied);
        }
        let me = cell_of(color);
        let opp = BLACK + WHITE - me;
        let suicide = self.is_suicide(me, i);
        let mut heads = [usize::MAX; 4];
        let mut k = 0;
        let mut captured = 0u32;
        let mut hash = self.hash ^ ZOBRIST[i][color.index()];
        for n in self.neighbours(i) {
            let c = self.cells[n];
            let take = if suicide { c == me } else { c == opp && self.only_liberty_is(self.head[n] as usize, i) };
            if !take {
                continue;
            }
            let h = self.head[n] as usize;
            if heads[..k].contains(&h) {
                continue;
            }
            heads[k] = h;
            k += 1;
            let ci = (c - 1) as usize;
            let mut j = h;
            loop {
                hash ^= ZOBRIST[j][ci];
                if c == opp {
                    captured += 1;
                }
                j = self.next[j] as usize;
                if j == h {
                    break;
                }
            }
        }
        if suicide {
            hash ^= ZOBRIST[i][color.index()];
        }
        Ok(Preview { captured, suicide, stones_hash: hash })
    }

    /// The stones as a plain row-major array of `width × height` cells: 0 empty, 1 black,
    /// 2 white (for exact position comparison, e.g. to rule out hash collisions).
    pub fn cells(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.width as usize * self.height as usize);
        for y in 0..self.height as usize {
            let row = (y + 1) * self.stride + 1;
            out.extend_from_slice(&self.cells[row..row + self.width as usize]);
        }
        out
    }

    /// Places a stone of `color` on `p`, removing opponent chains left without liberties
    /// (第三条). Suicide (第四条) is refused unless `allow_suicide`, in which case the
    /// player's own chain is removed instead.
    ///
    /// # Errors
    /// [`PlayError::OffBoard`], [`PlayError::Occupied`], or [`PlayError::Suicide`]; the
    /// board is unchanged on error.
    pub fn play(&mut self, color: Color, p: Point, allow_suicide: bool) -> Result<Placed, PlayError> {
        let mut placed = Placed::default();
        self.play_into(color, p, allow_suicide, &mut placed)?;
        Ok(placed)
    }

    /// As [`Board::play`], writing into a reusable [`Placed`] (cleared first) so replay
    /// does not allocate per move.
    ///
    /// # Errors
    /// As [`Board::play`].
    pub fn play_into(&mut self, color: Color, p: Point, allow_suicide: bool, placed: &mut Placed) -> Result<(), PlayError> {
        placed.captured.clear();
        placed.suicided.clear();
        placed.ko = None;
        if !self.contains(p) {
            return Err(PlayError::OffBoard);
        }
        let i = self.idx(p);
        if self.cells[i] != EMPTY {
            return Err(PlayError::Occupied);
        }
        let me = cell_of(color);
        let suicide = self.is_suicide(me, i);
        if suicide && !allow_suicide {
            return Err(PlayError::Suicide);
        }
        let opp = BLACK + WHITE - me;
        // Place the stone as a chain of its own.
        self.cells[i] = me;
        self.head[i] = i as u16;
        self.next[i] = i as u16;
        self.size[i] = 1;
        self.hash ^= ZOBRIST[i][color.index()];
        self.stones[color.index()] += 1;
        let mut own_libs = 0u16;
        for n in self.neighbours(i) {
            if self.cells[n] == EMPTY {
                own_libs += 1;
            }
        }
        self.libs[i] = own_libs;
        // Neighbours lose the liberty at i.
        for n in self.neighbours(i) {
            let c = self.cells[n];
            if c == me || c == opp {
                let h = self.head[n] as usize;
                self.libs[h] -= 1;
            }
        }
        // Capture opponent chains left without liberties (第三条).
        for n in self.neighbours(i) {
            if self.cells[n] == opp && self.libs[self.head[n] as usize] == 0 {
                let h = self.head[n] as usize;
                self.remove_chain(h, &mut placed.captured);
            }
        }
        // Merge with friendly chains.
        for n in self.neighbours(i) {
            if self.cells[n] == me {
                let a = self.head[i] as usize;
                let b = self.head[n] as usize;
                if a != b {
                    self.merge(a, b);
                }
            }
        }
        let h = self.head[i] as usize;
        if self.libs[h] == 0 {
            // Only reachable with allow_suicide: the player's own chain is removed.
            self.remove_chain(h, &mut placed.suicided);
        } else if placed.captured.len() == 1 && self.size[h] == 1 && self.libs[h] == 1 {
            placed.ko = Some(placed.captured[0]);
        }
        Ok(())
    }

    fn merge(&mut self, a: usize, b: usize) {
        // Relabel the smaller chain into the larger.
        let (big, small) = if self.size[a] >= self.size[b] { (a, b) } else { (b, a) };
        let mut j = small;
        loop {
            self.head[j] = big as u16;
            j = self.next[j] as usize;
            if j == small {
                break;
            }
        }
        self.next.swap(big, small);
        self.size[big] += self.size[small];
        self.libs[big] += self.libs[small];
    }

    fn remove_chain(&mut self, h: usize, out: &mut Vec<Point>) {
        let color = self.cells[h];
        let ci = (color - 1) as usize;
        let start = out.len();
        let mut j = h;
        loop {
            self.cells[j] = EMPTY;
            self.hash ^= ZOBRIST[j][ci];
            self.stones[ci] -= 1;
            out.push(self.pt(j));
            j = self.next[j] as usize;
            if j == h {
                break;
            }
        }
        for &q in out.iter().skip(start) {
            let s = self.idx(q);
            for n in self.neighbours(s) {
                let c = self.cells[n];
                if c == BLACK || c == WHITE {
                    let hh = self.head[n] as usize;
                    self.libs[hh] += 1;
                }
            }
        }
    }

    /// A board from a text diagram, as tests and documentation draw positions: one string per
    /// row, top to bottom, one character per column; `X` is a black stone, `O` a white
    /// stone, anything else an empty point. Like setup, no capture is made.
    ///
    /// # Errors
    /// [`BoardError`] if the diagram's size is not 2..=25 on each side or its rows differ
    /// in length.
    pub fn from_diagram(rows: &[&str]) -> Result<Board, BoardError> {
        let width = rows.first().map_or(0, |r| r.chars().count()) as u32;
        let height = rows.len() as u32;
        if rows.iter().any(|r| r.chars().count() as u32 != width) {
            return Err(BoardError { width, height });
        }
        let mut b = Board::new(width, height)?;
        let mut stones = Vec::new();
        for (y, r) in rows.iter().enumerate() {
            for (x, ch) in r.chars().enumerate() {
                let c = match ch {
                    'X' => Color::Black,
                    'O' => Color::White,
                    _ => continue,
                };
                stones.push((Point::new(x as u8, y as u8), c));
            }
        }
        b.rebuild(&stones);
        Ok(b)
    }

    /// Puts a stone on `p` or clears it, as SGF setup (`AB`/`AW`/`AE`) and handicap
    /// placement do: no capture is made and no legality is checked (a setup position may
    /// even hold chains without liberties; they stay until a move touches them).
    ///
    /// # Errors
    /// [`PlayError::OffBoard`] if `p` is not on this board.
    pub fn set(&mut self, p: Point, stone: Option<Color>) -> Result<(), PlayError> {
        if !self.contains(p) {
            return Err(PlayError::OffBoard);
        }
        if self.get(p) == stone {
            return Ok(());
        }
        let i = self.idx(p);
        // Rebuild from the stone list: setup is rare, correctness matters more here.
        let mut stones: Vec<(Point, Color)> = self.points().filter_map(|q| self.get(q).map(|c| (q, c))).filter(|&(q, _)| q != p).collect();
        if let Some(c) = stone {
            stones.push((p, c));
        }
        let _ = i;
        self.rebuild(&stones);
        Ok(())
    }

    fn rebuild(&mut self, stones: &[(Point, Color)]) {
        let mut fresh = Board::new(self.width as u32, self.height as u32).expect("same size");
        for &(p, c) in stones {
            let i = fresh.idx(p);
            fresh.cells[i] = cell_of(c);
            fresh.hash ^= ZOBRIST[i][c.index()];
            fresh.stones[c.index()] += 1;
        }
        // Build chains by flood fill.
        let n = fresh.cells.len();
        let mut seen = vec![false; n];
        for s in 0..n {
            let c = fresh.cells[s];
            if (c != BLACK && c != WHITE) || seen[s] {
                continue;
            }
            let mut members = vec![s];
            seen[s] = true;
            let mut k = 0;
            while k < members.len() {
                let j = members[k];
                k += 1;
                for m in fresh.neighbours(j) {
                    if fresh.cells[m] == c && !seen[m] {
                        seen[m] = true;
                        members.push(m);
                    }
                }
            }
            let mut libs = 0u16;
            for (k, &j) in members.iter().enumerate() {
                fresh.head[j] = s as u16;
                fresh.next[j] = members[(k + 1) % members.len()] as u16;
                for m in fresh.neighbours(j) {
                    if fresh.cells[m] == EMPTY {
                        libs += 1;
                    }
                }
            }
            fresh.size[s] = members.len() as u16;
            fresh.libs[s] = libs;
        }
        *self = fresh;
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Board {}x{}", self.width, self.height)?;
        for y in 0..self.height {
            for x in 0..self.width {
                let ch = match self.get(Point::new(x, y)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                };
                write!(f, "{ch}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Point {
        Point::from_sgf(s).unwrap()
    }

    #[test]
    fn capture_and_ko() {
        let mut b = Board::new(5, 5).unwrap();
        // . X O . .
        // X O . O .
        // . X O . .
        for (c, s) in [
            (Color::Black, "ba"),
            (Color::Black, "ab"),
            (Color::Black, "bc"),
            (Color::White, "bb"),
            (Color::White, "ca"),
            (Color::White, "db"),
            (Color::White, "cc"),
        ] {
            b.play(c, p(s), false).unwrap();
        }
        let placed = b.play(Color::Black, p("cb"), false).unwrap();
        assert_eq!(placed.captured, vec![p("bb")]);
        assert_eq!(placed.ko, Some(p("bb")));
        assert_eq!(b.get(p("bb")), None);
        assert_eq!(b.liberty_count(p("cb")), 1);
    }

    #[test]
    fn suicide_of_a_chain_is_refused_and_allowed_when_asked() {
        let mut b = Board::new(3, 3).unwrap();
        for (c, s) in [(Color::Black, "ba"), (Color::Black, "bb"), (Color::Black, "ab")] {
            b.play(c, p(s), false).unwrap();
        }
        assert_eq!(b.play(Color::White, p("aa"), false), Err(PlayError::Suicide));
        let before = b.clone();
        let r = b.play(Color::White, p("aa"), true).unwrap();
        assert_eq!(r.suicided, vec![p("aa")]);
        assert_eq!(b, before);
    }

    #[test]
    fn multi_stone_capture_restores_liberties() {
        let mut b = Board::new(4, 4).unwrap();
        for (c, s) in [(Color::White, "aa"), (Color::White, "ba"), (Color::Black, "ca"), (Color::Black, "ab")] {
            b.play(c, p(s), false).unwrap();
        }
        let r = b.play(Color::Black, p("bb"), false).unwrap();
        let mut cap = r.captured.clone();
        cap.sort();
        assert_eq!(cap, vec![p("aa"), p("ba")]);
        assert_eq!(
            b.liberties(p("ab")),
            vec![p("aa"), p("ba"), p("ac"), p("cb"), p("bc")]
                .into_iter()
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>()
        );
        assert_eq!(b.stone_count(Color::White), 0);
    }

    #[test]
    fn hash_depends_on_stones_only_and_returns_after_capture() {
        let mut a = Board::new(9, 9).unwrap();
        let empty = a.stones_hash();
        a.play(Color::Black, p("cc"), false).unwrap();
        assert_ne!(a.stones_hash(), empty);
        a.set(p("cc"), None).unwrap();
        assert_eq!(a.stones_hash(), empty);
        assert_ne!(a.hash(Color::Black), a.hash(Color::White));
    }

    #[test]
    fn diagram_places_stones_and_builds_chains() {
        let b = Board::from_diagram(&["XO.", ".XO", "..."]).unwrap();
        assert_eq!((b.width(), b.height()), (3, 3));
        assert_eq!(b.get(p("aa")), Some(Color::Black));
        assert_eq!(b.get(p("ba")), Some(Color::White));
        assert_eq!(b.get(p("ca")), None);
        assert_eq!(b.liberties(p("ba")), vec![p("ca")]);
        assert_eq!(b.stone_count(Color::Black), 2);
        assert!(Board::from_diagram(&["XO", "X"]).is_err());
        assert!(Board::from_diagram(&["X"]).is_err());
    }

    #[test]
    fn rejects_bad_sizes() {
        assert!(Board::new(1, 9).is_err());
        assert!(Board::new(26, 19).is_err());
        assert!(Board::new(25, 2).is_ok());
    }
}
