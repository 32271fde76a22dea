//! Stateless legality checks by the rules engine (goban): the use cases behind
//! `RuleValidationService`, and the check the recording use cases apply to every move.
//!
//! * A legal move reports its captures (第三条) and the new ko point (第五条); an illegal one
//!   is a foul with its rule and article (第二条 occupied point, 第四条 suicide, 第五条 ko, ...),
//!   never an error: a foul is an answer, not a malformed request.
//! * Replay follows the record semantics of `shinpan-sgf`: a stone played after play has
//!   stopped means the players did not agree and play resumed (第九条); a pass after the end
//!   changes nothing ([`apply_recorded`]).
//!
//! The use cases take the request decoded ([`ValidateMove`], [`ValidateRecord`]: colours,
//! points and rule sets already read, every point on the board it names) and answer in the
//! engine's types ([`MoveCheck`], [`RecordCheck`]); the protocol's form is the transport's.
//! They hold no state and touch no database, so the service scales horizontally.

use crate::convert::{self, GameStart};
use crate::error::AppError;
use goban::{Board, Color, Foul, FoulRule, Game, Move, Phase, Point, Repetition, RuleSet};

/// Applies one recorded move with the record semantics of `shinpan-sgf`: a legal move
/// after play stopped resumes play (第九条, done by the engine), and a pass after the end
/// changes nothing (`Ok(None)`). A foul is returned unapplied.
pub fn apply_recorded(game: &mut Game, color: Color, mv: Move) -> Result<Option<goban::MoveOutcome>, Foul> {
    match game.play(color, mv) {
        Ok(o) => Ok(Some(o)),
        Err(f) if mv == Move::Pass && f.rule == FoulRule::AfterEnd => Ok(None),
        Err(f) => Err(f),
    }
}

/// Replays a move history (colour, move; points on the board) from `start` with
/// [`apply_recorded`].
///
/// # Errors
/// `INVALID_ARGUMENT` for an impossible start ([`GameStart::game`]); a foul in the history
/// is [`AppError::Foul`], numbered by its position in the history (1-based).
pub fn replay_history(start: &GameStart, moves: &[(Color, Move)]) -> Result<Game, AppError> {
    let mut game = start.game()?;
    for (i, &(c, mv)) in moves.iter().enumerate() {
        apply_recorded(&mut game, c, mv).map_err(|mut f| {
            f.move_number = i as u32 + 1;
            AppError::Foul(convert::foul_info(&f))
        })?;
    }
    Ok(game)
}

/// The verdict on one move (`ValidateMove`, and every move recorded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveCheck {
    /// The number the move gets (1-based: the history's length + 1).
    pub move_number: u32,
    /// Stones the move removed (第三条), in the engine's order; empty for an illegal move or
    /// a pass.
    pub captured: Vec<Point>,
    /// The point the opponent may not retake at once (第五条), if the move took a ko.
    pub ko_point: Option<Point>,
    /// The whole-board repetition the move created, if any.
    pub repetition: Option<Repetition>,
    /// The foul (第十二条: rule, article), numbered `move_number`, when the move is illegal.
    pub foul: Option<Foul>,
    /// The game's phase after the move (before it, for an illegal move).
    pub phase: Phase,
}

impl MoveCheck {
    /// Whether the move is legal (no foul).
    pub fn legal(&self) -> bool {
        self.foul.is_none()
    }
}

/// Checks `mv` by `color` in `game` (which becomes the game after the move when it is legal)
/// and gives the verdict. `number` is the number the move gets (the history length + 1).
pub fn check_move(game: &mut Game, color: Color, mv: Move, number: u32) -> MoveCheck {
    match apply_recorded(game, color, mv) {
        Ok(Some(o)) => {
            MoveCheck { move_number: number, captured: o.captured, ko_point: o.ko, repetition: o.repetition, foul: None, phase: o.phase }
        }
        Ok(None) => {
            MoveCheck { move_number: number, captured: Vec::new(), ko_point: None, repetition: None, foul: None, phase: game.phase() }
        }
        Err(mut f) => {
            f.move_number = number;
            MoveCheck { move_number: number, captured: Vec::new(), ko_point: None, repetition: None, foul: Some(f), phase: game.phase() }
        }
    }
}

/// A bare position: the stones as they stand, whose turn it is and the point that turn may
/// not take because of ko (第五条). Every point lies on the `width × height` board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// Board width (2..=25).
    pub width: u32,
    /// Board height (2..=25).
    pub height: u32,
    /// Black stones, on the board.
    pub black: Vec<Point>,
    /// White stones, on the board.
    pub white: Vec<Point>,
    /// The player to move.
    pub to_move: Color,
    /// The ko point `to_move` may not take at once, if any.
    pub ko_point: Option<Point>,
}

/// Where a move is checked (`ValidateMove`).
#[derive(Clone, Debug, PartialEq)]
pub enum MoveContext {
    /// A game: its start and its history (colour, move; points on the board), replayed.
    Game {
        /// Rule set, size, handicap, setup stones, first player.
        start: GameStart,
        /// The moves played, in order.
        moves: Vec<(Color, Move)>,
    },
    /// A bare position, with the rule set the move is checked under.
    Position {
        /// Rule set.
        rules: RuleSet,
        /// The position.
        position: Position,
    },
    /// An SGF record (main line), replayed.
    Sgf {
        /// The record's text (at most [`crate::limits::MAX_SGF_BYTES`]).
        text: String,
        /// A rule-set name overriding the record's `RU[]`; empty = none.
        rule_set: String,
    },
}

/// `ValidateMove`: is `mv` by `color` legal where `context` says?
#[derive(Clone, Debug, PartialEq)]
pub struct ValidateMove {
    /// The game, position or record the move is checked in.
    pub context: MoveContext,
    /// The player of the move.
    pub color: Color,
    /// The move: a point (checked against the context's board, field `move.point`) or a pass.
    pub mv: Move,
}

/// The point of `mv`, if any, must lie on the `width × height` board.
///
/// # Errors
/// `INVALID_ARGUMENT` on `field`: `point `xx` is off the WxH board`.
pub fn on_board(field: &str, mv: Move, width: u32, height: u32) -> Result<Move, AppError> {
    if let Move::Play(p) = mv {
        if u32::from(p.x) >= width || u32::from(p.y) >= height {
            return Err(AppError::field(field, format!("point `{}` is off the {width}x{height} board", p.to_sgf())));
        }
    }
    Ok(mv)
}

/// The logic of `ValidateMove`, callable in-process.
///
/// # Errors
/// `INVALID_ARGUMENT` for a point off the board, two stones on one point of a position, an
/// impossible start, an unreadable record or an unknown rule set; [`AppError::Foul`] for a
/// history or record that itself contains a foul.
pub fn validate_move(req: &ValidateMove) -> Result<MoveCheck, AppError> {
    match &req.context {
        MoveContext::Game { start, moves } => {
            let mut game = replay_history(start, moves)?;
            let mv = on_board("move.point", req.mv, start.size, start.size)?;
            Ok(check_move(&mut game, req.color, mv, moves.len() as u32 + 1))
        }
        MoveContext::Position { rules, position: pos } => {
            let (width, height) = (pos.width, pos.height);
            let mut board = Board::new(width, height).map_err(|e| AppError::field("position.width", e.to_string()))?;
            for (field, color, stones) in [("position.black", Color::Black, &pos.black), ("position.white", Color::White, &pos.white)] {
                for &p in stones {
                    if board.get(p).is_some() {
                        return Err(AppError::field(field, format!("two stones on {}", p.to_sgf())));
                    }
                    board.set(p, Some(color)).map_err(|e| AppError::field(field, e.to_string()))?;
                }
            }
            let (c, mv) = (req.color, on_board("move.point", req.mv, width, height)?);
            let mut game = Game::new(board, *rules, pos.to_move);
            if c == pos.to_move && pos.ko_point.is_some() && mv == Move::Play(pos.ko_point.unwrap()) {
                let f = Foul { move_number: 1, color: c, mv, rule: FoulRule::Ko };
                return Ok(MoveCheck {
                    move_number: 1,
                    captured: Vec::new(),
                    ko_point: None,
                    repetition: None,
                    foul: Some(f),
                    phase: Phase::Playing,
                });
            }
            Ok(check_move(&mut game, c, mv, 1))
        }
        MoveContext::Sgf { text, rule_set } => {
            let (record, rules) = parse_sgf("sgf", text, rule_set)?;
            let replayed = record.to_game(rules).map_err(|e| AppError::field("sgf", e.to_string()))?;
            if let Some(f) = replayed.foul {
                return Err(AppError::Foul(convert::foul_info(&f)));
            }
            let mut game = replayed.game;
            let mv = on_board("move.point", req.mv, record.width as u32, record.height as u32)?;
            let n = record.moves.len() as u32 + 1;
            Ok(check_move(&mut game, req.color, mv, n))
        }
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

/// `ValidateRecord`: the record to check move by move.
#[derive(Clone, Debug, PartialEq)]
pub enum ValidateRecord {
    /// An SGF record (main line).
    Sgf {
        /// The record's text (at most [`crate::limits::MAX_SGF_BYTES`]).
        text: String,
        /// A rule-set name overriding the record's `RU[]`; empty = none.
        rule_set: String,
    },
    /// A game: its start and its moves (colour, move; points on the board).
    Game {
        /// Rule set, size, handicap, setup stones, first player.
        start: GameStart,
        /// The moves played, in order.
        moves: Vec<(Color, Move)>,
    },
}

/// The verdict on a whole record (`ValidateRecord`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordCheck {
    /// Legal moves before the first foul (all of them when there is none).
    pub moves_checked: u32,
    /// The first foul (第十二条), numbered by its position in the record (1-based).
    pub first_foul: Option<Foul>,
    /// Whole-board repetitions in the moves checked.
    pub repetitions: Vec<Repetition>,
    /// The phase after the moves checked.
    pub phase: Phase,
    /// The rule set the record was checked under.
    pub rules: RuleSet,
}

/// The logic of `ValidateRecord`, callable in-process.
///
/// # Errors
/// `INVALID_ARGUMENT` for an unreadable record, an unknown rule set or an impossible start
/// (a foul is an answer, [`RecordCheck::first_foul`], not an error).
pub fn validate_record(req: &ValidateRecord) -> Result<RecordCheck, AppError> {
    match req {
        ValidateRecord::Sgf { text, rule_set } => {
            let (record, rules) = parse_sgf("sgf", text, rule_set)?;
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
                f
            });
            Ok(RecordCheck {
                moves_checked: first_foul.as_ref().map(|f| f.move_number - 1).unwrap_or(record.moves.len() as u32),
                first_foul,
                repetitions: replayed.game.repetitions().to_vec(),
                phase: replayed.game.phase(),
                rules,
            })
        }
        ValidateRecord::Game { start, moves } => {
            let mut game = start.game()?;
            let mut first_foul = None;
            let mut checked = 0;
            for (i, &(c, mv)) in moves.iter().enumerate() {
                match apply_recorded(&mut game, c, mv) {
                    Ok(_) => checked = i as u32 + 1,
                    Err(mut f) => {
                        f.move_number = i as u32 + 1;
                        first_foul = Some(f);
                        break;
                    }
                }
            }
            Ok(RecordCheck {
                moves_checked: checked,
                first_foul,
                repetitions: game.repetitions().to_vec(),
                phase: game.phase(),
                rules: start.rules,
            })
        }
    }
}

/// The rule sets of the engine, for `ListRuleSets`, in the engine's order.
pub fn rule_sets() -> &'static [RuleSet] {
    &RuleSet::ALL
}

/// One line describing a rule set (its source, scoring, ko rule and the articles that differ).
pub fn describe_rules(r: RuleSet) -> &'static str {
    match r {
        RuleSet::Japanese2011 => "日本囲碁規約 2011 draft revision: territory scoring (第八条・第十条), basic ko (第五条), life and death by hypothetical play (第七条)",
        RuleSet::Japanese1989 => "日本囲碁規約 1989: territory scoring, basic ko, ko-pass rule in confirmation play",
        RuleSet::Chinese => "Chinese rules: area scoring, positional superko, suicide forbidden",
        RuleSet::Jungo => "純碁: stones on the board count",
        RuleSet::JapaneseJungo => "Japanese-style 純碁 counting",
    }
}
