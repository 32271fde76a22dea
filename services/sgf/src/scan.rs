//! Text decoding and a grammar check in front of the `sgf-parse` crate.
//!
//! `sgf-parse` reports *that* text is malformed but not *where*, and it is strict about
//! whitespace between `(` and `;` that real FF\[3\] files contain. This scanner walks the SGF
//! grammar once (`Collection = GameTree+`, `GameTree = "(" Node+ GameTree* ")"`,
//! `Node = ";" Property*`, `Property = Ident Value+`, `Value = "[" text "]"`), reports the
//! first error with its line and column, and hands `sgf-parse` only the first game tree,
//! with the whitespace outside property values removed.

use crate::error::SgfError;

/// Decodes the bytes of a file into text (SGF FF\[4\] `CA`, "charset"; library
/// `encoding_rs`, the WHATWG encodings):
/// 1. valid UTF-8 is UTF-8 (a byte-order mark is dropped), whatever `CA` says — files
///    re-saved as UTF-8 often keep an old `CA[Shift_JIS]`, and Shift_JIS or EUC-JP text
///    with any kanji or kana is never valid UTF-8;
/// 2. otherwise the charset named by the first `CA[...]` (e.g. `Shift_JIS`, `EUC-JP`,
///    `GB2312`, `EUC-KR`, `Big5`, `ISO-8859-1`), when it is one `encoding_rs` knows; a
///    byte it cannot map becomes U+FFFD;
/// 3. otherwise ISO-8859-1, the SGF default charset, which maps every byte to a character.
///
/// Decoding comes before the grammar is read, so a Shift_JIS double-byte character whose
/// second byte is `0x5C` (`\`: 十, 表, ソ, 能 …) is one character and never escapes the
/// `]` after it.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.to_string();
    }
    if let Some(enc) = charset(bytes).and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes())) {
        if enc != encoding_rs::UTF_8 {
            return enc.decode_without_bom_handling(bytes).0.into_owned();
        }
    }
    bytes.iter().map(|&b| b as char).collect()
}

/// The value of the first `CA[...]` property in raw bytes (an ASCII label such as
/// `Shift_JIS`), trimmed; `None` when there is none.
pub fn charset(bytes: &[u8]) -> Option<String> {
    let mut from = 0;
    while let Some(k) = bytes[from..].windows(3).position(|w| w == b"CA[") {
        let at = from + k;
        // A property identifier is upper-case letters: `CA` must not be the tail of one
        // (e.g. a hypothetical `XCA`).
        if at == 0 || !bytes[at - 1].is_ascii_uppercase() {
            let value = &bytes[at + 3..];
            let end = value.iter().position(|&b| b == b']')?;
            let label = std::str::from_utf8(&value[..end]).ok()?.trim();
            return (!label.is_empty()).then(|| label.to_string());
        }
        from = at + 3;
    }
    None
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
/// 1-based line and column of the first offending character; [`SgfError::TooLarge`] for a
/// text over [`crate::MAX_RECORD_BYTES`] bytes (before anything is read), a tree with more
/// than [`crate::MAX_NODES`] nodes or game trees nested deeper than [`crate::MAX_DEPTH`].
pub fn first_game_tree(text: &str) -> Result<String, SgfError> {
    if text.len() > crate::MAX_RECORD_BYTES {
        return Err(SgfError::TooLarge { what: "bytes", limit: crate::MAX_RECORD_BYTES });
    }
    let mut nodes = 0usize;
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
                if depth > crate::MAX_DEPTH {
                    return Err(SgfError::TooLarge { what: "nesting depth of game trees", limit: crate::MAX_DEPTH });
                }
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
                nodes += 1;
                if nodes > crate::MAX_NODES {
                    return Err(SgfError::TooLarge { what: "nodes", limit: crate::MAX_NODES });
                }
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
        // An unknown charset label falls back to ISO-8859-1 too.
        assert_eq!(decode(b"(;CA[klingon]C[\xe9])"), "(;CA[klingon]C[é])");
    }

    /// 十 is 0x8F 0x5C in Shift_JIS: read as ISO-8859-1 its second byte is `\`, which would
    /// escape the `]` after it and swallow the rest of the record.
    #[test]
    fn decodes_the_charset_named_by_ca() {
        let sjis = b"(;CA[Shift_JIS]GN[\x91\xe6\x8f\x5c]PB[\x8d\xe2\x93\x63])";
        assert_eq!(charset(sjis).as_deref(), Some("Shift_JIS"));
        assert_eq!(decode(sjis), "(;CA[Shift_JIS]GN[第十]PB[坂田])");
        let (text, _, errors) = encoding_rs::EUC_JP.encode("(;CA[EUC-JP]PW[藤沢秀行])");
        assert!(!errors);
        assert_eq!(decode(&text), "(;CA[EUC-JP]PW[藤沢秀行])");
        // Valid UTF-8 stays UTF-8 even under a stale label.
        assert_eq!(decode("(;CA[Shift_JIS]PB[坂田栄男])".as_bytes()), "(;CA[Shift_JIS]PB[坂田栄男])");
        // `CA` inside another identifier is not the charset.
        assert_eq!(charset(b"(;XCA[x]C[y])"), None);
        assert_eq!(charset(b"(;C[y])"), None);
    }
}
