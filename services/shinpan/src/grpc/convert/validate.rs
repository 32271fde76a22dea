//! Validation (`ValidateMove`, `ValidateRecord`, `ListRuleSets`): the messages decoded into the use cases' commands and their answers encoded.

use super::*;

/// Decodes a `ValidateMoveRequest`: the game (`game.*`: start, then moves), the position
/// (`rule_set`, `position.*`) or the SGF record (`sgf`, `rule_set`), then the move (`move`;
/// for a record, its point is checked against the record's board by the use case).
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field: no state, an unknown rule set or colour, a bad
/// board size or point, a missing move.
pub fn validate_move_from_pb(req: &pb::ValidateMoveRequest) -> Result<ValidateMove, AppError> {
    use pb::validate_move_request::State;
    let (context, (width, height)) = match &req.state {
        Some(State::Game(state)) => {
            let start = game_start(state)?;
            let moves = moves_from_pb("game.moves", &state.moves, start.size)?;
            let size = start.size;
            (MoveContext::Game { start, moves }, (size, size))
        }
        Some(State::Position(pos)) => {
            let rules = rule_set("rule_set", &req.rule_set)?;
            let position = position_from_pb("position", pos, pos.height)?;
            let (width, height) = (position.width, position.height);
            (MoveContext::Position { rules, position }, (width, height))
        }
        Some(State::Sgf(text)) => (MoveContext::Sgf { text: text.clone(), rule_set: req.rule_set.clone() }, (MAX_BOARD, MAX_BOARD)),
        None => return Err(AppError::field("state", "give a game (start and moves), a position or an SGF record")),
    };
    let (color, mv) = move_from_pb("move", req.r#move.as_ref(), width, height)?;
    Ok(ValidateMove { context, color, mv })
}

/// Decodes a `ValidateRecordRequest`: the SGF record (`sgf`, `rule_set`) or the game
/// (`game.*`: start, then moves).
///
/// # Errors
/// `INVALID_ARGUMENT` naming the field: no record, an unknown rule set or colour, a bad
/// board size or point.
pub fn validate_record_from_pb(req: pb::ValidateRecordRequest) -> Result<ValidateRecord, AppError> {
    use pb::validate_record_request::Record;
    match req.record {
        Some(Record::Sgf(text)) => Ok(ValidateRecord::Sgf { text, rule_set: req.rule_set }),
        Some(Record::Game(state)) => {
            let start = game_start(&state)?;
            let moves = moves_from_pb("game.moves", &state.moves, start.size)?;
            Ok(ValidateRecord::Game { start, moves })
        }
        None => Err(AppError::field("record", "give an SGF record or a game (start and moves)")),
    }
}

/// Protobuf form of a record's verdict ([`RecordCheck`]).
pub fn record_check_to_pb(r: &RecordCheck) -> pb::ValidateRecordResponse {
    pb::ValidateRecordResponse {
        moves_checked: r.moves_checked,
        first_foul: r.first_foul.as_ref().map(foul_to_pb),
        repetitions: r.repetitions.iter().map(repetition_to_pb).collect(),
        phase: phase_to_pb(r.phase),
        rule_set: r.rules.name().to_string(),
    }
}

/// Protobuf form of a rule set (`ListRuleSets`): its names, komi on 19×19, ko rule
/// (`basic`, `positional-superko`), scoring (`territory`, `area`, `jungo`,
/// `japanese-jungo`), suicide, passes and description.
pub fn rule_set_to_pb(r: RuleSet) -> pb::RuleSet {
    pb::RuleSet {
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
        description: validation::describe_rules(r).to_string(),
    }
}
