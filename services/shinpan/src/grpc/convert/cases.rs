//! Cases and arbitration (`OpenCase`, `ListCases`, `RuleCase`, `SetCaseState`, the no-result policy): the messages decoded into the use cases' commands and their answers encoded.

use super::*;

fn kind_to_pb(k: storage::CaseKind) -> i32 {
    (match k {
        storage::CaseKind::Foul => pb::CaseKind::Foul,
        storage::CaseKind::Repetition => pb::CaseKind::Repetition,
        storage::CaseKind::Undecided => pb::CaseKind::Undecided,
        storage::CaseKind::Objection => pb::CaseKind::Objection,
        storage::CaseKind::Manual => pb::CaseKind::Referee,
        storage::CaseKind::Resumption => pb::CaseKind::Resumption,
    }) as i32
}

/// The stored kind of a case kind on the wire (`OpenCase`): no kind, or an unknown one, is a
/// referee's own case (`manual`). An objection decodes as such (the use case refuses it:
/// objections are filed by the players, 第十条2).
pub fn kind_from_pb(k: i32) -> storage::CaseKind {
    match pb::CaseKind::try_from(k) {
        Ok(pb::CaseKind::Foul) => storage::CaseKind::Foul,
        Ok(pb::CaseKind::Repetition) => storage::CaseKind::Repetition,
        Ok(pb::CaseKind::Undecided) => storage::CaseKind::Undecided,
        Ok(pb::CaseKind::Objection) => storage::CaseKind::Objection,
        Ok(pb::CaseKind::Resumption) => storage::CaseKind::Resumption,
        Ok(pb::CaseKind::Referee) | Ok(pb::CaseKind::Unspecified) | Err(_) => storage::CaseKind::Manual,
    }
}

fn state_to_pb(s: storage::CaseState) -> i32 {
    (match s {
        storage::CaseState::Open => pb::CaseState::Open,
        storage::CaseState::UnderReview => pb::CaseState::UnderReview,
        storage::CaseState::Ruled => pb::CaseState::Ruled,
        storage::CaseState::Closed => pb::CaseState::Closed,
    }) as i32
}

/// The stored state a protocol state filters on (`None`: any).
pub fn state_from_pb(s: i32) -> Option<storage::CaseState> {
    match pb::CaseState::try_from(s) {
        Ok(pb::CaseState::Open) => Some(storage::CaseState::Open),
        Ok(pb::CaseState::UnderReview) => Some(storage::CaseState::UnderReview),
        Ok(pb::CaseState::Ruled) => Some(storage::CaseState::Ruled),
        Ok(pb::CaseState::Closed) => Some(storage::CaseState::Closed),
        _ => None,
    }
}

fn ruling_kind_from_name(s: &str) -> i32 {
    (match s {
        "no-result" => pb::RulingKind::NoResult,
        "foul-loss" => pb::RulingKind::FoulLoss,
        "both-lose" => pb::RulingKind::BothLose,
        "resumption" => pb::RulingKind::Resumption,
        "uphold" => pb::RulingKind::Uphold,
        "amend" => pb::RulingKind::Amend,
        "end-by-count" => pb::RulingKind::EndByCount,
        _ => pb::RulingKind::Unspecified,
    }) as i32
}

fn colour_pb(v: Option<&Value>) -> i32 {
    match v.and_then(Value::as_str) {
        Some("B") => pb::Color::Black as i32,
        Some("W") => pb::Color::White as i32,
        _ => 0,
    }
}

fn move_pb(text: &str) -> Option<pb::Move> {
    let (c, p) = text.split_once(' ')?;
    let color = if c == "W" { pb::Color::White } else { pb::Color::Black } as i32;
    let action = if p == "pass" { pb::r#move::Action::Pass(true) } else { pb::r#move::Action::Point(p.to_string()) };
    Some(pb::Move { color, action: Some(action) })
}

fn foul_pb(f: &Value) -> pb::Foul {
    let color = colour_pb(f.get("colour"));
    let action = match f.get("point").and_then(Value::as_str) {
        Some(p) => pb::r#move::Action::Point(p.to_string()),
        None => pb::r#move::Action::Pass(true),
    };
    pb::Foul {
        move_number: f.get("move_number").and_then(Value::as_u64).unwrap_or(0) as u32,
        r#move: Some(pb::Move { color, action: Some(action) }),
        rule: f.get("rule").and_then(Value::as_str).unwrap_or_default().to_string(),
        article: f.get("article").and_then(Value::as_str).unwrap_or_default().to_string(),
        description: f.get("description").and_then(Value::as_str).unwrap_or_default().to_string(),
    }
}

fn evidence_pb(e: &Value) -> pb::Evidence {
    let u32s = |v: Option<&Value>| -> Vec<u32> {
        v.and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_u64).map(|x| x as u32).collect()).unwrap_or_default()
    };
    let mut fouls: Vec<pb::Foul> = Vec::new();
    if let Some(f) = e.get("foul") {
        fouls.push(foul_pb(f));
    }
    if let Some(a) = e.get("fouls").and_then(Value::as_array) {
        fouls.extend(a.iter().map(foul_pb));
    }
    let repetitions = e
        .get("repetitions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|r| pb::Repetition {
                    first: r.get("first").and_then(Value::as_u64).unwrap_or(0) as u32,
                    again: r.get("again").and_then(Value::as_u64).unwrap_or(0) as u32,
                    cycles: r.get("cycles").and_then(Value::as_u64).unwrap_or(0) as u32,
                    sequence: r
                        .get("sequence")
                        .and_then(Value::as_array)
                        .map(|s| s.iter().filter_map(Value::as_str).filter_map(move_pb).collect())
                        .unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default();
    let proofs_json = e.get("readjudication").and_then(|r| r.get("detail")).and_then(|d| d.get("proofs")).or_else(|| e.get("proofs"));
    let proofs = proofs_json
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|p| pb::Proof {
                    stones: p
                        .get("stones")
                        .and_then(Value::as_array)
                        .map(|s| s.iter().filter_map(Value::as_str).map(str::to_string).collect())
                        .unwrap_or_default(),
                    status: match p.get("status").and_then(Value::as_str) {
                        Some("alive") => pb::ChainStatus::Alive,
                        Some("dead") => pb::ChainStatus::Dead,
                        Some("seki") => pb::ChainStatus::Seki,
                        Some("undecided") => pb::ChainStatus::Undecided,
                        _ => pb::ChainStatus::Unspecified,
                    } as i32,
                    line: p
                        .get("line")
                        .and_then(Value::as_array)
                        .map(|s| s.iter().filter_map(Value::as_str).map(str::to_string).collect())
                        .unwrap_or_default(),
                    nodes: p.get("nodes").and_then(Value::as_u64).unwrap_or(0),
                    reason: p.get("reason").and_then(Value::as_str).unwrap_or_default().to_string(),
                    ..Default::default()
                })
                .collect()
        })
        .unwrap_or_default();
    let readjudication = e.get("readjudication").map(|r| {
        let d = r.get("detail").cloned().unwrap_or(Value::Null);
        let pts = |k: &str| -> Vec<String> {
            r.get("statuses")
                .and_then(|s| s.get(k))
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default()
        };
        let mut statuses = Vec::new();
        for (k, st) in [("dead", pb::ChainStatus::Dead), ("seki", pb::ChainStatus::Seki), ("undecided", pb::ChainStatus::Undecided)] {
            statuses.extend(pts(k).into_iter().map(|p| pb::PointStatus { point: p, color: 0, status: st as i32 }));
        }
        pb::AdjudicateResponse {
            statuses,
            result: r.get("result").and_then(Value::as_str).unwrap_or_default().to_string(),
            score_black: d.pointer("/count/score/black").and_then(Value::as_f64).unwrap_or(0.0),
            score_white: d.pointer("/count/score/white").and_then(Value::as_f64).unwrap_or(0.0),
            prisoners_black: d.pointer("/count/prisoners/black").and_then(Value::as_u64).unwrap_or(0) as u32,
            prisoners_white: d.pointer("/count/prisoners/white").and_then(Value::as_u64).unwrap_or(0) as u32,
            rule_set: d.pointer("/count/rule_set").and_then(Value::as_str).unwrap_or_default().to_string(),
            komi: d.pointer("/count/komi").and_then(Value::as_f64).unwrap_or(0.0),
            ..Default::default()
        }
    });
    let position_pb = |p: &Value| pb::Position {
        width: p.get("width").and_then(Value::as_u64).unwrap_or(0) as u32,
        height: p.get("height").and_then(Value::as_u64).unwrap_or(0) as u32,
        black: p
            .get("black")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default(),
        white: p
            .get("white")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default(),
        to_move: colour_pb(p.get("to_move")),
        ko_point: p.get("ko_point").and_then(Value::as_str).map(str::to_string),
    };
    let mut positions: Vec<pb::Position> = Vec::new();
    if let Some(p) = e.get("position").filter(|p| p.is_object()) {
        positions.push(position_pb(p));
    } else if let Some(p) = e.pointer("/reconstruction/position").filter(|p| p.is_object()) {
        positions.push(position_pb(p));
    }
    if let Some(a) = e.get("positions").and_then(Value::as_array) {
        positions.extend(a.iter().map(&position_pb));
    }
    pb::Evidence {
        move_numbers: u32s(e.get("move_numbers")),
        repetitions,
        fouls,
        positions,
        proofs,
        reconstruction_sgf: e.pointer("/reconstruction/sgf").and_then(Value::as_str).unwrap_or_default().to_string(),
        readjudication,
        note: e
            .get("note")
            .and_then(Value::as_str)
            .or_else(|| e.pointer("/readjudication/skipped").and_then(Value::as_str))
            .or_else(|| e.get("reason").and_then(Value::as_str))
            .unwrap_or_default()
            .to_string(),
    }
}

fn ruling_pb(c: &storage::Case) -> Option<pb::Ruling> {
    let r = c.ruling.as_ref()?;
    Some(pb::Ruling {
        kind: ruling_kind_from_name(r.get("decision").and_then(Value::as_str).unwrap_or_default()),
        reason: c.ruling_reason.clone().unwrap_or_default(),
        loser: colour_pb(r.get("loser")),
        foul: r.get("foul").filter(|f| !f.is_null()).map(|f| pb::Foul {
            move_number: f.get("move_number").and_then(Value::as_u64).unwrap_or(0) as u32,
            r#move: None,
            rule: f.get("rule").and_then(Value::as_str).unwrap_or_default().to_string(),
            article: f.get("article").and_then(Value::as_str).unwrap_or_default().to_string(),
            description: f.get("description").and_then(Value::as_str).unwrap_or_default().to_string(),
        }),
        amended_result: r.get("amended_result").and_then(Value::as_str).unwrap_or_default().to_string(),
        policy: r.get("policy").and_then(Value::as_str).unwrap_or_default().to_string(),
        by: c.ruled_by.clone().unwrap_or_default(),
        rule_time: c.ruled_at.map(timestamp),
        winner: colour_pb(r.get("winner")),
        result: r.get("result").and_then(Value::as_str).unwrap_or_default().to_string(),
    })
}

/// A stored case in protobuf form (evidence and ruling decoded from their JSON).
pub fn case_pb(c: &storage::Case) -> pb::Case {
    pb::Case {
        id: c.id.to_string(),
        game_id: c.game_id.to_string(),
        kind: kind_to_pb(c.kind),
        state: state_to_pb(c.state),
        opened_by: c.opened_by.clone(),
        open_time: Some(timestamp(c.opened_at)),
        reason: c.opened_reason.clone(),
        evidence: Some(evidence_pb(&c.evidence)),
        ruling: ruling_pb(c),
    }
}

/// The JSON the store keeps of the evidence a referee attaches to a case.
pub fn evidence_json(e: &pb::Evidence) -> Value {
    json!({
        "move_numbers": e.move_numbers,
        "fouls": e.fouls.iter().map(|f| json!({"move_number": f.move_number, "rule": f.rule, "article": f.article, "description": f.description,
            "colour": f.r#move.as_ref().map(|m| if m.color == pb::Color::White as i32 { "W" } else { "B" }),
            "point": f.r#move.as_ref().and_then(|m| match &m.action { Some(pb::r#move::Action::Point(p)) => Some(p.clone()), _ => None })})).collect::<Vec<_>>(),
        "repetitions": e.repetitions.iter().map(|r| json!({"first": r.first, "again": r.again, "cycles": r.cycles})).collect::<Vec<_>>(),
        "positions": e.positions.iter().map(|p| json!({"width": p.width, "height": p.height, "black": p.black, "white": p.white})).collect::<Vec<_>>(),
        "note": e.note,
    })
}

/// Decodes an `OpenCaseRequest`: lengths (`game_id`, `reason`, `evidence.note`,
/// `evidence.reconstruction_sgf`), the game id, the kind, the evidence as the store keeps it.
///
/// # Errors
/// `INVALID_ARGUMENT`: an over-long field, a game id that is not a UUID.
pub fn open_case_from_pb(req: pb::OpenCaseRequest) -> Result<OpenCase, AppError> {
    limits::check(&[
        ("game_id", &req.game_id, MAX_NAME_BYTES),
        ("reason", &req.reason, MAX_TEXT_BYTES),
        ("evidence.note", req.evidence.as_ref().map_or("", |e| e.note.as_str()), MAX_TEXT_BYTES),
        ("evidence.reconstruction_sgf", req.evidence.as_ref().map_or("", |e| e.reconstruction_sgf.as_str()), limits::MAX_SGF_BYTES),
    ])?;
    Ok(OpenCase {
        game_id: uuid_field("game_id", &req.game_id)?,
        kind: kind_from_pb(req.kind),
        reason: req.reason,
        evidence: req.evidence.as_ref().map(evidence_json),
    })
}

/// Decodes a `ListCasesRequest` (an empty `game_id` is any game).
///
/// # Errors
/// `INVALID_ARGUMENT`: an over-long field, a game id that is not a UUID.
pub fn list_cases_from_pb(req: pb::ListCasesRequest) -> Result<ListCases, AppError> {
    limits::check(&[("tournament", &req.tournament, MAX_NAME_BYTES), ("game_id", &req.game_id, MAX_NAME_BYTES)])?;
    let game_id = if req.game_id.trim().is_empty() { None } else { Some(uuid_field("game_id", &req.game_id)?) };
    Ok(ListCases { tournament: req.tournament, game_id, state: state_from_pb(req.state) })
}

/// The kind of a ruling on the wire; `None` for `RULING_KIND_UNSPECIFIED` or an unknown value.
pub fn ruling_kind_from_pb(k: i32) -> Option<RulingKind> {
    match pb::RulingKind::try_from(k) {
        Ok(pb::RulingKind::NoResult) => Some(RulingKind::NoResult),
        Ok(pb::RulingKind::FoulLoss) => Some(RulingKind::FoulLoss),
        Ok(pb::RulingKind::BothLose) => Some(RulingKind::BothLose),
        Ok(pb::RulingKind::Resumption) => Some(RulingKind::Resumption),
        Ok(pb::RulingKind::Uphold) => Some(RulingKind::Uphold),
        Ok(pb::RulingKind::Amend) => Some(RulingKind::Amend),
        Ok(pb::RulingKind::EndByCount) => Some(RulingKind::EndByCount),
        _ => None,
    }
}

/// Decodes a ruling (`ruling.*`): kind, reason, loser, winner, foul, amended result.
///
/// # Errors
/// `INVALID_ARGUMENT` for an unknown colour (`ruling.loser`, `ruling.winner`).
pub fn ruling_from_pb(r: pb::Ruling) -> Result<Ruling, AppError> {
    Ok(Ruling {
        kind: ruling_kind_from_pb(r.kind),
        loser: opt_color_from_pb("ruling.loser", r.loser)?,
        foul: r.foul.as_ref().map(|f| FoulRef { move_number: f.move_number, rule: f.rule.clone(), article: f.article.clone() }),
        winner: opt_color_from_pb("ruling.winner", r.winner)?,
        reason: r.reason,
        amended_result: r.amended_result,
    })
}

/// Decodes a `RuleCaseRequest`: lengths (`case_id`, `ruling.reason`, `ruling.amended_result`,
/// `ruling.policy`, `ruling.by`, `ruling.result`), then the ruling.
///
/// # Errors
/// `INVALID_ARGUMENT`: an over-long field, an unknown colour.
pub fn rule_case_from_pb(req: pb::RuleCaseRequest) -> Result<RuleCase, AppError> {
    let r = req.ruling.as_ref();
    limits::check(&[
        ("case_id", &req.case_id, MAX_NAME_BYTES),
        ("ruling.reason", r.map_or("", |r| r.reason.as_str()), MAX_TEXT_BYTES),
        ("ruling.amended_result", r.map_or("", |r| r.amended_result.as_str()), MAX_NAME_BYTES),
        ("ruling.policy", r.map_or("", |r| r.policy.as_str()), MAX_NAME_BYTES),
        ("ruling.by", r.map_or("", |r| r.by.as_str()), MAX_NAME_BYTES),
        ("ruling.result", r.map_or("", |r| r.result.as_str()), MAX_NAME_BYTES),
    ])?;
    Ok(RuleCase { case_id: req.case_id, ruling: req.ruling.map(ruling_from_pb).transpose()? })
}

/// Decodes a `SetCaseStateRequest`.
///
/// # Errors
/// `INVALID_ARGUMENT` for an over-long field.
pub fn set_case_state_from_pb(req: pb::SetCaseStateRequest) -> Result<SetCaseState, AppError> {
    limits::check(&[("case_id", &req.case_id, MAX_NAME_BYTES), ("reason", &req.reason, MAX_TEXT_BYTES)])?;
    Ok(SetCaseState { case_id: req.case_id, state: state_from_pb(req.state), reason: req.reason })
}

/// Protobuf form of a tournament's 無勝負 policy.
pub fn policy_to_pb(p: &TournamentPolicy) -> pb::NoResultPolicy {
    pb::NoResultPolicy { tournament: p.tournament.clone(), policy: p.policy.as_str().to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_json_decodes_into_the_protocol() {
        let e = json!({
            "move_numbers": [24],
            "foul": {"move_number": 24, "colour": "W", "point": "bb", "rule": "ko", "article": "第五条", "description": "ko recapture forbidden"},
            "repetitions": [{"first": 28, "again": 34, "cycles": 2, "sequence": ["B cb", "W gb", "B pass"]}],
            "position": {"width": 9, "height": 9, "black": ["cb"], "white": ["ca"], "to_move": "W", "ko_point": "bb"},
            "readjudication": {"result": "W+6.5", "statuses": {"dead": ["aa"]}, "detail": {"count": {"score": {"black": 4.0, "white": 10.5}, "komi": 6.5}}},
        });
        let p = evidence_pb(&e);
        assert_eq!(p.move_numbers, vec![24]);
        assert_eq!(
            (p.fouls[0].move_number, p.fouls[0].rule.as_str(), p.fouls[0].r#move.as_ref().unwrap().color),
            (24, "ko", pb::Color::White as i32)
        );
        let r = &p.repetitions[0];
        assert_eq!((r.first, r.again, r.cycles, r.sequence.len()), (28, 34, 2, 3));
        assert_eq!(r.sequence[2].action, Some(pb::r#move::Action::Pass(true)));
        let pos = &p.positions[0];
        assert_eq!(
            (pos.black.clone(), pos.to_move, pos.ko_point.as_deref()),
            (vec!["cb".to_string()], pb::Color::White as i32, Some("bb"))
        );
        let a = p.readjudication.unwrap();
        assert_eq!((a.result.as_str(), a.score_white, a.statuses.len()), ("W+6.5", 10.5, 1));
    }
}
