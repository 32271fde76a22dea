//! Stateless legality checks by the rules engine (goban): the use cases behind
//! `RuleValidationService`, and the validator the recording use cases check moves with.
//!
//! * A legal move reports its captures (第三条) and the new ko point (第五条); an illegal one
//!   is a foul with its rule and article (第二条 occupied point, 第四条 suicide, 第五条 ko, ...),
//!   never an error status: a foul is an answer, not a malformed request.
//! * Replay follows the record semantics of `shinpan-sgf`: a stone played after play has
//!   stopped means the players did not agree and play resumed (第九条); a pass after the end
//!   changes nothing ([`apply_recorded`]).
//!
//! The service holds no state and touches no database, so it scales horizontally. The
//! recording service calls it in-process ([`Validator::Local`]) or over gRPC
//! ([`Validator::Remote`], propagating the trace context).

use crate::convert::{self, GameStart};
use crate::error::AppError;
use crate::trace::TracePropagation;
use goban::{Board, Color, Foul, FoulRule, Game, Move, MoveOutcome, RuleSet};
use shinpan_proto::v1 as pb;
use shinpan_proto::v1::rule_validation_service_client::RuleValidationServiceClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Request, Response};

/// Applies one recorded move with the record semantics of `shinpan-sgf`: a legal move
/// after play stopped resumes play (第九条, done by the engine), and a pass after the end
/// changes nothing (`Ok(None)`). A foul is returned unapplied.
pub fn apply_recorded(game: &mut Game, color: Color, mv: Move) -> Result<Option<MoveOutcome>, Foul> {
    match game.play(color, mv) {
        Ok(o) => Ok(Some(o)),
        Err(f) if mv == Move::Pass && f.rule == FoulRule::AfterEnd => Ok(None),
        Err(f) => Err(f),
    }
}

/// Replays a move history from `start` with [`apply_recorded`]. A foul in the history is
/// [`AppError::Foul`]; a malformed move is INVALID_ARGUMENT on `field[i]`.
pub fn replay_history(start: &GameStart, moves: &[pb::Move], field: &str) -> Result<Game, AppError> {
    let mut game = start.game()?;
    for (i, m) in moves.iter().enumerate() {
        let (c, mv) = convert::move_from_pb(&format!("{field}[{i}]"), Some(m), start.size, start.size)?;
        apply_recorded(&mut game, c, mv).map_err(|mut f| {
            f.move_number = i as u32 + 1;
            AppError::Foul(convert::foul_info(&f))
        })?;
    }
    Ok(game)
}

/// Checks `mv` by `color` in `game` (consumed: it becomes the game after the move) and
/// builds the answer. `number` is the number the move gets (the history length + 1).
pub fn check_move(game: &mut Game, color: Color, mv: Move, number: u32) -> pb::ValidateMoveResponse {
    match apply_recorded(game, color, mv) {
        Ok(Some(o)) => pb::ValidateMoveResponse {
            legal: true,
            move_number: number,
            captured: o.captured.iter().map(|p| p.to_sgf()).collect(),
            ko_point: o.ko.map(|p| p.to_sgf()),
            foul: None,
            repetition: o.repetition.as_ref().map(convert::repetition_to_pb),
            phase: convert::phase_to_pb(o.phase),
        },
        Ok(None) => {
            pb::ValidateMoveResponse { legal: true, move_number: number, phase: convert::phase_to_pb(game.phase()), ..Default::default() }
        }
        Err(mut f) => {
            f.move_number = number;
            pb::ValidateMoveResponse {
                legal: false,
                move_number: number,
                foul: Some(convert::foul_to_pb(&f)),
                phase: convert::phase_to_pb(game.phase()),
                ..Default::default()
            }
        }
    }
}

/// The logic of `ValidateMove`, callable in-process.
///
/// # Errors
/// INVALID_ARGUMENT for a missing state or move, a bad point, an unknown rule set, or a
/// history that itself contains a foul (then with the foul in the details).
pub fn validate_move(req: &pb::ValidateMoveRequest) -> Result<pb::ValidateMoveResponse, AppError> {
    use pb::validate_move_request::State;
    match &req.state {
        Some(State::Game(state)) => {
            let start = convert::game_start(state)?;
            let mut game = replay_history(&start, &state.moves, "game.moves")?;
            let (c, mv) = convert::move_from_pb("move", req.r#move.as_ref(), start.size, start.size)?;
            Ok(check_move(&mut game, c, mv, state.moves.len() as u32 + 1))
        }
        Some(State::Position(pos)) => {
            let rules = convert::rule_set("rule_set", &req.rule_set)?;
            let width = convert::board_size("position.width", pos.width)?;
            let height = convert::board_size("position.height", pos.height)?;
            let mut board = Board::new(width, height).map_err(|e| AppError::field("position.width", e.to_string()))?;
            for (field, color, stones) in [("position.black", Color::Black, &pos.black), ("position.white", Color::White, &pos.white)] {
                for p in convert::points_from_sgf(field, stones, width, height)? {
                    if board.get(p).is_some() {
                        return Err(AppError::field(field, format!("two stones on {}", p.to_sgf())));
                    }
                    board.set(p, Some(color)).map_err(|e| AppError::field(field, e.to_string()))?;
                }
            }
            let to_move = convert::color_from_pb("position.to_move", pos.to_move)?;
            let ko = match &pos.ko_point {
                Some(k) if !k.is_empty() => Some(convert::point_from_sgf("position.ko_point", k, width, height)?),
                _ => None,
            };
            let (c, mv) = convert::move_from_pb("move", req.r#move.as_ref(), width, height)?;
            let mut game = Game::new(board, rules, to_move);
            if c == to_move && ko.is_some() && mv == Move::Play(ko.unwrap()) {
                let f = Foul { move_number: 1, color: c, mv, rule: FoulRule::Ko };
                return Ok(pb::ValidateMoveResponse {
                    legal: false,
                    move_number: 1,
                    foul: Some(convert::foul_to_pb(&f)),
                    phase: pb::Phase::Playing as i32,
                    ..Default::default()
                });
            }
            Ok(check_move(&mut game, c, mv, 1))
        }
        Some(State::Sgf(text)) => {
            let (record, rules) = parse_sgf("sgf", text, &req.rule_set)?;
            let replayed = record.to_game(rules).map_err(|e| AppError::field("sgf", e.to_string()))?;
            if let Some(f) = replayed.foul {
                return Err(AppError::Foul(convert::foul_info(&f)));
            }
            let mut game = replayed.game;
            let (c, mv) = convert::move_from_pb("move", req.r#move.as_ref(), record.width as u32, record.height as u32)?;
            let n = record.moves.len() as u32 + 1;
            Ok(check_move(&mut game, c, mv, n))
        }
        None => Err(AppError::field("state", "give a game (start and moves), a position or an SGF record")),
    }
}

/// Parses an SGF record and picks its rule set: `override_name` if not empty, else `RU[]`,
/// else `japanese-2011`.
///
/// # Errors
/// `INVALID_ARGUMENT` on `field` for a record over [`crate::limits::MAX_SGF_BYTES`], with a
/// NUL character, or unreadable (the SGF reader's message, which names its limits); on
/// `rule_set` for an unknown or over-long name.
pub fn parse_sgf(field: &str, text: &str, override_name: &str) -> Result<(shinpan_sgf::Record, RuleSet), AppError> {
    crate::limits::check(&[(field, text, crate::limits::MAX_SGF_BYTES), ("rule_set", override_name, crate::limits::MAX_NAME_BYTES)])?;
    let record = shinpan_sgf::Record::parse(text).map_err(|e| AppError::field(field, e.to_string()))?;
    let rules = if override_name.trim().is_empty() {
        record.rule_set().unwrap_or(RuleSet::Japanese2011)
    } else {
        convert::rule_set("rule_set", override_name)?
    };
    Ok((record, rules))
}

/// The logic of `ValidateRecord`, callable in-process.
pub fn validate_record(req: &pb::ValidateRecordRequest) -> Result<pb::ValidateRecordResponse, AppError> {
    use pb::validate_record_request::Record;
    match &req.record {
        Some(Record::Sgf(text)) => {
            let (record, rules) = parse_sgf("sgf", text, &req.rule_set)?;
            let mut checked = 0u32;
            let replayed = record.replay_with(rules, |i, _| checked = i as u32 + 1).map_err(|e| AppError::field("sgf", e.to_string()))?;
            let first_foul = replayed.foul.as_ref().map(|f| {
                let mut f = f.clone();
                // Number the foul by its position in the record.
                f.move_number = record
                    .moves
                    .iter()
                    .enumerate()
                    .skip(checked as usize)
                    .find(|(_, m)| m.color == f.color && m.mv == f.mv)
                    .map(|(i, _)| i as u32 + 1)
                    .unwrap_or(f.move_number);
                convert::foul_to_pb(&f)
            });
            Ok(pb::ValidateRecordResponse {
                moves_checked: first_foul.as_ref().map(|f| f.move_number - 1).unwrap_or(record.moves.len() as u32),
                first_foul,
                repetitions: replayed.game.repetitions().iter().map(convert::repetition_to_pb).collect(),
                phase: convert::phase_to_pb(replayed.game.phase()),
                rule_set: rules.name().to_string(),
            })
        }
        Some(Record::Game(state)) => {
            let start = convert::game_start(state)?;
            let mut game = start.game()?;
            let mut first_foul = None;
            let mut checked = 0;
            for (i, m) in state.moves.iter().enumerate() {
                let (c, mv) = convert::move_from_pb(&format!("game.moves[{i}]"), Some(m), start.size, start.size)?;
                match apply_recorded(&mut game, c, mv) {
                    Ok(_) => checked = i as u32 + 1,
                    Err(mut f) => {
                        f.move_number = i as u32 + 1;
                        first_foul = Some(convert::foul_to_pb(&f));
                        break;
                    }
                }
            }
            Ok(pb::ValidateRecordResponse {
                moves_checked: checked,
                first_foul,
                repetitions: game.repetitions().iter().map(convert::repetition_to_pb).collect(),
                phase: convert::phase_to_pb(game.phase()),
                rule_set: start.rules.name().to_string(),
            })
        }
        None => Err(AppError::field("record", "give an SGF record or a game (start and moves)")),
    }
}

/// The rule sets of the engine, for `ListRuleSets`.
pub fn rule_sets() -> Vec<pb::RuleSet> {
    RuleSet::ALL
        .iter()
        .map(|&r| pb::RuleSet {
            name: r.name().to_string(),
            sgf_ru: r.sgf_ru().to_string(),
            default_komi_19: r.default_komi(19, 19),
            ko_rule: match r.ko_rule() {
                goban::KoRule::Basic => "basic".to_string(),
                goban::KoRule::PositionalSuperko => "positional-superko".to_string(),
            },
            scoring: match r.scoring() {
                goban::Scoring::Territory => "territory",
                goban::Scoring::Area => "area",
                goban::Scoring::Jungo => "jungo",
                goban::Scoring::JapaneseJungo => "japanese-jungo",
            }
            .to_string(),
            allow_suicide: r.allow_suicide(),
            passes_to_stop: r.passes_to_stop(),
            passes_to_end: r.passes_to_end().unwrap_or(0),
            description: describe_rules(r).to_string(),
        })
        .collect()
}

fn describe_rules(r: RuleSet) -> &'static str {
    match r {
        RuleSet::Japanese2011 => "日本囲碁規約 2011 draft revision: territory scoring (第八条・第十条), basic ko (第五条), life and death by hypothetical play (第七条)",
        RuleSet::Japanese1989 => "日本囲碁規約 1989: territory scoring, basic ko, ko-pass rule in confirmation play",
        RuleSet::Chinese => "Chinese rules: area scoring, positional superko, suicide forbidden",
        RuleSet::Jungo => "純碁: stones on the board count",
        RuleSet::JapaneseJungo => "Japanese-style 純碁 counting",
    }
}

/// A gRPC client of a remote `RuleValidationService`, propagating the trace context.
pub type RemoteValidation = RuleValidationServiceClient<InterceptedService<Channel, TracePropagation>>;

/// How the recording service validates moves.
#[derive(Clone, Debug)]
pub enum Validator {
    /// In-process (co-hosted services): a function call.
    Local,
    /// Over gRPC to a separate `RuleValidationService` process.
    Remote(RemoteValidation),
}

impl Validator {
    /// A lazily connecting remote validator for `url` (e.g. `http://127.0.0.1:50052`).
    ///
    /// # Errors
    /// A malformed URL: the message names the flag (`--validation-url`) and the URL.
    pub fn remote(url: &str) -> Result<Validator, String> {
        let endpoint = Channel::from_shared(url.to_string()).map_err(|e| format!("--validation-url {url}: {e}"))?;
        let channel = endpoint.connect_lazy();
        Ok(Validator::Remote(RuleValidationServiceClient::with_interceptor(channel, TracePropagation)))
    }

    /// Validates one move given the game's start and history (see [`validate_move`]).
    /// A remote transport failure is UNAVAILABLE, and so is a call the remote service
    /// cancelled (it does so when it shuts down mid-call; our caller cancelled nothing).
    pub async fn validate_move(&self, req: pb::ValidateMoveRequest) -> Result<pb::ValidateMoveResponse, AppError> {
        match self {
            Validator::Local => validate_move(&req),
            Validator::Remote(client) => {
                let mut client = client.clone();
                client.validate_move(Request::new(req)).await.map(Response::into_inner).map_err(|s| match s.code() {
                    tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::DeadlineExceeded | tonic::Code::Cancelled => {
                        AppError::Unavailable(format!("rule validation service: {}", s.message()))
                    }
                    _ => AppError::Remote(Box::new(s)),
                })
            }
        }
    }
}
