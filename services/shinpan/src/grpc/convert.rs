//! The protocol's edge: the `shinpan.v1` messages decoded into the use cases' commands and
//! their answers encoded back, for the gRPC handlers ([`crate::grpc`]) and the console.
//!
//! Decoding validates: every malformed field becomes an [`AppError::InvalidArgument`] naming
//! the field (`"game.moves[3].point"`), with the same codes, messages and details as the use
//! cases' own checks. Points cross the boundary as SGF coordinates (`"dd"`: column letter
//! then row letter, `"aa"` = top-left).
//!
//! The conversions that use cases of the application layer still need themselves (colours,
//! moves, fouls, game states, timestamps: [`shinpan_application::convert`]) are defined there
//! and re-exported here, so that the transports name one module.

pub use shinpan_application::convert::*;

use crate::app::adjudication::{Adjudicate, Adjudicated, Agreement, Progress, Proposed, Source, Subject};
use crate::app::arbitration::{ListCases, OpenCase, RuleCase, Ruling, SetCaseState, TournamentPolicy};
use crate::app::games::uuid_field;
use crate::app::lifecycle::{Ending, FoulRef, ResultStage, RulingKind};
use crate::app::limits::{self, MAX_NAME_BYTES, MAX_TEXT_BYTES};
use crate::app::results::{ConfirmResult, CorrectResult, Export, ExportResults, Objection, ProposeResult, ResultView};
use crate::app::validation::{self, MoveContext, Position, RecordCheck, ValidateMove, ValidateRecord};
use crate::error::AppError;
use goban::{Color, Move, Point, RuleSet, Score, StatusMap};
use serde_json::{json, Value};
use shinpan_proto::v1 as pb;
use shinpan_storage as storage;

/// An optional colour on the wire: `COLOR_UNSPECIFIED` (0) for `None`.
pub fn opt_color_to_pb(c: Option<Color>) -> i32 {
    c.map_or(pb::Color::Unspecified as i32, color_to_pb)
}

/// Reads a [`pb::GameState`]'s start (everything but the moves).
pub fn game_start(s: &pb::GameState) -> Result<GameStart, AppError> {
    let rules = rule_set("game.rule_set", &s.rule_set)?;
    let size = board_size("game.board_size", s.board_size)?;
    let first_to_move = match s.first_to_move {
        0 => None,
        c => Some(color_from_pb("game.first_to_move", c)?),
    };
    Ok(GameStart {
        rules,
        size,
        handicap: s.handicap,
        setup_black: points_from_sgf("game.setup_black", &s.setup_black, size, size)?,
        setup_white: points_from_sgf("game.setup_white", &s.setup_white, size, size)?,
        first_to_move,
    })
}

/// A stone's status (第七条) as the wire enum `shinpan.v1.Status`.
pub fn status_to_pb(s: goban::Status) -> i32 {
    (match s {
        goban::Status::Alive => pb::ChainStatus::Alive,
        goban::Status::Dead => pb::ChainStatus::Dead,
        goban::Status::Seki => pb::ChainStatus::Seki,
        goban::Status::Undecided => pb::ChainStatus::Undecided,
    }) as i32
}

/// The wire enum `shinpan.v1.Status` as a stone's status; `None` for
/// `STATUS_UNSPECIFIED` or an unknown value (the caller names the field in its error).
pub fn status_from_pb(s: i32) -> Option<goban::Status> {
    match pb::ChainStatus::try_from(s) {
        Ok(pb::ChainStatus::Alive) => Some(goban::Status::Alive),
        Ok(pb::ChainStatus::Dead) => Some(goban::Status::Dead),
        Ok(pb::ChainStatus::Seki) => Some(goban::Status::Seki),
        Ok(pb::ChainStatus::Undecided) => Some(goban::Status::Undecided),
        _ => None,
    }
}

/// The moves of a game history on a `size × size` board as (colour, move); errors name
/// `field[i]` (`"game.moves[2].point"`).
///
/// # Errors
/// `INVALID_ARGUMENT`: a missing or unknown colour, a move neither a point nor a pass, a
/// point that is not SGF or off the board.
pub fn moves_from_pb(field: &str, moves: &[pb::Move], size: u32) -> Result<Vec<(Color, Move)>, AppError> {
    moves.iter().enumerate().map(|(i, m)| move_from_pb(&format!("{field}[{i}]"), Some(m), size, size)).collect()
}

/// A bare `Position` with its fields named `{prefix}.width`, `{prefix}.black[i]`, ...; its
/// height is `height` (the transport's default applied: `position.height`, or for an
/// adjudication the width when 0). Points are checked against the board.
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field: a board side outside 2..=25 (0 = 19), a point that is
/// not SGF or off the board, a colour to move that is not BLACK or WHITE.
pub fn position_from_pb(prefix: &str, pos: &pb::Position, height: u32) -> Result<Position, AppError> {
    let width = board_size(&format!("{prefix}.width"), pos.width)?;
    let height = board_size(&format!("{prefix}.height"), height)?;
    let black = points_from_sgf(&format!("{prefix}.black"), &pos.black, width, height)?;
    let white = points_from_sgf(&format!("{prefix}.white"), &pos.white, width, height)?;
    let to_move = color_from_pb(&format!("{prefix}.to_move"), pos.to_move)?;
    let ko_point = match &pos.ko_point {
        Some(k) if !k.is_empty() => Some(point_from_sgf(&format!("{prefix}.ko_point"), k, width, height)?),
        _ => None,
    };
    Ok(Position { width, height, black, white, to_move, ko_point })
}

/// Decodes a `ValidateMoveRequest`: the game (`game.*`: start, then moves), the position
/// (`rule_set`, `position.*`) or the SGF record (`sgf`, `rule_set`), then the move (`move`;
/// for a record, its point is checked against the record's board by the use case).
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field: no state, an unknown rule set or colour, a bad
/// board size or point, a missing move.
pub fn validate_move_from_pb(req: &pb::ValidateMoveRequest) -> Result<ValidateMove, AppError> {
    use pb::validate_move_request::State;
    let (context, (width, height)) = match &req.state {
        Some(State::Game(state)) => {
            let start = game_start(state)?;
            let moves = moves_from_pb("game.moves", &state.moves, start.size)?;
            let size = start.size;
            (MoveContext::Game { start, moves }, (size, size))
        }
        Some(State::Position(pos)) => {
            let rules = rule_set("rule_set", &req.rule_set)?;
            let position = position_from_pb("position", pos, pos.height)?;
            let (width, height) = (position.width, position.height);
            (MoveContext::Position { rules, position }, (width, height))
        }
        Some(State::Sgf(text)) => (MoveContext::Sgf { text: text.clone(), rule_set: req.rule_set.clone() }, (MAX_BOARD, MAX_BOARD)),
        None => return Err(AppError::field("state", "give a game (start and moves), a position or an SGF record")),
    };
    let (color, mv) = move_from_pb("move", req.r#move.as_ref(), width, height)?;
    Ok(ValidateMove { context, color, mv })
}

/// Decodes a `ValidateRecordRequest`: the SGF record (`sgf`, `rule_set`) or the game
/// (`game.*`: start, then moves).
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field: no record, an unknown rule set or colour, a bad
/// board size or point.
pub fn validate_record_from_pb(req: pb::ValidateRecordRequest) -> Result<ValidateRecord, AppError> {
    use pb::validate_record_request::Record;
    match req.record {
        Some(Record::Sgf(text)) => Ok(ValidateRecord::Sgf { text, rule_set: req.rule_set }),
        Some(Record::Game(state)) => {
            let start = game_start(&state)?;
            let moves = moves_from_pb("game.moves", &state.moves, start.size)?;
            Ok(ValidateRecord::Game { start, moves })
        }
        None => Err(AppError::field("record", "give an SGF record or a game (start and moves)")),
    }
}

/// Protobuf form of a record's verdict ([`RecordCheck`]).
pub fn record_check_to_pb(r: &RecordCheck) -> pb::ValidateRecordResponse {
    pb::ValidateRecordResponse {
        moves_checked: r.moves_checked,
        first_foul: r.first_foul.as_ref().map(foul_to_pb),
        repetitions: r.repetitions.iter().map(repetition_to_pb).collect(),
        phase: phase_to_pb(r.phase),
        rule_set: r.rules.name().to_string(),
    }
}

/// Protobuf form of a rule set (`ListRuleSets`): its names, komi on 19×19, ko rule
/// (`basic`, `positional-superko`), scoring (`territory`, `area`, `jungo`,
/// `japanese-jungo`), suicide, passes and description.
pub fn rule_set_to_pb(r: RuleSet) -> pb::RuleSet {
    pb::RuleSet {
        name: r.name().to_string(),
        sgf_ru: r.sgf_ru().to_string(),
        default_komi_19: r.default_komi(19, 19),
        ko_rule: match r.ko_rule() {
            goban::KoRule::Basic => "basic".to_string(),
            goban::KoRule::PositionalSuperko => "positional-superko".to_string(),
        },
        scoring: match r.scoring() {
            goban::Scoring::Territory => "territory",
            goban::Scoring::Area => "area",
            goban::Scoring::Jungo => "jungo",
            goban::Scoring::JapaneseJungo => "japanese-jungo",
        }
        .to_string(),
        allow_suicide: r.allow_suicide(),
        passes_to_stop: r.passes_to_stop(),
        passes_to_end: r.passes_to_end().unwrap_or(0),
        description: validation::describe_rules(r).to_string(),
    }
}

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
            })
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
