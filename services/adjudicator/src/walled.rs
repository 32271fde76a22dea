//! Invasions walled in by chains the territory proofs keep alive (crate docs, Engine step 5).
//!
//! A chain `S` of `c` left undecided by the region search often stands in a territory of
//! its opponent `o` that is too large for the local games of module `safety`, inside a region
//! of the whole board that is too large for the exhaustive search: the chains around the
//! territory are only *kept alive* by step 2 (not pass-alive), so they are not walls there.
//! This step searches `S` again in a *walled region* `R'`: the points reached from `S`
//! through points that are in neither colour's unconditional area, hold no stone of a chain
//! that step 2 keeps alive (of either colour), and are not a point `o`'s proofs rely on
//! ([`Safety::used`]). In `R'` its neighbours are walls that are never captured, an empty
//! neighbour (a point `o`'s proofs rely on) stands for a stone of `c` that never changes (so
//! it gives `o`'s stones next to it no liberty), `c` may retake a ko whatever its 第五条 ban
//! (an unlimited supply of ko threats, [`UNLIMITED_THREATS`]), and only a proof that `S` is
//! **dead** is taken (2011 draft).
//!
//! **Why it is sound (第七条).** `o` plays the proof found in `R'` there and, outside it,
//! the strategy of its territory proofs (module `safety`): it answers every move of `c` in
//! one of its territories or on a point those proofs rely on with that strategy's answer, and
//! every other move of `c` (in `R'`, or a pass) with the proof's move.
//! * `o`'s walls are never captured: the strategy keeps each of them a liberty inside a
//!   territory of its own whatever `c` plays in `R'` (module `safety`, "Why it is sound" (a)),
//!   and `o`'s stones in `R'` that join them only enlarge them (a healthy region stays healthy
//!   for a larger chain).
//! * `c`'s walls are taken as never captured although nothing guarantees it, and so are the
//!   stones of `c` that the empty neighbours stand for: a stone that is never captured only
//!   helps its own colour (module `dispute`: `o` loses the option of capturing it, and the
//!   liberty it would have there, `c` gains moves that would otherwise be suicide), so a
//!   proof of `c`'s *dead* found with them holds without them.
//! * A move of `c` outside `R'` and its answer leave `R'` as it was, but lift `c`'s 第五条
//!   ban: a ko threat. `c` is given one for every retake, more than it can have. A line that
//!   repeats a state of `R'` is a failure for `o` (第七条 解説: 循環), as in every search here.
//! * The proof's end holds for good: a point of `S` in `o`'s unconditional area computed on
//!   `R'` with its walls as stones that never change. `c`'s further moves in `R'` cannot change
//!   that (Benson), `o`'s strategy outside ends, in a bounded number of its moves, with every
//!   chain it keeps alive pass-alive (module `safety`, (b) and (c)), and then that area is part
//!   of `o`'s unconditional area on the whole board (an outside neighbour that is a stone of `c`
//!   only makes a region of `o` open, never healthy): 相手方の帰属, **dead**.
//!
//! The search is that of every region (crate docs, Engine step 4) with the chain asked for
//! *dead* first, within [`Options::budget_nodes`] per walled region. Proofs of *alive* or
//! *seki* found there are not taken (they could rest on `o`'s strategy not being followed,
//! or on `c`'s walls), and the chain stays undecided with the reason of the region search.

use crate::safety::Safety;
use crate::search::{End, Mode, UNLIMITED_THREATS};
use crate::{solve_region, Options, Proof, Status, StatusMap};
use goban::{Board, Color, Point};

/// Settles, under the 2011 draft, the undecided chains of `proofs` that a walled region
/// proves **dead** (module docs), updating `found` and their proof entries (line, nodes,
/// no undecided reason). `in_u(q)`: board point `q` lies in either colour's unconditional
/// area; `safe`: step 2's proofs by colour; `settled`: chains steps 1–2 decided, by board
/// index. Each walled region of at most [`Options::max_region_empty`] empty points is
/// searched once, with [`Options::budget_nodes`] nodes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn settle_walled_invasions(
    board: &Board,
    mode: Mode,
    opts: &Options,
    in_u: &dyn Fn(Point) -> bool,
    safe: &[Safety; 2],
    settled: &[bool],
    found: &mut StatusMap,
    proofs: &mut [Proof],
) {
    if mode != Mode::Kiyaku2011 {
        return;
    }
    let w = board.width() as usize;
    let n = w * board.height() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let kept = |q: Point| board.get(q).is_some_and(|c| safe[c.index()].alive[gi(q)]);
    let mut searched: Vec<(Color, Vec<Point>)> = Vec::new();
    for k in 0..proofs.len() {
        if proofs[k].status != Status::Undecided
            || proofs[k].undecided.as_ref().is_some_and(|u| matches!(u, crate::Undecided::Stopped { .. }))
        {
            continue;
        }
        let c = proofs[k].color;
        let o = c.opponent();
        let pts = walled_region(board, &proofs[k].stones, &|q| !in_u(q) && !kept(q) && !safe[o.index()].used[gi(q)], n);
        let empty = pts.iter().filter(|&&q| board.get(q).is_none()).count();
        if empty > opts.max_region_empty || searched.iter().any(|(sc, sp)| *sc == c && sp.binary_search(&proofs[k].stones[0]).is_ok()) {
            continue;
        }
        searched.push((c, pts.clone()));
        let mut walled_found = found.clone();
        let mut walled_proofs: Vec<Proof> = Vec::new();
        let wanted = |q: Point| board.get(q) == Some(c) && found.get(q) == Status::Undecided;
        solve_region(
            board,
            pts,
            (0, 1),
            mode,
            opts,
            safe,
            settled,
            &wanted,
            &|_| Some(End::Dead),
            Some((c, UNLIMITED_THREATS)),
            Some(c),
            &mut walled_found,
            &mut walled_proofs,
        );
        for wp in walled_proofs.into_iter().filter(|wp| wp.status == Status::Dead) {
            if let Some(pr) = proofs.iter_mut().find(|pr| pr.stones == wp.stones) {
                found.set_chain(board, wp.stones[0], Status::Dead);
                pr.status = Status::Dead;
                pr.line = wp.line;
                pr.nodes += wp.nodes;
                pr.undecided = None;
            }
        }
    }
}

/// The walled region of the chain `stones` (sorted): the points reached from them through
/// points where `inside` holds, sorted.
fn walled_region(board: &Board, stones: &[Point], inside: &dyn Fn(Point) -> bool, n: usize) -> Vec<Point> {
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let mut seen = vec![false; n];
    let mut pts: Vec<Point> = stones.to_vec();
    for &s in stones {
        seen[gi(s)] = true;
    }
    let mut k = 0;
    while k < pts.len() {
        let q = pts[k];
        k += 1;
        for r in board.adjacent(q) {
            if seen[gi(r)] {
                continue;
            }
            if inside(r) {
                seen[gi(r)] = true;
                pts.push(r);
            }
        }
    }
    pts.sort();
    pts
}
