//! `shinpan adjudicate`: the JSON object (`shinpan score --json` keys plus `proofs`), the
//! kakunin positions through the command line (setup stones only, no ko pending), the
//! agreement-first mode (第九条) and the exit codes (3 on a foul, 4 when undecided).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kakunin_dir() -> PathBuf {
    match std::env::var_os("SHINPAN_KAKUNIN") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kakunin"),
    }
}

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
    let dir = std::env::temp_dir().join(format!("shinpan-cli-adjudicate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = dir.join(format!("{n}-{name}"));
    std::fs::write(&p, text).unwrap();
    p
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

#[test]
fn kakunin_9_both_sides_alive_with_proofs() {
    let f = kakunin_dir().join("kakunin-9.sgf");
    let out = shinpan(&["adjudicate", "--json", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["dame", "komi", "moves", "prisoners", "proofs", "result", "rules", "score", "size", "status", "territory"]);
    let alive = strs(&v["status"]["alive"]);
    for p in ["aa", "ba", "bb", "da"] {
        assert!(alive.contains(&p.to_string()), "{p} alive");
    }
    let proofs = v["proofs"].as_array().unwrap();
    let white = proofs.iter().find(|p| strs(&p["stones"]) == ["ba"]).expect("proof for ba");
    assert_eq!(white["status"], "alive");
    assert_eq!(strs(&white["line"]).first().map(String::as_str), Some("W ab"), "white takes the ko first");
    assert!(white["nodes"].as_u64().unwrap() > 0);
    // Both alive, so ab/ca touch both colours' living stones: nobody's territory.
    assert!(!strs(&v["territory"]["black"]).contains(&"ca".to_string()));
}

#[test]
fn kakunin_1_dead_stones_outside_territory_stay() {
    let f = kakunin_dir().join("kakunin-1.sgf");
    let out = shinpan(&["adjudicate", "--json", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let dead = strs(&v["status"]["dead"]);
    assert_eq!(dead, ["ab", "ba", "bb", "ca", "cb"]);
    // 取らず三目: aa is bordered by dead stones of both colours only: nobody's territory.
    assert!(!strs(&v["territory"]["black"]).contains(&"aa".to_string()));
    assert!(!strs(&v["territory"]["white"]).contains(&"aa".to_string()));
}

#[test]
fn agreement_stands_unless_disputed_and_refutations_are_reported() {
    let f = kakunin_dir().join("kakunin-9.sgf");
    // The players agree White's ba is dead: it stands (第九条) and is not searched again.
    let out = shinpan(&["adjudicate", "--json", "--agreed-dead", "ba", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(strs(&v["status"]["dead"]).contains(&"ba".to_string()));
    assert!(v["proofs"].as_array().unwrap().iter().all(|p| p["status"] != "undecided"));
    // Disputed: hypothetical play (第七条) decides, and the agreement is reported refuted
    // with its line.
    let out = shinpan(&["adjudicate", "--json", "--agreed-dead", "ba", "--dispute", "ba", f.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(strs(&v["status"]["alive"]).contains(&"ba".to_string()));
    let refuted = v["refuted"].as_array().expect("refuted list");
    assert!(refuted.iter().any(|r| strs(&r["stones"]) == ["ba"] && r["found"] == "alive"));
}

#[test]
fn a_wall_kept_by_two_links_is_named_with_its_links() {
    // Black's bb, disputed in White's corner, races White's cb; cb's liberties db and cc lie
    // outside the corner, each next to White's other stones only: cb stays a wall (第七条),
    // and the answer names it with its two links, in JSON and in text.
    let f = temp_sgf("kept.sgf", "(;GM[1]FF[4]SZ[5]AB[bb]AW[da][cb][eb][ac][bc][dc][cd])");
    let out = shinpan(&["adjudicate", "--json", "--agreed-dead", "bb", "--dispute", "bb", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(strs(&v["status"]["dead"]).contains(&"bb".to_string()));
    let kept = v["kept_by_links"].as_array().expect("kept_by_links");
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(
        (strs(&kept[0]["stones"]), kept[0]["by"].as_str(), kept[0]["color"].as_str()),
        (vec!["cb".to_string()], Some("bb"), Some("white"))
    );
    assert_eq!(strs(&kept[0]["links"]), ["cc", "db"]);
    assert!(v.get("drawn_in").is_none(), "not drawn in: {v}");
    let out = shinpan(&["adjudicate", "--agreed-dead", "bb", "--dispute", "bb", f.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("kept a wall in the dispute of bb: white cb"), "{text}");
    assert!(text.contains("a move on cc or db is answered on the other"), "{text}");
}

/// A wall kept by two links gives the disputed side one ko threat (第七条): in this real final
/// position (KGS, 2019), Black's chain at cp, agreed dead with the players' other marks and
/// disputed, races White's cq–fq, kept by its links fr and gq. White kills it: each White
/// pass in the search takes the threat away first, and the proof line shows that pass as
/// White's move on a link. The proof takes about 500,000 nodes, so the dispute is given
/// 1,000,000.
#[test]
fn a_kept_walls_threat_is_taken_away_by_a_move_on_its_link() {
    let marks = "ao,aq,bp,bq,br,cr,dp,en,eo,ep,fo,fp,gb,go,ha,ho,lk,nc,nd,nm,qc,qg,rb,rc,rd,re,rf,rg";
    let (v, black) = real_record_with("19/kgs2019__2019-04-20-41.sgf", &["--agreed-dead", marks, "--dispute", "cp"], "1000000", 0, "cp");
    assert_eq!(black["status"], "dead", "{black}");
    let kept = v["kept_by_links"].as_array().expect("kept_by_links");
    assert_eq!(kept.len(), 1, "{kept:?}");
    let links = strs(&kept[0]["links"]);
    assert_eq!(links, ["fr", "gq"]);
    let line = strs(&black["line"]);
    let on_link = line.iter().filter(|m| links.iter().any(|l| **m == format!("W {l}"))).count();
    assert_eq!(on_link, 1, "one White move on a link, and only one: {line:?}");
    assert!(!line.iter().any(|m| links.iter().any(|l| **m == format!("B {l}"))), "{line:?}");
}

#[test]
fn foul_exits_3_and_undecided_exits_4() {
    let foul = temp_sgf("foul.sgf", "(;GM[1]FF[4]SZ[9];B[cc];W[cc])");
    assert_eq!(shinpan(&["adjudicate", foul.to_str().unwrap()]).status.code(), Some(3));
    // An open 9x9 board with two stones cannot be settled in 50 nodes.
    let open = temp_sgf("open.sgf", "(;GM[1]FF[4]SZ[9];B[cc];W[gg])");
    let out = shinpan(&["adjudicate", "--json", "--budget", "50", open.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"], "?");
    assert_eq!(strs(&v["status"]["undecided"]), ["cc", "gg"]);
    // Each undecided chain says why: the open board is one region of 79 empty points,
    // larger than any searched (a larger budget would not help).
    let proofs = v["proofs"].as_array().unwrap();
    assert_eq!(proofs.len(), 2);
    for p in proofs {
        assert_eq!(p["status"], "undecided");
        assert!(p["reason"].as_str().unwrap().starts_with("region of 79 empty points"), "{p}");
    }
    // A corner that is searched but not settled within the budget: the reason is the budget.
    let k = kakunin_dir().join("kakunin-1.sgf");
    let out = shinpan(&["adjudicate", "--json", "--budget", "1", k.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let undecided: Vec<&Value> = v["proofs"].as_array().unwrap().iter().filter(|p| p["status"] == "undecided").collect();
    assert!(!undecided.is_empty());
    for p in undecided {
        assert!(p["reason"].as_str().unwrap().contains("budget exhausted"), "{p}");
    }
    // Decided chains carry no reason.
    let out = shinpan(&["adjudicate", "--json", k.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["proofs"].as_array().unwrap().iter().all(|p| p.get("reason").is_none()));
}

#[test]
fn text_output_has_a_diagram_and_the_result() {
    let f = kakunin_dir().join("kakunin-7-1.sgf");
    let out = shinpan(&["adjudicate", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("   abcdefghi\n a XXX"), "{text}");
    assert!(text.contains("result: "));
    assert!(text.lines().nth(2).unwrap().contains("oooo"), "white's seven stones dead: {text}");
}

/// A reader that stops early (`shinpan adjudicate … | head -1`): the command ends quietly
/// by SIGPIPE, as Unix filters do, instead of panicking on the failed write.
#[cfg(unix)]
#[test]
fn closed_stdout_ends_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let f = kakunin_dir().join("kakunin-1.sgf");
    let mut child = Command::new(env!("CARGO_BIN_EXE_shinpan"))
        .args(["adjudicate", f.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run shinpan");
    // Close the reading end before the command writes anything.
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "stderr: {err}");
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "ended by SIGPIPE: {status:?}, stderr: {err}");
}

/// `shinpan adjudicate --json --budget N` on a real record of `shared/games` (`rel`), which
/// must exit with `code` (0: everything decided; 4: some chains undecided): the JSON object
/// and the proof entry of the chain holding `stone`.
fn real_record(rel: &str, budget: &str, code: i32, stone: &str) -> (Value, Value) {
    real_record_with(rel, &[], budget, code, stone)
}

/// As [`real_record`], with more arguments for `shinpan adjudicate` (e.g. `--rules`).
fn real_record_with(rel: &str, more: &[&str], budget: &str, code: i32, stone: &str) -> (Value, Value) {
    let f = games_dir().join(rel);
    let mut args = vec!["adjudicate", "--json", "--budget", budget];
    args.extend_from_slice(more);
    args.push(f.to_str().unwrap());
    let out = shinpan(&args);
    assert_eq!(out.status.code(), Some(code), "exit code: {}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let proof = v["proofs"].as_array().unwrap().iter().find(|p| strs(&p["stones"]).contains(&stone.to_string())).cloned();
    (v, proof.unwrap_or_else(|| panic!("no proof entry for {stone}")))
}

/// The region's budget left over by chains decided under their share goes to the chains
/// that ran out of theirs (a second pass, `adjudicate_with_progress`). In this real 9x9
/// final position (GNU Go against GoFigure, `shared/games`), with 2,000 nodes for the
/// region, Black's chain of 21 stones at af is proved alive ("B fc") with more nodes than
/// an equal share of the region's, and the whole position is decided.
#[test]
fn a_chain_out_of_its_share_gets_what_the_region_has_left() {
    // Exit 0: with the second pass everything is decided.
    let (v, black) = real_record("9/gnugo__boardspace__GNUGo-GoFigure0.1-200503181614.sgf", "2000", 0, "af");
    let proofs = v["proofs"].as_array().unwrap();
    assert_eq!(black["status"], "alive", "{black}");
    assert_eq!(black["color"], "black", "{black}");
    assert_eq!(strs(&black["line"]), ["B fc"]);
    let chains = proofs.iter().filter(|p| p["nodes"].as_u64().unwrap() > 0).count() as u64;
    assert!(black["nodes"].as_u64().unwrap() > 2_000 / chains, "more than an equal share of the region: {black}");
}

/// A region too large for the exhaustive search but of at most twice its limit (here 75
/// empty points, limit 40) still gets short depth-first proofs with Benson's ends: in this
/// real 19x19 final position (`gnugo__owl28.sgf`, from GNU Go's regression games), White's
/// chain at ba, ca is proved alive by "W ag" (after which the chain lies in White's
/// unconditional area), a move the one-move proofs do not try (it is not next to the chain);
/// without them the chain is undecided ("region of 75 empty points").
#[test]
fn a_large_region_still_gets_quick_proofs() {
    // Exit 4: other chains stay undecided.
    let (v, white) = real_record("19/gnugo__owl28.sgf", "20000", 4, "ba");
    assert_eq!(strs(&white["stones"]), ["ba", "ca"]);
    assert_eq!(white["status"], "alive", "{white}");
    assert_eq!(strs(&white["line"]), ["W ag"]);
    assert!(strs(&v["status"]["alive"]).contains(&"ca".to_string()));
}

/// Under japanese-1989 the attacker moves first (要請II-[iii]): a chain in a region too
/// large for the exhaustive search is alive when every attacker move is answered by a life.
/// A life may be joining a chain that the territory proofs (module `safety`) keep alive, as
/// long as neither the attacker's move nor the answer is on a point those proofs rely on.
/// In this real 19x19 final position (`gnugo__joseki01.sgf`, 20,000 nodes per region),
/// White's chain ig–ih–ii–jh–kh is proved alive so ("B pass W ij": whatever Black plays,
/// White joins it to a kept-alive chain, at ij or elsewhere). Before such answers were
/// allowed (only immediate pass-aliveness), it was undecided (checked).
#[test]
fn under_1989_joining_a_chain_kept_alive_answers_every_attack() {
    let (_, white) = real_record_with("19/gnugo__joseki01.sgf", &["--rules", "japanese-1989"], "20000", 4, "ig");
    assert_eq!(strs(&white["stones"]), ["ig", "ih", "ii", "jh", "kh"]);
    assert_eq!(white["status"], "alive", "{white}");
    assert_eq!(strs(&white["line"]), ["B pass", "W ij"]);
}
