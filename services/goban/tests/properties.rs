//! Property tests over random legal games on small boards, every rule set.
//!
//! After every move: each chain on the board has at least one liberty (第三条/第四条);
//! stones on the board = stones played − prisoners; the Zobrist hash and the chain data
//! equal those of a board rebuilt stone by stone with `set`; `check` agrees with `play`;
//! the ko point is refused as a ko; under positional superko no arrangement of stones
//! recurs; and every whole-board repetition (same stones, same player to move) is reported,
//! with the right earlier move and cycle, and nothing else is.

use goban::{Board, Color, FoulRule, Game, Move, Phase, Point, RuleSet};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

fn cells(b: &Board) -> Vec<Option<Color>> {
    b.points().map(|p| b.get(p)).collect()
}

/// Liberties of the chain through `p` by an independent flood fill.
fn flood_liberties(b: &Board, p: Point) -> usize {
    let c = b.get(p).unwrap();
    let mut seen = HashSet::from([p]);
    let mut stack = vec![p];
    let mut libs = HashSet::new();
    while let Some(q) = stack.pop() {
        for n in b.adjacent(q) {
            match b.get(n) {
                None => {
                    libs.insert(n);
                }
                Some(d) if d == c && seen.insert(n) => stack.push(n),
                _ => {}
            }
        }
    }
    libs.len()
}

fn check_board(b: &Board, played: u32, prisoners: u32, rebuild: bool) {
    let mut rebuilt = Board::new(b.width() as u32, b.height() as u32).unwrap();
    let mut n = 0;
    for p in b.points() {
        if let Some(c) = b.get(p) {
            n += 1;
            let fl = flood_liberties(b, p);
            assert!(fl >= 1, "chain at {p} has no liberty\n{b:?}");
            assert_eq!(b.liberty_count(p), fl, "liberties of {p}\n{b:?}");
            if rebuild {
                rebuilt.set(p, Some(c)).unwrap();
            }
        }
    }
    assert_eq!(n, played - prisoners, "stones on board = played − captured");
    assert_eq!(b.stone_count(Color::Black) + b.stone_count(Color::White), n);
    if rebuild {
        assert_eq!(rebuilt.stones_hash(), b.stones_hash(), "hash equals a rebuilt board's");
        assert_eq!(&rebuilt, b);
        for p in b.points() {
            assert_eq!(rebuilt.chain(p).len(), b.chain(p).len());
        }
    }
}

#[allow(clippy::manual_is_multiple_of)]
fn random_game(w: u32, h: u32, rules: RuleSet, choices: &[u16]) {
    let mut g = Game::new(Board::new(w, h).unwrap(), rules, Color::Black);
    let all: Vec<Point> = g.board().points().collect();
    let mut played = 0u32;
    // Position (stones, to move) after each move number.
    let mut positions: Vec<(Vec<Option<Color>>, Color)> = vec![(cells(g.board()), g.to_move())];
    let mut stones_seen: HashSet<Vec<Option<Color>>> = HashSet::from([cells(g.board())]);
    let mut reported = 0usize;
    for &ch in choices {
        if g.phase() == Phase::Ended {
            break;
        }
        let c = g.to_move();
        // check() agrees with play() on an arbitrary point.
        let probe = all[ch as usize % all.len()];
        let mut g2 = g.clone();
        assert_eq!(g.check(c, Move::Play(probe)), g2.play(c, Move::Play(probe)).map(|_| ()).map_err(|f| f.rule));
        if let Some(k) = g.ko_point() {
            assert_eq!(g.check(c, Move::Play(k)), Err(FoulRule::Ko));
        }
        let legal: Vec<Point> = all.iter().copied().filter(|&q| g.check(c, Move::Play(q)).is_ok()).collect();
        let mv = if ch % 16 == 0 || legal.is_empty() { Move::Pass } else { Move::Play(legal[(ch as usize / 16) % legal.len()]) };
        let out = g.play(c, mv).expect("legal move");
        if let Move::Play(_) = mv {
            played += 1;
            let now = cells(g.board());
            if rules == RuleSet::Chinese {
                assert!(stones_seen.insert(now), "positional superko let an arrangement recur");
            }
        }
        let rebuild = w * h <= 36 || g.move_number() % 8 == 0 || g.phase() == Phase::Ended;
        check_board(g.board(), played, g.prisoners(Color::Black) + g.prisoners(Color::White), rebuild);
        // Repetition: independent search for the latest earlier equal position.
        let n = g.move_number() as usize;
        let here = (cells(g.board()), g.to_move());
        let earlier = positions.iter().rposition(|q| *q == here);
        positions.push(here);
        let expected = earlier.filter(|&f| g.history()[f..n].iter().any(|&(_, m)| m != Move::Pass));
        match (expected, &out.repetition) {
            (None, None) => {}
            (Some(f), Some(r)) => {
                assert_eq!((r.first as usize, r.again as usize), (f, n));
                assert_eq!(r.sequence.as_slice(), &g.history()[f..n]);
                // cycles: the largest k with the last k·L moves periodic with period L
                // and the positions repeating throughout.
                let l = n - f;
                let mut k = 1;
                while (k + 1) * l <= n
                    && (n - (k + 1) * l..n - k * l)
                        .all(|i| g.history()[i] == g.history()[i + l] && positions[i + 1] == positions[i + 1 + l])
                {
                    k += 1;
                }
                assert!(r.cycles as usize <= k, "cycles {} > {k}", r.cycles);
                reported += 1;
            }
            (e, r) => panic!("repetition mismatch at move {n}: expected {e:?}, reported {r:?}"),
        }
        assert_eq!(g.repetitions().len(), reported);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_games_keep_the_invariants(
        w in 2u32..=6, h in 2u32..=6, r in 0usize..5,
        choices in proptest::collection::vec(any::<u16>(), 0..160),
    ) {
        random_game(w, h, RuleSet::ALL[r], &choices);
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_games_on_a_9x9_board(
        r in 0usize..5,
        choices in proptest::collection::vec(any::<u16>(), 50..250),
    ) {
        random_game(9, 9, RuleSet::ALL[r], &choices);
    }
}

/// A deterministic long random game on a 3x3 board exercises repetitions and cycle counts
/// (small boards repeat often).
#[test]
fn tiny_board_repetitions_are_all_found() {
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut counts: HashMap<u32, usize> = HashMap::new();
    for game in 0..16 {
        let choices: Vec<u16> = (0..300)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 16) as u16 | 1 // odd: never the forced pass of `ch % 16 == 0`
            })
            .collect();
        let rules = if game % 2 == 0 { RuleSet::Japanese2011 } else { RuleSet::JapaneseJungo };
        random_game(3, 3, rules, &choices);
        let mut g = Game::new(Board::new(3, 3).unwrap(), rules, Color::Black);
        for &ch in &choices {
            let c = g.to_move();
            let legal: Vec<Point> = g.board().points().filter(|&q| g.check(c, Move::Play(q)).is_ok()).collect();
            let mv = if legal.is_empty() { Move::Pass } else { Move::Play(legal[(ch as usize / 16) % legal.len()]) };
            if g.play(c, mv).is_err() || g.phase() == Phase::Ended {
                break;
            }
        }
        for r in g.repetitions() {
            *counts.entry(r.cycles).or_default() += 1;
        }
    }
    eprintln!("repetitions by cycle count: {counts:?}");
    assert!(counts.get(&1).copied().unwrap_or(0) > 0, "no repetition at all on 3x3: {counts:?}");
}
