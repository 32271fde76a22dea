//! Walls kept by two links in a dispute's region (docs of module `dispute`, "Walls kept by
//! two links"): which answers such a region gives, and its proof lines as played in the whole
//! game, each retake after the link exchange that allows it.

use goban::{Board, Color, Move, Point, Status, StatusMap};

/// The proof line `line` (from `board`, the position searched) as it is played in the whole
/// game (docs of module `dispute`, "Walls kept by two links"), each event taking the next unused pair of
/// `links`: a move of `colour` that retakes a ko its 第五条 ban forbids (the ban `ban` at the
/// start, then the one each capture sets) is preceded by the exchange that lifts the ban,
/// `colour` on the pair's first link and the answer on the other; a pass of the other side
/// is its move on the first link, which takes that threat away. The line is returned
/// unchanged from the first move the board refuses (none should be) or once the pairs run
/// out.
pub(super) fn with_link_exchanges(
    board: &Board,
    line: &[(Color, Move)],
    colour: Color,
    links: &[[Point; 2]],
    ban: Option<Point>,
) -> Vec<(Color, Move)> {
    let mut b = board.clone();
    let mut ban = ban;
    let mut pairs = links.iter();
    let mut out = Vec::with_capacity(line.len());
    for (k, &(c, m)) in line.iter().enumerate() {
        let Move::Play(p) = m else {
            ban = None;
            // The other side's pass takes a threat away: it joins a kept wall to its anchor.
            match pairs.clone().next() {
                Some(&[l, _]) if c != colour && b.play(c, l, false).is_ok() => {
                    pairs.next();
                    out.push((c, Move::Play(l)));
                }
                _ => out.push((c, m)),
            }
            continue;
        };
        if c == colour && ban == Some(p) {
            let Some(&[l, answer]) = pairs.next() else {
                out.extend_from_slice(&line[k..]);
                return out;
            };
            for (who, q) in [(colour, l), (colour.opponent(), answer)] {
                if b.play(who, q, false).is_err() {
                    out.extend_from_slice(&line[k..]);
                    return out;
                }
                out.push((who, Move::Play(q)));
            }
        }
        match b.play(c, p, false) {
            Ok(placed) => ban = placed.ko,
            Err(_) => {
                out.extend_from_slice(&line[k..]);
                return out;
            }
        }
        out.push((c, m));
    }
    out
}

/// Whether the statuses found at `points` (the stones of the chains searched) in a region
/// that kept a wall by its links are ones such a region gives (docs of module `dispute`): *dead* for chains
/// of `colour` (the colour with the region's ko threats), or undecided.
pub(super) fn linked_answers_hold(board: &Board, found: &StatusMap, points: &[Point], colour: Color) -> bool {
    points.iter().all(|&p| match found.get(p) {
        Status::Undecided => true,
        Status::Dead => board.get(p) == Some(colour),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(c: Color, s: &str) -> (Color, Move) {
        (c, if s == "pass" { Move::Pass } else { Move::Play(Point::from_sgf(s).unwrap()) })
    }

    /// A retake the 第五条 ban forbids is shown after the link exchange that lifts it, a pass of
    /// the other side as its move on a link; each takes the next pair, and none is left after.
    #[test]
    fn a_proof_line_shows_the_link_exchanges_its_threats_stand_for() {
        // Black cb takes White's bb (a ko); White's retake at once is barred.
        let b = Board::from_diagram(&[".XO..", "XO.O.", ".XO..", ".....", "....."]).unwrap();
        let (w, bl) = (Color::White, Color::Black);
        let pairs = [[Point::from_sgf("ee").unwrap(), Point::from_sgf("ed").unwrap()]];
        let retake = [mv(bl, "cb"), mv(w, "bb")];
        let shown = with_link_exchanges(&b, &retake, w, &pairs, None);
        assert_eq!(shown, [mv(bl, "cb"), mv(w, "ee"), mv(bl, "ed"), mv(w, "bb")]);
        // Without a pair left the line is as searched.
        assert_eq!(with_link_exchanges(&b, &retake, w, &[], None), retake);
        // Black's pass takes the threat away: its move on the link; then the retake has none.
        let passed = [mv(bl, "pass"), mv(w, "pass"), mv(bl, "cb"), mv(w, "bb")];
        let shown = with_link_exchanges(&b, &passed, w, &pairs, None);
        assert_eq!(shown, [mv(bl, "ee"), mv(w, "pass"), mv(bl, "cb"), mv(w, "bb")]);
        // A pending ban at the start binds the first move.
        let ban = Some(Point::from_sgf("bb").unwrap());
        let shown = with_link_exchanges(&b, &[mv(w, "db")], w, &pairs, Some(Point::from_sgf("db").unwrap()));
        assert_eq!(shown.len(), 3, "{shown:?}");
        assert_eq!(with_link_exchanges(&b, &[mv(w, "db")], w, &pairs, ban), [mv(w, "db")]);
    }
}
