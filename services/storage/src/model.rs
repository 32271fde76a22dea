//! Row types and the small enums stored as text. Every enum has `as_str()` (the stored text) and
//! `FromStr`/`TryFrom<String>` (rejecting unknown text with [`UnknownText`], which becomes
//! [`StoreError::Other`](crate::StoreError::Other)).

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// Text stored in the database that names no value of the enum it should (a row written by
/// something other than this crate): `unknown <Enum> "<text>"`. Converted to
/// [`StoreError::Other`](crate::StoreError::Other) by `?`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownText(pub String);

impl fmt::Display for UnknownText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnknownText {}

macro_rules! text_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vm])* #[doc = concat!("Stored as `", $text, "`.")] #[serde(rename = $text)] $variant),+
        }
        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The text stored in the database (and used in event payloads).
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
        }
        impl FromStr for $name {
            type Err = UnknownText;
            fn from_str(s: &str) -> Result<Self, UnknownText> {
                match s {
                    $($text => Ok($name::$variant),)+
                    other => Err(UnknownText(format!(concat!("unknown ", stringify!($name), " {:?}"), other))),
                }
            }
        }
        impl TryFrom<String> for $name {
            type Error = UnknownText;
            fn try_from(s: String) -> Result<Self, UnknownText> { s.parse() }
        }
    };
}

pub use goban::Color;

/// A player's colour as stored: the SGF letter `"B"` or `"W"` (the `colour` columns of
/// `moves`, the `colour` of event payloads).
pub fn colour_text(c: Color) -> &'static str {
    match c {
        Color::Black => "B",
        Color::White => "W",
    }
}

/// The colour stored as `s` (`"B"` or `"W"`); other text is [`UnknownText`].
pub fn parse_colour(s: &str) -> Result<Color, UnknownText> {
    match s {
        "B" => Ok(Color::Black),
        "W" => Ok(Color::White),
        other => Err(UnknownText(format!("unknown Colour {other:?}"))),
    }
}

/// Serde of a [`Color`] as its stored text ([`colour_text`]), for `#[serde(with = …)]`.
pub mod colour_serde {
    use super::{colour_text, parse_colour, Color};
    use serde::{Deserialize, Deserializer, Serializer};

    /// `"B"` or `"W"`.
    pub fn serialize<S: Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(colour_text(*c))
    }

    /// From `"B"` or `"W"`; other text is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        let text = String::deserialize(d)?;
        parse_colour(&text).map_err(serde::de::Error::custom)
    }
}

/// Serde of an optional [`Color`] as its stored text or `null`, for `#[serde(with = …)]`.
pub mod opt_colour_serde {
    use super::{colour_text, parse_colour, Color};
    use serde::{Deserialize, Deserializer, Serializer};

    /// `"B"`, `"W"` or `null`.
    pub fn serialize<S: Serializer>(c: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
        match c {
            Some(c) => s.serialize_some(colour_text(*c)),
            None => s.serialize_none(),
        }
    }

    /// From `"B"`, `"W"` or `null`; other text is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Color>, D::Error> {
        match Option::<String>::deserialize(d)? {
            Some(text) => parse_colour(&text).map(Some).map_err(serde::de::Error::custom),
            None => Ok(None),
        }
    }
}

text_enum! {
    /// The state of a game: `playing` (moves may be recorded), `ended` (play has stopped:
    /// resignation 第六条, agreement or 第七条/第八条 count 第九条, time, ruling; the result is being
    /// confirmed), `final` (the result is final, 第十条; nothing about the game changes).
    GameState { Playing => "playing", Ended => "ended", Final => "final" }
}

text_enum! {
    /// 無勝負 policy of a tournament (第十一条 and its note): `no-result` (the game is 無勝負),
    /// `time-used` (decided on time used) or `nigiri` (decided by nigiri).
    NoResultPolicy { NoResult => "no-result", TimeUsed => "time-used", Nigiri => "nigiri" }
}

text_enum! {
    /// State of a result: `proposed` (awaiting confirmations), `final` (confirmed; never changes,
    /// 第十条), `superseded` (a proposal replaced by an amended one before finality).
    ResultState { Proposed => "proposed", Final => "final", Superseded => "superseded" }
}

text_enum! {
    /// Who confirms a result or objects: the player of a colour, the referee (立会人), or the chief
    /// arbiter / tournament director.
    Role { Black => "black", White => "white", Referee => "referee", Director => "director" }
}

text_enum! {
    /// Kind of an arbiter case: `foul` (第十二条, recorded by validation), `repetition` (a cycle
    /// found by the engine, 第十一条), `undecided` (adjudication could not decide, 第七条/第八条),
    /// `objection` (第十条2), `manual` (opened by a referee), `resumption` (a dispute about
    /// resuming play, 第九条).
    CaseKind {
        Foul => "foul",
        Repetition => "repetition",
        Undecided => "undecided",
        Objection => "objection",
        Manual => "manual",
        Resumption => "resumption",
    }
}

text_enum! {
    /// State of an arbiter case: `open` → `under_review` → `ruled` → `closed` (`open` may go
    /// straight to `ruled`, and `open`/`under_review` straight to `closed` when dismissed).
    CaseState { Open => "open", UnderReview => "under_review", Ruled => "ruled", Closed => "closed" }
}

impl CaseState {
    /// Whether a case may move from `self` to `to` (by review, ruling or closing).
    pub fn can_become(self, to: CaseState) -> bool {
        use CaseState::*;
        matches!(
            (self, to),
            (Open, UnderReview) | (Open, Ruled) | (Open, Closed) | (UnderReview, Ruled) | (UnderReview, Closed) | (Ruled, Closed)
        )
    }
}

/// Tournament settings, stored as the `settings` jsonb of a tournament.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TournamentSettings {
    /// What a 無勝負 ruling (第十一条) yields in this tournament.
    pub no_result_policy: NoResultPolicy,
    /// Any other settings (default rule set, required confirmations, ...), kept verbatim.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

impl Default for TournamentSettings {
    fn default() -> Self {
        TournamentSettings { no_result_policy: NoResultPolicy::NoResult, extra: Default::default() }
    }
}

/// A tournament.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tournament {
    /// Identifier.
    pub id: Uuid,
    /// Unique name (e.g. the SGF `EV`).
    pub name: String,
    /// Settings, including the 無勝負 policy.
    pub settings: TournamentSettings,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// A player as given to [`crate::Store::upsert_player`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewPlayer {
    /// Name as written on the pairing sheet.
    pub name: String,
    /// Rank, e.g. "5d", "3k", "9p"; free text.
    pub rank: Option<String>,
    /// Federation membership id (e.g. an EGD PIN); players with the same id are the same person.
    pub federation_id: Option<String>,
}

/// A stored player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct Player {
    /// Identifier.
    pub id: Uuid,
    /// Name.
    pub name: String,
    /// Rank, free text.
    pub rank: Option<String>,
    /// Federation membership id.
    pub federation_id: Option<String>,
}

/// A game as given to [`crate::Store::create_game`].
#[derive(Debug, Clone, PartialEq)]
pub struct NewGame {
    /// Tournament the game belongs to, if any.
    pub tournament_id: Option<Uuid>,
    /// Round number.
    pub round: Option<i32>,
    /// Table (board) number within the round; (tournament, round, table) is unique.
    pub table_number: Option<i32>,
    /// Black player (from [`crate::Store::upsert_player`]).
    pub black_player_id: Uuid,
    /// White player.
    pub white_player_id: Uuid,
    /// Board width in points (1..=52).
    pub board_width: i16,
    /// Board height in points (1..=52).
    pub board_height: i16,
    /// Komi in points (e.g. 6.5).
    pub komi: f64,
    /// Number of handicap stones (0 = none).
    pub handicap: i16,
    /// Rule set name, e.g. "japanese-2011" or "japanese-1989".
    pub rule_set: String,
    /// Setup stones and record properties, a JSON object, e.g. `{"AB":["dd","pp"]}`.
    pub setup: Value,
    /// The client's idempotency key for the call that creates the game, if any: a retry
    /// with the same key gives back this game ([`crate::Store::create_game`]).
    pub key: Option<GameKey>,
}

impl NewGame {
    /// A game between two stored players on 19x19 under `japanese-2011` with komi 6.5, no
    /// handicap, no setup, filed under no tournament and without a key: the usual start,
    /// the rest set with struct update syntax.
    pub fn between(black_player_id: Uuid, white_player_id: Uuid) -> NewGame {
        NewGame {
            tournament_id: None,
            round: None,
            table_number: None,
            black_player_id,
            white_player_id,
            board_width: 19,
            board_height: 19,
            komi: 6.5,
            handicap: 0,
            rule_set: "japanese-2011".into(),
            setup: Value::Object(Default::default()),
            key: None,
        }
    }
}

/// A client's idempotency key for creating a game, with a digest of its request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameKey {
    /// The key (1..=200 bytes), unique over all games.
    pub key: String,
    /// SHA-256 (32 bytes) of the request it was sent with: the same key with another
    /// request is refused.
    pub request_digest: Vec<u8>,
}

/// A game as [`crate::Store::create_game`] or [`crate::Store::import_game`] left it.
#[derive(Debug, Clone)]
pub struct Created {
    /// The game (for a replay: as stored now, with whatever was recorded since).
    pub game: Game,
    /// True when an earlier call with the same [`GameKey`] created it.
    pub replayed: bool,
}

/// A stored game with its two players.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Game {
    /// Identifier.
    pub id: Uuid,
    /// Tournament, if any.
    pub tournament_id: Option<Uuid>,
    /// Round number.
    pub round: Option<i32>,
    /// Table (board) number.
    pub table_number: Option<i32>,
    /// Black player.
    pub black: Player,
    /// White player.
    pub white: Player,
    /// Board width in points.
    pub board_width: i16,
    /// Board height in points.
    pub board_height: i16,
    /// Komi in points.
    pub komi: f64,
    /// Number of handicap stones.
    pub handicap: i16,
    /// Rule set name.
    pub rule_set: String,
    /// State of the game.
    pub state: GameState,
    /// Setup stones and record properties (JSON object).
    pub setup: Value,
    /// When the game was created.
    pub created_at: DateTime<Utc>,
    /// Number of moves recorded (= number of the last move; 0 if none).
    pub move_count: i32,
    /// Sequence number of the game's last event (0 if none).
    pub last_event_seq: i64,
}

/// A recorded move (moves are append-only, 第十条).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredMove {
    /// Game.
    pub game_id: Uuid,
    /// Move number, from 1.
    pub move_number: i32,
    /// Who played it (`"B"` or `"W"` when serialised).
    #[serde(with = "colour_serde")]
    pub colour: Color,
    /// SGF point ("dd": column letter then row letter, "aa" = top-left); `None` is a pass.
    pub point: Option<String>,
    /// The client's timestamp for the move, if given.
    pub client_time: Option<DateTime<Utc>>,
    /// Idempotency key the move was recorded with, if any.
    pub idempotency_key: Option<String>,
    /// Sequence number of the move's event in the game's log.
    pub event_seq: i64,
    /// When the server stored it.
    pub recorded_at: DateTime<Utc>,
}

/// An event of a game's hash-chained log (append-only, 第十条).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct StoredEvent {
    /// Game.
    pub game_id: Uuid,
    /// Sequence number within the game, from 1, without gaps.
    pub seq: i64,
    /// Kind, e.g. "game_created", "move", "foul", "resign", "result_proposed", "case_opened".
    pub kind: String,
    /// Payload (JSON).
    pub payload: Value,
    /// Server time of the event, microsecond precision.
    pub created_at: DateTime<Utc>,
    /// Hash of the previous event of the game (32 zero bytes for seq 1).
    pub prev_hash: Vec<u8>,
    /// SHA-256 of this event, see [`crate::chain::event_hash`].
    pub hash: Vec<u8>,
}

/// A result of a game (第九条–第十二条), see [`ResultState`].
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct StoredResult {
    /// Identifier.
    pub id: Uuid,
    /// Game.
    pub game_id: Uuid,
    /// State.
    #[sqlx(try_from = "String")]
    pub state: ResultState,
    /// SGF `RE` text: "B+3.5", "W+R", "0" (jigo), "Void" (無勝負), "B+F", "W+T", ...
    pub result: String,
    /// How the game ended: "resignation", "count", "time", "foul", "no-result", "both-lose", ...
    pub reason: String,
    /// Agreed or adjudicated statuses (JSON).
    pub statuses: Value,
    /// Anything else kept with the result (JSON object).
    pub detail: Value,
    /// Who proposed it.
    pub proposed_by: String,
    /// When it was proposed.
    pub created_at: DateTime<Utc>,
    /// When it became final.
    pub finalized_at: Option<DateTime<Utc>>,
    /// The earlier proposal this one amends.
    pub supersedes_result_id: Option<Uuid>,
    /// The final result this one corrects (federation correction after finality).
    pub corrects_result_id: Option<Uuid>,
}

/// A confirmation of a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct Confirmation {
    /// Result confirmed.
    pub result_id: Uuid,
    /// Role of the confirmer.
    #[sqlx(try_from = "String")]
    pub role: Role,
    /// Who confirmed (user id from the token).
    pub who: String,
    /// When.
    pub confirmed_at: DateTime<Utc>,
}

/// An arbiter case.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct Case {
    /// Identifier.
    pub id: Uuid,
    /// Game.
    pub game_id: Uuid,
    /// Kind.
    #[sqlx(try_from = "String")]
    pub kind: CaseKind,
    /// State.
    #[sqlx(try_from = "String")]
    pub state: CaseState,
    /// Evidence (JSON): move numbers, repeating sequence, positions, proofs, reconstruction.
    pub evidence: Value,
    /// De-duplication key given when it was opened.
    pub dedupe_key: Option<String>,
    /// Who opened it ("validation", "engine", "adjudicator" or a user id).
    pub opened_by: String,
    /// Why it was opened.
    pub opened_reason: String,
    /// When it was opened.
    pub opened_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// The ruling (JSON), once given.
    pub ruling: Option<Value>,
    /// Who ruled.
    pub ruled_by: Option<String>,
    /// When.
    pub ruled_at: Option<DateTime<Utc>>,
    /// Why (the written reason).
    pub ruling_reason: Option<String>,
    /// When it was closed.
    pub closed_at: Option<DateTime<Utc>>,
}

/// An objection (第十条2) and the appeal material attached to it.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct Objection {
    /// Identifier.
    pub id: Uuid,
    /// Game.
    pub game_id: Uuid,
    /// The proposed result objected to, if any.
    pub result_id: Option<Uuid>,
    /// The objecting player's colour role (black or white).
    #[sqlx(try_from = "String")]
    pub role: Role,
    /// Who objected.
    pub who: String,
    /// The reason given.
    pub reason: String,
    /// When.
    pub created_at: DateTime<Utc>,
    /// The arbiter case (kind `objection`) the objection opened.
    pub case_id: Uuid,
    /// The reconstruction of the game (対局の再現), once attached.
    pub reconstruction: Option<Value>,
    /// The new adjudication, once attached.
    pub adjudication: Option<Value>,
}
