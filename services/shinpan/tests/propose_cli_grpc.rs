//! `shinpan propose` (CLI) and `AdjudicationService.Propose` (real gRPC over loopback, the
//! adjudication-only deployment: no database): every chain has a status with its basis and
//! source, the proposal is labelled advisory, and the estimator's absence never fails the
//! call (the unproved chains stay undecided, result `?`). The estimator parts with GNU Go run
//! only where it is installed, saying so otherwise.

use shinpan::configuration::{ServeArgs, ServiceKind};
use shinpan::estimate::GnuGo;
use shinpan::startup::Application;
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::adjudication_service_client::AdjudicationServiceClient;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A real game: KGS 2017, both players 6 dan or more, counted by the server (RE W+0.50).
fn record() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games/19/kgs2017__kgs-19-2017-01-new__2017-01-01-12.sgf")
}

fn propose_json(extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_shinpan")).arg("propose").arg("--json").args(extra).arg(record()).output().expect("run shinpan");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), v)
}

/// Every stone of the report is in exactly one proof entry, and each entry has a basis.
fn check_entries(v: &serde_json::Value) -> usize {
    let proofs = v["proofs"].as_array().expect("proofs");
    let stones: usize = ["alive", "dead", "seki", "undecided"].iter().map(|k| v["status"][k].as_array().unwrap().len()).sum();
    let mut seen = std::collections::HashSet::new();
    for p in proofs {
        let basis = p["basis"].as_str().unwrap();
        assert!(["proved", "estimated", "undecided"].contains(&basis), "{p}");
        assert_eq!(basis == "undecided", p["status"] == "undecided", "{p}");
        if basis != "undecided" {
            assert!(!p["source"].as_str().unwrap().is_empty(), "{p}");
        }
        for s in p["stones"].as_array().unwrap() {
            assert!(seen.insert(s.as_str().unwrap().to_string()), "{s} in two entries");
        }
    }
    assert_eq!(seen.len(), stones, "every stone has an entry");
    proofs.len()
}

#[test]
fn without_an_estimator_the_proved_statuses_stand_and_the_rest_is_undecided() {
    let (code, v) = propose_json(&["--gnugo", "/nonexistent/gnugo"]);
    assert_eq!(code, Some(4), "{v}");
    assert_eq!(v["advisory"], true);
    assert_eq!(v["result"], "?");
    assert_eq!(v["proved_result"], "?");
    assert!(v["estimator"]["error"].as_str().unwrap().contains("cannot start"), "{v}");
    check_entries(&v);
    let proofs = v["proofs"].as_array().unwrap();
    assert!(proofs.iter().any(|p| p["basis"] == "proved" && p["pass_alive"] == true), "pass-alive chains have an entry");
    assert!(proofs.iter().any(|p| p["basis"] == "undecided" && p["reason"].is_string()));
    assert!(proofs.iter().all(|p| p["basis"] != "estimated"));
}

#[test]
fn with_gnu_go_every_chain_is_proved_or_estimated_and_the_count_is_re() {
    if !GnuGo::default().provision() {
        eprintln!("SKIPPED: GNU Go not installed (apt-get install gnugo)");
        return;
    }
    let (code, v) = propose_json(&[]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["result"], "W+0.5", "RE W+0.50, and the players' marks give the same");
    assert!(v["estimator"]["source"].as_str().unwrap().contains("gnugo-3"), "{v}");
    assert!(v["estimator"].get("error").is_none(), "{v}");
    check_entries(&v);
    let proofs = v["proofs"].as_array().unwrap();
    assert!(proofs.iter().any(|p| p["basis"] == "estimated"));
    assert!(proofs.iter().all(|p| p["basis"] != "undecided"));
    // The text output: the label, the diagram and one line per chain with its basis.
    let out = Command::new(env!("CARGO_BIN_EXE_shinpan")).arg("propose").arg(record()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("PROPOSAL (advisory"), "{text}");
    assert!(text.contains("   abcdefghijklmnopqrs"), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(": proved by ") || l.contains(": estimated by ")).count(), proofs.len(), "{text}");
}

/// The adjudication service alone, without a database, on port 0: a client of it and the
/// sender that stops it.
async fn adjudication_service() -> (AdjudicationServiceClient<tonic::transport::Channel>, tokio::sync::oneshot::Sender<()>) {
    let mut args = ServeArgs::local(None, "/nonexistent".into());
    args.service = ServiceKind::Adjudication;
    let app = Application::with_store(&args, None).await.expect("adjudication of records needs no database");
    let url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    (AdjudicationServiceClient::new(shinpan::remote::channel(&url).await.unwrap()), tx)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn propose_over_grpc() {
    let (mut c, tx) = adjudication_service().await;
    let sgf = std::fs::read_to_string(record()).unwrap();
    let req = pb::AdjudicateRequest { position: Some(pb::adjudicate_request::Position::Sgf(sgf)), ..Default::default() };
    let r = c.propose(pb::ProposeRequest { request: Some(req.clone()) }).await.expect("propose").into_inner();
    let p = r.proposal.as_ref().unwrap();
    let stones: usize = p.proofs.iter().map(|x| x.stones.len()).sum();
    assert_eq!(stones, p.statuses.len(), "one entry per chain, every stone in one");
    for x in &p.proofs {
        assert!(["proved", "estimated", "undecided"].contains(&x.basis.as_str()), "{x:?}");
        assert_eq!(x.basis == "undecided", x.status == pb::ChainStatus::Undecided as i32, "{x:?}");
    }
    assert!(p.proofs.iter().any(|x| x.basis == "proved" && x.pass_alive));
    assert_eq!(r.proved_result, "?");
    assert_eq!(p.sequence, 0, "nothing stored");
    if GnuGo::default().available() {
        assert_eq!(r.estimator_error, "");
        assert!(r.estimator_source.contains("gnugo-3"), "{}", r.estimator_source);
        assert_eq!(p.result, "W+0.5");
        assert!(p.proofs.iter().all(|x| x.basis != "undecided"));
    } else {
        eprintln!("GNU Go not installed: the proposal carries the proved statuses only");
        assert!(!r.estimator_error.is_empty());
        assert_eq!(p.result, "?");
    }
    // A proposal is what an agreement starts from: agreements are refused.
    let mut agreed = req.clone();
    agreed.agreements = vec![pb::Agreement { stones: vec!["aa".into()], status: pb::ChainStatus::Dead as i32 }];
    let e = c.propose(pb::ProposeRequest { request: Some(agreed) }).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e}");
    let _ = tx.send(());
}

/// A disputed stone beside an agreed wall kept by two links (第七条; the adjudicator's module
/// `dispute`): the gRPC answer names the wall and its links, and does not list it drawn in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wall_kept_by_links_over_grpc() {
    let (mut c, tx) = adjudication_service().await;
    let sgf = "(;GM[1]FF[4]SZ[5]AB[bb]AW[da][cb][eb][ac][bc][dc][cd])".to_string();
    let req = pb::AdjudicateRequest {
        position: Some(pb::adjudicate_request::Position::Sgf(sgf)),
        agreements: vec![pb::Agreement { stones: vec!["bb".into()], status: pb::ChainStatus::Dead as i32 }],
        disputed: vec!["bb".into()],
        ..Default::default()
    };
    let r = c.adjudicate(req).await.expect("adjudicate").into_inner();
    assert!(r.drawn_in.is_empty(), "{:?}", r.drawn_in);
    assert_eq!(r.kept_by_links.len(), 1, "{:?}", r.kept_by_links);
    let k = &r.kept_by_links[0];
    assert_eq!(
        (k.stones.clone(), k.by.clone(), k.links.clone()),
        (vec!["cb".to_string()], "bb".to_string(), vec!["cc".to_string(), "db".to_string()])
    );
    let proof = r.proofs.iter().find(|p| p.stones == ["bb"]).expect("bb's proof");
    assert_eq!(proof.status, pb::ChainStatus::Dead as i32);
    let _ = tx.send(());
}
