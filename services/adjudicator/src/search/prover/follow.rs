//! Proofs lent between the chains of a region and followed (Kawano's simulation between
//! sibling positions, applied to chains): [`Lent`], [`Prover::lend`], [`Prover::follow`].

use super::*;

/// A proof of one chain's end that its region keeps for the region's other chains
/// ([`Prover::follow`]): the owner and end it proves, the root it starts from, and its
/// proved states (by state: moves to the end, and the forcing move or longest defence).
pub(crate) struct Lent {
    owner: Color,
    goal: End,
    root: State,
    proved: HashMap<State, (u32, Move)>,
}

impl Lent {
    /// Whether it proves `goal` for a chain of `owner` from `root`.
    pub fn proves(&self, owner: Color, goal: End, root: &State) -> bool {
        self.owner == owner && self.goal == goal && self.root == *root
    }

    /// How many proved states it holds.
    pub fn len(&self) -> usize {
        self.proved.len()
    }
}

/// Nodes of each short search of [`Prover::follow`] where the guide has no move.
const FOLLOW_SEARCH_NODES: u64 = 1_000;
/// Plies of each short search of [`Prover::follow`] at most.
const FOLLOW_SEARCH_DEPTH: u32 = 12;

impl Prover {
    /// This prover's proofs, lent to the region's other chains ([`Prover::follow`]), once it
    /// has proved its end from `root`.
    pub fn lend(self, root: &State) -> Lent {
        Lent { owner: self.owner, goal: self.goal, root: root.clone(), proved: self.proved }
    }

    /// A proof of this prover's end that follows `guide`, another chain's proof of the same
    /// end for the same owner from the same root (a transfer of a proof between chains, as
    /// in Kawano's simulation between sibling positions): at each of the forcing side's
    /// states it tries only the move of `guide`'s strategy; at each of the defender's it
    /// answers every move of this chain's own move generation; a line ends at this chain's
    /// ends ([`Region::end`]) and fails at a state that repeats the line. Where `guide` has
    /// no move (its chain reached its end first, or the defender left its strategy) or its
    /// move fails, a short deepening of this chain's own ([`FOLLOW_SEARCH_NODES`],
    /// [`FOLLOW_SEARCH_DEPTH`]) takes over. What it finds is a forced proof of this chain's
    /// end checked move by move, as exact as [`Prover::prove`]'s (第七条: the forcing side
    /// reaches the end whatever the defender plays); a failure proves nothing. Chains that
    /// live or die together need one search between them (kakunin 4's Black chain
    /// `ae-af-ag` follows `ab-ba-bb`'s proof; its two White chains do not follow each
    /// other's: White can give up one to save the other, so each needs its own strategy).
    /// Nodes: each state visited counts one, until the region has used `limit`.
    pub fn follow(&mut self, region: &mut Region, root: &State, guide: &Lent, limit: u64, max_line: usize) -> Option<Vec<(Color, Move)>> {
        if !guide.proves(self.owner, self.goal, root) {
            return None;
        }
        self.failed.clear();
        self.path.clear();
        let r = self.follow_at(region, root, guide, limit);
        self.path.clear();
        self.failed.clear();
        region.nodes = region.nodes.min(limit);
        match r {
            Ok(Some(_)) => Some(self.line(region, root, max_line)),
            _ => None,
        }
    }

    /// [`Prover::follow`] at `st`: `Some(dist)` when `guide`'s strategy forces the end from it.
    fn follow_at(&mut self, region: &mut Region, st: &State, guide: &Lent, limit: u64) -> Result<Option<u32>, OutOfBudget> {
        if let Some(known) = self.visit(region, st, limit)? {
            return Ok(known);
        }
        if self.path.len() >= DFPN_MAX_DEPTH || self.path.contains(st) || self.failed.contains_key(st) {
            return Ok(None);
        }
        let forcing = st.to_move == self.forcing;
        let moves = if forcing {
            guide.proved.get(st).map(|&(_, m)| region.local_move(m)).into_iter().collect()
        } else {
            self.moves(region, st, false)
        };
        self.path.push(st);
        let mut result: Option<(u32, Move)> = None;
        let mut worst: Option<(u32, Move)> = None;
        let mut all = true;
        for mv in moves {
            let Some(child) = region.play(st, mv) else { continue };
            let r = match self.follow_at(region, &child, guide, limit) {
                Ok(r) => r,
                Err(e) => {
                    self.path.pop();
                    return Err(e);
                }
            };
            let m = region.move_at(mv);
            match (forcing, r) {
                (true, Some(d)) => {
                    result = Some((d + 1, m));
                    break;
                }
                (true, None) => {}
                (false, None) => {
                    all = false;
                    break;
                }
                (false, Some(d)) => {
                    if worst.is_none_or(|(w, _)| d + 1 > w) {
                        worst = Some((d + 1, m));
                    }
                }
            }
        }
        self.path.pop();
        if !forcing && all {
            result = worst;
        }
        if let Some((d, m)) = result {
            self.proved.insert(st.clone(), (d, m));
            return Ok(Some(d));
        }
        if forcing {
            // Where the guide has no move (its chain's end came first, or the defender left
            // its strategy) or its move fails here: a short search of this chain's own.
            let lim = (region.nodes + FOLLOW_SEARCH_NODES).min(limit);
            for depth in (2..=FOLLOW_SEARCH_DEPTH).step_by(2) {
                match self.search(region, st, depth, lim) {
                    Ok(Some(d)) => return Ok(Some(d)),
                    Ok(None) => {}
                    Err(_) if region.nodes <= limit && !region.halted() => break,
                    Err(e) => return Err(e),
                }
            }
        }
        self.failed.insert(st.clone(), 0);
        Ok(None)
    }
}
