//! [`EmbeddedPostgres`]: a private PostgreSQL cluster run from the system's server binaries —
//! the `shinpan serve` default when no `DATABASE_URL` is given, and the throwaway cluster of the
//! test harness.
//!
//! * Binaries: `$SHINPAN_PG_BIN` if set, else the newest `/usr/lib/postgresql/<version>/bin`
//!   holding `postgres` and `initdb`. When there are none, Debian's `postgresql` package is
//!   installed with `apt-get` (through `sudo` when not root), saying so on standard error,
//!   one process at a time ([`provision_binaries`]); with `SHINPAN_NO_INSTALL=1`, or where
//!   that fails, [`EmbeddedError::BinariesMissing`], whose message names the package.
//! * PostgreSQL refuses to run as root: when this process is root, `initdb` and `postgres` run as
//!   the `postgres` system user and the data directory is owned by it.
//! * Persistent mode ([`EmbeddedOptions::persistent`]): `initdb` once into the data directory
//!   (e.g. `.shinpan/pg`), reused on every later start so nothing is lost; a server already
//!   running on that directory is reused as is. Password authentication (SCRAM) on 127.0.0.1,
//!   and on a Unix socket inside the data directory (mode 0700, so only the server's user and
//!   root reach it); the generated password is kept in `<data dir>/shinpan-password`.
//! * [`EmbeddedPostgres::url`] names the Unix socket when there is one (`?host=<data dir>`):
//!   a round trip over it costs both processes less CPU than one over loopback TCP, which
//!   matters when PostgreSQL and shinpan share two cores (every recorded move is one round
//!   trip). The TCP port is always open too (`pg_isready`, other clients).
//! * Ephemeral mode ([`EmbeddedOptions::ephemeral`]): a fresh cluster in a new temporary
//!   directory with durability off (fsync off), removed when stopped.
//! * The server listens on a free loopback port. It runs in its own process group (a Ctrl-C to
//!   the terminal does not reach it; its owner stops it after its own graceful shutdown). A
//!   watchdog process stops it (and, when ephemeral, removes the directory) if the owning process
//!   dies without stopping it. [`EmbeddedPostgres::stop`] / `Drop` stop it cleanly (fast
//!   shutdown: open transactions are rolled back, committed data is kept).
//! * Supervision (by the owner, e.g. `shinpan serve`): [`EmbeddedPostgres::try_reap`] notices
//!   (and reaps) a postmaster that exited on its own, [`EmbeddedPostgres::restart`] starts it
//!   again on the same port and data directory (so the URL handed out stays valid), after
//!   removing a `postmaster.pid` left behind only when the process it names is not a live
//!   `postgres`.

use std::fs;
use std::io;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use thiserror::Error;

/// Why an embedded cluster could not be started.
#[derive(Debug, Error)]
pub enum EmbeddedError {
    /// No PostgreSQL server binaries were found.
    #[error(
        "PostgreSQL server binaries (postgres, initdb) not found under /usr/lib/postgresql/*/bin \
         (or $SHINPAN_PG_BIN); install the Debian package `postgresql` (apt-get install -y postgresql), \
         or set DATABASE_URL to use an existing server"
    )]
    BinariesMissing,
    /// The process is root but there is no `postgres` system user to run the server as.
    #[error(
        "running as root, but there is no `postgres` user to run PostgreSQL as (it refuses root); install the Debian package `postgresql`"
    )]
    NoPostgresUser,
    /// `initdb` failed.
    #[error("initdb failed: {0}")]
    Init(String),
    /// The server did not start or did not become ready.
    #[error("PostgreSQL did not start: {0}")]
    Start(String),
    /// A file-system or process error.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: io::Error,
    },
}

fn io_err(context: impl Into<String>) -> impl FnOnce(io::Error) -> EmbeddedError {
    let context = context.into();
    move |source| EmbeddedError::Io { context, source }
}

/// How to run an embedded cluster.
#[derive(Debug, Clone)]
pub struct EmbeddedOptions {
    /// The data directory (created if missing). For an ephemeral cluster, a temporary directory is
    /// created when this is `None`.
    pub data_dir: Option<PathBuf>,
    /// Remove the whole directory when the cluster stops (and durability off).
    pub ephemeral: bool,
    /// Port to listen on; `None` picks a free loopback port.
    pub port: Option<u16>,
    /// `max_connections` of the server.
    pub max_connections: u32,
    /// How long to wait for the server to accept connections.
    pub start_timeout: Duration,
    /// PostgreSQL's `synchronous_commit`. `true` (the default for a persistent cluster): a
    /// commit returns after its WAL is flushed to disk. `false`: commits return before the flush
    /// (flushed within ~0.2 s), much faster on slow disks; an operating-system crash or power loss
    /// can lose the last acknowledged writes, but never corrupts the data or stores anything
    /// twice, and a crash of PostgreSQL or of shinpan loses nothing.
    pub synchronous_commit: bool,
    /// Further server settings passed as `-c name=value` (e.g. `("commit_delay", "200")`).
    pub settings: Vec<(String, String)>,
    /// Also listen on a Unix socket in the data directory, and connect through it (see the
    /// [module docs](self)); skipped when its path would be too long for a socket address.
    pub unix_socket: bool,
}

impl EmbeddedOptions {
    /// A persistent cluster in `data_dir` (e.g. `.shinpan/pg`), reused across starts.
    pub fn persistent(data_dir: impl Into<PathBuf>) -> Self {
        EmbeddedOptions {
            data_dir: Some(data_dir.into()),
            ephemeral: false,
            port: None,
            max_connections: 200,
            start_timeout: Duration::from_secs(60),
            synchronous_commit: true,
            settings: Vec::new(),
            unix_socket: true,
        }
    }

    /// A throwaway cluster in a new temporary directory, removed when stopped.
    pub fn ephemeral() -> Self {
        EmbeddedOptions {
            data_dir: None,
            ephemeral: true,
            port: None,
            max_connections: 300,
            start_timeout: Duration::from_secs(60),
            synchronous_commit: false,
            settings: Vec::new(),
            unix_socket: true,
        }
    }
}

/// A running (or reused) PostgreSQL server on 127.0.0.1. See the [module docs](self).
#[derive(Debug)]
pub struct EmbeddedPostgres {
    root: PathBuf,
    data_dir: PathBuf,
    bin_dir: PathBuf,
    port: u16,
    password: String,
    ephemeral: bool,
    /// Whether the server listens on `<data_dir>/.s.PGSQL.<port>`.
    socket: bool,
    /// The postmaster we started (None when an already-running server was reused).
    child: Option<Child>,
    watchdog: Option<Child>,
    stopped: bool,
    /// Whether this handle started the server (it stops, supervises and restarts it).
    owned: bool,
    /// How the server was started (for [`EmbeddedPostgres::restart`]).
    opts: EmbeddedOptions,
    /// uid and gid the server runs as (root runs it as `postgres`).
    run_as: Option<(u32, u32)>,
}

/// uid and gid of the `postgres` system user.
fn postgres_user() -> Option<(u32, u32)> {
    let name = std::ffi::CString::new("postgres").ok()?;
    // SAFETY: getpwnam returns a pointer to static storage or NULL; we copy the ids out at once.
    unsafe {
        let pw = libc::getpwnam(name.as_ptr());
        if pw.is_null() {
            None
        } else {
            Some(((*pw).pw_uid, (*pw).pw_gid))
        }
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Whether `pid` is a live (not zombie) process whose command is `postgres`, from
/// `/proc/<pid>/stat` ("pid (comm) state ...").
fn is_live_postgres(pid: i32) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { return false };
    let comm = &stat[open + 1..close];
    let state = stat[close + 1..].split_whitespace().next().unwrap_or("");
    comm == "postgres" && !matches!(state, "Z" | "X" | "x")
}

fn process_alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks for existence.
    pid > 0 && unsafe { libc::kill(pid, 0) } == 0
}

/// The directory holding `postgres` and `initdb`: `$SHINPAN_PG_BIN`, else the newest
/// `/usr/lib/postgresql/<version>/bin`. Errors: [`EmbeddedError::BinariesMissing`].
pub fn find_bin_dir() -> Result<PathBuf, EmbeddedError> {
    let over = std::env::var_os("SHINPAN_PG_BIN").map(PathBuf::from);
    find_bin_dir_in(over.as_deref(), Path::new("/usr/lib/postgresql"))
}

/// [`find_bin_dir`] with the override and the search root given: `override_dir` if given (it
/// must hold `postgres` and `initdb`), else the `<root>/<version>/bin` with the highest major
/// version that holds both. Errors: [`EmbeddedError::BinariesMissing`].
pub fn find_bin_dir_in(override_dir: Option<&Path>, root: &Path) -> Result<PathBuf, EmbeddedError> {
    let ok = |d: &Path| d.join("postgres").is_file() && d.join("initdb").is_file();
    if let Some(d) = override_dir {
        return if ok(d) { Ok(d.to_path_buf()) } else { Err(EmbeddedError::BinariesMissing) };
    }
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir(root)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| {
                    let v: u32 = e.file_name().to_str()?.split('.').next()?.parse().ok()?;
                    Some((v, e.path().join("bin")))
                })
                .filter(|(_, d)| ok(d))
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    versions.pop().map(|(_, d)| d).ok_or(EmbeddedError::BinariesMissing)
}

/// Installs Debian's `postgresql` package with `apt-get` when [`find_bin_dir`] finds no
/// binaries, announcing it on standard error (a bare machine needs nothing installed by hand
/// to run the demo or the tests). Concurrent callers (parallel tests) wait for one install
/// through a lock file in the temporary directory. Runs `sudo apt-get` when not root and
/// `sudo` exists. Nothing is installed when `SHINPAN_NO_INSTALL` is set.
///
/// Errors: [`EmbeddedError::BinariesMissing`] when installing is refused, impossible (no
/// `apt-get`) or fails (its output goes to standard error).
pub fn provision_binaries() -> Result<PathBuf, EmbeddedError> {
    if std::env::var_os("SHINPAN_NO_INSTALL").is_some() || !Path::new("/usr/bin/apt-get").exists() {
        return Err(EmbeddedError::BinariesMissing);
    }
    let lock = fs::File::create(std::env::temp_dir().join("shinpan-apt-postgresql.lock"))
        .map_err(|source| EmbeddedError::Io { context: "creating the install lock".into(), source })?;
    lock.lock().map_err(|source| EmbeddedError::Io { context: "taking the install lock".into(), source })?;
    if let Ok(d) = find_bin_dir() {
        return Ok(d);
    }
    eprintln!(
        "shinpan: PostgreSQL's server binaries are missing: installing Debian's `postgresql` with apt-get (SHINPAN_NO_INSTALL=1 refuses) …"
    );
    let sudo = !is_root() && Path::new("/usr/bin/sudo").exists();
    let apt = |args: &[&str]| {
        let mut c = if sudo { Command::new("sudo") } else { Command::new("apt-get") };
        if sudo {
            c.arg("apt-get");
        }
        c.args(["-o", "DPkg::Lock::Timeout=600"]).args(args).env("DEBIAN_FRONTEND", "noninteractive").stdout(Stdio::null()).status()
    };
    let ok = apt(&["update", "-qq"]).is_ok_and(|s| s.success()) && apt(&["install", "-y", "-qq", "postgresql"]).is_ok_and(|s| s.success());
    drop(lock);
    if !ok {
        eprintln!("shinpan: installing `postgresql` failed");
    }
    find_bin_dir()
}

/// A free TCP port on 127.0.0.1 (free when asked; bind promptly).
pub fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl EmbeddedPostgres {
    /// Start (or reuse) a cluster as described by `opts`. Blocking (initdb takes a second or
    /// two); from async code call it in `tokio::task::spawn_blocking`.
    pub fn start(opts: EmbeddedOptions) -> Result<Self, EmbeddedError> {
        let bin_dir = find_bin_dir().or_else(|_| provision_binaries())?;
        let run_as = if is_root() { Some(postgres_user().ok_or(EmbeddedError::NoPostgresUser)?) } else { None };
        let root = match (&opts.data_dir, opts.ephemeral) {
            (Some(d), _) => d.clone(),
            (None, true) => {
                let d = std::env::temp_dir().join(format!("shinpan-pg-{}-{}", std::process::id(), uuid::Uuid::new_v4().simple()));
                fs::create_dir_all(&d).map_err(io_err(format!("create {}", d.display())))?;
                fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).map_err(io_err("chmod temp dir"))?;
                d
            }
            (None, false) => return Err(EmbeddedError::Start("a persistent cluster needs a data directory".into())),
        };
        // For an ephemeral cluster `root` is the temp dir and the cluster lives in root/data.
        let data_dir = if opts.data_dir.is_none() { root.join("data") } else { root.clone() };
        let data_dir = absolute(&data_dir)?;
        if let Some((uid, _)) = run_as {
            check_reachable(&data_dir, uid)?;
        }
        let password_file = data_dir.join("shinpan-password");

        let mut this = EmbeddedPostgres {
            root: absolute(&root)?,
            data_dir: data_dir.clone(),
            bin_dir: bin_dir.clone(),
            port: 0,
            password: String::new(),
            ephemeral: opts.ephemeral,
            socket: false,
            child: None,
            watchdog: None,
            stopped: false,
            owned: false,
            opts: opts.clone(),
            run_as,
        };

        if !data_dir.join("PG_VERSION").is_file() {
            this.password = uuid::Uuid::new_v4().simple().to_string();
            this.initdb(run_as)?;
            fs::write(&password_file, &this.password).map_err(io_err("write password file"))?;
            fs::set_permissions(&password_file, fs::Permissions::from_mode(0o600)).map_err(io_err("chmod password file"))?;
        } else {
            this.password =
                fs::read_to_string(&password_file).map_err(io_err(format!("read {}", password_file.display())))?.trim().to_string();
            if let Some(port) = this.running_port() {
                // A server is already running on this directory (another shinpan): reuse it.
                this.port = port;
                this.socket = this.socket_path(port).exists();
                if this.wait_ready(opts.start_timeout.min(Duration::from_secs(10)), None).is_ok() {
                    tracing::info!(port, dir = %data_dir.display(), "reusing running embedded PostgreSQL");
                    return Ok(this);
                }
            }
        }

        let mut last_err = None;
        for _ in 0..5 {
            let port = match opts.port {
                Some(p) => p,
                None => free_port().map_err(io_err("pick a free port"))?,
            };
            match this.spawn_server(port, &opts, run_as) {
                Ok(()) => {
                    this.owned = true;
                    this.spawn_watchdog()?;
                    tracing::info!(port, dir = %data_dir.display(), "embedded PostgreSQL started");
                    return Ok(this);
                }
                Err(e) => {
                    last_err = Some(e);
                    if opts.port.is_some() {
                        break;
                    }
                }
            }
        }
        Err(last_err.unwrap_or_else(|| EmbeddedError::Start("unknown".into())))
    }

    fn command(&self, program: &str, run_as: Option<(u32, u32)>) -> Command {
        let mut c = Command::new(self.bin_dir.join(program));
        if let Some((uid, gid)) = run_as {
            c.uid(uid).gid(gid);
        }
        c.env_remove("PGDATA").env("LC_ALL", "C.UTF-8");
        c
    }

    fn initdb(&mut self, run_as: Option<(u32, u32)>) -> Result<(), EmbeddedError> {
        fs::create_dir_all(&self.data_dir).map_err(io_err(format!("create {}", self.data_dir.display())))?;
        if let Some((uid, gid)) = run_as {
            std::os::unix::fs::chown(&self.data_dir, Some(uid), Some(gid)).map_err(io_err("chown data dir"))?;
        }
        fs::set_permissions(&self.data_dir, fs::Permissions::from_mode(0o700)).map_err(io_err("chmod data dir"))?;
        // The password goes through a file readable by the server user, removed right after.
        let pwfile = self.root.parent().unwrap_or(Path::new("/tmp")).join(format!(".shinpan-pw-{}", uuid::Uuid::new_v4().simple()));
        let pwfile = if fs::write(&pwfile, &self.password).is_ok() {
            pwfile
        } else {
            let p = std::env::temp_dir().join(format!(".shinpan-pw-{}", uuid::Uuid::new_v4().simple()));
            fs::write(&p, &self.password).map_err(io_err("write initdb password file"))?;
            p
        };
        fs::set_permissions(&pwfile, fs::Permissions::from_mode(0o600)).map_err(io_err("chmod pw file"))?;
        if let Some((uid, gid)) = run_as {
            std::os::unix::fs::chown(&pwfile, Some(uid), Some(gid)).map_err(io_err("chown pw file"))?;
        }
        let out = self
            .command("initdb", run_as)
            .arg("-D")
            .arg(&self.data_dir)
            .args(["-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync", "--auth-local=scram-sha-256", "--auth-host=scram-sha-256"])
            .arg(format!("--pwfile={}", pwfile.display()))
            .stdin(Stdio::null())
            .output();
        let _ = fs::remove_file(&pwfile);
        let out = out.map_err(io_err("run initdb"))?;
        if !out.status.success() {
            return Err(EmbeddedError::Init(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))));
        }
        Ok(())
    }

    /// The port of a live server already running on this data directory, from `postmaster.pid`.
    fn running_port(&self) -> Option<u16> {
        let pid_file = fs::read_to_string(self.data_dir.join("postmaster.pid")).ok()?;
        let lines: Vec<&str> = pid_file.lines().collect();
        let pid: i32 = lines.first()?.trim().parse().ok()?;
        let port: u16 = lines.get(3)?.trim().parse().ok()?;
        process_alive(pid).then_some(port)
    }

    fn log_path(&self) -> PathBuf {
        if self.ephemeral {
            self.root.join("postgres.log")
        } else {
            self.data_dir.with_extension("log")
        }
    }

    fn spawn_server(&mut self, port: u16, opts: &EmbeddedOptions, run_as: Option<(u32, u32)>) -> Result<(), EmbeddedError> {
        let log_path = self.log_path();
        let log =
            fs::OpenOptions::new().create(true).append(true).open(&log_path).map_err(io_err(format!("open {}", log_path.display())))?;
        let log2 = log.try_clone().map_err(io_err("dup log"))?;
        let mut cmd = self.command("postgres", run_as);
        // A Unix socket in the data directory, if its path fits a socket address (108 bytes
        // with the NUL) and needs no quoting in the setting's list syntax.
        let dir = self.data_dir.to_string_lossy().into_owned();
        let socket = opts.unix_socket && self.socket_path(port).as_os_str().len() < 100 && !dir.contains(['"', ',', ' ', '\'', '\\', '\n']);
        cmd.arg("-D")
            .arg(&self.data_dir)
            .arg("-p")
            .arg(port.to_string())
            .args(["-c", "listen_addresses=127.0.0.1", "-c"])
            .arg(if socket { format!("unix_socket_directories={dir}") } else { "unix_socket_directories=".into() })
            .args(["-c", "unix_socket_permissions=0700"])
            .arg("-c")
            .arg(format!("max_connections={}", opts.max_connections));
        if self.ephemeral {
            cmd.args(["-c", "fsync=off", "-c", "full_page_writes=off"]);
        }
        if !opts.synchronous_commit {
            cmd.args(["-c", "synchronous_commit=off"]);
        }
        for (k, v) in &opts.settings {
            cmd.arg("-c").arg(format!("{k}={v}"));
        }
        cmd.stdin(Stdio::null()).stdout(log).stderr(log2).process_group(0);
        let child = cmd.spawn().map_err(io_err("start postgres"))?;
        self.port = port;
        self.socket = socket;
        self.child = Some(child);
        match self.wait_ready(opts.start_timeout, Some(&log_path)) {
            Ok(()) => Ok(()),
            Err(e) => {
                if let Some(mut c) = self.child.take() {
                    let _ = c.kill();
                    let _ = c.wait();
                }
                Err(e)
            }
        }
    }

    fn wait_ready(&mut self, timeout: Duration, log: Option<&Path>) -> Result<(), EmbeddedError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(c) = self.child.as_mut() {
                if let Ok(Some(status)) = c.try_wait() {
                    let tail = log.and_then(|p| fs::read_to_string(p).ok()).unwrap_or_default();
                    let tail: String = tail.lines().rev().take(15).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
                    return Err(EmbeddedError::Start(format!("postgres exited with {status}:\n{tail}")));
                }
            }
            let ready = Command::new(self.bin_dir.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "postgres", "-d", "postgres"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            // Ready means *our* server answers: when we started one, its postmaster.pid must
            // name this port (another server may have taken the port in the meantime).
            let ours = self.child.is_none() || self.running_port() == Some(self.port);
            if ready && ours {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(EmbeddedError::Start(format!("not ready on port {} after {timeout:?}", self.port)));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn spawn_watchdog(&mut self) -> Result<(), EmbeddedError> {
        let Some(child) = self.child.as_ref() else { return Ok(()) };
        let pg = child.id();
        let me = std::process::id();
        let cleanup = if self.ephemeral { format!("rm -rf '{}'", self.root.display()) } else { String::new() };
        let script = format!(
            "while kill -0 {me} 2>/dev/null; do sleep 0.2; done; \
             kill -INT {pg} 2>/dev/null; i=0; \
             while kill -0 {pg} 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; \
             kill -KILL {pg} 2>/dev/null; {cleanup}"
        );
        let wd = Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(io_err("start watchdog"))?;
        self.watchdog = Some(wd);
        Ok(())
    }

    /// The process id of the postmaster this handle started (`None` when a running server
    /// was reused, or after [`EmbeddedPostgres::try_reap`] found it gone).
    pub fn postmaster_pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// If the postmaster this handle started has exited (killed, crashed), reaps it (no
    /// zombie is left holding its pid) and returns its exit status; `None` while it runs,
    /// or when this handle started no server. Does not block.
    pub fn try_reap(&mut self) -> Option<std::process::ExitStatus> {
        let status = self.child.as_mut()?.try_wait().ok()??;
        self.child = None;
        Some(status)
    }

    /// Starts the server again after its postmaster exited ([`EmbeddedPostgres::try_reap`]),
    /// on the same port, data directory and settings, and waits until it accepts connections
    /// (PostgreSQL's crash recovery replays the WAL: committed data is kept). Blocking.
    ///
    /// A `postmaster.pid` left behind is removed when the pid it names is not a live
    /// `postgres` process (a dead or reused pid); otherwise nothing is touched and the error
    /// says which process holds the directory. Does nothing for a reused server (started by
    /// someone else) or one still running.
    ///
    /// # Errors
    /// [`EmbeddedError::Start`] when a live postgres still holds the data directory, when the
    /// server exits at once (e.g. the killed postmaster's backends still hold its shared
    /// memory: retry a little later) or does not become ready within the start timeout;
    /// [`EmbeddedError::Io`] when the lock file cannot be removed or a process not started.
    pub fn restart(&mut self) -> Result<(), EmbeddedError> {
        if self.stopped {
            return Err(EmbeddedError::Start("the cluster was stopped".into()));
        }
        if self.child.is_some() && self.try_reap().is_none() {
            return Ok(()); // still running
        }
        if !self.owned {
            return Err(EmbeddedError::Start("no server was started by this handle".into()));
        }
        self.remove_stale_pid_file()?;
        if let Some(mut w) = self.watchdog.take() {
            let _ = w.kill();
            let _ = w.wait();
        }
        let opts = self.opts.clone();
        let (port, run_as) = (self.port, self.run_as);
        self.spawn_server(port, &opts, run_as)?;
        self.spawn_watchdog()?;
        tracing::info!(port, dir = %self.data_dir.display(), "embedded PostgreSQL restarted");
        Ok(())
    }

    /// Removes `postmaster.pid` when the pid in it is not a live `postgres` process.
    fn remove_stale_pid_file(&self) -> Result<(), EmbeddedError> {
        let path = self.data_dir.join("postmaster.pid");
        let Ok(text) = fs::read_to_string(&path) else { return Ok(()) };
        let pid: Option<i32> = text.lines().next().and_then(|l| l.trim().parse().ok());
        if let Some(pid) = pid.filter(|&p| p > 0 && is_live_postgres(p)) {
            return Err(EmbeddedError::Start(format!("a live postgres process (pid {pid}) holds {}", self.data_dir.display())));
        }
        fs::remove_file(&path).map_err(io_err(format!("remove the stale {}", path.display())))?;
        tracing::warn!(pid, file = %path.display(), "removed a stale PostgreSQL lock file (its process is gone)");
        Ok(())
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The Unix socket the server listens on, if any (`<data dir>/.s.PGSQL.<port>`).
    pub fn unix_socket(&self) -> Option<PathBuf> {
        self.socket.then(|| self.socket_path(self.port))
    }

    fn socket_path(&self, port: u16) -> PathBuf {
        self.data_dir.join(format!(".s.PGSQL.{port}"))
    }

    /// A `postgres://` URL for `database` as the superuser `postgres` (with its password):
    /// `postgres://postgres:<password>@127.0.0.1:<port>/<database>`, followed by
    /// `?host=<data dir, percent-encoded>` when the server has a Unix socket (clients then
    /// connect through the socket; see the [module docs](self)).
    pub fn url(&self, database: &str) -> String {
        let tcp = format!("postgres://postgres:{}@127.0.0.1:{}/{}", self.password, self.port, database);
        if !self.socket {
            return tcp;
        }
        let dir: String = self
            .data_dir
            .to_string_lossy()
            .bytes()
            .map(|b| if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
            .collect();
        format!("{tcp}?host={dir}")
    }

    /// Create `database` if it does not exist yet, and return its URL.
    pub async fn ensure_database(&self, database: &str) -> Result<String, crate::StoreError> {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&self.url("postgres")).await?;
        let exists: Option<i32> =
            sqlx::query_scalar!(r#"SELECT 1 AS "one!" FROM pg_database WHERE datname = $1"#, database).fetch_optional(&mut conn).await?;
        if exists.is_none() {
            let q = format!("CREATE DATABASE \"{}\"", database.replace('"', "\"\""));
            // dynamic: the database's name is an identifier, which cannot be a bind parameter
            match sqlx::query(sqlx::AssertSqlSafe(q)).execute(&mut conn).await {
                Ok(_) => {}
                Err(e) => match crate::StoreError::from(e) {
                    // created concurrently by someone else
                    crate::StoreError::AlreadyExists(_) => {}
                    other => return Err(other),
                },
            }
        }
        let _ = conn.close().await;
        Ok(self.url(database))
    }

    /// Whether this handle started the server (and so stops it); false when a running server was
    /// reused.
    pub fn owns_server(&self) -> bool {
        self.owned
    }

    /// Stop the server (fast shutdown) if this handle started it, wait for it to exit, and remove
    /// an ephemeral cluster's directory. Blocking.
    pub fn stop(mut self) -> Result<(), EmbeddedError> {
        self.stop_inner()
    }

    fn stop_inner(&mut self) -> Result<(), EmbeddedError> {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        if let Some(mut c) = self.child.take() {
            // SAFETY: sending SIGINT (PostgreSQL's fast shutdown) to our own child.
            unsafe {
                libc::kill(c.id() as i32, libc::SIGINT);
            }
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                match c.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
                    _ => {
                        let _ = c.kill();
                        let _ = c.wait();
                        break;
                    }
                }
            }
        }
        if let Some(mut w) = self.watchdog.take() {
            let _ = w.kill();
            let _ = w.wait();
        }
        if self.ephemeral {
            fs::remove_dir_all(&self.root).map_err(io_err(format!("remove {}", self.root.display())))?;
        }
        Ok(())
    }
}

impl Drop for EmbeddedPostgres {
    fn drop(&mut self) {
        if let Err(e) = self.stop_inner() {
            tracing::warn!(error = %e, "stopping embedded PostgreSQL");
        }
    }
}

/// When the server runs as another user (`postgres`), every existing ancestor of the data
/// directory must be searchable by it.
fn check_reachable(data_dir: &Path, uid: u32) -> Result<(), EmbeddedError> {
    use std::os::unix::fs::MetadataExt;
    for dir in data_dir.ancestors().skip(1) {
        let Ok(meta) = fs::metadata(dir) else { continue };
        let mode = meta.mode();
        let searchable = mode & 0o001 != 0 || (meta.uid() == uid && mode & 0o100 != 0);
        if !searchable {
            return Err(EmbeddedError::Start(format!(
                "PostgreSQL runs as the `postgres` user, which cannot reach {} because {} is not searchable by others; \
                 choose a data directory it can reach (e.g. under /var/lib or /tmp) or run `chmod o+x {}`",
                data_dir.display(),
                dir.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

fn absolute(p: &Path) -> Result<PathBuf, EmbeddedError> {
    if p.is_absolute() {
        Ok(p.to_path_buf())
    } else {
        Ok(std::env::current_dir().map_err(io_err("current dir"))?.join(p))
    }
}
