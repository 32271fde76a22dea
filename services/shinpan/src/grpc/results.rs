//! `ResultConfirmationService`: the result lifecycle (第九条–第十二条) on PostgreSQL.
//!
//! * `ProposeResult` — after play stops: 中押勝 (第六条, from the recorded resignation or the
//!   named winner), a count (第九条: the players' agreed statuses; 第七条・第八条: when no
//!   statuses are agreed, the adjudicator `shinpan_adjudicator::adjudicate` decides every
//!   chain by hypothetical play and `goban::score` counts, 第十条), 持碁, loss on time.
//!   反則負け, 無勝負 and 両負け come only from a referee's ruling (`ArbitrationService.RuleCase`):
//!   proposing them here is `FAILED_PRECONDITION`. An undecided status opens an arbiter case
//!   of kind `undecided` and is `FAILED_PRECONDITION` naming the case.
//! * `ConfirmResult` — a player confirms their own colour, an official (referee, chief
//!   arbiter, federation admin) confirms as the 立会人; with black, white and referee in, the
//!   result is FINAL (第十条 解説) and never changes: a later confirmation, objection or
//!   ruling is `FAILED_PRECONDITION`, and PostgreSQL refuses any UPDATE of the row.
//! * `Object` (第十条2) — a player, for their own colour, before finality: an appeal case
//!   opens, the game is reconstructed from its recorded moves (replayed and validated again
//!   by the rules engine through `shinpan-sgf`) and re-adjudicated; both are attached to the
//!   objection and the case. No confirmation is accepted until a referee has ruled.
//! * `GetResult`, `ExportResults` (SGF records with `RE` and the ruling in `GC`, and the EGF
//!   results table, see [`crate::archive`]), `CorrectResult` (federation admin: a new final
//!   row linked to the one it corrects).
//!
//! Every call needs a bearer token (see [`crate::auth`]); every transition is an event of the
//! game's hash-chained log (written by `shinpan-storage`).

use crate::archive::{self, ArchiveGame, ArchivePlayer, Reconstruction};
use crate::auth::{self, Claims, GameScope, Role};
use crate::grpc::convert;
use crate::grpc::AppState;
use crate::lifecycle::{self, Action, Ending, LifecycleError, Party, Phase};
use goban::{Color, GameResult, Point, Status as StoneStatus, StatusMap};
use serde_json::{json, Value};
use shinpan_proto::v1 as pb;
use shinpan_storage::{self as storage, CaseFilter, NewCase, NewObjection, NewResult, Store, StoreError};
use std::collections::HashMap;
use tonic::{Request, Response, Status};
use tonic_types::{ErrorDetails, StatusExt};
use uuid::Uuid;

/// A storage error as a gRPC status (NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION for
/// conflicts and for anything refused because a result is final, INVALID_ARGUMENT,
/// UNAVAILABLE, INTERNAL).
pub fn store_status(e: StoreError) -> Status {
    match e {
        StoreError::NotFound(m) => Status::not_found(m),
        StoreError::AlreadyExists(m) => Status::already_exists(m.to_string()),
        StoreError::Conflict { current_move_number, expected } => {
            Status::failed_precondition(format!("move {expected} is out of sequence: {current_move_number} recorded"))
        }
        StoreError::FailedPrecondition(m) => Status::failed_precondition(m.to_string()),
        StoreError::Immutable(m) => lifecycle_status(&LifecycleError::Final).with_message(m.to_string()),
        StoreError::InvalidArgument(m) => Status::invalid_argument(m),
        StoreError::Unavailable(m) => Status::unavailable(format!("store: {m}")),
        StoreError::Other(m) => Status::internal(m),
    }
}

trait WithMessage {
    fn with_message(self, m: String) -> Status;
}
impl WithMessage for Status {
    fn with_message(self, m: String) -> Status {
        let details = self.get_error_details();
        Status::with_error_details(self.code(), m, details)
    }
}

/// A lifecycle refusal as a gRPC status: `INVALID_ARGUMENT` for a malformed request,
/// else `FAILED_PRECONDITION`, with `ErrorInfo` reason `RESULT_FINAL`, `NOTHING_PROPOSED`,
/// `RESULT_DISPUTED`, `RESULT_NOT_FINAL` or `EVIDENCE` (domain `shinpan.v1`).
pub fn lifecycle_status(e: &LifecycleError) -> Status {
    let (code, reason) = match e {
        LifecycleError::Final => (tonic::Code::FailedPrecondition, "RESULT_FINAL"),
        LifecycleError::NothingProposed => (tonic::Code::FailedPrecondition, "NOTHING_PROPOSED"),
        LifecycleError::Disputed => (tonic::Code::FailedPrecondition, "RESULT_DISPUTED"),
        LifecycleError::NotFinal => (tonic::Code::FailedPrecondition, "RESULT_NOT_FINAL"),
        LifecycleError::Invalid(_) => (tonic::Code::InvalidArgument, "INVALID"),
        LifecycleError::Evidence(_) => (tonic::Code::FailedPrecondition, "EVIDENCE"),
    };
    Status::with_error_details(
        code,
        e.to_string(),
        ErrorDetails::with_error_info(reason, crate::error::DOMAIN, HashMap::<String, String>::new()),
    )
}

/// Parses a UUID field.
pub fn uuid_field(field: &str, s: &str) -> Result<Uuid, Status> {
    Uuid::parse_str(s.trim()).map_err(|_| Status::invalid_argument(format!("{field}: `{}` is not a UUID", crate::limits::excerpt(s))))
}

/// A game with its tournament and the scope the role rules need.
#[derive(Clone, Debug)]
pub struct GameCtx {
    /// The stored game.
    pub game: storage::Game,
    /// Its tournament.
    pub tournament: Option<storage::Tournament>,
    /// For the role rules.
    pub scope: GameScope,
}

/// Loads a game and its tournament. NOT_FOUND for an unknown game.
pub async fn load_game(store: &Store, id: Uuid) -> Result<GameCtx, Status> {
    let game = store.get_game(id).await.map_err(store_status)?;
    let tournament = match game.tournament_id {
        Some(t) => Some(store.get_tournament(t).await.map_err(store_status)?),
        None => None,
    };
    let scope = GameScope {
        game_id: game.id,
        tournament_id: game.tournament_id,
        tournament_name: tournament.as_ref().map(|t| t.name.clone()),
        black: (game.black.federation_id.clone(), game.black.name.clone()),
        white: (game.white.federation_id.clone(), game.white.name.clone()),
    };
    Ok(GameCtx { game, tournament, scope })
}

/// Finds a tournament by name or id. NOT_FOUND when there is none.
pub async fn find_tournament(store: &Store, t: &str) -> Result<storage::Tournament, Status> {
    let t = t.trim();
    if t.is_empty() {
        return Err(Status::invalid_argument("tournament: required"));
    }
    if let Ok(id) = Uuid::parse_str(t) {
        return store.get_tournament(id).await.map_err(store_status);
    }
    store.find_tournament(t).await.map_err(store_status)?.ok_or_else(|| Status::not_found(format!("tournament {t}")))
}

/// Whether the game has an objection case that is open or under review.
pub async fn objection_open(store: &Store, game_id: Uuid) -> Result<bool, Status> {
    let cases = store
        .list_cases(&CaseFilter { game_id: Some(game_id), kind: Some(storage::CaseKind::Objection), ..Default::default() })
        .await
        .map_err(store_status)?;
    Ok(cases.iter().any(|c| matches!(c.state, storage::CaseState::Open | storage::CaseState::UnderReview)))
}

/// The lifecycle phase of a game's result and the result in force.
pub async fn phase_of(store: &Store, game_id: Uuid) -> Result<(Phase, Option<storage::StoredResult>), Status> {
    let cur = store.current_result(game_id).await.map_err(store_status)?;
    let phase = match &cur {
        None => Phase::Open,
        Some(r) if r.state == storage::ResultState::Final => Phase::Final,
        Some(_) => {
            if objection_open(store, game_id).await? {
                Phase::Disputed
            } else {
                Phase::Proposed
            }
        }
    };
    Ok((phase, cur))
}

/// The game as the archive module needs it, with its recorded moves.
pub async fn archive_game(store: &Store, ctx: &GameCtx) -> Result<ArchiveGame, Status> {
    let moves = store.moves(ctx.game.id).await.map_err(store_status)?;
    let mut out = Vec::with_capacity(moves.len());
    for m in &moves {
        let c = match m.colour {
            storage::Colour::Black => Color::Black,
            storage::Colour::White => Color::White,
        };
        let p = match &m.point {
            Some(s) => Some(Point::from_sgf(s).map_err(|e| Status::internal(format!("stored move {}: {e}", m.move_number)))?),
            None => None,
        };
        out.push((c, p));
    }
    let g = &ctx.game;
    let player = |p: &storage::Player| ArchivePlayer { name: p.name.clone(), rank: p.rank.clone(), federation_id: p.federation_id.clone() };
    Ok(ArchiveGame {
        width: g.board_width.clamp(0, 255) as u8,
        height: g.board_height.clamp(0, 255) as u8,
        komi: g.komi,
        handicap: g.handicap.clamp(0, 255) as u8,
        rule_set: g.rule_set.clone(),
        setup: g.setup.clone(),
        black: player(&g.black),
        white: player(&g.white),
        event: ctx.tournament.as_ref().map(|t| t.name.clone()),
        round: g.round,
        table: g.table_number,
        date: g.setup.get("DT").and_then(Value::as_str).map(str::to_string).or_else(|| Some(g.created_at.format("%Y-%m-%d").to_string())),
        moves: out,
    })
}

/// Reconstructs the game from its recorded moves (対局の再現): replayed and validated again.
pub async fn reconstruct(store: &Store, ctx: &GameCtx) -> Result<Reconstruction, Status> {
    let ag = archive_game(store, ctx).await?;
    archive::reconstruct(&ag).map_err(|e| Status::internal(format!("reconstruction of game {}: {e}", ctx.game.id)))
}

/// The fouls recorded in a game's event log (events of kind `foul`).
pub async fn recorded_fouls(store: &Store, game_id: Uuid) -> Result<Vec<(lifecycle::EvidenceFoul, Value)>, Status> {
    let events = store.events_since(game_id, 0, i64::MAX).await.map_err(store_status)?;
    let mut out = Vec::new();
    for e in &events {
        let storage::Event::Foul { foul: f } = e.event() else { continue };
        let color = match f.colour {
            Some(storage::Colour::White) => Color::White,
            _ => Color::Black,
        };
        out.push((lifecycle::EvidenceFoul { move_number: f.move_number, color, rule: f.rule }, e.payload["foul"].clone()));
    }
    Ok(out)
}

/// Opens the automatic arbiter case of a whole-board repetition the engine finds in the
/// recorded moves (第十一条; kind `repetition`, one per game, evidence: the repetitions with
/// their sequences and the largest number of cycles), or adds the newest repetitions to it
/// while it is not ruled.
pub async fn sync_repetition_case(store: &Store, ctx: &GameCtx, recon: &Reconstruction) -> Result<(), Status> {
    if recon.replayed.game.repetitions().is_empty() {
        return Ok(());
    }
    let j = recon.to_json();
    let evidence = json!({
        "repetitions": j["repetitions"],
        "max_cycles": recon.max_cycles(),
        "move_numbers": recon.replayed.game.repetitions().iter().map(|r| r.again).collect::<Vec<_>>(),
        "position": recon.position_json(),
    });
    let (case, new) = store
        .open_case(&NewCase {
            game_id: ctx.game.id,
            kind: storage::CaseKind::Repetition,
            evidence: evidence.clone(),
            opened_by: "engine".into(),
            reason: format!(
                "whole-board repetition found by the rules engine: a sequence has cycled {} time(s) (第十一条)",
                recon.max_cycles()
            ),
            dedupe_key: Some("repetition".into()),
        })
        .await
        .map_err(store_status)?;
    if !new
        && matches!(case.state, storage::CaseState::Open | storage::CaseState::UnderReview)
        && case.evidence.get("max_cycles") != evidence.get("max_cycles")
    {
        store.add_case_evidence(case.id, evidence, "engine").await.map_err(store_status)?;
    }
    Ok(())
}

fn status_pb(s: StoneStatus) -> i32 {
    super::convert::status_to_pb(s)
}

fn status_from_pb(s: i32) -> Result<StoneStatus, Status> {
    super::convert::status_from_pb(s).ok_or_else(|| Status::invalid_argument("agreements.status: ALIVE, DEAD, SEKI or UNDECIDED"))
}

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
/// `AdjudicationService.Propose` ([`crate::propose`]).
pub async fn count(state: &AppState, recon: &Reconstruction, komi: f64, agreements: &[pb::Agreement]) -> Result<Count, Status> {
    let game = recon.replayed.game.clone();
    let rules = recon.rules;
    let board = game.board().clone();
    let mut agreed = None;
    if !agreements.is_empty() {
        let mut m = StatusMap::new(&board);
        for (i, a) in agreements.iter().enumerate() {
            let st = status_from_pb(a.status)?;
            for s in &a.stones {
                let p = Point::from_sgf(s).map_err(|e| Status::invalid_argument(format!("agreements[{i}].stones: {s}: {e}")))?;
                if board.get(p).is_none() {
                    return Err(Status::invalid_argument(format!("agreements[{i}].stones: no stone on {s}")));
                }
                m.set_chain(&board, p, st);
            }
        }
        agreed = Some(m);
    }
    let (status, decided_by, proofs) = match agreed {
        Some(m) => (m, "agreement (第九条)".to_string(), Value::Array(vec![])),
        None => {
            let b = board.clone();
            let opts = shinpan_adjudicator::Options { to_move: game.to_move(), ko_pending: game.ko_point(), ..Default::default() };
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

/// The proto ending of a stored reason.
pub fn ending_pb(reason: &str) -> i32 {
    (match Ending::from_reason(reason) {
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

/// The lifecycle ending of a proto ending.
pub fn ending_from_pb(e: i32) -> Result<Ending, Status> {
    match pb::Ending::try_from(e) {
        Ok(pb::Ending::Resignation) => Ok(Ending::Resignation),
        Ok(pb::Ending::Count) => Ok(Ending::Count),
        Ok(pb::Ending::TimeForfeit) => Ok(Ending::TimeForfeit),
        Ok(pb::Ending::FoulLoss) => Ok(Ending::FoulLoss),
        Ok(pb::Ending::NoResult) => Ok(Ending::NoResult),
        Ok(pb::Ending::BothLose) => Ok(Ending::BothLose),
        Ok(pb::Ending::Jigo) => Ok(Ending::Jigo),
        _ => Err(Status::invalid_argument("ending: required (RESIGNATION, COUNT, TIME_FORFEIT, FOUL_LOSS, NO_RESULT, BOTH_LOSE, JIGO)")),
    }
}

fn party_of(role: storage::Role) -> Option<Party> {
    match role {
        storage::Role::Black => Some(Party::Black),
        storage::Role::White => Some(Party::White),
        storage::Role::Referee | storage::Role::Director => Some(Party::Referee),
    }
}

/// The result row in protobuf form, with its confirmations, pending parties and version.
pub async fn result_pb(store: &Store, r: &storage::StoredResult, phase: Phase) -> Result<pb::GameResult, Status> {
    let all = store.results_of_game(r.game_id).await.map_err(store_status)?;
    let version = all.iter().position(|x| x.id == r.id).map(|i| i as u64 + 1).unwrap_or(0);
    let confs = store.confirmations(r.id).await.map_err(store_status)?;
    let parties: Vec<Party> = confs.iter().filter_map(|c| party_of(c.role)).collect();
    let state = match (r.state, phase) {
        (storage::ResultState::Final, _) => pb::ResultState::Final,
        (storage::ResultState::Proposed, Phase::Disputed) => pb::ResultState::Disputed,
        _ => pb::ResultState::Proposed,
    };
    let mut statuses = Vec::new();
    for (key, st) in [("dead", StoneStatus::Dead), ("seki", StoneStatus::Seki), ("undecided", StoneStatus::Undecided)] {
        if let Some(a) = r.statuses.get(key).and_then(Value::as_array) {
            for p in a.iter().filter_map(Value::as_str) {
                let color = match r.statuses.get("colours").and_then(|c| c.get(p)).and_then(Value::as_str) {
                    Some("B") => pb::Color::Black as i32,
                    Some("W") => pb::Color::White as i32,
                    _ => 0,
                };
                statuses.push(pb::PointStatus { point: p.to_string(), color, status: status_pb(st) });
            }
        }
    }
    Ok(pb::GameResult {
        game_id: r.game_id.to_string(),
        ending: ending_pb(&r.reason),
        result: r.result.clone(),
        state: state as i32,
        statuses,
        confirmations: confs
            .iter()
            .map(|c| pb::Confirmation {
                role: match c.role {
                    storage::Role::Black | storage::Role::White => pb::Role::Player as i32,
                    storage::Role::Referee => pb::Role::Referee as i32,
                    storage::Role::Director => pb::Role::ChiefArbiter as i32,
                },
                color: match c.role {
                    storage::Role::Black => pb::Color::Black as i32,
                    storage::Role::White => pb::Color::White as i32,
                    _ => 0,
                },
                by: c.who.clone(),
                confirm_time: Some(convert::timestamp(c.confirmed_at)),
            })
            .collect(),
        pending: if r.state == storage::ResultState::Final {
            vec![]
        } else {
            lifecycle::pending(&parties).iter().map(|p| p.name().to_string()).collect()
        },
        corrects: r.corrects_result_id.map(|u| u.to_string()).unwrap_or_default(),
        final_time: r.finalized_at.map(convert::timestamp),
        version,
        result_id: r.id.to_string(),
        ruling_text: r.detail.get("ruling_text").and_then(Value::as_str).unwrap_or_default().to_string(),
        proposed_by: r.proposed_by.clone(),
        note: r.detail.get("note").and_then(Value::as_str).unwrap_or_default().to_string(),
    })
}

/// The `ResultConfirmationService` gRPC service.
#[derive(Clone)]
pub struct ResultsService {
    state: AppState,
}

impl ResultsService {
    /// A service on the shared state (it needs the store).
    pub fn new(state: AppState) -> ResultsService {
        ResultsService { state }
    }

    fn store(&self) -> Result<&Store, Status> {
        self.state.store().map_err(Status::from)
    }

    async fn propose(&self, c: &Claims, req: pb::ProposeResultRequest) -> Result<pb::GameResult, Status> {
        crate::limits::check(&[
            ("game_id", &req.game_id, crate::limits::MAX_NAME_BYTES),
            ("note", &req.note, crate::limits::MAX_TEXT_BYTES),
        ])?;
        let store = self.store()?;
        let id = uuid_field("game_id", &req.game_id)?;
        let ctx = load_game(store, id).await?;
        if !c.may_propose(&ctx.scope) {
            return Err(auth::denied(c, "propose a result of this game"));
        }
        let ending = ending_from_pb(req.ending)?;
        let (phase, _) = phase_of(store, id).await?;
        lifecycle::check(phase, Action::Propose).map_err(|e| lifecycle_status(&e))?;
        if matches!(ending, Ending::FoulLoss | Ending::NoResult | Ending::BothLose) {
            return Err(Status::failed_precondition(format!(
                "{} ({}) is given by a referee's ruling: open or rule an arbiter case (ArbitrationService.RuleCase)",
                ending,
                ending.article()
            )));
        }
        let winner = match req.winner {
            0 => None,
            w => Some(convert::color_from_pb("winner", w).map_err(Status::from)?),
        };
        let recon = reconstruct(store, &ctx).await?;
        sync_repetition_case(store, &ctx, &recon).await?;
        let mut detail = json!({
            "ending": ending.reason(),
            "article": ending.article(),
            "reconstruction": {"moves": recon.record.moves.len(), "phase": recon.replayed.game.phase().name()},
        });
        if !req.note.trim().is_empty() {
            detail["note"] = json!(req.note.trim());
        }
        let mut statuses = json!({});
        let (text, ending) = match ending {
            Ending::Resignation => {
                // The recorded resignation names the winner (第六条).
                let events = store.events_since(id, 0, i64::MAX).await.map_err(store_status)?;
                let resigned = events.iter().rev().find_map(|e| match e.event() {
                    storage::Event::Resign { colour: storage::Colour::Black, .. } => Some(Color::Black),
                    storage::Event::Resign { colour: storage::Colour::White, .. } => Some(Color::White),
                    _ => None,
                });
                let w = match (resigned, winner) {
                    (Some(r), Some(w)) if r.opponent() != w => {
                        return Err(Status::invalid_argument(format!(
                            "winner: {} resigned (recorded), so {} wins, not {}",
                            r.name(),
                            r.opponent().name(),
                            w.name()
                        )))
                    }
                    (Some(r), _) => Some(r.opponent()),
                    (None, w) => w,
                };
                lifecycle::result_text(ending, w, None).map_err(|e| lifecycle_status(&e))?
            }
            Ending::TimeForfeit => lifecycle::result_text(ending, winner, None).map_err(|e| lifecycle_status(&e))?,
            Ending::Count | Ending::Jigo => {
                if recon.replayed.game.phase() == goban::Phase::Playing && req.agreements.is_empty() {
                    return Err(Status::failed_precondition(
                        "play has not stopped (第九条: three consecutive passes, or both players wish to end and give agreed statuses): nothing to count yet",
                    ));
                }
                let cnt = count(&self.state, &recon, ctx.game.komi, &req.agreements).await?;
                detail["count"] = cnt.detail["count"].clone();
                detail["decided_by"] = cnt.detail["decided_by"].clone();
                detail["proofs"] = cnt.detail["proofs"].clone();
                statuses = cnt.statuses.clone();
                if cnt.result == GameResult::Undecided {
                    let (case, _) = store
                        .open_case(&NewCase {
                            game_id: id,
                            kind: storage::CaseKind::Undecided,
                            evidence: json!({"statuses": cnt.statuses, "proofs": cnt.detail["proofs"], "move_numbers": [recon.record.moves.len()]}),
                            opened_by: "adjudicator".into(),
                            reason: "life and death could not be decided within the search budget (第七条): the arbiter rules".into(),
                            dedupe_key: Some(format!("undecided:{}", recon.record.moves.len())),
                        })
                        .await
                        .map_err(store_status)?;
                    return Err(Status::failed_precondition(format!(
                        "the count is undecided (第七条): arbiter case {} is open for a ruling",
                        case.id
                    )));
                }
                lifecycle::result_text(ending, None, Some(&cnt.result)).map_err(|e| lifecycle_status(&e))?
            }
            Ending::FoulLoss | Ending::NoResult | Ending::BothLose => unreachable!("refused above"),
        };
        detail["ending"] = json!(ending.reason());
        detail["article"] = json!(ending.article());
        let stored = store
            .propose_result(&NewResult {
                game_id: id,
                result: text,
                reason: ending.reason().into(),
                statuses,
                detail,
                proposed_by: c.sub.clone(),
            })
            .await
            .map_err(store_status)?;
        tracing::info!(game = %id, result = %stored.result, ending = %ending, by = %c.sub, "result proposed");
        result_pb(store, &stored, Phase::Proposed).await
    }

    async fn confirm(&self, c: &Claims, req: pb::ConfirmResultRequest) -> Result<pb::GameResult, Status> {
        let store = self.store()?;
        let id = uuid_field("game_id", &req.game_id)?;
        let ctx = load_game(store, id).await?;
        // Which party the caller confirms for: an official confirms as the referee (立会人);
        // a player for their own colour (the one asked for, or the only one they play).
        let party = if c.role == Role::Player {
            let mine = c.player_colours(&ctx.scope);
            let asked = match req.color {
                0 => None,
                x => Some(convert::color_from_pb("color", x).map_err(Status::from)?),
            };
            match (asked, mine.as_slice()) {
                (Some(a), _) => Party::of(a),
                (None, [one]) => Party::of(*one),
                (None, []) => return Err(auth::denied(c, "confirm a result of a game they do not play")),
                (None, _) => return Err(Status::invalid_argument("color: this player plays both colours; say which")),
            }
        } else {
            Party::Referee
        };
        if !c.may_confirm(&ctx.scope, party) {
            return Err(auth::denied(c, &format!("confirm for {}", party.name())));
        }
        let (phase, cur) = phase_of(store, id).await?;
        lifecycle::check(phase, Action::Confirm(party)).map_err(|e| lifecycle_status(&e))?;
        if ctx.game.state == storage::GameState::Playing {
            return Err(Status::failed_precondition(
                "play has resumed (第九条): the proposal lapsed; propose the result again when play stops",
            ));
        }
        let cur = cur.ok_or_else(|| lifecycle_status(&LifecycleError::NothingProposed))?;
        if req.version != 0 {
            let now = result_pb(store, &cur, phase).await?.version;
            if now != req.version {
                return Err(Status::failed_precondition(format!(
                    "version {} is not the current proposal (version {now}): read it again (GetResult)",
                    req.version
                )));
            }
        }
        let role = match party {
            Party::Black => storage::Role::Black,
            Party::White => storage::Role::White,
            Party::Referee => storage::Role::Referee,
        };
        let out = store
            .confirm_result(cur.id, role, &c.sub, &[storage::Role::Black, storage::Role::White, storage::Role::Referee])
            .await
            .map_err(store_status)?;
        tracing::info!(game = %id, party = party.name(), by = %c.sub, finalized = out.finalized, "result confirmed");
        if out.finalized {
            // The arbiter record of the game is complete: close its ruled cases.
            let cases = store.list_cases(&CaseFilter { game_id: Some(id), ..Default::default() }).await.map_err(store_status)?;
            for case in cases.iter().filter(|k| k.state == storage::CaseState::Ruled) {
                if let Err(e) = store.set_case_state(case.id, storage::CaseState::Closed, &c.sub, "the result is final (第十条)").await {
                    tracing::warn!(case = %case.id, error = %e, "could not close a ruled case");
                }
            }
        }
        let phase = if out.finalized { Phase::Final } else { Phase::Proposed };
        result_pb(store, &out.result, phase).await
    }

    async fn object(&self, c: &Claims, req: pb::ObjectRequest) -> Result<pb::Case, Status> {
        crate::limits::check(&[
            ("game_id", &req.game_id, crate::limits::MAX_NAME_BYTES),
            ("reason", &req.reason, crate::limits::MAX_TEXT_BYTES),
        ])?;
        let store = self.store()?;
        let id = uuid_field("game_id", &req.game_id)?;
        if req.reason.trim().is_empty() {
            return Err(Status::invalid_argument("reason: an objection gives its reason (第十条2)"));
        }
        let ctx = load_game(store, id).await?;
        let colours = c.player_colours(&ctx.scope);
        let colour = match colours.as_slice() {
            [one] => *one,
            [] => return Err(auth::denied(c, "object to the result of a game they do not play (第十条2: the players object)")),
            _ => Color::Black,
        };
        let (phase, _) = phase_of(store, id).await?;
        lifecycle::check(phase, Action::Object).map_err(|e| lifecycle_status(&e))?;
        let (objection, case) = store
            .object(&NewObjection {
                game_id: id,
                role: if colour == Color::Black { storage::Role::Black } else { storage::Role::White },
                who: c.sub.clone(),
                reason: req.reason.trim().to_string(),
            })
            .await
            .map_err(store_status)?;
        tracing::info!(game = %id, case = %case.id, by = %c.sub, "objection filed (第十条2)");
        // The appeal: reconstruction from the recorded moves and a new adjudication.
        let recon = reconstruct(store, &ctx).await?;
        sync_repetition_case(store, &ctx, &recon).await?;
        // Re-adjudicate when there is a count to check: the proposal is a count or 持碁, or
        // play has stopped (第九条). A resignation or a loss on time in the middle of the game
        // has no final position to count.
        let objected = store.current_result(id).await.map_err(store_status)?;
        let is_count = objected.as_ref().is_some_and(|r| matches!(Ending::from_reason(&r.reason), Some(Ending::Count | Ending::Jigo)));
        let readj = if is_count || recon.replayed.game.phase() != goban::Phase::Playing {
            let cnt = count(&self.state, &recon, ctx.game.komi, &[]).await?;
            json!({
                "engine": "shinpan-adjudicator",
                "result": cnt.result.to_sgf(),
                "statuses": cnt.statuses,
                "detail": cnt.detail,
            })
        } else {
            json!({
                "engine": "shinpan-adjudicator",
                "result": "",
                "skipped": format!(
                    "the objected result is not a count ({}) and play had not stopped: no final position to adjudicate",
                    objected.as_ref().map_or("none", |r| r.reason.as_str())
                ),
            })
        };
        let fouls: Vec<Value> = recorded_fouls(store, id).await?.into_iter().map(|(_, v)| v).collect();
        store.attach_appeal_material(objection.id, Some(recon.to_json()), Some(readj.clone())).await.map_err(store_status)?;
        store
            .add_case_evidence(
                case.id,
                json!({
                    "reconstruction": recon.to_json(),
                    "readjudication": readj,
                    "fouls": fouls,
                    "move_numbers": [recon.record.moves.len()],
                }),
                "appeal",
            )
            .await
            .map_err(store_status)?;
        let case = store
            .set_case_state(case.id, storage::CaseState::UnderReview, "appeal", "reconstruction and re-adjudication attached")
            .await
            .map_err(store_status)?;
        crate::grpc::arbitration::case_pb(store, &case).await
    }

    async fn export(&self, c: &Claims, req: pb::ExportResultsRequest) -> Result<pb::ExportResultsResponse, Status> {
        crate::limits::check(&[
            ("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES),
            ("egf_class", &req.egf_class, crate::limits::MAX_NAME_BYTES),
            ("egf_place", &req.egf_place, crate::limits::MAX_NAME_BYTES),
            ("egf_dates", &req.egf_dates, crate::limits::MAX_NAME_BYTES),
        ])?;
        let store = self.store()?;
        let t = find_tournament(store, &req.tournament).await?;
        if !c.may_export(t.id, &t.name) {
            return Err(auth::denied(c, "export this tournament's results"));
        }
        let finals = store.final_results(t.id).await.map_err(store_status)?;
        let mut sgf = Vec::with_capacity(finals.len());
        let mut egf = Vec::with_capacity(finals.len());
        let mut dates: Vec<String> = Vec::new();
        let mut komi = None;
        for (g, r) in &finals {
            let ctx = load_game(store, g.id).await?;
            let ag = archive_game(store, &ctx).await?;
            let rec = archive::record_of(&ag).map_err(Status::internal)?;
            let mut gc = String::new();
            if let Some(rt) = r.detail.get("ruling_text").and_then(Value::as_str) {
                gc.push_str(rt);
            }
            if let Some(id) = r.corrects_result_id {
                if !gc.is_empty() {
                    gc.push_str("; ");
                }
                gc.push_str(&format!(
                    "federation correction of result {id}: {}",
                    r.detail.get("note").and_then(Value::as_str).unwrap_or("")
                ));
            }
            sgf.push(archive::sgf_with_result(&rec, &r.result, Some(&gc)));
            if let Some(d) = &ag.date {
                dates.push(d.clone());
            }
            komi.get_or_insert(g.komi);
            egf.push(archive::EgfGame {
                round: g.round.unwrap_or(1),
                table: g.table_number,
                black: ag.black.clone(),
                white: ag.white.clone(),
                handicap: ag.handicap,
                result: r.result.clone(),
                // 無勝負 decided off the board (time used, nigiri) is a point, not a rated game.
                decided_by_play: r.reason != Ending::NoResult.reason(),
            });
        }
        dates.sort();
        let header = archive::EgfHeader {
            class: req.egf_class.clone(),
            event: t.name.clone(),
            place: req.egf_place.clone(),
            dates: if req.egf_dates.is_empty() {
                match (dates.first(), dates.last()) {
                    (Some(a), Some(b)) => format!("{a},{b}"),
                    _ => String::new(),
                }
            } else {
                req.egf_dates.clone()
            },
            komi,
            time_minutes: req.egf_time_minutes,
        };
        Ok(pb::ExportResultsResponse { sgf, egf_table: archive::egf_table(&header, &egf) })
    }

    async fn correct(&self, c: &Claims, req: pb::CorrectResultRequest) -> Result<pb::GameResult, Status> {
        crate::limits::check(&[
            ("game_id", &req.game_id, crate::limits::MAX_NAME_BYTES),
            ("result", &req.result, crate::limits::MAX_NAME_BYTES),
            ("reason", &req.reason, crate::limits::MAX_TEXT_BYTES),
        ])?;
        let store = self.store()?;
        if c.role != Role::FederationAdmin {
            return Err(auth::denied(c, "correct a final result (federation admins only)"));
        }
        let id = uuid_field("game_id", &req.game_id)?;
        if req.reason.trim().is_empty() {
            return Err(Status::invalid_argument("reason: a correction gives its reason"));
        }
        let parsed = GameResult::from_sgf(&req.result)
            .filter(|r| *r != GameResult::Undecided)
            .ok_or_else(|| Status::invalid_argument(format!("result: `{}` is not an SGF result", crate::limits::excerpt(&req.result))))?;
        let ending = ending_from_pb(req.ending)?;
        let (phase, cur) = phase_of(store, id).await?;
        lifecycle::check(phase, Action::Correct).map_err(|e| lifecycle_status(&e))?;
        let cur = cur.ok_or_else(|| lifecycle_status(&LifecycleError::NotFinal))?;
        let stored = store
            .correct_result(
                cur.id,
                &NewResult {
                    game_id: id,
                    result: parsed.to_sgf(),
                    reason: ending.reason().into(),
                    statuses: cur.statuses.clone(),
                    detail: json!({"note": req.reason.trim(), "ruling_text": format!("federation correction by {}: {}", c.sub, req.reason.trim())}),
                    proposed_by: c.sub.clone(),
                },
            )
            .await
            .map_err(store_status)?;
        result_pb(store, &stored, Phase::Final).await
    }
}

#[tonic::async_trait]
impl pb::result_confirmation_service_server::ResultConfirmationService for ResultsService {
    #[tracing::instrument(name = "ResultConfirmationService.ProposeResult", skip_all, fields(game = %req.get_ref().game_id))]
    async fn propose_result(&self, req: Request<pb::ProposeResultRequest>) -> Result<Response<pb::ProposeResultResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::ProposeResultResponse { result: Some(self.propose(&c, req.into_inner()).await?) }))
    }

    #[tracing::instrument(name = "ResultConfirmationService.ConfirmResult", skip_all, fields(game = %req.get_ref().game_id))]
    async fn confirm_result(&self, req: Request<pb::ConfirmResultRequest>) -> Result<Response<pb::ConfirmResultResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::ConfirmResultResponse { result: Some(self.confirm(&c, req.into_inner()).await?) }))
    }

    #[tracing::instrument(name = "ResultConfirmationService.Object", skip_all, fields(game = %req.get_ref().game_id))]
    async fn object(&self, req: Request<pb::ObjectRequest>) -> Result<Response<pb::ObjectResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::ObjectResponse { case: Some(ResultsService::object(self, &c, req.into_inner()).await?) }))
    }

    #[tracing::instrument(name = "ResultConfirmationService.GetResult", skip_all, fields(game = %req.get_ref().game_id))]
    async fn get_result(&self, req: Request<pb::GetResultRequest>) -> Result<Response<pb::GetResultResponse>, Status> {
        let c = auth::claims(&req)?;
        let store = self.store()?;
        let id = uuid_field("game_id", &req.get_ref().game_id)?;
        let ctx = load_game(store, id).await?;
        if !c.may_read(&ctx.scope) {
            return Err(auth::denied(&c, "read this game's result"));
        }
        let (phase, cur) = phase_of(store, id).await?;
        let cur = cur.ok_or_else(|| Status::not_found(format!("no result proposed for game {id}")))?;
        Ok(Response::new(pb::GetResultResponse { result: Some(result_pb(store, &cur, phase).await?) }))
    }

    #[tracing::instrument(name = "ResultConfirmationService.ExportResults", skip_all)]
    async fn export_results(&self, req: Request<pb::ExportResultsRequest>) -> Result<Response<pb::ExportResultsResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(self.export(&c, req.into_inner()).await?))
    }

    #[tracing::instrument(name = "ResultConfirmationService.CorrectResult", skip_all)]
    async fn correct_result(&self, req: Request<pb::CorrectResultRequest>) -> Result<Response<pb::CorrectResultResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::CorrectResultResponse { result: Some(self.correct(&c, req.into_inner()).await?) }))
    }
}

/// Adds `ResultConfirmationService` and `ArbitrationService` to a router, both behind the bearer-token
/// interceptor of `auth`.
pub fn add_services(routes: &mut tonic::service::RoutesBuilder, state: &AppState, auth: &crate::auth::AuthConfig) {
    use tonic::service::interceptor::InterceptedService;
    let limit = crate::limits::MAX_REQUEST_BYTES;
    routes.add_service(InterceptedService::new(
        pb::result_confirmation_service_server::ResultConfirmationServiceServer::new(ResultsService::new(state.clone()))
            .max_decoding_message_size(limit),
        auth.interceptor(),
    ));
    routes.add_service(InterceptedService::new(
        pb::arbitration_service_server::ArbitrationServiceServer::new(crate::grpc::arbitration::ArbitrationService::new(state.clone()))
            .max_decoding_message_size(limit),
        auth.interceptor(),
    ));
}
