//! `shinpan game ...` against a real server (in-process, 127.0.0.1:0, real PostgreSQL) that
//! checks bearer tokens on GameRecordingService too (`--auth all`): without `--token` every call is
//! refused (UNAUTHENTICATED, exit 1); with `--token` (or `SHINPAN_TOKEN`) create, move,
//! import, show and export work.

use shinpan::auth::{testing_token, AuthScope, Role};
use shinpan::configuration::ServeArgs;
use shinpan::startup::Application;
use std::process::Command;

async fn shinpan(args: Vec<String>, env_token: Option<String>) -> (i32, String, String) {
    tokio::task::spawn_blocking(move || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_shinpan"));
        cmd.args(&args).env_remove("SHINPAN_JWT_SECRET").env_remove("SHINPAN_TOKEN").env_remove("SHINPAN_SERVER");
        if let Some(t) = env_token {
            cmd.env("SHINPAN_TOKEN", t);
        }
        let out = cmd.output().expect("run shinpan");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    })
    .await
    .unwrap()
}

fn v(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_subcommands_send_the_bearer_token() {
    let store = shinpan_storage::testing::fresh_store().await;
    let mut args = ServeArgs::local(None, std::path::PathBuf::from("/nonexistent"));
    args.auth = AuthScope::All;
    let app = Application::with_store(&args, Some(store)).await.unwrap();
    let url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let token = testing_token(Role::ChiefArbiter, "td-1", None, None, None);
    let with = |a: &[&str], t: Option<&str>| {
        let mut a = v(a);
        a.extend(v(&["--server", &url]));
        if let Some(t) = t {
            a.extend(v(&["--token", t]));
        }
        shinpan(a, None)
    };
    let create = ["game", "create", "--tournament", "Token Cup", "--black", "Kato Masao", "--white", "Cho Chikun", "--size", "9"];

    // No token: refused by the server.
    let (code, out, err) = with(&create, None).await;
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("Unauthenticated"), "{err}");
    let (code, _, err) = with(&["game", "list"], None).await;
    assert_eq!(code, 1);
    assert!(err.contains("Unauthenticated"), "{err}");
    // A bad token is refused too (so the header is really sent and checked).
    let (code, _, err) = with(&create, Some("not-a-jwt")).await;
    assert_eq!(code, 1);
    assert!(err.contains("Unauthenticated"), "{err}");

    // With --token: create, a move (its colour and number read with GetGame), show.
    let (code, out, err) = with(&create, Some(&token)).await;
    assert_eq!(code, 0, "{err}");
    let id = out.trim().to_string();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{out}");
    let (code, out, err) = with(&["game", "move", &id, "ee"], Some(&token)).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("move 1 recorded"), "{out}");
    let (code, out, err) = with(&["game", "show", &id], Some(&token)).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 moves, white to play"), "{out}");

    // --key: the same command run again (its answer lost) prints the same game, not a
    // second one (nor ALREADY_EXISTS for its own board).
    let keyed: Vec<&str> = create.iter().copied().chain(["--board", "2", "--key", "token-cup-b2"]).collect();
    let (code, out, err) = with(&keyed, Some(&token)).await;
    assert_eq!(code, 0, "{err}");
    let (code, again, err) = with(&keyed, Some(&token)).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(again.trim(), out.trim());

    // SHINPAN_TOKEN in the environment works as --token: import and export a record.
    let file = std::env::temp_dir().join(format!("shinpan-game-cli-{}.sgf", uuid::Uuid::new_v4()));
    std::fs::write(&file, "(;GM[1]FF[4]SZ[9]KM[6.5]PB[Kato Masao]PW[Cho Chikun];B[cc];W[gg];B[cg];W[gc])").unwrap();
    let (code, out, err) = shinpan(v(&["game", "import", file.to_str().unwrap(), "--server", &url]), Some(token.clone())).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("imported 4 moves"), "{err}");
    let imported = out.trim().to_string();
    let _ = std::fs::remove_file(&file);
    let (code, out, err) = shinpan(v(&["game", "export", &imported, "--server", &url]), Some(token.clone())).await;
    assert_eq!(code, 0, "{err}");
    let compact: String = out.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(compact.contains(";B[cc];W[gg];B[cg];W[gc]"), "{out}");
    let (code, out, err) = with(&["game", "list", "--tournament", "Token Cup"], Some(&token)).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 2, "boards 1 and 2 (created twice with one key): {out}");

    // A Shift_JIS record (CA[Shift_JIS]) is decoded by the client before it is sent: the
    // names come back as written, and 十's second byte (0x5C) escaped nothing.
    let file = std::env::temp_dir().join(format!("shinpan-game-cli-{}.sgf", uuid::Uuid::new_v4()));
    std::fs::write(
        &file,
        b"(;GM[1]FF[4]CA[Shift_JIS]SZ[9]GN[\x91\xe6\x8f\x5c]PB[\x89\xc1\x93\xa1\x90\xb3\x95v]PW[\xe6\xe2\x8e\xa1\x8cM];B[cc];W[gg])",
    )
    .unwrap();
    let (code, out, err) = shinpan(v(&["game", "import", file.to_str().unwrap(), "--server", &url]), Some(token.clone())).await;
    let _ = std::fs::remove_file(&file);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("imported 2 moves"), "{err}");
    let (code, out, err) = shinpan(v(&["game", "export", out.trim(), "--server", &url]), Some(token.clone())).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("PB[加藤正夫]") && out.contains("PW[趙治勲]"), "{out}");

    let _ = tx.send(());
    server.await.unwrap().unwrap();
}
