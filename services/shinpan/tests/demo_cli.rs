//! The README's first command, `shinpan demo`, end to end on a throwaway data directory: it
//! must record, then show the end of a real game — the proposal, a dispute decided, and the
//! result confirmed until final — and stop cleanly.

use std::process::Command;

#[test]
fn the_demo_ends_with_a_real_game_confirmed_final() {
    let dir = std::env::temp_dir().join(format!("shinpan-demo-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let games = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games");
    let out = Command::new(env!("CARGO_BIN_EXE_shinpan"))
        .args(["demo", "--data-dir", dir.to_str().unwrap(), "--games", games.to_str().unwrap()])
        .env_remove("DATABASE_URL")
        .output()
        .expect("run shinpan demo");
    let text = String::from_utf8_lossy(&out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("proposal (advisory, 第九条)"), "{text}");
    assert!(text.contains("by hypothetical play with the agreement as context"), "{text}");
    assert!(text.contains("confirmed by referee: Final"), "{text}");
    assert!(text.contains("server stopped gracefully"), "{text}");
    assert!(text.contains("the referee console shows it while the demo runs: http://127.0.0.1:"), "{text}");
    assert!(text.contains("/console/games/"), "{text}");
}
