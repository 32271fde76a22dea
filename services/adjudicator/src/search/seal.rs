//! The *sealed area* of the examined chain: the part of a region that its ends can still
//! depend on. Moves outside it are, for the examined stones, a pass, and the searches leave
//! them out (a dynamic form of the crate's split into regions, Engine step 3, after the
//! partial regions of Niu & Müller, 2006, and the relevance zones of Shih, Wu, Wei & Wu,
//! AAAI 2022, where a proof's loser is answered only in the zone its proof depends on).
//!
//! **Definitions.** A stone of the scope is *fixed* when its chain touches an outside stone
//! of its colour (the scope's neighbours are pass-alive, or agreed alive in a dispute, and
//! never change): it is one chain with a stone nobody can capture, so nobody can capture it.
//! The sealed area `A` of the examined chain `S` is the set of points reached from `S`'s
//! points through points that hold no fixed stone.
//!
//! **Why the rest of the region does not matter (第七条).** Every neighbour of `A` inside
//! the scope holds a fixed stone, every one outside it a stone that never changes. A chain
//! with a stone in `A` that is not fixed lies wholly in `A`, with its liberties; so a move
//! outside `A` captures nothing in `A` and takes no liberty of a chain that can be captured,
//! and a move in `A` does the same to the rest. The ends of `S` (crate docs) depend on `A`
//! alone: a c-region (module `benson`) that holds a fixed stone of the other colour reaches
//! an outside stone of it and is never healthy, and a set of an unconditional area never
//! holds one (its neighbours are pass-alive stones of its colour), so every healthy region,
//! every chain whose pass-aliveness `S`'s end depends on, and the set of the area holding a
//! point of `S` lie in `A` or are fixed; the enclosure of the links rule (module `links`)
//! holds no fixed stone either. Under the 2011 draft a move outside `A` is then, for `S`'s
//! ends, the same as a pass: the cells of `A` are unchanged, and either lifts the 第五条 ban.
//! So the game in which nobody plays outside `A` has the same forced ends as the whole one
//! (the states of the whole game map onto its states, each move onto a move or a pass), and
//! a repetition of its states is a repetition of the cells of `A` with passes between, which
//! the whole game's player can also keep up (第七条 解説 循環). Fixed stones are never
//! captured, so along a line the fixed stones only grow and `A` only shrinks: a point left
//! out stays out. Under 1989 (要請II-\[iv\]) a move elsewhere does not lift the mover's
//! ko-pass bans as a pass does, so the area is not used there.

use crate::benson::{Scope, NONE, OUT};

/// Reused buffers of [`sealed`] (it runs at every node of the searches): fixed stones, the
/// area, the flood's stack.
#[derive(Default)]
struct Scratch {
    fixed: Vec<bool>,
    area: Vec<bool>,
    stack: Vec<u32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// The sealed area of the chain `stones` in `cells` as [`sealed`] finds it, by local index, or
/// `None` when it finds none.
#[cfg(test)]
pub(crate) fn sealed_area(sc: &Scope, cells: &[u8], stones: &[usize]) -> Option<Vec<bool>> {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        sealed(sc, cells, stones, &mut s).then(|| s.area.clone())
    })
}

/// Clears `playable` (by local index) outside the sealed area of the chain `stones` in
/// `cells` ([`sealed`]; nothing when it finds none).
pub(crate) fn keep_within_sealed_area(sc: &Scope, cells: &[u8], stones: &[usize], playable: &mut [bool]) {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        if sealed(sc, cells, stones, &mut s) {
            for (p, &a) in playable.iter_mut().zip(&s.area) {
                *p &= a;
            }
        }
    })
}

/// The certificate of the sealed area of the chain `stones` in `cells` (module `zone`): the
/// area and every fixed chain next to it, whole, by local index; `None` when [`sealed`] finds
/// no area. A state whose cells agree on it has a sealed area within this one: the same
/// fixed chains bound it, and a point of it may only hold a fixed stone more.
pub(crate) fn sealed_cert(sc: &Scope, cells: &[u8], stones: &[usize]) -> Option<crate::benson::Bits> {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        if !sealed(sc, cells, stones, &mut s) {
            return None;
        }
        let Scratch { fixed, area, stack } = &mut *s;
        let mut z = crate::benson::Bits::new(sc.len());
        let mut taken = vec![false; sc.len()];
        stack.clear();
        for (l, _) in area.iter().enumerate().filter(|&(_, &a)| a) {
            z.set(l);
            for &g in &sc.nbrs[l] {
                if g != NONE && g < OUT && fixed[g as usize] && !taken[g as usize] {
                    taken[g as usize] = true;
                    stack.push(g);
                }
            }
        }
        while let Some(l) = stack.pop() {
            z.set(l as usize);
            for &g in &sc.nbrs[l as usize] {
                if g != NONE && g < OUT && fixed[g as usize] && !taken[g as usize] && cells[g as usize] == cells[l as usize] {
                    taken[g as usize] = true;
                    stack.push(g);
                }
            }
        }
        Some(z)
    })
}

/// Computes the sealed area (module docs) of the chain `stones` (local indices) in `cells`
/// into `s.area`, by local index, and says whether it leaves out a point that holds no fixed
/// stone: false when there is no fixed stone, or when a point of `stones` holds one (the
/// chain is then pass-alive, or captured and its point the opponent's for good, and its end
/// is reached at once). Cost: linear in the scope.
fn sealed(sc: &Scope, cells: &[u8], stones: &[usize], s: &mut Scratch) -> bool {
    let Scratch { fixed, area, stack } = s;
    let n = sc.len();
    // Fixed stones: a flood through each colour's stones from those next to an outside
    // stone of the same colour.
    fixed.clear();
    fixed.resize(n, false);
    stack.clear();
    let mut nfixed = 0;
    for s in 0..n {
        let v = cells[s];
        if v == crate::benson::EMPTY || fixed[s] {
            continue;
        }
        let walled = sc.nbrs[s].iter().any(|&g| g != NONE && g >= OUT && sc.ext[(g - OUT) as usize].0 == v);
        if !walled {
            continue;
        }
        fixed[s] = true;
        nfixed += 1;
        stack.push(s as u32);
        while let Some(l) = stack.pop() {
            for &g in &sc.nbrs[l as usize] {
                if g != NONE && g < OUT && cells[g as usize] == v && !fixed[g as usize] {
                    fixed[g as usize] = true;
                    nfixed += 1;
                    stack.push(g);
                }
            }
        }
    }
    if nfixed == 0 || stones.iter().any(|&s| fixed[s]) {
        return false;
    }
    area.clear();
    area.resize(n, false);
    for &s in stones {
        if !area[s] {
            area[s] = true;
            stack.push(s as u32);
        }
    }
    let mut size = 0;
    while let Some(l) = stack.pop() {
        size += 1;
        for &g in &sc.nbrs[l as usize] {
            if g != NONE && g < OUT && !fixed[g as usize] && !area[g as usize] {
                area[g as usize] = true;
                stack.push(g);
            }
        }
    }
    size < n - nfixed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{End, Mode, Prover, Region, State, Trap};
    use goban::{Board, Color, Point};

    fn root(cells: &[u8], to_move: Color) -> State {
        State::new(cells.to_vec(), to_move)
    }

    /// The exact avoidance searches with and without the sealed area, on random positions of
    /// `rows` x `cols` areas at the board's top edge closed by stones that never change
    /// (mostly White's, one row below and one column each side): for every chain, both ends,
    /// either side to move, under the 2011 draft, the answers must agree. Returns the number
    /// of searches compared and, of them, those whose root had a sealed area.
    fn cross_check(seed: u64, positions: usize, rows: u32, cols: u32, black: u64, white: u64) -> (usize, usize) {
        let mut rand = crate::xorshift(seed);
        let (mut compared, mut sealed) = (0, 0);
        for _ in 0..positions {
            let Some((board, inner)) = crate::search::tests::random_edge_area(&mut rand, rows, cols, black, white, 6) else {
                continue;
            };
            let scope = Scope::new(&board, inner.clone());
            let cells = scope.cells(&board);
            for (p, owner, stones) in crate::search::tests::chains_within(&board, &scope, &inner) {
                let restricted = sealed_area(&scope, &cells, &stones).is_some();
                for goal in [End::Dead, End::Alive] {
                    for to_move in [Color::Black, Color::White] {
                        let answer = |sealing: bool| {
                            let mut region = Region::new(scope.clone(), Mode::Kiyaku2011, 200_000);
                            region.sealing = sealing;
                            Trap::new(stones.clone(), owner, goal).avoids(&mut region, &root(&cells, to_move)).ok()
                        };
                        if let (Some(with), Some(without)) = (answer(true), answer(false)) {
                            compared += 1;
                            sealed += usize::from(restricted);
                            assert_eq!(
                                with,
                                without,
                                "{} chain at {}, {goal:?} avoidable, {} to move: sealed {with}, whole {without}",
                                owner.letter(),
                                p.to_sgf(),
                                to_move.letter()
                            );
                        }
                    }
                }
            }
        }
        (compared, sealed)
    }

    /// Areas three rows deep with room for both sides to live, seki and ko, where stones
    /// joined to the closing stones split the area.
    #[test]
    fn the_sealed_area_changes_no_answer_of_the_exact_search() {
        let (n1, s1) = cross_check(0x5_2026_1128, 400, 3, 5, 25, 30);
        let (n2, s2) = cross_check(0x6_2026_1128, 300, 2, 7, 25, 30);
        eprintln!("{} searches compared, {} of them from a sealed area", n1 + n2, s1 + s2);
        assert!(s1 >= 200 && s2 >= 200, "only {s1} and {s2} searches from a sealed area");
    }

    /// A White territory of 10 x 3 = 30 points along the top edge, closed by White stones that
    /// never change (the row below it and a column each side), with a White wall across it
    /// on column e joined to the closing stones, and a lone Black invader at bb (local index
    /// of the invader in the returned scope).
    fn walled_edge_territory() -> (Board, Scope, Vec<usize>) {
        let mut board = Board::new(19, 19).unwrap();
        for p in board.points().collect::<Vec<_>>() {
            if (p.x == 10 && p.y <= 3) || (p.y == 3 && p.x <= 10) || (p.x == 4 && p.y < 3) {
                board.set(p, Some(Color::White)).unwrap();
            }
        }
        board.set(Point { x: 1, y: 1 }, Some(Color::Black)).unwrap();
        let inner: Vec<Point> = board.points().filter(|p| p.x < 10 && p.y < 3).collect();
        let scope = Scope::new(&board, inner);
        let stones = vec![scope.local_of(Point { x: 1, y: 1 }) as usize];
        (board, scope, stones)
    }

    #[test]
    fn a_wall_joined_to_the_closing_stones_seals_a_part_off() {
        let (mut board, scope, stones) = walled_edge_territory();
        let area = sealed_area(&scope, &scope.cells(&board), &stones).expect("a part is sealed off");
        let inside = |x: u8, y: u8| area[scope.local_of(Point { x, y }) as usize];
        assert!(inside(0, 0) && inside(3, 2) && inside(1, 1));
        assert!(!inside(4, 1) && !inside(5, 0) && !inside(9, 2), "the wall and the part beyond it are out");
        // The same wall not joined to the closing stones (its bottom stone gone) seals nothing.
        board.set(Point { x: 4, y: 2 }, None).unwrap();
        assert_eq!(sealed_area(&scope, &scope.cells(&board), &stones), None);
    }

    /// The invader of [`walled_edge_territory`], Black to move first (第七条 解説): dead, by the
    /// deepening and by df-pn, within the 12 points of its sealed area; without the sealed area
    /// the searches also answer Black's moves beyond the wall, which are passes for the invader.
    #[test]
    fn an_invasion_of_a_30_point_territory_is_proved_dead_through_the_sealed_area() {
        let (board, scope, stones) = walled_edge_territory();
        let cells = scope.cells(&board);
        for deep in [false, true] {
            let nodes = |sealing: bool| {
                let mut region = Region::new(scope.clone(), Mode::Kiyaku2011, 2_000_000);
                region.sealing = sealing;
                let mut prover = Prover::new(stones.clone(), Color::Black, End::Dead);
                let root = root(&cells, Color::Black);
                let proved =
                    if deep { prover.prove_dfpn(&mut region, &root, 2_000_000) } else { prover.prove(&mut region, &root, 2_000_000) };
                assert!(matches!(proved, Ok(true)), "dead (sealed area: {sealing}, df-pn: {deep}): {proved:?}");
                region.nodes
            };
            let (with, without) = (nodes(true), nodes(false));
            eprintln!("df-pn {deep}: {with} nodes through the sealed area, {without} on the whole territory");
            assert!(with * 5 < without, "df-pn {deep}: {with} nodes through the sealed area, {without} without");
        }
    }
}
