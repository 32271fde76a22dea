//! A real browser: Debian's Chromium, found or installed, renders the game page (DOM and screenshot).

use super::*;

/// Debian's chromium, installed with apt-get when missing (as the embedded PostgreSQL is).
/// A Debian binary at one of `paths`, installing `package` with apt-get when it is missing
/// (as root, or through `sudo -n`); `None` when it cannot be had (no apt-get, or
/// `SHINPAN_NO_INSTALL` is set).
pub(super) fn debian_binary(paths: &[&str], package: &str) -> Option<std::path::PathBuf> {
    let find = || paths.iter().map(std::path::PathBuf::from).find(|p| p.exists());
    if let Some(p) = find() {
        return Some(p);
    }
    if std::env::var_os("SHINPAN_NO_INSTALL").is_some() || !std::path::Path::new("/usr/bin/apt-get").exists() {
        return None;
    }
    eprintln!("console test: {package} is missing: installing Debian's `{package}` with apt-get (SHINPAN_NO_INSTALL=1 refuses) …");
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let apt = |args: &[&str]| {
        let mut c = if root { std::process::Command::new("apt-get") } else { std::process::Command::new("sudo") };
        if !root {
            c.arg("-n").arg("apt-get");
        }
        c.args(["-o", "DPkg::Lock::Timeout=600"]).args(args).env("DEBIAN_FRONTEND", "noninteractive").status().is_ok_and(|s| s.success())
    };
    let _ = apt(&["install", "-y", "-qq", package]) || (apt(&["update", "-qq"]) && apt(&["install", "-y", "-qq", package]));
    find()
}

pub(super) fn chromium() -> Option<std::path::PathBuf> {
    debian_binary(&["/usr/bin/chromium", "/usr/bin/chromium-browser"], "chromium")
}

#[tokio::test]
pub(super) async fn a_real_browser_renders_the_game_page() {
    let Some(browser) = tokio::task::spawn_blocking(chromium).await.unwrap() else {
        eprintln!("SKIPPED: chromium is not installed and cannot be installed here (no apt-get, or SHINPAN_NO_INSTALL is set)");
        return;
    };
    let s = server().await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 4, 19).await;
    for (n, c, p) in [(1, pb::Color::Black, "pd"), (2, pb::Color::White, "dp"), (3, pb::Color::Black, "pp")] {
        play(&mut rec, &g.id, n, c, Some(p)).await;
    }
    // The browser signs in as a referee would (the form posts the token, the server sets the
    // cookie and leads to the game page), then renders the page the server sends.
    let token = testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None);
    let dir = std::env::temp_dir().join(format!("shinpan-console-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = format!(
        r#"<!DOCTYPE html><form id="f" method="post" action="{}/console/sign-in"><input name="token" value="{token}"><input name="next" value="/console/games/{}?at=3"></form><script>document.getElementById("f").submit()</script>"#,
        s.url, g.id
    );
    let file = dir.join("sign-in.html");
    std::fs::write(&file, html).unwrap();
    let shot = option_env!("CARGO_TARGET_TMPDIR").map(std::path::PathBuf::from).unwrap_or(dir.clone()).join("console-game.png");
    let run = |args: Vec<String>| {
        let browser = browser.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                std::process::Command::new("timeout")
                    .arg("60")
                    .arg(browser)
                    .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"])
                    .args(args)
                    .output()
                    .expect("chromium runs")
            })
            .await
            .unwrap()
        }
    };
    let dom = run(vec!["--virtual-time-budget=3000".into(), "--dump-dom".into(), format!("file://{}", file.display())]).await;
    let (dom, log) = (String::from_utf8_lossy(&dom.stdout).to_string(), String::from_utf8_lossy(&dom.stderr).to_string());
    assert!(dom.contains(&stone("b", "pd", "Q16")), "the browser's DOM has the stone: {dom}\n{log}");
    assert!(dom.contains(&stone("w", "dp", "D4")) && dom.contains(r#"class="last" data-point="pp""#), "{dom}");
    let out = run(vec![
        "--window-size=1000,800".into(),
        "--virtual-time-budget=3000".into(),
        format!("--screenshot={}", shot.display()),
        format!("file://{}", file.display()),
    ])
    .await;
    let png = std::fs::read(&shot).unwrap_or_else(|_| panic!("no screenshot: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "a real screenshot ({} bytes)", png.len());
    eprintln!("console test: screenshot of the game page in {}", shot.display());
}
