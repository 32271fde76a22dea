//! Territories that are safe under alternating play, and the chains they keep alive.
//!
//! Benson's pass-alive chains need their eyes filled down to healthy regions; a real final
//! position has territories of many points instead, so almost nothing in it is pass-alive.
//! This module proves, exactly, that a territory will become its owner's for good in
//! hypothetical play (第七条), with a *local game* per territory and a Benson-style
//! combination of the local results (after Müller, "Playing it safe", 1997, and Niu &
//! Müller, "An improved safety solver for computer Go", 2004).
//!
//! **Territory.** For a colour `c` (the defender; `o` the attacker), a *c-region* `R` is a
//! maximal 4-connected set of points holding no `c` stone; its *boundary chains* are the `c`
//! chains next to it. Only regions of at most [`MAX_EMPTY`] empty points are examined.
//!
//! **Local game of `R` with `v` virtual eyes** (`v` = 0 or 1). The board is `R` plus the
//! stones of its boundary chains; every other point is a permanent wall of `o` (so boundary
//! chains have no liberties outside `R`; a boundary chain with no liberty inside `R` would
//! have none at all, so such a game is lost at once). The attacker moves first; both may pass; ko
//! (第五条, or the 1989 ko-pass rule) as in hypothetical play. The attacker wins when it
//! captures a stone of a boundary chain. The defender wins when every point of `R` lies in
//! its unconditional area computed on this local board, where each chain that contains a
//! boundary stone is credited `v` extra healthy regions, or, under the 2011 draft, as soon as
//! a pairing strategy reaches that goal whatever the attacker does (`search::links::
//! local_game_paired`: the inner points of the territory's parts pair with two private links
//! each, the defender's chains are joined by miai joints, and each block borders two parts of
//! its own or, alone, one and the virtual eye), which ends a line before the territory is
//! filled. A repetition is not a win for the
//! defender. The defender's win is proved by a forced proof of `search` (depth-first, at
//! most [`LOCAL_BUDGET`] nodes); a win not found so is not claimed. (The exact avoidance
//! search of `search` is not run after a failed forced proof here: on real final positions
//! it almost never wins a local game the forced proof lost, at a large cost in time.)
//!
//! **Combination.** Start with every `c` chain in `X` and every region whose local game the
//! defender wins in `V`; a region won with `v = 0` gives each of its boundary chains two
//! credits, with `v = 1` one. Repeatedly drop from `X` the chains with fewer than two
//! credits from regions of `V`, and from `V` the regions with a boundary chain not in `X`. (With
//! miai connections, below, `X` holds blocks of chains instead of chains.)
//!
//! **Why it is sound.** Let `c` play this strategy in hypothetical play: answer every `o`
//! move inside a region of `V` with that region's winning local strategy, and answer an `o`
//! pass or any other `o` move with the next move of the local strategy of some region of
//! `V` whose goal is not reached yet (a pass in that local game for `o`); pass when all are
//! reached. (a) A boundary chain is never captured: in its local game it has no outside
//! liberties and the defender never lets it be captured, so it always keeps a liberty
//! inside each region of `V` it borders. The local game is harder for the defender than
//! the real one (fewer liberties, no outside help), and `o` stones inside `R` have all their
//! liberties inside `R`, so every real line is a line of the local game. (b) Every local
//! game is won in a bounded number of its own moves (the attractor rank decreases with
//! every local move, passes included), and every `c` move is a local move, so after finitely
//! many moves every region of `V` has reached its goal, without any state repeating. (c)
//! Then every chain of `X` has two healthy regions bordered only by chains of `X` (a chain
//! credited one virtual eye in `R` has its other credit, a real healthy region, in another
//! region of `V`), so by Benson's theorem they are pass-alive and every region of `V` lies
//! in `c`'s unconditional area. The strategy works whoever moves first and whatever `o`
//! does, so the chains of `X` are **alive** and every `o` stone inside a region of `V` is
//! **dead**, under the 2011 draft (the owner moves first) and under the 1989 rules (the
//! attacker moves first) alike.
//!
//! **Miai eye spots (larger territories).** A region of `V` may also be a *couple of eye
//! spots* inside a `c`-region `R` that is not proved safe as a whole (typically a territory
//! of more than [`MAX_EMPTY`] points). A *spot* is an empty point `q` of `R` next to a `c`
//! stone such that `R` without `q` has a component `E` of at most three points, all empty:
//! once `c` plays `q` (joining the chains next to it), `E` is enclosed by `c` stones only.
//! The spot *credits* the chains for which every point of `E` is then a liberty (Benson's
//! healthy region); its *border* is every chain next to `E` or `q`. A *couple* is two spots
//! with disjoint points (`q` and `E` of each) crediting a common chain; couples of one region
//! are disjoint. Strategy (miai, 見合い): when `o` plays on a point of one spot, `c` plays
//! the other spot's `q`; when `o` plays anywhere else, `c` may complete either spot. One `o`
//! move touches at most one spot (no point of one spot is next to the other's `E`: the
//! neighbours of `E` are `c` stones or its own `q`), and `c`'s move is legal (it joins a
//! `c` chain and touches an empty point of `E`). Before the answer the credited chains keep
//! the other spot's liberties in `R`; after it they have a healthy region in `R` that `o`
//! can fill only by capturing them. So a couple behaves like a region won with `v = 1`: one
//! credit for each chain both spots credit, dropped when a chain of its border leaves `X`.
//! It proves no area: the `o` stones elsewhere in `R` are not called dead.
//!
//! **Miai connections (blocks).** Two `c` chains that share two empty points `p1`, `p2`
//! (each next to both) which no territory of `V` and no other connection uses are one
//! *block* (connections are chosen first; couples then use none of their points): when `o`
//! plays one of them, `c` plays the other and the chains are one; when nothing else is left
//! to do, `c` connects by itself. The move is legal (it joins two
//! chains that keep liberties in their regions of `V`), and `p1`, `p2` touch no point of
//! `V`'s territories or eyes (those are enclosed by `c` stones). So credits are counted per
//! block — a candidate counts once for a block, however many of its chains it credits,
//! since once connected they share that one healthy region — and `X` is the set of blocks
//! with two credits. At the end every block is one chain with two healthy regions, and
//! Benson's theorem applies as before. (Cross-checked against the exact region search on
//! random positions: see the tests.)
//!
//! **Thin territories (static, any size).** After the combination, a `c`-region `R` of any
//! size that is not in `V` is also proved safe when every chain next to it is kept alive
//! (in a block of `X`) and at most two of its points, adjacent to each other if two, have
//! no `c` stone next to them (its *interior*; a territory one line wide along the edge has
//! at most its corner). Why: `c`'s strategy above never plays in `R` but for the points of
//! couples and miai connections, whose stones join chains of `X`, and `o` can never capture
//! a stone next to `R` (they are all in `X`). So when that strategy has made every chain of
//! `X` pass-alive, every point of `R` (or of each part of it that such a stone cut off) still
//! lies next to a pass-alive `c` chain but for the same interior points at most, and every
//! neighbour outside it holds a pass-alive `c` stone: it is in `U_c` by definition (module
//! `benson`: `c` fills the other points at any time and captures whatever `o` plays in a
//! space of at most two adjacent points). The `o` stones in `R` are therefore **dead**, under
//! both rule sets, with no search (after the static rules of Müller, "Playing it safe",
//! 1997, and `GoSafetyUtil::MightMakeLife` in Fuego, which ask that the attacker have no two
//! non-adjacent points where it could make an eye).
//!
//! **Paired territories (static, any size).** A `c`-region `R` (every neighbour outside it a
//! `c` stone) whose *inner* points — those with no `c` stone next to them, empty or holding
//! an `o` stone — each get two private *links*: empty points of `R` next to a `c` stone, or an
//! empty inner point paired before, *lent* to one point only (the pairing of module
//! `search::links`, after Fuego's `GoSafetyUtil::Find2ConnectionsForAll` and
//! `GoRegion::Find2ConnForAllInterior`, with `c` as the side whose stones never change).
//! Strategy: when `o` plays on one link of a point not yet next to a `c` stone, `c` plays its
//! other link at once; otherwise (an `o` pass, or a move that needs no answer) `c` may fill one
//! link of the first such point in the pairing's order. `c`'s move joins the `c` chain the
//! link touches (a lent point's stone keeps its own two links as liberties until one of them
//! is played, when the other joins it), so it is never suicide and never a ko retake (no `c`
//! stone in `R` is ever captured, so no ban names a point of `R`), and one `o` move takes at
//! most one link of one point, so after at most one `c` move per inner point every point of
//! `R` is next to a `c` stone joined to its boundary chains. Used two ways, on regions
//! holding no point of a miai connection or of a couple:
//! * **A credit.** When every boundary chain of `R` is in one block and every inner point is
//!   paired, `R` counts as a region won with one virtual eye: one credit to that block. While
//!   some inner point is not yet next to a `c` stone, the first such point in the pairing's
//!   order has both links empty and next to the block (a link, or a lent point, whose own
//!   point came earlier and is next to a `c` stone already), so the block keeps a liberty in
//!   `R` even after an `o` move on one of them; once all are, every empty point of
//!   `R` is a liberty of the block (its chains connected by then), which `o` cannot fill last
//!   without capturing the block — a healthy region of Benson's at the end, as the
//!   combination asks.
//! * **An area.** After the combination, a region none of whose points is used by another
//!   proof, whose boundary chains are all kept alive and whose inner points pair with at most
//!   two adjacent ones left out, is safe as a thin territory is: at the end every point of it
//!   but those two lies next to a pass-alive chain, so it is in `U_c` and the `o` stones in it
//!   are **dead**, under both rule sets (no ko is involved).
//!
//! A territory two lines deep along the edge pairs this way when `c`'s stones close both
//! its ends (the first-line point next to a closing stone has two links, and each point after
//! it borrows the one before); a wide territory does not, and is left to the local games.
//!
//! **What it does not do.** Chains next to a safe territory that are not themselves proved
//! keep being decided by the region search of `lib.rs`, which stays walled by Benson's
//! pass-alive chains only: a territory that is merely safe lets the attacker play forcing
//! moves inside it (free ko threats), so it cannot stand for a wall there. The region
//! search may take these proofs, recomputed on a position of hypothetical play, as an end of
//! a line (`search::Region::safe_end`); local games already played are then looked up, not
//! replayed (a cache per thread, emptied at the start of each adjudication).

use crate::benson::{cell, Scope, EMPTY};
use crate::search::{forced, End, Mode, Region, State, Territory};
use goban::{Board, Color, Move, Point};

/// Territories with more empty points than this are not examined.
pub(crate) const MAX_EMPTY: usize = 12;
/// Nodes of one local game at most (or the adjudication's budget per region if smaller).
/// On the real games' final positions almost every local game won needs fewer than 1,200
/// nodes, and a game lost often uses all it may; an empty 3x3 corner territory with one
/// virtual eye needs about 4,900 (an empty 2x5 one about 4,400, 2x6 about 26,000). Larger
/// budgets decide a few more stones for several times the time.
pub(crate) const LOCAL_BUDGET: u64 = 10_000;

/// A line of hypothetical play: (player, move).
pub(crate) type Line = Vec<(Color, Move)>;

/// What [`safe_territories`] proves for one colour.
pub(crate) struct Safety {
    /// By board index (`y * width + x`): a stone of a chain proved alive.
    pub alive: Vec<bool>,
    /// By board index: a point of a territory proved safe (the opponent's stones there
    /// are dead).
    pub area: Vec<bool>,
    /// Nodes searched in all local games.
    pub nodes: u64,
    /// The proved territories: their points and a line of their local game that shows the
    /// defender winning (the attacker moving first), when the proof produced one.
    pub proofs: Vec<(Vec<Point>, Line)>,
    /// By board index: a point the proof relies on — a point of a proved territory or of a
    /// couple of eye spots, or a point of a miai connection. A move of the defender
    /// anywhere else leaves the proof intact.
    pub used: Vec<bool>,
}

impl Safety {
    /// Nothing proved (the step switched off).
    pub fn none(board: &Board) -> Safety {
        let n = board.width() as usize * board.height() as usize;
        Safety { alive: vec![false; n], area: vec![false; n], nodes: 0, proofs: Vec::new(), used: vec![false; n] }
    }
}

struct Candidate {
    points: Vec<Point>,
    /// Boundary chains, by head ([`Board::chain_id`]): all must be in `X` for the
    /// candidate to count.
    heads: Vec<Point>,
    /// The chains (heads) the candidate credits: all of `heads` for a territory, the chains
    /// around both eyes for a couple of miai eye spots.
    credited: Vec<Point>,
    /// A couple of miai eye spots (module docs), not a territory: no area, no dead stones.
    couple: bool,
    /// Credits proved: 0 (not won), 1 (won with a virtual eye), 2 (won alone).
    credit: u8,
    /// The line of the last local game won.
    line: Line,
    /// A territory proved by a pairing of its inner points (module docs), not a local game.
    paired: bool,
}

/// [`safe_territories`] in the form a search takes as an end
/// ([`crate::search::SafetyProof`]): (stones kept alive, safe area, nodes used); the paired
/// territories only with `pairing`.
pub(crate) fn proof_as_end(board: &Board, colour: Color, mode: Mode, budget: u64, pairing: bool) -> (Vec<bool>, Vec<bool>, u64) {
    let sf = safe_territories(board, colour, mode, budget, pairing);
    (sf.alive, sf.area, sf.nodes)
}

/// Proves territories of `colour` safe and the chains around them alive (module docs),
/// spending at most `budget` (capped at [`LOCAL_BUDGET`]) nodes per local game; the paired
/// territories only with `pairing`.
pub(crate) fn safe_territories(board: &Board, colour: Color, mode: Mode, budget: u64, pairing: bool) -> Safety {
    let budget = budget.min(LOCAL_BUDGET);
    let w = board.width() as usize;
    let n = w * board.height() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let mut nodes = 0;
    // c-regions.
    let mut seen = vec![false; n];
    let mut cands: Vec<Candidate> = Vec::new();
    // Every c-region next to a c chain (the territories examined and the larger ones).
    let mut all_regions: Vec<Vec<Point>> = Vec::new();
    // The boundary chains (heads) of each of `all_regions`.
    let mut region_heads: Vec<Vec<Point>> = Vec::new();
    for p in board.points() {
        if seen[gi(p)] || board.get(p) == Some(colour) {
            continue;
        }
        let mut pts = vec![p];
        seen[gi(p)] = true;
        let mut heads: Vec<Point> = Vec::new();
        let mut k = 0;
        while k < pts.len() {
            let q = pts[k];
            k += 1;
            for r in board.adjacent(q) {
                if board.get(r) == Some(colour) {
                    let h = board.chain_id(r).unwrap_or(r);
                    if !heads.contains(&h) {
                        heads.push(h);
                    }
                } else if !seen[gi(r)] {
                    seen[gi(r)] = true;
                    pts.push(r);
                }
            }
        }
        let empty = pts.iter().filter(|&&q| board.get(q).is_none()).count();
        if empty <= MAX_EMPTY && pts.len() <= 2 * MAX_EMPTY && !heads.is_empty() {
            all_regions.push(pts.clone());
            region_heads.push(heads.clone());
            cands.push(Candidate {
                points: pts,
                credited: heads.clone(),
                heads,
                credit: 0,
                line: Vec::new(),
                couple: false,
                paired: false,
            });
        } else if !heads.is_empty() {
            all_regions.push(pts);
            region_heads.push(heads);
        }
    }
    for cand in cands.iter_mut() {
        let (won, used, line) = local_game(board, colour, mode, cand, true, budget);
        nodes += used;
        if won {
            cand.credit = 1;
            cand.line = line;
        }
    }
    // Miai connections first (their points are reserved), then couples of miai eye spots in
    // every region not proved safe as a whole, on points no connection uses.
    let (block, joints) = miai_blocks(board, colour, &cands);
    // Territories of one block, not won by a local game and holding no point of a miai
    // connection, whose inner points pair with no omission: one credit (module docs).
    for (pts, heads) in all_regions.iter().zip(&region_heads) {
        if cands.iter().any(|c| c.credit > 0 && c.points[0] == pts[0])
            || pts.iter().any(|q| joints.contains(q))
            || heads.iter().any(|&h| block(h) != block(heads[0]))
        {
            continue;
        }
        let Some(line) = pairing.then(|| pairing_line(board, colour, pts, true)).flatten() else { continue };
        match cands.iter_mut().find(|c| c.points[0] == pts[0]) {
            Some(c) => {
                c.credit = 1;
                c.line = line;
                c.paired = true;
            }
            None => cands.push(Candidate {
                points: pts.clone(),
                credited: heads.clone(),
                heads: heads.clone(),
                credit: 1,
                line,
                couple: false,
                paired: true,
            }),
        }
    }
    for pts in &all_regions {
        if cands.iter().any(|c| c.credit > 0 && c.points[0] == pts[0]) {
            continue;
        }
        cands.extend(couples(board, colour, pts, &joints));
    }
    // Credits per block (a candidate counts once per block), then the fixpoint; regions won
    // with a virtual eye whose chains lack credits are tried alone (two credits) once.
    let mut tried_alone = vec![false; cands.len()];
    loop {
        let credit_of = |cands: &[Candidate], h: Point| -> u32 {
            let b = block(h);
            cands.iter().filter(|c| c.credited.iter().any(|&k| block(k) == b)).map(|c| c.credit as u32).sum()
        };
        let mut changed = false;
        for i in 0..cands.len() {
            if cands[i].credit == 1
                && !cands[i].couple
                && !cands[i].paired
                && !tried_alone[i]
                && cands[i].heads.iter().any(|&h| credit_of(&cands, h) < 2)
            {
                tried_alone[i] = true;
                let (won, used, line) = local_game(board, colour, mode, &cands[i], false, budget);
                nodes += used;
                if won {
                    cands[i].credit = 2;
                    cands[i].line = line;
                    changed = true;
                }
            }
        }
        for i in 0..cands.len() {
            if cands[i].credit > 0 && cands[i].heads.iter().any(|&h| credit_of(&cands, h) < 2) {
                cands[i].credit = 0;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut alive = vec![false; n];
    let mut area = vec![false; n];
    let mut proofs = Vec::new();
    // Chains of a block with two credits left (not only those next to a candidate).
    let credited_blocks: Vec<Point> = {
        let mut v: Vec<Point> = cands.iter().filter(|c| c.credit > 0).flat_map(|c| c.credited.iter().map(|&h| block(h))).collect();
        v.sort();
        v.dedup();
        v.retain(|&b| {
            cands.iter().filter(|c| c.credit > 0 && c.credited.iter().any(|&k| block(k) == b)).map(|c| c.credit as u32).sum::<u32>() >= 2
        });
        v
    };
    for p in board.points() {
        if board.get(p) == Some(colour) && credited_blocks.contains(&block(board.chain_id(p).unwrap_or(p))) {
            alive[gi(p)] = true;
        }
    }
    let mut used = vec![false; n];
    for &q in &joints {
        used[gi(q)] = true;
    }
    for cand in cands.iter().filter(|c| c.credit > 0) {
        for &q in &cand.points {
            used[gi(q)] = true;
        }
        proofs.push((cand.points.clone(), cand.line.clone()));
        for &q in cand.points.iter().filter(|_| !cand.couple) {
            area[gi(q)] = true;
        }
        for &h in &cand.heads {
            for s in board.chain(h) {
                alive[gi(s)] = true;
            }
        }
    }
    // Thin and paired territories: every other c-region whose boundary chains are all kept
    // alive is safe when its interior is small, or pairs when no other proof uses its points
    // (module docs).
    for (pts, heads) in all_regions.iter().zip(&region_heads) {
        if pts.iter().any(|&q| area[gi(q)]) {
            continue;
        }
        let line = if thin_and_walled(board, colour, pts, |q| alive[gi(q)]) {
            Vec::new()
        } else if pairing && heads.iter().all(|&h| alive[gi(h)]) && !pts.iter().any(|&q| used[gi(q)]) {
            match pairing_line(board, colour, pts, false) {
                Some(line) => line,
                None => continue,
            }
        } else {
            continue;
        };
        for &q in pts {
            area[gi(q)] = true;
            used[gi(q)] = true;
        }
        proofs.push((pts.clone(), line));
    }
    Safety { alive, area, nodes, proofs, used }
}

/// The line of a pairing of the c-region `pts` (for `colour`, module docs): the attacker
/// passes and the defender fills one link of each pair, in the pairing's order. With no inner
/// point left out when `strict`, else two adjacent ones at most; `None` without a pairing.
fn pairing_line(board: &Board, colour: Color, pts: &[Point], strict: bool) -> Option<Line> {
    let sc = Scope::new(board, pts.to_vec());
    let cells = sc.cells(board);
    let line = crate::search::territory_pairing(&sc, &cells, strict)?;
    Some(line.into_iter().flat_map(|l| [(colour.opponent(), Move::Pass), (colour, Move::Play(sc.points[l as usize]))]).collect())
}

/// Whether the c-region `pts` (for `colour`) is a *thin territory* (module docs): every
/// stone next to it is `colour`'s and `kept` (kept alive), and at most two of its points, adjacent
/// to each other if two, have no `colour` stone next to them — the interior of `U_c`'s
/// definition (module `benson`) once the chains kept alive are pass-alive.
fn thin_and_walled(board: &Board, colour: Color, pts: &[Point], kept: impl Fn(Point) -> bool) -> bool {
    let mut interior: Vec<Point> = Vec::new();
    for &q in pts {
        let mut next_to_c = false;
        for r in board.adjacent(q) {
            match board.get(r) {
                Some(c) if c == colour => {
                    if !kept(r) {
                        return false;
                    }
                    next_to_c = true;
                }
                _ => {}
            }
        }
        if !next_to_c {
            interior.push(q);
            let adjacent = |a: Point, b: Point| a.x.abs_diff(b.x) + a.y.abs_diff(b.y) == 1;
            if interior.len() > 2 || (interior.len() == 2 && !adjacent(interior[0], interior[1])) {
                return false;
            }
        }
    }
    true
}

/// Plays the local game of `cand` (module docs) with one virtual eye (`virtual_eye`) or
/// none; returns whether the defender wins it, the nodes used and a line showing the win
/// (the defender's forced win).
fn local_game(board: &Board, colour: Color, mode: Mode, cand: &Candidate, virtual_eye: bool, lb: u64) -> (bool, u64, Line) {
    // A boundary chain with no liberty inside the region has none at all in the local game
    // (an illegal start): the soundness argument (a) needs every boundary chain to keep a
    // liberty inside the region, and such a chain may be captured from outside. Lost.
    if cand.heads.iter().any(|&h| !board.liberties(h).iter().any(|q| cand.points.contains(q))) {
        return (false, 0, Vec::new());
    }
    let mut pts = cand.points.clone();
    let inner = pts.len();
    for &h in &cand.heads {
        pts.extend(board.chain(h));
    }
    let total = pts.len();
    let mut scope = Scope::new(board, pts).walled(colour.opponent());
    if virtual_eye {
        scope.virtual_eye = (0..total).map(|i| i >= inner).collect();
    }
    let cells = scope.cells(board);
    let key = (colour.index() as u8, mode == Mode::Kiyaku1989, virtual_eye, lb, scope.points.clone(), cells.clone());
    if let Some(hit) = LG_CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return (hit.0, 0, hit.2);
    }
    let r = local_game_run(scope, cells, inner, total, colour, mode, lb, true);
    LG_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= LG_CACHE_MAX {
            c.clear();
        }
        c.insert(key, r.clone());
    });
    r
}

/// A local game: (defender, 1989?, virtual eye, node limit, its points, their contents).
type LgKey = (u8, bool, bool, u64, Vec<Point>, Vec<u8>);
/// Local games remembered per thread at most (then forgotten all at once).
const LG_CACHE_MAX: usize = 50_000;
thread_local! {
    /// Local games already played (won?, nodes, line), by [`LgKey`].
    static LG_CACHE: std::cell::RefCell<std::collections::HashMap<LgKey, (bool, u64, Line)>> = Default::default();
}

/// Forgets the local games played so far (each adjudication starts afresh, so that its
/// node counts do not depend on earlier ones).
pub(crate) fn forget_local_games() {
    LG_CACHE.with(|c| c.borrow_mut().clear());
}

/// The local game itself: `scope` holds the territory's `inner` points, then its boundary
/// stones up to `total`; `cells` their contents.
#[allow(clippy::too_many_arguments)]
fn local_game_run(
    scope: Scope,
    cells: Vec<u8>,
    inner: usize,
    total: usize,
    colour: Color,
    mode: Mode,
    lb: u64,
    pairing: bool,
) -> (bool, u64, Line) {
    let boundary: Vec<usize> = (inner..total).collect();
    let mut region = Region::new(scope, mode, lb);
    region.territory = Some(Territory { defender: colour, boundary: boundary.clone(), area: (0..inner).collect(), pairing });
    debug_assert!(boundary.iter().all(|&b| cells[b] == cell(colour)));
    debug_assert!(cells[..inner].iter().all(|&v| v == EMPTY || v == cell(colour.opponent())));
    // No 第五条 ban at the start: a ban on the attacker would only restrict it, and a ban on
    // the defender is lifted by the pass with which its strategy opens.
    let root = State::new(cells, colour.opponent());
    match forced(&mut region, &root, &boundary, colour, End::Alive, lb, 40, false) {
        Some(line) => (true, region.nodes, line),
        None => (false, region.nodes.min(lb), Vec::new()),
    }
}

/// Largest eye (empty points) a miai eye spot may enclose.
const SPOT_EYE: usize = 3;

/// A miai eye spot of a region (module docs): one `c` move at `q` encloses `eye`.
struct Spot {
    q: Point,
    eye: Vec<Point>,
    /// Every chain (head) next to `eye` or `q`.
    borders: Vec<Point>,
    /// The chains (heads) for which, once `q` is played, every point of `eye` is a liberty.
    credited: Vec<Point>,
}

/// The couples of disjoint miai eye spots of the `colour` region `pts` (module docs) that
/// use no point of `reserved`, as candidates worth one credit to the chains both spots credit.
fn couples(board: &Board, colour: Color, pts: &[Point], reserved: &[Point]) -> Vec<Candidate> {
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let mut inr = vec![false; w * board.height() as usize];
    for &p in pts {
        inr[gi(p)] = true;
    }
    let head = |p: Point| board.chain_id(p).unwrap_or(p);
    let mut spots: Vec<Spot> = Vec::new();
    for &q in pts {
        if board.get(q).is_some() || !board.adjacent(q).any(|r| board.get(r) == Some(colour)) {
            continue;
        }
        let merged: Vec<Point> = board.adjacent(q).filter(|&r| board.get(r) == Some(colour)).map(head).collect();
        let mut taken: Vec<Point> = Vec::new();
        for start in board.adjacent(q).filter(|&r| inr[gi(r)]) {
            if taken.contains(&start) {
                continue;
            }
            // The component of the region without q that holds `start`, if small and empty.
            let mut eye = vec![start];
            let mut k = 0;
            let mut small = true;
            while k < eye.len() && small {
                let e = eye[k];
                k += 1;
                small = board.get(e).is_none();
                for r in board.adjacent(e) {
                    if inr[gi(r)] && r != q && !eye.contains(&r) {
                        eye.push(r);
                    }
                }
                small &= eye.len() <= SPOT_EYE;
            }
            taken.extend(eye.iter().copied());
            if !small {
                continue;
            }
            let mut borders: Vec<Point> = merged.clone();
            for &e in &eye {
                for r in board.adjacent(e).filter(|&r| board.get(r) == Some(colour)) {
                    let h = head(r);
                    if !borders.contains(&h) {
                        borders.push(h);
                    }
                }
            }
            // A point of the eye is a liberty of chain h once q is played if it touches a
            // stone of h, or touches q and h is one of the chains q joins.
            let liberty_of = |e: Point, h: Point| {
                board.adjacent(e).any(|r| r == q && merged.contains(&h))
                    || board.adjacent(e).any(|r| board.get(r) == Some(colour) && head(r) == h)
                    || (merged.contains(&h) && board.adjacent(e).any(|r| board.get(r) == Some(colour) && merged.contains(&head(r))))
            };
            let credited: Vec<Point> = borders.iter().copied().filter(|&h| eye.iter().all(|&e| liberty_of(e, h))).collect();
            if !credited.is_empty() && !reserved.contains(&q) && !eye.iter().any(|e| reserved.contains(e)) {
                spots.push(Spot { q, eye, borders, credited });
            }
        }
    }
    // Pair disjoint spots greedily, each couple crediting the chains both spots credit.
    let pts_of = |s: &Spot| -> Vec<Point> { std::iter::once(s.q).chain(s.eye.iter().copied()).collect() };
    let mut used: Vec<Point> = Vec::new();
    let mut out = Vec::new();
    for i in 0..spots.len() {
        let pi = pts_of(&spots[i]);
        if pi.iter().any(|p| used.contains(p)) {
            continue;
        }
        let partner = (i + 1..spots.len()).find(|&j| {
            let pj = pts_of(&spots[j]);
            !pj.iter().any(|p| used.contains(p) || pi.contains(p)) && spots[j].credited.iter().any(|h| spots[i].credited.contains(h))
        });
        let Some(j) = partner else { continue };
        let pj = pts_of(&spots[j]);
        used.extend(pi.iter().copied());
        used.extend(pj.iter().copied());
        let mut heads = spots[i].borders.clone();
        for &h in &spots[j].borders {
            if !heads.contains(&h) {
                heads.push(h);
            }
        }
        let credited: Vec<Point> = spots[i].credited.iter().copied().filter(|h| spots[j].credited.contains(h)).collect();
        let points: Vec<Point> = pi.into_iter().chain(pj).collect();
        let line = vec![(colour.opponent(), Move::Play(spots[i].q)), (colour, Move::Play(spots[j].q))];
        out.push(Candidate { points, heads, credited, credit: 1, line, couple: true, paired: false });
    }
    out
}

/// Blocks of `colour` chains joined by miai connections (module docs): two chains that share
/// two empty points used by no candidate (and by no other connection) are one block. Returns
/// the block of a chain head (a representative head).
fn miai_blocks(board: &Board, colour: Color, cands: &[Candidate]) -> (impl Fn(Point) -> Point, Vec<Point>) {
    let taken: Vec<Point> = cands.iter().filter(|c| c.credit > 0 || c.couple).flat_map(|c| c.points.iter().copied()).collect();
    let mut used = taken.clone();
    let head = |p: Point| board.chain_id(p).unwrap_or(p);
    // Shared liberties of chain pairs (heads sorted).
    let mut shared: Vec<((Point, Point), Vec<Point>)> = Vec::new();
    for p in board.points() {
        if board.get(p).is_some() || used.contains(&p) {
            continue;
        }
        let mut hs: Vec<Point> = board.adjacent(p).filter(|&r| board.get(r) == Some(colour)).map(head).collect();
        hs.sort();
        hs.dedup();
        for i in 0..hs.len() {
            for j in i + 1..hs.len() {
                let key = (hs[i], hs[j]);
                match shared.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => v.push(p),
                    None => shared.push((key, vec![p])),
                }
            }
        }
    }
    let mut parent: Vec<(Point, Point)> = Vec::new();
    fn find(parent: &[(Point, Point)], mut h: Point) -> Point {
        while let Some(&(_, up)) = parent.iter().find(|(k, _)| *k == h) {
            h = up;
        }
        h
    }
    for ((a, b), libs) in shared {
        let free: Vec<Point> = libs.into_iter().filter(|p| !used.contains(p)).take(2).collect();
        if free.len() < 2 {
            continue;
        }
        let (ra, rb) = (find(&parent, a), find(&parent, b));
        if ra == rb {
            continue;
        }
        used.extend(free);
        parent.push((ra, rb));
    }
    let joints: Vec<Point> = used.into_iter().filter(|p| !taken.contains(p)).collect();
    (move |h: Point| find(&parent, h), joints)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lost local game whose whole tree ends within the first depth bound (a one-point
    /// territory, walled: the attacker may fill it and capture the boundary, and after its
    /// pass the defender can only pass back, which repeats the start) is lost after one
    /// iteration of the deepening: a deeper one would search the same tree again.
    #[test]
    fn a_lost_local_game_with_a_finite_tree_is_searched_once() {
        let board = Board::from_diagram(&[".X...", "XX...", ".....", ".....", "....."]).unwrap();
        let mut pts = vec![Point::from_sgf("aa").unwrap()];
        pts.extend(board.chain(Point::from_sgf("ba").unwrap()));
        let total = pts.len();
        let scope = Scope::new(&board, pts).walled(Color::White);
        let cells = scope.cells(&board);
        let (won, nodes, _) = local_game_run(scope, cells, 1, total, Color::Black, Mode::Kiyaku2011, 10_000, true);
        assert!(!won, "one eye, walled: the defender loses");
        // One iteration: the root, the attacker's pass and capture, the defender's pass.
        assert!(nodes <= 6, "searched {nodes} nodes");
    }

    /// The pairing end of the local games (`search::links::local_game_paired`) against the
    /// local games without it: on random 5x4 and 6x5 boards, every Black territory of at most 8 empty
    /// points is played with and without a virtual eye; a game the end wins must be won
    /// without it too, wherever that search finishes (it is a forced win of the same game,
    /// found by play to Benson's end).
    #[test]
    fn the_pairing_end_wins_only_local_games_the_play_to_bensons_end_wins() {
        let mut rand = crate::xorshift(0x2026_1202_5eed);
        let (mut games, mut shorter) = (0, 0);
        for (w, h) in std::iter::repeat_n((5u32, 4u32), 3_000).chain(std::iter::repeat_n((6, 5), 3_000)) {
            let mut board = Board::new(w, h).unwrap();
            for p in board.points().collect::<Vec<_>>() {
                match rand() % 20 {
                    0..=8 => board.set(p, Some(Color::Black)).unwrap(),
                    9..=11 => board.set(p, Some(Color::White)).unwrap(),
                    _ => {}
                }
            }
            if !board.points().all(|p| board.get(p).is_none() || board.liberty_count(p) > 0) {
                continue;
            }
            let mut seen = vec![false; (w * h) as usize];
            for p in board.points() {
                let i = p.y as usize * w as usize + p.x as usize;
                if seen[i] || board.get(p) == Some(Color::Black) {
                    continue;
                }
                // The Black region of `p` and its boundary chains.
                let mut pts = vec![p];
                seen[i] = true;
                let mut k = 0;
                let mut heads: Vec<Point> = Vec::new();
                while k < pts.len() {
                    for r in board.adjacent(pts[k]) {
                        let j = r.y as usize * w as usize + r.x as usize;
                        if board.get(r) == Some(Color::Black) {
                            let h = board.chain_id(r).unwrap_or(r);
                            if !heads.contains(&h) {
                                heads.push(h);
                            }
                        } else if !seen[j] {
                            seen[j] = true;
                            pts.push(r);
                        }
                    }
                    k += 1;
                }
                let empty = pts.iter().filter(|&&q| board.get(q).is_none()).count();
                if heads.is_empty() || empty > 8 || heads.iter().any(|&h| !board.liberties(h).iter().any(|q| pts.contains(q))) {
                    continue;
                }
                let inner = pts.len();
                let mut all = pts.clone();
                for &h in &heads {
                    all.extend(board.chain(h));
                }
                let total = all.len();
                for virtual_eye in [false, true] {
                    let mut scope = Scope::new(&board, all.clone()).walled(Color::White);
                    if virtual_eye {
                        scope.virtual_eye = (0..total).map(|i| i >= inner).collect();
                    }
                    let cells = scope.cells(&board);
                    let run = |pairing: bool, lb: u64| {
                        local_game_run(scope.clone(), cells.clone(), inner, total, Color::Black, Mode::Kiyaku2011, lb, pairing)
                    };
                    let (with, n_with, wline) = run(true, 20_000);
                    if !with {
                        continue;
                    }
                    let lb = 400_000;
                    let (without, n_without, _) = run(false, lb);
                    if n_without >= lb {
                        continue;
                    }
                    games += 1;
                    shorter += usize::from(n_with < n_without);
                    assert!(
                        without,
                        "won by the pairing end only (virtual eye {virtual_eye}) in {:?} line {:?}",
                        board.points().map(|q| board.get(q)).collect::<Vec<_>>(),
                        wline
                    );
                }
            }
        }
        eprintln!("{games} local games won with the end and settled without it, {shorter} of them in fewer nodes");
        assert!(shorter > 50, "the end must shorten games: {shorter} of {games}");
    }
}
