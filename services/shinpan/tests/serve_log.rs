//! `shinpan serve`'s log when standard error is not a terminal (a file, a pipe, journald):
//! plain text lines, without the terminal's colour codes.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_redirected_log_has_no_colour_codes() {
    // The validation service alone needs no database.
    let mut child = Command::new(env!("CARGO_BIN_EXE_shinpan"))
        .args(["serve", "--service", "validation", "--listen", "127.0.0.1:0", "--log", "info"])
        .env_remove("RUST_LOG")
        .env_remove("SHINPAN_LOG")
        .env_remove("SHINPAN_LOG_FORMAT")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run shinpan serve");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut lines = Vec::new();
    while Instant::now() < deadline && !lines.iter().any(|l: &String| l.contains("listening")) {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
            lines.push(l);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let log = lines.join("\n");
    assert!(log.contains("listening"), "no start-up line within 60 s:\n{log}");
    assert!(!log.contains('\u{1b}'), "colour codes in a redirected log:\n{log}");
    assert!(log.contains("INFO"), "{log}");
}
