//! The archive side of results, as pure functions: the reconstruction of a game from its
//! recorded moves (対局の再現, 第十条2), SGF records with the final result (`RE`) and the
//! ruling (`GC`), and the EGF results table of the European Go Database.
//!
//! ## The EGF results table
//! The format the EGD rating program reads (tournament tables as ASCII text, one player per
//! line; `;` starts a comment; blank-separated columns):
//!
//! ```text
//! ; CL[B]
//! ; EV[Kisei Cup]
//! ; PC[NL, Amsterdam]
//! ; DT[2026-11-21,2026-11-21]
//! ; KM[6.5]
//! ; TM[60]
//! ;
//! ; Pl Name Grade Co Club Wins 1 2 ...
//! 1 Kato Masao 5d -- -- 2 2+/b0 3+/w0 |12345678
//! 2 Cho Chikun 4d -- -- 1 1-/w0 0- |
//! ```
//!
//! Each round entry is `<opponent's place><symbol>/<colour><handicap>`, symbol `+` (win),
//! `-` (loss) or `=` (jigo, 持碁); `0-` when the player had no rated game that round. Places
//! are by wins (jigo half a win), then name. The surname is the first word of the registered
//! name, the rest is the given name (joined with `_`; `-` when there is none); country and
//! club are not stored by shinpan and are written `--` for the organiser to fill in; the
//! federation id (EGD PIN) follows `|`.
//!
//! How shinpan's endings are entered:
//! * count, 持碁, 中押勝: as played (`+`, `-`, `=`);
//! * 反則負け (`B+F`/`W+F`) and loss on time (`B+T`/`W+T`): the game was played, so a
//!   normal win and loss;
//! * 無勝負 (`Void`) and 両負け (`BothLose`): there is no winner to rate, so both players get
//!   `0-` for the round, and a comment line in the header says which game it was and why;
//! * 無勝負 replaced by a decision on time used or by nigiri (第十一条's note): the winner gets
//!   `0+` (the point, no rated game), the loser `0-`, with a comment line.

use goban::{Color, Move, Point, RuleSet};
use shinpan_sgf::{Record, RecordMove, Replayed};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A player as the archive needs them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArchivePlayer {
    /// Name as registered (surname first for EGF).
    pub name: String,
    /// Rank, e.g. "5d", "3k", "9p".
    pub rank: Option<String>,
    /// Federation id (EGD PIN).
    pub federation_id: Option<String>,
}

/// A stored game, for reconstruction and export.
#[derive(Clone, Debug, PartialEq)]
pub struct ArchiveGame {
    /// Board width and height in points.
    pub width: u8,
    /// Height.
    pub height: u8,
    /// Komi in points.
    pub komi: f64,
    /// Handicap stones (0 = none).
    pub handicap: u8,
    /// Rule set name ("japanese-2011", ...).
    pub rule_set: String,
    /// Setup JSON of the store: `{"AB": ["dd", ...], "AW": [...], "PL": "B"|"W"}`.
    pub setup: serde_json::Value,
    /// Black and White.
    pub black: ArchivePlayer,
    /// White.
    pub white: ArchivePlayer,
    /// Tournament name (SGF EV).
    pub event: Option<String>,
    /// Round (SGF RO).
    pub round: Option<i32>,
    /// Table number.
    pub table: Option<i32>,
    /// Date (SGF DT, `YYYY-MM-DD`).
    pub date: Option<String>,
    /// Recorded moves in order: colour and point (`None` = pass).
    pub moves: Vec<(Color, Option<Point>)>,
}

/// A reconstruction (対局の再現): the record rebuilt from the recorded moves and replayed
/// again under the game's rules.
#[derive(Clone, Debug)]
pub struct Reconstruction {
    /// The rebuilt record.
    pub record: Record,
    /// Its SGF text.
    pub sgf: String,
    /// The replay: final position, first foul (there should be none: fouls are never
    /// recorded as moves), resumptions.
    pub replayed: Replayed,
    /// The rule set replayed under.
    pub rules: RuleSet,
}

impl Reconstruction {
    /// The largest `cycles` of any whole-board repetition of the replay (0 if none).
    pub fn max_cycles(&self) -> u32 {
        self.replayed.game.repetitions().iter().map(|r| r.cycles).max().unwrap_or(0)
    }

    /// The reconstruction as JSON evidence: SGF, move count, phase, foul, repetitions
    /// (first, again, cycles, the sequence as "B dd"/"W pass").
    pub fn to_json(&self) -> serde_json::Value {
        let g = &self.replayed.game;
        let reps: Vec<serde_json::Value> = g
            .repetitions()
            .iter()
            .map(|r| {
                serde_json::json!({
                    "first": r.first,
                    "again": r.again,
                    "cycles": r.cycles,
                    "sequence": r.sequence.iter().map(|(c, m)| move_text(*c, *m)).collect::<Vec<_>>(),
                })
            })
            .collect();
        serde_json::json!({
            "sgf": self.sgf,
            "rule_set": self.rules.name(),
            "moves": self.record.moves.len(),
            "phase": g.phase().name(),
            "validated": self.replayed.foul.is_none(),
            "foul": self.replayed.foul.as_ref().map(|f| f.to_string()),
            "repetitions": reps,
            "max_cycles": self.max_cycles(),
            "prisoners": {"black": g.prisoners(Color::Black), "white": g.prisoners(Color::White)},
            "position": self.position_json(),
        })
    }

    /// The position after the last recorded move: `{"width", "height", "black": [...],
    /// "white": [...], "to_move": "B"|"W", "ko_point": "dd"|null}` (SGF points).
    pub fn position_json(&self) -> serde_json::Value {
        let g = &self.replayed.game;
        let b = g.board();
        let mut black = Vec::new();
        let mut white = Vec::new();
        for y in 0..b.height() {
            for x in 0..b.width() {
                let p = Point::new(x, y);
                match b.get(p) {
                    Some(Color::Black) => black.push(p.to_sgf()),
                    Some(Color::White) => white.push(p.to_sgf()),
                    None => {}
                }
            }
        }
        serde_json::json!({
            "width": b.width(),
            "height": b.height(),
            "black": black,
            "white": white,
            "to_move": g.to_move().letter().to_string(),
            "ko_point": g.ko_point().map(|p| p.to_sgf()),
        })
    }
}

/// `"B dd"`, `"W pass"`.
pub fn move_text(c: Color, m: Move) -> String {
    match m {
        Move::Play(p) => format!("{} {}", c.letter(), p.to_sgf()),
        Move::Pass => format!("{} pass", c.letter()),
    }
}

fn points_of(v: Option<&serde_json::Value>) -> Result<Vec<Point>, String> {
    let Some(a) = v.and_then(serde_json::Value::as_array) else { return Ok(Vec::new()) };
    a.iter()
        .map(|s| {
            let s = s.as_str().ok_or_else(|| format!("setup point {s} is not a string"))?;
            Point::from_sgf(s).map_err(|e| format!("setup point {s}: {e}"))
        })
        .collect()
}

/// The game as an SGF record (no result): size, komi, handicap, `RU`, players, event,
/// round, date, setup stones, first player, moves.
///
/// # Errors
/// A message when the board size or a setup point is invalid.
pub fn record_of(g: &ArchiveGame) -> Result<Record, String> {
    let mut r = Record::new(g.width, g.height).map_err(|e| e.to_string())?;
    let rules = RuleSet::from_name(&g.rule_set);
    r.info.komi = Some(g.komi);
    r.info.handicap = g.handicap;
    r.info.rules = Some(rules.map(|x| x.sgf_ru().to_string()).unwrap_or_else(|| g.rule_set.clone()));
    r.info.black_name = Some(g.black.name.clone());
    r.info.white_name = Some(g.white.name.clone());
    r.info.black_rank = g.black.rank.clone();
    r.info.white_rank = g.white.rank.clone();
    r.info.event = g.event.clone();
    r.info.round = g.round.map(|x| x.to_string());
    r.info.date = g.date.clone();
    r.setup.black = points_of(g.setup.get("AB"))?;
    r.setup.white = points_of(g.setup.get("AW"))?;
    r.to_play = match g.setup.get("PL").and_then(serde_json::Value::as_str) {
        Some("B") => Some(Color::Black),
        Some("W") => Some(Color::White),
        _ => None,
    };
    r.moves = g.moves.iter().map(|&(color, p)| RecordMove { color, mv: p.map_or(Move::Pass, Move::Play), comment: None }).collect();
    Ok(r)
}

/// Reconstructs the game from its recorded moves (対局の再現): rebuilds the record and
/// replays it move by move under the game's rule set with the rules engine, validating
/// every move again.
///
/// # Errors
/// A message when the rule set is unknown or the record cannot be set up.
pub fn reconstruct(g: &ArchiveGame) -> Result<Reconstruction, String> {
    let rules = RuleSet::from_name(&g.rule_set).ok_or_else(|| format!("unknown rule set {}", g.rule_set))?;
    let record = record_of(g)?;
    let replayed = record.to_game(rules).map_err(|e| e.to_string())?;
    let sgf = record.to_sgf();
    Ok(Reconstruction { record, sgf, replayed, rules })
}

/// Escapes an SGF text value (`\` and `]`).
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}

/// The SGF of `record` with `RE[result]` and, when given, `GC[comment]` (the ruling) in
/// the root node.
pub fn sgf_with_result(record: &Record, result: &str, comment: Option<&str>) -> String {
    let mut r = record.clone();
    r.info.result = Some(result.to_string());
    let sgf = r.to_sgf();
    match comment.filter(|c| !c.trim().is_empty()) {
        None => sgf,
        Some(c) => {
            // The root node starts "(;": insert GC right after it.
            let gc = format!("GC[{}]", escape(c));
            match sgf.find("(;") {
                Some(i) => format!("{}{}{}", &sgf[..i + 2], gc, &sgf[i + 2..]),
                None => sgf,
            }
        }
    }
}

/// EGF table header fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EgfHeader {
    /// Tournament class: "A", "B", "C", "D".
    pub class: String,
    /// Tournament name.
    pub event: String,
    /// Place: "CC, City".
    pub place: String,
    /// Dates: "YYYY-MM-DD,YYYY-MM-DD".
    pub dates: String,
    /// Komi.
    pub komi: Option<f64>,
    /// Adjusted time in minutes (0 = unknown, not written).
    pub time_minutes: u32,
}

/// One final result of the tournament for the EGF table.
#[derive(Clone, Debug, PartialEq)]
pub struct EgfGame {
    /// Round number (games without one are put in round 1).
    pub round: i32,
    /// Table number (for comments).
    pub table: Option<i32>,
    /// Black.
    pub black: ArchivePlayer,
    /// White.
    pub white: ArchivePlayer,
    /// Handicap stones.
    pub handicap: u8,
    /// Final result, SGF RE text.
    pub result: String,
    /// False when the winner was not decided by play: 無勝負 replaced by a decision on time
    /// used or by nigiri (第十一条's note). The winner then gets `0+` (a point without a
    /// rated game) and the loser `0-`.
    pub decided_by_play: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    BlackWins,
    WhiteWins,
    Jigo,
    Unrated,
    /// A winner decided off the board (not rated).
    Decided(Color),
}

fn game_outcome(g: &EgfGame) -> Outcome {
    match outcome(&g.result) {
        Outcome::BlackWins if !g.decided_by_play => Outcome::Decided(Color::Black),
        Outcome::WhiteWins if !g.decided_by_play => Outcome::Decided(Color::White),
        Outcome::Jigo if !g.decided_by_play => Outcome::Unrated,
        o => o,
    }
}

fn outcome(result: &str) -> Outcome {
    match goban::GameResult::from_sgf(result) {
        Some(r) => match r {
            goban::GameResult::Jigo => Outcome::Jigo,
            goban::GameResult::NoResult | goban::GameResult::BothLose | goban::GameResult::Undecided => Outcome::Unrated,
            other => match other.winner() {
                Some(Color::Black) => Outcome::BlackWins,
                Some(Color::White) => Outcome::WhiteWins,
                None => Outcome::Unrated,
            },
        },
        None => Outcome::Unrated,
    }
}

fn key(p: &ArchivePlayer) -> String {
    match &p.federation_id {
        Some(f) if !f.is_empty() => format!("id:{f}"),
        _ => format!("name:{}", p.name),
    }
}

/// The EGF results table of a tournament's final results (see the module notes).
pub fn egf_table(h: &EgfHeader, games: &[EgfGame]) -> String {
    // Players and rounds.
    let mut players: BTreeMap<String, ArchivePlayer> = BTreeMap::new();
    let mut rounds: Vec<i32> = Vec::new();
    for g in games {
        players.entry(key(&g.black)).or_insert_with(|| g.black.clone());
        players.entry(key(&g.white)).or_insert_with(|| g.white.clone());
        if !rounds.contains(&g.round) {
            rounds.push(g.round);
        }
    }
    rounds.sort_unstable();
    let mut points: BTreeMap<String, f64> = players.keys().map(|k| (k.clone(), 0.0)).collect();
    for g in games {
        let (b, w) = (key(&g.black), key(&g.white));
        match game_outcome(g) {
            Outcome::BlackWins | Outcome::Decided(Color::Black) => *points.get_mut(&b).unwrap() += 1.0,
            Outcome::WhiteWins | Outcome::Decided(Color::White) => *points.get_mut(&w).unwrap() += 1.0,
            Outcome::Jigo => {
                *points.get_mut(&b).unwrap() += 0.5;
                *points.get_mut(&w).unwrap() += 0.5;
            }
            Outcome::Unrated => {}
        }
    }
    let mut order: Vec<String> = players.keys().cloned().collect();
    order.sort_by(|a, b| {
        points[b].partial_cmp(&points[a]).unwrap_or(std::cmp::Ordering::Equal).then_with(|| players[a].name.cmp(&players[b].name))
    });
    let place: BTreeMap<&String, usize> = order.iter().enumerate().map(|(i, k)| (k, i + 1)).collect();

    let mut out = String::new();
    let class = if h.class.trim().is_empty() { "B" } else { h.class.trim() };
    let _ = writeln!(out, "; CL[{class}]");
    let _ = writeln!(out, "; EV[{}]", h.event);
    if !h.place.is_empty() {
        let _ = writeln!(out, "; PC[{}]", h.place);
    }
    if !h.dates.is_empty() {
        let _ = writeln!(out, "; DT[{}]", h.dates);
    }
    if let Some(k) = h.komi {
        let _ = writeln!(out, "; KM[{k}]");
    }
    if h.time_minutes > 0 {
        let _ = writeln!(out, "; TM[{}]", h.time_minutes);
    }
    let _ = writeln!(out, "; CM[Generated by shinpan from confirmed results (第十条)]");
    for g in games {
        if let Outcome::Decided(w) = game_outcome(g) {
            let _ = writeln!(
                out,
                "; round {} table {}: {} - {}: {} (無勝負 (第十一条) decided off the board by the tournament's policy): entered as 0+ for {} and 0- for the other, not rated",
                g.round,
                g.table.map_or("-".to_string(), |t| t.to_string()),
                g.black.name,
                g.white.name,
                g.result,
                if w == Color::Black { &g.black.name } else { &g.white.name },
            );
        }
        if game_outcome(g) == Outcome::Unrated {
            let why = match goban::GameResult::from_sgf(&g.result) {
                Some(goban::GameResult::NoResult) => "無勝負 (第十一条), no result",
                Some(goban::GameResult::BothLose) => "両負け, both lose",
                _ => "no decided result",
            };
            let _ = writeln!(
                out,
                "; round {} table {}: {} - {}: {} ({why}): entered as 0- for both players, not rated",
                g.round,
                g.table.map_or("-".to_string(), |t| t.to_string()),
                g.black.name,
                g.white.name,
                g.result
            );
        }
    }
    let _ = writeln!(out, ";");
    let mut head = String::from("; Pl Name Grade Co Club Wins");
    for r in &rounds {
        let _ = write!(head, " {r}");
    }
    let _ = writeln!(out, "{head}");
    for k in &order {
        let p = &players[k];
        let mut words = p.name.split_whitespace();
        let surname = words.next().unwrap_or("-").to_string();
        let given: Vec<&str> = words.collect();
        let given = if given.is_empty() { "-".to_string() } else { given.join("_") };
        let grade = p.rank.clone().filter(|r| !r.trim().is_empty()).unwrap_or_else(|| "?".into()).to_ascii_lowercase();
        let wins = points[k];
        let wins = if wins.fract() == 0.0 { format!("{}", wins as i64) } else { format!("{wins}") };
        let mut line = format!("{} {} {} {} -- -- {}", place[k], surname, given, grade, wins);
        for r in &rounds {
            let entry = games
                .iter()
                .filter(|g| g.round == *r)
                .find_map(|g| {
                    let (me, opp, col) = if key(&g.black) == *k {
                        (Color::Black, key(&g.white), 'b')
                    } else if key(&g.white) == *k {
                        (Color::White, key(&g.black), 'w')
                    } else {
                        return None;
                    };
                    let sym = match (game_outcome(g), me) {
                        (Outcome::Unrated, _) => return Some("0-".to_string()),
                        (Outcome::Decided(w), me) => return Some(if w == me { "0+" } else { "0-" }.to_string()),
                        (Outcome::Jigo, _) => '=',
                        (Outcome::BlackWins, Color::Black) | (Outcome::WhiteWins, Color::White) => '+',
                        _ => '-',
                    };
                    Some(format!("{}{}/{}{}", place[&opp], sym, col, g.handicap))
                })
                .unwrap_or_else(|| "0-".to_string());
            let _ = write!(line, " {entry}");
        }
        let _ = write!(line, " |{}", p.federation_id.clone().unwrap_or_default());
        let _ = writeln!(out, "{line}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(name: &str, rank: &str, pin: &str) -> ArchivePlayer {
        ArchivePlayer { name: name.into(), rank: Some(rank.into()), federation_id: Some(pin.into()) }
    }

    fn pt(s: &str) -> Option<Point> {
        Some(Point::from_sgf(s).unwrap())
    }

    fn game(moves: Vec<(Color, Option<Point>)>) -> ArchiveGame {
        ArchiveGame {
            width: 9,
            height: 9,
            komi: 6.5,
            handicap: 0,
            rule_set: "japanese-2011".into(),
            setup: serde_json::json!({}),
            black: player("Kato Masao", "5d", "111"),
            white: player("Cho Chikun", "4d", "222"),
            event: Some("Kisei Cup".into()),
            round: Some(1),
            table: Some(1),
            date: Some("2026-11-21".into()),
            moves,
        }
    }

    #[test]
    fn reconstruction_replays_and_keeps_the_moves() {
        let g = game(vec![(Color::Black, pt("ee")), (Color::White, pt("cc")), (Color::Black, None)]);
        let r = reconstruct(&g).unwrap();
        assert!(r.replayed.foul.is_none());
        assert_eq!(r.replayed.game.move_number(), 3);
        let back = Record::parse(&r.sgf).unwrap();
        assert_eq!(back.moves.len(), 3);
        assert_eq!(back.info.black_name.as_deref(), Some("Kato Masao"));
        assert_eq!(r.to_json()["validated"], true);
        assert_eq!(r.max_cycles(), 0);
        let pos = &r.to_json()["position"];
        assert_eq!((pos["black"].clone(), pos["white"].clone()), (serde_json::json!(["ee"]), serde_json::json!(["cc"])));
        assert_eq!(pos["to_move"], "W");
    }

    #[test]
    fn reconstruction_validates_every_move_again() {
        // A stored move list with a move onto an occupied point (it can only get there by
        // tampering): the replay names the foul instead of accepting it.
        let g = game(vec![(Color::Black, pt("ee")), (Color::White, pt("ee"))]);
        let r = reconstruct(&g).unwrap();
        let foul = r.replayed.foul.as_ref().expect("the foul is found");
        assert_eq!((foul.move_number, foul.rule), (2, goban::FoulRule::Occupied));
        assert_eq!(r.to_json()["validated"], false);
        // Setup stones and the first player come from the setup JSON.
        let mut h = game(vec![(Color::White, pt("cc"))]);
        h.setup = serde_json::json!({"AB": ["gc", "cg"], "PL": "W"});
        h.handicap = 2;
        let r = reconstruct(&h).unwrap();
        assert!(r.replayed.foul.is_none());
        assert_eq!(r.replayed.game.board().get(Point::from_sgf("gc").unwrap()), Some(Color::Black));
        assert!(r.sgf.contains("AB[gc][cg]"), "{}", r.sgf);
    }

    #[test]
    fn sgf_carries_result_and_ruling() {
        let g = game(vec![(Color::Black, pt("ee"))]);
        let rec = record_of(&g).unwrap();
        let sgf = sgf_with_result(&rec, "Void", Some("無勝負 (第十一条): triple ko [ruled]"));
        assert!(sgf.contains("RE[Void]"), "{sgf}");
        assert!(sgf.contains("GC[無勝負 (第十一条): triple ko [ruled\\]]"), "{sgf}");
        let back = Record::parse(&sgf).unwrap();
        assert_eq!(back.info.result.as_deref(), Some("Void"));
    }

    #[test]
    fn egf_table_rounds_places_and_unrated_games() {
        let a = player("Kato Masao", "5d", "111");
        let b = player("Cho Chikun", "4d", "222");
        let c = player("Go Seigen", "9p", "333");
        let games = vec![
            EgfGame {
                round: 1,
                table: Some(1),
                black: a.clone(),
                white: b.clone(),
                handicap: 0,
                result: "B+3.5".into(),
                decided_by_play: true,
            },
            EgfGame {
                round: 2,
                table: Some(1),
                black: c.clone(),
                white: a.clone(),
                handicap: 0,
                result: "W+F".into(),
                decided_by_play: true,
            },
            EgfGame {
                round: 2,
                table: Some(2),
                black: b.clone(),
                white: b.clone(),
                handicap: 0,
                result: "x".into(),
                decided_by_play: true,
            },
            EgfGame {
                round: 3,
                table: Some(1),
                black: b.clone(),
                white: c.clone(),
                handicap: 2,
                result: "Void".into(),
                decided_by_play: true,
            },
        ];
        // Drop the nonsense self-pairing: only real pairings are exported.
        let games: Vec<EgfGame> = games.into_iter().filter(|g| g.black != g.white).collect();
        let h = EgfHeader { class: "A".into(), event: "Kisei Cup".into(), komi: Some(6.5), ..Default::default() };
        let t = egf_table(&h, &games);
        assert!(t.starts_with("; CL[A]\n; EV[Kisei Cup]\n"), "{t}");
        let lines: Vec<&str> = t.lines().filter(|l| !l.starts_with(';')).collect();
        assert_eq!(lines.len(), 3, "{t}");
        // Kato won both games (one by the opponent's foul): place 1.
        assert_eq!(lines[0], "1 Kato Masao 5d -- -- 2 2+/b0 3+/w0 0- |111", "{t}");
        // Cho and Go have 0 wins each: by name, Cho first.
        assert_eq!(lines[1], "2 Cho Chikun 4d -- -- 0 1-/w0 0- 0- |222", "{t}");
        assert_eq!(lines[2], "3 Go Seigen 9p -- -- 0 0- 1-/b0 0- |333", "{t}");
        assert!(t.contains("; round 3 table 1: Cho Chikun - Go Seigen: Void (無勝負 (第十一条)"), "{t}");
    }

    #[test]
    fn egf_jigo_is_equal_sign() {
        let a = player("A B", "1d", "1");
        let b = player("C", "1k", "");
        let t = egf_table(
            &EgfHeader::default(),
            &[EgfGame { round: 1, table: None, black: a, white: b, handicap: 0, result: "0".into(), decided_by_play: true }],
        );
        let lines: Vec<&str> = t.lines().filter(|l| !l.starts_with(';')).collect();
        assert_eq!(lines, vec!["1 A B 1d -- -- 0.5 2=/b0 |1", "2 C - 1k -- -- 0.5 1=/w0 |"]);
    }

    #[test]
    fn egf_policy_decisions_are_points_without_a_rated_game() {
        let a = player("A B", "1d", "1");
        let b = player("C D", "1k", "2");
        let t = egf_table(
            &EgfHeader::default(),
            &[EgfGame { round: 1, table: Some(4), black: a, white: b, handicap: 0, result: "W+F".into(), decided_by_play: false }],
        );
        let lines: Vec<&str> = t.lines().filter(|l| !l.starts_with(';')).collect();
        assert_eq!(lines, vec!["1 C D 1k -- -- 1 0+ |2", "2 A B 1d -- -- 0 0- |1"], "{t}");
        assert!(t.contains("entered as 0+ for C D"), "{t}");
    }
}
