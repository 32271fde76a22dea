//! The load: real games recorded move by move through every process, with retries, and a WatchGame subscriber.

use super::*;

// ---------------------------------------------------------------------------------------
// The load

/// What the clients saw.
#[derive(Default)]
pub(super) struct Observed {
    /// Per phase: latency of every acknowledged RecordMove (µs), and failed attempts by code.
    pub(super) latencies: Vec<Vec<u64>>,
    pub(super) errors: Vec<BTreeMap<String, u64>>,
    /// Per phase: the messages of UNAVAILABLE answers, counted.
    pub(super) unavailable: Vec<BTreeMap<String, u64>>,
    /// Each acknowledged attempt: when it was sent and when its answer arrived.
    pub(super) acks: Vec<(Instant, Instant)>,
    /// Every game: its id and the moves acknowledged, in order.
    pub(super) games: Vec<(String, Vec<pb::Move>)>,
    /// Calls that were answered with an error no retry can cure: (game, move number, status).
    pub(super) refused: Vec<String>,
}

pub(super) struct Load {
    pub(super) clients: Vec<Client>,
    pub(super) next_client: AtomicUsize,
    pub(super) phase: AtomicUsize,
    pub(super) stop: AtomicBool,
    pub(super) observed: Mutex<Observed>,
    pub(super) records: Vec<shinpan_sgf::Record>,
    pub(super) next_record: AtomicUsize,
    pub(super) tournament: String,
    pub(super) next_board: AtomicU32,
    pub(super) acked: AtomicU64,
    /// A game's moves to a process of its own (`SHINPAN_HA_BALANCE=game`), not round robin.
    pub(super) per_game: bool,
}

impl Load {
    pub(super) fn new(urls: &[String], phases: usize) -> Arc<Load> {
        let clients = urls
            .iter()
            .map(|u| {
                let ch = Endpoint::from_shared(u.clone())
                    .unwrap()
                    .connect_timeout(Duration::from_millis(500))
                    .timeout(Duration::from_secs(5))
                    .connect_lazy();
                GameRecordingServiceClient::new(ch)
            })
            .collect();
        let mut records: Vec<shinpan_sgf::Record> = std::fs::read_dir(shinpan_e2e::games_dir().join("19"))
            .expect("../shared/games/19")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
            .filter_map(|p| shinpan_sgf::Record::parse(&shinpan_e2e::read_record(&p)).ok())
            .filter(|r| r.width == 19 && r.height == 19 && r.setup.is_empty() && r.later_setup.is_empty() && r.moves.len() >= 50)
            .filter(|r| r.moves.first().is_some_and(|m| m.color == goban::Color::Black))
            .collect();
        records.sort_by_key(|r| std::cmp::Reverse(r.moves.len()));
        assert!(records.len() >= 20, "too few 19x19 records without handicap in ../shared/games/19");
        let observed = Observed {
            latencies: vec![Vec::new(); phases],
            errors: vec![BTreeMap::new(); phases],
            unavailable: vec![BTreeMap::new(); phases],
            ..Default::default()
        };
        Arc::new(Load {
            clients,
            next_client: AtomicUsize::new(0),
            phase: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            observed: Mutex::new(observed),
            records,
            next_record: AtomicUsize::new(0),
            tournament: format!("HA Cup {}", &uuid::Uuid::new_v4().simple().to_string()[..8]),
            next_board: AtomicU32::new(1),
            acked: AtomicU64::new(0),
            per_game: std::env::var("SHINPAN_HA_BALANCE").is_ok_and(|v| v == "game"),
        })
    }

    pub(super) fn client(&self) -> Client {
        self.clients[self.next_process()].clone()
    }

    /// The next process, round robin.
    pub(super) fn next_process(&self) -> usize {
        self.next_client.fetch_add(1, SeqCst) % self.clients.len()
    }

    pub(super) fn failed(&self, status: &tonic::Status) {
        let phase = self.phase.load(SeqCst);
        let mut o = self.observed.lock().unwrap();
        *o.errors[phase].entry(format!("{:?}", status.code())).or_default() += 1;
        if status.code() == tonic::Code::Unavailable {
            *o.unavailable[phase].entry(status.message().to_string()).or_default() += 1;
        }
    }

    /// Creates a game (retried on every process until it is acknowledged).
    pub(super) async fn create_game(&self) -> String {
        let mut req = shinpan_e2e::new_game(&self.tournament, self.next_board.fetch_add(1, SeqCst), 19);
        req.idempotency_key = uuid::Uuid::new_v4().to_string();
        let started = Instant::now();
        loop {
            match self.client().create_game(req.clone()).await {
                Ok(r) => return r.into_inner().game.expect("a game").id,
                Err(s) => {
                    self.failed(&s);
                    assert!(started.elapsed() < GIVE_UP, "CreateGame not acknowledged within {GIVE_UP:?}: {s}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    }

    /// Records move `n` until it is acknowledged, every attempt through the next process
    /// (round robin: consecutive moves of a game are recorded by different processes, as
    /// behind an L7 balancer). With `SHINPAN_HA_BALANCE=game` a game's moves go to its own
    /// process `home` while it answers, else to the next, which becomes `home` (a client
    /// whose channel reaches one pod through an L4 Service, and another once its connection
    /// breaks). `false` when the server refuses the move for good (FAILED_PRECONDITION,
    /// NOT_FOUND, …: the game is not what the client knows).
    pub(super) async fn record(&self, game: &str, n: u32, mv: &pb::Move, home: &mut usize) -> bool {
        let req = pb::RecordMoveRequest {
            game_id: game.into(),
            move_number: n,
            r#move: Some(mv.clone()),
            client_time: None,
            idempotency_key: format!("{game}/{n}"),
        };
        let started = Instant::now();
        loop {
            let t0 = Instant::now();
            if !self.per_game {
                *home = self.next_process();
            }
            match self.clients[*home].clone().record_move(req.clone()).await {
                Ok(r) => {
                    let latency = t0.elapsed();
                    let r = r.into_inner();
                    let phase = self.phase.load(SeqCst);
                    let mut o = self.observed.lock().unwrap();
                    o.latencies[phase].push(latency.as_micros() as u64);
                    o.acks.push((t0, Instant::now()));
                    self.acked.fetch_add(1, SeqCst);
                    if !r.legal || r.move_number != n {
                        o.refused.push(format!("game {game} move {n}: answered as move {} legal {}", r.move_number, r.legal));
                        return false;
                    }
                    return true;
                }
                Err(s) => {
                    use tonic::Code::*;
                    self.failed(&s);
                    if matches!(s.code(), FailedPrecondition | NotFound | InvalidArgument | AlreadyExists | PermissionDenied) {
                        self.observed.lock().unwrap().refused.push(format!("game {game} move {n}: {:?} {}", s.code(), s.message()));
                        return false;
                    }
                    assert!(started.elapsed() < GIVE_UP, "move {n} of {game} not acknowledged within {GIVE_UP:?}: {s}");
                    *home = (*home + 1) % self.clients.len();
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    }

    /// One client: game after game, move after move, `pace` apart, until stopped (a move
    /// under way is finished first).
    pub(super) async fn play_games(self: Arc<Self>, pace: Duration, first_game: Option<tokio::sync::oneshot::Sender<String>>) {
        let mut first_game = first_game;
        while !self.stop.load(SeqCst) {
            let record = &self.records[self.next_record.fetch_add(1, SeqCst) % self.records.len()];
            let game = self.create_game().await;
            if let Some(tx) = first_game.take() {
                let _ = tx.send(game.clone());
            }
            let mut acked = Vec::new();
            let mut home = self.next_process();
            // Up to the first pass: the game stays in progress (two passes would end it).
            let moves = record.moves.iter().take_while(|m| m.mv != goban::Move::Pass);
            for (i, m) in moves.enumerate() {
                if self.stop.load(SeqCst) {
                    break;
                }
                let mv = shinpan::convert::move_to_pb(m.color, m.mv);
                if !self.record(&game, i as u32 + 1, &mv, &mut home).await {
                    break;
                }
                acked.push(mv);
                if !pace.is_zero() {
                    tokio::time::sleep(pace).await;
                }
            }
            self.observed.lock().unwrap().games.push((game, acked));
        }
    }
}

/// A WatchGame subscriber that resumes from its next sequence number on another process
/// whenever its stream breaks. Appends the sequence numbers received to `seen`, in order;
/// returns how many streams it opened.
pub(super) async fn subscribe(
    load: Arc<Load>,
    game: String,
    seen: Arc<Mutex<Vec<u64>>>,
    stop: tokio::sync::watch::Receiver<bool>,
) -> usize {
    let mut streams = 0;
    let mut stop = stop;
    while !*stop.borrow() {
        let next = seen.lock().unwrap().last().map_or(1, |s| s + 1);
        let req = pb::WatchGameRequest { game_id: game.clone(), from_sequence: next, until_end: false };
        let mut client = load.client();
        let opened = tokio::select! {
            r = client.watch_game(req) => r,
            _ = stop.changed() => break,
        };
        let Ok(stream) = opened else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        streams += 1;
        let mut stream = stream.into_inner();
        loop {
            tokio::select! {
                m = stream.next() => match m {
                    Some(Ok(m)) => seen.lock().unwrap().push(m.event.expect("an event").sequence),
                    _ => break,
                },
                _ = stop.changed() => return streams,
            }
        }
    }
    streams
}
