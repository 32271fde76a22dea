//! The JSON object printed by `shinpan score --json` (and, with `proofs`, by
//! `shinpan adjudicate --json`).
//!
//! ```json
//! {"rules": "japanese-2011", "size": [19, 19], "komi": 6.5, "moves": 221,
//!  "status": {"alive": ["aa", ...], "dead": [...], "seki": [...], "undecided": [...]},
//!  "territory": {"black": [...], "white": [...]}, "dame": [...],
//!  "prisoners": {"black": 9, "white": 2}, "score": {"black": 80.0, "white": 90.5},
//!  "result": "W+10.5"}
//! ```
//! Points are SGF coordinates (column letter then row letter, `aa` = top-left), every list
//! sorted. `prisoners.black` is the number of stones Black holds: captured by Black during
//! play plus dead White stones removed from Black's territory (第十条).

use goban::{Board, Point, RuleSet, Score, Status, StatusMap};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// A value per colour, serialised as `{"black": .., "white": ..}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ByColor<T> {
    /// Black's value.
    pub black: T,
    /// White's value.
    pub white: T,
}

/// Stones by status (第七条: alive / dead; セキ; undecided = an arbiter must rule), sorted
/// SGF points.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatusLists {
    /// Living stones (not in seki).
    pub alive: Vec<String>,
    /// Dead stones (removed as prisoners if inside territory, 第十条).
    pub dead: Vec<String>,
    /// Stones alive in seki (their eyes are not territory, 第八条).
    pub seki: Vec<String>,
    /// Stones whose status is not decided.
    pub undecided: Vec<String>,
}

/// The count of a game as one JSON object (keys exactly as in the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Rule set name (`japanese-2011`, ...).
    pub rules: String,
    /// `[columns, rows]`.
    pub size: [u8; 2],
    /// Komi added to White's score, in points.
    pub komi: f64,
    /// Moves replayed (passes included).
    pub moves: u32,
    /// Stones by status.
    pub status: StatusLists,
    /// Territory points of each colour (第八条), including points of dead stones removed
    /// from it (第十条).
    pub territory: ByColor<Vec<String>>,
    /// Empty points that are nobody's territory (駄目, seki eyes).
    pub dame: Vec<String>,
    /// Stones each colour holds (ハマ, 第三条 and 第十条).
    pub prisoners: ByColor<u32>,
    /// Points of each colour, komi included in White's.
    pub score: ByColor<f64>,
    /// SGF result: `B+2.5`, `W+0.5`, `0` (持碁), `?` (undecided).
    pub result: String,
    /// Evidence for the statuses (filled by `shinpan adjudicate`; absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proofs: Option<serde_json::Value>,
}

/// Sorted SGF coordinates of `points`.
pub fn sgf_points(points: &[Point]) -> Vec<String> {
    let mut v: Vec<String> = points.iter().map(|p| p.to_sgf()).collect();
    v.sort();
    v
}

impl Report {
    /// Builds the report of a counted position: `status` gives every stone's status on
    /// `board`, `score` is `goban::score` of that position, `moves` the moves replayed.
    pub fn new(board: &Board, status: &StatusMap, score: &Score, rules: RuleSet, komi: f64, moves: u32) -> Report {
        let of = |s: Status| sgf_points(&status.stones_with(board, s));
        Report {
            rules: rules.name().to_string(),
            size: [board.width(), board.height()],
            komi,
            moves,
            status: StatusLists {
                alive: of(Status::Alive),
                dead: of(Status::Dead),
                seki: of(Status::Seki),
                undecided: of(Status::Undecided),
            },
            territory: ByColor { black: sgf_points(&score.territory[0]), white: sgf_points(&score.territory[1]) },
            dame: sgf_points(&score.dame),
            prisoners: ByColor { black: score.prisoners[0], white: score.prisoners[1] },
            score: ByColor { black: score.score[0], white: score.score[1] },
            result: score.result.to_sgf(),
            proofs: None,
        }
    }

    /// The report as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// A short human-readable summary (several lines, no trailing newline).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "rules {}, {}x{}, komi {}, {} moves", self.rules, self.size[0], self.size[1], self.komi, self.moves);
        let list = |v: &[String]| if v.is_empty() { "-".to_string() } else { v.join(",") };
        let _ = writeln!(s, "dead stones: {}", list(&self.status.dead));
        if !self.status.seki.is_empty() {
            let _ = writeln!(s, "seki stones: {}", list(&self.status.seki));
        }
        if !self.status.undecided.is_empty() {
            let _ = writeln!(s, "undecided stones: {}", list(&self.status.undecided));
        }
        let _ = writeln!(s, "black {}: territory {}, prisoners {}", self.score.black, self.territory.black.len(), self.prisoners.black);
        let _ = writeln!(
            s,
            "white {}: territory {}, prisoners {}, komi {}",
            self.score.white,
            self.territory.white.len(),
            self.prisoners.white,
            self.komi
        );
        let _ = writeln!(s, "dame: {}", self.dame.len());
        let _ = write!(s, "result: {}", self.result);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use goban::{score, Board, Color, Point};

    fn sample() -> Report {
        let mut b = Board::new(3, 3).unwrap();
        b.set(Point::new(1, 0), Some(Color::Black)).unwrap();
        b.set(Point::new(1, 1), Some(Color::Black)).unwrap();
        b.set(Point::new(1, 2), Some(Color::Black)).unwrap();
        b.set(Point::new(0, 0), Some(Color::White)).unwrap();
        let mut st = StatusMap::new(&b);
        st.set(Point::new(0, 0), Status::Dead);
        let s = score(&b, &st, [0, 0], [0, 0], 0.5, RuleSet::Japanese2011);
        Report::new(&b, &st, &s, RuleSet::Japanese2011, 0.5, 7)
    }

    #[test]
    fn lists_are_sorted_sgf_points_and_proofs_are_omitted_when_absent() {
        let r = sample();
        assert_eq!(r.status.alive, ["ba", "bb", "bc"]);
        assert_eq!(r.status.dead, ["aa"]);
        assert_eq!(r.territory.black, ["aa", "ab", "ac", "ca", "cb", "cc"]);
        assert_eq!(r.prisoners.black, 1, "the dead stone removed from Black's territory (第十条)");
        assert_eq!(r.result, "B+6.5");
        let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert!(v.get("proofs").is_none());
        assert_eq!(v["size"], serde_json::json!([3, 3]));
        let mut with = r.clone();
        with.proofs = Some(serde_json::json!([{"chain": "aa"}]));
        let v: serde_json::Value = serde_json::from_str(&with.to_json()).unwrap();
        assert_eq!(v["proofs"][0]["chain"], "aa");
        let back: Report = serde_json::from_value(v).unwrap();
        assert_eq!(back, with);
    }
}
