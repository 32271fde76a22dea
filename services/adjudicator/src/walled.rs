//! Invasions walled in by chains the territory proofs keep alive, and groups that live in their
//! own eye space (crate docs, Engine step 5).
//!
//! A chain `S` of `c` left undecided by the region search often stands in a territory of
//! its opponent `o` that is too large for the local games of module `safety`, inside a region
//! of the whole board that is too large for the exhaustive search: the chains around the
//! territory are only *kept alive* by step 2 (not pass-alive), so they are not walls there.
//! This step searches `S` again in a *walled region* `R'`, the points reached from `S`, nearest
//! first, through points that
//! * are in neither colour's unconditional area,
//! * hold no stone of a chain that step 2 keeps alive (of either colour),
//! * are not a point `o`'s territory proofs rely on ([`Safety::used`]),
//! * hold no stone of a chain of `c` that the region search found alive or in seki,
//!
//! each stone with its whole chain, and empty points only up to [`WALLED_MAX_EMPTY`]. In `R'`
//! the stones of `o` next to it that step 2 keeps alive, or that are pass-alive, are walls that
//! are never captured; **every other point next to `R'` stands for a stone of `c` that never
//! changes** (so it gives `o`'s stones next to it no liberty); `c` may retake a ko whatever its
//! 第五条 ban (an unlimited supply of ko threats, [`UNLIMITED_THREATS`]); and only a proof that
//! `S` is **dead** is taken (2011 draft).
//!
//! **Why it is sound (第七条).** `o` plays the proof found in `R'` there and, outside it,
//! the strategy of its territory proofs (module `safety`): it answers every move of `c` in
//! one of its territories or on a point those proofs rely on with that strategy's answer, and
//! every other move of `c` (in `R'`, elsewhere, or a pass) with the proof's move.
//! * `o`'s walls are never captured: the strategy keeps each of them a liberty inside a
//!   territory of its own whatever `c` plays in `R'` (module `safety`, "Why it is sound" (a)),
//!   and `o`'s stones in `R'` that join them only enlarge them (a healthy region stays healthy
//!   for a larger chain).
//! * Every other point next to `R'` is taken as a stone of `c` that is never captured,
//!   whatever it holds: a stone of `c` that is never captured only helps `c` (module
//!   `dispute`: `o` loses the option of capturing it, the liberty it would have there and the
//!   move there; `c` gains moves that would otherwise be suicide, and every chain of `c` next to
//!   it is never captured either, so no eye space of `c` is lost that a chain of `c` still
//!   needs). So a proof of `c`'s *dead* found with them holds without them. This is what lets
//!   `R'` stop anywhere (at a chain of `c` found alive, or after [`WALLED_MAX_EMPTY`] empty
//!   points) but at `o`'s stones, which are walls only when they are proved never captured.
//! * A move of `c` outside `R'` and its answer leave `R'` as it was, but lift `c`'s 第五条
//!   ban: a ko threat. `c` is given one for every retake, more than it can have. A line that
//!   repeats a state of `R'` is a failure for `o` (第七条 解説: 循環), as in every search here.
//! * The proof's end holds for good: a point of `S` in `o`'s unconditional area computed on
//!   `R'` with its walls as stones that never change. `c`'s further moves in `R'` cannot change
//!   that (Benson), `o`'s strategy outside ends, in a bounded number of its moves, with every
//!   chain it keeps alive pass-alive (module `safety`, (b) and (c)), and then that area is part
//!   of `o`'s unconditional area on the whole board (an outside neighbour taken as `c`'s only
//!   makes a region of `o` open, never healthy): 相手方の帰属, **dead**.
//!
//! The search is that of every region (crate docs, Engine step 4) with the chain asked for
//! *dead* only, within [`WALLED_BUDGET_NODES`] per walled region; the other undecided chains of
//! `c` in `R'` are searched with it. No proof of *alive* or *seki* is searched there
//! ([`crate::search::Region::only_end`]): it could rest on the stones taken as `c`'s. A chain
//! not proved dead stays undecided with the reason of the region search. A chain of
//! [`WALLED_OPEN_LIBERTIES`] liberties or more whose walled region is cut at
//! [`WALLED_MAX_EMPTY`] empty points is not searched there (the other chains of `c` in that
//! region then get searches of their own): it stays undecided so.
//!
//! **The owner's walled region, for *alive*.** The same construction with the roles swapped
//! settles a chain that is still undecided after it: its walled region `R''` (the points
//! reached from `S`, nearest first, through points in neither unconditional area, holding no
//! stone of a chain step 2 keeps alive, not a point `c`'s own territory proofs rely on, and no
//! stone of a chain of `o` found alive or in seki; at most [`WALLED_ALIVE_MAX_EMPTY`] empty
//! points, within [`WALLED_ALIVE_BUDGET_NODES`] nodes). There `c`'s stones next to it that
//! step 2 keeps alive, or that are pass-alive, are walls; **every other point next to `R''`
//! stands for a stone of `o` that never changes** (it gives `c`'s stones no liberty, and `o`'s
//! chains next to it are never captured); `o` may retake any ko; only *alive* is searched. It is
//! sound by the mirror of the argument above: `c` plays the proof in `R''` and its territories'
//! strategy outside, which keeps its walls from capture and ends with them pass-alive; a stone
//! of `o` that never changes only helps `o` (`c` loses liberties, captures and moves, `o` gains
//! chains that cannot be captured and moves that would be suicide); a move of `o` outside
//! `R''` is a pass there, or a threat, of which `o` is given one for every retake. The end
//! found — every point of `S` in `c`'s unconditional area computed on `R''`, whose healthy
//! regions lie inside `R''` (a region reaching a stone taken as `o`'s is open) and are
//! enclosed by chains of `R''` and walls — stays so on the whole board once the walls are
//! pass-alive (Benson): `S` can never become `o`'s, **alive** (第七条 "最終的に相手方の連続着手
//! によっても相手方の帰属にならない"). This is the classical test of a group that lives
//! in its own eye space whatever surrounds it.
//!
//! A randomized cross-check against the exact search finds no chain proved dead here that the
//! exact search finds alive or in seki, and none proved alive that it finds dead or in seki.

use crate::safety::Safety;
use crate::search::{End, Mode, UNLIMITED_THREATS};
use crate::{solve_region, Options, Proof, RegionReport, Status, StatusMap, Undecided};
use goban::{Board, Color, Point};

/// Empty points a walled region holds at most (module docs): the first ones reached from the
/// chain. Larger regions decided no more of the final positions of `shared/games` at 20,000
/// nodes, in more time.
pub(crate) const WALLED_MAX_EMPTY: usize = 24;

/// Nodes a walled region's search may use at most (within [`Options::budget_nodes`]): most
/// proofs of *dead* there take a few hundred, and most walled regions hold none, so a larger
/// allowance costs every final position time for few more stones.
pub(crate) const WALLED_BUDGET_NODES: u64 = 2_000;

/// Liberties from which a chain is not searched for *dead* in a walled region cut at
/// [`WALLED_MAX_EMPTY`] empty points: the points beyond the cut stand for its owner's stones,
/// next to the region, and a chain with this many liberties reaches one of them in almost every
/// line. On the final positions of `shared/games` such searches decided 6 chains in 856 and
/// took a quarter of the time of all adjudications; without them the other chains of their
/// regions are searched alone, which decides more.
pub(crate) const WALLED_OPEN_LIBERTIES: usize = 2;

/// Empty points an owner's walled region (for *alive*) holds at most: the eye space next to
/// the chain; a larger one mostly adds points where the opponent's stones stand, at more cost.
pub(crate) const WALLED_ALIVE_MAX_EMPTY: usize = 8;

/// Nodes an owner's walled region's search may use at most (within [`Options::budget_nodes`]):
/// more decides more chains, and costs every position with undecided chains that much time.
pub(crate) const WALLED_ALIVE_BUDGET_NODES: u64 = 2_000;

/// Settles, under the 2011 draft, the undecided chains of `proofs` (by colour `c`) that their
/// walled region proves **dead**, and then those that their owner's walled region proves
/// **alive** (module docs), updating `found` and their proof entries (line, nodes added, no
/// undecided reason). `in_u(col, q)`: board point `q` lies in `col`'s unconditional area;
/// `safe`: step 2's proofs by colour; `settled`: chains steps 1–2 decided, by board index. A
/// walled region is searched once for all the undecided chains of `c` in it, for each end,
/// within that end's limits ([`walled_limits`]); a chain stopped by [`Options::stop`] or
/// [`Options::deadline`] is not searched again.
#[allow(clippy::too_many_arguments)]
pub(crate) fn settle_walled_regions(
    board: &Board,
    mode: Mode,
    opts: &Options,
    in_u: &dyn Fn(Color, Point) -> bool,
    safe: &[Safety; 2],
    settled: &[bool],
    found: &mut StatusMap,
    proofs: &mut [Proof],
) {
    if mode != Mode::Kiyaku2011 || !opts.walled_regions {
        return;
    }
    for end in [End::Dead, End::Alive] {
        let status = end.status();
        let mut searched: Vec<(Color, Vec<Point>)> = Vec::new();
        for k in 0..proofs.len() {
            if proofs[k].status != Status::Undecided || matches!(proofs[k].undecided, Some(Undecided::Stopped { .. })) {
                continue;
            }
            let c = proofs[k].color;
            if searched.iter().any(|(sc, sp)| *sc == c && sp.binary_search(&proofs[k].stones[0]).is_ok()) {
                continue;
            }
            let (pts, walled) = walled_search(board, mode, opts, in_u, safe, settled, found, &proofs[k].stones, c, end);
            searched.push((c, pts));
            for wp in walled.into_iter().filter(|wp| wp.status == status) {
                if let Some(pr) = proofs.iter_mut().find(|pr| pr.stones == wp.stones) {
                    found.set_chain(board, wp.stones[0], status);
                    pr.status = status;
                    pr.line = wp.line;
                    pr.nodes += wp.nodes;
                    pr.undecided = None;
                }
            }
        }
    }
}

/// The search of the walled region of the chain `stones` (sorted) of `c` for `end` (module
/// docs), with `found` the statuses known so far (the chains found alive or in seki of the
/// side that does not force `end` bound it; the undecided ones of `c` in it are searched): the
/// region's points (sorted) and the proof entry of each chain searched, with the status found
/// there, of which only `end` holds on the board. Nothing (no points, no entries) for a chain
/// not searched for *dead* because its region is cut and it has [`WALLED_OPEN_LIBERTIES`]
/// liberties or more.
#[allow(clippy::too_many_arguments)]
pub(crate) fn walled_search(
    board: &Board,
    mode: Mode,
    opts: &Options,
    in_u: &dyn Fn(Color, Point) -> bool,
    safe: &[Safety; 2],
    settled: &[bool],
    found: &StatusMap,
    stones: &[Point],
    c: Color,
    end: End,
) -> (Vec<Point>, Vec<Proof>) {
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    // The side the outside is given to, and the one that forces `end` (its walls stay).
    let helped = helped_side(c, end);
    let forcer = helped.opponent();
    let kept = |q: Point| board.get(q).is_some_and(|col| safe[col.index()].alive[gi(q)]);
    let inside = |q: Point| {
        let helped_standing = board.get(q) == Some(helped) && matches!(found.get(q), Status::Alive | Status::Seki);
        !(in_u(Color::Black, q) || in_u(Color::White, q) || kept(q) || safe[forcer.index()].used[gi(q)] || helped_standing)
    };
    let wall = |q: Point| board.get(q) == Some(forcer) && (in_u(forcer, q) || kept(q));
    let wanted = |q: Point| board.get(q) == Some(c) && found.get(q) == Status::Undecided;
    let (cap, allowance) = walled_limits(end);
    if end == End::Dead && opts.max_region_empty >= cap && board.liberties(stones[0]).len() >= WALLED_OPEN_LIBERTIES {
        let pts = walled_region(board, stones, &inside, cap);
        if pts.iter().filter(|&&q| board.get(q).is_none()).count() == cap {
            return (Vec::new(), Vec::new());
        }
    }
    let opts = Options { budget_nodes: opts.budget_nodes.min(allowance), ..opts.clone() };
    let (report, walled) = search_walled(board, mode, &opts, (0, 1), &inside, &wall, &wanted, safe, settled, found, stones, c, end);
    (report.points, walled)
}

/// The search for `end` of the chains of `c` where `wanted` holds, in the walled region of
/// the chain `stones` (sorted) of `c` through the points where `inside` holds (module docs),
/// within [`Options::budget_nodes`]: the stones of the side that forces `end` (`c`'s opponent
/// for *dead*, `c` for *alive*) next to it where `wall` holds are walls, every other point
/// next to it stands for a stone of the other side that never changes, and that side has
/// [`UNLIMITED_THREATS`]. `found`: the statuses known so far (not changed). Returns the
/// region's report (`index` as in [`solve_region`]; its points sorted) and the proof entry of
/// each chain searched, with the status found there, of which only `end` holds on the board.
#[allow(clippy::too_many_arguments)]
pub(crate) fn search_walled(
    board: &Board,
    mode: Mode,
    opts: &Options,
    index: (usize, usize),
    inside: &dyn Fn(Point) -> bool,
    wall: &dyn Fn(Point) -> bool,
    wanted: &dyn Fn(Point) -> bool,
    safe: &[Safety; 2],
    settled: &[bool],
    found: &StatusMap,
    stones: &[Point],
    c: Color,
    end: End,
) -> (RegionReport, Vec<Proof>) {
    let helped = helped_side(c, end);
    let (cap, _) = walled_limits(end);
    let pts = walled_region(board, stones, inside, cap.min(opts.max_region_empty));
    let mut walled_found = found.clone();
    let mut walled: Vec<Proof> = Vec::new();
    let report = solve_region(
        board,
        pts,
        index,
        mode,
        opts,
        safe,
        settled,
        wanted,
        &|_| Some(end),
        Some(end),
        Some((helped, UNLIMITED_THREATS)),
        Some((helped, wall)),
        &mut walled_found,
        &mut walled,
    );
    (report, walled)
}

/// The side a walled region of a chain of `c` searched for `end` helps (module docs): the
/// points next to it stand for its stones, and it may retake any ko — `c` for *dead*, `c`'s
/// opponent for *alive*.
fn helped_side(c: Color, end: End) -> Color {
    match end {
        End::Dead => c,
        End::Alive => c.opponent(),
    }
}

/// The limits of a walled region searched for `end` (module docs): the empty points it holds
/// at most and the nodes its search may use at most — [`WALLED_MAX_EMPTY`] and
/// [`WALLED_BUDGET_NODES`] for *dead*, [`WALLED_ALIVE_MAX_EMPTY`] and
/// [`WALLED_ALIVE_BUDGET_NODES`] for *alive*.
fn walled_limits(end: End) -> (usize, u64) {
    match end {
        End::Dead => (WALLED_MAX_EMPTY, WALLED_BUDGET_NODES),
        End::Alive => (WALLED_ALIVE_MAX_EMPTY, WALLED_ALIVE_BUDGET_NODES),
    }
}

/// The walled region of the chain `stones` (sorted): the points reached from them through
/// points where `inside` holds, nearest first, each stone with its whole chain, and empty
/// points only while there are at most `cap` of them; sorted.
fn walled_region(board: &Board, stones: &[Point], inside: &dyn Fn(Point) -> bool, cap: usize) -> Vec<Point> {
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let mut seen = vec![false; w * board.height() as usize];
    let mut pts: Vec<Point> = stones.to_vec();
    for &s in stones {
        seen[gi(s)] = true;
    }
    let mut empty = 0;
    let mut k = 0;
    while k < pts.len() {
        let q = pts[k];
        k += 1;
        for r in board.adjacent(q) {
            if seen[gi(r)] || !inside(r) {
                continue;
            }
            if board.get(r).is_none() {
                if empty == cap {
                    continue;
                }
                empty += 1;
                seen[gi(r)] = true;
                pts.push(r);
            } else {
                for s in board.chain(r) {
                    seen[gi(s)] = true;
                    pts.push(s);
                }
            }
        }
    }
    pts.sort();
    pts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benson::{unconditional, Scope};
    use crate::{adjudicate, safety, RuleSet};

    /// The cross-check of the module docs: on 240 random 6x5 boards under the 2011 draft, every
    /// chain is searched in its walled region for *dead* and in its owner's for *alive* (the
    /// exact search's statuses as what is known, the chain itself taken as undecided), with at
    /// most 2, 5 and 24 empty points, so that many regions are cut and their outside taken as
    /// the helped side's stones. Every chain proved *dead* (*alive*) there is dead (alive), or
    /// undecided, for the exact search of the whole board.
    #[test]
    fn walled_proofs_agree_with_the_exact_search_on_random_boards() {
        let mut rand = crate::xorshift(0x3a11_ed20_2612_0101);
        let (mut proved, mut confirmed, mut cut) = ([0usize; 2], [0usize; 2], 0);
        for _ in 0..240 {
            let mut b = Board::new(6, 5).unwrap();
            for p in b.points().collect::<Vec<_>>() {
                let c = match rand() % 10 {
                    0..=2 => Some(Color::Black),
                    3..=5 => Some(Color::White),
                    _ => None,
                };
                b.set(p, c).unwrap();
            }
            if b.points().any(|p| b.get(p).is_some() && b.liberty_count(p) == 0) {
                continue;
            }
            let exact = adjudicate(&b, RuleSet::Japanese2011, &Options { budget_nodes: 300_000, ..Options::default() });
            let whole = Scope::whole(&b);
            let cells = whole.cells(&b);
            let ua = [unconditional(&cells, Color::Black, &whole), unconditional(&cells, Color::White, &whole)];
            let w = b.width() as usize;
            let in_u = |c: Color, q: Point| ua[c.index()].area.get(q.y as usize * w + q.x as usize);
            let safe = [Color::Black, Color::White].map(|c| safety::safe_territories(&b, c, Mode::Kiyaku2011, 300_000, true));
            let settled = vec![false; w * b.height() as usize];
            for pr in &exact.proofs {
                let c = pr.color;
                if pr.stones.iter().any(|&s| in_u(c.opponent(), s) || in_u(c, s)) {
                    continue; // settled by Benson: no region to search
                }
                let mut known = exact.status.clone();
                known.set_chain(&b, pr.stones[0], Status::Undecided);
                for cap in [2, 5, WALLED_MAX_EMPTY] {
                    let opts = Options { budget_nodes: 20_000, max_region_empty: cap, ..Options::default() };
                    for end in [End::Dead, End::Alive] {
                        let want = end.status();
                        let (pts, walled) = walled_search(&b, Mode::Kiyaku2011, &opts, &in_u, &safe, &settled, &known, &pr.stones, c, end);
                        cut += usize::from(pts.iter().filter(|&&q| b.get(q).is_none()).count() == cap);
                        for wp in walled.iter().filter(|wp| wp.status == want && wp.stones == pr.stones) {
                            let s = exact.status.get(wp.stones[0]);
                            assert!(
                                s == want || s == Status::Undecided,
                                "{:?} proved {want} in a walled region of at most {cap} empty points ({:?}) but {s} in\n{}",
                                wp.stones,
                                wp.line,
                                diagram(&b)
                            );
                            let k = usize::from(end == End::Alive);
                            proved[k] += 1;
                            confirmed[k] += usize::from(s == want);
                        }
                    }
                }
            }
        }
        eprintln!(
            "walled proofs of dead {}, of alive {}; confirmed by the exact search {} and {}; {cut} walled regions cut at the cap",
            proved[0], proved[1], confirmed[0], confirmed[1]
        );
        assert!(
            confirmed[0] > 40 && confirmed[1] > 40 && cut > 100,
            "the cross-check must compare something ({confirmed:?} confirmed, {cut} cut)"
        );
    }

    /// A chain of [`WALLED_OPEN_LIBERTIES`] liberties in an open area (its walled region cut at
    /// [`WALLED_MAX_EMPTY`] empty points) is not searched for *dead* there; with one liberty
    /// fewer it is.
    #[test]
    fn a_chain_with_open_liberties_in_a_cut_region_is_not_searched_for_dead() {
        let at = |s: &str| Point::from_sgf(s).unwrap();
        let mut b = Board::new(19, 19).unwrap();
        b.set(at("jj"), Some(Color::White)).unwrap();
        let blacks = ["ji", "ij", "kj"];
        for &q in &blacks[..4 - WALLED_OPEN_LIBERTIES] {
            b.set(at(q), Some(Color::Black)).unwrap();
        }
        let search = |b: &Board| {
            let safe = [Safety::none(b), Safety::none(b)];
            let settled = vec![false; 19 * 19];
            let mut found = StatusMap::new(b);
            found.set_chain(b, at("jj"), Status::Undecided);
            walled_search(
                b,
                Mode::Kiyaku2011,
                &Options::default(),
                &|_, _| false,
                &safe,
                &settled,
                &found,
                &[at("jj")],
                Color::White,
                End::Dead,
            )
        };
        assert_eq!(b.liberty_count(at("jj")), WALLED_OPEN_LIBERTIES);
        let (pts, proofs) = search(&b);
        assert!(pts.is_empty() && proofs.is_empty(), "searched: {} points, {} proofs", pts.len(), proofs.len());
        b.set(at(blacks[4 - WALLED_OPEN_LIBERTIES]), Some(Color::Black)).unwrap();
        let (pts, proofs) = search(&b);
        assert_eq!(pts.iter().filter(|&&q| b.get(q).is_none()).count(), WALLED_MAX_EMPTY, "a cut region");
        assert!(proofs.iter().any(|pr| pr.stones == vec![at("jj")]), "the chain of one liberty is searched");
    }

    fn diagram(b: &Board) -> String {
        (0..b.height())
            .map(|y| {
                (0..b.width())
                    .map(|x| match b.get(Point::new(x, y)) {
                        Some(Color::Black) => 'X',
                        Some(Color::White) => 'O',
                        None => '.',
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
