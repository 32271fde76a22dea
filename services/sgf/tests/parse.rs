//! Reading SGF records: properties, FF[3] forms, errors naming what and where, and a
//! property test that no input makes the reader panic.

use goban::{Color, Move, Point};
use proptest::prelude::*;
use shinpan_sgf::{Location, Record, SgfError};

fn pt(s: &str) -> Point {
    Point::from_sgf(s).unwrap()
}

#[test]
fn reads_game_info_setup_and_moves() {
    let r = Record::parse(
        "(;GM[1]FF[4]SZ[13]KM[6.5]HA[2]RU[Japanese]RE[W+3.5]DT[2024-01-02]EV[Meijin]RO[3]\
         PB[Kuro]BR[5d]PW[Shiro]WR[6d]C[root comment]AB[dd][jj]PL[W]\
         ;W[kc]C[first];B[]C[pass](;W[cc];B[dc]C[x\\]y])(;W[aa]))",
    )
    .unwrap();
    assert_eq!((r.width, r.height), (13, 13));
    assert_eq!(r.info.komi, Some(6.5));
    assert_eq!(r.info.handicap, 2);
    assert_eq!(r.info.rules.as_deref(), Some("Japanese"));
    assert_eq!(r.info.result.as_deref(), Some("W+3.5"));
    assert_eq!(r.info.date.as_deref(), Some("2024-01-02"));
    assert_eq!(r.info.event.as_deref(), Some("Meijin"));
    assert_eq!(r.info.round.as_deref(), Some("3"));
    assert_eq!(r.info.black_name.as_deref(), Some("Kuro"));
    assert_eq!(r.info.black_rank.as_deref(), Some("5d"));
    assert_eq!(r.info.white_name.as_deref(), Some("Shiro"));
    assert_eq!(r.info.white_rank.as_deref(), Some("6d"));
    assert_eq!(r.comment.as_deref(), Some("root comment"));
    assert_eq!(r.setup.black, vec![pt("dd"), pt("jj")]);
    assert_eq!(r.to_play, Some(Color::White));
    let moves: Vec<(Color, Move)> = r.moves.iter().map(|m| (m.color, m.mv)).collect();
    assert_eq!(
        moves,
        vec![
            (Color::White, Move::Play(pt("kc"))),
            (Color::Black, Move::Pass),
            (Color::White, Move::Play(pt("cc"))),
            (Color::Black, Move::Play(pt("dc"))),
        ],
        "main line = first variation"
    );
    assert_eq!(r.moves[0].comment.as_deref(), Some("first"));
    assert_eq!(r.moves[3].comment.as_deref(), Some("x]y"), "escaped ] inside a comment");
}

#[test]
fn ff3_passes_compressed_lists_rectangles_and_marks() {
    let r = Record::parse("(;GM[1]FF[3]SZ[19]HA[0]AB[aa:bc]AW[ss];B[tt];W[tt];TB[cc:dd]TW[pp];TW[qq][rr]C[end])").unwrap();
    assert_eq!(r.info.handicap, 0, "HA[0] means no handicap stones");
    assert_eq!(r.setup.black, vec![pt("aa"), pt("ab"), pt("ac"), pt("ba"), pt("bb"), pt("bc")]);
    assert_eq!(r.setup.white, vec![pt("ss")]);
    assert_eq!(r.moves.len(), 2);
    assert!(r.moves.iter().all(|m| m.mv == Move::Pass), "tt is a pass on 19x19");
    let t = r.territory.as_ref().unwrap();
    assert!(t.black.is_empty(), "marks are those of the last node that has any");
    assert_eq!(t.white, vec![pt("qq"), pt("rr")]);
    assert_eq!(r.moves[1].comment.as_deref(), Some("end"), "move-less node comment joins the last move");

    let r = Record::parse("(;SZ[21:7];B[tg];W[ua])").unwrap();
    assert_eq!((r.width, r.height), (21, 7));
    assert_eq!(r.moves[0].mv, Move::Play(Point::new(19, 6)), "tt-like points are moves on wide boards");

    let r = Record::parse("(;SZ[25];B[tt])").unwrap();
    assert_eq!(r.moves[0].mv, Move::Play(Point::new(19, 19)), "tt is a point on boards above 19");

    // FF[3] mixed-case identifiers and whitespace between tokens.
    let r = Record::parse("(\n ;\n GaMe[1] SiZe[9]\n ;\n Black [ee] ; White[  ])").unwrap();
    assert_eq!(r.width, 9);
    assert_eq!(r.moves[0].mv, Move::Play(pt("ee")));
    assert_eq!(r.moves[1].mv, Move::Pass, "W[  ] is a pass");
}

#[test]
fn default_size_is_19_and_setup_before_first_move_is_merged() {
    let r = Record::parse("(;GM[1];AB[dd]PL[B];AW[pp]AE[dd];B[qq])").unwrap();
    assert_eq!((r.width, r.height), (19, 19));
    assert!(r.setup.black.is_empty(), "AE removed the stone");
    assert_eq!(r.setup.white, vec![pt("pp")]);
    assert_eq!(r.setup.empty, vec![pt("dd")]);
    assert_eq!(r.to_play, Some(Color::Black));
}

#[test]
fn latin1_files_are_read() {
    let mut bytes = b"(;GM[1]SZ[9]PB[Ren\xe9];B[aa])".to_vec();
    let r = Record::parse_bytes(&bytes).unwrap();
    assert_eq!(r.info.black_name.as_deref(), Some("René"));
    bytes.clear();
}

/// A Shift_JIS record (`CA[Shift_JIS]`), as Japanese software writes them: 十 and 表 end
/// in the byte 0x5C (`\\`), which must not escape the `]` after them.
#[test]
fn shift_jis_files_are_read_by_their_charset() {
    let bytes = b"(;GM[1]FF[4]CA[Shift_JIS]SZ[9]GN[\x91\xe6\x8f\x5c]PB[\x8d\xe2\x93c\x89h\x92j]PW[\x93\xa1\x91\xf2\x8fG\x8ds]C[\x95\x5c];B[ee];W[cc];B[gg])";
    let r = Record::parse_bytes(bytes).unwrap();
    assert_eq!(r.info.game_name.as_deref(), Some("第十"));
    assert_eq!(r.info.black_name.as_deref(), Some("坂田栄男"));
    assert_eq!(r.info.white_name.as_deref(), Some("藤沢秀行"));
    assert_eq!(r.comment.as_deref(), Some("表"));
    let moves: Vec<String> = r.moves.iter().map(|m| format!("{:?} {}", m.color, m.mv)).collect();
    assert_eq!(moves, ["Black ee", "White cc", "Black gg"]);
}

#[test]
fn malformed_input_names_what_and_where() {
    assert_eq!(Record::parse(""), Err(SgfError::NoGameTree));
    assert_eq!(Record::parse("hello"), Err(SgfError::NoGameTree));
    assert_eq!(Record::parse("()"), Err(SgfError::MissingRoot { line: 1, column: 1 }));
    assert!(matches!(Record::parse("(;B[aa]"), Err(SgfError::Syntax { .. })));
    assert!(matches!(Record::parse("(;SZ[19]\n;B[aa]W)"), Err(SgfError::Syntax { line: 2, .. })));
    assert_eq!(Record::parse("(;SZ[26])"), Err(SgfError::BadSize { value: "26".into() }));
    assert_eq!(Record::parse("(;SZ[1])"), Err(SgfError::BadSize { value: "1".into() }));
    assert_eq!(Record::parse("(;SZ[300])"), Err(SgfError::BadSize { value: "300".into() }));
    assert_eq!(Record::parse("(;SZ[9:30])"), Err(SgfError::BadSize { value: "9:30".into() }));
    assert!(matches!(Record::parse("(;GM[2];B[aa])"), Err(SgfError::NotGo(g)) if g == "2"));
    assert_eq!(
        Record::parse("(;SZ[9];B[aa];W[jj])"),
        Err(SgfError::OffBoard { at: Location { node: 2, moves: 1 }, prop: "W".into(), point: "jj".into(), width: 9, height: 9 })
    );
    assert!(matches!(Record::parse("(;SZ[9]AB[aa:kk])"), Err(SgfError::OffBoard { prop, .. }) if prop == "AB"));
    assert!(matches!(Record::parse("(;SZ[9];B[tt])"), Ok(r) if r.moves[0].mv == Move::Pass));
    assert!(matches!(Record::parse("(;SZ[9];B[Aa])"), Err(SgfError::OffBoard { point, .. }) if point == "Aa"));
    assert!(matches!(Record::parse("(;B[abc])"), Err(SgfError::BadProperty { prop, .. }) if prop == "B"));
    assert!(matches!(Record::parse("(;KM[six])"), Err(SgfError::BadProperty { prop, .. }) if prop == "KM"));
    assert!(matches!(Record::parse("(;HA[x])"), Err(SgfError::BadProperty { prop, .. }) if prop == "HA"));
    assert!(matches!(Record::parse("(;PL[X])"), Err(SgfError::BadProperty { prop, .. }) if prop == "PL"));
    assert!(matches!(Record::parse("(;AB[cc:aa])"), Err(SgfError::BadProperty { prop, .. }) if prop == "AB"));
    assert!(matches!(Record::parse("(;;B[aa]W[bb])"), Err(SgfError::Unsupported { at, .. }) if at.node == 1));
    // Errors render as readable text naming the place.
    let e = Record::parse("(;SZ[9];B[aa];W[jj])").unwrap_err().to_string();
    assert!(e.contains("W[jj]") && e.contains("node 2") && e.contains("9x9"), "{e}");
}

#[test]
fn komi_written_loosely_is_read() {
    assert_eq!(Record::parse("(;KM[6,5])").unwrap().info.komi, Some(6.5));
    assert_eq!(Record::parse("(;KM[])").unwrap().info.komi, None);
    assert_eq!(Record::parse("(;KM[0.50])").unwrap().info.komi, Some(0.5));
}

#[test]
fn every_real_record_is_readable() {
    let dir = std::env::var("SHINPAN_GAMES").unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/games").to_string());
    let mut n = 0;
    for sub in ["9", "13", "19"] {
        let Ok(entries) = std::fs::read_dir(format!("{dir}/{sub}")) else { continue };
        for e in entries {
            let path = e.unwrap().path();
            if path.extension().and_then(|x| x.to_str()) != Some("sgf") {
                continue;
            }
            let r = Record::read_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!r.moves.is_empty(), "{} has moves", path.display());
            n += 1;
        }
    }
    assert!(n > 100, "expected the corpus under {dir}, found {n} records");
}

fn sgfish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "(", ")", ";", "[", "]", "\\", ":", " ", "\n", "B", "W", "AB", "AW", "AE", "SZ", "KM", "HA", "PL", "TB", "TW", "C", "GM", "FF",
        "RE", "aa", "tt", "zz", "Aa", "19", "1", "0", "-3", "300", "6.5", "é", "[aa:cc]", "[ss]", "[]", "(;", ";B[", "SZ[9:3]",
    ]);
    prop::collection::vec(atoms, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = Record::parse_bytes(&bytes);
        let mut framed = b"(;".to_vec();
        framed.extend_from_slice(&bytes);
        framed.push(b')');
        let _ = Record::parse_bytes(&framed);
    }

    #[test]
    fn sgf_like_text_never_panics(text in sgfish()) {
        if let Ok(r) = Record::parse(&text) {
            // Whatever was read is on the board.
            for m in &r.moves {
                if let Move::Play(p) = m.mv {
                    prop_assert!(p.x < r.width && p.y < r.height);
                }
            }
        }
        let _ = Record::parse(&format!("(;{text})"));
    }
}

#[test]
fn very_long_records_do_not_overflow_the_stack() {
    // Test threads have small stacks; the longest record the reader accepts (MAX_NODES
    // nested nodes) must still be fine.
    let pairs = (shinpan_sgf::MAX_NODES - 1) / 2;
    let text = format!("(;SZ[19]{})", ";B[];W[]".repeat(pairs));
    let r = Record::parse(&text).unwrap();
    assert_eq!(r.moves.len(), 2 * pairs);
    let text = format!("(;GM[2]{})", ";B[aa]".repeat(shinpan_sgf::MAX_NODES - 1));
    assert!(matches!(Record::parse(&text), Err(SgfError::NotGo(_))));
}

/// A record as servers wrote them: `PL` in move nodes (ignored: each move names its player),
/// setup in a move node and in a move-less node between moves (applied before the move that
/// follows, with a warning where it changes a stone).
#[test]
fn setup_properties_in_move_nodes_are_read() {
    let text = "(;GM[1]FF[3]SZ[9]KM[5.5]RU[Japanese]PB[alpha]PW[beta]\n\
                ;B[dd]PL[W];W[ff]PL[B]\n\
                ;B[dc]AB[gg]\n\
                ;AW[aa]AE[dd]\n\
                ;W[ee];B[]PL[W];W[])";
    let r = Record::parse(text).unwrap();
    assert_eq!(r.moves.len(), 6);
    assert_eq!(r.to_play, None, "PL after the first move is ignored");
    assert_eq!(r.moves[0].color, Color::Black);
    assert_eq!(r.moves[1].color, Color::White);
    assert_eq!(r.later_setup.len(), 2);
    assert_eq!(r.later_setup[0].before_move, 2, "setup in move 3's node comes before move 3");
    assert_eq!(r.later_setup[0].setup.black, [pt("gg")]);
    assert_eq!(r.later_setup[1].before_move, 3);
    assert_eq!(r.later_setup[1].setup.white, [pt("aa")]);
    assert_eq!(r.later_setup[1].setup.empty, [pt("dd")]);
    let replayed = r.to_game(goban::RuleSet::Japanese2011).unwrap();
    assert!(replayed.foul.is_none(), "{:?}", replayed.foul);
    let b = replayed.game.board();
    assert_eq!(b.get(pt("gg")), Some(Color::Black));
    assert_eq!(b.get(pt("aa")), Some(Color::White));
    assert_eq!(b.get(pt("dd")), None, "AE cleared Black's first stone");
    assert_eq!(b.get(pt("dc")), Some(Color::Black));
    assert_eq!(replayed.game.move_number(), 6);
    assert_eq!(replayed.warnings.len(), 2, "{:?}", replayed.warnings);
    assert!(replayed.warnings[0].contains("after move 2") && replayed.warnings[0].contains("AB[gg]"), "{:?}", replayed.warnings);
    assert!(replayed.warnings[1].contains("AW[aa]") && replayed.warnings[1].contains("AE[dd]"), "{:?}", replayed.warnings);
    // Written back, it reads the same.
    assert_eq!(Record::parse(&r.to_sgf()).unwrap(), r);
    // Setup that changes nothing is no warning.
    let quiet = Record::parse("(;SZ[9];B[dd];W[ee]AB[dd])").unwrap().to_game(goban::RuleSet::Japanese2011).unwrap();
    assert!(quiet.warnings.is_empty(), "{:?}", quiet.warnings);
}

#[test]
fn records_over_the_limits_are_refused_before_parsing() {
    // Over the byte limit: refused whatever the text.
    let big = format!("(;GM[1]SZ[19]C[{}])", "x".repeat(shinpan_sgf::MAX_RECORD_BYTES));
    let e = Record::parse(&big).unwrap_err();
    assert_eq!(e, SgfError::TooLarge { what: "bytes", limit: shinpan_sgf::MAX_RECORD_BYTES });
    assert!(e.to_string().contains("1048576"), "{e}");
    assert!(matches!(Record::parse_bytes(big.as_bytes()), Err(SgfError::TooLarge { what: "bytes", .. })));
    // Nested variations deeper than the limit, well within the byte limit.
    let deep = format!("(;GM[1]{}", "(;".repeat(shinpan_sgf::MAX_DEPTH + 1));
    let e = Record::parse(&deep).unwrap_err();
    assert_eq!(e, SgfError::TooLarge { what: "nesting depth of game trees", limit: shinpan_sgf::MAX_DEPTH });
    // More nodes than the limit.
    let long = format!("(;GM[1]{})", ";".repeat(shinpan_sgf::MAX_NODES));
    let e = Record::parse(&long).unwrap_err();
    assert_eq!(e, SgfError::TooLarge { what: "nodes", limit: shinpan_sgf::MAX_NODES });
    // At the limits: read.
    let ok = format!("(;GM[1]{})", ";".repeat(shinpan_sgf::MAX_NODES - 1));
    assert!(Record::parse(&ok).is_ok());
}

#[test]
fn one_point_in_two_setup_properties_of_a_node_is_refused() {
    let e = Record::parse("(;GM[1]SZ[9]AB[ee]AW[ee])").unwrap_err();
    assert!(matches!(e, SgfError::Unsupported { .. }), "{e:?}");
    assert!(e.to_string().contains("AB[ee] and AW[ee]"), "{e}");
    assert!(Record::parse("(;GM[1]SZ[9]AB[ee:ff]AE[ff])").is_err());
    // The same point in two nodes: the later node sets it up again (SGF), no conflict.
    let r = Record::parse("(;GM[1]SZ[9]AB[ee];AW[ee];B[aa])").unwrap();
    assert_eq!(r.setup.white, vec![pt("ee")]);
    assert!(r.setup.black.is_empty());
}
