//! The shinpan binary, and PostgreSQL: a primary and a synchronous (or asynchronous) standby.

use super::*;

// ---------------------------------------------------------------------------------------
// The shinpan binary

/// `<target>/<profile>/shinpan` beside this test's executable (`<target>/<profile>/deps/…`),
/// built with cargo when missing (a `cargo test -p shinpan-e2e` alone does not build it).
pub(super) fn shinpan_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let profile_dir = exe.parent().and_then(Path::parent).expect("<target>/<profile>/deps").to_path_buf();
    let bin = profile_dir.join("shinpan");
    if !bin.is_file() {
        let target_dir = profile_dir.parent().expect("<target>").to_path_buf();
        let release = profile_dir.file_name().is_some_and(|n| n == "release");
        let mut cmd = std::process::Command::new(env!("CARGO"));
        cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).args(["build", "-p", "shinpan", "--bin", "shinpan"]);
        cmd.arg("--target-dir").arg(&target_dir);
        if release {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("run cargo build");
        assert!(status.success(), "cargo build -p shinpan failed");
    }
    assert!(bin.is_file(), "{} missing", bin.display());
    bin
}

// ---------------------------------------------------------------------------------------
// PostgreSQL: primary and standby

pub(super) fn bin_dir() -> PathBuf {
    shinpan_storage::embedded::find_bin_dir().expect("PostgreSQL server binaries (apt-get install postgresql)")
}

/// A command of PostgreSQL's run as the owner of `data_dir` (PostgreSQL refuses root; the
/// embedded clusters of a root process belong to the `postgres` user).
pub(super) fn pg_command(program: &str, data_dir: &Path) -> std::process::Command {
    let owner = std::fs::metadata(data_dir).expect("data directory");
    let me = std::fs::metadata("/proc/self").expect("/proc/self");
    let mut cmd = std::process::Command::new(bin_dir().join(program));
    if owner.uid() != me.uid() {
        cmd.uid(owner.uid()).gid(owner.gid());
    }
    cmd.env_remove("PGDATA").env("LC_ALL", "C.UTF-8").stdin(std::process::Stdio::null());
    cmd
}

pub(super) fn run(mut cmd: std::process::Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(out.status.success(), "{what} failed: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

pub(super) struct Pair {
    pub(super) primary: Option<EmbeddedPostgres>,
    pub(super) standby: EmbeddedPostgres,
    pub(super) password: String,
    /// The replication link: the standby streams from the primary through it.
    pub(super) link: Proxy,
}

impl Pair {
    /// A primary in `root/primary` and a standby cloned from it in `root/standby`, streaming
    /// synchronously or not.
    pub(super) async fn start(root: &Path, synchronous: bool) -> Pair {
        let mut opts = EmbeddedOptions::persistent(root.join("primary"));
        opts.unix_socket = false;
        // A process crash (what this test makes) loses nothing without fsync: the page cache
        // survives. Only an operating-system crash would need it.
        opts.settings.push(("fsync".into(), "off".into()));
        let primary = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(opts)).await.unwrap().expect("primary starts");
        primary.ensure_database("shinpan").await.expect("database shinpan");
        let password = std::fs::read_to_string(primary.data_dir().join("shinpan-password")).unwrap().trim().to_string();

        // The standby: a base backup of the primary with its replication settings (-R),
        // owned by the primary's owner.
        let standby_dir = root.join("standby");
        std::fs::create_dir_all(&standby_dir).unwrap();
        let owner = std::fs::metadata(primary.data_dir()).unwrap();
        std::os::unix::fs::chown(&standby_dir, Some(owner.uid()), Some(owner.gid())).unwrap();
        std::fs::set_permissions(&standby_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        // Every file of the data directory is copied, so the server's user must read them all
        // (the embedded cluster's password file is written by this process).
        let password_file = primary.data_dir().join("shinpan-password");
        std::os::unix::fs::chown(&password_file, Some(owner.uid()), Some(owner.gid())).unwrap();
        // Through the link, so that the standby's primary_conninfo (-R) names it too.
        let link = Proxy::start(primary.port()).await;
        let mut backup = pg_command("pg_basebackup", primary.data_dir());
        backup
            .env("PGPASSWORD", &password)
            .args(["-h", "127.0.0.1", "-p", &link.port.to_string(), "-U", "postgres", "-R", "-X", "stream", "-c", "fast", "-D"])
            .arg(&standby_dir);
        run(backup, "pg_basebackup");
        let mut opts = EmbeddedOptions::persistent(standby_dir);
        opts.unix_socket = false;
        opts.settings.push(("fsync".into(), "off".into()));
        // A promotion waits for the next attempt to fetch WAL (5 s by default) before it ends
        // recovery; an operator's failover does not wait that long.
        opts.settings.push(("wal_retrieve_retry_interval".into(), "200ms".into()));
        let standby = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(opts)).await.unwrap().expect("standby starts");
        // Synchronous from now on (not before: with no standby, every commit would wait), on
        // the primary only (the standby, once promoted, has none to wait for).
        if synchronous {
            let mut c = sqlx_connect(&primary.url("postgres")).await;
            sqlx::query("ALTER SYSTEM SET synchronous_standby_names = '*'").execute(&mut c).await.unwrap();
            sqlx::query("SELECT pg_reload_conf()").execute(&mut c).await.unwrap();
        }

        // Streaming, in the expected mode, before anything is written.
        let want = if synchronous { "sync" } else { "async" };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let state: Option<String> = sqlx::query_scalar("SELECT sync_state FROM pg_stat_replication LIMIT 1")
                .fetch_optional(&mut sqlx_connect(&primary.url("postgres")).await)
                .await
                .unwrap();
            if state.as_deref() == Some(want) {
                break;
            }
            assert!(Instant::now() < deadline, "the standby is not streaming ({state:?}, want {want})");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Pair { primary: Some(primary), standby, password, link }
    }

    pub(super) fn url(&self, port: u16, database: &str) -> String {
        format!("postgres://postgres:{}@127.0.0.1:{port}/{database}", self.password)
    }

    /// `pg_ctl stop -m immediate` on the primary: no shutdown checkpoint, connections cut.
    pub(super) fn stop_primary_immediately(&mut self) {
        let primary = self.primary.as_ref().expect("a primary");
        let mut stop = pg_command("pg_ctl", primary.data_dir());
        stop.args(["stop", "-m", "immediate", "-w", "-D"]).arg(primary.data_dir());
        run(stop, "pg_ctl stop -m immediate");
    }

    /// `pg_ctl promote` on the standby, waiting until it accepts writes.
    pub(super) fn promote_standby(&self) {
        let mut promote = pg_command("pg_ctl", self.standby.data_dir());
        promote.args(["promote", "-w", "-D"]).arg(self.standby.data_dir());
        run(promote, "pg_ctl promote");
    }
}

pub(super) async fn sqlx_connect(url: &str) -> sqlx::PgConnection {
    use sqlx::Connection;
    sqlx::PgConnection::connect(url).await.expect("connect to PostgreSQL")
}

pub(super) fn signal(pid: i32, sig: &str) {
    let status = std::process::Command::new("kill").arg(format!("-{sig}")).arg(pid.to_string()).status().expect("kill");
    assert!(status.success(), "kill -{sig} {pid}");
}
