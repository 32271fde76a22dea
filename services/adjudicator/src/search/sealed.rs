//! Sealed territories as an end of hypothetical play (crate docs, "Sealed territories"): a
//! chain whose space is a small territory, walled in by opponent stones that never change,
//! that the opponent wins in a local game of its own is dead.

use super::*;

/// Largest sealed territory ([`Region::sealed_territory`]): empty points (twice as many points
/// in all).
pub(crate) const SEALED_MAX_EMPTY: usize = 12;

/// Nodes per local game of a sealed territory ([`Region::sealed_dead`]) at most.
const SEALED_GAME_NODES: u64 = 250;

/// The share of a region's budget (1 / this) its local games of sealed territories may use
/// in all ([`Region::sealed_dead`]): beyond it none is played (the end is then not asked).
const SEALED_SHARE: u64 = 16;

impl Region {
    /// The *sealed territory* of the stones `stones` of `owner` in `cells` (crate docs,
    /// Engine): the points without a stone of the opponent `o` connected to a point of
    /// `stones` that holds none, when every neighbour of them holds a *fixed* `o` stone (an
    /// outside one, or a local one whose chain touches an outside `o` stone: it is never
    /// captured) and they hold at most [`SEALED_MAX_EMPTY`] empty points and twice as many
    /// points in all. Returns those points and the local stones of the fixed chains next to
    /// them, by local index (sorted), or `None`.
    pub fn sealed_territory(&self, cells: &[u8], stones: &[usize], owner: Color) -> Option<(Vec<usize>, Vec<usize>)> {
        let sc = &self.scope;
        let o = cell(owner.opponent());
        let start = stones.iter().copied().find(|&s| cells[s] != o)?;
        let n = sc.len();
        let mut seen = vec![false; n];
        seen[start] = true;
        let mut pts = vec![start];
        let mut next_to: Vec<usize> = Vec::new();
        let mut empty = 0;
        let mut k = 0;
        while k < pts.len() {
            let q = pts[k];
            k += 1;
            empty += usize::from(cells[q] == EMPTY);
            if empty > SEALED_MAX_EMPTY || pts.len() > 2 * SEALED_MAX_EMPTY {
                return None;
            }
            for &g in &sc.nbrs[q] {
                if g == NONE {
                    continue;
                }
                if g >= OUT {
                    if sc.ext[(g - OUT) as usize].0 != o {
                        return None;
                    }
                    continue;
                }
                let g = g as usize;
                if !seen[g] {
                    seen[g] = true;
                    if cells[g] == o {
                        next_to.push(g);
                    } else {
                        pts.push(g);
                    }
                }
            }
        }
        // Each chain next to the territory, whole, and fixed.
        let mut walls: Vec<usize> = Vec::new();
        let mut taken = vec![false; n];
        for &w0 in &next_to {
            if taken[w0] {
                continue;
            }
            taken[w0] = true;
            let first = walls.len();
            walls.push(w0);
            let mut fixed = false;
            let mut j = first;
            while j < walls.len() {
                let s = walls[j];
                j += 1;
                for &g in &sc.nbrs[s] {
                    if g == NONE {
                        continue;
                    }
                    if g >= OUT {
                        fixed |= sc.ext[(g - OUT) as usize].0 == o;
                    } else if cells[g as usize] == o && !taken[g as usize] {
                        taken[g as usize] = true;
                        walls.push(g as usize);
                    }
                }
            }
            if !fixed {
                return None;
            }
        }
        pts.sort_unstable();
        walls.sort_unstable();
        Some((pts, walls))
    }

    /// The *sealed territory* end (crate docs, Engine): the stones `stones` of `owner` have a
    /// sealed territory ([`Region::sealed_territory`]) whose local game the opponent wins —
    /// with the territory as the whole board of a search whose outside neighbours are those
    /// fixed stones, the owner moving first, the opponent forces every point of it into its
    /// unconditional area ([`Territory`] with no boundary chain), within
    /// [`SEALED_GAME_NODES`] nodes, which count against this region's budget. Only when
    /// [`Region::sealed_board`] is set, no ko threats outside the region are counted
    /// ([`Region::ko_threats`]: the local game has none) and the local games have used at
    /// most `1 /` [`SEALED_SHARE`] of the region's budget so far. Each territory is played
    /// once per region (by its points and cells).
    pub(super) fn sealed_dead(&mut self, cells: &[u8], stones: &[usize], owner: Color) -> bool {
        if self.sealed_board.is_none() || self.ko_threats.is_some() || self.sealed_nodes * SEALED_SHARE > self.budget {
            return false;
        }
        let Some((pts, _)) = self.sealed_territory(cells, stones, owner) else { return false };
        let key: Vec<u32> = pts.iter().flat_map(|&l| [l as u32, u32::from(cells[l])]).collect();
        if let Some(&won) = self.sealed_games.get(&key) {
            return won;
        }
        let board = self.board_with(self.sealed_board.as_ref().expect("checked"), cells);
        let points: Vec<goban::Point> = pts.iter().map(|&l| self.scope.points[l]).collect();
        let scope = Scope::new(&board, points);
        let local = scope.cells(&board);
        let defender = owner.opponent();
        let mut game = Region::new(scope, self.mode, SEALED_GAME_NODES);
        game.territory = Some(Territory { defender, boundary: Vec::new(), area: (0..pts.len()).collect(), pairing: false });
        let root = State::new(local, owner);
        let won = forced(&mut game, &root, &[], defender, End::Alive, SEALED_GAME_NODES, 40, false).is_some();
        let used = game.nodes.min(SEALED_GAME_NODES) + 1;
        self.nodes += used;
        self.sealed_nodes += used;
        self.sealed_games.insert(key, won);
        won
    }

    /// The certificate of the sealed territory end at `cells` (module `zone`): the
    /// territory's points and the local stones of the fixed chains around it, or `None` when
    /// the stones `stones` of `owner` have no sealed territory.
    pub fn sealed_zone(&self, cells: &[u8], stones: &[usize], owner: Color) -> Option<Bits> {
        let (pts, walls) = self.sealed_territory(cells, stones, owner)?;
        let mut z = Bits::new(self.scope.len());
        for &l in pts.iter().chain(&walls) {
            z.set(l);
        }
        Some(z)
    }
}
