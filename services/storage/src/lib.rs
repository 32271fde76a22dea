//! # shinpan-storage — the persistence of shinpan (審判)
//!
//! PostgreSQL (through sqlx 0.9) holds tournaments, players, games, moves, the hash-chained
//! event log of every game, results with their confirmations, objections and arbiter cases. Every
//! query the services run lives in this crate; services never write SQL.
//!
//! ## Using it
//!
//! ```ignore
//! use shinpan_storage::{Store, StoreError, GameWrite, Color, NewPlayer, NewGame};
//! let store = Store::connect(&database_url).await?;          // pool + migrations
//! let b = store.upsert_player(&NewPlayer { name: "Honinbo Shusaku".into(), ..Default::default() }).await?;
//! // A retry with the same `key` (a client's idempotency key) gives back the same game.
//! let game = store.create_game(&NewGame { /* players, 19x19, komi 6.5, "japanese-2011", key */ }).await?.game;
//! // RecordMove: exactly once, idempotent, hash-chained
//! let out = store.write(GameWrite::new_move(game.id, 1, Color::Black, Some("pd")).with_key("k1")).await?;
//! match store.write(GameWrite::new_move(game.id, 1, Color::White, Some("dp"))).await {
//!     Err(StoreError::Conflict { current_move_number, .. }) => assert_eq!(current_move_number, 1),
//!     _ => unreachable!(),
//! }
//! // WatchGame
//! let mut events = store.watch(game.id, 0).await?;   // Stream<Item = Result<StoredEvent, StoreError>>
//! ```
//!
//! ## API map
//!
//! | area | methods |
//! |---|---|
//! | setup | [`Store::connect`], [`Store::connect_with`] (pool size), [`Store::new`] + [`migrate`], [`MIGRATOR`], [`Store::ping`], [`embedded::EmbeddedPostgres`] (Unix socket + TCP) |
//! | tournaments | [`Store::create_tournament`], [`Store::ensure_tournament`], [`Store::get_tournament`], [`Store::find_tournament`], [`Store::list_tournaments`], [`Store::update_tournament_settings`] (無勝負 policy) |
//! | players | [`Store::upsert_player`], [`Store::get_player`] |
//! | games | [`Store::create_game`], [`Store::import_game`] (a whole record, atomically), [`Store::get_game`], [`Store::list_games`], [`Store::moves`], [`Store::set_game_state`] |
//! | recording | [`Store::write`] ([`GameWrite`]: move / foul / resign, exactly once, idempotency key), [`Store::write_locking`], [`Store::append_move_with_event`] |
//! | event log | [`Event`] (the typed events, the audit format), [`Store::append_event`], [`Store::events_since`], [`Store::get_event`], [`Store::watch`] (live, across processes via LISTEN/NOTIFY) |
//! | audit | [`Store::verify_chain`], [`Store::verify_all`] → [`chain::ChainReport`] (first broken link per game; [`facts`]: the game's own facts) |
//! | results (第十条) | [`Store::propose_result`], [`Store::confirm_result`], [`Store::finalize_result`], [`Store::correct_result`], [`Store::get_result`], [`Store::results_of_game`], [`Store::current_result`], [`Store::confirmations`], [`Store::final_results`] |
//! | objections (第十条2) | [`Store::object`], [`Store::attach_appeal_material`], [`Store::get_objection`], [`Store::objection_of_case`], [`Store::objections`] |
//! | arbiter cases | [`Store::open_case`], [`Store::get_case`], [`Store::list_cases`], [`Store::add_case_evidence`], [`Store::set_case_state`], [`Store::rule_case`] |
//! | tests | feature `testing`: `test_cluster!`, `testing::fresh_pool`, `testing::fresh_store` |
//!
//! ## Semantics the services rely on
//!
//! * **Move numbers** start at 1. "Current move number" = moves recorded so far (0 for a new
//!   game). A write with `expected_move_number = n` succeeds only if `n - 1` moves are recorded;
//!   otherwise [`StoreError::Conflict`] `{ current_move_number, expected }` (→ `FAILED_PRECONDITION`).
//! * **Exactly once**: each game row keeps the head of its log (move count, last event's seq and
//!   hash). A write is computed against the head and applied by one statement that advances the
//!   head only if it is unchanged (compare-and-swap) and inserts event, move and idempotency
//!   record together; a lost race re-reads and re-checks, and after a few lost races the write
//!   takes the row lock ([`Store::write_locking`]). Result and case operations lock the game row.
//!   So all writes of a game are serialized and its log is one chain; a crash before commit
//!   stores nothing; a retry with the same idempotency key returns the stored outcome
//!   (`replayed = true`), never a second row.
//! * **Group commit** ([`batch`]): the compare-and-swap writes of different games issued at the
//!   same moment are applied by one statement in one transaction (one commit, one WAL flush),
//!   each with its own compare-and-swap and its own answer, given after the commit. Besides its
//!   pool, a [`Store`] opened with [`Store::connect`] keeps two connections of its own: the batch
//!   writer's and the NOTIFY sender's.
//! * **Fouls** (第十二条): `GameWrite::event_only(game, n, Event::Foul { .. })` stores the foul event
//!   only; the board is unchanged. Open the arbiter case with [`Store::open_case`] (kind
//!   `foul`, `dedupe_key` e.g. `"foul:<move number>"`).
//! * **Event log**: events are numbered per game from 1 (`seq`), the first is `game_created`
//!   (written by [`Store::create_game`]), which records the game's facts: players (name, rank,
//!   federation id), rule set, komi, handicap, setup, board size, tournament, round and board
//!   ([`facts`]). The hash chain is defined in [`chain`]. Move events carry `"move": {"number",
//!   "colour", "point"}`; result and case events carry `result_id` / `case_id`. `verify_*` also
//!   cross-checks moves, results, confirmations, cases, objections and the game's facts
//!   against their events.
//! * **Immutability** (第十条), enforced by database triggers (SQLSTATE `SH010` →
//!   [`StoreError::Immutable`]): moves and events reject UPDATE/DELETE/TRUNCATE always; a result
//!   that is `final` (or `superseded`) and its confirmations never change; a final game's row
//!   never changes; cases are never deleted, a ruling is never rewritten, a closed case never
//!   changes. A correction after finality is a new result row linked by `corrects_result_id`.
//! * **Live streams**: after each commit the store wakes this process's watchers and sends
//!   `NOTIFY shinpan_events` (payload `"<game>:<seq>,…"`) for other processes, outside the writing
//!   transaction (a NOTIFY inside it would serialize all commits, see [`watch`]); [`Store::watch`]
//!   turns that into a gap-free stream per game that also polls every [`watch::POLL_INTERVAL`].
//! * **Errors**: one enum, [`StoreError`]; its docs give the gRPC code for each variant. Connection
//!   failures are [`StoreError::Unavailable`], and so is a database that is a standby in
//!   recovery: the store only uses a primary ([`primary`]) and comes back by itself when the
//!   URL leads to one again.
//!
//! ## Compile-time checked queries
//!
//! Every query of the library but two is written with `sqlx::query!`, `query_as!` or
//! `query_scalar!`, and so checked against the schema when the crate is built: against the
//! database at `DATABASE_URL` when it is set at build time (it must hold every migration), else
//! against the descriptions kept in `services/storage/.sqlx/` (`SQLX_OFFLINE=true` forces
//! these, as CI does). After adding or changing such a query, refresh them from a migrated
//! database:
//!
//! ```text
//! rm services/storage/.sqlx/*.json; touch services/storage/src/lib.rs
//! DATABASE_URL=postgres://…/migrated SQLX_OFFLINE_DIR=$PWD/services/storage/.sqlx \
//!     cargo check -p shinpan-storage --all-targets
//! ```
//!
//! Bind parameters that are arrays of borrowed or nullable elements (`Vec<&str>`,
//! `Vec<Option<i32>>`) are passed `as _`: the macros check their SQL types only for arrays of
//! owned, non-null elements. Rows with enums stored as text ([`Case`], [`StoredResult`],
//! [`Objection`], [`Confirmation`], [`StoredMove`], [`Game`]) are read into private row types
//! that hold the columns' own types and are then parsed; an unknown text is
//! [`StoreError::Other`]. The two queries built at run time are the `CREATE DATABASE` statements
//! of [`EmbeddedPostgres::ensure_database`] and `testing::fresh_pool`: a database's name is an
//! identifier, which cannot be a bind parameter; the tests check them.

#![warn(missing_docs)]

pub mod batch;
pub mod cases;
pub mod chain;
pub mod embedded;
mod error;
pub mod event;
pub mod facts;
pub mod model;
pub mod primary;
pub mod results;
mod rows;
mod store;
#[cfg(feature = "testing")]
pub mod testing;
pub mod watch;

pub use cases::{CaseFilter, NewCase};
pub use chain::{BreakKind, ChainBreak, ChainHead, ChainReport};
pub use embedded::{EmbeddedError, EmbeddedOptions, EmbeddedPostgres};
pub use error::{Exists, Immutability, Precondition, StoreError, StoreResult, SQLSTATE_IMMUTABLE};
pub use event::Event;
pub use model::*;
pub use results::{Confirmed, NewObjection, NewResult};
pub use store::{GameEnd, GameWrite, ImportedMove, NewMove, Store, WriteOutcome, PING_IDLE_AFTER};
pub use watch::{EventStream, CHANNEL};

/// The migrations of the top-level `migrations/` directory, embedded at compile time.
/// Use with `#[sqlx::test(migrator = "shinpan_storage::MIGRATOR")]`.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations");

/// Apply all pending migrations to `pool` (idempotent; concurrent callers are serialized by
/// sqlx's migration lock). Errors: [`StoreError::Unavailable`] when the server cannot be reached,
/// [`StoreError::Other`] when a migration fails or a applied migration was changed.
pub async fn migrate(pool: &sqlx::PgPool) -> StoreResult<()> {
    MIGRATOR.run(pool).await?;
    Ok(())
}
