//! One chain's (or a few points') place in an unconditional area, answered without the
//! whole computation of [`unconditional`]: quick necessary tests that rule a chain or its
//! points out, and Benson's iteration over only the chains a chain's life depends on (see
//! the parent module's docs for the definitions).

use super::*;

/// A quick necessary condition for every point of `stones` (local indices of a chain of
/// `c`) to be in `U_c` of `cells` — when it fails, [`unconditional`] need not be computed
/// to know they are not. Let `X` be the chain holding `stones`. Either `X` is pass-alive,
/// and Benson requires two healthy regions: c-regions next to it, not open, whose every
/// empty point is a liberty of `X` (a region with no empty point is healthy for every chain
/// around it); or `X` is not, and its stones are interior points of an enclosed component
/// (module docs): then `X` has at most two stones, and every point next to `X` is next to
/// another `c` stone (a pass-alive chain) but for at most `2 - |X|` of them (the other
/// interior point). Counted without Benson's iteration, so this is only an upper bound:
/// `true` means "maybe", `false` means "certainly not". Also `true` when a stone is no
/// longer `c`'s (captured: its point may still be in the area), when `X` touches `c`'s
/// stones outside the scope (pass-alive for good), or when `X` holds a virtual eye and one
/// more region would do.
pub(crate) fn may_be_in_area(cells: &[u8], c: Color, sc: &Scope, stones: &[usize]) -> bool {
    let me = cell(c);
    if stones.iter().any(|&s| cells[s] != me) {
        return true;
    }
    MAY_BE_SCRATCH.with(|s| {
        let (mark, xs, stack) = &mut *s.borrow_mut();
        may_be_in_area_in(cells, me, sc, stones, mark, xs, stack)
    })
}

thread_local! {
    /// Buffers of [`may_be_in_area`]: marks by point, the chain's stones, the flood's stack.
    static MAY_BE_SCRATCH: std::cell::RefCell<(Vec<u8>, Vec<u32>, Vec<u32>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// [`may_be_in_area`] for a chain standing on the board (cell value `me`), with its buffers.
fn may_be_in_area_in(
    cells: &[u8],
    me: u8,
    sc: &Scope,
    stones: &[usize],
    mark: &mut Vec<u8>,
    xs: &mut Vec<u32>,
    stack: &mut Vec<u32>,
) -> bool {
    // 0: unseen; 1: stone of X; 2: point of a region already examined.
    reset(mark, sc.len(), 0);
    xs.clear();
    xs.push(stones[0] as u32);
    mark[stones[0]] = 1;
    let mut k = 0;
    let mut need = 2usize;
    while k < xs.len() {
        let l = xs[k] as usize;
        k += 1;
        if !sc.virtual_eye.is_empty() && sc.virtual_eye[l] && need == 2 {
            need = 1;
        }
        for &g in &sc.nbrs[l] {
            if g == NONE {
                continue;
            }
            if g >= OUT {
                if sc.ext[(g - OUT) as usize].0 == me {
                    return true;
                }
            } else if cells[g as usize] == me && mark[g as usize] == 0 {
                mark[g as usize] = 1;
                xs.push(g);
            }
        }
    }
    if stones.iter().any(|&s| mark[s] != 1) {
        return true; // not one chain any more (cannot happen without captures): no claim
    }
    if xs.len() <= 2 {
        // Interior to an enclosed component? Points next to X must be next to another `c`
        // stone, all but `2 - |X|` of them, and none outside the scope but `c`'s.
        let mut unsupported = 0;
        let mut open = false;
        let mut seen: [u32; 8] = [NONE; 8];
        let mut ns = 0;
        for &x in xs.iter() {
            for &q in &sc.nbrs[x as usize] {
                if q == NONE || (q < OUT && mark[q as usize] == 1) || seen[..ns].contains(&q) {
                    continue;
                }
                if q >= OUT {
                    open = true; // not `c` (checked above): the component is not enclosed
                    continue;
                }
                seen[ns] = q;
                ns += 1;
                let supported = sc.nbrs[q as usize].iter().any(|&h| {
                    h != NONE
                        && if h >= OUT { sc.ext[(h - OUT) as usize].0 == me } else { cells[h as usize] == me && mark[h as usize] != 1 }
                });
                unsupported += usize::from(!supported);
            }
        }
        if !open && unsupported + xs.len() <= 2 {
            return true;
        }
    }
    let next_to_x = |mark: &[u8], l: usize| sc.nbrs[l].iter().any(|&g| g != NONE && g < OUT && mark[g as usize] == 1);
    let mut healthy = 0;
    for &x in xs.iter() {
        for &g in &sc.nbrs[x as usize] {
            if g == NONE || g >= OUT || mark[g as usize] != 0 {
                continue;
            }
            // A new c-region next to X: flood it, stopping at the first sign it is not healthy.
            let mut ok = true;
            stack.clear();
            stack.push(g);
            mark[g as usize] = 2;
            while let Some(l) = stack.pop() {
                let l = l as usize;
                if cells[l] == EMPTY && !next_to_x(mark, l) {
                    ok = false;
                    break;
                }
                for &h in &sc.nbrs[l] {
                    if h == NONE {
                        continue;
                    }
                    if h >= OUT {
                        if sc.ext[(h - OUT) as usize].0 != me {
                            ok = false; // open
                        }
                    } else if cells[h as usize] != me && mark[h as usize] == 0 {
                        mark[h as usize] = 2;
                        stack.push(h);
                    }
                }
                if !ok {
                    break;
                }
            }
            if ok {
                healthy += 1;
                if healthy >= need {
                    return true;
                }
            }
        }
    }
    false
}

/// A quick necessary condition for some point of `pts` (local indices: the stones of a chain
/// of `c`'s opponent, or their points once captured — 4-connected) to be in `U_c` of `cells`
/// — when it fails, [`unconditional`] need not be computed to know that none is. A point
/// holding a `c` stone may be pass-alive: "maybe". Any other point `p` lies, in `U_c`'s
/// definition (module docs), in a maximal set `E` of points outside the pass-alive chains,
/// and `E` contains `F`, the points connected to `p` through points of the scope that hold
/// no `c` stone (none of them can be pass-alive `c`). If `F` reaches a point outside the
/// scope that is not `c`'s, `E` is open; if `F` has three points next to no `c` stone (in
/// the scope or outside), or two that are not adjacent, `E` has that many interior points (no
/// pass-alive chain is next to them). Either way `E` is not in `U_c`; otherwise "maybe". The
/// points of `pts` hold no `c` stone and are 4-connected, so they all lie in the same `F`:
/// one flood, from the first, answers for all. Cost: that flood, stopped at the first sign.
pub(crate) fn may_reach_area(cells: &[u8], c: Color, sc: &Scope, pts: &[usize]) -> bool {
    let me = cell(c);
    if pts.iter().any(|&s| cells[s] == me) {
        return true;
    }
    AREA_SCRATCH.with(|s| {
        let (mark, stack) = &mut *s.borrow_mut();
        mark.clear();
        mark.resize(sc.len(), false);
        // The points of `pts` are 4-connected and hold no `c` stone: they lie in one `F`.
        let Some(&p) = pts.first() else { return false };
        stack.clear();
        stack.push(p as u32);
        mark[p] = true;
        let mut interior: [u32; 2] = [NONE; 2];
        let mut ni = 0;
        while let Some(l) = stack.pop() {
            let mut next_to_c = false;
            for &g in &sc.nbrs[l as usize] {
                if g == NONE {
                    continue;
                }
                if g >= OUT {
                    if sc.ext[(g - OUT) as usize].0 == me {
                        next_to_c = true;
                    } else {
                        return false; // open
                    }
                } else if cells[g as usize] == me {
                    next_to_c = true;
                } else if !mark[g as usize] {
                    mark[g as usize] = true;
                    stack.push(g);
                }
            }
            if !next_to_c {
                if ni == 2 || (ni == 1 && !sc.nbrs[l as usize].contains(&interior[0])) {
                    return false;
                }
                interior[ni] = l;
                ni += 1;
            }
        }
        true
    })
}

thread_local! {
    /// Buffers of [`may_reach_area`]: points met, the flood's stack.
    static AREA_SCRATCH: std::cell::RefCell<(Vec<bool>, Vec<u32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// Whether every point of `stones` (local indices of one chain `X` of `c`, all on the board)
/// is in `U_c` of `cells`, computed only over the part of the scope `X`'s pass-aliveness
/// depends on; `None` when that part does not settle it (then compute [`unconditional`]).
/// Same answer as `stones.iter().all(|&s| unconditional(cells, c, sc).area.get(s))`
/// whenever it answers (checked on random positions, see the tests).
///
/// Why it is exact. Benson's iteration drops a chain when fewer than two of the regions
/// healthy for it are left, and a region when a chain bordering it is dropped. So whether
/// `X` is dropped depends only on the closure `S`: `X`, and for every chain of `S` the chains
/// bordering each (not open) region healthy for it — a region healthy for no chain of `S`
/// never counts for one, and every chain whose fall could remove a region that does count
/// is in `S`. The iteration restricted to `S` and those regions therefore drops `X` exactly
/// when the whole one does. If `X` stays, its stones are pass-alive, so in `U_c`. If it
/// falls, its stones (all `c`'s, none next to a pass-alive chain) are interior points of any
/// enclosed component they lie in, so they are in `U_c` only if `X` has at most two stones:
/// that case is left to [`unconditional`]. A region is flooded until it is known to count
/// for no chain (an empty point next to none of the chains it was healthy for so far, or an
/// outside point that is not `c`'s): a big territory stops at its first inner point.
pub(crate) fn chain_in_area(cells: &[u8], c: Color, sc: &Scope, stones: &[usize]) -> Option<bool> {
    CLOSURE_SCRATCH.with(|s| chain_in_area_in(&mut s.borrow_mut(), cells, c, sc, stones))
}

/// Working buffers of [`chain_in_area`], kept per thread (cleared by each call).
#[derive(Default)]
struct ClosureScratch {
    chain: Vec<u32>,
    fixed: Vec<bool>,
    bonus: Vec<usize>,
    members: Vec<u32>,
    member_at: Vec<u32>,
    reg_of: Vec<u32>,
    healthy: Vec<u32>,
    healthy_at: Vec<u32>,
    border: Vec<u32>,
    border_at: Vec<u32>,
    pts: Vec<u32>,
    all: Vec<u32>,
    in_s: Vec<bool>,
    todo: Vec<u32>,
    reg_ok: Vec<bool>,
    it: Iteration,
}

thread_local! {
    static CLOSURE_SCRATCH: std::cell::RefCell<ClosureScratch> = std::cell::RefCell::new(ClosureScratch::default());
}

fn chain_in_area_in(sx: &mut ClosureScratch, cells: &[u8], c: Color, sc: &Scope, stones: &[usize]) -> Option<bool> {
    let ClosureScratch {
        chain,
        fixed,
        bonus,
        members,
        member_at,
        reg_of,
        healthy,
        healthy_at,
        border,
        border_at,
        pts,
        all,
        in_s,
        todo,
        reg_ok,
        it,
    } = sx;
    let me = cell(c);
    if stones.is_empty() || stones.iter().any(|&s| cells[s] != me) {
        return None;
    }
    let n = sc.len();
    // Local chain id per point (NONE: not yet known); per chain: fixed, bonus.
    reset(chain, n, NONE);
    fixed.clear();
    bonus.clear();
    members.clear();
    reset(member_at, 1, 0);
    // Outside `c` chains get ids `OUT + ext chain id` (never dropped, never counted).
    let flood_chain = |start: usize,
                       chain: &mut Vec<u32>,
                       fixed: &mut Vec<bool>,
                       bonus: &mut Vec<usize>,
                       members: &mut Vec<u32>,
                       member_at: &mut Vec<u32>|
     -> u32 {
        let id = fixed.len() as u32;
        let mut fx = false;
        let mut bn = 0;
        chain[start] = id;
        let first = members.len();
        members.push(start as u32);
        let mut k = first;
        while k < members.len() {
            let l = members[k] as usize;
            k += 1;
            if !sc.virtual_eye.is_empty() && sc.virtual_eye[l] {
                bn = 1;
            }
            for &g in &sc.nbrs[l] {
                if g == NONE {
                    continue;
                }
                if g >= OUT {
                    fx |= sc.ext[(g - OUT) as usize].0 == me;
                } else if cells[g as usize] == me && chain[g as usize] == NONE {
                    chain[g as usize] = id;
                    members.push(g);
                }
            }
        }
        fixed.push(fx);
        bonus.push(bn);
        member_at.push(members.len() as u32);
        id
    };
    let x = flood_chain(stones[0], chain, fixed, bonus, members, member_at);
    if stones.iter().any(|&s| chain[s] != x) {
        return None; // not one chain
    }
    if fixed[x as usize] {
        return Some(true); // touches `c` stones outside the scope: pass-alive for good
    }
    // Relevant regions: (chains healthy for it, local chains bordering it), flat.
    reset(reg_of, n, NONE); // region id per point; DEAD_REG for a region that counts for no one
    const DEAD_REG: u32 = NONE - 1;
    healthy.clear();
    reset(healthy_at, 1, 0);
    border.clear();
    reset(border_at, 1, 0);
    pts.clear();
    all.clear();
    // The closure S: a worklist of chain ids (a chain gets an id when first met, and joins
    // S when it is `X` or borders a region that counts for a chain of S).
    reset(in_s, 1, true);
    reset(todo, 1, x);
    while let Some(y) = todo.pop() {
        if fixed[y as usize] {
            continue; // never dropped: its regions need not be known
        }
        for mi in member_at[y as usize]..member_at[y as usize + 1] {
            let l = members[mi as usize];
            for &seed in &sc.nbrs[l as usize] {
                if seed == NONE || seed >= OUT || cells[seed as usize] == me || reg_of[seed as usize] != NONE {
                    continue;
                }
                // Flood the c-region of `seed`.
                let id = healthy_at.len() as u32 - 1;
                let (h0, b0) = (healthy.len(), border.len());
                let mut dead = false;
                let mut first_empty = true;
                all.clear();
                pts.clear();
                pts.push(seed);
                reg_of[seed as usize] = id;
                let mut k = 0;
                'flood: while k < pts.len() {
                    let p = pts[k] as usize;
                    k += 1;
                    let mut adj: [u32; 4] = [NONE; 4];
                    let mut na = 0;
                    for &g in &sc.nbrs[p] {
                        if g == NONE {
                            continue;
                        }
                        let cid = if g >= OUT {
                            let (v, e) = sc.ext[(g - OUT) as usize];
                            if v != me {
                                dead = true; // open: never healthy
                                break 'flood;
                            }
                            OUT + e
                        } else if cells[g as usize] == me {
                            if chain[g as usize] == NONE {
                                flood_chain(g as usize, chain, fixed, bonus, members, member_at);
                            }
                            chain[g as usize]
                        } else {
                            match reg_of[g as usize] {
                                NONE => {
                                    reg_of[g as usize] = id;
                                    pts.push(g);
                                }
                                r if r == id => {}
                                _ => {
                                    dead = true; // met a region already found to count for no one
                                    break 'flood;
                                }
                            }
                            continue;
                        };
                        if !adj[..na].contains(&cid) {
                            adj[na] = cid;
                            na += 1;
                        }
                        if !all.contains(&cid) {
                            all.push(cid);
                        }
                    }
                    if cells[p] == EMPTY {
                        next_to_empty(healthy, h0, &mut first_empty, &adj[..na]);
                        if healthy.len() == h0 {
                            dead = true; // an empty point next to none of them: healthy for no one
                            break 'flood;
                        }
                    }
                }
                if !dead && first_empty {
                    healthy.extend_from_slice(all); // no empty point: healthy for every chain around
                }
                if dead || !healthy[h0..].iter().any(|&h| h < OUT) {
                    // Counts for no local chain: forget it (its points stay marked as such).
                    healthy.truncate(h0);
                    border.truncate(b0);
                    for &q in pts.iter() {
                        reg_of[q as usize] = DEAD_REG;
                    }
                    continue;
                }
                // Every local chain bordering it (`all` lists each once) joins S (flooded
                // above, so it has an id).
                if in_s.len() < fixed.len() {
                    in_s.resize(fixed.len(), false);
                }
                for &cid in all.iter().filter(|&&cid| cid < OUT) {
                    border.push(cid);
                    if !in_s[cid as usize] {
                        in_s[cid as usize] = true;
                        todo.push(cid);
                    }
                }
                healthy_at.push(healthy.len() as u32);
                border_at.push(border.len() as u32);
            }
        }
    }
    // Benson's iteration over S and its relevant regions (every one may count).
    reset(reg_ok, healthy_at.len() - 1, true);
    benson_iteration(fixed.len(), fixed, bonus, healthy, healthy_at, border, border_at, reg_ok, it);
    let alive = &it.alive;

    if alive[x as usize] {
        Some(true)
    } else if member_at[x as usize + 1] - member_at[x as usize] <= 2 {
        None // a small chain may still be interior to an enclosed component
    } else {
        Some(false)
    }
}
