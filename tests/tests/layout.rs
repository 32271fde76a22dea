//! The house rules of the source tree, checked on the files themselves: every Rust source
//! file outside the tests stays within 800 lines; no module of a crate imports, directly or
//! through others, a module that imports it back (no cycle between the files of a crate:
//! each reads without the ones that use it); no comment names the process that wrote it
//! (an "issue N" or a "session": that history belongs in git).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a source file may be.
const MAX_LINES: usize = 800;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The crates' source directories: `services/*/src` and `proto/src`.
fn crate_sources() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let services = root().join("services");
    for e in std::fs::read_dir(&services).expect("services/") {
        let dir = e.expect("an entry").path();
        if dir.join("src").is_dir() {
            out.push((dir.file_name().unwrap().to_string_lossy().into_owned(), dir.join("src")));
        }
    }
    if root().join("proto/src").is_dir() {
        out.push(("proto".into(), root().join("proto/src")));
    }
    out.sort();
    out
}

/// The code of a file without its comments and without its `#[cfg(test)] mod tests { … }`
/// tail.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The module path of `file` in the crate whose source directory is `src` (`a::b` for
/// `src/a/b.rs` or `src/a/b/mod.rs`; `""` for the crate root).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src").with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts.join("::")
}

/// The paths named after `prefix` in `code` (`crate::a::b::C` gives `a::b::C` for `crate::`),
/// as lists of their lower-case segments.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(k) = rest.find(prefix) {
        let before = rest[..k].chars().last();
        rest = &rest[k + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let mut segs = Vec::new();
        let mut s = rest;
        loop {
            let end = s.find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')).unwrap_or(s.len());
            if end == 0 {
                break;
            }
            segs.push(s[..end].to_string());
            s = &s[end..];
            match s.strip_prefix("::") {
                Some(t) => s = t,
                None => break,
            }
        }
        if !segs.is_empty() {
            out.push(segs);
        }
    }
    out
}

/// The module graph of one crate: module -> the modules its code names (not its own
/// submodules or ancestors).
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = rust_files(src);
    let modules: BTreeMap<String, PathBuf> = files.iter().map(|f| (module_of(src, f), f.clone())).collect();
    let related = |a: &str, b: &str| a == b || a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::")) || b.is_empty();
    let mut graph = BTreeMap::new();
    for (m, file) in &modules {
        let code = code_of(&std::fs::read_to_string(file).expect("readable"));
        let mut to = BTreeSet::new();
        let mut named: Vec<Vec<String>> = paths_after(&code, "crate::");
        let parent: Vec<String> = m.split("::").filter(|s| !s.is_empty()).map(String::from).collect();
        for p in paths_after(&code, "super::") {
            let mut full: Vec<String> = parent[..parent.len().saturating_sub(1)].to_vec();
            full.extend(p);
            named.push(full);
        }
        for segs in named {
            // The longest prefix that is a module of the crate.
            for k in (1..=segs.len()).rev() {
                let cand = segs[..k].join("::");
                if modules.contains_key(&cand) {
                    if !related(m, &cand) {
                        to.insert(cand);
                    }
                    break;
                }
            }
        }
        graph.insert(m.clone(), to);
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        for w in &t.g[v] {
            if !t.index.contains_key(w.as_str()) {
                visit(t, w);
                let lw = t.low[w.as_str()];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w.as_str()) {
                let iw = t.index[w.as_str()];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().expect("on the stack");
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T { g: graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), out: Vec::new() };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_source_file_is_longer_than_800_lines() {
    let mut long = Vec::new();
    for (_, src) in crate_sources() {
        for f in rust_files(&src) {
            if f.file_name().is_some_and(|n| n == "tests.rs") || f.iter().any(|c| c == "tests") {
                continue;
            }
            let n = std::fs::read_to_string(&f).expect("readable").lines().count();
            if n > MAX_LINES {
                long.push(format!("{}: {n} lines", f.display()));
            }
        }
    }
    assert!(long.is_empty(), "files over {MAX_LINES} lines:\n{}", long.join("\n"));
}

#[test]
fn no_module_imports_a_module_that_imports_it() {
    let mut found = Vec::new();
    let mut modules = 0;
    for (name, src) in crate_sources() {
        let graph = module_graph(&src);
        modules += graph.len();
        for comp in cycles(&graph) {
            let edges: Vec<String> =
                comp.iter().flat_map(|a| graph[a].iter().filter(|b| comp.contains(b)).map(move |b| format!("{a} -> {b}"))).collect();
            found.push(format!("{name}: {}", edges.join(", ")));
        }
    }
    assert!(modules > 50, "only {modules} modules found: is the tree where this test looks?");
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn the_cycle_check_sees_a_cycle() {
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
        ("d".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]);
    assert_eq!(paths_after("use crate::x::y::{Z, w}; let a = super::q::r();", "crate::"), vec![vec!["x", "y"]]);
    assert_eq!(paths_after("use crate::x::y::{Z, w}; let a = super::q::r();", "super::"), vec![vec!["q", "r"]]);
}

#[test]
fn no_comment_names_an_issue_or_a_session() {
    let mut found = Vec::new();
    let mut files: Vec<PathBuf> = crate_sources().into_iter().flat_map(|(_, src)| rust_files(&src)).collect();
    files.extend(rust_files(&root().join("tests")));
    for dir in ["services"] {
        for e in std::fs::read_dir(root().join(dir)).expect("services/") {
            let t = e.expect("an entry").path().join("tests");
            if t.is_dir() {
                files.extend(rust_files(&t));
            }
        }
    }
    for f in files {
        if f.ends_with("tests/tests/layout.rs") {
            continue;
        }
        for (k, line) in std::fs::read_to_string(&f).expect("readable").lines().enumerate() {
            let Some(c) = line.find("//") else { continue };
            let comment = line[c..].to_lowercase();
            let names_issue = comment
                .match_indices("issue")
                .any(|(i, _)| comment[i + 5..].trim_start_matches([' ', '#']).starts_with(|ch: char| ch.is_ascii_digit()));
            let names_session = comment.contains("this session") || comment.contains("a session ") || comment.contains("helper session");
            if names_issue || names_session {
                found.push(format!("{}:{}: {}", f.display(), k + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "comments that name an issue or a session:\n{}", found.join("\n"));
}
