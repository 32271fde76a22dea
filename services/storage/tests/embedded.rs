//! EmbeddedPostgres: the `shinpan serve` default cluster (persistent, reused, stopped cleanly).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use shinpan_storage::embedded::{find_bin_dir_in, EmbeddedError, EmbeddedOptions, EmbeddedPostgres};
use shinpan_storage::{Store, TournamentSettings};

fn temp_root(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shinpan-embedded-test-{tag}-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn wait_gone(pid_file: &Path) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if !pid_file.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[tokio::test]
async fn persistent_cluster_keeps_data_across_restarts() {
    let root = temp_root("persist");
    let dir = root.join(".shinpan").join("pg");
    let d2 = dir.clone();
    let pg = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(EmbeddedOptions::persistent(d2))).await.unwrap().unwrap();
    assert!(pg.owns_server());
    assert!(dir.join("PG_VERSION").is_file());
    let url = pg.ensure_database("shinpan").await.unwrap();
    assert!(url.starts_with("postgres://postgres:"), "{url}");
    assert!(url.contains(&format!("@127.0.0.1:{}/shinpan", pg.port())), "{url}");
    // clients reach it through the Unix socket in the data directory (cheaper than loopback TCP)
    let socket = pg.unix_socket().expect("a Unix socket");
    assert_eq!(socket, pg.data_dir().join(format!(".s.PGSQL.{}", pg.port())));
    assert!(socket.exists());
    assert!(url.ends_with(&format!("/shinpan?host={}", pg.data_dir().display())), "{url}");
    {
        let store = Store::connect(&url).await.unwrap();
        let over_socket: bool = sqlx::query_scalar("SELECT inet_client_addr() IS NULL").fetch_one(store.pool()).await.unwrap();
        assert!(over_socket, "the URL connects through the Unix socket");
        store.create_tournament("Kept Cup", &TournamentSettings::default()).await.unwrap();
        store.pool().close().await;
    }
    // the TCP port answers too (with the password)
    let tcp = url.split('?').next().unwrap().to_string();
    let mut c = <sqlx::PgConnection as sqlx::Connection>::connect(&tcp).await.unwrap();
    let over_tcp: bool = sqlx::query_scalar("SELECT inet_client_addr() IS NOT NULL").fetch_one(&mut c).await.unwrap();
    assert!(over_tcp);
    sqlx::Connection::close(c).await.unwrap();
    // a second start on the same directory while it runs reuses the running server
    let d3 = dir.clone();
    let again = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(EmbeddedOptions::persistent(d3))).await.unwrap().unwrap();
    assert!(!again.owns_server());
    assert_eq!(again.port(), pg.port());
    assert_eq!(again.unix_socket(), pg.unix_socket());
    drop(again); // does not stop the server it does not own
    assert!(dir.join("postmaster.pid").exists());
    tokio::task::spawn_blocking(move || pg.stop()).await.unwrap().unwrap();
    assert!(!dir.join("postmaster.pid").exists(), "stopped cleanly");
    assert!(dir.join("PG_VERSION").is_file(), "data kept");

    // restart: same data
    let d4 = dir.clone();
    let pg = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(EmbeddedOptions::persistent(d4))).await.unwrap().unwrap();
    let url = pg.ensure_database("shinpan").await.unwrap();
    let store = Store::connect(&url).await.unwrap();
    assert!(store.find_tournament("Kept Cup").await.unwrap().is_some());
    store.pool().close().await;
    tokio::task::spawn_blocking(move || drop(pg)).await.unwrap();
    assert!(!dir.join("postmaster.pid").exists(), "Drop stops the server");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn ephemeral_cluster_removes_its_directory() {
    let pg = EmbeddedPostgres::start(EmbeddedOptions::ephemeral()).unwrap();
    let data = pg.data_dir().to_path_buf();
    assert!(data.join("PG_VERSION").is_file());
    pg.stop().unwrap();
    assert!(!data.exists());
    assert!(!data.parent().unwrap().exists());
}

#[test]
fn missing_binaries_name_the_debian_package() {
    let empty = temp_root("nobin");
    let e = find_bin_dir_in(None, &empty).unwrap_err();
    assert!(matches!(e, EmbeddedError::BinariesMissing));
    let msg = e.to_string();
    assert!(msg.contains("`postgresql`") && msg.contains("apt-get install"), "{msg}");
    let e = find_bin_dir_in(Some(&empty), Path::new("/usr/lib/postgresql")).unwrap_err();
    assert!(matches!(e, EmbeddedError::BinariesMissing));
    // a version directory with both binaries is found
    let bin = empty.join("15").join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("postgres"), "").unwrap();
    std::fs::write(bin.join("initdb"), "").unwrap();
    assert_eq!(find_bin_dir_in(None, &empty).unwrap(), bin);
    std::fs::remove_dir_all(&empty).unwrap();
}

/// Child half of `watchdog_stops_an_orphaned_server`: start a persistent cluster in the given
/// directory and exit without stopping it.
#[test]
#[ignore = "child process of watchdog_stops_an_orphaned_server"]
fn watchdog_child() {
    let dir = std::env::var_os("SHINPAN_WATCHDOG_CHILD_DIR").expect("run by watchdog_stops_an_orphaned_server");
    let pg = EmbeddedPostgres::start(EmbeddedOptions::persistent(PathBuf::from(dir))).unwrap();
    assert!(pg.owns_server());
    std::mem::forget(pg);
    std::process::exit(0); // dies without stopping the server
}

#[test]
fn watchdog_stops_an_orphaned_server() {
    let root = temp_root("watchdog");
    let dir = root.join("pg");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "watchdog_child", "--ignored", "--nocapture", "--test-threads=1"])
        .env("SHINPAN_WATCHDOG_CHILD_DIR", &dir)
        .status()
        .unwrap();
    assert!(status.success());
    assert!(dir.join("PG_VERSION").is_file(), "the child created the cluster");
    assert!(wait_gone(&dir.join("postmaster.pid")), "the watchdog stopped the orphaned server");
    assert!(dir.join("PG_VERSION").is_file(), "a persistent cluster's data is kept");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn unreachable_data_directory_is_explained() {
    // only meaningful when the server must run as `postgres` (tests running as root)
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let root = temp_root("private");
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700)).unwrap();
    let e = EmbeddedPostgres::start(EmbeddedOptions::persistent(root.join("pg"))).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("`postgres` user") && msg.contains(&root.display().to_string()), "{msg}");
    assert!(!root.join("pg").exists(), "nothing was created");
    std::fs::remove_dir_all(&root).unwrap();
}

#[tokio::test]
async fn a_stopped_database_is_unavailable() {
    let pg = tokio::task::spawn_blocking(|| EmbeddedPostgres::start(EmbeddedOptions::ephemeral())).await.unwrap().unwrap();
    let url = pg.ensure_database("shinpan").await.unwrap();
    let store = Store::connect(&url).await.unwrap();
    store.ping().await.unwrap();
    let t = store.create_tournament("Down Cup", &TournamentSettings::default()).await.unwrap();
    tokio::task::spawn_blocking(move || pg.stop()).await.unwrap().unwrap();
    let e = store.get_tournament(t.id).await.unwrap_err();
    assert!(matches!(e, shinpan_storage::StoreError::Unavailable(_)), "{e:?}");
    assert!(e.is_retryable());
    // connecting to a server that is not there is Unavailable too
    let e = Store::connect(&url).await.err().expect("no server");
    assert!(matches!(e, shinpan_storage::StoreError::Unavailable(_)), "{e:?}");
}

/// `restart` until it succeeds (the killed postmaster's backends may hold its shared memory
/// for a moment), for at most 30 s.
fn restart_within(pg: &mut EmbeddedPostgres) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match pg.restart() {
            Ok(()) => return,
            Err(e) if Instant::now() > deadline => panic!("no restart within 30 s: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(250)),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_postmaster_is_reaped_and_restarted_and_a_stale_lock_file_handled() {
    let root = temp_root("restart");
    let dir = root.join("pg");
    let d2 = dir.clone();
    let mut pg = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(EmbeddedOptions::persistent(d2))).await.unwrap().unwrap();
    let url = pg.ensure_database("shinpan").await.unwrap();
    let store = Store::connect(&url).await.unwrap();
    store.create_tournament("Before Cup", &TournamentSettings::default()).await.unwrap();
    store.pool().close().await;

    let old = pg.postmaster_pid().expect("this handle started the server") as i32;
    assert!(pg.try_reap().is_none(), "running");
    assert_eq!(unsafe { libc::kill(old, libc::SIGKILL) }, 0);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(s) = pg.try_reap() {
            break s;
        }
        assert!(Instant::now() < deadline, "the killed postmaster is not noticed");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!status.success());
    assert!(!Path::new(&format!("/proc/{old}")).exists(), "reaped: no zombie holds the pid");
    assert!(pg.owns_server() && pg.postmaster_pid().is_none());

    // A lock file naming a live process that is not postgres (a reused pid: this test) is
    // stale: restart removes it.
    std::fs::write(dir.join("postmaster.pid"), format!("{}\n{}\n0\n{}\n", std::process::id(), dir.display(), pg.port())).unwrap();
    let t = Instant::now();
    let mut pg = tokio::task::spawn_blocking(move || {
        restart_within(&mut pg);
        pg
    })
    .await
    .unwrap();
    eprintln!("restarted {:?} after the kill was noticed", t.elapsed());
    let new = pg.postmaster_pid().expect("restarted") as i32;
    assert_ne!(new, old);
    assert_eq!(pg.url("shinpan"), url, "same port and socket: the URL stays valid");
    let store = Store::connect(&url).await.unwrap();
    assert!(store.find_tournament("Before Cup").await.unwrap().is_some(), "nothing lost");
    store.pool().close().await;

    // A lock file naming a live postgres (another cluster's postmaster) is left alone.
    let other = tokio::task::spawn_blocking(|| EmbeddedPostgres::start(EmbeddedOptions::ephemeral())).await.unwrap().unwrap();
    let other_pid = other.postmaster_pid().unwrap();
    unsafe { libc::kill(new, libc::SIGKILL) };
    let (pg, e) = tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + Duration::from_secs(10);
        while pg.try_reap().is_none() {
            assert!(Instant::now() < deadline, "the killed postmaster is not noticed");
            std::thread::sleep(Duration::from_millis(20));
        }
        let lock = format!("{other_pid}\n/elsewhere\n0\n1\n");
        std::fs::write(pg.data_dir().join("postmaster.pid"), &lock).unwrap();
        let e = pg.restart().unwrap_err();
        assert_eq!(std::fs::read_to_string(pg.data_dir().join("postmaster.pid")).unwrap(), lock, "left alone");
        (pg, e)
    })
    .await
    .unwrap();
    let msg = e.to_string();
    assert!(msg.contains(&format!("live postgres process (pid {other_pid})")), "{msg}");
    tokio::task::spawn_blocking(move || {
        other.stop().unwrap();
        pg.stop().unwrap();
    })
    .await
    .unwrap();
    std::fs::remove_dir_all(&root).unwrap();
}
