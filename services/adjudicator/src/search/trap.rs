//! The exact avoidance search that settles seki and cycles (第七条 解説 循環).

use super::*;

/// Node limit of the quick proof tried at each new state of an avoidance search.
const QUICK_NODES: u64 = 500;
/// Depth limit (plies) of that quick proof.
const QUICK_DEPTH: u32 = 8;

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
