//! Unit tests of hypothetical play in a region.

use super::*;
use goban::{Board, Point};

/// `Region::play` (captures 第三条, suicide 第四条) agrees with `goban::Board::play` on
/// dense random 7x7 positions, for every empty point and both colours — in particular
/// when the stone touches one opponent chain at several points, where the capture test
/// stops walking a chain at its first liberty.
#[test]
fn play_agrees_with_the_board_on_dense_random_positions() {
    let mut rand = crate::xorshift(0x5eed_1234_abcd_0001);
    let mut multi_touch = 0;
    for _ in 0..400 {
        let mut board = Board::new(7, 7).unwrap();
        for p in board.points().collect::<Vec<_>>() {
            let c = match rand() % 8 {
                0..=2 => Some(Color::Black),
                3..=5 => Some(Color::White),
                _ => None,
            };
            if c.is_some() {
                board.set(p, c).unwrap();
            }
        }
        // Only legal setups: every chain keeps a liberty.
        if board.points().any(|p| board.get(p).is_some() && board.liberty_count(p) == 0) {
            continue;
        }
        let region = Region::new(Scope::whole(&board), Mode::Kiyaku2011, u64::MAX);
        let cells = region.scope.cells(&board);
        for (i, &p) in region.scope.points.iter().enumerate() {
            if board.get(p).is_some() {
                continue;
            }
            for c in [Color::Black, Color::White] {
                let st = State::new(cells.clone(), c);
                let mut heads: Vec<Point> =
                    board.adjacent(p).filter(|&q| board.get(q) == Some(c.opponent())).map(|q| board.chain_id(q).unwrap()).collect();
                let touches = heads.len();
                heads.sort();
                heads.dedup();
                if touches > heads.len() {
                    multi_touch += 1;
                }
                let mut b = board.clone();
                let want = b.play(c, p, false).ok().map(|_| region.scope.cells(&b));
                let got = region.play(&st, Some(i as u32)).map(|s| s.cells);
                assert_eq!(got, want, "{} at {}", c.letter(), p.to_sgf());
            }
        }
    }
    assert!(multi_touch > 100, "the positions exercise moves touching a chain twice: {multi_touch}");
}

/// df-pn's kept children: a re-expansion of a state whose children are kept generates none
/// of them again, so the same search (same moves, same order, same values) uses fewer nodes.
/// On random 5x4 boards, for every chain and both ends under 2011: where df-pn with and
/// without kept children both finish, they answer alike, with no more nodes kept than not,
/// and fewer in all.
#[test]
fn dfpn_re_expands_kept_children_without_generating_them() {
    let (mut compared, mut kept_nodes, mut plain_nodes) = (0, 0u64, 0u64);
    for (board, p, owner, stones, root) in random_5x4_chains(0x4b1d_2026_1129, 60) {
        let region = || region_5x4(&board);
        for goal in [End::Alive, End::Dead] {
            let mut a = region();
            let kept = Prover::new(stones.clone(), owner, goal).prove_dfpn(&mut a, &root, 30_000);
            let mut b = region();
            let plain = Prover::new(stones.clone(), owner, goal).keeping_no_children().prove_dfpn(&mut b, &root, 30_000);
            let (Ok(kept), Ok(plain)) = (kept, plain) else { continue };
            assert_eq!(kept, plain, "{goal:?} for {} at {}", owner.letter(), p.to_sgf());
            assert!(a.nodes <= b.nodes, "{goal:?} for {} at {}: {} nodes kept, {} not", owner.letter(), p.to_sgf(), a.nodes, b.nodes);
            compared += 1;
            kept_nodes += a.nodes;
            plain_nodes += b.nodes;
        }
    }
    assert!(compared > 100, "compared {compared}");
    assert!(kept_nodes < plain_nodes, "{kept_nodes} nodes with kept children, {plain_nodes} without");
    eprintln!("{compared} searches: {kept_nodes} nodes with kept children, {plain_nodes} without");
}

/// df-pn ([`Prover::prove_dfpn`]) on random 5x4 boards, for every chain and both ends
/// under 2011: each proof is confirmed by the exact avoidance search ([`Trap`]: the end
/// is not avoidable) and its line, replayed, reaches the end; and df-pn proves nearly
/// everything the iterative deepening proves within the same nodes.
#[test]
fn dfpn_proofs_hold_against_the_exact_avoidance_search() {
    let (mut proved, mut deepening, mut deepening_only) = (0, 0, 0);
    for (board, p, owner, stones, root) in random_5x4_chains(0xdf0b_2026_1124, 80) {
        let region = || region_5x4(&board);
        for goal in [End::Alive, End::Dead] {
            let mut reg = region();
            let mut df = Prover::new(stones.clone(), owner, goal);
            let found = matches!(df.prove_dfpn(&mut reg, &root, 30_000), Ok(true));
            let mut reg_id = region();
            let by_id = matches!(Prover::new(stones.clone(), owner, goal).prove(&mut reg_id, &root, 30_000), Ok(true));
            deepening += by_id as u32;
            deepening_only += (by_id && !found) as u32;
            if !found {
                continue;
            }
            proved += 1;
            assert_proof_holds("df-pn", &df, &mut reg, &mut region(), &root, &stones, owner, goal, p);
        }
    }
    assert!(proved > 60, "df-pn proved {proved}");
    assert!(deepening_only * 20 <= deepening, "the deepening alone proved {deepening_only} of {deepening}");
    eprintln!("df-pn proved {proved}; the deepening {deepening}, {deepening_only} of them not by df-pn");
}

/// The narrow deepening ([`Prover::narrow`]) on random 5x4 boards, for every chain and both
/// ends under 2011, with the forcing side held to its first two moves: each proof is
/// confirmed by the exact avoidance search ([`Trap`]: the end is not avoidable) and its line,
/// replayed, reaches the end; and the width binds (the full search proves some chains the
/// narrow one does not).
#[test]
fn narrow_proofs_hold_against_the_exact_avoidance_search() {
    let (mut proved, mut full, mut full_only) = (0, 0, 0);
    for (board, p, owner, stones, root) in random_5x4_chains(0x0a77_2026_1130, 80) {
        let region = || region_5x4(&board);
        for goal in [End::Alive, End::Dead] {
            let mut reg = region();
            let mut narrow = Prover::new(stones.clone(), owner, goal);
            narrow.narrow(2);
            let found = matches!(narrow.prove(&mut reg, &root, 30_000), Ok(true));
            let mut reg_full = region();
            let by_full = matches!(Prover::new(stones.clone(), owner, goal).prove(&mut reg_full, &root, 30_000), Ok(true));
            full += by_full as u32;
            full_only += (by_full && !found) as u32;
            if !found {
                continue;
            }
            proved += 1;
            assert_proof_holds("the narrow search", &narrow, &mut reg, &mut region(), &root, &stones, owner, goal, p);
        }
    }
    assert!(proved > 40, "the narrow search proved {proved}");
    assert!(full_only > 0, "the width never bound: the full search proved {full}, all of them narrow too");
    eprintln!("the narrow search proved {proved}; the full one {full}, {full_only} of them not narrow");
}

/// Asserts that the proof `prover` found (`by` names the search) of `goal` for the chain
/// `stones` of `owner` (a stone at `p`) from `root` in `reg` holds: the exact avoidance
/// search ([`Trap`], in the fresh region `exact`) cannot keep the play out of the end, and
/// the proof line, replayed, reaches it.
#[allow(clippy::too_many_arguments)]
fn assert_proof_holds(
    by: &str,
    prover: &Prover,
    reg: &mut Region,
    exact: &mut Region,
    root: &State,
    stones: &[usize],
    owner: Color,
    goal: End,
    p: Point,
) {
    let avoidable = Trap::new(stones.to_vec(), owner, goal).avoids(exact, root);
    assert!(!matches!(avoidable, Ok(true)), "{by} proved {goal:?} for {} at {}, which can be avoided", owner.letter(), p.to_sgf());
    let line = prover.line(reg, root, 200);
    let mut cur = root.clone();
    for &(_, m) in &line {
        cur = reg.play(&cur, reg.local_move(m)).expect("a legal move of the line");
    }
    assert_eq!(reg.end(&cur.cells, stones, owner), Some(goal), "line {line:?}");
}

/// A random 5x4 board (two fifths Black, two fifths White, a fifth empty), or `None` when a
/// chain has no liberty (not a legal setup).
/// Every chain of the random 5x4 boards ([`random_5x4`]) of `draws` draws from `seed`, for the
/// df-pn cross-checks: the board, a stone of the chain, its owner, its local stones in
/// [`region_5x4`], and the root with the owner to move.
fn random_5x4_chains(seed: u64, draws: usize) -> Vec<(Board, Point, Color, Vec<usize>, State)> {
    let mut rand = crate::xorshift(seed);
    let mut out = Vec::new();
    for _ in 0..draws {
        let Some(board) = random_5x4(&mut rand) else { continue };
        let r = region_5x4(&board);
        let all: Vec<Point> = r.scope.points.clone();
        for (p, owner, stones) in chains_within(&board, &r.scope, &all) {
            let root = State::new(r.scope.cells(&board), owner);
            out.push((board.clone(), p, owner, stones, root));
        }
    }
    out
}

/// The whole of a random 5x4 board as one region under 2011, with 60,000 nodes.
fn region_5x4(board: &Board) -> Region {
    Region::new(Scope::whole(board), Mode::Kiyaku2011, 60_000)
}

fn random_5x4(rand: &mut impl FnMut() -> u64) -> Option<Board> {
    let mut board = Board::new(5, 4).unwrap();
    for p in board.points().collect::<Vec<_>>() {
        match rand() % 5 {
            0 | 1 => board.set(p, Some(Color::Black)).unwrap(),
            2 | 3 => board.set(p, Some(Color::White)).unwrap(),
            _ => {}
        }
    }
    let legal = board.points().all(|p| board.get(p).is_none() || board.liberty_count(p) > 0);
    legal.then_some(board)
}

/// A random position for the cross-checks of the searches' rules: a `rows` x `cols` area at
/// the top edge of a board, closed by stones that never change (one row below it and one
/// column each side; each Black one time in `ring_black`, else White), holding a Black stone
/// with probability `black` %, else a White one with probability `white` %. The board and
/// the area's points, or `None` when a chain has no liberty (not a legal setup).
pub(crate) fn random_edge_area(
    rand: &mut impl FnMut() -> u64,
    rows: u32,
    cols: u32,
    black: u64,
    white: u64,
    ring_black: u64,
) -> Option<(Board, Vec<Point>)> {
    let mut board = Board::new(cols + 2, rows + 1).unwrap();
    let mut inner: Vec<Point> = Vec::new();
    for p in board.points().collect::<Vec<_>>() {
        let ring = p.x == 0 || u32::from(p.x) == cols + 1 || u32::from(p.y) == rows;
        let c = if ring {
            Some(if rand().is_multiple_of(ring_black) { Color::Black } else { Color::White })
        } else {
            inner.push(p);
            random_stone(rand, black, white)
        };
        board.set(p, c).unwrap();
    }
    legal_area(board, inner)
}

/// A Black stone with probability `black` percent, a White one with `white` percent, else
/// none (one draw of `rand`).
pub(crate) fn random_stone(rand: &mut impl FnMut() -> u64, black: u64, white: u64) -> Option<Color> {
    let r = rand() % 100;
    if r < black {
        Some(Color::Black)
    } else if r < black + white {
        Some(Color::White)
    } else {
        None
    }
}

/// `board` with the points `inner` of its area, `None` when a stone of it has no liberty.
pub(crate) fn legal_area(board: Board, inner: Vec<Point>) -> Option<(Board, Vec<Point>)> {
    let legal = board.points().all(|p| board.get(p).is_none() || board.liberty_count(p) > 0);
    legal.then_some((board, inner))
}

/// The chains of `board` with a stone among `inner` (the points of `scope`), each once: a stone
/// of it, its colour and its stones' local indices; chains joined to a stone outside the scope
/// are left out.
pub(crate) fn chains_within(board: &Board, scope: &Scope, inner: &[Point]) -> Vec<(Point, Color, Vec<usize>)> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for &p in inner {
        let Some(c) = board.get(p) else { continue };
        if !seen.insert(board.chain_id(p).unwrap()) {
            continue;
        }
        let stones: Vec<usize> = board.chain(p).iter().map(|&q| scope.local_of(q) as usize).collect();
        if !stones.contains(&(NONE as usize)) {
            out.push((p, c, stones));
        }
    }
    out
}

/// [`Prover::follow`] on random 5x4 boards under 2011: for every two chains of one colour and
/// each end, the first chain's proof followed for the second is, whenever it is found, confirmed
/// by the exact avoidance search (the second chain's end is not avoidable) and its line,
/// replayed, reaches that end; a proof of another owner or end is never followed.
#[test]
fn followed_proofs_hold_against_the_exact_avoidance_search() {
    let mut rand = crate::xorshift(0xf011_0a5e_2026_1129);
    let (mut followed, mut tried) = (0, 0);
    for _ in 0..60 {
        let Some(board) = random_5x4(&mut rand) else { continue };
        let region = || Region::new(Scope::whole(&board), Mode::Kiyaku2011, 200_000);
        let r = region();
        let all: Vec<Point> = r.scope.points.clone();
        let chains = chains_within(&board, &r.scope, &all);
        for (pa, owner, a) in &chains {
            for (pb, _, b) in chains.iter().filter(|(pb, c, _)| c == owner && pb != pa) {
                let root = State::new(r.scope.cells(&board), *owner);
                for goal in [End::Alive, End::Dead] {
                    let mut reg = region();
                    let mut pa_prover = Prover::new(a.clone(), *owner, goal);
                    if !matches!(pa_prover.prove(&mut reg, &root, 20_000), Ok(true)) {
                        continue;
                    }
                    let guide = pa_prover.lend(&root);
                    let other = if goal == End::Alive { End::Dead } else { End::Alive };
                    let mut wrong = Prover::new(b.clone(), *owner, other);
                    let limit = reg.nodes + 20_000;
                    assert!(wrong.follow(&mut reg, &root, &guide, limit, 200).is_none(), "a proof of {goal:?} followed for {other:?}");
                    tried += 1;
                    let mut pb_prover = Prover::new(b.clone(), *owner, goal);
                    let limit = reg.nodes + 20_000;
                    let Some(line) = pb_prover.follow(&mut reg, &root, &guide, limit, 200) else { continue };
                    followed += 1;
                    let mut exact = region();
                    let avoidable = Trap::new(b.clone(), *owner, goal).avoids(&mut exact, &root);
                    assert!(
                        !matches!(avoidable, Ok(true)),
                        "{goal:?} of {} at {} followed from {}'s proof, but it can be avoided",
                        owner.letter(),
                        pb.to_sgf(),
                        pa.to_sgf()
                    );
                    let mut cur = root.clone();
                    for &(_, m) in &line {
                        cur = reg.play(&cur, reg.local_move(m)).expect("a legal move of the line");
                    }
                    assert_eq!(reg.end(&cur.cells, b, *owner), Some(goal), "line {line:?}");
                }
            }
        }
    }
    assert!(followed > 20, "followed {followed} of {tried}");
    eprintln!("followed {followed} of {tried}");
}

/// `Region::ko_threats` (2011 draft): the colour it names may retake a ko its 第五条 ban
/// forbids as many times as it has threats; the other keeps its ban, and its pass takes a
/// threat away. White's stone at bb has one liberty, cb, where a black stone would have one
/// liberty too: Black cb takes it, and White bb would take back — a ko.
#[test]
fn ko_threats_lift_the_ban_of_one_colour_as_often_as_it_has_them() {
    let rows = [".XO..", "XO.O.", ".XO..", ".....", "....."];
    let mut board = Board::new(5, 5).unwrap();
    for (y, row) in rows.iter().enumerate() {
        for (x, ch) in row.chars().enumerate() {
            let c = match ch {
                'X' => Some(Color::Black),
                'O' => Some(Color::White),
                _ => None,
            };
            if c.is_some() {
                board.set(Point::new(x as u8, y as u8), c).unwrap();
            }
        }
    }
    let at = |region: &Region, s: &str| {
        let p = Point::from_sgf(s).unwrap();
        region.scope.points.iter().position(|&q| q == p).unwrap() as u32
    };
    for (threats, white_retakes) in [(None, 0), (Some((Color::White, 1)), 1), (Some((Color::White, 2)), 2), (Some((Color::Black, 2)), 0)] {
        let mut region = Region::new(Scope::whole(&board), Mode::Kiyaku2011, u64::MAX);
        region.ko_threats = threats;
        let mut st = State::new(region.scope.cells(&board), Color::Black);
        let mut retaken = 0;
        for round in 0..3 {
            // Black cb takes White's bb (one stone, the taker a single stone in atari): a ko.
            let taken = region.play(&st, Some(at(&region, "cb"))).expect("legal");
            assert_eq!(taken.cells[at(&region, "bb") as usize], EMPTY, "bb captured");
            let Some(back) = region.play(&taken, Some(at(&region, "bb"))) else { break };
            retaken += 1;
            assert_eq!(back.threats_used, round + 1, "each retake at once uses a threat");
            // Black's own ban stands: it may not take back at once.
            assert!(region.play(&back, Some(at(&region, "cb"))).is_none(), "Black keeps its ban");
            // A move each elsewhere lifts every ban; the threats used stay used.
            let (b, w) = (["ae", "be", "ce"][round as usize], ["ee", "ed", "ec"][round as usize]);
            st = region.play(&region.play(&back, Some(at(&region, b))).unwrap(), Some(at(&region, w))).unwrap();
            assert_eq!(st.threats_used, round + 1);
        }
        assert_eq!(retaken, white_retakes, "White retakes at once with threats {threats:?}");
        // A pass of the other side takes a threat away (it joins a kept wall); a pass of the
        // side with the threats keeps them.
        let st = State::new(region.scope.cells(&board), Color::Black);
        let black_passed = region.play(&st, None).unwrap();
        let takes = matches!(threats, Some((Color::White, _)));
        assert_eq!(black_passed.threats_used, u16::from(takes), "{threats:?}");
        let white_takes = matches!(threats, Some((Color::Black, _)));
        let both = region.play(&black_passed, None).unwrap();
        assert_eq!(both.threats_used, u16::from(takes) + u16::from(white_takes), "White's pass: {threats:?}");
    }
}

/// The sealed territory end ([`Region::sealed_dead`]) on random 3x5 areas at the top edge
/// closed by Black stones that never change, for every White chain there, under both rule sets:
/// wherever it ends a line and neither Benson's end nor the links rule's does, the exact
/// avoidance search without it (which only Benson's and the links rule's ends stop) cannot
/// keep White's chain out of *dead*; under 2011 the deepening's proofs of *dead* with it
/// (relevance zones on) hold against that search.
#[test]
fn sealed_territories_end_no_line_the_exact_search_avoids() {
    let mut rand = crate::xorshift(0x5ea1_ed20_2611_3000);
    let (mut ends, mut confirmed, mut proofs) = (0, 0, 0);
    for _ in 0..300 {
        let Some((board, inner)) = random_edge_area(&mut rand, 3, 5, 20, 25, 1) else { continue };
        let scope = Scope::new(&board, inner.clone());
        let cells = scope.cells(&board);
        for (p, owner, stones) in chains_within(&board, &scope, &inner) {
            if owner != Color::White {
                continue;
            }
            for mode in [Mode::Kiyaku2011, Mode::Kiyaku1989] {
                let sealed = || {
                    let mut r = Region::new(scope.clone(), mode, 200_000);
                    r.sealed_board = Some(board.clone());
                    r
                };
                let exact = || Region::new(scope.clone(), mode, 200_000);
                // The owner moves first under 2011, the opponent under 1989 (crate docs).
                let first = if mode == Mode::Kiyaku2011 { owner } else { owner.opponent() };
                let root = State::new(cells.clone(), first);
                let mut with = sealed();
                if with.end(&cells, &stones, owner) == Some(End::Dead)
                    && !with.benson_dead(&cells, &stones, owner)
                    && !with.dead_at_once(&cells, &stones, owner)
                {
                    ends += 1;
                    let avoided = Trap::new(stones.clone(), owner, End::Dead).avoids(&mut exact(), &root);
                    assert!(
                        !matches!(avoided, Ok(true)),
                        "{mode:?}: the sealed territory of W {} ends as dead, which can be avoided",
                        p.to_sgf()
                    );
                    confirmed += u32::from(matches!(avoided, Ok(false)));
                }
                if mode != Mode::Kiyaku2011 {
                    continue;
                }
                let mut prover = Prover::new(stones.clone(), owner, End::Dead);
                let mut reg = sealed();
                if !matches!(prover.prove(&mut reg, &root, 2_000), Ok(true)) {
                    continue;
                }
                proofs += 1;
                assert_proof_holds(
                    "the deepening with sealed territories",
                    &prover,
                    &mut reg,
                    &mut exact(),
                    &root,
                    &stones,
                    owner,
                    End::Dead,
                    p,
                );
            }
        }
    }
    eprintln!("{ends} sealed territory ends ({confirmed} confirmed by the exact search), {proofs} proofs of dead with them");
    assert!(confirmed >= 20, "only {confirmed} of {ends} sealed territory ends confirmed");
    assert!(proofs >= 20, "only {proofs} proofs of dead with sealed territories");
}

/// A region asked for one end only ([`Region::only_end`]) answers that end or undecided, never
/// the other end or seki, and where it answers the decision of every end agrees: on random 5x4
/// boards under 2011, every chain decided with each end alone and with both.
#[test]
fn a_search_for_one_end_answers_that_end_or_nothing() {
    use crate::{decision::decide, Options, Status};
    let mut rand = crate::xorshift(0x0e1d_0f0e_2026_1201);
    let (mut proved, mut others) = ([0usize; 2], 0usize);
    for _ in 0..160 {
        let Some(board) = random_5x4(&mut rand) else { continue };
        let all: Vec<Point> = board.points().collect();
        for (p, owner, stones) in chains_within(&board, &Scope::whole(&board), &all) {
            let opts = Options::default();
            let (full, _) = decide(&mut region_5x4(&board), &board, &stones, owner, &opts, &mut [None, None]);
            for (k, end) in [End::Dead, End::Alive].into_iter().enumerate() {
                let mut region = region_5x4(&board);
                region.only_end = Some(end);
                let (status, _) = decide(&mut region, &board, &stones, owner, &opts, &mut [None, None]);
                assert!(status == end.status() || status == Status::Undecided, "{p:?} asked for {end:?}: {status:?}");
                if status == end.status() {
                    proved[k] += 1;
                    assert!(full == status || full == Status::Undecided, "{p:?}: {status:?} alone, {full:?} with both");
                } else if full != Status::Undecided && full != end.status() {
                    others += 1;
                }
            }
        }
    }
    assert!(proved.iter().all(|&n| n >= 20) && others >= 20, "proved {proved:?}, other statuses {others}");
}

/// df-pn+'s estimate of a new state (`Prover::prove_dfpn`) counts the examined chain's
/// liberties as the board does, up to the cap asked, and none once no stone of it stands
/// (every chain of random 5x4 boards, [`random_5x4`]).
#[test]
fn the_dfpn_estimate_counts_the_examined_chains_liberties() {
    let mut rand = crate::xorshift(0x5eed_d0f9_0001_0002);
    let mut checked = 0;
    for _ in 0..400 {
        let Some(board) = random_5x4(&mut rand) else { continue };
        let region = Region::new(Scope::whole(&board), Mode::Kiyaku2011, u64::MAX);
        let cells = region.scope.cells(&board);
        let w = board.width() as usize;
        for p in board.points() {
            let Some(c) = board.get(p) else { continue };
            let stones: Vec<usize> = board.chain(p).iter().map(|s| region.scope.local[s.y as usize * w + s.x as usize] as usize).collect();
            let libs = board.liberty_count(p) as u32;
            for cap in [2, 4, u32::MAX] {
                assert_eq!(prover::liberties_of(&region.scope, &cells, &stones, c, cap), libs.min(cap), "{} cap {cap}", p.to_sgf());
            }
            let mut captured = cells.clone();
            for &s in &stones {
                captured[s] = crate::benson::EMPTY;
            }
            assert_eq!(prover::liberties_of(&region.scope, &captured, &stones, c, u32::MAX), 0, "{} captured", p.to_sgf());
            checked += 1;
        }
    }
    assert!(checked > 300, "stones checked: {checked}");
}
