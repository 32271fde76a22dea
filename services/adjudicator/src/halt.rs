//! Stopping a search before its node budget is spent: cancellation from another thread
//! ([`Stop`]), a deadline, and a cap on the memory of the search's tables
//! ([`crate::Options::stop`], [`crate::Options::deadline`],
//! [`crate::Options::max_memory_bytes`]).
//!
//! The region search polls [`Halt::poll`] once every [`POLL_NODES`] nodes (where it counts
//! them); once a condition holds the search stops as if its budget had run out — which never
//! yields a wrong status, only [`crate::Status::Undecided`] — and every chain it leaves
//! undecided gets [`crate::Undecided::Stopped`] with the [`StopReason`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Nodes between two polls of the stop conditions (a few milliseconds of search at most).
pub(crate) const POLL_NODES: u32 = 1024;

/// A cancellation flag shared between a running search and whoever may stop it: clones
/// share one flag. Setting it ([`Stop::stop`]) makes every search holding it stop within
/// 1,024 nodes.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// A flag not set.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Sets the flag: the searches holding it stop ([`StopReason::Cancelled`]).
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the flag is set.
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Why a search stopped before its node budget was spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The [`Stop`] flag was set (the caller cancelled, e.g. a client that went away).
    Cancelled,
    /// [`crate::Options::deadline`] passed (the adjudication's time budget ran out).
    TimeBudget,
    /// The search's tables reached [`crate::Options::max_memory_bytes`] (`bytes`).
    MemoryCap {
        /// The cap, in bytes.
        bytes: u64,
    },
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Cancelled => f.write_str("cancelled"),
            StopReason::TimeBudget => f.write_str("time budget exhausted"),
            StopReason::MemoryCap { bytes } => write!(f, "memory cap of {} MiB reached", bytes >> 20),
        }
    }
}

/// The stop conditions of one region's search and, once one held, why it stopped (sticky).
#[derive(Clone, Debug, Default)]
pub(crate) struct Halt {
    stop: Option<Stop>,
    deadline: Option<Instant>,
    /// Bytes the region's tables may take; `u64::MAX` = no cap (also the default).
    max_bytes: u64,
    /// Calls of [`Halt::poll`] since the conditions were last checked.
    polls: u32,
    /// Why the search stopped, once it has.
    pub reason: Option<StopReason>,
}

impl Halt {
    /// The conditions of `opts`, checked at the first poll already.
    pub fn of(opts: &crate::Options) -> Halt {
        Halt { stop: opts.stop.clone(), deadline: opts.deadline, max_bytes: opts.max_memory_bytes, polls: POLL_NODES - 1, reason: None }
    }

    /// No condition: the search stops only at its node budget.
    pub fn none() -> Halt {
        Halt { max_bytes: u64::MAX, ..Halt::default() }
    }

    /// Whether the search must stop: checks the conditions once every [`POLL_NODES`] calls
    /// (`bytes()` is the estimate of the tables' memory), and stays `true` once one held.
    #[inline]
    pub fn poll(&mut self, bytes: impl FnOnce() -> u64) -> bool {
        if self.reason.is_some() {
            return true;
        }
        self.polls += 1;
        if self.polls < POLL_NODES {
            return false;
        }
        self.polls = 0;
        self.reason = self.check(bytes());
        self.reason.is_some()
    }

    /// Checks every condition now (`bytes`: the tables' memory): the first that holds.
    pub fn check(&self, bytes: u64) -> Option<StopReason> {
        if self.stop.as_ref().is_some_and(Stop::is_stopped) {
            Some(StopReason::Cancelled)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(StopReason::TimeBudget)
        } else if bytes >= self.max_bytes {
            Some(StopReason::MemoryCap { bytes: self.max_bytes })
        } else {
            None
        }
    }
}
