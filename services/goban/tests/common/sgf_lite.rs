//! A minimal reader of the main line of an SGF record, for the engine's own corpus test
//! and benchmark (the product's SGF reader is the `shinpan-sgf` crate; goban depends on
//! nothing in the workspace, so its tests carry this small one). It reads `SZ`, `AB`,
//! `AW`, `AE`, `PL` and `B`/`W` moves (`[]` and, up to 19x19, `[tt]` are passes), and
//! skips every other property value, escapes included.
#![allow(dead_code)]

use goban::{Color, Move, Point};

/// One event of the main line, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Setup stones (`AB`/`AW`/`AE`).
    Setup(Vec<(Point, Option<Color>)>),
    /// `PL[]`.
    ToMove(Color),
    /// A move.
    Move(Color, Move),
}

/// The main line of a record.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub width: u32,
    pub height: u32,
    pub events: Vec<Event>,
}

impl Record {
    pub fn moves(&self) -> usize {
        self.events.iter().filter(|e| matches!(e, Event::Move(..))).count()
    }
}

type Node = Vec<(String, Vec<String>)>;

fn main_line(s: &str) -> Result<Vec<Node>, String> {
    let b = s.as_bytes();
    let mut i = s.find('(').ok_or("no game tree")? + 1;
    let mut nodes = Vec::new();
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            return Ok(nodes);
        }
        match b[i] {
            b'(' => i += 1,
            b')' => return Ok(nodes),
            b';' => {
                i += 1;
                let mut node = Node::new();
                loop {
                    while i < b.len() && b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    if i >= b.len() || !b[i].is_ascii_alphabetic() {
                        break;
                    }
                    let mut id = String::new();
                    while i < b.len() && b[i].is_ascii_alphabetic() {
                        if b[i].is_ascii_uppercase() {
                            id.push(b[i] as char);
                        }
                        i += 1;
                    }
                    let mut vals = Vec::new();
                    loop {
                        while i < b.len() && b[i].is_ascii_whitespace() {
                            i += 1;
                        }
                        if i >= b.len() || b[i] != b'[' {
                            break;
                        }
                        i += 1;
                        let start = i;
                        while i < b.len() && b[i] != b']' {
                            if b[i] == b'\\' {
                                i += 1;
                            }
                            i += 1;
                        }
                        vals.push(String::from_utf8_lossy(&b[start..i.min(b.len())]).into_owned());
                        i += 1;
                    }
                    node.push((id, vals));
                }
                nodes.push(node);
            }
            c => return Err(format!("unexpected {:?} at byte {i}", c as char)),
        }
    }
}

fn point(v: &str, w: u32, h: u32) -> Result<Option<Point>, String> {
    if v.is_empty() || (v == "tt" && w <= 19 && h <= 19) {
        return Ok(None);
    }
    let p = Point::from_sgf(v).map_err(|e| e.to_string())?;
    Ok(Some(p))
}

/// Reads the main line.
pub fn read(s: &str) -> Result<Record, String> {
    let nodes = main_line(s)?;
    let (mut w, mut h) = (19, 19);
    if let Some(root) = nodes.first() {
        for (id, v) in root {
            if id == "SZ" {
                let t = v.first().ok_or("SZ without value")?;
                let (a, b) = t.split_once(':').unwrap_or((t, t));
                w = a.trim().parse().map_err(|_| format!("bad SZ {t}"))?;
                h = b.trim().parse().map_err(|_| format!("bad SZ {t}"))?;
            }
        }
    }
    let mut events = Vec::new();
    for node in &nodes {
        let mut setup = Vec::new();
        for (id, vals) in node {
            match id.as_str() {
                "AB" | "AW" | "AE" => {
                    let c = match id.as_str() {
                        "AB" => Some(Color::Black),
                        "AW" => Some(Color::White),
                        _ => None,
                    };
                    for v in vals {
                        // Compressed rectangles "aa:cc".
                        let (a, b) = v.split_once(':').unwrap_or((v, v));
                        let (Some(a), Some(b)) = (point(a, w, h)?, point(b, w, h)?) else { continue };
                        for x in a.x.min(b.x)..=a.x.max(b.x) {
                            for y in a.y.min(b.y)..=a.y.max(b.y) {
                                setup.push((Point::new(x, y), c));
                            }
                        }
                    }
                }
                "PL" => {
                    let c =
                        if vals.first().map(|v| v.trim().to_ascii_uppercase()) == Some("W".into()) { Color::White } else { Color::Black };
                    events.push(Event::ToMove(c));
                }
                _ => {}
            }
        }
        if !setup.is_empty() {
            events.push(Event::Setup(setup));
        }
        for (id, vals) in node {
            let c = match id.as_str() {
                "B" => Color::Black,
                "W" => Color::White,
                _ => continue,
            };
            let v = vals.first().map(String::as_str).unwrap_or("");
            let mv = match point(v, w, h)? {
                Some(p) => Move::Play(p),
                None => Move::Pass,
            };
            events.push(Event::Move(c, mv));
        }
    }
    Ok(Record { width: w, height: h, events })
}

/// Every record under `/work/shared/games`-style directory `dir` (`9/`, `13/`, `19/`),
/// sorted by path.
pub fn corpus(dir: &std::path::Path) -> Vec<(String, Record)> {
    let mut out = Vec::new();
    for sub in ["9", "13", "19"] {
        let Ok(rd) = std::fs::read_dir(dir.join(sub)) else { continue };
        for e in rd.flatten() {
            let path = e.path();
            if path.extension().and_then(|x| x.to_str()) != Some("sgf") {
                continue;
            }
            let bytes = std::fs::read(&path).expect("readable record");
            let text = String::from_utf8_lossy(&bytes);
            let rec = read(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out.push((format!("{sub}/{}", path.file_name().unwrap().to_string_lossy()), rec));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The default corpus location: `../shared/games` next to the repository.
pub fn corpus_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games")
}
