//! GameRecordingService end to end: real gRPC on 127.0.0.1:0, real PostgreSQL, real SGF records.

use futures::StreamExt;
use shinpan_e2e::{all_records, new_game, pass, play, read_record, TestApp};
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::Color::{Black, White};
use tonic::Code;
use tonic_types::StatusExt;

fn record(game: &str, n: u32, m: pb::Move, key: &str) -> pb::RecordMoveRequest {
    pb::RecordMoveRequest { game_id: game.into(), move_number: n, r#move: Some(m), client_time: None, idempotency_key: key.into() }
}

fn moves_of(r: &shinpan_sgf::Record) -> Vec<(goban::Color, goban::Move)> {
    r.moves.iter().map(|m| (m.color, m.mv)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_shared_record_imports_and_exports_with_the_same_moves() {
    let app = TestApp::spawn().await;
    let files = all_records();
    assert!(files.len() >= 100, "expected the shared corpus, found {} records", files.len());
    let results: Vec<_> = futures::stream::iter(files.iter().cloned())
        .map(|path| {
            let mut client = app.recording();
            async move {
                let text = read_record(&path);
                let imported = client
                    .import_sgf(pb::ImportSgfRequest { sgf: text.clone(), ..Default::default() })
                    .await
                    .unwrap_or_else(|s| panic!("{} does not import: {s:?}", path.display()))
                    .into_inner();
                let game = imported.game.expect("the imported game");
                let exported = client
                    .export_sgf(pb::ExportSgfRequest { game_id: game.id.clone() })
                    .await
                    .unwrap_or_else(|s| panic!("{} does not export: {s:?}", path.display()))
                    .into_inner()
                    .sgf;
                (path, text, imported.moves, game, exported)
            }
        })
        .buffer_unordered(6)
        .collect()
        .await;
    assert_eq!(results.len(), files.len());
    for (path, text, count, game, exported) in results {
        let original = shinpan_sgf::Record::parse(&text).expect("original parses");
        let back = shinpan_sgf::Record::parse(&exported).expect("exported SGF parses");
        assert_eq!(moves_of(&back), moves_of(&original), "{}: exported moves differ", path.display());
        assert_eq!(count as usize, original.moves.len(), "{}", path.display());
        assert_eq!(game.move_number as usize, original.moves.len(), "{}", path.display());
        assert_eq!(back.width, original.width, "{}", path.display());
        let mut sb = back.setup.black.clone();
        let mut ob = original.setup.black.clone();
        sb.sort();
        ob.sort();
        assert_eq!(sb, ob, "{}: setup stones differ", path.display());
        if let Some(k) = original.info.komi {
            assert_eq!(back.info.komi, Some(k), "{}", path.display());
        }
        // The exported record replays to the same final position.
        let rules = original.rule_set().unwrap_or(goban::RuleSet::Japanese2011);
        let a = original.to_game(rules).expect("replays");
        let b = back.to_game(rules).expect("replays");
        assert!(a.foul.is_none() && b.foul.is_none(), "{}", path.display());
        assert_eq!(a.game.board(), b.game.board(), "{}: final positions differ", path.display());
    }
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_recorded_move_by_move_is_followed_live_by_watch_game() {
    let app = TestApp::spawn().await;
    let mut client = app.recording();
    // An even 19x19 game (no setup stones, Black first), as CreateGame makes it.
    let original = all_records()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("/19/"))
        .map(|p| shinpan_sgf::Record::parse(&read_record(&p)).unwrap())
        .find(|r| r.setup.is_empty() && r.info.handicap == 0 && r.moves.len() > 80 && r.moves[0].color == goban::Color::Black)
        .expect("an even 19x19 record");
    let game = client.create_game(new_game("Watch Cup", 1, 19)).await.unwrap().into_inner().game.unwrap();
    assert_eq!(game.move_number, 0);

    let mut watcher = app.recording();
    let mut stream = watcher
        .watch_game(pb::WatchGameRequest { game_id: game.id.clone(), from_sequence: 1, until_end: true })
        .await
        .unwrap()
        .into_inner();
    // The first event is already there: the game's creation.
    let first = stream.message().await.unwrap().expect("game_created").event.unwrap();
    assert_eq!((first.sequence, first.kind.as_str()), (1, "game_created"));
    let follower = tokio::spawn(async move {
        let mut seen = vec![first];
        while let Some(m) = stream.message().await.expect("stream healthy") {
            seen.push(m.event.unwrap());
        }
        seen
    });

    let sent: Vec<_> = original.moves.iter().take(80).collect();
    for (i, m) in sent.iter().enumerate() {
        let r = client
            .record_move(record(&game.id, i as u32 + 1, shinpan::convert::move_to_pb(m.color, m.mv), &format!("k{i}")))
            .await
            .unwrap()
            .into_inner();
        assert!(r.legal, "move {} refused: {:?}", i + 1, r.foul);
        assert_eq!(r.move_number, i as u32 + 1);
        assert_eq!(r.sequence, i as u64 + 2);
    }
    let next = if sent.len() % 2 == 0 { Black } else { White };
    client.resign(pb::ResignRequest { game_id: game.id.clone(), color: next as i32, idempotency_key: "resign".into() }).await.unwrap();

    let seen = tokio::time::timeout(std::time::Duration::from_secs(60), follower).await.expect("watch ends with the game").unwrap();
    assert_eq!(seen.len(), sent.len() + 2, "created + moves + resign");
    for (i, e) in seen.iter().enumerate() {
        assert_eq!(e.sequence, i as u64 + 1, "events arrive in order without gaps");
        assert_eq!(e.game_id, game.id);
    }
    for (i, (e, m)) in seen[1..=sent.len()].iter().zip(&sent).enumerate() {
        assert_eq!(e.kind, "move");
        assert_eq!(e.move_number, i as u32 + 1);
        assert_eq!(e.r#move.as_ref(), Some(&shinpan::convert::move_to_pb(m.color, m.mv)));
        assert_eq!(e.prev_hash, seen[i].hash, "hash chain links each event to the previous one");
    }
    assert_eq!(seen.last().unwrap().kind, "resign");
    let g = client.get_game(pb::GetGameRequest { game_id: game.id.clone() }).await.unwrap().into_inner().game.unwrap();
    assert_eq!(g.move_number as usize, sent.len());
    assert_eq!(g.phase, pb::Phase::Ended as i32);
    assert_eq!(g.result, if next == Black { "W+R" } else { "B+R" });
    // After the end nothing more is recorded.
    let late = client.record_move(record(&game.id, sent.len() as u32 + 1, play(next, "aa"), "late")).await.unwrap_err();
    assert_eq!(late.code(), Code::FailedPrecondition);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_clients_sending_the_same_move_number_store_exactly_one() {
    let app = TestApp::spawn().await;
    let mut client = app.recording();
    let game = client.create_game(new_game("Race Cup", 1, 19)).await.unwrap().into_inner().game.unwrap();
    // Separate connections, like separate recording terminals.
    let mut channels = Vec::new();
    for _ in 0..8 {
        channels.push(shinpan::remote::channel(&app.url).await.unwrap());
    }
    let points = ["aa", "ba", "ca", "da", "ea", "fa", "ga", "ha"];
    for n in 1..=6u32 {
        let color = if n % 2 == 1 { Black } else { White };
        let row = (b'a' + n as u8) as char;
        let tasks: Vec<_> = channels
            .iter()
            .enumerate()
            .map(|(i, ch)| {
                let mut c = pb::game_recording_service_client::GameRecordingServiceClient::new(ch.clone());
                let req = record(&game.id, n, play(color, &format!("{}{row}", &points[i][..1])), &format!("n{n}-client{i}"));
                tokio::spawn(async move { c.record_move(req).await })
            })
            .collect();
        let mut ok = 0;
        let mut refused = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(r) => {
                    assert!(r.get_ref().legal);
                    assert_eq!(r.get_ref().move_number, n);
                    ok += 1;
                }
                Err(s) => {
                    assert_eq!(s.code(), Code::FailedPrecondition, "{s:?}");
                    assert_eq!(shinpan::error::current_move_number(&s), Some(n), "the status carries the current move number");
                    refused += 1;
                }
            }
        }
        assert_eq!((ok, refused), (1, 7), "exactly one client stores move {n}");
    }
    let g = client.get_game(pb::GetGameRequest { game_id: game.id.clone() }).await.unwrap().into_inner().game.unwrap();
    assert_eq!(g.move_number, 6);
    assert_eq!(g.moves.len(), 6);
    assert_eq!(g.last_sequence, 7, "one event per stored move, none for refused ones");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_with_the_same_idempotency_key_returns_the_original_answer() {
    let app = TestApp::spawn().await;
    let mut client = app.recording();
    let game = client.create_game(new_game("Retry Cup", 1, 9)).await.unwrap().into_inner().game.unwrap();
    let first = client.record_move(record(&game.id, 1, play(Black, "ee"), "key-1")).await.unwrap().into_inner();
    assert!(first.legal && !first.replayed);
    let again = client.record_move(record(&game.id, 1, play(Black, "ee"), "key-1")).await.unwrap().into_inner();
    assert!(again.replayed);
    assert_eq!((again.move_number, again.sequence, again.legal), (first.move_number, first.sequence, first.legal));
    // Still the original answer after later moves.
    client.record_move(record(&game.id, 2, play(White, "cc"), "key-2")).await.unwrap();
    let late_retry = client.record_move(record(&game.id, 1, play(Black, "ee"), "key-1")).await.unwrap().into_inner();
    assert!(late_retry.replayed);
    assert_eq!(late_retry.sequence, first.sequence);
    // The same key for a different move is refused.
    let misuse = client.record_move(record(&game.id, 3, play(Black, "gg"), "key-1")).await.unwrap_err();
    assert_eq!(misuse.code(), Code::AlreadyExists, "{misuse:?}");
    // A retried foul is one foul.
    let f1 = client.record_move(record(&game.id, 3, play(Black, "ee"), "foul-key")).await.unwrap().into_inner();
    let f2 = client.record_move(record(&game.id, 3, play(Black, "ee"), "foul-key")).await.unwrap().into_inner();
    assert!(!f1.legal && f2.replayed && f1.sequence == f2.sequence);
    let g = client.get_game(pb::GetGameRequest { game_id: game.id.clone() }).await.unwrap().into_inner().game.unwrap();
    assert_eq!(g.move_number, 2, "nothing stored twice");
    let mut events = client
        .watch_game(pb::WatchGameRequest { game_id: game.id.clone(), from_sequence: 1, until_end: false })
        .await
        .unwrap()
        .into_inner();
    let mut kinds = Vec::new();
    for _ in 0..g.last_sequence {
        kinds.push(events.message().await.unwrap().unwrap().event.unwrap().kind);
    }
    assert_eq!(kinds.iter().filter(|k| *k == "move").count(), 2);
    assert_eq!(kinds.iter().filter(|k| *k == "foul").count(), 1);
    app.stop().await;
}

/// Moves of a ko on a 9x9 board: after 9. B dc takes cc, 10. W cc retakes at once (第五条).
const KO: [(&str, &str); 9] =
    [("B", "cb"), ("W", "db"), ("B", "bc"), ("W", "ec"), ("B", "cd"), ("W", "dd"), ("B", "ii"), ("W", "cc"), ("B", "dc")];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foul_is_stored_as_an_event_and_not_applied() {
    let app = TestApp::spawn().await;
    let mut client = app.recording();
    let game = client.create_game(new_game("Ko Cup", 1, 9)).await.unwrap().into_inner().game.unwrap();
    for (i, (c, p)) in KO.iter().enumerate() {
        let color = if *c == "B" { Black } else { White };
        let r = client.record_move(record(&game.id, i as u32 + 1, play(color, p), "")).await.unwrap().into_inner();
        assert!(r.legal, "move {}", i + 1);
        if i == 8 {
            assert_eq!(r.captured, vec!["cc".to_string()]);
            assert_eq!(r.ko_point.as_deref(), Some("cc"));
        }
    }
    let foul = client.record_move(record(&game.id, 10, play(White, "cc"), "retake")).await.unwrap().into_inner();
    assert!(!foul.legal);
    let f = foul.foul.clone().expect("the foul");
    assert_eq!((f.rule.as_str(), f.article.as_str(), f.move_number), ("ko", "第五条", 10));
    let g = client.get_game(pb::GetGameRequest { game_id: game.id.clone() }).await.unwrap().into_inner().game.unwrap();
    assert_eq!(g.move_number, 9, "the foul is not applied");
    assert!(g.flagged, "the game is flagged for the arbiter");
    assert_eq!(g.to_move, White as i32, "nothing else changes: White is still to move");
    assert_eq!(g.prisoners_black, 1);
    // The foul event carries move, rule and article.
    let mut events = client
        .watch_game(pb::WatchGameRequest { game_id: game.id.clone(), from_sequence: foul.sequence, until_end: false })
        .await
        .unwrap()
        .into_inner();
    let e = events.message().await.unwrap().unwrap().event.unwrap();
    assert_eq!(e.kind, "foul");
    assert_eq!(e.foul.as_ref().map(|f| (f.rule.as_str(), f.article.as_str(), f.move_number)), Some(("ko", "第五条", 10)));
    assert_eq!(e.r#move, Some(play(White, "cc")));
    // Play goes on: move 10 is still to be played, legally elsewhere.
    let r = client.record_move(record(&game.id, 10, play(White, "aa"), "")).await.unwrap().into_inner();
    assert!(r.legal && r.move_number == 10);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_use_standard_codes_with_rich_details() {
    let app = TestApp::spawn().await;
    let mut client = app.recording();
    let game = client.create_game(new_game("Error Cup", 1, 9)).await.unwrap().into_inner().game.unwrap();

    let bad = client.record_move(record(&game.id, 1, play(Black, "zz"), "")).await.unwrap_err();
    assert_eq!(bad.code(), Code::InvalidArgument);
    let details = bad.get_error_details();
    let fields: Vec<_> = details.bad_request().expect("field violations").field_violations.iter().map(|v| v.field.clone()).collect();
    assert_eq!(fields, vec!["move.point".to_string()]);

    let no_colour = client
        .record_move(record(&game.id, 1, pb::Move { color: 0, action: Some(pb::r#move::Action::Point("ee".into())) }, ""))
        .await
        .unwrap_err();
    assert_eq!(no_colour.code(), Code::InvalidArgument);

    let ahead = client.record_move(record(&game.id, 5, play(Black, "ee"), "")).await.unwrap_err();
    assert_eq!(ahead.code(), Code::FailedPrecondition);
    assert_eq!(shinpan::error::current_move_number(&ahead), Some(0));

    let missing = client.get_game(pb::GetGameRequest { game_id: uuid::Uuid::new_v4().to_string() }).await.unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);
    assert!(missing.get_error_details().resource_info().is_some());
    let garbage = client.get_game(pb::GetGameRequest { game_id: "not-a-uuid".into() }).await.unwrap_err();
    assert_eq!(garbage.code(), Code::InvalidArgument);

    let dup = client.create_game(new_game("Error Cup", 1, 9)).await.unwrap_err();
    assert_eq!(dup.code(), Code::AlreadyExists);

    let bad_rules =
        client.create_game(pb::CreateGameRequest { rule_set: "fischer".into(), ..new_game("Error Cup", 2, 9) }).await.unwrap_err();
    assert_eq!(bad_rules.code(), Code::InvalidArgument);
    assert_eq!(bad_rules.get_error_details().bad_request().unwrap().field_violations[0].field, "rule_set");

    // A record with a foul is refused as a whole, the foul named in ErrorInfo.
    let sgf = "(;GM[1]FF[4]SZ[9]RU[Japanese];B[cb];W[db];B[bc];W[ec];B[cd];W[dd];B[ii];W[cc];B[dc];W[cc])";
    let refused = client.import_sgf(pb::ImportSgfRequest { sgf: sgf.into(), ..Default::default() }).await.unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    let d = refused.get_error_details();
    let info = d.error_info().expect("ErrorInfo");
    assert_eq!(info.reason, "FOUL");
    assert_eq!(info.metadata.get("rule").map(String::as_str), Some("ko"));
    assert_eq!(info.metadata.get("article").map(String::as_str), Some("第五条"));
    assert_eq!(info.metadata.get("move_number").map(String::as_str), Some("10"));
    assert_eq!(info.metadata.get("point").map(String::as_str), Some("cc"));
    let games = client.list_games(pb::ListGamesRequest { tournament: String::new(), round: 0 }).await.unwrap().into_inner().games;
    assert_eq!(games.len(), 1, "nothing stored for the refused record");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_going_away_is_unavailable_and_a_retry_after_restart_stores_once() {
    let store = shinpan_storage::testing::fresh_store().await;
    let app = TestApp::spawn_on(shinpan::configuration::ServiceKind::All, None, Some(store.clone())).await;
    let mut client = app.recording();
    let game = client.create_game(new_game("Outage Cup", 1, 9)).await.unwrap().into_inner().game.unwrap();
    store.pool().close().await;
    let s = client.get_game(pb::GetGameRequest { game_id: game.id.clone() }).await.unwrap_err();
    assert_eq!(s.code(), Code::Unavailable, "{s:?}");
    let s = client.record_move(record(&game.id, 1, play(Black, "ee"), "first-try")).await.unwrap_err();
    assert_eq!(s.code(), Code::Unavailable, "{s:?}");
    assert!(s.get_error_details().retry_info().is_some());
    app.stop().await;

    // A new server process on the same database ("after the crash"): the failed call stored
    // nothing, its retry stores the move once, and a second retry gets the same answer.
    let opts = (*store.pool().connect_options()).clone();
    let pool = sqlx::postgres::PgPoolOptions::new().max_connections(5).connect_with(opts).await.unwrap();
    let again = TestApp::spawn_on(shinpan::configuration::ServiceKind::All, None, Some(shinpan_storage::Store::new(pool))).await;
    let mut client = again.recording();
    let g = client.get_game(pb::GetGameRequest { game_id: game.id.clone() }).await.unwrap().into_inner().game.unwrap();
    assert_eq!(g.move_number, 0, "nothing was stored by the failed call");
    let r1 = client.record_move(record(&game.id, 1, play(Black, "ee"), "first-try")).await.unwrap().into_inner();
    let r2 = client.record_move(record(&game.id, 1, play(Black, "ee"), "first-try")).await.unwrap().into_inner();
    assert!(!r1.replayed && r2.replayed && r1.sequence == r2.sequence);
    let g = client.get_game(pb::GetGameRequest { game_id: game.id.clone() }).await.unwrap().into_inner().game.unwrap();
    assert_eq!(g.move_number, 1);
    again.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_games_by_tournament_and_round_and_passes_end_the_game() {
    let app = TestApp::spawn().await;
    let mut client = app.recording();
    for (round, board) in [(1, 1), (1, 2), (2, 1)] {
        client.create_game(pb::CreateGameRequest { round, ..new_game("League", board, 9) }).await.unwrap();
    }
    client.create_game(new_game("Other", 1, 9)).await.unwrap();
    let r1 = client.list_games(pb::ListGamesRequest { tournament: "League".into(), round: 1 }).await.unwrap().into_inner().games;
    assert_eq!(r1.iter().map(|g| (g.round, g.board_number)).collect::<Vec<_>>(), vec![(1, 1), (1, 2)]);
    let all = client.list_games(pb::ListGamesRequest { tournament: "League".into(), round: 0 }).await.unwrap().into_inner().games;
    assert_eq!(all.len(), 3);
    // Four consecutive passes end the game under japanese-2011 (第九条2).
    let g = &r1[0];
    let mut phase = 0;
    for n in 1..=4u32 {
        let c = if n % 2 == 1 { Black } else { White };
        phase = client.record_move(record(&g.id, n, pass(c), "")).await.unwrap().into_inner().phase;
        if n == 3 {
            assert_eq!(phase, pb::Phase::Stopped as i32, "three passes stop play for agreement");
        }
    }
    assert_eq!(phase, pb::Phase::Ended as i32);
    let after = client.record_move(record(&g.id, 5, play(Black, "ee"), "")).await.unwrap_err();
    assert_eq!(after.code(), Code::FailedPrecondition);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_recording_processes_on_one_database_stay_exactly_once() {
    let store = shinpan_storage::testing::fresh_store().await;
    let a = TestApp::spawn_on(shinpan::configuration::ServiceKind::All, None, Some(store.clone())).await;
    let b = TestApp::spawn_on(shinpan::configuration::ServiceKind::All, None, Some(store.clone())).await;
    let (mut ca, mut cb) = (a.recording(), b.recording());
    let game = ca.create_game(new_game("Twin Cup", 1, 9)).await.unwrap().into_inner().game.unwrap();
    // Moves alternate between the two processes; each process's view is always current.
    let seq = [(Black, "ee"), (White, "cc"), (Black, "gg"), (White, "cg"), (Black, "gc")];
    for (i, (c, p)) in seq.iter().enumerate() {
        let client = if i % 2 == 0 { &mut ca } else { &mut cb };
        let r = client.record_move(record(&game.id, i as u32 + 1, play(*c, p), "")).await.unwrap().into_inner();
        assert!(r.legal && r.move_number == i as u32 + 1);
    }
    // A late duplicate of move 5 sent to the other process is refused.
    let dup = cb.record_move(record(&game.id, 5, play(Black, "aa"), "")).await.unwrap_err();
    assert_eq!(shinpan::error::current_move_number(&dup), Some(5));
    // A move on an occupied point is a foul whichever process validates it.
    let f = cb.record_move(record(&game.id, 6, play(White, "ee"), "")).await.unwrap().into_inner();
    assert_eq!(f.foul.map(|f| f.rule), Some("occupied".to_string()));
    let f = ca.record_move(record(&game.id, 6, play(White, "gc"), "")).await.unwrap().into_inner();
    assert_eq!(f.foul.map(|f| f.rule), Some("occupied".to_string()));
    let g = ca.get_game(pb::GetGameRequest { game_id: game.id.clone() }).await.unwrap().into_inner().game.unwrap();
    assert_eq!(g.move_number, 5);
    a.stop().await;
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_record_is_stored_whole_with_a_hash_chained_log() {
    let app = TestApp::spawn().await;
    let mut client = app.recording();
    // W[aa] captured by B[ab] at move 5, then four passes (第九条2).
    let sgf = "(;GM[1]FF[4]SZ[9]RU[Japanese]KM[6.5];B[ba];W[aa];B[ee];W[gg];B[ab];W[cc];B[];W[];B[];W[])";
    // Board 1 of round 1 of the Import Cup (imported twice below).
    let request = || pb::ImportSgfRequest {
        sgf: sgf.into(),
        tournament: "Import Cup".into(),
        round: 1,
        board_number: 1,
        rule_set: String::new(),
        ..Default::default()
    };
    let imported = client.import_sgf(request()).await.unwrap().into_inner();
    assert_eq!(imported.moves, 10);
    let game = imported.game.unwrap();
    assert_eq!(game.move_number, 10);
    assert_eq!(game.phase, pb::Phase::Ended as i32, "four passes end play (第九条2)");
    assert_eq!(game.prisoners_black, 1, "B[ab] captured W[aa]");

    // The log: game_created, one move event per move, the closing "ended"; each event's
    // prev_hash is the hash of the one before. With until_end the stream stops after the
    // closing "ended" event (not at the last pass before it).
    let events: Vec<pb::GameEvent> = client
        .watch_game(pb::WatchGameRequest { game_id: game.id.clone(), from_sequence: 1, until_end: true })
        .await
        .unwrap()
        .into_inner()
        .map(|m| m.unwrap().event.unwrap())
        .collect()
        .await;
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    let mut expected = vec!["game_created"];
    expected.extend(std::iter::repeat_n("move", 10));
    expected.push("ended");
    assert_eq!(kinds, expected);
    assert_eq!(events.iter().map(|e| e.sequence).collect::<Vec<_>>(), (1..=12).collect::<Vec<u64>>());
    for w in events.windows(2) {
        assert_eq!(w[1].prev_hash, w[0].hash, "event {} is not chained to {}", w[1].sequence, w[0].sequence);
    }
    assert_eq!(events.iter().map(|e| e.move_number).collect::<Vec<_>>()[1..11], (1..=10).collect::<Vec<u32>>()[..]);
    assert_eq!(events[5].captured, vec!["aa".to_string()]);
    assert_eq!(game.last_sequence, 12);

    // The same board of the same round again: refused, and nothing more is stored.
    let dup = client.import_sgf(request()).await.unwrap_err();
    assert_eq!(dup.code(), Code::AlreadyExists);
    let games = client.list_games(pb::ListGamesRequest { tournament: "Import Cup".into(), round: 0 }).await.unwrap().into_inner().games;
    assert_eq!(games.len(), 1);
    let exported = client.export_sgf(pb::ExportSgfRequest { game_id: game.id.clone() }).await.unwrap().into_inner().sgf;
    let back = shinpan_sgf::Record::parse(&exported).unwrap();
    assert_eq!(moves_of(&back), moves_of(&shinpan_sgf::Record::parse(sgf).unwrap()));
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_create_or_import_with_its_key_gives_back_the_first_game() {
    let app = TestApp::spawn().await;
    let mut client = app.recording();
    // CreateGame: the answer was lost; the director's client sends the same request again.
    let create = pb::CreateGameRequest { idempotency_key: "retry-cup/r1/b1".into(), ..new_game("Key Cup", 1, 9) };
    let first = client.create_game(create.clone()).await.unwrap().into_inner().game.unwrap();
    client.record_move(record(&first.id, 1, play(Black, "ee"), "k1")).await.unwrap();
    let again = client.create_game(create.clone()).await.unwrap().into_inner().game.unwrap();
    assert_eq!(again.id, first.id, "the retry gets the game the first call created");
    assert_eq!(again.move_number, 1, "as it is now");
    // Without the key, the same request is a second game on a taken board: ALREADY_EXISTS.
    let unkeyed = client.create_game(new_game("Key Cup", 1, 9)).await.unwrap_err();
    assert_eq!(unkeyed.code(), Code::AlreadyExists);
    // The key sent again with a different request: refused, naming the key; nothing created.
    let other = client.create_game(pb::CreateGameRequest { board_number: 2, ..create.clone() }).await.unwrap_err();
    assert_eq!(other.code(), Code::AlreadyExists, "{other:?}");
    assert_eq!(other.get_details_resource_info().map(|r| r.resource_name), Some("retry-cup/r1/b1".to_string()));
    let too_long =
        client.create_game(pb::CreateGameRequest { idempotency_key: "k".repeat(201), ..new_game("Key Cup", 3, 9) }).await.unwrap_err();
    assert_eq!(too_long.code(), Code::InvalidArgument);
    let listed = |c: &mut pb::game_recording_service_client::GameRecordingServiceClient<_>| {
        let mut c = c.clone();
        async move { c.list_games(pb::ListGamesRequest { tournament: "Key Cup".into(), round: 0 }).await.unwrap().into_inner().games.len() }
    };
    assert_eq!(listed(&mut client).await, 1);

    // ImportSgf onto the next free board: a retry without a key files a second copy; with
    // its key it gets the first import back, marked as replayed.
    let sgf = "(;GM[1]FF[4]SZ[9]KM[6.5]PB[Kitani Minoru]PW[Go Seigen];B[ee];W[cc];B[gg])";
    let import = pb::ImportSgfRequest {
        sgf: sgf.into(),
        tournament: "Key Cup".into(),
        round: 1,
        idempotency_key: "import-1".into(),
        ..Default::default()
    };
    let a = client.import_sgf(import.clone()).await.unwrap().into_inner();
    let b = client.import_sgf(import.clone()).await.unwrap().into_inner();
    assert!(!a.replayed && b.replayed);
    assert_eq!(b.game.as_ref().unwrap().id, a.game.as_ref().unwrap().id);
    assert_eq!(b.moves, 3);
    assert_eq!(listed(&mut client).await, 2);
    let c = client.import_sgf(pb::ImportSgfRequest { idempotency_key: String::new(), ..import.clone() }).await.unwrap().into_inner();
    assert_ne!(c.game.unwrap().id, a.game.unwrap().id, "no key: a new game on the next free board");
    assert_eq!(listed(&mut client).await, 3);
    app.stop().await;
}
