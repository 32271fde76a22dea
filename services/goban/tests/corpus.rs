//! The engine replays every real record in `../shared/games` under `japanese-2011`
//! without a foul, and its captures agree with the position a fresh board rebuilt from the
//! stones gives (hash, stone counts).

mod common;

use common::sgf_lite::{corpus, corpus_dir, Event};
use goban::{Board, Color, Game, Move, RuleSet};

/// Replays one record; `Err` names the first foul.
/// Returns the game and the number of stones on the board when the first move was played.
fn replay(rec: &common::sgf_lite::Record, rules: RuleSet) -> Result<(Game, u32), String> {
    let board = Board::new(rec.width, rec.height).map_err(|e| e.to_string())?;
    let mut g = Game::new(board, rules, Color::Black);
    let mut started = false;
    let mut initial = 0;
    for e in &rec.events {
        match e {
            Event::Setup(ch) if !started => {
                for &(p, c) in ch {
                    let mut b = g.board().clone();
                    b.set(p, c).map_err(|e| e.to_string())?;
                    let tm = g.to_move();
                    g = Game::new(b, rules, tm);
                }
                // Handicap stones without PL: White moves first (第二条3).
                if g.board().stone_count(Color::Black) > 0 && g.board().stone_count(Color::White) == 0 {
                    g.set_to_move(Color::White);
                }
            }
            Event::Setup(ch) => g.setup(ch).map_err(|e| e.to_string())?,
            Event::ToMove(c) => g.set_to_move(*c),
            Event::Move(c, m) => {
                if !started {
                    initial = g.board().stone_count(Color::Black) + g.board().stone_count(Color::White);
                    if *c != g.to_move() {
                        g.set_to_move(*c);
                    }
                }
                started = true;
                g.play(*c, *m).map_err(|f| f.to_string())?;
            }
        }
    }
    Ok((g, initial))
}

#[test]
fn every_real_record_replays_without_a_foul() {
    let recs = corpus(&corpus_dir());
    assert!(recs.len() >= 150, "corpus not found at {}", corpus_dir().display());
    let mut fouls = Vec::new();
    let mut moves = 0;
    for (name, rec) in &recs {
        match replay(rec, RuleSet::Japanese2011) {
            Ok((g, initial)) => {
                moves += g.move_number();
                for r in g.repetitions() {
                    eprintln!("{name}: position after move {} recurs after move {} (cycles {})", r.first, r.again, r.cycles);
                }
                let b = g.board();
                let mut rebuilt = Board::new(b.width() as u32, b.height() as u32).unwrap();
                for p in b.points() {
                    if let Some(c) = b.get(p) {
                        rebuilt.set(p, Some(c)).unwrap();
                    }
                }
                assert_eq!(rebuilt.stones_hash(), b.stones_hash(), "{name}");
                let played = g.history().iter().filter(|(_, m)| *m != Move::Pass).count() as u32;
                let mid_game_setup = rec.events.iter().filter(|e| matches!(e, Event::Setup(_))).count() > 1;
                if !mid_game_setup {
                    assert_eq!(
                        b.stone_count(Color::Black) + b.stone_count(Color::White),
                        initial + played - g.prisoners(Color::Black) - g.prisoners(Color::White),
                        "{name}: stones on the board = setup + played − prisoners"
                    );
                }
            }
            Err(f) => fouls.push(format!("{name}: {f}")),
        }
    }
    assert!(moves > 20_000, "only {moves} moves replayed");
    assert!(fouls.is_empty(), "records rejected:\n{}", fouls.join("\n"));
}
