//! Unit positions for the concepts of 第七条, each surrounded by a pass-alive wall so the
//! region under test is small. `X` black, `O` white, `.` empty; rows top to bottom.

use goban::{Board, Color, Point, RuleSet, Status};
use shinpan_adjudicator::{adjudicate, Options, Undecided};

fn board(rows: &[&str]) -> Board {
    Board::from_diagram(rows).unwrap()
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

/// The kakunin positions, read from `shared/kakunin` (env `SHINPAN_KAKUNIN`).
fn kakunin(name: &str) -> Board {
    let dir = match std::env::var_os("SHINPAN_KAKUNIN") {
        Some(d) => std::path::PathBuf::from(d),
        None => std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kakunin"),
    };
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    let size: u32 = text.split("SZ[").nth(1).and_then(|s| s.split(']').next()).unwrap().parse().unwrap();
    let mut b = Board::new(size, size).unwrap();
    for (tag, c) in [("AB", Color::Black), ("AW", Color::White)] {
        let rest = text.split(tag).nth(1).unwrap();
        for v in rest.split(']').map_while(|s| s.strip_prefix('[')) {
            b.set(Point::from_sgf(v).unwrap(), Some(c)).unwrap();
        }
    }
    b
}

#[test]
fn ko_needing_a_move_both_alive_2011_both_dead_1989() {
    // Kakunin 9 (劫関連の手入れ). 2011: each side, moving first, secures its stones — both
    // alive. 1989 (rules-explained-as-postulates.txt, 3.5: "この黒と△の白は両方死んでい
    // る石である"): the attacker moves first; White takes the ko and Black may retake
    // only after passing for it (要請II-[iv]), which loses the group — both dead.
    let b = kakunin("kakunin-9.sgf");
    assert_eq!(status(&b, RuleSet::Japanese2011, "bb"), Status::Alive);
    assert_eq!(status(&b, RuleSet::Japanese2011, "ba"), Status::Alive);
    assert_eq!(status(&b, RuleSet::Japanese1989, "bb"), Status::Dead);
    assert_eq!(status(&b, RuleSet::Japanese1989, "ba"), Status::Dead);
}

#[test]
fn approach_ko_black_alive_under_both_rule_sets() {
    // Kakunin 10 (一手ヨセ劫): the postulates' second example — after White takes the ko
    // and approaches, Black has already passed once for the ko and may retake; White must
    // then pass for it and Black captures: Black alive, White's stone dead, in 1989 too.
    let b = kakunin("kakunin-10.sgf");
    assert_eq!(status(&b, RuleSet::Japanese2011, "bb"), Status::Alive);
    assert_eq!(status(&b, RuleSet::Japanese2011, "ba"), Status::Dead);
    assert_eq!(status(&b, RuleSet::Japanese1989, "ba"), Status::Dead);
    // Under 1989 the ko-pass states make the full proof for Black exceed the default
    // budget: it must never come out dead (it may come out undecided).
    let s = status(&b, RuleSet::Japanese1989, "bb");
    assert!(s == Status::Alive || s == Status::Undecided, "black is alive under 1989, got {s}");
}

#[test]
fn a_chain_the_attacker_cannot_kill_under_1989_shows_the_attackers_main_try() {
    // Kakunin 2 under 1989 (要請II-[iii]: the attacker moves first): Black cannot capture
    // White's six stones, so they are alive. The proof is the exhaustive avoidance search;
    // the line shows Black's most promising try and White's answers — legal moves,
    // alternating from Black, after which White's stones are still on the board.
    let b = kakunin("kakunin-2.sgf");
    let adj = adjudicate(&b, RuleSet::Japanese1989, &Options::default());
    let ac = Point::from_sgf("ac").unwrap();
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&ac)).expect("a proof entry for White's six stones");
    assert_eq!(pr.status, Status::Alive);
    assert!(!pr.line.is_empty(), "a line for an alive status under 1989");
    let mut after = b.clone();
    for (k, (c, m)) in pr.line.iter().enumerate() {
        assert_eq!(*c, if k % 2 == 0 { Color::Black } else { Color::White }, "move {k} alternates from the attacker");
        if let goban::Move::Play(p) = m {
            after.play(*c, *p, false).unwrap_or_else(|e| panic!("move {k} {} illegal: {e:?}", p.to_sgf()));
        }
    }
    assert!(pr.stones.iter().all(|&s| after.get(s) == Some(Color::White)), "White's stones stand after the line");
}

#[test]
fn living_groups_touching_dame_are_seki_stones_under_1989_only() {
    // Both groups are pass-alive; column e is 駄目 between them. 要請II-[v] (1989): alive
    // stones next to a 駄目 are セキ石 (their eyes are not territory); 2011: alive.
    let b = board(&[".X.X.O.O", "XXXX.OOO", "XXXX.O.O"]);
    assert_eq!(status(&b, RuleSet::Japanese2011, "ab"), Status::Alive);
    assert_eq!(status(&b, RuleSet::Japanese2011, "fa"), Status::Alive);
    assert_eq!(status(&b, RuleSet::Japanese1989, "ab"), Status::Seki);
    assert_eq!(status(&b, RuleSet::Japanese1989, "fa"), Status::Seki);
}

#[test]
fn progress_reports_every_region_once() {
    let b = board(&STRAIGHT_THREE);
    let mut seen = Vec::new();
    let adj = shinpan_adjudicator::adjudicate_with_progress(&b, RuleSet::Japanese2011, &Options::default(), &mut |r| {
        seen.push((r.index, r.of, r.decided))
    });
    assert_eq!(seen.len(), adj.regions.len());
    assert!(!seen.is_empty());
    assert!(seen.iter().enumerate().all(|(i, &(idx, of, decided))| idx == i && of == seen.len() && decided));
}

#[test]
fn agreed_status_stands_unless_disputed_and_is_refuted() {
    // 第九条: the players agree the straight-three group is dead; hypothetical play (2011,
    // Black first) shows it alive. Undisputed, the agreement stands and is not searched
    // again; disputed, the search decides and reports the agreement refuted.
    let b = board(&STRAIGHT_THREE);
    let ab = Point::from_sgf("ab").unwrap();
    let opts = Options { agreed: Some(goban::StatusMap::with_dead(&b, &[ab])), ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    assert_eq!(adj.status.get(ab), Status::Dead, "the agreement stands");
    assert!(adj.proofs.iter().all(|pr| pr.status != Status::Undecided), "undisputed agreements are not searched");
    let opts = Options { dispute: vec![ab], ..opts };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    assert_eq!(adj.status.get(ab), Status::Alive);
    assert!(adj.refuted_agreements.iter().any(|r| r.stones.contains(&ab) && r.found == Status::Alive && !r.line.is_empty()));
}

#[test]
fn a_disputed_stone_inside_agreed_walls_is_decided_in_its_own_region() {
    // 9x9: White's wall (agreed alive, not pass-alive: its eye space is the open top) encloses
    // a small territory with a black stone at bb; the rest of the board is an open area a
    // search could not finish. With the wall as the context (第九条), the stone's region is
    // the territory alone and hypothetical play (第七条) decides it dead.
    let b = board(&["...O.....", ".X.O.....", "...O.....", "OOOO.....", ".........", ".........", "....X....", ".........", "........."]);
    let bb = Point::from_sgf("bb").unwrap();
    let plain = adjudicate(&b, RuleSet::Japanese2011, &Options { budget_nodes: 20_000, ..Options::default() });
    assert_eq!(plain.status.get(bb), Status::Undecided, "without an agreement the open board is not settled");
    let opts = Options { budget_nodes: 20_000, agreed: Some(goban::StatusMap::new(&b)), dispute: vec![bb], ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    assert_eq!(adj.status.get(bb), Status::Dead, "{:?} {:?}", adj.proofs, adj.drawn_in);
    let pr = adj.proofs.iter().find(|pr| pr.stones == [bb]).expect("a proof");
    assert!(!pr.line.is_empty(), "a proof line");
    assert!(adj.regions.iter().all(|r| r.points.len() == 9), "the region is the territory: {:?}", adj.regions);
}

#[test]
fn a_wall_in_a_capturing_race_with_the_disputed_chain_is_drawn_in() {
    // Two stones side by side in the open, three liberties each, both agreed alive: the
    // white one's life is exactly what a fight with the disputed black one decides, so it is
    // drawn into the dispute (searched, listed with the reason), not taken as a wall.
    let b = board(&[".........", ".........", ".........", "...XO....", ".........", ".........", ".........", ".........", "........."]);
    let (dd, ed) = (Point::from_sgf("dd").unwrap(), Point::from_sgf("ed").unwrap());
    let opts = Options { budget_nodes: 2_000, agreed: Some(goban::StatusMap::new(&b)), dispute: vec![dd], ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    let drawn = adj.drawn_in.iter().find(|d| d.stones == [ed]).expect("the race partner drawn in");
    assert_eq!((drawn.by, drawn.agreed), (dd, Status::Alive));
    assert!(matches!(drawn.reason, shinpan_adjudicator::DrawReason::CapturingRace { with } if with == dd));
    let pr = adj.proofs.iter().find(|pr| pr.stones == [ed]).expect("searched, with a proof entry");
    assert_eq!(adj.status.get(ed), pr.status, "its status is the search's, not the agreement's");
}

#[test]
fn dead_by_two_links_in_a_long_narrow_territory() {
    // A black stone inside a territory three points wide and fifteen long (45 points, more
    // than the exhaustive search takes) enclosed by White's agreed-alive wall: every point
    // of it is next to the wall or, in the middle column, has two empty neighbours that
    // are. Dead statically (two links, Müller 1997), without search.
    let mut rows = vec!["O...O"; 15];
    rows[3] = "O.X.O";
    rows.push("OOOOO");
    let b = board(&rows);
    let c3 = Point::from_sgf("cd").unwrap();
    assert_eq!(b.get(c3), Some(goban::Color::Black));
    let opts = Options { agreed: Some(goban::StatusMap::new(&b)), dispute: vec![c3], ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    assert_eq!(adj.status.get(c3), Status::Dead);
    let pr = adj.proofs.iter().find(|pr| pr.stones == [c3]).expect("a proof");
    assert_eq!(pr.nodes, 0, "decided without search");
    assert!(!pr.line.is_empty());
    // Without the agreement the wall is not known to live and nothing is decided so.
    let plain = adjudicate(&b, RuleSet::Japanese2011, &Options::default());
    assert_ne!(plain.status.get(c3), Status::Alive);
}

/// Both rule sets, for positions where the 2011 draft and the 1989 rules agree.
const BOTH: [RuleSet; 2] = [RuleSet::Japanese2011, RuleSet::Japanese1989];

#[test]
fn false_eye_group_is_dead_in_both_rule_sets() {
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
fn corner_group(row0: &str, row1: &str) -> Board {
    board(&[row0, row1, "XXXOO.O", "OOOOOOO"])
}

#[test]
fn bulky_five_lives_only_if_it_moves_first_2011_alive_1989_dead() {
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
fn square_four_is_dead_whoever_moves_first() {
    // Eye space aa ba ab bb (方四 / square four): a dead shape even with Black to move.
    let b = corner_group("..XXO.O", "..XXOOO");
    for r in BOTH {
        assert_eq!(status(&b, r, "ca"), Status::Dead, "{r}");
    }
}

#[test]
fn bulky_five_nakade_of_four_stones_is_dead_for_black_even_capturing_first() {
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
fn bulky_five_nakade_stones_are_alive_under_1989() {
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
fn seki_board(row0: &str, row1: &str) -> Board {
    board(&[row0, row1, "OOOXXXX", "O.OX.X.", "OOOXXXX", "O.OXXXX", "OOOXXXX"])
}

#[test]
fn plain_seki_two_shared_liberties_no_eyes() {
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
fn seki_with_one_eye_each_and_one_shared_liberty() {
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
fn dump(b: &Board, r: RuleSet) {
    let adj = adjudicate(b, r, &Options::default());
    for p in &adj.proofs {
        eprintln!("{:?} {:?} {:?} {}", p.stones, p.status, p.line_text(), p.nodes);
    }
}

#[test]
fn bent_four_in_the_corner_is_dead_2011() {
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
fn thousand_year_ko() -> Board {
    board(&["O.O.XO.", "XOO.XOO", "XXXXXOO", "OOOOOO.", "OOOOOOO"])
}

#[test]
fn thousand_year_ko_black_is_seki_2011() {
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
fn thousand_year_ko_white_is_seki_2011() {
    // White's lone stone aa (in atari at ba) and White's chain bb-cb-ca: Black may take aa
    // at ba, White retakes — the ko that neither side resolves. Both White chains are seki.
    let b = thousand_year_ko();
    for p in ["aa", "bb", "ca"] {
        assert_eq!(status(&b, RuleSet::Japanese2011, p), Status::Seki, "{p}");
    }
}

#[test]
fn snapback_kills_the_four_stones_in_both_rule_sets() {
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
fn ko_board(row2: &str, row3: &str, row4: &str, row5: &str) -> Board {
    board(&[".XOX.XXO.", "XXOOXXXXO", row2, row3, row4, row5, "XXXOOOOOO", "XXXXXXXXX", "X.XX.XX.X"])
}

#[test]
fn double_ko_seki_2011() {
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
fn triple_ko_seki_for_the_side_in_atari_2011_dead_under_1989() {
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

/// 長生 (eternal life, 第十一条 解説 lists it among the cycles) on 9x9: Black's group G
/// (ab ac bc cc dc eb ec fb) encloses White's four stones N (ba bb cb db) and holds the lone
/// stone x at da; White has thrown in at fa (in atari at ea). Black's edge stones ga ha
/// have the outside liberty ia and reach G only through fa: the eye at fa is false. White's
/// wall is pass-alive (eyes in rows e and g, i). Row 0 is given by the caller.
fn long_life(row0: &str, row1: &str) -> Board {
    board(&[row0, row1, "XXXXXOOOO", "OOOOOOOOO", "O........", "OOOOOOOOO", ".........", "OOOOOOOOO", "........."])
}

const LONG_LIFE: (&str, &str) = (".O.X.OXX.", "XOOOXXOOO");

fn long_life_status(row0: &str, row1: &str, rules: RuleSet, budget_nodes: u64) -> Status {
    let b = long_life(row0, row1);
    adjudicate(&b, rules, &Options { budget_nodes, ..Options::default() }).status.get(Point::from_sgf("ab").unwrap())
}

#[test]
fn long_life_every_move_of_the_cycle_is_forced() {
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
fn long_life_is_seki_2011_dead_under_1989() {
    // 2011 (Black, examined, moves first): Black starts the cycle and neither side can
    // leave it without losing — the line cycles (第七条 解説 循環 → セキ石): seki. 1989 (the
    // attacker moves first, 要請II-[iii]): White plays ca before Black can thrust in —
    // the bulky five — dead. (White's N and Black's da stay undecided within these
    // budgets; the cycle makes their searches far larger.)
    let (r0, r1) = LONG_LIFE;
    assert_eq!(long_life_status(r0, r1, RuleSet::Japanese2011, 5_000_000), Status::Seki, "2011");
    assert_eq!(long_life_status(r0, r1, RuleSet::Japanese1989, 2_000_000), Status::Dead, "1989");
}

/// Options that leave every search region undecided at once, so that only what the
/// whole-board analysis (Benson, safe territories) proves is decided.
fn no_region_search() -> Options {
    Options { max_region_empty: 0, ..Options::default() }
}

/// The territory proofs alone: no region search, no one-move proofs of life.
fn territory_proofs_only() -> Options {
    Options { one_move_proofs: false, ..no_region_search() }
}

#[test]
fn a_safe_corner_territory_keeps_its_wall_alive_and_kills_the_invader() {
    // Black's chain has the single eye ea and the corner territory aa-ca/ab-cb (five empty
    // points and White's invader bb): not pass-alive (aa, ba, ab are not next to Black), but
    // White cannot live in six points and cannot capture the wall, whoever moves first.
    // White's wall is pass-alive (eyes fd, ce).
    let b = board(&["...X.XO", ".O.XXXO", "XXXXOOO", "OOOOO.O", "OO.OOOO"]);
    for r in BOTH {
        let adj = adjudicate(&b, r, &no_region_search());
        let st = |p: &str| adj.status.get(Point::from_sgf(p).unwrap());
        assert_eq!(st("da"), Status::Alive, "{r} wall");
        assert_eq!(st("bb"), Status::Dead, "{r} invader");
    }
    // The wall is not pass-alive (a pass-alive chain needs no proof and gets none): the
    // territory proof decided it, since the options skip every region search.
    let adj = adjudicate(&b, RuleSet::Japanese2011, &no_region_search());
    let da = Point::from_sgf("da").unwrap();
    let wall = adj.proofs.iter().find(|p| p.stones.contains(&da)).expect("a proof for the wall");
    assert_eq!(wall.status, Status::Alive);
    // Its line is the territory's local game: the attacker (White) moves first.
    assert_eq!(wall.line.first().map(|m| m.0), Some(Color::White), "{:?}", wall.line_text());
}

#[test]
fn one_eye_with_a_virtual_second_is_not_enough() {
    // The two-point eye aa-ba wins its local game only with a virtual eye from elsewhere,
    // and Black has no other eye: the territory proof must not call it alive.
    let b = board(&["..XXO.O", "XXXXOOO", "OOOOO.O"]);
    for r in BOTH {
        let st = adjudicate(&b, r, &no_region_search()).status.get(Point::from_sgf("ab").unwrap());
        assert_ne!(st, Status::Alive, "{r}");
    }
}

/// A small deterministic generator (xorshift) for the randomized cross-check below.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Cross-checks one random position (`rows`): chains without liberties are removed (an
/// illegal setup), then wherever the whole-board analysis (regions skipped) and the exact
/// region search alone (territory proof off, `budget` nodes) both decide a stone, they
/// must agree — each is exact, so a disagreement is a bug. Returns (stones compared,
/// stones decided by the whole-board analysis).
fn cross_check(rows: &[String], budget: u64) -> (usize, usize) {
    let text: Vec<&str> = rows.iter().map(String::as_str).collect();
    let Ok(mut b) = Board::from_diagram(&text) else { return (0, 0) };
    for p in b.points().collect::<Vec<_>>() {
        if b.get(p).is_some() && b.liberties(p).is_empty() {
            for s in b.chain(p) {
                b.set(s, None).unwrap();
            }
        }
    }
    let (mut compared, mut decided) = (0, 0);
    for r in BOTH {
        let whole = adjudicate(&b, r, &no_region_search());
        let search = adjudicate(&b, r, &Options { safe_territories: false, budget_nodes: budget, ..Options::default() });
        for p in b.points().filter(|&p| b.get(p).is_some()) {
            let (t, s) = (whole.status.get(p), search.status.get(p));
            decided += usize::from(t != Status::Undecided);
            if t != Status::Undecided && s != Status::Undecided {
                compared += 1;
                assert_eq!(t, s, "{r} {p} in\n{}", rows.join("\n"));
            }
        }
    }
    (compared, decided)
}

#[test]
fn safe_territories_agree_with_the_exact_region_search_on_random_corners() {
    // A 6x4 corner of random stones above and left of a pass-alive White wall (eyes gb, ge,
    // be): small enough for the exact region search to settle most chains. Wherever both
    // the territory proof (regions skipped) and the region search alone (territory proof
    // off) decide a stone, they must agree — each is exact, so a disagreement is a bug.
    let mut rng = Rng(0x5eed_cafe_f00d_1234);
    let (mut compared, mut territory_decided) = (0, 0);
    for _ in 0..60 {
        let mut rows: Vec<String> = Vec::new();
        for y in 0..4 {
            let mut r = String::new();
            for _ in 0..6 {
                r.push(match rng.next() % 7 {
                    0..=2 => 'X',
                    3 => 'O',
                    _ => '.',
                });
            }
            r.push(if y == 1 { '.' } else { 'O' });
            rows.push(r);
        }
        rows.push("OOOOOOO".into());
        rows.push("O.OOO.O".into());
        let (c, d) = cross_check(&rows, 100_000);
        compared += c;
        territory_decided += d;
    }
    eprintln!("{compared} stones decided by both, {territory_decided} by the territory proof");
    assert!(compared > 100, "the cross-check must compare something ({compared})");
}

/// Black's chain: the eye ha and a territory of 14 empty points (too large for a local
/// game) with three one-move eye spots (Black at ea encloses fa, ab encloses ac, ec
/// encloses fc).
const MIAI_EYES: [&str; 6] = ["......X.X", ".X..XXXXX", ".X....XOO", "XXXXXXXO.", "OOOOOOOOO", "O.OOOOO.O"];

#[test]
fn two_miai_eye_spots_give_the_second_eye() {
    let b = board(&MIAI_EYES);
    for r in BOTH {
        // Only the whole-board analysis: the couple of spots (ea encloses fa; ab encloses
        // ac) plus the eye ha make the wall alive, whoever moves first.
        let adj = adjudicate(&b, r, &no_region_search());
        assert_eq!(adj.status.get(Point::from_sgf("ga").unwrap()), Status::Alive, "{r}");
        let ga = Point::from_sgf("ga").unwrap();
        let pr = adj.proofs.iter().find(|p| p.stones.contains(&ga)).expect("a proof for the wall");
        assert_eq!(pr.status, Status::Alive);
        // The exact region search (territory proofs off) must not contradict it.
        let exact = adjudicate(&b, r, &Options { safe_territories: false, ..Options::default() });
        let s = exact.status.get(ga);
        assert!(s == Status::Alive || s == Status::Undecided, "{r}: exact search says {s:?}");
    }
}

#[test]
fn a_single_eye_spot_is_not_a_second_eye() {
    // Without the stones eb, fb the wall is straight but for bb-bc: its spots (ab encloses
    // ac; ba encloses aa-ac) overlap, so they are one spot, not a couple. One eye and one
    // spot are not a proof: nothing is claimed without a search (never a guess).
    let mut rows = MIAI_EYES;
    rows[1] = ".X....XXX";
    let b = board(&rows);
    for r in BOTH {
        let st = adjudicate(&b, r, &territory_proofs_only()).status.get(Point::from_sgf("ga").unwrap());
        assert_eq!(st, Status::Undecided, "{r}");
    }
}

#[test]
fn miai_eye_spots_agree_with_the_exact_region_search_on_random_territories() {
    // Black's wall of MIAI_EYES around a 6x3 territory filled at random (Black stones make
    // dents, White stones invade), the eye ha sometimes filled: territories too large for a
    // local game, where the couples of eye spots decide. Wherever the whole-board analysis
    // and the exact region search both decide a stone, they must agree.
    let mut rng = Rng(0x00c0_ffee_5eed_0042);
    let (mut compared, mut decided) = (0, 0);
    for _ in 0..25 {
        let mut rows: Vec<String> = Vec::new();
        for (y, line) in ["......X.X", "......XXX", "......XOO", "XXXXXXXO.", "OOOOOOOOO", "O.OOOOO.O"].iter().enumerate() {
            let row: String = line
                .chars()
                .enumerate()
                .map(|(x, ch)| match (x, y) {
                    (0..=5, 0..=2) => match rng.next() % 10 {
                        0 | 1 => 'X',
                        2 => 'O',
                        _ => '.',
                    },
                    (7, 0) if rng.next().is_multiple_of(3) => 'X',
                    _ => ch,
                })
                .collect();
            rows.push(row);
        }
        let (c, d) = cross_check(&rows, 200_000);
        compared += c;
        decided += d;
    }
    eprintln!("{compared} stones decided by both, {decided} by the whole-board analysis");
    assert!(compared > 100, "the cross-check must compare something ({compared})");
}

/// Two Black chains, each with one eye (aa; ia), joined by a bamboo joint (ea, eb: both
/// next to both chains) open to a large empty area below (no White stone touches it, so it
/// is no 駄目 under 1989 either).
const BAMBOO: [&str; 5] = [".XXX.XXX.", "XXXX.XXXX", ".........", ".........", "........."];

#[test]
fn a_miai_connection_lets_two_one_eyed_chains_share_their_eyes() {
    let b = board(&BAMBOO);
    for r in BOTH {
        // If White plays one of ea/eb, Black connects at the other: one chain, two eyes.
        let adj = adjudicate(&b, r, &no_region_search());
        for p in ["ba", "ha"] {
            assert_eq!(adj.status.get(Point::from_sgf(p).unwrap()), Status::Alive, "{r} {p}");
        }
    }
    // With White on eb the chains share one point only: not proved by the territory proofs
    // (never a guess). Under the 2011 draft Black, moving first, connects at ea at once.
    let mut rows = BAMBOO;
    rows[1] = "XXXXOXXXX";
    let b = board(&rows);
    for r in BOTH {
        let adj = adjudicate(&b, r, &territory_proofs_only());
        assert_eq!(adj.status.get(Point::from_sgf("ba").unwrap()), Status::Undecided, "{r}");
    }
    let adj = adjudicate(&b, RuleSet::Japanese2011, &no_region_search());
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&Point::from_sgf("ba").unwrap())).unwrap();
    assert_eq!((pr.status, pr.line_text()), (Status::Alive, vec!["B ea".to_string()]));
}

#[test]
fn a_stone_in_the_interior_of_its_own_unconditional_area_is_alive_without_search() {
    // Black's wall is pass-alive (eyes fa, fc, fe-ge; the 3x3 area, which borders the
    // stone cc, is no eye of Benson's). The black stone cc touches no
    // wall stone: it is the one interior point of the 3x3 area, so the whole area — cc and
    // White's throw-in at bb included — is Black's unconditional area at once: cc alive,
    // bb dead, both without search (nodes 0, empty line), under both rule sets.
    let b = board(&["XXXXX.X", "XO..XXX", "X.X.X.X", "X...XXX", "XXXXX.."]);
    for r in [RuleSet::Japanese2011, RuleSet::Japanese1989] {
        let adj = adjudicate(&b, r, &Options::default());
        for (p, want) in [("cc", Status::Alive), ("bb", Status::Dead)] {
            let q = Point::from_sgf(p).unwrap();
            assert_eq!(adj.status.get(q), want, "{r} {p}");
            let pr = adj.proofs.iter().find(|pr| pr.stones.contains(&q)).expect("a proof for every chain not pass-alive");
            assert_eq!((pr.nodes, pr.line.len()), (0, 0), "{r} {p}: decided by the unconditional area, not by search");
        }
    }
}

#[test]
fn an_undecided_chain_says_why() {
    // Straight three: a region of three empty points (aa, ba, ca) and Black's stones.
    let b = board(&STRAIGHT_THREE);
    let q = Point::from_sgf("ab").unwrap();
    let reason = |opts: &Options| {
        let adj = adjudicate(&b, RuleSet::Japanese2011, opts);
        let pr = adj.proofs.iter().find(|p| p.stones.contains(&q)).expect("a proof").clone();
        assert_eq!(pr.status == Status::Undecided, pr.undecided.is_some(), "{pr:?}");
        pr.undecided
    };
    assert_eq!(reason(&Options::default()), None, "decided: alive");
    assert!(matches!(reason(&Options { budget_nodes: 1, ..Options::default() }), Some(Undecided::Budget { nodes: 1 })));
    // One eye (aa-ba) in a region treated as too large for the exhaustive search: within
    // twice the limit the quick proofs find the kill (the region's whole tree is small);
    // beyond it there is no one-move proof either, so undecided, and the reason says the
    // region was too large.
    let one_eye = board(&["..XXO.O", "XXXXOOO", "OOOOO.O"]);
    let adj = adjudicate(&one_eye, RuleSet::Japanese2011, &Options { max_region_empty: 1, ..Options::default() });
    assert_eq!(adj.status.get(q), Status::Dead);
    let adj = adjudicate(&one_eye, RuleSet::Japanese2011, &Options { max_region_empty: 0, ..Options::default() });
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&q)).unwrap();
    assert_eq!(pr.undecided, Some(Undecided::RegionTooLarge { empty: 2, max: 0 }));
    let text = pr.undecided.unwrap().to_string();
    assert!(text.contains("2 empty points") && text.contains("第七条"), "{text}");
}

#[test]
fn in_a_region_too_large_to_search_a_chain_alive_in_one_move_is_alive_2011_only() {
    // Straight three with the exhaustive search switched off for regions of more than two
    // empty points: under the 2011 draft Black moves first (第七条 解説) and lives at once
    // with ba (two eyes, pass-alive): alive, line "B ba". Under the 1989 rules the opponent
    // moves first, so a one-move proof of life proves nothing: undecided when the region
    // (3 empty points) is more than twice the limit (here 1); at most twice (limit 2), the
    // quick proofs run and find White's kill at the vital point: dead, line "W ba" ….
    let b = board(&STRAIGHT_THREE);
    let q = Point::from_sgf("ab").unwrap();
    let opts = Options { max_region_empty: 2, ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&q)).unwrap();
    assert_eq!((pr.status, pr.line_text()), (Status::Alive, vec!["B ba".to_string()]));
    assert_eq!(pr.undecided, None);
    let adj = adjudicate(&b, RuleSet::Japanese1989, &Options { max_region_empty: 1, ..Options::default() });
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&q)).unwrap();
    assert_eq!(pr.status, Status::Undecided);
    assert_eq!(pr.undecided, Some(Undecided::RegionTooLarge { empty: 3, max: 1 }));
    let adj = adjudicate(&b, RuleSet::Japanese1989, &opts);
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&q)).unwrap();
    assert_eq!(pr.status, Status::Dead);
    assert_eq!(pr.line_text().first().map(String::as_str), Some("W ba"), "{:?}", pr.line_text());
}

#[test]
fn in_a_region_too_large_to_search_a_chain_dead_in_one_move_is_dead_1989_only() {
    // White's wall (eyes ha, hc) encloses a 5x3 area whose three middle points are interior
    // (not next to the wall); Black's stone dc stands on the middle one. Under the 1989 rules
    // White moves first (要請II-[iii]): one move on the ring (e.g. cb) joins the wall and
    // leaves only dc and ec interior — adjacent, so the whole area is White's unconditional
    // area: dead in one move. Under the 2011 draft Black moves first, and no one-move proof
    // of life exists (the miai of White's kills is the next test). The exhaustive search
    // (on by default: 14 empty points) agrees under 1989.
    let b = board(&["OOOOOOO.O", "O.....OOO", "O..X..O.O", "O.....OOO", "OOOOOOOOO"]);
    let q = Point::from_sgf("dc").unwrap();
    let proof = |r: RuleSet, opts: &Options| {
        let adj = adjudicate(&b, r, opts);
        adj.proofs.iter().find(|p| p.stones.contains(&q)).unwrap().clone()
    };
    let pr = proof(RuleSet::Japanese1989, &no_region_search());
    assert_eq!(pr.status, Status::Dead);
    assert_eq!(pr.line.len(), 1);
    assert_eq!(pr.line[0].0, Color::White);
    assert_eq!(proof(RuleSet::Japanese2011, &territory_proofs_only()).status, Status::Undecided);
    assert_eq!(proof(RuleSet::Japanese1989, &territory_proofs_only()).status, Status::Undecided, "the rule, not another step");
    assert_eq!(proof(RuleSet::Japanese1989, &Options::default()).status, Status::Dead);
}

#[test]
fn in_a_region_too_large_to_search_a_miai_of_one_move_lives_is_alive_1989() {
    // Region search off, territory proofs off: only the short proofs decide.
    let opts = Options { safe_territories: false, ..no_region_search() };
    // 1989, the opponent moves first: Black's two one-eyed chains of BAMBOO connect at ea or
    // eb, each alone making one chain with two eyes (pass-alive): miai, so whatever White
    // plays first, Black connects at the other — alive. (Under 2011 Black, moving first,
    // connects at once.)
    let b = board(&BAMBOO);
    let ba = Point::from_sgf("ba").unwrap();
    for r in BOTH {
        let adj = adjudicate(&b, r, &opts);
        let pr = adj.proofs.iter().find(|p| p.stones.contains(&ba)).unwrap();
        assert_eq!(pr.status, Status::Alive, "{r}");
        let want = if r == RuleSet::Japanese1989 { 2 } else { 1 };
        assert_eq!(pr.line.len(), want, "{r}: {:?}", pr.line_text());
    }
    // With White on eb only one connection is left: no miai, so 1989 leaves it undecided
    // (White cuts at ea first); 2011 still connects at once.
    let mut rows = BAMBOO;
    rows[1] = "XXXXOXXXX";
    let b = board(&rows);
    assert_eq!(adjudicate(&b, RuleSet::Japanese1989, &opts).status.get(ba), Status::Undecided);
    assert_eq!(adjudicate(&b, RuleSet::Japanese2011, &opts).status.get(ba), Status::Alive);
    // Under 2011 the miai step is not tried (White the attacker moves second; measured not
    // worth its time): Black's stone dc in White's 5x3 area, which White can shut in on any
    // of cb, cd, eb, ed, stays undecided without the exhaustive search, which finds it dead.
    let b = board(&["OOOOOOO.O", "O.....OOO", "O..X..O.O", "O.....OOO", "OOOOOOOOO"]);
    let dc = Point::from_sgf("dc").unwrap();
    assert_eq!(adjudicate(&b, RuleSet::Japanese2011, &opts).status.get(dc), Status::Undecided);
    assert_eq!(adjudicate(&b, RuleSet::Japanese2011, &Options::default()).status.get(dc), Status::Dead);
}

#[test]
fn in_a_region_too_large_to_search_a_move_then_a_miai_of_lives_is_alive_2011() {
    // Short proofs only (region search and territory proofs off). BAMBOO plus Black's stone
    // bd, a knight's move below the left chain, and White's ad beside it. Under 2011 Black
    // moves first (第七条 解説): bc joins bd to the left chain; then Black has several
    // lives — ea or eb connect the two one-eyed chains into one with two eyes, be makes
    // ac-ae a second healthy region — and they are miai, so whatever White does, Black
    // lives: alive, line "B bc", "W pass", and a life. No single move makes bd alive.
    let opts = Options { safe_territories: false, ..no_region_search() };
    let mut rows = BAMBOO;
    rows[3] = "OX.......";
    let mut b = board(&rows);
    let bd = Point::from_sgf("bd").unwrap();
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&bd)).unwrap();
    assert_eq!(pr.status, Status::Alive);
    let line = pr.line_text();
    assert_eq!(line[..2], ["B bc".to_string(), "W pass".to_string()]);
    assert_eq!(line.len(), 3, "{line:?}");
    // The line is real: after it bd is pass-alive (no proof entry needed any more).
    for (c, m) in [&pr.line[0], &pr.line[2]] {
        let goban::Move::Play(p) = m else { panic!("a pass where a move was expected") };
        b.play(*c, *p, false).unwrap();
    }
    let after = adjudicate(&b, RuleSet::Japanese2011, &opts);
    assert_eq!(after.status.get(bd), Status::Alive);
    assert!(after.proofs.iter().all(|p| !p.stones.contains(&bd)), "pass-alive after {line:?}");
    // With a White stone at bc instead, bd joins nothing in one move: undecided.
    rows[2] = ".O.......";
    let b = board(&rows);
    assert_eq!(adjudicate(&b, RuleSet::Japanese2011, &opts).status.get(bd), Status::Undecided);
}

#[test]
fn a_boundary_chain_without_a_liberty_inside_its_territory_is_not_kept_alive_by_it() {
    // Found by the random cross-check below: White's aa-ba-bb borders the White-region of
    // Black's ab-ac-bc but has its only liberty, ca, outside it. In that region's local
    // game it has no liberty at all, yet it was credited alive and ab-ac-bc dead — while
    // Black, moving first, simply captures it at ca (2011: alive, as the exhaustive region
    // search finds). A local game needs every boundary chain to keep a liberty inside the
    // region (safety module docs, argument (a)), so such a game is lost from the start.
    let rows: Vec<String> = ["OO.OXX", "XOXXX.", "XXO.OO", ".OOOOX", "..X..X"].iter().map(|r| r.to_string()).collect();
    let (compared, _) = cross_check(&rows, 200_000);
    assert!(compared > 0);
    let b = board(&["OO.OXX", "XOXXX.", "XXO.OO", ".OOOOX", "..X..X"]);
    let ab = Point::from_sgf("ab").unwrap();
    assert_ne!(adjudicate(&b, RuleSet::Japanese2011, &no_region_search()).status.get(ab), Status::Dead);
}

#[test]
fn in_a_region_too_large_to_search_every_opponent_move_answered_by_a_life_is_alive_2011() {
    // Found by a random search over small boards: Black's chain cc-dc-cd-dd-ed has, after
    // Black's eb (which captures ea), a single quiet life of its own — not a miai of two —
    // yet every White move is answered by some move near the chain that makes it
    // pass-alive. Short proofs only: alive, with the line "B eb", "W pass", a life; the
    // exhaustive region search agrees.
    let b = board(&["OXOXOX", "......", "O.XXOX", "..XXX.", "XO.OOX"]);
    let cc = Point::from_sgf("cc").unwrap();
    let opts = Options { safe_territories: false, ..no_region_search() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&cc)).unwrap();
    assert_eq!(pr.status, Status::Alive);
    let line = pr.line_text();
    assert_eq!((line.len(), &line[..2]), (3, &["B eb".to_string(), "W pass".to_string()][..]));
    let exact = adjudicate(&b, RuleSet::Japanese2011, &Options { safe_territories: false, ..Options::default() });
    assert_eq!(exact.status.get(cc), Status::Alive);
}

#[test]
fn in_a_region_too_large_to_search_one_move_joining_a_chain_kept_alive_by_its_territories_is_alive_2011() {
    // Black's wall has two 3x3 territories (not pass-alive: each has points not next to
    // it) that the territory proofs show safe, so the wall is alive. Black's stone cf, out in
    // the open, joins it at ce in one move (a point no territory proof uses):
    // under 2011 Black moves first, so cf is alive. Short proofs only (region search off).
    let b = board(&["...X...X.", "...X...X.", "...X...X.", "XXXXXXXX.", ".........", "..X......", ".........", "OOOOOOOOO", "O.O.O.O.O"]);
    let cf = Point::from_sgf("cf").unwrap();
    let wall = Point::from_sgf("da").unwrap();
    let adj = adjudicate(&b, RuleSet::Japanese2011, &no_region_search());
    assert_eq!(adj.status.get(wall), Status::Alive, "the territory proofs keep the wall alive");
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&cf)).unwrap();
    assert_eq!((pr.status, pr.line_text()), (Status::Alive, vec!["B ce".to_string()]));
    // Without the territory proofs the same move proves nothing (the wall is not pass-alive).
    let off = Options { safe_territories: false, ..no_region_search() };
    assert_eq!(adjudicate(&b, RuleSet::Japanese2011, &off).status.get(cf), Status::Undecided);
}

#[test]
fn a_miai_connection_to_a_chain_kept_alive_by_its_territories_is_alive_without_a_move() {
    // As above, with Black's two stones bf-cf: they share be and ce with the wall, two free
    // points no territory proof uses: whoever takes one, Black takes the other — alive in
    // both rule sets before any move (empty line). Short proofs only (region search off).
    let b = board(&["...X...X.", "...X...X.", "...X...X.", "XXXXXXXX.", ".........", ".XX......", ".........", "OOOOOOOOO", "O.O.O.O.O"]);
    let bf = Point::from_sgf("bf").unwrap();
    for r in BOTH {
        let adj = adjudicate(&b, r, &no_region_search());
        let pr = adj.proofs.iter().find(|p| p.stones.contains(&bf)).unwrap();
        // 1989: alive, and touching the open area, a 駄目 (要請II-[v]): a セキ石.
        let want = if r == RuleSet::Japanese1989 { Status::Seki } else { Status::Alive };
        assert_eq!((pr.status, pr.line.len()), (want, 0), "{r}");
        let off = Options { safe_territories: false, ..no_region_search() };
        assert_eq!(adjudicate(&b, r, &off).status.get(bf), Status::Undecided, "{r}");
    }
}

#[test]
fn the_whole_board_analysis_agrees_with_the_exact_region_search_on_random_small_boards() {
    // Random full boards of 5-7 x 4-5 points (no wall, no structure): every step of the
    // whole-board analysis (Benson, territory proofs, short proofs) meets shapes the other
    // cross-checks never build — this one found the boundary chain without a liberty inside
    // its territory (test above). Outside CI: 700 boards, 6,706 stones compared, 0
    // disagreements.
    let mut rng = Rng(0x0bad_5eed_1234_0001);
    let (mut compared, mut decided) = (0, 0);
    for _ in 0..50 {
        let (w, h) = (5 + (rng.next() % 3) as usize, 4 + (rng.next() % 2) as usize);
        let rows: Vec<String> = (0..h)
            .map(|_| {
                (0..w)
                    .map(|_| match rng.next() % 10 {
                        0..=3 => 'X',
                        4..=5 => 'O',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        let (c, d) = cross_check(&rows, 200_000);
        compared += c;
        decided += d;
    }
    eprintln!("{compared} stones decided by both, {decided} by the whole-board analysis");
    assert!(compared > 200, "the cross-check must compare something ({compared})");
}

#[test]
fn a_3x3_corner_territory_keeps_its_group_alive_in_an_open_board() {
    // A black group with a 3x3 corner territory and a one-point eye (ea), facing an empty
    // board: its region is far larger than the exhaustive search, so only the territory
    // proofs can show it alive. The 3x3 corner's local game (with the eye credited) needs
    // about 4,900 nodes — more than the 3,000 the local games once had (then: undecided).
    let mut rows: Vec<String> = ["...X.X", "...XXX", "...X..", "XXXX.."].iter().map(|r| format!("{r:.<19}")).collect();
    rows.extend((4..15).map(|_| ".".repeat(19)));
    rows.extend(["OOOO", "O.OO", "OO.O", "OOOO"].iter().map(|r| format!("{r:.>19}")));
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let b = board(&rows);
    // Under 1989 a living chain next to 駄目 (the open board) is a セキ石 (要請II-[v]).
    for (r, expect) in [(RuleSet::Japanese2011, Status::Alive), (RuleSet::Japanese1989, Status::Seki)] {
        let adj = adjudicate(&b, r, &Options { budget_nodes: 20_000, ..Options::default() });
        assert_eq!(adj.status.get(Point::from_sgf("ad").unwrap()), expect, "{r}");
        let pr = adj.proofs.iter().find(|p| p.stones.contains(&Point::from_sgf("ad").unwrap())).unwrap();
        assert!(pr.undecided.is_none() && pr.nodes > 3_000, "{r}: the territory's local game ({} nodes)", pr.nodes);
    }
}

#[test]
fn a_territory_proved_safe_ends_a_line_of_the_region_search() {
    // The final position of a real 9x9 game (`shared/games/9/gnugo__boardspace__
    // GNUGo-GoFigure0.1-200503181614.sgf`, its stones only). White's chain dh-eh, eg-ei
    // borders the open lower right (nine empty points with its other chains). After W fg
    // the lower right is a territory whose local game White wins, and the chain is kept
    // alive by it; shown pass-alive instead, the line is long — the region search alone
    // needs about 294,000 nodes (the chain was undecided within 20,000).
    let b = board(&[".OOOOOX..", ".OXXXX...", ".OOX..XX.", "O.OXXXOXX", "OOXXOOOOX", "XOXXXOO.O", "XXXXO.OOO", "..XOO....", "..XXO...."]);
    let adj = adjudicate(&b, RuleSet::Japanese2011, &Options { budget_nodes: 20_000, ..Options::default() });
    let dh = Point::from_sgf("dh").unwrap();
    assert_eq!(adj.status.get(dh), Status::Alive);
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&dh)).unwrap();
    assert_eq!(pr.stones.len(), 4);
    assert_eq!(pr.line_text().first().map(String::as_str), Some("W fg"), "{:?}", pr.line_text());
    assert!(pr.nodes < 20_000, "{} nodes", pr.nodes);
    // Without the territory proofs (the region search alone) it stays undecided here.
    let alone = adjudicate(&b, RuleSet::Japanese2011, &Options { budget_nodes: 20_000, safe_territories: false, ..Options::default() });
    assert_eq!(alone.status.get(dh), Status::Undecided);
}
