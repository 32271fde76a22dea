//! What an adjudication is asked to do ([`Options`](crate::Options)): its budget in nodes, time and memory,
//! the players' agreement (第九条) and the chains they dispute, and the state of the record's
//! last move (第五条's ko ban, the player to move).

use crate::{Color, Point, StatusMap, Stop};

/// Options of an adjudication.
#[derive(Clone, Debug)]
pub struct Options {
    /// Nodes of hypothetical play searched per region at most; a region not decided within
    /// it leaves its chains [`Status::Undecided`](crate::Status::Undecided). In dispute mode
    /// ([`Options::dispute`]) the regions searched for one disputed chain share it (module
    /// `dispute`: one budget per dispute).
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
    /// [`Status::Undecided`](crate::Status::Undecided) at once (an exhaustive search there cannot finish within any
    /// practical budget; see the crate documentation).
    pub max_region_empty: usize,
    /// Whether territories are proved safe under alternating play before the region search
    /// (crate docs, step 2), and sealed territories end the search's lines (crate docs,
    /// "Sealed territories"). On by default; off only to cross-check the methods.
    pub safe_territories: bool,
    /// Whether the chains of regions above `max_region_empty` get short proofs (one move of
    /// the side that moves first, or a miai; crate docs, Engine step 4). On by default; off
    /// only to test the other steps alone.
    pub one_move_proofs: bool,
    /// Whether a chain in an enclosure the opponent fills through private pairs of links is
    /// dead at once, and such an enclosure ends the lines of the search (crate docs,
    /// "Enclosures filled through private links"); also whether a territory whose inner
    /// points pair the same way is proved safe (Engine step 2, module `safety`). On by
    /// default; off only to test the other steps alone.
    pub enclosure_links: bool,
    /// Whether a chain the region search leaves undecided is searched again in its walled
    /// region for *dead* and in its owner's for *alive* (crate docs, Engine step 5; module
    /// `walled`), under the 2011 draft. On by default; off only to test the other steps alone.
    pub walled_regions: bool,
    /// A cancellation flag: once another thread sets it ([`Stop::stop`]), the search stops
    /// within about a thousand nodes and leaves every chain it has not decided
    /// [`Status::Undecided`](crate::Status::Undecided) ([`Undecided::Stopped`](crate::Undecided::Stopped), [`StopReason::Cancelled`](crate::StopReason::Cancelled)). `None`: the
    /// search cannot be cancelled.
    pub stop: Option<Stop>,
    /// The instant the search stops at (checked as `stop` is): the chains not decided by then
    /// are undecided ([`StopReason::TimeBudget`](crate::StopReason::TimeBudget)). `None`: only the node budget bounds it.
    pub deadline: Option<std::time::Instant>,
    /// Bytes the search's tables of one region (cached unconditional areas and territory
    /// proofs by position, and the proof, disproof and avoidance tables, estimated from
    /// their entries, see `search::Region::table_bytes`) may take at most; reached, the
    /// search stops and its undecided chains say so ([`StopReason::MemoryCap`](crate::StopReason::MemoryCap)). Default
    /// [`DEFAULT_MAX_MEMORY_BYTES`](crate::DEFAULT_MAX_MEMORY_BYTES); `u64::MAX`: no cap.
    pub max_memory_bytes: u64,
}

/// Default of [`Options::max_memory_bytes`](crate::Options::max_memory_bytes): 1 GiB, far more than any 死活確認例 needs
/// (kakunin 4, the largest, peaks at about 100–110 MB at any budget, some of it the children df-pn keeps for re-expansions, 48 MB at most).
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
            enclosure_links: true,
            walled_regions: true,
            stop: None,
            deadline: None,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
        }
    }
}
