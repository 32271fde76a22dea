//! Searches that stop before their node budget: cancelled from another thread
//! ([`Options::stop`]), past their deadline ([`Options::deadline`]), or at their memory cap
//! ([`Options::max_memory_bytes`]). Each leaves the chains it did not decide undecided
//! with [`Undecided::Stopped`] naming the reason, never a guessed status.

use shinpan_adjudicator::{adjudicate, Adjudication, Board, Color, Options, Point, RuleSet, Status, Stop, StopReason, Undecided};
use std::time::{Duration, Instant};

/// Six stones in the middle of an empty 6x6 board: one region of 30 empty points, searched
/// exhaustively, which no budget of the service's range settles (with 100,000,000 nodes the
/// search runs for minutes and takes gigabytes without a cap).
fn open_6x6() -> Board {
    let mut b = Board::new(6, 6).unwrap();
    for (pts, c) in [(["cc", "dc", "cd"], Color::Black), (["dd", "ed", "de"], Color::White)] {
        for p in pts {
            b.set(Point::from_sgf(p).unwrap(), Some(c)).unwrap();
        }
    }
    b
}

/// A budget no search here spends: the run ends only by the stop condition under test (or,
/// failing that, by the default memory cap, which the assertions tell apart).
const HUGE: u64 = 100_000_000;

/// Every chain undecided, each with `Stopped` for `want`.
fn assert_stopped_by(adj: &Adjudication, want: StopReason) {
    assert_eq!(adj.proofs.len(), 2, "{:?}", adj.proofs);
    for p in &adj.proofs {
        assert_eq!(p.status, Status::Undecided, "{:?}", p.stones);
        match p.undecided {
            Some(Undecided::Stopped { reason, nodes }) => {
                assert_eq!(reason, want, "{:?}", p.stones);
                assert!(nodes < HUGE);
            }
            other => panic!("{:?}: expected Stopped({want:?}), got {other:?}", p.stones),
        }
        let text = p.undecided.unwrap().to_string();
        assert!(text.contains("search stopped") && text.contains(&want.to_string()), "{text}");
    }
}

#[test]
fn a_search_cancelled_from_another_thread_stops_within_a_fraction_of_a_second() {
    let stop = Stop::new();
    let opts = Options { budget_nodes: HUGE, stop: Some(stop.clone()), ..Options::default() };
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        stop.stop();
        Instant::now()
    });
    let adj = adjudicate(&open_6x6(), RuleSet::Japanese2011, &opts);
    let returned = Instant::now();
    let stopped = stopper.join().unwrap();
    let late = returned.saturating_duration_since(stopped);
    assert!(late < Duration::from_secs(2), "returned {late:?} after the stop");
    assert_stopped_by(&adj, StopReason::Cancelled);
}

#[test]
fn a_search_past_its_deadline_stops() {
    let start = Instant::now();
    let opts = Options { budget_nodes: HUGE, deadline: Some(start + Duration::from_millis(300)), ..Options::default() };
    let adj = adjudicate(&open_6x6(), RuleSet::Japanese2011, &opts);
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(300) && took < Duration::from_secs(3), "took {took:?}");
    assert_stopped_by(&adj, StopReason::TimeBudget);
}

#[test]
fn a_search_at_its_memory_cap_stops() {
    let cap = 16 << 20;
    let start = Instant::now();
    let opts = Options { budget_nodes: HUGE, max_memory_bytes: cap, ..Options::default() };
    let adj = adjudicate(&open_6x6(), RuleSet::Japanese2011, &opts);
    assert_stopped_by(&adj, StopReason::MemoryCap { bytes: cap });
    // 16 MiB of tables is some tens of thousands of states: far from the budget, and quick.
    let nodes: u64 = adj.regions.iter().map(|r| r.nodes).sum();
    assert!(nodes < 2_000_000, "{nodes} nodes");
    assert!(start.elapsed() < Duration::from_secs(20), "took {:?}", start.elapsed());
}

/// A stop set before the search starts: the searched chains are undecided at once (the
/// conditions are checked at the first node already).
#[test]
fn a_search_stopped_before_it_starts_spends_nothing() {
    let stop = Stop::new();
    stop.stop();
    let adj = adjudicate(&open_6x6(), RuleSet::Japanese2011, &Options { budget_nodes: HUGE, stop: Some(stop), ..Options::default() });
    assert_stopped_by(&adj, StopReason::Cancelled);
    for p in &adj.proofs {
        assert!(p.nodes <= 10, "{:?}: {} nodes", p.stones, p.nodes);
    }
}
