//! Dispute mode: the players' agreement (第九条) as the context of hypothetical play
//! (第七条) for the chains they dispute.
//!
//! Under 第九条 the players end the game by agreeing on the life and death of the stones
//! and on the territory; 第七条's hypothetical play settles only what they dispute. So when
//! statuses are agreed ([`Options::agreed`]) the adjudication searches only the disputed
//! chains ([`Options::dispute`]) and the chains drawn into their dispute (below), in this
//! context:
//!
//! * **Agreed-alive and agreed-seki chains are walls.** Nobody disputes that they stay on
//!   the board to the end, so hypothetical play never captures them: a disputed chain's
//!   *region* is the connected set of points around it that are neither wall stones nor in
//!   either colour's unconditional area (the whole-board analysis of the crate docs, which
//!   assumes nothing). Every neighbour of the region is then a stone that is never
//!   captured, exactly the situation of the crate's ordinary regions (bounded by pass-alive
//!   chains), and the same search decides the disputed chain inside it, exhaustively up to
//!   twice as many empty points as a region of the whole board
//!   ([`DISPUTE_REGION_FACTOR`]: its few chains have the whole budget). A chain the
//!   whole-board analysis proves dead is never a wall, whatever was agreed.
//! * **Agreed-dead stones stay on the board as ordinary stones.** 第七条's hypothetical
//!   play starts from the position at the end of play (終局時の局面); an agreement that a
//!   chain is dead says it will be removed at the count (第十条), not that it is gone
//!   before. In the play they can be captured, extended or connected like any other stone,
//!   so a disputed chain keeps every resource it has on the board. Their agreed status is
//!   not searched again.
//! * **Agreed statuses the verification depends on are drawn in.** A wall that the play
//!   could capture, or whose capture would save the disputed chain, would make the answer
//!   hold only because the agreement was assumed. Such a wall is drawn into the dispute (it
//!   stops being a wall, is searched with the disputed chain, and the answer lists it with
//!   the reason, [`DrawnIn`]), repeatedly until none is left:
//!   a wall of the region's border, not proved alive by the whole-board analysis, that
//!   **touches the disputed chain or shares a liberty with it, and has at most one liberty
//!   more than it** ([`DrawReason::CapturingRace`]): a capturing race or a seki, which the
//!   liberties they share decide for both — unless two links keep it a wall (below), which
//!   the answer's strategy then proves rather than assumes.
//!
//!   A wall with more liberties than that beside every opposing chain of the region is not
//!   in a race with them: the opposing side would need more moves to capture it than it
//!   leaves the wall's side to capture its own chains. Its life is the agreement's, which
//!   nobody disputes.
//!
//!   **Race partners of the region's other chains.** A wall that races another chain of the
//!   region — an agreed-dead stone there (which the play may save, extend or connect like
//!   any other) or a chain drawn in — matters too, in one direction: a wall that can never
//!   be captured only helps its own colour (its opponent loses the option of capturing it,
//!   and its owner gains moves that would otherwise be suicide). So a status found *dead*
//!   can lean only on walls of the dead chain's opponent, *alive* only on walls of its own
//!   colour, *seki* on both, and only on walls on the border of the region searched (the
//!   play never reaches the others). The region is first built with the walls racing the
//!   disputed chain drawn in, and searched. When a status found there (of the disputed
//!   chain or of one drawn in) could lean on a wall on that region's border that the
//!   transitive closure of the rule (race partners of every chain of the region, of either
//!   colour, and theirs) would draw in, the search is undone and the region built again
//!   with those walls — of the colours leaned on — drawn in as well
//!   ([`DrawReason::LeanedOn`]), and searched again; and so on (each step draws in at least
//!   one more wall of the closure, so it ends, with the whole closure at most). A region
//!   where the disputed chain, if found *dead*, would lean so on walls of its opponent's
//!   colour is not searched at all: it is built again at once with those
//!   walls drawn in, as that answer would make it, and the chain is tried for *dead* first
//!   in the wider region: a proof of *dead* in the narrower region would only be undone, and
//!   with one budget per dispute (below) its nodes would be lost to the wider search. A
//!   wider region is as sound a context as the narrower one, whatever its answer, only a
//!   harder one to decide: a chain that is alive is then found alive there, with what the
//!   proof of *dead* left, where the narrower region might have found it in fewer nodes.
//!   Only the last region's answers count,
//!   and a region's answers are taken only when none of them could lean on a wall of the
//!   closure on its border: the walls left on it either race no chain of the dispute (the
//!   rule above) or only help a colour no status found there rests on. (In a corner where
//!   Black's single stone shares its liberties with another agreed-alive black stone, both
//!   racing a White chain drawn in, Black's connecting move would otherwise "live" by
//!   joining a stone that is only assumed never to be captured.) A wider region tries first,
//!   for each chain, the end the narrower one found (a chain found dead is treated as an
//!   invader, whose proof of *dead* gets most of the budget): the order changes no answer, as
//!   the proof is searched in the wider region like any other. The closure cascades from
//!   race to race across a real board, into regions too large to decide, so it is widened
//!   into only as far as the answers need.
//!
//! **Walls kept by two links** (2011 draft). A wall `W` that races a chain of the dispute
//! need not be drawn in when its owner can always join it to a wall that stays one: when
//! two of its liberties (its *links*) lie outside the region and outside both unconditional
//! areas, each next to a stone of another wall of `W`'s colour that the dispute does not
//! draw in (an *anchor*: a wall racing no chain of the dispute, or one kept so before it), and
//! next to nothing else but `W`, anchors and empty points; no link serves two walls. (After
//! Müller, "Playing it safe", 1997, and Fuego's `GoSafetySolver`, where blocks are merged
//! through regions with two connection points.) The opponent `c` can then capture `W` only
//! by filling both links; when it plays one, `W`'s owner plays the other, which joins `W`
//! to its anchor for good. Such a move touches nothing in the region: a link is not next to
//! any point of it, and next to no stone of `c` or of another chain that could be captured.
//! So `W` stays a wall, and the region stops at it (the territory behind it is not searched).
//! What the wall's owner gives up is only the tempo of its answer: a move of `c` on a link
//! is a threat `W`'s owner must answer, which in a ko fight lifts `c`'s 第五条 ban. Each kept
//! wall gives `c` one such threat and no more (after the exchange both links are filled and
//! `W` is joined to its anchor, a wall like any other). The region's search therefore lets
//! `c` retake a ko its ban forbids as many times in a line as walls are kept
//! (`search::Region::ko_threats`), and the answer's proof line shows each such retake after
//! the exchange that allows it (`c` on one link, the answer on the other). `W`'s owner may
//! also take a threat away first, joining `W` with a move of its own on a link; the search
//! makes each of its passes such a move while a threat is left (no worse for it than a
//! pass: `c` keeps fewer options), and the line shows it as that move. A status found
//! there holds when it is *dead* for a chain of `c` — the opponent forced the dead end
//! against `c` with its threats, and its strategy, each link answered by the other, does it
//! in the whole game — or undecided. When another status is found (a chain of `c` alive or
//! in seki, a chain of the wall's colour decided), the dispute is searched again with the
//! walls kept by links drawn in like any other. Walls are kept so only for the colour
//! opposite the disputed chain, whose *dead* is what such a region can prove; under the 1989
//! rules (their ko-pass bans differ) none are.
//!
//! **An invasion walled in** (2011 draft). A disputed chain `S` of `c`, the only disputed
//! chain of a region of more than [`WALLED_MAX_EMPTY`] empty points that its answer could
//! take (one whose *dead* leans on no wall the closure would draw in, above), is first tried
//! for *dead* in its *walled region* there (module `walled`): the region's points reached
//! from `S`, nearest first, each stone with its whole chain, at most [`WALLED_MAX_EMPTY`]
//! empty points. The walls of `c`'s opponent `o` next to it (agreed, or proved alive, or in
//! `o`'s unconditional area) stay walls; every other point next to it — the rest of the
//! region, a wall of `c`, a point of an unconditional area — stands for a stone of `c` that
//! never changes, and `c` may retake a ko whatever its 第五条 ban. That only helps `c` (module
//! `walled`, "Why it is sound"), so a proof of *dead* found there holds in the region, and
//! in the whole game with this agreement as context: `o`'s walls are the region's, which the
//! agreement keeps on the board, and a move of `c` outside the walled region, in the region or
//! on a link, leaves it as it was. Its search has at most [`DISPUTE_WALLED_NODES`] of the
//! dispute's budget; a proof of *dead* found there is the answer (the region's own search is
//! skipped), and anything else leaves the region's search what is left.
//!
//! **One budget per dispute.** The searches of a disputed chain — in its first region, in
//! each wider one, and again with the walls kept by links drawn in — share one
//! [`Options::budget_nodes`]: each gets what the earlier ones left, so a referee's answer
//! never costs more than one region's search, however far the dispute widens. A wider region
//! that runs out of what is left leaves the chain undecided, as a narrower one would.
//!
//! **A dispute left undecided, or found dead.** The chains drawn into a region are searched
//! after its disputed chains, with a budget of their own. When a disputed chain of the region
//! stays undecided, no status of the answer rests on them: they are listed ([`DrawnIn`]) but
//! not searched, and keep the agreed status (第九条) — the dispute goes to the arbiter as a
//! whole. When every disputed chain of the region is found *dead*, that proof was searched
//! with the chains drawn in capturable, so it holds whatever their status: those of the
//! other colour (the dead chains' race partners and theirs) are listed and keep the agreed
//! status (第九条), which nobody disputes, unsearched; those of a dead chain's own colour
//! may share its fate (an agreed-alive stone beside it that races the same chain), so they
//! are searched and the answer gives the status found. A disputed chain found *alive* or in
//! *seki* may have captured chains drawn in or shared its life with them, so then every one
//! is searched.
//!
//! Every status found for a disputed or drawn-in chain is exact in this context (the proofs
//! and their lines are those of the crate docs' search). Undisputed chains keep their agreed
//! status (第九条) and are not searched; the whole-board analysis (pass-alive chains,
//! unconditional areas, safe territories), which assumes nothing, still examines them, and
//! every agreement it shows wrong is reported in [`Adjudication::refuted_agreements`] with
//! its proof (grounds for an objection under 第十条2 until the result is confirmed).

use crate::benson::Safe;
use crate::safety::Safety;
use crate::search::{End, Mode};
use crate::walled::{search_walled, WALLED_MAX_EMPTY};
use crate::{solve_region, Adjudication, Options, Proof, Refutation, RegionReport, Status, StatusMap};
use goban::{Board, Color, Point};
use region::{grow_region, Grown};

mod links;
mod region;
mod seki;

use links::{linked_answers_hold, with_link_exchanges};
pub use seki::find_seki;

/// How much larger than [`Options::max_region_empty`] a disputed chain's region may be and
/// still be searched exhaustively (numerator, denominator): twice, 80 empty points by default.
/// Only the disputed chains (and those drawn in) are searched there, so each has the whole
/// budget where a region of the whole-board analysis shares it among all its chains.
pub(crate) const DISPUTE_REGION_FACTOR: (usize, usize) = (2, 1);

/// Nodes a disputed chain's walled region may use at most (module docs, "An invasion walled
/// in"), out of the dispute's budget.
pub(crate) const DISPUTE_WALLED_NODES: u64 = 20_000;

/// An agreed chain drawn into a dispute (module docs): it was searched together with the
/// disputed chains, and its status in the answer is the one found, not the agreed one —
/// unless a disputed chain of its region stayed undecided, or every one was found dead and it
/// is of the other colour: then it was not searched and keeps the agreed status.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnIn {
    /// The chain, sorted.
    pub stones: Vec<Point>,
    /// Its colour.
    pub color: Color,
    /// What the players agreed.
    pub agreed: Status,
    /// One stone of the disputed chain whose region drew it in.
    pub by: Point,
    /// Why.
    pub reason: DrawReason,
    /// Whether it was searched: then its status in the answer is the one found; otherwise it
    /// keeps the agreed status (module docs).
    pub searched: bool,
}

/// An agreed wall of the other colour than a disputed chain that races it but stays a wall,
/// kept by two links (module docs, "Walls kept by two links"): a move of the disputed chain's
/// side on one link is answered on the other, which joins the wall to a wall that stays.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptByLinks {
    /// The chain, sorted.
    pub stones: Vec<Point>,
    /// Its colour.
    pub color: Color,
    /// One stone of the disputed chain whose region kept it.
    pub by: Point,
    /// Its two links (empty points outside the region).
    pub links: [Point; 2],
}

/// Why an agreed chain was drawn into a dispute (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// It touches, or shares a liberty with, the disputed chain through `with` and has at
    /// most one liberty more than that chain: a capturing race or seki.
    CapturingRace {
        /// A stone of the opposing chain.
        with: Point,
    },
    /// A status found in a narrower region could rest on it never being captured (module
    /// docs, "Race partners of the region's other chains"), and it is in a capturing race or
    /// seki with the chain through `with`, itself in the transitive closure of the dispute's
    /// races: a chain of the region (an agreed-dead stone there), or one drawn in too, or a
    /// wall of the other colour that no status found rests on.
    LeanedOn {
        /// A stone of the chain it races.
        with: Point,
    },
}

impl std::fmt::Display for DrawReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DrawReason::CapturingRace { with } => write!(
                f,
                "it shares liberties with the chain at {with} and at most one liberty more: a capturing race or seki decides both (第七条)"
            ),
            DrawReason::LeanedOn { with } => write!(
                f,
                "a status found without it could rest on it never being captured, and it races the chain at {with} (shared liberties, at most one more), which is in the dispute's region or reached by its races (第七条)"
            ),
        }
    }
}

/// Adjudication with an agreement (module docs). `found`, `proofs` and `settled` come from
/// the whole-board analysis (crate docs, Engine steps 1–2); `ua` are both colours'
/// unconditional areas; `safe` the territory proofs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn adjudicate_agreed(
    board: &Board,
    mode: Mode,
    opts: &Options,
    agreed: &StatusMap,
    ua: &[Safe; 2],
    safe: &[Safety; 2],
    settled: &[bool],
    mut found: StatusMap,
    mut proofs: Vec<Proof>,
    progress: &mut dyn FnMut(&RegionReport),
    rely: Rely,
) -> Adjudication {
    let w = board.width() as usize;
    let n = w * board.height() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let in_u = |p: Point| ua[0].area.get(gi(p)) || ua[1].area.get(gi(p));
    // Proved alive without any agreement: pass-alive, in its own unconditional area, or kept
    // alive by a safe territory.
    let proved_alive = |p: Point, found: &StatusMap| {
        let c = board.get(p).expect("a stone");
        ua[c.index()].pa.get(gi(p)) || (settled[gi(p)] && found.get(p) == Status::Alive)
    };

    // Chains, one representative each, in board order.
    let mut heads: Vec<Point> = Vec::new();
    let mut seen = vec![false; n];
    for p in board.points() {
        if board.get(p).is_none() || seen[gi(p)] {
            continue;
        }
        for s in board.chain(p) {
            seen[gi(s)] = true;
        }
        heads.push(p);
    }
    let disputed = |p: Point| board.chain(p).iter().any(|s| opts.dispute.contains(s));

    let mut wall = vec![false; n];
    let mut to_decide: Vec<Point> = Vec::new();
    for &p in &heads {
        if disputed(p) {
            if !settled[gi(p)] && !ua[board.get(p).expect("a stone").index()].pa.get(gi(p)) {
                to_decide.push(p);
            }
            continue;
        }
        let proved_dead = settled[gi(p)] && found.get(p) == Status::Dead;
        let agreed_standing = matches!(agreed.get(p), Status::Alive | Status::Seki);
        if !proved_dead && (agreed_standing || proved_alive(p, &found)) {
            for s in board.chain(p) {
                wall[gi(s)] = true;
            }
        }
    }

    let mut drawn: Vec<DrawnIn> = Vec::new();
    let mut searched = vec![false; n];
    // Chains drawn into a dispute whose disputed chain stayed undecided: not searched, they
    // keep the agreed status (module docs).
    let mut kept = vec![false; n];
    let mut reports = Vec::new();
    // Disputes searched again with the walls kept by links drawn in (below).
    let mut unlinked = vec![false; n];
    // The walls kept by links in the regions whose answers count.
    let mut kept_walls: Vec<KeptByLinks> = Vec::new();
    // By disputed chain (a point of it): the nodes its searches have used so far, in every
    // region tried for it (module docs: one budget per dispute).
    let mut spent = vec![0u64; n];
    let mut k = 0;
    while k < to_decide.len() {
        let d = to_decide[k];
        k += 1;
        if searched[gi(d)] || kept[gi(d)] {
            continue;
        }
        let colour = board.get(d).expect("a stone");
        // This dispute's proofs (a wider region, or the search again, replaces them).
        let first_proof = proofs.len();
        // Under the 2011 draft the walls of the other colour kept by two links stay walls
        // (module docs), unless a status found so is not one such a region gives: then the
        // dispute is searched again with them drawn in like any other.
        let linking = (mode == Mode::Kiyaku2011 && !unlinked[gi(d)]).then(|| colour.opponent());
        // The walls the last region searched kept by their links, with the links.
        let mut last_linked: Vec<(Point, [Point; 2])> = Vec::new();
        // The region with the walls racing the disputed chain drawn in; the transitive
        // closure (the race partners of every chain of the region drawn in as well, and
        // theirs) bounds every wider region tried after it (module docs).
        let before = found.clone();
        let keep = |p: Point| proved_alive(p, &before);
        let far = grow_region(board, d, &wall, &in_u, &keep, true, &[], linking);
        let near = grow_region(board, d, &wall, &in_u, &keep, false, &[], linking);
        // The state before this dispute's first search, which every search of a wider region
        // starts from again (kept only when the closure draws in more than the first region),
        // and so does the search again without walls kept by links.
        let widens = far.draws.len() > near.draws.len();
        let start = (widens || linking.is_some()).then(|| Undo {
            wall: wall.clone(),
            searched: searched.clone(),
            kept: kept.clone(),
            found: found.clone(),
            proofs: proofs.clone(),
            to_decide: to_decide.len(),
            drawn: drawn.len(),
            reports: reports.len(),
        });
        let undo = start.clone().filter(|_| widens);
        let retry = start.filter(|_| linking.is_some());
        // Walls of the closure drawn in beyond the first region's, with their reasons.
        let mut also: Vec<(Point, DrawReason)> = Vec::new();
        // By point: the end a narrower region of this dispute found for the chain there, tried
        // first in the wider one (`search::Region::first_end`).
        let mut first_ends: Vec<Option<End>> = vec![None; n];
        let mut next = Some(near);
        while let Some(Grown { pts, draws, linked }) = next.take() {
            let ko_threats = (!linked.is_empty()).then(|| (colour, u16::try_from(linked.len()).expect("fewer walls than points")));
            last_linked = linked;
            // The walls of the closure on this region's border that it does not draw in.
            let mut border = vec![false; n];
            for &q in &pts {
                for r in board.adjacent(q) {
                    border[gi(r)] = true;
                }
            }
            let outside: Vec<(Point, DrawReason)> = far
                .draws
                .iter()
                .copied()
                .filter(|&(r, _)| {
                    board.chain(r).iter().any(|&s| border[gi(s)]) && !draws.iter().any(|&(q, _)| board.chain_id(q) == board.chain_id(r))
                })
                .collect();
            let mut extra = [false; 2];
            for &(r, _) in &outside {
                extra[board.get(r).expect("a stone").index()] = true;
            }
            // A disputed chain found dead here would lean on the walls of its opponent's colour
            // that the closure would draw in on this region's border (module docs): the wider
            // region is built at once, without searching this one, and tries *dead* first.
            if rely == Rely::Every && undo.is_some() && extra[colour.opponent().index()] {
                for s in board.chain(d) {
                    first_ends[gi(s)] = Some(End::Dead);
                }
                let mut leaning = [false; 2];
                leaning[colour.opponent().index()] = true;
                lean_on(board, &outside, leaning, &mut also);
                next = Some(grow_region(board, d, &wall, &in_u, &keep, false, &also, linking));
                continue;
            }
            for (r, reason) in draws {
                let mut stones = board.chain(r);
                stones.sort();
                for &s in &stones {
                    wall[gi(s)] = false;
                }
                drawn.push(DrawnIn {
                    stones,
                    color: board.get(r).expect("a stone"),
                    agreed: agreed.get(r),
                    by: d,
                    reason,
                    searched: false,
                });
                to_decide.push(r);
            }
            let mut want = vec![false; n];
            for &q in &pts {
                if board.get(q).is_some() && to_decide.iter().any(|&t| board.chain_id(t) == board.chain_id(q)) {
                    want[gi(q)] = true;
                }
            }
            for &q in &pts {
                if want[gi(q)] {
                    searched[gi(q)] = true;
                }
            }
            // A disputed region is searched exhaustively up to `DISPUTE_REGION_FACTOR` times the
            // usual size: its few chains share the budget a whole-board region shares among all.
            let searched_opts =
                Options { max_region_empty: opts.max_region_empty * DISPUTE_REGION_FACTOR.0 / DISPUTE_REGION_FACTOR.1, ..opts.clone() };
            // The disputed chains first, with the region's whole budget; then, with a budget of
            // their own and only when the disputed chains are decided, the chains drawn in
            // (their status is the search's, not the agreement's).
            let first = |q: Point| want[gi(q)] && disputed(q);
            // A disputed chain alone in a region larger than a walled one is tried for *dead*
            // first in its walled region there (module docs, "An invasion walled in").
            let mut walled_dead = false;
            let alone = pts.iter().all(|&q| !first(q) || board.chain_id(q) == board.chain_id(d));
            let empty = pts.iter().filter(|&&q| board.get(q).is_none()).count();
            if mode == Mode::Kiyaku2011 && rely == Rely::Every && alone && empty > WALLED_MAX_EMPTY {
                let o = colour.opponent();
                let stays = |q: Point| board.get(q) == Some(o) && (wall[gi(q)] || ua[o.index()].area.get(gi(q)));
                let inside = |q: Point| pts.binary_search(&q).is_ok();
                let mut stones = board.chain(d);
                stones.sort();
                let is_d = |q: Point| board.chain_id(q) == board.chain_id(d);
                let left = opts.budget_nodes.saturating_sub(spent[gi(d)]).min(DISPUTE_WALLED_NODES);
                let walled_opts = Options { budget_nodes: left, ..searched_opts.clone() };
                let (report, walled) = search_walled(
                    board,
                    mode,
                    &walled_opts,
                    (reports.len(), 0),
                    &inside,
                    &stays,
                    &is_d,
                    safe,
                    settled,
                    &found,
                    &stones,
                    colour,
                    End::Dead,
                );
                spent[gi(d)] += report.nodes;
                progress(&report);
                reports.push(report);
                if let Some(pr) = walled.into_iter().find(|pr| pr.stones == stones && pr.status == Status::Dead) {
                    found.set_chain(board, d, Status::Dead);
                    proofs.push(pr);
                    walled_dead = true;
                }
            }
            let mut solve = |wanted: &dyn Fn(Point) -> bool, budget: u64, found: &mut StatusMap, proofs: &mut Vec<Proof>| -> u64 {
                let index = (reports.len(), 0);
                let first_end = |q: Point| first_ends[gi(q)];
                let report = solve_region(
                    board,
                    pts.clone(),
                    index,
                    mode,
                    &Options { budget_nodes: budget, ..searched_opts.clone() },
                    safe,
                    settled,
                    wanted,
                    &first_end,
                    None,
                    ko_threats,
                    None,
                    found,
                    proofs,
                );
                progress(&report);
                let nodes = report.nodes;
                reports.push(report);
                nodes
            };
            if !walled_dead && pts.iter().any(|&q| first(q)) {
                let left = opts.budget_nodes.saturating_sub(spent[gi(d)]);
                spent[gi(d)] += solve(&first, left, &mut found, &mut proofs);
            }
            // The chains drawn in, by colour (module docs): none when a disputed chain stayed
            // undecided; when every one was found dead, only those of a dead chain's colour.
            // The others keep the agreement unsearched.
            let colour = |q: Point| board.get(q).expect("a stone").index();
            let answers: Vec<(usize, Status)> = pts.iter().filter(|&&q| first(q)).map(|&q| (colour(q), found.get(q))).collect();
            let fate = colours_to_search(&answers);
            for &q in &pts {
                if want[gi(q)] && !disputed(q) && !fate[colour(q)] {
                    searched[gi(q)] = false;
                    kept[gi(q)] = true;
                }
            }
            let then = |q: Point| want[gi(q)] && !disputed(q) && fate[colour(q)];
            if pts.iter().any(|&q| then(q)) {
                solve(&then, opts.budget_nodes, &mut found, &mut proofs);
            }
            // A status found that could lean on a wall of the closure on this region's border:
            // undo, draw those walls in too, and search the wider region; only the last
            // region's answers count.
            let Some(u) = &undo else { break };
            let leaning = leaning_colours(board, &found, &searched_now(board, &searched, &u.searched), rely);
            if !(0..2).any(|i| leaning[i] && extra[i]) {
                break;
            }
            for &q in &pts {
                if searched[gi(q)] {
                    first_ends[gi(q)] = match found.get(q) {
                        Status::Dead => Some(End::Dead),
                        Status::Alive => Some(End::Alive),
                        _ => None,
                    };
                }
            }
            (wall, searched, kept, found, proofs) = (u.wall.clone(), u.searched.clone(), u.kept.clone(), u.found.clone(), u.proofs.clone());
            to_decide.truncate(u.to_decide);
            drawn.truncate(u.drawn);
            reports.truncate(u.reports);
            // Each step draws in at least one more wall of the closure (one of `outside`, none
            // of which this region drew in), so the widening ends, at the closure at most.
            lean_on(board, &outside, leaning, &mut also);
            next = Some(grow_region(board, d, &wall, &in_u, &keep, false, &also, linking));
        }
        if let Some(u) = retry {
            if !last_linked.is_empty() && !linked_answers_hold(board, &found, &searched_now(board, &searched, &u.searched), colour) {
                (wall, searched, kept, found, proofs) = (u.wall, u.searched, u.kept, u.found, u.proofs);
                to_decide.truncate(u.to_decide);
                drawn.truncate(u.drawn);
                reports.truncate(u.reports);
                unlinked[gi(d)] = true;
                k -= 1;
                continue;
            }
        }
        if !last_linked.is_empty() {
            let links: Vec<[Point; 2]> = last_linked.iter().map(|&(_, l)| l).collect();
            for pr in &mut proofs[first_proof..] {
                // A pending ban binds the line's first player if it is the player to move.
                let ban = opts.ko_pending.filter(|_| pr.line.first().is_some_and(|&(c, _)| c == opts.to_move));
                pr.line = with_link_exchanges(board, &pr.line, colour, &links, ban);
            }
        }
        for (r, links) in last_linked {
            let mut stones = board.chain(r);
            stones.sort();
            kept_walls.push(KeptByLinks { stones, color: colour.opponent(), by: d, links });
        }
    }
    let nreports = reports.len();
    for r in &mut reports {
        r.of = nreports;
    }
    proofs.sort_by(|a, b| a.stones[0].cmp(&b.stones[0]));

    // The answer: the agreement, except where disputed or drawn in (第九条).
    let mut status = agreed.clone();
    for &p in &heads {
        if searched[gi(p)] || (disputed(p) && settled[gi(p)]) {
            status.set_chain(board, p, found.get(p));
        } else if disputed(p) && ua[board.get(p).expect("a stone").index()].pa.get(gi(p)) {
            status.set_chain(board, p, Status::Alive);
        }
    }
    if mode == Mode::Kiyaku1989 {
        crate::mark_1989_seki(board, &mut status);
    }
    let mut refuted = Vec::new();
    for &p in &heads {
        let examined = searched[gi(p)] || settled[gi(p)] || ua[board.get(p).expect("a stone").index()].pa.get(gi(p));
        let f = if ua[board.get(p).expect("a stone").index()].pa.get(gi(p)) { Status::Alive } else { found.get(p) };
        let a = agreed.get(p);
        if examined && f != Status::Undecided && a != f {
            let mut stones = board.chain(p);
            stones.sort();
            let line = proofs.iter().find(|pr| pr.stones == stones).map(|pr| pr.line.clone()).unwrap_or_default();
            refuted.push(Refutation { stones, agreed: a, found: f, line });
        }
    }
    // Proof entries only for chains something examined: undisputed agreed chains the
    // whole-board analysis left open are the agreement's, not undecided.
    proofs.retain(|pr| {
        let p = pr.stones[0];
        pr.status != Status::Undecided || searched[gi(p)]
    });
    for di in &mut drawn {
        di.searched = searched[gi(di.stones[0])];
    }
    Adjudication { status, proofs, refuted_agreements: refuted, regions: reports, drawn_in: drawn, kept_by_links: kept_walls }
}

/// The state of [`adjudicate_agreed`] before a region's first search: the walls, the chains
/// searched and those kept unsearched, the statuses and proofs found, and the lengths of the chains to decide, the
/// chains drawn in and the region reports.
#[derive(Clone)]
struct Undo {
    wall: Vec<bool>,
    searched: Vec<bool>,
    kept: Vec<bool>,
    found: StatusMap,
    proofs: Vec<Proof>,
    to_decide: usize,
    drawn: usize,
    reports: usize,
}

/// Which statuses of a dispute's answer the caller relies on, so that they must not lean on
/// a wall the search may not capture (module docs, "Race partners of the region's other chains").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rely {
    /// Every status (the answer of [`adjudicate`](crate::adjudicate)).
    Every,
    /// Only seki ([`find_seki`] takes nothing else from its disputes).
    Seki,
}

/// Which colours' chains drawn into a region are searched (by [`Color::index`]), from the
/// colour and status found of each stone of the region's disputed chains (module docs): none
/// when one stayed undecided; only the dead chains' colours when every one was found dead;
/// both otherwise.
fn colours_to_search(answers: &[(usize, Status)]) -> [bool; 2] {
    if answers.iter().any(|&(_, s)| s == Status::Undecided) {
        return [false; 2];
    }
    if answers.is_empty() || answers.iter().any(|&(_, s)| s != Status::Dead) {
        return [true; 2];
    }
    let mut out = [false; 2];
    for &(c, _) in answers {
        out[c] = true;
    }
    out
}

/// The stones of the chains searched since `before` (`searched` then and now, by board index).
fn searched_now(board: &Board, now: &[bool], before: &[bool]) -> Vec<Point> {
    let w = board.width() as usize;
    (0..now.len()).filter(|&i| now[i] && !before[i]).map(|i| Point::new((i % w) as u8, (i / w) as u8)).collect()
}

/// Adds to `also` (the walls a wider region draws in beyond the first region's) each wall of
/// `outside` (walls of the closure on a region's border) of a colour in `leaning` that is not
/// there yet, as leaned on, with the chain it races.
fn lean_on(board: &Board, outside: &[(Point, DrawReason)], leaning: [bool; 2], also: &mut Vec<(Point, DrawReason)>) {
    for &(r, reason) in outside {
        let c = board.get(r).expect("a stone");
        if leaning[c.index()] && !also.iter().any(|&(q, _)| board.chain_id(q) == board.chain_id(r)) {
            let (DrawReason::CapturingRace { with } | DrawReason::LeanedOn { with }) = reason;
            also.push((r, DrawReason::LeanedOn { with }));
        }
    }
}

/// The colours (by [`Color::index`]) of the walls a status found for one of the chains at
/// `points` (their stones) could rest on staying on the board: an uncapturable wall only
/// helps its own colour, so *dead* leans on the walls of the chain's opponent, *alive* on
/// those of its own colour, *seki* on both (module docs). Only the statuses the caller relies
/// on count (`rely`).
fn leaning_colours(board: &Board, found: &StatusMap, points: &[Point], rely: Rely) -> [bool; 2] {
    let mut out = [false; 2];
    for &p in points {
        let Some(c) = board.get(p) else { continue };
        match found.get(p) {
            Status::Dead if rely == Rely::Every => out[c.opponent().index()] = true,
            Status::Alive if rely == Rely::Every => out[c.index()] = true,
            Status::Seki => out = [true, true],
            _ => {}
        }
    }
    out
}
