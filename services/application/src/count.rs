//! The count of a final position (第十条), with the players' agreed statuses (第九条) or the
//! statuses hypothetical play proves (第七条・第八条).

use crate::adjudication::Agreement;
use crate::archive::Reconstruction;
use crate::error::AppError;
use crate::AppState;
use goban::{Color, GameResult, Status as StoneStatus, StatusMap};
use serde_json::{json, Value};

/// A count of the final position: statuses, the count's result and the JSON detail.
pub struct Count {
    /// The result of the count (may be `Undecided`).
    pub result: GameResult,
    /// `{"dead": [...], "seki": [...], "undecided": [...]}` (SGF points of stones).
    pub statuses: Value,
    /// Detail kept with the result: who decided the statuses, scores, territory, proofs.
    pub detail: Value,
}

/// Counts the reconstructed final position (第十条): with the players' agreed statuses
/// (第九条), or — with none — the statuses the adjudicator finds by hypothetical play
/// (第七条・第八条), searched once a core is free ([`AppState::search`]). This is a ruling, so
/// it never uses an estimate: a chain hypothetical play leaves undecided stays undecided (and
/// opens the arbiter's case). What the players can start their agreement from instead — the
/// proved statuses completed by an estimator's, labelled by basis — is
/// `AdjudicationService.Propose` ([`crate::proposal`]).
///
/// # Errors
/// `INVALID_ARGUMENT` for an agreed stone on an empty point (`agreements[i].stones: no stone
/// on xx`); `INTERNAL` if the search thread panicked.
pub async fn count(state: &AppState, recon: &Reconstruction, komi: f64, agreements: &[Agreement]) -> Result<Count, AppError> {
    let game = recon.replayed.game.clone();
    let rules = recon.rules;
    let board = game.board().clone();
    let mut agreed = None;
    if !agreements.is_empty() {
        let mut m = StatusMap::new(&board);
        for (i, a) in agreements.iter().enumerate() {
            for &p in &a.stones {
                if board.get(p).is_none() {
                    return Err(AppError::invalid(format!("agreements[{i}].stones: no stone on {}", p.to_sgf())));
                }
                m.set_chain(&board, p, a.status);
            }
        }
        agreed = Some(m);
    }
    let (status, decided_by, proofs) = match agreed {
        Some(m) => (m, "agreement (第九条)".to_string(), Value::Array(vec![])),
        None => {
            let b = board.clone();
            let opts = shinpan_adjudicator::Options {
                budget_nodes: crate::DEFAULT_BUDGET,
                to_move: game.to_move(),
                ko_pending: game.ko_point(),
                ..Default::default()
            };
            let adj = state.search(move || shinpan_adjudicator::adjudicate(&b, rules, &opts)).await?;
            let proofs = adj
                .proofs
                .iter()
                .map(|p| {
                    json!({
                        "stones": p.stones.iter().map(|s| s.to_sgf()).collect::<Vec<_>>(),
                        "color": p.color.letter().to_string(),
                        "status": p.status.name(),
                        "line": p.line_text(),
                        "nodes": p.nodes,
                        "reason": p.undecided.map(|u| u.to_string()),
                    })
                })
                .collect();
            (adj.status, "shinpan-adjudicator (第七条・第八条)".to_string(), Value::Array(proofs))
        }
    };
    let sc = goban::score(
        &board,
        &status,
        [game.prisoners(Color::Black), game.prisoners(Color::White)],
        [game.passes(Color::Black), game.passes(Color::White)],
        komi,
        rules,
    );
    let pts = |s: StoneStatus| status.stones_with(&board, s).iter().map(|p| p.to_sgf()).collect::<Vec<_>>();
    // The colour of every listed stone, so that the statuses read alone (PointStatus.color).
    let mut colours = serde_json::Map::new();
    for st in [StoneStatus::Dead, StoneStatus::Seki, StoneStatus::Undecided] {
        for p in status.stones_with(&board, st) {
            if let Some(c) = board.get(p) {
                colours.insert(p.to_sgf(), json!(c.letter().to_string()));
            }
        }
    }
    let statuses = json!({
        "dead": pts(StoneStatus::Dead),
        "seki": pts(StoneStatus::Seki),
        "undecided": pts(StoneStatus::Undecided),
        "colours": colours,
    });
    let detail = json!({
        "decided_by": decided_by,
        "count": {
            "result": sc.result.to_sgf(),
            "score": {"black": sc.score[0], "white": sc.score[1]},
            "prisoners": {"black": sc.prisoners[0], "white": sc.prisoners[1]},
            "territory": {
                "black": sc.territory[0].iter().map(|p| p.to_sgf()).collect::<Vec<_>>(),
                "white": sc.territory[1].iter().map(|p| p.to_sgf()).collect::<Vec<_>>(),
            },
            "komi": komi,
            "rule_set": rules.name(),
        },
        "proofs": proofs,
    });
    Ok(Count { result: sc.result, statuses, detail })
}
