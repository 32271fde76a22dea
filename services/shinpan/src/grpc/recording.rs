//! `GameRecordingService`: games, moves and the event log, on PostgreSQL through `shinpan-storage`.
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

use crate::error::ApiError;
use crate::grpc::convert::{self, GameStart};
use crate::grpc::validation::{self, apply_recorded};
use crate::grpc::AppState;
use futures::{Stream, StreamExt};
use goban::{Color, Move, Phase, RuleSet};
use serde_json::{json, Value};
use shinpan_proto::v1 as pb;
use shinpan_proto::ValueName;
use shinpan_storage::event::{FoulRecord, MovePlayed, RepetitionRecord};
use shinpan_storage::{self as storage, Event, Exists, GameWrite, Immutability, Precondition, StoreError};
use std::collections::HashMap;
use std::pin::Pin;
use tonic::{Request, Response, Status};
use uuid::Uuid;

/// Maps a storage error to the API's (see the table in `shinpan_storage::StoreError`).
pub fn store_error(e: StoreError, game_id: Option<Uuid>) -> ApiError {
    let gid = game_id.map(|g| g.to_string()).unwrap_or_default();
    match e {
        StoreError::NotFound(what) => ApiError::NotFound { kind: "game", id: if gid.is_empty() { what } else { gid } },
        StoreError::AlreadyExists(what) => ApiError::AlreadyExists { kind: "resource", id: what.to_string() },
        StoreError::Conflict { current_move_number, expected } => {
            ApiError::OutOfSequence { game_id: gid, current: current_move_number.max(0) as u32, got: expected.max(0) as u32 }
        }
        // play is over: the game has ended or is final (第九条, 第十条)
        StoreError::FailedPrecondition(Precondition::GameState { state, .. }) if state != storage::GameState::Playing => {
            ApiError::GameOver { game_id: gid, result: String::new() }
        }
        StoreError::Immutable(Immutability::Final(_)) => ApiError::GameOver { game_id: gid, result: String::new() },
        StoreError::FailedPrecondition(m) => ApiError::Remote(Box::new(Status::failed_precondition(m.to_string()))),
        StoreError::Immutable(m) => ApiError::Remote(Box::new(Status::failed_precondition(m.to_string()))),
        StoreError::InvalidArgument(m) => ApiError::field("request", m),
        StoreError::Unavailable(m) => ApiError::Unavailable(format!("store: {m}")),
        StoreError::Other(m) => ApiError::Internal(m),
    }
}

/// Parses a game id (a UUID) from `field`.
pub fn game_id(field: &str, s: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(s.trim()).map_err(|_| ApiError::field(field, format!("`{}` is not a game id (a UUID)", crate::limits::excerpt(s))))
}

/// Maps a storage error of creating (or importing) a game: a tournament round's table taken →
/// `ALREADY_EXISTS` naming "tournament/round r/board b"; others as [`store_error`].
fn create_error(e: StoreError, req: &pb::CreateGameRequest) -> ApiError {
    match e {
        StoreError::AlreadyExists(Exists::IdempotencyKey(_)) => ApiError::AlreadyExists {
            kind: "idempotency key (sent before with a different request)",
            id: req.idempotency_key.trim().into(),
        },
        StoreError::AlreadyExists(_) => ApiError::AlreadyExists {
            kind: "game",
            id: format!("{}/round {}/board {}", req.tournament.trim(), req.round, req.board_number),
        },
        e => store_error(e, None),
    }
}

/// Most bytes of a game-creating request's idempotency key.
const MAX_KEY_BYTES: usize = 200;

/// The idempotency key of a request that creates a game (`None` when `key` is empty), with
/// the SHA-256 of `what` and the request's prost encoding with the key left out (`request`
/// has it cleared): a retry sends the same bytes. Errors: `INVALID_ARGUMENT` on
/// `idempotency_key` for a key over [`MAX_KEY_BYTES`].
fn game_key(key: &str, what: &str, request: &impl prost::Message) -> Result<Option<storage::GameKey>, ApiError> {
    use sha2::Digest;
    let key = key.trim();
    if key.is_empty() {
        return Ok(None);
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(ApiError::field("idempotency_key", format!("an idempotency key has at most {MAX_KEY_BYTES} bytes")));
    }
    let mut h = sha2::Sha256::new();
    h.update(what.as_bytes());
    h.update(request.encode_to_vec());
    Ok(Some(storage::GameKey { key: key.to_string(), request_digest: h.finalize().to_vec() }))
}

fn colour(c: Color) -> storage::Colour {
    match c {
        Color::Black => storage::Colour::Black,
        Color::White => storage::Colour::White,
    }
}

fn from_colour(c: storage::Colour) -> Color {
    match c {
        storage::Colour::Black => Color::Black,
        storage::Colour::White => Color::White,
    }
}

fn points_json(v: &[goban::Point]) -> Value {
    Value::Array(v.iter().map(|p| Value::String(p.to_sgf())).collect())
}

fn points_from_json(v: Option<&Value>) -> Vec<goban::Point> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|s| s.as_str()).filter_map(|s| goban::Point::from_sgf(s).ok()).collect())
        .unwrap_or_default()
}

/// The start of a stored game (rule set, size, handicap, setup stones from the `setup` JSON:
/// `{"AB": [...], "AW": [...], "PL": "B"|"W"}`).
pub fn stored_start(g: &storage::Game) -> Result<GameStart, ApiError> {
    let rules =
        RuleSet::from_name(&g.rule_set).ok_or_else(|| ApiError::Internal(format!("game {} has unknown rule set {}", g.id, g.rule_set)))?;
    let first_to_move = match g.setup.get("PL").and_then(Value::as_str) {
        Some("B") => Some(Color::Black),
        Some("W") => Some(Color::White),
        _ => None,
    };
    Ok(GameStart {
        rules,
        size: g.board_width.max(0) as u32,
        handicap: g.handicap.max(0) as u32,
        setup_black: points_from_json(g.setup.get("AB")),
        setup_white: points_from_json(g.setup.get("AW")),
        first_to_move,
    })
}

fn setup_json(start: &GameStart, extra: serde_json::Map<String, Value>) -> Value {
    let mut m = extra;
    m.insert("AB".into(), points_json(&start.setup_black));
    m.insert("AW".into(), points_json(&start.setup_white));
    if let Some(c) = start.first_to_move {
        m.insert("PL".into(), Value::String(c.letter().to_string()));
    }
    Value::Object(m)
}

/// Stored moves as (colour, move) pairs.
fn stored_moves(moves: &[storage::StoredMove]) -> Result<Vec<(Color, Move)>, ApiError> {
    moves
        .iter()
        .map(|m| {
            let mv = match &m.point {
                Some(p) => {
                    Move::Play(goban::Point::from_sgf(p).map_err(|e| ApiError::Internal(format!("stored move {}: {e}", m.move_number)))?)
                }
                None => Move::Pass,
            };
            Ok((from_colour(m.colour), mv))
        })
        .collect()
}

fn pb_moves(moves: &[(Color, Move)]) -> Vec<pb::Move> {
    moves.iter().map(|&(c, m)| convert::move_to_pb(c, m)).collect()
}

/// The `RecordMoveResponse` kept under an idempotency key: protobuf bytes, hex-encoded.
fn encode_response(r: &pb::RecordMoveResponse) -> Value {
    use prost::Message;
    json!({ "record_move_response": hex::encode(r.encode_to_vec()) })
}

fn decode_response(v: &Value) -> Option<pb::RecordMoveResponse> {
    use prost::Message;
    let bytes = hex::decode(v.get("record_move_response")?.as_str()?).ok()?;
    pb::RecordMoveResponse::decode(bytes.as_slice()).ok()
}

fn move_event(r: &pb::ValidateMoveResponse) -> Event {
    Event::Move(MovePlayed {
        captured: Some(r.captured.clone()),
        phase: Some(pb::Phase::try_from(r.phase).map(|p| p.value_name()).unwrap_or("PLAYING").to_string()),
        ko: r.ko_point.clone(),
        repetition: r.repetition.as_ref().map(|rep| RepetitionRecord { first: rep.first, again: rep.again, cycles: rep.cycles }),
        ..Default::default()
    })
}

/// The `foul` event of a foul (第十二条).
fn foul_event(f: &pb::Foul) -> Event {
    let m = f.r#move.as_ref();
    Event::Foul {
        foul: FoulRecord {
            move_number: f.move_number,
            colour: m.map(|m| if m.color == pb::Color::White as i32 { storage::Colour::White } else { storage::Colour::Black }),
            point: m.and_then(|m| match &m.action {
                Some(pb::r#move::Action::Point(p)) => Some(p.clone()),
                _ => None,
            }),
            rule: f.rule.clone(),
            article: f.article.clone(),
            description: f.description.clone(),
        },
    }
}

/// A stored event in protobuf form (typed fields for `move` and `foul` events).
pub fn event_to_pb(e: &storage::StoredEvent) -> pb::GameEvent {
    let mut out = pb::GameEvent {
        game_id: e.game_id.to_string(),
        sequence: e.seq.max(0) as u64,
        kind: e.kind.clone(),
        payload_json: e.payload.to_string(),
        record_time: Some(convert::timestamp(e.created_at)),
        hash: hex::encode(&e.hash),
        prev_hash: hex::encode(&e.prev_hash),
        ..Default::default()
    };
    let colour_of = |c: Option<storage::Colour>| match c {
        Some(storage::Colour::White) => pb::Color::White as i32,
        _ => pb::Color::Black as i32,
    };
    let action_of = |p: &Option<String>| match p {
        Some(p) => pb::r#move::Action::Point(p.clone()),
        None => pb::r#move::Action::Pass(true),
    };
    match e.event() {
        Event::Move(MovePlayed { mv: Some(m), captured, .. }) => {
            out.move_number = m.number.max(0) as u32;
            out.r#move = Some(pb::Move { color: colour_of(Some(m.colour)), action: Some(action_of(&m.point)) });
            out.captured = captured.unwrap_or_default();
        }
        Event::Foul { foul: f } => {
            let mv = pb::Move { color: colour_of(f.colour), action: Some(action_of(&f.point)) };
            out.move_number = f.move_number;
            out.r#move = Some(mv.clone());
            out.foul = Some(pb::Foul {
                move_number: f.move_number,
                r#move: Some(mv),
                rule: f.rule,
                article: f.article,
                description: f.description,
            });
        }
        _ => {}
    }
    out
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

/// Whether an event ends play (for `WatchGame.until_end`): a resignation (第六条), the
/// `ended` event that closes an imported record, or a recorded move after which play has
/// ended (第九条2). An imported move with phase `ENDED` is not the last event: the import
/// closes the log with its own `ended` event, which the watcher must still receive.
fn ends_game(e: &storage::StoredEvent) -> bool {
    match e.event() {
        Event::Resign { .. } | Event::Ended { .. } => true,
        Event::Move(m) => m.imported != Some(true) && m.phase.as_deref() == Some("ENDED"),
        Event::Other { kind, .. } => kind == "resign" || kind == "ended",
        _ => false,
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

/// The `GameRecordingService` gRPC service.
#[derive(Clone)]
pub struct RecordingService {
    state: AppState,
    cache: GameCache,
    /// What the role rules need to know of each game (its players and tournament never
    /// change once it is created), so that a move behind tokens costs no extra round trip
    /// after the first. At most [`GameCache::CAPACITY`] games, then afresh.
    scopes: std::sync::Arc<std::sync::Mutex<HashMap<Uuid, crate::auth::GameScope>>>,
}

impl RecordingService {
    /// A service on the shared state (which must have a store).
    pub fn new(state: AppState) -> RecordingService {
        RecordingService { state, cache: GameCache::default(), scopes: Default::default() }
    }

    /// Behind tokens (claims on the request), whether the caller may write to game `id` for
    /// `colour` (a move's colour, or who resigns): its officials, or its player of that
    /// colour (module docs). Without claims (the service is open) anyone may.
    ///
    /// # Errors
    /// `PERMISSION_DENIED`; `NOT_FOUND` for an unknown game; store errors.
    async fn may_write(&self, claims: Option<&crate::auth::Claims>, id: Uuid, colour: Option<Color>, what: &str) -> Result<(), Status> {
        let Some(c) = claims else { return Ok(()) };
        let cached = self.scopes.lock().ok().and_then(|m| m.get(&id).cloned());
        let scope = match cached {
            Some(scope) => scope,
            None => {
                let scope = crate::grpc::results::load_game(self.store().map_err(Status::from)?, id).await?.scope;
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
            Err(crate::auth::denied(c, what))
        }
    }

    /// Behind tokens, whether the caller may create or import a game filed under
    /// `tournament` (empty: none): that tournament's officials (module docs).
    ///
    /// # Errors
    /// `PERMISSION_DENIED`; store errors.
    async fn may_organise(&self, claims: Option<&crate::auth::Claims>, tournament: &str) -> Result<(), Status> {
        let Some(c) = claims else { return Ok(()) };
        let name = tournament.trim();
        let id = if name.is_empty() {
            None
        } else {
            self.store().map_err(Status::from)?.find_tournament(name).await.map_err(|e| Status::from(store_error(e, None)))?.map(|t| t.id)
        };
        if c.officiates_tournament(id, (!name.is_empty()).then_some(name)) {
            Ok(())
        } else {
            Err(crate::auth::denied(c, &format!("create games in tournament `{name}` (its referees and chief arbiters only)")))
        }
    }

    fn store(&self) -> Result<&storage::Store, ApiError> {
        self.state.store()
    }

    async fn tournament_name(&self, id: Option<Uuid>) -> Result<String, ApiError> {
        match id {
            Some(t) => Ok(self.store()?.get_tournament(t).await.map_err(|e| store_error(e, None))?.name),
            None => Ok(String::new()),
        }
    }

    /// The protobuf game: stored metadata plus the state replayed from the moves and the
    /// flags and result read from the event log.
    async fn game_pb(&self, g: &storage::Game, tournament: String, with_moves: bool) -> Result<pb::Game, ApiError> {
        let store = self.store()?;
        let moves = store.moves(g.id).await.map_err(|e| store_error(e, Some(g.id)))?;
        let events = store.events_since(g.id, 0, i64::MAX).await.map_err(|e| store_error(e, Some(g.id)))?;
        let start = stored_start(g)?;
        let moves = stored_moves(&moves)?;
        let mut game = start.game()?;
        for &(c, m) in &moves {
            apply_recorded(&mut game, c, m).map_err(|f| ApiError::Internal(format!("stored game {} does not replay: {f}", g.id)))?;
        }
        let flagged = events.iter().any(|e| matches!(e.event(), Event::Foul { .. }));
        let result =
            events.iter().rev().find_map(|e| e.payload.get("result").and_then(Value::as_str).map(str::to_string)).unwrap_or_default();
        let phase = match g.state {
            storage::GameState::Playing => convert::phase_to_pb(game.phase()),
            _ => pb::Phase::Ended as i32,
        };
        Ok(pb::Game {
            id: g.id.to_string(),
            tournament,
            round: g.round.unwrap_or(0).max(0) as u32,
            board_number: g.table_number.unwrap_or(0).max(0) as u32,
            black: Some(player_pb(&g.black)),
            white: Some(player_pb(&g.white)),
            board_size: start.size,
            komi: g.komi,
            handicap: start.handicap,
            rule_set: g.rule_set.clone(),
            setup_black: start.setup_black.iter().map(|p| p.to_sgf()).collect(),
            setup_white: start.setup_white.iter().map(|p| p.to_sgf()).collect(),
            moves: if with_moves { pb_moves(&moves) } else { Vec::new() },
            move_number: moves.len() as u32,
            to_move: convert::color_to_pb(game.to_move()),
            phase,
            prisoners_black: game.prisoners(Color::Black),
            prisoners_white: game.prisoners(Color::White),
            flagged,
            result,
            create_time: Some(convert::timestamp(g.created_at)),
            last_sequence: g.last_event_seq.max(0) as u64,
        })
    }

    /// Creates a game with no moves (`CreateGame`): see [`RecordingService::new_game`].
    async fn create(
        &self,
        req: &pb::CreateGameRequest,
        start: &GameStart,
        extra: serde_json::Map<String, Value>,
    ) -> Result<storage::Created, ApiError> {
        let unkeyed = pb::CreateGameRequest { idempotency_key: String::new(), ..req.clone() };
        let key = game_key(&req.idempotency_key, "CreateGame", &unkeyed)?;
        let new = storage::NewGame { key, ..self.new_game(req, start, extra).await? };
        self.store()?.create_game(&new).await.map_err(|e| create_error(e, req))
    }

    /// Checks a game's particulars (players' names, komi a multiple of 0.5, a playable start)
    /// and resolves its tournament and players (created when new), giving the row to store.
    /// Errors: `INVALID_ARGUMENT` with one violation per bad field; store errors.
    async fn new_game(
        &self,
        req: &pb::CreateGameRequest,
        start: &GameStart,
        extra: serde_json::Map<String, Value>,
    ) -> Result<storage::NewGame, ApiError> {
        let store = self.store()?;
        let players: Vec<(String, &str)> =
            [crate::limits::player_fields("black", req.black.as_ref()), crate::limits::player_fields("white", req.white.as_ref())].concat();
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
        let name_of = |p: &Option<pb::Player>| p.as_ref().map(|p| p.name.trim().to_string()).unwrap_or_default();
        if name_of(&req.black).is_empty() {
            violations.push(crate::error::FieldViolation { field: "black.name".into(), description: "a player's name is required".into() });
        }
        if name_of(&req.white).is_empty() {
            violations.push(crate::error::FieldViolation { field: "white.name".into(), description: "a player's name is required".into() });
        }
        if let Some(k) = req.komi {
            if let Err(ApiError::InvalidArgument(v)) = crate::limits::komi("komi", k) {
                violations.extend(v);
            }
        }
        if !violations.is_empty() {
            return Err(ApiError::InvalidArgument(violations));
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
        let player = |p: &Option<pb::Player>| {
            let p = p.clone().unwrap_or_default();
            storage::NewPlayer {
                name: p.name.trim().to_string(),
                rank: Some(p.rank.trim().to_string()).filter(|s| !s.is_empty()),
                federation_id: Some(p.federation_id.trim().to_string()).filter(|s| !s.is_empty()),
            }
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

    /// The work of `RecordMove` (see the module docs).
    pub async fn record_move(&self, req: pb::RecordMoveRequest) -> Result<pb::RecordMoveResponse, ApiError> {
        crate::limits::check(&[("idempotency_key", &req.idempotency_key, crate::limits::MAX_NAME_BYTES)])?;
        let id = game_id("game_id", &req.game_id)?;
        if req.move_number == 0 {
            return Err(ApiError::field("move_number", "move numbers start at 1"));
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
                    return Err(ApiError::OutOfSequence { game_id: id.to_string(), current: recorded, got: n });
                }
                let start = stored_start(&g)?;
                let moves = store.moves(id).await.map_err(|e| store_error(e, Some(id)))?;
                let history = stored_moves(&moves[..(n as usize - 1).min(moves.len())])?;
                let mut game = start.game()?;
                for &(c, m) in &history {
                    apply_recorded(&mut game, c, m).map_err(|f| ApiError::Internal(format!("stored game {id} does not replay: {f}")))?;
                }
                let snap = std::sync::Arc::new(Snapshot { start, moves: history, game });
                if n == recorded + 1 && g.state == storage::GameState::Playing {
                    self.cache.put(id, snap.clone());
                }
                snap
            }
        };
        let start = &snapshot.start;
        let (color, mv) = convert::move_from_pb("move", req.r#move.as_ref(), start.size, start.size)?;
        let mut after = None;
        let verdict = match &self.state.validator {
            validation::Validator::Local => {
                let mut game = snapshot.game.clone();
                let v = validation::check_move(&mut game, color, mv, n);
                after = Some(game);
                v
            }
            remote => {
                remote
                    .validate_move(pb::ValidateMoveRequest {
                        state: Some(pb::validate_move_request::State::Game(convert::game_state(start, pb_moves(&snapshot.moves)))),
                        r#move: Some(convert::move_to_pb(color, mv)),
                        rule_set: String::new(),
                    })
                    .await?
            }
        };
        let key = Some(req.idempotency_key.trim().to_string()).filter(|k| !k.is_empty());
        let mut response = pb::RecordMoveResponse {
            move_number: n,
            legal: verdict.legal,
            captured: verdict.captured.clone(),
            ko_point: verdict.ko_point.clone(),
            foul: verdict.foul.clone(),
            repetition: verdict.repetition.clone(),
            phase: verdict.phase,
            sequence: 0,
            replayed: false,
        };
        let write = if let Some(foul) = &verdict.foul {
            GameWrite::event_only(id, Some(n as i32), foul_event(foul))
        } else {
            let point = match mv {
                Move::Play(p) => Some(p.to_sgf()),
                Move::Pass => None,
            };
            let mut w = GameWrite::new_move(id, n as i32, colour(color), point.as_deref()).with_event(move_event(&verdict));
            if let Some(t) = req.client_time.as_ref().and_then(convert::from_timestamp) {
                w = w.with_client_time(t);
            }
            if verdict.phase == pb::Phase::Ended as i32 {
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
        let write = write.with_response(encode_response(&response));
        let out = match store.write(write).await {
            Ok(out) => out,
            Err(e) => {
                self.cache.forget(id);
                return Err(match e {
                    StoreError::AlreadyExists(m) => ApiError::AlreadyExists { kind: "idempotency key", id: m.to_string() },
                    e => store_error(e, Some(id)),
                });
            }
        };
        if !out.replayed && verdict.legal {
            match after {
                Some(game) if verdict.phase != pb::Phase::Ended as i32 => {
                    let mut moves = snapshot.moves.clone();
                    moves.push((color, mv));
                    self.cache.put(id, std::sync::Arc::new(Snapshot { start: snapshot.start.clone(), moves, game }));
                }
                _ => self.cache.forget(id),
            }
        }
        if out.replayed {
            response = decode_response(&out.response).unwrap_or(response);
            response.replayed = true;
        }
        response.sequence = out.event.seq.max(0) as u64;
        if let (Some(foul), false) = (&verdict.foul, out.replayed) {
            tracing::warn!(game = %id, move_number = n, rule = %foul.rule, article = %foul.article, "foul recorded");
            let case = storage::NewCase {
                game_id: id,
                kind: storage::CaseKind::Foul,
                evidence: json!({ "move_numbers": [n], "event_seq": out.event.seq, "foul": foul_event(foul).payload()["foul"] }),
                opened_by: "validation".into(),
                reason: foul.description.clone(),
                dedupe_key: Some(format!("foul:{n}")),
            };
            if let Err(e) = store.open_case(&case).await {
                tracing::warn!(error = %e, "could not open the foul case");
            }
        }
        Ok(response)
    }

    async fn import(&self, req: pb::ImportSgfRequest) -> Result<pb::ImportSgfResponse, ApiError> {
        crate::limits::check(&[
            ("sgf", &req.sgf, crate::limits::MAX_SGF_BYTES),
            ("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES),
            ("rule_set", &req.rule_set, crate::limits::MAX_NAME_BYTES),
            ("idempotency_key", &req.idempotency_key, crate::limits::MAX_NAME_BYTES),
        ])?;
        let key = game_key(&req.idempotency_key, "ImportSgf", &pb::ImportSgfRequest { idempotency_key: String::new(), ..req.clone() })?;
        let (record, rules) = validation::parse_sgf("sgf", &req.sgf, &req.rule_set)?;
        if record.width != record.height {
            return Err(ApiError::field("sgf", "only square boards can be recorded"));
        }
        let initial = record.initial_game(rules).map_err(|e| ApiError::field("sgf", e.to_string()))?;
        // A stored game is its moves: setup after the first move that changes a stone
        // (`shinpan_sgf::LaterSetup`) cannot be recorded; setup that changes nothing and `PL`
        // in move nodes are harmless.
        if !record.later_setup.is_empty() {
            let replayed = record.to_game(rules).map_err(|e| ApiError::field("sgf", e.to_string()))?;
            if let Some(w) = replayed.warnings.first() {
                return Err(ApiError::field("sgf", format!("{w}: a recorded game holds moves only")));
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
                    return Err(ApiError::Foul(convert::foul_info(&f)));
                }
            }
        }
        let info = &record.info;
        let player = |name: &Option<String>, rank: &Option<String>, default: &str| pb::Player {
            name: name.clone().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| default.to_string()),
            rank: rank.clone().unwrap_or_default(),
            federation_id: String::new(),
        };
        let create = pb::CreateGameRequest {
            tournament: req.tournament.clone(),
            // Round 0 is round 1; board 0 is the next free board of the round (below).
            round: req.round.max(1),
            board_number: req.board_number,
            black: Some(player(&info.black_name, &info.black_rank, "Black")),
            white: Some(player(&info.white_name, &info.white_rank, "White")),
            board_size: start.size,
            komi: Some(record.komi_or_default(rules)),
            handicap: start.handicap,
            rule_set: rules.name().to_string(),
            idempotency_key: req.idempotency_key.clone(),
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
                colour: colour(m.color),
                point: match m.mv {
                    Move::Play(p) => Some(p.to_sgf()),
                    Move::Pass => None,
                },
                client_time: None,
                event: match o {
                    Some(o) => MovePlayed {
                        captured: Some(o.captured.iter().map(|p| p.to_sgf()).collect()),
                        phase: Some(
                            pb::Phase::try_from(convert::phase_to_pb(o.phase)).map(|p| p.value_name()).unwrap_or("PLAYING").to_string(),
                        ),
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
        Ok(pb::ImportSgfResponse {
            game: Some(self.game_pb(&g, tournament, false).await?),
            moves: record.moves.len() as u32,
            repetitions: game.repetitions().iter().map(convert::repetition_to_pb).collect(),
            replayed,
        })
    }

    async fn export(&self, id: Uuid) -> Result<String, ApiError> {
        let store = self.store()?;
        let g = store.get_game(id).await.map_err(|e| store_error(e, Some(id)))?;
        let tournament = self.tournament_name(g.tournament_id).await?;
        let pbg = self.game_pb(&g, tournament.clone(), true).await?;
        let start = stored_start(&g)?;
        let mut record = shinpan_sgf::Record::new(start.size as u8, start.size as u8).map_err(|e| ApiError::Internal(e.to_string()))?;
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
        info.result = if pbg.result.is_empty() { text("RE") } else { Some(pbg.result.clone()) };
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

fn player_pb(p: &storage::Player) -> pb::Player {
    pb::Player {
        name: p.name.clone(),
        rank: p.rank.clone().unwrap_or_default(),
        federation_id: p.federation_id.clone().unwrap_or_default(),
    }
}

/// The stream type of `WatchGame`.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<pb::WatchGameResponse, Status>> + Send>>;

#[tonic::async_trait]
impl pb::game_recording_service_server::GameRecordingService for RecordingService {
    #[tracing::instrument(name = "GameRecordingService.CreateGame", skip_all)]
    async fn create_game(&self, req: Request<pb::CreateGameRequest>) -> Result<Response<pb::CreateGameResponse>, Status> {
        crate::limits::check(&[("tournament", &req.get_ref().tournament, crate::limits::MAX_NAME_BYTES)])?;
        self.may_organise(req.extensions().get(), &req.get_ref().tournament).await?;
        let req = req.into_inner();
        let rules = convert::rule_set("rule_set", &req.rule_set)?;
        let size = convert::board_size("board_size", req.board_size)?;
        if req.handicap == 1 || req.handicap > 9 {
            return Err(ApiError::field("handicap", "handicap is 0 or 2..=9 stones").into());
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
        Ok(Response::new(pb::CreateGameResponse { game: Some(self.game_pb(&g, req.tournament.trim().to_string(), false).await?) }))
    }

    #[tracing::instrument(name = "GameRecordingService.RecordMove", skip_all, fields(game = %req.get_ref().game_id, move_number = req.get_ref().move_number))]
    async fn record_move(&self, req: Request<pb::RecordMoveRequest>) -> Result<Response<pb::RecordMoveResponse>, Status> {
        if let Some(claims) = req.extensions().get::<crate::auth::Claims>() {
            let r = req.get_ref();
            let id = game_id("game_id", &r.game_id)?;
            let colour = r.r#move.as_ref().and_then(|m| convert::color_from_pb("move.color", m.color).ok());
            self.may_write(Some(claims), id, colour, "record a move of a game they neither officiate nor play with that colour").await?;
        }
        Ok(Response::new(self.record_move(req.into_inner()).await?))
    }

    #[tracing::instrument(name = "GameRecordingService.Resign", skip_all)]
    async fn resign(&self, req: Request<pb::ResignRequest>) -> Result<Response<pb::ResignResponse>, Status> {
        let claims = req.extensions().get::<crate::auth::Claims>().cloned();
        let req = req.into_inner();
        crate::limits::check(&[("idempotency_key", &req.idempotency_key, crate::limits::MAX_NAME_BYTES)])?;
        let id = game_id("game_id", &req.game_id)?;
        let color = convert::color_from_pb("color", req.color)?;
        self.may_write(claims.as_ref(), id, Some(color), "resign for a colour they do not play in a game they do not officiate").await?;
        let store = self.store().map_err(Status::from)?;
        let result = format!("{}+R", color.opponent().letter());
        let mut w =
            GameWrite::event_only(id, None, Event::Resign { colour: colour(color), result: Some(result), article: Some("第六条".into()) })
                .with_set_state(storage::GameState::Ended);
        if !req.idempotency_key.trim().is_empty() {
            w = w.with_key(req.idempotency_key.trim().to_string());
        }
        store.write(w).await.map_err(|e| store_error(e, Some(id)))?;
        let g = store.get_game(id).await.map_err(|e| store_error(e, Some(id)))?;
        let t = self.tournament_name(g.tournament_id).await?;
        Ok(Response::new(pb::ResignResponse { game: Some(self.game_pb(&g, t, false).await?) }))
    }

    #[tracing::instrument(name = "GameRecordingService.GetGame", skip_all)]
    async fn get_game(&self, req: Request<pb::GetGameRequest>) -> Result<Response<pb::GetGameResponse>, Status> {
        let id = game_id("game_id", &req.get_ref().game_id)?;
        let g = self.store()?.get_game(id).await.map_err(|e| store_error(e, Some(id)))?;
        let t = self.tournament_name(g.tournament_id).await?;
        Ok(Response::new(pb::GetGameResponse { game: Some(self.game_pb(&g, t, true).await?) }))
    }

    #[tracing::instrument(name = "GameRecordingService.ListGames", skip_all)]
    async fn list_games(&self, req: Request<pb::ListGamesRequest>) -> Result<Response<pb::ListGamesResponse>, Status> {
        let req = req.into_inner();
        crate::limits::check(&[("tournament", &req.tournament, crate::limits::MAX_NAME_BYTES)])?;
        let store = self.store()?;
        let tournament_id = if req.tournament.trim().is_empty() {
            None
        } else {
            match store.find_tournament(req.tournament.trim()).await.map_err(|e| store_error(e, None))? {
                Some(t) => Some(t.id),
                None => return Ok(Response::new(pb::ListGamesResponse { games: vec![] })),
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
            out.push(self.game_pb(g, t, false).await?);
        }
        Ok(Response::new(pb::ListGamesResponse { games: out }))
    }

    type WatchGameStream = EventStream;

    #[tracing::instrument(name = "GameRecordingService.WatchGame", skip_all)]
    async fn watch_game(&self, req: Request<pb::WatchGameRequest>) -> Result<Response<EventStream>, Status> {
        let req = req.into_inner();
        let id = game_id("game_id", &req.game_id)?;
        let after = req.from_sequence.saturating_sub(1).min(i64::MAX as u64) as i64;
        let events = self.store()?.watch(id, after).await.map_err(|e| store_error(e, Some(id)))?;
        let until_end = req.until_end;
        // Forward from the store's stream; stop after the end of the game (until_end), on an
        // error, or when the client goes away (the send fails).
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<pb::WatchGameResponse, Status>>(64);
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
                            .send(Err(Status::unavailable("the server is shutting down; watch again from the next sequence number")))
                            .await;
                        break;
                    }
                };
                match item {
                    Ok(e) => {
                        let last = until_end && ends_game(&e);
                        if tx.send(Ok(pb::WatchGameResponse { event: Some(event_to_pb(&e)) })).await.is_err() || last {
                            break;
                        }
                    }
                    Err(err) => {
                        let _ = tx.send(Err(Status::from(store_error(err, Some(id))))).await;
                        break;
                    }
                }
            }
        });
        let stream = tokio_stream::wrappers::ReceiverStream::new(rx).boxed();
        Ok(Response::new(stream))
    }

    #[tracing::instrument(name = "GameRecordingService.ImportSgf", skip_all)]
    async fn import_sgf(&self, req: Request<pb::ImportSgfRequest>) -> Result<Response<pb::ImportSgfResponse>, Status> {
        crate::limits::check(&[("tournament", &req.get_ref().tournament, crate::limits::MAX_NAME_BYTES)])?;
        self.may_organise(req.extensions().get(), &req.get_ref().tournament).await?;
        self.state.expensive.admit(&req, "ImportSgf")?;
        let r = self.import(req.into_inner()).await?;
        tracing::info!(game = %r.game.as_ref().map(|g| g.id.as_str()).unwrap_or(""), moves = r.moves, "record imported");
        Ok(Response::new(r))
    }

    #[tracing::instrument(name = "GameRecordingService.ExportSgf", skip_all)]
    async fn export_sgf(&self, req: Request<pb::ExportSgfRequest>) -> Result<Response<pb::ExportSgfResponse>, Status> {
        let id = game_id("game_id", &req.get_ref().game_id)?;
        Ok(Response::new(pb::ExportSgfResponse { sgf: self.export(id).await? }))
    }
}
