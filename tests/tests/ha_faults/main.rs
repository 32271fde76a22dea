//! High availability under faults, on this machine (loopback only, bounded in time).
//!
//! A PostgreSQL primary and a streaming standby made with `pg_basebackup -R`, replication
//! **synchronous** (`synchronous_standby_names = '*'`); a TCP proxy standing in for the
//! Kubernetes `-rw` Service; three `shinpan serve --service recording` processes reaching the
//! database through the proxy; and a load of real games (`../shared/games/19`, 12 at once or
//! `SHINPAN_HA_GAMES`) recorded move by move through the three, round robin (or each game
//! through one process, `SHINPAN_HA_BALANCE=game`), each call retried on the next process
//! until it is acknowledged (every move carries an idempotency key, so a retry never records
//! twice). During the load:
//!
//! 1. one process is killed (SIGKILL) and started again;
//! 2. one process is stopped with SIGTERM (graceful drain) and started again;
//! 3. the replication link (a second proxy) holds everything back for a second, the primary
//!    is stopped abruptly (`pg_ctl stop -m immediate`), what the link held is dropped, the
//!    standby is promoted and the proxy switched to it.
//!
//! Meanwhile a fourth process (`recording-probe`, its own proxy) has its database switched
//! from the primary to the standby while that is still in recovery: it must refuse a move
//! with `UNAVAILABLE` saying the database is a standby in recovery and to retry, and record
//! it without a restart once the standby is promoted.
//!
//! Then, on the promoted primary: every acknowledged move is there (and nothing else), no move
//! is stored twice, every game's move numbers run 1..n, every event hash chain verifies (as
//! `shinpan audit verify`), a `WatchGame` subscriber that resumed from its last sequence
//! number after every broken stream saw every event of its game exactly once, and every
//! game's exported SGF has exactly the moves the client had acknowledged. It prints
//! throughput and RecordMove latency per phase and the time to recover after each fault.
//!
//! The negative control runs the same load and the same database fault with asynchronous
//! replication: acknowledged moves are then missing after the failover, and the test
//! asserts that the check finds them (so the check can fail).
//!
//! `cargo test -p shinpan-e2e --test ha_faults -- --nocapture` (it needs the `shinpan`
//! binary of the same profile, built first when missing, and PostgreSQL's server binaries).

use futures::StreamExt;
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient;
use shinpan_storage::{EmbeddedOptions, EmbeddedPostgres, Store};
use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tonic::transport::{Channel, Endpoint};

/// Concurrent games under load (one client task each), unless `SHINPAN_HA_GAMES` says.
const GAMES_AT_ONCE: usize = 12;
/// A call not acknowledged within this long (all retries) fails the test.
const GIVE_UP: Duration = Duration::from_secs(60);

type Client = GameRecordingServiceClient<Channel>;

mod checks;
mod cluster;
mod load;
mod probe;
mod processes;
mod scenario;
use checks::check;
use checks::Verdict;
use cluster::shinpan_bin;
use cluster::signal;
use cluster::sqlx_connect;
use cluster::Pair;
use load::subscribe;
use load::Load;
use probe::Probe;
use processes::Proxy;
use processes::Replica;
