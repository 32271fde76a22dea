//! Writing a [`Record`] back out as SGF FF\[4\].

use crate::record::Record;
use goban::{Move, Point};
use std::fmt::Write as _;

/// Escapes a property value: `\` and `]` get a backslash (SGF FF\[4\] §3.2).
fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\\' || c == ']' {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

fn points(out: &mut String, id: &str, pts: &[Point]) {
    if pts.is_empty() {
        return;
    }
    out.push_str(id);
    for p in pts {
        let _ = write!(out, "[{}]", p.to_sgf());
    }
}

fn text(out: &mut String, id: &str, value: &Option<String>) {
    if let Some(v) = value {
        let _ = write!(out, "{id}[{}]", escape(v));
    }
}

impl Record {
    /// Sets `RE` from a result, in SGF syntax (`B+3.5`, `W+R`, `0`, `Void`, `B+F`, `?`),
    /// via `goban::GameResult::to_sgf`.
    pub fn set_result(&mut self, result: &goban::GameResult) {
        self.info.result = Some(result.to_sgf());
    }

    /// The record as SGF FF\[4\] text, `CA[UTF-8]`: root with game information and setup,
    /// one node per move (passes as `B[]`/`W[]`; setup after the first move in a move-less
    /// node of its own before the move it precedes), then, if the record has territory
    /// marks, a final node with `TB`/`TW`. Reading the text back with [`Record::parse`]
    /// gives an equal record.
    pub fn to_sgf(&self) -> String {
        let mut out = String::with_capacity(64 + self.moves.len() * 8);
        out.push_str("(;GM[1]FF[4]CA[UTF-8]AP[shinpan]");
        if self.width == self.height {
            let _ = write!(out, "SZ[{}]", self.width);
        } else {
            let _ = write!(out, "SZ[{}:{}]", self.width, self.height);
        }
        let i = &self.info;
        if let Some(k) = i.komi {
            let _ = write!(out, "KM[{k}]");
        }
        if i.handicap > 0 {
            let _ = write!(out, "HA[{}]", i.handicap);
        }
        text(&mut out, "RU", &i.rules);
        text(&mut out, "RE", &i.result);
        text(&mut out, "DT", &i.date);
        text(&mut out, "EV", &i.event);
        text(&mut out, "RO", &i.round);
        text(&mut out, "GN", &i.game_name);
        text(&mut out, "PC", &i.place);
        text(&mut out, "PB", &i.black_name);
        text(&mut out, "BR", &i.black_rank);
        text(&mut out, "PW", &i.white_name);
        text(&mut out, "WR", &i.white_rank);
        text(&mut out, "C", &self.comment);
        points(&mut out, "AB", &self.setup.black);
        points(&mut out, "AW", &self.setup.white);
        points(&mut out, "AE", &self.setup.empty);
        if let Some(c) = self.to_play {
            let _ = write!(out, "PL[{}]", c.letter());
        }
        let later = |out: &mut String, i: usize| {
            for l in self.later_setup.iter().filter(|l| l.before_move == i) {
                out.push_str("\n;");
                points(out, "AB", &l.setup.black);
                points(out, "AW", &l.setup.white);
                points(out, "AE", &l.setup.empty);
            }
        };
        for (i, m) in self.moves.iter().enumerate() {
            later(&mut out, i);
            let _ = write!(out, "\n;{}[", m.color.letter());
            if let Move::Play(p) = m.mv {
                out.push_str(&p.to_sgf());
            }
            out.push(']');
            text(&mut out, "C", &m.comment);
        }
        later(&mut out, self.moves.len());
        if let Some(t) = &self.territory {
            out.push_str("\n;");
            points(&mut out, "TB", &t.black);
            points(&mut out, "TW", &t.white);
        }
        out.push_str(")\n");
        out
    }
}
