//! Games, moves and the event log, on PostgreSQL through `shinpan-storage`: the use cases
//! behind `GameRecordingService`. They take commands ([`CreateGame`], [`RecordMove`],
//! [`Resign`], [`ListGames`], [`WatchGame`], [`ImportSgf`]) and answer in the domain's types
//! ([`GameView`], [`Recorded`], [`Imported`], the stored events of [`EventStream`]); the
//! transport converts (`shinpan::grpc::convert::recording`). The answer kept under a
//! `RecordMove`'s idempotency key is stored in the transport's encoding, by the
//! [`AnswerCodec`] given to [`Recording::new`] (see [`commands`]).
//!
//! ## RecordMove, exactly once
//! 1. The game's start and its recorded moves are read.
//! 2. The move is validated by `RuleValidationService` (in-process or remote) against the moves
//!    *before* its number, so that a retry of an already stored move validates exactly as
//!    the original did.
//! 3. One storage transaction under the game's row lock: idempotency lookup (a retry with the
//!    same key returns the stored answer, `replayed = true`), the move-number check (another
//!    client was first → `FAILED_PRECONDITION` with the current move number), the hash-chained
//!    event, the move row, the idempotency record. A crash before commit stores nothing.
//!
//! A foul (第十二条) is stored as a `foul` event (move number, colour, point, rule, article)
//! and is not applied; the game is flagged (an arbiter case of kind `foul` is opened) and
//! nothing else changes. Four passes under `japanese-2011` (第九条2) end the game (state
//! `ended`).
//!
//! ## ImportSgf, all or nothing
//! The whole record is validated first (a record with a foul is refused as a whole, the foul
//! named, and nothing is stored); then the game, one hash-chained `move` event and move row per
//! move, and (after the passes of 第九条) the closing `ended` event are stored in one storage
//! transaction (`Store::import_game`): a crash mid-import stores no game. The tournament and
//! the players are looked up or created beforehand, as for `CreateGame`. `PL` in move nodes is
//! ignored; setup (`AB`/`AW`/`AE`) after the first move that changes a stone is refused
//! (`INVALID_ARGUMENT`: a stored game holds moves only), setup that changes nothing is ignored.
//!
//! ## Who may write (behind tokens, `--auth all`)
//! Open by default (`--auth results`). Behind tokens every call needs a valid token, reads
//! (`GetGame`, `ListGames`, `WatchGame`, `ExportSgf`) need nothing more, and writes follow
//! the role rules of [`crate::auth`]:
//! * `CreateGame`, `ImportSgf`: the officials of the tournament the game is filed under
//!   (its referee or chief arbiter, a chief arbiter without a tournament, a federation
//!   admin);
//! * `RecordMove`: the game's officials, or its player **of the move's colour**;
//! * `Resign`: the game's officials, or the player **who resigns** (第六条: a player resigns
//!   only for themself).
//!
//! Anyone else — an archive reader, a player of another game, a player for the opponent's
//! colour — gets `PERMISSION_DENIED` and nothing is stored.

use crate::auth::Claims;
use crate::convert::{self, GameStart};
use crate::error::AppError;
use crate::error::Code;
use crate::events::{ends_game, foul_event, move_event, setup_json, stored_moves, stored_start};
use crate::validation::{self, apply_recorded};
use crate::validator::{MoveToValidate, Validator};
use crate::AppState;
use futures::StreamExt;
use goban::{Color, Move, Phase};
use serde_json::{json, Value};
use shinpan_storage::{self as storage, Event, Exists, GameWrite, Immutability, Precondition, StoreError};
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

pub mod commands;
mod sgf;

pub use commands::*;

/// Maps a storage error to the API's (see the table in `shinpan_storage::StoreError`).
pub fn store_error(e: StoreError, game_id: Option<Uuid>) -> AppError {
    let gid = game_id.map(|g| g.to_string()).unwrap_or_default();
    match e {
        StoreError::NotFound(what) => AppError::NotFound { kind: "game", id: if gid.is_empty() { what } else { gid } },
        StoreError::AlreadyExists(what) => AppError::AlreadyExists { kind: "resource", id: what.to_string() },
        StoreError::Conflict { current_move_number, expected } => {
            AppError::OutOfSequence { game_id: gid, current: current_move_number.max(0) as u32, got: expected.max(0) as u32 }
        }
        // play is over: the game has ended or is final (第九条, 第十条)
        StoreError::FailedPrecondition(Precondition::GameState { state, .. }) if state != storage::GameState::Playing => {
            AppError::GameOver { game_id: gid, result: String::new() }
        }
        StoreError::Immutable(Immutability::Final(_)) => AppError::GameOver { game_id: gid, result: String::new() },
        StoreError::FailedPrecondition(m) => AppError::precondition(m.to_string()),
        StoreError::Immutable(m) => AppError::precondition(m.to_string()),
        StoreError::InvalidArgument(m) => AppError::field("request", m),
        StoreError::Unavailable(m) => AppError::Unavailable(format!("store: {m}")),
        StoreError::Other(m) => AppError::Internal(m),
    }
}

/// Parses a game id (a UUID) from `field`.
pub fn game_id(field: &str, s: &str) -> Result<Uuid, AppError> {
    Uuid::parse_str(s.trim()).map_err(|_| AppError::field(field, format!("`{}` is not a game id (a UUID)", crate::limits::excerpt(s))))
}

/// Maps a storage error of creating (or importing) a game: a tournament round's table taken →
/// `ALREADY_EXISTS` naming "tournament/round r/board b"; others as [`store_error`].
fn create_error(e: StoreError, req: &CreateGame) -> AppError {
    match e {
        StoreError::AlreadyExists(Exists::IdempotencyKey(_)) => AppError::AlreadyExists {
            kind: "idempotency key (sent before with a different request)",
            id: req.idempotency_key.trim().into(),
        },
        StoreError::AlreadyExists(_) => AppError::AlreadyExists {
            kind: "game",
            id: format!("{}/round {}/board {}", req.tournament.trim(), req.round, req.board_number),
        },
        e => store_error(e, None),
    }
}

/// Most bytes of a game-creating request's idempotency key.
const MAX_KEY_BYTES: usize = 200;

/// The idempotency key of a request that creates a game (`None` when `key` is empty), with
/// the SHA-256 of `what` and the request's fingerprint (its bytes with the key left out, see
/// [`CreateGame::fingerprint`]): a retry sends the same bytes. Errors: `INVALID_ARGUMENT` on
/// `idempotency_key` for a key over [`MAX_KEY_BYTES`].
fn game_key(key: &str, what: &str, fingerprint: &[u8]) -> Result<Option<storage::GameKey>, AppError> {
    use sha2::Digest;
    let key = key.trim();
    if key.is_empty() {
        return Ok(None);
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(AppError::field("idempotency_key", format!("an idempotency key has at most {MAX_KEY_BYTES} bytes")));
    }
    let mut h = sha2::Sha256::new();
    h.update(what.as_bytes());
    h.update(fingerprint);
    Ok(Some(storage::GameKey { key: key.to_string(), request_digest: h.finalize().to_vec() }))
}

/// Completes once the server shuts down (never, if the sender is gone without shutting down).
async fn stopping(rx: &mut tokio::sync::watch::Receiver<bool>) {
    loop {
        if *rx.borrow_and_update() {
            return;
        }
        if rx.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// A game before its next move: start, moves, and the rules engine's state after them.
pub struct Snapshot {
    /// The game's start.
    pub start: GameStart,
    /// The recorded moves, in order.
    pub moves: Vec<(Color, Move)>,
    /// The engine's game after `moves`.
    pub game: goban::Game,
}

/// Recently recorded games, so that `RecordMove` need not re-read and replay the whole game
/// for every move. Safe with several recording processes: moves are append-only, so a cached
/// game is a prefix of the stored one; a stale entry makes the store refuse the write
/// (out of sequence), which evicts it.
#[derive(Clone, Default)]
pub struct GameCache {
    map: std::sync::Arc<std::sync::Mutex<HashMap<Uuid, std::sync::Arc<Snapshot>>>>,
}

impl GameCache {
    /// At most this many games are kept; beyond it the cache starts afresh.
    pub const CAPACITY: usize = 10_000;

    fn get(&self, id: Uuid) -> Option<std::sync::Arc<Snapshot>> {
        self.map.lock().ok()?.get(&id).cloned()
    }

    fn put(&self, id: Uuid, s: std::sync::Arc<Snapshot>) {
        if let Ok(mut m) = self.map.lock() {
            if m.len() >= Self::CAPACITY && !m.contains_key(&id) {
                m.clear();
            }
            m.insert(id, s);
        }
    }

    fn forget(&self, id: Uuid) {
        if let Ok(mut m) = self.map.lock() {
            m.remove(&id);
        }
    }
}

/// The use cases of recording: games, moves, resignations, the event log, SGF import and
/// export (see the module docs). Callers behind tokens pass their claims; `None` is an open
/// service (`--auth results`), where anyone may write.
#[derive(Clone)]
pub struct Recording {
    state: AppState,
    /// How `RecordMove`'s answers are kept under their idempotency keys (the transport's).
    answers: Arc<dyn AnswerCodec>,
    cache: GameCache,
    /// What the role rules need to know of each game (its players and tournament never
    /// change once it is created), so that a move behind tokens costs no extra round trip
    /// after the first. At most [`GameCache::CAPACITY`] games, then afresh.
    scopes: std::sync::Arc<std::sync::Mutex<HashMap<Uuid, crate::auth::GameScope>>>,
}

impl Recording {
    /// The use cases on the shared state (which must have a store), keeping the answers of
    /// `RecordMove` with `answers` (see [`AnswerCodec`]).
    pub fn new(state: AppState, answers: Arc<dyn AnswerCodec>) -> Recording {
        Recording { state, answers, cache: GameCache::default(), scopes: Default::default() }
    }

    /// Behind tokens (claims on the request), whether the caller may write to game `id` for
    /// `colour` (a move's colour, or who resigns): its officials, or its player of that
    /// colour (module docs). Without claims (the service is open) anyone may.
    ///
    /// # Errors
    /// `PERMISSION_DENIED`; `NOT_FOUND` for an unknown game; store errors.
    async fn may_write(&self, claims: Option<&Claims>, id: Uuid, colour: Option<Color>, what: &str) -> Result<(), AppError> {
        let Some(c) = claims else { return Ok(()) };
        let cached = self.scopes.lock().ok().and_then(|m| m.get(&id).cloned());
        let scope = match cached {
            Some(scope) => scope,
            None => {
                let scope = crate::games::load_game(self.store()?, id).await?.scope;
                if let Ok(mut m) = self.scopes.lock() {
                    if m.len() >= GameCache::CAPACITY {
                        m.clear();
                    }
                    m.insert(id, scope.clone());
                }
                scope
            }
        };
        if c.officiates(&scope) || colour.is_some_and(|col| c.player_colours(&scope).contains(&col)) {
            Ok(())
        } else {
            Err(crate::denied(c, what))
        }
    }

    /// Behind tokens, whether the caller may create or import a game filed under
    /// `tournament` (empty: none): that tournament's officials (module docs).
    ///
    /// # Errors
    /// `PERMISSION_DENIED`; store errors.
    pub async fn may_organise(&self, claims: Option<&Claims>, tournament: &str) -> Result<(), AppError> {
        let Some(c) = claims else { return Ok(()) };
        let name = tournament.trim();
        let id =
            if name.is_empty() { None } else { self.store()?.find_tournament(name).await.map_err(|e| store_error(e, None))?.map(|t| t.id) };
        if c.officiates_tournament(id, (!name.is_empty()).then_some(name)) {
            Ok(())
        } else {
            Err(crate::denied(c, &format!("create games in tournament `{name}` (its referees and chief arbiters only)")))
        }
    }

    fn store(&self) -> Result<&storage::Store, AppError> {
        self.state.store()
    }

    async fn tournament_name(&self, id: Option<Uuid>) -> Result<String, AppError> {
        match id {
            Some(t) => Ok(self.store()?.get_tournament(t).await.map_err(|e| store_error(e, None))?.name),
            None => Ok(String::new()),
        }
    }

    /// The game as answered: stored metadata plus the state replayed from the moves and the
    /// flags and result read from the event log; its moves only when `with_moves`.
    async fn game_view(&self, g: &storage::Game, tournament: String, with_moves: bool) -> Result<GameView, AppError> {
        let store = self.store()?;
        let moves = store.moves(g.id).await.map_err(|e| store_error(e, Some(g.id)))?;
        let events = store.events_since(g.id, 0, i64::MAX).await.map_err(|e| store_error(e, Some(g.id)))?;
        let start = stored_start(g)?;
        let moves = stored_moves(&moves)?;
        let mut game = start.game()?;
        for &(c, m) in &moves {
            apply_recorded(&mut game, c, m).map_err(|f| AppError::Internal(format!("stored game {} does not replay: {f}", g.id)))?;
        }
        let flagged = events.iter().any(|e| matches!(e.event(), Event::Foul { .. }));
        let result =
            events.iter().rev().find_map(|e| e.payload.get("result").and_then(Value::as_str).map(str::to_string)).unwrap_or_default();
        let phase = match g.state {
            storage::GameState::Playing => game.phase(),
            _ => Phase::Ended,
        };
        Ok(GameView {
            game: g.clone(),
            tournament,
            start,
            move_number: moves.len() as u32,
            moves: if with_moves { moves } else { Vec::new() },
            to_move: game.to_move(),
            phase,
            prisoners_black: game.prisoners(Color::Black),
            prisoners_white: game.prisoners(Color::White),
            flagged,
            result,
        })
    }

    /// Creates a game with no moves (`CreateGame`): see [`Recording::new_game`].
    async fn create(
        &self,
        req: &CreateGame,
        start: &GameStart,
        extra: serde_json::Map<String, Value>,
    ) -> Result<storage::Created, AppError> {
        let key = game_key(&req.idempotency_key, "CreateGame", &req.fingerprint)?;
        let new = storage::NewGame { key, ..self.new_game(req, start, extra).await? };
        self.store()?.create_game(&new).await.map_err(|e| create_error(e, req))
    }

    /// Checks a game's particulars (players' names, komi a multiple of 0.5, a playable start)
    /// and resolves its tournament and players (created when new), giving the row to store.
    /// Errors: `INVALID_ARGUMENT` with one violation per bad field; store errors.
    async fn new_game(
        &self,
        req: &CreateGame,
        start: &GameStart,
        extra: serde_json::Map<String, Value>,
    ) -> Result<storage::NewGame, AppError> {
        let store = self.store()?;
        let players: Vec<(String, &str)> = [req.black.fields("black"), req.white.fields("white")].concat();
        let mut fields: Vec<(&str, &str, usize)> = vec![
            ("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES),
            ("rule_set", &req.rule_set, crate::limits::MAX_NAME_BYTES),
            ("idempotency_key", &req.idempotency_key, crate::limits::MAX_NAME_BYTES),
        ];
        fields.extend(players.iter().map(|(f, v)| (f.as_str(), *v, crate::limits::MAX_NAME_BYTES)));
        let mut violations: Vec<crate::error::FieldViolation> =
            fields.iter().filter_map(|&(f, v, max)| crate::limits::text_violation(f, v, max)).collect();
        for (k, v) in &extra {
            if let Some(s) = v.as_str() {
                violations.extend(crate::limits::text_violation(&format!("sgf.{k}"), s, crate::limits::MAX_NAME_BYTES));
            }
        }
        if req.black.name.trim().is_empty() {
            violations.push(crate::error::FieldViolation { field: "black.name".into(), description: "a player's name is required".into() });
        }
        if req.white.name.trim().is_empty() {
            violations.push(crate::error::FieldViolation { field: "white.name".into(), description: "a player's name is required".into() });
        }
        if let Some(k) = req.komi {
            if let Err(AppError::InvalidArgument(v)) = crate::limits::komi("komi", k) {
                violations.extend(v);
            }
        }
        if !violations.is_empty() {
            return Err(AppError::InvalidArgument(violations));
        }
        // The start must be playable (handicap placement exists, setup stones do not overlap).
        start.game()?;
        let tournament_id = if req.tournament.trim().is_empty() {
            None
        } else {
            Some(
                store
                    .ensure_tournament(req.tournament.trim(), &storage::TournamentSettings::default())
                    .await
                    .map_err(|e| store_error(e, None))?
                    .id,
            )
        };
        let player = |p: &Player| storage::NewPlayer {
            name: p.name.trim().to_string(),
            rank: Some(p.rank.trim().to_string()).filter(|s| !s.is_empty()),
            federation_id: Some(p.federation_id.trim().to_string()).filter(|s| !s.is_empty()),
        };
        let black = store.upsert_player(&player(&req.black)).await.map_err(|e| store_error(e, None))?;
        let white = store.upsert_player(&player(&req.white)).await.map_err(|e| store_error(e, None))?;
        Ok(storage::NewGame {
            tournament_id,
            round: Some(req.round as i32).filter(|&r| r > 0),
            table_number: Some(req.board_number as i32).filter(|&b| b > 0),
            black_player_id: black.id,
            white_player_id: white.id,
            board_width: start.size as i16,
            board_height: start.size as i16,
            komi: req.komi.unwrap_or_else(|| start.rules.default_komi(start.size as u8, start.size as u8)),
            handicap: start.handicap as i16,
            rule_set: start.rules.name().to_string(),
            setup: setup_json(start, extra),
            key: None,
        })
    }

    /// Records a move exactly once (`RecordMove`, see the module docs): behind tokens, by the
    /// game's officials or its player of the move's colour.
    ///
    /// # Errors
    /// `PERMISSION_DENIED`, `INVALID_ARGUMENT`, `NOT_FOUND`, `FAILED_PRECONDITION` (out of
    /// sequence, the game over), `UNAVAILABLE`; a foul is no error: it is recorded and
    /// answered.
    pub async fn record_move(&self, claims: Option<&Claims>, req: RecordMove) -> Result<Recorded, AppError> {
        if let Some(claims) = claims {
            let id = game_id("game_id", &req.game_id)?;
            self.may_write(Some(claims), id, req.colour, "record a move of a game they neither officiate nor play with that colour")
                .await?;
        }
        self.record(req).await
    }

    /// The work of `RecordMove` once the caller is allowed.
    async fn record(&self, req: RecordMove) -> Result<Recorded, AppError> {
        crate::limits::check(&[("idempotency_key", &req.idempotency_key, crate::limits::MAX_NAME_BYTES)])?;
        let id = game_id("game_id", &req.game_id)?;
        if req.move_number == 0 {
            return Err(AppError::field("move_number", "move numbers start at 1"));
        }
        let store = self.store()?;
        let n = req.move_number;
        // The game before move n: from the cache when it holds exactly n - 1 moves (moves are
        // append-only, so a cached prefix is always a prefix of the stored game), else from
        // the store.
        let snapshot = match self.cache.get(id) {
            Some(c) if c.moves.len() as u32 + 1 == n => c,
            _ => {
                let g = store.get_game(id).await.map_err(|e| store_error(e, Some(id)))?;
                let recorded = g.move_count.max(0) as u32;
                if n > recorded + 1 {
                    return Err(AppError::OutOfSequence { game_id: id.to_string(), current: recorded, got: n });
                }
                let start = stored_start(&g)?;
                let moves = store.moves(id).await.map_err(|e| store_error(e, Some(id)))?;
                let history = stored_moves(&moves[..(n as usize - 1).min(moves.len())])?;
                let mut game = start.game()?;
                for &(c, m) in &history {
                    apply_recorded(&mut game, c, m).map_err(|f| AppError::Internal(format!("stored game {id} does not replay: {f}")))?;
                }
                let snap = std::sync::Arc::new(Snapshot { start, moves: history, game });
                if n == recorded + 1 && g.state == storage::GameState::Playing {
                    self.cache.put(id, snap.clone());
                }
                snap
            }
        };
        let start = &snapshot.start;
        let (color, mv) = req.mv?;
        if let Move::Play(p) = mv {
            convert::on_board("move.point", p, start.size, start.size)?;
        }
        let mut after = None;
        let verdict = match &self.state.validator {
            Validator::Local => {
                let mut game = snapshot.game.clone();
                let v = validation::check_move(&mut game, color, mv, n);
                after = Some(game);
                v
            }
            Validator::Remote(remote) => {
                remote.validate_move(MoveToValidate { start: start.clone(), history: snapshot.moves.clone(), color, mv }).await?
            }
        };
        // the answer's number is the request's (the verdict's is the same: the history's length + 1)
        let verdict = validation::MoveCheck { move_number: n, ..verdict };
        let key = Some(req.idempotency_key.trim().to_string()).filter(|k| !k.is_empty());
        let mut response = Recorded { check: verdict.clone(), sequence: 0, replayed: false };
        let write = if let Some(foul) = &verdict.foul {
            GameWrite::event_only(id, Some(n as i32), foul_event(foul))
        } else {
            let point = match mv {
                Move::Play(p) => Some(p.to_sgf()),
                Move::Pass => None,
            };
            let mut w = GameWrite::new_move(id, n as i32, color, point.as_deref()).with_event(move_event(&verdict));
            if let Some(t) = req.client_time {
                w = w.with_client_time(t);
            }
            if verdict.phase == Phase::Ended {
                w = w.with_set_state(storage::GameState::Ended);
            }
            w
        };
        let write = match &key {
            Some(k) => write.with_key(k.clone()),
            None => write,
        };
        // The stored answer carries the event's sequence number, which only the write knows:
        // keep the answer without it and fill it in from the stored event.
        let write = write.with_response(self.answers.encode(&response));
        let out = match store.write(write).await {
            Ok(out) => out,
            Err(e) => {
                self.cache.forget(id);
                return Err(match e {
                    StoreError::AlreadyExists(m) => AppError::AlreadyExists { kind: "idempotency key", id: m.to_string() },
                    e => store_error(e, Some(id)),
                });
            }
        };
        if !out.replayed && verdict.legal() {
            match after {
                Some(game) if verdict.phase != Phase::Ended => {
                    let mut moves = snapshot.moves.clone();
                    moves.push((color, mv));
                    self.cache.put(id, std::sync::Arc::new(Snapshot { start: snapshot.start.clone(), moves, game }));
                }
                _ => self.cache.forget(id),
            }
        }
        if out.replayed {
            response = self.answers.decode(&out.response).unwrap_or(response);
            response.replayed = true;
        }
        response.sequence = out.event.seq.max(0) as u64;
        if let (Some(foul), false) = (&verdict.foul, out.replayed) {
            tracing::warn!(game = %id, move_number = n, rule = %foul.rule.code(), article = %foul.rule.article(), "foul recorded");
            let case = storage::NewCase {
                game_id: id,
                kind: storage::CaseKind::Foul,
                evidence: json!({ "move_numbers": [n], "event_seq": out.event.seq, "foul": foul_event(foul).payload()["foul"] }),
                opened_by: "validation".into(),
                reason: foul.to_string(),
                dedupe_key: Some(format!("foul:{n}")),
            };
            if let Err(e) = store.open_case(&case).await {
                tracing::warn!(error = %e, "could not open the foul case");
            }
        }
        Ok(response)
    }
}

impl Recording {
    /// Creates a game with no moves (`CreateGame`): behind tokens, by the officials of the
    /// tournament it is filed under.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` (one violation per bad field), `ALREADY_EXISTS` (the round's board
    /// taken, an idempotency key sent before with another request), `PERMISSION_DENIED`,
    /// store errors.
    pub async fn create_game(&self, claims: Option<&Claims>, req: CreateGame) -> Result<GameView, AppError> {
        crate::limits::check(&[("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES)])?;
        self.may_organise(claims, &req.tournament).await?;
        let rules = convert::rule_set("rule_set", &req.rule_set)?;
        let size = convert::board_size("board_size", req.board_size)?;
        if req.handicap == 1 || req.handicap > 9 {
            return Err(AppError::field("handicap", "handicap is 0 or 2..=9 stones"));
        }
        let start = GameStart { rules, size, handicap: req.handicap, setup_black: vec![], setup_white: vec![], first_to_move: None };
        let storage::Created { game: g, replayed } = self.create(&req, &start, serde_json::Map::new()).await?;
        tracing::info!(game = %g.id, replayed, "game created");
        // A new game has no moves: cache its start as stored, so that its first RecordMove
        // needs no extra round trips to the store (the cache's prefix rule holds trivially).
        // A replayed one may have moves since: it is read when first needed.
        if let Some(stored) = stored_start(&g).ok().filter(|_| !replayed) {
            if let Ok(game) = stored.game() {
                self.cache.put(g.id, std::sync::Arc::new(Snapshot { start: stored, moves: Vec::new(), game }));
            }
        }
        self.game_view(&g, req.tournament.trim().to_string(), false).await
    }

    /// Records a resignation (第六条: a player resigns only for themself): behind tokens, by
    /// the game's officials or the player who resigns. The game ends.
    ///
    /// # Errors
    /// `PERMISSION_DENIED`, `INVALID_ARGUMENT`, `NOT_FOUND`, `FAILED_PRECONDITION` (the game
    /// over), store errors.
    pub async fn resign(&self, claims: Option<&Claims>, req: Resign) -> Result<GameView, AppError> {
        crate::limits::check(&[("idempotency_key", &req.idempotency_key, crate::limits::MAX_NAME_BYTES)])?;
        let id = game_id("game_id", &req.game_id)?;
        let color = req.color.ok_or_else(|| AppError::field("color", "colour must be BLACK or WHITE"))?;
        self.may_write(claims, id, Some(color), "resign for a colour they do not play in a game they do not officiate").await?;
        let store = self.store()?;
        let result = format!("{}+R", color.opponent().letter());
        let mut w = GameWrite::event_only(id, None, Event::Resign { colour: color, result: Some(result), article: Some("第六条".into()) })
            .with_set_state(storage::GameState::Ended);
        if !req.idempotency_key.trim().is_empty() {
            w = w.with_key(req.idempotency_key.trim().to_string());
        }
        store.write(w).await.map_err(|e| store_error(e, Some(id)))?;
        let g = store.get_game(id).await.map_err(|e| store_error(e, Some(id)))?;
        let t = self.tournament_name(g.tournament_id).await?;
        self.game_view(&g, t, false).await
    }

    /// A game with its moves (`GetGame`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad id, `NOT_FOUND`, store errors.
    pub async fn get_game(&self, game: &str) -> Result<GameView, AppError> {
        let id = game_id("game_id", game)?;
        let g = self.store()?.get_game(id).await.map_err(|e| store_error(e, Some(id)))?;
        let t = self.tournament_name(g.tournament_id).await?;
        self.game_view(&g, t, true).await
    }

    /// The games of a tournament (all games when none is named), of one round when `round`
    /// is not 0, without their moves (`ListGames`). An unknown tournament has none.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT`, store errors.
    pub async fn list_games(&self, req: ListGames) -> Result<Vec<GameView>, AppError> {
        crate::limits::check(&[("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES)])?;
        let store = self.store()?;
        let tournament_id = if req.tournament.trim().is_empty() {
            None
        } else {
            match store.find_tournament(req.tournament.trim()).await.map_err(|e| store_error(e, None))? {
                Some(t) => Some(t.id),
                None => return Ok(vec![]),
            }
        };
        let round = Some(req.round as i32).filter(|&r| r > 0);
        let games = store.list_games(tournament_id, round).await.map_err(|e| store_error(e, None))?;
        let mut names: HashMap<Uuid, String> = HashMap::new();
        let mut out = Vec::with_capacity(games.len());
        for g in &games {
            let t = match g.tournament_id {
                Some(t) => match names.get(&t) {
                    Some(n) => n.clone(),
                    None => {
                        let n = self.tournament_name(Some(t)).await?;
                        names.insert(t, n.clone());
                        n
                    }
                },
                None => String::new(),
            };
            out.push(self.game_view(g, t, false).await?);
        }
        Ok(out)
    }

    /// The events of a game's log from `from_sequence` on, then each new one as it is
    /// written (`WatchGame`); the stream ends after the end of play when `until_end`, on an
    /// error, when the receiver is dropped, or when the server shuts down (`UNAVAILABLE`:
    /// watch again from the next sequence number).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad id, `NOT_FOUND`, store errors.
    pub async fn watch(&self, req: WatchGame) -> Result<EventStream, AppError> {
        let id = game_id("game_id", &req.game_id)?;
        let after = req.from_sequence.saturating_sub(1).min(i64::MAX as u64) as i64;
        let events = self.store()?.watch(id, after).await.map_err(|e| store_error(e, Some(id)))?;
        let until_end = req.until_end;
        // Forward from the store's stream; stop after the end of the game (until_end), on an
        // error, or when the client goes away (the send fails).
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<storage::StoredEvent, AppError>>(64);
        let mut shutdown = self.state.shutdown.clone();
        tokio::spawn(async move {
            let mut events = events;
            loop {
                let item = tokio::select! {
                    item = events.next() => match item {
                        Some(item) => item,
                        None => break,
                    },
                    _ = stopping(&mut shutdown) => {
                        let _ = tx
                            .send(Err(AppError::Refused {
                                code: Code::Unavailable,
                                message: "the server is shutting down; watch again from the next sequence number".into(),
                            }))
                            .await;
                        break;
                    }
                };
                match item {
                    Ok(e) => {
                        let last = until_end && ends_game(&e);
                        if tx.send(Ok(e)).await.is_err() || last {
                            break;
                        }
                    }
                    Err(err) => {
                        let _ = tx.send(Err(store_error(err, Some(id)))).await;
                        break;
                    }
                }
            }
        });
        Ok(tokio_stream::wrappers::ReceiverStream::new(rx).boxed())
    }
}
