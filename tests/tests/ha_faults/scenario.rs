//! The scenario: faults during the load, their recovery times, the verdict.

use super::*;

// ---------------------------------------------------------------------------------------
// The scenario

pub(super) struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(super) fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

/// One run: the load through three recording processes, the faults, the checks. Returns the
/// verdict and what the subscriber saw against what the game holds.
pub(super) async fn scenario(synchronous: bool, replica_faults: bool) -> (Verdict, bool) {
    let mode = if synchronous { "synchronous" } else { "asynchronous" };
    println!("\n== {mode} replication{}", if replica_faults { "" } else { " (negative control: the database fault only)" });
    let root = std::env::temp_dir().join(format!("shinpan-ha-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Removed last, also when a check fails (after the clusters and processes are stopped).
    let _root = RemoveOnDrop(root.clone());

    let mut pair = Pair::start(&root, synchronous).await;
    let proxy = Proxy::start(pair.primary.as_ref().unwrap().port()).await;
    let url = pair.url(proxy.port, "shinpan");
    let mut replicas: Vec<Replica> = (1..=3).map(|i| Replica::new(&format!("recording-{i}"), &root, url.clone())).collect();
    // The first applies the migrations; the others find them applied.
    for r in &mut replicas {
        r.spawn();
    }
    for r in &replicas {
        r.wait_serving(Duration::from_secs(60)).await;
    }

    let phases: Vec<&str> = if replica_faults {
        vec!["steady", "SIGKILL recording-1, restart", "SIGTERM recording-2, restart", "primary failover", "after failover"]
    } else {
        vec!["steady", "primary failover", "after failover"]
    };
    let urls: Vec<String> = replicas.iter().map(Replica::url).collect();
    let load = Load::new(&urls, phases.len());
    // The process whose database becomes a standby: refused during the steady phase, back
    // after the promotion.
    let probe = if replica_faults {
        let mut probe = Probe::start(&root, &pair, &load).await;
        let standby = pair.standby.port();
        Some(tokio::spawn(async move {
            let refusal = probe.refused_by_standby(standby).await;
            (probe, refusal)
        }))
    } else {
        None
    };
    let mut phase_start = vec![Instant::now()];
    let mut workers = Vec::new();
    let games_at_once = std::env::var("SHINPAN_HA_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(GAMES_AT_ONCE);
    for _ in 0..games_at_once {
        workers.push(tokio::spawn(load.clone().play_games(Duration::ZERO, None)));
    }
    // The watched game: the longest record, a move every 100 ms, so it spans the faults.
    let (first_tx, first_rx) = tokio::sync::oneshot::channel();
    let watched_load = load.clone();
    workers.push(tokio::spawn(async move { watched_load.play_games(Duration::from_millis(100), Some(first_tx)).await }));
    let watched = first_rx.await.expect("the watched game");
    let (stop_watch, stop_rx) = tokio::sync::watch::channel(false);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let subscriber = tokio::spawn(subscribe(load.clone(), watched.clone(), seen.clone(), stop_rx));

    let steady = Duration::from_secs(if replica_faults { 6 } else { 4 });
    let mut recovery: Vec<String> = Vec::new();
    let next_phase = |load: &Load, starts: &mut Vec<Instant>| {
        starts.push(Instant::now());
        load.phase.fetch_add(1, SeqCst);
    };
    tokio::time::sleep(steady).await;

    if replica_faults {
        next_phase(&load, &mut phase_start);
        let t = Instant::now();
        replicas[0].kill().await;
        replicas[0].spawn();
        replicas[0].wait_serving(Duration::from_secs(30)).await;
        recovery.push(format!("SIGKILL recording-1: serving again {:.2} s after the kill", t.elapsed().as_secs_f64()));
        tokio::time::sleep(steady.saturating_sub(t.elapsed())).await;

        next_phase(&load, &mut phase_start);
        let t = Instant::now();
        let status = replicas[1].terminate().await;
        let drained = t.elapsed();
        assert!(
            status.success(),
            "recording-2 exits cleanly after SIGTERM: {status}; its log:\n{}",
            std::fs::read_to_string(&replicas[1].log).unwrap_or_default()
        );
        replicas[1].spawn();
        replicas[1].wait_serving(Duration::from_secs(30)).await;
        recovery.push(format!(
            "SIGTERM recording-2: drained and exited in {:.2} s, serving again {:.2} s after the signal",
            drained.as_secs_f64(),
            t.elapsed().as_secs_f64()
        ));
        tokio::time::sleep(steady.saturating_sub(t.elapsed())).await;
    }

    // The database: the link to the standby stalls for a second, then the primary dies and
    // what the link held back is lost with it.
    next_phase(&load, &mut phase_start);
    pair.link.pause();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let acked_before = load.acked.load(SeqCst);
    let t = Instant::now();
    tokio::task::block_in_place(|| pair.stop_primary_immediately());
    let stopped_at = Instant::now();
    pair.link.cut();
    tokio::task::block_in_place(|| pair.promote_standby());
    let promoted = Instant::now();
    proxy.switch(pair.standby.port());
    let switched = t.elapsed();
    // The probe's process, refused by the standby before, records its move now, unrestarted.
    let probe = match probe {
        Some(task) => {
            let (mut probe, refusal) = task.await.expect("the probe");
            Some(tokio::spawn(async move {
                let back = probe.record_next(Duration::from_secs(30)).await.map(|_| promoted.elapsed());
                (probe, refusal, back)
            }))
        }
        None => None,
    };
    // The first acknowledgement of a call sent after the primary stopped.
    let first_ack = loop {
        let first = {
            let o = load.observed.lock().unwrap();
            o.acks.iter().filter(|(sent, _)| *sent > stopped_at).map(|(_, a)| *a).min()
        };
        if let Some(a) = first {
            break a.duration_since(stopped_at);
        }
        assert!(t.elapsed() < Duration::from_secs(60), "no RecordMove acknowledged within 60 s of the failover");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    recovery.push(format!(
        "primary failover: standby promoted and proxy switched {:.2} s after the stop, first RecordMove acknowledged after {:.2} s ({} acknowledged before the stop)",
        switched.as_secs_f64(),
        first_ack.as_secs_f64(),
        acked_before
    ));
    tokio::time::sleep(steady.saturating_sub(t.elapsed())).await;
    next_phase(&load, &mut phase_start);
    tokio::time::sleep(steady).await;

    load.stop.store(true, SeqCst);
    let end = Instant::now();
    for w in workers {
        w.await.expect("a client task");
    }
    phase_start.push(end);

    // The subscriber catches up with what the promoted primary holds, then stops.
    let direct = pair.url(pair.standby.port(), "shinpan");
    let stored_events: i64 = {
        let mut c = sqlx_connect(&direct).await;
        sqlx::query_scalar("SELECT coalesce(max(seq), 0) FROM events WHERE game_id = $1")
            .bind(watched.parse::<uuid::Uuid>().unwrap())
            .fetch_one(&mut c)
            .await
            .unwrap()
    };
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline && seen.lock().unwrap().last().copied().unwrap_or(0) < stored_events as u64 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = stop_watch.send(true);
    let streams = subscriber.await.expect("the subscriber");
    let seen = seen.lock().unwrap().clone();
    let exactly_once = seen == (1..=stored_events as u64).collect::<Vec<_>>();

    // Report.
    {
        let o = load.observed.lock().unwrap();
        println!("{:<32} {:>6} {:>7} {:>9} {:>9} {:>9}  failed attempts", "phase", "s", "moves", "moves/s", "p50 ms", "p99 ms");
        for (i, name) in phases.iter().enumerate() {
            let secs = phase_start[i + 1].duration_since(phase_start[i]).as_secs_f64();
            let mut l = o.latencies[i].clone();
            l.sort_unstable();
            println!(
                "{:<32} {:>6.1} {:>7} {:>9.0} {:>9.2} {:>9.2}  {:?}",
                name,
                secs,
                l.len(),
                l.len() as f64 / secs,
                percentile(&l, 0.5),
                percentile(&l, 0.99),
                o.errors[i]
            );
        }
    }
    let probe = match probe {
        Some(task) => {
            let (mut probe, refusal, back) = task.await.expect("the probe");
            let back = back.expect("the probe's process records its move after the promotion, without a restart");
            load.observed.lock().unwrap().games.push((probe.game.clone(), probe.acked.clone()));
            let mut line = format!(
                "recording-probe, its database switched to the standby in recovery: the move refused after {:.2} s, \
                 recorded {:.2} s after the promotion, without a restart; its attempts:",
                refusal.after.as_secs_f64(),
                back.as_secs_f64()
            );
            for a in &refusal.attempts {
                line.push_str(&format!("\n  {a}"));
            }
            recovery.push(line);
            probe.replica.terminate().await;
            Some(refusal)
        }
        None => None,
    };
    for r in &recovery {
        println!("recovery: {r}");
    }
    {
        let o = load.observed.lock().unwrap();
        if let Some(i) = phases.iter().position(|p| *p == "primary failover") {
            let mut messages: Vec<(&String, &u64)> = o.unavailable[i].iter().collect();
            messages.sort_by(|a, b| b.1.cmp(a.1));
            for (m, n) in messages.iter().take(4) {
                println!("UNAVAILABLE during the failover, {n}×: {m}");
            }
        }
    }
    let verdict = check(&direct, &load, &load.clients[2]).await;
    println!(
        "checked on the promoted primary: {} games, {} acknowledged moves; lost {}, stored but unacknowledged {}, duplicated {}, \
         games with gaps {}, refused calls {}; hash chains: {} events, {} broken; exported SGF differing {}",
        verdict.games,
        verdict.acknowledged,
        verdict.lost.len(),
        verdict.unacknowledged.len(),
        verdict.duplicates,
        verdict.gaps.len(),
        verdict.refused.len(),
        verdict.chain_events,
        verdict.chain_breaks,
        verdict.sgf_mismatches.len()
    );
    for line in verdict.lost.iter().chain(&verdict.refused).chain(&verdict.gaps).chain(&verdict.sgf_mismatches).take(5) {
        println!("  {line}");
    }
    println!(
        "WatchGame subscriber: {} events over {streams} streams, the game holds {stored_events}: {}",
        seen.len(),
        if exactly_once { "every event exactly once" } else { "NOT every event exactly once" }
    );

    for r in &mut replicas {
        if r.child.is_some() {
            r.terminate().await;
        }
    }
    drop(pair);
    if let Some(refusal) = probe {
        assert!(refusal.message.contains("retry the call"), "the refusal says what to do: {}", refusal.message);
    }
    (verdict, exactly_once)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(super) async fn nothing_acknowledged_is_lost_through_replica_and_primary_failures() {
    let bounded = Duration::from_secs(420);
    tokio::time::timeout(bounded, async {
        let (verdict, exactly_once) = scenario(true, true).await;
        assert!(verdict.acknowledged > 1000, "the load recorded too little to mean anything: {verdict:?}");
        assert!(verdict.nothing_lost(), "synchronous replication lost or changed something: {verdict:#?}");
        assert!(exactly_once, "the WatchGame subscriber did not see every event exactly once");

        // Negative control: the same database fault without synchronous replication loses
        // acknowledged moves, and the same check says so.
        let (control, _) = scenario(false, false).await;
        assert!(!control.lost.is_empty(), "asynchronous replication lost nothing: the check could not tell ({control:?})");
        assert!(!control.nothing_lost());
    })
    .await
    .expect("the fault test finishes within 7 minutes");
}
