//! Games: creating one (its `game_created` event), importing a whole record, reading games and
//! their moves, changing a game's state with an event.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use uuid::Uuid;

use super::*;
use crate::error::{Exists, Immutability, StoreError, StoreResult};
use crate::event::{Event, MovePlayed, MoveRecord};
use crate::model::*;
use crate::rows::*;

/// A game as [`Store::get_game`] and [`Store::list_games`] read it: its row, joined with its
/// two players' rows, and its head.
struct GameRow {
    id: Uuid,
    tournament_id: Option<Uuid>,
    round: Option<i32>,
    table_number: Option<i32>,
    board_width: i16,
    board_height: i16,
    komi: f64,
    handicap: i16,
    rule_set: String,
    state: String,
    setup: Value,
    created_at: DateTime<Utc>,
    b_id: Uuid,
    b_name: String,
    b_rank: Option<String>,
    b_fed: Option<String>,
    w_id: Uuid,
    w_name: String,
    w_rank: Option<String>,
    w_fed: Option<String>,
    move_count: i32,
    last_event_seq: i64,
    last_hash: Vec<u8>,
}

impl GameRow {
    /// The game, and the head of its log.
    fn into_game(self) -> StoreResult<(Game, Head)> {
        let state: GameState = self.state.parse()?;
        let head = Head { state, move_count: self.move_count, last_seq: self.last_event_seq, last_hash: self.last_hash };
        let game = Game {
            id: self.id,
            tournament_id: self.tournament_id,
            round: self.round,
            table_number: self.table_number,
            black: Player { id: self.b_id, name: self.b_name, rank: self.b_rank, federation_id: self.b_fed },
            white: Player { id: self.w_id, name: self.w_name, rank: self.w_rank, federation_id: self.w_fed },
            board_width: self.board_width,
            board_height: self.board_height,
            komi: self.komi,
            handicap: self.handicap,
            rule_set: self.rule_set,
            state,
            setup: self.setup,
            created_at: self.created_at,
            move_count: self.move_count,
            last_event_seq: self.last_event_seq,
        };
        Ok((game, head))
    }
}

/// The first event of a new game, `game_created`.
fn genesis_event(game_id: Uuid, facts: crate::event::GameFacts) -> StoredEvent {
    let event = Event::GameCreated(facts);
    build_event(game_id, None, event.kind(), event.payload())
}

impl Store {
    /// Create a game (state `playing`) and its first event, seq 1, kind "game_created", whose
    /// payload records every fact of the game: its columns, the two players' rows (name, rank,
    /// federation id) and the tournament's name (see [`crate::facts`]).
    ///
    /// Errors: [`StoreError::AlreadyExists`] when the tournament's round already has a game on
    /// that table; [`StoreError::NotFound`] for an unknown tournament or player;
    /// [`StoreError::InvalidArgument`] for a board size outside 1..=52.
    ///
    /// With a [`GameKey`]: if a game was created with that key and the same request digest,
    /// that game is returned (`replayed`), whatever was recorded in it since, and nothing is
    /// written — also when two calls with the key race (the second finds the first's game).
    /// The key with another digest: [`StoreError::AlreadyExists`].
    pub async fn create_game(&self, g: &NewGame) -> StoreResult<Created> {
        self.keyed(g.key.as_ref(), self.insert_game(g)).await
    }

    /// Runs `insert` (which creates a game with `key`) unless a game with `key` exists:
    /// then that game, replayed — also when `insert` fails on the key's unique index because
    /// a concurrent call with the same key created it first.
    async fn keyed(&self, key: Option<&GameKey>, insert: impl std::future::Future<Output = StoreResult<Game>>) -> StoreResult<Created> {
        if let Some(game) = self.game_by_key(key).await? {
            return Ok(Created { game, replayed: true });
        }
        match insert.await {
            Err(StoreError::AlreadyExists(m)) => match self.game_by_key(key).await? {
                Some(game) => Ok(Created { game, replayed: true }),
                None => Err(StoreError::AlreadyExists(m)),
            },
            r => r.map(|game| Created { game, replayed: false }),
        }
    }

    /// The game created with `key` (`None` when no game has it, or no key is given).
    /// Errors: `AlreadyExists` when the key was used with a different request digest.
    pub async fn game_by_key(&self, key: Option<&GameKey>) -> StoreResult<Option<Game>> {
        let Some(k) = key else { return Ok(None) };
        let row = sqlx::query!(r#"SELECT id, request_digest AS "request_digest!" FROM games WHERE idempotency_key = $1"#, k.key)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| (r.id, r.request_digest));
        match row {
            None => Ok(None),
            Some((id, digest)) if digest == k.request_digest => Ok(Some(self.get_game(id).await?)),
            Some((id, _)) => Err(StoreError::AlreadyExists(Exists::IdempotencyKey(format!(
                "idempotency key {:?} was used for a different request (game {id})",
                k.key
            )))),
        }
    }

    async fn insert_game(&self, g: &NewGame) -> StoreResult<Game> {
        let id = Uuid::new_v4();
        let setup = if g.setup.is_null() { json!({}) } else { g.setup.clone() };
        let mut tx = self.pool.begin().await?;
        let event = genesis_event(id, crate::facts::genesis_facts(&mut tx, g, &setup).await?);
        insert_game_row(&mut tx, id, g, &setup, GameState::Playing, 0, &event).await?;
        insert_event(&mut tx, &event).await?;
        tx.commit().await?;
        // the new game's head, so that its first write needs no read
        self.cache_head(id, Head { state: GameState::Playing, move_count: 0, last_seq: event.seq, last_hash: event.hash.clone() });
        self.announce(id, event.seq);
        self.get_game(id).await
    }

    /// Create a game together with its whole record, atomically (all or nothing) — for
    /// `ImportSgf`. The log gets `game_created` (seq 1), one `move` event per move (payload =
    /// the move's `event_payload` plus the `"move"` key, as [`Store::write`] records it), and, if
    /// `end` is given, a final event of `end.kind` that sets the game's state (payload plus
    /// `from_state`/`to_state`, as [`Store::set_game_state`] records it). Moves are numbered from
    /// 1 in the order given. Errors: as [`Store::create_game`]; [`StoreError::InvalidArgument`]
    /// for a bad SGF point or a payload that is not an object. A [`GameKey`] works as for
    /// [`Store::create_game`].
    pub async fn import_game(&self, g: &NewGame, moves: &[ImportedMove], end: Option<GameEnd>) -> StoreResult<Created> {
        self.keyed(g.key.as_ref(), self.insert_imported(g, moves, end)).await
    }

    async fn insert_imported(&self, g: &NewGame, moves: &[ImportedMove], end: Option<GameEnd>) -> StoreResult<Game> {
        let id = Uuid::new_v4();
        let setup = if g.setup.is_null() { json!({}) } else { g.setup.clone() };
        let mut tx = self.pool.begin().await?;
        let mut events = vec![genesis_event(id, crate::facts::genesis_facts(&mut tx, g, &setup).await?)];
        for (i, m) in moves.iter().enumerate() {
            if let Some(p) = &m.point {
                if p.len() != 2 || !p.bytes().all(|b| b.is_ascii_alphabetic()) {
                    return Err(StoreError::InvalidArgument(format!("move {}: point {p:?} is not an SGF point like \"dd\"", i + 1)));
                }
            }
            let mv = MoveRecord { number: i as i32 + 1, colour: m.colour, point: m.point.clone() };
            let event = Event::Move(MovePlayed { mv: Some(mv), ..m.event.clone() });
            let last = events.last().map(|e| (e.seq, e.hash.clone()));
            events.push(build_event(id, last, event.kind(), event.payload()));
        }
        let mut state = GameState::Playing;
        if let Some(end) = &end {
            let mut payload = object_or_empty(end.event.payload())?;
            payload.insert("from_state".into(), json!(GameState::Playing.as_str()));
            payload.insert("to_state".into(), json!(end.state.as_str()));
            let last = events.last().map(|e| (e.seq, e.hash.clone()));
            events.push(build_event(id, last, end.event.kind(), Value::Object(payload)));
            state = end.state;
        }
        let head = events.last().expect("game_created").clone();
        insert_game_row(&mut tx, id, g, &setup, state, moves.len() as i32, &head).await?;
        sqlx::query!(
            "INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash)
             SELECT $1, t.* FROM UNNEST($2::int8[], $3::text[], $4::jsonb[], $5::timestamptz[], $6::bytea[], $7::bytea[]) AS t",
            id,
            &events.iter().map(|e| e.seq).collect::<Vec<_>>(),
            &events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>(),
            &events.iter().map(|e| e.payload.clone()).collect::<Vec<_>>(),
            &events.iter().map(|e| e.created_at).collect::<Vec<_>>(),
            &events.iter().map(|e| e.prev_hash.clone()).collect::<Vec<_>>(),
            &events.iter().map(|e| e.hash.clone()).collect::<Vec<_>>(),
        )
        .execute(&mut *tx)
        .await?;
        if !moves.is_empty() {
            // points and client times may be NULL: `as _` binds their `Option` arrays unchecked
            sqlx::query!(
                "INSERT INTO moves (game_id, move_number, colour, point, client_time, event_seq)
                 SELECT $1, t.* FROM UNNEST($2::int4[], $3::text[], $4::text[], $5::timestamptz[], $6::int8[]) AS t",
                id,
                &(1..=moves.len() as i32).collect::<Vec<_>>(),
                &moves.iter().map(|m| colour_text(m.colour).to_string()).collect::<Vec<_>>(),
                moves.iter().map(|m| m.point.clone()).collect::<Vec<_>>() as _,
                moves.iter().map(|m| m.client_time).collect::<Vec<_>>() as _,
                &(2..=moves.len() as i64 + 1).collect::<Vec<_>>(),
            )
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        self.announce(id, head.seq);
        self.get_game(id).await
    }

    /// A game with its players, move count and last event number. Errors: [`StoreError::NotFound`].
    pub async fn get_game(&self, id: Uuid) -> StoreResult<Game> {
        let (game, head) = sqlx::query_as!(
            GameRow,
            "SELECT g.id, g.tournament_id, g.round, g.table_number, g.board_width, g.board_height,
                    g.komi, g.handicap, g.rule_set, g.state, g.setup, g.created_at,
                    b.id AS b_id, b.name AS b_name, b.rank AS b_rank, b.federation_id AS b_fed,
                    w.id AS w_id, w.name AS w_name, w.rank AS w_rank, w.federation_id AS w_fed,
                    g.move_count, g.last_seq AS last_event_seq, g.last_hash
             FROM games g
             JOIN players b ON b.id = g.black_player_id
             JOIN players w ON w.id = g.white_player_id
             WHERE g.id = $1",
            id
        )
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("game {id}")))?
        .into_game()?;
        // A write that follows (a move) finds the head read here, as if read itself: a head
        // that has moved on meanwhile only makes the write's compare-and-swap fail and re-read.
        self.cache_head(id, head);
        Ok(game)
    }

    /// Games of a tournament (all tournaments when `None`), optionally of one round, ordered by
    /// round, table number and creation time.
    pub async fn list_games(&self, tournament_id: Option<Uuid>, round: Option<i32>) -> StoreResult<Vec<Game>> {
        let rows = sqlx::query_as!(
            GameRow,
            "SELECT g.id, g.tournament_id, g.round, g.table_number, g.board_width, g.board_height,
                    g.komi, g.handicap, g.rule_set, g.state, g.setup, g.created_at,
                    b.id AS b_id, b.name AS b_name, b.rank AS b_rank, b.federation_id AS b_fed,
                    w.id AS w_id, w.name AS w_name, w.rank AS w_rank, w.federation_id AS w_fed,
                    g.move_count, g.last_seq AS last_event_seq, g.last_hash
             FROM games g
             JOIN players b ON b.id = g.black_player_id
             JOIN players w ON w.id = g.white_player_id
             WHERE ($1::uuid IS NULL OR g.tournament_id = $1) AND ($2::int4 IS NULL OR g.round = $2)
             ORDER BY g.round NULLS LAST, g.table_number NULLS LAST, g.created_at, g.id",
            tournament_id,
            round
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(|r| r.into_game().map(|(game, _)| game)).collect()
    }

    /// All moves of a game in order (moves 1..=n).
    ///
    /// Moves are append-only, so the moves read before are kept (per store, within
    /// [`MOVE_CACHE_LIMIT`]) and only the rest is read: from the last kept move on, which
    /// must be stored exactly as kept. If it is not (a failover to a standby that lacked it),
    /// the game's moves are read anew. The audit ([`Store::verify_chain`]) does not use the
    /// kept moves: it reads every row as stored.
    pub async fn moves(&self, game_id: Uuid) -> StoreResult<Vec<StoredMove>> {
        if let Some(kept) = self.cached_moves(game_id) {
            if let Some(last) = kept.last() {
                let rest = sqlx::query_as!(
                    MoveRow,
                    "SELECT game_id, move_number, colour, point, client_time, idempotency_key, event_seq, recorded_at
                     FROM moves WHERE game_id = $1 AND move_number >= $2 ORDER BY move_number",
                    game_id,
                    last.move_number
                )
                .fetch_all(&self.pool)
                .await?
                .into_iter()
                .map(MoveRow::into_move)
                .collect::<StoreResult<Vec<_>>>()?;
                if rest.first() == Some(last) {
                    if rest.len() == 1 {
                        return Ok(kept.to_vec());
                    }
                    let all: Vec<StoredMove> = kept.iter().chain(&rest[1..]).cloned().collect();
                    self.cache_moves(game_id, all.as_slice().into());
                    return Ok(all);
                }
            }
        }
        let all = self.stored_moves(game_id).await?;
        if !all.is_empty() {
            self.cache_moves(game_id, all.as_slice().into());
        }
        Ok(all)
    }

    /// All moves of a game in order, read from the database (none kept from before).
    pub(crate) async fn stored_moves(&self, game_id: Uuid) -> StoreResult<Vec<StoredMove>> {
        let rows = sqlx::query_as!(
            MoveRow,
            "SELECT game_id, move_number, colour, point, client_time, idempotency_key, event_seq, recorded_at
             FROM moves WHERE game_id = $1 ORDER BY move_number",
            game_id
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(MoveRow::into_move).collect()
    }

    /// Set a game's state and record `event` about it, atomically (e.g. [`Event::PlayResumed`]
    /// after a ruling on a resumption dispute, 第九条); the store adds `from_state` and
    /// `to_state` to its payload. Errors: [`StoreError::NotFound`]; [`StoreError::Immutable`]
    /// when the game is final (第十条); [`StoreError::InvalidArgument`] when an
    /// [`Event::Other`]'s payload is not an object.
    pub async fn set_game_state(&self, game_id: Uuid, state: GameState, event: &Event) -> StoreResult<StoredEvent> {
        let mut tx = self.pool.begin().await?;
        let old = lock_game(&mut tx, game_id).await?;
        if old == GameState::Final {
            return Err(StoreError::Immutable(Immutability::Final(format!("game {game_id} is final (第十条)"))));
        }
        sqlx::query!("UPDATE games SET state = $2 WHERE id = $1", game_id, state.as_str()).execute(&mut *tx).await?;
        let mut payload = object_or_empty(event.payload())?;
        payload.insert("from_state".into(), json!(old.as_str()));
        payload.insert("to_state".into(), json!(state.as_str()));
        let ev = append_raw_locked(&mut tx, game_id, event.kind(), Value::Object(payload)).await?;
        tx.commit().await?;
        self.announce(game_id, ev.seq);
        Ok(ev)
    }
}

/// A move of a whole record given to [`Store::import_game`].
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedMove {
    /// Who played it.
    pub colour: Color,
    /// SGF point ("dd"); `None` is a pass.
    pub point: Option<String>,
    /// The record's time for the move, if any.
    pub client_time: Option<DateTime<Utc>>,
    /// The move's event as the validator found it (captures, phase, …; `"move"` is filled in).
    pub event: MovePlayed,
}

/// How an imported record ends (see [`Store::import_game`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GameEnd {
    /// The game's state after the record, e.g. [`GameState::Ended`] after the passes of 第九条.
    pub state: GameState,
    /// The closing event, e.g. [`Event::Ended`] (the store adds `from_state` and `to_state`).
    pub event: Event,
}

/// Inserts the row of a new game `id` (the particulars of `g`, its `setup` JSON, its `state`
/// and `move_count`, its head: the seq and hash of the last event of its log, `head`) and its
/// idempotency key, if any.
async fn insert_game_row(
    tx: &mut Transaction<'_, Postgres>,
    id: Uuid,
    g: &NewGame,
    setup: &Value,
    state: GameState,
    move_count: i32,
    head: &StoredEvent,
) -> StoreResult<()> {
    sqlx::query!(
        "INSERT INTO games (id, tournament_id, round, table_number, black_player_id, white_player_id,
                            board_width, board_height, komi, handicap, rule_set, setup, state,
                            move_count, last_seq, last_hash, idempotency_key, request_digest)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
        id,
        g.tournament_id,
        g.round,
        g.table_number,
        g.black_player_id,
        g.white_player_id,
        g.board_width,
        g.board_height,
        g.komi,
        g.handicap,
        &g.rule_set,
        setup,
        state.as_str(),
        move_count,
        head.seq,
        &head.hash,
        g.key.as_ref().map(|k| &k.key),
        g.key.as_ref().map(|k| &k.request_digest),
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}
