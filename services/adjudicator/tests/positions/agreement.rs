//! The agreement as the context of hypothetical play (第九条 with 第七条): agreed walls, disputes, chains drawn in, dead by two links.

use super::*;

#[test]
pub(super) fn agreed_status_stands_unless_disputed_and_is_refuted() {
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
pub(super) fn a_disputed_stone_inside_agreed_walls_is_decided_in_its_own_region() {
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
pub(super) fn a_wall_in_a_capturing_race_with_the_disputed_chain_is_drawn_in() {
    // Two stones side by side in the open, three liberties each, both agreed alive: the
    // white one's life is exactly what a fight with the disputed black one decides, so it is
    // drawn into the dispute (listed with the reason), not taken as a wall. In the open
    // board 2,000 nodes do not decide the disputed stone, so nothing rests on the white one:
    // it is not searched and keeps the agreed status (a drawn-in chain searched, and found
    // other than agreed, is the next test's).
    let b = board(&[".........", ".........", ".........", "...XO....", ".........", ".........", ".........", ".........", "........."]);
    let (dd, ed) = (Point::from_sgf("dd").unwrap(), Point::from_sgf("ed").unwrap());
    let opts = Options { budget_nodes: 2_000, agreed: Some(goban::StatusMap::new(&b)), dispute: vec![dd], ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    let drawn = adj.drawn_in.iter().find(|d| d.stones == [ed]).expect("the race partner drawn in");
    assert_eq!((drawn.by, drawn.agreed), (dd, Status::Alive));
    assert!(matches!(drawn.reason, shinpan_adjudicator::DrawReason::CapturingRace { with } if with == dd));
    assert_eq!(adj.status.get(dd), Status::Undecided);
    assert!(adj.proofs.iter().find(|pr| pr.stones == [dd]).is_some_and(|pr| pr.undecided.is_some()), "the disputed stone says why");
    assert!(adj.proofs.iter().all(|pr| pr.stones != [ed]), "not searched: {:?}", adj.proofs);
    assert!(!drawn.searched, "the answer says it was not searched");
    assert_eq!(adj.status.get(ed), Status::Alive, "the agreement stands");
}

#[test]
pub(super) fn a_wall_racing_a_drawn_in_chain_is_drawn_in_too() {
    // The corner of a real final position. Black's single stones ih and hi share the
    // liberties hh and ii; White's chain gf-ig-gi (three liberties: fh, fi, hh) touches
    // both. Disputing ih draws White's chain in (a capturing race with ih). Black's hi, an
    // agreed-alive wall of ih's own colour, races that White chain too (two liberties
    // against three): if it stayed a wall, Black hh would join ih to a stone that can never
    // be captured and ih would come out alive — a status that holds only because hi's life
    // was assumed. Drawn in as well, both black stones are dead: White fh joins its chain to
    // the wall di-ei-eh, and Black can never fill hh or ii without being taken.
    let rows = [".........", ".........", ".........", ".........", "....X.XX.", "....XXOXX", "...XXOOOO", "..XXO.O.X", "..XOO.OX."];
    let b = board(&rows);
    let (ih, hi, gi) = (Point::from_sgf("ih").unwrap(), Point::from_sgf("hi").unwrap(), Point::from_sgf("gi").unwrap());
    let opts = Options { agreed: Some(goban::StatusMap::new(&b)), dispute: vec![ih], ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    assert!(adj.drawn_in.iter().any(|d| d.stones.contains(&gi)), "the race partner: {:?}", adj.drawn_in);
    let own = adj.drawn_in.iter().find(|d| d.stones == [hi]).expect("the wall of ih's colour racing it drawn in");
    assert!(matches!(own.reason, shinpan_adjudicator::DrawReason::LeanedOn { with } if b.chain(with).contains(&gi)), "{:?}", own.reason);
    assert_eq!(adj.status.get(ih), Status::Dead, "{:?}", adj.proofs);
    assert_eq!(adj.status.get(hi), Status::Dead, "{:?}", adj.proofs);
    // ih's proof of *dead* held with White's chain capturable, and White's life is not
    // disputed: drawn in, it keeps the agreement unsearched. Black's hi, of the dead chain's
    // own colour, is searched (above).
    assert!(adj.proofs.iter().any(|pr| pr.stones == [hi]), "hi searched: {:?}", adj.proofs);
    assert!(own.searched, "the answer says hi was searched");
    assert!(adj.drawn_in.iter().filter(|d| d.stones.contains(&gi)).all(|d| !d.searched), "{:?}", adj.drawn_in);
    assert!(adj.proofs.iter().all(|pr| !pr.stones.contains(&gi)), "White's chain not searched: {:?}", adj.proofs);
    assert_eq!(adj.status.get(gi), Status::Alive, "the agreement stands");
    let pr = adj.proofs.iter().find(|pr| pr.stones == [ih]).expect("a proof");
    assert!(!pr.line.is_empty());
}

#[test]
pub(super) fn a_wall_racing_an_agreed_dead_chain_of_the_region_is_drawn_in() {
    // The top edge of a 9x9 board. Black's ab-ba-bb-cb (disputed) has the eye aa and the
    // point ca, which it shares with Black's da, agreed dead. White's ea, agreed alive, stands
    // in atari between da and Black's wall fa-fi: its last liberty is eb. Taken as a wall that
    // is never captured, it would leave the disputed chain dead (White ca takes da, then aa).
    // But Black, first to move (第七条), takes it with eb: then White can play neither ca nor aa
    // (each would be suicide) nor ea, and the chain lives. ea is in a race with da, a chain of
    // the region, so the dead answer would rest on the agreement's assumption that it is never
    // captured: it is drawn in, and the chain is found alive.
    let rows = [".X.XOX...", "XXXO.X...", "OOOOOX...", "....OX...", "....OX...", "....OX...", "....OX...", "....OX...", "....OX..."];
    let b = board(&rows);
    let p = |s: &str| Point::from_sgf(s).unwrap();
    let (ba, da, ea) = (p("ba"), p("da"), p("ea"));
    let opts = Options { agreed: Some(goban::StatusMap::with_dead(&b, &[da])), dispute: vec![ba], ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    let drawn = adj.drawn_in.iter().find(|d| d.stones == [ea]).expect("the wall racing da drawn in");
    assert!(matches!(drawn.reason, shinpan_adjudicator::DrawReason::LeanedOn { with } if with == da), "{:?}", drawn.reason);
    assert_eq!(adj.status.get(ba), Status::Alive, "{:?}", adj.proofs);
    let pr = adj.proofs.iter().find(|pr| pr.stones.contains(&ba)).expect("a proof");
    assert_eq!(pr.line.first(), Some(&(Color::Black, goban::Move::Play(p("eb")))), "Black takes the wall first: {:?}", pr.line);
    // With the wall agreed dead instead, the same answer without drawing anything in.
    let opts = Options { agreed: Some(goban::StatusMap::with_dead(&b, &[da, ea])), dispute: vec![ba], ..Options::default() };
    assert_eq!(adjudicate(&b, RuleSet::Japanese2011, &opts).status.get(ba), Status::Alive);
}

#[test]
pub(super) fn the_searches_of_a_widening_dispute_share_one_budget() {
    // The corner of the test above, with a budget of 12 nodes. Disputing ih, its first region
    // (hi a wall) finds it alive within them; that answer leans on hi, so the dispute widens
    // with hi drawn in, where the proof of *dead* needs more nodes than the first region left.
    // Every search for ih (each reported as it is searched, the undone one too) takes its
    // nodes from the one budget, and ih is undecided: with a budget per region the wider
    // search would take 12 more.
    let rows = [".........", ".........", ".........", ".........", "....X.XX.", "....XXOXX", "...XXOOOO", "..XXO.O.X", "..XOO.OX."];
    let b = board(&rows);
    let ih = Point::from_sgf("ih").unwrap();
    let budget = 12;
    let opts = Options { budget_nodes: budget, agreed: Some(goban::StatusMap::new(&b)), dispute: vec![ih], ..Options::default() };
    let mut searched: Vec<(u64, bool)> = Vec::new();
    let adj = shinpan_adjudicator::adjudicate_with_progress(&b, RuleSet::Japanese2011, &opts, &mut |r| {
        if r.chains.iter().any(|&c| b.chain(c).contains(&ih)) {
            searched.push((r.nodes, r.decided));
        }
    });
    assert!(searched.len() >= 2 && searched[0].1, "decided in the first region, then widened: {searched:?}");
    let total: u64 = searched.iter().map(|s| s.0).sum();
    assert!(total <= budget, "{total} nodes over the searches {searched:?}");
    assert_ne!(adj.status.get(ih), Status::Alive, "the first region's answer was undone: {:?}", adj.proofs);
}

#[test]
pub(super) fn dead_by_two_links_in_a_long_narrow_territory() {
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

#[test]
pub(super) fn a_wall_kept_by_two_links_is_not_drawn_in() {
    // Black's stone bb, disputed, has two liberties (ab, ba) in White's corner of four
    // empty points; White's single stone cb touches it with three liberties (ca, db, cc):
    // a capturing race. Two of those liberties, db and cc, lie outside the corner, each next
    // to White's other agreed-alive stones (da, eb, dc; bc, dc, cd) and to no black stone:
    // when Black plays one, White plays the other and joins cb to them. So cb stays a wall,
    // the region is the corner alone, and bb is dead there (第七条), Black having one ko
    // threat for the wall (its move on a link, which White must answer).
    let rows = ["...O.", ".XO.O", "OO.O.", "..O..", "....."];
    let b = board(&rows);
    let pt = |s: &str| Point::from_sgf(s).unwrap();
    let (bb, cb) = (pt("bb"), pt("cb"));
    let opts = Options { agreed: Some(goban::StatusMap::new(&b)), dispute: vec![bb], ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    assert_eq!(adj.status.get(bb), Status::Dead, "{:?} {:?}", adj.proofs, adj.drawn_in);
    assert!(adj.drawn_in.iter().all(|d| !d.stones.contains(&cb)), "cb kept by its links: {:?}", adj.drawn_in);
    let kept = adj.kept_by_links.iter().find(|k| k.stones == [cb]).expect("the answer lists cb as kept by its links");
    assert_eq!((kept.color, kept.by), (goban::Color::White, bb));
    let (mut links, mut want) = (kept.links.to_vec(), vec![pt("db"), pt("cc")]);
    links.sort();
    want.sort();
    assert_eq!(links, want, "its links");
    let last = adj.regions.last().expect("a region searched");
    assert_eq!(last.points, ["aa", "ab", "ba", "bb", "ca"].map(pt).to_vec(), "the corner alone");

    // A black stone next to the link db: the link is no longer private (Black's move there
    // would touch it), so cb is drawn into the dispute as a race partner, and the region
    // reaches past it.
    let mut rows2 = rows;
    rows2[1] = ".XO.X";
    let b2 = board(&rows2);
    let opts2 = Options { agreed: Some(goban::StatusMap::new(&b2)), dispute: vec![bb], ..Options::default() };
    let adj2 = adjudicate(&b2, RuleSet::Japanese2011, &opts2);
    let drawn = adj2.drawn_in.iter().find(|d| d.stones == [cb]).expect("cb drawn in");
    assert!(matches!(drawn.reason, shinpan_adjudicator::DrawReason::CapturingRace { with } if with == bb));
    assert!(adj2.regions.iter().any(|r| r.points.contains(&pt("db"))), "{:?}", adj2.regions);
    assert!(adj2.kept_by_links.is_empty(), "{:?}", adj2.kept_by_links);

    // Under the 1989 rules no wall is kept so (their ko-pass bans differ): cb is drawn in.
    let adj89 = adjudicate(&b, RuleSet::Japanese1989, &opts);
    assert!(adj89.drawn_in.iter().any(|d| d.stones == [cb]), "{:?}", adj89.drawn_in);
}

#[test]
pub(super) fn a_link_next_to_another_racing_wall_keeps_nothing() {
    // The corner of the test above, with Black's ad-bd under White's ac-bc: that chain now
    // races bb too (two liberties, ab and cc). cc touches both White walls, so a Black move
    // there would take a liberty of each and White could answer only one: cc is a link of
    // neither. ac-bc has no other liberty outside the corner, and cb keeps only db; both are
    // drawn in.
    let rows = ["...O.", ".XO.O", "OO.O.", "XXO..", "....."];
    let b = board(&rows);
    let pt = |s: &str| Point::from_sgf(s).unwrap();
    let (bb, cb, bc) = (pt("bb"), pt("cb"), pt("bc"));
    let opts = Options { agreed: Some(goban::StatusMap::new(&b)), dispute: vec![bb], ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    for w in [cb, bc] {
        assert!(adj.drawn_in.iter().any(|d| d.stones.contains(&w)), "{w} drawn in: {:?}", adj.drawn_in);
    }
    assert!(adj.regions.iter().all(|r| r.points.contains(&pt("cc"))), "{:?}", adj.regions);
}

#[test]
pub(super) fn a_life_found_beside_a_wall_kept_by_links_is_searched_again_with_the_wall_drawn_in() {
    // Black's chain da-ab-bb-cb-db, disputed, has the straight three aa-ba-ca for eye space:
    // moving first (第七条 解説), Black ba makes two eyes. White's ea-eb touches it with three
    // liberties (fa, fb, ec), all outside the corner and next to White's other stones (ga,
    // fc, dc, ed): kept by its links. A region that keeps a wall so gives only *dead*
    // statuses of Black's chains (Black has a ko threat for the wall there), so the life
    // found in it is searched again with ea-eb drawn in, and the answer is that search's.
    let rows = ["...XO.O", "XXXXO..", "OOOO.O.", "....O..", "......."];
    let b = board(&rows);
    let pt = |s: &str| Point::from_sgf(s).unwrap();
    let (ab, ea) = (pt("ab"), pt("ea"));
    let opts = Options { agreed: Some(goban::StatusMap::new(&b)), dispute: vec![ab], ..Options::default() };
    let adj = adjudicate(&b, RuleSet::Japanese2011, &opts);
    assert_eq!(adj.status.get(ab), Status::Alive, "{:?} {:?}", adj.proofs, adj.drawn_in);
    let drawn = adj.drawn_in.iter().find(|d| d.stones.contains(&ea)).expect("ea-eb drawn in on the second search");
    assert!(matches!(drawn.reason, shinpan_adjudicator::DrawReason::CapturingRace { with } if b.chain(with).contains(&ab)));
    assert!(adj.regions.iter().all(|r| r.points.contains(&ea)), "only the second search's regions: {:?}", adj.regions);
    assert!(adj.kept_by_links.is_empty(), "the answer counts the second search only: {:?}", adj.kept_by_links);
}

/// Both rule sets, for positions where the 2011 draft and the 1989 rules agree.
pub(super) const BOTH: [RuleSet; 2] = [RuleSet::Japanese2011, RuleSet::Japanese1989];
