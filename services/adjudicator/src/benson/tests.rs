use super::*;
use goban::{Board, Point};

fn board(rows: &[&str]) -> Board {
    Board::from_diagram(rows).unwrap()
}

#[test]
fn two_single_eyes_are_pass_alive_and_one_eye_is_not() {
    let b = board(&[".X.X.", "XXXXX", ".....", "OOOOO", ".O..."]);
    let sc = Scope::whole(&b);
    let s = unconditional(&sc.cells(&b), Color::Black, &sc);
    let l = |p: &str| {
        sc.local[{
            let q = Point::from_sgf(p).unwrap();
            q.y as usize * 5 + q.x as usize
        }] as usize
    };
    assert!(s.pa.get(l("ab")));
    assert!(s.area.get(l("aa")) && s.area.get(l("ca")) && s.area.get(l("ea")));
    assert!(!s.area.get(l("ac")));
    let w = unconditional(&sc.cells(&b), Color::White, &sc);
    assert!(w.pa.get(l("ad")), "white has two healthy regions: ae and ce-ee");
    assert!(w.area.get(l("ee")) && w.area.get(l("ae")));
    assert!(!w.area.get(l("ac")) && !s.area.get(l("ac")), "the open middle row is nobody's");
}

/// Every chain of random boards (xorshift from `seed`, `rounds` boards of 3 to 11 points a
/// side, a share of stones from `min_density` to 9 tenths), on the whole board and on a
/// scope without the last column (every other round), and with `virtual_eyes` also on the
/// whole board with random virtual eyes: calls `check(diagram, cells, colour, scope, chain,
/// all_in)` with the chain's local indices inside the scope and whether `unconditional`
/// puts every one of them in the area.
fn each_random_chain(
    seed: u64,
    rounds: usize,
    min_density: u64,
    virtual_eyes: bool,
    mut check: impl FnMut(&str, &[u8], Color, &Scope, &[usize], bool),
) {
    let mut next = crate::xorshift(seed);
    for round in 0..rounds {
        let (w, h) = (3 + (next() % 9) as usize, 3 + (next() % 9) as usize);
        let density = min_density + next() % (10 - min_density);
        let rows: Vec<String> = (0..h)
            .map(|_| {
                (0..w)
                    .map(|_| match next() % 10 {
                        v if v < density / 2 => 'X',
                        v if v < density => 'O',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        let text: Vec<&str> = rows.iter().map(String::as_str).collect();
        let Ok(b) = Board::from_diagram(&text) else {
            continue;
        };
        let diagram = rows.join("\n");
        let mut scopes = vec![Scope::whole(&b), Scope::new(&b, b.points().filter(|p| (p.x as usize) + 1 < w || round % 2 == 0).collect())];
        if virtual_eyes {
            let mut eyes = Scope::whole(&b);
            eyes.virtual_eye = (0..eyes.len()).map(|_| next().is_multiple_of(7)).collect();
            scopes.push(eyes);
        }
        for sc in &scopes {
            let cells = sc.cells(&b);
            for c in [Color::Black, Color::White] {
                let area = unconditional(&cells, c, sc).area;
                let mut seen = vec![false; sc.len()];
                for s0 in 0..sc.len() {
                    if seen[s0] || cells[s0] != cell(c) {
                        continue;
                    }
                    let chain: Vec<usize> = b
                        .chain(sc.points[s0])
                        .into_iter()
                        .filter_map(|p| {
                            let l = sc.local[p.y as usize * w + p.x as usize];
                            (l != NONE).then_some(l as usize)
                        })
                        .collect();
                    for &l in &chain {
                        seen[l] = true;
                    }
                    let all_in = chain.iter().all(|&l| area.get(l));
                    check(&diagram, &cells, c, sc, &chain, all_in);
                }
            }
        }
    }
}

#[test]
fn the_local_closure_agrees_with_the_whole_computation() {
    // Wherever `chain_in_area` answers, it must give what `unconditional` gives for every
    // stone of the chain (virtual eyes included). It must answer most of the time for
    // chains of three or more stones (it replaces the whole computation on those calls;
    // smaller ones that are not pass-alive are left to it), and say "in the area" sometimes.
    let (mut answered, mut asked, mut yes, mut checked) = (0usize, 0usize, 0usize, 0usize);
    each_random_chain(0x2545_f491_4f6c_dd1d, 6000, 3, true, |diagram, cells, c, sc, chain, all_in| {
        let big = chain.len() > 2;
        asked += usize::from(big);
        if let Some(got) = chain_in_area(cells, c, sc, chain) {
            answered += usize::from(big);
            checked += 1;
            yes += usize::from(got);
            assert_eq!(got, all_in, "{c:?} chain at {} in\n{diagram}", sc.points[chain[0]]);
        }
    });
    eprintln!("chain_in_area: {checked} answers checked; {answered} of {asked} chains of 3+ stones answered; {yes} in the area");
    assert!(answered * 10 > asked * 9, "answered only {answered} of {asked} chains of 3+ stones");
    assert!(yes > 100, "only {yes} chains found in the area");
}

#[test]
fn the_quick_test_never_rules_out_a_chain_in_the_area() {
    // Wherever `may_be_in_area` says "certainly not", `unconditional` must agree. Also
    // counts how often it says so (it must rule something out to be worth its place).
    let (mut ruled_out, mut in_area) = (0, 0);
    each_random_chain(0x9e37_79b9_7f4a_7c15, 4000, 0, false, |diagram, cells, c, sc, chain, all_in| {
        in_area += usize::from(all_in);
        if !may_be_in_area(cells, c, sc, chain) {
            ruled_out += 1;
            assert!(!all_in, "{c:?} chain at {} wrongly ruled out in\n{diagram}", sc.points[chain[0]]);
        }
    });
    eprintln!("{ruled_out} chains ruled out, {in_area} in the area");
    assert!(ruled_out > 1000 && in_area > 100, "{ruled_out} ruled out, {in_area} in the area");
}

#[test]
fn the_quick_test_of_the_opponents_area_never_rules_out_a_point_in_it() {
    // Wherever `may_reach_area` says "certainly not" for a chain of the other colour, or for
    // one of its liberties (a point it leaves when captured), `unconditional` must agree. Also
    // counts how often it says so. A chain's stones all lie in one set of points it examines,
    // so asking for the chain answers as asking for any one of its stones does.
    let (mut ruled_out, mut in_area, mut asked) = (0, 0, 0);
    each_random_chain(0x5851_f42d_4c95_7f2d, 4000, 0, true, |diagram, cells, c, sc, chain, _| {
        let o = c.opponent();
        let area = unconditional(cells, o, sc).area;
        let mut sets: Vec<Vec<usize>> = vec![chain.to_vec()];
        for &s in chain {
            for &g in &sc.nbrs[s] {
                if g < OUT && g != NONE && cells[g as usize] == EMPTY {
                    sets.push(vec![g as usize]);
                }
            }
        }
        for &s in chain {
            assert_eq!(may_reach_area(cells, o, sc, chain), may_reach_area(cells, o, sc, &[s]), "chain at {} in\n{diagram}", sc.points[s]);
        }
        for pts in sets {
            asked += 1;
            let any_in = pts.iter().any(|&l| area.get(l));
            in_area += usize::from(any_in);
            if !may_reach_area(cells, o, sc, &pts) {
                ruled_out += 1;
                assert!(!any_in, "{o:?} area at {} wrongly ruled out in\n{diagram}", sc.points[pts[0]]);
            }
        }
    });
    eprintln!("{ruled_out} of {asked} ruled out, {in_area} in the area");
    assert!(ruled_out > 1000 && in_area > 100, "{ruled_out} ruled out, {in_area} in the area");
}
