//! Results (`ProposeResult`, `ConfirmResult`, `Object`, `ExportResults`, `CorrectResult`): the messages decoded into the use cases' commands and their answers encoded.

use super::*;

/// The wire enum `shinpan.v1.Ending` of an ending (`ENDING_UNSPECIFIED` for none).
pub fn ending_to_pb(e: Option<Ending>) -> i32 {
    (match e {
        Some(Ending::Resignation) => pb::Ending::Resignation,
        Some(Ending::Count) => pb::Ending::Count,
        Some(Ending::TimeForfeit) => pb::Ending::TimeForfeit,
        Some(Ending::FoulLoss) => pb::Ending::FoulLoss,
        Some(Ending::NoResult) => pb::Ending::NoResult,
        Some(Ending::BothLose) => pb::Ending::BothLose,
        Some(Ending::Jigo) => pb::Ending::Jigo,
        None => pb::Ending::Unspecified,
    }) as i32
}

/// The ending of the wire enum `shinpan.v1.Ending`; `None` for `ENDING_UNSPECIFIED` or an
/// unknown value (the use case refuses it where an ending is required).
pub fn ending_from_pb(e: i32) -> Option<Ending> {
    match pb::Ending::try_from(e) {
        Ok(pb::Ending::Resignation) => Some(Ending::Resignation),
        Ok(pb::Ending::Count) => Some(Ending::Count),
        Ok(pb::Ending::TimeForfeit) => Some(Ending::TimeForfeit),
        Ok(pb::Ending::FoulLoss) => Some(Ending::FoulLoss),
        Ok(pb::Ending::NoResult) => Some(Ending::NoResult),
        Ok(pb::Ending::BothLose) => Some(Ending::BothLose),
        Ok(pb::Ending::Jigo) => Some(Ending::Jigo),
        _ => None,
    }
}

/// An optional colour on the wire: `COLOR_UNSPECIFIED` (0) is `None`.
///
/// # Errors
/// `INVALID_ARGUMENT` on `field` for an unknown value.
pub fn opt_color_from_pb(field: &str, c: i32) -> Result<Option<Color>, AppError> {
    match c {
        0 => Ok(None),
        c => color_from_pb(field, c).map(Some),
    }
}

/// The agreements of a proposed count (第九条): each status, then its stones as SGF points.
///
/// # Errors
/// `INVALID_ARGUMENT` (no field details): `agreements.status: ...` for an unknown status,
/// `agreements[i].stones: xx: ...` for a point that is not SGF.
pub fn count_agreements_from_pb(agreements: &[pb::Agreement]) -> Result<Vec<Agreement>, AppError> {
    agreements
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let status = status_from_pb(a.status).ok_or_else(|| AppError::invalid("agreements.status: ALIVE, DEAD, SEKI or UNDECIDED"))?;
            let stones = a
                .stones
                .iter()
                .map(|s| Point::from_sgf(s).map_err(|e| AppError::invalid(format!("agreements[{i}].stones: {s}: {e}"))))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Agreement { stones, status })
        })
        .collect()
}

/// Decodes a `ProposeResultRequest`: lengths of `game_id` and `note`, the game id, the
/// winner, the agreements.
///
/// # Errors
/// `INVALID_ARGUMENT`: an over-long field, a game id that is not a UUID, an unknown winner
/// colour, a bad agreement ([`count_agreements_from_pb`]).
pub fn propose_result_from_pb(req: pb::ProposeResultRequest) -> Result<ProposeResult, AppError> {
    limits::check(&[("game_id", &req.game_id, MAX_NAME_BYTES), ("note", &req.note, MAX_TEXT_BYTES)])?;
    Ok(ProposeResult {
        game_id: uuid_field("game_id", &req.game_id)?,
        ending: ending_from_pb(req.ending),
        winner: opt_color_from_pb("winner", req.winner)?,
        agreements: count_agreements_from_pb(&req.agreements)?,
        note: req.note,
    })
}

/// Decodes a `ConfirmResultRequest`.
///
/// # Errors
/// `INVALID_ARGUMENT`: a game id that is not a UUID, an unknown colour.
pub fn confirm_result_from_pb(req: &pb::ConfirmResultRequest) -> Result<ConfirmResult, AppError> {
    Ok(ConfirmResult { game_id: uuid_field("game_id", &req.game_id)?, color: opt_color_from_pb("color", req.color)?, version: req.version })
}

/// Decodes an `ObjectRequest` (第十条2).
///
/// # Errors
/// `INVALID_ARGUMENT`: an over-long field, a game id that is not a UUID.
pub fn objection_from_pb(req: pb::ObjectRequest) -> Result<Objection, AppError> {
    limits::check(&[("game_id", &req.game_id, MAX_NAME_BYTES), ("reason", &req.reason, MAX_TEXT_BYTES)])?;
    Ok(Objection { game_id: uuid_field("game_id", &req.game_id)?, reason: req.reason })
}

/// Decodes an `ExportResultsRequest`.
///
/// # Errors
/// `INVALID_ARGUMENT` for an over-long field.
pub fn export_results_from_pb(req: pb::ExportResultsRequest) -> Result<ExportResults, AppError> {
    limits::check(&[
        ("tournament", &req.tournament, MAX_NAME_BYTES),
        ("egf_class", &req.egf_class, MAX_NAME_BYTES),
        ("egf_place", &req.egf_place, MAX_NAME_BYTES),
        ("egf_dates", &req.egf_dates, MAX_NAME_BYTES),
    ])?;
    Ok(ExportResults {
        tournament: req.tournament,
        egf_class: req.egf_class,
        egf_place: req.egf_place,
        egf_dates: req.egf_dates,
        egf_time_minutes: req.egf_time_minutes,
    })
}

/// Protobuf form of an export (`ExportResultsResponse`).
pub fn export_to_pb(e: Export) -> pb::ExportResultsResponse {
    pb::ExportResultsResponse { sgf: e.sgf, egf_table: e.egf_table }
}

/// Decodes a `CorrectResultRequest`.
///
/// # Errors
/// `INVALID_ARGUMENT`: an over-long field, a game id that is not a UUID.
pub fn correct_result_from_pb(req: pb::CorrectResultRequest) -> Result<CorrectResult, AppError> {
    limits::check(&[
        ("game_id", &req.game_id, MAX_NAME_BYTES),
        ("result", &req.result, MAX_NAME_BYTES),
        ("reason", &req.reason, MAX_TEXT_BYTES),
    ])?;
    Ok(CorrectResult {
        game_id: uuid_field("game_id", &req.game_id)?,
        result: req.result,
        ending: ending_from_pb(req.ending),
        reason: req.reason,
    })
}

/// The wire enum `shinpan.v1.ResultState` of a result's stage (`FINAL`, `DISPUTED`, else
/// `PROPOSED`).
pub fn result_state_to_pb(stage: ResultStage) -> i32 {
    (match stage {
        ResultStage::Final => pb::ResultState::Final,
        ResultStage::Disputed => pb::ResultState::Disputed,
        _ => pb::ResultState::Proposed,
    }) as i32
}

/// Protobuf form of a result (`GameResult`): ending, result, state, statuses, confirmations
/// (role `PLAYER` with the colour, `REFEREE`, `CHIEF_ARBITER`), pending parties, the row it
/// corrects, final time, version, ruling text, proposer and note.
pub fn result_view_to_pb(r: &ResultView) -> pb::GameResult {
    use shinpan_storage::Role;
    pb::GameResult {
        game_id: r.game_id.to_string(),
        ending: ending_to_pb(r.ending),
        result: r.result.clone(),
        state: result_state_to_pb(r.stage),
        statuses: r
            .statuses
            .iter()
            .map(|(p, c, st)| pb::PointStatus { point: p.clone(), color: opt_color_to_pb(*c), status: status_to_pb(*st) })
            .collect(),
        confirmations: r
            .confirmations
            .iter()
            .map(|c| pb::Confirmation {
                role: match c.role {
                    Role::Black | Role::White => pb::Role::Player as i32,
                    Role::Referee => pb::Role::Referee as i32,
                    Role::Director => pb::Role::ChiefArbiter as i32,
                },
                color: match c.role {
                    Role::Black => pb::Color::Black as i32,
                    Role::White => pb::Color::White as i32,
                    _ => 0,
                },
                by: c.who.clone(),
                confirm_time: Some(timestamp(c.confirmed_at)),
            })
            .collect(),
        pending: r.pending.iter().map(|p| p.name().to_string()).collect(),
        corrects: r.corrects.map(|u| u.to_string()).unwrap_or_default(),
        final_time: r.final_time.map(timestamp),
        version: r.version,
        result_id: r.result_id.to_string(),
        ruling_text: r.ruling_text.clone(),
        proposed_by: r.proposed_by.clone(),
        note: r.note.clone(),
    }
}
