//! The referee console against the real server (in-process on 127.0.0.1:0, a fresh
//! PostgreSQL database), its pages fetched over real HTTP/1.1 on the gRPC listener while
//! games are recorded through the real gRPC API: sign-in with a role token, the tournament
//! view, a game's board with the stones where RecordMove put them, the live stream that
//! delivers a move, stepping through the record, a foul with its rule and article, what a
//! player's token is not offered and is refused, both languages; and the game page rendered
//! by a real browser (Debian's headless `chromium`, installed with apt-get when missing).

mod common;

use common::Server;
use shinpan::auth::{testing_token, Role};
use shinpan::configuration::ServeArgs;
use shinpan::console::board::{CELL, MARGIN};
use shinpan::startup::Application;
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tonic::transport::Channel;

const TOURNAMENT: &str = "Console Cup";

async fn server() -> Server {
    common::start(|_| {}).await
}

/// A server on `store` (two servers on stores of one database stand for two replicas).
async fn server_on(store: shinpan_storage::Store) -> Server {
    common::start_on(store, |_| {}).await
}

/// An HTTP/1.1 answer.
#[derive(Debug)]
struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Vec<String> {
        self.head
            .lines()
            .filter_map(|l| l.split_once(':'))
            .filter(|(k, _)| k.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_string())
            .collect()
    }
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else { break };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// One HTTP/1.1 request over a new connection (`Connection: close`).
async fn http(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Reply {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        req.push_str(&format!("Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n", b.len()));
    }
    req.push_str("\r\n");
    req.push_str(body.unwrap_or(""));
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), tcp.read_to_end(&mut raw)).await.expect("an answer within 60 s").unwrap();
    let raw = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(body) } else { body.to_string() };
    Reply { status, head: head.to_string(), body }
}

fn form_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Signs in with `token`: the session cookie (`name=value`).
async fn sign_in(addr: SocketAddr, token: &str) -> String {
    let r = http(addr, "POST", "/console/sign-in", &[], Some(&format!("token={}", form_encode(token)))).await;
    assert_eq!(r.status, 303, "{r:?}");
    let cookie = r.header("set-cookie").into_iter().find(|c| c.starts_with("shinpan_token=")).expect("the token cookie");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"), "{cookie}");
    cookie.split(';').next().unwrap().to_string()
}

async fn recording(url: &str) -> GameRecordingServiceClient<Channel> {
    GameRecordingServiceClient::connect(url.to_string()).await.expect("gRPC connects")
}

async fn new_game(client: &mut GameRecordingServiceClient<Channel>, board: u32, size: u32) -> pb::Game {
    let player = |name: &str, fid: &str| pb::Player { name: name.into(), rank: "3d".into(), federation_id: fid.into() };
    client
        .create_game(pb::CreateGameRequest {
            tournament: TOURNAMENT.into(),
            round: 1,
            board_number: board,
            black: Some(player("Honinbo Shusaku", "EGD-1")),
            white: Some(player("Gennan Inseki", "EGD-2")),
            board_size: size,
            ..Default::default()
        })
        .await
        .expect("CreateGame")
        .into_inner()
        .game
        .unwrap()
}

async fn play(
    client: &mut GameRecordingServiceClient<Channel>,
    game: &str,
    n: u32,
    color: pb::Color,
    point: Option<&str>,
) -> pb::RecordMoveResponse {
    let action = match point {
        Some(p) => pb::r#move::Action::Point(p.into()),
        None => pb::r#move::Action::Pass(true),
    };
    client
        .record_move(pb::RecordMoveRequest {
            game_id: game.into(),
            move_number: n,
            r#move: Some(pb::Move { color: color as i32, action: Some(action) }),
            ..Default::default()
        })
        .await
        .expect("RecordMove")
        .into_inner()
}

/// The SVG circle of a stone of colour `class` ("b"/"w") at SGF point `p` on `size`×`size`.
fn stone(class: &str, p: &str, name: &str) -> String {
    let b = p.as_bytes();
    let (x, y) = (MARGIN + u32::from(b[0] - b'a') * CELL, MARGIN + u32::from(b[1] - b'a') * CELL);
    format!(r#"class="stone {class}" data-point="{p}" data-name="{name}" cx="{x}" cy="{y}""#)
}

#[tokio::test]
async fn sign_in_tournament_view_and_languages() {
    let s = server().await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 1, 19).await;

    // Not signed in: the sign-in form, in the browser's language or the one asked for.
    let en = http(s.addr, "GET", "/console", &[], None).await;
    assert_eq!(en.status, 200);
    assert!(en.body.contains("Sign in") && en.body.contains("name=\"token\""), "{}", en.body);
    let ja = http(s.addr, "GET", "/console", &[("Accept-Language", "ja-JP,ja;q=0.9")], None).await;
    assert!(ja.body.contains("サインイン") && ja.body.contains("lang=\"ja\""), "{}", ja.body);
    let asked = http(s.addr, "GET", "/console?lang=ja", &[], None).await;
    assert!(asked.body.contains("サインイン"));
    assert!(asked.header("set-cookie").iter().any(|c| c.starts_with("shinpan_lang=ja")));
    // `/` leads to the console; gRPC still answers on the same port (the client above).
    assert_eq!(http(s.addr, "GET", "/", &[], None).await.status, 303);

    // A forged token is refused with a sentence, not a status code.
    let bad = http(s.addr, "POST", "/console/sign-in", &[], Some("token=not.a.token")).await;
    assert_eq!(bad.status, 401);
    assert!(bad.body.contains("The token was not accepted"), "{}", bad.body);

    let referee = sign_in(s.addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let view = http(s.addr, "GET", "/console", &[("Cookie", &referee)], None).await;
    assert_eq!(view.status, 200);
    for want in [
        TOURNAMENT,
        "Honinbo Shusaku 3d",
        "Gennan Inseki 3d",
        &format!("/console/games/{}", g.id),
        "playing",
        "data-live=\"/console/live\"",
    ] {
        assert!(view.body.contains(want), "{want} missing from {}", view.body);
    }
    let view_ja = http(s.addr, "GET", "/console?lang=ja", &[("Cookie", &referee)], None).await;
    for want in ["対局中", "回戦", "未決の裁定案件", "黒", "白"] {
        assert!(view_ja.body.contains(want), "{want} missing from {}", view_ja.body);
    }

    // The tournament view's live stream sends its first state at once.
    let live = read_stream(s.addr, "/console/live", &referee, "event: update", Duration::from_secs(10)).await;
    assert!(live.contains("Honinbo Shusaku"), "{live}");

    // Signing out forgets the token.
    let out = http(s.addr, "POST", "/console/sign-out", &[("Cookie", &referee)], Some("")).await;
    assert!(out.header("set-cookie").iter().any(|c| c.starts_with("shinpan_token=;") && c.contains("Max-Age=0")));
}

/// Reads a server-sent event stream until `needle` has arrived (panics after `within`).
async fn read_stream(addr: SocketAddr, path: &str, cookie: &str, needle: &str, within: Duration) -> String {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nCookie: {cookie}\r\n\r\n");
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + within;
    let mut buf = vec![0u8; 65536];
    while !seen.contains(needle) {
        let n = tokio::time::timeout_at(deadline, tcp.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("no `{needle}` within {within:?}: {seen}"))
            .unwrap();
        assert!(n > 0, "the stream ended before `{needle}`: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    seen
}

#[tokio::test]
async fn the_game_page_draws_the_recorded_stones_and_follows_the_game_live() {
    let s = server().await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 2, 19).await;
    play(&mut rec, &g.id, 1, pb::Color::Black, Some("pd")).await;
    play(&mut rec, &g.id, 2, pb::Color::White, Some("dd")).await;
    let referee = sign_in(s.addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;

    let page = http(s.addr, "GET", &format!("/console/games/{}", g.id), &[("Cookie", &referee)], None).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains(&stone("b", "pd", "Q16")), "{}", page.body);
    assert!(page.body.contains(&stone("w", "dd", "D16")), "{}", page.body);
    assert!(page.body.contains(r#"class="last" data-point="dd""#), "the last move is marked");
    assert!(page.body.contains(r#"data-move="2""#) && page.body.contains("Prisoners"));
    assert!(page.body.contains(">T<") && !page.body.contains(">I<"), "coordinates without I");
    assert!(page.body.contains(&format!("data-live=\"/console/games/{}/live?from=", g.id)));

    // Stepping back: move 1 shows only the black stone.
    let back = http(s.addr, "GET", &format!("/console/games/{}?at=1", g.id), &[("Cookie", &referee)], None).await;
    assert!(back.body.contains(&stone("b", "pd", "Q16")) && !back.body.contains(r#"data-point="dd""#), "{}", back.body);
    assert!(!back.body.contains("data-live=\"/console/games/"), "a past position is not live");

    // Live: the stream delivers the next move, with the new stone drawn.
    let stream = {
        let (addr, cookie, path) = (s.addr, referee.clone(), format!("/console/games/{}/live?from={}", g.id, g.last_sequence + 3));
        tokio::spawn(async move { read_stream(addr, &path, &cookie, "data-point=\"qp\"", Duration::from_secs(20)).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    play(&mut rec, &g.id, 3, pb::Color::Black, Some("qp")).await;
    let got = stream.await.unwrap();
    assert!(got.contains("event: move"), "{got}");
    assert!(got.contains(&stone("b", "qp", "R4")), "{got}");

    // A foul is listed on its move with its rule and article, and not drawn.
    let foul = play(&mut rec, &g.id, 4, pb::Color::White, Some("pd")).await;
    assert!(!foul.legal);
    let page = http(s.addr, "GET", &format!("/console/games/{}", g.id), &[("Cookie", &referee)], None).await;
    let f = foul.foul.unwrap();
    assert!(page.body.contains("class=\"foul\"") && page.body.contains(&f.rule) && page.body.contains(&f.article), "{}", page.body);
    assert!(page.body.contains(&stone("b", "pd", "Q16")), "the foul is not applied");
    let at_foul = http(s.addr, "GET", &format!("/console/games/{}?at=3", g.id), &[("Cookie", &referee)], None).await;
    assert!(
        at_foul.body.contains(r#"class="foul" data-point="pd""#),
        "the foul is marked on the position it was played in: {}",
        at_foul.body
    );

    // Japanese labels.
    let ja = http(s.addr, "GET", &format!("/console/games/{}?lang=ja", g.id), &[("Cookie", &referee)], None).await;
    for want in ["アゲハマ", "手数", "反則", "コミ"] {
        assert!(ja.body.contains(want), "{want} missing");
    }
}

#[tokio::test]
async fn a_players_token_is_not_offered_and_is_refused_the_referees_actions() {
    let s = server().await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 3, 9).await;
    play(&mut rec, &g.id, 1, pb::Color::Black, Some("ee")).await;
    play(&mut rec, &g.id, 2, pb::Color::White, None).await;
    play(&mut rec, &g.id, 3, pb::Color::Black, None).await;
    let stopped = play(&mut rec, &g.id, 4, pb::Color::White, None).await;
    assert_ne!(stopped.phase, pb::Phase::Playing as i32, "three passes stop play under japanese-2011 (第九条)");
    let referee = sign_in(s.addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let stranger = sign_in(s.addr, &testing_token(Role::Player, "EGD-99", None, None, None)).await;

    let path = format!("/console/games/{}", g.id);
    let as_referee = http(s.addr, "GET", &path, &[("Cookie", &referee)], None).await;
    assert!(as_referee.body.contains(&format!("{path}/end")), "the referee is offered the end of the game: {}", as_referee.body);
    let as_stranger = http(s.addr, "GET", &path, &[("Cookie", &stranger)], None).await;
    assert_eq!(as_stranger.status, 200);
    assert!(!as_stranger.body.contains(&format!("{path}/end")), "a player of another game is not offered it");

    // And the services refuse it when asked directly, as a sentence.
    let refused = http(s.addr, "POST", &format!("{path}/result"), &[("Cookie", &stranger)], Some("action=propose")).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.body.contains("Your role may not do this"), "{}", refused.body);
    assert!(!refused.body.contains("PermissionDenied") && !refused.body.contains("PERMISSION_DENIED"));
    let end = http(s.addr, "GET", &format!("{path}/end"), &[("Cookie", &stranger)], None).await;
    assert_eq!(end.status, 403, "{}", end.body);
    let refused_ja = http(
        s.addr,
        "POST",
        &format!("{path}/result?lang=ja"),
        &[("Cookie", &stranger), ("Accept-Language", "ja")],
        Some("action=confirm"),
    )
    .await;
    assert!(refused_ja.body.contains("class=\"error\""), "{}", refused_ja.body);

    // Without a token, no page but the sign-in.
    let anon = http(s.addr, "GET", &path, &[], None).await;
    assert_eq!(anon.status, 303);
    assert_eq!(anon.header("location"), vec![format!("/console?next={path}")]);
}

/// Debian's chromium, installed with apt-get when missing (as the embedded PostgreSQL is).
/// A Debian binary at one of `paths`, installing `package` with apt-get when it is missing
/// (as root, or through `sudo -n`); `None` when it cannot be had (no apt-get, or
/// `SHINPAN_NO_INSTALL` is set).
fn debian_binary(paths: &[&str], package: &str) -> Option<std::path::PathBuf> {
    let find = || paths.iter().map(std::path::PathBuf::from).find(|p| p.exists());
    if let Some(p) = find() {
        return Some(p);
    }
    if std::env::var_os("SHINPAN_NO_INSTALL").is_some() || !std::path::Path::new("/usr/bin/apt-get").exists() {
        return None;
    }
    eprintln!("console test: {package} is missing: installing Debian's `{package}` with apt-get (SHINPAN_NO_INSTALL=1 refuses) …");
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let apt = |args: &[&str]| {
        let mut c = if root { std::process::Command::new("apt-get") } else { std::process::Command::new("sudo") };
        if !root {
            c.arg("-n").arg("apt-get");
        }
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive").status().is_ok_and(|s| s.success())
    };
    let _ = apt(&["install", "-y", "-qq", package]) || (apt(&["update", "-qq"]) && apt(&["install", "-y", "-qq", package]));
    find()
}

fn chromium() -> Option<std::path::PathBuf> {
    debian_binary(&["/usr/bin/chromium", "/usr/bin/chromium-browser"], "chromium")
}

#[tokio::test]
async fn a_real_browser_renders_the_game_page() {
    let Some(browser) = tokio::task::spawn_blocking(chromium).await.unwrap() else {
        eprintln!("SKIPPED: chromium is not installed and cannot be installed here (no apt-get, or SHINPAN_NO_INSTALL is set)");
        return;
    };
    let s = server().await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 4, 19).await;
    for (n, c, p) in [(1, pb::Color::Black, "pd"), (2, pb::Color::White, "dp"), (3, pb::Color::Black, "pp")] {
        play(&mut rec, &g.id, n, c, Some(p)).await;
    }
    // The browser signs in as a referee would (the form posts the token, the server sets the
    // cookie and leads to the game page), then renders the page the server sends.
    let token = testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None);
    let dir = std::env::temp_dir().join(format!("shinpan-console-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = format!(
        r#"<!DOCTYPE html><form id="f" method="post" action="{}/console/sign-in"><input name="token" value="{token}"><input name="next" value="/console/games/{}?at=3"></form><script>document.getElementById("f").submit()</script>"#,
        s.url, g.id
    );
    let file = dir.join("sign-in.html");
    std::fs::write(&file, html).unwrap();
    let shot = option_env!("CARGO_TARGET_TMPDIR").map(std::path::PathBuf::from).unwrap_or(dir.clone()).join("console-game.png");
    let run = |args: Vec<String>| {
        let browser = browser.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                std::process::Command::new("timeout")
                    .arg("60")
                    .arg(browser)
                    .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"])
                    .args(args)
                    .output()
                    .expect("chromium runs")
            })
            .await
            .unwrap()
        }
    };
    let dom = run(vec!["--virtual-time-budget=3000".into(), "--dump-dom".into(), format!("file://{}", file.display())]).await;
    let (dom, log) = (String::from_utf8_lossy(&dom.stdout).to_string(), String::from_utf8_lossy(&dom.stderr).to_string());
    assert!(dom.contains(&stone("b", "pd", "Q16")), "the browser's DOM has the stone: {dom}\n{log}");
    assert!(dom.contains(&stone("w", "dp", "D4")) && dom.contains(r#"class="last" data-point="pp""#), "{dom}");
    let out = run(vec![
        "--window-size=1000,800".into(),
        "--virtual-time-budget=3000".into(),
        format!("--screenshot={}", shot.display()),
        format!("file://{}", file.display()),
    ])
    .await;
    let png = std::fs::read(&shot).unwrap_or_else(|_| panic!("no screenshot: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "a real screenshot ({} bytes)", png.len());
    eprintln!("console test: screenshot of the game page in {}", shot.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_a_game_proposal_dispute_confirmation_and_the_results_page() {
    let s = server().await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 5, 7).await;
    // Black walls off columns A–B, White columns F–G; White's lone stone at B6 is dead.
    let mut n = 0;
    for row in "abcdefg".chars() {
        for (colour, col) in [(pb::Color::Black, 'c'), (pb::Color::White, 'e')] {
            n += 1;
            play(&mut rec, &g.id, n, colour, Some(&format!("{col}{row}"))).await;
        }
    }
    for (colour, point) in [(pb::Color::Black, None), (pb::Color::White, Some("bb")), (pb::Color::Black, None), (pb::Color::White, None)] {
        n += 1;
        play(&mut rec, &g.id, n, colour, point).await;
    }
    let last = play(&mut rec, &g.id, n + 1, pb::Color::Black, None).await;
    assert_ne!(last.phase, pb::Phase::Playing as i32);
    let referee = sign_in(s.addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let black = sign_in(s.addr, &testing_token(Role::Player, "EGD-1", None, None, None)).await;
    let white = sign_in(s.addr, &testing_token(Role::Player, "EGD-2", None, None, None)).await;
    let base = format!("/console/games/{}", g.id);

    // The proposal: every chain with its basis, the count, stones that link to a mark.
    let end = http(s.addr, "GET", &format!("{base}/end"), &[("Cookie", &referee)], None).await;
    assert_eq!(end.status, 200, "{}", end.body);
    for want in ["class=\"proof-row", "Proposal", "ハマ", "コミ", "Dispute this chain", "toggle=bb"] {
        assert!(end.body.contains(want), "{want} missing: {}", end.body);
    }
    assert!(end.body.contains("proof-row proved") || end.body.contains("proof-row estimated"), "{}", end.body);

    // Clicking the white stone marks its chain; the mark is carried in the links and forms.
    let marked = http(s.addr, "GET", &format!("{base}/end?marks=&toggle=bb"), &[("Cookie", &referee)], None).await;
    assert!(marked.body.contains("marks=bb:"), "{}", marked.body);

    // Disputing it: the adjudication's answer with its proof line (or undecided with its reason).
    let disputed = http(s.addr, "POST", &format!("{base}/dispute"), &[("Cookie", &referee)], Some("point=bb&marks=")).await;
    assert_eq!(disputed.status, 200, "{}", disputed.body);
    assert!(disputed.body.contains("Proof line") || disputed.body.contains("undecided-reason"), "{}", disputed.body);
    assert!(disputed.body.contains("class=\"count\""), "{}", disputed.body);
    if disputed.body.contains("Proof line") {
        // The line is drawn numbered on the board, to be stepped through move by move.
        assert!(disputed.body.contains("data-steps=") && disputed.body.contains("data-step=\"1\""), "{}", disputed.body);
    }

    // The same dispute followed live (AdjudicateStream as server-sent events), as the page's
    // script does: progress, then the answer.
    let live =
        read_stream(s.addr, &format!("{base}/dispute/live?point=bb&marks="), &referee, "count-result", Duration::from_secs(60)).await;
    assert!(live.contains("event: done"), "{live}");
    assert!(live.contains("Proof line") || live.contains("undecided-reason"), "{live}");

    // Propose the count; both players and the referee confirm; the result is final.
    let proposed = http(s.addr, "POST", &format!("{base}/result"), &[("Cookie", &referee)], Some("action=propose&marks=")).await;
    assert_eq!(proposed.status, 303, "{}", proposed.body);
    let page = http(s.addr, "GET", &base, &[("Cookie", &black)], None).await;
    assert!(
        page.body.contains("proposed") && page.body.contains("class=\"confirm\"") && page.body.contains("class=\"object\""),
        "{}",
        page.body
    );
    for who in [&black, &white, &referee] {
        let r = http(s.addr, "POST", &format!("{base}/result"), &[("Cookie", who)], Some("action=confirm")).await;
        assert_eq!(r.status, 303, "{}", r.body);
    }
    let fin = http(s.addr, "GET", &format!("{base}?lang=ja"), &[("Cookie", &referee)], None).await;
    assert!(fin.body.contains("確定") && !fin.body.contains("class=\"confirm\""), "{}", fin.body);
    // A confirmation after that is refused with the article.
    let again = http(s.addr, "POST", &format!("{base}/result"), &[("Cookie", &black)], Some("action=confirm")).await;
    assert!(again.body.contains("第十条"), "{}", again.body);

    // The results page lists the final result by round and board, with its downloads.
    let got = rec.get_game(pb::GetGameRequest { game_id: g.id.clone() }).await.expect("GetGame").into_inner().game.unwrap();
    assert!(!got.result.is_empty(), "{got:?}");
    let results = http(s.addr, "GET", "/console/results", &[("Cookie", &referee)], None).await;
    assert_eq!(results.status, 200, "{}", results.body);
    let row = format!("data-game=\"{}\"", g.id);
    for want in [row.as_str(), "Final results", "Honinbo Shusaku", &got.result, "/console/results/egf?tournament=Console+Cup"] {
        assert!(results.body.contains(want), "{want} missing: {}", results.body);
    }
    let egf = http(s.addr, "GET", "/console/results/egf?tournament=Console+Cup", &[("Cookie", &referee)], None).await;
    assert_eq!(egf.status, 200, "{}", egf.body);
    assert!(egf.header("content-disposition").iter().any(|d| d.contains("attachment")), "{}", egf.head);
    assert!(egf.body.contains("Shusaku") && egf.body.contains("Inseki"), "{}", egf.body);
    let all = http(s.addr, "GET", "/console/results/sgf?tournament=Console+Cup", &[("Cookie", &referee)], None).await;
    assert_eq!(all.status, 200, "{}", all.body);
    assert!(all.body.starts_with("(;") && all.body.contains(&format!("RE[{}]", got.result)), "{}", all.body);
    let one = http(s.addr, "GET", &format!("{base}/sgf"), &[("Cookie", &black)], None).await;
    assert_eq!(one.status, 200, "{}", one.body);
    assert!(one.body.contains("PB[Honinbo Shusaku]") && one.body.contains(&format!("RE[{}]", got.result)), "{}", one.body);
    // A player is not an official of the tournament: the EGF export is refused, in a sentence.
    let refused = http(s.addr, "GET", "/console/results/egf?tournament=Console+Cup", &[("Cookie", &black)], None).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(!refused.body.contains("Inseki"), "{}", refused.body);
}

#[tokio::test]
async fn the_case_queue_shows_a_foul_and_the_referee_rules_with_a_written_reason() {
    let s = server().await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 6, 19).await;
    play(&mut rec, &g.id, 1, pb::Color::Black, Some("pd")).await;
    let foul = play(&mut rec, &g.id, 2, pb::Color::White, Some("pd")).await.foul.expect("a foul");
    let referee = sign_in(s.addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let black = sign_in(s.addr, &testing_token(Role::Player, "EGD-1", None, None, None)).await;

    // The queue lists the case; its page shows the foul with rule and article.
    let view = http(s.addr, "GET", "/console", &[("Cookie", &referee)], None).await;
    let at = view.body.find("href=\"/console/cases/").unwrap_or_else(|| panic!("no case in the queue: {}", view.body));
    let case_path = view.body[at + 6..].split('"').next().unwrap().to_string();
    assert!(view.body.contains("foul"), "{}", view.body);
    let case = http(s.addr, "GET", &case_path, &[("Cookie", &referee)], None).await;
    assert_eq!(case.status, 200, "{}", case.body);
    assert!(case.body.contains(&foul.rule) && case.body.contains(&foul.article), "{}", case.body);
    assert!(case.body.contains("class=\"rule\"") && case.body.contains("反則負け"), "the referee is offered the ruling: {}", case.body);
    let game_page = http(s.addr, "GET", &format!("/console/games/{}", g.id), &[("Cookie", &black)], None).await;
    assert!(game_page.body.contains(&format!("href=\"{case_path}\"")), "the game's page links its case: {}", game_page.body);
    let as_player = http(s.addr, "GET", &case_path, &[("Cookie", &black)], None).await;
    assert!(!as_player.body.contains("class=\"rule\""), "a player is not: {}", as_player.body);

    // A ruling without a written reason is refused; with one it stands.
    let rule = format!("{case_path}/rule");
    let kind = pb::RulingKind::FoulLoss as i32;
    let bare = http(s.addr, "POST", &rule, &[("Cookie", &referee)], Some(&format!("kind={kind}&loser=2&reason="))).await;
    assert!(bare.body.contains("class=\"error\"") && bare.body.contains("Written reason"), "{}", bare.body);
    let refused = http(s.addr, "POST", &rule, &[("Cookie", &black)], Some(&format!("kind={kind}&loser=2&reason=mine"))).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let reason = "white+played+on+an+occupied+point";
    let ruled = http(s.addr, "POST", &rule, &[("Cookie", &referee)], Some(&format!("kind={kind}&loser=2&reason={reason}"))).await;
    assert_eq!(ruled.status, 303, "{}", ruled.body);
    let after = http(s.addr, "GET", &case_path, &[("Cookie", &referee)], None).await;
    assert!(after.body.contains("class=\"ruling\"") && after.body.contains("white played on an occupied point"), "{}", after.body);
    assert!(!after.body.contains("class=\"rule\""), "a ruled case is not offered again");
}

#[tokio::test]
async fn open_live_pages_do_not_hold_up_a_graceful_shutdown() {
    let store = shinpan_storage::testing::fresh_store().await;
    let args = ServeArgs::local(None, std::path::PathBuf::from("/nonexistent"));
    let app = Application::with_store(&args, Some(store)).await.expect("the server starts");
    let (addr, url) = (app.addr(), app.url());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let mut rec = recording(&url).await;
    let g = new_game(&mut rec, 7, 19).await;
    let referee = sign_in(addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let mut streams = Vec::new();
    for path in ["/console/live".to_string(), format!("/console/games/{}/live?from=1", g.id)] {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nCookie: {referee}\r\n\r\n");
        tcp.write_all(req.as_bytes()).await.unwrap();
        let mut buf = vec![0u8; 4096];
        let n = tcp.read(&mut buf).await.unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).contains("text/event-stream"));
        streams.push(tcp);
    }
    drop(rec);
    tx.send(()).unwrap();
    let stopped = tokio::time::timeout(Duration::from_secs(15), served).await;
    assert!(matches!(stopped, Ok(Ok(Ok(())))), "the server stops while live pages are open: {stopped:?}");
}

#[tokio::test]
async fn a_one_time_code_signs_a_player_in_for_their_game_and_colour_once() {
    // Two replicas on one database: a code made on one is exchanged on the other, once.
    let pool = shinpan_storage::testing::fresh_pool().await;
    let s = server_on(shinpan_storage::Store::new(pool.clone())).await;
    let replica = server_on(shinpan_storage::Store::new(pool)).await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 8, 19).await;
    let referee = sign_in(s.addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let game_page = http(s.addr, "GET", &format!("/console/games/{}", g.id), &[("Cookie", &referee)], None).await;
    assert!(game_page.body.contains("action=\"/console/codes\"") && game_page.body.contains("data-colour=\"W\""), "{}", game_page.body);

    let made = http(s.addr, "POST", "/console/codes", &[("Cookie", &referee)], Some(&format!("role=player&game={}&colour=W", g.id))).await;
    assert_eq!(made.status, 200, "{}", made.body);
    assert!(made.body.contains("EGD-2"), "the code is for White's player: {}", made.body);
    let code =
        made.body.split("class=\"code\"").nth(1).and_then(|r| r.split('>').nth(1)).and_then(|r| r.split('<').next()).unwrap().to_string();
    assert_eq!(code.len(), 10, "{code}");

    // The code signs White in on the other replica, limited to this game and colour; it works
    // once, on every replica.
    let r = http(replica.addr, "POST", "/console/sign-in", &[], Some(&format!("code={code}"))).await;
    assert_eq!(r.status, 303, "{}", r.body);
    let cookie = r.header("set-cookie").into_iter().find(|c| c.starts_with("shinpan_token=")).unwrap();
    let white = cookie.split(';').next().unwrap().to_string();
    let page = http(s.addr, "GET", &format!("/console/games/{}", g.id), &[("Cookie", &white)], None).await;
    assert!(page.body.contains("Signed in as EGD-2 (player)"), "{}", page.body);
    assert!(!page.body.contains("action=\"/console/codes\""), "a player is not offered codes");
    let again = http(s.addr, "POST", "/console/sign-in", &[], Some(&format!("code={code}"))).await;
    assert_eq!(again.status, 401);
    assert!(again.body.contains("already used"), "{}", again.body);

    // A player may not create codes, nor a referee a referee's.
    let refused = http(s.addr, "POST", "/console/codes", &[("Cookie", &white)], Some(&format!("role=player&game={}&colour=B", g.id))).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let refused = http(s.addr, "POST", "/console/codes", &[("Cookie", &referee)], Some("role=referee&subject=ref-2")).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
}

/// ChromeDriver serving WebDriver on a loopback port; killed when dropped.
struct Driver {
    child: std::process::Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `chromedriver` on a free loopback port and waits (at most 20 s) until it listens.
async fn chromedriver(binary: &std::path::Path) -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = std::process::Command::new(binary)
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver { child, port };
    for _ in 0..200 {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return driver;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("chromedriver did not listen on port {port} within 20 s");
}

/// Where the browser test writes its screenshots: `SHINPAN_SCREENSHOTS` if set, else the
/// test target's temporary directory.
fn screenshot_dir() -> std::path::PathBuf {
    let dir = std::env::var_os("SHINPAN_SCREENSHOTS")
        .map(std::path::PathBuf::from)
        .or_else(|| option_env!("CARGO_TARGET_TMPDIR").map(|d| std::path::Path::new(d).join("console-screenshots")))
        .unwrap_or_else(|| std::env::temp_dir().join("shinpan-console-screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn shoot(client: &fantoccini::Client, name: &str) {
    let png = client.screenshot().await.expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 5_000, "a real screenshot of {name} ({} bytes)", png.len());
    let path = screenshot_dir().join(format!("{name}.png"));
    std::fs::write(&path, png).unwrap();
    eprintln!("console browser test: {}", path.display());
}

/// Signs in through the page's token form, as a person pastes a token, and waits for the
/// page `next` leads to.
async fn browser_sign_in(client: &fantoccini::Client, base: &str, token: &str, next: &str) {
    use fantoccini::Locator;
    client.goto(&format!("{base}/console?next={next}")).await.unwrap();
    let signed_in = client.find(Locator::Css("form[action='/console/sign-out'] button")).await;
    if let Ok(out) = signed_in {
        out.click().await.unwrap();
        client.wait().for_element(Locator::Css("textarea#token")).await.expect("signed out, on the sign-in page");
        client.goto(&format!("{base}/console?next={next}")).await.unwrap();
    }
    client.find(Locator::Css("textarea#token")).await.expect("the token form").send_keys(token).await.unwrap();
    client.find(Locator::Css("form[action='/console/sign-in'] button")).await.unwrap().click().await.unwrap();
    let want = format!("{base}{next}");
    if client.wait().at_most(Duration::from_secs(60)).for_url(&want.parse().unwrap()).await.is_err() {
        let now = client.current_url().await.map(|u| u.to_string()).unwrap_or_default();
        panic!("signing in did not lead to {want} but to {now}: {}", client.source().await.unwrap_or_default());
    }
}

/// A whole tournament game in a real browser driven through WebDriver (Debian's `chromium`
/// and `chromium-driver`, installed when missing): a referee signs in with a token and opens
/// a game while another client records its moves (each stone appears without a reload; the
/// time from `RecordMove` returning to the stone in the page is measured), the game ends,
/// the proposal is shown, a chain is disputed and its proof line replayed, the result is
/// proposed and confirmed by both players and the referee, and the tournament view and the
/// results page show it; a
/// player of another game is neither offered nor allowed the end of this one. Screenshots of each step are written (see
/// [`screenshot_dir`]); the first page's weight is measured in the browser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_referee_runs_a_game_to_its_result_in_a_real_browser() {
    use fantoccini::Locator;
    let found = tokio::task::spawn_blocking(|| (chromium(), debian_binary(&["/usr/bin/chromedriver"], "chromium-driver"))).await.unwrap();
    let (Some(browser), Some(driver_bin)) = found else {
        eprintln!(
            "SKIPPED: chromium or chromium-driver is not installed and cannot be installed here (no apt-get, or SHINPAN_NO_INSTALL is set)"
        );
        return;
    };
    let driver = chromedriver(&driver_bin).await;
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({
            "binary": browser,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,1000"]
        }),
    );
    let client = fantoccini::ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a WebDriver session");

    let s = server().await;
    let base = s.url.trim_end_matches('/').to_string();
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 6, 7).await;
    let page = format!("/console/games/{}", g.id);
    let referee = testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None);

    // The referee signs in on the sign-in page, which leads to the game.
    client.goto(&format!("{base}/console?next={page}")).await.unwrap();
    shoot(&client, "1-sign-in").await;
    browser_sign_in(&client, &base, &referee, &page).await;
    let weight = client
        .execute(
            "const n = performance.getEntriesByType('navigation')[0];
             return performance.getEntriesByType('resource').reduce((a, e) => a + (e.transferSize || e.encodedBodySize || 0),
                    n.transferSize || n.encodedBodySize || 0);",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        .unwrap();
    eprintln!("console browser test: the game page's first load transferred {weight} bytes");
    assert!(weight > 0 && weight < 300_000, "first load {weight} bytes");

    // Another client records the moves; each stone appears in the open page, live.
    let wait_for_stone = "const p = arguments[0], done = arguments[arguments.length - 1];
        const has = () => document.querySelector('.stone[data-point=\"' + p + '\"]');
        if (has()) { done(true); return; }
        const o = new MutationObserver(() => { if (has()) { o.disconnect(); done(true); } });
        o.observe(document.body, { childList: true, subtree: true });
        setTimeout(() => done(false), 10000);";
    let mut latencies: Vec<f64> = Vec::new();
    let mut n = 0;
    for row in "abcdefg".chars() {
        for (colour, col) in [(pb::Color::Black, 'c'), (pb::Color::White, 'e')] {
            n += 1;
            let point = format!("{col}{row}");
            let seen = async {
                let r = client.execute_async(wait_for_stone, vec![serde_json::json!(point)]).await.unwrap();
                (r, std::time::Instant::now())
            };
            let acked = async {
                play(&mut rec, &g.id, n, colour, Some(&point)).await;
                std::time::Instant::now()
            };
            let ((shown, at), ack) = tokio::join!(seen, acked);
            assert_eq!(shown, serde_json::json!(true), "the stone at {point} never appeared in the page");
            latencies.push(at.saturating_duration_since(ack).as_secs_f64() * 1e3);
        }
    }
    latencies.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |x: f64| latencies[((latencies.len() - 1) as f64 * x).round() as usize];
    eprintln!(
        "console browser test: RecordMove returned → stone in the page, {} moves: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        latencies.len(),
        q(0.5),
        q(0.95),
        q(1.0)
    );
    shoot(&client, "2-game-live").await;
    // The end of play: White's lone stone at bb inside Black's area, then passes.
    for (colour, point) in [(pb::Color::Black, None), (pb::Color::White, Some("bb")), (pb::Color::Black, None), (pb::Color::White, None)] {
        n += 1;
        play(&mut rec, &g.id, n, colour, point).await;
    }
    play(&mut rec, &g.id, n + 1, pb::Color::Black, None).await;

    // The proposal, every chain with its basis.
    client.goto(&format!("{base}{page}/end")).await.unwrap();
    client.wait().at_most(Duration::from_secs(60)).for_element(Locator::Css("table.proofs")).await.expect("the proposal");
    let body = client.source().await.unwrap();
    assert!(body.contains("Proposal") && body.contains("class=\"proof-row"), "{body}");
    shoot(&client, "3-proposal").await;

    // The referee disputes White's stone: the answer with its proof line, replayed step by step.
    client.find(Locator::Css("select[name=point]")).await.unwrap().select_by_value("bb").await.unwrap();
    client.find(Locator::Css("button.dispute")).await.unwrap().click().await.unwrap();
    client.wait().for_element(Locator::Css("span.proof, p.undecided-reason")).await.expect("the dispute's answer, delivered live");
    let answer = client.source().await.unwrap();
    assert!(answer.contains("Proof line") || answer.contains("undecided-reason"), "{answer}");
    if answer.contains("Proof line") {
        let hidden = "return [...document.querySelectorAll('[data-step]')].filter(e => e.style.display === 'none').length";
        let forward = client.find(Locator::Css("[data-steps] button[data-go='1']")).await.unwrap();
        let back = client.find(Locator::Css("[data-steps] button[data-go='-1']")).await.unwrap();
        for _ in 0..50 {
            back.click().await.unwrap();
        }
        let all_hidden = client.execute(hidden, vec![]).await.unwrap().as_u64().unwrap();
        assert!(all_hidden > 0, "stepping back hides the line's stones");
        forward.click().await.unwrap();
        let after_one = client.execute(hidden, vec![]).await.unwrap().as_u64().unwrap();
        assert!(after_one < all_hidden, "one step forward shows the first move ({all_hidden} → {after_one} hidden)");
    }
    shoot(&client, "4-dispute").await;

    // The referee proposes the count; Black, White and the referee confirm (第十条2).
    client.goto(&format!("{base}{page}/end")).await.unwrap();
    client.find(Locator::Css("button.propose")).await.unwrap().click().await.unwrap();
    client.wait().for_element(Locator::Css("button.confirm")).await.expect("the proposal to confirm");
    for token in
        [testing_token(Role::Player, "EGD-1", None, None, None), testing_token(Role::Player, "EGD-2", None, None, None), referee.clone()]
    {
        browser_sign_in(&client, &base, &token, &page).await;
        // The form posts and leads back to the same page: wait for the new document.
        client.execute("window.shinpanOld = true;", vec![]).await.unwrap();
        client.find(Locator::Css("button.confirm")).await.expect("a confirm button").click().await.unwrap();
        let reloaded = "return document.readyState === 'complete' && window.shinpanOld === undefined;";
        let t = std::time::Instant::now();
        while client.execute(reloaded, vec![]).await.ok() != Some(serde_json::json!(true)) {
            assert!(t.elapsed() < Duration::from_secs(60), "the confirmation's page never came back");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(client.current_url().await.unwrap().as_str(), format!("{base}{page}"));
    }
    let fin = client.source().await.unwrap();
    assert!(!fin.contains("class=\"confirm\""), "no confirmation is asked for once final: {fin}");

    // A player of another game is not offered the end of this one, and is refused it.
    browser_sign_in(&client, &base, &testing_token(Role::Player, "EGD-99", None, None, None), &page).await;
    let theirs = client.source().await.unwrap();
    assert!(!theirs.contains(&format!("{page}/end")), "{theirs}");
    client.goto(&format!("{base}{page}/end")).await.unwrap();
    let refused = client.source().await.unwrap();
    assert!(refused.contains("Your role may not do this") && !refused.contains("button class=\"propose\""), "{refused}");

    // The tournament view shows the game with its final result; the results page lists it.
    browser_sign_in(&client, &base, &referee, "/console").await;
    let result = rec.get_game(pb::GetGameRequest { game_id: g.id.clone() }).await.unwrap().into_inner().game.unwrap().result;
    // The view is refreshed live: read the row in one script call, not through an element
    // the refresh may replace.
    let read_row = format!("const r = document.querySelector(\"tr[data-game='{}']\"); return r ? r.innerText : '';", g.id);
    let t = std::time::Instant::now();
    let row = loop {
        let text = client.execute(&read_row, vec![]).await.unwrap().as_str().unwrap_or_default().to_string();
        if text.contains(&result) || t.elapsed() > Duration::from_secs(30) {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(!result.is_empty() && row.contains(&result), "the tournament view's row shows {result}: {row}");
    client.goto(&format!("{base}/console/results")).await.unwrap();
    let results = client.source().await.unwrap();
    assert!(results.contains(&format!("data-game=\"{}\"", g.id)) && results.contains("Honinbo Shusaku"), "{results}");
    shoot(&client, "5-results").await;
    client.close().await.unwrap();
}
