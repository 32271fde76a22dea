//! What an adjudication answers ([`Adjudication`](crate::Adjudication)): every chain's status with the proof that
//! shows it ([`Proof`](crate::Proof): a line of hypothetical play, 第七条) or why it is undecided
//! ([`Undecided`](crate::Undecided)), the agreements the analysis refutes ([`Refutation`](crate::Refutation), 第十条2) and the
//! progress of the regions searched ([`RegionReport`](crate::RegionReport)).

use crate::{Board, Color, DrawnIn, KeptByLinks, Move, Point, Status, StatusMap, StopReason};

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
    /// [`Options::max_region_empty`](crate::Options::max_region_empty) (`max`): hypothetical play there was not searched
    /// exhaustively (no budget would finish it), and no short proof was found (Engine
    /// step 4). A larger budget does not help.
    RegionTooLarge {
        /// Empty points of the region.
        empty: usize,
        /// The largest region searched.
        max: usize,
    },
    /// The search spent its share of the region's budget, `nodes` nodes, without proving
    /// either end or seki ([`Options::budget_nodes`](crate::Options::budget_nodes)); a larger budget may decide it.
    Budget {
        /// Nodes spent on this chain.
        nodes: u64,
    },
    /// The search stopped before it was decided, for `reason` (cancelled, time budget, memory
    /// cap: [`Options::stop`](crate::Options::stop), [`Options::deadline`](crate::Options::deadline), [`Options::max_memory_bytes`](crate::Options::max_memory_bytes)), after
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

/// The result of [`adjudicate`](crate::adjudicate).
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
    /// With an agreement under the 2011 draft: the agreed walls that race a disputed chain
    /// but stay walls, kept by two links (module `dispute`), in the regions whose answers
    /// count; empty otherwise.
    pub kept_by_links: Vec<KeptByLinks>,
}

impl Adjudication {
    /// Whether some stone is [`Status::Undecided`].
    pub fn undecided(&self, board: &Board) -> bool {
        board.points().any(|p| board.get(p).is_some() && self.status.get(p) == Status::Undecided)
    }
}
