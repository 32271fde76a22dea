//! # shinpan-adjudicator — life and death by hypothetical play (想定着手, 第七条)
//!
//! Pure (no I/O, no async); depends only on [`goban`]. Entry point: [`adjudicate`].
//!
//! ## Formalisation (japanese-2011, the default)
//!
//! Sources: 第七条 and its commentary, 第八条 解説, 第九条 (kiyaku-2011-draft-commentary.txt)
//! and the 死活確認例 in `shared/kakunin/`.
//!
//! **What is examined.** Every chain (連: maximal 4-connected set of stones of one colour)
//! is examined on its own: the *examined stones* `S`, of colour `c` (the *owner*); `o`
//! is the opponent. (第七条 解説: "相手方の帰属になるのが一部分の場合でも、その石全体は死に
//! 石とする" — a chain is dead as a whole.)
//!
//! **State of hypothetical play.** `(board, side to move, ko state)` where the ko state
//! is the point the side to move may not play on at once under 第五条 (a single stone
//! that has just captured a single stone may not be retaken at once; a pass or any
//! other move lifts the ban — 第五条 解説 "劫は、他への着手またはパスをした後に取り返
//! せる"). Suicide is never legal (第四条). Passes (第二条2) are always legal and are moves
//! like any other: they lift the ko ban and are part of the line; there is no limit on
//! their number. A position given by setup stones starts with no ko pending; after real
//! moves, [`Options::ko_pending`] carries the 第五条 ban of the player to move.
//!
//! **Who moves first.** The owner of the examined stones (第七条 解説 "検証は対象石側が
//! 先着"). Kakunin 9 shows why it matters: Black's seven stones and White's single stone
//! are *both* alive, because each side, moving first, can secure its own stones
//! ("結論:黒aの手入れは必要").
//!
//! **What a point "becomes".** `U_c`, the *unconditional area* of `c`
//! (module `benson`): the stones of `c`'s pass-alive chains (Benson: `o` cannot capture
//! them even with unlimited consecutive moves) and the regions enclosed by those chains
//! in which every point is adjacent to one of them (there `o` can never make an eye and
//! `c` can capture every `o` stone whenever it likes). A point of `U_o` is
//! 相手方の帰属 (the opponent's stones, or empty points enclosed by them) *for good*;
//! a point of `U_c` can never become `o`'s, "even under the opponent's unlimited
//! consecutive moves" (第七条; 第八条 解説 "最終的に相手方の無制限の連続着手によっても
//! 相手方の帰属にならない").
//!
//! **What ends a line.** After every move (and at the start):
//! * some point of `S` lies in `U_o` → **dead** (the stones, or part of them, became the
//!   opponent's for good; whether they are still on the board does not matter — kakunin 1
//!   取らず三目: Black's four stones and White's one stone are both dead, neither side
//!   gains by capturing);
//! * every point of `S` lies in `U_c` → **alive** (they are pass-alive, or were captured
//!   and their points are now `c`'s unconditional area: 第八条 解説 "一時的に取られる
//!   が、最終的に…活き石");
//! * the state repeats one that occurred earlier in the line → the line ends without
//!   either goal (第七条 解説 "死活検証中、手順が循環する場合はセキ石とする").
//!
//! **Status of a chain.** The owner tries to reach *alive*, the opponent to reach
//! *dead*; both may pass. If the owner, moving first, can force *alive*, the chain is
//! **alive**; else if the opponent can force *dead*, **dead**; otherwise (neither can
//! force its end, e.g. every attempt loses or the play cycles) **seki** (第七条 解説
//! "活き石と死に石以外の石を「セキ石」という"). With a repetition counted as failure for
//! the side trying to force, "can force" is the reachability (attractor) notion of game
//! theory, which does not depend on the path: a forced win never repeats a state (its
//! rank strictly decreases), so the search may store proofs in a transposition table
//! freely and stores a disproof only when it did not rest on a repetition of a state
//! above it in the current path. The search (see "Engine") reproduces kakunin 1
//! (取らず三目: both dead), 2 (seki, no 手入れ needed), 7-1 (bent four in the corner:
//! White dead, Black alive), 9 (both alive: 手入れ needed), 10 (一手ヨセ劫: no 手入れ
//! needed), 12 (万年劫: all seki) and 13 (seki) exactly; kakunin 4 (White's two chains)
//! is left `undecided` within the default budget (never a wrong status) and reproduced
//! exactly with 100,000,000 nodes per region (White's two chains dead: df-pn proofs of
//! about 4,000,000 nodes each, after about 900,000 spent in the capped avoidance search and
//! the proof of the other end — the iterative deepening needed about 29,500,000) — see
//! `tests/kakunin.rs`.
//!
//! **Triple ko, eternal life.** Under the 2011 draft a line that cycles is seki, so a
//! triple ko or 長生 in which neither side can break the cycle leaves the stones at stake
//! seki (第十一条 解説 names both among the cycles). Unit positions (`tests/positions.rs`):
//! triple ko — the side in atari seki under 2011, dead under 1989; 長生 — the group whose eye
//! the cycle takes and gives back seki under 2011, dead under 1989 (the attacker, moving
//! first, plays the nakade point before the thrust-in).
//!
//! ## japanese-1989 (`rules-explained-as-postulates.txt`)
//!
//! * 要請II-\[iii\]: stones are alive if no opponent move can capture them, or if captured
//!   they can give rise to new stones the opponent cannot capture; all other stones are
//!   dead. So the **opponent moves first** (it attacks; "いかなる白の着手を以てしても黒石
//!   を取られる石にできない…"), the owner answers, and the stones are **dead** exactly
//!   when the opponent can force the *dead* end above; otherwise alive (a cycle means the
//!   attacker failed). A group that lives only if it moves first is therefore dead under
//!   1989 and alive under 2011.
//! * 要請II-\[iv\] (ko-pass rule): a ko taken during hypothetical play may be retaken only
//!   after the player has passed once for it; the state carries, per colour, the kos it
//!   may not retake yet. A pass lifts every such ban of the passer (a pass is not
//!   addressed to a particular ko). A triple ko is thereby decided (the side that must
//!   pass to retake loses the race), not left as a cycle.
//! * 要請II-\[v\]: empty regions adjacent only to alive stones of one colour and dead stones
//!   of the other are that colour's eyes; other empty points are 駄目; an alive chain
//!   touching a 駄目 is a **セキ石** and is reported as [`Status::Seki`] (its eyes are not
//!   territory).
//!
//! Other rule sets (chinese, jungo, japanese-jungo) use the 2011 procedure for life and
//! death; their counting differs ([`goban::score()`]).
//!
//! ## Engine
//!
//! 1. Pass-alive chains and unconditional areas of both colours on the whole board. Chains
//!    in their own unconditional area are alive; chains with a stone in the opponent's
//!    are dead (no move can change either).
//! 2. Territories safe under alternating play (module `safety`: a local game per
//!    territory of at most 12 empty points, and couples of miai eye spots — one move
//!    encloses a small eye — in larger ones, combined as in Benson's algorithm over blocks
//!    of chains joined by miai connections): the chains around them are **alive** and the
//!    opponent's stones inside the safe territories **dead**, exactly, under both rule sets.
//! 3. The other points split into *regions*: connected components of the points outside
//!    both unconditional areas. Every point next to a region holds a pass-alive stone,
//!    which nothing can capture, so regions are independent: hypothetical play for a
//!    chain only plays inside its region (a move elsewhere would be, for this region, a
//!    pass), and the end conditions are computed on the region alone. (Territories that are
//!    only *safe* are not used as walls: the attacker could play forcing moves in them.)
//! 4. Each chain of a region not settled by step 2 is decided in three steps, within a node budget per region
//!    ([`Options::budget_nodes`], default 2 000 000; each chain takes an equal share of what
//!    is left, and a second pass shares what the region still has left — at least 1,000
//!    nodes each — among the chains that ran out of theirs, the region's caches kept):
//!    1. quick depth-first proofs of either end (iterative deepening, transposition table
//!       of proofs; a proof is a forced win and exact whatever the path; an iteration in
//!       which no line reached the depth bound and no new proof was stored ends the
//!       deepening, as a deeper one would search the same tree again) — first with
//!       step 2's territory proofs, recomputed on the position reached, as ends too (the
//!       chain in a territory the opponent's proof holds: dead; the chain kept alive by its
//!       owner's proof: alive; each proof is a strategy that forces the Benson end whoever
//!       moves next, so taking it as an end only shortens the lines), within
//!       2 000 nodes per end, local games included, on boards up to 13x13 (each of their
//!       nodes recomputes the whole board's proofs); then with Benson's ends alone;
//!    2. the exact answer, with a third of what is left (a half under 1989, where it is the
//!       only way to *alive*): an *avoidance* search for each end
//!       (can the side that does not want it keep the play out of it for ever?). Reaching
//!       an end is a reachability game, which is determined, so "the opponent cannot keep
//!       the play out of *alive*" is exactly "the owner forces *alive*". The search keeps
//!       every state of the current line as provisionally safe (returning to it is a
//!       cycle, 第七条 解説 循環, which the avoiding side may keep up), caches unsafe states
//!       for good (exact) and withdraws provisional safe states when a state above them
//!       fails; a safe root comes with a closed set of states — a trap — as certificate.
//!       Each new state is first offered to a quick proof for either side. Both ends
//!       avoidable → **seki**; under 1989 only the attacker's end is asked;
//!    3. if step 2 ran out of budget, deeper proofs of the ends it did not exclude.
//!
//!    With at least 1,000,000 nodes (`DFPN_FROM`) left for a chain (kakunin budgets, not the
//!    service's default), step 2 first runs capped at 250,000 nodes, then df-pn proofs
//!    (`search::Prover::prove_dfpn`, a quarter of what is left per end) of the ends it did
//!    not exclude, then step 2 in full and step 3 with df-pn: the lines of 40 moves of
//!    kakunin 4 are out of the deepening's reach but not of df-pn's (kakunin 4 in 25 s
//!    instead of 150 s).
//!
//!    Moves inside either side's unconditional area are not generated: they change
//!    nothing outside that area and count, for the region, like a pass (as moves outside
//!    the region do; in the local games of step 2 only the defender's area is left out —
//!    computing the attacker's, almost always empty there, cost more than its moves).
//!    Out of budget → [`Status::Undecided`], never a guess. Regions with
//!    more than [`Options::max_region_empty`] empty points (default 40) are not searched
//!    exhaustively: each of their chains gets only *short proofs* (see `short_proof`), and
//!    in regions of at most twice that many empty points, when those fail, the quick proofs
//!    of step 4.1 with at most 300 nodes per end.
//!    A one-move proof by the side that moves first — under the 2011 draft its owner
//!    (第七条 解説): a move on one of its liberties or next to one after which the whole
//!    chain is in the owner's unconditional area (it connects to a pass-alive chain, or
//!    makes its second eye), or after which it is joined to a chain kept alive by step 2's
//!    territories (on a point none of their proofs uses: the owner then follows their
//!    strategy), proves it alive; under 1989 the opponent (要請II-\[iii\]): such a move
//!    after which a point of the chain is in the opponent's unconditional area proves it
//!    dead. A forced win in one move is exact whatever else the region holds. Also an
//!    answer of the owner to every move of the opponent that gives the chain such a life
//!    (a miai, 見合い, of non-capturing one-move lives — making it pass-alive, or joining
//!    it to a chain step 2 keeps alive when neither move is on a point its proofs use —
//!    or any life tried on the board)
//!    proves it alive: under 1989 at once (the opponent moves first), under 2011 after one
//!    move of the owner. Without such a proof the chain is undecided. The
//!    unconditional areas are computed per colour when first needed, cached per position
//!    and shared by all chains of the region; a quick necessary test (two candidate
//!    healthy regions, or room to be interior) skips most of them.
//! 5. Agreement first (第九条): with agreed statuses ([`Options::agreed`]) only the
//!    disputed chains are searched, with the agreement as the context of hypothetical play
//!    (module `dispute`: agreed-alive chains are walls, agreed-dead stones stay on the board,
//!    agreed chains a disputed one depends on are drawn in — [`DrawnIn`] — and a region
//!    enclosed by the opponent alone in which every point has two links to its stones is
//!    dead statically); agreed statuses stand for every other chain, and every agreement
//!    that steps 1–2 (which assume nothing) prove wrong is reported.
//!
//! ## Limits (known)
//!
//! The end conditions are Benson's, and the territory proof of step 2 covers territories of
//! at most 12 empty points (larger local games do not finish within their budget) and, in
//! larger ones, only eyes that one move encloses (miai couples): a group whose eyes are
//! larger territories is otherwise neither pass-alive nor proved safe, so in a real final
//! position most groups and their territories form one large region that the exact search
//! cannot settle; they come out `undecided` (an arbiter or the players' agreement, 第九条,
//! must rule). On the 153 real games of `shared/games`, 16,536 of 29,084 stones are
//! decided with 20 000 nodes per region (16,530 before a join to a kept-alive chain
//! answered in the miai step of the short proofs; 16,520 while the avoidance searches took half of a
//! chain's budget instead of a third; 16,433 while the deepening of a failed proof went
//! on to its last depth bound; 16,435 while the local games also left out the
//! attacker's unconditional area, at 9% more time on 19x19; 16,379 before the quick proofs in regions of up to
//! 80 empty points, 16,371 before the second pass of step 4, 16,328
//! before safe territories ended the lines of the first quick proofs of a chain; 16,196 with 3,000 instead of 10,000 nodes per local
//! game, 12,625 before the 2011 short proof "a move, then
//! every opponent move answered by a life", 7,044 before the one-move proofs of life in large regions, 6,223 before
//! the miai couples and connections), none wrongly; Benson and
//! the region search alone decided 3,754 (with 1 000 nodes; 5,125 later). Searching large
//! regions with the full machinery instead (quick proofs, avoidance search) decided 12,461
//! at four to five times the time (bench p50 73.9 ms against 16.7 ms). Tried and left out:
//! local games of 16-24 points (about 5% more stones at 2.5-6 times the time), and a
//! relaxed local game for territories of up to 80 points whose goal is only the boundary
//! chains' life (9 of 49 such games won at 20 000 nodes: 97 more stones, but the bench p50
//! rose to 25.7 ms, measured beside another job, against 16.4 ms).

mod benson;
mod dispute;
mod halt;
mod safety;
mod scope;
mod search;

pub use dispute::{find_seki, DrawReason, DrawnIn};
pub use halt::{Stop, StopReason};

pub use goban::{Board, Color, Move, Point, RuleSet, Status, StatusMap};

use benson::{unconditional, Scope, NONE};
use search::{forced, ordered_moves, End, Mode, Prover, Region, State, Trap};

/// Options of an adjudication.
#[derive(Clone, Debug)]
pub struct Options {
    /// Nodes of hypothetical play searched per region at most; a region not decided within
    /// it leaves its chains [`Status::Undecided`].
    pub budget_nodes: u64,
    /// Statuses the players agreed on (第九条), by point; `None` = no agreement given.
    pub agreed: Option<StatusMap>,
    /// Points whose chains the players dispute: adjudicated even when `agreed` is given.
    pub dispute: Vec<Point>,
    /// The point the player to move may not play on at once (第五条), if a ko was just
    /// taken in the record.
    pub ko_pending: Option<Point>,
    /// The player to move in the record's final position.
    pub to_move: Color,
    /// Regions with more empty points than this are not searched: their chains are
    /// [`Status::Undecided`] at once (an exhaustive search there cannot finish within any
    /// practical budget; see the crate documentation).
    pub max_region_empty: usize,
    /// Whether territories are proved safe under alternating play before the region search
    /// (crate docs, step 2). On by default; off only to cross-check the two methods.
    pub safe_territories: bool,
    /// Whether the chains of regions above `max_region_empty` get short proofs (one move of
    /// the side that moves first, or a miai; crate docs, Engine step 4). On by default; off
    /// only to test the other steps alone.
    pub one_move_proofs: bool,
    /// A cancellation flag: once another thread sets it ([`Stop::stop`]), the search stops
    /// within about a thousand nodes and leaves every chain it has not decided
    /// [`Status::Undecided`] ([`Undecided::Stopped`], [`StopReason::Cancelled`]). `None`: the
    /// search cannot be cancelled.
    pub stop: Option<Stop>,
    /// The instant the search stops at (checked as `stop` is): the chains not decided by then
    /// are undecided ([`StopReason::TimeBudget`]). `None`: only the node budget bounds it.
    pub deadline: Option<std::time::Instant>,
    /// Bytes the search's tables of one region (cached unconditional areas and territory
    /// proofs by position, and the proof, disproof and avoidance tables, estimated from
    /// their entries, see `search::Region::table_bytes`) may take at most; reached, the
    /// search stops and its undecided chains say so ([`StopReason::MemoryCap`]). Default
    /// [`DEFAULT_MAX_MEMORY_BYTES`]; `u64::MAX`: no cap.
    pub max_memory_bytes: u64,
}

/// Default of [`Options::max_memory_bytes`]: 1 GiB, enough for every 死活確認例 (kakunin 4,
/// the largest, needs about 860 MiB by the estimate).
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 1 << 30;

impl Default for Options {
    fn default() -> Options {
        Options {
            budget_nodes: 2_000_000,
            agreed: None,
            dispute: Vec::new(),
            ko_pending: None,
            to_move: Color::Black,
            max_region_empty: 40,
            safe_territories: true,
            one_move_proofs: true,
            stop: None,
            deadline: None,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
        }
    }
}

/// Why a chain has its status: the chain, its status and a line of hypothetical play that
/// demonstrates it.
#[derive(Clone, Debug, PartialEq)]
pub struct Proof {
    /// The stones of the chain, sorted.
    pub stones: Vec<Point>,
    /// Their colour.
    pub color: Color,
    /// The status found.
    pub status: Status,
    /// The line (moves and passes) that shows it: the forcing side's moves against the
    /// longest resistance; for seki, the moves each side uses to hold until the play
    /// cycles; for a chain alive under 1989 because the attacker cannot force its death,
    /// the attacker's most promising try and the owner's answers (the avoidance search is
    /// the proof). For a chain decided by a safe territory (crate docs, step 2), the winning
    /// line of that territory's local game, the attacker moving first. For a short proof in
    /// a large region (crate docs, Engine step 4): the winning move, or (miai) the first
    /// player's pass and the answer. Empty when the status holds at the start (e.g. stones
    /// inside the opponent's pass-alive eye, or a miai connection to a chain kept alive by
    /// the territory proofs) or was forced by the avoidance search with no proof line found
    /// in the budget left.
    pub line: Vec<(Color, Move)>,
    /// Nodes searched for this chain.
    pub nodes: u64,
    /// Why the status is [`Status::Undecided`] (`None` for every other status).
    pub undecided: Option<Undecided>,
}

/// Why a chain is [`Status::Undecided`]: what an arbiter needs to know before ruling, and
/// whether a larger budget could help. Shown as text by its `Display` implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// Its region (crate docs, Engine step 3) has `empty` empty points, more than
    /// [`Options::max_region_empty`] (`max`): hypothetical play there was not searched
    /// exhaustively (no budget would finish it), and no short proof was found (Engine
    /// step 4). A larger budget does not help.
    RegionTooLarge {
        /// Empty points of the region.
        empty: usize,
        /// The largest region searched.
        max: usize,
    },
    /// The search spent its share of the region's budget, `nodes` nodes, without proving
    /// either end or seki ([`Options::budget_nodes`]); a larger budget may decide it.
    Budget {
        /// Nodes spent on this chain.
        nodes: u64,
    },
    /// The search stopped before it was decided, for `reason` (cancelled, time budget, memory
    /// cap: [`Options::stop`], [`Options::deadline`], [`Options::max_memory_bytes`]), after
    /// `nodes` nodes on this chain. Asking again with more time or memory may decide it.
    Stopped {
        /// Why the search stopped.
        reason: StopReason,
        /// Nodes spent on this chain.
        nodes: u64,
    },
    /// japanese-1989 only: the chain is alive, but whether it is a セキ石 (要請II-\[v\]) depends
    /// on undecided stones next to one of its empty regions (an eye or a 駄目).
    SekiDependsOnUndecided,
}

impl std::fmt::Display for Undecided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undecided::RegionTooLarge { empty, max } => {
                write!(f, "region of {empty} empty points, more than the {max} searched exhaustively, and no short proof (a move, or a miai; 第七条)")
            }
            Undecided::Budget { nodes } => write!(f, "no proof within {nodes} nodes (budget exhausted)"),
            Undecided::Stopped { reason, nodes } => write!(f, "search stopped after {nodes} nodes: {reason}"),
            Undecided::SekiDependsOnUndecided => {
                f.write_str("alive, but セキ石 or not (要請II-[v]) depends on undecided stones next to its empty points")
            }
        }
    }
}

impl Proof {
    /// The line as text: `"B dc"`, `"W pass"` (SGF coordinates).
    pub fn line_text(&self) -> Vec<String> {
        self.line.iter().map(|(c, m)| format!("{} {}", c.letter(), m)).collect()
    }
}

/// An agreed status (第九条) the adjudication refutes.
#[derive(Clone, Debug, PartialEq)]
pub struct Refutation {
    /// The chain, sorted.
    pub stones: Vec<Point>,
    /// What the players agreed.
    pub agreed: Status,
    /// What hypothetical play shows.
    pub found: Status,
    /// The demonstrating line.
    pub line: Vec<(Color, Move)>,
}

/// One independent region: its points, chains and search effort.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionReport {
    /// Index of the region (0-based, in board order of its first point).
    pub index: usize,
    /// Number of regions in this adjudication.
    pub of: usize,
    /// The points of the region, sorted.
    pub points: Vec<Point>,
    /// One representative stone per chain examined.
    pub chains: Vec<Point>,
    /// Nodes searched in the region.
    pub nodes: u64,
    /// Whether every chain of the region got a status other than undecided.
    pub decided: bool,
}

/// The result of [`adjudicate`].
#[derive(Clone, Debug)]
pub struct Adjudication {
    /// The status of every stone (agreed statuses where not disputed).
    pub status: StatusMap,
    /// One proof per chain that is not pass-alive, in board order.
    pub proofs: Vec<Proof>,
    /// Agreed statuses shown wrong by hypothetical play.
    pub refuted_agreements: Vec<Refutation>,
    /// The regions searched.
    pub regions: Vec<RegionReport>,
    /// With an agreement: the agreed chains drawn into the dispute (module `dispute`), each
    /// searched with the disputed chains; empty otherwise.
    pub drawn_in: Vec<DrawnIn>,
}

impl Adjudication {
    /// Whether some stone is [`Status::Undecided`].
    pub fn undecided(&self, board: &Board) -> bool {
        board.points().any(|p| board.get(p).is_some() && self.status.get(p) == Status::Undecided)
    }
}

/// Adjudicates every chain of `board` under `rules` (see the crate documentation).
pub fn adjudicate(board: &Board, rules: RuleSet, opts: &Options) -> Adjudication {
    adjudicate_with_progress(board, rules, opts, &mut |_| {})
}

/// As [`adjudicate`], calling `progress` after each region is solved (for streaming).
pub fn adjudicate_with_progress(board: &Board, rules: RuleSet, opts: &Options, progress: &mut dyn FnMut(&RegionReport)) -> Adjudication {
    let mode = if rules == RuleSet::Japanese1989 { Mode::Kiyaku1989 } else { Mode::Kiyaku2011 };
    safety::forget_local_games();
    let whole = Scope::whole(board);
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let cells = whole.cells(board);
    let ua = [unconditional(&cells, Color::Black, &whole), unconditional(&cells, Color::White, &whole)];
    let in_u = |c: Color, p: Point| ua[c.index()].area.get(gi(p));

    let mut found = StatusMap::new(board);
    let mut proofs: Vec<Proof> = Vec::new();
    let mut seen = vec![false; w * board.height() as usize];
    let mut settled = vec![false; w * board.height() as usize];

    // Chains settled by the whole-board analysis.
    for p in board.points() {
        let Some(c) = board.get(p) else { continue };
        if seen[gi(p)] {
            continue;
        }
        let mut stones = board.chain(p);
        stones.sort();
        for &s in &stones {
            seen[gi(s)] = true;
        }
        if ua[c.index()].pa.get(gi(p)) {
            continue; // pass-alive: alive, no proof needed
        }
        if stones.iter().any(|&s| in_u(c.opponent(), s)) {
            found.set_chain(board, p, Status::Dead);
            proofs.push(Proof { stones, color: c, status: Status::Dead, line: Vec::new(), nodes: 0, undecided: None });
            settled[gi(p)] = true;
        } else if stones.iter().all(|&s| in_u(c, s)) {
            // Inside its own colour's unconditional area (an interior point of it): alive.
            found.set_chain(board, p, Status::Alive);
            proofs.push(Proof { stones, color: c, status: Status::Alive, line: Vec::new(), nodes: 0, undecided: None });
            settled[gi(p)] = true;
        }
    }

    // Territories safe under alternating play (module `safety`): the chains around them
    // are alive, the opponent's stones inside them dead.
    let safe = [Color::Black, Color::White].map(|c| {
        if opts.safe_territories {
            safety::safe_territories(board, c, mode, opts.budget_nodes)
        } else {
            safety::Safety::none(board)
        }
    });
    let mut seen = vec![false; w * board.height() as usize];
    for p in board.points() {
        let Some(c) = board.get(p) else { continue };
        if seen[gi(p)] || ua[c.index()].pa.get(gi(p)) || settled[gi(p)] {
            continue;
        }
        let mut stones = board.chain(p);
        stones.sort();
        for &s in &stones {
            seen[gi(s)] = true;
        }
        let status = if safe[c.index()].alive[gi(p)] {
            Status::Alive
        } else if stones.iter().any(|&s| safe[c.opponent().index()].area[gi(s)]) {
            Status::Dead
        } else {
            continue;
        };
        // The line: the local game of the territory the chain stands in (dead) or of one it
        // borders (alive).
        let owner = if status == Status::Alive { c } else { c.opponent() };
        let sf = &safe[owner.index()];
        let line = sf
            .proofs
            .iter()
            .find(|(pts, _)| {
                pts.iter().any(|&q| stones.contains(&q) || (status == Status::Alive && board.adjacent(q).any(|r| stones.contains(&r))))
            })
            .map(|(_, l)| l.clone())
            .unwrap_or_default();
        found.set_chain(board, p, status);
        for &s in &stones {
            settled[gi(s)] = true;
        }
        proofs.push(Proof { stones, color: c, status, line, nodes: sf.nodes, undecided: None });
    }

    if let Some(agreed) = &opts.agreed {
        return dispute::adjudicate_agreed(board, mode, opts, agreed, &ua, &safe, &settled, found, proofs, progress);
    }

    // Regions.
    let n = w * board.height() as usize;
    let mut reg_of = vec![NONE; n];
    let mut regions: Vec<Vec<Point>> = Vec::new();
    for p in board.points() {
        if reg_of[gi(p)] != NONE || in_u(Color::Black, p) || in_u(Color::White, p) {
            continue;
        }
        let id = regions.len() as u32;
        let mut pts = vec![p];
        reg_of[gi(p)] = id;
        let mut k = 0;
        while k < pts.len() {
            let q = pts[k];
            k += 1;
            for r in board.adjacent(q) {
                if reg_of[gi(r)] == NONE && !in_u(Color::Black, r) && !in_u(Color::White, r) {
                    reg_of[gi(r)] = id;
                    pts.push(r);
                }
            }
        }
        pts.sort();
        regions.push(pts);
    }

    let mut reports = Vec::new();
    let nregions = regions.len();
    for (ri, pts) in regions.into_iter().enumerate() {
        let report = solve_region(board, pts, (ri, nregions), mode, opts, &safe, &settled, &|_| true, &mut found, &mut proofs);
        progress(&report);
        reports.push(report);
    }

    if mode == Mode::Kiyaku1989 {
        mark_1989_seki(board, &mut found);
        for pr in proofs.iter_mut() {
            pr.status = found.get(pr.stones[0]);
            if pr.status == Status::Undecided && pr.undecided.is_none() {
                pr.undecided = Some(Undecided::SekiDependsOnUndecided);
            }
        }
    }
    proofs.sort_by(|a, b| a.stones[0].cmp(&b.stones[0]));

    Adjudication { status: found, proofs, refuted_agreements: Vec::new(), regions: reports, drawn_in: Vec::new() }
}

/// Decides the chains of one region (`pts`, sorted; `index` = (its index, the number of
/// regions)) for which `wanted` holds of a stone, within [`Options::budget_nodes`]: each such
/// chain not already `settled` gets an equal share of what the region has left, and a
/// second pass shares what is still left among those that ran out of theirs. Statuses go
/// into `found`, one [`Proof`] per chain into `proofs`.
#[allow(clippy::too_many_arguments)]
fn solve_region(
    board: &Board,
    pts: Vec<Point>,
    index: (usize, usize),
    mode: Mode,
    opts: &Options,
    safe: &[safety::Safety; 2],
    settled: &[bool],
    wanted: &dyn Fn(Point) -> bool,
    found: &mut StatusMap,
    proofs: &mut Vec<Proof>,
) -> RegionReport {
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let scope = Scope::new(board, pts.clone());
    let mut region = Region::new(scope, mode, opts.budget_nodes);
    region.halt = halt::Halt::of(opts);
    if opts.safe_territories && board.width() as usize * board.height() as usize <= SAFE_END_MAX_BOARD {
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
    let too_big = empty > opts.max_region_empty;
    // The local indices of each chain with a proof entry of this region (for the retry).
    let mut chain_locals: Vec<Vec<usize>> = Vec::new();
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
        let before = region.nodes;
        // Each chain may use an equal share of what the region has left (a hard chain
        // does not starve the others); the region's total stays within the budget.
        let share = opts.budget_nodes.saturating_sub(before) / left.max(1);
        left = left.saturating_sub(1);
        region.budget = before + share;
        let (status, line) = if !too_big {
            decide(&mut region, board, &locals, c, opts)
        } else if let Some(found) = opts.one_move_proofs.then(|| short_proof(&mut region, board, &locals, c, opts, safe)).flatten() {
            found
        } else if opts.one_move_proofs && empty <= 2 * opts.max_region_empty {
            quick_proofs(&mut region, board, &locals, c, opts)
        } else {
            (Status::Undecided, Vec::new())
        };
        region.nodes = region.nodes.min(region.budget);
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
        let (status, line) = decide(&mut region, board, &chain_locals[k - first_proof], c, opts);
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

/// In a region too large for the exhaustive search (more than [`Options::max_region_empty`]
/// empty points): short proofs for the chain (local indices `stones`, colour `c`). The side
/// that moves first in hypothetical play is `F` — the owner under the 2011 draft (第七条
/// 解説), the opponent under 1989 (要請II-\[iii\]); `F`'s end is *alive* under 2011 (every
/// stone of the chain in `U_c`), *dead* under 1989 (a point of the chain in `U_o`); the
/// other side `G` wants the other end.
///
/// 1. **One move**: a move of `F` after which its end holds proves it; under 2011 also an
///    owner's move that joins the chain to a chain the territory proofs keep alive (on a
///    point none of those proofs relies on — see `kept_alive` below); and before any move, a
///    miai connection (two shared free points) to such a chain.
/// 2. **Every move answered** (見合い and more; under 1989 only — see the measurement in
///    the code): `G` has a move `w` that, played at once without capturing anything,
///    reaches `G`'s end (the answer to a pass), and for each move `r` of `F` (any legal
///    move in the region; one inside an unconditional area counts as a pass) `G` has an
///    answer after which the end holds: another such `w ≠ r`, when neither captures at
///    once, else tried; or any move near the chain after `r`, tried. Why a non-capturing
///    answer still reaches the end untried: if neither `r` nor `w` captures anything, the
///    board after `r, w` is the board after `w` plus `F`'s stone at `r`, and a stone of the
///    opponent added without captures never takes a point out of an unconditional area
///    (pass-alive chains stay pass-alive — their healthy regions only lose empty points; an
///    enclosed area keeps its interior). So the end, which held after `w`, holds after
///    `r, w`. Every other answer is checked on the board: the two plies are searched in
///    full.
/// 3. **A move, then every move answered** (2011 only): an owner's move `m` after which
///    step 2 holds with the opponent to move. The owner, moving first (第七条 解説), plays
///    `m` and then answers as in step 2: alive. Line: `m`, the opponent's pass, the owner's
///    answer to it.
///
/// Only moves on a liberty of the chain or next to one are tried as winning moves (a proof
/// needs one winning move; trying fewer loses no exactness), but every move of `F` is
/// answered in the miai step. Each move played counts one node of the region's budget.
/// Returns the status and a line (`F`'s winning move, or `F` passing and `G` answering),
/// or `None`.
fn short_proof(
    region: &mut Region,
    board: &Board,
    stones: &[usize],
    c: Color,
    opts: &Options,
    safe: &[safety::Safety; 2],
) -> Option<(Status, Vec<(Color, Move)>)> {
    let cells = region.scope.cells(board);
    let w = board.width() as usize;
    let (first, first_end) = match region.mode {
        Mode::Kiyaku2011 => (c, End::Alive),
        Mode::Kiyaku1989 => (c.opponent(), End::Dead),
    };
    let second = first.opponent();
    let second_end = if first_end == End::Alive { End::Dead } else { End::Alive };
    let status_of = |e: End| if e == End::Alive { Status::Alive } else { Status::Dead };
    let mut root = State { cells, to_move: first, ko: NONE, bans: [Vec::new(), Vec::new()] };
    if let Some(q) = opts.ko_pending.filter(|_| opts.to_move == first) {
        // The 第五条 ban of the player to move in the record (1989: a ko just taken may not
        // be retaken before a pass, which a short proof never makes): not tried by `F`.
        root.ko = region.scope.local_of(q);
    }
    let reached = |region: &mut Region, cells: &[u8], e: End| match e {
        End::Alive => region.holds_all(cells, c, stones),
        End::Dead => stones.iter().any(|&s| region.area(cells, c.opponent()).get(s)),
    };
    // 2011: after the owner's move `m`, the chain holds a stone of a chain that the territory
    // proofs (module `safety`) keep alive, and `m` is on no point those proofs rely on: the
    // owner then follows their strategy, which keeps that chain — now joined to ours — from
    // capture and ends with it pass-alive (its credited regions are still healthy for the
    // larger chain), so every stone of ours ends in `U_c`: alive.
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    //
    // Also when the chain shares two free points with such a chain (a miai connection, as in
    // module `safety`: when the opponent takes one, the owner takes the other), both points
    // on no point those proofs rely on.
    // Whether local point `l` is one the owner's territory proofs rely on.
    let used = |region: &Region, l: u32| safe[c.index()].used[gi(region.scope.points[l as usize])];
    let kept_alive = |region: &Region, cells: &[u8], m: Option<u32>| -> bool {
        let sf = &safe[c.index()];
        if m.is_some_and(|m| used(region, m)) {
            return false;
        }
        let me = cells[stones[0]];
        if me != benson::cell(c) {
            return false; // captured: nothing to join
        }
        let mut seen = vec![false; cells.len()];
        let mut todo = vec![stones[0] as u32];
        let mut members: Vec<u32> = Vec::new();
        seen[stones[0]] = true;
        while let Some(l) = todo.pop() {
            if sf.alive[gi(region.scope.points[l as usize])] {
                return true;
            }
            members.push(l);
            for &g in &region.scope.nbrs[l as usize] {
                if g != NONE && g < benson::OUT && !seen[g as usize] && cells[g as usize] == me {
                    seen[g as usize] = true;
                    todo.push(g);
                }
            }
        }
        // Free points next to the chain and to a kept-alive chain (by its head on the board).
        let mut links: Vec<(Point, u32)> = Vec::new();
        for &l in &members {
            for &p in &region.scope.nbrs[l as usize] {
                if p == NONE || p >= benson::OUT || cells[p as usize] != benson::EMPTY || used(region, p) {
                    continue;
                }
                for &q in &region.scope.nbrs[p as usize] {
                    if q == NONE || q >= benson::OUT || cells[q as usize] != me || seen[q as usize] {
                        continue;
                    }
                    let qp = region.scope.points[q as usize];
                    if sf.alive[gi(qp)] {
                        let head = board.chain_id(qp).unwrap_or(qp);
                        if !links.contains(&(head, p)) {
                            links.push((head, p));
                        }
                    }
                }
            }
        }
        links.iter().any(|&(h, p)| links.iter().any(|&(h2, p2)| h2 == h && p2 != p))
    };
    // For the miai step: the owner's life by joining a chain the territory proofs keep alive
    // (as above), and whether a local point is one those proofs rely on.
    let kept = Kept { alive: &kept_alive, used: &used };
    // Liberties of the chain, then the empty points next to them.
    let cand = near_chain(&region.scope, &root.cells, stones[0]);
    let playable = region.playable(&root.cells);
    // 0. Already kept alive through a miai connection to a chain of the territory proofs.
    if kept_alive(region, &root.cells, None) {
        return Some((Status::Alive, Vec::new()));
    }
    // 1. One move of F (the positions after them are kept for step 3).
    let mut after_first: Vec<(u32, State)> = Vec::new();
    for &m in &cand {
        if !playable[m as usize] || m == root.ko {
            continue;
        }
        if region.nodes >= region.budget {
            return None;
        }
        region.nodes += 1;
        let Some(child) = region.play(&root, Some(m)) else { continue };
        if reached(region, &child.cells, first_end) || (first_end == End::Alive && kept_alive(region, &child.cells, Some(m))) {
            return Some((status_of(first_end), vec![(first, Move::Play(region.scope.points[m as usize]))]));
        }
        after_first.push((m, child));
    }
    // 2. Every move of F answered by G — under 1989 only: under 2011 (G the attacker) the
    //    miai of kills decided 6 more stones of the real games at +45% time (bench p50
    //    16.7 -> 24.2 ms); under 1989 (G the owner) the miai of lives 1,092 more.
    if region.mode == Mode::Kiyaku1989 {
        let root_f = State { ko: NONE, ..root.clone() };
        let w = miai(region, &root_f, second, stones, &cand, &kept)?;
        return Some((status_of(second_end), vec![(first, Move::Pass), (second, Move::Play(region.scope.points[w as usize]))]));
    }
    // 3. 2011: one move of the owner after which step 2 holds for the owner with the
    //    opponent to move: owner m, then whatever the opponent does, the owner lives.
    for (m, child) in after_first {
        // The chain now (m may have joined it to others): its liberties and their neighbours.
        let cand2 = near_chain(&region.scope, &child.cells, stones[0]);
        let after_m = State { ko: NONE, ..child };
        if let Some(w) = miai(region, &after_m, c, stones, &cand2, &kept) {
            let pt = |l: u32| Move::Play(region.scope.points[l as usize]);
            return Some((Status::Alive, vec![(c, pt(m)), (c.opponent(), Move::Pass), (c, pt(w))]));
        }
    }
    None
}

/// The empty points on a liberty of the chain holding local point `s` in `cells`, then the
/// empty points next to those (none if `s` is empty).
fn near_chain(sc: &Scope, cells: &[u8], s: usize) -> Vec<u32> {
    let me = cells[s];
    if me == benson::EMPTY {
        return Vec::new();
    }
    let mut members: Vec<u32> = vec![s as u32];
    let mut libs: Vec<u32> = Vec::new();
    let mut k = 0;
    while k < members.len() {
        let l = members[k] as usize;
        k += 1;
        for &g in &sc.nbrs[l] {
            if g == NONE || g >= benson::OUT {
                continue;
            }
            if cells[g as usize] == benson::EMPTY && !libs.contains(&g) {
                libs.push(g);
            } else if cells[g as usize] == me && !members.contains(&g) {
                members.push(g);
            }
        }
    }
    let mut out = libs.clone();
    for &lib in &libs {
        for &g in &sc.nbrs[lib as usize] {
            if g != NONE && g < benson::OUT && cells[g as usize] == benson::EMPTY && !out.contains(&g) {
                out.push(g);
            }
        }
    }
    out
}

/// `alive(region, cells, m)` of [`Kept`].
type KeptAlive<'a> = &'a dyn Fn(&Region, &[u8], Option<u32>) -> bool;

/// The owner's other kind of life in [`miai`]: `alive(region, cells, m)` — after the owner's
/// move `m` the chain is joined (or connected by a miai of two free points) to a chain the
/// territory proofs of module `safety` keep alive, `m` on no point they rely on — and
/// `used(region, l)`: local point `l` is one they rely on.
struct Kept<'a> {
    alive: KeptAlive<'a>,
    used: &'a dyn Fn(&Region, u32) -> bool,
}

/// The miai step of [`short_proof`]: in `root` (the side `F` to move, no ko ban — every move
/// of `F` is answered, even a barred retake), the owner `g` of the chain `stones` (local
/// indices) has a non-capturing move among `cand` that puts every stone of the chain in
/// `U_g` when played at once (the answer to a pass, or to a move in an unconditional area,
/// which counts as one), and every move `r` of `F` in the region is answered: by another
/// such move (at once when neither captures, see `short_proof`; else by trying it) or by
/// any move near the chain after `r` that puts it in `U_g` (tried). A move that joins the
/// chain to one the territory proofs keep alive (`kept`, as in step 1 of `short_proof`)
/// counts as such a life too — as a winning move, and as an answer to an `r` on no point
/// those proofs rely on (an `r` on one must be answered by their strategy itself), always
/// checked on the position after `r` (a quiet `r` may take a point of a miai connection).
/// The owner then follows their strategy, which ends with the joined chain pass-alive
/// (module `safety`). Measured on the 153 real final positions at 20,000 nodes per region:
/// 5,899 -> 6,009 stones decided under 1989, 16,530 -> 16,536 under 2011 (500,000
/// nodes: 16,808 -> 16,814), none against the players' marks. A direct check of the two
/// plies, so exact. Returns the first winning move of `g`, or `None` (also when the
/// region's budget runs out). Each move played counts one node.
fn miai(region: &mut Region, root: &State, g: Color, stones: &[usize], cand: &[u32], kept: &Kept) -> Option<u32> {
    let stones_on = |cells: &[u8]| cells.iter().filter(|&&v| v != benson::EMPTY).count();
    let reached = |region: &mut Region, cells: &[u8]| region.holds_all(cells, g, stones);
    let on_root = stones_on(&root.cells);
    let root_g = State { to_move: g, ko: NONE, ..root.clone() };
    // G's non-capturing winning moves (the quick test first). A winning move may lie in an
    // unconditional area: it is a real move all the same. `by_join[i]`: `wins[i]` wins only by
    // joining a chain the territory proofs keep alive (not pass-alive at once).
    let mut wins: Vec<u32> = Vec::new();
    let mut by_join: Vec<bool> = Vec::new();
    for &m in cand {
        if region.nodes >= region.budget {
            return None;
        }
        region.nodes += 1;
        let Some(child) = region.play(&root_g, Some(m)) else { continue };
        if stones_on(&child.cells) == on_root + 1 {
            if reached(region, &child.cells) {
                wins.push(m);
                by_join.push(false);
            } else if (kept.alive)(region, &child.cells, Some(m)) {
                wins.push(m);
                by_join.push(true);
            }
        }
    }
    if wins.is_empty() {
        return None;
    }
    // Every move r of F, the most dangerous first (G's winning points, then the points
    // near the chain): answered by a winning move w != r that still works — at once when
    // neither captures (see `short_proof`), else by trying it — or, failing that, by any
    // move near the chain after r that reaches the end.
    let playable = region.playable(&root.cells);
    let mut order: Vec<u32> = wins.clone();
    for &q in cand {
        if !order.contains(&q) {
            order.push(q);
        }
    }
    let first = order.len();
    for r in 0..root.cells.len() as u32 {
        if !order[..first].contains(&r) {
            order.push(r);
        }
    }
    for r in order {
        if root.cells[r as usize] != benson::EMPTY || (!playable[r as usize] && !wins.contains(&r)) {
            continue; // occupied, or a move in an unconditional area: a pass for the region
        }
        if region.nodes >= region.budget {
            return None;
        }
        region.nodes += 1;
        let Some(after_r) = region.play(root, Some(r)) else { continue };
        let quiet_r = stones_on(&after_r.cells) == on_root + 1;
        // A life by joining a kept-alive chain answers `r` only when `r` is on no point the
        // territory proofs rely on (else their strategy must answer `r` itself).
        let join_ok = !(kept.used)(region, r);
        let mut answered = false;
        for (i, &m) in wins.iter().enumerate().filter(|&(_, &m)| m != r) {
            let Some(after) = region.play(&after_r, Some(m)) else { continue };
            // The quiet shortcut holds for a pass-alive win only (an opponent stone that
            // captures nothing keeps every healthy region healthy); a win by joining is
            // checked on the position itself (`r` may have taken a point of a miai connection).
            let quiet = !by_join[i] && quiet_r && stones_on(&after.cells) == on_root + 2;
            if quiet || reached(region, &after.cells) || (join_ok && (kept.alive)(region, &after.cells, Some(m))) {
                answered = true;
                break;
            }
        }
        if !answered {
            for w in near_chain(&region.scope, &after_r.cells, stones[0]) {
                if wins.contains(&w) {
                    continue; // tried above
                }
                if region.nodes >= region.budget {
                    return None;
                }
                region.nodes += 1;
                let Some(after) = region.play(&after_r, Some(w)) else { continue };
                if reached(region, &after.cells) || (join_ok && (kept.alive)(region, &after.cells, Some(w))) {
                    answered = true;
                    break;
                }
            }
        }
        if !answered {
            return None;
        }
    }
    Some(wins[0])
}

/// Nodes (local games of the safety proofs included) each end's proof with safe territories
/// as ends may use, at most a quarter of what the chain has left. Measured on the real games
/// with the command line's budget (500,000 nodes per region): 0 -> 16,664 stones decided,
/// 2,000 -> 16,688 and 5,000 -> 16,697 (either: one more game decided entirely),
/// 30,000 -> 16,675 (it takes budget the exhaustive steps need). Each node of it recomputes
/// the safety proofs, so it costs time: the kakunin examples take up to ~30% longer with
/// 2,000 (kakunin 10 six times less).
const SAFE_END_PROOF_NODES: u64 = 2_000;

/// Boards of at most this many points (13x13) run the proofs with safe territories as ends.
/// Each of their nodes recomputes the safety proofs of the whole board, so the cost grows
/// with the board; measured on the real games with the command line's budget against the
/// code without them, back to back: 9x9 +5 stones decided (754 -> 759), 13x13 +19
/// (1,137 -> 1,156), both in less total time; 19x19 none (14,773 either way) for 13% more
/// time and a p50 26% higher, and at 20,000 nodes per region 19 fewer (14,690 -> 14,671, the
/// budget they take) with the slowest record 96 -> 222 ms. So 19x19 boards skip them.
const SAFE_END_MAX_BOARD: usize = 13 * 13;

/// A chain that ran out of its share of the region's budget is tried again only with at
/// least this many of the nodes the region has left (see [`adjudicate_with_progress`]).
const MIN_RETRY_NODES: u64 = 1_000;

/// Nodes the quick proofs of a chain in a region too large for the exhaustive steps (but of
/// at most twice [`Options::max_region_empty`] empty points) may use, each end. Each node
/// there orders every move of the region and computes both unconditional areas, so they
/// are kept short and off the largest regions. Measured on the 110 19x19 final positions at
/// 20,000 nodes per region through the CLI, back to back with the code without them (14,690
/// stones decided, p50 21.6 ms, total 2.83 s): up to 80 empty points and 300 nodes, 14,741
/// stones, p50 21.8 ms, total 2.95 s; up to 120 points, 14,804, p50 32.0 ms, total 3.82 s;
/// every region and 300 nodes, 14,822, p50 43.2 ms; every region and 1,000 nodes, 14,832,
/// p50 66.6 ms; 100 nodes, 14,770, p50 31.5 ms.
const LARGE_REGION_QUICK_NODES: u64 = 300;

/// The avoidance searches (step 2 of [`decide`]) get `1 / TRAP_SHARE` of what a chain has
/// left; when they run out, the deeper proofs of step 3 get the rest. Measured (all real
/// records, back to back, 0 conflicting statuses): a half (2) -> a third (3): 16,520 ->
/// 16,530 stones decided at 20,000 nodes per region, 16,805 -> 16,808 at the command line's
/// 500,000, time unchanged (6.3 s, 31.0 -> 30.9 s); a quarter: 16,548 and 16,791. Kakunin 4
/// was reproduced in full with 100,000,000 nodes per region in 152 s (a half: 125,000,000,
/// 313 s): its avoidance searches ran out, and White's chains were proved dead by the
/// deepening with what was left (29,516,856 and 29,182,589 nodes in all); since the df-pn
/// proofs ([`DFPN_FROM`]) 4,818,255 and 5,387,957 nodes, 24–35 s.
const TRAP_SHARE: u64 = 3;

/// [`TRAP_SHARE`] under 1989, where the avoidance search is the only way to *alive* (only
/// the attacker's end is asked): a half. With a third, 6,434 -> 6,375 stones decided under
/// 1989 at 20,000 nodes per region.
const TRAP_SHARE_1989: u64 = 2;

/// From this many nodes left for a chain on, its deeper proofs are df-pn searches
/// ([`search::Prover::prove_dfpn`], crate docs, Engine step 4) and come, with
/// `1 / DFPN_SHARE` of what is left per end, after a first avoidance search capped at
/// [`FIRST_TRAP_NODES`]. Below it (the service's default of 500,000 nodes per region, the
/// bench's 20,000) nothing changes: at 500,000 nodes per region df-pn from 100,000 on
/// decided 16,802 stones of the real games against the deepening's 16,814. With 5,000,000
/// nodes per region (all 153 final positions): 16,884 stones decided against 16,881 before
/// df-pn under 2011 (281 s against 325 s; 14 decided only now, 11 only before, none with
/// another status), 6,312 against 6,300 under 1989 (361 s against 363 s).
const DFPN_FROM: u64 = 1_000_000;
/// See [`DFPN_FROM`].
const DFPN_SHARE: u64 = 4;
/// See [`DFPN_FROM`].
const FIRST_TRAP_NODES: u64 = 250_000;

/// The two avoidance searches of a chain and their answers (`None`: out of budget;
/// `Some(true)`: the end is avoidable).
struct Traps {
    avoidable_alive: Option<bool>,
    avoidable_dead: Option<bool>,
    keep_alive_out: Trap,
    keep_dead_out: Trap,
}

impl Traps {
    /// Whether they settle the status (alive forced, dead forced, or both avoidable).
    fn decided(&self) -> bool {
        matches!((self.avoidable_alive, self.avoidable_dead), (Some(false), _) | (Some(true), Some(_)))
    }
}

/// Nodes the first, depth-first proof attempts of a chain may use (each end) before the
/// exact avoidance searches ([`search::Trap`]) take over.
const QUICK_PROOF_NODES: u64 = 20_000;

/// Decides one chain (local indices `stones` of colour `c`) in `region`.
fn decide(region: &mut Region, board: &Board, stones: &[usize], c: Color, opts: &Options) -> (Status, Vec<(Color, Move)>) {
    decide_with(region, board, stones, c, opts, true)
}

/// Only the quick proofs of [`decide`] (steps 0 and 1; exact when found), for a chain of a
/// region too large for the exhaustive steps: `Undecided` when none is found.
fn quick_proofs(region: &mut Region, board: &Board, stones: &[usize], c: Color, opts: &Options) -> (Status, Vec<(Color, Move)>) {
    decide_with(region, board, stones, c, opts, false)
}

fn decide_with(
    region: &mut Region,
    board: &Board,
    stones: &[usize],
    c: Color,
    opts: &Options,
    exhaustive: bool,
) -> (Status, Vec<(Color, Move)>) {
    const MAX_LINE: usize = 60;
    let cells = region.scope.cells(board);
    let mut root = State { cells, to_move: c, ko: NONE, bans: [Vec::new(), Vec::new()] };
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
    let goals: &[End] = match region.mode {
        Mode::Kiyaku2011 => &[End::Alive, End::Dead],
        Mode::Kiyaku1989 => &[End::Dead],
    };
    let prove = |region: &mut Region, goal: End, limit: u64, deep: bool| -> Option<(Status, Vec<(Color, Move)>)> {
        let status = if goal == End::Alive { Status::Alive } else { Status::Dead };
        forced(region, &root, stones, c, goal, limit, MAX_LINE, deep).map(|line| (status, line))
    };
    // 0. Quick proofs in which territories proved safe (module `safety`) end a line too
    //    (`Region::safe_end`): a short line to a safe shape instead of a long one to a
    //    pass-alive one.
    if region.base.is_some() {
        region.safety_end = true;
        for &goal in goals {
            let limit = region.nodes + (region.budget.saturating_sub(region.nodes) / 4).min(SAFE_END_PROOF_NODES);
            let found = prove(region, goal, limit, false);
            region.nodes = region.nodes.min(limit);
            if let Some(found) = found {
                region.safety_end = false;
                return found;
            }
        }
        region.safety_end = false;
    }
    // 1. Quick depth-first proofs (exact when found).
    let cap = if exhaustive { QUICK_PROOF_NODES } else { LARGE_REGION_QUICK_NODES };
    let quick = region.nodes + ((region.budget - region.nodes) / 4).min(cap);
    for &goal in goals {
        if let Some(found) = prove(region, goal, quick, false) {
            return found;
        }
    }
    if !exhaustive {
        return (Status::Undecided, Vec::new());
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
        // `None` = out of budget; `Some(true)` = the end is avoidable.
        let avoidable_alive = match region.mode {
            Mode::Kiyaku2011 => keep_alive_out.avoids(region, &root).ok(),
            Mode::Kiyaku1989 => Some(true), // 1989 asks only whether the attacker forces death
        };
        let avoidable_dead = match avoidable_alive {
            Some(true) => keep_dead_out.avoids(region, &root).ok(),
            _ => None,
        };
        region.nodes = region.nodes.min(region.budget);
        region.budget = budget;
        Traps { avoidable_alive, avoidable_dead, keep_alive_out, keep_dead_out }
    };
    // With a large budget (kakunin 4: lines of 40 moves), a first avoidance search is
    // capped, and df-pn proofs of the ends it did not exclude come before the full one.
    let deep = region.budget - region.nodes >= DFPN_FROM;
    let mut first = None;
    if deep {
        let t = traps(region, region.nodes + ((region.budget - region.nodes) / share).min(FIRST_TRAP_NODES));
        if t.decided() {
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
            let left: Vec<End> = goals.iter().copied().filter(|&g| g != End::Alive || alive.is_none()).collect();
            for (k, &goal) in left.iter().enumerate() {
                let limit = region.nodes + (region.budget - region.nodes) / (left.len() - k) as u64;
                if let Some(found) = prove(region, goal, limit, deep) {
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
            let mut p = Prover::new(stones.to_vec(), c, goal);
            let budget = region.budget;
            let r = if deep { p.prove_dfpn(region, &root, budget) } else { p.prove(region, &root, budget) };
            let line = match r {
                Ok(true) => p.line(region, &root, MAX_LINE),
                _ => Vec::new(),
            };
            region.nodes = region.nodes.min(budget);
            (status, line)
        }
        (Mode::Kiyaku2011, None) => (Status::Seki, holding_line(region, &root, &keep_dead_out, Some(&keep_alive_out), stones, c, MAX_LINE)),
        (Mode::Kiyaku1989, None) => (Status::Alive, holding_line(region, &root, &keep_dead_out, None, stones, c, MAX_LINE)),
    }
}

/// A line in which each side holds: the owner with its trap's choices (keeping the play out
/// of *dead*), the opponent with its trap's choices (out of *alive*: a line of seki) or,
/// when it has none (1989: the attacker, moving first, cannot force *dead*,
/// 要請II-\[iii\]), with its most promising move (the search's move order: next to the
/// chain first, a pass last) — the main try failing. It runs until the play repeats, an
/// end is reached, or a trap recorded no choice (a state it settled by a quick proof). The
/// proof of the status is the traps (every move of the other side answered), not this line.
fn holding_line(
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

/// 要請II-\[v\] (1989): alive chains touching a 駄目 (an empty point whose empty region is
/// not bordered only by one colour's alive stones and the other's dead stones) are セキ石.
/// An alive chain touching an empty region that is an eye or a 駄目 depending on undecided
/// stones becomes undecided too (alive and セキ石 count differently, 要請II-\[vi\]).
fn mark_1989_seki(board: &Board, st: &mut StatusMap) {
    let w = board.width() as usize;
    let gi = |p: Point| p.y as usize * w + p.x as usize;
    let mut seen = vec![false; w * board.height() as usize];
    let mut seki_chains: Vec<Point> = Vec::new();
    let mut unsure_chains: Vec<Point> = Vec::new();
    for p in board.points() {
        if board.get(p).is_some() || seen[gi(p)] {
            continue;
        }
        let mut pts = vec![p];
        seen[gi(p)] = true;
        let mut k = 0;
        // eye_of[c]: still possibly an eye of c.
        let mut eye_of = [true, true];
        let mut unknown = false;
        let mut touching: Vec<Point> = Vec::new();
        while k < pts.len() {
            let q = pts[k];
            k += 1;
            for r in board.adjacent(q) {
                match board.get(r) {
                    None => {
                        if !seen[gi(r)] {
                            seen[gi(r)] = true;
                            pts.push(r);
                        }
                    }
                    Some(c) => {
                        let s = st.get(r);
                        match s {
                            Status::Undecided => unknown = true,
                            Status::Dead => eye_of[c.index()] = false,
                            _ => {
                                eye_of[c.opponent().index()] = false;
                                touching.push(r);
                            }
                        }
                    }
                }
            }
        }
        if !eye_of[0] && !eye_of[1] {
            // 駄目 whatever the undecided stones turn out to be.
            seki_chains.extend(touching);
        } else if unknown {
            // An eye or a 駄目 depending on undecided stones: the alive chains touching it are
            // alive or セキ石 — not decided either.
            unsure_chains.extend(touching);
        }
    }
    for p in seki_chains {
        if st.get(p) == Status::Alive {
            st.set_chain(board, p, Status::Seki);
        }
    }
    for p in unsure_chains {
        if st.get(p) == Status::Alive {
            st.set_chain(board, p, Status::Undecided);
        }
    }
}

/// A xorshift generator (Marsaglia 2003) from `seed` (non-zero): the unit tests' random
/// positions, the same on every run.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proof_line_text_uses_sgf_points_and_pass() {
        let pr = Proof {
            stones: vec![Point::new(0, 0)],
            color: Color::Black,
            status: Status::Dead,
            line: vec![(Color::Black, Move::Play(Point::new(3, 2))), (Color::White, Move::Pass)],
            nodes: 2,
            undecided: None,
        };
        assert_eq!(pr.line_text(), vec!["B dc".to_string(), "W pass".to_string()]);
    }

    #[test]
    fn bits_roundtrip() {
        let mut b = benson::Bits::new(130);
        b.set(129);
        assert!(b.get(129) && !b.get(128));
    }
}
