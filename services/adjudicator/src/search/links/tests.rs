//! The links rule against the exact avoidance search, and its positions.

use super::*;
use crate::search::{End, Mode, Region, State, Trap};
use goban::{Board, Color, Point};

/// The rule against the exact avoidance search without it, on random positions of
/// `rows` x `cols` areas of the board's top edge closed by stones that never change
/// (mostly White's, one row below and one column each side): every Black chain the rule
/// calls dead while Benson's end does not must be dead by the search (Black cannot keep
/// the play out of the dead end), whoever moves first, under both rule sets' ko rules.
/// `ring_black`: one stone of the closing ring in so many is Black's; 0: the area of
/// [`bounded_edge_area`] instead. Returns (positions the rule ended, positions the search
/// confirmed, of those the positions whose enclosure a bounding block closes).
fn cross_check(seed: u64, positions: usize, rows: u32, cols: u32, black: u64, white: u64, ring_black: u64) -> (usize, usize, usize) {
    let mut rand = crate::xorshift(seed);
    let (mut fired, mut checked, mut bounded) = (0, 0, 0);
    let mut scratch = Scratch::default();
    for _ in 0..positions {
        let area = if ring_black == 0 {
            bounded_edge_area(&mut rand, rows, cols, black, white)
        } else {
            crate::search::tests::random_edge_area(&mut rand, rows, cols, black, white, ring_black)
        };
        let Some((board, inner)) = area else {
            continue;
        };
        let scope = Scope::new(&board, inner.clone());
        let cells = scope.cells(&board);
        for (p, owner, stones) in crate::search::tests::chains_within(&board, &scope, &inner) {
            if owner != Color::Black || !dead_by_links_in(&scope, &cells, &stones, Color::Black, &mut scratch, MAX_BORROWERS, None) {
                continue;
            }
            let by_bounding = scratch.bounded;
            // The line (Black passes, White fills one link per pair) reaches Benson's end.
            let mut plain = Region::new(scope.clone(), Mode::Kiyaku2011, 0);
            plain.links_end = false;
            let mut cur = State::new(cells.clone(), Color::Black);
            for l in links_line(&scope, &cells, &stones, Color::Black).expect("the line of the rule") {
                cur = plain.play(&cur, None).expect("a pass");
                cur = plain.play(&cur, Some(l)).expect("a link is always legal for White");
            }
            assert_eq!(plain.end(&cur.cells, &stones, Color::Black), Some(End::Dead), "the line ends in Benson's dead end");
            for mode in [Mode::Kiyaku2011, Mode::Kiyaku1989] {
                let mut region = Region::new(scope.clone(), mode, 300_000);
                region.links_end = false;
                if region.end(&cells, &stones, Color::Black) == Some(End::Dead) {
                    continue;
                }
                fired += 1;
                for to_move in [Color::Black, Color::White] {
                    let root = State::new(cells.clone(), to_move);
                    let mut region = Region::new(scope.clone(), mode, 300_000);
                    region.links_end = false;
                    if let Ok(avoidable) = Trap::new(stones.clone(), Color::Black, End::Dead).avoids(&mut region, &root) {
                        checked += 1;
                        bounded += usize::from(by_bounding);
                        assert!(!avoidable, "{mode:?}, {} to move: Black at {} keeps out of dead", to_move.letter(), p.to_sgf());
                    }
                }
            }
        }
    }
    (fired, checked, bounded)
}

/// Areas two rows deep along the edge, where Black can live or make seki with few stones
/// (the rule must not fire there), and 4x4 areas with more White stones inside.
#[test]
fn every_enclosure_with_a_pairing_is_dead_by_the_exact_search() {
    let (f1, c1, _) = cross_check(0x1_2026_1125, 3000, 2, 7, 35, 20, 20);
    let (f2, c2, _) = cross_check(0x2_2026_1125, 1500, 3, 5, 30, 20, 20);
    eprintln!("the rule ended {} positions before Benson's end; {} checked by the exact search", f1 + f2, c1 + c2);
    assert!(c1 >= 100 && c2 >= 100, "only {c1} and {c2} positions checked");
}

/// A random `rows` x `cols` area of the top edge (Black stones at `black` percent, White at
/// `white`), with a row of the scope below it that is mostly White (stones that may be
/// captured), and below that, outside the scope, Black's stones under those White ones and
/// White's under the row's gaps, and an empty row (their liberties); the columns each side
/// are White's, outside. The White chains of that row touch Black stones
/// that never change: bounding blocks. `None` when a stone has no liberty.
fn bounded_edge_area(rand: &mut impl FnMut() -> u64, rows: u32, cols: u32, black: u64, white: u64) -> Option<(Board, Vec<Point>)> {
    let mut board = Board::new(cols + 2, rows + 3).unwrap();
    let mut inner = Vec::new();
    for p in board.points().collect::<Vec<_>>() {
        let (x, y) = (u32::from(p.x), u32::from(p.y));
        let c = if y == rows + 2 {
            None
        } else if x == 0 || x == cols + 1 {
            Some(Color::White)
        } else if y == rows + 1 {
            // Black below the White stones of the row above, White below its gaps.
            let above = board.get(Point { x: p.x, y: p.y - 1 });
            Some(if above == Some(Color::White) { Color::Black } else { Color::White })
        } else {
            inner.push(p);
            let (b, w) = if y == rows { (0, 65) } else { (black, white) };
            crate::search::tests::random_stone(rand, b, w)
        };
        board.set(p, c).unwrap();
    }
    crate::search::tests::legal_area(board, inner)
}

/// Areas closed by a row of White stones that may be captured, next to Black's outside:
/// the enclosures a bounding block closes (connected through two private links) are dead
/// by the exact search too.
#[test]
fn enclosures_closed_by_bounding_blocks_are_dead_by_the_exact_search() {
    let (f1, c1, b1) = cross_check(0x3_2026_1201, 3000, 2, 5, 25, 25, 0);
    let (f2, c2, b2) = cross_check(0x4_2026_1201, 2000, 3, 4, 20, 30, 0);
    eprintln!("the rule ended {} positions before Benson's end; {} checked, {} closed by a bounding block", f1 + f2, c1 + c2, b1 + b2);
    assert!(b1 + b2 >= 50, "only {} positions with a bounding block checked", b1 + b2);
}

/// A territory `depth` rows deep along the top edge of a board `width` wide, closed by a
/// White row below it (outside the scope), with White stones at `white` and a Black stone
/// at `black` inside: the board, the territory's scope and the Black stone's local index.
fn edge_territory(width: u8, depth: u8, white: &[(u8, u8)], black: (u8, u8)) -> (Board, Scope, Vec<usize>) {
    let mut board = Board::new(u32::from(width), u32::from(depth) + 1).unwrap();
    for x in 0..width {
        board.set(Point { x, y: depth }, Some(Color::White)).unwrap();
    }
    for &(x, y) in white {
        board.set(Point { x, y }, Some(Color::White)).unwrap();
    }
    board.set(Point { x: black.0, y: black.1 }, Some(Color::Black)).unwrap();
    let inner: Vec<Point> = board.points().filter(|p| p.y < depth).collect();
    let scope = Scope::new(&board, inner);
    let stones = vec![scope.local_of(Point { x: black.0, y: black.1 }) as usize];
    (board, scope, stones)
}

/// A territory two rows deep along the edge of a board 7 wide, closed below by a White
/// chain of three stones in the scope that touches Black's outside stones, with a gap each
/// side of it above a White outside stone: the chain is a bounding block with two private
/// links (the gaps), so the Black stone inside is dead at once, and by the exact search.
/// Without one of the gaps the chain cannot be connected, and the rule does not apply.
#[test]
fn a_bounding_block_with_two_links_closes_the_enclosure() {
    let mut board = Board::new(7, 4).unwrap();
    for p in board.points().collect::<Vec<_>>() {
        let c = match (p.x, p.y) {
            (0 | 6, _) | (1 | 5, 3) | (2..=4, 2) => Some(Color::White),
            (2..=4, 3) => Some(Color::Black),
            _ => None,
        };
        board.set(p, c).unwrap();
    }
    board.set(Point { x: 3, y: 1 }, Some(Color::Black)).unwrap();
    let inner: Vec<Point> = board.points().filter(|p| p.y < 3 && (1..=5).contains(&p.x)).collect();
    let scope = Scope::new(&board, inner);
    let stones = vec![scope.local_of(Point { x: 3, y: 1 }) as usize];
    let cells = scope.cells(&board);
    let mut scratch = Scratch::default();
    assert!(dead_by_links_in(&scope, &cells, &stones, Color::Black, &mut scratch, MAX_BORROWERS, None));
    assert!(scratch.bounded, "closed by the bounding block");
    assert_line_reaches_dead_end(&scope, &cells, &stones);
    for mode in [Mode::Kiyaku2011, Mode::Kiyaku1989] {
        for to_move in [Color::Black, Color::White] {
            assert_dead_by_the_exact_search(&scope, &cells, &stones, mode, to_move, 1_000_000);
        }
    }
    // A Black stone in a gap: the chain has one link left.
    board.set(Point { x: 1, y: 2 }, Some(Color::Black)).unwrap();
    let cells = scope.cells(&board);
    assert!(!dead_by_links(&scope, &cells, &stones, Color::Black));
}

/// The exact avoidance search (the links rule off, `budget` nodes) finds that the Black chain
/// `stones` cannot avoid *dead* from `cells` under `mode` with `to_move` first.
fn assert_dead_by_the_exact_search(scope: &Scope, cells: &[u8], stones: &[usize], mode: Mode, to_move: Color, budget: u64) {
    let mut region = Region::new(scope.clone(), mode, budget);
    region.links_end = false;
    let root = State::new(cells.to_vec(), to_move);
    let avoidable = Trap::new(stones.to_vec(), Color::Black, End::Dead).avoids(&mut region, &root);
    assert!(matches!(avoidable, Ok(false)), "{mode:?}, {} to move: {avoidable:?}", to_move.letter());
}

/// The rule's line for the Black chain `stones` from `cells`, not yet in Benson's dead end:
/// each link a legal White move while Black passes, ending in Benson's dead end.
fn assert_line_reaches_dead_end(scope: &Scope, cells: &[u8], stones: &[usize]) {
    let line = links_line(scope, cells, stones, Color::Black).expect("the rule's line");
    let mut plain = Region::new(scope.clone(), Mode::Kiyaku2011, 0);
    plain.links_end = false;
    let mut cur = State::new(cells.to_vec(), Color::Black);
    assert_eq!(plain.end(&cur.cells, stones, Color::Black), None, "not yet in Benson's area");
    for &l in &line {
        cur = plain.play(&cur, None).expect("a pass");
        cur = plain.play(&cur, Some(l)).expect("a link is legal for White");
    }
    assert_eq!(plain.end(&cur.cells, stones, Color::Black), Some(End::Dead));
}

/// A territory two rows deep along the edge, White's stones on its second row every
/// other point, and a Black stone on the first row: not yet in White's unconditional
/// area (five first-row points have no White neighbour), but paired, so dead at once —
/// and dead by the exact search too.
#[test]
fn a_thin_edge_territory_with_an_invader_is_dead_at_once() {
    let (mut board, scope, stones) = edge_territory(9, 2, &[(1, 1), (3, 1), (5, 1), (7, 1)], (4, 0));
    let cells = scope.cells(&board);
    assert!(dead_by_links(&scope, &cells, &stones, Color::Black));
    let mut region = Region::new(scope.clone(), Mode::Kiyaku2011, 0);
    region.links_end = false;
    assert_eq!(region.end(&cells, &stones, Color::Black), None, "not yet in Benson's area");
    assert_dead_by_the_exact_search(&scope, &cells, &stones, Mode::Kiyaku2011, Color::Black, 1_000_000);
    // Without White's stone at db there are too few links to pair the first row.
    board.set(Point { x: 3, y: 1 }, None).unwrap();
    let cells = scope.cells(&board);
    assert!(!dead_by_links(&scope, &cells, &stones, Color::Black));
}

/// A territory two rows deep along the edge between two White stones that never change,
/// with a Black stone on its first row: every first-row point but those at the ends has one
/// link only (the point above it), so no point is paired by links alone; lent points pair
/// them all, one after another from each end, and the exact search agrees that Black is
/// dead. With one end open the first row cannot be paired from that end.
#[test]
fn paired_points_lend_themselves_along_a_thin_territory() {
    let ends = [(0, 0), (0, 1), (9, 0), (9, 1)];
    let (mut board, scope, stones) = edge_territory(10, 2, &ends, (4, 0));
    let cells = scope.cells(&board);
    assert!(dead_by_links(&scope, &cells, &stones, Color::Black));
    assert_line_reaches_dead_end(&scope, &cells, &stones);
    for mode in [Mode::Kiyaku2011, Mode::Kiyaku1989] {
        for to_move in [Color::Black, Color::White] {
            assert_dead_by_the_exact_search(&scope, &cells, &stones, mode, to_move, 3_000_000);
        }
    }
    for p in [Point { x: 9, y: 0 }, Point { x: 9, y: 1 }] {
        board.set(p, None).unwrap();
    }
    let cells = scope.cells(&board);
    assert!(!dead_by_links(&scope, &cells, &stones, Color::Black));
}

/// A territory three rows deep along the edge with two White blocks of two stones on its
/// middle row, each with two links on the row next to the wall, and a Black stone between
/// them on the first row: the first-row corners and the stone's point have two links only
/// once the blocks count as connected (without them, the blocks themselves are inner
/// points with one link each), so the rule fires through the blocks; the exact search
/// agrees that Black is dead.
#[test]
fn blocks_with_two_links_lend_theirs_to_the_rest() {
    let (mut board, scope, stones) = edge_territory(7, 3, &[(1, 1), (2, 1), (4, 1), (5, 1)], (3, 0));
    let cells = scope.cells(&board);
    assert!(dead_by_links(&scope, &cells, &stones, Color::Black));
    // The line: one link per block, then one per paired point.
    assert_line_reaches_dead_end(&scope, &cells, &stones);
    assert_dead_by_the_exact_search(&scope, &cells, &stones, Mode::Kiyaku2011, Color::Black, 2_000_000);
    // With one stone of the left block gone, it has one link only and stays inner: no
    // pairing.
    board.set(Point { x: 2, y: 1 }, None).unwrap();
    let cells = scope.cells(&board);
    assert!(!dead_by_links(&scope, &cells, &stones, Color::Black));
}

/// A territory of 60 points two rows deep along two edges of the board (the top rows and,
/// from the corner down, the two rightmost columns), closed by a White wall that never
/// changes, with two White stones joined to it at its left end and two at the corner (rb,
/// rc), and a Black stone on the first row: more first-row points need lent points than the
/// searches' ends look for, but the rule with its line, asked before a chain's search, pairs
/// them all from the ends, and the line reaches Benson's dead end. Without the corner's
/// stones the first row beyond the Black stone cannot be paired from the corner.
#[test]
fn a_thin_territory_of_60_points_is_paired_from_its_ends() {
    let in_territory = |p: Point| p.y < 2 || (p.x >= 17 && p.y < 13);
    let mut board = Board::new(19, 19).unwrap();
    let points: Vec<Point> = board.points().collect();
    for &p in &points {
        let next_to = points.iter().any(|&q| in_territory(q) && p.x.abs_diff(q.x) + p.y.abs_diff(q.y) == 1);
        if !in_territory(p) && next_to {
            board.set(p, Some(Color::White)).unwrap();
        }
    }
    let corner = [Point { x: 17, y: 1 }, Point { x: 17, y: 2 }];
    for p in [Point { x: 0, y: 0 }, Point { x: 0, y: 1 }].into_iter().chain(corner) {
        board.set(p, Some(Color::White)).unwrap();
    }
    board.set(Point { x: 8, y: 0 }, Some(Color::Black)).unwrap();
    let inner: Vec<Point> = points.iter().copied().filter(|&p| in_territory(p)).collect();
    assert_eq!(inner.len(), 60);
    let scope = Scope::new(&board, inner);
    let stones = vec![scope.local_of(Point { x: 8, y: 0 }) as usize];
    let cells = scope.cells(&board);
    assert!(!dead_by_links(&scope, &cells, &stones, Color::Black), "beyond the searches' ends");
    assert_line_reaches_dead_end(&scope, &cells, &stones);
    for p in corner {
        board.set(p, None).unwrap();
    }
    assert_eq!(links_line(&scope, &scope.cells(&board), &stones, Color::Black), None);
}
