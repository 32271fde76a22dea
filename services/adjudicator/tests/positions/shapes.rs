//! Classic shapes: false eyes, bulky five, square four, seki, bent four, 万年劫, snapback, double and triple ko, 長生.

use super::*;

#[test]
pub(super) fn false_eye_group_is_dead_in_both_rule_sets() {
    // Black has a real eye at aa and a false eye at ca: its diagonal db is White and the
    // stone da joins the group only through ca. Black filling ca leaves one eye (self-atari
    // at aa); if Black does anything else White plays ca capturing da, the recapture at da
    // is a ko Black may not take at once (第五条), and White then captures at aa. The
    // White wall has two eyes (fa, fc) and is pass-alive.
    let b = board(&[".X.XO.O", "XXXOOOO", "OOOOO.O"]);
    for r in BOTH {
        assert_eq!(status(&b, r, "ab"), Status::Dead, "{r} group");
        assert_eq!(status(&b, r, "da"), Status::Dead, "{r} da");
        assert_eq!(status(&b, r, "ea"), Status::Alive, "{r} wall");
    }
}

/// Black group around an eye space in the upper-left corner; White wall with eyes fa, fc
/// and a solid bottom row.
pub(super) fn corner_group(row0: &str, row1: &str) -> Board {
    board(&[row0, row1, "XXXOO.O", "OOOOOOO"])
}

#[test]
pub(super) fn bulky_five_lives_only_if_it_moves_first_2011_alive_1989_dead() {
    // Eye space aa ba ca ab bb (花五 / bulky five). The vital point is ba: Black there
    // makes two eyes (ca and the bent three aa ab bb, which White cannot reduce to one);
    // White there reduces the space to one eye (中手).
    let b = corner_group("...XO.O", "..XXOOO");
    assert_eq!(status(&b, RuleSet::Japanese2011, "da"), Status::Alive);
    assert_eq!(status(&b, RuleSet::Japanese1989, "da"), Status::Dead);
    for r in BOTH {
        assert_eq!(status(&b, r, "ea"), Status::Alive, "{r} wall");
    }
}

#[test]
pub(super) fn square_four_is_dead_whoever_moves_first() {
    // Eye space aa ba ab bb (方四 / square four): a dead shape even with Black to move.
    let b = corner_group("..XXO.O", "..XXOOO");
    for r in BOTH {
        assert_eq!(status(&b, r, "ca"), Status::Dead, "{r}");
    }
}

#[test]
pub(super) fn bulky_five_nakade_of_four_stones_is_dead_for_black_even_capturing_first() {
    // White's four stones aa ba ab bb fill the square of the bulky five; Black's only
    // liberty is ca, which is also White's. Black, moving first, captures four stones
    // and is left with the square four — dead (中手). White's four stones: White moving
    // first captures the whole Black group at ca — alive.
    let b = corner_group("OO.XO.O", "OOXXOOO");
    for r in BOTH {
        assert_eq!(status(&b, r, "da"), Status::Dead, "{r} black");
    }
    assert_eq!(status(&b, RuleSet::Japanese2011, "aa"), Status::Alive, "white nakade stones");
}

#[test]
pub(super) fn bulky_five_nakade_stones_are_alive_under_1989() {
    // 要請II-[iii]: Black, attacking first, captures the four stones at ca, but White then
    // reduces the square four and captures the whole group: the captured stones "give rise
    // to new stones the opponent cannot capture" — alive.
    let b = corner_group("OO.XO.O", "OOXXOOO");
    // The ko-pass states of 1989 need more than the default budget here.
    let opts = Options { budget_nodes: 50_000_000, ..Options::default() };
    let s = adjudicate(&b, RuleSet::Japanese1989, &opts).status.get(Point::from_sgf("aa").unwrap());
    assert_eq!(s, Status::Alive);
}

/// The template of the seki positions: a pass-alive White wall in columns a–c (eyes bd,
/// bf) and a pass-alive Black wall in columns d–g (eyes ed, gd) below rows 0–1.
pub(super) fn seki_board(row0: &str, row1: &str) -> Board {
    board(&[row0, row1, "OOOXXXX", "O.OX.X.", "OOOXXXX", "O.OXXXX", "OOOXXXX"])
}

#[test]
pub(super) fn plain_seki_two_shared_liberties_no_eyes() {
    // Black ba bb bc cc and White da db dc share the liberties ca, cb and have no other
    // (cb touches no wall: a wall next to it would let its side connect out). Whoever
    // fills one puts its own chain in atari and is captured, so neither side can force its
    // end: 第七条 セキ. 1989: neither chain can be captured (alive) and both touch 駄目
    // (要請II-[v]) — セキ石 as well.
    let b = board(&["OX.OX.X", "OX.OXXX", "OXXOXXX", "OOOXXXX", "O.OX.X.", "OOOXXXX", "O.OXXXX", "OOOXXXX"]);
    for r in BOTH {
        assert_eq!(status(&b, r, "ba"), Status::Seki, "{r} black");
        assert_eq!(status(&b, r, "da"), Status::Seki, "{r} white");
    }
    assert_eq!(status(&b, RuleSet::Japanese2011, "aa"), Status::Alive);
    assert_eq!(status(&b, RuleSet::Japanese2011, "ea"), Status::Alive);
}

#[test]
pub(super) fn seki_with_one_eye_each_and_one_shared_liberty() {
    // Black ba ca ab bb cb has the eye aa, White db ea fa eb fb gb has the eye ga, and they
    // share da. Filling da is self-atari; playing in the other's eye is suicide. セキ in
    // both rule sets (1989: alive stones touching the 駄目 da). The walls touch no 駄目.
    let b = seki_board(".XX.OO.", "XXXOOOO");
    for r in BOTH {
        assert_eq!(status(&b, r, "ba"), Status::Seki, "{r} black");
        assert_eq!(status(&b, r, "ea"), Status::Seki, "{r} white");
        assert_eq!(status(&b, r, "ac"), Status::Alive, "{r} white wall");
        assert_eq!(status(&b, r, "dc"), Status::Alive, "{r} black wall");
    }
}

/// Prints every proof of `b` (a debugging aid for writing new positions).
#[allow(dead_code)]
pub(super) fn dump(b: &Board, r: RuleSet) {
    let adj = adjudicate(b, r, &Options::default());
    for p in &adj.proofs {
        eprintln!("{:?} {:?} {:?} {}", p.stones, p.status, p.line_text(), p.nodes);
    }
}

#[test]
pub(super) fn bent_four_in_the_corner_is_dead_2011() {
    // 死活確認例7-1 (隅の曲り四目) on a smaller board, Black wall pass-alive (eyes ga, de).
    // White's group cannot be helped: Black can start the ko at ab whenever it likes and
    // White has no threat, so White is dead and Black's three stones aa ba ca alive.
    let b = board(&["XXX.OX.", ".OOOOXX", "OOXXXXX", "XXXXXXX", "XXX.XXX", "XXXXXXX"]);
    let r = RuleSet::Japanese2011;
    for p in ["ac", "bb", "cb", "ea"] {
        assert_eq!(status(&b, r, p), Status::Dead, "{p}");
    }
    for p in ["aa", "cc", "fa"] {
        assert_eq!(status(&b, r, p), Status::Alive, "{p}");
    }
}

/// 死活確認例12 (万年劫) on a smaller board, White wall pass-alive (eyes ga, gd).
pub(super) fn thousand_year_ko() -> Board {
    board(&["O.O.XO.", "XOO.XOO", "XXXXXOO", "OOOOOO.", "OOOOOOO"])
}

#[test]
pub(super) fn thousand_year_ko_black_is_seki_2011() {
    // Neither side gains by starting the ko (第七条 解説: the one who resolves it loses):
    // Black's surrounding chain is seki; the wall is alive.
    let b = thousand_year_ko();
    let r = RuleSet::Japanese2011;
    for p in ["ab", "ea"] {
        assert_eq!(status(&b, r, p), Status::Seki, "{p}");
    }
    assert_eq!(status(&b, r, "fa"), Status::Alive);
}

#[test]
pub(super) fn thousand_year_ko_white_is_seki_2011() {
    // White's lone stone aa (in atari at ba) and White's chain bb-cb-ca: Black may take aa
    // at ba, White retakes — the ko that neither side resolves. Both White chains are seki.
    let b = thousand_year_ko();
    for p in ["aa", "bb", "ca"] {
        assert_eq!(status(&b, RuleSet::Japanese2011, p), Status::Seki, "{p}");
    }
}

#[test]
pub(super) fn snapback_kills_the_four_stones_in_both_rule_sets() {
    // White ab bb cb ca has only the liberties aa and ba, and Black can play neither
    // without being captured: Black throws in at ba, White captures at aa, and Black
    // retakes at ba capturing five stones (打って返し — not a ko: more than one stone).
    // White moving first only fills its own liberty. The Black wall has the eyes ea, ga.
    let b = board(&["..OX.X.", "OOOXXXX", "XXXXXXX"]);
    for r in BOTH {
        assert_eq!(status(&b, r, "ca"), Status::Dead, "{r} white");
        assert_eq!(status(&b, r, "da"), Status::Alive, "{r} wall");
    }
}

/// Ko positions: a Black inner chain B (rows 0–3, columns e–h) inside a White inner chain
/// W, inside a pass-alive Black wall (eyes aa, bc, bi, ei, hi). Kos: at ia/ha Black can
/// capture the lone White stone ha (W's liberty ia); at ea/da White can capture the lone
/// Black stone da (B's liberty ea).
pub(super) fn ko_board(row2: &str, row3: &str, row4: &str, row5: &str) -> Board {
    board(&[".XOX.XXO.", "XXOOXXXXO", row2, row3, row4, row5, "XXXOOOOOO", "XXXXXXXXX", "X.XX.XX.X"])
}

#[test]
pub(super) fn double_ko_seki_2011() {
    // B has the eye fc and the ko liberty ea; W has the eye ff and the ko liberty ia. If
    // Black takes at ia (W in atari), White takes at ea (B in atari); neither may retake at
    // once, and whoever fills or passes is retaken into the same position — the sequence
    // cycles (第七条 解説: 循環 → セキ石). 両コウセキ: both chains seki.
    let b = ko_board("X.XOX.XXO", "XXXOXXXXO", "XXXOOOOOO", "XXXOO.OOO");
    let r = RuleSet::Japanese2011;
    assert_eq!(status(&b, r, "fa"), Status::Seki, "B");
    assert_eq!(status(&b, r, "ca"), Status::Seki, "W");
    assert_eq!(status(&b, r, "aa"), Status::Alive, "wall");
}

#[test]
pub(super) fn triple_ko_seki_for_the_side_in_atari_2011_dead_under_1989() {
    // Three kos and no eyes: two give B a liberty (ea; fd, where White can capture the lone
    // Black stone fe), one gives W its only liberty (ia). 2011 (the examined side moves
    // first): Black captures W at ia at once — B alive. White, examined, must take a ko;
    // then Black is in atari and takes another, and so on: every move is forced and the
    // sequence cycles (三劫, 第七条 解説 循環) — W seki.
    // 1989 (要請II-[iv], the attacker moves first, a ko retaken only after a pass for it):
    // Black captures W at once — W dead. White takes ea, Black ia, White fd; Black, in
    // atari, may retake neither ko before passing, and White captures B — B dead.
    let b = ko_board("X.XOXXXXO", "XXXOX.XXO", "XXXOOXOOO", "XXXOOOOOO");
    let st = |r, p: &str| status(&b, r, p);
    assert_eq!(st(RuleSet::Japanese2011, "fa"), Status::Alive, "B 2011");
    assert_eq!(st(RuleSet::Japanese2011, "ca"), Status::Seki, "W 2011");
    assert_eq!(st(RuleSet::Japanese1989, "fa"), Status::Dead, "B 1989");
    assert_eq!(st(RuleSet::Japanese1989, "ca"), Status::Dead, "W 1989");
}

#[test]
pub(super) fn one_eye_against_no_eye_in_a_triple_ko_is_seki_2011_and_the_eye_wins_under_1989() {
    // 眼あり眼なし三劫: W has the eye hf and the liberty ia, where Black can capture the lone
    // White stone ha; B has no eye, and the liberties ea (White captures the lone Black stone
    // da there) and fd (White captures the lone Black stone fe there). Three kos.
    // 2011 (the examined side moves first): whoever stops taking kos is captured, so every
    // line that neither side gives up cycles (第七条 解説 循環): W, B and the lone stones da and
    // ha are seki, as 死活確認例8 of the 2011 draft rules for its triple ko of this kind. The
    // lone stone fe must never come out dead by a line in which its owner passes instead of
    // taking another ko: seki, or undecided within the budget, is all it may be.
    // 1989 (要請II-[iv], a ko retaken only after a pass for it): Black, without an eye, runs
    // out of kos it may retake first — W and ha alive, every Black chain dead.
    let b = ko_board("X.XOXXXXO", "XXXOX.XXO", "XXXOOXOOO", "XXXOOOO.O");
    // At the service's default budget (500,000 nodes per region).
    let all = |r| adjudicate(&b, r, &Options { budget_nodes: 500_000, ..Options::default() }).status;
    let at = |p: &str| Point::from_sgf(p).unwrap();
    let st = all(RuleSet::Japanese2011);
    for (p, who) in [("ca", "W"), ("fa", "B"), ("da", "lone B da"), ("ha", "lone W ha")] {
        assert_eq!(st.get(at(p)), Status::Seki, "{who} 2011");
    }
    let fe = st.get(at("fe"));
    assert!(matches!(fe, Status::Seki | Status::Undecided), "lone B fe 2011: {fe}");
    let st = all(RuleSet::Japanese1989);
    for (p, want) in [("ca", Status::Alive), ("ha", Status::Alive), ("fa", Status::Dead), ("da", Status::Dead), ("fe", Status::Dead)] {
        assert_eq!(st.get(at(p)), want, "{p} 1989");
    }
}

/// 長生 (eternal life, 第十一条 解説 lists it among the cycles) on 9x9: Black's group G
/// (ab ac bc cc dc eb ec fb) encloses White's four stones N (ba bb cb db) and holds the lone
/// stone x at da; White has thrown in at fa (in atari at ea). Black's edge stones ga ha
/// have the outside liberty ia and reach G only through fa: the eye at fa is false. White's
/// wall is pass-alive (eyes in rows e and g, i). Row 0 is given by the caller.
pub(super) fn long_life(row0: &str, row1: &str) -> Board {
    board(&[row0, row1, "XXXXXOOOO", "OOOOOOOOO", "O........", "OOOOOOOOO", ".........", "OOOOOOOOO", "........."])
}

pub(super) const LONG_LIFE: (&str, &str) = (".O.X.OXX.", "XOOOXXOOO");

pub(super) fn long_life_status(row0: &str, row1: &str, rules: RuleSet, budget_nodes: u64) -> Status {
    let b = long_life(row0, row1);
    adjudicate(&b, rules, &Options { budget_nodes, ..Options::default() }).status.get(Point::from_sgf("ab").unwrap())
}

#[test]
pub(super) fn long_life_every_move_of_the_cycle_is_forced() {
    // The cycle (as in the 1989 text, §3.6 長生の形, colours exchanged): Black thrusts
    // in at ca (da–ca in atari at ea), White captures the two at ea, Black recaptures
    // ea–fa at da, White throws in at fa again — the start position, Black to move. Each
    // move is forced; the positions below are the alternatives, Black to move in each:
    let r = RuleSet::Japanese2011;
    // Black leaves it: White at ca makes N a bulky five (刀五) — Black dead even after
    // capturing it.
    assert_eq!(long_life_status(".OOX.OXX.", "XOOOXXOOO", r, 4_000_000), Status::Dead, "White ca first");
    // Black captures the thrown-in stone at ea instead: White at ca again; the eye at fa is
    // false (White fills ia) — dead.
    assert_eq!(long_life_status(".OOXX.XX.", "XOOOXXOOO", r, 4_000_000), Status::Dead, "Black ea, White ca");
    // White does not capture the two stones: Black takes N at aa and lives.
    assert_eq!(long_life_status("X.XX.OXX.", "X...XXOOO", r, 2_000_000), Status::Alive, "Black ca, aa");
    // White does not throw in after Black's recapture: Black makes the eye and lives.
    assert_eq!(long_life_status(".O.X..XX.", "XOOOXXOOO", r, 2_000_000), Status::Alive, "no throw-in");
}

#[test]
pub(super) fn long_life_is_seki_2011_dead_under_1989() {
    // 2011 (Black, examined, moves first): Black starts the cycle and neither side can
    // leave it without losing — the line cycles (第七条 解説 循環 → セキ石): seki. 1989 (the
    // attacker moves first, 要請II-[iii]): White plays ca before Black can thrust in —
    // the bulky five — dead. (White's N and Black's da stay undecided within these
    // budgets; the cycle makes their searches far larger.)
    let (r0, r1) = LONG_LIFE;
    assert_eq!(long_life_status(r0, r1, RuleSet::Japanese2011, 5_000_000), Status::Seki, "2011");
    assert_eq!(long_life_status(r0, r1, RuleSet::Japanese1989, 2_000_000), Status::Dead, "1989");
}
