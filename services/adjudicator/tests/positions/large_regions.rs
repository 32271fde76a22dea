//! Undecided chains and their reasons, and the short proofs of regions too large to search.

use super::*;

#[test]
pub(super) fn an_undecided_chain_says_why() {
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
pub(super) fn in_a_region_too_large_to_search_a_chain_alive_in_one_move_is_alive_2011_only() {
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
pub(super) fn in_a_region_too_large_to_search_a_chain_dead_in_one_move_is_dead_1989_only() {
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
    let one_move = Options { enclosure_links: false, ..no_region_search() };
    let pr = proof(RuleSet::Japanese1989, &one_move);
    assert_eq!(pr.status, Status::Dead);
    assert_eq!(pr.line.len(), 1);
    assert_eq!(pr.line[0].0, Color::White);
    let territories = Options { enclosure_links: false, ..territory_proofs_only() };
    assert_eq!(proof(RuleSet::Japanese2011, &territories).status, Status::Undecided);
    assert_eq!(proof(RuleSet::Japanese1989, &territories).status, Status::Undecided, "the rule, not another step");
    assert_eq!(proof(RuleSet::Japanese1989, &Options::default()).status, Status::Dead);
    // Each interior point (cc, dc, ec) has two private links on the ring (cb/cd, db/dd,
    // eb/ed): a territory White fills through them (step 2's paired territory), so dead
    // under both rule sets without a region search (the nodes are those of the local games
    // of White's two eyes), with the line of White's fills (Black passing).
    for r in BOTH {
        let pr = proof(r, &territory_proofs_only());
        assert_eq!((pr.status, pr.line.len()), (Status::Dead, 6), "{r}: {:?}", pr.line_text());
        assert!(pr.nodes < 100, "{r}: {} nodes", pr.nodes);
    }
}

#[test]
pub(super) fn in_a_region_too_large_to_search_a_miai_of_one_move_lives_is_alive_1989() {
    // Region search off, territory proofs off: only the short proofs decide.
    let opts = Options { safe_territories: false, enclosure_links: false, ..no_region_search() };
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
pub(super) fn in_a_region_too_large_to_search_a_move_then_a_miai_of_lives_is_alive_2011() {
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
pub(super) fn a_boundary_chain_without_a_liberty_inside_its_territory_is_not_kept_alive_by_it() {
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
pub(super) fn in_a_region_too_large_to_search_every_opponent_move_answered_by_a_life_is_alive_2011() {
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
pub(super) fn in_a_region_too_large_to_search_one_move_joining_a_chain_kept_alive_by_its_territories_is_alive_2011() {
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
pub(super) fn a_miai_connection_to_a_chain_kept_alive_by_its_territories_is_alive_without_a_move() {
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
pub(super) fn the_whole_board_analysis_agrees_with_the_exact_region_search_on_random_small_boards() {
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
pub(super) fn a_3x3_corner_territory_keeps_its_group_alive_in_an_open_board() {
    // A black group with a 3x3 corner territory and a one-point eye (ea), facing an empty
    // board: its region is far larger than the exhaustive search, so only the territory
    // proofs can show it alive, by the 3x3 corner's local game (with the eye credited).
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
        assert!(pr.undecided.is_none() && pr.nodes > 0, "{r}: the territory's local game ({} nodes)", pr.nodes);
    }
}

#[test]
pub(super) fn a_territory_proved_safe_ends_a_line_of_the_region_search() {
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
    let alone = adjudicate(
        &b,
        RuleSet::Japanese2011,
        &Options { budget_nodes: 20_000, safe_territories: false, walled_regions: false, ..Options::default() },
    );
    assert_eq!(alone.status.get(dh), Status::Undecided);
}

#[test]
pub(super) fn a_group_that_lives_in_its_own_eye_space_is_proved_alive_in_its_walled_region() {
    // The final position of a real 13x13 game (`shared/games/13/gnugo__mertin13x13__GHGN1.sgf`,
    // its stones only; the right side is still open). White's group on the left edge (ad-af
    // and the chains next to it) lies in a region far larger than the exhaustive search, and
    // its eye space there is open to the board. Its owner's walled region (at most 8 empty
    // points next to it, every other point next to it taken as a Black stone that is never
    // captured, Black free to retake any ko; crate docs, Engine step 5) proves it alive.
    let b = board(&[
        "....XOX.XXO..",
        "...XXOX.XO...",
        "XXXXOOX.XOOO.",
        "OXOOOXX.XXXO.",
        "OOOOOX.XOOO..",
        "O.OXX..XO.O..",
        ".O.OX.XO.....",
        "..OOX.XO.....",
        "...OX.XO.O...",
        "OOOX..XXO....",
        "OXX.XXOO..O..",
        "X.X..XO......",
        "....XOO......",
    ]);
    let ad = Point::from_sgf("ad").unwrap();
    let opts = Options { budget_nodes: 20_000, ..Options::default() };
    let walled = adjudicate(&b, RuleSet::Japanese2011, &opts);
    assert_eq!(walled.status.get(ad), Status::Alive);
    let pr = walled.proofs.iter().find(|p| p.stones.contains(&ad)).unwrap();
    assert!(pr.undecided.is_none() && pr.stones.len() > 10, "{:?}", pr.stones);
    // Without the step the chain is undecided.
    let off = adjudicate(&b, RuleSet::Japanese2011, &Options { walled_regions: false, ..opts.clone() });
    assert_eq!(off.status.get(ad), Status::Undecided);
    // Under 1989 (the opponent moves first, a cycle is its failure) the step is not taken.
    let r1989 = adjudicate(&b, RuleSet::Japanese1989, &opts);
    let off1989 = adjudicate(&b, RuleSet::Japanese1989, &Options { walled_regions: false, ..opts });
    assert_eq!(r1989.status.get(ad), off1989.status.get(ad));
}
