//! A whole game driven in Chromium over WebDriver (ChromeDriver), with screenshots and measured latency.

use super::*;

/// ChromeDriver serving WebDriver on a loopback port; killed when dropped.
pub(super) struct Driver {
    pub(super) child: std::process::Child,
    pub(super) port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `chromedriver` on a free loopback port and waits (at most 20 s) until it listens.
pub(super) async fn chromedriver(binary: &std::path::Path) -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = std::process::Command::new(binary)
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver { child, port };
    for _ in 0..200 {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return driver;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("chromedriver did not listen on port {port} within 20 s");
}

/// Where the browser test writes its screenshots: `SHINPAN_SCREENSHOTS` if set, else the
/// test target's temporary directory.
pub(super) fn screenshot_dir() -> std::path::PathBuf {
    let dir = std::env::var_os("SHINPAN_SCREENSHOTS")
        .map(std::path::PathBuf::from)
        .or_else(|| option_env!("CARGO_TARGET_TMPDIR").map(|d| std::path::Path::new(d).join("console-screenshots")))
        .unwrap_or_else(|| std::env::temp_dir().join("shinpan-console-screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(super) async fn shoot(client: &fantoccini::Client, name: &str) {
    let png = client.screenshot().await.expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 5_000, "a real screenshot of {name} ({} bytes)", png.len());
    let path = screenshot_dir().join(format!("{name}.png"));
    std::fs::write(&path, png).unwrap();
    eprintln!("console browser test: {}", path.display());
}

/// Signs in through the page's token form, as a person pastes a token, and waits for the
/// page `next` leads to.
pub(super) async fn browser_sign_in(client: &fantoccini::Client, base: &str, token: &str, next: &str) {
    use fantoccini::Locator;
    client.goto(&format!("{base}/console?next={next}")).await.unwrap();
    let signed_in = client.find(Locator::Css("form[action='/console/sign-out'] button")).await;
    if let Ok(out) = signed_in {
        out.click().await.unwrap();
        client.wait().for_element(Locator::Css("textarea#token")).await.expect("signed out, on the sign-in page");
        client.goto(&format!("{base}/console?next={next}")).await.unwrap();
    }
    client.find(Locator::Css("textarea#token")).await.expect("the token form").send_keys(token).await.unwrap();
    client.find(Locator::Css("form[action='/console/sign-in'] button")).await.unwrap().click().await.unwrap();
    let want = format!("{base}{next}");
    if client.wait().at_most(Duration::from_secs(60)).for_url(&want.parse().unwrap()).await.is_err() {
        let now = client.current_url().await.map(|u| u.to_string()).unwrap_or_default();
        panic!("signing in did not lead to {want} but to {now}: {}", client.source().await.unwrap_or_default());
    }
}

/// A whole tournament game in a real browser driven through WebDriver (Debian's `chromium`
/// and `chromium-driver`, installed when missing): a referee signs in with a token and opens
/// a game while another client records its moves (each stone appears without a reload; the
/// time from `RecordMove` returning to the stone in the page is measured), the game ends,
/// the proposal is shown, a chain is disputed and its proof line replayed, the result is
/// proposed and confirmed by both players and the referee, and the tournament view and the
/// results page show it; a
/// player of another game is neither offered nor allowed the end of this one. Screenshots of each step are written (see
/// [`screenshot_dir`]); the first page's weight is measured in the browser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn a_referee_runs_a_game_to_its_result_in_a_real_browser() {
    use fantoccini::Locator;
    let found = tokio::task::spawn_blocking(|| (chromium(), debian_binary(&["/usr/bin/chromedriver"], "chromium-driver"))).await.unwrap();
    let (Some(browser), Some(driver_bin)) = found else {
        eprintln!(
            "SKIPPED: chromium or chromium-driver is not installed and cannot be installed here (no apt-get, or SHINPAN_NO_INSTALL is set)"
        );
        return;
    };
    let driver = chromedriver(&driver_bin).await;
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({
            "binary": browser,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,1000"]
        }),
    );
    let client = fantoccini::ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a WebDriver session");

    let s = server().await;
    let base = s.url.trim_end_matches('/').to_string();
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 6, 7).await;
    let page = format!("/console/games/{}", g.id);
    let referee = testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None);

    // The referee signs in on the sign-in page, which leads to the game.
    client.goto(&format!("{base}/console?next={page}")).await.unwrap();
    shoot(&client, "1-sign-in").await;
    browser_sign_in(&client, &base, &referee, &page).await;
    let weight = client
        .execute(
            "const n = performance.getEntriesByType('navigation')[0];
             return performance.getEntriesByType('resource').reduce((a, e) => a + (e.transferSize || e.encodedBodySize || 0),
                    n.transferSize || n.encodedBodySize || 0);",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        .unwrap();
    eprintln!("console browser test: the game page's first load transferred {weight} bytes");
    assert!(weight > 0 && weight < 300_000, "first load {weight} bytes");

    // Another client records the moves; each stone appears in the open page, live.
    let wait_for_stone = "const p = arguments[0], done = arguments[arguments.length - 1];
        const has = () => document.querySelector('.stone[data-point=\"' + p + '\"]');
        if (has()) { done(true); return; }
        const o = new MutationObserver(() => { if (has()) { o.disconnect(); done(true); } });
        o.observe(document.body, { childList: true, subtree: true });
        setTimeout(() => done(false), 10000);";
    let mut latencies: Vec<f64> = Vec::new();
    let mut n = 0;
    for row in "abcdefg".chars() {
        for (colour, col) in [(pb::Color::Black, 'c'), (pb::Color::White, 'e')] {
            n += 1;
            let point = format!("{col}{row}");
            let seen = async {
                let r = client.execute_async(wait_for_stone, vec![serde_json::json!(point)]).await.unwrap();
                (r, std::time::Instant::now())
            };
            let acked = async {
                play(&mut rec, &g.id, n, colour, Some(&point)).await;
                std::time::Instant::now()
            };
            let ((shown, at), ack) = tokio::join!(seen, acked);
            assert_eq!(shown, serde_json::json!(true), "the stone at {point} never appeared in the page");
            latencies.push(at.saturating_duration_since(ack).as_secs_f64() * 1e3);
        }
    }
    latencies.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |x: f64| latencies[((latencies.len() - 1) as f64 * x).round() as usize];
    eprintln!(
        "console browser test: RecordMove returned → stone in the page, {} moves: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        latencies.len(),
        q(0.5),
        q(0.95),
        q(1.0)
    );
    shoot(&client, "2-game-live").await;
    // The end of play: White's lone stone at bb inside Black's area, then passes.
    for (colour, point) in [(pb::Color::Black, None), (pb::Color::White, Some("bb")), (pb::Color::Black, None), (pb::Color::White, None)] {
        n += 1;
        play(&mut rec, &g.id, n, colour, point).await;
    }
    play(&mut rec, &g.id, n + 1, pb::Color::Black, None).await;

    // The proposal, every chain with its basis.
    client.goto(&format!("{base}{page}/end")).await.unwrap();
    client.wait().at_most(Duration::from_secs(60)).for_element(Locator::Css("table.proofs")).await.expect("the proposal");
    let body = client.source().await.unwrap();
    assert!(body.contains("Proposal") && body.contains("class=\"proof-row"), "{body}");
    shoot(&client, "3-proposal").await;

    // The referee disputes White's stone: the answer with its proof line, replayed step by step.
    client.find(Locator::Css("select[name=point]")).await.unwrap().select_by_value("bb").await.unwrap();
    client.find(Locator::Css("button.dispute")).await.unwrap().click().await.unwrap();
    client.wait().for_element(Locator::Css("span.proof, p.undecided-reason")).await.expect("the dispute's answer, delivered live");
    let answer = client.source().await.unwrap();
    assert!(answer.contains("Proof line") || answer.contains("undecided-reason"), "{answer}");
    if answer.contains("Proof line") {
        let hidden = "return [...document.querySelectorAll('[data-step]')].filter(e => e.style.display === 'none').length";
        let forward = client.find(Locator::Css("[data-steps] button[data-go='1']")).await.unwrap();
        let back = client.find(Locator::Css("[data-steps] button[data-go='-1']")).await.unwrap();
        for _ in 0..50 {
            back.click().await.unwrap();
        }
        let all_hidden = client.execute(hidden, vec![]).await.unwrap().as_u64().unwrap();
        assert!(all_hidden > 0, "stepping back hides the line's stones");
        // Forward again: the first stone of the line appears (after at most one pass).
        let mut after = all_hidden;
        for _ in 0..2 {
            forward.click().await.unwrap();
            after = client.execute(hidden, vec![]).await.unwrap().as_u64().unwrap();
            if after < all_hidden {
                break;
            }
        }
        assert!(after < all_hidden, "stepping forward shows the line's first stone ({all_hidden} → {after} hidden)");
    }
    shoot(&client, "4-dispute").await;

    // The referee proposes the count; Black, White and the referee confirm (第十条2).
    client.goto(&format!("{base}{page}/end")).await.unwrap();
    client.find(Locator::Css("button.propose")).await.unwrap().click().await.unwrap();
    client.wait().for_element(Locator::Css("button.confirm")).await.expect("the proposal to confirm");
    for token in
        [testing_token(Role::Player, "EGD-1", None, None, None), testing_token(Role::Player, "EGD-2", None, None, None), referee.clone()]
    {
        browser_sign_in(&client, &base, &token, &page).await;
        // The form posts and leads back to the same page: wait for the new document.
        client.execute("window.shinpanOld = true;", vec![]).await.unwrap();
        client.find(Locator::Css("button.confirm")).await.expect("a confirm button").click().await.unwrap();
        let reloaded = "return document.readyState === 'complete' && window.shinpanOld === undefined;";
        let t = std::time::Instant::now();
        while client.execute(reloaded, vec![]).await.ok() != Some(serde_json::json!(true)) {
            assert!(t.elapsed() < Duration::from_secs(60), "the confirmation's page never came back");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(client.current_url().await.unwrap().as_str(), format!("{base}{page}"));
    }
    let fin = client.source().await.unwrap();
    assert!(!fin.contains("class=\"confirm\""), "no confirmation is asked for once final: {fin}");

    // A player of another game is not offered the end of this one, and is refused it.
    browser_sign_in(&client, &base, &testing_token(Role::Player, "EGD-99", None, None, None), &page).await;
    let theirs = client.source().await.unwrap();
    assert!(!theirs.contains(&format!("{page}/end")), "{theirs}");
    client.goto(&format!("{base}{page}/end")).await.unwrap();
    let refused = client.source().await.unwrap();
    assert!(refused.contains("Your role may not do this") && !refused.contains("button class=\"propose\""), "{refused}");

    // The tournament view shows the game with its final result; the results page lists it.
    browser_sign_in(&client, &base, &referee, "/console").await;
    let result = rec.get_game(pb::GetGameRequest { game_id: g.id.clone() }).await.unwrap().into_inner().game.unwrap().result;
    // The view is refreshed live: read the row in one script call, not through an element
    // the refresh may replace.
    let read_row = format!("const r = document.querySelector(\"tr[data-game='{}']\"); return r ? r.innerText : '';", g.id);
    let t = std::time::Instant::now();
    let row = loop {
        let text = client.execute(&read_row, vec![]).await.unwrap().as_str().unwrap_or_default().to_string();
        if text.contains(&result) || t.elapsed() > Duration::from_secs(30) {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(!result.is_empty() && row.contains(&result), "the tournament view's row shows {result}: {row}");
    client.goto(&format!("{base}/console/results")).await.unwrap();
    let results = client.source().await.unwrap();
    assert!(results.contains(&format!("data-game=\"{}\"", g.id)) && results.contains("Honinbo Shusaku"), "{results}");
    shoot(&client, "5-results").await;
    client.close().await.unwrap();
}
