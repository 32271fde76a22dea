//! The proxy standing in for the `-rw` Service, and the recording processes.

use super::*;

// ---------------------------------------------------------------------------------------
// The proxy standing in for the `-rw` Service

/// A TCP proxy on 127.0.0.1 whose upstream can be switched, and which can hold back what
/// it forwards (a link that stalls). Stands in for the `-rw` Service, and for the network
/// between primary and standby.
pub(super) struct Proxy {
    pub(super) port: u16,
    pub(super) upstream: Arc<AtomicU16>,
    pub(super) generation: tokio::sync::watch::Sender<u64>,
    pub(super) paused: tokio::sync::watch::Sender<bool>,
}

/// Forwards `from` to `to` until either closes; while `paused`, what was read is held back.
pub(super) async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut paused: tokio::sync::watch::Receiver<bool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        while *paused.borrow_and_update() {
            if paused.changed().await.is_err() {
                return;
            }
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

impl Proxy {
    pub(super) async fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let target = Arc::new(AtomicU16::new(upstream));
        let (generation, rx) = tokio::sync::watch::channel(0u64);
        let (paused, paused_rx) = tokio::sync::watch::channel(false);
        let t = target.clone();
        tokio::spawn(async move {
            loop {
                let Ok((inbound, _)) = listener.accept().await else { continue };
                let mut switched = rx.clone();
                switched.borrow_and_update();
                let upstream = t.load(SeqCst);
                let paused = paused_rx.clone();
                tokio::spawn(async move {
                    let Ok(outbound) = TcpStream::connect(("127.0.0.1", upstream)).await else { return };
                    let _ = inbound.set_nodelay(true);
                    let _ = outbound.set_nodelay(true);
                    let (ir, iw) = inbound.into_split();
                    let (or, ow) = outbound.into_split();
                    // Either direction ending, or a switch, closes both sides.
                    tokio::select! {
                        _ = pump(ir, ow, paused.clone()) => {}
                        _ = pump(or, iw, paused) => {}
                        _ = switched.changed() => {}
                    }
                });
            }
        });
        Proxy { port, upstream: target, generation, paused }
    }

    /// Hold back everything from now on (the link stalls).
    pub(super) fn pause(&self) {
        self.paused.send_replace(true);
    }

    /// Cut every open connection; what was held back is never delivered (the link stays
    /// paused: resuming it could deliver held data before a connection notices the cut).
    pub(super) fn cut(&self) {
        self.generation.send_modify(|g| *g += 1);
    }

    /// New connections go to `upstream`; open ones are cut (as when the Service's endpoint
    /// changes and the old primary is gone).
    pub(super) fn switch(&self, upstream: u16) {
        self.upstream.store(upstream, SeqCst);
        self.generation.send_modify(|g| *g += 1);
    }
}

// ---------------------------------------------------------------------------------------
// The recording processes

pub(super) struct Replica {
    pub(super) name: String,
    pub(super) port: u16,
    pub(super) database_url: String,
    pub(super) log: PathBuf,
    pub(super) child: Option<tokio::process::Child>,
}

impl Replica {
    pub(super) fn new(name: &str, root: &Path, database_url: String) -> Replica {
        let port = shinpan_storage::embedded::free_port().unwrap();
        Replica { name: name.into(), port, database_url, log: root.join(format!("{name}.log")), child: None }
    }

    pub(super) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub(super) fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(&self.log).unwrap();
        let child = tokio::process::Command::new(shinpan_bin())
            .args(["serve", "--service", "recording", "--listen", &format!("127.0.0.1:{}", self.port), "--max-connections", "8"])
            .arg("--database-url")
            .arg(&self.database_url)
            .env("SHINPAN_LOG", "warn")
            .env_remove("DATABASE_URL")
            .env_remove("SHINPAN_VALIDATION_URL")
            .stdin(std::process::Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .expect("start shinpan serve");
        self.child = Some(child);
    }

    /// Waits until gRPC health says GameRecordingService is SERVING.
    pub(super) async fn wait_serving(&self, timeout: Duration) {
        use tonic_health::pb::health_client::HealthClient;
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(ch) = Endpoint::from_shared(self.url()).unwrap().connect_timeout(Duration::from_millis(500)).connect().await {
                let req = tonic_health::pb::HealthCheckRequest { service: shinpan_proto::service_names::GAME_RECORDING.into() };
                if let Ok(r) = HealthClient::new(ch).check(req).await {
                    if r.into_inner().status == tonic_health::pb::health_check_response::ServingStatus::Serving as i32 {
                        return;
                    }
                }
            }
            assert!(Instant::now() < deadline, "{} is not serving after {timeout:?}; log: {}", self.name, self.log.display());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub(super) fn pid(&self) -> i32 {
        self.child.as_ref().and_then(|c| c.id()).expect("running") as i32
    }

    /// SIGKILL and reap.
    pub(super) async fn kill(&mut self) {
        let mut child = self.child.take().expect("running");
        child.kill().await.unwrap();
    }

    /// SIGTERM and wait for the drain to finish; returns the exit status.
    pub(super) async fn terminate(&mut self) -> std::process::ExitStatus {
        signal(self.pid(), "TERM");
        let mut child = self.child.take().expect("running");
        tokio::time::timeout(Duration::from_secs(30), child.wait()).await.expect("drained within 30 s").unwrap()
    }
}
