//! Unconditional life (Benson's pass-alive chains) and unconditional area, on the whole
//! board or on one search region.
//!
//! These are the *end conditions* of hypothetical play (第七条): a point in the
//! unconditional area of a colour is that colour's for good — the opponent can never take
//! it, not even with unlimited consecutive moves (相手方の無制限の連続着手, 第八条 解説).
//!
//! Definitions (for a colour `c`, opponent `o`):
//!
//! * A *c-region* is a maximal 4-connected set of points that hold no `c` stone.
//! * A c-region `E` is *healthy* for a `c` chain `x` when every empty point of `E` is a
//!   liberty of `x` (Benson 1976).
//! * Benson's algorithm: start with every `c` chain in `X` and every c-region in `R`;
//!   repeatedly drop from `X` the chains with fewer than two healthy regions in `R`, and
//!   from `R` the regions bordered by a dropped chain. The chains left in `X` are
//!   *pass-alive*: `o` cannot capture them even if `c` passes for ever.
//! * The *unconditional area* `U_c` is the stones of pass-alive chains plus every maximal
//!   4-connected set `E` of points outside the pass-alive chains that is enclosed by them
//!   (every neighbour outside `E` holds a pass-alive `c` stone) and in which every point
//!   (empty, holding an `o` stone, or a `c` stone that is not pass-alive) is adjacent to a
//!   pass-alive `c` chain, except at most two *interior* points, adjacent to each other if
//!   two. (A `c` stone of `E` is never next to a pass-alive chain — it would belong to it —
//!   so it is interior: at most two of them. Without such stones `E` is a c-region bordered
//!   only by pass-alive chains.) In such a set `c` can fill any non-interior empty
//!   point at any time (the new stone joins a pass-alive chain, which keeps liberties in
//!   its other healthy regions); once they are filled, `o`'s chains there have liberties
//!   only on the interior points, a space of at most two adjacent points, which gives `o`
//!   neither two eyes nor a seki: `c` captures them (on one point by playing it; on two,
//!   by playing one — if `o` takes that stone back, `c` retakes the lot). So every `o`
//!   stone there can be captured and `o` can never keep a stone there: the set is `c`'s
//!   whatever happens (相手方の帰属 for `o` stones inside it, for good; a `c` stone inside
//!   it may be captured on the way, but its point ends as `c`'s — 第八条 解説
//!   "一時的に取られるが、最終的に…活き石").
//!
//! One chain at a time: whether a chain's stones are in `U_c` is often all a search needs
//! (a one-move life, an end of a line). [`chain_in_area`] answers it by Benson's iteration
//! over only the chains the chain's pass-aliveness depends on — those bordering its healthy
//! regions, theirs, and so on — which gives the same answer as the whole computation (see
//! its docs and the random cross-check in the tests) at a fraction of its cost in large
//! regions.
//!
//! Region-local computation: the search only moves inside a region whose every
//! neighbouring point outside holds a pass-alive stone (see `lib.rs`). Outside stones of
//! `c` are therefore pass-alive for good ("fixed"), and a c-region that reaches an outside
//! point not holding `c` reaches an `o` pass-alive chain and is never healthy.

use goban::Color;

pub(crate) use crate::scope::{cell, Bits, Scope, EMPTY, NONE, OUT};

/// Result of the unconditional analysis for one colour, over a scope (local indices).
#[derive(Clone, Debug)]
pub(crate) struct Safe {
    /// Stones of pass-alive chains.
    pub pa: Bits,
    /// The unconditional area `U_c` (pass-alive stones and the regions described above).
    pub area: Bits,
}

/// A region's flood meets an empty point next to the chains `adj`: the chains it is healthy
/// for so far, `healthy[h0..]`, become those next to every empty point met (the first empty
/// point gives the start, `first` is then cleared).
fn next_to_empty(healthy: &mut Vec<u32>, h0: usize, first: &mut bool, adj: &[u32]) {
    if *first {
        healthy.extend_from_slice(adj);
        *first = false;
        return;
    }
    let mut k = h0;
    for j in h0..healthy.len() {
        if adj.contains(&healthy[j]) {
            healthy[k] = healthy[j];
            k += 1;
        }
    }
    healthy.truncate(k);
}

/// Working buffers of [`benson_iteration`]; `alive` is its answer.
#[derive(Default)]
struct Iteration {
    count: Vec<usize>,
    regs_at: Vec<u32>,
    fill: Vec<u32>,
    regs_of: Vec<u32>,
    alive: Vec<bool>,
    work: Vec<u32>,
}

/// Benson's iteration, as a worklist, shared by [`unconditional`] and [`chain_in_area`]:
/// chains `0..nc` (`fixed[k]`: touches `c` stones outside the scope, never dropped;
/// `bonus[k]`: virtual healthy regions credited to it) and regions given flat — region `r`
/// is healthy for the chains `healthy[healthy_at[r]..healthy_at[r + 1]]` (ids `>= nc` are
/// chains outside the scope: never counted, never dropped) and borders the chains
/// `border[border_at[r]..border_at[r + 1]]`, and counts at all only if `reg_ok[r]`. A chain
/// with fewer than two healthy regions left is dropped, and so is every region it borders
/// (which may drop further chains). Leaves in `it.alive[k]` whether chain `k` stays (is
/// pass-alive); `reg_ok` ends false for every dropped region.
#[allow(clippy::too_many_arguments)]
fn benson_iteration(
    nc: usize,
    fixed: &[bool],
    bonus: &[usize],
    healthy: &[u32],
    healthy_at: &[u32],
    border: &[u32],
    border_at: &[u32],
    reg_ok: &mut [bool],
    it: &mut Iteration,
) {
    let Iteration { count, regs_at, fill, regs_of, alive, work } = it;
    let nreg = healthy_at.len() - 1;
    let span = |at: &[u32], r: usize| at[r] as usize..at[r + 1] as usize;
    reset(count, nc, 0);
    for r in 0..nreg {
        if reg_ok[r] {
            for &h in &healthy[span(healthy_at, r)] {
                if (h as usize) < nc {
                    count[h as usize] += 1;
                }
            }
        }
    }
    // The regions each chain borders (inverse of `border`), flat.
    reset(regs_at, nc + 1, 0);
    for &b in border {
        regs_at[b as usize + 1] += 1;
    }
    for k in 0..nc {
        regs_at[k + 1] += regs_at[k];
    }
    fill.clear();
    fill.extend_from_slice(regs_at);
    reset(regs_of, border.len(), 0);
    for r in 0..nreg {
        for &b in &border[span(border_at, r)] {
            regs_of[fill[b as usize] as usize] = r as u32;
            fill[b as usize] += 1;
        }
    }
    reset(alive, nc, true);
    work.clear();
    for k in 0..nc {
        if !fixed[k] && count[k] + bonus[k] < 2 {
            alive[k] = false;
            work.push(k as u32);
        }
    }
    while let Some(k) = work.pop() {
        for &r in &regs_of[span(regs_at, k as usize)] {
            let r = r as usize;
            if !reg_ok[r] {
                continue;
            }
            reg_ok[r] = false;
            for &h in &healthy[span(healthy_at, r)] {
                let h = h as usize;
                if h < nc && alive[h] && !fixed[h] {
                    count[h] -= 1;
                    if count[h] + bonus[h] < 2 {
                        alive[h] = false;
                        work.push(h as u32);
                    }
                }
            }
        }
    }
}

/// Benson's pass-alive chains of `c` and the unconditional area `U_c` for the local
/// `cells` of scope `sc` (stones of `c` outside the scope count as pass-alive; other
/// outside points as the opponent's pass-alive stones).
pub(crate) fn unconditional(cells: &[u8], c: Color, sc: &Scope) -> Safe {
    SCRATCH.with(|s| unconditional_in(&mut s.borrow_mut(), cells, c, sc))
}

/// Working buffers of [`unconditional`], kept per thread between calls (it is called once
/// per position reached in a search, where allocating them each time would cost much of its
/// time). Every buffer is cleared and sized afresh by each call.
#[derive(Default)]
struct Scratch {
    chain: Vec<u32>,
    fixed: Vec<bool>,
    stack: Vec<u32>,
    bonus: Vec<usize>,
    reg_of: Vec<u32>,
    open: Vec<bool>,
    border: Vec<u32>,
    border_at: Vec<u32>,
    healthy: Vec<u32>,
    healthy_at: Vec<u32>,
    all: Vec<u32>,
    last_reg: Vec<u32>,
    reg_ok: Vec<bool>,
    it: Iteration,
    comp: Vec<bool>,
    pts: Vec<u32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Resets `v` to `n` copies of `x`, keeping its allocation.
pub(crate) fn reset<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}

fn unconditional_in(sx: &mut Scratch, cells: &[u8], c: Color, sc: &Scope) -> Safe {
    let Scratch { chain, fixed, stack, bonus, reg_of, open, border, border_at, healthy, healthy_at, all, last_reg, reg_ok, it, comp, pts } =
        sx;
    let n = sc.len();
    let me = cell(c);
    // Chains of `c` inside the scope.
    reset(chain, n, NONE);
    fixed.clear();
    stack.clear();
    for s in 0..n {
        if chain[s] != NONE || cells[s] != me {
            continue;
        }
        let id = fixed.len() as u32;
        fixed.push(false);
        chain[s] = id;
        stack.push(s as u32);
        while let Some(l) = stack.pop() {
            for &g in &sc.nbrs[l as usize] {
                if g == NONE {
                    continue;
                }
                if g >= OUT {
                    if sc.ext[(g - OUT) as usize].0 == me {
                        fixed[id as usize] = true;
                    }
                } else if cells[g as usize] == me && chain[g as usize] == NONE {
                    chain[g as usize] = id;
                    stack.push(g);
                }
            }
        }
    }
    let nchains = fixed.len() as u32;
    reset(bonus, nchains as usize, 0);
    if !sc.virtual_eye.is_empty() {
        for s in 0..n {
            if chain[s] != NONE && sc.virtual_eye[s] {
                bonus[chain[s] as usize] = 1;
            }
        }
    }
    // Chain id of a `c` stone neighbour (local or outside).
    let chain_at = |g: u32| -> Option<u32> {
        if g >= OUT {
            let (v, id) = sc.ext[(g - OUT) as usize];
            (v == me).then_some(nchains + id)
        } else if cells[g as usize] == me {
            Some(chain[g as usize])
        } else {
            None
        }
    };

    // The c-regions, as flat lists: region `r` borders the local chains
    // `border[border_at[r]..border_at[r + 1]]` and is healthy for the chains (local or
    // outside) `healthy[healthy_at[r]..healthy_at[r + 1]]`; `open` when it reaches an
    // outside point not holding `c` (never healthy, see the module docs).
    reset(reg_of, n, NONE);
    open.clear();
    border.clear();
    reset(border_at, 1, 0);
    healthy.clear();
    reset(healthy_at, 1, 0);
    all.clear();
    // By chain id (local, then `nchains +` outside id): the last region that listed it.
    reset(last_reg, nchains as usize + sc.ext.len(), NONE);
    for s in 0..n {
        if reg_of[s] != NONE || cells[s] == me {
            continue;
        }
        let id = open.len() as u32;
        let h0 = healthy.len();
        let mut is_open = false;
        let mut first_empty = true;
        all.clear();
        reg_of[s] = id;
        stack.push(s as u32);
        while let Some(l) = stack.pop() {
            let mut adj: [u32; 4] = [NONE; 4];
            let mut na = 0;
            for &g in &sc.nbrs[l as usize] {
                if g == NONE {
                    continue;
                }
                if let Some(cid) = chain_at(g) {
                    if last_reg[cid as usize] != id {
                        last_reg[cid as usize] = id;
                        if cid < nchains {
                            border.push(cid);
                        }
                        all.push(cid);
                    }
                    if !adj[..na].contains(&cid) {
                        adj[na] = cid;
                        na += 1;
                    }
                } else if g >= OUT {
                    is_open = true;
                } else if reg_of[g as usize] == NONE {
                    reg_of[g as usize] = id;
                    stack.push(g);
                }
            }
            if cells[l as usize] == EMPTY {
                next_to_empty(healthy, h0, &mut first_empty, &adj[..na]);
            }
        }
        if first_empty {
            // No empty point (stones without liberties, only in odd setups): healthy for
            // every bordering chain, as in Benson's definition.
            healthy.extend_from_slice(all);
        }
        open.push(is_open);
        border_at.push(border.len() as u32);
        healthy_at.push(healthy.len() as u32);
    }
    // Benson's iteration (regions that reach outside points not holding `c` never count).
    let nc = nchains as usize;
    reg_ok.clear();
    reg_ok.extend(open.iter().map(|&o| !o));
    benson_iteration(nc, fixed, bonus, healthy, healthy_at, border, border_at, reg_ok, it);
    let alive = &it.alive;

    let mut pa = Bits::new(n);
    let mut area = Bits::new(n);
    for s in 0..n {
        if chain[s] != NONE && alive[chain[s] as usize] {
            pa.set(s);
            area.set(s);
        }
    }
    let is_alive_c = |g: u32| -> bool {
        match chain_at(g) {
            Some(id) => id >= nchains || alive[id as usize],
            None => false,
        }
    };
    // The unconditional area: every component of the points outside the pass-alive chains
    // that is enclosed by them (no outside neighbour but `c`'s pass-alive stones) and has at
    // most two interior points, adjacent if two (interior: not next to a pass-alive chain).
    // The opponent's stones there can have at most a two-point space, so no two eyes and no
    // seki (c fills every other point safely, joining its pass-alive chains, then the
    // interior), see the module docs. A `c` stone of such a component is never next to a
    // pass-alive chain (it would belong to it), so it is interior: at most two of them,
    // and whatever happens to them their points end in `c`'s area.
    reset(comp, n, false);
    pts.clear();
    for s0 in 0..n {
        if comp[s0] || pa.get(s0) {
            continue;
        }
        pts.clear();
        pts.push(s0 as u32);
        comp[s0] = true;
        let mut open = false;
        let mut any_border = false;
        let mut interior = [NONE; 3];
        let mut ni = 0;
        let mut k = 0;
        while k < pts.len() {
            let l = pts[k];
            k += 1;
            let mut next_to_alive = false;
            for &g in &sc.nbrs[l as usize] {
                if g == NONE {
                    continue;
                }
                if is_alive_c(g) {
                    next_to_alive = true;
                    any_border = true;
                } else if g >= OUT {
                    open = true;
                } else if !comp[g as usize] && !pa.get(g as usize) {
                    comp[g as usize] = true;
                    pts.push(g);
                }
            }
            if !next_to_alive && ni < 3 {
                interior[ni] = l;
                ni += 1;
            }
        }
        let small = match ni {
            0 | 1 => true,
            2 => sc.nbrs[interior[0] as usize].contains(&interior[1]),
            _ => false,
        };
        if small && !open && any_border {
            for &l in pts.iter() {
                area.set(l as usize);
            }
        }
    }
    Safe { pa, area }
}

mod chain;
pub(crate) use chain::{chain_in_area, may_be_in_area, may_reach_area};

#[cfg(test)]
mod tests;
