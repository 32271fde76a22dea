//! The [`Record`] type and reading it from SGF text.

use crate::error::{Location, SgfError};
use crate::scan;
use goban::{Color, Move, Point, MAX_SIZE, MIN_SIZE};
use sgf_parse::go::{self, Prop};
use sgf_parse::{GameTree, SgfNode};
use std::collections::{BTreeSet, HashSet};

/// Game information (SGF game-info properties). Text is stored as written, with SGF
/// escapes removed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameInfo {
    /// `KM`: komi in points, added to White's score (第十条). `None` when absent.
    pub komi: Option<f64>,
    /// `HA`: handicap stones (0 when absent; `HA[0]`/`HA[1]` mean no handicap stones).
    pub handicap: u8,
    /// `RU`: the rule set as written (map it with `goban::RuleSet::from_sgf_ru`).
    pub rules: Option<String>,
    /// `RE`: the result as written (`B+2.5`, `W+R`, `0`, `Void`...); see [`Record::result`].
    pub result: Option<String>,
    /// `DT`: date(s) of the game.
    pub date: Option<String>,
    /// `EV`: event (tournament) name.
    pub event: Option<String>,
    /// `RO`: round.
    pub round: Option<String>,
    /// `PB`: Black's name.
    pub black_name: Option<String>,
    /// `PW`: White's name.
    pub white_name: Option<String>,
    /// `BR`: Black's rank.
    pub black_rank: Option<String>,
    /// `WR`: White's rank.
    pub white_rank: Option<String>,
    /// `GN`: game name.
    pub game_name: Option<String>,
    /// `PC`: place.
    pub place: Option<String>,
}

/// Setup stones (`AB`, `AW`, `AE`) given before the first move, each list sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    /// `AB`: black stones placed (handicap stones in a handicap game, 第二条3).
    pub black: Vec<Point>,
    /// `AW`: white stones placed.
    pub white: Vec<Point>,
    /// `AE`: points cleared (only meaningful after earlier setup; kept for fidelity).
    pub empty: Vec<Point>,
}

impl Setup {
    /// Whether there are no setup properties at all.
    pub fn is_empty(&self) -> bool {
        self.black.is_empty() && self.white.is_empty() && self.empty.is_empty()
    }
}

/// Setup (`AB`, `AW`, `AE`) found in the main line after the first move — in a move node
/// (`B[dd]AB[pp]`, as some servers write them) or in a move-less node between moves. FF\[4\]
/// forbids mixing setup and move properties in one node, but readers take them (GNU Go applies
/// them as it meets them; sgfmill's `get_setup_and_moves` refuses them); shinpan applies them to
/// the board before the node's move ([`crate::Replayed::warnings`] says where that changed a
/// stone). Outside the rules: no capture, no legality check, no move number
/// (`goban::Game::setup`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaterSetup {
    /// Index into [`Record::moves`] of the move it comes before (0-based; equal to the number
    /// of moves when it follows the last move).
    pub before_move: usize,
    /// The points set, each list sorted; a point named twice keeps the last property read.
    pub setup: Setup,
}

/// Territory marks `TB`/`TW` of the last node that has them (servers write the agreed
/// territory there at the end of a game), each list sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TerritoryMarks {
    /// `TB`: points marked as Black's territory.
    pub black: Vec<Point>,
    /// `TW`: points marked as White's territory.
    pub white: Vec<Point>,
}

/// One move of the main line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordMove {
    /// Who played.
    pub color: Color,
    /// The point played, or a pass (`B[]`, or `B[tt]` on boards up to 19x19).
    pub mv: Move,
    /// `C` of the move's node, followed by the comments of move-less nodes up to the next
    /// move (joined by a blank line).
    pub comment: Option<String>,
}

/// A game record: the main line of the first game tree of an SGF file.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Columns (`SZ[w:h]` or `SZ[n]`, default 19).
    pub width: u8,
    /// Rows.
    pub height: u8,
    /// Game information.
    pub info: GameInfo,
    /// Setup before the first move.
    pub setup: Setup,
    /// `PL` before the first move: who moves first. A `PL` after the first move (servers write
    /// `B[dd]PL[W]`) is ignored, as sgfmill and GNU Go do: each move names its player (`B`/`W`)
    /// and the rules decide whose turn follows.
    pub to_play: Option<Color>,
    /// The main line's moves, in order.
    pub moves: Vec<RecordMove>,
    /// Setup after the first move, in order (see [`LaterSetup`]); usually empty.
    pub later_setup: Vec<LaterSetup>,
    /// `TB`/`TW` marks of the last node that has any.
    pub territory: Option<TerritoryMarks>,
    /// `C` of the root node (and of move-less nodes before the first move).
    pub comment: Option<String>,
}

impl Record {
    /// An empty record of the given size (no moves, no game information).
    ///
    /// # Errors
    /// [`SgfError::BadSize`] unless both sides are within 2..=25.
    pub fn new(width: u8, height: u8) -> Result<Record, SgfError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&width) || !(MIN_SIZE..=MAX_SIZE).contains(&height) {
            return Err(SgfError::BadSize { value: format!("{width}:{height}") });
        }
        Ok(Record {
            width,
            height,
            info: GameInfo::default(),
            setup: Setup::default(),
            to_play: None,
            moves: Vec::new(),
            later_setup: Vec::new(),
            territory: None,
            comment: None,
        })
    }

    /// Reads a record from a file, decoded by [`crate::scan::decode`] (UTF-8, else the `CA[]`
    /// charset such as Shift_JIS, else ISO-8859-1).
    ///
    /// # Errors
    /// [`SgfError::Io`] if the file cannot be read, else as [`Record::parse`].
    pub fn read_file(path: impl AsRef<std::path::Path>) -> Result<Record, SgfError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| SgfError::Io { path: path.display().to_string(), message: e.to_string() })?;
        Record::parse_bytes(&bytes)
    }

    /// Reads a record from raw bytes, decoded by [`crate::scan::decode`] (UTF-8, else the
    /// `CA[]` charset such as Shift_JIS, else ISO-8859-1).
    ///
    /// # Errors
    /// As [`Record::parse`].
    pub fn parse_bytes(bytes: &[u8]) -> Result<Record, SgfError> {
        if bytes.len() > crate::MAX_RECORD_BYTES {
            return Err(SgfError::TooLarge { what: "bytes", limit: crate::MAX_RECORD_BYTES });
        }
        Record::parse(&scan::decode(bytes))
    }

    /// Reads the main line of the first game tree of an SGF FF\[1\]–FF\[4\] text.
    ///
    /// Passes are `B[]`/`W[]`, and `B[tt]`/`W[tt]` on boards up to 19x19 (FF\[3\]).
    /// Point lists may be compressed (`AB[aa:cc]`). Setup and `PL` in move-less nodes before
    /// the first move are merged into the initial position; setup after the first move is kept
    /// in [`Record::later_setup`] and `PL` after it ignored (see there). Unknown properties are
    /// ignored.
    ///
    /// # Errors
    /// * [`SgfError::NoGameTree`], [`SgfError::MissingRoot`], [`SgfError::Syntax`]: grammar.
    /// * [`SgfError::NotGo`]: `GM` other than 1.
    /// * [`SgfError::BadSize`]: `SZ` not within 2..=25 per side.
    /// * [`SgfError::OffBoard`]: a move, setup point or mark outside the board.
    /// * [`SgfError::BadProperty`]: unreadable `B`, `W`, `AB`, `AW`, `AE`, `PL`, `KM`, `HA`,
    ///   `TB`, `TW`.
    /// * [`SgfError::Unsupported`]: two moves in one node; one point in two of `AB`, `AW`,
    ///   `AE` of one node (the record does not say which colour stands there).
    /// * [`SgfError::TooLarge`]: over [`crate::MAX_RECORD_BYTES`], [`crate::MAX_NODES`] or
    ///   [`crate::MAX_DEPTH`] (checked before parsing).
    pub fn parse(text: &str) -> Result<Record, SgfError> {
        let tree = scan::first_game_tree(text)?;
        let opts = sgf_parse::ParseOptions { convert_mixed_case_identifiers: true, lenient: false };
        let trees = sgf_parse::parse_with_options(&tree, &opts).map_err(|e| match e {
            sgf_parse::SgfParseError::InvalidGameType => SgfError::NotGo("?".into()),
            e => SgfError::Parser(e.to_string()),
        })?;
        let root = match trees.into_iter().next() {
            Some(GameTree::GoGame(root)) => root,
            Some(GameTree::Unknown(root)) => {
                let gm = root.get_property("GM").map(|p| p.to_string()).unwrap_or_else(|| "?".into());
                let gm = gm.trim_start_matches("GM[").trim_end_matches(']').to_string();
                teardown(root);
                return Err(SgfError::NotGo(gm));
            }
            None => return Err(SgfError::NoGameTree),
        };
        let record = from_root(&root);
        teardown(root);
        record
    }

    /// The recorded result `RE`, read with `goban::GameResult::from_sgf` (`None` when
    /// absent or not in SGF result syntax).
    pub fn result(&self) -> Option<goban::GameResult> {
        self.info.result.as_deref().and_then(goban::GameResult::from_sgf)
    }

    /// Number of moves in the main line, passes included.
    pub fn move_count(&self) -> usize {
        self.moves.len()
    }
}

/// Drops a parsed tree without recursion: `sgf-parse` nests every node inside the previous
/// one, so the default (recursive) drop of a record with a few hundred thousand nodes would
/// overflow the stack.
fn teardown<P: sgf_parse::SgfProp>(root: SgfNode<P>) {
    let mut stack = vec![root];
    while let Some(mut node) = stack.pop() {
        stack.append(&mut node.children);
    }
}

fn join_comment(slot: &mut Option<String>, text: &str) {
    match slot {
        Some(s) => {
            s.push_str("\n\n");
            s.push_str(text);
        }
        None => *slot = Some(text.to_string()),
    }
}

fn values_of(values: &[String]) -> String {
    values.join("][")
}

struct Reader {
    width: u8,
    height: u8,
    at: Location,
}

impl Reader {
    fn point(&self, prop: &str, p: &go::Point) -> Result<Point, SgfError> {
        if p.x < self.width && p.y < self.height {
            Ok(Point::new(p.x, p.y))
        } else {
            Err(SgfError::OffBoard { at: self.at, prop: prop.to_string(), point: sgf_point(p), width: self.width, height: self.height })
        }
    }
    fn points(&self, prop: &str, ps: &HashSet<go::Point>) -> Result<Vec<Point>, SgfError> {
        let mut v = ps.iter().map(|p| self.point(prop, p)).collect::<Result<Vec<_>, _>>()?;
        v.sort();
        Ok(v)
    }
    fn mv(&self, prop: &str, m: &go::Move) -> Result<Move, SgfError> {
        match m {
            go::Move::Pass => Ok(Move::Pass),
            go::Move::Move(p) if p.x == 19 && p.y == 19 && self.width <= 19 && self.height <= 19 => Ok(Move::Pass),
            go::Move::Move(p) => Ok(Move::Play(self.point(prop, p)?)),
        }
    }
    fn bad(&self, prop: &str, values: &[String], why: &'static str) -> SgfError {
        SgfError::BadProperty { at: self.at, prop: prop.to_string(), value: values_of(values), why }
    }
}

fn sgf_point(p: &go::Point) -> String {
    let letter = |v: u8| -> char {
        if v < 26 {
            (b'a' + v) as char
        } else if v < 52 {
            (b'A' + v - 26) as char
        } else {
            '?'
        }
    };
    format!("{}{}", letter(p.x), letter(p.y))
}

fn board_size(root: &SgfNode<Prop>) -> Result<(u8, u8), SgfError> {
    let ok = |s: u8| (MIN_SIZE..=MAX_SIZE).contains(&s);
    for prop in root.properties() {
        match prop {
            Prop::SZ((w, h)) => {
                if ok(*w) && ok(*h) {
                    return Ok((*w, *h));
                }
                let value = if w == h { format!("{w}") } else { format!("{w}:{h}") };
                return Err(SgfError::BadSize { value });
            }
            Prop::Invalid(id, values) if id == "SZ" => {
                return Err(SgfError::BadSize { value: values_of(values) });
            }
            _ => {}
        }
    }
    Ok((19, 19))
}

fn simple(slot: &mut Option<String>, text: &str) {
    if slot.is_none() {
        *slot = Some(text.to_string());
    }
}

fn from_root(root: &SgfNode<Prop>) -> Result<Record, SgfError> {
    let (width, height) = board_size(root)?;
    let mut rec = Record::new(width, height)?;
    let mut rd = Reader { width, height, at: Location { node: 0, moves: 0 } };
    let mut black: BTreeSet<Point> = BTreeSet::new();
    let mut white: BTreeSet<Point> = BTreeSet::new();
    let mut empty: BTreeSet<Point> = BTreeSet::new();
    for (index, node) in root.main_variation().enumerate() {
        rd.at = Location { node: index, moves: rec.moves.len() as u32 };
        let mut node_move: Option<(Color, Move)> = None;
        let mut comment: Option<&str> = None;
        let mut marks: Option<TerritoryMarks> = None;
        let mut later: Option<LaterSetup> = None;
        // Points set up by this node's AB/AW/AE, with the property that set them.
        let mut node_setup: std::collections::HashMap<Point, &'static str> = std::collections::HashMap::new();
        let has_move = node.properties().any(|p| match p {
            Prop::B(_) | Prop::W(_) => true,
            Prop::Invalid(id, _) => id == "B" || id == "W",
            _ => false,
        });
        for prop in node.properties() {
            match prop {
                Prop::B(m) | Prop::W(m) => {
                    let color = if matches!(prop, Prop::B(_)) { Color::Black } else { Color::White };
                    let id = color.letter().to_string();
                    if node_move.is_some() {
                        return Err(SgfError::Unsupported { at: rd.at, what: "two moves in one node".into() });
                    }
                    node_move = Some((color, rd.mv(&id, m)?));
                }
                Prop::AB(ps) | Prop::AW(ps) | Prop::AE(ps) => {
                    let (id, target) = match prop {
                        Prop::AB(_) => ("AB", Some(Color::Black)),
                        Prop::AW(_) => ("AW", Some(Color::White)),
                        _ => ("AE", None),
                    };
                    for p in rd.points(id, ps)? {
                        if let Some(other) = node_setup.insert(p, id) {
                            if other != id {
                                return Err(SgfError::Unsupported {
                                    at: rd.at,
                                    what: format!("{other}[{0}] and {id}[{0}] in one node (which stands on {0}?)", p.to_sgf()),
                                });
                            }
                        }
                    }
                    if !rec.moves.is_empty() {
                        let l = later.get_or_insert_with(|| LaterSetup { before_move: rec.moves.len(), setup: Setup::default() });
                        for p in rd.points(id, ps)? {
                            let s = &mut l.setup;
                            s.black.retain(|&q| q != p);
                            s.white.retain(|&q| q != p);
                            s.empty.retain(|&q| q != p);
                            match target {
                                Some(Color::Black) => s.black.push(p),
                                Some(Color::White) => s.white.push(p),
                                None => s.empty.push(p),
                            }
                        }
                        continue;
                    }
                    for p in rd.points(id, ps)? {
                        black.remove(&p);
                        white.remove(&p);
                        empty.remove(&p);
                        match target {
                            Some(Color::Black) => black.insert(p),
                            Some(Color::White) => white.insert(p),
                            None => empty.insert(p),
                        };
                    }
                }
                Prop::PL(c) => {
                    if !rec.moves.is_empty() || has_move {
                        // In a move node or after the first move: ignored, see `Record::to_play`.
                        continue;
                    }
                    rec.to_play = Some(match c {
                        sgf_parse::Color::Black => Color::Black,
                        sgf_parse::Color::White => Color::White,
                    });
                }
                Prop::TB(ps) | Prop::TW(ps) => {
                    let id = if matches!(prop, Prop::TB(_)) { "TB" } else { "TW" };
                    let pts = rd.points(id, ps)?;
                    let m = marks.get_or_insert_with(TerritoryMarks::default);
                    if id == "TB" {
                        m.black.extend(pts);
                        m.black.sort();
                        m.black.dedup();
                    } else {
                        m.white.extend(pts);
                        m.white.sort();
                        m.white.dedup();
                    }
                }
                Prop::KM(k) => {
                    if !k.is_finite() {
                        return Err(rd.bad("KM", &[k.to_string()], "komi must be a finite number"));
                    }
                    rec.info.komi.get_or_insert(*k);
                }
                Prop::HA(h) => {
                    let h = u8::try_from(*h).ok().filter(|&h| (h as u32) <= width as u32 * height as u32);
                    match h {
                        Some(h) => rec.info.handicap = h,
                        None => return Err(rd.bad("HA", &[], "handicap out of range")),
                    }
                }
                Prop::C(t) => comment = Some(&t.text),
                Prop::RU(t) => simple(&mut rec.info.rules, &t.text),
                Prop::RE(t) => simple(&mut rec.info.result, &t.text),
                Prop::DT(t) => simple(&mut rec.info.date, &t.text),
                Prop::EV(t) => simple(&mut rec.info.event, &t.text),
                Prop::RO(t) => simple(&mut rec.info.round, &t.text),
                Prop::PB(t) => simple(&mut rec.info.black_name, &t.text),
                Prop::PW(t) => simple(&mut rec.info.white_name, &t.text),
                Prop::BR(t) => simple(&mut rec.info.black_rank, &t.text),
                Prop::WR(t) => simple(&mut rec.info.white_rank, &t.text),
                Prop::GN(t) => simple(&mut rec.info.game_name, &t.text),
                Prop::PC(t) => simple(&mut rec.info.place, &t.text),
                Prop::Invalid(id, values) => match id.as_str() {
                    "KM" => {
                        let v = values.first().map(|s| s.trim().replace(',', ".")).unwrap_or_default();
                        if values.len() == 1 && v.is_empty() {
                            // KM[]: no komi given.
                        } else if let Some(k) = v.parse::<f64>().ok().filter(|k| values.len() == 1 && k.is_finite()) {
                            rec.info.komi.get_or_insert(k);
                        } else {
                            return Err(rd.bad("KM", values, "komi is not a number"));
                        }
                    }
                    "HA" => match values.first().map(|s| s.trim().parse::<i64>()) {
                        // sgf-parse rejects HA[0] and HA[1]; both mean no handicap stones.
                        Some(Ok(0 | 1)) if values.len() == 1 => rec.info.handicap = 0,
                        _ => return Err(rd.bad("HA", values, "handicap is not a number")),
                    },
                    "B" | "W" => {
                        if values.len() == 1 && values[0].trim().is_empty() {
                            let color = if id == "B" { Color::Black } else { Color::White };
                            node_move = Some((color, Move::Pass));
                        } else {
                            return Err(rd.bad(id, values, "a move is one point (two letters) or empty for a pass"));
                        }
                    }
                    "AB" | "AW" | "AE" | "TB" | "TW" => {
                        return Err(rd.bad(id, values, "not a list of points (`aa` or `aa:cc`)"));
                    }
                    "PL" => return Err(rd.bad("PL", values, "player is `B` or `W`")),
                    // Other unreadable properties (markup, timing...) do not affect the game.
                    _ => {}
                },
                _ => {}
            }
        }
        if let Some(m) = marks {
            rec.territory = Some(m);
        }
        if let Some(mut l) = later {
            for list in [&mut l.setup.black, &mut l.setup.white, &mut l.setup.empty] {
                list.sort();
            }
            rec.later_setup.push(l);
        }
        if let Some((color, mv)) = node_move {
            rec.moves.push(RecordMove { color, mv, comment: comment.map(str::to_string) });
        } else if let Some(text) = comment {
            match rec.moves.last_mut() {
                Some(last) => join_comment(&mut last.comment, text),
                None => join_comment(&mut rec.comment, text),
            }
        }
    }
    rec.setup = Setup { black: black.into_iter().collect(), white: white.into_iter().collect(), empty: empty.into_iter().collect() };
    Ok(rec)
}
