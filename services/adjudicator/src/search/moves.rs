//! The move generator of hypothetical play: the moves worth searching at a state, in the
//! order the searches try them.

use super::*;
use crate::benson::reset;

/// The moves of the side to move in `st`, most promising first: points next to (or on)
/// the examined `stones`, then contact with the opponent; a pass last for the forcing side
/// and first for the other (holding is often its best).
///
/// Under the 2011 draft, moves outside the sealed area of `stones` (module `seal`) are left
/// out: for the examined stones they are a pass, which is always among the moves.
pub(crate) fn ordered_moves(region: &mut Region, st: &State, stones: &[usize], forcing: bool) -> Vec<Option<u32>> {
    let mut playable = region.playable(&st.cells);
    if region.sealing && region.mode == Mode::Kiyaku2011 && region.territory.is_none() && !stones.is_empty() {
        seal::keep_within_sealed_area(&region.scope, &st.cells, stones, &mut playable);
    }
    let sc = &region.scope;
    MOVES_SCRATCH.with(|m| {
        let scratch = &mut *m.borrow_mut();
        scored_moves(sc, st, stones, &playable, scratch);
        let scored = &scratch.scored;
        let mut out: Vec<Option<u32>> = Vec::with_capacity(scored.len() + 1);
        if !forcing {
            out.push(None);
        }
        out.extend(scored.iter().map(|x| x.1));
        if forcing {
            out.push(None);
        }
        out
    })
}

/// Buffers of [`ordered_moves`], kept per thread (each call clears and sizes them afresh).
#[derive(Default)]
struct Scratch {
    near: Vec<bool>,
    opp_libs: Vec<u32>,
    mark: Vec<bool>,
    members: Vec<u32>,
    scored: Vec<(i32, Option<u32>)>,
}

thread_local! {
    static MOVES_SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// The playable points of `st` (`playable`, by local index) with their scores, best first
/// (a stable sort: ties keep the points' order), in `scratch.scored`.
fn scored_moves(sc: &Scope, st: &State, stones: &[usize], playable: &[bool], scratch: &mut Scratch) {
    let Scratch { near, opp_libs, mark, members, scored } = scratch;
    let me = cell(st.to_move);
    // Points next to the examined stones (or on them, once captured).
    reset(near, sc.len(), false);
    for &s in stones {
        near[s] = true;
        for &g in &sc.nbrs[s] {
            if g != NONE && g < OUT {
                near[g as usize] = true;
            }
        }
    }
    // Liberties (up to two) of the opponent's chains, by member: a move on the last one
    // captures, on one of two gives atari.
    let opp = cell(st.to_move.opponent());
    reset(opp_libs, sc.len(), u32::MAX);
    reset(mark, sc.len(), false);
    for s in 0..sc.len() {
        if st.cells[s] == opp && !mark[s] {
            let (_, n) = chain_of(sc, &st.cells, s, members, mark, u32::MAX);
            for &m in members.iter() {
                opp_libs[m as usize] = n;
            }
        }
    }
    scored.clear();
    for i in 0..sc.len() {
        if !playable[i] {
            continue;
        }
        let mut score = 0;
        if near[i] {
            score += 40;
        }
        let mut libs = 0;
        for &g in &sc.nbrs[i] {
            if g == NONE || g >= OUT {
                continue;
            }
            match st.cells[g as usize] {
                EMPTY => libs += 1,
                v if v == me => libs += 1,
                _ => {
                    score += match opp_libs[g as usize] {
                        1 => 100,
                        2 => 15,
                        _ => 5,
                    }
                }
            }
        }
        if libs == 0 {
            score -= 20;
        }
        scored.push((score, Some(i as u32)));
    }
    scored.sort_by_key(|x| std::cmp::Reverse(x.0));
}
