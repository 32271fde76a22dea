//! Integration tests of counting: 第八条 territory, 第十条, seki (セキ石扱い), area, 純碁,
//! 日本式純碁, results and SGF `RE`.

mod common;

use common::{board, p};
use goban::{score, Color, GameResult, Point, RuleSet, Status, StatusMap};

fn pts(v: &[&str]) -> Vec<Point> {
    let mut out: Vec<Point> = v.iter().map(|s| p(s)).collect();
    out.sort();
    out
}

/// 第十条 with its commentary's lesson: dead stones inside territory are taken and added to
/// the prisoners (○); dead stones outside territory cannot be taken (△) and count for
/// nobody; equal counts are 持碁; had White taken the △ stones before the end, White wins.
///
/// ```text
///   a b c d e f g h
/// a o . X . x x O .     o (aa): dead White stone inside Black's territory
/// b . . X . O O O .     x x (ea, fa): dead Black stones next to the dame at da: outside territory
/// c . . X . O . . .     x (gd): dead Black stone inside White's territory
/// d . . X . O . x .
/// ```
#[test]
fn article_10_dead_stones_inside_territory_are_taken_outside_stay_jigo() {
    let b = board(&["O.X.XXO.", "..X.OOO.", "..X.O...", "..X.O.X."]);
    let st = StatusMap::with_dead(&b, &[p("aa"), p("ea"), p("gd")]);
    assert_eq!(st.get(p("fa")), Status::Dead, "set_chain marks the whole chain");
    let s = score(&b, &st, [0, 0], [0, 0], 0.0, RuleSet::Japanese2011);
    assert_eq!(s.territory[0], pts(&["aa", "ba", "ab", "bb", "ac", "bc", "ad", "bd"]));
    assert_eq!(s.territory[1], pts(&["ha", "hb", "fc", "gc", "hc", "fd", "gd", "hd"]));
    assert_eq!(s.dame, pts(&["da", "db", "dc", "dd"]));
    // One dead stone taken from each territory; the two outside stay (セキ石扱い).
    assert_eq!(s.prisoners, [1, 1]);
    assert_eq!(s.score, [9.0, 9.0]);
    assert_eq!(s.result, GameResult::Jigo);
    assert_eq!(s.result.to_sgf(), "0");
    // The same under the 1989 rules.
    assert_eq!(score(&b, &st, [0, 0], [0, 0], 0.0, RuleSet::Japanese1989).result, GameResult::Jigo);

    // Had White captured the two stones (White at da) before the end, White wins.
    let b2 = board(&["O.XO..O.", "..X.OOO.", "..X.O...", "..X.O.X."]);
    let st2 = StatusMap::with_dead(&b2, &[p("aa"), p("gd")]);
    let s2 = score(&b2, &st2, [0, 2], [0, 0], 0.0, RuleSet::Japanese2011);
    assert!(s2.territory[1].contains(&p("ea")) && s2.territory[1].contains(&p("fa")));
    assert_eq!(s2.prisoners, [1, 3]);
    assert_eq!(s2.score, [9.0, 13.0]);
    assert_eq!(s2.result, GameResult::Win { winner: Color::White, margin: 4.0 });
}

/// 死活例2 (手入れ不要): the corner Black stones and White ◎ are seki; White's eye is not
/// territory (第八条: regions touched by seki stones are not territory).
const SEKI: [&str; 5] = [".XO.OX.", "X.O.OX.", "OOOOXX.", "XXXX...", "......."];

fn seki_status(b: &goban::Board) -> StatusMap {
    let mut st = StatusMap::new(b);
    for q in ["ba", "ab", "ea", "eb"] {
        st.set_chain(b, p(q), Status::Seki);
    }
    st
}

#[test]
fn seki_eyes_are_not_territory() {
    let b = board(&SEKI);
    let st = seki_status(&b);
    let s = score(&b, &st, [0, 0], [0, 0], 6.5, RuleSet::Japanese2011);
    assert!(s.territory[1].is_empty(), "White's seki eye is not territory");
    assert_eq!(s.dame, pts(&["aa", "bb", "da", "db"]));
    assert_eq!(s.territory[0].len(), 13);
    assert!(!s.territory[0].contains(&p("aa")), "a region bordered only by Black seki stones is not territory");
    assert_eq!(s.score, [13.0, 6.5]);
    assert_eq!(s.result, GameResult::Win { winner: Color::Black, margin: 6.5 });
    assert_eq!(s.result.to_sgf(), "B+6.5");
}

#[test]
fn area_counts_living_stones_and_seki_eyes() {
    let b = board(&SEKI);
    let st = seki_status(&b);
    let s = score(&b, &st, [0, 0], [0, 0], 7.5, RuleSet::Chinese);
    assert_eq!(s.territory[1], pts(&["da", "db"]));
    assert!(s.territory[0].contains(&p("aa")));
    assert_eq!(s.territory[0].len(), 14);
    assert_eq!(s.dame, pts(&["bb"]));
    // Black: 10 stones + 14; White: 8 stones + 2 + 7.5.
    assert_eq!(s.score, [24.0, 17.5]);
    assert_eq!(s.result.to_sgf(), "B+6.5");
}

#[test]
fn area_and_territory_differ_on_prisoners_and_stones() {
    // Black wall on column b, White wall on column d, column c neutral.
    let b = board(&[".X.O.", ".X.O.", ".X.O.", ".X.O.", ".X.O."]);
    let st = StatusMap::new(&b);
    let t = score(&b, &st, [3, 0], [0, 0], 0.5, RuleSet::Japanese2011);
    assert_eq!(t.score, [8.0, 5.5]);
    assert_eq!(t.result, GameResult::Win { winner: Color::Black, margin: 2.5 });
    assert_eq!(t.dame.len(), 5);
    let a = score(&b, &st, [3, 0], [0, 0], 0.5, RuleSet::Chinese);
    assert_eq!(a.score, [10.0, 10.5]);
    assert_eq!(a.result, GameResult::Win { winner: Color::White, margin: 0.5 });
}

#[test]
fn own_dead_stone_inside_spoils_territory() {
    // 第八条 解説: every own stone inside must be alive.
    let b = board(&[".X.O.", ".X.O.", "XX.O.", ".X.O.", ".X.O."]);
    let mut st = StatusMap::new(&b);
    let alive = score(&b, &st, [0, 0], [0, 0], 0.0, RuleSet::Japanese2011);
    assert_eq!(alive.territory[0], pts(&["aa", "ab", "ad", "ae"]));
    st.set(p("ac"), Status::Dead);
    // ac is dead but its chain is ac-bc; mark only ac: the region then holds a dead Black
    // stone bordered by Black: nobody's.
    let s = score(&b, &st, [0, 0], [0, 0], 0.0, RuleSet::Japanese2011);
    assert!(s.territory[0].is_empty(), "{:?}", s.territory[0]);
    assert_eq!(s.prisoners, [0, 0]);
}

#[test]
fn undecided_stone_makes_the_result_undecided() {
    let b = board(&[".X.O.", ".X.O.", ".X.O.", ".X.O.", ".XOO."]);
    let mut st = StatusMap::new(&b);
    st.set_chain(&b, p("ce"), Status::Undecided);
    let s = score(&b, &st, [0, 0], [0, 0], 6.5, RuleSet::Japanese2011);
    assert_eq!(s.result, GameResult::Undecided);
    assert_eq!(s.result.to_sgf(), "?");
    let s = score(&b, &st, [0, 0], [0, 0], 7.5, RuleSet::Chinese);
    assert_eq!(s.result, GameResult::Undecided);
    // Jungo counts never consult statuses.
    let s = score(&b, &st, [0, 0], [0, 0], 0.5, RuleSet::Jungo);
    assert_eq!(s.score, [5.0, 6.5]);
}

#[test]
fn jungo_counts_stones_on_the_board() {
    let b = board(&SEKI);
    let mut st = seki_status(&b);
    st.set_chain(&b, p("aa"), Status::Dead); // ignored
    let s = score(&b, &st, [5, 0], [0, 0], 7.5, RuleSet::Jungo);
    assert_eq!(s.score, [10.0, 15.5]);
    assert!(s.territory[0].is_empty() && s.territory[1].is_empty());
    assert_eq!(s.result, GameResult::Win { winner: Color::White, margin: 5.5 });
}

#[test]
fn japanese_jungo_all_stones_alive_seki_eyes_count_passes_hand_over_stones() {
    let b = board(&SEKI);
    let mut st = StatusMap::new(&b);
    st.set_chain(&b, p("ba"), Status::Dead); // ignored: every stone is alive (試案 rule 6)
    let s = score(&b, &st, [0, 0], [0, 0], 0.0, RuleSet::JapaneseJungo);
    assert_eq!(s.territory[1], pts(&["da", "db"]), "seki eyes are territory (試案 remark F)");
    assert_eq!(s.territory[0].len(), 14);
    assert_eq!(s.dame, pts(&["bb"]));
    assert_eq!(s.score, [14.0, 2.0]);

    // Score = territory − own captured stones; each pass hands a stone to the opponent.
    let b = board(&[".X.O.", ".X.O.", ".X.O.", ".X.O.", ".X.O."]);
    let st = StatusMap::new(&b);
    let s = score(&b, &st, [1, 0], [2, 0], 0.0, RuleSet::JapaneseJungo);
    assert_eq!(s.prisoners, [1, 2]);
    assert_eq!(s.score, [3.0, 4.0]);
    assert_eq!(s.result, GameResult::Win { winner: Color::White, margin: 1.0 });
    let s = score(&b, &st, [1, 0], [0, 0], 0.0, RuleSet::JapaneseJungo);
    assert_eq!(s.result, GameResult::Win { winner: Color::Black, margin: 1.0 });
}

#[test]
fn empty_board_is_all_dame() {
    let b = goban::Board::new(3, 3).unwrap();
    let s = score(&b, &StatusMap::new(&b), [0, 0], [0, 0], 0.5, RuleSet::Japanese2011);
    assert_eq!(s.dame.len(), 9);
    assert_eq!(s.result, GameResult::Win { winner: Color::White, margin: 0.5 });
}

#[test]
fn status_map_basics() {
    let b = board(&["XX.", "...", "..O"]);
    let mut st = StatusMap::new(&b);
    assert_eq!(st.get(p("aa")), Status::Alive);
    st.set_chain(&b, p("ba"), Status::Dead);
    assert_eq!(st.stones_with(&b, Status::Dead), pts(&["aa", "ba"]));
    st.set(Point::new(5, 5), Status::Dead); // off the board: ignored
    assert_eq!(st.get(Point::new(5, 5)), Status::Alive);
    assert_eq!((st.width(), st.height()), (3, 3));
    for s in [Status::Alive, Status::Dead, Status::Seki, Status::Undecided] {
        assert_eq!(Status::from_name(s.name()), Some(s));
    }
    assert!(Status::Seki.is_living() && !Status::Dead.is_living());
}

#[test]
fn game_result_sgf_round_trip_and_spellings() {
    use GameResult::*;
    let cases = [
        (Win { winner: Color::Black, margin: 3.5 }, "B+3.5"),
        (Win { winner: Color::White, margin: 12.0 }, "W+12"),
        (Resignation { winner: Color::White }, "W+R"),
        (Forfeit { winner: Color::Black }, "B+F"),
        (Jigo, "0"),
        (NoResult, "Void"),
        (Undecided, "?"),
        (BothLose, "BothLose"),
    ];
    for (r, s) in cases {
        assert_eq!(r.to_sgf(), s);
        assert_eq!(r.to_string(), s);
        assert_eq!(GameResult::from_sgf(s), Some(r), "{s}");
    }
    assert_eq!(GameResult::from_sgf("B+Resign"), Some(Resignation { winner: Color::Black }));
    assert_eq!(GameResult::from_sgf("w+res"), Some(Resignation { winner: Color::White }));
    assert_eq!(GameResult::from_sgf("W+T"), Some(Forfeit { winner: Color::White }));
    assert_eq!(GameResult::from_sgf("Draw"), Some(Jigo));
    assert_eq!(GameResult::from_sgf("jigo"), Some(Jigo));
    assert_eq!(GameResult::from_sgf(" W+0.5 "), Some(Win { winner: Color::White, margin: 0.5 }));
    for bad in ["", "B+", "X+3", "B+-2", "B+abc", "W+inf"] {
        assert_eq!(GameResult::from_sgf(bad), None, "{bad}");
    }
    assert_eq!(Win { winner: Color::Black, margin: 2.5 }.winner(), Some(Color::Black));
    assert_eq!(Jigo.winner(), None);
}
