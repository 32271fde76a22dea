//! `ImportSgf` and `ExportSgf`: a whole record stored at once, and a stored game as a record.

use super::{create_error, game_id, game_key, store_error, CreateGame, ImportSgf, Imported, Player, Recording};
use crate::convert::{self, GameStart};
use crate::error::AppError;
use crate::events::{stored_moves, stored_start};
use crate::validation::{self, apply_recorded};
use goban::{Move, Phase};
use serde_json::Value;
use shinpan_storage::event::MovePlayed;
use shinpan_storage::{self as storage, Event};

impl Recording {
    /// Imports an SGF record, all or nothing (`ImportSgf`, see the module docs). The caller's
    /// right to file games under the tournament is checked first ([`Recording::may_organise`]).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` (with the `FOUL` details for a record with a foul), `ALREADY_EXISTS`,
    /// store errors.
    pub async fn import(&self, req: ImportSgf) -> Result<Imported, AppError> {
        crate::limits::check(&[
            ("sgf", &req.sgf, crate::limits::MAX_SGF_BYTES),
            ("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES),
            ("rule_set", &req.rule_set, crate::limits::MAX_NAME_BYTES),
            ("idempotency_key", &req.idempotency_key, crate::limits::MAX_NAME_BYTES),
        ])?;
        let key = game_key(&req.idempotency_key, "ImportSgf", &req.fingerprint)?;
        let (record, rules) = validation::parse_sgf("sgf", &req.sgf, &req.rule_set)?;
        if record.width != record.height {
            return Err(AppError::field("sgf", "only square boards can be recorded"));
        }
        let initial = record.initial_game(rules).map_err(|e| AppError::field("sgf", e.to_string()))?;
        // A stored game is its moves: setup after the first move that changes a stone
        // (`shinpan_sgf::LaterSetup`) cannot be recorded; setup that changes nothing and `PL`
        // in move nodes are harmless.
        if !record.later_setup.is_empty() {
            let replayed = record.to_game(rules).map_err(|e| AppError::field("sgf", e.to_string()))?;
            if let Some(w) = replayed.warnings.first() {
                return Err(AppError::field("sgf", format!("{w}: a recorded game holds moves only")));
            }
        }
        let start = GameStart {
            rules,
            size: record.width as u32,
            handicap: record.info.handicap as u32,
            setup_black: record.setup.black.clone(),
            setup_white: record.setup.white.clone(),
            first_to_move: Some(initial.to_move()),
        };
        // Validate the whole record first: nothing is stored for a record with a foul.
        let mut game = start.game()?;
        let mut outcomes = Vec::with_capacity(record.moves.len());
        for (i, m) in record.moves.iter().enumerate() {
            match apply_recorded(&mut game, m.color, m.mv) {
                Ok(o) => outcomes.push(o),
                Err(mut f) => {
                    f.move_number = i as u32 + 1;
                    return Err(AppError::Foul(convert::foul_info(&f)));
                }
            }
        }
        let info = &record.info;
        let player = |name: &Option<String>, rank: &Option<String>, default: &str| Player {
            name: name.clone().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| default.to_string()),
            rank: rank.clone().unwrap_or_default(),
            federation_id: String::new(),
        };
        let create = CreateGame {
            tournament: req.tournament.clone(),
            // Round 0 is round 1; board 0 is the next free board of the round (below).
            round: req.round.max(1),
            board_number: req.board_number,
            black: player(&info.black_name, &info.black_rank, "Black"),
            white: player(&info.white_name, &info.white_rank, "White"),
            board_size: start.size,
            komi: Some(record.komi_or_default(rules)),
            handicap: start.handicap,
            rule_set: rules.name().to_string(),
            idempotency_key: req.idempotency_key.clone(),
            // the key is the import's (above)
            fingerprint: Vec::new(),
        };
        let mut extra = serde_json::Map::new();
        for (k, v) in [
            ("DT", &info.date),
            ("EV", &info.event),
            ("RO", &info.round),
            ("GN", &info.game_name),
            ("PC", &info.place),
            ("RE", &info.result),
        ] {
            if let Some(v) = v {
                extra.insert(k.to_string(), Value::String(v.clone()));
            }
        }
        // Then store the whole record in one transaction: a crash mid-import stores nothing.
        let mut new = storage::NewGame { key, ..self.new_game(&create, &start, extra).await? };
        if req.board_number == 0 {
            if let Some(t) = new.tournament_id {
                // The next free board: one past the highest of the round (a concurrent import
                // taking it first makes this one ALREADY_EXISTS; a retry takes the next).
                let taken = self.store()?.list_games(Some(t), new.round).await.map_err(|e| store_error(e, None))?;
                new.table_number = Some(taken.iter().filter_map(|g| g.table_number).max().unwrap_or(0) + 1);
            }
        }
        let moves: Vec<storage::ImportedMove> = record
            .moves
            .iter()
            .zip(&outcomes)
            .map(|(m, o)| storage::ImportedMove {
                colour: m.color,
                point: match m.mv {
                    Move::Play(p) => Some(p.to_sgf()),
                    Move::Pass => None,
                },
                client_time: None,
                event: match o {
                    Some(o) => MovePlayed {
                        captured: Some(o.captured.iter().map(|p| p.to_sgf()).collect()),
                        phase: Some(convert::phase_name(o.phase).to_string()),
                        imported: Some(true),
                        ..Default::default()
                    },
                    None => MovePlayed { imported: Some(true), after_end: Some(true), ..Default::default() },
                },
            })
            .collect();
        // Play ended by the passes of 第九条: the game is stored `ended`, closed by an "ended" event.
        let end = (game.phase() == Phase::Ended).then(|| storage::GameEnd {
            state: storage::GameState::Ended,
            event: Event::Ended {
                reason: "consecutive passes (第九条)".into(),
                moves: record.moves.len() as u64,
                from_state: None,
                to_state: None,
            },
        });
        let store = self.store()?;
        // A retry with the key gets the game its first call imported (Store::import_game).
        let storage::Created { game: g, replayed } = store.import_game(&new, &moves, end).await.map_err(|e| create_error(e, &create))?;
        let tournament = self.tournament_name(g.tournament_id).await?;
        Ok(Imported {
            game: self.game_view(&g, tournament, false).await?,
            moves: record.moves.len() as u32,
            repetitions: game.repetitions().to_vec(),
            replayed,
        })
    }

    /// The SGF record of a stored game (`ExportSgf`): its start, players, moves and result.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad id, `NOT_FOUND`, store errors.
    pub async fn export(&self, game: &str) -> Result<String, AppError> {
        let id = game_id("game_id", game)?;
        let store = self.store()?;
        let g = store.get_game(id).await.map_err(|e| store_error(e, Some(id)))?;
        let tournament = self.tournament_name(g.tournament_id).await?;
        let view = self.game_view(&g, tournament.clone(), true).await?;
        let start = stored_start(&g)?;
        let mut record = shinpan_sgf::Record::new(start.size as u8, start.size as u8).map_err(|e| AppError::Internal(e.to_string()))?;
        let text = |k: &str| g.setup.get(k).and_then(Value::as_str).map(str::to_string);
        let info = &mut record.info;
        info.komi = Some(g.komi);
        info.handicap = start.handicap as u8;
        info.rules = Some(start.rules.sgf_ru().to_string());
        info.black_name = Some(g.black.name.clone());
        info.white_name = Some(g.white.name.clone());
        info.black_rank = g.black.rank.clone();
        info.white_rank = g.white.rank.clone();
        info.date = text("DT");
        info.event = if tournament.is_empty() { text("EV") } else { Some(tournament) };
        info.round = g.round.map(|r| r.to_string()).or_else(|| text("RO"));
        info.game_name = text("GN");
        info.place = text("PC");
        info.result = if view.result.is_empty() { text("RE") } else { Some(view.result.clone()) };
        record.setup.black = start.setup_black.clone();
        record.setup.white = start.setup_white.clone();
        let moves = stored_moves(&store.moves(id).await.map_err(|e| store_error(e, Some(id)))?)?;
        record.moves = moves.iter().map(|&(color, mv)| shinpan_sgf::RecordMove { color, mv, comment: None }).collect();
        // PL only when the record's default (see Record::initial_game) would differ.
        if let Some(first) = start.first_to_move {
            let default = record.initial_game(start.rules).map(|g| g.to_move()).ok();
            if default != Some(first) {
                record.to_play = Some(first);
            }
        }
        Ok(record.to_sgf())
    }
}
