//! Integration tests of [`goban::Game`]: one or more tests per rule (articles of
//! kiyaku-2011-draft-commentary.txt; 1989 postulates for `japanese-1989`).

mod common;

use common::{board, game, moves, p, play_all, rows};
use goban::{handicap_points, Color, FoulRule, Game, HandicapError, Move, Phase, Point, RuleSet};

const B: Color = Color::Black;
const W: Color = Color::White;

fn play(g: &mut Game, c: Color, s: &str) -> goban::MoveOutcome {
    let mv = if s == "pass" { Move::Pass } else { Move::Play(p(s)) };
    g.play(c, mv).unwrap_or_else(|f| panic!("unexpected foul: {f}"))
}

/// Asserts `c` playing `s` is the foul `rule` and that nothing changed.
fn assert_foul(g: &mut Game, c: Color, s: &str, rule: FoulRule) -> goban::Foul {
    let mv = if s == "pass" { Move::Pass } else { Move::Play(p(s)) };
    let before_rows = rows(g.board());
    let (n, tm, hist, pr, ph, ko) =
        (g.move_number(), g.to_move(), g.history().len(), [g.prisoners(B), g.prisoners(W)], g.phase(), g.ko_point());
    assert_eq!(g.check(c, mv), Err(rule), "check() disagrees");
    let f = g.play(c, mv).expect_err("expected a foul");
    assert_eq!(f.rule, rule, "{f}");
    assert_eq!(f.move_number, n + 1);
    assert_eq!(f.color, c);
    assert_eq!(f.mv, mv);
    assert_eq!(rows(g.board()), before_rows, "foul changed the board");
    assert_eq!((g.move_number(), g.to_move(), g.history().len()), (n, tm, hist));
    assert_eq!([g.prisoners(B), g.prisoners(W)], pr);
    assert_eq!((g.phase(), g.ko_point()), (ph, ko));
    f
}

// ---- 第二条: alternate play, passes ------------------------------------------------

#[test]
fn alternate_play_and_history() {
    let mut g = Game::new(board(&["...", "...", "..."]), RuleSet::Japanese2011, B);
    let o = play(&mut g, B, "bb");
    assert_eq!(o.move_number, 1);
    assert_eq!(g.to_move(), W);
    play(&mut g, W, "pass");
    assert_eq!(g.passes(W), 1);
    assert_eq!(g.passes(B), 0);
    assert_eq!(g.history(), moves("B bb, W pass").as_slice());
    assert_eq!(g.move_number(), 2);
    assert_eq!(g.board().get(p("bb")), Some(B));
}

// ---- 第三条: captures and prisoners -------------------------------------------------

#[test]
fn single_capture_adds_a_prisoner() {
    let mut g = game(&[".X...", "XOX..", ".....", ".....", "....."], RuleSet::Japanese2011, B);
    let o = play(&mut g, B, "bc");
    assert_eq!(o.captured, vec![p("bb")]);
    assert_eq!(g.prisoners(B), 1);
    assert_eq!(g.prisoners(W), 0);
    assert_eq!(g.board().get(p("bb")), None);
    assert_eq!(o.ko, None);
}

#[test]
fn one_move_captures_four_chains() {
    let mut g = game(&[".XOX..", "XO.OX.", ".XOX..", "..X..."], RuleSet::Japanese2011, B);
    let mut o = play(&mut g, B, "cb");
    o.captured.sort();
    let mut want = vec![p("ca"), p("bb"), p("db"), p("cc")];
    want.sort();
    assert_eq!(o.captured, want);
    assert_eq!(g.prisoners(B), 4);
    assert_eq!(rows(g.board()), vec![".X.X..", "X.X.X.", ".X.X..", "..X..."]);
    assert_eq!(g.board().stone_count(W), 0);
}

#[test]
fn capture_of_a_two_stone_chain_is_not_a_ko() {
    // White bb-cb is captured by Black db: two stones, so no ko ban for White.
    let mut g = game(&[".XX..", "XOO..", ".XX..", "....."], RuleSet::Japanese2011, B);
    let o = play(&mut g, B, "db");
    assert_eq!(o.captured.len(), 2);
    assert_eq!(o.ko, None);
    assert_eq!(g.ko_point(), None);
    assert_eq!(g.prisoners(B), 2);
}

// ---- 第四条: suicide -----------------------------------------------------------------

#[test]
fn single_stone_suicide_is_a_foul() {
    let mut g = game(&[".X.", "X..", "..."], RuleSet::Japanese2011, W);
    let f = assert_foul(&mut g, W, "aa", FoulRule::Suicide);
    assert_eq!(f.rule.article(), "第四条");
    assert_eq!(f.to_string(), "move 1: white at aa: suicide is forbidden (第四条)");
}

#[test]
fn chain_suicide_is_a_foul_under_every_rule_set_but_japanese_jungo() {
    for r in RuleSet::ALL {
        let mut g = game(&["O.X", "XX.", "..."], r, W);
        if r.allow_suicide() {
            let o = play(&mut g, W, "ba");
            let mut c = o.captured.clone();
            c.sort();
            assert_eq!(c, vec![p("aa"), p("ba")]);
            assert_eq!(rows(g.board()), vec!["..X", "XX.", "..."]);
            // The opponent takes the suicided stones (純碁試案 remark C).
            assert_eq!(g.prisoners(B), 2, "{r}");
            assert_eq!(g.to_move(), B);
        } else {
            assert_foul(&mut g, W, "ba", FoulRule::Suicide);
        }
    }
    assert!(RuleSet::JapaneseJungo.allow_suicide());
}

#[test]
fn a_move_without_liberties_that_captures_is_legal() {
    // 第四条 解説: the □ points may be played because they take stones first.
    let mut g = game(&[".XO", "XO.", "O.."], RuleSet::Japanese2011, W);
    let o = play(&mut g, W, "aa");
    assert_eq!(o.captured.len(), 2);
    assert_eq!(g.prisoners(W), 2);
    assert_eq!(g.board().liberty_count(p("aa")), 2);
}

// ---- 第五条: ko --------------------------------------------------------------------------

fn ko_game(r: RuleSet) -> Game {
    // . X O . .
    // X O . O .
    // . X O . .
    game(&[".XO..", "XO.O.", ".XO..", ".....", "....."], r, B)
}

#[test]
fn immediate_ko_recapture_is_a_foul() {
    let mut g = ko_game(RuleSet::Japanese2011);
    let o = play(&mut g, B, "cb");
    assert_eq!(o.ko, Some(p("bb")));
    assert_eq!(g.ko_point(), Some(p("bb")));
    let f = assert_foul(&mut g, W, "bb", FoulRule::Ko);
    assert_eq!(f.to_string(), "move 2: white at bb: ko recapture forbidden (第五条)");
    assert_eq!(FoulRule::Ko.article(), "第五条");
}

#[test]
fn ko_may_be_retaken_after_a_move_elsewhere() {
    let mut g = ko_game(RuleSet::Japanese2011);
    play_all(&mut g, "B cb, W ee, B ed");
    assert_eq!(g.ko_point(), None);
    let o = play(&mut g, W, "bb");
    assert_eq!(o.captured, vec![p("cb")]);
    assert_eq!(o.ko, Some(p("cb")));
    // And now Black may not retake at once.
    assert_foul(&mut g, B, "cb", FoulRule::Ko);
}

#[test]
fn ko_may_be_retaken_after_a_pass() {
    // 第五条 解説: 白がパスしてから取り返す例 (白2:パス).
    let mut g = ko_game(RuleSet::Japanese2011);
    play_all(&mut g, "B cb, W pass, B ee");
    play(&mut g, W, "bb");
    assert_eq!(g.prisoners(W), 1);

    // Even when Black passes too (two passes do not stop play under japanese-2011).
    let mut g = ko_game(RuleSet::Japanese2011);
    play_all(&mut g, "B cb, W pass, B pass");
    assert_eq!(g.phase(), Phase::Playing);
    play(&mut g, W, "bb");
}

#[test]
fn ko_ban_belongs_to_the_player_whose_stone_was_taken() {
    let mut g = ko_game(RuleSet::Japanese2011);
    play(&mut g, B, "cb");
    // Black filling the ko himself is not a ko foul (it is not White's turn, though).
    assert_eq!(g.check(B, Move::Play(p("bb"))), Err(FoulRule::OutOfTurn));
    assert_eq!(g.check(W, Move::Play(p("ee"))), Ok(()));
}

// ---- positional superko (chinese) -------------------------------------------------------------

#[test]
fn superko_forbids_recreating_a_position_that_basic_ko_allows() {
    // Black takes the ko, both pass, White retakes: the stones are those before Black's
    // capture. Legal under 第五条 (after a pass), a superko foul under the Chinese rules.
    let mut g = ko_game(RuleSet::Chinese);
    play_all(&mut g, "B cb, W pass, B pass");
    assert_eq!(g.phase(), Phase::Stopped);
    let f = assert_foul(&mut g, W, "bb", FoulRule::Superko);
    assert!(f.to_string().contains("superko"), "{f}");

    let mut g = ko_game(RuleSet::Japanese2011);
    play_all(&mut g, "B cb, W pass, B pass");
    let o = play(&mut g, W, "bb");
    // ... but it is a whole-board repetition of the starting position, reported.
    let r = o.repetition.expect("repetition");
    assert_eq!((r.first, r.again, r.cycles), (0, 4, 1));
    assert_eq!(r.sequence, moves("B cb, W pass, B pass, W bb"));
}

#[test]
fn superko_rule_is_a_parameter_and_also_reports_basic_ko() {
    let mut g = ko_game(RuleSet::Chinese);
    play(&mut g, B, "cb");
    // The immediate retake is reported as the basic ko (第五条), which superko includes.
    assert_foul(&mut g, W, "bb", FoulRule::Ko);
    play_all(&mut g, "W ee, B ed");
    play(&mut g, W, "bb");
}

// ---- fouls (第十二条) ---------------------------------------------------------------------------

#[test]
fn every_foul_kind_is_reported_and_not_applied() {
    let mut g = Game::new(goban::Board::new(9, 9).unwrap(), RuleSet::Japanese2011, B);
    let f = assert_foul(&mut g, W, "ee", FoulRule::OutOfTurn);
    assert_eq!(f.to_string(), "move 1: white at ee: play out of turn (第二条)");
    play(&mut g, B, "ee");
    assert_foul(&mut g, W, "ee", FoulRule::Occupied);
    let off = g.play(W, Move::Play(Point::new(9, 3))).unwrap_err();
    assert_eq!(off.rule, FoulRule::OffBoard);
    assert_eq!(off.move_number, 2);
    play_all(&mut g, "W pass, B pass, W pass, B pass");
    assert_eq!(g.phase(), Phase::Ended);
    let f = assert_foul(&mut g, W, "aa", FoulRule::AfterEnd);
    assert_eq!(f.to_string(), "move 6: white at aa: play after the end of the game (第九条)");
    let f = assert_foul(&mut g, W, "pass", FoulRule::AfterEnd);
    assert_eq!(f.to_string(), "move 6: white pass: play after the end of the game (第九条)");
    // Codes and articles.
    let codes: Vec<_> = FoulRule::ALL.iter().map(|r| r.code()).collect();
    assert_eq!(codes, ["off-board", "occupied", "suicide", "ko", "superko", "out-of-turn", "after-end"]);
    for r in FoulRule::ALL {
        assert_eq!(FoulRule::from_code(r.code()), Some(r));
        assert!(!r.article().is_empty() && !r.description().is_empty());
    }
    assert_eq!(FoulRule::Occupied.article(), "第二条");
}

// ---- end of play (第九条; 1989 要請I-[vi]) --------------------------------------------------------

#[test]
fn japanese_2011_three_passes_stop_four_end() {
    let mut g = Game::new(goban::Board::new(5, 5).unwrap(), RuleSet::Japanese2011, B);
    play_all(&mut g, "B cc, W pass, B pass");
    assert_eq!(g.phase(), Phase::Playing);
    let o = play(&mut g, W, "pass");
    assert_eq!((o.phase, g.consecutive_passes()), (Phase::Stopped, 3));
    // No agreement: the player to move (Black) continues (第九条).
    assert_foul(&mut g, W, "dd", FoulRule::OutOfTurn);
    let o = play(&mut g, B, "dd");
    assert_eq!((o.phase, g.consecutive_passes()), (Phase::Playing, 0));
    play_all(&mut g, "W pass, B pass, W pass");
    assert_eq!(g.phase(), Phase::Stopped);
    let o = play(&mut g, B, "pass");
    assert_eq!(o.phase, Phase::Ended, "fourth consecutive pass ends the game (第九条2)");
    assert_foul(&mut g, W, "pass", FoulRule::AfterEnd);
}

#[test]
fn japanese_2011_resume_keeps_counting_passes_and_agreement_ends() {
    let mut g = Game::new(goban::Board::new(5, 5).unwrap(), RuleSet::Japanese2011, B);
    play_all(&mut g, "B pass, W pass, B pass");
    assert_eq!(g.phase(), Phase::Stopped);
    g.resume();
    assert_eq!(g.phase(), Phase::Playing);
    assert_eq!(g.to_move(), W);
    play(&mut g, W, "pass");
    assert_eq!(g.phase(), Phase::Ended);

    let mut g = Game::new(goban::Board::new(5, 5).unwrap(), RuleSet::Japanese2011, B);
    play_all(&mut g, "B pass, W pass, B pass");
    g.agree();
    assert_eq!(g.phase(), Phase::Ended);
}

#[test]
fn japanese_1989_two_passes_stop_and_the_opponent_of_the_asker_moves_first() {
    let mut g = Game::new(goban::Board::new(5, 5).unwrap(), RuleSet::Japanese1989, B);
    play_all(&mut g, "B cc, W pass");
    assert_eq!(g.phase(), Phase::Playing);
    play(&mut g, B, "pass");
    assert_eq!(g.phase(), Phase::Stopped);
    assert_eq!(g.to_move(), W);
    // White (the player to move) asks to resume: Black moves first (要請I-[vi]).
    g.resume_by(W);
    assert_eq!(g.phase(), Phase::Playing);
    assert_eq!(g.to_move(), B);
    assert_eq!(g.consecutive_passes(), 0);
    assert_foul(&mut g, W, "dd", FoulRule::OutOfTurn);
    play(&mut g, B, "dd");
    // Two more passes stop play again.
    play_all(&mut g, "W pass, B pass");
    assert_eq!(g.phase(), Phase::Stopped);
    // Black asks: White (the player to move anyway) moves first.
    g.resume_by(B);
    assert_eq!(g.to_move(), W);
    // Under japanese-2011 the asker does not matter: the player to move continues (第九条).
    let mut g = Game::new(goban::Board::new(5, 5).unwrap(), RuleSet::Japanese2011, B);
    play_all(&mut g, "B pass, W pass, B pass");
    g.resume_by(W);
    assert_eq!(g.to_move(), W);
}

#[test]
fn japanese_1989_a_move_after_the_stop_in_a_record_means_play_resumed() {
    let mut g = Game::new(goban::Board::new(5, 5).unwrap(), RuleSet::Japanese1989, B);
    play_all(&mut g, "B cc, W pass, B pass");
    assert_eq!((g.phase(), g.to_move()), (Phase::Stopped, W));
    // Black plays although White was to move: White asked to resume.
    let o = play(&mut g, B, "dd");
    assert_eq!(o.phase, Phase::Playing);
    assert_eq!(g.to_move(), W);
}

#[test]
fn end_of_play_per_rule_set() {
    for (r, after_two) in [
        (RuleSet::Japanese2011, Phase::Playing),
        (RuleSet::Japanese1989, Phase::Stopped),
        (RuleSet::Chinese, Phase::Stopped),
        (RuleSet::Jungo, Phase::Ended),
        (RuleSet::JapaneseJungo, Phase::Ended),
    ] {
        let mut g = Game::new(goban::Board::new(5, 5).unwrap(), r, B);
        play_all(&mut g, "B cc, W pass");
        assert_eq!(g.phase(), Phase::Playing, "{r}");
        play(&mut g, B, "pass");
        assert_eq!(g.phase(), after_two, "{r}: after two consecutive passes");
    }
    // Chinese: a move after the stop resumes play with the player to move.
    let mut g = Game::new(goban::Board::new(5, 5).unwrap(), RuleSet::Chinese, B);
    play_all(&mut g, "B pass, W pass");
    assert_foul(&mut g, W, "cc", FoulRule::OutOfTurn);
    play(&mut g, B, "cc");
    assert_eq!(g.phase(), Phase::Playing);
    // Jungo: two passes end the game for good.
    let mut g = Game::new(goban::Board::new(5, 5).unwrap(), RuleSet::Jungo, B);
    play_all(&mut g, "B pass, W pass");
    assert_foul(&mut g, B, "cc", FoulRule::AfterEnd);
}

// ---- 第六条: resignation ------------------------------------------------------------------------

#[test]
fn resignation_ends_the_game() {
    let mut g = Game::new(goban::Board::new(9, 9).unwrap(), RuleSet::Japanese2011, B);
    play(&mut g, B, "ee");
    assert_eq!(g.result(), None);
    g.resign(W).unwrap();
    assert_eq!(g.phase(), Phase::Ended);
    assert_eq!(g.resigned(), Some(W));
    assert_eq!(g.result(), Some(goban::GameResult::Resignation { winner: B }));
    assert_eq!(g.result().unwrap().to_sgf(), "B+R");
    assert_foul(&mut g, W, "dd", FoulRule::AfterEnd);
    assert_eq!(g.resign(B), Err(FoulRule::AfterEnd));
}

// ---- handicap (第二条3) --------------------------------------------------------------------------

#[test]
fn handicap_fixed_placement_and_white_first() {
    let pts = |v: &[&str]| v.iter().map(|s| p(s)).collect::<Vec<_>>();
    assert_eq!(handicap_points(19, 19, 2).unwrap(), pts(&["pd", "dp"]));
    assert_eq!(handicap_points(19, 19, 3).unwrap(), pts(&["pd", "dp", "pp"]));
    assert_eq!(handicap_points(19, 19, 4).unwrap(), pts(&["pd", "dp", "pp", "dd"]));
    assert_eq!(handicap_points(19, 19, 5).unwrap(), pts(&["pd", "dp", "pp", "dd", "jj"]));
    assert_eq!(handicap_points(19, 19, 6).unwrap(), pts(&["pd", "dp", "pp", "dd", "dj", "pj"]));
    assert_eq!(handicap_points(19, 19, 7).unwrap(), pts(&["pd", "dp", "pp", "dd", "dj", "pj", "jj"]));
    assert_eq!(handicap_points(19, 19, 8).unwrap(), pts(&["pd", "dp", "pp", "dd", "dj", "pj", "jd", "jp"]));
    assert_eq!(handicap_points(19, 19, 9).unwrap(), pts(&["pd", "dp", "pp", "dd", "dj", "pj", "jd", "jp", "jj"]));
    assert_eq!(handicap_points(13, 13, 4).unwrap(), pts(&["jd", "dj", "jj", "dd"]));
    assert_eq!(handicap_points(13, 13, 9).unwrap().len(), 9);
    assert!(handicap_points(13, 13, 9).unwrap().contains(&p("gg")));
    assert_eq!(handicap_points(9, 9, 5).unwrap(), pts(&["gc", "cg", "gg", "cc", "ee"]));
    assert_eq!(handicap_points(19, 19, 1), Err(HandicapError::Count(1)));
    assert_eq!(handicap_points(19, 19, 10), Err(HandicapError::Count(10)));
    assert_eq!(handicap_points(7, 7, 2), Err(HandicapError::Size { width: 7, height: 7 }));

    let mut g = Game::with_handicap(19, 19, RuleSet::Japanese2011, 4).unwrap();
    assert_eq!(g.to_move(), W, "White moves first after handicap stones (第二条3)");
    assert_eq!(g.board().stone_count(B), 4);
    for q in ["pd", "dp", "pp", "dd"] {
        assert_eq!(g.board().get(p(q)), Some(B));
    }
    assert_foul(&mut g, B, "qq", FoulRule::OutOfTurn);
    play(&mut g, W, "qq");

    let g = Game::with_handicap(9, 9, RuleSet::Japanese2011, 0).unwrap();
    assert_eq!((g.to_move(), g.board().stone_count(B)), (B, 0));
    assert!(Game::with_handicap(30, 30, RuleSet::Japanese2011, 2).is_err());
}

// ---- repetition (第十一条) ----------------------------------------------------------------------

/// Three independent kos on a 9x9 board (三劫 shape): ko 1 (bb/cb) and ko 3 (bg/cg) hold
/// a White stone Black can take, ko 2 (gb/hb) a Black stone White can take.
fn triple_ko(r: RuleSet) -> Game {
    game(&[".XO...XO.", "XO.O.X.XO", ".XO...XO.", ".........", ".........", ".XO......", "XO.O.....", ".XO......", "........."], r, B)
}
const CYCLE: &str = "B cb, W gb, B cg, W bb, B hb, W bg";

#[test]
fn triple_ko_repetition_is_detected_with_the_cycle_count() {
    let mut g = triple_ko(RuleSet::Japanese2011);
    let start = rows(g.board());
    let cyc = moves(CYCLE);
    for (i, &(c, m)) in cyc.iter().enumerate() {
        let o = g.play(c, m).unwrap();
        assert_eq!(o.captured.len(), 1);
        assert_eq!(o.repetition.is_some(), i == 5, "move {}", i + 1);
    }
    assert_eq!(rows(g.board()), start);
    let r = &g.repetitions()[0];
    assert_eq!((r.first, r.again, r.cycles, r.period()), (0, 6, 1, 6));
    assert_eq!(r.sequence, cyc);
    assert!(g.cycling().is_none(), "one cycle is not yet 第十一条's 'twice or more'");
    // Second time round: every move recreates the position six moves earlier.
    for (i, &(c, m)) in cyc.iter().enumerate() {
        let o = g.play(c, m).unwrap();
        let r = o.repetition.expect("repetition");
        let n = 7 + i as u32;
        assert_eq!((r.first, r.again), (n - 6, n));
        assert_eq!(r.cycles, if i == 5 { 2 } else { 1 }, "move {n}");
    }
    let r = g.cycling().expect("cycled twice");
    assert_eq!((r.first, r.again, r.cycles), (6, 12, 2));
    assert_eq!(r.sequence, cyc);
    for &(c, m) in &cyc {
        g.play(c, m).unwrap();
    }
    assert_eq!(g.cycling().unwrap().cycles, 3);
    assert_eq!(g.repetitions().len(), 13);
}

#[test]
fn an_interrupted_cycle_counts_again_from_one() {
    let mut g = triple_ko(RuleSet::Japanese2011);
    play_all(&mut g, CYCLE);
    assert_eq!(g.repetitions().len(), 1);
    play_all(&mut g, "B ee, W ef");
    play_all(&mut g, CYCLE);
    let r = g.repetitions().last().unwrap();
    assert_eq!((r.first, r.again, r.cycles), (8, 14, 1));
    assert!(g.cycling().is_none());
}

#[test]
fn superko_stops_the_triple_ko_cycle() {
    let mut g = triple_ko(RuleSet::Chinese);
    let cyc = moves(CYCLE);
    for &(c, m) in &cyc[..5] {
        g.play(c, m).unwrap();
    }
    let (c, m) = cyc[5];
    assert_eq!(g.play(c, m).unwrap_err().rule, FoulRule::Superko);
    assert!(g.repetitions().is_empty());
}

#[test]
fn passes_alone_are_not_a_repetition() {
    let mut g = Game::new(goban::Board::new(5, 5).unwrap(), RuleSet::Japanese2011, B);
    play_all(&mut g, "B cc, W pass, B pass, W pass");
    assert!(g.repetitions().is_empty());
    // A cycle with passes *and* stones is one (第九条 解説: パスを含む循環手順).
    let mut g = ko_game(RuleSet::Japanese2011);
    play_all(&mut g, "B cb, W pass, B pass, W bb");
    assert_eq!(g.repetitions().len(), 1);
}

#[test]
fn setup_and_set_to_move_restart_tracking() {
    let mut g = ko_game(RuleSet::Japanese2011);
    play(&mut g, B, "cb");
    g.setup(&[(p("ee"), Some(W))]).unwrap();
    assert_eq!(g.ko_point(), None, "setup lifts the ko ban");
    assert_eq!(g.board().get(p("ee")), Some(W));
    assert_eq!(g.move_number(), 1);
    g.set_to_move(B);
    assert_eq!(g.to_move(), B);
    play(&mut g, B, "ed");
    assert!(g.setup(&[(Point::new(7, 7), Some(B))]).is_err());
}

#[test]
fn replay_helper_stops_at_the_first_foul() {
    let mv = moves("B cb, W bb");
    let f = Game::replay(ko_game(RuleSet::Japanese2011).board().clone(), RuleSet::Japanese2011, B, &mv).unwrap_err();
    assert_eq!((f.move_number, f.rule), (2, FoulRule::Ko));
    let g = Game::replay(ko_game(RuleSet::Japanese2011).board().clone(), RuleSet::Japanese2011, B, &mv[..1]).unwrap();
    assert_eq!(g.move_number(), 1);
}

// ---- 第一条: board sizes ------------------------------------------------------------------------

#[test]
fn rectangular_and_largest_boards() {
    // 25 columns x 2 rows: a capture along the long edge.
    let mut g = Game::new(goban::Board::new(25, 2).unwrap(), RuleSet::Japanese2011, B);
    play_all(&mut g, "B xa, W ya, B xb, W pass");
    let o = play(&mut g, B, "yb");
    assert_eq!(o.captured, vec![p("ya")]);
    assert_eq!((g.board().width(), g.board().height()), (25, 2));
    let mut g = Game::new(goban::Board::new(25, 25).unwrap(), RuleSet::Japanese2011, B);
    play(&mut g, B, "yy");
    assert_foul(&mut g, W, "yy", FoulRule::Occupied);
    // 2x2, the smallest board: Black's diagonal stones share the liberties ab and ba; White may not
    // play into either (第四条), but may once Black fills one.
    let mut g = Game::new(goban::Board::new(2, 2).unwrap(), RuleSet::Japanese2011, B);
    play_all(&mut g, "B aa, W pass, B bb");
    assert_foul(&mut g, W, "ab", FoulRule::Suicide);
    play_all(&mut g, "W pass, B ab");
    let o = play(&mut g, W, "ba");
    let mut cap = o.captured.clone();
    cap.sort();
    assert_eq!(cap, vec![p("aa"), p("ab"), p("bb")]);
}
