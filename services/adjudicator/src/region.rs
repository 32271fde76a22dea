//! One region's search (crate docs, Engine step 4): the chains of the region share its node
//! budget, each decided by [`crate::decision`], with a second pass for those that ran out.

use crate::benson::Scope;
use crate::decision::*;
use crate::search::{End, Mode, Prover, Region, SEALED_MAX_EMPTY};
use crate::short::*;
use crate::*;

/// Decides the chains of one region (`pts`, sorted; `index` = (its index, the number of
/// regions)) for which `wanted` holds of a stone, within [`Options::budget_nodes`]: each such
/// chain not already `settled` gets an equal share of what the region has left, and a
/// second pass shares what is still left among those that ran out of theirs; `first_ends`
/// names, by a stone, the end to try first for a chain when the caller knows it
/// ([`Region::first_end`]); `only`, the only end the caller takes, when it takes one
/// ([`Region::only_end`]). Statuses go into `found`, one [`Proof`] per chain into `proofs`.
/// `ko_threats` is [`Region::ko_threats`] (then territories proved safe are not taken as
/// ends: their proofs play under the 第五条 ban of both sides, without threats).
/// `outside_as`: a colour `c` and which points next to the region stay as they are on `board`;
/// every other one stands for a stone of `c` that never changes (module `walled`). `None`:
/// all stay (an empty neighbour is then a liberty that never goes).
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_region(
    board: &Board,
    pts: Vec<Point>,
    index: (usize, usize),
    mode: Mode,
    opts: &Options,
    safe: &[safety::Safety; 2],
    settled: &[bool],
    wanted: &dyn Fn(Point) -> bool,
    first_ends: &dyn Fn(Point) -> Option<End>,
    only: Option<End>,
    ko_threats: Option<(Color, u16)>,
    outside_as: Option<(Color, &dyn Fn(Point) -> bool)>,
    found: &mut StatusMap,
    proofs: &mut Vec<Proof>,
) -> RegionReport {
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let mut scope = Scope::new(board, pts.clone());
    if let Some((c, stays)) = outside_as {
        scope = scope.outside_as(board, c, stays);
    }
    let mut region = Region::new(scope, mode, opts.budget_nodes);
    region.halt = halt::Halt::of(opts);
    region.links_end = opts.enclosure_links;
    region.ko_threats = ko_threats;
    region.only_end = only;
    if ko_threats.is_none() && opts.safe_territories && board.width() as usize * board.height() as usize <= SAFE_END_MAX_BOARD {
        region.base = Some(board.clone());
    }
    let mut reps = Vec::new();
    let first_proof = proofs.len();
    let mut done = vec![false; pts.len()];
    // Chains of the region, for a fair share of the region's budget each.
    let mut left = {
        let mut heads: Vec<Point> = pts.iter().filter(|&&q| wanted(q)).filter_map(|&q| board.chain_id(q)).collect();
        heads.sort();
        heads.dedup();
        heads.len() as u64
    };
    let empty = pts.iter().filter(|&&q| board.get(q).is_none()).count();
    // Sealed territories end lines only in regions larger than they may be: in a smaller one
    // a territory's local game would search much what the region's own search does.
    if opts.safe_territories && empty > SEALED_MAX_EMPTY {
        region.sealed_board = Some(board.clone());
    }
    let too_big = empty > opts.max_region_empty;
    // The local indices of each chain with a proof entry of this region (for the retry).
    let mut chain_locals: Vec<Vec<usize>> = Vec::new();
    // Each such chain's df-pn provers, kept for the retry (which goes on from them).
    let mut deep_provers: Vec<DeepProvers> = Vec::new();
    // Each such chain's share of the first pass (whether its quick proofs ran in full).
    let mut first_shares: Vec<u64> = Vec::new();
    for (li, &p) in pts.iter().enumerate() {
        let Some(c) = board.get(p) else { continue };
        if done[li] {
            continue;
        }
        let mut stones = board.chain(p);
        stones.sort();
        let locals: Vec<usize> = stones.iter().map(|&s| region.scope.local[gi(s)] as usize).collect();
        for &l in &locals {
            done[l] = true;
        }
        if !wanted(p) {
            continue;
        }
        if settled[gi(p)] {
            left = left.saturating_sub(1);
            continue;
        }
        reps.push(p);
        deep_provers.push([None, None]);
        let before = region.nodes;
        // Each chain may use an equal share of what the region has left (a hard chain
        // does not starve the others); the region's total stays within the budget.
        let share = opts.budget_nodes.saturating_sub(before) / left.max(1);
        first_shares.push(share);
        left = left.saturating_sub(1);
        region.budget = before + share;
        region.first_end = first_ends(p);
        let (status, line) = if let Some(line) = at_once(&region, board, &locals, c, opts) {
            // An enclosure the opponent fills through private pairs of links (module
            // `search::links`): dead without search, whatever the region's size.
            (Status::Dead, line)
        } else if !too_big {
            let provers = deep_provers.last_mut().expect("this chain's provers");
            let found = decide(&mut region, board, &locals, c, opts, provers);
            provers.iter_mut().flatten().for_each(Prover::forget_kept_children);
            found
        } else if let Some(found) = opts.one_move_proofs.then(|| short_proof(&mut region, board, &locals, c, opts, safe)).flatten() {
            found
        } else if opts.one_move_proofs && empty <= 2 * opts.max_region_empty {
            quick_proofs(&mut region, board, &locals, c, opts)
        } else {
            (Status::Undecided, Vec::new())
        };
        region.nodes = region.nodes.min(region.budget);
        if status != Status::Undecided {
            // Only a retry needs them.
            *deep_provers.last_mut().expect("this chain's provers") = [None, None];
        }
        let nodes = region.nodes - before;
        let undecided = (status == Status::Undecided).then_some(match region.halt.reason {
            Some(reason) => Undecided::Stopped { reason, nodes },
            None if too_big => Undecided::RegionTooLarge { empty, max: opts.max_region_empty },
            None => Undecided::Budget { nodes },
        });
        found.set_chain(board, p, status);
        proofs.push(Proof { stones, color: c, status, line, nodes, undecided });
        chain_locals.push(locals);
    }
    // Second pass: what the region has left of its budget (chains decided under their
    // share) goes, in equal shares again, to the chains that ran out of theirs. The
    // region's caches are kept, so a retry goes on from the first attempt's proofs.
    let retry: Vec<usize> =
        (first_proof..proofs.len()).filter(|&k| matches!(proofs[k].undecided, Some(Undecided::Budget { .. }))).collect();
    let mut left = retry.len() as u64;
    for k in retry {
        let before = region.nodes;
        let share = opts.budget_nodes.saturating_sub(before) / left.max(1);
        left -= 1;
        if share < MIN_RETRY_NODES || region.halt.reason.is_some() {
            continue;
        }
        region.budget = before + share;
        let (first, c) = (proofs[k].stones[0], proofs[k].color);
        let i = k - first_proof;
        region.first_end = first_ends(first);
        // The first pass's quick proofs ran with their full allowance (each end a quarter of
        // what was left, at most `QUICK_PROOF_NODES`, after the safe-territory proofs) when its
        // share was at least this — the second end's quarter is whole after the first end's
        // allowance: the same searches would fail the same way again.
        let full = 5 * QUICK_PROOF_NODES + 2 * SAFE_END_PROOF_NODES;
        let steps = if first_shares[i] >= full { Steps::AfterQuick } else { Steps::All };
        let (status, line) = decide_with(&mut region, board, &chain_locals[i], c, opts, steps, &mut deep_provers[i]);
        deep_provers[i].iter_mut().flatten().for_each(Prover::forget_kept_children);
        region.nodes = region.nodes.min(region.budget);
        let nodes = proofs[k].nodes + (region.nodes - before);
        proofs[k].nodes = nodes;
        if status == Status::Undecided {
            proofs[k].undecided = Some(match region.halt.reason {
                Some(reason) => Undecided::Stopped { reason, nodes },
                None => Undecided::Budget { nodes },
            });
        } else {
            found.set_chain(board, first, status);
            proofs[k].status = status;
            proofs[k].line = line;
            proofs[k].undecided = None;
        }
    }
    let decided = proofs[first_proof..].iter().all(|pr| pr.status != Status::Undecided);
    RegionReport { index: index.0, of: index.1, points: pts, chains: reps, nodes: region.nodes, decided }
}

/// The rule of [`Region::dead_at_once_line`] for a chain before its search (any region size),
/// from the position on the board: under 1989 not when a ko was just taken (its ban may bind
/// the opponent; a 第五条 ban under 2011 never names a link).
fn at_once(region: &Region, board: &Board, locals: &[usize], c: Color, opts: &Options) -> Option<Vec<(Color, Move)>> {
    if region.mode == Mode::Kiyaku1989 && opts.ko_pending.is_some() {
        return None;
    }
    let root = crate::search::State::new(region.scope.cells(board), c);
    region.dead_at_once_line(&root, locals, c)
}
