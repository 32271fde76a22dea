//! Hostile requests to every RPC of every service, as a fuzzer sends them: a valid request of
//! each RPC, encoded, then mutated at random (bytes flipped, cut, repeated, inserted) and sent
//! as it is over real gRPC to the real server (all services, a real PostgreSQL, a federation
//! administrator's token so that every handler runs to its end).
//!
//! Asserted for every call: the answer is a response or a status the client can act on —
//! never `INTERNAL` or `UNKNOWN` (a handler that panicked or leaked a database error) — and
//! the server still answers a plain call afterwards. `SHINPAN_FUZZ_CASES` sets the mutations
//! per RPC (default 60, a bounded run for CI; `SHINPAN_FUZZ_CASES=5000` is the longer run);
//! `SHINPAN_FUZZ_SEED` replays a run (the seed is printed).

use prost::bytes::{Buf, BufMut};
use prost::Message;
use shinpan::auth::{testing_token, Role};
use shinpan::configuration::ServeArgs;
use shinpan::startup::Application;
use shinpan_proto::v1 as pb;
use std::time::Duration;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};

/// Sends and receives protobuf bytes as they are.
#[derive(Clone, Copy, Default)]
struct Raw;

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        let n = src.remaining();
        Ok(Some(src.copy_to_bytes(n).to_vec()))
    }
}

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

/// xorshift64*: a small reproducible source of mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One random mutation of `seed`'s bytes (a few rounds of flips, cuts, repeats, insertions).
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(6) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = [0x00, 0x7f, 0x80, 0xff, 0x01][rng.below(5)];
            }
            2 => b.truncate(rng.below(b.len() + 1)),
            3 if !b.is_empty() => {
                let i = rng.below(b.len());
                let j = (i + rng.below(16)).min(b.len());
                let chunk = b[i..j].to_vec();
                for _ in 0..1 + rng.below(8) {
                    b.splice(j..j, chunk.iter().copied());
                }
            }
            4 => {
                let i = rng.below(b.len() + 1);
                let extra: Vec<u8> = (0..1 + rng.below(12)).map(|_| rng.next() as u8).collect();
                b.splice(i..i, extra);
            }
            _ => {
                // A varint-length string field of a random tag with hostile content.
                let tag = (1 + rng.below(12)) as u8;
                let body: &[u8] = [&b"\0\0"[..], &b"\xff\xfe"[..], "石".as_bytes(), &b"aa,zz,tt"[..]][rng.below(4)];
                b.push(tag << 3 | 2);
                b.push(body.len() as u8);
                b.extend_from_slice(body);
            }
        }
    }
    b
}

const SGF: &str = "(;GM[1]FF[4]SZ[9]KM[5.5]RU[Japanese]PB[Black]PW[White];B[ee];W[gc];B[cg];W[];B[])";

fn player(name: &str) -> Option<pb::Player> {
    Some(pb::Player { name: name.into(), rank: "3d".into(), federation_id: String::new() })
}

/// A valid request of every RPC (path, encoded request, whether the answer is a stream).
fn seeds(game: &str, case: &str) -> Vec<(&'static str, Vec<u8>, bool)> {
    let mv = Some(pb::Move { color: pb::Color::White as i32, action: Some(pb::r#move::Action::Point("dd".into())) });
    let position = pb::Position {
        width: 9,
        height: 9,
        black: vec!["ee".into(), "ef".into()],
        white: vec!["gc".into()],
        to_move: pb::Color::Black as i32,
        ko_point: None,
    };
    let agreement = pb::Agreement { stones: vec!["gc".into()], status: pb::ChainStatus::Dead as i32 };
    let adjudicate = pb::AdjudicateRequest {
        position: Some(pb::adjudicate_request::Position::Sgf(SGF.into())),
        rule_set: "japanese-2011".into(),
        komi: Some(6.5),
        agreements: vec![agreement.clone()],
        disputed: vec!["gc".into()],
        budget_nodes: 2_000,
        budget_ms: 2_000,
    };
    let ruling =
        pb::Ruling { kind: pb::RulingKind::Amend as i32, reason: "fuzz".into(), amended_result: "W+6.5".into(), ..Default::default() };
    let g = game.to_string();
    vec![
        (
            "/shinpan.v1.GameRecordingService/CreateGame",
            pb::CreateGameRequest {
                tournament: "Fuzz Cup".into(),
                round: 1,
                board_number: 0,
                black: player("Black"),
                white: player("White"),
                board_size: 9,
                komi: Some(5.5),
                handicap: 0,
                rule_set: "japanese-2011".into(),
                idempotency_key: String::new(),
            }
            .encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.GameRecordingService/RecordMove",
            pb::RecordMoveRequest {
                game_id: g.clone(),
                move_number: 2,
                r#move: mv.clone(),
                client_time: None,
                idempotency_key: "k".into(),
            }
            .encode_to_vec(),
            false,
        ),
        ("/shinpan.v1.GameRecordingService/Resign", pb::ResignRequest { game_id: g.clone(), ..Default::default() }.encode_to_vec(), false),
        ("/shinpan.v1.GameRecordingService/GetGame", pb::GetGameRequest { game_id: g.clone() }.encode_to_vec(), false),
        (
            "/shinpan.v1.GameRecordingService/ListGames",
            pb::ListGamesRequest { tournament: "Fuzz Cup".into(), ..Default::default() }.encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.GameRecordingService/WatchGame",
            pb::WatchGameRequest { game_id: g.clone(), from_sequence: 1, until_end: true }.encode_to_vec(),
            true,
        ),
        (
            "/shinpan.v1.GameRecordingService/ImportSgf",
            pb::ImportSgfRequest { sgf: SGF.into(), tournament: "Fuzz Cup".into(), round: 2, ..Default::default() }.encode_to_vec(),
            false,
        ),
        ("/shinpan.v1.GameRecordingService/ExportSgf", pb::ExportSgfRequest { game_id: g.clone() }.encode_to_vec(), false),
        (
            "/shinpan.v1.RuleValidationService/ValidateMove",
            pb::ValidateMoveRequest {
                state: Some(pb::validate_move_request::State::Position(position)),
                r#move: mv,
                rule_set: String::new(),
            }
            .encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.RuleValidationService/ValidateRecord",
            pb::ValidateRecordRequest { record: Some(pb::validate_record_request::Record::Sgf(SGF.into())), rule_set: String::new() }
                .encode_to_vec(),
            false,
        ),
        ("/shinpan.v1.RuleValidationService/ListRuleSets", pb::ListRuleSetsRequest::default().encode_to_vec(), false),
        ("/shinpan.v1.AdjudicationService/Adjudicate", adjudicate.encode_to_vec(), false),
        (
            "/shinpan.v1.AdjudicationService/AdjudicateStream",
            pb::AdjudicateStreamRequest { request: Some(adjudicate.clone()) }.encode_to_vec(),
            true,
        ),
        (
            "/shinpan.v1.ResultConfirmationService/ProposeResult",
            pb::ProposeResultRequest {
                game_id: g.clone(),
                ending: pb::Ending::Count as i32,
                agreements: vec![agreement],
                ..Default::default()
            }
            .encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.ResultConfirmationService/ConfirmResult",
            pb::ConfirmResultRequest { game_id: g.clone(), ..Default::default() }.encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.ResultConfirmationService/Object",
            pb::ObjectRequest { game_id: g.clone(), reason: "fuzz".into() }.encode_to_vec(),
            false,
        ),
        ("/shinpan.v1.ResultConfirmationService/GetResult", pb::GetResultRequest { game_id: g.clone() }.encode_to_vec(), false),
        (
            "/shinpan.v1.ResultConfirmationService/ExportResults",
            pb::ExportResultsRequest { tournament: "Fuzz Cup".into(), egf_class: "C".into(), ..Default::default() }.encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.ResultConfirmationService/CorrectResult",
            pb::CorrectResultRequest { game_id: g.clone(), ..Default::default() }.encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.ArbitrationService/OpenCase",
            pb::OpenCaseRequest { game_id: g.clone(), kind: pb::CaseKind::Referee as i32, reason: "fuzz".into(), evidence: None }
                .encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.ArbitrationService/ListCases",
            pb::ListCasesRequest { tournament: "Fuzz Cup".into(), ..Default::default() }.encode_to_vec(),
            false,
        ),
        ("/shinpan.v1.ArbitrationService/GetCase", pb::GetCaseRequest { case_id: case.into() }.encode_to_vec(), false),
        (
            "/shinpan.v1.ArbitrationService/RuleCase",
            pb::RuleCaseRequest { case_id: case.into(), ruling: Some(ruling) }.encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.ArbitrationService/SetCaseState",
            pb::SetCaseStateRequest { case_id: case.into(), state: pb::CaseState::UnderReview as i32, reason: "fuzz".into() }
                .encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.ArbitrationService/SetNoResultPolicy",
            pb::SetNoResultPolicyRequest { tournament: "Fuzz Cup".into(), policy: "nigiri".into() }.encode_to_vec(),
            false,
        ),
        (
            "/shinpan.v1.ArbitrationService/GetNoResultPolicy",
            pb::GetNoResultPolicyRequest { tournament: "Fuzz Cup".into() }.encode_to_vec(),
            false,
        ),
    ]
}

fn authed<T>(msg: T, token: &str) -> Request<T> {
    let mut r = Request::new(msg);
    r.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    r.set_timeout(Duration::from_secs(20));
    r
}

/// Sends `bytes` to `path`; the status of the answer (`Ok` for a response, the first message
/// of a stream and its end).
async fn send(
    grpc: &mut tonic::client::Grpc<Channel>,
    path: &'static str,
    bytes: Vec<u8>,
    stream: bool,
    token: &str,
) -> Result<(), Status> {
    grpc.ready().await.map_err(|e| Status::unavailable(e.to_string()))?;
    let path = PathAndQuery::from_static(path);
    if stream {
        let mut s = grpc.server_streaming(authed(bytes, token), path, Raw).await?.into_inner();
        // A few messages, then hang up (a watch of a game in play would wait for ever).
        for _ in 0..3 {
            match tokio::time::timeout(Duration::from_millis(300), s.message()).await {
                Ok(Ok(Some(_))) => continue,
                Ok(Ok(None)) | Err(_) => break,
                Ok(Err(e)) => return Err(e),
            }
        }
        Ok(())
    } else {
        grpc.unary(authed(bytes, token), path, Raw).await.map(|_| ())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutated_requests_to_every_rpc_get_a_clear_answer() {
    let store = shinpan_storage::testing::fresh_store().await;
    let mut args = ServeArgs::local(None, std::path::PathBuf::from("/nonexistent"));
    args.max_budget_nodes = 20_000;
    let app = Application::with_store(&args, Some(store)).await.unwrap();
    let url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let channel = shinpan::remote::channel(&url).await.unwrap();
    let token = testing_token(Role::FederationAdmin, "fuzz-admin", None, None, None);

    // A game in play with a move, and a case on it, so that ids in the seeds lead somewhere.
    let mut rec = pb::game_recording_service_client::GameRecordingServiceClient::new(channel.clone());
    let create = pb::CreateGameRequest {
        tournament: "Fuzz Cup".into(),
        round: 1,
        black: player("Black"),
        white: player("White"),
        board_size: 9,
        komi: Some(5.5),
        rule_set: "japanese-2011".into(),
        ..Default::default()
    };
    let game = rec.create_game(authed(create, &token)).await.unwrap().into_inner().game.unwrap();
    let mv = pb::Move { color: pb::Color::Black as i32, action: Some(pb::r#move::Action::Point("ee".into())) };
    rec.record_move(authed(
        pb::RecordMoveRequest { game_id: game.id.clone(), move_number: 1, r#move: Some(mv), ..Default::default() },
        &token,
    ))
    .await
    .unwrap();
    let mut arb = pb::arbitration_service_client::ArbitrationServiceClient::new(channel.clone());
    let case = arb
        .open_case(authed(
            pb::OpenCaseRequest { game_id: game.id.clone(), kind: pb::CaseKind::Referee as i32, reason: "seed".into(), evidence: None },
            &token,
        ))
        .await
        .unwrap()
        .into_inner()
        .case
        .unwrap();

    let cases: usize = std::env::var("SHINPAN_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let seed: u64 = std::env::var("SHINPAN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1);
    eprintln!("SHINPAN_FUZZ_SEED={seed} SHINPAN_FUZZ_CASES={cases}");
    let mut rng = Rng(seed);
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    let mut codes: std::collections::BTreeMap<String, usize> = Default::default();
    let mut bad = Vec::new();
    let rpcs = seeds(&game.id, &case.id);
    for (path, seed_bytes, stream) in &rpcs {
        // The seed itself first: it must be answered too.
        for k in 0..=cases {
            let bytes = if k == 0 { seed_bytes.clone() } else { mutate(seed_bytes, &mut rng) };
            let r = send(&mut grpc, path, bytes.clone(), *stream, &token).await;
            let code = r.as_ref().err().map_or(Code::Ok, |s| s.code());
            *codes.entry(format!("{code:?}")).or_default() += 1;
            if matches!(code, Code::Internal | Code::Unknown) {
                let s = r.unwrap_err();
                bad.push(format!("{path} {:?}: {:?} {}", bytes.iter().take(64).collect::<Vec<_>>(), s.code(), s.message()));
            }
        }
    }
    // Still serving.
    let got = rec.get_game(authed(pb::GetGameRequest { game_id: game.id.clone() }, &token)).await;
    assert!(got.is_ok(), "the server no longer answers: {got:?}");
    eprintln!("{} RPCs x {} mutations; answers by code: {codes:?}", rpcs.len(), cases);
    assert!(bad.is_empty(), "INTERNAL/UNKNOWN answers (seed {seed}):\n{}", bad.join("\n"));
    assert!(codes.get("InvalidArgument").copied().unwrap_or(0) > 0, "no mutation was refused as invalid: {codes:?}");
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}
