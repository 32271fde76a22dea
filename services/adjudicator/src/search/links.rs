//! A forced *dead* end without search: an enclosed area its surrounder fills through
//! private pairs of links (after Müller, "Playing it safe", 1997, and Fuego's
//! `GoSafetyUtil::Find2ConnectionsForAll`, where every interior point of a region needs two
//! private liberties of the safe boundary, and a block of the defender inside it with two
//! such liberties is safe and lends its liberties to the rest, `Find2Connections`).
//!
//! **Definitions.** Let `o` be the opponent of the examined stones' owner `c`. A stone of `o`
//! is *fixed* when it lies outside the scope (the scope's neighbours never change: pass-alive,
//! or agreed alive in a dispute) or belongs to a chain of the scope that touches one: such a
//! chain is one chain with a stone nobody can capture, so nobody can capture it. An *enclosure*
//! `T` is a maximal 4-connected set of points of the scope holding no fixed `o` stone whose
//! every neighbour outside `T` is a fixed `o` stone, or a stone of `c` outside the scope next to
//! an `o` stone of `T` only. A *link* is an empty point of `T` next to
//! a fixed stone; every other point of `T` (empty, or holding any stone) is *inner*. A
//! *pairing* gives inner points, one after another, two links each, next to them, no link
//! given twice; an empty inner point paired before may serve as a link too (it is *lent*,
//! to one point only, after Fuego's `GoRegion::Find2ConnForAllInterior`, where a point
//! proved connected joins the boundary's liberties). At most two inner points, next to each
//! other if two, may go without.
//!
//! **Blocks.** A chain of `o` inside `T` (not fixed) is a *block*. Blocks are *connected* one
//! after another: a block with two liberties that are links — next to a fixed stone or to a
//! block connected before — and given to no other block is connected, its two links are its
//! own, and from then on it counts as fixed for what follows (its stones are not inner, an
//! empty point next to it is a link). The pairing is then sought for the other points of `T`
//! among the links no block holds. A block next to a stone of `c` outside the scope (a
//! *bounding* block: the enclosure is closed by it) must be connected.
//! (A wall drawn into a dispute, whose liberties all lie in the territory it bounds, is such a
//! block.)
//!
//! **Rule.** If a point of the examined chain `S` lies in an enclosure with a pairing, `o`
//! forces the *dead* end of hypothetical play (第七条; crate docs) whoever moves next.
//!
//! **Why.** `o`'s strategy: when `c` plays on a link of an inner point that has no fixed
//! neighbour yet, `o` plays its other link at once; otherwise `o` plays one link of such a
//! point. Every move of `o` is legal (it joins a fixed chain, so it is never suicide, and never
//! retakes a ko: the stone it joins is not a single stone, 第五条; under 1989 no ko ban can
//! name its point, as a stone there could never have been captured) and makes its stone fixed
//! for good; one `c` move takes at most one link, and links are private, so `c` never holds
//! both links of an inner point that has no fixed neighbour. Each `o` move gives such a point a
//! fixed neighbour, so after at most one `o` move per paired point every point of `T` but the
//! unpaired ones is next to a fixed stone; the fixed stones only grow, so no state repeats on
//! the way. Then every maximal set of `T`'s points not holding fixed stones is enclosed by
//! fixed stones — pass-alive for the region's Benson computation — with every point next to
//! one but at most two adjacent interior points: the definition of `U_o` (module `benson`).
//! So every point of `T`, the point of `S` included, is in `U_o`: the dead end.
//!
//! A lent point `v` serves the point `q` it was lent to as a link does, and stays an inner
//! point with its own pair. When `c` plays on `q`'s other link, `o` plays `v`: that stone is
//! next to a fixed stone (one of `v`'s links is `o`'s) or its chain holds both of `v`'s
//! links as liberties, private, which `o` keeps as a block's (below): `c` takes one, `o`
//! plays the other, and a lent one in turn the same way, down the pairing's order to links
//! next to fixed stones. When `c` plays on `v`, it takes one link of `q` only (`o` answers
//! with `q`'s other one), and `v`'s own pair is untouched. So one `c` move still takes at
//! most one link of one point, and each `o` answer is legal as a link's is (it is never
//! suicide: the new stone keeps a private liberty or joins a fixed stone, and no ko ban
//! names its point, which held no `o` stone `c` could capture). The line fills, point by
//! point in the pairing's order, a link, or the lent point when both are lent: that point's
//! own link was filled before, so the stone is fixed.
//!
//! With blocks, `o` also answers a `c` move on one of a connected block's two links with the
//! other, and, when `c` threatens nothing, connects the blocks one by one, in their order, by
//! playing one of their links, before filling the pairs. A connected block always keeps its
//! two links or has been joined: `c` can take only one of them before `o` plays the other, so
//! `c` never captures it (both are its liberties) and never needs to be answered elsewhere.
//! The stone `o` plays on a block's link joins the block and a fixed stone, or a block
//! connected before, which is joined (fixed) by then in the unthreatened order, or still holds
//! its own two links when the move answers a threat; so it is never suicide, and it joins a
//! chain of more stones than one, so it never retakes a ko (under 1989 a ko-pass ban of `o`
//! names a point where `c` captured an `o` stone: never a stone of a fixed chain or of a
//! connected block, and a point that held another `o` stone when the rule was applied is no
//! link, links being empty then). A link of the pairing next to a block only is played the
//! same way. Once every block is connected the position is that of the rule without blocks,
//! with the connected blocks among the fixed stones. A bounding block is connected like any
//! other, and `c` never captures it, so the stones of `c` next to it, which never change,
//! touch no other point of `T` (that is the enclosure's definition): once it is fixed, `T` is
//! enclosed by fixed stones as an enclosure without bounding blocks is.
//!
//! Taking a state where the rule applies as the dead end changes no status, as with the safe
//! territories (crate docs, Engine step 4): it only shortens the lines (a line reaching `U_c`
//! first is impossible, as `U_c` is `c`'s for good and the strategy ends in `U_o`).

use crate::benson::{cell, reset, Scope, EMPTY, NONE, OUT};

/// Inner points with fewer than two links (a lent point is needed for each) beyond which an
/// enclosure is given up before the pairing at the ends of the searches ([`dead_by_links`],
/// asked at every node): each costs the pairing a round over the points left, and a wide
/// enclosure has many such points and no pairing. Thin areas along the edge (two rows deep,
/// up to this many points paired through lent ones) stay within it. The rule with its line
/// ([`links_line`], asked once per chain before its search, whatever the region's size) looks
/// for any number: a territory two rows deep along the edge pairs its first row from the
/// ends however long it is.
const MAX_BORROWERS: usize = 8;

/// Reused buffers of [`dead_by_links`] (it runs at every node of a search that Benson's end
/// does not settle): fixed stones, points met, the flood's stack, the enclosure, which points
/// are links, and the pairing's.
#[derive(Default)]
struct Scratch {
    fixed: Vec<bool>,
    seen: Vec<bool>,
    stack: Vec<u32>,
    area: Vec<u32>,
    linked: Vec<u8>,
    pairing: Pairing,
    /// Whether the last enclosure examined was closed by a bounding block (module docs).
    bounded: bool,
}

/// Reused buffers of [`paired_with_blocks`] and [`paired`], by local index where per point:
/// the blocks connected, the links they took (as flags and in order), blocks' stones met,
/// the blocks' stones (flat, block `b` at `stones[starts[b]..starts[b + 1]]`), the blocks not
/// connected yet, one block's links, the points left to pair, and the pairing's flags and
/// order.
#[derive(Default)]
struct Pairing {
    connected: Vec<bool>,
    taken: Vec<bool>,
    taken_list: Vec<usize>,
    met: Vec<bool>,
    stones: Vec<u32>,
    starts: Vec<u32>,
    left: Vec<u32>,
    libs: Vec<usize>,
    rest: Vec<u32>,
    flag: Vec<u8>,
    order: Vec<(usize, [u32; 4], usize)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Whether a point of `stones` (local indices of a chain of `owner`, on the board or already
/// captured) lies in an enclosure of the opponent with a pairing (module docs): then the
/// opponent forces the dead end. Only the first enclosure met is examined (a chain's points
/// lie in one unless the opponent has captured and refilled part of it). Cost: linear in
/// the scope.
pub(crate) fn dead_by_links(sc: &Scope, cells: &[u8], stones: &[usize], owner: goban::Color) -> bool {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        dead_by_links_in(sc, cells, stones, owner, &mut s, MAX_BORROWERS, None)
    })
}

/// As [`dead_by_links`], with a line that shows the end: one link of each paired point
/// (local indices), which the opponent fills while the owner passes; after them every point
/// of the enclosure but the unpaired ones is next to a fixed stone, Benson's dead end.
/// `None` when the rule does not apply.
pub(crate) fn links_line(sc: &Scope, cells: &[u8], stones: &[usize], owner: goban::Color) -> Option<Vec<u32>> {
    let mut line = Vec::new();
    dead_by_links_in(sc, cells, stones, owner, &mut Scratch::default(), usize::MAX, Some(&mut line)).then_some(line)
}

/// Marks in `fixed` (by local index) the fixed stones of cell value `o`: the `o` chains of the
/// scope that touch an outside `o` stone (module docs).
fn mark_fixed(sc: &Scope, cells: &[u8], o: u8, fixed: &mut Vec<bool>, stack: &mut Vec<u32>) {
    let n = sc.len();
    let out_is_o = |g: u32| g >= OUT && g != NONE && sc.ext[(g - OUT) as usize].0 == o;
    fixed.clear();
    fixed.resize(n, false);
    stack.clear();
    for l in 0..n {
        if cells[l] == o && !fixed[l] && sc.nbrs[l].iter().any(|&g| out_is_o(g)) {
            fixed[l] = true;
            stack.push(l as u32);
            while let Some(k) = stack.pop() {
                for &g in &sc.nbrs[k as usize] {
                    if g < OUT && cells[g as usize] == o && !fixed[g as usize] {
                        fixed[g as usize] = true;
                        stack.push(g);
                    }
                }
            }
        }
    }
}

/// The certificate of the rule of [`dead_by_links`] for `stones` in `cells` (module `zone`): the
/// enclosure it examines, with every fixed chain of the scope next to it, whole, by local
/// index; `None` when a point of `stones` holds a fixed stone. A state whose cells agree on it
/// has the same enclosure with the same fixed stones around it, where the rule finds the same
/// pairing.
pub(crate) fn enclosure_cert(sc: &Scope, cells: &[u8], stones: &[usize], owner: goban::Color) -> Option<crate::benson::Bits> {
    let n = sc.len();
    let mut fixed = Vec::new();
    mark_fixed(sc, cells, cell(owner.opponent()), &mut fixed, &mut Vec::new());
    let mut stack: Vec<usize> = Vec::new();
    let &s = stones.iter().find(|&&s| !fixed[s])?;
    let mut z = crate::benson::Bits::new(n);
    let mut seen = vec![false; n];
    let mut wall = Vec::new();
    seen[s] = true;
    stack.push(s);
    while let Some(l) = stack.pop() {
        z.set(l);
        for &g in &sc.nbrs[l] {
            if g == NONE || g >= OUT || seen[g as usize] {
                continue;
            }
            seen[g as usize] = true;
            if fixed[g as usize] {
                wall.push(g as usize);
            } else {
                stack.push(g as usize);
            }
        }
    }
    while let Some(l) = wall.pop() {
        z.set(l);
        for &g in &sc.nbrs[l] {
            if g < OUT && fixed[g as usize] && !seen[g as usize] {
                seen[g as usize] = true;
                wall.push(g as usize);
            }
        }
    }
    Some(z)
}

fn dead_by_links_in(
    sc: &Scope,
    cells: &[u8],
    stones: &[usize],
    owner: goban::Color,
    scratch: &mut Scratch,
    max_borrowers: usize,
    line: Option<&mut Vec<u32>>,
) -> bool {
    let Scratch { fixed, seen, stack, area, linked, pairing, bounded } = scratch;
    *bounded = false;
    let o = cell(owner.opponent());
    let c = cell(owner);
    let n = sc.len();
    let out_is_o = |g: u32| g >= OUT && g != NONE && sc.ext[(g - OUT) as usize].0 == o;
    mark_fixed(sc, cells, o, fixed, stack);
    let fixed = &*fixed;
    let next_to_fixed = |l: usize| sc.nbrs[l].iter().any(|&g| out_is_o(g) || (g < OUT && fixed[g as usize]));
    let near_block = |l: usize| sc.nbrs[l].iter().any(|&g| g < OUT && cells[g as usize] == o && !fixed[g as usize]);
    // Whether a point is next to a fixed stone or to a block (a link, if empty), by local
    // index, computed when first asked: 0 not yet, else `KNOWN` with `NEXT_TO_FIXED` and
    // `NEAR_BLOCK` as they hold.
    const KNOWN: u8 = 1;
    const NEXT_TO_FIXED: u8 = 2;
    const NEAR_BLOCK: u8 = 4;
    reset(linked, n, 0);
    let mut is_linked = |l: usize| {
        if linked[l] == 0 {
            linked[l] = KNOWN | if next_to_fixed(l) { NEXT_TO_FIXED } else { 0 } | if near_block(l) { NEAR_BLOCK } else { 0 };
        }
        linked[l] & (NEXT_TO_FIXED | NEAR_BLOCK) != 0
    };
    let Some(&s) = stones.iter().find(|&&s| !fixed[s]) else { return false };
    // The enclosure of `s`, given up at an outside neighbour that is not a fixed stone or at
    // a third inner point with fewer than two links (counting those that connected blocks
    // would make).
    seen.clear();
    seen.resize(n, false);
    area.clear();
    area.push(s as u32);
    seen[s] = true;
    let mut short: [usize; 2] = [usize::MAX; 2];
    let mut shorts = 0;
    // Inner points and links, counted as if every block were connected: a pairing takes two
    // links or lent points per paired point and lends each paired point once at most, so it
    // pairs no more points than there are links, and leaves out two at most.
    let (mut inner, mut links, mut borrowers) = (0usize, 0usize, 0usize);
    // Whether the enclosure holds an `o` stone that is not fixed (a *block*, which may be
    // connected to the fixed stones on the way, module docs).
    let mut blocks = cells[s] == o;
    let mut k = 0;
    while k < area.len() {
        let l = area[k] as usize;
        k += 1;
        for &g in &sc.nbrs[l] {
            if g == NONE {
                continue;
            }
            if g >= OUT {
                // Beyond the fixed stones, only a block may touch the outside, and only
                // the owner's stones there (a *bounding* block, which must be connected).
                if !out_is_o(g) {
                    if cells[l] != o || sc.ext[(g - OUT) as usize].0 != c {
                        return false;
                    }
                    *bounded = true;
                }
            } else if !fixed[g as usize] && !seen[g as usize] {
                seen[g as usize] = true;
                blocks |= cells[g as usize] == o;
                area.push(g);
            }
        }
        // A short point: fewer than two empty neighbours, links or inner points that could
        // be lent to it, even if every block were connected (a point holding or next to a
        // block may not be inner then). No pairing leaves out three. A point with fewer than
        // two links needs a lent point: at most `max_borrowers` of them are looked for.
        let linked_l = is_linked(l);
        if linked_l && cells[l] == EMPTY {
            links += 1;
        }
        if !linked_l && cells[l] != o {
            inner += 1;
            let (mut free, mut linking) = (0, 0);
            for &g in &sc.nbrs[l] {
                if g < OUT && cells[g as usize] == EMPTY {
                    free += 1;
                    linking += usize::from(is_linked(g as usize));
                }
            }
            if linking < 2 {
                borrowers += 1;
                if borrowers > max_borrowers {
                    return false;
                }
            }
            if free < 2 {
                if shorts == 2 {
                    return false;
                }
                short[shorts] = l;
                shorts += 1;
            }
        }
    }
    if (shorts == 2 && !sc.nbrs[short[0]].contains(&(short[1] as u32))) || inner > links + 2 {
        return false;
    }
    // Every point of the enclosure was asked above.
    let linked = &*linked;
    let next_to_fixed = |l: usize| if linked[l] & KNOWN != 0 { linked[l] & NEXT_TO_FIXED != 0 } else { next_to_fixed(l) };
    if blocks {
        return paired_with_blocks(sc, cells, area, o, &next_to_fixed, pairing, line);
    }
    let Pairing { flag, order, .. } = pairing;
    paired(sc, cells, area, &next_to_fixed, &[], flag, order, line, false)
}

/// [`paired`] for an enclosure that holds blocks (`o` chains that are not fixed): first the
/// blocks that have two liberties among the links (next to a fixed stone or to a block
/// connected before), no link given twice, are *connected* — in turn, as long as one more
/// is — and count as fixed for the pairing of the other points, which may not use their
/// links. Pushes to `line` one link of each connected block, in order, before the pairs'.
fn paired_with_blocks(
    sc: &Scope,
    cells: &[u8],
    area: &[u32],
    o: u8,
    next_to_fixed: &dyn Fn(usize) -> bool,
    pairing: &mut Pairing,
    mut line: Option<&mut Vec<u32>>,
) -> bool {
    let n = cells.len();
    let Pairing { connected, taken, taken_list, met, stones, starts, left, libs, rest, flag, order } = pairing;
    reset(connected, n, false);
    reset(taken, n, false);
    taken_list.clear();
    // The blocks of the enclosure, each as its stones.
    reset(met, n, false);
    stones.clear();
    starts.clear();
    for &a in area {
        let a = a as usize;
        if cells[a] != o || met[a] {
            continue;
        }
        let mut k = stones.len();
        starts.push(k as u32);
        stones.push(a as u32);
        met[a] = true;
        while k < stones.len() {
            for &g in &sc.nbrs[stones[k] as usize] {
                if g < OUT && cells[g as usize] == o && !met[g as usize] {
                    met[g as usize] = true;
                    stones.push(g);
                }
            }
            k += 1;
        }
    }
    let blocks = starts.len();
    starts.push(stones.len() as u32);
    // Next to a fixed stone or to a block connected so far.
    let near = |connected: &[bool], l: usize| next_to_fixed(l) || sc.nbrs[l].iter().any(|&g| g < OUT && connected[g as usize]);
    left.clear();
    left.extend(0..blocks as u32);
    loop {
        // One round over the blocks not connected yet, in order; a block connected in it
        // counts for those after it.
        let mut joined = false;
        let mut kept = 0;
        for i in 0..left.len() {
            let b = left[i] as usize;
            let block = &stones[starts[b] as usize..starts[b + 1] as usize];
            libs.clear();
            for &x in block {
                for &g in &sc.nbrs[x as usize] {
                    let g = g as usize;
                    if g < n && cells[g] == EMPTY && !taken[g] && !libs.contains(&g) && near(connected, g) {
                        libs.push(g);
                    }
                }
            }
            if libs.len() < 2 {
                left[kept] = b as u32;
                kept += 1;
                continue;
            }
            libs.sort_unstable();
            for &l in &libs[..2] {
                taken[l] = true;
                taken_list.push(l);
            }
            for &x in block {
                connected[x as usize] = true;
            }
            if let Some(line) = line.as_mut() {
                line.push(libs[0] as u32);
            }
            joined = true;
        }
        left.truncate(kept);
        if !joined {
            break;
        }
    }
    // A bounding block (next to an outside stone that is not `o`'s) must be connected: the
    // enclosure is closed by it only once it is fixed.
    let bounding = |x: u32| sc.nbrs[x as usize].iter().any(|&g| g >= OUT && g != NONE && sc.ext[(g - OUT) as usize].0 != o);
    if left.iter().any(|&b| stones[starts[b as usize] as usize..starts[b as usize + 1] as usize].iter().any(|&x| bounding(x))) {
        return false;
    }
    rest.clear();
    rest.extend(area.iter().copied().filter(|&a| !connected[a as usize]));
    let connected = &*connected;
    paired(sc, cells, rest, &|l| near(connected, l), taken_list, flag, order, line, false)
}

/// Whether the inner points of the enclosure `area` have a pairing (module docs), found
/// greedily (pushing one link of each pair to `line`, a lent point only when both are):
/// rounds over the points not paired yet, those with fewest free links first, each taking
/// the links fewest other inner points could use, then points lent to it; an empty point
/// paired becomes lendable. The rounds stop when one pairs nothing. A pairing found is a
/// pairing; one missed only leaves the line to the search.
#[allow(clippy::too_many_arguments)]
fn paired(
    sc: &Scope,
    cells: &[u8],
    area: &[u32],
    next_to_fixed: &dyn Fn(usize) -> bool,
    taken: &[usize],
    flag: &mut Vec<u8>,
    order: &mut Vec<(usize, [u32; 4], usize)>,
    mut line: Option<&mut Vec<u32>>,
    strict: bool,
) -> bool {
    // Per local point: a link, an inner point, a link given, a point lendable (an empty
    // inner point already paired and not yet lent: it may serve one neighbour paired after it),
    // and for an inner point not paired yet whether a neighbour became lendable since it last
    // failed to pair (else it would fail again: its links and lent points only went).
    const LINK: u8 = 1;
    const INNER: u8 = 2;
    const USED: u8 = 4;
    const LENDABLE: u8 = 8;
    const CHANGED: u8 = 16;
    reset(flag, cells.len(), 0);
    order.clear();
    for &l in area {
        let l = l as usize;
        flag[l] = if !next_to_fixed(l) {
            INNER | CHANGED
        } else if cells[l] == EMPTY {
            LINK
        } else {
            0
        };
    }
    for &t in taken {
        flag[t] |= USED;
    }
    for &l in area {
        let q = l as usize;
        if flag[q] & INNER != 0 {
            let mut ls = [NONE; 4];
            let mut k = 0;
            for &g in &sc.nbrs[q] {
                if g < OUT && flag[g as usize] & LINK != 0 {
                    ls[k] = g;
                    k += 1;
                }
            }
            order.push((q, ls, k));
        }
    }
    // Whether the points left unpaired may go without: none when `strict`, else at most two,
    // adjacent if two.
    let may_go_without = |left: &[(usize, [u32; 4], usize)]| match left {
        [] => true,
        _ if strict => false,
        [_] => true,
        [a, b] => sc.nbrs[a.0].contains(&(b.0 as u32)),
        _ => false,
    };
    if may_go_without(order) {
        return true;
    }
    // How many inner points a link could serve.
    let demand = |g: u32| sc.nbrs[g as usize].iter().filter(|&&h| h < OUT && flag[h as usize] & INNER != 0).count();
    order.sort_by_key(|&(q, _, k)| (k, q));
    for (_, ls, k) in order.iter_mut() {
        ls[..*k].sort_by_key(|&g| (demand(g), g));
    }
    loop {
        let mut progress = false;
        order.retain(|&(q, ls, k)| {
            if flag[q] & CHANGED == 0 {
                return true;
            }
            // Free links first (fewest other takers first), then points lent to `q`.
            let mut pair = [NONE; 2];
            let mut np = 0;
            for &g in ls[..k].iter().chain(sc.nbrs[q].iter()) {
                if np == 2 {
                    break;
                }
                let is_link = ls[..k].contains(&g);
                if g < OUT
                    && ((is_link && flag[g as usize] & USED == 0) || (!is_link && flag[g as usize] & LENDABLE != 0))
                    && !pair[..np].contains(&g)
                {
                    pair[np] = g;
                    np += 1;
                }
            }
            if np < 2 {
                flag[q] &= !CHANGED;
                return true;
            }
            for &g in &pair {
                let f = &mut flag[g as usize];
                *f = if *f & LENDABLE != 0 { *f & !LENDABLE } else { *f | USED };
            }
            if let Some(line) = line.as_mut() {
                line.push(pair[0]);
            }
            if cells[q] == EMPTY {
                flag[q] |= LENDABLE;
                for &g in &sc.nbrs[q] {
                    if g < OUT {
                        flag[g as usize] |= CHANGED;
                    }
                }
            }
            progress = true;
            false
        });
        if !progress || order.is_empty() {
            break;
        }
    }
    may_go_without(order)
}

/// A pairing of a *territory* of the defender: `sc` is a region whose every neighbour outside
/// is a defender's stone (a maximal set of points holding none of its stones), `cells` its
/// cells. The links are its empty points next to those stones; every other point (empty, or
/// holding an attacker's stone) is inner and gets two links or lent points, as in the rule of
/// [`dead_by_links`] with the defender's boundary stones as the fixed ones. With `strict` no
/// inner point may go without; else at most two adjacent ones. Returns the defender's line
/// (one link of each pair, local indices, in the pairing's order), `None` without a pairing.
pub(crate) fn territory_pairing(sc: &Scope, cells: &[u8], strict: bool) -> Option<Vec<u32>> {
    let area: Vec<u32> = (0..sc.len() as u32).collect();
    let next_to_boundary = |l: usize| sc.nbrs[l].iter().any(|&g| g != NONE && g >= OUT);
    let (mut flag, mut order, mut line) = (Vec::new(), Vec::new(), Vec::new());
    paired(sc, cells, &area, &next_to_boundary, &[], &mut flag, &mut order, Some(&mut line), strict).then_some(line)
}

/// Whether the defender of a territory's local game (module `safety`) wins from `cells` by
/// pairing alone (after the static rules of Müller, "Playing it safe", 1997, and Fuego's
/// `GoRegion::Find2ConnForAllInterior`, here as an end of the local game's search).
///
/// `sc` is the local game's scope (walled by the attacker), `area` the territory's local
/// points, `defender` the defender's cell, `virtual_eye` whether a chain holding a boundary
/// stone is credited one healthy region. Two of the defender's chains next to two empty
/// points of `area` each, which no other such *joint* uses, form one *block* (a miai
/// connection), recursively; joint points are never links. The points of `area` not holding
/// a defender's stone split into *components*; a component is *private* to a block when every
/// defender's stone next to it is the block's, and counts for it when it holds a point that
/// is not a joint. It holds when the inner points of every component (those next to no
/// defender's stone) pair with no omission, links next to the defender's stones ([`paired`]
/// with `strict`), and every block has two components that count for it — the virtual eye
/// counting as one when there is one block only.
///
/// Why it is a win (2011 only), by the defender's strategy: when the attacker plays a joint
/// point, the other point of that joint; when it plays a link of an inner point not yet next
/// to a defender's stone, the other link ([`dead_by_links`]' strategy, with the defender's
/// stones as the fixed ones, in every component: no point of one is next to another's);
/// otherwise one joint point or one link, or a pass when all is done. Every stone it plays
/// joins chains of one block, so a private component stays private. In a bounded number of
/// moves every block is one chain and every point of every component is next to a defender's
/// stone; a component that counts keeps a point the defender never fills, so it keeps an empty
/// point (a component of attacker's stones only would have no liberty): a healthy region of
/// Benson's. Every block then has two (one block: one and the virtual eye), so every point of
/// `area` is next to a pass-alive chain — the local game's goal. No defender's stone is
/// captured on the way: a chain keeps the two empty points of each of its joints until the
/// joint is played, and a whole block both links of the first unfinished point of each
/// component it borders, or, all finished, the empty points of its components that count,
/// none of which the attacker can fill last (with one block and a virtual eye the goal is
/// reached as soon as all is finished). A ban of 第五条 lasts one move and bars the point of a
/// stone just captured, which was not empty before the attacker's move, while the defender's
/// answer was: the answer is never barred. (Under 1989 a ban lasts until a pass, so the
/// local games there do not take this end.)
pub(crate) fn local_game_paired(sc: &Scope, cells: &[u8], area: &[usize], defender: u8, virtual_eye: bool) -> bool {
    let n = cells.len();
    // The defender's chains: a label per stone, and per chain its credits so far.
    let mut chain = vec![NONE; n];
    let mut credits: Vec<u32> = Vec::new();
    let mut stack = Vec::new();
    for s in 0..n {
        if cells[s] != defender || chain[s] != NONE {
            continue;
        }
        let id = credits.len() as u32;
        let mut virtual_credit = 0;
        chain[s] = id;
        stack.push(s);
        while let Some(l) = stack.pop() {
            if virtual_eye && sc.virtual_eye.get(l) == Some(&true) {
                virtual_credit = 1;
            }
            for &g in &sc.nbrs[l] {
                if g < OUT && cells[g as usize] == defender && chain[g as usize] == NONE {
                    chain[g as usize] = id;
                    stack.push(g as usize);
                }
            }
        }
        credits.push(virtual_credit);
    }
    if credits.is_empty() {
        return false;
    }
    // Miai joints: two chains next to two empty points of `area` each, which no other joint
    // uses, are one block (the defender answers a move on one point with the other). The
    // points are reserved: no pairing uses them as links.
    let mut block: Vec<u32> = (0..credits.len() as u32).collect();
    fn root(block: &mut [u32], mut c: u32) -> u32 {
        while block[c as usize] != c {
            block[c as usize] = block[block[c as usize] as usize];
            c = block[c as usize];
        }
        c
    }
    let mut joints: Vec<usize> = Vec::new();
    if credits.len() > 1 {
        // Empty points of `area` next to two chains or more: (chain, chain, point).
        let mut shared: Vec<(u32, u32, usize)> = Vec::new();
        for &a in area {
            if cells[a] != EMPTY {
                continue;
            }
            let mut next: Vec<u32> =
                sc.nbrs[a].iter().filter(|&&g| g < OUT && cells[g as usize] == defender).map(|&g| chain[g as usize]).collect();
            next.sort_unstable();
            next.dedup();
            for i in 0..next.len() {
                for j in i + 1..next.len() {
                    shared.push((next[i], next[j], a));
                }
            }
        }
        shared.sort_unstable();
        let mut i = 0;
        while i < shared.len() {
            let (x, y) = (shared[i].0, shared[i].1);
            let mut j = i;
            while j < shared.len() && (shared[j].0, shared[j].1) == (x, y) {
                j += 1;
            }
            let free: Vec<usize> = shared[i..j].iter().map(|t| t.2).filter(|p| !joints.contains(p)).take(2).collect();
            let (rx, ry) = (root(&mut block, x), root(&mut block, y));
            if free.len() == 2 && rx != ry {
                block[rx as usize] = ry;
                joints.extend(free);
            }
            i = j;
        }
        for c in 0..credits.len() {
            let r = root(&mut block, c as u32) as usize;
            if r != c {
                credits[r] = credits[r].max(credits[c]);
            }
        }
        for (c, credit) in credits.iter_mut().enumerate() {
            if root(&mut block, c as u32) as usize != c {
                *credit = u32::MAX;
            }
        }
    }
    let virtual_credits: Vec<u32> = credits.iter().map(|&c| if c == u32::MAX { 0 } else { c }).collect();
    let mut in_area = vec![false; n];
    for &a in area {
        in_area[a] = cells[a] != defender;
    }
    let next_to_c = |l: usize| sc.nbrs[l].iter().any(|&g| g < OUT && cells[g as usize] == defender);
    let (mut flag, mut order) = (Vec::new(), Vec::new());
    for &a in area {
        if !in_area[a] {
            continue;
        }
        let mut comp = vec![a as u32];
        in_area[a] = false;
        // The one chain next to the component so far (`NONE`: none yet; `OUT`: several).
        let mut owner = NONE;
        let mut k = 0;
        while k < comp.len() {
            for &g in &sc.nbrs[comp[k] as usize] {
                if g >= OUT {
                    continue;
                }
                if in_area[g as usize] {
                    in_area[g as usize] = false;
                    comp.push(g);
                } else if cells[g as usize] == defender {
                    let c = root(&mut block, chain[g as usize]);
                    owner = if owner == NONE || owner == c { c } else { OUT };
                }
            }
            k += 1;
        }
        if !paired(sc, cells, &comp, &next_to_c, &joints, &mut flag, &mut order, None, true) {
            return false;
        }
        // A component of joint points only may be filled by the defender's answers.
        if owner != NONE && owner != OUT && comp.iter().any(|&l| !joints.contains(&(l as usize))) {
            credits[owner as usize] += 1;
        }
    }
    // One block: its virtual eye counts (every link left is next to it, so it keeps a liberty
    // until the end). Several: each needs two private components of its own — a block
    // finished early with one and a virtual eye could be captured in the local game while
    // another block is still finishing.
    let blocks = credits.iter().filter(|&&c| c != u32::MAX).count();
    credits.iter().zip(&virtual_credits).all(|(&c, &v)| c == u32::MAX || c >= 2 + if blocks > 1 { v } else { 0 })
}

#[cfg(test)]
mod tests;
