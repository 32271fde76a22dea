//! Forced proofs of one end of hypothetical play: iterative deepening and df-pn.

use super::*;

mod follow;
pub(crate) use follow::Lent;

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
    Prover::new(stones.to_vec(), owner, goal).forced_line(region, root, limit, max_line, deep)
}

/// The states of the current line, with their hashes: whether a state repeats one of them is
/// asked for every state generated, and comparing hashes first spares comparing the cells.
#[derive(Default)]
struct Path {
    states: Vec<State>,
    hashes: Vec<u64>,
}

impl Path {
    fn hash(st: &State) -> u64 {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::default().hash_one(st)
    }

    fn push(&mut self, st: &State) {
        self.hashes.push(Path::hash(st));
        self.states.push(st.clone());
    }

    fn pop(&mut self) {
        self.hashes.pop();
        self.states.pop();
    }

    fn clear(&mut self) {
        self.hashes.clear();
        self.states.clear();
    }

    fn len(&self) -> usize {
        self.states.len()
    }

    fn contains(&self, st: &State) -> bool {
        let h = Path::hash(st);
        self.hashes.iter().zip(&self.states).any(|(&g, s)| g == h && s == st)
    }
}

/// Infinite proof or disproof number.
const INF: u32 = u32::MAX / 4;
/// Liberties of the examined chain counted at most, for df-pn+'s estimate of a new state
/// ([`Prover::prove_dfpn`]).
const DFPN_PLUS_LIBERTIES: u32 = 4;
/// Deepest path of the df-pn search (a longer line counts as a failure, not stored).
const DFPN_MAX_DEPTH: usize = 200;

/// Bytes the children of df-pn's expanded states ([`Prover::prove_dfpn`]) may take in one
/// prover at most (states and their cells, estimated): beyond it, states are expanded without
/// keeping their children, which a re-expansion then generates again.
const DFPN_KIDS_MAX_BYTES: usize = 48 << 20;

/// The children of a df-pn state kept for its re-expansions: each child, its move, and its
/// value when it is an end (fixed; any other child's value is looked up again).
type Kids = Vec<(State, Move, Option<Val>)>;

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
    path: Path,
    /// Whether the current iteration of [`Prover::prove_to`] stopped a line at its depth
    /// bound.
    depth_cut: bool,
    /// Move order of the deepening ([`Prover::search`]), learnt as it searches: by local
    /// point (the last slot a pass), how often a move proved a forcing node (`[0]`) or
    /// refuted a defending one (`[1]`), weighted by the depth left.
    history: [Vec<u32>; 2],
    /// By ply: the forcing move that last proved a node at that ply (a sibling's answer is
    /// often the answer here too), tried first.
    killers: Vec<Option<Option<u32>>>,
    /// df-pn's proof and disproof numbers by state ([`Prover::prove_dfpn`]), kept between
    /// calls so that a later call with a higher limit goes on from them.
    dfpn: HashMap<State, (u32, u32)>,
    /// The children of the states df-pn expanded, for their re-expansions (in this call or a
    /// later one, until [`Prover::forget_kept_children`]), within `kids_max_bytes`
    /// (`kids_bytes` so far).
    kids: HashMap<State, Kids>,
    kids_bytes: usize,
    /// At most this many bytes of kept children ([`DFPN_KIDS_MAX_BYTES`]).
    kids_max_bytes: usize,
    /// The relevance zones of the deepening's proofs of *dead* (module `zone`), by proved
    /// state; a proof without one here has the whole region as its zone.
    zones: HashMap<State, Bits>,
    /// How many of the defender's moves the zone of its pass answered (module `zone`).
    pub pruned: u64,
    /// At the forcing side's states of the deepening ([`Prover::search`]), only this many of
    /// its moves are searched, the first in the learnt order ([`Prover::learnt_order`]),
    /// with the others next to a standing stone of the examined chain (its liberties, which
    /// the learnt order can rank low when captures elsewhere score higher) and its pass when
    /// it was among them; 0: every move. A proof found so is a
    /// proof (the forcing side needs one move at each of its states, and every move of the
    /// defender is still searched); a failure proves nothing. Set with [`Prover::narrow`].
    width: usize,
}

impl Prover {
    pub fn new(stones: Vec<usize>, owner: Color, goal: End) -> Prover {
        let forcing = if goal == End::Alive { owner } else { owner.opponent() };
        Prover {
            stones,
            owner,
            goal,
            forcing,
            proved: HashMap::default(),
            failed: HashMap::default(),
            path: Path::default(),
            depth_cut: false,
            history: [Vec::new(), Vec::new()],
            killers: Vec::new(),
            dfpn: HashMap::default(),
            kids: HashMap::default(),
            kids_bytes: 0,
            kids_max_bytes: DFPN_KIDS_MAX_BYTES,
            zones: HashMap::default(),
            pruned: 0,
            width: 0,
        }
    }

    /// Makes the deepening search only the first `width` moves of the forcing side (with its
    /// moves next to the examined chain and its pass) at each of its states, 0 every move
    /// (see the field `width`). The proofs stored so
    /// far stay: a narrow search and a full one of the same prover go on from each other's.
    pub fn narrow(&mut self, width: usize) {
        self.width = width;
    }

    /// Drops the children df-pn keeps for re-expansions ([`DFPN_KIDS_MAX_BYTES`]): they are
    /// kept from one call of [`Prover::prove_dfpn`] to the next, and a prover put away for a
    /// region's retry keeps only its proof and disproof numbers.
    pub fn forget_kept_children(&mut self) {
        self.kids = HashMap::default();
        self.kids_bytes = 0;
    }

    /// This prover with df-pn keeping no children for re-expansions (each generates them again).
    #[cfg(test)]
    pub fn keeping_no_children(mut self) -> Prover {
        self.kids_max_bytes = 0;
        self
    }

    /// As [`forced`], with this prover: the proofs it stored in earlier calls stay, so a later
    /// call with a higher `limit` goes on from them.
    pub fn forced_line(
        &mut self,
        region: &mut Region,
        root: &State,
        limit: u64,
        max_line: usize,
        deep: bool,
    ) -> Option<Vec<(Color, Move)>> {
        let r = if deep { self.prove_dfpn(region, root, limit) } else { self.prove(region, root, limit) };
        region.nodes = region.nodes.min(limit);
        match r {
            Ok(true) => Some(self.line(region, root, max_line)),
            _ => None,
        }
    }

    /// Whether the forcing side can force the goal from `root` (searching at most until
    /// the region has expanded `limit` nodes in all).
    pub fn prove(&mut self, region: &mut Region, root: &State, limit: u64) -> Result<bool, OutOfBudget> {
        self.prove_to(region, root, limit, 200)
    }

    /// As [`Prover::prove`], by df-pn (Nagai's depth-first proof-number search, with the
    /// 1 + ε threshold of Pawlewicz and Lew) instead of iterative deepening: it follows the
    /// lines where the defender has fewest answers first, so it reaches proofs of 40 moves
    /// (kakunin 4's White chains) that are out of the deepening's reach, but with small
    /// budgets it proves fewer short lines than the deepening, so it serves the regions of
    /// few empty points and long lines ([`crate::decision::DEEP_REGION_MAX_EMPTY`]).
    ///
    /// Repetitions (第七条 解説 循環): a state already on the current line counts as a failure
    /// of the forcing side, so no proof ever rests on one and every proof stored is exact
    /// whatever the path. A failure that rested on one holds for this line only and is not
    /// kept; failures that did not are exact and kept for this search. Nodes: each state
    /// generated counts one, and each re-expansion of a state whose children are kept
    /// (within [`DFPN_KIDS_MAX_BYTES`] per prover) counts one; lines deeper than
    /// [`DFPN_MAX_DEPTH`] plies count as failures of this line.
    ///
    /// Proof numbers are the plain sums and minima, and a child's end is checked when it is
    /// generated. A new state starts at (1, 1), but for *alive* its disproof number starts at
    /// the examined chain's liberties less one, at most [`DFPN_PLUS_LIBERTIES`] less one
    /// (df-pn+, Nagai 2002, as in Kishimoto & Müller's TSUMEGO EXPLORER, AAAI 2005): at the
    /// opponent's states df-pn then first tries the moves that leave the chain fewest
    /// liberties. The numbers only order the search: a proof or disproof still rests on the
    /// ends and the repetitions alone, so every answer stays exact.
    pub fn prove_dfpn(&mut self, region: &mut Region, root: &State, limit: u64) -> Result<bool, OutOfBudget> {
        if let Some(e) = region.end(&root.cells, &self.stones, self.owner) {
            return Ok(e == self.goal);
        }
        let mut tt = std::mem::take(&mut self.dfpn);
        self.path.clear();
        let v = self.mid(region, root, INF, INF, limit, &mut tt);
        self.path.clear();
        self.dfpn = tt;
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
        // Children: kept from an earlier expansion (their ends fixed, the rest looked up
        // again), or generated; `fixed[i]`: the value of child `i` is its end's.
        let mut kids: Vec<(State, Move, Val)> = Vec::new();
        let mut fixed: Vec<bool> = Vec::new();
        if let Some(kept) = self.kids.remove(st) {
            region.nodes += 1;
            if region.nodes > limit || region.halted() {
                self.kids.insert(st.clone(), kept);
                return Err(OutOfBudget);
            }
            for (child, m, end) in kept {
                let v = end.unwrap_or_else(|| self.looked_up_or_estimated(region, st, &child, tt));
                let done = v.pn == 0 && forcing;
                kids.push((child, m, v));
                fixed.push(end.is_some());
                if done {
                    break;
                }
            }
        } else {
            for mv in self.moves(region, st, forcing) {
                let Some(child) = region.play(st, mv) else { continue };
                region.nodes += 1;
                if region.nodes > limit || region.halted() {
                    return Err(OutOfBudget);
                }
                let m = region.move_at(mv);
                let (v, end) = match region.end(&child.cells, &self.stones, self.owner) {
                    Some(e) if e == self.goal => (Val { pn: 0, dn: INF, dist: 0, rep: false }, true),
                    Some(_) => (Val { pn: INF, dn: 0, dist: 0, rep: false }, true),
                    None => (self.looked_up_or_estimated(region, st, &child, tt), false),
                };
                let done = v.pn == 0 && forcing;
                kids.push((child, m, v));
                fixed.push(end);
                if done {
                    break;
                }
            }
        }
        if kids.is_empty() {
            // No legal move, not even a pass (never the case in practice): no proof here.
            return Ok(Val { pn: INF, dn: 0, dist: 0, rep: true });
        }
        let r = self.mid_loop(region, st, &mut kids, forcing, th_pn, th_dn, limit, tt);
        // Kept for a re-expansion unless settled for good.
        let settled = matches!(r, Ok(v) if v.pn == 0 || (v.dn == 0 && !v.rep));
        if !settled {
            let bytes: usize = kids.iter().map(|k| std::mem::size_of::<(State, Move, Option<Val>)>() + k.0.cells.len()).sum::<usize>()
                + std::mem::size_of::<State>()
                + st.cells.len();
            if self.kids_bytes + bytes <= self.kids_max_bytes {
                self.kids_bytes += bytes;
                self.kids.insert(st.clone(), kids.into_iter().zip(fixed).map(|((c, m, v), end)| (c, m, end.then_some(v))).collect());
            }
        }
        r
    }

    /// A child's df-pn value from the tables: proved, a repetition of the path (a failure of
    /// the forcing side, for this path only), its stored numbers, or new (1, 1).
    fn looked_up(&self, st: &State, child: &State, tt: &HashMap<State, (u32, u32)>) -> Val {
        if let Some(&(d, _)) = self.proved.get(child) {
            Val { pn: 0, dn: INF, dist: d, rep: false }
        } else if child == st || self.path.contains(child) {
            Val { pn: INF, dn: 0, dist: 0, rep: true }
        } else if let Some(&(pn, dn)) = tt.get(child) {
            Val { pn, dn, dist: 0, rep: false }
        } else {
            Val { pn: 1, dn: 1, dist: 0, rep: false }
        }
    }

    /// [`Prover::looked_up`], with a new state's disproof number of *alive* estimated from the
    /// examined chain's liberties (df-pn+, see [`Prover::prove_dfpn`]): each liberty beyond
    /// the first, up to [`DFPN_PLUS_LIBERTIES`], adds one.
    fn looked_up_or_estimated(&self, region: &Region, st: &State, child: &State, tt: &HashMap<State, (u32, u32)>) -> Val {
        let v = self.looked_up(st, child, tt);
        let new = (v.pn, v.dn) == (1, 1) && !tt.contains_key(child);
        if self.goal != End::Alive || !new {
            return v;
        }
        let extra = liberties_of(&region.scope, &child.cells, &self.stones, self.owner, DFPN_PLUS_LIBERTIES).saturating_sub(1);
        Val { dn: 1 + extra, ..v }
    }

    /// The loop of [`Prover::mid`] at `st` over its children `kids` (child, move, value).
    #[allow(clippy::too_many_arguments)]
    fn mid_loop(
        &mut self,
        region: &mut Region,
        st: &State,
        kids: &mut [(State, Move, Val)],
        forcing: bool,
        th_pn: u32,
        th_dn: u32,
        limit: u64,
        tt: &mut HashMap<State, (u32, u32)>,
    ) -> Result<Val, OutOfBudget> {
        self.path.push(st);
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

    /// Reorders `moves` (the static order of [`ordered_moves`]) by what the deepening has
    /// learnt: for the forcing side the killer of this ply first, then by history; for the
    /// defender by history (a refutation found early ends the node early). Ties keep the
    /// static order. Only the order changes, never the set of moves.
    fn learnt_order(&self, moves: &mut [Option<u32>], forcing: bool, n: usize) {
        let h = &self.history[usize::from(!forcing)];
        if h.len() != n + 1 {
            return;
        }
        let slot = |mv: &Option<u32>| mv.map_or(n, |i| i as usize);
        let killer = if forcing { self.killers.get(self.path.len()).copied().flatten() } else { None };
        moves.sort_by_key(|mv| (Some(*mv) != killer, std::cmp::Reverse(h[slot(mv)])));
    }

    /// Records that `mv` proved a forcing node (`proved`) or refuted a defending one, with
    /// `depth` plies left, at `ply`.
    fn learn(&mut self, mv: Option<u32>, proved: bool, depth: u32, ply: usize, n: usize) {
        let h = &mut self.history[usize::from(!proved)];
        if h.len() != n + 1 {
            *h = vec![0; n + 1];
        }
        let k = mv.map_or(n, |i| i as usize);
        h[k] = h[k].saturating_add(1 << depth.min(20));
        if proved {
            if self.killers.len() <= ply {
                self.killers.resize(ply + 1, None);
            }
            self.killers[ply] = Some(mv);
        }
    }

    /// Counts a visit of `st` (the node limit `limit`, the halt conditions) and answers it when
    /// it is already settled: `Some(Some(dist))` at the goal or a stored proof, `Some(None)`
    /// at the other end, `None` when it must be searched.
    fn visit(&mut self, region: &mut Region, st: &State, limit: u64) -> Result<Option<Option<u32>>, OutOfBudget> {
        region.nodes += 1;
        if region.nodes > limit || region.halted() {
            return Err(OutOfBudget);
        }
        if let Some(e) = region.end(&st.cells, &self.stones, self.owner) {
            return Ok(Some((e == self.goal).then_some(0)));
        }
        Ok(self.proved.get(st).map(|&(d, _)| Some(d)))
    }

    /// `Some(dist)` if proved within `depth` plies.
    fn search(&mut self, region: &mut Region, st: &State, depth: u32, limit: u64) -> Result<Option<u32>, OutOfBudget> {
        Ok(self.search_z(region, st, depth, limit)?.map(|(d, _)| d))
    }

    /// Whether the deepening's proofs carry relevance zones (module `zone`): under the 2011
    /// draft, with Benson's and the links rule's ends only.
    fn zoned(&self, region: &Region) -> bool {
        region.zoning
            && region.mode == Mode::Kiyaku2011
            && region.safety_end.is_none()
            && region.territory.is_none()
            && region.scope.virtual_eye.is_empty()
            && !self.stones.is_empty()
    }

    /// The zone of a state [`Prover::visit`] answered with a proof: an end's certificate, or
    /// the zone stored with the proof (the whole region when none was).
    fn known_zone(&self, region: &mut Region, st: &State) -> zone::Zone {
        if !self.zoned(region) {
            return None;
        }
        if region.end(&st.cells, &self.stones, self.owner) == Some(self.goal) {
            let forcing = if self.goal == End::Dead { self.owner.opponent() } else { self.owner };
            if self.goal == End::Dead && !region.benson_dead(&st.cells, &self.stones, self.owner) {
                // Not Benson's dead end: the links rule's, whose certificate needs no
                // unconditional analysis, or else a sealed territory's (closed).
                if region.dead_at_once(&st.cells, &self.stones, self.owner) {
                    return zone::links_end_zone(&region.scope, &st.cells, &self.stones, self.owner);
                }
                let mut z = region.sealed_zone(&st.cells, &self.stones, self.owner)?;
                zone::close(&region.scope, &st.cells, forcing, &mut z);
                return Some(z);
            }
            let (scope, safe) = region.scoped_safe(&st.cells, forcing);
            return zone::end_zone(scope, &st.cells, safe, &self.stones, self.owner, self.goal);
        }
        self.zones.get(st).cloned()
    }

    /// The exclusions of the move generator at the defender's state `st` that fall in `zp`
    /// (empty points of `zp` it did not generate, `generated`): their certificates (module
    /// `zone`) added to `z`.
    fn exclusion_certs(&self, region: &mut Region, st: &State, zp: &Bits, generated: &[bool], z: &mut zone::Zone) {
        let left_out: Vec<usize> = (0..region.scope.len()).filter(|&i| zp.get(i) && st.cells[i] == EMPTY && !generated[i]).collect();
        if left_out.is_empty() {
            return;
        }
        let [b, w] = region.areas(&st.cells);
        let (b, w) = (b.clone(), w.clone());
        let mut certs: zone::Zone = Some(Bits::new(region.scope.len()));
        for (c, area) in [(Color::Black, &b), (Color::White, &w)] {
            if left_out.iter().any(|&i| area.get(i)) {
                let (scope, safe) = region.scoped_safe(&st.cells, c);
                zone::join(&mut certs, &Some(zone::area_cert(scope, &st.cells, c, safe)));
            }
        }
        if left_out.iter().any(|&i| !b.get(i) && !w.get(i)) {
            match seal::sealed_cert(&region.scope, &st.cells, &self.stones) {
                Some(cert) => zone::join(&mut certs, &Some(cert)),
                None => certs = None,
            }
        }
        zone::join(z, &certs);
    }

    /// As [`Prover::search`], with the proof's relevance zone when [`Prover::zoned`] (else the
    /// whole region, `None`): at the defender's states its pass is searched first, and when it
    /// is proved only the defender's moves inside the pass's zone are searched (module `zone`).
    fn search_z(&mut self, region: &mut Region, st: &State, depth: u32, limit: u64) -> Result<Option<(u32, zone::Zone)>, OutOfBudget> {
        if let Some(known) = self.visit(region, st, limit)? {
            return Ok(known.map(|d| (d, self.known_zone(region, st))));
        }
        if self.path.contains(st) || self.failed.get(st).is_some_and(|&d| d >= depth) {
            return Ok(None);
        }
        if depth == 0 {
            self.depth_cut = true;
            return Ok(None);
        }
        let forcing = st.to_move == self.forcing;
        let zoned = self.zoned(region);
        let mut moves = self.moves(region, st, forcing);
        self.learnt_order(&mut moves, forcing, region.scope.len());
        if forcing && self.width > 0 && moves.len() > self.width {
            let rest = moves.split_off(self.width);
            let pass_left_out = rest.contains(&None);
            let own = cell(self.owner);
            let next_to_chain = |i: u32| {
                region.scope.nbrs[i as usize].iter().any(|&g| st.cells.get(g as usize) == Some(&own) && self.stones.contains(&(g as usize)))
            };
            moves.extend(rest.into_iter().filter(|mv| mv.is_some_and(next_to_chain)));
            if pass_left_out {
                moves.push(None);
            }
        }
        let n = region.scope.len();
        // The zone's parts that only a proof needs (the certificate that the defender's end is
        // not reached, the closures of the defender's moves searched, the certificates of the
        // moves left out) are added once the state is proved.
        let mut zone: zone::Zone = zoned.then(|| Bits::new(n));
        let mut searched: Vec<usize> = Vec::new();
        let mut generated = Vec::new();
        if zoned && !forcing {
            generated = vec![false; n];
            for &i in moves.iter().flatten() {
                generated[i as usize] = true;
            }
            moves.retain(|m| m.is_some());
            moves.insert(0, None);
        }
        // The defender's moves to search: inside its pass's zone once that is proved.
        let mut within: Option<Bits> = None;
        let ply = self.path.len();
        self.path.push(st);
        let mut result: Option<(u32, Move)> = None;
        let mut worst: Option<(u32, Move)> = None;
        let mut all = true;
        for mv in moves {
            if let (Some(w), Some(i)) = (&within, mv) {
                if !w.get(i as usize) {
                    self.pruned += 1;
                    continue;
                }
            }
            if let (true, false, Some(i)) = (zoned, forcing, mv) {
                searched.push(i as usize);
            }
            let Some(child) = region.play(st, mv) else { continue };
            let r = self.search_z(region, &child, depth - 1, limit);
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    self.path.pop();
                    return Err(e);
                }
            };
            let m = region.move_at(mv);
            if forcing {
                if let Some((d, cz)) = r {
                    result = Some((d + 1, m));
                    if zoned {
                        zone::join(&mut zone, &cz);
                        if let (Some(z), Some(i)) = (zone.as_mut(), mv) {
                            zone::add_move(&region.scope, &st.cells, self.forcing.opponent(), i as usize, z);
                        }
                    }
                    self.learn(mv, true, depth, ply, n);
                    break;
                }
            } else {
                match r {
                    None => {
                        all = false;
                        self.learn(mv, false, depth, ply, n);
                        break;
                    }
                    Some((d, cz)) => {
                        if worst.is_none_or(|(w, _)| d + 1 > w) {
                            worst = Some((d + 1, m));
                        }
                        if zoned && mv.is_none() {
                            if let Some(mut zp) = cz {
                                zone::close(&region.scope, &st.cells, self.forcing, &mut zp);
                                zone::join(&mut zone, &Some(zp.clone()));
                                within = Some(zp);
                            } else {
                                zone = None;
                            }
                        } else if zoned {
                            zone::join(&mut zone, &cz);
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
                if zone.is_some() {
                    let other = zone::not_other_end(&region.scope, &st.cells, &self.stones, self.owner, self.goal);
                    zone::join(&mut zone, &other);
                }
                if let (Some(zp), true) = (&within, zone.is_some()) {
                    self.exclusion_certs(region, st, zp, &generated, &mut zone);
                }
                if let Some(z) = zone.as_mut() {
                    for &i in &searched {
                        zone::add_move(&region.scope, &st.cells, self.forcing.opponent(), i, z);
                    }
                    zone::close(&region.scope, &st.cells, self.forcing, z);
                    self.zones.insert(st.clone(), z.clone());
                }
                Ok(Some((d, zone)))
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

/// The liberties of the standing stones of `stones` of `owner` and the stones of `owner`
/// joined to them in `cells`, counted up to `cap` (a liberty outside the scope that stays
/// empty counts `cap`); 0 when none stands.
pub(super) fn liberties_of(sc: &Scope, cells: &[u8], stones: &[usize], owner: Color, cap: u32) -> u32 {
    let me = cell(owner);
    LIB_SCRATCH.with(|s| {
        let (mark, stack) = &mut *s.borrow_mut();
        mark.clear();
        mark.resize(sc.len(), false);
        stack.clear();
        for &x in stones {
            if cells[x] == me && !mark[x] {
                mark[x] = true;
                stack.push(x as u32);
            }
        }
        let mut libs = 0;
        while let Some(l) = stack.pop() {
            for &g in &sc.nbrs[l as usize] {
                if g == NONE {
                    continue;
                }
                if g >= OUT {
                    if sc.ext[(g - OUT) as usize].0 == EMPTY {
                        return cap;
                    }
                } else if !mark[g as usize] {
                    let v = cells[g as usize];
                    if v == EMPTY {
                        mark[g as usize] = true;
                        libs += 1;
                        if libs >= cap {
                            return cap;
                        }
                    } else if v == me {
                        mark[g as usize] = true;
                        stack.push(g);
                    }
                }
            }
        }
        libs
    })
}

thread_local! {
    /// Buffers of [`liberties_of`]: points met, the flood's stack.
    static LIB_SCRATCH: std::cell::RefCell<(Vec<bool>, Vec<u32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}
