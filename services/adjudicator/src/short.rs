//! Short proofs for regions too large for the exhaustive search (crate docs, Engine step 4):
//! one move of the side that moves first, or a miai — each a forced line checked move by
//! move, so exact.

use crate::benson::{self, Scope, NONE};
use crate::search::{End, Mode, Region, State};
use crate::*;

/// In a region too large for the exhaustive search (more than [`Options::max_region_empty`]
/// empty points): short proofs for the chain (local indices `stones`, colour `c`). The side
/// that moves first in hypothetical play is `F` — the owner under the 2011 draft (第七条
/// 解説), the opponent under 1989 (要請II-\[iii\]); `F`'s end is *alive* under 2011 (every
/// stone of the chain in `U_c`), *dead* under 1989 (a point of the chain in `U_o`); the
/// other side `G` wants the other end.
///
/// 1. **One move**: a move of `F` after which its end holds proves it; under 2011 also an
///    owner's move that joins the chain to a chain the territory proofs keep alive (on a
///    point none of those proofs relies on — see `kept_alive` below); and before any move, a
///    miai connection (two shared free points) to such a chain.
/// 2. **Every move answered** (見合い and more; under 1989 only — see the measurement in
///    the code): `G` has a move `w` that, played at once without capturing anything,
///    reaches `G`'s end (the answer to a pass), and for each move `r` of `F` (any legal
///    move in the region; one inside an unconditional area counts as a pass) `G` has an
///    answer after which the end holds: another such `w ≠ r`, when neither captures at
///    once, else tried; or any move near the chain after `r`, tried. Why a non-capturing
///    answer still reaches the end untried: if neither `r` nor `w` captures anything, the
///    board after `r, w` is the board after `w` plus `F`'s stone at `r`, and a stone of the
///    opponent added without captures never takes a point out of an unconditional area
///    (pass-alive chains stay pass-alive — their healthy regions only lose empty points; an
///    enclosed area keeps its interior). So the end, which held after `w`, holds after
///    `r, w`. Every other answer is checked on the board: the two plies are searched in
///    full.
/// 3. **A move, then every move answered** (2011 only): an owner's move `m` after which
///    step 2 holds with the opponent to move. The owner, moving first (第七条 解説), plays
///    `m` and then answers as in step 2: alive. Line: `m`, the opponent's pass, the owner's
///    answer to it.
///
/// Only moves on a liberty of the chain or next to one are tried as winning moves (a proof
/// needs one winning move; trying fewer loses no exactness), but every move of `F` is
/// answered in the miai step. Each move played counts one node of the region's budget.
/// Returns the status and a line (`F`'s winning move, or `F` passing and `G` answering),
/// or `None`.
pub(crate) fn short_proof(
    region: &mut Region,
    board: &Board,
    stones: &[usize],
    c: Color,
    opts: &Options,
    safe: &[safety::Safety; 2],
) -> Option<(Status, Vec<(Color, Move)>)> {
    let cells = region.scope.cells(board);
    let w = board.width() as usize;
    let (first, first_end) = match region.mode {
        Mode::Kiyaku2011 => (c, End::Alive),
        Mode::Kiyaku1989 => (c.opponent(), End::Dead),
    };
    let second = first.opponent();
    let second_end = if first_end == End::Alive { End::Dead } else { End::Alive };
    let status_of = |e: End| if e == End::Alive { Status::Alive } else { Status::Dead };
    let mut root = State::new(cells, first);
    if let Some(q) = opts.ko_pending.filter(|_| opts.to_move == first) {
        // The 第五条 ban of the player to move in the record (1989: a ko just taken may not
        // be retaken before a pass, which a short proof never makes): not tried by `F`.
        root.ko = region.scope.local_of(q);
    }
    let reached = |region: &mut Region, cells: &[u8], e: End| match e {
        End::Alive => region.holds_all(cells, c, stones),
        End::Dead => stones.iter().any(|&s| region.area(cells, c.opponent()).get(s)),
    };
    // 2011: after the owner's move `m`, the chain holds a stone of a chain that the territory
    // proofs (module `safety`) keep alive, and `m` is on no point those proofs rely on: the
    // owner then follows their strategy, which keeps that chain — now joined to ours — from
    // capture and ends with it pass-alive (its credited regions are still healthy for the
    // larger chain), so every stone of ours ends in `U_c`: alive.
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    //
    // Also when the chain shares two free points with such a chain (a miai connection, as in
    // module `safety`: when the opponent takes one, the owner takes the other), both points
    // on no point those proofs rely on.
    // Whether local point `l` is one the owner's territory proofs rely on.
    let used = |region: &Region, l: u32| safe[c.index()].used[gi(region.scope.points[l as usize])];
    let kept_alive = |region: &Region, cells: &[u8], m: Option<u32>| -> bool {
        let sf = &safe[c.index()];
        if m.is_some_and(|m| used(region, m)) {
            return false;
        }
        let me = cells[stones[0]];
        if me != benson::cell(c) {
            return false; // captured: nothing to join
        }
        let mut seen = vec![false; cells.len()];
        let mut todo = vec![stones[0] as u32];
        let mut members: Vec<u32> = Vec::new();
        seen[stones[0]] = true;
        while let Some(l) = todo.pop() {
            if sf.alive[gi(region.scope.points[l as usize])] {
                return true;
            }
            members.push(l);
            for &g in &region.scope.nbrs[l as usize] {
                if g != NONE && g < benson::OUT && !seen[g as usize] && cells[g as usize] == me {
                    seen[g as usize] = true;
                    todo.push(g);
                }
            }
        }
        // Free points next to the chain and to a kept-alive chain (by its head on the board).
        let mut links: Vec<(Point, u32)> = Vec::new();
        for &l in &members {
            for &p in &region.scope.nbrs[l as usize] {
                if p == NONE || p >= benson::OUT || cells[p as usize] != benson::EMPTY || used(region, p) {
                    continue;
                }
                for &q in &region.scope.nbrs[p as usize] {
                    if q == NONE || q >= benson::OUT || cells[q as usize] != me || seen[q as usize] {
                        continue;
                    }
                    let qp = region.scope.points[q as usize];
                    if sf.alive[gi(qp)] {
                        let head = board.chain_id(qp).unwrap_or(qp);
                        if !links.contains(&(head, p)) {
                            links.push((head, p));
                        }
                    }
                }
            }
        }
        links.iter().any(|&(h, p)| links.iter().any(|&(h2, p2)| h2 == h && p2 != p))
    };
    // For the miai step: the owner's life by joining a chain the territory proofs keep alive
    // (as above), and whether a local point is one those proofs rely on.
    let kept = Kept { alive: &kept_alive, used: &used };
    // Liberties of the chain, then the empty points next to them.
    let cand = near_chain(&region.scope, &root.cells, stones[0]);
    let playable = region.playable(&root.cells);
    // 0. Already kept alive through a miai connection to a chain of the territory proofs.
    if kept_alive(region, &root.cells, None) {
        return Some((Status::Alive, Vec::new()));
    }
    // 1. One move of F (the positions after them are kept for step 3).
    let mut after_first: Vec<(u32, State)> = Vec::new();
    for &m in &cand {
        if !playable[m as usize] || m == root.ko {
            continue;
        }
        if region.nodes >= region.budget {
            return None;
        }
        region.nodes += 1;
        let Some(child) = region.play(&root, Some(m)) else { continue };
        if reached(region, &child.cells, first_end) || (first_end == End::Alive && kept_alive(region, &child.cells, Some(m))) {
            return Some((status_of(first_end), vec![(first, Move::Play(region.scope.points[m as usize]))]));
        }
        after_first.push((m, child));
    }
    // 2. Every move of F answered by G — under 1989 only, where G is the owner and the miai
    //    of lives decides many stones; under 2011 (G the attacker) the miai of kills decides
    //    few for much more time.
    if region.mode == Mode::Kiyaku1989 {
        let root_f = root.clone().with_ko(NONE);
        let w = miai(region, &root_f, second, stones, &cand, &kept)?;
        return Some((status_of(second_end), vec![(first, Move::Pass), (second, Move::Play(region.scope.points[w as usize]))]));
    }
    // 3. 2011: one move of the owner after which step 2 holds for the owner with the
    //    opponent to move: owner m, then whatever the opponent does, the owner lives.
    for (m, child) in after_first {
        // The chain now (m may have joined it to others): its liberties and their neighbours.
        let cand2 = near_chain(&region.scope, &child.cells, stones[0]);
        let after_m = child.with_ko(NONE);
        if let Some(w) = miai(region, &after_m, c, stones, &cand2, &kept) {
            let pt = |l: u32| Move::Play(region.scope.points[l as usize]);
            return Some((Status::Alive, vec![(c, pt(m)), (c.opponent(), Move::Pass), (c, pt(w))]));
        }
    }
    None
}

/// The empty points on a liberty of the chain holding local point `s` in `cells`, then the
/// empty points next to those (none if `s` is empty).
pub(crate) fn near_chain(sc: &Scope, cells: &[u8], s: usize) -> Vec<u32> {
    let me = cells[s];
    if me == benson::EMPTY {
        return Vec::new();
    }
    let mut members: Vec<u32> = vec![s as u32];
    let mut libs: Vec<u32> = Vec::new();
    let mut k = 0;
    while k < members.len() {
        let l = members[k] as usize;
        k += 1;
        for &g in &sc.nbrs[l] {
            if g == NONE || g >= benson::OUT {
                continue;
            }
            if cells[g as usize] == benson::EMPTY && !libs.contains(&g) {
                libs.push(g);
            } else if cells[g as usize] == me && !members.contains(&g) {
                members.push(g);
            }
        }
    }
    let mut out = libs.clone();
    for &lib in &libs {
        for &g in &sc.nbrs[lib as usize] {
            if g != NONE && g < benson::OUT && cells[g as usize] == benson::EMPTY && !out.contains(&g) {
                out.push(g);
            }
        }
    }
    out
}

/// `alive(region, cells, m)` of [`Kept`].
pub(crate) type KeptAlive<'a> = &'a dyn Fn(&Region, &[u8], Option<u32>) -> bool;

/// The owner's other kind of life in [`miai`]: `alive(region, cells, m)` — after the owner's
/// move `m` the chain is joined (or connected by a miai of two free points) to a chain the
/// territory proofs of module `safety` keep alive, `m` on no point they rely on — and
/// `used(region, l)`: local point `l` is one they rely on.
pub(crate) struct Kept<'a> {
    alive: KeptAlive<'a>,
    used: &'a dyn Fn(&Region, u32) -> bool,
}

/// The miai step of [`short_proof`]: in `root` (the side `F` to move, no ko ban — every move
/// of `F` is answered, even a barred retake), the owner `g` of the chain `stones` (local
/// indices) has a non-capturing move among `cand` that puts every stone of the chain in
/// `U_g` when played at once (the answer to a pass, or to a move in an unconditional area,
/// which counts as one), and every move `r` of `F` in the region is answered: by another
/// such move (at once when neither captures, see `short_proof`; else by trying it) or by
/// any move near the chain after `r` that puts it in `U_g` (tried). A move that joins the
/// chain to one the territory proofs keep alive (`kept`, as in step 1 of `short_proof`)
/// counts as such a life too — as a winning move, and as an answer to an `r` on no point
/// those proofs rely on (an `r` on one must be answered by their strategy itself), always
/// checked on the position after `r` (a quiet `r` may take a point of a miai connection).
/// The owner then follows their strategy, which ends with the joined chain pass-alive
/// (module `safety`). A direct check of the two
/// plies, so exact. Returns the first winning move of `g`, or `None` (also when the
/// region's budget runs out). Each move played counts one node.
pub(crate) fn miai(region: &mut Region, root: &State, g: Color, stones: &[usize], cand: &[u32], kept: &Kept) -> Option<u32> {
    let stones_on = |cells: &[u8]| cells.iter().filter(|&&v| v != benson::EMPTY).count();
    let reached = |region: &mut Region, cells: &[u8]| region.holds_all(cells, g, stones);
    let on_root = stones_on(&root.cells);
    let root_g = root.clone().with_to_move(g).with_ko(NONE);
    // G's non-capturing winning moves (the quick test first). A winning move may lie in an
    // unconditional area: it is a real move all the same. `by_join[i]`: `wins[i]` wins only by
    // joining a chain the territory proofs keep alive (not pass-alive at once).
    let mut wins: Vec<u32> = Vec::new();
    let mut by_join: Vec<bool> = Vec::new();
    for &m in cand {
        if region.nodes >= region.budget {
            return None;
        }
        region.nodes += 1;
        let Some(child) = region.play(&root_g, Some(m)) else { continue };
        if stones_on(&child.cells) == on_root + 1 {
            if reached(region, &child.cells) {
                wins.push(m);
                by_join.push(false);
            } else if (kept.alive)(region, &child.cells, Some(m)) {
                wins.push(m);
                by_join.push(true);
            }
        }
    }
    if wins.is_empty() {
        return None;
    }
    // Every move r of F, the most dangerous first (G's winning points, then the points
    // near the chain): answered by a winning move w != r that still works — at once when
    // neither captures (see `short_proof`), else by trying it — or, failing that, by any
    // move near the chain after r that reaches the end.
    let playable = region.playable(&root.cells);
    let mut order: Vec<u32> = wins.clone();
    for &q in cand {
        if !order.contains(&q) {
            order.push(q);
        }
    }
    let first = order.len();
    for r in 0..root.cells.len() as u32 {
        if !order[..first].contains(&r) {
            order.push(r);
        }
    }
    for r in order {
        if root.cells[r as usize] != benson::EMPTY || (!playable[r as usize] && !wins.contains(&r)) {
            continue; // occupied, or a move in an unconditional area: a pass for the region
        }
        if region.nodes >= region.budget {
            return None;
        }
        region.nodes += 1;
        let Some(after_r) = region.play(root, Some(r)) else { continue };
        let quiet_r = stones_on(&after_r.cells) == on_root + 1;
        // A life by joining a kept-alive chain answers `r` only when `r` is on no point the
        // territory proofs rely on (else their strategy must answer `r` itself).
        let join_ok = !(kept.used)(region, r);
        let mut answered = false;
        for (i, &m) in wins.iter().enumerate().filter(|&(_, &m)| m != r) {
            let Some(after) = region.play(&after_r, Some(m)) else { continue };
            // The quiet shortcut holds for a pass-alive win only (an opponent stone that
            // captures nothing keeps every healthy region healthy); a win by joining is
            // checked on the position itself (`r` may have taken a point of a miai connection).
            let quiet = !by_join[i] && quiet_r && stones_on(&after.cells) == on_root + 2;
            if quiet || reached(region, &after.cells) || (join_ok && (kept.alive)(region, &after.cells, Some(m))) {
                answered = true;
                break;
            }
        }
        if !answered {
            for w in near_chain(&region.scope, &after_r.cells, stones[0]) {
                if wins.contains(&w) {
                    continue; // tried above
                }
                if region.nodes >= region.budget {
                    return None;
                }
                region.nodes += 1;
                let Some(after) = region.play(&after_r, Some(w)) else { continue };
                if reached(region, &after.cells) || (join_ok && (kept.alive)(region, &after.cells, Some(w))) {
                    answered = true;
                    break;
                }
            }
        }
        if !answered {
            return None;
        }
    }
    Some(wins[0])
}
