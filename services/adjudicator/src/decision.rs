//! How one chain is decided within its share of a region's budget (crate docs, Engine step
//! 4): quick depth-first proofs, the exact avoidance search, then deeper proofs; the tuning
//! constants of that schedule.

use crate::benson::NONE;
use crate::search::{ordered_moves, End, Mode, Prover, Region, State, Trap};
use crate::*;

/// Nodes (local games of the safety proofs included) each end's proof with safe territories
/// as ends may use, at most a quarter of what the chain has left. Each node of it recomputes
/// the safety proofs, so it is kept small: larger values take budget the exhaustive steps
/// need.
pub(crate) const SAFE_END_PROOF_NODES: u64 = 2_000;

/// In the deep schedule ([`DEEP_REGION_MAX_EMPTY`]), the proofs with safe territories as
/// ends first get at most this many nodes per end, and their full allowance only after the
/// first end's df-pn proof has failed: a short line to a safe shape is found at once (2 nodes
/// for a chain of the 9x9 records that took 93,000 when these proofs came after df-pn), while
/// a chain decided by df-pn (kakunin 4's) does not pay 2,000 costly nodes per end first.
pub(crate) const DEEP_SAFE_END_FIRST_NODES: u64 = 500;

/// Boards of at most this many points (13x13) run the proofs with safe territories as ends.
/// Each of their nodes recomputes the safety proofs of the whole board, so the cost grows
/// with the board: on 19x19 they decide no more stones for more time, so 19x19 boards skip
/// them.
pub(crate) const SAFE_END_MAX_BOARD: usize = 13 * 13;

/// A chain that ran out of its share of the region's budget is tried again only with at
/// least this many of the nodes the region has left (see [`adjudicate_with_progress`]).
pub(crate) const MIN_RETRY_NODES: u64 = 1_000;

/// Nodes the quick proofs of a chain in a region too large for the exhaustive steps (but of
/// at most twice [`Options::max_region_empty`] empty points) may use, each end. Each node
/// there orders every move of the region and computes both unconditional areas, so they
/// are kept short and off the largest regions.
pub(crate) const LARGE_REGION_QUICK_NODES: u64 = 300;

/// The avoidance searches (step 2 of [`decide`]) get `1 / TRAP_SHARE` of what a chain has
/// left; when they run out, the deeper proofs of step 3 get the rest.
pub(crate) const TRAP_SHARE: u64 = 3;

/// [`TRAP_SHARE`] under 1989, where the avoidance search is the only way to *alive* (only
/// the attacker's end is asked): a half.
pub(crate) const TRAP_SHARE_1989: u64 = 2;

/// In the deep schedule (a region of at most [`DEEP_REGION_MAX_EMPTY`] empty points), after
/// the first df-pn proof of step 2a: each df-pn proof of an end the first avoidance search
/// did not exclude gets `1 / DFPN_SHARE` of what is left.
pub(crate) const DFPN_SHARE: u64 = 4;
/// In the deep schedule, the first avoidance search is capped at this many nodes before the
/// df-pn proofs of [`DFPN_SHARE`] and the full one.
pub(crate) const FIRST_TRAP_NODES: u64 = 250_000;
/// A region of at most this many empty points takes the *deep schedule*, at any budget: the
/// first end's quick proof and step 2a of [`decide`] are df-pn's ([`Prover::prove_dfpn`]; an
/// invader's *dead* with [`DEEP_INVADER_DEAD_SHARE`] of what is left, any other chain's *alive*
/// with `1 / DEEP_REGION_FIRST_SHARE`), then come a first avoidance search capped at
/// [`FIRST_TRAP_NODES`], df-pn proofs of the ends it did not exclude ([`DFPN_SHARE`]), the
/// full avoidance search, and step 3 by df-pn. Few empty points and many stones make long
/// lines (captures empty the region and it fills again: kakunin 4's 40 moves), which df-pn
/// reaches and the deepening does not; with it kakunin 4 is decided at the service's 500,000
/// nodes per region. Larger regions take the deepening alone, at every budget: on real
/// positions it proves more than df-pn in the same nodes, and more with more nodes
/// (`dispute_games` at 500,000, 1,000,000 and 2,000,000 nodes per region).
pub(crate) const DEEP_REGION_MAX_EMPTY: usize = 8;
/// See [`DEEP_REGION_MAX_EMPTY`].
pub(crate) const DEEP_REGION_FIRST_SHARE: u64 = 2;

/// The two avoidance searches of a chain and their answers (`None`: out of budget;
/// `Some(true)`: the end is avoidable).
pub(crate) struct Traps {
    avoidable_alive: Option<bool>,
    avoidable_dead: Option<bool>,
    keep_alive_out: Trap,
    keep_dead_out: Trap,
}

impl Traps {
    /// Whether they settle the status (alive forced, dead forced, or both avoidable), or,
    /// when only the end `only` is wanted, whether that end is forced or avoidable.
    fn decided(&self, only: Option<End>) -> bool {
        matches!((self.avoidable_alive, self.avoidable_dead), (Some(false), _) | (Some(true), Some(_)))
            || match only {
                Some(End::Alive) => self.avoidable_alive.is_some(),
                Some(End::Dead) => self.avoidable_dead.is_some(),
                None => false,
            }
    }
}

/// The share of what a chain has left after the quick proofs (numerator, denominator) that
/// the proof of *dead* gets for an invader ([`invader`]) under 2011 (by the deepening, by
/// df-pn in the deep schedule of [`DEEP_REGION_MAX_EMPTY`]), before the
/// avoidance searches (which settle seki) get a third of the rest: an invader is far more
/// often dead than in seki, and a proof of its death needs long lines that only a large
/// share reaches.
pub(crate) const INVADER_DEAD_SHARE: (u64, u64) = (7, 8);

/// [`INVADER_DEAD_SHARE`] in the deep schedule ([`DEEP_REGION_MAX_EMPTY`]), for its df-pn
/// proof of an invader's *dead* (step 2a of [`decide`]): fifteen sixteenths. What df-pn leaves
/// goes to steps that seldom decide such a chain there (the proofs with safe territories as
/// ends in full, the second end's quick proof, a capped avoidance search), and the region's
/// retry goes on from df-pn's proof numbers anyway; each White chain of kakunin 4 needs about
/// 140,000 df-pn nodes, just over seven eighths of its first share.
pub(crate) const DEEP_INVADER_DEAD_SHARE: (u64, u64) = (15, 16);

/// The narrow deepening of an invader's *dead* (step 2a of [`decide`], outside the deep
/// schedule): the killer searches only its first [`NARROW_WIDTH`] moves at each of its
/// states, and its moves next to the examined chain ([`Prover::narrow`]), with this share
/// of what the chain has left after the quick proofs (numerator, denominator), out of the
/// [`INVADER_DEAD_SHARE`]; the full deepening goes on from its proofs with the rest of that
/// share. In a region of 30 to 80 points the
/// killing move is usually among the first few of the learnt order, and a narrow tree
/// reaches lines a few moves longer in the same nodes. Its nodes cost more time than the full
/// search's (most of its states are new, each with its unconditional areas to compute), so
/// the share trades time for decisions: a larger one decides more of the marked records'
/// invasions and makes those that stay undecided slower (the `shinpan` package's
/// `tests/dispute_games.rs` prints both).
pub(crate) const NARROW_SHARE: (u64, u64) = (8, 16);
/// See [`NARROW_SHARE`].
pub(crate) const NARROW_WIDTH: usize = 7;

/// Nodes a chain may use (each end, and at most `1 / FOLLOW_SHARE` of what it has left) to
/// follow each proof of another chain of its region ([`search::Prover::follow`]): a proof
/// that transfers is about as large as the proof tree it follows.
pub(crate) const FOLLOW_NODES: u64 = 20_000;
/// See [`FOLLOW_NODES`].
pub(crate) const FOLLOW_SHARE: u64 = 8;
/// A chain follows other chains' proofs only with at least this many nodes left: with less,
/// a failed attempt takes nodes its own quick proofs need (a 9x9 final position at 2,000
/// nodes per region is no longer decided whole when its chains follow each other's proofs).
pub(crate) const FOLLOW_MIN_LEFT: u64 = 20_000;

/// Nodes the first, depth-first proof attempts of a chain may use (each end) before the
/// exact avoidance searches ([`search::Trap`]) take over.
pub(crate) const QUICK_PROOF_NODES: u64 = 20_000;

/// A chain's df-pn provers, one per end (alive, dead), with their proof and disproof numbers:
/// kept by the region's schedule from a chain's first attempt to its retry.
pub(crate) type DeepProvers = [Option<Prover>; 2];

/// Decides one chain (local indices `stones` of colour `c`) in `region`; its df-pn proofs go
/// on from those kept in `deep_provers` and are kept there.
pub(crate) fn decide(
    region: &mut Region,
    board: &Board,
    stones: &[usize],
    c: Color,
    opts: &Options,
    deep_provers: &mut DeepProvers,
) -> (Status, Vec<(Color, Move)>) {
    decide_with(region, board, stones, c, opts, Steps::All, deep_provers)
}

/// Which steps of [`decide`] run.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Steps {
    /// The quick proofs only (steps 0 and 1).
    Quick,
    /// Every step.
    All,
    /// Every step after the quick proofs: a retry of a chain whose quick proofs already ran
    /// with their full allowance (the deepening would search the same trees again).
    AfterQuick,
}

/// Only the quick proofs of [`decide`] (steps 0 and 1; exact when found), for a chain of a
/// region too large for the exhaustive steps: `Undecided` when none is found.
pub(crate) fn quick_proofs(region: &mut Region, board: &Board, stones: &[usize], c: Color, opts: &Options) -> (Status, Vec<(Color, Move)>) {
    decide_with(region, board, stones, c, opts, Steps::Quick, &mut [None, None])
}

pub(crate) fn decide_with(
    region: &mut Region,
    board: &Board,
    stones: &[usize],
    c: Color,
    opts: &Options,
    steps: Steps,
    deep_provers: &mut DeepProvers,
) -> (Status, Vec<(Color, Move)>) {
    const MAX_LINE: usize = 60;
    let cells = region.scope.cells(board);
    let mut root = State::new(cells, c);
    match region.mode {
        Mode::Kiyaku2011 => {
            // The examined side moves first (第七条 解説); a pending 第五条 ban binds it
            // only if it is also the player to move in the record.
            if let Some(q) = opts.ko_pending.filter(|_| opts.to_move == c) {
                root.ko = region.scope.local_of(q);
            }
        }
        Mode::Kiyaku1989 => {
            // The opponent attacks first (要請II-\[iii\]); a ko just taken binds the
            // player to move until it passes (要請II-\[iv\]).
            root.to_move = c.opponent();
            if let Some(q) = opts.ko_pending {
                let mover = opts.to_move;
                for s in board.adjacent(q) {
                    if board.get(s) == Some(mover.opponent())
                        && board.chain(s).len() == 1
                        && board.liberties(s) == vec![q]
                        && region.scope.local_of(q) != NONE
                        && region.scope.local_of(s) != NONE
                    {
                        root.bans[mover.index()].push((region.scope.local_of(q), region.scope.local_of(s)));
                    }
                }
            }
        }
    }
    // The order in which the ends are tried (it changes no answer: both cannot be forced):
    // the end the caller names first (`Region::first_end`), else an invader first for
    // *dead*, any other chain first for *alive*. Only one when the caller takes only one
    // (`Region::only_end`): then no seki is searched either.
    let dead_first = region.only_end.or(region.first_end).map_or_else(|| invader(region, c), |e| e == End::Dead);
    let goals: &[End] = match (region.only_end, region.mode, dead_first) {
        (Some(End::Alive), Mode::Kiyaku2011, _) => &[End::Alive],
        (Some(End::Alive), Mode::Kiyaku1989, _) => &[],
        (Some(End::Dead), _, _) => &[End::Dead],
        (None, Mode::Kiyaku2011, false) => &[End::Alive, End::Dead],
        (None, Mode::Kiyaku2011, true) => &[End::Dead, End::Alive],
        (None, Mode::Kiyaku1989, _) => &[End::Dead],
    };
    if goals.is_empty() {
        return (Status::Undecided, Vec::new());
    }
    // df-pn proofs (`deep`) go on, per end (alive, dead), from the proofs and proof numbers
    // of the end's earlier df-pn attempts; the deepening starts afresh each time.
    // A proof found is lent to the region's other chains (`Region::lend`).
    let mut prove = |region: &mut Region, goal: End, limit: u64, deep: bool| -> Option<(Status, Vec<(Color, Move)>)> {
        let (k, status) = if goal == End::Alive { (0, Status::Alive) } else { (1, Status::Dead) };
        let mut fresh = None;
        let p = if deep {
            deep_provers[k].get_or_insert_with(|| Prover::new(stones.to_vec(), c, goal))
        } else {
            fresh.insert(Prover::new(stones.to_vec(), c, goal))
        };
        let line = p.forced_line(region, &root, limit, MAX_LINE, deep)?;
        let p = if deep { deep_provers[k].take() } else { fresh }.expect("the prover that proved");
        region.lend(p.lend(&root));
        Some((status, line))
    };
    // A proof of the same end of another chain of the region, followed (`Prover::follow`):
    // chains that live or die together are proved by one search. A retry follows only the
    // proofs lent since the chain's first attempt (the others would fail as they did).
    let lent = region.take_lent();
    let from = if region.budget.saturating_sub(region.nodes) >= FOLLOW_MIN_LEFT {
        let from = region.followed(stones).min(lent.len());
        region.mark_followed(stones, lent.len());
        from
    } else {
        lent.len()
    };
    for &goal in goals {
        let status = if goal == End::Alive { Status::Alive } else { Status::Dead };
        for guide in &lent[from..] {
            let limit = region.nodes + (region.budget.saturating_sub(region.nodes) / FOLLOW_SHARE).min(FOLLOW_NODES);
            let mut p = Prover::new(stones.to_vec(), c, goal);
            if let Some(line) = p.follow(region, &root, guide, limit, MAX_LINE) {
                region.restore_lent(lent);
                region.lend(p.lend(&root));
                return (status, line);
            }
        }
    }
    region.restore_lent(lent);
    // A region of few empty points takes the deep schedule (df-pn proofs of the first end
    // follow, see step 2a), which changes steps 0 and 1: see there.
    let deep = root.cells.iter().filter(|&&v| v == crate::benson::EMPTY).count() <= DEEP_REGION_MAX_EMPTY;
    let quick_dfpn = steps == Steps::All && deep;
    // 0. Quick proofs in which territories proved safe (module `safety`) end a line too
    //    (`Region::safe_end`): a short line to a safe shape instead of a long one to a
    //    pass-alive one. In the deep schedule only the short ones come first
    //    (`DEEP_SAFE_END_FIRST_NODES`); the full allowance waits until step 2a has failed:
    //    each of their nodes recomputes the safety proofs, and most chains there are decided
    //    by their first end.
    if region.base.is_some() && steps != Steps::AfterQuick {
        let cap = if quick_dfpn { DEEP_SAFE_END_FIRST_NODES } else { SAFE_END_PROOF_NODES };
        if let Some(found) = safe_end_proofs(region, goals, cap, &mut prove) {
            return found;
        }
    }
    // 1. Quick depth-first proofs (exact when found).
    //    Each end has its own allowance: the first end's failed attempt does not use up the
    //    second's. Where df-pn proofs of the first end follow (the deep schedule, below), that
    //    end's quick proof is df-pn's already, and step 2a goes on from its numbers instead of
    //    searching that tree again; the second end's stays the deepening's (it finds short
    //    lines with passes that df-pn can miss) and waits until step 2a has failed: most
    //    chains there are decided by their first end.
    let cap = if steps == Steps::Quick { LARGE_REGION_QUICK_NODES } else { QUICK_PROOF_NODES };
    let quick_ends = if quick_dfpn { 1 } else { goals.len() };
    for &goal in goals.iter().filter(|_| steps != Steps::AfterQuick).take(quick_ends) {
        if let Some(found) = quick_proof(region, goal, cap, quick_dfpn && goal == goals[0], &mut prove) {
            return found;
        }
    }
    // A search that was stopped (cancelled, deadline, memory cap) goes no further.
    if steps == Steps::Quick || region.halt.reason.is_some() {
        return (Status::Undecided, Vec::new());
    }
    // In the deep schedule the rest is df-pn's (a chain whose df-pn proofs ran in the
    // region's first pass goes on with them in the retry).
    let left = region.budget - region.nodes;
    // 2a. The first end, deeper, before the avoidance searches. In the deep schedule by
    //     df-pn (kakunin 4: lines of 40 moves): an invader's *dead* with fifteen sixteenths
    //     of what is left, any other chain's *alive* with a half. Elsewhere, an invader's
    //     *dead* by the deepening (2011) with seven eighths, narrow first (`NARROW_SHARE`):
    //     most invaders the players call dead are, and its proof is what decides. Either
    //     proof's tables are kept for step 3, which goes on from them.
    let mut invader_dead: Option<Prover> = None;
    if deep {
        let allowance = if dead_first && region.mode == Mode::Kiyaku2011 {
            left * DEEP_INVADER_DEAD_SHARE.0 / DEEP_INVADER_DEAD_SHARE.1
        } else {
            left / DEEP_REGION_FIRST_SHARE
        };
        if let Some(found) = prove(region, goals[0], region.nodes + allowance, true) {
            return found;
        }
        // Step 0 and the second end's quick proof, left out before.
        if quick_dfpn && region.base.is_some() {
            if let Some(found) = safe_end_proofs(region, goals, SAFE_END_PROOF_NODES, &mut prove) {
                return found;
            }
        }
        if quick_dfpn && goals.len() > 1 {
            if let Some(found) = quick_proof(region, goals[1], cap, false, &mut prove) {
                return found;
            }
        }
    } else if dead_first && region.mode == Mode::Kiyaku2011 {
        let limit = region.nodes + left * INVADER_DEAD_SHARE.0 / INVADER_DEAD_SHARE.1;
        let narrow = region.nodes + left * NARROW_SHARE.0 / NARROW_SHARE.1;
        let p = invader_dead.insert(Prover::new(stones.to_vec(), c, End::Dead));
        for (width, limit) in [(NARROW_WIDTH, narrow.min(limit)), (0, limit)] {
            p.narrow(width);
            if let Some(line) = p.forced_line(region, &root, limit, MAX_LINE, false) {
                region.lend(invader_dead.take().expect("the prover that proved").lend(&root));
                return (Status::Dead, line);
            }
        }
    }
    // 2. The exact answer with a third of what is left (a half under 1989): can the other
    //    side keep the play out of each end for ever (a trap; seki when both can)?
    let share = match region.mode {
        Mode::Kiyaku2011 => TRAP_SHARE,
        Mode::Kiyaku1989 => TRAP_SHARE_1989,
    };
    let traps = |region: &mut Region, limit: u64| -> Traps {
        let budget = region.budget;
        region.budget = limit;
        let mut keep_alive_out = Trap::new(stones.to_vec(), c, End::Alive);
        let mut keep_dead_out = Trap::new(stones.to_vec(), c, End::Dead);
        // `None` = out of budget; `Some(true)` = the end is avoidable. An invader's *dead*
        // is asked first: when it is forced, *alive* is avoided (every line ends dead first)
        // and the second search is not needed.
        let (avoidable_alive, avoidable_dead) = match (region.mode, dead_first) {
            // With only one end wanted, the other is not asked (no seki either): an avoidable
            // end leaves the other unknown, and the chain undecided.
            (Mode::Kiyaku2011, false) => {
                let alive = keep_alive_out.avoids(region, &root).ok();
                let ask_dead = alive == Some(true) && region.only_end.is_none();
                (alive, if ask_dead { keep_dead_out.avoids(region, &root).ok() } else { None })
            }
            (Mode::Kiyaku2011, true) => match keep_dead_out.avoids(region, &root).ok() {
                Some(false) => (Some(true), Some(false)),
                Some(true) if region.only_end.is_some() => (None, Some(true)),
                Some(true) => (keep_alive_out.avoids(region, &root).ok(), Some(true)),
                None => (None, None),
            },
            // 1989 asks only whether the attacker forces death.
            (Mode::Kiyaku1989, _) => (Some(true), keep_dead_out.avoids(region, &root).ok()),
        };
        region.nodes = region.nodes.min(region.budget);
        region.budget = budget;
        Traps { avoidable_alive, avoidable_dead, keep_alive_out, keep_dead_out }
    };
    // In the deep schedule, a first avoidance search, capped, then df-pn proofs of the ends
    // it did not exclude, before the full one.
    let mut first = None;
    if deep {
        let t = traps(region, region.nodes + ((region.budget - region.nodes) / share).min(FIRST_TRAP_NODES));
        if t.decided(region.only_end) {
            first = Some(t);
        } else {
            for &goal in goals.iter().filter(|&&g| g != End::Alive || t.avoidable_alive.is_none()) {
                let limit = region.nodes + (region.budget - region.nodes) / DFPN_SHARE;
                if let Some(found) = prove(region, goal, limit, true) {
                    return found;
                }
            }
        }
    }
    let t = match first {
        Some(t) => t,
        None => traps(region, region.nodes + (region.budget - region.nodes) / share),
    };
    let forced = match (t.avoidable_alive, t.avoidable_dead) {
        (Some(false), _) => Some(End::Alive),
        (Some(true), Some(false)) => Some(End::Dead),
        (Some(true), Some(true)) => None,
        (alive, _) => {
            // 3. Out of budget: the rest goes to deeper proofs of the ends not excluded.
            let left: Vec<End> = goals
                .iter()
                .copied()
                .filter(|&g| (g != End::Alive || alive.is_none()) && (g != End::Dead || t.avoidable_dead != Some(true)))
                .collect();
            for (k, &goal) in left.iter().enumerate() {
                let limit = region.nodes + (region.budget - region.nodes) / (left.len() - k) as u64;
                // An invader's *dead* goes on from the proofs of step 2a.
                let found = match (goal, invader_dead.as_mut()) {
                    (End::Dead, Some(p)) => p.forced_line(region, &root, limit, MAX_LINE, deep).map(|line| {
                        region.lend(invader_dead.take().expect("the prover that proved").lend(&root));
                        (Status::Dead, line)
                    }),
                    _ => prove(region, goal, limit, deep),
                };
                if let Some(found) = found {
                    return found;
                }
            }
            return (Status::Undecided, Vec::new());
        }
    };
    let Traps { keep_alive_out, keep_dead_out, .. } = t;
    match (region.mode, forced) {
        (_, Some(goal)) => {
            // Forced: show it with a proof line if one is found in what is left.
            let status = if goal == End::Alive { Status::Alive } else { Status::Dead };
            let line = prove(region, goal, region.budget, deep).map(|(_, line)| line).unwrap_or_default();
            (status, line)
        }
        (Mode::Kiyaku2011, None) => (Status::Seki, holding_line(region, &root, &keep_dead_out, Some(&keep_alive_out), stones, c, MAX_LINE)),
        (Mode::Kiyaku1989, None) => (Status::Alive, holding_line(region, &root, &keep_dead_out, None, stones, c, MAX_LINE)),
    }
}

/// A status with its proof line.
type Found = (Status, Vec<(Color, Move)>);

/// A proof of one end in [`decide_with`]: `(region, end, node limit, by df-pn)` -> the status
/// and its line, if found.
type ProveEnd<'a> = dyn FnMut(&mut Region, End, u64, bool) -> Option<Found> + 'a;

/// A quick proof of `goal` by `prove` (df-pn's when `deep`) within at most `cap` nodes and a
/// quarter of what the region has left; the nodes it used stay counted, never more than that.
fn quick_proof(region: &mut Region, goal: End, cap: u64, deep: bool, prove: &mut ProveEnd) -> Option<Found> {
    let limit = region.nodes + (region.budget.saturating_sub(region.nodes) / 4).min(cap);
    let found = prove(region, goal, limit, deep);
    region.nodes = region.nodes.min(limit);
    found
}

/// Step 0 of [`decide_with`]: for each end in turn, a forced proof (by `prove`, the deepening)
/// in which territories proved safe end a line too, within `cap` nodes (at most a quarter of
/// what the region has left).
fn safe_end_proofs(region: &mut Region, goals: &[End], cap: u64, prove: &mut ProveEnd) -> Option<Found> {
    region.safety_end = Some(crate::safety::proof_as_end);
    let found = goals.iter().find_map(|&goal| quick_proof(region, goal, cap, false, prove));
    region.safety_end = None;
    found
}

/// Whether the chain of colour `c` searched in `region` looks like an invader: most of the
/// stones next to the region from outside (the fixed stones that bound it) are the
/// opponent's. Only the order in which [`decide`] tries the two ends depends on it, and with
/// the order the shares of the budget each end gets ([`INVADER_DEAD_SHARE`]), never an answer.
fn invader(region: &Region, c: Color) -> bool {
    let ext = &region.scope.ext;
    let theirs = ext.iter().filter(|&&(v, _)| v == crate::benson::cell(c.opponent())).count();
    2 * theirs > ext.len()
}

/// A line in which each side holds: the owner with its trap's choices (keeping the play out
/// of *dead*), the opponent with its trap's choices (out of *alive*: a line of seki) or,
/// when it has none (1989: the attacker, moving first, cannot force *dead*,
/// 要請II-\[iii\]), with its most promising move (the search's move order: next to the
/// chain first, a pass last) — the main try failing. It runs until the play repeats, an
/// end is reached, or a trap recorded no choice (a state it settled by a quick proof). The
/// proof of the status is the traps (every move of the other side answered), not this line.
pub(crate) fn holding_line(
    region: &mut Region,
    root: &State,
    owner_trap: &Trap,
    opp_trap: Option<&Trap>,
    stones: &[usize],
    owner: Color,
    max: usize,
) -> Vec<(Color, Move)> {
    let mut out = Vec::new();
    let mut cur = root.clone();
    let mut seen = vec![cur.clone()];
    while out.len() < max && region.end(&cur.cells, stones, owner).is_none() {
        let mv = match (cur.to_move == owner, opp_trap) {
            (true, _) => owner_trap.choice(&cur),
            (false, Some(t)) => t.choice(&cur),
            (false, None) => ordered_moves(region, &cur, stones, true).into_iter().find(|&mv| region.play(&cur, mv).is_some()),
        };
        let Some(mv) = mv else { break };
        let m = region.move_at(mv);
        out.push((cur.to_move, m));
        let Some(next) = region.play(&cur, mv) else { break };
        if seen.contains(&next) {
            break;
        }
        seen.push(next.clone());
        cur = next;
    }
    out
}
