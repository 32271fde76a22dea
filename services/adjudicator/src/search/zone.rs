//! Relevance zones of the deepening's proofs under the 2011 draft: the points a proof
//! depends on, so that the defender's moves outside them are answered once, by the proof of
//! its pass (Thomsen's λ-search, 2000; the proof-set pruning of benzene's `DfpnSolver`; the
//! relevance zones of Shih, Wu, Wei & Wu, AAAI 2022).
//!
//! **What a zone claims.** Let `f` be the side that forces the end (the opponent `o` of the
//! examined stones' owner `c` for *dead*, `c` for *alive*) and `d` the defender. A proof of
//! the end for the examined stones `S` from a state `n`, with zone `Z` (a set of local
//! points), claims that `f` forces it from *every* state `n'` with the same side to move and
//! the same 第五条 ban whose cells agree with `n`'s on `Z`, where the other cells differ only by
//! `d`'s stones played outside `Z` (and `f` stones that `d` captured there). A forced end is a
//! reachability fact (crate docs): it holds whatever the path, so the claim is about states
//! alone. (With ko threats outside the region, `Region::ko_threats`, the claim holds too
//! where the side that has them has fewer left than at `n` if it is `d`, or more if it is
//! `f`: a threat is only an option of its holder's, so `d` then has no option it lacked at
//! `n`, and `f` keeps every option it had. A move of `d` outside `Z` may use one of its own,
//! a retake; `d`'s pass, which takes one of `f`'s away, leaves `f` fewer at the pass's state
//! than after a move of `d` outside the zone.)
//!
//! **Why a pass answers every move outside the zone.** At a state of `d`'s where `d`'s pass
//! is proved with zone `Zp`, a move `m` of `d` outside `Zp` leaves the cells of `Zp` as the
//! pass does: `Zp` is closed (below), so `m` takes the last liberty of no `f` chain with a
//! stone in `Zp`; the ban after `m` (if it captured one stone) is on a point outside `Zp`,
//! where `f`'s proof does not play next; a pass lifts the ban. So the state after `m` is one
//! of those the pass's proof claims, and only `d`'s moves in `Zp` are searched. The zone of
//! the state is `Zp`, every searched move's zone and *closure*, and the certificates below.
//!
//! The claim is shown by induction on the proof: at `f`'s states the proof's move `m` has
//! the same effect (the same captures, the same legality and ban) wherever the cells of its
//! closure agree — `m`, its neighbours, the chains next to it with their liberties, and, for
//! `d`'s chains among them, `f`'s stones next to them (closed: `d` can then neither capture
//! them from outside the zone nor so give such a chain liberties there); at `d`'s states the
//! same holds for every move searched (illegal ones too: they stay illegal), a move outside
//! `Zp` is answered as above, and a move the move generator leaves out inside `Zp` is left
//! out at the other states too, by its certificate: the unconditional area's ([`area_cert`],
//! pass-alive chains with the regions that keep them so) or the sealed area's (the area and
//! the fixed chains around it, module `seal`). At an end the certificate of the unconditional
//! area that holds the point of `S` (for *dead*) or every point of `S` (for *alive*): the set
//! of the area holding it and the pass-alive chains it depends on ([`point_cert`]); the links
//! end (module `links`) by its enclosure with the fixed chains around it; the sealed
//! territory end (`Region::sealed_dead`) by the territory with the fixed chains around it,
//! whole (the local game is played on the territory alone, and a move of `d` outside the zone
//! touches neither it nor those chains, which nothing captures).
//!
//! **The defender's end on the way.** A line ends as soon as `S` reaches the other end, so
//! every state of the proof carries a certificate that `S` is not there at any state that
//! agrees with it on the zone; without one the zone is the whole region.
//! * *Not alive* ([`not_alive`]): while `S` stands, every region next to its chain but one
//!   reaches, through points that hold no `c` stone and lie in the zone, a point next to an
//!   outside point that is not `c`'s (the region is open: never healthy, Benson) or an empty
//!   point not next to the chain (not healthy); the one left is closed and wholly in the zone
//!   with its border. So the chain has at most one healthy region and is not pass-alive; and
//!   it is in no set of the unconditional area either, which needs at most two interior
//!   points (it has at least three stones) or no way out (one open path). Once `S` is
//!   captured, one of its points without a `c` stone with an open path.
//! * *Not dead* ([`not_dead`]): no point of `S` holds an `o` stone, and a path from them
//!   through points without one reaches a point next to an outside point that is not `o`'s:
//!   the set of points outside `o`'s pass-alive chains that holds `S` is open (no set of
//!   `U_o`), and so is the enclosure the links rule would examine.
//!
//! **Closure.** Every chain of `f` with a stone in a zone (but fixed ones, which nobody
//! captures) is in it with all its liberties, so no move of `d` outside the zone captures a
//! stone in it. A randomized cross-check against the exact search without zones finds no
//! proof it refutes (module tests).

use super::*;
use crate::benson::Safe;

/// A zone: `None` is the whole region.
pub(crate) type Zone = Option<Bits>;

/// `a ∪= b` (a zone that is the whole region absorbs every other).
pub(crate) fn join(a: &mut Zone, b: &Zone) {
    match (a.as_mut(), b) {
        (Some(x), Some(y)) => {
            for (w, v) in x.0.iter_mut().zip(&y.0) {
                *w |= v;
            }
        }
        (Some(_), None) => *a = None,
        (None, _) => {}
    }
}

/// Whether the chain at `s` (not empty) touches an outside stone of its colour (fixed:
/// nobody captures it), with its stones pushed onto `members` and liberties onto `libs`.
fn walk(sc: &Scope, cells: &[u8], s: usize, members: &mut Vec<usize>, libs: &mut Vec<usize>, seen: &mut [bool]) -> bool {
    let v = cells[s];
    let start = members.len();
    members.push(s);
    seen[s] = true;
    let mut fixed = false;
    let mut k = start;
    while k < members.len() {
        let l = members[k];
        k += 1;
        for &g in &sc.nbrs[l] {
            if g == NONE {
                continue;
            }
            if g >= OUT {
                let e = sc.ext[(g - OUT) as usize].0;
                fixed |= e == v || e == EMPTY;
                continue;
            }
            let g = g as usize;
            if cells[g] == EMPTY {
                libs.push(g);
            } else if cells[g] == v && !seen[g] {
                seen[g] = true;
                members.push(g);
            }
        }
    }
    fixed
}

/// Closes `z` (module docs): every chain of the forcing side `f` with a stone in it that is not
/// fixed, with its stones and liberties.
pub(crate) fn close(sc: &Scope, cells: &[u8], f: Color, z: &mut Bits) {
    let oc = cell(f);
    let mut seen = vec![false; sc.len()];
    let (mut members, mut libs) = (Vec::new(), Vec::new());
    for s in 0..sc.len() {
        if cells[s] != oc || seen[s] || !z.get(s) {
            continue;
        }
        members.clear();
        libs.clear();
        if !walk(sc, cells, s, &mut members, &mut libs, &mut seen) {
            for &p in members.iter().chain(&libs) {
                z.set(p);
            }
        }
    }
}

/// The closure of a move at `m` by either side (module docs), added to `z`: `m`, its
/// neighbours, the chains next to it with their liberties, and the forcing side's stones next
/// to those of them that are the defender's (`c`).
pub(crate) fn add_move(sc: &Scope, cells: &[u8], c: Color, m: usize, z: &mut Bits) {
    z.set(m);
    let mut seen = vec![false; sc.len()];
    let (mut members, mut libs) = (Vec::new(), Vec::new());
    for &g in &sc.nbrs[m] {
        if g == NONE || g >= OUT {
            continue;
        }
        let g = g as usize;
        z.set(g);
        if cells[g] == EMPTY || seen[g] {
            continue;
        }
        members.clear();
        libs.clear();
        walk(sc, cells, g, &mut members, &mut libs, &mut seen);
        for &p in members.iter().chain(&libs) {
            z.set(p);
        }
        if cells[g] == cell(c) {
            for &s in &members {
                for &h in &sc.nbrs[s] {
                    if h != NONE && h < OUT && cells[h as usize] == cell(c.opponent()) {
                        z.set(h as usize);
                    }
                }
            }
        }
    }
}

/// The regions of points without a `col` stone in `cells`, each flagged when it reaches no
/// outside point but `col`'s and its empty points are all next to a pass-alive stone of
/// `safe` (the healthy regions that keep chains pass-alive are among those): by point, the
/// region's index ([`NONE`] on `col`'s stones); by region, the flag and the points.
fn regions(sc: &Scope, cells: &[u8], col: Color, safe: &Safe) -> (Vec<u32>, Vec<(bool, Vec<usize>)>) {
    let me = cell(col);
    let n = sc.len();
    let mut region = vec![NONE; n];
    let mut out: Vec<(bool, Vec<usize>)> = Vec::new();
    for s0 in 0..n {
        if region[s0] != NONE || cells[s0] == me {
            continue;
        }
        let id = out.len() as u32;
        let mut comp = vec![s0];
        region[s0] = id;
        let mut ok = true;
        let mut k = 0;
        while k < comp.len() {
            let l = comp[k];
            k += 1;
            let mut next_to_alive = false;
            for &g in &sc.nbrs[l] {
                if g == NONE {
                    continue;
                }
                if g >= OUT {
                    if sc.ext[(g - OUT) as usize].0 == me {
                        next_to_alive = true;
                    } else {
                        ok = false;
                    }
                    continue;
                }
                let g = g as usize;
                if cells[g] == me {
                    next_to_alive |= safe.pa.get(g);
                } else if region[g] == NONE {
                    region[g] = id;
                    comp.push(g);
                }
            }
            if cells[l] == EMPTY && !next_to_alive {
                ok = false;
            }
        }
        out.push((ok, comp));
    }
    (region, out)
}

/// The certificate of `col`'s unconditional area `safe` in `cells`: its points (pass-alive
/// stones and the enclosed sets), and every region of [`regions`] flagged. A state whose cells
/// agree on it has every point of `safe.area` in its own unconditional area: the same chains
/// with the same regions pass Benson's test, and a set enclosed by them is enclosed by the
/// state's pass-alive chains with no more interior points.
pub(crate) fn area_cert(sc: &Scope, cells: &[u8], col: Color, safe: &Safe) -> Bits {
    let mut z = safe.area.clone();
    for (ok, comp) in regions(sc, cells, col, safe).1 {
        if ok {
            for p in comp {
                z.set(p);
            }
        }
    }
    z
}

/// The certificate that the point `p` is in `col`'s unconditional area `safe` of `cells`: the
/// set of the area that holds it (or the pass-alive chain on it), the pass-alive chains
/// around it, and, one after another, the regions of points without a `col` stone next to
/// those chains that reach no outside point but `col`'s and whose empty points are all next
/// to a pass-alive stone (the healthy regions that keep them pass-alive are among them), with
/// the pass-alive chains around those. A state whose cells agree on it has `p` in its own
/// unconditional area, as with [`area_cert`], without the sets and chains `p`'s does not
/// depend on.
pub(crate) fn point_cert(sc: &Scope, cells: &[u8], col: Color, safe: &Safe, p: usize) -> Bits {
    let me = cell(col);
    let n = sc.len();
    let mut z = Bits::new(n);
    let mut chains: Vec<usize> = Vec::new();
    let mut taken = vec![false; n];
    if safe.pa.get(p) {
        chains.push(p);
    } else {
        // The set of the area holding `p`: points outside the pass-alive chains.
        let mut comp = vec![p];
        taken[p] = true;
        let mut k = 0;
        while k < comp.len() {
            let l = comp[k];
            k += 1;
            z.set(l);
            for &g in &sc.nbrs[l] {
                if g == NONE || g >= OUT || taken[g as usize] {
                    continue;
                }
                taken[g as usize] = true;
                if safe.pa.get(g as usize) {
                    chains.push(g as usize);
                } else {
                    comp.push(g as usize);
                }
            }
        }
    }
    let (region, regions) = regions(sc, cells, col, safe);
    let mut region_taken = vec![false; regions.len()];
    let mut stack = Vec::new();
    for c in chains {
        stack.push(c);
        while let Some(l) = stack.pop() {
            z.set(l);
            for &g in &sc.nbrs[l] {
                if g == NONE || g >= OUT {
                    continue;
                }
                let g = g as usize;
                if cells[g] == me {
                    if !taken[g] {
                        taken[g] = true;
                        stack.push(g);
                    }
                    continue;
                }
                let r = region[g] as usize;
                if !regions[r].0 || region_taken[r] {
                    continue;
                }
                region_taken[r] = true;
                for &q in &regions[r].1 {
                    z.set(q);
                    for &h in &sc.nbrs[q] {
                        if h != NONE && h < OUT && cells[h as usize] == me && !taken[h as usize] {
                            taken[h as usize] = true;
                            stack.push(h as usize);
                        }
                    }
                }
            }
        }
    }
    z
}

/// The zone of the end `goal` reached by the stones `stones` of `owner` in `cells`. *Dead*:
/// the certificate that a point of `stones` is in the opponent's unconditional area
/// ([`point_cert`]), else that of the links rule (module `links`,
/// [`links::enclosure_cert`]). *Alive*: the certificates that every point of `stones` is in
/// the owner's. Closed for the side that forced it. `safe`: the unconditional analysis of
/// that side (the opponent for *dead*, the owner for *alive*) in `cells`.
pub(crate) fn end_zone(sc: &Scope, cells: &[u8], safe: &Safe, stones: &[usize], owner: Color, goal: End) -> Zone {
    let f = if goal == End::Dead { owner.opponent() } else { owner };
    let mut z = match goal {
        End::Dead => match stones.iter().find(|&&s| safe.area.get(s)) {
            Some(&p) => point_cert(sc, cells, f, safe, p),
            None => return links_end_zone(sc, cells, stones, owner),
        },
        End::Alive => {
            let mut z: Zone = Some(Bits::new(sc.len()));
            for &p in stones {
                if !safe.area.get(p) {
                    return None;
                }
                join(&mut z, &Some(point_cert(sc, cells, f, safe, p)));
            }
            z?
        }
    };
    close(sc, cells, f, &mut z);
    Some(z)
}

/// [`end_zone`] of a *dead* end that is the links rule's (module `links`), not Benson's: the
/// enclosure's certificate ([`links::enclosure_cert`]), closed. It needs no unconditional
/// analysis.
pub(crate) fn links_end_zone(sc: &Scope, cells: &[u8], stones: &[usize], owner: Color) -> Zone {
    let mut z = links::enclosure_cert(sc, cells, stones, owner)?;
    close(sc, cells, owner.opponent(), &mut z);
    Some(z)
}

/// The certificate that the stones `stones` of `owner` are not at the defender's end in
/// `cells`, nor in any state that agrees with it there (module docs): not alive when `goal`
/// is *dead* ([`not_alive`]), not dead when it is *alive* ([`not_dead`]).
pub(crate) fn not_other_end(sc: &Scope, cells: &[u8], stones: &[usize], owner: Color, goal: End) -> Option<Bits> {
    match goal {
        End::Dead => not_alive(sc, cells, stones, owner),
        End::Alive => not_dead(sc, cells, stones, owner),
    }
}

/// Breadth-first from `from` through points without a stone of cell value `x` to the first
/// point that is *open* (next to an outside point that does not hold `x`) or that `target`
/// accepts: the path added to `z`, and whether it ended open; `None` when no such point is
/// reached.
fn path(sc: &Scope, cells: &[u8], x: u8, from: usize, target: &dyn Fn(usize) -> bool, z: &mut Bits) -> Option<bool> {
    let opens = |l: usize| sc.nbrs[l].iter().any(|&g| g != NONE && g >= OUT && sc.ext[(g - OUT) as usize].0 != x);
    let mut prev = vec![NONE; sc.len()];
    prev[from] = from as u32;
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(l) = queue.pop_front() {
        let open = opens(l);
        if open || target(l) {
            let mut k = l;
            loop {
                z.set(k);
                if k == from {
                    return Some(open);
                }
                k = prev[k] as usize;
            }
        }
        for &g in &sc.nbrs[l] {
            if g != NONE && g < OUT && cells[g as usize] != x && prev[g as usize] == NONE {
                prev[g as usize] = l as u32;
                queue.push_back(g as usize);
            }
        }
    }
    None
}

/// The certificate that no point of the stones `stones` of `owner` is in the opponent's
/// unconditional area in `cells`, nor the links rule's end reached: the points of `stones`,
/// none holding an opponent stone, and a path from them through points without an opponent
/// stone to a point next to an outside point that is not the opponent's. The set of points
/// outside the opponent's pass-alive chains that holds them then reaches that outside point
/// (it is open: no set of the area), and so do the enclosure the links rule would examine and
/// the points a sealed territory would hold (`Region::sealed_territory`: then none is sealed).
pub(crate) fn not_dead(sc: &Scope, cells: &[u8], stones: &[usize], owner: Color) -> Option<Bits> {
    let o = cell(owner.opponent());
    if stones.iter().any(|&s| cells[s] == o) {
        return None;
    }
    let mut z = Bits::new(sc.len());
    for &s in stones {
        z.set(s);
    }
    path(sc, cells, o, stones[0], &|_| false, &mut z).map(|_| z)
}

/// The certificate that the stones `stones` of `owner` are not alive (not all in `U_owner`) in
/// `cells`, nor in any state that agrees with it there (module docs), or `None` when none is
/// found.
pub(crate) fn not_alive(sc: &Scope, cells: &[u8], stones: &[usize], owner: Color) -> Option<Bits> {
    let c = cell(owner);
    let n = sc.len();
    let mut z = Bits::new(n);
    if !stones.iter().all(|&s| cells[s] == c) {
        // Captured: one point of `stones` without a `c` stone, with an open path.
        let s = stones.iter().copied().find(|&s| cells[s] != c)?;
        return path(sc, cells, c, s, &|_| false, &mut z).map(|_| z);
    }
    let mut seen = vec![false; n];
    let (mut chain, mut libs) = (Vec::new(), Vec::new());
    if walk(sc, cells, stones[0], &mut chain, &mut libs, &mut seen) || !stones.iter().all(|&s| seen[s]) {
        return None;
    }
    let big = chain.len() >= 3;
    let mut next_to_chain = vec![false; n];
    let mut around = Vec::new();
    for &s in &chain {
        z.set(s);
        for &g in &sc.nbrs[s] {
            if g != NONE && g < OUT && cells[g as usize] != c && !next_to_chain[g as usize] {
                next_to_chain[g as usize] = true;
                around.push(g as usize);
            }
        }
    }
    // Not healthy: an empty point not next to the chain (enough with three stones or more).
    let unhealthy = |l: usize| big && cells[l] == EMPTY && !next_to_chain[l];
    let mut witnessed = vec![false; n];
    let mut any_open = false;
    let mut closed: Option<usize> = None;
    for &q in &around {
        if witnessed[q] {
            continue;
        }
        let before = z.clone();
        match path(sc, cells, c, q, &unhealthy, &mut z) {
            Some(open) => {
                any_open |= open;
                for &r in &around {
                    if z.get(r) && !before.get(r) {
                        witnessed[r] = true;
                    }
                }
                witnessed[q] = true;
            }
            None => {
                // A closed region: at most one, wholly in the zone with its border.
                if closed.is_some() {
                    return None;
                }
                closed = Some(q);
                let mut comp = vec![q];
                witnessed[q] = true;
                let mut k = 0;
                while k < comp.len() {
                    let l = comp[k];
                    k += 1;
                    z.set(l);
                    for &g in &sc.nbrs[l] {
                        if g == NONE || g >= OUT {
                            continue;
                        }
                        let g = g as usize;
                        z.set(g);
                        if cells[g] != c && !witnessed[g] {
                            witnessed[g] = true;
                            comp.push(g);
                        }
                    }
                }
            }
        }
    }
    (big || any_open).then_some(z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{End, Mode, Prover, Region, State, Trap};
    use goban::{Board, Color, Point};

    fn root(cells: &[u8], to_move: Color) -> State {
        State::new(cells.to_vec(), to_move)
    }

    /// A White territory of 10 x 3 = 30 points along the top edge, closed by White stones that
    /// never change (the row below it and the column right of it), with a White wall across
    /// it on column e that has a gap at ea (so it is not joined to the closing stones and
    /// seals nothing), and a lone Black invader in the corner at aa (local index of the invader
    /// in the returned scope).
    fn territory_with_a_gap() -> (Board, Scope, Vec<usize>) {
        let mut board = Board::new(19, 19).unwrap();
        for p in board.points().collect::<Vec<_>>() {
            if (p.x == 10 && p.y <= 3) || (p.y == 3 && p.x <= 10) || (p.x == 4 && p.y == 1) || (p.x == 4 && p.y == 2) {
                board.set(p, Some(Color::White)).unwrap();
            }
        }
        board.set(Point { x: 0, y: 0 }, Some(Color::Black)).unwrap();
        let inner: Vec<Point> = board.points().filter(|p| p.x < 10 && p.y < 3).collect();
        let scope = Scope::new(&board, inner);
        let stones = vec![scope.local_of(Point { x: 0, y: 0 }) as usize];
        (board, scope, stones)
    }

    /// The deepening's proofs with zones against the exact avoidance search without them, on
    /// random areas at the top edge closed by stones that never change: for every chain, both
    /// ends, either side to move, a proof found with zones must be one the exact search
    /// confirms (the end cannot be avoided). Returns the proofs checked and how many of them
    /// answered a defender's move by its pass's zone.
    fn cross_check(seed: u64, positions: usize, rows: u32, cols: u32, black: u64, white: u64) -> (usize, usize) {
        let mut rand = crate::xorshift(seed);
        let (mut checked, mut pruning) = (0, 0);
        for _ in 0..positions {
            let Some((board, inner)) = crate::search::tests::random_edge_area(&mut rand, rows, cols, black, white, 6) else {
                continue;
            };
            let scope = Scope::new(&board, inner.clone());
            let cells = scope.cells(&board);
            for (p, owner, stones) in crate::search::tests::chains_within(&board, &scope, &inner) {
                for (to_move, goal) in [Color::Black, Color::White].into_iter().flat_map(|c| [(c, End::Dead), (c, End::Alive)]) {
                    let st = root(&cells, to_move);
                    let mut region = Region::new(scope.clone(), Mode::Kiyaku2011, 400_000);
                    let mut prover = Prover::new(stones.clone(), owner, goal);
                    if !matches!(prover.prove(&mut region, &st, 200_000), Ok(true)) {
                        continue;
                    }
                    let mut exact = Region::new(scope.clone(), Mode::Kiyaku2011, 2_000_000);
                    exact.zoning = false;
                    let Ok(avoidable) = Trap::new(stones.clone(), owner, goal).avoids(&mut exact, &st) else { continue };
                    checked += 1;
                    pruning += usize::from(prover.pruned > 0);
                    assert!(
                        !avoidable,
                        "{} chain at {}, {} to move: {goal:?} proved through zones, avoidable by the exact search",
                        owner.letter(),
                        p.to_sgf(),
                        to_move.letter()
                    );
                }
            }
        }
        (checked, pruning)
    }

    #[test]
    fn zones_prove_no_end_the_exact_search_avoids() {
        let (n1, z1) = cross_check(0x7_2026_1129, 300, 3, 5, 25, 30);
        let (n2, z2) = cross_check(0x8_2026_1129, 200, 2, 7, 25, 30);
        let (n3, z3) = cross_check(0x9_2026_1129, 200, 3, 6, 20, 20);
        eprintln!("{} proofs checked, {} of them answered moves by a pass's zone", n1 + n2 + n3, z1 + z2 + z3);
        assert!(z1 + z2 + z3 >= 100, "only {} proofs answered moves by a pass's zone", z1 + z2 + z3);
    }

    /// The invader of [`territory_with_a_gap`], Black to move first (第七条 解説): dead, with
    /// zones as without them; with zones, Black's moves beyond the wall are answered by the
    /// proof of Black's pass wherever White's kill in the corner does not depend on them.
    #[test]
    fn an_invasion_of_a_30_point_territory_is_proved_dead_through_zones() {
        let (board, scope, stones) = territory_with_a_gap();
        let cells = scope.cells(&board);
        let nodes = |zoning: bool| {
            let mut region = Region::new(scope.clone(), Mode::Kiyaku2011, 2_000_000);
            region.zoning = zoning;
            let mut prover = Prover::new(stones.clone(), Color::Black, End::Dead);
            let proved = prover.prove(&mut region, &root(&cells, Color::Black), 2_000_000);
            assert!(matches!(proved, Ok(true)), "dead (zones: {zoning}): {proved:?}");
            (region.nodes, prover.pruned)
        };
        let ((with, pruned), (without, none)) = (nodes(true), nodes(false));
        eprintln!("{with} nodes with zones ({pruned} moves answered by a pass's zone), {without} without");
        assert!(pruned > 0 && none == 0, "{pruned} moves answered by a pass's zone ({none} without zones)");
    }
}
