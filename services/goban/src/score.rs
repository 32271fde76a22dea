//! Counting a finished game: stone status, territory (第八条), 第十条 counting, area,
//! 純碁 and 日本式純碁, and the result ([`GameResult`], SGF `RE`).

use crate::board::Board;
use crate::point::{Color, Point};
use crate::rules::{RuleSet, Scoring};
use std::fmt;

/// The status of a stone at the end of the game (第七条).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Status {
    /// 活き石: the opponent's consecutive moves can never make it the opponent's.
    #[default]
    Alive,
    /// 死に石: it becomes the opponent's (第七条).
    Dead,
    /// セキ石: neither alive nor dead (第七条 解説); its neighbouring empty points are not
    /// territory (第八条).
    Seki,
    /// Not decided (yet): any such stone makes the result [`GameResult::Undecided`].
    Undecided,
}

impl Status {
    /// `"alive"`, `"dead"`, `"seki"` or `"undecided"`.
    pub const fn name(self) -> &'static str {
        match self {
            Status::Alive => "alive",
            Status::Dead => "dead",
            Status::Seki => "seki",
            Status::Undecided => "undecided",
        }
    }

    /// Parses [`Status::name`] (case-insensitive).
    pub fn from_name(s: &str) -> Option<Status> {
        [Status::Alive, Status::Dead, Status::Seki, Status::Undecided].into_iter().find(|st| st.name().eq_ignore_ascii_case(s.trim()))
    }

    /// Whether the stone stays on the board as a living stone (alive or seki).
    pub const fn is_living(self) -> bool {
        matches!(self, Status::Alive | Status::Seki)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The status of every stone, by point, for one board size. Points without a stone are
/// ignored by [`score`]. Points off the board read as [`Status::Alive`] and cannot be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusMap {
    width: u8,
    height: u8,
    status: Vec<Status>,
}

impl StatusMap {
    /// Every point [`Status::Alive`], sized for `board`.
    pub fn new(board: &Board) -> StatusMap {
        StatusMap {
            width: board.width(),
            height: board.height(),
            status: vec![Status::Alive; board.width() as usize * board.height() as usize],
        }
    }

    /// A map where the stones of the chains through `dead` are [`Status::Dead`] and every
    /// other stone alive (the `--dead POINTS` form; empty points in `dead` are ignored).
    pub fn with_dead(board: &Board, dead: &[Point]) -> StatusMap {
        let mut m = StatusMap::new(board);
        for &p in dead {
            m.set_chain(board, p, Status::Dead);
        }
        m
    }

    /// Columns of the board this map is for.
    pub fn width(&self) -> u8 {
        self.width
    }
    /// Rows of the board this map is for.
    pub fn height(&self) -> u8 {
        self.height
    }

    #[inline]
    fn idx(&self, p: Point) -> Option<usize> {
        (p.x < self.width && p.y < self.height).then(|| p.y as usize * self.width as usize + p.x as usize)
    }

    /// Sets the status of the stone on `p` (no-op off the board).
    pub fn set(&mut self, p: Point, s: Status) {
        if let Some(i) = self.idx(p) {
            self.status[i] = s;
        }
    }

    /// The status recorded for `p` ([`Status::Alive`] unless set; `Alive` off the board).
    pub fn get(&self, p: Point) -> Status {
        self.idx(p).map_or(Status::Alive, |i| self.status[i])
    }

    /// Sets the status of every stone of the chain through `p` on `board` (no-op if `p`
    /// is empty).
    pub fn set_chain(&mut self, board: &Board, p: Point, s: Status) {
        for q in board.chain(p) {
            self.set(q, s);
        }
    }

    /// The stones of `board` with status `s`, sorted.
    pub fn stones_with(&self, board: &Board, s: Status) -> Vec<Point> {
        board.points().filter(|&p| board.get(p).is_some() && self.get(p) == s).collect()
    }
}

/// The count of a finished game. Point lists are sorted (row by row, as [`Point`]'s order
/// `(x, y)` sorts column first: they are sorted by `Point`'s `Ord`).
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// Territory points `[black, white]` (第八条), including the points of dead stones
    /// removed from it (第十条). Empty for `jungo`.
    pub territory: [Vec<Point>; 2],
    /// Empty points that are nobody's territory (駄目, seki eyes under territory scoring).
    pub dame: Vec<Point>,
    /// Stones held `[by black, by white]`: the prisoners given plus the dead stones
    /// removed from the holder's territory (第十条). For `japanese-jungo` this also
    /// includes the stones handed over by the opponent's passes.
    pub prisoners: [u32; 2],
    /// Points `[black, white]`, komi included in White's.
    pub score: [f64; 2],
    /// Who won and by how much ([`GameResult::Undecided`] if any stone is undecided).
    pub result: GameResult,
}

/// The result of a game, as SGF `RE` writes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GameResult {
    /// Won by counting, by `margin` points (> 0).
    Win {
        /// The winner.
        winner: Color,
        /// Points ahead (komi included).
        margin: f64,
    },
    /// 持碁: equal scores (第十条). SGF `0`.
    Jigo,
    /// Not decided: a stone's status is undecided, or the record gives no result. SGF `?`.
    Undecided,
    /// 中押勝 (第六条): the other player resigned. SGF `B+R`.
    Resignation {
        /// The winner (the opponent of the player who resigned).
        winner: Color,
    },
    /// Won because the opponent lost by a foul (第十二条 反則負け) or on time. SGF `B+F`
    /// (`B+T` and `B+Time` are read as this too).
    Forfeit {
        /// The winner.
        winner: Color,
    },
    /// 無勝負 (第十一条): no result. SGF `Void`.
    NoResult,
    /// 両負け: both players lose (1989 rules 要請II-\[vii\]-3,4). Written `BothLose` (SGF has
    /// no value for it; shinpan's own spelling).
    BothLose,
}

fn fmt_margin(m: f64) -> String {
    if m.fract() == 0.0 && m.abs() < 1e15 {
        format!("{}", m as i64)
    } else {
        format!("{m}")
    }
}

impl GameResult {
    /// The SGF `RE` value: `"B+2.5"`, `"W+3"`, `"W+R"`, `"B+F"`, `"0"` (jigo), `"?"`,
    /// `"Void"`, `"BothLose"`.
    pub fn to_sgf(&self) -> String {
        match *self {
            GameResult::Win { winner, margin } => format!("{}+{}", winner.letter(), fmt_margin(margin)),
            GameResult::Jigo => "0".to_string(),
            GameResult::Undecided => "?".to_string(),
            GameResult::Resignation { winner } => format!("{}+R", winner.letter()),
            GameResult::Forfeit { winner } => format!("{}+F", winner.letter()),
            GameResult::NoResult => "Void".to_string(),
            GameResult::BothLose => "BothLose".to_string(),
        }
    }

    /// Parses an SGF `RE` value (case-insensitive, blanks trimmed): `B+3.5`, `W+12`,
    /// `B+R`/`B+Resign`/`B+Res`, `B+F`/`B+Forfeit`, `B+T`/`B+Time` (time → [`GameResult::Forfeit`]),
    /// `0`/`Draw`/`Jigo`/`=` (jigo), `Void`/`No result`, `?`/`Unknown`, `BothLose`.
    /// `None` for anything else (including `B+` without a margin and margins that are not
    /// positive numbers).
    pub fn from_sgf(s: &str) -> Option<GameResult> {
        let t = s.trim();
        let l = t.to_ascii_lowercase();
        match l.as_str() {
            "0" | "draw" | "jigo" | "=" | "0.0" | "持碁" => return Some(GameResult::Jigo),
            "void" | "noresult" | "no result" | "無勝負" => return Some(GameResult::NoResult),
            "?" | "unknown" => return Some(GameResult::Undecided),
            "bothlose" | "both lose" | "両負け" => return Some(GameResult::BothLose),
            _ => {}
        }
        let (w, rest) = l.split_once('+')?;
        let winner = match w.trim() {
            "b" | "black" => Color::Black,
            "w" | "white" => Color::White,
            _ => return None,
        };
        match rest.trim() {
            "r" | "res" | "resign" | "resignation" => Some(GameResult::Resignation { winner }),
            "f" | "forfeit" | "t" | "time" => Some(GameResult::Forfeit { winner }),
            m => {
                let margin: f64 = m.parse().ok()?;
                if margin.is_finite() && margin > 0.0 {
                    Some(GameResult::Win { winner, margin })
                } else if margin == 0.0 {
                    Some(GameResult::Jigo)
                } else {
                    None
                }
            }
        }
    }

    /// The winner, if there is exactly one.
    pub fn winner(&self) -> Option<Color> {
        match *self {
            GameResult::Win { winner, .. } | GameResult::Resignation { winner } | GameResult::Forfeit { winner } => Some(winner),
            _ => None,
        }
    }

    /// The result of comparing scores `[black, white]` (komi already in White's):
    /// the higher wins by the difference; equal scores are 持碁 (第十条).
    pub fn from_scores(score: [f64; 2]) -> GameResult {
        let d = score[0] - score[1];
        if d > 0.0 {
            GameResult::Win { winner: Color::Black, margin: d }
        } else if d < 0.0 {
            GameResult::Win { winner: Color::White, margin: -d }
        } else {
            GameResult::Jigo
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_sgf())
    }
}

/// One region of the board for counting: a maximal connected set of points that are not
/// living stones of the kind that bounds regions.
struct Region {
    points: Vec<Point>,
    /// Bounding stone colours seen: [black, white].
    border: [bool; 2],
    /// A bounding stone is seki.
    border_seki: bool,
    /// Stones inside by colour.
    inside: [u32; 2],
    /// An undecided stone inside or on the border.
    undecided: bool,
}

/// Splits the board into regions of points for which `member(p)` holds, recording the
/// bordering stones (points with `member(p) == false`, necessarily stones).
fn regions(board: &Board, member: &dyn Fn(Point) -> bool, status: &StatusMap) -> Vec<Region> {
    let w = board.width() as usize;
    let mut seen = vec![false; w * board.height() as usize];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in board.points() {
        let si = start.y as usize * w + start.x as usize;
        if seen[si] || !member(start) {
            continue;
        }
        seen[si] = true;
        stack.push(start);
        let mut r = Region { points: Vec::new(), border: [false; 2], border_seki: false, inside: [0; 2], undecided: false };
        while let Some(p) = stack.pop() {
            r.points.push(p);
            if let Some(c) = board.get(p) {
                r.inside[c.index()] += 1;
                if status.get(p) == Status::Undecided {
                    r.undecided = true;
                }
            }
            for q in board.adjacent(p) {
                let qi = q.y as usize * w + q.x as usize;
                if member(q) {
                    if !seen[qi] {
                        seen[qi] = true;
                        stack.push(q);
                    }
                } else if let Some(c) = board.get(q) {
                    r.border[c.index()] = true;
                    match status.get(q) {
                        Status::Seki => r.border_seki = true,
                        Status::Undecided => r.undecided = true,
                        _ => {}
                    }
                }
            }
        }
        r.points.sort();
        out.push(r);
    }
    out
}

/// Counts the game.
///
/// * `board`: the final position; `status`: the status of every stone (points without a
///   stone are ignored); `prisoners`: stones captured during play, `[held by black, held
///   by white]` (ハマ, 第三条); `passes`: passes made `[by black, by white]` (used by
///   `japanese-jungo` only); `komi`: points added to White's score; `rules`: which count.
///
/// Per [`Scoring`]:
/// * **Territory** (`japanese-2011`, `japanese-1989`): regions are maximal connected sets
///   of points that are not living (alive or seki) stones. A region is territory of X
///   (第八条) when every living stone bordering it is an *alive* stone of X (a region
///   touched by a seki stone is not territory), no stone of X is inside it (own stones
///   inside must be alive, and living stones are not region members) and it holds no
///   undecided stone. Then (第十条) the dead stones inside are removed and added to X's
///   prisoners, and their points count as territory. Dead stones outside territory stay
///   and count for nobody (セキ石扱い). Score: black = black territory + prisoners held by
///   black; white = white territory + prisoners held by white + komi. (第十条 fills the
///   opponent's territory with one's prisoners; the difference of the two scores is the
///   same.) Equal scores: 持碁 (jigo).
/// * **Area** (`chinese`): a region bordered by living stones (alive or seki) of X only,
///   with no stone of X inside, is X's area; score = living stones of X + X's area
///   (+ komi for White). Dead stones inside area count as the owner's area points.
/// * **Jungo** (`jungo`): score = stones of each colour on the board (+ komi); statuses
///   are not consulted and there is no territory.
/// * **JapaneseJungo** (`japanese-jungo`, 純碁試案 rules 1, 2, 6, 7): every stone on the
///   board is alive; an empty region bordered by stones of X only is X's territory (seki
///   eyes included); each pass hands one stone to the opponent; score = territory −
///   own stones captured (stones held by the opponent, passes included) (+ komi).
///
/// Any [`Status::Undecided`] stone makes the result [`GameResult::Undecided`] (except in
/// the 純碁 counts, which never consult statuses); the scores are still computed treating
/// regions with undecided stones as nobody's.
pub fn score(board: &Board, status: &StatusMap, prisoners: [u32; 2], passes: [u32; 2], komi: f64, rules: RuleSet) -> Score {
    let kind = rules.scoring();
    let mut territory: [Vec<Point>; 2] = [Vec::new(), Vec::new()];
    let mut dame = Vec::new();
    let mut held = prisoners;
    let any_undecided = matches!(kind, Scoring::Territory | Scoring::Area)
        && board.points().any(|p| board.get(p).is_some() && status.get(p) == Status::Undecided);
    let score_pts: [f64; 2];
    match kind {
        Scoring::Territory | Scoring::Area => {
            let member = |p: Point| board.get(p).is_none() || !status.get(p).is_living();
            for r in regions(board, &member, status) {
                let owner = match r.border {
                    [true, false] => Some(Color::Black),
                    [false, true] => Some(Color::White),
                    _ => None,
                };
                let owner = owner.filter(|o| !r.undecided && r.inside[o.index()] == 0 && (kind == Scoring::Area || !r.border_seki));
                match owner {
                    Some(o) => {
                        held[o.index()] += r.inside[o.opponent().index()];
                        territory[o.index()].extend_from_slice(&r.points);
                    }
                    None => dame.extend(r.points.iter().copied().filter(|&p| board.get(p).is_none())),
                }
            }
            if kind == Scoring::Territory {
                score_pts = [territory[0].len() as f64 + held[0] as f64, territory[1].len() as f64 + held[1] as f64 + komi];
            } else {
                let living = |c: Color| board.points().filter(|&p| board.get(p) == Some(c) && status.get(p).is_living()).count() as f64;
                score_pts = [living(Color::Black) + territory[0].len() as f64, living(Color::White) + territory[1].len() as f64 + komi];
            }
        }
        Scoring::Jungo => {
            dame.extend(board.points().filter(|&p| board.get(p).is_none()));
            score_pts = [board.stone_count(Color::Black) as f64, board.stone_count(Color::White) as f64 + komi];
        }
        Scoring::JapaneseJungo => {
            let all_alive = StatusMap::new(board);
            let member = |p: Point| board.get(p).is_none();
            for r in regions(board, &member, &all_alive) {
                match r.border {
                    [true, false] => territory[0].extend_from_slice(&r.points),
                    [false, true] => territory[1].extend_from_slice(&r.points),
                    _ => dame.extend_from_slice(&r.points),
                }
            }
            // A pass hands one stone to the opponent (試案 rule 2).
            held = [prisoners[0] + passes[1], prisoners[1] + passes[0]];
            score_pts = [territory[0].len() as f64 - held[1] as f64, territory[1].len() as f64 - held[0] as f64 + komi];
        }
    }
    territory[0].sort();
    territory[1].sort();
    dame.sort();
    let result = if any_undecided { GameResult::Undecided } else { GameResult::from_scores(score_pts) };
    Score { territory, dame, prisoners: held, score: score_pts, result }
}
