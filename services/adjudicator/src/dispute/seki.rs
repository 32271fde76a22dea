//! The seki among agreed-alive chains (docs of module `dispute`; 第八条): each candidate
//! disputed alone with the agreement as the context.

use super::Rely;
use crate::Options;
use goban::{Board, Color, Point, Status, StatusMap};

/// The seki among agreed-alive chains (第八条: the eyes of seki stones are not territory;
/// 確認例2 "白の目は地ではなく"). When the players' agreement gives only dead stones, every
/// other chain is agreed alive, though some may stand in seki. The candidates are the
/// agreed-alive chains next to an empty point that also touches an agreed-alive chain of
/// the other colour (a shared liberty, which every seki has); each is disputed alone
/// with `opts.agreed` as the context (docs of module `dispute`), and the returned map holds the agreement
/// with every agreed-alive chain found [`Status::Seki`] (a candidate disputed alone, or a
/// chain drawn into its dispute) set so. Returns the map and the seki chains
/// (sorted stones each). A candidate's seki is not taken when a chain drawn into its dispute
/// stays undecided (the agreement then stands for all of them, 第九条). Other findings (a candidate proved dead, say) are left to the
/// caller's [`adjudicate`](crate::adjudicate) and its refutations: this function only
/// finds seki, so a candidate's dispute is searched again with the race partners of the
/// region's other chains (docs of module `dispute`) only when a seki it found could lean on them. `opts.agreed`
/// must be `Some`.
pub fn find_seki(board: &Board, rules: goban::RuleSet, opts: &Options) -> (StatusMap, Vec<Vec<Point>>) {
    let agreed = opts.agreed.clone().expect("an agreement");
    let standing = |p: Point| board.get(p).is_some() && matches!(agreed.get(p), Status::Alive | Status::Seki);
    let mut candidates: Vec<Point> = Vec::new();
    for p in board.points().filter(|&p| board.get(p).is_none()) {
        let touching: Vec<Point> = board.adjacent(p).filter(|&q| standing(q)).collect();
        let both =
            touching.iter().any(|&q| board.get(q) == Some(Color::Black)) && touching.iter().any(|&q| board.get(q) == Some(Color::White));
        if both {
            for q in touching {
                let h = board.chain_id(q).expect("a stone");
                if !candidates.contains(&h) {
                    candidates.push(h);
                }
            }
        }
    }
    let mut status = agreed.clone();
    if candidates.is_empty() {
        return (status, Vec::new());
    }
    // One candidate at a time, the others standing as walls (or drawn in when in a race with
    // it): each region stays the candidate's own.
    let mut seki_at = vec![false; board.width() as usize * board.height() as usize];
    let gi = |p: Point| p.y as usize * board.width() as usize + p.x as usize;
    for &cand in &candidates {
        if seki_at[gi(cand)] {
            continue;
        }
        let adj = crate::adjudicate_checking(board, rules, &Options { dispute: vec![cand], ..opts.clone() }, &mut |_| {}, Rely::Seki);
        // A seki is taken only with every chain of its dispute decided: an undecided race
        // partner could be in the seki too, and the count would then be wrong either way.
        if adj.drawn_in.iter().any(|d| adj.status.get(d.stones[0]) == Status::Undecided) {
            continue;
        }
        for p in board.points() {
            if board.get(p).is_some() && standing(p) && adj.status.get(p) == Status::Seki {
                seki_at[gi(p)] = true;
            }
        }
    }
    let mut seki = Vec::new();
    let mut seen = vec![false; seki_at.len()];
    for p in board.points() {
        if !seki_at[gi(p)] || seen[gi(p)] {
            continue;
        }
        let mut stones = board.chain(p);
        stones.sort();
        for &s in &stones {
            seen[gi(s)] = true;
        }
        status.set_chain(board, p, Status::Seki);
        seki.push(stones);
    }
    (status, seki)
}
