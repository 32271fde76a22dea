//! The `shinpan token|result|case` client subcommands against a real server (in-process, on
//! 127.0.0.1:0, real PostgreSQL): a resignation proposed, confirmed by both players and the
//! referee, a case opened and closed, the export, and the refusals they print.

use shinpan::auth::{AuthConfig, Role, DEV_SECRET};
use shinpan::configuration::ServeArgs;
use shinpan::startup::Application;
use shinpan_proto::v1 as pb;
use std::process::Command;

async fn shinpan(args: Vec<String>) -> (i32, String, String) {
    tokio::task::spawn_blocking(move || {
        let out = Command::new(env!("CARGO_BIN_EXE_shinpan"))
            .args(&args)
            .env_remove("SHINPAN_JWT_SECRET")
            .env_remove("SHINPAN_TOKEN")
            .output()
            .expect("run shinpan");
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
async fn result_and_case_subcommands() {
    let store = shinpan_storage::testing::fresh_store().await;
    let args = ServeArgs::local(None, std::path::PathBuf::from("/nonexistent"));
    let app = Application::with_store(&args, Some(store)).await.unwrap();
    let url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let channel = shinpan::remote::channel(&url).await.unwrap();
    let mut rec = pb::game_recording_service_client::GameRecordingServiceClient::new(channel);
    let g = rec
        .create_game(pb::CreateGameRequest {
            tournament: "CLI Cup".into(),
            round: 1,
            board_number: 1,
            black: Some(pb::Player { name: "Kato Masao".into(), rank: "5d".into(), federation_id: "111".into() }),
            white: Some(pb::Player { name: "Cho Chikun".into(), rank: "4d".into(), federation_id: "222".into() }),
            board_size: 9,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap()
        .id;
    rec.resign(pb::ResignRequest { game_id: g.clone(), color: pb::Color::Black as i32, idempotency_key: String::new() }).await.unwrap();

    // Tokens from `shinpan token issue`, verifiable with the development secret.
    let token = |role: &'static str, sub: &'static str, tournament: Option<&'static str>| async move {
        let mut a = v(&["token", "issue", "--role", role, "--subject", sub, "--ttl", "10m"]);
        if let Some(t) = tournament {
            a.extend(v(&["--tournament", t]));
        }
        let (code, out, err) = shinpan(a).await;
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("development secret"), "{err}");
        out.trim().to_string()
    };
    let black = token("player", "111", None).await;
    let white = token("player", "222", None).await;
    let referee = token("referee", "ref-1", Some("CLI Cup")).await;
    let reader = token("archive-reader", "lib", None).await;
    let c = AuthConfig::new(DEV_SECRET).verify(&referee).unwrap();
    assert_eq!((c.role, c.sub.as_str(), c.tournament.as_deref()), (Role::Referee, "ref-1", Some("CLI Cup")));

    let run = |a: &[&str], t: &str| {
        let mut a = v(a);
        a.extend(v(&["--server", &url, "--token", t]));
        shinpan(a)
    };
    let (code, out, err) = run(&["result", "propose", &g, "--ending", "resignation"], &black).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("W+R (RESIGNATION) PROPOSED version 1; awaiting black, white, referee"), "{out}");
    // Black may not confirm White's side.
    let (code, _, err) = run(&["result", "confirm", &g, "--color", "W"], &black).await;
    assert_eq!(code, 1);
    assert!(err.contains("PermissionDenied"), "{err}");
    for t in [&black, &white] {
        let (code, _, err) = run(&["result", "confirm", &g], t).await;
        assert_eq!(code, 0, "{err}");
    }
    let (code, out, err) = run(&["result", "confirm", &g], &referee).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("W+R (RESIGNATION) FINAL") && out.contains("confirmed by ref-1 (referee)"), "{out}");
    let (code, _, err) = run(&["result", "confirm", &g], &referee).await;
    assert_eq!(code, 1);
    assert!(err.contains("FailedPrecondition") && err.contains("final"), "{err}");
    let (code, _, err) = run(&["result", "object", &g, "--reason", "too late"], &white).await;
    assert_eq!(code, 1, "{err}");

    // Cases.
    let (code, out, err) = run(&["case", "open", &g, "--kind", "referee", "--reason", "clock malfunction reported"], &referee).await;
    assert_eq!(code, 0, "{err}");
    let case = out.split_whitespace().nth(1).unwrap().to_string();
    assert!(out.contains("CASE_REFEREE OPEN"), "{out}");
    let (code, out, _) = run(&["case", "list", "--tournament", "CLI Cup", "--state", "open"], &referee).await;
    assert_eq!(code, 0);
    assert!(out.contains(&case), "{out}");
    let (code, _, err) = run(&["case", "close", &case, "--reason", "no effect on the result"], &black).await;
    assert_eq!(code, 1);
    assert!(err.contains("PermissionDenied"), "{err}");
    let (code, out, err) = run(&["case", "close", &case, "--reason", "no effect on the result"], &referee).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("CASE_REFEREE CLOSED"), "{out}");
    let (code, out, _) = run(&["case", "show", &case], &reader).await;
    assert_eq!(code, 0);
    assert!(out.contains("clock malfunction"), "{out}");
    // A case named by the first 8 characters of its id, as a referee copies it.
    let (code, out, err) = run(&["case", "show", &case[..8]], &reader).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&case) && out.contains("clock malfunction"), "{out}");
    let (code, _, err) = run(&["case", "show", "ab"], &reader).await;
    assert_eq!(code, 1);
    assert!(err.contains("InvalidArgument") && err.contains("at least its first 4"), "{err}");
    let unknown = if case.starts_with("0000") { "ffff" } else { "0000" };
    let (code, _, err) = run(&["case", "show", unknown], &reader).await;
    assert_eq!(code, 1);
    assert!(err.contains("NotFound"), "{err}");

    // Export.
    let dir = std::env::temp_dir().join(format!("shinpan-cli-{}", uuid::Uuid::new_v4()));
    let (code, out, err) =
        run(&["result", "export", "--tournament", "CLI Cup", "--class", "C", "--sgf-dir", dir.to_str().unwrap()], &reader).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("; CL[C]\n; EV[CLI Cup]\n"), "{out}");
    assert!(out.contains("1 Cho Chikun 4d -- -- 1 2+/w0 |222"), "{out}");
    assert!(out.contains("2 Kato Masao 5d -- -- 0 1-/b0 |111"), "{out}");
    let sgf = std::fs::read_to_string(dir.join("001.sgf")).unwrap();
    assert!(sgf.contains("RE[W+R]"), "{sgf}");
    let _ = std::fs::remove_dir_all(&dir);
    // Without a token.
    let (code, _, err) = shinpan(v(&["result", "show", &g, "--server", &url])).await;
    assert_eq!(code, 1);
    assert!(err.contains("Unauthenticated"), "{err}");
    // No server there: the message says so and how to start one.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let (code, _, err) = shinpan(v(&["case", "show", &case, "--server", &format!("http://{free}")])).await;
    assert_ne!(code, 0);
    assert!(err.contains("cannot reach the shinpan server") && err.contains("shinpan serve"), "{err}");

    let _ = tx.send(());
    server.await.unwrap().unwrap();
}
