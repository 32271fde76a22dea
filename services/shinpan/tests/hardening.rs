//! Hostile input against the real server (in-process, 127.0.0.1:0, real PostgreSQL) and the
//! `shinpan` binary: the development secret off loopback, tokens outside their validity,
//! oversized and NUL-bearing strings, errors that echo input, komi and positions that are
//! not Go, and the record and request size limits.

mod common;

use shinpan::auth::{testing_token, Role, DEV_SECRET, ISSUER};
use shinpan_proto::v1 as pb;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tonic::transport::Channel;
use tonic::{Code, Request};
use tonic_types::StatusExt;

/// The server and a channel to it.
struct Server {
    url: String,
    channel: Channel,
    _server: common::Server,
}

async fn server() -> Server {
    let server = common::start(|_| {}).await;
    let channel = shinpan::remote::channel(&server.url).await.expect("connect");
    Server { url: server.url.clone(), channel, _server: server }
}

fn recording(s: &Server) -> pb::game_recording_service_client::GameRecordingServiceClient<Channel> {
    pb::game_recording_service_client::GameRecordingServiceClient::new(s.channel.clone()).max_decoding_message_size(64 << 20)
}

fn new_game(tournament: &str, black: &str) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        tournament: tournament.into(),
        round: 1,
        board_number: 1,
        black: Some(pb::Player { name: black.into(), rank: "7d".into(), federation_id: String::new() }),
        white: Some(pb::Player { name: "Gennan Inseki".into(), rank: "8d".into(), federation_id: String::new() }),
        board_size: 9,
        komi: None,
        handicap: 0,
        rule_set: String::new(),
        idempotency_key: String::new(),
    }
}

/// The first field violation's (field, description) of an INVALID_ARGUMENT status.
fn violation(e: &tonic::Status) -> (String, String) {
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    let br = e.get_details_bad_request().expect("field violations");
    (br.field_violations[0].field.clone(), br.field_violations[0].description.clone())
}

/// Runs `shinpan` with `args` for at most `wait`: (exit code, None if still running and
/// killed; combined stdout and stderr).
fn run_for(args: &[&str], wait: Duration) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shinpan"))
        .args(args)
        .env_remove("SHINPAN_JWT_SECRET")
        .env_remove("DATABASE_URL")
        .env_remove("SHINPAN_LISTEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run shinpan");
    let start = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if start.elapsed() > wait {
            child.kill().expect("kill the server this test started");
            child.wait().expect("reap");
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    child.stderr.take().unwrap().read_to_string(&mut out).unwrap();
    (code, out)
}

#[test]
fn serve_refuses_a_public_address_with_the_development_secret() {
    // No secret on 0.0.0.0: refused before anything starts, naming the flag and the variable.
    let (code, out) = run_for(&["serve", "--service", "validation", "--listen", "0.0.0.0:0"], Duration::from_secs(20));
    assert_eq!(code, Some(1), "serve must refuse, it ran: {out}");
    assert!(out.contains("--jwt-secret") && out.contains("SHINPAN_JWT_SECRET"), "{out}");
    // The development secret given explicitly: refused as well.
    let (code, out) =
        run_for(&["serve", "--service", "validation", "--listen", "0.0.0.0:0", "--jwt-secret", DEV_SECRET], Duration::from_secs(20));
    assert_eq!(code, Some(1), "{out}");
    // A secret of its own that is too short: refused on any address, naming the minimum.
    let (code, out) =
        run_for(&["serve", "--service", "validation", "--listen", "127.0.0.1:0", "--jwt-secret", "hunter2"], Duration::from_secs(20));
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("shorter than 32 bytes") && out.contains("--jwt-secret"), "{out}");
    // A secret of its own: it serves (killed after a few seconds).
    let (code, out) = run_for(
        &["serve", "--service", "validation", "--listen", "0.0.0.0:0", "--jwt-secret", "a secret of this deployment, 32 bytes or more"],
        Duration::from_secs(4),
    );
    assert_eq!(code, None, "{out}");
    assert!(out.contains("shinpan serving"), "{out}");
    assert!(!out.contains("development secret"), "{out}");
    // On loopback without a secret it serves, and warns, whatever the service.
    let (code, out) = run_for(&["serve", "--service", "validation", "--listen", "127.0.0.1:0"], Duration::from_secs(4));
    assert_eq!(code, None, "{out}");
    assert!(out.contains("development secret"), "the warning covers every service: {out}");
}

fn sign(claims: serde_json::Value) -> String {
    jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(DEV_SECRET.as_bytes()),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_outside_their_validity_are_refused() {
    let s = server().await;
    let mut r = pb::result_confirmation_service_client::ResultConfirmationServiceClient::new(s.channel.clone());
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let game = uuid::Uuid::new_v4().to_string();
    let get = |t: &str| {
        let mut req = Request::new(pb::GetResultRequest { game_id: game.clone() });
        req.metadata_mut().insert("authorization", format!("Bearer {t}").parse().unwrap());
        req
    };
    // A well-formed token passes authentication (the game does not exist).
    let ok = sign(serde_json::json!({"sub": "fed", "role": "federation-admin", "iat": now, "exp": now + 3600, "iss": ISSUER}));
    assert_eq!(r.get_result(get(&ok)).await.unwrap_err().code(), Code::NotFound);
    for (claims, why) in [
        (
            serde_json::json!({"sub": "fed", "role": "federation-admin", "iat": now, "nbf": now + 3600, "exp": now + 7200, "iss": ISSUER}),
            "nbf",
        ),
        (serde_json::json!({"sub": "fed", "role": "federation-admin", "iat": now, "exp": now + 30 * 86_400, "iss": ISSUER}), "exp - iat"),
        (serde_json::json!({"sub": "fed", "role": "federation-admin", "iat": now + 86_400, "exp": now + 2 * 86_400, "iss": ISSUER}), "iat"),
        (serde_json::json!({"sub": "", "role": "federation-admin", "iat": now, "exp": now + 3600, "iss": ISSUER}), "sub"),
        (serde_json::json!({"sub": "  ", "role": "federation-admin", "iat": now, "exp": now + 3600, "iss": ISSUER}), "sub"),
    ] {
        let e = r.get_result(get(&sign(claims.clone()))).await.unwrap_err();
        assert_eq!(e.code(), Code::Unauthenticated, "{claims}: {e:?}");
        assert!(e.message().contains(why), "{claims}: {}", e.message());
    }
    // Minting keeps to the same rules.
    let cfg = shinpan::auth::AuthConfig::new(DEV_SECRET);
    assert!(cfg.issue(Role::Referee, "ref", None, None, None, 8 * 86_400).is_err());
    assert!(cfg.issue(Role::Referee, " ", None, None, None, 3600).is_err());
    assert!(cfg.issue(Role::Referee, "ref", None, None, None, 7 * 86_400).is_ok());
    let (code, out) = run_for(&["token", "issue", "--role", "referee", "--subject", "ref", "--ttl", "8d"], Duration::from_secs(20));
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("7 days"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_and_nul_strings_are_invalid_arguments_naming_the_field() {
    let s = server().await;
    let mut c = recording(&s);
    // A 1.9 MB player name.
    let e = c.create_game(new_game("Limit Cup", &"x".repeat(1_900_000))).await.unwrap_err();
    assert_eq!(violation(&e), ("black.name".into(), "at most 200 bytes (this one has 1900000)".into()));
    // A NUL byte: refused with a clear message, not PostgreSQL's.
    let e = c.create_game(new_game("Limit Cup", "Shu\0saku")).await.unwrap_err();
    let (field, why) = violation(&e);
    assert_eq!(field, "black.name");
    assert!(why.contains("NUL"), "{why}");
    let e = c.create_game(new_game(&"t".repeat(201), "Shusaku")).await.unwrap_err();
    assert_eq!(violation(&e).0, "tournament");
    // A 300 KB PB in an imported record.
    let sgf = format!("(;GM[1]FF[4]SZ[9]PB[{}]PW[b];B[ee])", "p".repeat(300_000));
    let e = c.import_sgf(pb::ImportSgfRequest { sgf, ..Default::default() }).await.unwrap_err();
    assert_eq!(violation(&e).0, "black.name");
    // Nothing was stored; the list still answers.
    let g = c.create_game(new_game("Limit Cup", "Shusaku")).await.unwrap().into_inner().game.unwrap();
    let list = c.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner();
    assert_eq!(list.games.len(), 1);
    // A 1 MB idempotency key on RecordMove.
    let mv = pb::Move { color: pb::Color::Black as i32, action: Some(pb::r#move::Action::Point("ee".into())) };
    let req = pb::RecordMoveRequest {
        game_id: g.id.clone(),
        move_number: 1,
        r#move: Some(mv.clone()),
        client_time: None,
        idempotency_key: "k".repeat(1 << 20),
    };
    let e = c.record_move(req).await.unwrap_err();
    assert_eq!(violation(&e), ("idempotency_key".into(), format!("at most 200 bytes (this one has {})", 1 << 20)));
    // A reason over 4 KiB on an objection: refused before anything is read.
    let mut r = pb::result_confirmation_service_client::ResultConfirmationServiceClient::new(s.channel.clone());
    let mut req = Request::new(pb::ObjectRequest { game_id: g.id.clone(), reason: "r".repeat(5000) });
    let t = testing_token(Role::FederationAdmin, "fed", None, None, None);
    req.metadata_mut().insert("authorization", format!("Bearer {t}").parse().unwrap());
    let e = r.object(req).await.unwrap_err();
    assert_eq!(violation(&e).0, "reason");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_do_not_echo_unbounded_input() {
    let s = server().await;
    let mut c = recording(&s);
    let g = c.create_game(new_game("Echo Cup", "Shusaku")).await.unwrap().into_inner().game.unwrap();
    let point = "z".repeat(1 << 20);
    let mv = pb::Move { color: pb::Color::Black as i32, action: Some(pb::r#move::Action::Point(point)) };
    let req = pb::RecordMoveRequest {
        game_id: g.id.clone(),
        move_number: 1,
        r#move: Some(mv),
        client_time: None,
        idempotency_key: String::new(),
    };
    let e = c.record_move(req).await.unwrap_err();
    let (field, why) = violation(&e);
    assert_eq!(field, "move.point");
    assert!(why.len() < 200 && e.message().len() < 300, "{why}");
    let e = c.get_game(pb::GetGameRequest { game_id: "g".repeat(1 << 20) }).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().len() < 300, "{} bytes", e.message().len());
    let mut r = pb::result_confirmation_service_client::ResultConfirmationServiceClient::new(s.channel.clone());
    let mut req = Request::new(pb::GetResultRequest { game_id: "g".repeat(1 << 20) });
    let t = testing_token(Role::FederationAdmin, "fed", None, None, None);
    req.metadata_mut().insert("authorization", format!("Bearer {t}").parse().unwrap());
    let e = r.get_result(req).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().len() < 300, "{} bytes", e.message().len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_export_into_a_closed_pipe_does_not_panic() {
    let s = server().await;
    let mut c = recording(&s);
    let g = c.create_game(new_game("Pipe Cup", "Shusaku")).await.unwrap().into_inner().game.unwrap();
    let url = s.url.clone();
    let (status, err) = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shinpan"))
            .args(["game", "export", &g.id, "--server", &url])
            .env_remove("SHINPAN_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before anything is written, as `| head` does once it has read enough.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        (out.status, String::from_utf8_lossy(&out.stderr).into_owned())
    })
    .await
    .unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(status.code(), Some(101), "{err}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc_sigpipe()), "ended quietly by SIGPIPE: {status:?} {err}");
    }
}

#[cfg(unix)]
fn libc_sigpipe() -> i32 {
    13
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn komi_setup_positions_and_import_defaults_follow_the_rules() {
    let s = server().await;
    let mut c = recording(&s);
    for (k, why) in
        [(f64::NAN, "finite"), (f64::INFINITY, "finite"), (1e6, "within -100..=100"), (-1000.0, "within -100..=100"), (6.3, "0.5")]
    {
        let mut req = new_game("Komi Cup", "Shusaku");
        req.komi = Some(k);
        let (field, d) = violation(&c.create_game(req).await.unwrap_err());
        assert_eq!(field, "komi");
        assert!(d.contains(why), "{k}: {d}");
    }
    let e = c.import_sgf(pb::ImportSgfRequest { sgf: "(;GM[1]SZ[9]KM[-1000];B[ee])".into(), ..Default::default() }).await.unwrap_err();
    assert!(violation(&e).1.contains("within"), "{e:?}");
    // A point set up for both colours in one node.
    let e = c.import_sgf(pb::ImportSgfRequest { sgf: "(;GM[1]SZ[9]AB[ee]AW[ee];B[aa])".into(), ..Default::default() }).await.unwrap_err();
    let (field, d) = violation(&e);
    assert_eq!(field, "sgf");
    assert!(d.contains("AB[ee] and AW[ee]"), "{d}");
    // Round 0 is round 1, board 0 the next free board of the round.
    let import = |sgf: &str| pb::ImportSgfRequest { sgf: sgf.into(), tournament: "Import Cup".into(), ..Default::default() };
    let a = c.import_sgf(import("(;GM[1]SZ[9];B[ee])")).await.unwrap().into_inner().game.unwrap();
    let b = c.import_sgf(import("(;GM[1]SZ[9];B[dd])")).await.unwrap().into_inner().game.unwrap();
    assert_eq!((a.round, a.board_number), (1, 1));
    assert_eq!((b.round, b.board_number), (1, 2));

    // Adjudicate: a chain without liberties, a board that is not square.
    let mut adj = pb::adjudication_service_client::AdjudicationServiceClient::new(s.channel.clone());
    let pos = |width: u32, height: u32, black: &[&str], white: &[&str]| pb::AdjudicateRequest {
        position: Some(pb::adjudicate_request::Position::Board(pb::Position {
            width,
            height,
            black: black.iter().map(|s| s.to_string()).collect(),
            white: white.iter().map(|s| s.to_string()).collect(),
            to_move: pb::Color::Black as i32,
            ko_point: None,
        })),
        ..Default::default()
    };
    let (field, d) = violation(&adj.adjudicate(pos(9, 9, &["ba", "ab"], &["aa"])).await.unwrap_err());
    assert_eq!(field, "board.white");
    assert!(d.contains("no liberty") && d.contains("aa"), "{d}");
    let (field, _) = violation(&adj.adjudicate(pos(9, 7, &["ee"], &[])).await.unwrap_err());
    assert_eq!(field, "board.height");
    let sgf = pb::AdjudicateRequest {
        position: Some(pb::adjudicate_request::Position::Sgf("(;GM[1]SZ[9:7];B[ee])".into())),
        ..Default::default()
    };
    assert_eq!(violation(&adj.adjudicate(sgf).await.unwrap_err()).0, "sgf");
    let mut req = pos(9, 9, &["ee"], &[]);
    req.komi = Some(f64::INFINITY);
    assert!(violation(&adj.adjudicate(req).await.unwrap_err()).1.contains("finite"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_and_requests_over_the_limits_are_refused() {
    let s = server().await;
    let mut c = recording(&s);
    // Nested variations: refused by the SGF reader's depth limit, naming it.
    let deep = format!("(;GM[1]SZ[9]{}", "(;".repeat(5000));
    let (field, d) = violation(&c.import_sgf(pb::ImportSgfRequest { sgf: deep, ..Default::default() }).await.unwrap_err());
    assert_eq!(field, "sgf");
    assert!(d.contains("nesting depth") && d.contains("1000"), "{d}");
    // 1.5 MB: over the record limit.
    let big = format!("(;GM[1]SZ[9]C[{}];B[ee])", "c".repeat(1_500_000));
    let (field, d) = violation(&c.import_sgf(pb::ImportSgfRequest { sgf: big, ..Default::default() }).await.unwrap_err());
    assert_eq!(field, "sgf");
    assert!(d.contains("at most 1048576 bytes"), "{d}");
    // 3 MB: over the server's request limit, refused by the gRPC layer.
    let huge = format!("(;GM[1]SZ[9]C[{}];B[ee])", "c".repeat(3_000_000));
    let e = c.import_sgf(pb::ImportSgfRequest { sgf: huge, ..Default::default() }).await.unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
    assert!(e.message().contains(&shinpan::limits::MAX_REQUEST_BYTES.to_string()), "{e:?}");
    assert!(c.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner().games.is_empty());
}

/// Sends raw bytes as a request body; decodes the answer as `R`.
struct RawCodec<R>(std::marker::PhantomData<R>);
struct RawEncoder;
struct AnswerDecoder<R>(std::marker::PhantomData<R>);

impl tonic::codec::Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(&mut self, item: Vec<u8>, buf: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), tonic::Status> {
        prost::bytes::BufMut::put_slice(buf, &item);
        Ok(())
    }
}

impl<R: prost::Message + Default> tonic::codec::Decoder for AnswerDecoder<R> {
    type Item = R;
    type Error = tonic::Status;
    fn decode(&mut self, buf: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<R>, tonic::Status> {
        R::decode(buf).map(Some).map_err(|e| tonic::Status::internal(e.to_string()))
    }
}

impl<R: prost::Message + Default + Send + 'static> tonic::codec::Codec for RawCodec<R> {
    type Encode = Vec<u8>;
    type Decode = R;
    type Encoder = RawEncoder;
    type Decoder = AnswerDecoder<R>;
    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }
    fn decoder(&mut self) -> AnswerDecoder<R> {
        AnswerDecoder(std::marker::PhantomData)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_is_not_valid_protobuf_is_an_invalid_argument() {
    let s = server().await;
    let mut grpc = tonic::client::Grpc::new(s.channel.clone());
    grpc.ready().await.unwrap();
    // CreateGameRequest.tournament (field 1, length-delimited) holding the bytes FF FE: not UTF-8.
    let body = vec![0x0a, 0x02, 0xff, 0xfe];
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/shinpan.v1.GameRecordingService/CreateGame");
    let e = grpc.unary(Request::new(body), path, RawCodec::<pb::Game>(std::marker::PhantomData)).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("not a valid protobuf message"), "{}", e.message());
    // A truncated message: the same.
    grpc.ready().await.unwrap();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/shinpan.v1.GameRecordingService/GetGame");
    let e = grpc.unary(Request::new(vec![0x0a, 0x10, b'x']), path, RawCodec::<pb::Game>(std::marker::PhantomData)).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
}
