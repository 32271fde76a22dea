//! Arbiter cases as the store keeps them: the names a ruling's kind and colours are stored
//! under in the ruling's JSON.

use crate::lifecycle::RulingKind;
use goban::Color;
use serde_json::{json, Value};

/// The name a ruling's kind is stored under (`decision` of the ruling JSON).
pub fn ruling_kind_name(k: RulingKind) -> &'static str {
    match k {
        RulingKind::NoResult => "no-result",
        RulingKind::FoulLoss => "foul-loss",
        RulingKind::BothLose => "both-lose",
        RulingKind::Resumption => "resumption",
        RulingKind::Uphold => "uphold",
        RulingKind::Amend => "amend",
        RulingKind::EndByCount => "end-by-count",
    }
}

/// A colour as the JSON of a ruling keeps it: `"B"`, `"W"` or `null`.
pub fn colour_letter(c: Option<Color>) -> Value {
    c.map_or(Value::Null, |c| json!(c.letter().to_string()))
}
