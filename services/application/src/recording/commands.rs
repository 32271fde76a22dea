//! The commands and answers of the recording use cases ([`super::Recording`]), in the
//! domain's types. The transport decodes the protocol's requests into the commands and
//! encodes the answers (`shinpan::grpc::convert::recording`).
//!
//! The commands carry a request's values as it sent them where the use case checks them
//! itself (ids, names, rule sets, board sides, idempotency keys), so that every malformed
//! field is refused with the same code, field and message, in the same order, as a use case
//! that read the request directly.
//!
//! ## The answer kept under an idempotency key
//! The answer to a `RecordMove` sent with an idempotency key is stored with the move, and a
//! retry is answered with it. Its stored form is the protocol's encoding of the answer (a
//! `RecordMoveResponse`, hex-encoded under `"record_move_response"`), and it must not
//! change: stored answers are read back by every later version. This crate knows nothing of
//! the protocol, so the encoding is the transport's: an [`AnswerCodec`] the transport hands
//! to [`super::Recording::new`] (`shinpan::grpc::convert::recording::StoredAnswers`, tested
//! there against a stored answer byte for byte). The use case stores what the codec encodes
//! and answers a retry with what it decodes.

use crate::convert::GameStart;
use crate::error::AppError;
use crate::validation::MoveCheck;
use goban::{Color, Move, Phase};
use serde_json::Value;
use shinpan_storage as storage;

/// A player as a request names them: name (required), rank and federation id (free text,
/// empty when not given); each at most [`crate::limits::MAX_NAME_BYTES`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Player {
    /// Name (required, trimmed when stored).
    pub name: String,
    /// Rank, free text (e.g. `"5d"`); empty: none.
    pub rank: String,
    /// Federation membership id; empty: none.
    pub federation_id: String,
}

impl Player {
    /// Its name, rank and federation id under `prefix` (`"black"`, `"white"`), as field
    /// paths and values to check ([`crate::limits::text_violation`]).
    pub fn fields(&self, prefix: &str) -> Vec<(String, &str)> {
        vec![
            (format!("{prefix}.name"), self.name.as_str()),
            (format!("{prefix}.rank"), self.rank.as_str()),
            (format!("{prefix}.federation_id"), self.federation_id.as_str()),
        ]
    }
}

/// `CreateGame`: a game with no moves, filed under a tournament (or none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CreateGame {
    /// Tournament name (created when new); empty: none.
    pub tournament: String,
    /// Round; 0: none.
    pub round: u32,
    /// Board (table) number in the round; 0: none.
    pub board_number: u32,
    /// Black's player.
    pub black: Player,
    /// White's player.
    pub white: Player,
    /// Board side as sent: 0 = 19, else 2..=25 (第一条 allows any size).
    pub board_size: u32,
    /// Komi in points (第十条 adds it to White's score): a finite multiple of 0.5 within
    /// ±[`crate::limits::MAX_KOMI`]; `None`: the rule set's default for the board.
    pub komi: Option<f64>,
    /// Fixed handicap stones: 0 or 2..=9.
    pub handicap: u32,
    /// Rule set name as sent; empty: `japanese-2011`.
    pub rule_set: String,
    /// Idempotency key (at most 200 bytes); empty: none.
    pub idempotency_key: String,
    /// The bytes that identify the request apart from its key, equal for a retry (the
    /// transport's: the request's protobuf encoding with the key cleared). The key is stored
    /// with their SHA-256, so that the same key with another request is refused.
    pub fingerprint: Vec<u8>,
}

/// `RecordMove`: one move of a game, recorded exactly once.
#[derive(Debug)]
pub struct RecordMove {
    /// The game's id as sent (a UUID).
    pub game_id: String,
    /// The number the move gets, 1-based; it must be the game's next.
    pub move_number: u32,
    /// The colour the move names, if it names BLACK or WHITE (for the role rules: a player
    /// records only moves of their own colour).
    pub colour: Option<Color>,
    /// The move as decoded (its point checked as SGF, not yet against the board), or the
    /// `INVALID_ARGUMENT` naming its field (`"move"`, `"move.color"`, `"move.point"`): an
    /// error is reported once the game is found, and a point off the game's board then.
    pub mv: Result<(Color, Move), AppError>,
    /// When the client says the move was played, if it says so.
    pub client_time: Option<chrono::DateTime<chrono::Utc>>,
    /// Idempotency key; empty: none.
    pub idempotency_key: String,
}

/// The answer to a `RecordMove`: the verdict on the move and where the log recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The verdict (a foul of 第十二条 is recorded, not refused; the phase after the move,
    /// ended by the passes of 第九条).
    pub check: MoveCheck,
    /// Sequence number of the event that recorded it in the game's log.
    pub sequence: u64,
    /// True when this is the stored answer to an earlier call with the same key.
    pub replayed: bool,
}

/// How a [`Recorded`] answer is kept under its idempotency key (the module docs): the
/// transport's encoding, which must read back every answer it ever stored.
pub trait AnswerCodec: Send + Sync + std::fmt::Debug {
    /// The stored form of `answer` (its `sequence` 0 and `replayed` false: the sequence is
    /// known only once stored).
    fn encode(&self, answer: &Recorded) -> Value;
    /// The answer stored by [`AnswerCodec::encode`], if `stored` holds one that reads back.
    fn decode(&self, stored: &Value) -> Option<Recorded>;
}

/// `Resign`: a player resigns (第六条: only for themself); the game ends.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resign {
    /// The game's id as sent (a UUID).
    pub game_id: String,
    /// Who resigns; `None` when the request names neither BLACK nor WHITE (refused).
    pub color: Option<Color>,
    /// Idempotency key; empty: none.
    pub idempotency_key: String,
}

/// `ListGames`: the games of a tournament, of one round.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListGames {
    /// Tournament name; empty: every game.
    pub tournament: String,
    /// Round; 0: every round.
    pub round: u32,
}

/// `WatchGame`: a game's log from a sequence number on, then as it is written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchGame {
    /// The game's id as sent (a UUID).
    pub game_id: String,
    /// First sequence number to send (1-based; 0 and 1: from the start).
    pub from_sequence: u64,
    /// Whether the stream ends after the event that ends play ([`crate::events::ends_game`]).
    pub until_end: bool,
}

/// `ImportSgf`: a whole SGF record stored as one game, all or nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportSgf {
    /// The record (at most [`crate::limits::MAX_SGF_BYTES`]).
    pub sgf: String,
    /// Tournament to file it under; empty: none.
    pub tournament: String,
    /// Round; 0 is round 1.
    pub round: u32,
    /// Board number; 0: the next free board of the round.
    pub board_number: u32,
    /// Rule set overriding the record's `RU`; empty: the record's (or `japanese-2011`).
    pub rule_set: String,
    /// Idempotency key; empty: none.
    pub idempotency_key: String,
    /// The bytes that identify the request apart from its key (as [`CreateGame::fingerprint`]).
    pub fingerprint: Vec<u8>,
}

/// A stored game as the recording use cases answer it: its row, and the state replayed from
/// its moves with the flags and result read from its log.
#[derive(Clone, Debug, PartialEq)]
pub struct GameView {
    /// The stored row (id, round, board, players, komi, rule set, state, creation time, last
    /// sequence number of its log).
    pub game: storage::Game,
    /// Its tournament's name; empty: none.
    pub tournament: String,
    /// Its start (board side, handicap, setup stones).
    pub start: GameStart,
    /// Its moves, in order: empty unless asked for (`GetGame`, `ExportSgf`).
    pub moves: Vec<(Color, Move)>,
    /// Moves recorded.
    pub move_number: u32,
    /// Who moves next.
    pub to_move: Color,
    /// The phase: the engine's while the game is stored `playing`, else ended.
    pub phase: Phase,
    /// Stones Black has taken (第三条).
    pub prisoners_black: u32,
    /// Stones White has taken.
    pub prisoners_white: u32,
    /// Whether a foul (第十二条) was recorded.
    pub flagged: bool,
    /// The latest result of its log (SGF `RE` syntax); empty: none.
    pub result: String,
}

/// The answer to an `ImportSgf`.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The game stored (without its moves).
    pub game: GameView,
    /// Moves imported.
    pub moves: u32,
    /// The whole-board repetitions of the record (第十一条).
    pub repetitions: Vec<goban::Repetition>,
    /// True when an earlier call with the same key imported it.
    pub replayed: bool,
}

/// The stream of `WatchGame`: each event of the game's log as stored, or the error that ends
/// it.
pub type EventStream = futures::stream::BoxStream<'static, Result<storage::StoredEvent, AppError>>;
