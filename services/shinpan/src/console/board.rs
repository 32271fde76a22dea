//! The board as an SVG drawing: wooden colour, grid, star points (星), coordinates in the
//! letters Go players use (A–T without I, up to Z without I on 25×25) and numbers counted
//! from the bottom, stones, the last move marked, and, at the end of a game, each chain's
//! status (proved and estimated drawn differently), territory and the numbered moves of a
//! proof line.

use goban::{Color, Point};
use maud::{html, Markup};
use std::collections::HashMap;

/// Pixels between two lines.
pub const CELL: u32 = 28;
/// Pixels around the grid (room for the coordinates).
pub const MARGIN: u32 = 34;

/// The column letters, `I` left out.
const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// The column letter of column `x` (0-based, from the left).
pub fn column_letter(x: u8) -> char {
    LETTERS.get(usize::from(x)).map_or('?', |&b| char::from(b))
}

/// A point as Go players name it: `Q16` for SGF `pd` on 19×19 (rows counted from the bottom).
pub fn point_name(p: Point, size: u8) -> String {
    format!("{}{}", column_letter(p.x), u32::from(size) - u32::from(p.y))
}

/// The star points (星) of a square board.
pub fn star_points(size: u8) -> Vec<Point> {
    let edge = match size {
        0..=6 => return Vec::new(),
        7..=11 => 2,
        _ => 3,
    };
    let far = size - 1 - edge;
    let mut v = vec![Point::new(edge, edge), Point::new(far, edge), Point::new(edge, far), Point::new(far, far)];
    if size % 2 == 1 {
        let mid = size / 2;
        v.push(Point::new(mid, mid));
        if size >= 15 {
            v.extend([Point::new(mid, edge), Point::new(mid, far), Point::new(edge, mid), Point::new(far, mid)]);
        }
    }
    v
}

/// How a stone's chain is marked at the end of a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Alive, by hypothetical play or by the players' agreement.
    Alive,
    /// Dead; `proved` when hypothetical play demonstrates it, else estimated.
    Dead {
        /// Proved (solid cross) or estimated (dashed cross, stone faded less).
        proved: bool,
    },
    /// Alive in seki.
    Seki,
    /// Not decided: an arbiter must rule.
    Undecided,
    /// Estimated alive (not proved).
    EstimatedAlive,
}

/// Everything a drawing shows.
#[derive(Clone, Debug, Default)]
pub struct Drawing {
    /// Board side.
    pub size: u8,
    /// The stones.
    pub stones: Vec<(Point, Color)>,
    /// The last move, marked with a ring.
    pub last: Option<Point>,
    /// Chain statuses by stone.
    pub marks: HashMap<Point, Mark>,
    /// Black's territory (地).
    pub territory_black: Vec<Point>,
    /// White's territory (地).
    pub territory_white: Vec<Point>,
    /// Numbered moves (a proof line): point, colour, number.
    pub numbered: Vec<(Point, Color, u32)>,
    /// When set, each stone links to this address with `{point}` replaced by its SGF point.
    pub stone_link: Option<String>,
    /// Points of fouls played as the next move (never applied): a red square.
    pub fouls: Vec<Point>,
    /// Links of walls kept by two links in a dispute (第七条): a small diamond on each.
    pub links: Vec<Point>,
}

fn xy(p: Point) -> (u32, u32) {
    (MARGIN + u32::from(p.x) * CELL, MARGIN + u32::from(p.y) * CELL)
}

/// Draws the board.
pub fn svg(d: &Drawing) -> Markup {
    let n = u32::from(d.size.max(2));
    let side = 2 * MARGIN + (n - 1) * CELL;
    let far = MARGIN + (n - 1) * CELL;
    let r = CELL / 2 - 1;
    html! {
        svg.board xmlns="http://www.w3.org/2000/svg" viewBox={"0 0 " (side) " " (side)} width=(side) height=(side) role="img" aria-label={"board " (d.size) "x" (d.size)} {
            rect x="0" y="0" width=(side) height=(side) fill="#dcb35c" rx="4" {}
            g stroke="#2b1d0e" stroke-width="1" {
                @for i in 0..n {
                    line x1=(MARGIN) y1=(MARGIN + i * CELL) x2=(far) y2=(MARGIN + i * CELL) {}
                    line x1=(MARGIN + i * CELL) y1=(MARGIN) x2=(MARGIN + i * CELL) y2=(far) {}
                }
            }
            @for p in star_points(d.size) {
                @let (x, y) = xy(p);
                circle cx=(x) cy=(y) r="3.5" fill="#2b1d0e" {}
            }
            g.coords font-family="sans-serif" font-size="12" fill="#2b1d0e" text-anchor="middle" {
                @for i in 0..n {
                    @let c = column_letter(i as u8);
                    text x=(MARGIN + i * CELL) y=(MARGIN / 2 + 4) { (c) }
                    text x=(MARGIN + i * CELL) y=(side - MARGIN / 2 + 8) { (c) }
                    text x=(MARGIN / 2) y=(MARGIN + i * CELL + 4) { (n - i) }
                    text x=(side - MARGIN / 2) y=(MARGIN + i * CELL + 4) { (n - i) }
                }
            }
            @for (p, owner) in d.territory_black.iter().map(|p| (p, "b")).chain(d.territory_white.iter().map(|p| (p, "w"))) {
                @let (x, y) = xy(*p);
                rect class={"territory " (owner)} data-point=(p.to_sgf()) x=(x - 5) y=(y - 5) width="10" height="10"
                    fill=(if owner == "b" { "#111" } else { "#f4f4f4" }) stroke="#555" stroke-width="0.5" {}
            }
            @for (p, c) in &d.stones {
                @let (x, y) = xy(*p);
                @let cls = if *c == Color::Black { "b" } else { "w" };
                @let mark = d.marks.get(p).copied();
                @let faded = matches!(mark, Some(Mark::Dead { .. }));
                @let stone = html! {
                    circle class={"stone " (cls)} data-point=(p.to_sgf()) data-name=(point_name(*p, d.size)) cx=(x) cy=(y) r=(r)
                        fill=(if *c == Color::Black { "#111" } else { "#fafafa" }) stroke="#111" stroke-width="1"
                        opacity=(if faded { "0.45" } else { "1" }) {}
                };
                @if let Some(link) = &d.stone_link {
                    a href=(link.replace("{point}", &p.to_sgf())) { (stone) }
                } @else {
                    (stone)
                }
                @let ink = if *c == Color::Black { "#fafafa" } else { "#111" };
                @match mark {
                    Some(Mark::Dead { proved: true }) => {
                        path class="mark dead proved" d={"M" (x - 7) " " (y - 7) "L" (x + 7) " " (y + 7) "M" (x + 7) " " (y - 7) "L" (x - 7) " " (y + 7)} stroke="#c0392b" stroke-width="3" {}
                    }
                    Some(Mark::Dead { proved: false }) => {
                        path class="mark dead estimated" d={"M" (x - 7) " " (y - 7) "L" (x + 7) " " (y + 7) "M" (x + 7) " " (y - 7) "L" (x - 7) " " (y + 7)} stroke="#c0392b" stroke-width="2" stroke-dasharray="3 2" {}
                    }
                    Some(Mark::Seki) => {
                        text class="mark seki" x=(x) y=(y + 4) font-size="11" text-anchor="middle" fill=(ink) { "S" }
                    }
                    Some(Mark::Undecided) => {
                        text class="mark undecided" x=(x) y=(y + 5) font-size="14" font-weight="bold" text-anchor="middle" fill="#c0392b" { "?" }
                    }
                    Some(Mark::EstimatedAlive) => {
                        circle class="mark alive estimated" cx=(x) cy=(y) r=(r - 4) fill="none" stroke=(ink) stroke-width="1" stroke-dasharray="2 2" {}
                    }
                    _ => {}
                }
            }
            @if let Some(p) = d.last {
                @let (x, y) = xy(p);
                @let ink = if d.stones.iter().any(|(q, c)| *q == p && *c == Color::Black) { "#fafafa" } else { "#111" };
                circle.last data-point=(p.to_sgf()) cx=(x) cy=(y) r=(r / 2) fill="none" stroke=(ink) stroke-width="2" {}
            }
            @for p in &d.links {
                @let (x, y) = xy(*p);
                path.link data-point=(p.to_sgf()) d={"M" (x) " " (y - 6) "L" (x + 6) " " (y) "L" (x) " " (y + 6) "L" (x - 6) " " (y) "Z"} fill="none" stroke="#2471a3" stroke-width="2" {}
            }
            @for p in &d.fouls {
                @let (x, y) = xy(*p);
                rect.foul data-point=(p.to_sgf()) x=(x - CELL / 2 + 1) y=(y - CELL / 2 + 1) width=(CELL - 2) height=(CELL - 2) fill="none" stroke="#c0392b" stroke-width="3" {}
            }
            @for (p, c, k) in &d.numbered {
                @let (x, y) = xy(*p);
                g.line-step data-step=(k) data-point=(p.to_sgf()) {
                    circle class="line-stone" cx=(x) cy=(y) r=(r) fill=(if *c == Color::Black { "#111" } else { "#fafafa" }) stroke="#111" opacity="0.8" {}
                    text class="line-number" x=(x) y=(y + 4) font-size="12" text-anchor="middle" fill=(if *c == Color::Black { "#fafafa" } else { "#111" }) { (k) }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_skip_i_and_count_from_the_bottom() {
        assert_eq!(column_letter(7), 'H');
        assert_eq!(column_letter(8), 'J');
        assert_eq!(column_letter(18), 'T');
        assert_eq!(point_name(Point::from_sgf("pd").unwrap(), 19), "Q16");
        assert_eq!(point_name(Point::from_sgf("aa").unwrap(), 19), "A19");
        assert_eq!(star_points(19).len(), 9);
        assert_eq!(star_points(13).len(), 5);
        assert_eq!(star_points(9).len(), 5);
    }

    #[test]
    fn stones_are_drawn_where_they_stand() {
        let d = Drawing {
            size: 19,
            stones: vec![(Point::from_sgf("pd").unwrap(), Color::Black)],
            last: Point::from_sgf("pd").ok(),
            ..Drawing::default()
        };
        let s = svg(&d).into_string();
        let (x, y) = (MARGIN + 15 * CELL, MARGIN + 3 * CELL);
        assert!(s.contains(&format!(r#"class="stone b" data-point="pd" data-name="Q16" cx="{x}" cy="{y}""#)), "{s}");
        assert!(s.contains(r#"class="last" data-point="pd""#));
        assert!(s.contains(">T<") && !s.contains(">I<"));
    }
}
