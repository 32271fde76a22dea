//! `shinpan replay`: exit codes 0 / 2 / 3 and the foul's move number, colour, point, rule
//! and article, on real records and on small records written for each rule.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn games_dir() -> PathBuf {
    match std::env::var_os("SHINPAN_GAMES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games"),
    }
}

fn shinpan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shinpan")).args(args).output().expect("run shinpan")
}

fn temp_sgf(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shinpan-cli-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Tests run in parallel: every call gets its own file.
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = dir.join(format!("{n}-{name}"));
    std::fs::write(&p, text).unwrap();
    p
}

fn all_records() -> Vec<String> {
    let mut v = Vec::new();
    for sub in std::fs::read_dir(games_dir()).expect("games directory").flatten() {
        if sub.path().is_dir() {
            for f in std::fs::read_dir(sub.path()).unwrap().flatten() {
                if f.path().extension().and_then(|x| x.to_str()) == Some("sgf") {
                    v.push(f.path().display().to_string());
                }
            }
        }
    }
    v.sort();
    v
}

#[test]
fn every_real_record_is_legal() {
    let files = all_records();
    assert!(files.len() > 100, "corpus found");
    let args: Vec<&str> = std::iter::once("replay").chain(files.iter().map(String::as_str)).collect();
    let out = shinpan(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.lines().filter(|l| l.contains(": ok, ")).count(), files.len(), "{stdout}");
}

#[test]
fn ko_recapture_is_a_foul_with_move_colour_point_rule_and_article() {
    // White bb is captured by Black cb; White retakes at once: 第五条.
    let f = temp_sgf("ko.sgf", "(;GM[1]FF[4]SZ[9]AB[ba][ab][bc]AW[ca][bb][db][cc]PL[B];B[cb];W[bb];B[ee])");
    let out = shinpan(&["replay", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let s = String::from_utf8_lossy(&out.stdout);
    for part in ["move 2", "white", " bb", "ko", "第五条"] {
        assert!(s.contains(part), "`{part}` in {s}");
    }
}

#[test]
fn suicide_occupied_and_out_of_turn_are_fouls() {
    let cases = [
        ("suicide.sgf", "(;SZ[9]AB[ba][ab];W[aa])", ["move 1", "white", "aa", "suicide", "第四条"]),
        ("occupied.sgf", "(;SZ[9];B[cc];W[dd];B[dd])", ["move 3", "black", "dd", "occupied", "第二条"]),
        ("turn.sgf", "(;SZ[9];B[cc];B[dd])", ["move 2", "black", "dd", "out-of-turn", "第二条"]),
    ];
    for (name, text, parts) in cases {
        let f = temp_sgf(name, text);
        let out = shinpan(&["replay", f.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3), "{name}");
        let s = String::from_utf8_lossy(&out.stdout);
        for part in parts {
            assert!(s.contains(part), "{name}: `{part}` in {s}");
        }
    }
}

#[test]
fn stone_after_the_end_is_a_foul_but_play_resumes_after_a_stop() {
    // Three passes stop play (第九条); a stone resumes it.
    let f = temp_sgf("resume.sgf", "(;SZ[9];B[cc];W[];B[];W[];B[dd];W[ee])");
    assert_eq!(shinpan(&["replay", f.to_str().unwrap()]).status.code(), Some(0));
    // Four passes end the game (第九条2): a stone after that is a foul.
    let f = temp_sgf("after.sgf", "(;SZ[9];B[cc];W[];B[];W[];B[];W[ee])");
    let out = shinpan(&["replay", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("move 6") && s.contains("after-end") && s.contains("第九条"), "{s}");
    // Under chinese, two passes only stop play: the same record is legal.
    let out = shinpan(&["replay", "--rules", "chinese", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn unreadable_input_exits_2_and_names_the_place() {
    let f = temp_sgf("broken.sgf", "(;GM[1]SZ[9]\n;B[aa]\n;W[bb\n");
    let out = shinpan(&["replay", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("line 3") && e.contains("never closed"), "{e}");

    let f = temp_sgf("offboard.sgf", "(;SZ[9];B[aa];W[jj])");
    let out = shinpan(&["replay", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("W[jj]") && e.contains("off the 9x9 board"), "{e}");

    let out = shinpan(&["replay", "/nonexistent/record.sgf"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn first_failing_file_sets_the_exit_code_and_every_file_is_reported() {
    let good = temp_sgf("good.sgf", "(;SZ[9];B[cc];W[dd])");
    let foul = temp_sgf("foul2.sgf", "(;SZ[9];B[cc];W[cc])");
    let bad = temp_sgf("bad2.sgf", "not sgf");
    let out = shinpan(&["replay", good.to_str().unwrap(), foul.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let out = shinpan(&["replay", "--json", good.to_str().unwrap(), bad.to_str().unwrap(), foul.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON array");
    let a = v.as_array().unwrap();
    assert_eq!(a.len(), 3);
    assert_eq!(a[0]["outcome"], "ok");
    assert_eq!(a[0]["moves"], 2);
    assert_eq!(a[0]["size"], serde_json::json!([9, 9]));
    assert_eq!(a[0]["rules"], "japanese-2011");
    assert_eq!(a[1]["outcome"], "unreadable");
    assert!(a[1]["error"].as_str().unwrap().contains("no SGF game tree"));
    assert_eq!(a[2]["outcome"], "foul");
    assert_eq!(a[2]["foul"]["move"], 2);
    assert_eq!(a[2]["foul"]["color"], "white");
    assert_eq!(a[2]["foul"]["point"], "cc");
    assert_eq!(a[2]["foul"]["rule"], "occupied");
    assert_eq!(a[2]["foul"]["article"], "第二条");
}

#[test]
fn rules_default_to_the_records_ru_and_reject_unknown_names() {
    let f = temp_sgf("ru.sgf", "(;SZ[9]RU[Chinese];B[cc];W[dd])");
    let out = shinpan(&["replay", "--json", f.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["rules"], "chinese");
    let out = shinpan(&["replay", "--json", "--rules", "japanese-1989", f.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["rules"], "japanese-1989");
    let out = shinpan(&["replay", "--rules", "klingon", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "clap usage error");
}

/// A Shift_JIS record (`CA[Shift_JIS]`) replays as recorded: read byte by byte as
/// ISO-8859-1, the 0x5C second byte of 十 escaped the `]` after it, the rest of the record
/// shifted and the replay reported a foul that was never played.
#[test]
fn a_shift_jis_record_replays_as_recorded() {
    let dir = std::env::temp_dir().join(format!("shinpan-cli-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("shift-jis.sgf");
    std::fs::write(&p, b"(;GM[1]FF[4]CA[Shift_JIS]SZ[9]GN[\x91\xe6\x8f\x5c]PB[\x8d\xe2\x93c\x89h\x92j]PW[\x93\xa1\x91\xf2\x8fG\x8ds]C[\x95\x5c];B[ee];W[cc];B[gg])").unwrap();
    let out = shinpan(&["replay", p.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("3 moves legal"), "{stdout}");
}

#[test]
fn a_server_record_with_pl_and_setup_in_move_nodes_replays() {
    // As servers wrote them: PL in every move node, and one AB inside a move node.
    let f = temp_sgf(
        "pl.sgf",
        "(;GM[1]FF[3]SZ[9]KM[5.5]RU[Japanese]RE[W+0.5]\n;B[dd]PL[W];W[ff]PL[B];B[dc]PL[W];W[fe]AB[gg]PL[B];B[]PL[W];W[]PL[B])",
    );
    let out = shinpan(&["replay", f.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(": ok, 6 moves legal"), "{stdout}");
    assert!(stdout.contains("warning: setup after move 3") && stdout.contains("AB[gg]"), "{stdout}");
    let json = shinpan(&["replay", "--json", f.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v[0]["outcome"], "ok");
    assert_eq!(v[0]["warnings"].as_array().map(Vec::len), Some(1), "{v}");
}
