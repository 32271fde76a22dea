//! `shinpan demo`: the first command of the README. Starts the services in-process on the
//! embedded PostgreSQL (or `DATABASE_URL`), loads a real game record from `../shared/games`
//! through the gRPC API, and prints every step: import, read back, export, then a game
//! recorded move by move while a watcher follows it, a foul stored and not applied, an
//! idempotent retry and a move sent out of sequence; then the end of a real finished game:
//! shinpan's proposal (proved statuses, the rest estimated and labelled so), a chain the
//! players dispute decided by hypothetical play with their agreement as context (第九条・
//! 第七条) and its proof line, and the count confirmed by both players and the referee
//! (第十条) until final.

use crate::configuration::ServeArgs;
use crate::exit;
use crate::startup::Application;
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::game_recording_service_client::GameRecordingServiceClient;
use shinpan_proto::v1::rule_validation_service_client::RuleValidationServiceClient;
use shinpan_proto::ValueName;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tonic::transport::Channel;

/// Arguments of `shinpan demo`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// PostgreSQL URL; unset: the embedded private cluster under DATA_DIR/pg (--data-dir).
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// Directory for the demo's own state (its embedded cluster under `pg/`): apart from
    /// `serve`'s `.shinpan`, so the demo's games never show up in a tournament's database.
    #[arg(long, env = "SHINPAN_DEMO_DIR", default_value = ".shinpan/demo")]
    pub data_dir: PathBuf,
    /// The real game records (index.tsv and 9/ 13/ 19/).
    #[arg(long, default_value = "../shared/games")]
    pub games: PathBuf,
    /// A record to load instead of the first 19x19 Japanese-rules record of index.tsv.
    #[arg(long)]
    pub file: Option<PathBuf>,
}

/// The record the demo loads: `file`, else the first 19x19 record with RU Japanese in
/// `games/index.tsv`, else any `.sgf` under `games/19`.
pub fn pick_record(games: &Path, file: Option<&Path>) -> Option<PathBuf> {
    if let Some(f) = file {
        return Some(f.to_path_buf());
    }
    if let Ok(index) = std::fs::read_to_string(games.join("index.tsv")) {
        for line in index.lines().skip(1) {
            let cols: Vec<&str> = line.split('\t').collect();
            if cols.len() > 8 && cols[4] == "19" && cols[8].eq_ignore_ascii_case("japanese") && cols[6] == "0" {
                return Some(games.join(cols[0]));
            }
        }
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(games.join("19"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sgf"))
        .collect();
    files.sort();
    files.into_iter().next()
}

/// Runs the demo.
pub fn run(args: Args) -> ExitCode {
    exit::block_on(async move { exit::from_result(demo(args).await) })
}

fn mv(color: pb::Color, point: &str) -> pb::Move {
    pb::Move { color: color as i32, action: Some(pb::r#move::Action::Point(point.to_string())) }
}

async fn demo(args: Args) -> anyhow::Result<()> {
    let record_path = pick_record(&args.games, args.file.as_deref())
        .ok_or_else(|| anyhow::anyhow!("no game record found under {} (give --games DIR or --file FILE.sgf)", args.games.display()))?;
    let sgf = std::fs::read(&record_path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", record_path.display()))?;
    let sgf = String::from_utf8_lossy(&sgf).into_owned();

    println!("== shinpan demo ==");
    match &args.database_url {
        Some(_) => println!("1. starting the services on DATABASE_URL ..."),
        None => println!("1. starting the services on the embedded PostgreSQL in {} ...", args.data_dir.join("pg").display()),
    }
    let serve = ServeArgs::local(args.database_url.clone(), args.data_dir.clone());
    let app = Application::build(&serve).await?;
    let url = app.url();
    println!("   serving {} on {url} (one port, health and reflection included)", app.services().join(", "));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = stop_rx.await;
    }));

    let mut result = steps(&url, &record_path, sgf).await;
    if result.is_ok() {
        result = end_of_game(&url, &args.games).await;
    }

    let _ = stop_tx.send(());
    match server.await {
        Ok(Ok(())) => println!(
            "8. server stopped gracefully{}",
            if args.database_url.is_none() { "; embedded PostgreSQL stopped (data kept for the next start)" } else { "" }
        ),
        Ok(Err(e)) => eprintln!("server error: {e}"),
        Err(e) => eprintln!("server task failed: {e}"),
    }
    result
}

async fn steps(url: &str, record_path: &Path, sgf: String) -> anyhow::Result<()> {
    let channel = crate::remote::channel(url).await?;
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    let h = health
        .check(tonic_health::pb::HealthCheckRequest { service: shinpan_proto::service_names::GAME_RECORDING.into() })
        .await?
        .into_inner();
    println!(
        "   health of GameRecordingService: {:?}",
        tonic_health::pb::health_check_response::ServingStatus::try_from(h.status).unwrap_or_default()
    );
    let mut validation = RuleValidationServiceClient::new(channel.clone());
    let rule_sets = validation.list_rule_sets(pb::ListRuleSetsRequest {}).await?.into_inner().rule_sets;
    println!("   rule sets: {}", rule_sets.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", "));
    let mut client: GameRecordingServiceClient<Channel> = GameRecordingServiceClient::new(channel.clone());

    println!("2. importing {} through ImportSgf (every move validated) ...", record_path.display());
    let imported = client
        .import_sgf(pb::ImportSgfRequest {
            sgf: sgf.clone(),
            tournament: String::new(),
            round: 0,
            board_number: 0,
            rule_set: String::new(),
            ..Default::default()
        })
        .await?
        .into_inner();
    let game = imported.game.clone().unwrap_or_default();
    println!("   imported {} moves as game {}", imported.moves, game.id);
    println!(
        "   the referee console shows it while the demo runs: {url}/console/games/{} (sign in with a token of `shinpan token issue --role referee --subject referee-1`)",
        game.id
    );
    println!("{}", crate::client::game_summary(&game).lines().map(|l| format!("   {l}")).collect::<Vec<_>>().join("\n"));

    println!("3. exporting it back through ExportSgf ...");
    let exported = client.export_sgf(pb::ExportSgfRequest { game_id: game.id.clone() }).await?.into_inner().sgf;
    let original = shinpan_sgf::Record::parse(&sgf)?;
    let back = shinpan_sgf::Record::parse(&exported)?;
    let same = original.moves.iter().map(|m| (m.color, m.mv)).eq(back.moves.iter().map(|m| (m.color, m.mv)));
    println!("   {} bytes of SGF; same {} moves as the file: {}", exported.len(), back.moves.len(), if same { "yes" } else { "NO" });

    println!("4. recording a game move by move (the first 12 moves of that record) while a watcher follows it ...");
    let created = client
        .create_game(pb::CreateGameRequest {
            tournament: "shinpan demo".into(),
            round: 1,
            board_number: 0,
            black: game.black.clone(),
            white: game.white.clone(),
            board_size: original.width as u32,
            komi: Some(game.komi),
            handicap: 0,
            rule_set: "japanese-2011".into(),
            ..Default::default()
        })
        .await?
        .into_inner()
        .game
        .unwrap_or_default();
    let mut watcher = client.clone();
    let watch_id = created.id.clone();
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel::<()>();
    let watching = tokio::spawn(async move {
        let mut lines = Vec::new();
        let mut stream =
            watcher.watch_game(pb::WatchGameRequest { game_id: watch_id, from_sequence: 1, until_end: true }).await?.into_inner();
        let _ = ready_tx.send(());
        while let Some(m) = stream.message().await? {
            let e = m.event.unwrap_or_default();
            println!("   [watcher] {}", crate::client::event_line(&e));
            lines.push(e);
        }
        Ok::<_, tonic::Status>(lines)
    });
    let _ = ready_rx.await;
    let moves: Vec<_> = original.moves.iter().filter(|m| m.mv != goban::Move::Pass).take(12).collect();
    for (i, m) in moves.iter().enumerate() {
        let r = client
            .record_move(pb::RecordMoveRequest {
                game_id: created.id.clone(),
                move_number: i as u32 + 1,
                r#move: Some(crate::convert::move_to_pb(m.color, m.mv)),
                client_time: Some(crate::convert::timestamp(chrono::Utc::now())),
                idempotency_key: format!("demo-{}", i + 1),
            })
            .await?
            .into_inner();
        anyhow::ensure!(r.legal, "move {} of a real record was refused: {:?}", i + 1, r.foul);
    }
    let n = moves.len() as u32;
    println!("5. the same move {n} sent again with the same idempotency key ...");
    let last = moves[moves.len() - 1];
    let retry = client
        .record_move(pb::RecordMoveRequest {
            game_id: created.id.clone(),
            move_number: n,
            r#move: Some(crate::convert::move_to_pb(last.color, last.mv)),
            client_time: None,
            idempotency_key: format!("demo-{n}"),
        })
        .await?
        .into_inner();
    println!("   answered from the store: replayed = {}, sequence {} (nothing stored twice)", retry.replayed, retry.sequence);
    println!("   ... and move {n} again from another client (new key):");
    let next_color = if last.color == goban::Color::Black { pb::Color::White } else { pb::Color::Black };
    match client
        .record_move(pb::RecordMoveRequest {
            game_id: created.id.clone(),
            move_number: n,
            r#move: Some(mv(next_color, "aa")),
            client_time: None,
            idempotency_key: "demo-late".into(),
        })
        .await
    {
        Err(s) => {
            println!("   {:?}: {} (current move number in the details: {:?})", s.code(), s.message(), crate::error::current_move_number(&s))
        }
        Ok(_) => println!("   unexpectedly accepted"),
    }
    println!("6. a foul: move {} played on an occupied point ...", n + 1);
    let occupied = match moves[0].mv {
        goban::Move::Play(p) => p.to_sgf(),
        goban::Move::Pass => "dd".into(),
    };
    let foul = client
        .record_move(pb::RecordMoveRequest {
            game_id: created.id.clone(),
            move_number: n + 1,
            r#move: Some(mv(next_color, &occupied)),
            client_time: None,
            idempotency_key: "demo-foul".into(),
        })
        .await?
        .into_inner();
    if let Some(f) = &foul.foul {
        println!("   stored as a foul event, not applied: {} [rule {}, {}]", f.description, f.rule, f.article);
    }
    let _ = client
        .resign(pb::ResignRequest { game_id: created.id.clone(), color: next_color as i32, idempotency_key: "demo-resign".into() })
        .await?;
    let events = watching.await??;
    let after = client.get_game(pb::GetGameRequest { game_id: created.id.clone() }).await?.into_inner().game.unwrap_or_default();
    println!(
        "   the watcher saw {} events; the game has {} moves, flagged for the arbiter: {}, result {}",
        events.len(),
        after.move_number,
        after.flagged,
        after.result
    );
    Ok(())
}

/// The first finished game of `games/index.tsv` whose players' dead-stone marks reproduce
/// `RE` (column `marks_agree_with_RE`), a 19x19 one first.
fn finished_record(games: &Path) -> Option<PathBuf> {
    let index = std::fs::read_to_string(games.join("index.tsv")).ok()?;
    let mut lines = index.lines();
    let header: Vec<&str> = lines.next()?.split('\t').collect();
    let (c_file, c_agree) = (header.iter().position(|h| *h == "file")?, header.iter().position(|h| *h == "marks_agree_with_RE")?);
    let rows: Vec<Vec<&str>> =
        lines.map(|l| l.split('\t').collect::<Vec<_>>()).filter(|f| f.len() > c_agree && f[c_agree] == "1").collect();
    rows.iter().find(|f| f[c_file].starts_with("19/")).or(rows.first()).map(|f| games.join(f[c_file]))
}

/// Step 7: the end of a real game — proposal, a dispute decided, the result confirmed.
async fn end_of_game(url: &str, games: &Path) -> anyhow::Result<()> {
    use shinpan_proto::v1::adjudication_service_client::AdjudicationServiceClient;
    use shinpan_proto::v1::result_confirmation_service_client::ResultConfirmationServiceClient;
    let Some(path) = finished_record(games) else {
        println!("7. (no finished game with dead-stone marks under {}: the end of a game is not shown)", games.display());
        return Ok(());
    };
    let sgf = String::from_utf8_lossy(&std::fs::read(&path)?).into_owned();
    let recorded = shinpan_sgf::Record::parse(&sgf).ok().and_then(|r| r.info.result).unwrap_or_default();
    let channel = crate::remote::channel(url).await?;
    let mut recording = GameRecordingServiceClient::new(channel.clone());
    println!("7. the end of a real game: {} ...", path.display());
    let imported = recording
        .import_sgf(pb::ImportSgfRequest { sgf, tournament: "shinpan demo".into(), round: 2, ..Default::default() })
        .await?
        .into_inner();
    let game = imported.game.unwrap_or_default();
    println!("   imported {} moves as game {} (play stopped by passes)", imported.moves, game.id);

    let mut adjudication = AdjudicationServiceClient::new(channel.clone());
    let by_game =
        || pb::AdjudicateRequest { position: Some(pb::adjudicate_request::Position::GameId(game.id.clone())), ..Default::default() };
    let proposal = adjudication.propose(pb::ProposeRequest { request: Some(by_game()) }).await?.into_inner();
    let p = proposal.proposal.clone().unwrap_or_default();
    let count = |basis: &str| p.proofs.iter().filter(|x| x.basis == basis).map(|x| x.stones.len()).sum::<usize>();
    println!(
        "   proposal (advisory, 第九条): {} — {} stones proved by hypothetical play (第七条), {} estimated by {}{}",
        p.result,
        count("proved"),
        count("estimated"),
        if proposal.estimator_source.is_empty() { "no estimator" } else { &proposal.estimator_source },
        if proposal.estimator_error.is_empty() { String::new() } else { format!(" ({})", proposal.estimator_error) }
    );
    let dead: Vec<&pb::Proof> = p.proofs.iter().filter(|x| x.status == pb::ChainStatus::Dead as i32).collect();
    let agreement = |except: Option<&str>| -> Vec<pb::Agreement> {
        dead.iter()
            .filter(|x| except.is_none_or(|e| !x.stones.iter().any(|s| s == e)))
            .map(|x| pb::Agreement { stones: x.stones.clone(), status: pb::ChainStatus::Dead as i32 })
            .collect()
    };
    // The players accept the proposal but for one chain that one of them disputes: the
    // first marked-dead chain that hypothetical play settles within the default budget.
    let mut decided = None;
    for chain in dead.iter().take(6) {
        let stone = chain.stones[0].clone();
        let mut req = by_game();
        req.agreements = agreement(Some(&stone));
        req.disputed = vec![stone.clone()];
        let r = adjudication.adjudicate(req).await?.into_inner();
        match r.proofs.iter().find(|x| x.stones.contains(&stone)) {
            Some(pr) if pr.status != pb::ChainStatus::Undecided as i32 => {
                let with_line = !pr.line.is_empty();
                if decided.is_none() || with_line {
                    decided = Some((stone, pr.clone()));
                }
                if with_line {
                    break;
                }
            }
            _ => println!("   disputed {stone}: undecided within the budget (it would go to the referee's case)"),
        }
    }
    if let Some((_, pr)) = &decided {
        println!(
            "   disputed {} (the others agreed): {} by hypothetical play with the agreement as context — {}",
            pr.stones.join(","),
            pb::ChainStatus::try_from(pr.status).map(|s| s.value_name()).unwrap_or("?"),
            if pr.line.is_empty() { "settled from the start".to_string() } else { pr.line.join(" ") }
        );
    }

    let referee = crate::auth::testing_token(crate::auth::Role::Referee, "referee-1", Some("shinpan demo"), None, None);
    let player = |pl: &Option<pb::Player>| {
        let pl = pl.clone().unwrap_or_default();
        let sub = if pl.federation_id.is_empty() { pl.name } else { pl.federation_id };
        crate::auth::testing_token(crate::auth::Role::Player, &sub, None, None, None)
    };
    let (tb, tw) = (player(&game.black), player(&game.white));
    fn with<M>(t: &str, m: M) -> tonic::Request<M> {
        let mut r = tonic::Request::new(m);
        r.metadata_mut().insert("authorization", format!("Bearer {t}").parse().expect("ascii token"));
        r
    }
    let mut results = ResultConfirmationServiceClient::new(channel);
    let proposed = results
        .propose_result(with(
            &referee,
            pb::ProposeResultRequest {
                game_id: game.id.clone(),
                ending: pb::Ending::Count as i32,
                agreements: agreement(None),
                ..Default::default()
            },
        ))
        .await?
        .into_inner()
        .result
        .unwrap_or_default();
    println!(
        "   count with the agreed dead stones (第十条), proposed by the referee: {} awaiting {}",
        proposed.result,
        proposed.pending.join(", ")
    );
    let mut last = proposed;
    for (who, t) in [("black", &tb), ("white", &tw), ("referee", &referee)] {
        last = results
            .confirm_result(with(t, pb::ConfirmResultRequest { game_id: game.id.clone(), ..Default::default() }))
            .await?
            .into_inner()
            .result
            .unwrap_or_default();
        println!("   confirmed by {who}: {:?}", pb::ResultState::try_from(last.state).unwrap_or_default());
    }
    println!("   the record's own result (RE): {recorded}; shinpan's final result: {}", last.result);
    Ok(())
}
