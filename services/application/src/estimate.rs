//! Estimated life and death of a final position, from a program outside shinpan: the
//! estimate that fills the chains hypothetical play (第七条) did not decide, in a
//! proposal ([`crate::proposal`]). An estimate is advice for the players' agreement (第九条);
//! it is never a ruling.
//!
//! A source implements [`Estimator`]; the one provided is GNU Go over GTP ([`GnuGo`]):
//! `gnugo --mode gtp --level L` is started as a child process, given the position
//! (`boardsize`, `clear_board`, `komi`, then one `play` per stone of the position — all
//! chains of a final position have liberties, so placing its stones captures nothing; the
//! player to move's stones first, so that GNU Go sees the other side as the last to move), and
//! asked `final_status_list dead`, `final_status_list seki` and `final_status_list alive`.
//! The child is killed when its time limit runs out.

use goban::{Board, Color, Point, Status, StatusMap};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The position to estimate: the final position of a game.
#[derive(Clone, Copy, Debug)]
pub struct Position<'a> {
    /// The stones.
    pub board: &'a Board,
    /// Komi in points (added to White's score), for sources that weigh it.
    pub komi: f64,
    /// The player to move.
    pub to_move: Color,
}

/// An estimate: a status for every stone the source gave one.
#[derive(Clone, Debug)]
pub struct Estimate {
    /// [`Status::Alive`], [`Status::Dead`] or [`Status::Seki`] per stone;
    /// [`Status::Undecided`] where the source named no status.
    pub status: StatusMap,
    /// The source, e.g. `gnugo-3.8 --level 2 final_status_list`.
    pub source: String,
    /// Wall-clock time the estimate took, process start included.
    pub elapsed: Duration,
}

/// Why a source gave no estimate.
#[derive(Debug, thiserror::Error)]
pub enum EstimateError {
    /// The program could not be started (absent, not executable).
    #[error("cannot start {program}: {message}")]
    Start {
        /// The program's path or name.
        program: String,
        /// The operating system's message.
        message: String,
    },
    /// No complete answer within the time limit; the child was killed.
    #[error("no answer within {0:?} (killed)")]
    Timeout(Duration),
    /// The position is one the source cannot take (size, shape).
    #[error("{0}")]
    Unsupported(String),
    /// The program answered something unreadable or refused a command.
    #[error("{0}")]
    Protocol(String),
}

/// A source of estimated statuses.
pub trait Estimator: Send + Sync {
    /// The source's name as shown with every estimated status (`source` in the JSON).
    fn source(&self) -> String;

    /// Estimates every stone of `position`.
    ///
    /// # Errors
    /// [`EstimateError`]: the source is absent, too slow or answered nothing usable.
    fn estimate(&self, position: Position<'_>) -> Result<Estimate, EstimateError>;
}

/// Default time limit of one GNU Go estimate: the slowest 19x19 estimate at level 2 takes
/// under 2 s on the shared games on an idle core; the margin covers a server whose cores are
/// busy with searches.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Level of a [`GnuGo`] made by `Default` (`--level`): GNU Go's own default.
pub const DEFAULT_LEVEL: u8 = 10;

/// The levels a proposal asks GNU Go at by default ([`gnugo_levels`]): level 2, which on the
/// shared games reproduces `RE` at least as often as GNU Go's default level 10 and its own
/// `final_score`, in well under half the time (`tests/propose_games.rs` prints both figures).
pub const DEFAULT_LEVELS: [u8; 1] = [2];

/// The default estimator of a proposal: GNU Go as [`GnuGo::find`] finds it, at
/// [`DEFAULT_LEVELS`], within [`DEFAULT_TIMEOUT`].
pub fn default_estimator() -> Box<dyn Estimator> {
    gnugo_levels(&GnuGo::find(), &DEFAULT_LEVELS, DEFAULT_TIMEOUT)
}

/// GNU Go 3.x over GTP as an [`Estimator`].
#[derive(Clone, Debug)]
pub struct GnuGo {
    /// The program (`gnugo`, found on `PATH`, or a path).
    pub program: PathBuf,
    /// `--level`: GNU Go's reading depth (0–10; lower is faster).
    pub level: u8,
    /// Wall-clock limit of one estimate, process start included.
    pub timeout: Duration,
}

impl Default for GnuGo {
    fn default() -> GnuGo {
        GnuGo { program: GnuGo::find(), level: DEFAULT_LEVEL, timeout: DEFAULT_TIMEOUT }
    }
}

impl GnuGo {
    /// The program to run: env `GNUGO` if set, else `gnugo` on `PATH`, else Debian's
    /// `/usr/games/gnugo` (the package `gnugo` installs it there, outside a root `PATH`).
    pub fn find() -> PathBuf {
        if let Some(p) = std::env::var_os("GNUGO") {
            return PathBuf::from(p);
        }
        if let Some(paths) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&paths) {
                let p = dir.join("gnugo");
                if p.is_file() {
                    return p;
                }
            }
        }
        PathBuf::from("/usr/games/gnugo")
    }

    /// Whether the program exists (a path that is a file, or found as [`GnuGo::find`] does).
    pub fn available(&self) -> bool {
        self.program.is_file() || (self.program.components().count() == 1 && GnuGo::find().is_file())
    }

    /// Whether the program is there after installing Debian's `gnugo` package with `apt-get`
    /// when it is missing (through `sudo` when not root), announced on standard error, one
    /// process at a time (a lock file in the temporary directory). Used by the test suite
    /// and the demo so that a bare machine needs nothing installed by hand; nothing is
    /// installed when `SHINPAN_NO_INSTALL` is set or there is no `apt-get`.
    pub fn provision(&self) -> bool {
        if self.available() || std::env::var_os("SHINPAN_NO_INSTALL").is_some() || !Path::new("/usr/bin/apt-get").exists() {
            return self.available();
        }
        let Ok(lock) = std::fs::File::create(std::env::temp_dir().join("shinpan-apt-gnugo.lock")) else { return false };
        if lock.lock().is_err() {
            return false;
        }
        if self.available() {
            return true;
        }
        eprintln!("GNU Go is missing: installing Debian's `gnugo` with apt-get (SHINPAN_NO_INSTALL=1 refuses) …");
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let sudo = !root && Path::new("/usr/bin/sudo").exists();
        let apt = |args: &[&str]| {
            let mut c = Command::new(if sudo { "sudo" } else { "apt-get" });
            if sudo {
                c.arg("apt-get");
            }
            c.args(["-o", "DPkg::Lock::Timeout=600"])
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let _ = apt(&["update", "-qq"]) && apt(&["install", "-y", "-qq", "gnugo"]);
        self.available()
    }

    fn source_with(&self, version: &str) -> String {
        format!("gnugo-{version} --level {} final_status_list", self.level)
    }
}

/// Several estimators asked side by side (one thread each), a stone getting the status more
/// than half of those that answered give it ([`Status::Undecided`] where none has a
/// majority). GNU Go's answer on a close position can change with its `--level` in either
/// direction (a large group dead at some levels and alive at others), so a vote of levels is
/// steadier than any one of them.
pub struct Vote {
    /// The estimators asked.
    pub members: Vec<Box<dyn Estimator>>,
}

impl Estimator for Vote {
    fn source(&self) -> String {
        format!("majority of {}", self.members.iter().map(|m| m.source()).collect::<Vec<_>>().join(", "))
    }

    fn estimate(&self, position: Position<'_>) -> Result<Estimate, EstimateError> {
        let started = Instant::now();
        let answers: Vec<Result<Estimate, EstimateError>> = std::thread::scope(|s| {
            let handles: Vec<_> = self.members.iter().map(|m| s.spawn(move || m.estimate(position))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(EstimateError::Protocol("an estimator panicked".into())))).collect()
        });
        let mut errors = Vec::new();
        let mut ok = Vec::new();
        for a in answers {
            match a {
                Ok(e) => ok.push(e),
                Err(e) => errors.push(e),
            }
        }
        if ok.is_empty() {
            return Err(errors.pop().unwrap_or_else(|| EstimateError::Protocol("no estimator to ask".into())));
        }
        let board = position.board;
        let mut status = StatusMap::new(board);
        for p in board.points().filter(|&p| board.get(p).is_some()) {
            let mut best = Status::Undecided;
            for st in [Status::Alive, Status::Dead, Status::Seki] {
                if 2 * ok.iter().filter(|e| e.status.get(p) == st).count() > ok.len() {
                    best = st;
                }
            }
            status.set(p, best);
        }
        let mut source = format!("majority of {}", ok.iter().map(|e| e.source.as_str()).collect::<Vec<_>>().join(", "));
        if !errors.is_empty() {
            source.push_str(&format!(" ({} of {} failed: {})", errors.len(), self.members.len(), errors[0]));
        }
        Ok(Estimate { status, source, elapsed: started.elapsed() })
    }
}

/// GNU Go at each of `levels` ([`GnuGo`] with `program` and `timeout`): the one estimator
/// for one level, a [`Vote`] for several.
pub fn gnugo_levels(program: &Path, levels: &[u8], timeout: Duration) -> Box<dyn Estimator> {
    let one = |level: u8| GnuGo { program: program.to_path_buf(), level, timeout };
    match levels {
        [level] => Box::new(one(*level)),
        _ => Box::new(Vote { members: levels.iter().map(|&l| Box::new(one(l)) as Box<dyn Estimator>).collect() }),
    }
}

/// GTP vertex of `p` on a board of `height` rows: column letter without `I`, row counted from
/// the bottom (`aa` on 19x19 = `A19`).
pub fn gtp_vertex(p: Point, height: u8) -> String {
    let col = if p.x < 8 { b'A' + p.x } else { b'A' + p.x + 1 };
    format!("{}{}", col as char, height - p.y)
}

/// The point of a GTP vertex (`D4`, case-insensitive) on a board of `height` rows.
pub fn gtp_point(v: &str, height: u8) -> Option<Point> {
    let v = v.trim().to_ascii_uppercase();
    let mut chars = v.chars();
    let c = chars.next()? as u8;
    if !c.is_ascii_uppercase() || c == b'I' {
        return None;
    }
    let x = if c < b'I' { c - b'A' } else { c - b'A' - 1 };
    let row: u8 = chars.as_str().parse().ok()?;
    if row == 0 || row > height {
        return None;
    }
    Some(Point::new(x, height - row))
}

/// Runs `program args`, writes `input` to its stdin and reads its stdout to the end, within
/// `timeout`; the child is killed when the time runs out.
fn run_with_timeout(program: &Path, args: &[String], input: String, timeout: Duration) -> Result<String, EstimateError> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| EstimateError::Start { program: program.display().to_string(), message: e.to_string() })?;
    let (tx, rx) = std::sync::mpsc::channel();
    let mut stdin = child.stdin.take();
    let mut stdout = child.stdout.take();
    std::thread::spawn(move || {
        // Written from this thread so that a child that stops reading cannot block the caller.
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(input.as_bytes());
        }
        drop(stdin);
        let mut out = String::new();
        let r = stdout.as_mut().map(|s| s.read_to_string(&mut out));
        let _ = tx.send(r.map(|r| r.map(|_| out)));
    });
    match rx.recv_timeout(timeout) {
        Ok(Some(Ok(out))) => {
            let _ = child.wait();
            Ok(out)
        }
        Ok(_) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(EstimateError::Protocol("cannot read the program's answer".into()))
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(EstimateError::Timeout(timeout))
        }
    }
}

/// The answers of a GTP session whose commands carried ids `1..`: id -> (success, text).
fn gtp_answers(out: &str) -> std::collections::HashMap<u32, (bool, String)> {
    let mut answers = std::collections::HashMap::new();
    for block in out.replace('\r', "").split("\n\n") {
        let block = block.trim_start_matches('\n');
        let (ok, rest) = match block.chars().next() {
            Some('=') => (true, &block[1..]),
            Some('?') => (false, &block[1..]),
            _ => continue,
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(id) = digits.parse::<u32>() {
            answers.insert(id, (ok, rest[digits.len()..].trim().to_string()));
        }
    }
    answers
}

impl Estimator for GnuGo {
    fn source(&self) -> String {
        format!("gnugo --level {} final_status_list", self.level)
    }

    fn estimate(&self, position: Position<'_>) -> Result<Estimate, EstimateError> {
        let started = Instant::now();
        let board = position.board;
        let (w, h) = (board.width(), board.height());
        if w != h || w > 19 {
            return Err(EstimateError::Unsupported(format!("GNU Go takes square boards up to 19x19, not {w}x{h}")));
        }
        let mut cmds: Vec<String> =
            vec!["version".into(), format!("boardsize {w}"), "clear_board".into(), format!("komi {}", position.komi)];
        // GNU Go takes the player of the last `play` as having moved: the stones of the player
        // to move first, then the opponent's, so that its play-out starts with the right side.
        for c in [position.to_move, position.to_move.opponent()] {
            for p in board.points().filter(|&p| board.get(p) == Some(c)) {
                cmds.push(format!("play {} {}", if c == Color::Black { "black" } else { "white" }, gtp_vertex(p, h)));
            }
        }
        let first_query = cmds.len() as u32 + 1;
        for s in ["dead", "seki", "alive"] {
            cmds.push(format!("final_status_list {s}"));
        }
        let mut input = String::new();
        for (i, c) in cmds.iter().enumerate() {
            input.push_str(&format!("{} {c}\n", i + 1));
        }
        input.push_str("quit\n");
        let args = vec!["--mode".to_string(), "gtp".to_string(), "--level".to_string(), self.level.to_string()];
        let out = run_with_timeout(&self.program, &args, input, self.timeout.saturating_sub(started.elapsed()))?;
        let answers = gtp_answers(&out);
        for (i, c) in cmds.iter().enumerate() {
            match answers.get(&(i as u32 + 1)) {
                Some((true, _)) => {}
                Some((false, msg)) => return Err(EstimateError::Protocol(format!("GNU Go refused `{c}`: {msg}"))),
                None => return Err(EstimateError::Protocol(format!("GNU Go gave no answer to `{c}`"))),
            }
        }
        let version = answers.get(&1).map(|a| a.1.clone()).unwrap_or_default();
        let mut status = StatusMap::new(board);
        for p in board.points().filter(|&p| board.get(p).is_some()) {
            status.set(p, Status::Undecided);
        }
        for (k, st) in [Status::Dead, Status::Seki, Status::Alive].into_iter().enumerate() {
            let text = &answers[&(first_query + k as u32)].1;
            for v in text.split_whitespace() {
                let p = gtp_point(v, h).ok_or_else(|| EstimateError::Protocol(format!("GNU Go named `{v}`, not a point")))?;
                if board.get(p).is_some() {
                    status.set(p, st);
                }
            }
        }
        Ok(Estimate { status, source: self.source_with(version.trim()), elapsed: started.elapsed() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_vertices_skip_i_and_count_rows_from_the_bottom() {
        assert_eq!(gtp_vertex(Point::new(0, 0), 19), "A19");
        assert_eq!(gtp_vertex(Point::new(8, 18), 19), "J1");
        assert_eq!(gtp_vertex(Point::new(18, 3), 19), "T16");
        for y in 0..19 {
            for x in 0..19 {
                let p = Point::new(x, y);
                assert_eq!(gtp_point(&gtp_vertex(p, 19), 19), Some(p));
            }
        }
        assert_eq!(gtp_point("I5", 19), None);
        assert_eq!(gtp_point("A20", 19), None);
        assert_eq!(gtp_point("d4", 9), Some(Point::new(3, 5)));
    }

    #[test]
    fn gtp_answers_are_read_by_id() {
        let a = gtp_answers("=1 3.8\n\n=2\n\n?3 illegal move\n\n=4 A1 B2\nC3\n\n");
        assert_eq!(a[&1], (true, "3.8".to_string()));
        assert_eq!(a[&2], (true, String::new()));
        assert_eq!(a[&3], (false, "illegal move".to_string()));
        assert_eq!(a[&4], (true, "A1 B2\nC3".to_string()));
    }

    #[test]
    fn an_absent_program_is_an_error_not_a_panic() {
        let g = GnuGo { program: "/nonexistent/gnugo".into(), ..GnuGo::default() };
        let b = Board::new(9, 9).unwrap();
        let e = g.estimate(Position { board: &b, komi: 6.5, to_move: Color::Black }).unwrap_err();
        assert!(matches!(e, EstimateError::Start { .. }), "{e}");
    }

    #[test]
    fn a_slow_program_is_killed_at_the_time_limit() {
        let t = Instant::now();
        let e = run_with_timeout(Path::new("sleep"), &["30".to_string()], String::new(), Duration::from_millis(200)).unwrap_err();
        assert!(matches!(e, EstimateError::Timeout(_)), "{e}");
        assert!(t.elapsed() < Duration::from_secs(5), "killed at once, not waited for");
    }
}
