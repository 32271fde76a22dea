//! The referee console against the real server (in-process on 127.0.0.1:0, a fresh
//! PostgreSQL database), its pages fetched over real HTTP/1.1 on the gRPC listener while
//! games are recorded through the real gRPC API: sign-in with a role token, the tournament
//! view, a game's board with the stones where RecordMove put them, the live stream that
//! delivers a move, stepping through the record, a foul with its rule and article, what a
//! player's token is not offered and is refused, both languages; and the game page rendered
//! by a real browser (Debian's headless `chromium`, installed with apt-get when missing).

#[path = "../common/mod.rs"]
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

mod browser;
mod end_and_cases;
mod webdriver;
use browser::chromium;
use browser::debian_binary;
