//! The space hypothetical play (第七条) moves in: a *scope* of board points (the whole board
//! or one region) with local indices, its cells, and its neighbours outside, whose stones
//! never change (pass-alive, or agreed alive in a dispute).

use goban::{Board, Color, Point};

pub(crate) const NONE: u32 = u32::MAX;

/// A fixed bitset over the local indices of a [`Scope`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bits(pub Vec<u64>);

impl Bits {
    pub fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64).max(1)])
    }
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.0[i >> 6] >> (i & 63) & 1 == 1
    }
}

/// Cell values of a local board.
pub(crate) const EMPTY: u8 = 0;
#[inline]
pub(crate) fn cell(c: Color) -> u8 {
    c.index() as u8 + 1
}

/// The points a computation is restricted to (a search region, or the whole board), with
/// precomputed neighbour lists. Neighbours outside the scope are pass-alive stones of the
/// base board; they are listed as `OUT + k`, `k` indexing [`Scope::ext`].
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub width: usize,
    /// Board points of the scope, local index -> point.
    pub points: Vec<Point>,
    /// Board index (`y * width + x`) -> local index, or [`NONE`] outside the scope.
    pub local: Vec<u32>,
    /// Neighbours of each local point: local index, `OUT + k`, or [`NONE`] (padding).
    pub nbrs: Vec<[u32; 4]>,
    /// Outside neighbours: (cell value, chain id shared by the stones of one chain).
    pub ext: Vec<(u8, u32)>,
    /// Local points whose chains are credited one *virtual* healthy region (an eye they are
    /// proved to have elsewhere; see `safety`). Empty = none.
    pub virtual_eye: Vec<bool>,
}

pub(crate) const OUT: u32 = 1 << 30;

impl Scope {
    /// The scope made of `points` (each on `board`).
    pub fn new(board: &Board, points: Vec<Point>) -> Scope {
        let w = board.width() as usize;
        let h = board.height() as usize;
        let mut local = vec![NONE; w * h];
        for (k, p) in points.iter().enumerate() {
            local[p.y as usize * w + p.x as usize] = k as u32;
        }
        let mut ext: Vec<(u8, u32)> = Vec::new();
        let mut ext_at: Vec<(usize, u32)> = Vec::new();
        let mut heads: Vec<Point> = Vec::new();
        let nbrs = points
            .iter()
            .map(|&p| {
                let mut a = [NONE; 4];
                for (k, q) in board.adjacent(p).enumerate() {
                    let g = q.y as usize * w + q.x as usize;
                    a[k] = if local[g] != NONE {
                        local[g]
                    } else if let Some(&(_, e)) = ext_at.iter().find(|(gg, _)| *gg == g) {
                        OUT + e
                    } else {
                        let c = board.get(q).map_or(EMPTY, cell);
                        let head = board.chain_id(q).unwrap_or(q);
                        let id = match heads.iter().position(|&hh| hh == head) {
                            Some(i) => i,
                            None => {
                                heads.push(head);
                                heads.len() - 1
                            }
                        };
                        ext.push((c, id as u32));
                        ext_at.push((g, ext.len() as u32 - 1));
                        OUT + ext.len() as u32 - 1
                    };
                }
                a
            })
            .collect();
        Scope { width: w, points, local, nbrs, ext, virtual_eye: Vec::new() }
    }

    /// The same scope with every outside neighbour made a wall of colour `wall` that never
    /// changes: no liberty for anyone inside (used for the local games of `safety`, where
    /// the defender's boundary chains get no credit for liberties outside the region).
    pub fn walled(mut self, wall: Color) -> Scope {
        for e in self.ext.iter_mut() {
            e.0 = cell(wall);
        }
        self
    }

    /// The same scope (made of points of `board`) with every outside neighbour for which
    /// `stays` does not hold standing for a stone of `c` that never changes (module `walled`:
    /// a point the region's search may not play, which gives no liberty to the stones of `c`'s
    /// opponent next to it).
    pub fn outside_as(mut self, board: &Board, c: Color, stays: &dyn Fn(Point) -> bool) -> Scope {
        for (l, &p) in self.points.iter().enumerate() {
            for (k, q) in board.adjacent(p).enumerate() {
                let g = self.nbrs[l][k];
                if g != NONE && g >= OUT && !stays(q) {
                    self.ext[(g - OUT) as usize].0 = cell(c);
                }
            }
        }
        self
    }

    /// The whole board.
    pub fn whole(board: &Board) -> Scope {
        Scope::new(board, board.points().collect())
    }

    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// The local index of the board point `p`, or [`NONE`] outside the scope.
    pub fn local_of(&self, p: Point) -> u32 {
        self.local[p.y as usize * self.width + p.x as usize]
    }

    /// The cells of `board` on this scope.
    pub fn cells(&self, board: &Board) -> Vec<u8> {
        self.points.iter().map(|&p| board.get(p).map_or(EMPTY, cell)).collect()
    }
}
