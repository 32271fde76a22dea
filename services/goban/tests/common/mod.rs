//! Shared helpers for the goban integration tests.
#![allow(dead_code)]

pub mod sgf_lite;

use goban::{Board, Color, Game, Move, Point, RuleSet};

/// SGF point.
pub fn p(s: &str) -> Point {
    Point::from_sgf(s).unwrap()
}

/// A board from rows of text: `X` black, `O` white, `.` (or any other char) empty.
pub fn board(rows: &[&str]) -> Board {
    let h = rows.len() as u32;
    let w = rows[0].chars().count() as u32;
    let mut b = Board::new(w, h).unwrap();
    for (y, row) in rows.iter().enumerate() {
        assert_eq!(row.chars().count() as u32, w, "ragged diagram");
        for (x, ch) in row.chars().enumerate() {
            let stone = match ch {
                'X' | 'x' => Some(Color::Black),
                'O' | 'o' => Some(Color::White),
                _ => None,
            };
            if stone.is_some() {
                b.set(Point::new(x as u8, y as u8), stone).unwrap();
            }
        }
    }
    b
}

/// The board as rows of text (`X`, `O`, `.`).
pub fn rows(b: &Board) -> Vec<String> {
    (0..b.height())
        .map(|y| {
            (0..b.width())
                .map(|x| match b.get(Point::new(x, y)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                })
                .collect()
        })
        .collect()
}

/// Parses "B dd", "W pass" style moves separated by commas/semicolons.
pub fn moves(s: &str) -> Vec<(Color, Move)> {
    s.split([',', ';'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            let (c, m) = t.split_once(' ').unwrap();
            let c = match c {
                "B" => Color::Black,
                "W" => Color::White,
                _ => panic!("colour {c}"),
            };
            let m = if m == "pass" { Move::Pass } else { Move::Play(p(m)) };
            (c, m)
        })
        .collect()
}

/// Plays every move, panicking with the foul if one is illegal.
pub fn play_all(g: &mut Game, s: &str) {
    for (c, m) in moves(s) {
        if let Err(f) = g.play(c, m) {
            panic!("unexpected foul: {f}");
        }
    }
}

/// A game on `rows` with `to_move` first.
pub fn game(rows_: &[&str], rules: RuleSet, to_move: Color) -> Game {
    Game::new(board(rows_), rules, to_move)
}
