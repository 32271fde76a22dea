//! Adjudication (`Adjudicate`, `Propose`, `AdjudicateStream`): the messages decoded into the use cases' commands and their answers encoded.

use super::*;

/// A chain status (第七条) from the wire enum `shinpan.v1.ChainStatus`.
///
/// # Errors
/// `INVALID_ARGUMENT` on `field` for `CHAIN_STATUS_UNSPECIFIED` or an unknown value.
pub fn chain_status_from_pb(field: &str, s: i32) -> Result<goban::Status, AppError> {
    status_from_pb(s)
        .ok_or_else(|| AppError::field(field, "CHAIN_STATUS_ALIVE, CHAIN_STATUS_DEAD, CHAIN_STATUS_SEKI or CHAIN_STATUS_UNDECIDED"))
}

/// Decodes an `AdjudicateRequest` (and the request inside `Propose`, `AdjudicateStream`):
/// `rule_set`, the position (`game_id` as a UUID, `sgf`, or `board.*` whose height 0 means
/// its width), `agreements[i]` (status, then at least one stone), `disputed[i]`. Stones are
/// SGF points; the use case checks them against the position's board.
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field: an unknown or over-long rule set, no position, a
/// game id that is not a UUID, a bad board, status or point.
pub fn adjudicate_from_pb(req: &pb::AdjudicateRequest) -> Result<Adjudicate, AppError> {
    use pb::adjudicate_request::Position as P;
    let rules = if req.rule_set.trim().is_empty() { None } else { Some(rule_set("rule_set", &req.rule_set)?) };
    limits::check(&[("rule_set", &req.rule_set, MAX_NAME_BYTES)])?;
    let source = match &req.position {
        Some(P::GameId(id)) => Source::Game(
            uuid::Uuid::parse_str(id.trim()).map_err(|_| AppError::field("game_id", format!("`{}` is not a UUID", limits::excerpt(id))))?,
        ),
        Some(P::Sgf(text)) => Source::Sgf(text.clone()),
        Some(P::Board(pos)) => Source::Board(position_from_pb("board", pos, if pos.height == 0 { pos.width } else { pos.height })?),
        None => return Err(AppError::field("position", "give a game_id, an sgf record or a board")),
    };
    let mut agreements = Vec::with_capacity(req.agreements.len());
    for (i, a) in req.agreements.iter().enumerate() {
        let status = chain_status_from_pb(&format!("agreements[{i}].status"), a.status)?;
        if a.stones.is_empty() {
            return Err(AppError::field(format!("agreements[{i}].stones"), "name at least one stone"));
        }
        let stones = points_from_sgf(&format!("agreements[{i}].stones"), &a.stones, MAX_BOARD, MAX_BOARD)?;
        agreements.push(Agreement { stones, status });
    }
    let disputed = points_from_sgf("disputed", &req.disputed, MAX_BOARD, MAX_BOARD)?;
    Ok(Adjudicate { source, rules, komi: req.komi, agreements, disputed, budget_nodes: req.budget_nodes, budget_ms: req.budget_ms })
}

/// SGF points of a list of points.
fn sgf_points(v: &[Point]) -> Vec<String> {
    v.iter().map(|p| p.to_sgf()).collect()
}

/// The count of `subject`'s position with the statuses `status` in protobuf form: every
/// stone's status, territory, dame, prisoners, scores and result (第八条・第十条); no proofs.
fn count_to_pb(subject: &Subject, status: &StatusMap, count: &Score) -> pb::AdjudicateResponse {
    let board = &subject.board;
    let statuses = board
        .points()
        .filter_map(|p| {
            board.get(p).map(|c| pb::PointStatus { point: p.to_sgf(), color: color_to_pb(c), status: status_to_pb(status.get(p)) })
        })
        .collect();
    pb::AdjudicateResponse {
        statuses,
        territory_black: sgf_points(&count.territory[0]),
        territory_white: sgf_points(&count.territory[1]),
        dame: sgf_points(&count.dame),
        prisoners_black: count.prisoners[0],
        prisoners_white: count.prisoners[1],
        score_black: count.score[0],
        score_white: count.score[1],
        result: count.result.to_sgf(),
        rule_set: subject.rules.name().to_string(),
        komi: subject.komi,
        ..Default::default()
    }
}

/// Protobuf form of an engine proof: the chain, its status, the line (`"B dd"`), nodes and,
/// for an undecided chain, the reason.
fn proof_to_pb(p: &shinpan_adjudicator::Proof) -> pb::Proof {
    pb::Proof {
        stones: sgf_points(&p.stones),
        status: status_to_pb(p.status),
        line: p.line_text(),
        nodes: p.nodes,
        reason: p.undecided.map(|u| u.to_string()).unwrap_or_default(),
        ..Default::default()
    }
}

/// Protobuf form of an adjudication (`AdjudicateResponse`): statuses of every stone,
/// territory, dame, prisoners, score and result (第八条・第十条), proofs, refuted
/// agreements, the agreed chains drawn into a dispute, nodes and the stored event's
/// sequence (0 when nothing was stored).
pub fn adjudicated_to_pb(a: &Adjudicated) -> pb::AdjudicateResponse {
    let adj = &a.adjudication;
    let refuted = adj
        .refuted_agreements
        .iter()
        .map(|r| pb::Refutation {
            stones: sgf_points(&r.stones),
            agreed: status_to_pb(r.agreed),
            found: status_to_pb(r.found),
            proof: Some(pb::Proof {
                stones: sgf_points(&r.stones),
                status: status_to_pb(r.found),
                line: r.line.iter().map(|(c, m)| format!("{} {}", c.letter(), m)).collect(),
                nodes: adj.proofs.iter().find(|p| p.stones == r.stones).map(|p| p.nodes).unwrap_or(0),
                reason: String::new(), // a refutation is a decided status
                ..Default::default()
            }),
        })
        .collect();
    pb::AdjudicateResponse {
        proofs: adj.proofs.iter().map(proof_to_pb).collect(),
        refuted,
        drawn_in: adj
            .drawn_in
            .iter()
            .map(|d| pb::DrawnIn {
                stones: sgf_points(&d.stones),
                agreed: status_to_pb(d.agreed),
                by: d.by.to_sgf(),
                reason: d.reason.to_string(),
                searched: d.searched,
            })
            .collect(),
        kept_by_links: adj
            .kept_by_links
            .iter()
            .map(|k| pb::KeptByLinks { stones: sgf_points(&k.stones), by: k.by.to_sgf(), links: sgf_points(&k.links) })
            .collect(),
        nodes: a.nodes(),
        sequence: a.sequence.unwrap_or(0),
        ..count_to_pb(&a.subject, &adj.status, &a.count)
    }
}

/// Protobuf form of a proposal (`ProposeResponse`, 第九条): the count with the proposal's
/// statuses, one proof per chain with its basis and source, the proved result and the
/// estimator's outcome.
pub fn proposed_to_pb(p: &Proposed) -> pb::ProposeResponse {
    let prop = &p.proposal;
    let mut out = count_to_pb(&p.subject, &prop.status, &p.count);
    out.nodes = p.nodes();
    out.proofs = prop
        .chains
        .iter()
        .map(|c| pb::Proof {
            stones: sgf_points(&c.stones),
            status: status_to_pb(c.status),
            line: c.line.clone(),
            nodes: c.nodes,
            reason: c.reason.clone().unwrap_or_default(),
            basis: c.basis.name().to_string(),
            source: c.source.clone(),
            estimate_overruled: c.estimate_overruled.map_or(0, status_to_pb),
            pass_alive: c.pass_alive,
        })
        .collect();
    let est = prop.estimator.as_ref();
    pb::ProposeResponse {
        proposal: Some(out),
        proved_result: prop.proved_score.result.to_sgf(),
        estimator_source: est.map(|e| e.source.clone()).unwrap_or_default(),
        estimator_error: est.and_then(|e| e.error.clone()).unwrap_or_default(),
        estimator_seconds: est.map_or(0.0, |e| e.elapsed.as_secs_f64()),
    }
}

/// Protobuf form of one message of `AdjudicateStream`: a region solved, or the last with the
/// adjudication (every region done).
pub fn progress_to_pb(p: &Progress) -> pb::AdjudicateStreamResponse {
    match p {
        Progress::Region { done, total, nodes } => {
            pb::AdjudicateStreamResponse { regions_done: *done, regions_total: *total, nodes: *nodes, result: None }
        }
        Progress::Done(a) => {
            let regions = a.adjudication.regions.len() as u32;
            pb::AdjudicateStreamResponse {
                regions_done: regions,
                regions_total: regions,
                nodes: a.nodes(),
                result: Some(adjudicated_to_pb(a)),
            }
        }
    }
}
