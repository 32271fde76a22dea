//! A process whose database becomes a standby in recovery.

use super::*;

// ---------------------------------------------------------------------------------------
// A process whose database becomes a standby in recovery

/// One game recorded through one process of its own (`recording-probe`), whose database URL
/// leads through a proxy of its own. The proxy is switched from the primary to the standby
/// while it is still in recovery: the process must refuse the game's next move with
/// `UNAVAILABLE` saying so, and record it, without a restart, once the standby is promoted.
pub(super) struct Probe {
    pub(super) replica: Replica,
    pub(super) proxy: Proxy,
    pub(super) client: Client,
    pub(super) game: String,
    pub(super) moves: Vec<pb::Move>,
    pub(super) acked: Vec<pb::Move>,
}

/// What the probe saw while its database was a standby in recovery.
pub(super) struct Refusal {
    /// From the switch to the first answer naming the standby.
    pub(super) after: Duration,
    /// That answer's message.
    pub(super) message: String,
    /// Every failed attempt until then: code and message.
    pub(super) attempts: Vec<String>,
}

impl Probe {
    /// Starts `recording-probe` on the primary (through a proxy of its own) and records the
    /// first move of a game through it.
    pub(super) async fn start(root: &Path, pair: &Pair, load: &Load) -> Probe {
        let proxy = Proxy::start(pair.primary.as_ref().expect("a primary").port()).await;
        let mut replica = Replica::new("recording-probe", root, pair.url(proxy.port, "shinpan"));
        replica.spawn();
        replica.wait_serving(Duration::from_secs(60)).await;
        // Longer than the pool's acquire timeout (5 s), which a refused connection waits out.
        let ch = Endpoint::from_shared(replica.url()).unwrap().timeout(Duration::from_secs(15)).connect_lazy();
        let client = GameRecordingServiceClient::new(ch);
        let game = load.create_game().await;
        let record = &load.records[0];
        let moves = record.moves.iter().take(3).map(|m| shinpan::convert::move_to_pb(m.color, m.mv)).collect();
        let mut probe = Probe { replica, proxy, client, game, moves, acked: Vec::new() };
        probe.record_next(Duration::from_secs(30)).await.expect("the probe's first move");
        probe
    }

    pub(super) fn request(&self) -> pb::RecordMoveRequest {
        let n = self.acked.len() as u32 + 1;
        pb::RecordMoveRequest {
            game_id: self.game.clone(),
            move_number: n,
            r#move: Some(self.moves[self.acked.len()].clone()),
            client_time: None,
            idempotency_key: format!("{}/{n}", self.game),
        }
    }

    /// Sends the next move until it is acknowledged; the failed attempts, or the last error
    /// when it is not acknowledged within `timeout` (or refused for good).
    pub(super) async fn record_next(&mut self, timeout: Duration) -> Result<Vec<String>, String> {
        let started = Instant::now();
        let mut attempts = Vec::new();
        loop {
            match self.client.record_move(self.request()).await {
                Ok(r) if r.get_ref().legal => {
                    self.acked.push(self.moves[self.acked.len()].clone());
                    return Ok(attempts);
                }
                Ok(r) => return Err(format!("answered {:?}", r.into_inner())),
                Err(s) if s.code() == tonic::Code::Unavailable || s.code() == tonic::Code::DeadlineExceeded => {
                    attempts.push(format!("{:?}: {}", s.code(), s.message()));
                    if started.elapsed() > timeout {
                        return Err(format!("not acknowledged within {timeout:?}: {attempts:?}"));
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(s) => return Err(format!("refused: {:?} {}", s.code(), s.message())),
            }
        }
    }

    /// Switches the process's database to `standby` (in recovery) and sends the next move
    /// until the answer says the database is a standby in recovery.
    pub(super) async fn refused_by_standby(&mut self, standby: u16) -> Refusal {
        self.proxy.switch(standby);
        let t = Instant::now();
        let mut attempts = Vec::new();
        loop {
            let s = match self.client.record_move(self.request()).await {
                Ok(r) => panic!("the probe's move was acknowledged by a standby in recovery: {:?}", r.into_inner()),
                Err(s) => s,
            };
            attempts.push(format!("{:?}: {}", s.code(), s.message()));
            assert_eq!(s.code(), tonic::Code::Unavailable, "a move sent to a standby in recovery: {attempts:?}");
            if s.message().contains(shinpan_storage::primary::IN_RECOVERY) {
                return Refusal { after: t.elapsed(), message: s.message().to_string(), attempts };
            }
            assert!(t.elapsed() < Duration::from_secs(30), "no answer named the standby in recovery within 30 s: {attempts:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
