//! Text decoding and a grammar check in front of the `sgf-parse` crate.
//!
//! `sgf-parse` reports *that* text is malformed but not *where*, and it is strict about
//! whitespace between `(` and `;` that real FF\[3\] files contain. This scanner walks the SGF
//! grammar once (`Collection = GameTree+`, `GameTree = "(" Node+ GameTree* ")"`,
//! `Node = ";" Property*`, `Property = Ident Value+`, `Value = "[" text "]"`), reports the
//! first error with its line and column, and hands `sgf-parse` only the first game tree,
//! with the whitespace outside property values removed.

use crate::error::SgfError;

/// Decodes the bytes of a file: UTF-8 when valid (a byte-order mark is dropped), else
/// ISO-8859-1, which maps every byte to a character and is what old SGF files without
/// `CA[]` use.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

struct Cursor<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    line: usize,
    column: usize,
}

impl Cursor<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }
    fn bump(&mut self) -> Option<char> {
        let (_, c) = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(c) if c.is_whitespace()) {
            self.bump();
        }
    }
    fn error(&self, what: impl Into<String>) -> SgfError {
        SgfError::Syntax { line: self.line, column: self.column, what: what.into() }
    }
}

/// Checks the grammar of the first game tree of `text` and returns it in canonical form
/// (no whitespace outside values). Anything before the first `(` is skipped, as the SGF
/// specification allows; anything after the first game tree (further games of a
/// collection) is ignored.
///
/// # Errors
/// [`SgfError::NoGameTree`], [`SgfError::MissingRoot`] or [`SgfError::Syntax`] with the
/// 1-based line and column of the first offending character.
pub fn first_game_tree(text: &str) -> Result<String, SgfError> {
    let mut cur = Cursor { chars: text.char_indices().peekable(), line: 1, column: 1 };
    // Skip to the first "(" that is followed (after whitespace) by ";" — or the first "(" at all.
    loop {
        match cur.peek() {
            None => return Err(SgfError::NoGameTree),
            Some('(') => break,
            Some(_) => {
                cur.bump();
            }
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    // Whether the current game tree has had its first node (a "(" must be followed by ";").
    loop {
        cur.skip_ws();
        let (line, column) = (cur.line, cur.column);
        match cur.peek() {
            None => return Err(cur.error(format!("unexpected end of text: {depth} game tree(s) still open (missing `)`)"))),
            Some('(') => {
                cur.bump();
                out.push('(');
                depth += 1;
                cur.skip_ws();
                if cur.peek() != Some(';') {
                    if depth == 1 {
                        return Err(SgfError::MissingRoot { line, column });
                    }
                    return Err(cur.error("a variation `(` must start with a node `;`"));
                }
            }
            Some(')') => {
                cur.bump();
                out.push(')');
                depth -= 1;
                if depth == 0 {
                    return Ok(out);
                }
            }
            Some(';') => {
                cur.bump();
                out.push(';');
                // Properties of the node.
                loop {
                    cur.skip_ws();
                    match cur.peek() {
                        Some(c) if c.is_ascii_alphabetic() => {
                            while let Some(c) = cur.peek() {
                                if c.is_ascii_alphabetic() {
                                    out.push(c);
                                    cur.bump();
                                } else {
                                    break;
                                }
                            }
                            cur.skip_ws();
                            if cur.peek() != Some('[') {
                                return Err(cur.error("property identifier without a value `[...]`"));
                            }
                            while cur.peek() == Some('[') {
                                let (vl, vc) = (cur.line, cur.column);
                                cur.bump();
                                out.push('[');
                                let mut escaped = false;
                                loop {
                                    match cur.bump() {
                                        None => {
                                            return Err(SgfError::Syntax {
                                                line: vl,
                                                column: vc,
                                                what: "property value never closed by `]`".into(),
                                            })
                                        }
                                        Some(c) => {
                                            out.push(c);
                                            if escaped {
                                                escaped = false;
                                            } else if c == '\\' {
                                                escaped = true;
                                            } else if c == ']' {
                                                break;
                                            }
                                        }
                                    }
                                }
                                cur.skip_ws();
                            }
                        }
                        _ => break,
                    }
                }
            }
            Some(c) => return Err(cur.error(format!("unexpected `{c}` (expected `;` node, `(` variation, `)` or a property identifier)"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_drops_outer_whitespace_and_leading_junk() {
        let t = "junk\n( \n ;GM [1] SZ[9]\n ; B[aa]C[a b]\n (;W[bb])(;W[cc]) ) (;B[dd])";
        assert_eq!(first_game_tree(t).unwrap(), "(;GM[1]SZ[9];B[aa]C[a b](;W[bb])(;W[cc]))");
    }

    #[test]
    fn escaped_bracket_stays_inside_value() {
        assert_eq!(first_game_tree("(;C[a\\]b])").unwrap(), "(;C[a\\]b])");
    }

    #[test]
    fn errors_name_line_and_column() {
        assert_eq!(first_game_tree("no tree"), Err(SgfError::NoGameTree));
        assert_eq!(first_game_tree("\n ()"), Err(SgfError::MissingRoot { line: 2, column: 2 }));
        match first_game_tree("(;B[aa]\n;W") {
            Err(SgfError::Syntax { line: 2, column: 3, .. }) => {}
            other => panic!("{other:?}"),
        }
        match first_game_tree("(;C[abc") {
            Err(SgfError::Syntax { line: 1, column: 4, what }) => assert!(what.contains("never closed")),
            other => panic!("{other:?}"),
        }
        match first_game_tree("(;B[aa]") {
            Err(SgfError::Syntax { what, .. }) => assert!(what.contains("still open")),
            other => panic!("{other:?}"),
        }
        match first_game_tree("(;B[aa]%)") {
            Err(SgfError::Syntax { line: 1, column: 8, what }) => assert!(what.contains('%')),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn decodes_utf8_and_latin1() {
        assert_eq!(decode("\u{FEFF}(;C[é])".as_bytes()), "(;C[é])");
        assert_eq!(decode(b"(;C[\xe9])"), "(;C[é])");
    }
}
