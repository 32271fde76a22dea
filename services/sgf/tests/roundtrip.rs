//! Writing and reading back: random legal games survive `to_sgf` → `parse` unchanged, and
//! replaying the parsed record gives the same game.

use goban::{Board, Color, Game, GameResult, Move, Point, RuleSet};
use proptest::prelude::*;
use shinpan_sgf::{Record, RecordMove, TerritoryMarks};

/// Plays a random legal game on a `w × h` board from `choices`: each choice picks a point
/// (the first legal one from there, scanning the board) or, one time in twelve, a pass;
/// never a third consecutive pass, so play never stops (第九条).
fn random_game(w: u8, h: u8, setup: &[(u16, bool)], choices: &[u16]) -> (Record, Game) {
    let mut rec = Record::new(w, h).unwrap();
    let mut board = Board::new(w as u32, h as u32).unwrap();
    let n = w as usize * h as usize;
    for &(s, black) in setup {
        let p = Point::new((s as usize % n % w as usize) as u8, (s as usize % n / w as usize) as u8);
        if board.get(p).is_none() {
            let c = if black { Color::Black } else { Color::White };
            board.set(p, Some(c)).unwrap();
            if black {
                rec.setup.black.push(p)
            } else {
                rec.setup.white.push(p)
            }
        }
    }
    rec.setup.black.sort();
    rec.setup.white.sort();
    let first = if setup.is_empty() { Color::Black } else { Color::White };
    if !setup.is_empty() {
        rec.to_play = Some(first);
    }
    let mut game = Game::new(board, RuleSet::Japanese2011, first);
    for (k, &c) in choices.iter().enumerate() {
        let color = game.to_move();
        let mut mv = Move::Pass;
        if c % 12 != 0 || game.consecutive_passes() >= 2 {
            for j in 0..n {
                let i = (c as usize + j) % n;
                let p = Point::new((i % w as usize) as u8, (i / w as usize) as u8);
                if game.check(color, Move::Play(p)).is_ok() {
                    mv = Move::Play(p);
                    break;
                }
            }
        }
        if mv == Move::Pass && game.consecutive_passes() >= 2 {
            break;
        }
        game.play(color, mv).expect("checked move is legal");
        let comment = (c % 7 == 0).then(|| format!("move {k}: a ] and a \\ and\nnewline"));
        rec.moves.push(RecordMove { color, mv, comment });
    }
    (rec, game)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn write_then_read_is_the_identity_on_random_legal_games(
        w in 2u8..=25, h in 2u8..=25,
        setup in prop::collection::vec((any::<u16>(), any::<bool>()), 0..6),
        choices in prop::collection::vec(any::<u16>(), 0..150),
        komi in prop::sample::select(vec![None, Some(0.0), Some(6.5), Some(-3.5), Some(7.0)]),
        marks in any::<bool>(),
    ) {
        let (mut rec, game) = random_game(w, h, &setup, &choices);
        rec.info.komi = komi;
        rec.info.rules = Some(RuleSet::Japanese2011.sgf_ru().to_string());
        rec.info.black_name = Some("黒 [Kuro]".to_string());
        rec.info.white_name = Some("Shiro\\".to_string());
        rec.info.date = Some("2026-11-21".to_string());
        rec.set_result(&GameResult::Win { winner: Color::White, margin: 2.5 });
        rec.comment = Some("root: ]".to_string());
        if marks {
            rec.territory = Some(TerritoryMarks { black: vec![Point::new(0, 0)], white: vec![Point::new(1, 1)] });
        }
        let text = rec.to_sgf();
        let back = Record::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back, &rec, "record survives writing and reading:\n{}", text);
        prop_assert_eq!(back.result(), Some(GameResult::Win { winner: Color::White, margin: 2.5 }));
        let replayed = back.to_game(RuleSet::Japanese2011).unwrap();
        prop_assert!(replayed.foul.is_none(), "{:?}", replayed.foul);
        prop_assert_eq!(replayed.game.board(), game.board());
        prop_assert_eq!(replayed.game.history(), game.history());
        prop_assert_eq!(replayed.game.to_move(), game.to_move());
        prop_assert_eq!(replayed.game.prisoners(Color::Black), game.prisoners(Color::Black));
        prop_assert_eq!(replayed.game.prisoners(Color::White), game.prisoners(Color::White));
    }
}

#[test]
fn results_are_written_in_sgf_syntax() {
    let mut rec = Record::new(9, 9).unwrap();
    for (r, text) in [
        (GameResult::Win { winner: Color::Black, margin: 3.5 }, "RE[B+3.5]"),
        (GameResult::Resignation { winner: Color::White }, "RE[W+R]"),
        (GameResult::Jigo, "RE[0]"),
        (GameResult::NoResult, "RE[Void]"),
        (GameResult::Forfeit { winner: Color::Black }, "RE[B+F]"),
    ] {
        rec.set_result(&r);
        let sgf = rec.to_sgf();
        assert!(sgf.contains(text), "{sgf}");
        assert_eq!(Record::parse(&sgf).unwrap().result(), Some(r));
    }
    let rect = Record::new(7, 3).unwrap().to_sgf();
    assert!(rect.contains("SZ[7:3]"), "{rect}");
    assert_eq!(Record::parse(&rect).unwrap().width, 7);
}
