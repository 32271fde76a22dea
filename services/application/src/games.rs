//! What the use cases share about a stored game: the game with its tournament and the scope
//! the role rules need ([`GameCtx`]), its tournament, the phase of its result, its
//! reconstruction from the recorded moves (対局の再現) and the fouls and repetitions found in it.

use crate::archive::{self, ArchiveGame, ArchivePlayer, Reconstruction};
use crate::auth::GameScope;
use crate::error::AppError;
use crate::lifecycle::{self, ResultStage};
use goban::{Color, Point};
use serde_json::{json, Value};
use shinpan_storage::{self as storage, CaseFilter, NewCase, Store};
use uuid::Uuid;

/// Parses a UUID field.
pub fn uuid_field(field: &str, s: &str) -> Result<Uuid, AppError> {
    Uuid::parse_str(s.trim()).map_err(|_| AppError::invalid(format!("{field}: `{}` is not a UUID", crate::limits::excerpt(s))))
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
pub async fn load_game(store: &Store, id: Uuid) -> Result<GameCtx, AppError> {
    let game = store.get_game(id).await.map_err(AppError::from)?;
    let tournament = match game.tournament_id {
        Some(t) => Some(store.get_tournament(t).await.map_err(AppError::from)?),
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
pub async fn find_tournament(store: &Store, t: &str) -> Result<storage::Tournament, AppError> {
    let t = t.trim();
    if t.is_empty() {
        return Err(AppError::invalid("tournament: required"));
    }
    if let Ok(id) = Uuid::parse_str(t) {
        return store.get_tournament(id).await.map_err(AppError::from);
    }
    store.find_tournament(t).await.map_err(AppError::from)?.ok_or_else(|| AppError::missing(format!("tournament {t}")))
}

/// Whether the game has an objection case that is open or under review.
pub async fn objection_open(store: &Store, game_id: Uuid) -> Result<bool, AppError> {
    let cases = store
        .list_cases(&CaseFilter { game_id: Some(game_id), kind: Some(storage::CaseKind::Objection), ..Default::default() })
        .await
        .map_err(AppError::from)?;
    Ok(cases.iter().any(|c| matches!(c.state, storage::CaseState::Open | storage::CaseState::UnderReview)))
}

/// The lifecycle phase of a game's result and the result in force.
pub async fn phase_of(store: &Store, game_id: Uuid) -> Result<(ResultStage, Option<storage::StoredResult>), AppError> {
    let cur = store.current_result(game_id).await.map_err(AppError::from)?;
    let phase = match &cur {
        None => ResultStage::Open,
        Some(r) if r.state == storage::ResultState::Final => ResultStage::Final,
        Some(_) => {
            if objection_open(store, game_id).await? {
                ResultStage::Disputed
            } else {
                ResultStage::Proposed
            }
        }
    };
    Ok((phase, cur))
}

/// The game as the archive module needs it, with its recorded moves.
pub async fn archive_game(store: &Store, ctx: &GameCtx) -> Result<ArchiveGame, AppError> {
    let moves = store.moves(ctx.game.id).await.map_err(AppError::from)?;
    let mut out = Vec::with_capacity(moves.len());
    for m in &moves {
        let c = m.colour;
        let p = match &m.point {
            Some(s) => Some(Point::from_sgf(s).map_err(|e| AppError::bug(format!("stored move {}: {e}", m.move_number)))?),
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
pub async fn reconstruct(store: &Store, ctx: &GameCtx) -> Result<Reconstruction, AppError> {
    let ag = archive_game(store, ctx).await?;
    archive::reconstruct(&ag).map_err(|e| AppError::bug(format!("reconstruction of game {}: {e}", ctx.game.id)))
}

/// The fouls recorded in a game's event log (events of kind `foul`).
pub async fn recorded_fouls(store: &Store, game_id: Uuid) -> Result<Vec<(lifecycle::EvidenceFoul, Value)>, AppError> {
    let events = store.events_since(game_id, 0, i64::MAX).await.map_err(AppError::from)?;
    let mut out = Vec::new();
    for e in &events {
        let storage::Event::Foul { foul: f } = e.event() else { continue };
        let color = f.colour.unwrap_or(Color::Black);
        out.push((lifecycle::EvidenceFoul { move_number: f.move_number, color, rule: f.rule }, e.payload["foul"].clone()));
    }
    Ok(out)
}

/// Opens the automatic arbiter case of a whole-board repetition the engine finds in the
/// recorded moves (第十一条; kind `repetition`, one per game, evidence: the repetitions with
/// their sequences and the largest number of cycles), or adds the newest repetitions to it
/// while it is not ruled.
pub async fn sync_repetition_case(store: &Store, ctx: &GameCtx, recon: &Reconstruction) -> Result<(), AppError> {
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
        .map_err(AppError::from)?;
    if !new
        && matches!(case.state, storage::CaseState::Open | storage::CaseState::UnderReview)
        && case.evidence.get("max_cycles") != evidence.get("max_cycles")
    {
        store.add_case_evidence(case.id, evidence, "engine").await.map_err(AppError::from)?;
    }
    Ok(())
}
