//! Limits on what a request may carry, checked at the gRPC boundary before anything is
//! parsed or stored (the table in `deploy/README.md` lists them with the error a client gets).
//!
//! * Every request message is at most [`MAX_REQUEST_BYTES`] (the servers' gRPC maximum
//!   decoding message size; larger: `OUT_OF_RANGE` from the gRPC library, "decoded message
//!   length too large").
//! * Every string field is at most its limit in bytes of UTF-8 ([`MAX_NAME_BYTES`] for
//!   names, ranks, ids, keys, rule sets, tournament names; [`MAX_TEXT_BYTES`] for reasons,
//!   notes and comments; [`MAX_SGF_BYTES`] for SGF records) and holds no NUL character:
//!   otherwise `INVALID_ARGUMENT` with a `BadRequest` violation naming the field and the limit.
//! * Komi is a finite multiple of 0.5 within ±[`MAX_KOMI`] points (第十条 adds it to
//!   White's score).
//! * No error message echoes more than [`EXCERPT_CHARS`] characters of a client's input
//!   ([`excerpt`]); every violation's description is capped at [`MAX_DESCRIPTION_BYTES`].

// `AppError` carries rich details; errors are the cold path.
#![allow(clippy::result_large_err)]

pub use crate::error::{truncate, MAX_DESCRIPTION_BYTES};
use crate::error::{AppError, FieldViolation};

/// Largest request message a server decodes, in bytes (2 MiB: an SGF record of
/// [`MAX_SGF_BYTES`] with room for the other fields).
pub const MAX_REQUEST_BYTES: usize = 2 << 20;

/// Longest name-like string field in bytes of UTF-8: player names, ranks, federation ids,
/// tournament names, rule set names, idempotency keys, game and case ids.
pub const MAX_NAME_BYTES: usize = 200;

/// Longest free-text field in bytes of UTF-8: reasons, notes, comments, rulings.
pub const MAX_TEXT_BYTES: usize = 4096;

/// Longest SGF record in a request, in bytes (the SGF reader's own limit,
/// [`shinpan_sgf::MAX_RECORD_BYTES`]).
pub const MAX_SGF_BYTES: usize = shinpan_sgf::MAX_RECORD_BYTES;

/// Largest komi in points, either sign (no tournament gives more than a few dozen; a
/// negative komi is a reverse komi).
pub const MAX_KOMI: f64 = 100.0;

/// At most this many characters of a client's input appear in an error message.
pub const EXCERPT_CHARS: usize = 32;

/// A client's input as shown in an error message: at most [`EXCERPT_CHARS`] characters,
/// `…` and the total length in bytes appended when it was cut.
pub fn excerpt(s: &str) -> String {
    match s.char_indices().nth(EXCERPT_CHARS) {
        None => s.to_string(),
        Some((end, _)) => format!("{}… ({} bytes)", &s[..end], s.len()),
    }
}

/// The violation of one string field, if any: longer than `max` bytes, or holding a NUL
/// character (PostgreSQL's text cannot hold one).
pub fn text_violation(field: &str, value: &str, max: usize) -> Option<FieldViolation> {
    let description = if value.len() > max {
        format!("at most {max} bytes (this one has {})", value.len())
    } else if value.contains('\0') {
        "must not contain a NUL character (\\0)".to_string()
    } else {
        return None;
    };
    Some(FieldViolation { field: field.to_string(), description })
}

/// Checks string fields given as (field path, value, limit in bytes).
///
/// # Errors
/// `INVALID_ARGUMENT` with one violation per bad field (see [`text_violation`]).
pub fn check(fields: &[(&str, &str, usize)]) -> Result<(), AppError> {
    let v: Vec<FieldViolation> = fields.iter().filter_map(|&(f, s, max)| text_violation(f, s, max)).collect();
    if v.is_empty() {
        Ok(())
    } else {
        Err(AppError::InvalidArgument(v))
    }
}

/// Checks a komi in points: finite, within ±[`MAX_KOMI`], a multiple of 0.5.
///
/// # Errors
/// `INVALID_ARGUMENT` on `field`, naming the rule broken.
pub fn komi(field: &str, k: f64) -> Result<f64, AppError> {
    if !k.is_finite() {
        Err(AppError::field(field, "komi must be a finite number of points"))
    } else if k.abs() > MAX_KOMI {
        Err(AppError::field(field, format!("komi must be within -{MAX_KOMI}..={MAX_KOMI} points")))
    } else if (k * 2.0).fract() != 0.0 {
        Err(AppError::field(field, "komi must be a multiple of 0.5 points"))
    } else {
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_and_truncation_are_bounded() {
        assert_eq!(excerpt("dd"), "dd");
        let long = "あ".repeat(1000);
        let e = excerpt(&long);
        assert!(e.starts_with(&"あ".repeat(EXCERPT_CHARS)) && e.ends_with("(3000 bytes)"), "{e}");
        let t = truncate(&long, 100);
        assert!(t.len() <= 100 && t.ends_with('…'));
        assert_eq!(truncate("short", 100), "short");
    }

    #[test]
    fn text_and_komi_rules() {
        assert!(text_violation("black.name", "Shusaku", MAX_NAME_BYTES).is_none());
        let v = text_violation("black.name", &"x".repeat(201), MAX_NAME_BYTES).unwrap();
        assert_eq!(v.description, "at most 200 bytes (this one has 201)");
        assert!(text_violation("reason", "a\0b", MAX_TEXT_BYTES).unwrap().description.contains("NUL"));
        assert_eq!(komi("komi", 6.5).unwrap(), 6.5);
        assert_eq!(komi("komi", -7.0).unwrap(), -7.0);
        for (k, why) in [(f64::NAN, "finite"), (f64::INFINITY, "finite"), (1e6, "within"), (-1000.0, "within"), (6.3, "0.5")] {
            let e = komi("komi", k).unwrap_err().to_string();
            assert!(e.contains(why), "{k}: {e}");
        }
    }
}
