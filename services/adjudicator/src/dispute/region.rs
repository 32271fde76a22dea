//! The region of a dispute (docs of module `dispute`): the points around a disputed chain
//! bounded by walls, after drawing in the walls that race a chain of the dispute
//! ([`draw_reason`]) — except those two links keep ([`kept_by_links`]).

use super::DrawReason;
use goban::{Board, Color, Point};

/// The region of the disputed chain at `d` (docs of module `dispute`): the points around it
/// that are neither wall stones (`wall`, by board index) nor in an unconditional area
/// (`in_u`), after drawing in, repeatedly, every wall not proved alive (`keep`) that races a
/// chain of `d`'s dispute — `d`'s chain, or with `transitive` every chain of the region (the
/// agreed-dead stones there, and every chain drawn in, which joins it) — the
/// walls `also` (of the transitive closure, with their reasons) drawn in first — except the
/// walls of the colour `linking` that two links keep ([`kept_by_links`]). Returns the region
/// with the walls drawn in and those kept by links ([`Grown`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn grow_region(
    board: &Board,
    d: Point,
    wall: &[bool],
    in_u: &dyn Fn(Point) -> bool,
    keep: &dyn Fn(Point) -> bool,
    transitive: bool,
    also: &[(Point, DrawReason)],
    linking: Option<Color>,
) -> Grown {
    let w = board.width() as usize;
    let n = w * board.height() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let mut wall = wall.to_vec();
    let mut racing = vec![false; n];
    for s in board.chain(d) {
        racing[gi(s)] = true;
    }
    let mut draws = Vec::new();
    for &(r, reason) in also {
        for s in board.chain(r) {
            wall[gi(s)] = false;
        }
        draws.push((r, reason));
    }
    loop {
        let pts = flood(board, &board.chain(d), |q| !wall[gi(q)] && !in_u(q));
        if transitive {
            // The closure: every chain of the region races, the agreed-dead stones there
            // included (a wall their play could capture could save or kill the disputed chain).
            for &q in &pts {
                if board.get(q).is_some() {
                    racing[gi(q)] = true;
                }
            }
        }
        let mut more = false;
        let mut looked = vec![false; n];
        // The walls of the linking colour that race a chain of the dispute: drawn in after
        // the scan unless two links keep them.
        let mut candidates: Vec<(Point, DrawReason)> = Vec::new();
        for &q in &pts {
            for r in board.adjacent(q) {
                if !wall[gi(r)] || looked[gi(r)] {
                    continue;
                }
                let chain = board.chain(r);
                for &s in &chain {
                    looked[gi(s)] = true;
                }
                if keep(r) {
                    continue;
                }
                if let Some(reason) = draw_reason(board, r, &racing) {
                    if linking.is_some_and(|c| board.get(r) == Some(c)) {
                        candidates.push((r, reason));
                        continue;
                    }
                    for &s in &chain {
                        wall[gi(s)] = false;
                        racing[gi(s)] = transitive;
                    }
                    draws.push((r, reason));
                    more = true;
                }
            }
        }
        let heads: Vec<Point> = candidates.iter().map(|&(r, _)| r).collect();
        let kept = kept_by_links(board, &heads, &wall, &pts, in_u);
        let mut linked = Vec::new();
        for (&(r, reason), &k) in candidates.iter().zip(&kept) {
            if let Some(links) = k {
                linked.push((r, links));
                continue;
            }
            for s in board.chain(r) {
                wall[gi(s)] = false;
                racing[gi(s)] = transitive;
            }
            draws.push((r, reason));
            more = true;
        }
        if !more {
            return Grown { pts, draws, linked };
        }
    }
}

/// A dispute's region ([`grow_region`]): its points (sorted), one stone of each wall drawn
/// in with the reason, in the order drawn, and one stone of each wall that races a chain of
/// the dispute but is kept as a wall by two links (docs of module `dispute`).
pub(super) struct Grown {
    pub pts: Vec<Point>,
    pub draws: Vec<(Point, DrawReason)>,
    pub linked: Vec<(Point, [Point; 2])>,
}

/// Which of the walls `candidates` (one stone each, all of one colour, each racing a chain of
/// the dispute) are kept by two links (docs of module `dispute`, "Walls kept by two links"),
/// in their order, each with its two links when it is. A *link* of a wall is a liberty of it
/// outside the region `pts` and outside both unconditional areas, next to an *anchor* — a
/// stone of another wall of its colour that is no candidate, or a candidate kept before — and
/// next to nothing else but the wall, anchors and empty points; no link serves two walls.
/// Candidates are kept one after another while one more has two links, so an anchor never
/// rests on the wall it anchors.
fn kept_by_links(
    board: &Board,
    candidates: &[Point],
    wall: &[bool],
    pts: &[Point],
    in_u: &dyn Fn(Point) -> bool,
) -> Vec<Option<[Point; 2]>> {
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let ids: Vec<Option<Point>> = candidates.iter().map(|&r| board.chain_id(r)).collect();
    let mut kept: Vec<Option<[Point; 2]>> = vec![None; candidates.len()];
    let mut used = vec![false; w * board.height() as usize];
    loop {
        let mut progress = false;
        for i in 0..candidates.len() {
            if kept[i].is_some() {
                continue;
            }
            let r = candidates[i];
            let Some(c) = board.get(r) else { continue };
            let anchor = |q: Point| {
                let id = board.chain_id(q);
                wall[gi(q)] && id != ids[i] && ids.iter().zip(&kept).all(|(&j, k)| j != id || k.is_some())
            };
            let mut links: Vec<Point> = Vec::new();
            for l in board.liberties(r) {
                if used[gi(l)] || pts.binary_search(&l).is_ok() || in_u(l) {
                    continue;
                }
                let mut anchored = false;
                let mut private = true;
                for q in board.adjacent(l) {
                    match board.get(q) {
                        None => {}
                        Some(x) if x == c && board.chain_id(q) == ids[i] => {}
                        Some(x) if x == c && anchor(q) => anchored = true,
                        Some(_) => private = false,
                    }
                }
                if anchored && private {
                    links.push(l);
                    if links.len() == 2 {
                        break;
                    }
                }
            }
            if let [a, b] = links[..] {
                used[gi(a)] = true;
                used[gi(b)] = true;
                kept[i] = Some([a, b]);
                progress = true;
            }
        }
        if !progress {
            return kept;
        }
    }
}

/// Whether the wall chain through `r` is drawn into the dispute of the chain whose stones
/// are `racing` (by board index), and why (docs of module `dispute`).
fn draw_reason(board: &Board, r: Point, racing: &[bool]) -> Option<DrawReason> {
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let c = board.get(r)?;
    let libs = board.liberties(r);
    let mut near: Vec<Point> = libs.iter().flat_map(|&l| board.adjacent(l)).collect();
    for s in board.chain(r) {
        near.extend(board.adjacent(s));
    }
    near.into_iter()
        .find(|&q| board.get(q) == Some(c.opponent()) && racing[gi(q)] && libs.len() <= board.liberty_count(q) + 1)
        .map(|with| DrawReason::CapturingRace { with })
}

/// The points connected to `from` through points where `open` holds (`from` included),
/// sorted.
fn flood(board: &Board, from: &[Point], open: impl Fn(Point) -> bool) -> Vec<Point> {
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let mut seen = vec![false; w * board.height() as usize];
    let mut pts: Vec<Point> = from.to_vec();
    for &p in from {
        seen[gi(p)] = true;
    }
    let mut k = 0;
    while k < pts.len() {
        let q = pts[k];
        k += 1;
        for r in board.adjacent(q) {
            if !seen[gi(r)] && open(r) {
                seen[gi(r)] = true;
                pts.push(r);
            }
        }
    }
    pts.sort();
    pts
}
