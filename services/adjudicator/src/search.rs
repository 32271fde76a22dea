//! Hypothetical play (想定着手) inside one region: the state, the end conditions, forced
//! proofs ([`Prover`]) and the exact avoidance search ([`Trap`]) that settles seki and
//! cycles. See the crate documentation for the formalisation.

use crate::benson::{cell, unconditional, Bits, Scope, EMPTY, NONE, OUT};
use goban::{Color, Move};
use std::collections::HashMap as StdMap;

/// Hash maps of search states: foldhash's fixed-seed hasher (fast, deterministic; the
/// states are ours, not adversarial input, so SipHash's DoS resistance buys nothing here).
type HashMap<K, V> = StdMap<K, V, foldhash::fast::FixedState>;

/// Which reading of the rules drives hypothetical play.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// 2011 draft (第五条 basic ko; a cycle is seki; the examined side moves first).
    Kiyaku2011,
    /// 1989 rules (a ko may be retaken only after a pass for it, 要請II-\[iv\]; the
    /// opponent moves first; a cycle means the attacker failed).
    Kiyaku1989,
}

/// The state of hypothetical play, restricted to one region (everything outside is
/// pass-alive and never changes).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct State {
    /// Cells of the region (0 empty, 1 black, 2 white), by local index.
    pub cells: Vec<u8>,
    pub to_move: Color,
    /// 2011: the local point `to_move` may not play on at once (第五条), or [`NONE`].
    pub ko: u32,
    /// 1989: per colour, the kos it may not retake before passing once: `(q, s)` =
    /// retaking at `q` the single stone at `s` (local indices), sorted.
    pub bans: [Vec<(u32, u32)>; 2],
}

/// Outcome of hypothetical play for the examined stones.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// The examined stones (part of them) are the opponent's for good.
    Dead,
    /// The examined stones are in their owner's unconditional area for good.
    Alive,
}

/// Budget exhausted.
#[derive(Debug)]
pub(crate) struct OutOfBudget;

/// Search context shared by every chain of one region.
pub(crate) struct Region {
    pub scope: Scope,
    pub mode: Mode,
    /// States expanded at most (all chains of the region together).
    pub budget: u64,
    /// States expanded so far.
    pub nodes: u64,
    /// `U_black`, `U_white` by cells (each computed when first asked for).
    ucache: HashMap<Vec<u8>, [Option<Bits>; 2]>,
    /// When set, the ends are those of a territory's local game (see `safety`), not of a
    /// chain.
    pub territory: Option<Territory>,
    /// Reused buffers of [`Region::play`] (chain members, captured stones).
    scratch: std::cell::RefCell<(Vec<u32>, Vec<u32>)>,
    /// The whole board (outside the region it never changes), for [`Region::safe_end`].
    pub base: Option<goban::Board>,
    /// Whether territories proved safe end a line too (see [`Region::safe_end`]).
    pub safety_end: bool,
    /// Per cells and colour: the stones kept alive and the safe area (board indices).
    scache: HashMap<Vec<u8>, [Option<KeptAndSafe>; 2]>,
    /// When the search stops before its budget (cancelled, deadline, memory cap), polled by
    /// [`Region::halted`].
    pub halt: crate::halt::Halt,
}

/// By board index: the stones the territory proofs keep alive, and their safe area.
type KeptAndSafe = (Vec<bool>, Vec<bool>);

/// Nodes per local game of the safety proofs taken as an end ([`Region::safe_end`]).
const SAFE_END_LOCAL: u64 = 2_000;

/// Regions of at most this many local points mark chains in a stack buffer.
const STACK_MARKS: usize = 512;

/// The ends of a territory's local game: the defender wins (*alive*) when every point of
/// `area` is in its unconditional area; the attacker wins (*dead*) when it captures a
/// stone of one of the defender's `boundary` chains.
#[derive(Clone, Debug)]
pub(crate) struct Territory {
    pub defender: Color,
    pub boundary: Vec<usize>,
    pub area: Vec<usize>,
}

/// A chain of cells: its members and whether it has a liberty (an outside pass-alive
/// stone of the same colour counts as one that never goes), with its liberties counted up
/// to two (two when it has such an outside stone).
///
/// The walk stops as soon as `enough` liberties are known (`enough` 1: does it have one;
/// 2: is it in atari): `members` then holds only the stones walked so far (all of them are
/// marked). Pass `u32::MAX` for every member.
fn chain_of(sc: &Scope, cells: &[u8], start: usize, members: &mut Vec<u32>, mark: &mut [bool], enough: u32) -> (bool, u32) {
    let col = cells[start];
    members.clear();
    members.push(start as u32);
    mark[start] = true;
    let mut k = 0;
    let mut safe = false;
    let mut libs: [u32; 2] = [NONE; 2];
    let mut nlibs = 0u32;
    while k < members.len() {
        let l = members[k] as usize;
        k += 1;
        for &g in &sc.nbrs[l] {
            if g == NONE {
                continue;
            }
            if g >= OUT {
                let v = sc.ext[(g - OUT) as usize].0;
                if v == col || v == EMPTY {
                    safe = true;
                }
                continue;
            }
            let v = cells[g as usize];
            if v == EMPTY {
                if nlibs < 2 && !libs[..nlibs as usize].contains(&g) {
                    libs[nlibs as usize] = g;
                    nlibs += 1;
                }
            } else if v == col && !mark[g as usize] {
                mark[g as usize] = true;
                members.push(g);
            }
        }
        if safe || nlibs >= enough {
            break;
        }
    }
    if safe {
        nlibs = 2;
    }
    (nlibs > 0, nlibs)
}

impl Region {
    pub fn new(scope: Scope, mode: Mode, budget: u64) -> Region {
        Region {
            scope,
            mode,
            budget,
            nodes: 0,
            ucache: Default::default(),
            territory: None,
            scratch: Default::default(),
            base: None,
            safety_end: false,
            scache: Default::default(),
            halt: crate::halt::Halt::none(),
        }
    }

    /// Whether the search must stop now although its budget is not spent ([`crate::halt`]):
    /// the conditions are checked every [`crate::halt::POLL_NODES`] calls, at the points
    /// where nodes are counted; a search that stops returns [`OutOfBudget`].
    #[inline]
    pub fn halted(&mut self) -> bool {
        let Region { halt, ucache, scache, scope, base, nodes, .. } = self;
        halt.poll(|| Region::table_bytes(ucache, scache, scope.len(), base.as_ref().map_or(0, |b| b.points().count()), *nodes))
    }

    /// An estimate in bytes of the memory of the search's tables, from their entries
    /// (`n` local points, `board` points of the whole board, `nodes` counted): the caches of
    /// unconditional areas and territory proofs by cells (capacity, keys and both values of
    /// every entry), and for the proof, disproof and avoidance tables ([`Prover`], [`Trap`]),
    /// which live as long as one step of one chain, three states per four cached cell states
    /// (at most per node). On kakunin 4 and on an open 6x6 board it comes within a quarter
    /// of the process's peak resident memory (above it on kakunin 4, near it on 6x6).
    fn table_bytes(
        ucache: &HashMap<Vec<u8>, [Option<Bits>; 2]>,
        scache: &HashMap<Vec<u8>, [Option<KeptAndSafe>; 2]>,
        n: usize,
        board: usize,
        nodes: u64,
    ) -> u64 {
        // A heap block of `b` bytes with the allocator's header, rounded to 16.
        let heap = |b: usize| (b + 8).div_ceil(16).max(2) as u64 * 16;
        let slot = |entry: usize, cap: usize| cap as u64 * (entry as u64 + 1);
        let key = heap(n);
        let bits = heap(n.div_ceil(64).max(1) * 8);
        let u = slot(std::mem::size_of::<(Vec<u8>, [Option<Bits>; 2])>(), ucache.capacity()) + ucache.len() as u64 * (key + 2 * bits);
        let s = slot(std::mem::size_of::<(Vec<u8>, [Option<KeptAndSafe>; 2])>(), scache.capacity())
            + scache.len() as u64 * (key + 4 * heap(board));
        let state = std::mem::size_of::<State>() as u64 + 16 + key;
        u + s + 3 * state * (ucache.len() as u64).min(nodes) / 4
    }

    /// The cache slot of `cells`: its unconditional areas, each computed when first needed
    /// (one lookup for both colours).
    fn slot<'a>(ucache: &'a mut HashMap<Vec<u8>, [Option<Bits>; 2]>, cells: &[u8]) -> &'a mut [Option<Bits>; 2] {
        if !ucache.contains_key(cells) {
            ucache.insert(cells.to_vec(), [None, None]);
        }
        ucache.get_mut(cells).expect("just inserted")
    }

    /// `U_c` for `cells` (cached).
    pub fn area(&mut self, cells: &[u8], c: Color) -> &Bits {
        let Region { ucache, scope, .. } = self;
        Region::slot(ucache, cells)[c.index()].get_or_insert_with(|| unconditional(cells, c, scope).area)
    }

    /// Whether every stone of `stones` (local indices of a chain of `c`) is in `U_c` of
    /// `cells` — after the quick necessary test of [`crate::benson::may_be_in_area`], which
    /// spares most area computations when the answer is no; then from the cached area if
    /// there is one, else by Benson's iteration over the chains the chain's life depends on
    /// ([`crate::benson::chain_in_area`], exact), and only when that cannot tell (a chain
    /// of one or two stones that is not pass-alive) by the whole area.
    pub fn holds_all(&mut self, cells: &[u8], c: Color, stones: &[usize]) -> bool {
        if !crate::benson::may_be_in_area(cells, c, &self.scope, stones) {
            return false;
        }
        if let Some(Some(a)) = self.ucache.get(cells).map(|slot| &slot[c.index()]) {
            return stones.iter().all(|&s| a.get(s));
        }
        match crate::benson::chain_in_area(cells, c, &self.scope, stones) {
            Some(held) => held,
            None => stones.iter().all(|&s| self.area(cells, c).get(s)),
        }
    }

    /// Both unconditional areas of `cells`.
    fn areas(&mut self, cells: &[u8]) -> [&Bits; 2] {
        let Region { ucache, scope, .. } = self;
        let slot = Region::slot(ucache, cells);
        for c in [Color::Black, Color::White] {
            if slot[c.index()].is_none() {
                slot[c.index()] = Some(unconditional(cells, c, scope).area);
            }
        }
        let [b, w] = &*slot;
        [b.as_ref().expect("computed"), w.as_ref().expect("computed")]
    }

    /// The points where a move can matter: empty and outside both unconditional areas
    /// (a move inside an unconditional area changes nothing outside it and counts, for
    /// the region, as a pass — see the crate documentation).
    pub fn playable(&mut self, cells: &[u8]) -> Vec<bool> {
        if let Some(d) = self.territory.as_ref().map(|t| t.defender) {
            // A territory's local game: only the defender's area is computed (its end needs
            // it); the attacker's is almost always empty there, and a move in it is only a
            // wasted node, never a wrong one.
            let own = self.area(cells, d);
            return (0..cells.len()).map(|i| cells[i] == EMPTY && !own.get(i)).collect();
        }
        let a = self.areas(cells);
        (0..cells.len()).map(|i| cells[i] == EMPTY && !a[0].get(i) && !a[1].get(i)).collect()
    }

    /// End condition for the stones at local indices `stones` of `owner`.
    pub fn end(&mut self, cells: &[u8], stones: &[usize], owner: Color) -> Option<End> {
        if let Some(t) = self.territory.take() {
            let d = cell(t.defender);
            let e = if t.boundary.iter().any(|&s| cells[s] != d) {
                Some(End::Dead)
            } else {
                let own = self.area(cells, t.defender);
                t.area.iter().all(|&s| own.get(s)).then_some(End::Alive)
            };
            self.territory = Some(t);
            return e;
        }
        // One cache lookup; the owner's area only when the chain is not dead.
        let Region { ucache, scope, .. } = self;
        let slot = Region::slot(ucache, cells);
        let opp = slot[owner.opponent().index()].get_or_insert_with(|| unconditional(cells, owner.opponent(), scope).area);
        if stones.iter().any(|&s| opp.get(s)) {
            return Some(End::Dead);
        }
        let own = slot[owner.index()].get_or_insert_with(|| unconditional(cells, owner, scope).area);
        if stones.iter().all(|&s| own.get(s)) {
            return Some(End::Alive);
        }
        if self.safety_end && self.base.is_some() {
            return self.safe_end(cells, stones, owner);
        }
        None
    }

    /// The safety proof (module `safety`) of colour `c` on the board with the region's
    /// cells `cells`: (stones kept alive, safe area), by board index. The local games'
    /// nodes count against the region's budget.
    fn safety_of(&mut self, cells: &[u8], c: Color) -> &(Vec<bool>, Vec<bool>) {
        if !self.scache.contains_key(cells) {
            self.scache.insert(cells.to_vec(), [None, None]);
        }
        if self.scache[cells][c.index()].is_none() {
            let mut b = self.base.clone().expect("base board");
            for (k, p) in self.scope.points.iter().enumerate() {
                let v = match cells[k] {
                    EMPTY => None,
                    v if v == cell(Color::Black) => Some(Color::Black),
                    _ => Some(Color::White),
                };
                b.set(*p, v).expect("a point of the board");
            }
            let sf = crate::safety::safe_territories(&b, c, self.mode, SAFE_END_LOCAL);
            self.nodes += sf.nodes + 1;
            self.scache.get_mut(cells).expect("slot")[c.index()] = Some((sf.alive, sf.area));
        }
        self.scache[cells][c.index()].as_ref().expect("computed")
    }

    /// Territories proved safe as an end (crate docs, Engine step 4): a stone of the chain
    /// in a territory the opponent's safety proof holds -> dead; every stone of the chain
    /// in a chain the owner's safety proof keeps alive -> alive. Either proof is a strategy
    /// that reaches the Benson end whatever the other side does and whoever moves next (a
    /// defender to move passes first, which lifts any ko ban), so it is a forced win of that
    /// end: taking it as an end changes no status, it only shortens the lines.
    fn safe_end(&mut self, cells: &[u8], stones: &[usize], owner: Color) -> Option<End> {
        let w = self.scope.width;
        let gis: Vec<usize> = stones
            .iter()
            .map(|&s| {
                let p = self.scope.points[s];
                p.y as usize * w + p.x as usize
            })
            .collect();
        let (_, area) = self.safety_of(cells, owner.opponent());
        if gis.iter().any(|&g| area[g]) {
            return Some(End::Dead);
        }
        if stones.iter().any(|&s| cells[s] != cell(owner)) {
            return None;
        }
        let (alive, _) = self.safety_of(cells, owner);
        gis.iter().all(|&g| alive[g]).then_some(End::Alive)
    }

    /// Whether the side to move would retake the ko `(q, s)` by playing `q`.
    fn is_retake(&self, st: &State, q: u32, s: u32) -> bool {
        let opp = cell(st.to_move.opponent());
        if st.cells[s as usize] != opp {
            return false;
        }
        let mut libs = 0;
        for &g in &self.scope.nbrs[s as usize] {
            if g == NONE {
                continue;
            }
            if g >= OUT {
                let v = self.scope.ext[(g - OUT) as usize].0;
                if v == opp || v == EMPTY {
                    return false;
                }
                continue;
            }
            match st.cells[g as usize] {
                EMPTY => {
                    if g != q {
                        return false;
                    }
                    libs += 1;
                }
                v if v == opp => return false,
                _ => {}
            }
        }
        libs == 1
    }

    /// The board move of the local move `mv` (a local point index, `None` = pass).
    pub fn move_at(&self, mv: Option<u32>) -> Move {
        match mv {
            Some(i) => Move::Play(self.scope.points[i as usize]),
            None => Move::Pass,
        }
    }

    /// The local move of the board move `m` (the inverse of [`Region::move_at`]; a point
    /// outside the region gives [`NONE`], which no state can play).
    pub fn local_move(&self, m: Move) -> Option<u32> {
        match m {
            Move::Play(p) => Some(self.scope.local_of(p)),
            Move::Pass => None,
        }
    }

    /// The state after `mv` by the side to move, or `None` if it is not legal
    /// (occupied, suicide 第四条, ko 第五条 / 1989 ko-pass rule).
    pub fn play(&self, st: &State, mv: Option<u32>) -> Option<State> {
        let me = st.to_move;
        let mut next = State { cells: st.cells.clone(), to_move: me.opponent(), ko: NONE, bans: st.bans.clone() };
        match mv {
            None => {
                // A pass lifts the 第五条 ban; under 1989 it renounces retaking every ko
                // the passer was barred from.
                next.bans[me.index()].clear();
            }
            Some(i) => {
                let iu = i as usize;
                if st.cells[iu] != EMPTY {
                    return None;
                }
                let n = st.cells.len();
                let mycell = cell(me);
                let oppcell = cell(me.opponent());
                next.cells[iu] = mycell;
                let (mut stack, mut heap) = ([false; STACK_MARKS], Vec::new());
                let mark: &mut [bool] = if n <= STACK_MARKS {
                    &mut stack[..n]
                } else {
                    heap.resize(n, false);
                    &mut heap
                };
                let mut scratch = self.scratch.borrow_mut();
                let (members, captured) = &mut *scratch;
                captured.clear();
                for &g in &self.scope.nbrs[iu] {
                    if g == NONE || g >= OUT || next.cells[g as usize] != oppcell || mark[g as usize] {
                        continue;
                    }
                    // Walk only until a liberty shows; a chain walked in part is unmarked
                    // again, so another neighbour in it is walked afresh (a partial mark
                    // would cut the walk off from the liberty already seen).
                    let (has, _) = chain_of(&self.scope, &next.cells, g as usize, members, mark, 1);
                    if has {
                        for &m in members.iter() {
                            mark[m as usize] = false;
                        }
                    } else {
                        for &m in members.iter() {
                            next.cells[m as usize] = EMPTY;
                            captured.push(m);
                        }
                    }
                }
                // 劫 (第五条): retaking at once the single stone that has just taken a
                // single stone is forbidden; a move there that captures more is not a ko
                // recapture. 1989: the same retake is barred until the player has passed.
                let retake = captured.len() == 1;
                match self.mode {
                    Mode::Kiyaku2011 => {
                        if retake && st.ko == i {
                            return None;
                        }
                    }
                    Mode::Kiyaku1989 => {
                        if retake && st.bans[me.index()].iter().any(|&(q, s)| q == i && s == captured[0]) {
                            return None;
                        }
                    }
                }
                mark.fill(false);
                let (has, nlibs) = chain_of(&self.scope, &next.cells, iu, members, mark, 2);
                if !has {
                    return None; // suicide (第四条)
                }
                if captured.len() == 1 && members.len() == 1 && nlibs == 1 {
                    match self.mode {
                        Mode::Kiyaku2011 => next.ko = captured[0],
                        Mode::Kiyaku1989 => next.bans[me.opponent().index()].push((captured[0], i)),
                    }
                }
            }
        }
        if self.mode == Mode::Kiyaku1989 {
            // Bans whose ko shape no longer stands can never apply again (a new capture
            // creates a new ban): drop them so equal positions compare equal.
            for c in [Color::Black, Color::White] {
                let mut bans = std::mem::take(&mut next.bans[c.index()]);
                let probe = State { to_move: c, ..next.clone() };
                bans.retain(|&(q, s)| next.cells[q as usize] == EMPTY && self.is_retake(&probe, q, s));
                bans.sort_unstable();
                bans.dedup();
                next.bans[c.index()] = bans;
            }
        }
        Some(next)
    }
}

/// Node limit of the quick proof tried at each new state of an avoidance search.
const QUICK_NODES: u64 = 500;
/// Depth limit (plies) of that quick proof.
const QUICK_DEPTH: u32 = 8;

/// A forced proof of `goal` for the chain `stones` of `owner` from `root`, searched until
/// the region has used `limit` nodes in all (never more): the proof line (at most
/// `max_line` moves) if one is found, `None` otherwise (which proves nothing). `deep`: by
/// df-pn ([`Prover::prove_dfpn`]) instead of iterative deepening.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forced(
    region: &mut Region,
    root: &State,
    stones: &[usize],
    owner: Color,
    goal: End,
    limit: u64,
    max_line: usize,
    deep: bool,
) -> Option<Vec<(Color, Move)>> {
    let mut p = Prover::new(stones.to_vec(), owner, goal);
    let r = if deep { p.prove_dfpn(region, root, limit) } else { p.prove(region, root, limit) };
    region.nodes = region.nodes.min(limit);
    match r {
        Ok(true) => Some(p.line(region, root, max_line)),
        _ => None,
    }
}

/// Infinite proof or disproof number.
const INF: u32 = u32::MAX / 4;
/// Deepest path of the df-pn search (a longer line counts as a failure, not stored).
const DFPN_MAX_DEPTH: usize = 200;

/// A df-pn value: proof and disproof numbers, the distance of a proof, and whether a
/// disproof rested on a repetition of the path (then it holds for this path only).
#[derive(Copy, Clone, Debug)]
struct Val {
    pn: u32,
    dn: u32,
    dist: u32,
    rep: bool,
}

/// Depth-first search for a forced end (proof only): iterative deepening with a
/// transposition table. A proof is a finite strategy reaching the goal without repeating
/// a state, so it is exact whatever path led to it; a failure here proves nothing (it may
/// come from the depth bound or the path) and is only a hint for this search.
pub(crate) struct Prover {
    stones: Vec<usize>,
    owner: Color,
    goal: End,
    forcing: Color,
    /// Proofs: (moves to the goal, forcing move or longest defence).
    proved: HashMap<State, (u32, Move)>,
    /// Failures: the depth bound they were found with.
    failed: HashMap<State, u32>,
    path: Vec<State>,
    /// Whether the current iteration of [`Prover::prove_to`] stopped a line at its depth
    /// bound.
    depth_cut: bool,
}

impl Prover {
    pub fn new(stones: Vec<usize>, owner: Color, goal: End) -> Prover {
        let forcing = if goal == End::Alive { owner } else { owner.opponent() };
        Prover { stones, owner, goal, forcing, proved: HashMap::default(), failed: HashMap::default(), path: Vec::new(), depth_cut: false }
    }

    /// Whether the forcing side can force the goal from `root` (searching at most until
    /// the region has expanded `limit` nodes in all).
    pub fn prove(&mut self, region: &mut Region, root: &State, limit: u64) -> Result<bool, OutOfBudget> {
        self.prove_to(region, root, limit, 200)
    }

    /// As [`Prover::prove`], by df-pn (Nagai's depth-first proof-number search, with the
    /// 1 + ε threshold of Pawlewicz and Lew) instead of iterative deepening: it follows the
    /// lines where the defender has fewest answers first, so it reaches proofs of 40 moves
    /// (kakunin 4: White's chains dead in about 4,400,000 nodes, where the deepening needed
    /// about 18,000,000 after the avoidance search) but, with small budgets, proves fewer
    /// short lines than the deepening (real games at 20,000 nodes per region: 16,407 stones
    /// decided instead of 16,536 when every proof was df-pn), so it serves large budgets.
    ///
    /// Repetitions (第七条 解説 循環): a state already on the current line counts as a failure
    /// of the forcing side, so no proof ever rests on one and every proof stored is exact
    /// whatever the path. A failure that rested on one holds for this line only and is not
    /// kept; failures that did not are exact and kept for this search. Nodes: each state
    /// generated counts one (a re-expansion generates its children again); lines deeper
    /// than [`DFPN_MAX_DEPTH`] plies count as failures of this line.
    ///
    /// Proof numbers are the plain sums and minima (weak proof numbers and initial numbers
    /// from mobility proved kakunin 4 in more nodes, not fewer), and a child's end is checked
    /// when it is generated.
    pub fn prove_dfpn(&mut self, region: &mut Region, root: &State, limit: u64) -> Result<bool, OutOfBudget> {
        if let Some(e) = region.end(&root.cells, &self.stones, self.owner) {
            return Ok(e == self.goal);
        }
        let mut tt = HashMap::default();
        self.path.clear();
        let v = self.mid(region, root, INF, INF, limit, &mut tt);
        self.path.clear();
        Ok(v?.pn == 0)
    }

    /// One df-pn step (Nagai's MID) at `st`: searches until its proof number reaches
    /// `th_pn` or its disproof number `th_dn` (or it is proved or disproved).
    fn mid(
        &mut self,
        region: &mut Region,
        st: &State,
        th_pn: u32,
        th_dn: u32,
        limit: u64,
        tt: &mut HashMap<State, (u32, u32)>,
    ) -> Result<Val, OutOfBudget> {
        let forcing = st.to_move == self.forcing;
        if self.path.len() >= DFPN_MAX_DEPTH {
            return Ok(Val { pn: INF, dn: 0, dist: 0, rep: true });
        }
        let moves = self.moves(region, st, forcing);
        let mut kids: Vec<(State, Move, Val)> = Vec::with_capacity(moves.len());
        for mv in moves {
            let Some(child) = region.play(st, mv) else { continue };
            region.nodes += 1;
            if region.nodes > limit || region.halted() {
                return Err(OutOfBudget);
            }
            let m = region.move_at(mv);
            let v = if let Some(e) = region.end(&child.cells, &self.stones, self.owner) {
                if e == self.goal {
                    Val { pn: 0, dn: INF, dist: 0, rep: false }
                } else {
                    Val { pn: INF, dn: 0, dist: 0, rep: false }
                }
            } else if let Some(&(d, _)) = self.proved.get(&child) {
                Val { pn: 0, dn: INF, dist: d, rep: false }
            } else if child == *st || self.path.contains(&child) {
                Val { pn: INF, dn: 0, dist: 0, rep: true }
            } else if let Some(&(pn, dn)) = tt.get(&child) {
                Val { pn, dn, dist: 0, rep: false }
            } else {
                Val { pn: 1, dn: 1, dist: 0, rep: false }
            };
            let done = v.pn == 0 && forcing;
            kids.push((child, m, v));
            if done {
                break;
            }
        }
        if kids.is_empty() {
            // No legal move, not even a pass (never the case in practice): no proof here.
            return Ok(Val { pn: INF, dn: 0, dist: 0, rep: true });
        }
        self.path.push(st.clone());
        let result = loop {
            let (pn, dn) = if forcing {
                (kids.iter().map(|k| k.2.pn).min().unwrap_or(INF), kids.iter().fold(0u32, |a, k| a.saturating_add(k.2.dn)).min(INF))
            } else {
                (kids.iter().fold(0u32, |a, k| a.saturating_add(k.2.pn)).min(INF), kids.iter().map(|k| k.2.dn).min().unwrap_or(INF))
            };
            if pn == 0 || dn == 0 || pn >= th_pn || dn >= th_dn {
                break (pn, dn);
            }
            // The most promising child and the runner-up's number.
            let key = |v: &Val| if forcing { v.pn } else { v.dn };
            let mut best = 0;
            let mut second = INF;
            for (i, k) in kids.iter().enumerate() {
                if key(&k.2) < key(&kids[best].2) {
                    second = key(&kids[best].2);
                    best = i;
                } else if i != best && key(&k.2) < second {
                    second = key(&k.2);
                }
            }
            let bv = kids[best].2;
            // 1 + ε with ε = 1/4 (Pawlewicz and Lew): plain df-pn (ε = 0) thrashes between
            // siblings here and does not prove kakunin 4 within 100,000,000 nodes.
            let grow = |x: u32| x.saturating_add(1).max(x.saturating_add(x / 4)).min(INF);
            let (cpn, cdn) = if forcing {
                (th_pn.min(grow(second)), th_dn.saturating_sub(dn).saturating_add(bv.dn).min(INF))
            } else {
                (th_pn.saturating_sub(pn).saturating_add(bv.pn).min(INF), th_dn.min(grow(second)))
            };
            let child = kids[best].0.clone();
            let r = self.mid(region, &child, cpn, cdn, limit, tt);
            match r {
                Ok(v) => kids[best].2 = v,
                Err(e) => {
                    self.path.pop();
                    return Err(e);
                }
            }
        };
        self.path.pop();
        let (pn, dn) = result;
        if pn == 0 {
            // Proved: the forcing move (or the longest defence) and the distance.
            let (d, m) = if forcing {
                let k = kids.iter().filter(|k| k.2.pn == 0).min_by_key(|k| k.2.dist).expect("a proved child");
                (k.2.dist + 1, k.1)
            } else {
                let k = kids.iter().max_by_key(|k| k.2.dist).expect("a move");
                (k.2.dist + 1, k.1)
            };
            self.proved.insert(st.clone(), (d, m));
            tt.remove(st);
            return Ok(Val { pn: 0, dn: INF, dist: d, rep: false });
        }
        if dn == 0 {
            // Disproved: exact unless it rested on a repetition of the path.
            let rep = if forcing { kids.iter().any(|k| k.2.rep) } else { kids.iter().filter(|k| k.2.dn == 0).all(|k| k.2.rep) };
            if rep {
                tt.remove(st);
            } else {
                tt.insert(st.clone(), (INF, 0));
            }
            return Ok(Val { pn: INF, dn: 0, dist: 0, rep });
        }
        tt.insert(st.clone(), (pn, dn));
        Ok(Val { pn, dn, dist: 0, rep: false })
    }

    /// As [`Prover::prove`], deepening to at most `max_depth` plies.
    pub fn prove_to(&mut self, region: &mut Region, root: &State, limit: u64, max_depth: u32) -> Result<bool, OutOfBudget> {
        let mut depth = 2;
        loop {
            // Failures may rest on the path (repetitions): they hold for one iteration only.
            self.failed.clear();
            self.depth_cut = false;
            let known = self.proved.len();
            if self.search(region, root, depth, limit)?.is_some() {
                return Ok(true);
            }
            // No line reached the depth bound and no new proof was found: a deeper iteration
            // would search exactly the same tree (the bound only matters where a line reaches
            // it; the proofs are all it keeps) and fail the same way, so stop here.
            if !self.depth_cut && self.proved.len() == known {
                return Ok(false);
            }
            depth += 2;
            if depth > max_depth {
                return Ok(false);
            }
        }
    }

    fn moves(&self, region: &mut Region, st: &State, forcing: bool) -> Vec<Option<u32>> {
        ordered_moves(region, st, &self.stones, forcing)
    }

    /// `Some(dist)` if proved within `depth` plies.
    fn search(&mut self, region: &mut Region, st: &State, depth: u32, limit: u64) -> Result<Option<u32>, OutOfBudget> {
        region.nodes += 1;
        if region.nodes > limit || region.halted() {
            return Err(OutOfBudget);
        }
        if let Some(e) = region.end(&st.cells, &self.stones, self.owner) {
            return Ok((e == self.goal).then_some(0));
        }
        if let Some(&(d, _)) = self.proved.get(st) {
            return Ok(Some(d));
        }
        if self.path.contains(st) || self.failed.get(st).is_some_and(|&d| d >= depth) {
            return Ok(None);
        }
        if depth == 0 {
            self.depth_cut = true;
            return Ok(None);
        }
        let forcing = st.to_move == self.forcing;
        let moves = self.moves(region, st, forcing);
        self.path.push(st.clone());
        let mut result: Option<(u32, Move)> = None;
        let mut worst: Option<(u32, Move)> = None;
        let mut all = true;
        for mv in moves {
            let Some(child) = region.play(st, mv) else { continue };
            let r = self.search(region, &child, depth - 1, limit);
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    self.path.pop();
                    return Err(e);
                }
            };
            let m = region.move_at(mv);
            if forcing {
                if let Some(d) = r {
                    result = Some((d + 1, m));
                    break;
                }
            } else {
                match r {
                    None => {
                        all = false;
                        break;
                    }
                    Some(d) => {
                        if worst.is_none_or(|(w, _)| d + 1 > w) {
                            worst = Some((d + 1, m));
                        }
                    }
                }
            }
        }
        self.path.pop();
        if !forcing && all {
            result = worst;
        }
        match result {
            Some((d, m)) => {
                self.proved.insert(st.clone(), (d, m));
                Ok(Some(d))
            }
            None => {
                self.failed.insert(st.clone(), depth);
                Ok(None)
            }
        }
    }

    /// The proof line from `root`.
    pub fn line(&self, region: &mut Region, root: &State, max: usize) -> Vec<(Color, Move)> {
        let mut out = Vec::new();
        let mut cur = root.clone();
        while out.len() < max {
            let Some(&(_, m)) = self.proved.get(&cur) else { break };
            out.push((cur.to_move, m));
            match region.play(&cur, region.local_move(m)) {
                Some(n) => cur = n,
                None => break,
            }
        }
        out
    }
}

/// The moves of the side to move in `st`, most promising first: points next to (or on)
/// the examined `stones`, then contact with the opponent; a pass last for the forcing side
/// and first for the other (holding is often its best).
pub(crate) fn ordered_moves(region: &mut Region, st: &State, stones: &[usize], forcing: bool) -> Vec<Option<u32>> {
    let playable = region.playable(&st.cells);
    let sc = &region.scope;
    let me = cell(st.to_move);
    // Points next to the examined stones (or on them, once captured).
    let mut near = vec![false; sc.len()];
    for &s in stones {
        near[s] = true;
        for &g in &sc.nbrs[s] {
            if g != NONE && g < OUT {
                near[g as usize] = true;
            }
        }
    }
    // Liberties (up to two) of the opponent's chains, by member: a move on the last one
    // captures, on one of two gives atari.
    let opp = cell(st.to_move.opponent());
    let mut opp_libs = vec![u32::MAX; sc.len()];
    let mut mark = vec![false; sc.len()];
    let mut members = Vec::new();
    for s in 0..sc.len() {
        if st.cells[s] == opp && !mark[s] {
            let (_, n) = chain_of(sc, &st.cells, s, &mut members, &mut mark, u32::MAX);
            for &m in &members {
                opp_libs[m as usize] = n;
            }
        }
    }
    let mut scored: Vec<(i32, Option<u32>)> = Vec::new();
    for i in 0..sc.len() {
        if !playable[i] {
            continue;
        }
        let mut score = 0;
        if near[i] {
            score += 40;
        }
        let mut libs = 0;
        for &g in &sc.nbrs[i] {
            if g == NONE || g >= OUT {
                continue;
            }
            match st.cells[g as usize] {
                EMPTY => libs += 1,
                v if v == me => libs += 1,
                _ => {
                    score += match opp_libs[g as usize] {
                        1 => 100,
                        2 => 15,
                        _ => 5,
                    }
                }
            }
        }
        if libs == 0 {
            score -= 20;
        }
        scored.push((score, Some(i as u32)));
    }
    scored.sort_by_key(|x| std::cmp::Reverse(x.0));
    let mut out: Vec<Option<u32>> = scored.into_iter().map(|x| x.1).collect();
    if forcing {
        out.push(None);
    } else {
        out.insert(0, None);
    }
    out
}

/// The avoidance (safety) side of hypothetical play: whether the side *avoiding* `goal`
/// can keep the play out of it for ever — every line either reaches the other end, or
/// never ends (a cycle, 第七条 解説 循環). Reachability games are determined, so this is
/// exactly "the forcing side cannot force `goal`" (the complement of its attractor).
///
/// Depth-first search without a depth bound. A state on the current path counts as safe
/// (a line that returns to it is a cycle, which the avoider may keep up); a state proved
/// *unsafe* never rested on such an assumption that matters (assuming more states safe can
/// only make the forcing side's task harder), so unsafe results are exact and cached for
/// good. Safe results are cached too, and every one cached since a state was entered is
/// withdrawn if that state turns out unsafe. When the root is safe, the cached safe states
/// are closed under the avoider's chosen replies and every move of the forcing side, and
/// contain no goal state: a trap, which is the certificate.
pub(crate) struct Trap {
    stones: Vec<usize>,
    owner: Color,
    goal: End,
    avoider: Color,
    /// Safe states; for the avoider's turn, its chosen move (`Some(None)` = pass).
    safe: HashMap<State, Option<Option<u32>>>,
    /// Safe states in the order they were cached (for withdrawal).
    log: Vec<State>,
    unsafe_: HashMap<State, ()>,
    on_path: HashMap<State, ()>,
    /// Quick proofs of the avoider's own end (a state where it is forced is safe for good)
    /// and of the goal (a state where it is forced is unsafe).
    own: Prover,
    theirs: Prover,
}

struct Frame {
    state: State,
    moves: Vec<Option<u32>>,
    next: usize,
    avoider_turn: bool,
    log_len: usize,
    result: Option<bool>,
    chosen: Option<Option<u32>>,
}

impl Frame {
    /// Records that the child reached by the current move is safe (`true`) or not: a safe
    /// child is the avoider's choice; an unsafe one is the forcing side's way out.
    fn child_is(&mut self, safe: bool) {
        if self.avoider_turn && safe {
            self.result = Some(true);
            self.chosen = Some(self.moves[self.next]);
        } else if !self.avoider_turn && !safe {
            self.result = Some(false);
        }
        self.next += 1;
    }
}

impl Trap {
    pub fn new(stones: Vec<usize>, owner: Color, goal: End) -> Trap {
        let avoider = if goal == End::Alive { owner.opponent() } else { owner };
        let other = if goal == End::Alive { End::Dead } else { End::Alive };
        Trap {
            own: Prover::new(stones.clone(), owner, other),
            theirs: Prover::new(stones.clone(), owner, goal),
            stones,
            owner,
            goal,
            avoider,
            safe: HashMap::default(),
            log: Vec::new(),
            unsafe_: HashMap::default(),
            on_path: HashMap::default(),
        }
    }

    /// The value of `st` without expanding it, if known.
    fn known(&self, region: &mut Region, st: &State) -> Option<bool> {
        if let Some(e) = region.end(&st.cells, &self.stones, self.owner) {
            return Some(e != self.goal);
        }
        if self.safe.contains_key(st) || self.on_path.contains_key(st) {
            return Some(true);
        }
        if self.unsafe_.contains_key(st) {
            return Some(false);
        }
        None
    }

    /// Settles `st` by a quick forced proof for either side, if there is one (exact).
    fn quick(&mut self, region: &mut Region, st: &State) -> Result<Option<bool>, OutOfBudget> {
        for (own, prover) in [(true, &mut self.own), (false, &mut self.theirs)] {
            let lim = (region.nodes + QUICK_NODES).min(region.budget);
            let r = prover.prove_to(region, st, lim, QUICK_DEPTH);
            if region.nodes >= region.budget {
                return Err(OutOfBudget);
            }
            region.nodes = region.nodes.min(lim);
            if let Ok(true) = r {
                if own {
                    self.safe.insert(st.clone(), None);
                } else {
                    self.unsafe_.insert(st.clone(), ());
                }
                return Ok(Some(own));
            }
        }
        Ok(None)
    }

    fn enter(&mut self, region: &mut Region, st: State) -> Result<Frame, OutOfBudget> {
        region.nodes += 1;
        if region.nodes > region.budget || region.halted() {
            return Err(OutOfBudget);
        }
        let avoider_turn = st.to_move == self.avoider;
        let moves = ordered_moves(region, &st, &self.stones, !avoider_turn);
        self.on_path.insert(st.clone(), ());
        Ok(Frame { state: st, moves, next: 0, avoider_turn, log_len: self.log.len(), result: None, chosen: None })
    }

    /// Whether the avoider can keep the play from `root` out of `goal` for ever.
    pub fn avoids(&mut self, region: &mut Region, root: &State) -> Result<bool, OutOfBudget> {
        if let Some(r) = self.known(region, root) {
            return Ok(r);
        }
        let first = self.enter(region, root.clone())?;
        let mut stack = vec![first];
        let mut ret: Option<bool> = None;
        loop {
            let f = stack.last_mut().expect("non-empty");
            if let Some(r) = ret.take() {
                f.child_is(r);
            }
            let mut child: Option<State> = None;
            while f.result.is_none() && f.next < f.moves.len() {
                let mv = f.moves[f.next];
                let Some(c) = region.play(&f.state, mv) else {
                    f.next += 1;
                    continue;
                };
                let k = match self.known(region, &c) {
                    Some(r) => Some(r),
                    None => self.quick(region, &c)?,
                };
                match k {
                    Some(r) => f.child_is(r),
                    None => {
                        child = Some(c);
                        break;
                    }
                }
            }
            if let Some(c) = child {
                let nf = self.enter(region, c)?;
                stack.push(nf);
                continue;
            }
            // The frame is finished: an avoider with no safe move is caught; a forcing side
            // none of whose moves escapes the trap fails.
            let f = stack.pop().expect("non-empty");
            let result = f.result.unwrap_or(!f.avoider_turn);
            self.on_path.remove(&f.state);
            if result {
                self.safe.insert(f.state.clone(), if f.avoider_turn { f.chosen } else { None });
                self.log.push(f.state);
            } else {
                for s in self.log.drain(f.log_len..) {
                    self.safe.remove(&s);
                }
                self.unsafe_.insert(f.state, ());
            }
            if stack.is_empty() {
                return Ok(result);
            }
            ret = Some(result);
        }
    }

    /// The avoider's chosen move in a safe state where it is to move.
    pub fn choice(&self, st: &State) -> Option<Option<u32>> {
        self.safe.get(st).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use goban::{Board, Point};

    /// `Region::play` (captures 第三条, suicide 第四条) agrees with `goban::Board::play` on
    /// dense random 7x7 positions, for every empty point and both colours — in particular
    /// when the stone touches one opponent chain at several points, where the capture test
    /// stops walking a chain at its first liberty.
    #[test]
    fn play_agrees_with_the_board_on_dense_random_positions() {
        let mut rand = crate::xorshift(0x5eed_1234_abcd_0001);
        let mut multi_touch = 0;
        for _ in 0..400 {
            let mut board = Board::new(7, 7).unwrap();
            for p in board.points().collect::<Vec<_>>() {
                let c = match rand() % 8 {
                    0..=2 => Some(Color::Black),
                    3..=5 => Some(Color::White),
                    _ => None,
                };
                if c.is_some() {
                    board.set(p, c).unwrap();
                }
            }
            // Only legal setups: every chain keeps a liberty.
            if board.points().any(|p| board.get(p).is_some() && board.liberty_count(p) == 0) {
                continue;
            }
            let region = Region::new(Scope::whole(&board), Mode::Kiyaku2011, u64::MAX);
            let cells = region.scope.cells(&board);
            for (i, &p) in region.scope.points.iter().enumerate() {
                if board.get(p).is_some() {
                    continue;
                }
                for c in [Color::Black, Color::White] {
                    let st = State { cells: cells.clone(), to_move: c, ko: NONE, bans: [Vec::new(), Vec::new()] };
                    let mut heads: Vec<Point> =
                        board.adjacent(p).filter(|&q| board.get(q) == Some(c.opponent())).map(|q| board.chain_id(q).unwrap()).collect();
                    let touches = heads.len();
                    heads.sort();
                    heads.dedup();
                    if touches > heads.len() {
                        multi_touch += 1;
                    }
                    let mut b = board.clone();
                    let want = b.play(c, p, false).ok().map(|_| region.scope.cells(&b));
                    let got = region.play(&st, Some(i as u32)).map(|s| s.cells);
                    assert_eq!(got, want, "{} at {}", c.letter(), p.to_sgf());
                }
            }
        }
        assert!(multi_touch > 100, "the positions exercise moves touching a chain twice: {multi_touch}");
    }

    /// df-pn ([`Prover::prove_dfpn`]) on random 5x4 boards, for every chain and both ends
    /// under 2011: each proof is confirmed by the exact avoidance search ([`Trap`]: the end
    /// is not avoidable) and its line, replayed, reaches the end; and df-pn proves nearly
    /// everything the iterative deepening proves within the same nodes.
    #[test]
    fn dfpn_proofs_hold_against_the_exact_avoidance_search() {
        let mut rand = crate::xorshift(0xdf0b_2026_1124);
        let (mut proved, mut deepening, mut deepening_only) = (0, 0, 0);
        for _ in 0..80 {
            let mut board = Board::new(5, 4).unwrap();
            for p in board.points().collect::<Vec<_>>() {
                match rand() % 5 {
                    0 | 1 => board.set(p, Some(Color::Black)).unwrap(),
                    2 | 3 => board.set(p, Some(Color::White)).unwrap(),
                    _ => {}
                }
            }
            if board.points().any(|p| board.get(p).is_some() && board.liberty_count(p) == 0) {
                continue;
            }
            let mut seen = std::collections::HashSet::new();
            for p in board.points().collect::<Vec<_>>() {
                let Some(owner) = board.get(p) else { continue };
                if !seen.insert(board.chain_id(p).unwrap()) {
                    continue;
                }
                let region = || Region::new(Scope::whole(&board), Mode::Kiyaku2011, 60_000);
                let r = region();
                let stones: Vec<usize> = board.chain(p).iter().map(|&q| r.scope.local_of(q) as usize).collect();
                let root = State { cells: r.scope.cells(&board), to_move: owner, ko: NONE, bans: [Vec::new(), Vec::new()] };
                for goal in [End::Alive, End::Dead] {
                    let mut reg = region();
                    let mut df = Prover::new(stones.clone(), owner, goal);
                    let found = matches!(df.prove_dfpn(&mut reg, &root, 30_000), Ok(true));
                    let mut reg_id = region();
                    let by_id = matches!(Prover::new(stones.clone(), owner, goal).prove(&mut reg_id, &root, 30_000), Ok(true));
                    deepening += by_id as u32;
                    deepening_only += (by_id && !found) as u32;
                    if !found {
                        continue;
                    }
                    proved += 1;
                    let mut exact = region();
                    let avoidable = Trap::new(stones.clone(), owner, goal).avoids(&mut exact, &root);
                    assert!(
                        !matches!(avoidable, Ok(true)),
                        "df-pn proved {goal:?} for {} at {}, which can be avoided",
                        owner.letter(),
                        p.to_sgf()
                    );
                    // The line reaches the end.
                    let line = df.line(&mut reg, &root, 200);
                    let mut cur = root.clone();
                    for &(_, m) in &line {
                        cur = reg.play(&cur, reg.local_move(m)).expect("a legal move of the line");
                    }
                    assert_eq!(reg.end(&cur.cells, &stones, owner), Some(goal), "line {line:?}");
                }
            }
        }
        assert!(proved > 60, "df-pn proved {proved}");
        assert!(deepening_only * 20 <= deepening, "the deepening alone proved {deepening_only} of {deepening}");
        eprintln!("df-pn proved {proved}; the deepening {deepening}, {deepening_only} of them not by df-pn");
    }
}
