//! The end of a game, the case queue, live pages at shutdown, one-time codes.

use super::*;
use shinpan::estimate::GnuGo;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn the_end_of_a_game_proposal_dispute_confirmation_and_the_results_page() {
    // The proposal's estimates come from GNU Go, installed here when missing (as the demo
    // and the proposal tests do); where it cannot be, the page must say so instead.
    let estimator_ready = tokio::task::spawn_blocking(|| GnuGo::default().provision()).await.unwrap();
    let s = server().await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 5, 7).await;
    // Black walls off columns A–B, White columns F–G; White's lone stone at B6 is dead.
    let mut n = 0;
    for row in "abcdefg".chars() {
        for (colour, col) in [(pb::Color::Black, 'c'), (pb::Color::White, 'e')] {
            n += 1;
            play(&mut rec, &g.id, n, colour, Some(&format!("{col}{row}"))).await;
        }
    }
    for (colour, point) in [(pb::Color::Black, None), (pb::Color::White, Some("bb")), (pb::Color::Black, None), (pb::Color::White, None)] {
        n += 1;
        play(&mut rec, &g.id, n, colour, point).await;
    }
    let last = play(&mut rec, &g.id, n + 1, pb::Color::Black, None).await;
    assert_ne!(last.phase, pb::Phase::Playing as i32);
    let referee = sign_in(s.addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let black = sign_in(s.addr, &testing_token(Role::Player, "EGD-1", None, None, None)).await;
    let white = sign_in(s.addr, &testing_token(Role::Player, "EGD-2", None, None, None)).await;
    let base = format!("/console/games/{}", g.id);

    // The proposal: every chain with its basis, the count, stones that link to a mark.
    let end = http(s.addr, "GET", &format!("{base}/end"), &[("Cookie", &referee)], None).await;
    assert_eq!(end.status, 200, "{}", end.body);
    for want in ["class=\"proof-row", "Proposal", "ハマ", "コミ", "Dispute this chain", "toggle=bb"] {
        assert!(end.body.contains(want), "{want} missing: {}", end.body);
    }
    if estimator_ready {
        assert!(end.body.contains("proof-row proved") || end.body.contains("proof-row estimated"), "{}", end.body);
    } else {
        // Without the estimator the proposal still lists every chain, each undecided chain
        // with its reason, and says the estimate failed.
        assert!(end.body.contains("proof-row undecided") && end.body.contains("class=\"estimator\""), "{}", end.body);
    }

    // Clicking the white stone marks its chain; the mark is carried in the links and forms.
    let marked = http(s.addr, "GET", &format!("{base}/end?marks=&toggle=bb"), &[("Cookie", &referee)], None).await;
    assert!(marked.body.contains("marks=bb:"), "{}", marked.body);

    // Disputing it: the adjudication's answer with its proof line (or undecided with its reason).
    let disputed = http(s.addr, "POST", &format!("{base}/dispute"), &[("Cookie", &referee)], Some("point=bb&marks=")).await;
    assert_eq!(disputed.status, 200, "{}", disputed.body);
    assert!(disputed.body.contains("Proof line") || disputed.body.contains("undecided-reason"), "{}", disputed.body);
    assert!(disputed.body.contains("class=\"count\""), "{}", disputed.body);
    if disputed.body.contains("Proof line") {
        // The line is drawn numbered on the board, to be stepped through move by move (a
        // pass, which may come first, draws no stone).
        assert!(disputed.body.contains("data-steps=") && disputed.body.contains("class=\"line-step\" data-step=\""), "{}", disputed.body);
    }

    // The same dispute followed live (AdjudicateStream as server-sent events), as the page's
    // script does: progress, then the answer.
    let live =
        read_stream(s.addr, &format!("{base}/dispute/live?point=bb&marks="), &referee, "count-result", Duration::from_secs(60)).await;
    assert!(live.contains("event: done"), "{live}");
    assert!(live.contains("Proof line") || live.contains("undecided-reason"), "{live}");

    // Propose the count; both players and the referee confirm; the result is final.
    let proposed = http(s.addr, "POST", &format!("{base}/result"), &[("Cookie", &referee)], Some("action=propose&marks=")).await;
    assert_eq!(proposed.status, 303, "{}", proposed.body);
    let page = http(s.addr, "GET", &base, &[("Cookie", &black)], None).await;
    assert!(
        page.body.contains("proposed") && page.body.contains("class=\"confirm\"") && page.body.contains("class=\"object\""),
        "{}",
        page.body
    );
    for who in [&black, &white, &referee] {
        let r = http(s.addr, "POST", &format!("{base}/result"), &[("Cookie", who)], Some("action=confirm")).await;
        assert_eq!(r.status, 303, "{}", r.body);
    }
    let fin = http(s.addr, "GET", &format!("{base}?lang=ja"), &[("Cookie", &referee)], None).await;
    assert!(fin.body.contains("確定") && !fin.body.contains("class=\"confirm\""), "{}", fin.body);
    // A confirmation after that is refused with the article.
    let again = http(s.addr, "POST", &format!("{base}/result"), &[("Cookie", &black)], Some("action=confirm")).await;
    assert!(again.body.contains("第十条"), "{}", again.body);

    // The results page lists the final result by round and board, with its downloads.
    let got = rec.get_game(pb::GetGameRequest { game_id: g.id.clone() }).await.expect("GetGame").into_inner().game.unwrap();
    assert!(!got.result.is_empty(), "{got:?}");
    let results = http(s.addr, "GET", "/console/results", &[("Cookie", &referee)], None).await;
    assert_eq!(results.status, 200, "{}", results.body);
    let row = format!("data-game=\"{}\"", g.id);
    for want in [row.as_str(), "Final results", "Honinbo Shusaku", &got.result, "/console/results/egf?tournament=Console+Cup"] {
        assert!(results.body.contains(want), "{want} missing: {}", results.body);
    }
    let egf = http(s.addr, "GET", "/console/results/egf?tournament=Console+Cup", &[("Cookie", &referee)], None).await;
    assert_eq!(egf.status, 200, "{}", egf.body);
    assert!(egf.header("content-disposition").iter().any(|d| d.contains("attachment")), "{}", egf.head);
    assert!(egf.body.contains("Shusaku") && egf.body.contains("Inseki"), "{}", egf.body);
    let all = http(s.addr, "GET", "/console/results/sgf?tournament=Console+Cup", &[("Cookie", &referee)], None).await;
    assert_eq!(all.status, 200, "{}", all.body);
    assert!(all.body.starts_with("(;") && all.body.contains(&format!("RE[{}]", got.result)), "{}", all.body);
    let one = http(s.addr, "GET", &format!("{base}/sgf"), &[("Cookie", &black)], None).await;
    assert_eq!(one.status, 200, "{}", one.body);
    assert!(one.body.contains("PB[Honinbo Shusaku]") && one.body.contains(&format!("RE[{}]", got.result)), "{}", one.body);
    // A player is not an official of the tournament: the EGF export is refused, in a sentence.
    let refused = http(s.addr, "GET", "/console/results/egf?tournament=Console+Cup", &[("Cookie", &black)], None).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(!refused.body.contains("Inseki"), "{}", refused.body);
}

#[tokio::test]
pub(super) async fn the_case_queue_shows_a_foul_and_the_referee_rules_with_a_written_reason() {
    let s = server().await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 6, 19).await;
    play(&mut rec, &g.id, 1, pb::Color::Black, Some("pd")).await;
    let foul = play(&mut rec, &g.id, 2, pb::Color::White, Some("pd")).await.foul.expect("a foul");
    let referee = sign_in(s.addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let black = sign_in(s.addr, &testing_token(Role::Player, "EGD-1", None, None, None)).await;

    // The queue lists the case; its page shows the foul with rule and article.
    let view = http(s.addr, "GET", "/console", &[("Cookie", &referee)], None).await;
    let at = view.body.find("href=\"/console/cases/").unwrap_or_else(|| panic!("no case in the queue: {}", view.body));
    let case_path = view.body[at + 6..].split('"').next().unwrap().to_string();
    assert!(view.body.contains("foul"), "{}", view.body);
    let case = http(s.addr, "GET", &case_path, &[("Cookie", &referee)], None).await;
    assert_eq!(case.status, 200, "{}", case.body);
    assert!(case.body.contains(&foul.rule) && case.body.contains(&foul.article), "{}", case.body);
    assert!(case.body.contains("class=\"rule\"") && case.body.contains("反則負け"), "the referee is offered the ruling: {}", case.body);
    let game_page = http(s.addr, "GET", &format!("/console/games/{}", g.id), &[("Cookie", &black)], None).await;
    assert!(game_page.body.contains(&format!("href=\"{case_path}\"")), "the game's page links its case: {}", game_page.body);
    let as_player = http(s.addr, "GET", &case_path, &[("Cookie", &black)], None).await;
    assert!(!as_player.body.contains("class=\"rule\""), "a player is not: {}", as_player.body);

    // A ruling without a written reason is refused; with one it stands.
    let rule = format!("{case_path}/rule");
    let kind = pb::RulingKind::FoulLoss as i32;
    let bare = http(s.addr, "POST", &rule, &[("Cookie", &referee)], Some(&format!("kind={kind}&loser=2&reason="))).await;
    assert!(bare.body.contains("class=\"error\"") && bare.body.contains("Written reason"), "{}", bare.body);
    let refused = http(s.addr, "POST", &rule, &[("Cookie", &black)], Some(&format!("kind={kind}&loser=2&reason=mine"))).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let reason = "white+played+on+an+occupied+point";
    let ruled = http(s.addr, "POST", &rule, &[("Cookie", &referee)], Some(&format!("kind={kind}&loser=2&reason={reason}"))).await;
    assert_eq!(ruled.status, 303, "{}", ruled.body);
    let after = http(s.addr, "GET", &case_path, &[("Cookie", &referee)], None).await;
    assert!(after.body.contains("class=\"ruling\"") && after.body.contains("white played on an occupied point"), "{}", after.body);
    assert!(!after.body.contains("class=\"rule\""), "a ruled case is not offered again");
}

#[tokio::test]
pub(super) async fn open_live_pages_do_not_hold_up_a_graceful_shutdown() {
    let store = shinpan_storage::testing::fresh_store().await;
    let args = ServeArgs::local(None, std::path::PathBuf::from("/nonexistent"));
    let app = Application::with_store(&args, Some(store)).await.expect("the server starts");
    let (addr, url) = (app.addr(), app.url());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let mut rec = recording(&url).await;
    let g = new_game(&mut rec, 7, 19).await;
    let referee = sign_in(addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let mut streams = Vec::new();
    for path in ["/console/live".to_string(), format!("/console/games/{}/live?from=1", g.id)] {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nCookie: {referee}\r\n\r\n");
        tcp.write_all(req.as_bytes()).await.unwrap();
        let mut buf = vec![0u8; 4096];
        let n = tcp.read(&mut buf).await.unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).contains("text/event-stream"));
        streams.push(tcp);
    }
    drop(rec);
    tx.send(()).unwrap();
    let stopped = tokio::time::timeout(Duration::from_secs(15), served).await;
    assert!(matches!(stopped, Ok(Ok(Ok(())))), "the server stops while live pages are open: {stopped:?}");
}

#[tokio::test]
pub(super) async fn a_one_time_code_signs_a_player_in_for_their_game_and_colour_once() {
    // Two replicas on one database: a code made on one is exchanged on the other, once.
    let pool = shinpan_storage::testing::fresh_pool().await;
    let s = server_on(shinpan_storage::Store::new(pool.clone())).await;
    let replica = server_on(shinpan_storage::Store::new(pool)).await;
    let mut rec = recording(&s.url).await;
    let g = new_game(&mut rec, 8, 19).await;
    let referee = sign_in(s.addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let game_page = http(s.addr, "GET", &format!("/console/games/{}", g.id), &[("Cookie", &referee)], None).await;
    assert!(game_page.body.contains("action=\"/console/codes\"") && game_page.body.contains("data-colour=\"W\""), "{}", game_page.body);

    let made = http(s.addr, "POST", "/console/codes", &[("Cookie", &referee)], Some(&format!("role=player&game={}&colour=W", g.id))).await;
    assert_eq!(made.status, 200, "{}", made.body);
    assert!(made.body.contains("EGD-2"), "the code is for White's player: {}", made.body);
    let code =
        made.body.split("class=\"code\"").nth(1).and_then(|r| r.split('>').nth(1)).and_then(|r| r.split('<').next()).unwrap().to_string();
    assert_eq!(code.len(), 10, "{code}");

    // The code signs White in on the other replica, limited to this game and colour; it works
    // once, on every replica.
    let r = http(replica.addr, "POST", "/console/sign-in", &[], Some(&format!("code={code}"))).await;
    assert_eq!(r.status, 303, "{}", r.body);
    let cookie = r.header("set-cookie").into_iter().find(|c| c.starts_with("shinpan_token=")).unwrap();
    let white = cookie.split(';').next().unwrap().to_string();
    let page = http(s.addr, "GET", &format!("/console/games/{}", g.id), &[("Cookie", &white)], None).await;
    assert!(page.body.contains("Signed in as EGD-2 (player)"), "{}", page.body);
    assert!(!page.body.contains("action=\"/console/codes\""), "a player is not offered codes");
    let again = http(s.addr, "POST", "/console/sign-in", &[], Some(&format!("code={code}"))).await;
    assert_eq!(again.status, 401);
    assert!(again.body.contains("already used"), "{}", again.body);

    // A player may not create codes, nor a referee a referee's.
    let refused = http(s.addr, "POST", "/console/codes", &[("Cookie", &white)], Some(&format!("role=player&game={}&colour=B", g.id))).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let refused = http(s.addr, "POST", "/console/codes", &[("Cookie", &referee)], Some("role=referee&subject=ref-2")).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
}

/// Records on board `board` a 5x5 game of Black's stones `black` and White's `white` (each
/// side passing while the other places its stones), ended by three passes.
async fn recorded_position(rec: &mut GameRecordingServiceClient<Channel>, board: u32, black: &[&str], white: &[&str]) -> pb::Game {
    let g = new_game(rec, board, 5).await;
    let mut n = 0;
    let mut turn = |colour, point| {
        n += 1;
        (n, colour, point)
    };
    let mut moves: Vec<(u32, pb::Color, Option<&str>)> = Vec::new();
    for &p in black {
        moves.push(turn(pb::Color::Black, Some(p)));
        moves.push(turn(pb::Color::White, None));
    }
    for &p in white {
        moves.push(turn(pb::Color::Black, None));
        moves.push(turn(pb::Color::White, Some(p)));
    }
    for colour in [pb::Color::Black, pb::Color::White, pb::Color::Black] {
        moves.push(turn(colour, None));
    }
    let mut last = None;
    for (n, colour, point) in moves {
        last = Some(play(rec, &g.id, n, colour, point).await);
    }
    assert_ne!(last.expect("moves").phase, pb::Phase::Playing as i32);
    g
}

/// The referee's dispute of Black's bb in a game of [`recorded_position`], every other chain
/// marked alive, the page asked for in `lang`: the answer, which must be 200.
async fn dispute_bb(s: &Server, game: &pb::Game, referee: &str, lang: &str) -> Reply {
    let alive = "da:alive,cb:alive,eb:alive,ac:alive,dc:alive,cd:alive";
    let path = format!("/console/games/{}/dispute", game.id);
    let page =
        http(s.addr, "POST", &path, &[("Cookie", referee), ("Accept-Language", lang)], Some(&format!("point=bb&marks={alive}"))).await;
    assert_eq!(page.status, 200, "{}", page.body);
    page
}

#[tokio::test]
pub(super) async fn a_disputes_answer_names_the_walls_drawn_in_and_those_kept_by_two_links() {
    // Black's bb, disputed in White's corner, races White's cb. cb's other liberties db and cc
    // are its links, each next to White's agreed-alive stones only: cb stays a wall (第七条).
    let s = server().await;
    let mut rec = recording(&s.url).await;
    let referee = sign_in(s.addr, &testing_token(Role::Referee, "ref-1", Some(TOURNAMENT), None, None)).await;
    let white = ["da", "cb", "eb", "ac", "bc", "dc", "cd"];
    let kept = recorded_position(&mut rec, 7, &["bb"], &white).await;
    let page = dispute_bb(&s, &kept, &referee, "en").await;
    // cb is C4 on a 5x5 board, its links cc and db are C3 and D4.
    let line = page.body.split("<p class=\"kept-by-links\">").nth(1).unwrap_or_else(|| panic!("no kept wall: {}", page.body));
    let line = line.split("</p>").next().unwrap();
    assert!(
        line.contains("Kept a wall by two links: White C4")
            && (line.contains("links (◇ on the board) C3 · D4") || line.contains("links (◇ on the board) D4 · C3")),
        "{line}"
    );
    assert!(line.contains("第七条"), "{line}");
    // The board marks both links.
    for link in ["cc", "db"] {
        assert!(page.body.contains(&format!("class=\"link\" data-point=\"{link}\"")), "{link}: {}", page.body);
    }
    assert!(!page.body.contains("class=\"drawn-in\""), "{}", page.body);
    let ja = dispute_bb(&s, &kept, &referee, "ja").await;
    assert!(ja.body.contains("二つの連絡点で壁のまま: 白 C4"), "{}", ja.body);

    // With a black stone at eb next to the link db, cb is no longer kept: it is drawn in, and
    // the answer names it with its reason.
    let drawn = recorded_position(&mut rec, 8, &["bb", "eb"], &["da", "cb", "ac", "bc", "dc", "cd"]).await;
    let page = dispute_bb(&s, &drawn, &referee, "en").await;
    let line = page
        .body
        .split("<p class=\"drawn-in\">")
        .skip(1)
        .map(|l| l.split("</p>").next().unwrap())
        .find(|l| l.contains("Drawn into the dispute: White C4"))
        .unwrap_or_else(|| panic!("cb not drawn in: {}", page.body));
    assert!(line.contains("— it shares liberties with the chain at B4 and has at most one liberty more"), "{line}");
    assert!(!page.body.contains("class=\"kept-by-links\"") && !page.body.contains("class=\"link\""), "{}", page.body);
}
