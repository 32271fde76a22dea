//! End-to-end tests of `ResultConfirmationService` and `ArbitrationService` over real gRPC on 127.0.0.1:0
//! against a real PostgreSQL: every ending (第六条 中押勝, 第九条 count by agreement and by
//! 第七条・第八条, time, 反則負け 第十二条, 無勝負 第十一条, 両負け, 持碁), an objection (第十条2)
//! with reconstruction, re-adjudication and a referee's ruling, finality (第十条) in the
//! service and in the database, the export, and the role boundaries.

use shinpan::auth::{testing_token, AuthConfig, Claims, Role, DEV_SECRET, ISSUER};
use shinpan_e2e::{pass, play, TestApp};
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::arbitration_service_client::ArbitrationServiceClient;
use shinpan_proto::v1::result_confirmation_service_client::ResultConfirmationServiceClient;
use shinpan_proto::v1::Color::{Black as B, White as W};
use shinpan_storage::Store;
use tonic::transport::Channel;
use tonic::{Code, Request};

const T: &str = "Kisei Cup";

struct Env {
    app: TestApp,
    store: Store,
}

impl Env {
    async fn new() -> Env {
        let store = shinpan_storage::testing::fresh_store().await;
        let app = TestApp::spawn_on(shinpan::configuration::ServiceKind::All, None, Some(store.clone())).await;
        Env { app, store }
    }
    fn results(&self) -> ResultConfirmationServiceClient<Channel> {
        ResultConfirmationServiceClient::new(self.app.channel.clone())
    }
    fn arbitration(&self) -> ArbitrationServiceClient<Channel> {
        ArbitrationServiceClient::new(self.app.channel.clone())
    }

    /// A game of the tournament between "Kato Masao" (federation id `black_id`, Black) and
    /// "Cho Chikun" (`white_id`, White).
    async fn game(&self, table: u32, size: u32, komi: f64, black_id: &str, white_id: &str) -> String {
        let g = self
            .app
            .recording()
            .create_game(pb::CreateGameRequest {
                tournament: T.into(),
                round: 1,
                board_number: table,
                black: Some(pb::Player { name: format!("Kato Masao {black_id}"), rank: "5d".into(), federation_id: black_id.into() }),
                white: Some(pb::Player { name: format!("Cho Chikun {white_id}"), rank: "4d".into(), federation_id: white_id.into() }),
                board_size: size,
                komi: Some(komi),
                handicap: 0,
                rule_set: "japanese-2011".into(),
                ..Default::default()
            })
            .await
            .expect("create game")
            .into_inner()
            .game
            .unwrap();
        g.id
    }

    /// Records moves through RecordMove ("B dd", "W pass"), starting at move `first`;
    /// returns the responses.
    async fn record(&self, game: &str, first: u32, moves: &str) -> Vec<pb::RecordMoveResponse> {
        let mut out = Vec::new();
        let mut n = first;
        for m in moves.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (c, p) = m.split_once(' ').unwrap();
            let c = if c == "B" { B } else { W };
            let mv = if p == "pass" { pass(c) } else { play(c, p) };
            let r = self
                .app
                .recording()
                .record_move(pb::RecordMoveRequest { game_id: game.into(), move_number: n, r#move: Some(mv), ..Default::default() })
                .await
                .unwrap_or_else(|e| panic!("move {n} {m}: {e}"))
                .into_inner();
            if r.legal {
                n += 1;
            }
            out.push(r);
        }
        out
    }
}

fn authed<T>(msg: T, token: &str) -> Request<T> {
    let mut r = Request::new(msg);
    r.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

fn player(id: &str) -> String {
    testing_token(Role::Player, id, None, None, None)
}
fn referee() -> String {
    testing_token(Role::Referee, "referee-1", Some(T), None, None)
}

/// Two walls on a 5x5 board, each with two eyes (pass-alive), column c neutral: 4 points
/// of territory each; then three passes stop play (第九条).
const WALLS: &str = "B ba, W da, B bb, W db, B bc, W dc, B bd, W dd, B be, W de, B ac, W ec, B pass, W pass, B pass";

/// The 三劫 (triple ko) position of goban's tests, built by real moves: ko 1 (bb/cb) and
/// ko 3 (bg/cg) hold a White stone Black can take, ko 2 (gb/hb) a Black stone White can.
const TRIPLE_KO_SETUP: &str = "B ba, W ca, B ga, W ha, B ab, W bb, B fb, W db, B hb, W ib, B bc, W cc, B gc, W hc, \
     B bf, W cf, B ag, W bg, B bh, W dg, B pass, W ch";
const CYCLE: &str = "B cb, W gb, B cg, W bb, B hb, W bg";

async fn confirm(r: &mut ResultConfirmationServiceClient<Channel>, game: &str, token: &str) -> Result<pb::GameResult, tonic::Status> {
    r.confirm_result(authed(pb::ConfirmResultRequest { game_id: game.into(), version: 0, color: 0 }, token))
        .await
        .map(|x| x.into_inner().result.unwrap())
}

async fn confirm_all(env: &Env, game: &str, black: &str, white: &str) -> pb::GameResult {
    let mut r = env.results();
    let a = confirm(&mut r, game, &player(black)).await.expect("black confirms");
    assert_eq!(a.pending, vec!["white", "referee"]);
    assert_eq!(a.state, pb::ResultState::Proposed as i32);
    let b = confirm(&mut r, game, &player(white)).await.expect("white confirms");
    assert_eq!(b.pending, vec!["referee"]);
    let f = confirm(&mut r, game, &referee()).await.expect("referee confirms");
    assert_eq!(f.state, pb::ResultState::Final as i32, "{f:?}");
    assert!(f.pending.is_empty() && f.final_time.is_some());
    assert_eq!(f.confirmations.len(), 3);
    f
}

async fn propose(env: &Env, game: &str, ending: pb::Ending, winner: i32, token: &str) -> Result<pb::GameResult, tonic::Status> {
    env.results()
        .propose_result(authed(
            pb::ProposeResultRequest { game_id: game.into(), ending: ending as i32, winner, ..Default::default() },
            token,
        ))
        .await
        .map(|r| r.into_inner().result.unwrap())
}

mod endings;
mod roles;
mod rulings;
mod undecided;
