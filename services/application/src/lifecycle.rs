//! The result lifecycle and the arbiter's rulings, as pure functions (no I/O): which
//! transition is allowed at which stage of the result ([`ResultStage`]), what result text an ending gives, and what a
//! ruling does. The use cases (`app::results`, `app::arbitration`) check every
//! request here before they touch the store; the store (and its triggers) enforce the same
//! finality once more in PostgreSQL.
//!
//! ```text
//!                 ProposeResult               ConfirmResult × (black, white, referee)
//!   (no result) ───────────────► PROPOSED ───────────────────────────────────────► FINAL
//!                                 │   ▲  ▲                                           │
//!                         Object  │   │  └── ProposeResult again (supersedes)        │ CorrectResult
//!                       (第十条2) ▼   │ ruling: uphold / amend / 無勝負 / 反則負け     ▼ (federation:
//!                               DISPUTED ─────────────────────────────(new proposal)   new linked row)
//! ```
//!
//! * Endings ([`Ending`]): 中押勝 (第六条), count after life and death (第九条 agreement, or
//!   第七条・第八条 after four passes / when no agreement is reached, 第九条2), time forfeit,
//!   反則負け (第十二条), 無勝負 (第十一条), 両負け (1989 rules 要請II-\[vii\] 3 and 4), 持碁
//!   (第十条).
//! * A result is final when the players of both colours and the referee (立会人) have
//!   confirmed it (第十条 解説: "双方の対局者及び立会人(審判)が勝敗を確認した後は、この勝敗を変える
//!   ことはできない"). After that nothing changes ([`check`] refuses every action but a
//!   federation correction, which is a new linked record).
//! * An objection (第十条2) makes the proposal DISPUTED: no confirmation is accepted until a
//!   referee has ruled; every ruling that keeps or changes the result makes a fresh proposal,
//!   so the players confirm again.

use goban::{Color, GameResult};
use std::fmt;

/// How a game ended. Stored as the text of [`Ending::reason`] in the result row.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// 中押勝 (第六条): the other player resigned. RE `B+R` / `W+R`.
    Resignation,
    /// A count after life and death is settled (第九条 agreement after three passes, or
    /// 第七条・第八条 after four passes or when agreement is not reached, 第九条2), then
    /// 第十条: RE `B+3.5` etc.
    Count,
    /// Loss on time. RE `B+T` / `W+T`.
    TimeForfeit,
    /// 反則負け (第十二条). RE `B+F` / `W+F`.
    FoulLoss,
    /// 無勝負 (第十一条). RE `Void` (or, under a tournament policy that avoids 無勝負, the
    /// winner decided on time used `B+T` or by nigiri `B+F`).
    NoResult,
    /// 両負け (要請II-\[vii\] 3, 4 of the 1989 rules). RE `BothLose` (SGF has no value for it;
    /// this is the spelling of `goban::GameResult::BothLose`).
    BothLose,
    /// 持碁 (第十条): equal counts. RE `0`.
    Jigo,
}

impl Ending {
    /// Every ending.
    pub const ALL: [Ending; 7] =
        [Ending::Resignation, Ending::Count, Ending::TimeForfeit, Ending::FoulLoss, Ending::NoResult, Ending::BothLose, Ending::Jigo];

    /// The text stored as the result's `reason`: `"resignation"`, `"count"`, `"time"`,
    /// `"foul"`, `"no-result"`, `"both-lose"`, `"jigo"`.
    pub const fn reason(self) -> &'static str {
        match self {
            Ending::Resignation => "resignation",
            Ending::Count => "count",
            Ending::TimeForfeit => "time",
            Ending::FoulLoss => "foul",
            Ending::NoResult => "no-result",
            Ending::BothLose => "both-lose",
            Ending::Jigo => "jigo",
        }
    }

    /// Parses [`Ending::reason`] (also `"adjudication"`, stored for counts decided by
    /// 第七条・第八条, which is a [`Ending::Count`]).
    pub fn from_reason(s: &str) -> Option<Ending> {
        if s == "adjudication" {
            return Some(Ending::Count);
        }
        Ending::ALL.into_iter().find(|e| e.reason() == s)
    }

    /// The article the ending rests on: `"第六条"`, `"第九条"`, `""` (time: tournament
    /// regulations, not the rules of play), `"第十二条"`, `"第十一条"`, `"要請II-\[vii\]"`,
    /// `"第十条"`.
    pub const fn article(self) -> &'static str {
        match self {
            Ending::Resignation => "第六条",
            Ending::Count => "第九条",
            Ending::TimeForfeit => "",
            Ending::FoulLoss => "第十二条",
            Ending::NoResult => "第十一条",
            Ending::BothLose => "要請II-[vii]",
            Ending::Jigo => "第十条",
        }
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}

/// Where a game's result stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ResultStage {
    /// Nothing proposed yet (the game is being played or has just stopped).
    Open,
    /// A result is proposed and awaits confirmations.
    Proposed,
    /// A result is proposed and a player has objected (第十条2); an appeal case is open.
    Disputed,
    /// All confirmations are in: the result never changes again (第十条).
    Final,
}

/// Who confirms a result (第十条 解説: both players and the 立会人).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Party {
    /// The player of Black.
    Black,
    /// The player of White.
    White,
    /// The referee (立会人) — or the chief arbiter in the referee's place.
    Referee,
}

impl Party {
    /// The confirmations every result needs before it is final.
    pub const REQUIRED: [Party; 3] = [Party::Black, Party::White, Party::Referee];

    /// The player's party of a colour.
    pub fn of(c: Color) -> Party {
        match c {
            Color::Black => Party::Black,
            Color::White => Party::White,
        }
    }

    /// `"black"`, `"white"`, `"referee"` (the role text of the confirmations table).
    pub const fn name(self) -> &'static str {
        match self {
            Party::Black => "black",
            Party::White => "white",
            Party::Referee => "referee",
        }
    }
}

/// A request on a game's result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Propose a result (ProposeResult).
    Propose,
    /// Confirm it for a party (ConfirmResult).
    Confirm(Party),
    /// Object to it (第十条2).
    Object,
    /// A referee's ruling that keeps or changes the result (uphold, amend, 無勝負, 反則負け,
    /// 両負け, resumption).
    Rule,
    /// A federation's correction of a final result.
    Correct,
}

/// Why a transition or a ruling is refused. Every variant maps to `FAILED_PRECONDITION`
/// except [`LifecycleError::Invalid`] (`INVALID_ARGUMENT`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LifecycleError {
    /// The result is final: nothing changes (第十条).
    #[error("the result is final and can no longer change (第十条: confirmed by both players and the referee); a federation correction is a new linked record")]
    Final,
    /// There is no proposed result to act on.
    #[error("no result has been proposed for this game")]
    NothingProposed,
    /// An objection is open (第十条2): the referee must rule first.
    #[error("an objection is open (第十条2): the referee rules before anyone confirms or proposes again")]
    Disputed,
    /// A correction applies only to a final result.
    #[error("only a final result is corrected; before finality propose or rule instead")]
    NotFinal,
    /// The request is not well-formed for the ruling or ending.
    #[error("{0}")]
    Invalid(String),
    /// The evidence does not support the ruling.
    #[error("{0}")]
    Evidence(String),
}

/// Whether `action` is allowed at the result's `stage`.
///
/// # Errors
/// * [`LifecycleError::Final`] for anything but [`Action::Correct`] once final (a
///   confirmation after finality, an objection after finality, a 反則負け ruling after the
///   result was confirmed — 第十二条 "双方が勝敗を確認する前であれば");
/// * [`LifecycleError::NothingProposed`] to confirm or object with nothing proposed;
/// * [`LifecycleError::Disputed`] to confirm or propose while an objection is open;
/// * [`LifecycleError::NotFinal`] to correct a result that is not final.
pub fn check(stage: ResultStage, action: Action) -> Result<(), LifecycleError> {
    use Action::*;
    use ResultStage::*;
    match (stage, action) {
        (Final, Correct) => Ok(()),
        (Final, _) => Err(LifecycleError::Final),
        (_, Correct) => Err(LifecycleError::NotFinal),
        (Open, Propose) | (Proposed, Propose) => Ok(()),
        (Disputed, Propose) => Err(LifecycleError::Disputed),
        (Proposed, Confirm(_)) => Ok(()),
        (Disputed, Confirm(_)) => Err(LifecycleError::Disputed),
        (Open, Confirm(_)) => Err(LifecycleError::NothingProposed),
        (Proposed, Object) | (Disputed, Object) => Ok(()),
        (Open, Object) => Err(LifecycleError::NothingProposed),
        (_, Rule) => Ok(()),
    }
}

/// Whether the confirmations given complete the result (every party of
/// [`Party::REQUIRED`]).
pub fn complete(given: &[Party]) -> bool {
    Party::REQUIRED.iter().all(|p| given.contains(p))
}

/// The parties of [`Party::REQUIRED`] that have not confirmed yet, in order.
pub fn pending(given: &[Party]) -> Vec<Party> {
    Party::REQUIRED.iter().copied().filter(|p| !given.contains(p)).collect()
}

/// The result (SGF RE text) and the ending actually recorded for a proposed ending.
///
/// * `Resignation`, `TimeForfeit`, `FoulLoss` need `winner` (RE `X+R`, `X+T`, `X+F`);
/// * `Count` and `Jigo` need `counted`, the result of the count (`goban::score` or the
///   adjudicator); a count of equal scores is recorded as [`Ending::Jigo`] (持碁, RE `0`),
///   and `Jigo` is refused when the count is not equal;
/// * `NoResult` gives `Void` and `BothLose` gives `BothLose`; both only by a referee's
///   ruling (see [`rule`]), but the text is the same here.
///
/// # Errors
/// [`LifecycleError::Invalid`] when the winner or count is missing, or a count is
/// undecided (an undecided status: the arbiter must rule, 第七条), or `Jigo` is proposed
/// for an unequal count.
pub fn result_text(ending: Ending, winner: Option<Color>, counted: Option<&GameResult>) -> Result<(String, Ending), LifecycleError> {
    let need_winner = || winner.ok_or_else(|| LifecycleError::Invalid(format!("ending `{ending}` needs the winner")));
    match ending {
        Ending::Resignation => Ok((GameResult::Resignation { winner: need_winner()? }.to_sgf(), ending)),
        Ending::TimeForfeit => Ok((format!("{}+T", need_winner()?.letter()), ending)),
        Ending::FoulLoss => Ok((GameResult::Forfeit { winner: need_winner()? }.to_sgf(), ending)),
        Ending::NoResult => Ok((GameResult::NoResult.to_sgf(), ending)),
        Ending::BothLose => Ok((GameResult::BothLose.to_sgf(), ending)),
        Ending::Count | Ending::Jigo => {
            let r = counted.ok_or_else(|| LifecycleError::Invalid(format!("ending `{ending}` needs a count")))?;
            match r {
                GameResult::Jigo => Ok((r.to_sgf(), Ending::Jigo)),
                GameResult::Win { .. } if ending == Ending::Jigo => {
                    Err(LifecycleError::Invalid(format!("the count gives {}, not 持碁 (jigo)", r.to_sgf())))
                }
                GameResult::Win { .. } => Ok((r.to_sgf(), Ending::Count)),
                GameResult::Undecided => Err(LifecycleError::Invalid(
                    "the count is undecided: a status could not be decided (第七条); an arbiter case is opened".into(),
                )),
                other => Err(LifecycleError::Invalid(format!("a count cannot give {}", other.to_sgf()))),
            }
        }
    }
}

/// The tournament's policy for 無勝負 (第十一条 and its note: "競技等の事情により、無勝負を避け
/// なければならない場合は、対局者の消費時間またはニギリによって勝敗を決める"): `NoResult` (the
/// game is 無勝負, RE `Void`), `TimeUsed` (decided on time used: the ruling names the winner,
/// RE `X+T`) or `Nigiri` (decided by nigiri, RE `X+F`). One type, the one stored in the
/// tournament's settings (its text `no-result`, `time-used`, `nigiri`: `as_str`).
pub use shinpan_storage::NoResultPolicy;

/// A foul named by a ruling (第十二条): the move, the rule broken and its article.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoulRef {
    /// The move number of the foul (1-based).
    pub move_number: u32,
    /// Machine rule, e.g. `"ko"` (see `goban::FoulRule::code`).
    pub rule: String,
    /// The article broken, e.g. `"第五条"`.
    pub article: String,
}

/// A foul in a case's evidence (from the recorded `foul` event or the reconstruction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvidenceFoul {
    /// The move number of the foul.
    pub move_number: u32,
    /// Who played it.
    pub color: Color,
    /// Machine rule (`"ko"`, ...).
    pub rule: String,
}

/// What the arbiter has before them when ruling.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evidence {
    /// The largest number of times a sequence has cycled in a row in the recorded game
    /// (`goban::Repetition::cycles`), 0 when the position never repeated.
    pub max_cycles: u32,
    /// The fouls recorded in the game.
    pub fouls: Vec<EvidenceFoul>,
}

/// The kind of ruling (see `RulingKind` in `results.proto`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RulingKind {
    /// 無勝負 (第十一条).
    NoResult,
    /// 反則負け (第十二条).
    FoulLoss,
    /// 両負け (要請II-\[vii\] 3, 4).
    BothLose,
    /// Play resumes (第九条: a resumption dispute).
    Resumption,
    /// The proposed result stands (the players confirm it again).
    Uphold,
    /// The result is amended.
    Amend,
    /// 第九条2: no agreement on the end — the game ends and is counted by 第七条・第八条.
    EndByCount,
}

/// A ruling as the referee gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct RulingInput {
    /// Kind.
    pub kind: RulingKind,
    /// The written reason (required).
    pub reason: String,
    /// 反則負け: the player who committed the foul.
    pub loser: Option<Color>,
    /// 反則負け: the foul.
    pub foul: Option<FoulRef>,
    /// Amend: the new result, SGF RE syntax.
    pub amended_result: Option<String>,
    /// 無勝負 under a time-used or nigiri policy: the winner so decided.
    pub winner: Option<Color>,
}

/// What a ruling does to the game's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A new proposal with this result and ending (the players confirm again).
    Propose {
        /// SGF RE text.
        result: String,
        /// Ending recorded.
        ending: Ending,
    },
    /// The current proposal stands and is proposed again for fresh confirmations.
    Repropose,
    /// Play resumes (第九条): the game returns to `playing`; an open proposal lapses.
    Resume,
    /// The game ends and the adjudicator's count (第七条・第八条, 第十条) is proposed.
    Count,
}

/// Validates a ruling against the evidence and the result's stage, and gives its effect
/// and the policy applied (`Some` only for 無勝負 rulings).
///
/// * 無勝負 (第十一条 解説 "同一の手順が二回以上循環し、双方が譲らない場合は無勝負とする"): only
///   when the evidence shows a sequence that has cycled twice or more (`max_cycles >= 2`).
///   Under [`NoResultPolicy::TimeUsed`] / [`NoResultPolicy::Nigiri`] the ruling must name
///   the winner so decided; under [`NoResultPolicy::NoResult`] it must not.
/// * 反則負け (第十二条): names the player and the foul (move, rule, article); the foul must
///   be among the recorded fouls, by that player. Only before finality.
/// * 両負け: no particulars beyond the reason.
/// * Resumption (第九条): play resumes. End by count (第九条2): the game ends and is counted
///   by 第七条・第八条.
/// * Uphold: only when a result is proposed. Amend: a well-formed result other than `?`.
///
/// # Errors
/// [`LifecycleError::Final`] once final; [`LifecycleError::Invalid`] for a missing reason
/// or particulars; [`LifecycleError::Evidence`] when the evidence does not support it.
pub fn rule(
    phase: ResultStage,
    input: &RulingInput,
    evidence: &Evidence,
    policy: NoResultPolicy,
) -> Result<(Effect, Option<NoResultPolicy>), LifecycleError> {
    check(phase, Action::Rule)?;
    if input.reason.trim().is_empty() {
        return Err(LifecycleError::Invalid("a ruling needs a written reason".into()));
    }
    match input.kind {
        RulingKind::NoResult => {
            if evidence.max_cycles < 2 {
                return Err(LifecycleError::Evidence(format!(
                    "無勝負 (第十一条) needs the same sequence to have cycled twice or more; the record shows {} cycle(s)",
                    evidence.max_cycles
                )));
            }
            let (result, applied) = match policy {
                NoResultPolicy::NoResult => {
                    if input.winner.is_some() {
                        return Err(LifecycleError::Invalid(
                            "the tournament's policy is 無勝負 (no-result): a 無勝負 ruling names no winner".into(),
                        ));
                    }
                    (GameResult::NoResult.to_sgf(), policy)
                }
                NoResultPolicy::TimeUsed | NoResultPolicy::Nigiri => {
                    let w = input.winner.ok_or_else(|| {
                        LifecycleError::Invalid(format!(
                            "the tournament's policy replaces 無勝負 by a decision ({}): the ruling names the winner",
                            policy.as_str()
                        ))
                    })?;
                    let suffix = if policy == NoResultPolicy::TimeUsed { "T" } else { "F" };
                    (format!("{}+{suffix}", w.letter()), policy)
                }
            };
            Ok((Effect::Propose { result, ending: Ending::NoResult }, Some(applied)))
        }
        RulingKind::FoulLoss => {
            let loser =
                input.loser.ok_or_else(|| LifecycleError::Invalid("a 反則負け ruling names the player who committed the foul".into()))?;
            let foul = input
                .foul
                .as_ref()
                .ok_or_else(|| LifecycleError::Invalid("a 反則負け ruling names the foul (move, rule, article)".into()))?;
            if foul.move_number == 0 || foul.rule.trim().is_empty() || foul.article.trim().is_empty() {
                return Err(LifecycleError::Invalid("the foul needs its move number, rule and article".into()));
            }
            match evidence.fouls.iter().find(|f| f.move_number == foul.move_number) {
                None => return Err(LifecycleError::Evidence(format!("no foul is recorded at move {}", foul.move_number))),
                Some(f) if f.color != loser => {
                    return Err(LifecycleError::Evidence(format!(
                        "the foul at move {} was played by {}, not {}",
                        foul.move_number,
                        f.color.name(),
                        loser.name()
                    )))
                }
                Some(f) if f.rule != foul.rule => {
                    return Err(LifecycleError::Evidence(format!(
                        "the foul at move {} broke rule `{}`, not `{}`",
                        foul.move_number, f.rule, foul.rule
                    )))
                }
                Some(_) => {}
            }
            let winner = loser.opponent();
            Ok((Effect::Propose { result: GameResult::Forfeit { winner }.to_sgf(), ending: Ending::FoulLoss }, None))
        }
        RulingKind::BothLose => Ok((Effect::Propose { result: GameResult::BothLose.to_sgf(), ending: Ending::BothLose }, None)),
        RulingKind::Resumption => Ok((Effect::Resume, None)),
        RulingKind::EndByCount => Ok((Effect::Count, None)),
        RulingKind::Uphold => {
            if !matches!(phase, ResultStage::Proposed | ResultStage::Disputed) {
                return Err(LifecycleError::NothingProposed);
            }
            Ok((Effect::Repropose, None))
        }
        RulingKind::Amend => {
            let text = input
                .amended_result
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .ok_or_else(|| LifecycleError::Invalid("an amending ruling gives the amended result".into()))?;
            let parsed =
                GameResult::from_sgf(text).ok_or_else(|| LifecycleError::Invalid(format!("`{text}` is not an SGF result (RE)")))?;
            let ending = match parsed {
                GameResult::Undecided => return Err(LifecycleError::Invalid("a ruling decides: `?` is not a result".into())),
                GameResult::Win { .. } => Ending::Count,
                GameResult::Jigo => Ending::Jigo,
                GameResult::Resignation { .. } => Ending::Resignation,
                GameResult::Forfeit { .. } => {
                    if text.to_ascii_uppercase().ends_with("+T") || text.to_ascii_lowercase().ends_with("time") {
                        Ending::TimeForfeit
                    } else {
                        Ending::FoulLoss
                    }
                }
                GameResult::NoResult => Ending::NoResult,
                GameResult::BothLose => Ending::BothLose,
            };
            Ok((Effect::Propose { result: parsed_text(&parsed, text), ending }, None))
        }
    }
}

/// Canonical RE text of a parsed result, keeping `X+T` (time) as written.
fn parsed_text(parsed: &GameResult, written: &str) -> String {
    match parsed {
        GameResult::Forfeit { winner } if written.to_ascii_uppercase().ends_with("+T") => format!("{}+T", winner.letter()),
        other => other.to_sgf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ruling(kind: RulingKind) -> RulingInput {
        RulingInput { kind, reason: "seen by the referee".into(), loser: None, foul: None, amended_result: None, winner: None }
    }

    #[test]
    fn finality_refuses_everything_but_a_correction() {
        for a in [Action::Propose, Action::Confirm(Party::Black), Action::Confirm(Party::Referee), Action::Object, Action::Rule] {
            assert_eq!(check(ResultStage::Final, a), Err(LifecycleError::Final), "{a:?}");
        }
        assert_eq!(check(ResultStage::Final, Action::Correct), Ok(()));
        assert_eq!(check(ResultStage::Proposed, Action::Correct), Err(LifecycleError::NotFinal));
    }

    #[test]
    fn objection_blocks_confirmation_until_ruled() {
        assert_eq!(check(ResultStage::Disputed, Action::Confirm(Party::White)), Err(LifecycleError::Disputed));
        assert_eq!(check(ResultStage::Disputed, Action::Propose), Err(LifecycleError::Disputed));
        assert_eq!(check(ResultStage::Disputed, Action::Object), Ok(()));
        assert_eq!(check(ResultStage::Disputed, Action::Rule), Ok(()));
        assert_eq!(check(ResultStage::Open, Action::Confirm(Party::Black)), Err(LifecycleError::NothingProposed));
        assert_eq!(check(ResultStage::Open, Action::Object), Err(LifecycleError::NothingProposed));
        assert_eq!(check(ResultStage::Proposed, Action::Confirm(Party::Referee)), Ok(()));
    }

    #[test]
    fn final_needs_both_players_and_the_referee() {
        assert!(!complete(&[Party::Black, Party::White]));
        assert!(!complete(&[Party::Referee, Party::White]));
        assert!(complete(&[Party::White, Party::Referee, Party::Black]));
        assert_eq!(pending(&[Party::White]), vec![Party::Black, Party::Referee]);
    }

    #[test]
    fn result_texts_of_each_ending() {
        let b = Some(Color::Black);
        let w = Some(Color::White);
        assert_eq!(result_text(Ending::Resignation, w, None).unwrap().0, "W+R");
        assert_eq!(result_text(Ending::TimeForfeit, b, None).unwrap().0, "B+T");
        assert_eq!(result_text(Ending::FoulLoss, b, None).unwrap().0, "B+F");
        assert_eq!(result_text(Ending::NoResult, None, None).unwrap().0, "Void");
        assert_eq!(result_text(Ending::BothLose, None, None).unwrap().0, "BothLose");
        let win = GameResult::Win { winner: Color::Black, margin: 3.5 };
        assert_eq!(result_text(Ending::Count, None, Some(&win)).unwrap(), ("B+3.5".to_string(), Ending::Count));
        // Equal counts are 持碁 whatever was proposed.
        assert_eq!(result_text(Ending::Count, None, Some(&GameResult::Jigo)).unwrap(), ("0".to_string(), Ending::Jigo));
        assert!(result_text(Ending::Jigo, None, Some(&win)).is_err());
        assert!(result_text(Ending::Count, None, Some(&GameResult::Undecided)).is_err());
        assert!(result_text(Ending::Resignation, None, None).is_err());
        assert!(result_text(Ending::Count, None, None).is_err());
    }

    #[test]
    fn no_result_needs_two_cycles() {
        let mut ev = Evidence { max_cycles: 1, fouls: vec![] };
        let r = rule(ResultStage::Proposed, &ruling(RulingKind::NoResult), &ev, NoResultPolicy::NoResult);
        assert!(matches!(r, Err(LifecycleError::Evidence(_))), "{r:?}");
        ev.max_cycles = 2;
        let (effect, policy) = rule(ResultStage::Proposed, &ruling(RulingKind::NoResult), &ev, NoResultPolicy::NoResult).unwrap();
        assert_eq!(effect, Effect::Propose { result: "Void".into(), ending: Ending::NoResult });
        assert_eq!(policy, Some(NoResultPolicy::NoResult));
        // Before any proposal too (the game stopped in the cycle).
        assert!(rule(ResultStage::Open, &ruling(RulingKind::NoResult), &ev, NoResultPolicy::NoResult).is_ok());
    }

    #[test]
    fn no_result_policy_decides_with_a_named_winner() {
        let ev = Evidence { max_cycles: 3, fouls: vec![] };
        assert!(matches!(
            rule(ResultStage::Open, &ruling(RulingKind::NoResult), &ev, NoResultPolicy::Nigiri),
            Err(LifecycleError::Invalid(_))
        ));
        let mut r = ruling(RulingKind::NoResult);
        r.winner = Some(Color::White);
        let (effect, policy) = rule(ResultStage::Open, &r, &ev, NoResultPolicy::Nigiri).unwrap();
        assert_eq!(effect, Effect::Propose { result: "W+F".into(), ending: Ending::NoResult });
        assert_eq!(policy, Some(NoResultPolicy::Nigiri));
        let (effect, _) = rule(ResultStage::Open, &r, &ev, NoResultPolicy::TimeUsed).unwrap();
        assert_eq!(effect, Effect::Propose { result: "W+T".into(), ending: Ending::NoResult });
        assert!(rule(ResultStage::Open, &r, &ev, NoResultPolicy::NoResult).is_err());
    }

    #[test]
    fn foul_loss_must_match_a_recorded_foul_and_come_before_finality() {
        let ev = Evidence { max_cycles: 0, fouls: vec![EvidenceFoul { move_number: 7, color: Color::White, rule: "ko".into() }] };
        let mut r = ruling(RulingKind::FoulLoss);
        assert!(matches!(rule(ResultStage::Proposed, &r, &ev, NoResultPolicy::NoResult), Err(LifecycleError::Invalid(_))));
        r.loser = Some(Color::White);
        r.foul = Some(FoulRef { move_number: 7, rule: "ko".into(), article: "第五条".into() });
        let (effect, _) = rule(ResultStage::Proposed, &r, &ev, NoResultPolicy::NoResult).unwrap();
        assert_eq!(effect, Effect::Propose { result: "B+F".into(), ending: Ending::FoulLoss });
        // Wrong player, wrong move, wrong rule.
        r.loser = Some(Color::Black);
        assert!(matches!(rule(ResultStage::Proposed, &r, &ev, NoResultPolicy::NoResult), Err(LifecycleError::Evidence(_))));
        r.loser = Some(Color::White);
        r.foul.as_mut().unwrap().move_number = 8;
        assert!(matches!(rule(ResultStage::Proposed, &r, &ev, NoResultPolicy::NoResult), Err(LifecycleError::Evidence(_))));
        r.foul.as_mut().unwrap().move_number = 7;
        r.foul.as_mut().unwrap().rule = "suicide".into();
        assert!(matches!(rule(ResultStage::Proposed, &r, &ev, NoResultPolicy::NoResult), Err(LifecycleError::Evidence(_))));
        r.foul.as_mut().unwrap().rule = "ko".into();
        // 第十二条: only before the result is confirmed.
        assert_eq!(rule(ResultStage::Final, &r, &ev, NoResultPolicy::NoResult), Err(LifecycleError::Final));
    }

    #[test]
    fn rulings_need_a_reason_and_amendments_a_result() {
        let ev = Evidence::default();
        let mut r = ruling(RulingKind::BothLose);
        r.reason = "  ".into();
        assert!(matches!(rule(ResultStage::Proposed, &r, &ev, NoResultPolicy::NoResult), Err(LifecycleError::Invalid(_))));
        let r = ruling(RulingKind::BothLose);
        assert_eq!(
            rule(ResultStage::Proposed, &r, &ev, NoResultPolicy::NoResult).unwrap().0,
            Effect::Propose { result: "BothLose".into(), ending: Ending::BothLose }
        );
        let mut a = ruling(RulingKind::Amend);
        assert!(rule(ResultStage::Disputed, &a, &ev, NoResultPolicy::NoResult).is_err());
        a.amended_result = Some("?".into());
        assert!(rule(ResultStage::Disputed, &a, &ev, NoResultPolicy::NoResult).is_err());
        a.amended_result = Some("W+1.5".into());
        assert_eq!(
            rule(ResultStage::Disputed, &a, &ev, NoResultPolicy::NoResult).unwrap().0,
            Effect::Propose { result: "W+1.5".into(), ending: Ending::Count }
        );
        a.amended_result = Some("B+T".into());
        assert_eq!(
            rule(ResultStage::Disputed, &a, &ev, NoResultPolicy::NoResult).unwrap().0,
            Effect::Propose { result: "B+T".into(), ending: Ending::TimeForfeit }
        );
        assert_eq!(rule(ResultStage::Disputed, &ruling(RulingKind::Uphold), &ev, NoResultPolicy::NoResult).unwrap().0, Effect::Repropose);
        assert_eq!(
            rule(ResultStage::Open, &ruling(RulingKind::Uphold), &ev, NoResultPolicy::NoResult),
            Err(LifecycleError::NothingProposed)
        );
        assert_eq!(rule(ResultStage::Proposed, &ruling(RulingKind::Resumption), &ev, NoResultPolicy::NoResult).unwrap().0, Effect::Resume);
        assert_eq!(rule(ResultStage::Open, &ruling(RulingKind::EndByCount), &ev, NoResultPolicy::NoResult).unwrap().0, Effect::Count);
        assert_eq!(rule(ResultStage::Final, &ruling(RulingKind::EndByCount), &ev, NoResultPolicy::NoResult), Err(LifecycleError::Final));
    }

    #[test]
    fn endings_round_trip_their_reason() {
        for e in Ending::ALL {
            assert_eq!(Ending::from_reason(e.reason()), Some(e));
        }
        assert_eq!(Ending::from_reason("adjudication"), Some(Ending::Count));
        assert_eq!(Ending::from_reason("nonsense"), None);
    }
}
