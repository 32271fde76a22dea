//! `ArbitrationService`: the arbiter's (立会人) cases and rulings.
//!
//! Cases open automatically — a foul recorded by validation (opened by `GameRecordingService`), a
//! whole-board repetition found by the rules engine in the recorded moves (opened here,
//! kind `repetition`, whenever a game's cases or result are looked at), an undecided count
//! (`ProposeResult`), an objection (`Object`) — or by a referee (`OpenCase`). States: open →
//! under review → ruled → closed (`SetCaseState` takes a case under review or closes it —
//! dismissed without a ruling — with a reason; ruled cases close when the game's result
//! becomes final).
//!
//! `RuleCase` checks the ruling with [`crate::lifecycle::rule`] against the evidence the
//! engine supplies (the game is replayed from its recorded moves; fouls come from the event
//! log) and then:
//! * 無勝負 (第十一条) — only when the same sequence has cycled twice or more
//!   (`goban::Repetition::cycles >= 2`); under the tournament's policy (`no_result_policy`
//!   of its settings: `no-result`, `time-used`, `nigiri` — 第十一条's note) the ruling names
//!   the winner and the policy applied is recorded in the ruling;
//! * 反則負け (第十二条) — names the player and the foul (move, rule, article), which must be
//!   a recorded foul of that player; only before the result is final;
//! * 両負け (要請II-\[vii\] 3, 4); resumption (第九条: play resumes, the game returns to
//!   `playing`); end by count (第九条2: agreement is not reached — e.g. a one-sided cycle
//!   with passes to refuse the end — so the adjudicator counts by 第七条・第八条); uphold /
//!   amend an objected result (第十条2).
//!
//! Every ruling that keeps or changes the result makes a new proposal carrying the ruling's
//! text (exported as SGF `GC`), so the players and the referee confirm again. Only officials
//! (referee of the tournament, chief arbiter, federation admin) open and rule cases.

use crate::auth::{self, Claims, Role};
use crate::grpc::convert;
use crate::grpc::results::{load_game, phase_of, reconstruct, recorded_fouls, store_status, sync_repetition_case, uuid_field, GameCtx};
use crate::grpc::AppState;
use crate::lifecycle::{self, Effect, Ending, FoulRef, NoResultPolicy, RulingInput, RulingKind};
use goban::Color;
use serde_json::{json, Value};
use shinpan_proto::v1 as pb;
use shinpan_storage::{self as storage, CaseFilter, NewCase, NewResult, Store};
use tonic::{Request, Response, Status};
use uuid::Uuid;

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

fn kind_from_pb(k: i32) -> Result<storage::CaseKind, Status> {
    match pb::CaseKind::try_from(k) {
        Ok(pb::CaseKind::Foul) => Ok(storage::CaseKind::Foul),
        Ok(pb::CaseKind::Repetition) => Ok(storage::CaseKind::Repetition),
        Ok(pb::CaseKind::Undecided) => Ok(storage::CaseKind::Undecided),
        Ok(pb::CaseKind::Objection) => {
            Err(Status::invalid_argument("kind: objections are filed by the players (ResultConfirmationService.Object)"))
        }
        Ok(pb::CaseKind::Resumption) => Ok(storage::CaseKind::Resumption),
        Ok(pb::CaseKind::Referee) | Ok(pb::CaseKind::Unspecified) | Err(_) => Ok(storage::CaseKind::Manual),
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

fn state_from_pb(s: i32) -> Option<storage::CaseState> {
    match pb::CaseState::try_from(s) {
        Ok(pb::CaseState::Open) => Some(storage::CaseState::Open),
        Ok(pb::CaseState::UnderReview) => Some(storage::CaseState::UnderReview),
        Ok(pb::CaseState::Ruled) => Some(storage::CaseState::Ruled),
        Ok(pb::CaseState::Closed) => Some(storage::CaseState::Closed),
        _ => None,
    }
}

fn ruling_kind_name(k: RulingKind) -> &'static str {
    match k {
        RulingKind::NoResult => "no-result",
        RulingKind::FoulLoss => "foul-loss",
        RulingKind::BothLose => "both-lose",
        RulingKind::Resumption => "resumption",
        RulingKind::Uphold => "uphold",
        RulingKind::Amend => "amend",
        RulingKind::EndByCount => "end-by-count",
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

fn colour_letter(c: Option<Color>) -> Value {
    c.map_or(Value::Null, |c| json!(c.letter().to_string()))
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

/// A case id as a client gives it: the full UUID, or (as the CLI prints ids shortened) a
/// unique prefix of at least 4 hexadecimal digits. INVALID_ARGUMENT for anything else or an
/// ambiguous prefix, NOT_FOUND when no case matches.
async fn case_id(store: &Store, text: &str) -> Result<Uuid, Status> {
    if let Ok(id) = uuid_field("case_id", text) {
        return Ok(id);
    }
    if text.len() > 36 {
        return uuid_field("case_id", text);
    }
    store.resolve_case_prefix(text).await.map_err(store_status)
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
        rule_time: c.ruled_at.map(convert::timestamp),
        winner: colour_pb(r.get("winner")),
        result: r.get("result").and_then(Value::as_str).unwrap_or_default().to_string(),
    })
}

/// A stored case in protobuf form (evidence and ruling decoded from their JSON).
pub async fn case_pb(_store: &Store, c: &storage::Case) -> Result<pb::Case, Status> {
    Ok(pb::Case {
        id: c.id.to_string(),
        game_id: c.game_id.to_string(),
        kind: kind_to_pb(c.kind),
        state: state_to_pb(c.state),
        opened_by: c.opened_by.clone(),
        open_time: Some(convert::timestamp(c.opened_at)),
        reason: c.opened_reason.clone(),
        evidence: Some(evidence_pb(&c.evidence)),
        ruling: ruling_pb(c),
    })
}

fn evidence_json(e: &pb::Evidence) -> Value {
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

fn policy_of(ctx: &GameCtx) -> NoResultPolicy {
    match ctx.tournament.as_ref().map(|t| t.settings.no_result_policy) {
        Some(storage::NoResultPolicy::TimeUsed) => NoResultPolicy::TimeUsed,
        Some(storage::NoResultPolicy::Nigiri) => NoResultPolicy::Nigiri,
        _ => NoResultPolicy::NoResult,
    }
}

/// The `ArbitrationService` gRPC service.
#[derive(Clone)]
pub struct ArbitrationService {
    state: AppState,
}

impl ArbitrationService {
    /// A service on the shared state (it needs the store).
    pub fn new(state: AppState) -> ArbitrationService {
        ArbitrationService { state }
    }

    fn store(&self) -> Result<&Store, Status> {
        self.state.store().map_err(Status::from)
    }

    async fn open(&self, c: &Claims, req: pb::OpenCaseRequest) -> Result<pb::Case, Status> {
        crate::limits::check(&[
            ("game_id", &req.game_id, crate::limits::MAX_NAME_BYTES),
            ("reason", &req.reason, crate::limits::MAX_TEXT_BYTES),
            ("evidence.note", req.evidence.as_ref().map_or("", |e| e.note.as_str()), crate::limits::MAX_TEXT_BYTES),
            (
                "evidence.reconstruction_sgf",
                req.evidence.as_ref().map_or("", |e| e.reconstruction_sgf.as_str()),
                crate::limits::MAX_SGF_BYTES,
            ),
        ])?;
        let store = self.store()?;
        let id = uuid_field("game_id", &req.game_id)?;
        let ctx = load_game(store, id).await?;
        if !c.may_rule(&ctx.scope) {
            return Err(auth::denied(c, "open an arbiter case"));
        }
        if req.reason.trim().is_empty() {
            return Err(Status::invalid_argument("reason: a case is opened with its reason"));
        }
        let kind = kind_from_pb(req.kind)?;
        let mut evidence = req.evidence.as_ref().map(evidence_json).unwrap_or_else(|| json!({}));
        // The engine's view of the recorded game goes with every case.
        let recon = reconstruct(store, &ctx).await?;
        evidence["reconstruction"] = recon.to_json();
        evidence["max_cycles"] = json!(recon.max_cycles());
        let (case, _) = store
            .open_case(&NewCase {
                game_id: id,
                kind,
                evidence,
                opened_by: c.sub.clone(),
                reason: req.reason.trim().to_string(),
                dedupe_key: None,
            })
            .await
            .map_err(store_status)?;
        tracing::info!(game = %id, case = %case.id, kind = %kind, by = %c.sub, "case opened");
        case_pb(store, &case).await
    }

    async fn list(&self, c: &Claims, req: pb::ListCasesRequest) -> Result<pb::ListCasesResponse, Status> {
        crate::limits::check(&[
            ("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES),
            ("game_id", &req.game_id, crate::limits::MAX_NAME_BYTES),
        ])?;
        let store = self.store()?;
        let mut filter = CaseFilter { state: state_from_pb(req.state), ..Default::default() };
        if !req.game_id.trim().is_empty() {
            let id = uuid_field("game_id", &req.game_id)?;
            let ctx = load_game(store, id).await?;
            if !c.may_read(&ctx.scope) {
                return Err(auth::denied(c, "read this game's cases"));
            }
            if ctx.game.state != storage::GameState::Final {
                let recon = reconstruct(store, &ctx).await?;
                sync_repetition_case(store, &ctx, &recon).await?;
            }
            filter.game_id = Some(id);
        }
        if !req.tournament.trim().is_empty() {
            let t = crate::grpc::results::find_tournament(store, &req.tournament).await?;
            if filter.game_id.is_none() && !c.may_export(t.id, &t.name) {
                return Err(auth::denied(c, "list this tournament's cases"));
            }
            if filter.game_id.is_none() {
                for g in store.list_games(Some(t.id), None).await.map_err(store_status)? {
                    if g.state != storage::GameState::Final {
                        let ctx = load_game(store, g.id).await?;
                        let recon = reconstruct(store, &ctx).await?;
                        sync_repetition_case(store, &ctx, &recon).await?;
                    }
                }
            }
            filter.tournament_id = Some(t.id);
        }
        if filter.game_id.is_none() && filter.tournament_id.is_none() {
            let everywhere =
                matches!(c.role, Role::FederationAdmin | Role::ArchiveReader) || (c.role == Role::ChiefArbiter && c.tournament.is_none());
            if !everywhere {
                return Err(auth::denied(c, "list every tournament's cases (name a tournament or a game)"));
            }
        }
        let cases = store.list_cases(&filter).await.map_err(store_status)?;
        let mut out = Vec::with_capacity(cases.len());
        for k in &cases {
            out.push(case_pb(store, k).await?);
        }
        Ok(pb::ListCasesResponse { cases: out })
    }

    async fn get(&self, c: &Claims, req: pb::GetCaseRequest) -> Result<pb::Case, Status> {
        let store = self.store()?;
        let id = case_id(store, &req.case_id).await?;
        let case = store.get_case(id).await.map_err(store_status)?;
        let ctx = load_game(store, case.game_id).await?;
        if !c.may_read(&ctx.scope) {
            return Err(auth::denied(c, "read this case"));
        }
        if case.kind == storage::CaseKind::Repetition && ctx.game.state != storage::GameState::Final {
            // The engine's newest view of the cycle goes into the case before it is shown.
            let recon = reconstruct(store, &ctx).await?;
            sync_repetition_case(store, &ctx, &recon).await?;
            let case = store.get_case(id).await.map_err(store_status)?;
            return case_pb(store, &case).await;
        }
        case_pb(store, &case).await
    }

    async fn rule(&self, c: &Claims, req: pb::RuleCaseRequest) -> Result<pb::Case, Status> {
        crate::limits::check(&[
            ("case_id", &req.case_id, crate::limits::MAX_NAME_BYTES),
            ("ruling.reason", req.ruling.as_ref().map_or("", |r| r.reason.as_str()), crate::limits::MAX_TEXT_BYTES),
            ("ruling.amended_result", req.ruling.as_ref().map_or("", |r| r.amended_result.as_str()), crate::limits::MAX_NAME_BYTES),
            ("ruling.policy", req.ruling.as_ref().map_or("", |r| r.policy.as_str()), crate::limits::MAX_NAME_BYTES),
            ("ruling.by", req.ruling.as_ref().map_or("", |r| r.by.as_str()), crate::limits::MAX_NAME_BYTES),
            ("ruling.result", req.ruling.as_ref().map_or("", |r| r.result.as_str()), crate::limits::MAX_NAME_BYTES),
        ])?;
        let store = self.store()?;
        let case_id = case_id(store, &req.case_id).await?;
        let case = store.get_case(case_id).await.map_err(store_status)?;
        let ctx = load_game(store, case.game_id).await?;
        if !c.may_rule(&ctx.scope) {
            return Err(auth::denied(c, "rule on an arbiter case"));
        }
        let r = req.ruling.ok_or_else(|| Status::invalid_argument("ruling: required"))?;
        let kind = match pb::RulingKind::try_from(r.kind) {
            Ok(pb::RulingKind::NoResult) => RulingKind::NoResult,
            Ok(pb::RulingKind::FoulLoss) => RulingKind::FoulLoss,
            Ok(pb::RulingKind::BothLose) => RulingKind::BothLose,
            Ok(pb::RulingKind::Resumption) => RulingKind::Resumption,
            Ok(pb::RulingKind::Uphold) => RulingKind::Uphold,
            Ok(pb::RulingKind::Amend) => RulingKind::Amend,
            Ok(pb::RulingKind::EndByCount) => RulingKind::EndByCount,
            _ => return Err(Status::invalid_argument("ruling.kind: required")),
        };
        let colour = |field: &str, v: i32| -> Result<Option<Color>, Status> {
            if v == 0 {
                Ok(None)
            } else {
                convert::color_from_pb(field, v).map(Some).map_err(Status::from)
            }
        };
        let input = RulingInput {
            kind,
            reason: r.reason.trim().to_string(),
            loser: colour("ruling.loser", r.loser)?,
            foul: r.foul.as_ref().map(|f| FoulRef { move_number: f.move_number, rule: f.rule.clone(), article: f.article.clone() }),
            amended_result: Some(r.amended_result.clone()).filter(|s| !s.trim().is_empty()),
            winner: colour("ruling.winner", r.winner)?,
        };
        if !matches!(case.state, storage::CaseState::Open | storage::CaseState::UnderReview) {
            return Err(Status::failed_precondition(format!("case {case_id} is {}: a ruling is given once", case.state)));
        }
        // The evidence the engine supplies: the recorded moves replayed, the recorded fouls.
        let recon = reconstruct(store, &ctx).await?;
        sync_repetition_case(store, &ctx, &recon).await?;
        let fouls = recorded_fouls(store, ctx.game.id).await?;
        let evidence = lifecycle::Evidence { max_cycles: recon.max_cycles(), fouls: fouls.iter().map(|(f, _)| f.clone()).collect() };
        let (phase, cur) = phase_of(store, ctx.game.id).await?;
        let policy = policy_of(&ctx);
        let (effect, applied) =
            lifecycle::rule(phase, &input, &evidence, policy).map_err(|e| crate::grpc::results::lifecycle_status(&e))?;
        // 第九条2: the count by 第七条・第八条 is computed before the ruling is stored; an
        // undecided status cannot end the game this way.
        let counted = if effect == Effect::Count {
            let cnt = crate::grpc::results::count(&self.state, &recon, ctx.game.komi, &[]).await?;
            let (text, ending) =
                lifecycle::result_text(Ending::Count, None, Some(&cnt.result)).map_err(|e| crate::grpc::results::lifecycle_status(&e))?;
            Some((text, ending, cnt))
        } else {
            None
        };
        let result_text = match &effect {
            Effect::Propose { result, .. } => Some(result.clone()),
            Effect::Repropose => cur.as_ref().map(|r| r.result.clone()),
            Effect::Resume => None,
            Effect::Count => counted.as_ref().map(|(t, _, _)| t.clone()),
        };
        let foul_json = input.foul.as_ref().map(|f| {
            let description = fouls
                .iter()
                .find(|(e, _)| e.move_number == f.move_number)
                .and_then(|(_, v)| v.get("description").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_default();
            json!({"move_number": f.move_number, "rule": f.rule, "article": f.article, "description": description})
        });
        let text = ruling_text(&input, applied, result_text.as_deref(), &c.sub, case_id, foul_json.as_ref());
        let ruling = json!({
            "decision": ruling_kind_name(kind),
            "loser": colour_letter(input.loser),
            "winner": colour_letter(input.winner),
            "foul": foul_json,
            "amended_result": input.amended_result,
            "policy": applied.map(|p| p.name()),
            "result": result_text,
            "ruling_text": text,
            "max_cycles": evidence.max_cycles,
            "article": match kind {
                RulingKind::NoResult => "第十一条",
                RulingKind::FoulLoss => "第十二条",
                RulingKind::BothLose => "要請II-[vii]",
                RulingKind::Resumption => "第九条",
                RulingKind::Uphold | RulingKind::Amend => "第十条2",
                RulingKind::EndByCount => "第九条2",
            },
        });
        let ruled = store.rule_case(case_id, ruling.clone(), &c.sub, &input.reason).await.map_err(store_status)?;
        tracing::info!(game = %ctx.game.id, case = %case_id, decision = ruling_kind_name(kind), by = %c.sub, "case ruled");
        let detail = |ending: &str, article: &str| json!({"ruling_text": text, "ruling": ruling, "case_id": case_id, "ending": ending, "article": article});
        match effect {
            Effect::Propose { result, ending } => {
                let statuses = cur.as_ref().map(|r| r.statuses.clone()).unwrap_or_else(|| json!({}));
                store
                    .propose_result(&NewResult {
                        game_id: ctx.game.id,
                        result,
                        reason: ending.reason().into(),
                        statuses,
                        detail: detail(ending.reason(), ending.article()),
                        proposed_by: format!("ruling:{}", c.sub),
                    })
                    .await
                    .map_err(store_status)?;
            }
            Effect::Repropose => {
                let cur = cur.ok_or_else(|| Status::failed_precondition("no result is proposed"))?;
                store
                    .propose_result(&NewResult {
                        game_id: ctx.game.id,
                        result: cur.result.clone(),
                        reason: cur.reason.clone(),
                        statuses: cur.statuses.clone(),
                        detail: {
                            let mut d = cur.detail.clone();
                            if let (Value::Object(m), Value::Object(n)) = (&mut d, detail(&cur.reason, "第十条2")) {
                                m.extend(n);
                            }
                            d
                        },
                        proposed_by: format!("ruling:{}", c.sub),
                    })
                    .await
                    .map_err(store_status)?;
            }
            Effect::Count => {
                let (result, ending, cnt) = counted.ok_or_else(|| Status::internal("count missing"))?;
                let mut d = detail(ending.reason(), "第九条2");
                d["count"] = cnt.detail["count"].clone();
                d["decided_by"] = cnt.detail["decided_by"].clone();
                d["proofs"] = cnt.detail["proofs"].clone();
                store
                    .propose_result(&NewResult {
                        game_id: ctx.game.id,
                        result,
                        reason: ending.reason().into(),
                        statuses: cnt.statuses,
                        detail: d,
                        proposed_by: format!("ruling:{}", c.sub),
                    })
                    .await
                    .map_err(store_status)?;
            }
            Effect::Resume => {
                store
                    .set_game_state(
                        ctx.game.id,
                        storage::GameState::Playing,
                        &storage::Event::PlayResumed {
                            case_id,
                            by: c.sub.clone(),
                            reason: input.reason.clone(),
                            article: "第九条".into(),
                            from_state: None,
                            to_state: None,
                        },
                    )
                    .await
                    .map_err(store_status)?;
            }
        }
        case_pb(store, &ruled).await
    }
}

impl ArbitrationService {
    async fn set_state(&self, c: &Claims, req: pb::SetCaseStateRequest) -> Result<pb::Case, Status> {
        crate::limits::check(&[
            ("case_id", &req.case_id, crate::limits::MAX_NAME_BYTES),
            ("reason", &req.reason, crate::limits::MAX_TEXT_BYTES),
        ])?;
        let store = self.store()?;
        let case_id = case_id(store, &req.case_id).await?;
        let case = store.get_case(case_id).await.map_err(store_status)?;
        let ctx = load_game(store, case.game_id).await?;
        if !c.may_rule(&ctx.scope) {
            return Err(auth::denied(c, "change the state of an arbiter case"));
        }
        let to = match pb::CaseState::try_from(req.state) {
            Ok(pb::CaseState::UnderReview) => storage::CaseState::UnderReview,
            Ok(pb::CaseState::Closed) => storage::CaseState::Closed,
            _ => return Err(Status::invalid_argument("state: UNDER_REVIEW or CLOSED (a case is RULED by RuleCase)")),
        };
        if req.reason.trim().is_empty() {
            return Err(Status::invalid_argument("reason: required"));
        }
        let updated = store.set_case_state(case_id, to, &c.sub, req.reason.trim()).await.map_err(store_status)?;
        tracing::info!(case = %case_id, to = %to, by = %c.sub, "case state changed");
        case_pb(store, &updated).await
    }
}

impl ArbitrationService {
    async fn policy(&self, c: &Claims, req: pb::NoResultPolicy, set: bool) -> Result<pb::NoResultPolicy, Status> {
        crate::limits::check(&[
            ("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES),
            ("policy", &req.policy, crate::limits::MAX_NAME_BYTES),
        ])?;
        let store = self.store()?;
        let t = crate::grpc::results::find_tournament(store, &req.tournament).await?;
        if !c.may_export(t.id, &t.name) || (c.role == Role::ArchiveReader && set) {
            return Err(auth::denied(c, "see or set this tournament's 無勝負 policy"));
        }
        if !set {
            return Ok(pb::NoResultPolicy { tournament: t.name, policy: t.settings.no_result_policy.as_str().to_string() });
        }
        if !matches!(c.role, Role::ChiefArbiter | Role::FederationAdmin) {
            return Err(auth::denied(c, "set the tournament's 無勝負 policy (chief arbiter or federation admin)"));
        }
        let policy: storage::NoResultPolicy =
            req.policy.trim().parse().map_err(|_| Status::invalid_argument("policy: no-result, time-used or nigiri"))?;
        let mut settings = t.settings.clone();
        settings.no_result_policy = policy;
        let t = store.update_tournament_settings(t.id, &settings).await.map_err(store_status)?;
        tracing::info!(tournament = %t.name, policy = %policy, by = %c.sub, "無勝負 policy set");
        Ok(pb::NoResultPolicy { tournament: t.name, policy: t.settings.no_result_policy.as_str().to_string() })
    }
}

/// The ruling as one line for the record (SGF `GC`): what was decided, under which
/// article, the particulars, the policy applied, the written reason, who ruled and the case.
pub fn ruling_text(
    r: &RulingInput,
    policy: Option<NoResultPolicy>,
    result: Option<&str>,
    by: &str,
    case_id: Uuid,
    foul: Option<&Value>,
) -> String {
    let what = match r.kind {
        RulingKind::NoResult => match policy {
            Some(NoResultPolicy::TimeUsed) => "無勝負 (第十一条), decided on time used by the tournament's policy".to_string(),
            Some(NoResultPolicy::Nigiri) => "無勝負 (第十一条), decided by nigiri by the tournament's policy".to_string(),
            _ => "無勝負 (第十一条): no result".to_string(),
        },
        RulingKind::FoulLoss => {
            let who = r.loser.map_or("?", |c| c.name());
            let f = foul.map(|f| {
                format!(
                    "move {} ({}, {}{})",
                    f["move_number"],
                    f["rule"].as_str().unwrap_or(""),
                    f["article"].as_str().unwrap_or(""),
                    f["description"].as_str().filter(|d| !d.is_empty()).map(|d| format!(": {d}")).unwrap_or_default()
                )
            });
            format!("反則負け (第十二条) of {who} for the foul at {}", f.unwrap_or_default())
        }
        RulingKind::BothLose => "両負け (要請II-[vii]): both players lose".to_string(),
        RulingKind::Resumption => "resumption (第九条): play resumes".to_string(),
        RulingKind::Uphold => "objection (第十条2) not upheld: the proposed result stands".to_string(),
        RulingKind::Amend => "objection (第十条2): the result is amended".to_string(),
        RulingKind::EndByCount => {
            "第九条2: agreement on the end is not reached; the game ends, life and death by 第七条, territory by 第八条".to_string()
        }
    };
    let mut s = what;
    if let Some(res) = result {
        s.push_str(&format!("; result {res}"));
    }
    s.push_str(&format!("; reason: {}; ruled by {by} (case {case_id})", r.reason));
    s
}

#[tonic::async_trait]
impl pb::arbitration_service_server::ArbitrationService for ArbitrationService {
    #[tracing::instrument(name = "ArbitrationService.OpenCase", skip_all, fields(game = %req.get_ref().game_id))]
    async fn open_case(&self, req: Request<pb::OpenCaseRequest>) -> Result<Response<pb::OpenCaseResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::OpenCaseResponse { case: Some(self.open(&c, req.into_inner()).await?) }))
    }

    #[tracing::instrument(name = "ArbitrationService.ListCases", skip_all)]
    async fn list_cases(&self, req: Request<pb::ListCasesRequest>) -> Result<Response<pb::ListCasesResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(self.list(&c, req.into_inner()).await?))
    }

    #[tracing::instrument(name = "ArbitrationService.GetCase", skip_all, fields(case = %req.get_ref().case_id))]
    async fn get_case(&self, req: Request<pb::GetCaseRequest>) -> Result<Response<pb::GetCaseResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::GetCaseResponse { case: Some(self.get(&c, req.into_inner()).await?) }))
    }

    #[tracing::instrument(name = "ArbitrationService.SetNoResultPolicy", skip_all)]
    async fn set_no_result_policy(
        &self,
        req: Request<pb::SetNoResultPolicyRequest>,
    ) -> Result<Response<pb::SetNoResultPolicyResponse>, Status> {
        let c = auth::claims(&req)?;
        let pb::SetNoResultPolicyRequest { tournament, policy } = req.into_inner();
        let set = self.policy(&c, pb::NoResultPolicy { tournament, policy }, true).await?;
        Ok(Response::new(pb::SetNoResultPolicyResponse { no_result_policy: Some(set) }))
    }

    #[tracing::instrument(name = "ArbitrationService.GetNoResultPolicy", skip_all)]
    async fn get_no_result_policy(
        &self,
        req: Request<pb::GetNoResultPolicyRequest>,
    ) -> Result<Response<pb::GetNoResultPolicyResponse>, Status> {
        let c = auth::claims(&req)?;
        let tournament = req.into_inner().tournament;
        let got = self.policy(&c, pb::NoResultPolicy { tournament, policy: String::new() }, false).await?;
        Ok(Response::new(pb::GetNoResultPolicyResponse { no_result_policy: Some(got) }))
    }

    #[tracing::instrument(name = "ArbitrationService.SetCaseState", skip_all, fields(case = %req.get_ref().case_id))]
    async fn set_case_state(&self, req: Request<pb::SetCaseStateRequest>) -> Result<Response<pb::SetCaseStateResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::SetCaseStateResponse { case: Some(self.set_state(&c, req.into_inner()).await?) }))
    }

    #[tracing::instrument(name = "ArbitrationService.RuleCase", skip_all, fields(case = %req.get_ref().case_id))]
    async fn rule_case(&self, req: Request<pb::RuleCaseRequest>) -> Result<Response<pb::RuleCaseResponse>, Status> {
        let c = auth::claims(&req)?;
        Ok(Response::new(pb::RuleCaseResponse { case: Some(self.rule(&c, req.into_inner()).await?) }))
    }
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

    #[test]
    fn ruling_text_names_the_article_reason_and_referee() {
        let id = Uuid::from_u128(9);
        let mut r = RulingInput {
            kind: RulingKind::FoulLoss,
            reason: "immediate recapture".into(),
            loser: Some(Color::White),
            foul: None,
            amended_result: None,
            winner: None,
        };
        let foul = json!({"move_number": 24, "rule": "ko", "article": "第五条", "description": "ko recapture forbidden"});
        let t = ruling_text(&r, None, Some("B+F"), "ref-1", id, Some(&foul));
        assert!(
            t.starts_with("反則負け (第十二条) of white for the foul at move 24 (ko, 第五条: ko recapture forbidden); result B+F"),
            "{t}"
        );
        assert!(t.contains("reason: immediate recapture; ruled by ref-1"), "{t}");
        r.kind = RulingKind::NoResult;
        assert!(ruling_text(&r, Some(NoResultPolicy::NoResult), Some("Void"), "ref-1", id, None).starts_with("無勝負 (第十一条)"));
        assert!(ruling_text(&r, Some(NoResultPolicy::TimeUsed), Some("B+T"), "ref-1", id, None).contains("time used"));
        r.kind = RulingKind::EndByCount;
        assert!(ruling_text(&r, None, Some("W+6.5"), "ref-1", id, None).starts_with("第九条2"));
    }
}
