//! Unit positions for the concepts of 第七条, each surrounded by a pass-alive wall so the
//! region under test is small. `X` black, `O` white, `.` empty; rows top to bottom.

use goban::{Board, Color, Point, RuleSet, Status};
use shinpan_adjudicator::{adjudicate, Options};

fn board(rows: &[&str]) -> Board {
    let mut b = Board::new(rows[0].len() as u32, rows.len() as u32).unwrap();
    for (y, r) in rows.iter().enumerate() {
        for (x, ch) in r.chars().enumerate() {
            let c = match ch {
                'X' => Some(Color::Black),
                'O' => Some(Color::White),
                _ => None,
            };
            if c.is_some() {
                b.set(Point::new(x as u8, y as u8), c).unwrap();
            }
        }
    }
    b
}

fn status(b: &Board, rules: RuleSet, p: &str) -> Status {
    adjudicate(b, rules, &Options::default()).status.get(Point::from_sgf(p).unwrap())
}

/// White wall with two eyes (fa, fc) around a black group with eye space `eyes`.
const STRAIGHT_THREE: [&str; 3] = ["...XO.O", "XXXXOOO", "OOOOO.O"];

#[test]
fn two_separate_eyes_are_pass_alive_in_both_rule_sets() {
    let b = board(&[".X.XO.O", "XXXXOOO", "OOOOO.O"]);
    for r in [RuleSet::Japanese2011, RuleSet::Japanese1989] {
        assert_eq!(status(&b, r, "ab"), Status::Alive, "{r}");
        let adj = adjudicate(&b, r, &Options::default());
        assert!(adj.proofs.iter().all(|p| p.color == Color::White || p.status == Status::Alive));
    }
}

#[test]
fn straight_three_lives_only_if_it_moves_first_2011_alive_1989_dead() {
    let b = board(&STRAIGHT_THREE);
    // 2011: the examined side moves first (第七条 解説) and plays the vital point ba.
    assert_eq!(status(&b, RuleSet::Japanese2011, "ab"), Status::Alive);
    let adj = adjudicate(&b, RuleSet::Japanese2011, &Options::default());
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&Point::from_sgf("ab").unwrap())).unwrap();
    assert_eq!(pr.line_text().first().map(String::as_str), Some("B ba"));
    // 1989: the opponent attacks first (要請II-[iii]) and takes the vital point.
    assert_eq!(status(&b, RuleSet::Japanese1989, "ab"), Status::Dead);
}

#[test]
fn one_eye_is_dead_in_both_rule_sets() {
    // Eye space of two points (aa, ba): whoever moves, one eye only.
    let b = board(&["..XXO.O", "XXXXOOO", "OOOOO.O"]);
    for r in [RuleSet::Japanese2011, RuleSet::Japanese1989] {
        assert_eq!(status(&b, r, "ab"), Status::Dead, "{r}");
    }
}
