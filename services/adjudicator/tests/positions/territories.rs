//! Territories proved safe (step 2): safe corners, miai eye spots and miai connections, against the exact region search.

use super::*;

/// Options that leave every search region undecided at once, so that only what the
/// whole-board analysis (Benson, safe territories) proves is decided.
pub(super) fn no_region_search() -> Options {
    Options { max_region_empty: 0, ..Options::default() }
}

/// The territory proofs alone: no region search, no one-move proofs of life.
pub(super) fn territory_proofs_only() -> Options {
    Options { one_move_proofs: false, ..no_region_search() }
}

#[test]
pub(super) fn a_safe_corner_territory_keeps_its_wall_alive_and_kills_the_invader() {
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
pub(super) fn one_eye_with_a_virtual_second_is_not_enough() {
    // The two-point eye aa-ba wins its local game only with a virtual eye from elsewhere,
    // and Black has no other eye: the territory proof must not call it alive.
    let b = board(&["..XXO.O", "XXXXOOO", "OOOOO.O"]);
    for r in BOTH {
        let st = adjudicate(&b, r, &no_region_search()).status.get(Point::from_sgf("ab").unwrap());
        assert_ne!(st, Status::Alive, "{r}");
    }
}

/// A small deterministic generator (xorshift) for the randomized cross-check below.
pub(super) struct Rng(pub(super) u64);
impl Rng {
    pub(super) fn next(&mut self) -> u64 {
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
pub(super) fn cross_check(rows: &[String], budget: u64) -> (usize, usize) {
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
pub(super) fn safe_territories_agree_with_the_exact_region_search_on_random_corners() {
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
pub(super) const MIAI_EYES: [&str; 6] = ["......X.X", ".X..XXXXX", ".X....XOO", "XXXXXXXO.", "OOOOOOOOO", "O.OOOOO.O"];

#[test]
pub(super) fn two_miai_eye_spots_give_the_second_eye() {
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
pub(super) fn a_single_eye_spot_is_not_a_second_eye() {
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
pub(super) fn miai_eye_spots_agree_with_the_exact_region_search_on_random_territories() {
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
pub(super) const BAMBOO: [&str; 5] = [".XXX.XXX.", "XXXX.XXXX", ".........", ".........", "........."];

#[test]
pub(super) fn a_miai_connection_lets_two_one_eyed_chains_share_their_eyes() {
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
pub(super) fn a_stone_in_the_interior_of_its_own_unconditional_area_is_alive_without_search() {
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

/// A 25x25 board whose first line along the top and the right side (`width` lines wide, 49
/// points when one) is an edge territory of Black, with White invaders at ka, la and yl
/// (`yl` moved in when two wide). Black's wall (the next line) is joined to Black stones
/// filling the rest of the board but two empty 3x3 holes: their centres are no liberties,
/// so the wall is not pass-alive, and each hole wins its local game.
fn edge_territory(width: u8) -> Board {
    let n = 25u8;
    let mut b = Board::new(n.into(), n.into()).unwrap();
    let hole = |x: u8, y: u8| ((4..=6).contains(&x) && (5..=7).contains(&y)) || ((12..=14).contains(&x) && (15..=17).contains(&y));
    for y in 0..n {
        for x in 0..n {
            let territory = y < width || x >= n - width;
            let c = if territory || hole(x, y) { None } else { Some(Color::Black) };
            b.set(Point::new(x, y), c).unwrap();
        }
    }
    for w in ["ka", "la", "yl"] {
        b.set(Point::from_sgf(w).unwrap(), Some(Color::White)).unwrap();
    }
    b
}

#[test]
pub(super) fn a_thin_49_point_edge_territory_is_proved_safe_statically() {
    // One line wide: every point but the corner ya is next to the wall, so once the wall is
    // kept alive (by its holes) White can make no eye there: the invaders are dead, without
    // any search (no region search, no one-move proofs).
    let b = edge_territory(1);
    for r in BOTH {
        let adj = adjudicate(&b, r, &territory_proofs_only());
        let st = |p: &str| adj.status.get(Point::from_sgf(p).unwrap());
        assert_eq!(st("ab"), Status::Alive, "{r} wall");
        for w in ["ka", "la", "yl"] {
            assert_eq!(st(w), Status::Dead, "{r} invader {w}");
        }
    }
}

#[test]
pub(super) fn a_two_line_edge_territory_is_not_thin() {
    // Two lines wide, the first line is interior (no Black stone next to it): White might
    // make eyes there as far as the static rule knows, so it proves nothing.
    let b = edge_territory(2);
    for r in BOTH {
        let adj = adjudicate(&b, r, &territory_proofs_only());
        for w in ["ka", "la", "yl"] {
            assert_ne!(adj.status.get(Point::from_sgf(w).unwrap()), Status::Dead, "{r} invader {w}");
        }
    }
}

/// A 19x19 board filled with one Black chain but for two edge territories two lines deep
/// (the top and bottom rows and the rows next to them), each closed at both ends by Black
/// stones on the first column and the last when `closed` (else open at the left), with
/// White invaders at ia, ja and ms. The chain has no other liberty, so its life rests on
/// the two territories, each too large for a local game.
fn two_line_territories(closed: bool) -> Board {
    let mut b = Board::new(19, 19).unwrap();
    for y in 0..19u8 {
        for x in 0..19u8 {
            let edge_rows = y <= 1 || y >= 17;
            let territory = edge_rows && (1..=17).contains(&x) || (!closed && edge_rows && x == 0);
            b.set(Point::new(x, y), if territory { None } else { Some(Color::Black) }).unwrap();
        }
    }
    for w in ["ia", "ja", "ms"] {
        b.set(Point::from_sgf(w).unwrap(), Some(Color::White)).unwrap();
    }
    b
}

#[test]
pub(super) fn two_line_edge_territories_closed_at_their_ends_pair_from_them() {
    // Every point of the second line is next to the wall; each point of the first pairs with
    // the point of the second line beside it and the point of the first line paired before
    // it, from the ends (the first points next to the closing stones): White can make no eye
    // in either, so each is one sure eye for the wall, which is alive, and the invaders are
    // dead, with no search.
    let b = two_line_territories(true);
    for r in BOTH {
        let adj = adjudicate(&b, r, &territory_proofs_only());
        let st = |p: &str| adj.status.get(Point::from_sgf(p).unwrap());
        assert_eq!(st("ac"), Status::Alive, "{r} wall");
        for w in ["ia", "ja", "ms"] {
            assert_eq!(st(w), Status::Dead, "{r} invader {w}");
        }
    }
    // The wall's proof line: White passes, Black fills one link of each paired point.
    let adj = adjudicate(&b, RuleSet::Japanese2011, &territory_proofs_only());
    let ac = Point::from_sgf("ac").unwrap();
    let wall = adj.proofs.iter().find(|p| p.stones.contains(&ac)).expect("a proof for the wall");
    assert!(!wall.line.is_empty(), "a line");
    for (k, m) in wall.line.iter().enumerate() {
        let expected = if k % 2 == 0 { (Color::White, true) } else { (Color::Black, false) };
        assert_eq!((m.0, m.1 == goban::Move::Pass), expected, "{:?}", wall.line_text());
    }
    // Without the pairing (the option that switches it off with the links rule), neither.
    let adj = adjudicate(&b, RuleSet::Japanese2011, &Options { enclosure_links: false, ..territory_proofs_only() });
    assert_ne!(adj.status.get(ac), Status::Alive);
}

#[test]
pub(super) fn a_two_line_edge_territory_open_at_an_end_does_not_pair() {
    // Open at the left, the first line's end has one link only, and so has each point after
    // it: no pairing, so the static rules prove neither the wall nor the invaders.
    let b = two_line_territories(false);
    for r in BOTH {
        let adj = adjudicate(&b, r, &territory_proofs_only());
        let st = |p: &str| adj.status.get(Point::from_sgf(p).unwrap());
        assert_ne!(st("ac"), Status::Alive, "{r} wall");
        for w in ["ia", "ja"] {
            assert_ne!(st(w), Status::Dead, "{r} invader {w}");
        }
    }
}

#[test]
pub(super) fn paired_territories_agree_with_the_exact_region_search_on_random_edges() {
    // A 2x8 area on the top edge, closed by Black stones at both ends and below, filled at
    // random (Black stones make dents, White stones invade); Black's wall has the sure eye bd
    // besides, White's group below is pass-alive. Areas of more than 12 empty points get no
    // local game: the pairing, when it exists, decides them. Wherever the whole-board analysis
    // and the exact region search both decide a stone, they must agree.
    let mut rng = Rng(0x0dd5_eed5_2011_0007);
    let (mut compared, mut decided) = (0, 0);
    for _ in 0..40 {
        let mut rows: Vec<String> = Vec::new();
        for _ in 0..2 {
            let mut r = String::from("X");
            for _ in 0..8 {
                r.push(match rng.next() % 12 {
                    0 => 'X',
                    1 | 2 => 'O',
                    _ => '.',
                });
            }
            r.push('X');
            rows.push(r);
        }
        rows.push("XXXXXXXXXX".into());
        rows.push("X.XOOOOOOO".into());
        rows.push("XXXO.OOO.O".into());
        let (c, d) = cross_check(&rows, 200_000);
        compared += c;
        decided += d;
    }
    eprintln!("{compared} stones decided by both, {decided} by the whole-board analysis");
    assert!(compared > 100, "the cross-check must compare something ({compared})");
}

/// Step 5 (module `walled`): the final position of a real game (KGS, 2017-03-03, W+24.5),
/// where Black's stone `gq` stands in White's territory `gp`–`hs` (more than the local games'
/// 12 empty points, neither thin nor paired), whose White chains step 2 keeps alive. The
/// region of the whole board around it has more than 40 empty points, so the region search
/// finds only short proofs, and none for `gq`; in its walled region it is dead, Black moving
/// first.
#[test]
fn an_invasion_walled_in_by_chains_the_territory_proofs_keep_alive_is_dead() {
    let b = board(&[
        ".O.....O.OXXX.....X",
        "O...OOO.OOOOX...XXX",
        ".OO.O.O..OOXXXXOXOX",
        "OOXOO.OO..OXOXXXXOO",
        ".OXO.O.OOOOXOOXOO.O",
        "OOXOXXOOXOXXO.XO.O.",
        "XOXX.XOXXOOXOXXO.O.",
        "XXX.X.XXXXOOOXOO.O.",
        "..XOXXXOOXXXXOOO.O.",
        "..XOOXOOXXX.XO..OOO",
        "...XOO.OOX..XXO.OO.",
        ".XXXO...OXX..XOOOOO",
        "XXOXXO.OXX..XXXOXOX",
        "XOOXOOOOOX.XXXOOXXX",
        "OOXXXO..OX.XOOOX..X",
        "O.OXOOOOXX.XOOOXX..",
        ".OOXXOX.OXXXXOXXXX.",
        "O.OOXO..OX.XXOOXX..",
        "..OXXO..OOX.X..X.XX",
    ]);
    let gq = Point::from_sgf("gq").unwrap();
    let adj = adjudicate(&b, RuleSet::Japanese2011, &Options { budget_nodes: 20_000, ..Options::default() });
    let region = adj.regions.iter().find(|r| r.points.contains(&gq)).expect("gq's region");
    let empty = region.points.iter().filter(|&&q| b.get(q).is_none()).count();
    assert!(empty > Options::default().max_region_empty, "the region search alone cannot search gq's region: {empty} empty points");
    let pr = adj.proofs.iter().find(|p| p.stones.contains(&gq)).expect("gq's proof");
    assert_eq!(pr.status, Status::Dead, "{:?}", pr.undecided);
    assert_eq!(pr.line_text().first().map(|m| &m[..2]), Some("B "), "the owner moves first: {:?}", pr.line_text());
    assert!(pr.undecided.is_none());
}
