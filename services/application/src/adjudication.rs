//! The use cases behind `AdjudicationService` (`shinpan.v1.AdjudicationService`): life and
//! death of a final position by hypothetical play (想定着手, 第七条; engine: crate
//! `shinpan-adjudicator`), then territory (第八条), prisoners (第十条), score and result.
//!
//! The position comes from one of:
//! * a stored game (`game_id`): the game reconstructed from its recorded moves (as the
//!   results services do, [`games::reconstruct`]), adjudicated after its last move with the
//!   game's rule set and komi; a ko taken by the last move stays pending (第五条). The
//!   adjudication is appended to the game's hash-chained event log as an event of kind
//!   `adjudicated` (payload: `result`, `rule_set`, `komi`, `move_number`, `nodes`,
//!   `statuses` = `{"dead": [...], "seki": [...], "undecided": [...]}` in SGF points) and
//!   its sequence number returned. If a stone is left undecided, the automatic arbiter case
//!   of kind `undecided` is opened (one per move number, shared with the results services);
//! * an SGF record (`sgf`): the main line replayed; a foul (第十二条) is
//!   `FAILED_PRECONDITION` with the `FOUL` error details of [`AppError::Foul`];
//! * a bare position (`board`): adjudicated as it stands, with `ko_point` pending for
//!   `to_move`.
//!
//! Agreements (第九条): the agreed statuses stand (every chain not named is agreed alive)
//! except for the chains named in `disputed`; the engine still examines every chain and
//! returns every agreement it refutes. `budget_nodes` is the node budget per region
//! (0 = [`DEFAULT_BUDGET`]; at most the server's `--max-budget`, else `INVALID_ARGUMENT`);
//! a region not decided within it leaves its chains `UNDECIDED` and the result `?` — never
//! a guess. Searches run one per core at a time; the others wait for a core.
//!
//! Every search is bounded in time and memory ([`SearchLimits`]): `budget_ms` milliseconds
//! from the moment it gets a core (0 = the server's `--max-search-seconds`; more is
//! `INVALID_ARGUMENT`), and the server's `--max-search-memory` for its tables. A search that
//! reaches either stops and leaves what it has not decided `UNDECIDED`, its proofs' `reason`
//! naming the limit ("time budget exhausted", "memory cap of N MiB reached"). A call that
//! ends before its search — the client cancels, or the call's deadline (`grpc-timeout`)
//! passes: `DEADLINE_EXCEEDED` — stops the search within a few milliseconds of search
//! ([`shinpan_adjudicator::Stop`]); nothing is recorded then.
//!
//! `Propose` takes the same request without agreements or disputed chains and answers with an
//! advisory proposal for the players' agreement (第九条): the chains the search decides are
//! `proved`, the others get the status of the estimator ([`crate::estimate::GnuGo`]: GNU Go
//! as env `GNUGO`, else `gnugo` on `PATH`, else `/usr/games/gnugo`, at the default levels
//! and time limit, [`crate::estimate::default_estimator`]), counted as [`crate::proposal`] says. It is never a ruling: nothing is stored,
//! no case is opened (the count of the results services still rules by the proved statuses
//! alone and opens a case for an undecided one); the estimator's failure leaves the unproved
//! chains `UNDECIDED` and is reported in the response. Behind tokens any valid token may ask
//! for a proposal, of a stored game too (it reads the game as `GetGame` does and writes
//! nothing).
//!
//! Who may call it: anyone when the service is open (`--auth results`, the default). Behind
//! tokens (`--auth all`) any valid token may adjudicate an SGF record or a bare position
//! (nothing is stored), but a stored game only by its players and its officials (referee or
//! chief arbiter of its tournament, federation admin: [`crate::auth::Claims::may_propose`]),
//! because that appends an event to the game and may open an arbiter case; anyone else —
//! an archive reader (read-only), a player of another game — gets `PERMISSION_DENIED`.
//!
//! The use cases take the request decoded ([`Adjudicate`]: points, colours, statuses and the
//! rule set read by the transport) and answer in the domain's types ([`Adjudicated`],
//! [`Proposed`], [`Progress`]); the protocol's form is the transport's.
//!
//! Errors: `INVALID_ARGUMENT` (field violations) for a bad point, rule set, status, SGF or
//! board; `NOT_FOUND` for an unknown game; `PERMISSION_DENIED` as above; `UNAVAILABLE`
//! without a database (stored games only).

use crate::auth::Claims;
use crate::convert;
use crate::error::AppError;
use crate::games::GameCtx;
use crate::validation::Position;
use crate::{games, validation, AppState};
use goban::{Board, Color, Move, Point, RuleSet, Score, Status as StoneStatus, StatusMap};
use serde_json::{json, Value};
use shinpan_adjudicator::{adjudicate_with_progress, Adjudication, Options, RegionReport, Stop};
use shinpan_storage::{self as storage, NewCase};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Default node budget per region when the request gives 0 ([`crate::DEFAULT_BUDGET`]).
pub use crate::DEFAULT_BUDGET;

/// The server's bounds on every adjudication's search (`shinpan serve --max-search-seconds`
/// and `--max-search-memory`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimits {
    /// The longest one adjudication searches (wall time from the moment it gets a core), and
    /// the largest `budget_ms` a request may ask for.
    pub max_time: Duration,
    /// Memory cap of one search's tables, in bytes ([`Options::max_memory_bytes`]).
    pub max_memory_bytes: u64,
}

/// Stops a search when dropped: held by the future that awaits the search, so that a call
/// dropped before its search ends (client gone, deadline passed) stops it.
struct StopOnDrop(Stop);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Runs `fut` within the call's deadline `timeout` (none: as long as it takes): when it
/// passes, `fut` is dropped (which stops its search) and the call ends with
/// `DEADLINE_EXCEEDED`.
async fn within<T>(timeout: Option<Duration>, fut: impl std::future::Future<Output = Result<T, AppError>>) -> Result<T, AppError> {
    match timeout {
        None => fut.await,
        Some(t) => tokio::time::timeout(t, fut).await.unwrap_or_else(|_| {
            Err(AppError::deadline(format!("the call's deadline ({} ms, grpc-timeout) passed: the search was stopped", t.as_millis())))
        }),
    }
}

/// Where the position to adjudicate comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A stored game, adjudicated after its last move.
    Game(Uuid),
    /// An SGF record (main line, at most [`crate::limits::MAX_SGF_BYTES`]), replayed.
    Sgf(String),
    /// A bare position, adjudicated as it stands (its points on its board).
    Board(Position),
}

/// An agreement of the players on the status of some chains (第九条).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreement {
    /// A stone of each chain agreed (at least one; SGF-valid points, checked against the
    /// position's board by the use case).
    pub stones: Vec<Point>,
    /// The agreed status.
    pub status: StoneStatus,
}

/// `Adjudicate` (and `Propose`, `AdjudicateStream`): the position, its rules and the bounds
/// of the search.
#[derive(Clone, Debug, PartialEq)]
pub struct Adjudicate {
    /// The position.
    pub source: Source,
    /// A rule set overriding the game's, the record's (`RU[]`) or the default `japanese-2011`.
    pub rules: Option<RuleSet>,
    /// Komi (points added to White) overriding the game's, the record's or the rule set's
    /// default; within [`crate::limits::komi`].
    pub komi: Option<f64>,
    /// The players' agreements (every chain not named is agreed alive); none = no agreement.
    pub agreements: Vec<Agreement>,
    /// A stone of each chain in dispute (field `disputed[i]`).
    pub disputed: Vec<Point>,
    /// Node budget per region; 0 = [`DEFAULT_BUDGET`]; at most the server's `--max-budget`.
    pub budget_nodes: u64,
    /// Search time in milliseconds; 0 = the server's `--max-search-seconds`, which is also
    /// the most it may ask.
    pub budget_ms: u64,
}

impl Adjudicate {
    /// An adjudication of the stored game `id` after its last move, with its own rule set and
    /// komi, no agreement, no dispute and the default budgets.
    pub fn game(id: Uuid) -> Adjudicate {
        Adjudicate {
            source: Source::Game(id),
            rules: None,
            komi: None,
            agreements: Vec::new(),
            disputed: Vec::new(),
            budget_nodes: 0,
            budget_ms: 0,
        }
    }
}

/// A final position ready for adjudication: what the request named, resolved.
#[derive(Clone, Debug)]
pub struct Subject {
    /// The position.
    pub board: Board,
    /// Rule set of the adjudication and the count.
    pub rules: RuleSet,
    /// Komi (points added to White).
    pub komi: f64,
    /// The player to move in the position.
    pub to_move: Color,
    /// The point `to_move` may not play at once because of ko (第五条), if any.
    pub ko_pending: Option<Point>,
    /// Prisoners taken during play `[by black, by white]`.
    pub prisoners: [u32; 2],
    /// Passes `[black, white]` (counted under some rule sets).
    pub passes: [u32; 2],
    /// Moves played (the event payload's `move_number`).
    pub move_number: u32,
    /// The stored game, when the request named one.
    pub game: Option<GameCtx>,
    /// Engine options (budget, agreements, disputed chains, ko, side to move, memory cap).
    pub options: Options,
    /// The search's time budget, from the moment it gets a core (`budget_ms`, else the
    /// server's maximum).
    pub time_budget: Duration,
}

/// The number of a status in the stored evidence of an `undecided` case (the protocol's
/// `ChainStatus` numbering: 1 alive, 2 dead, 3 seki, 4 undecided).
pub fn status_code(s: StoneStatus) -> i32 {
    match s {
        StoneStatus::Alive => 1,
        StoneStatus::Dead => 2,
        StoneStatus::Seki => 3,
        StoneStatus::Undecided => 4,
    }
}

/// A foul in a record to adjudicate: `FAILED_PRECONDITION` (the record has no legal final
/// position) with the same `FOUL` details as [`AppError::Foul`] (rule, article,
/// move_number, color, point).
fn foul_status(f: &goban::Foul) -> AppError {
    AppError::FoulInRecord(convert::foul_info(f))
}

/// A bare position as a board; errors name `board.*`.
///
/// # Errors
/// `INVALID_ARGUMENT`: a board not square (`board.height`), two stones on one point, or a
/// chain without liberties (第四条: it would have been removed).
fn board_of(pos: &Position) -> Result<Board, AppError> {
    let (width, height) = (pos.width, pos.height);
    if width != height {
        return Err(AppError::field("board.height", format!("only square boards are adjudicated ({width}x{height} given)")));
    }
    let mut board = Board::new(width, height).map_err(|e| AppError::field("board.width", e.to_string()))?;
    for (field, color, stones) in [("board.black", Color::Black, &pos.black), ("board.white", Color::White, &pos.white)] {
        for &p in stones {
            if board.get(p).is_some() {
                return Err(AppError::field(field, format!("two stones on {}", p.to_sgf())));
            }
            board.set(p, Some(color)).map_err(|e| AppError::field(field, e.to_string()))?;
        }
    }
    // A position reached by play has no chain without liberties (第四条: such a chain is
    // removed the moment it loses its last liberty).
    for p in board.points().collect::<Vec<_>>() {
        if let Some(c) = board.get(p) {
            if board.liberty_count(p) == 0 {
                let field = if c == Color::Black { "board.black" } else { "board.white" };
                return Err(AppError::field(
                    field,
                    format!("the chain at {} has no liberty (第四条: it would have been removed)", p.to_sgf()),
                ));
            }
        }
    }
    Ok(board)
}

/// A stone point of `board` named by `field`.
fn stone_at(field: &str, p: Point, board: &Board) -> Result<Point, AppError> {
    crate::validation::on_board(field, Move::Play(p), board.width() as u32, board.height() as u32)?;
    if board.get(p).is_none() {
        return Err(AppError::field(field, format!("no stone on {}", p.to_sgf())));
    }
    Ok(p)
}

/// A replayed game's final position: (board, player to move, 第五条 ko point, prisoners
/// `[by black, by white]`, passes `[black, white]`, moves played).
#[allow(clippy::type_complexity)]
fn after_play(g: &goban::Game) -> (Board, Color, Option<Point>, [u32; 2], [u32; 2], u32) {
    let both = |f: &dyn Fn(Color) -> u32| [f(Color::Black), f(Color::White)];
    (g.board().clone(), g.to_move(), g.ko_point(), both(&|c| g.prisoners(c)), both(&|c| g.passes(c)), g.move_number())
}

/// Resolves a request to a [`Subject`] (loading and reconstructing a stored game).
///
/// # Errors
/// As the module docs: INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION (foul),
/// UNAVAILABLE.
pub async fn subject(state: &AppState, req: &Adjudicate) -> Result<Subject, AppError> {
    if req.budget_nodes > state.max_budget_nodes {
        return Err(AppError::field(
            "budget_nodes",
            format!("at most {} nodes per region on this server (shinpan serve --max-budget)", state.max_budget_nodes),
        ));
    }
    let max_ms = u64::try_from(state.search_limits.max_time.as_millis()).unwrap_or(u64::MAX);
    if req.budget_ms > max_ms {
        return Err(AppError::field(
            "budget_ms",
            format!("at most {max_ms} ms of search on this server (shinpan serve --max-search-seconds)"),
        ));
    }
    let time_budget = if req.budget_ms == 0 { state.search_limits.max_time } else { Duration::from_millis(req.budget_ms) };
    if let Some(k) = req.komi {
        crate::limits::komi("komi", k)?;
    }
    let (board, rules, komi, to_move, ko, prisoners, passes, move_number, ctx) = match &req.source {
        Source::Game(uuid) => {
            let uuid = *uuid;
            let store = state.store()?;
            let ctx = match games::load_game(store, uuid).await {
                Ok(c) => c,
                Err(AppError::Store(shinpan_storage::StoreError::NotFound(_))) => {
                    return Err(AppError::NotFound { kind: "game", id: uuid.to_string() })
                }
                Err(e) => return Err(e),
            };
            let recon = games::reconstruct(store, &ctx).await?;
            let rules = req.rules.unwrap_or(recon.rules);
            let komi = req.komi.unwrap_or(ctx.game.komi);
            let (board, to_move, ko, prisoners, passes, move_number) = after_play(&recon.replayed.game);
            (board, rules, komi, to_move, ko, prisoners, passes, move_number, Some(ctx))
        }
        Source::Sgf(text) => {
            crate::limits::check(&[("sgf", text, crate::limits::MAX_SGF_BYTES)])?;
            let (record, recorded_rules) = validation::parse_sgf("sgf", text, "")?;
            let rules = req.rules.unwrap_or(recorded_rules);
            if record.width != record.height {
                return Err(AppError::field("sgf", "only square boards are adjudicated"));
            }
            let replayed = record.to_game(rules).map_err(|e| AppError::field("sgf", e.to_string()))?;
            if let Some(f) = &replayed.foul {
                return Err(foul_status(f));
            }
            let komi = match req.komi {
                Some(k) => k,
                None => crate::limits::komi("sgf", record.komi_or_default(rules))?,
            };
            let (board, to_move, ko, prisoners, passes, move_number) = after_play(&replayed.game);
            (board, rules, komi, to_move, ko, prisoners, passes, move_number, None)
        }
        Source::Board(pos) => {
            let board = board_of(pos)?;
            let rules = req.rules.unwrap_or(RuleSet::Japanese2011);
            let komi = req.komi.unwrap_or_else(|| rules.default_komi(board.width(), board.height()));
            (board, rules, komi, pos.to_move, pos.ko_point, [0, 0], [0, 0], 0, None)
        }
    };
    let agreed = if req.agreements.is_empty() {
        None
    } else {
        let mut m = StatusMap::new(&board);
        for (i, a) in req.agreements.iter().enumerate() {
            if a.stones.is_empty() {
                return Err(AppError::field(format!("agreements[{i}].stones"), "name at least one stone"));
            }
            for (j, &s) in a.stones.iter().enumerate() {
                let p = stone_at(&format!("agreements[{i}].stones[{j}]"), s, &board)?;
                m.set_chain(&board, p, a.status);
            }
        }
        Some(m)
    };
    let dispute =
        req.disputed.iter().enumerate().map(|(i, &s)| stone_at(&format!("disputed[{i}]"), s, &board)).collect::<Result<Vec<_>, _>>()?;
    let options = Options {
        budget_nodes: if req.budget_nodes == 0 { DEFAULT_BUDGET } else { req.budget_nodes },
        agreed,
        dispute,
        ko_pending: ko,
        to_move,
        max_memory_bytes: state.search_limits.max_memory_bytes,
        ..Options::default()
    };
    Ok(Subject { board, rules, komi, to_move, ko_pending: ko, prisoners, passes, move_number, game: ctx, options, time_budget })
}

/// Runs the search of `subject` off the async runtime (`spawn_blocking`, one per core:
/// [`AppState::search`]), reporting every region solved to `progress`. The search stops at
/// `subject.time_budget` after it starts, at its memory cap, or when the returned future is
/// dropped before it ends.
///
/// # Errors
/// INTERNAL if the search task panics.
pub async fn search(
    state: &AppState,
    subject: &Subject,
    progress: impl FnMut(&RegionReport) + Send + 'static,
) -> Result<Adjudication, AppError> {
    let board = subject.board.clone();
    let rules = subject.rules;
    let (mut opts, _stop_on_drop) = stoppable(subject);
    let budget = subject.time_budget;
    let mut progress = progress;
    state
        .search(move || {
            opts.deadline = Some(Instant::now() + budget);
            adjudicate_with_progress(&board, rules, &opts, &mut progress)
        })
        .await
}

/// `subject`'s options with a fresh stop flag, and the guard that sets it when dropped.
fn stoppable(subject: &Subject) -> (Options, StopOnDrop) {
    let stop = Stop::new();
    (Options { stop: Some(stop.clone()), ..subject.options.clone() }, StopOnDrop(stop))
}

/// The count of `board` with the statuses `status` (第八条・第十条): territory, dame,
/// prisoners, scores and result under `subject`'s rules, komi, prisoners and passes.
fn count(subject: &Subject, status: &StatusMap) -> Score {
    goban::score(&subject.board, status, subject.prisoners, subject.passes, subject.komi, subject.rules)
}

/// The answer to `Adjudicate`: the position adjudicated, the engine's adjudication (every
/// stone's status, proofs, refuted agreements, chains drawn into a dispute, regions with
/// their nodes) and the count with those statuses (第八条・第十条).
#[derive(Clone, Debug)]
pub struct Adjudicated {
    /// The position, its rules, komi and search options (and the stored game, if any).
    pub subject: Subject,
    /// The engine's adjudication.
    pub adjudication: Adjudication,
    /// The count with the adjudication's statuses.
    pub count: Score,
    /// Sequence number of the `adjudicated` event appended to the stored game's log; `None`
    /// when nothing was stored (a record or a bare position).
    pub sequence: Option<u64>,
}

impl Adjudicated {
    /// Nodes searched, over every region.
    pub fn nodes(&self) -> u64 {
        self.adjudication.regions.iter().map(|r| r.nodes).sum()
    }
}

/// The answer to `Propose` (第九条): the position, the advisory proposal (each chain's
/// status with its basis and source, the estimator's outcome) and the count with the
/// proposal's statuses.
#[derive(Clone, Debug)]
pub struct Proposed {
    /// The position, its rules and komi.
    pub subject: Subject,
    /// The proposal.
    pub proposal: crate::proposal::Proposal,
    /// The count with the proposal's statuses (第八条・第十条).
    pub count: Score,
}

impl Proposed {
    /// Nodes searched, over every region.
    pub fn nodes(&self) -> u64 {
        self.proposal.adjudication.regions.iter().map(|r| r.nodes).sum()
    }
}

/// One message of `AdjudicateStream`.
#[derive(Clone, Debug)]
pub enum Progress {
    /// A region solved.
    Region {
        /// Regions solved so far (1-based).
        done: u32,
        /// Regions to solve.
        total: u32,
        /// Nodes searched so far, over every region.
        nodes: u64,
    },
    /// The last message: the adjudication, as [`adjudicate`] answers it.
    Done(Box<Adjudicated>),
}

/// For a stored game: appends the `adjudicated` event (sets `out.sequence`) and, when a
/// stone is undecided, opens (or finds) the game's `undecided` arbiter case for this move
/// number (dedupe key `undecided:<move_number>`, as the results services use).
///
/// # Errors
/// The store's errors ([`AppError::Store`], mapped by `shinpan::error::store_status`).
pub async fn record(state: &AppState, out: &mut Adjudicated) -> Result<(), AppError> {
    let (subject, adj) = (&out.subject, &out.adjudication);
    let Some(ctx) = &subject.game else { return Ok(()) };
    let store = state.store()?;
    let board = &subject.board;
    let pts = |s: StoneStatus| adj.status.stones_with(board, s).iter().map(|p| p.to_sgf()).collect::<Vec<_>>();
    let statuses = json!({
        "dead": pts(StoneStatus::Dead),
        "seki": pts(StoneStatus::Seki),
        "undecided": pts(StoneStatus::Undecided),
    });
    let result = out.count.result.to_sgf();
    let nodes = out.nodes();
    let event = storage::Event::Adjudicated(storage::event::Adjudication {
        result: result.clone(),
        rule_set: subject.rules.name().to_string(),
        komi: subject.komi,
        move_number: subject.move_number,
        nodes,
        statuses: storage::event::AdjudicatedStatuses {
            dead: pts(StoneStatus::Dead),
            seki: pts(StoneStatus::Seki),
            undecided: pts(StoneStatus::Undecided),
        },
        score: storage::event::Score { black: out.count.score[0], white: out.count.score[1] },
        agreements: subject.options.agreed.is_some(),
        refuted: adj.refuted_agreements.len() as u64,
    });
    let ev = store.append_event(ctx.game.id, &event).await.map_err(AppError::from)?;
    let sequence = ev.seq.max(0) as u64;
    if adj.undecided(board) {
        let proofs: Vec<Value> = adj
            .proofs
            .iter()
            .map(|p| {
                let stones: Vec<String> = p.stones.iter().map(|s| s.to_sgf()).collect();
                let reason = p.undecided.map(|u| u.to_string()).unwrap_or_default();
                json!({"stones": stones, "status": status_code(p.status), "line": p.line_text(), "nodes": p.nodes, "reason": reason})
            })
            .collect();
        let (case, _) = store
            .open_case(&NewCase {
                game_id: ctx.game.id,
                kind: storage::CaseKind::Undecided,
                evidence: json!({"statuses": statuses, "proofs": proofs, "move_numbers": [subject.move_number], "adjudicated_sequence": sequence}),
                opened_by: "adjudicator".into(),
                reason: "life and death could not be decided within the search budget (第七条): the arbiter rules".into(),
                dedupe_key: Some(format!("undecided:{}", subject.move_number)),
            })
            .await
            .map_err(AppError::from)?;
        tracing::info!(game = %ctx.game.id, case = %case.id, "adjudication undecided: arbiter case open");
    }
    tracing::info!(game = %ctx.game.id, result = %result, nodes, sequence, "adjudicated");
    out.sequence = Some(sequence);
    Ok(())
}

/// Resolves the request's subject and, behind tokens (claims present), checks that the
/// caller may record an adjudication of it (module docs: a stored game only by its players
/// and officials).
///
/// # Errors
/// As [`subject`], and `PERMISSION_DENIED` for a stored game the caller neither plays nor
/// officiates.
async fn permitted_subject(state: &AppState, claims: Option<&Claims>, req: &Adjudicate) -> Result<Subject, AppError> {
    let subject = subject(state, req).await?;
    if let (Some(c), Some(ctx)) = (claims, &subject.game) {
        if !c.may_propose(&ctx.scope) {
            return Err(crate::denied(
                c,
                "adjudicate a stored game they neither play nor officiate (the adjudication is recorded as an event of the game)",
            ));
        }
    }
    Ok(subject)
}

/// Adjudicates the position a request names (`Adjudicate`, see the module docs) within the
/// call's deadline `timeout` (none: as long as the search takes), and records it for a
/// stored game. Behind tokens (`claims`) a stored game only by its players and officials.
///
/// # Errors
/// As [`subject`], `PERMISSION_DENIED`, `DEADLINE_EXCEEDED`, store errors.
pub async fn adjudicate(
    state: &AppState,
    claims: Option<&Claims>,
    req: &Adjudicate,
    timeout: Option<Duration>,
) -> Result<Adjudicated, AppError> {
    within(timeout, async {
        let subject = permitted_subject(state, claims, req).await?;
        let adjudication = search(state, &subject, |_| {}).await?;
        let count = count(&subject, &adjudication.status);
        let mut out = Adjudicated { subject, adjudication, count, sequence: None };
        record(state, &mut out).await?;
        Ok(out)
    })
    .await
}

/// An advisory proposal for the players' agreement (`Propose`, 第九条): the proved statuses
/// completed by the estimator's, within the call's deadline `timeout`. Nothing is stored.
///
/// # Errors
/// `INVALID_ARGUMENT` for a request with agreements or disputed chains; as [`subject`];
/// `DEADLINE_EXCEEDED`.
pub async fn propose(state: &AppState, req: &Adjudicate, timeout: Option<Duration>) -> Result<Proposed, AppError> {
    if !req.agreements.is_empty() || !req.disputed.is_empty() {
        return Err(AppError::field(
            if req.agreements.is_empty() { "disputed" } else { "agreements" },
            "a proposal is made without agreements (it is what an agreement starts from); use Adjudicate",
        ));
    }
    within(timeout, async {
        let subject = subject(state, req).await?;
        let estimator = crate::estimate::default_estimator();
        let s = subject.clone();
        let (mut options, _stop_on_drop) = stoppable(&subject);
        // The search takes a core (AppState::search); the estimator runs next to it on a
        // thread of its own, inside `propose`.
        let proposal = state
            .search(move || {
                options.deadline = Some(Instant::now() + s.time_budget);
                let p = crate::proposal::Subject {
                    board: &s.board,
                    rules: s.rules,
                    komi: s.komi,
                    prisoners: s.prisoners,
                    passes: s.passes,
                    options,
                };
                crate::proposal::propose(&p, Some(estimator.as_ref()), None)
            })
            .await?;
        let count = count(&subject, &proposal.status);
        Ok(Proposed { subject, proposal, count })
    })
    .await
}

/// The progress of an adjudication (`AdjudicateStream`): one message per region solved,
/// then the last with the result, or the error that ends it.
pub type ProgressStream = tokio_stream::wrappers::ReceiverStream<Result<Progress, AppError>>;

/// Adjudicates as [`adjudicate`] does, reporting every region solved on the returned stream.
/// The search stops, and nothing is recorded, when the receiver is dropped or `timeout`
/// passes.
///
/// # Errors
/// As [`subject`] and `PERMISSION_DENIED` before the stream starts; then on the stream.
pub async fn adjudicate_stream(
    state: &AppState,
    claims: Option<&Claims>,
    req: &Adjudicate,
    timeout: Option<Duration>,
) -> Result<ProgressStream, AppError> {
    let subject = permitted_subject(state, claims, req).await?;
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Progress, AppError>>(64);
    let state = state.clone();
    tokio::spawn(async move {
        let ptx = tx.clone();
        let mut nodes = 0u64;
        let searching = search(&state, &subject, move |r: &RegionReport| {
            nodes += r.nodes;
            let _ = ptx.blocking_send(Ok(Progress::Region { done: (r.index + 1) as u32, total: r.of as u32, nodes }));
        });
        // The client gone or the call's deadline passed: the search is dropped (and so
        // stopped) and nothing is recorded.
        let adj = tokio::select! {
            adj = within(timeout, searching) => adj,
            () = tx.closed() => return,
        };
        let last = match adj {
            Ok(adjudication) => {
                let count = count(&subject, &adjudication.status);
                let mut out = Adjudicated { subject, adjudication, count, sequence: None };
                record(&state, &mut out).await.map(|()| Progress::Done(Box::new(out)))
            }
            Err(e) => Err(e),
        };
        let _ = tx.send(last).await;
    });
    Ok(tokio_stream::wrappers::ReceiverStream::new(rx))
}
