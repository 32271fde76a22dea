//! Rule sets as parameters: ko rule, suicide, passes that stop/end play, scoring, komi.
//!
//! Every rule set shinpan knows is the same game engine with different parameters (rule sets
//! that differ are parameters, not forks of the code):
//!
//! | rule set          | ko (第五条)        | suicide (第四条) | stop / end (第九条)        | scoring                 | komi 19 / 13 / 9 |
//! |-------------------|--------------------|------------------|----------------------------|-------------------------|------------------|
//! | `japanese-2011`   | basic              | forbidden        | 3 passes stop, 4 end       | territory (第八条・第十条) | 6.5 / 4.5 / 3.5 |
//! | `japanese-1989`   | basic (要請II-\[ii\]-3) | forbidden     | 2 passes stop (要請I-\[vi\]) | territory (要請II-\[v\],\[vi\]) | 6.5 / 4.5 / 3.5 |
//! | `chinese`         | positional superko | forbidden        | 2 passes stop              | area                    | 7.5 / 7.5 / 7.5 |
//! | `jungo`           | basic              | forbidden        | 2 passes end               | stones on the board     | 7.5 / 7.5 / 7.5 |
//! | `japanese-jungo`  | basic (試案4)      | allowed (試案C)  | 2 passes end (試案5)       | territory − own captured stones, passes hand over a stone | 6.5 / 4.5 / 3.5 |
//!
//! Sources (all in `../shared/rules/`): `kiyaku-2011-draft-commentary.txt` (the articles
//! 第一条..第十二条 cited throughout), `rules-explained-as-postulates.txt` (the 1989 rules:
//! 要請I-\[vi\] two passes stop play and the opponent of the player asking to resume moves
//! first; 要請II-\[ii\]-3 forbids a move that recreates the board as it was after the same
//! player's previous move, which with suicide forbidden is exactly the basic ko of 第五条;
//! 要請II-\[vi\] komi 6.5), `japanese-jungo-proposal.txt` (日本式純碁試案 rules 1–8 and
//! remarks A–F) and `brainking-go-rules.txt` (komi by board size).

use std::fmt;
use std::str::FromStr;

/// A named rule set. `japanese-2011` (the 2011 draft revision of the Japanese rules) is the
/// default.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum RuleSet {
    /// 日本囲碁規約「修正案」(2011): basic ko (第五条), suicide forbidden (第四条), three
    /// consecutive passes stop play for agreement and four end it (第九条), territory
    /// scoring (第八条・第十条). The default.
    #[default]
    Japanese2011,
    /// 日本囲碁規約 (1989) as explained in the postulates: two passes stop play; if play
    /// resumes, the opponent of the player who asked moves first (要請I-\[vi\]).
    Japanese1989,
    /// Chinese rules: area scoring, positional superko, two passes.
    Chinese,
    /// 純碁 (王銘琬): the stones on the board are the score.
    Jungo,
    /// 日本式純碁試案 (`japanese-jungo-proposal.txt`): every stone on the board at the end
    /// is alive, seki eyes are territory, score = territory − own captured stones, a pass
    /// hands one stone to the opponent, no forbidden points.
    JapaneseJungo,
}

/// The ko rule in force.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum KoRule {
    /// 第五条: a player whose ko stone was just taken may not retake it (capture exactly
    /// one stone that recreates the previous shape) on the very next turn; after a move
    /// elsewhere or a pass, the retake is allowed.
    Basic,
    /// Positional superko: no move may recreate an arrangement of stones that existed
    /// before in the game (whoever was to move). Includes the basic ko of 第五条.
    PositionalSuperko,
}

/// How a finished game is counted (see [`crate::score::score`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Scoring {
    /// 第八条 territory and 第十条: territory + prisoners (+ komi for White).
    Territory,
    /// Area: living stones + territory (+ komi for White); seki eyes count.
    Area,
    /// 純碁: stones on the board (+ komi for White).
    Jungo,
    /// 日本式純碁試案: territory (seki eyes included, every stone alive) − own stones
    /// captured (passes count as captured stones) (+ komi for White).
    JapaneseJungo,
}

/// Error for an unknown rule-set name ([`RuleSet::from_str`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRuleSet(pub String);

impl fmt::Display for UnknownRuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown rule set `{}` (known: japanese-2011, japanese-1989, chinese, jungo, japanese-jungo)", self.0)
    }
}
impl std::error::Error for UnknownRuleSet {}

/// Lower-case and drop blanks, `-`, `_`, `.`, `'`, parentheses and a trailing "rules" /
/// "ルール" so that `"Japanese 2011"`, `"japanese_2011"`, `"Japanese (2011)"` and
/// `"japanese-2011"` compare equal.
fn normalize(s: &str) -> String {
    let n: String =
        s.trim().chars().filter(|c| !matches!(c, ' ' | '\t' | '-' | '_' | '.' | '\'' | '(' | ')')).flat_map(char::to_lowercase).collect();
    match n.strip_suffix("rules").or_else(|| n.strip_suffix("rule")) {
        Some(stem) if !stem.is_empty() => stem.to_string(),
        _ => n,
    }
}

impl RuleSet {
    /// Every rule set, the default first.
    pub const ALL: [RuleSet; 5] = [RuleSet::Japanese2011, RuleSet::Japanese1989, RuleSet::Chinese, RuleSet::Jungo, RuleSet::JapaneseJungo];

    /// The canonical name: `"japanese-2011"`, `"japanese-1989"`, `"chinese"`, `"jungo"`,
    /// `"japanese-jungo"` (the values of the `--rules` switch).
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Japanese2011 => "japanese-2011",
            RuleSet::Japanese1989 => "japanese-1989",
            RuleSet::Chinese => "chinese",
            RuleSet::Jungo => "jungo",
            RuleSet::JapaneseJungo => "japanese-jungo",
        }
    }

    /// The rule set with this canonical [`name`](RuleSet::name), compared
    /// case-insensitively (surrounding blanks ignored); `None` for anything else.
    pub fn from_name(s: &str) -> Option<RuleSet> {
        let t = s.trim();
        RuleSet::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(t))
    }

    /// Maps an SGF `RU[]` value to a rule set, or `None` if shinpan has no rule set for it
    /// (the caller then uses its default, `japanese-2011`, and should say so).
    ///
    /// Comparison ignores case, blanks, `-`, `_`, `.`, parentheses and a trailing
    /// "rules". Mapped spellings:
    /// * `japanese-2011`: `Japanese`, `jp`, `ja`, `jpn`, `japan`, `Japanese 2011`,
    ///   `nihonkiin`, `日本`, `日本ルール`, `Korean`, `ko`, `kr` (Korean rules count
    ///   territory like the Japanese ones);
    /// * `japanese-1989`: `japanese-1989`, `Japanese 1989`, `jp1989`, `日本囲碁規約`;
    /// * `chinese`: `Chinese`, `cn`, `zh`, `china`, `中国`, `中国ルール`, and `AGA`
    ///   (AGA rules count by area with pass stones and a superko rule; shinpan scores them
    ///   as `chinese`: same winner, same margin up to the AGA's pass-stone adjustment);
    /// * `jungo`: `jungo`, `純碁`; `japanese-jungo`: `japanese-jungo`, `日本式純碁`.
    ///
    /// Unknown (returns `None`): `GOE`/`Ing`, `NZ`/`New Zealand`, `Tromp-Taylor`/`TT` (area
    /// scoring with suicide allowed — no rule set here has that combination) and every
    /// other text.
    pub fn from_sgf_ru(ru: &str) -> Option<RuleSet> {
        let n = normalize(ru);
        if let Some(r) = RuleSet::ALL.into_iter().find(|r| normalize(r.name()) == n) {
            return Some(r);
        }
        match n.as_str() {
            "japanese"
            | "jp"
            | "ja"
            | "jpn"
            | "japan"
            | "japanese2011"
            | "jp2011"
            | "nihonkiin"
            | "日本"
            | "日本ルール"
            | "日本囲碁規約修正案"
            | "korean"
            | "ko"
            | "kr"
            | "kor" => Some(RuleSet::Japanese2011),
            "japanese1989" | "jp1989" | "japan1989" | "日本囲碁規約" | "日本囲碁規約1989" => Some(RuleSet::Japanese1989),
            "chinese" | "cn" | "zh" | "chn" | "china" | "中国" | "中国ルール" | "aga" => Some(RuleSet::Chinese),
            "純碁" => Some(RuleSet::Jungo),
            "日本式純碁" | "日本式純碁試案" => Some(RuleSet::JapaneseJungo),
            _ => None,
        }
    }

    /// The value written to SGF `RU[]`: `"Japanese"` for `japanese-2011` and `"Chinese"`
    /// for `chinese` (the FF\[4\] names), the canonical name for the others. Round-trips
    /// through [`RuleSet::from_sgf_ru`].
    pub const fn sgf_ru(self) -> &'static str {
        match self {
            RuleSet::Japanese2011 => "Japanese",
            RuleSet::Chinese => "Chinese",
            other => other.name(),
        }
    }

    /// Komi (points added to White's score) when the record names none, for a
    /// `width × height` board.
    ///
    /// * Japanese rule sets (and `japanese-jungo`, which counts like them): 6.5 on 19x19
    ///   (the komi of the 1989 rules, 要請II-\[vi\]; the 2011 draft names none); 4.5 on 13x13
    ///   and 3.5 on 9x9: `brainking-go-rules.txt`, the only source at hand naming a
    ///   small-board komi, lowers komi by 1 point on 13x13 and 2 points on 9x9
    ///   (5.5 / 4.5 / 3.5); shinpan keeps its 13x13 and 9x9 figures as written there.
    /// * `chinese` and `jungo` (area-like counts): 7.5 on every board (3¾ stones, the
    ///   Chinese rules' komi; computer-Go servers use 7.5 on 9x9 and 13x13 too).
    ///
    /// Other sizes take the value of the largest of 19x19, 13x13, 9x9 whose number of
    /// points the board reaches; boards under 81 points get 0.5 (no source names one;
    /// it only breaks ties). An SGF `KM` always overrides this.
    pub fn default_komi(self, width: u8, height: u8) -> f64 {
        let n = width as u32 * height as u32;
        match self {
            RuleSet::Chinese | RuleSet::Jungo => {
                if n >= 81 {
                    7.5
                } else {
                    0.5
                }
            }
            RuleSet::Japanese2011 | RuleSet::Japanese1989 | RuleSet::JapaneseJungo => {
                if n >= 361 {
                    6.5
                } else if n >= 169 {
                    4.5
                } else if n >= 81 {
                    3.5
                } else {
                    0.5
                }
            }
        }
    }

    /// The ko rule: [`KoRule::PositionalSuperko`] for `chinese`, [`KoRule::Basic`]
    /// (第五条) otherwise.
    pub const fn ko_rule(self) -> KoRule {
        match self {
            RuleSet::Chinese => KoRule::PositionalSuperko,
            _ => KoRule::Basic,
        }
    }

    /// Whether suicide is a legal move (the suicided chain goes to the opponent's
    /// prisoners). Only `japanese-jungo` (試案 remark C: there are no forbidden points;
    /// the opponent takes such stones) allows it; everywhere else 第四条 forbids it.
    pub const fn allow_suicide(self) -> bool {
        matches!(self, RuleSet::JapaneseJungo)
    }

    /// How the game is counted.
    pub const fn scoring(self) -> Scoring {
        match self {
            RuleSet::Japanese2011 | RuleSet::Japanese1989 => Scoring::Territory,
            RuleSet::Chinese => Scoring::Area,
            RuleSet::Jungo => Scoring::Jungo,
            RuleSet::JapaneseJungo => Scoring::JapaneseJungo,
        }
    }

    /// Consecutive passes after which play stops (for agreement on life and death, or
    /// for good in the 純碁 rule sets): 3 for `japanese-2011` (第九条), 2 for the others
    /// (1989 要請I-\[vi\]; chinese; 純碁試案 rule 5).
    pub const fn passes_to_stop(self) -> u32 {
        match self {
            RuleSet::Japanese2011 => 3,
            _ => 2,
        }
    }

    /// Consecutive passes after which play has ended and cannot resume: `Some(4)` for
    /// `japanese-2011` (第九条2: life and death are then decided by 第七条/第八条),
    /// `Some(2)` for `jungo` and `japanese-jungo` (no life-and-death dispute: the stones
    /// on the board count), `None` for `japanese-1989` and `chinese` (play stops after
    /// two passes and ends by agreement; a disagreement resumes play).
    pub const fn passes_to_end(self) -> Option<u32> {
        match self {
            RuleSet::Japanese2011 => Some(4),
            RuleSet::Jungo | RuleSet::JapaneseJungo => Some(2),
            RuleSet::Japanese1989 | RuleSet::Chinese => None,
        }
    }

    /// Who moves first when play resumes after a stop: `true` if it is the opponent of the
    /// player who asked to resume (1989, 要請I-\[vi\]); `false` if it is the player whose turn
    /// it is (第九条: 手番の方が対局を続行する).
    pub const fn resume_opponent_of_asker(self) -> bool {
        matches!(self, RuleSet::Japanese1989)
    }

    /// Whether the consecutive-pass count starts again from zero when play resumes after a
    /// stop. `false` for `japanese-2011`, where a pass after the three that stopped play is
    /// the fourth consecutive pass and ends the game (第九条2); `true` elsewhere.
    pub const fn resume_resets_passes(self) -> bool {
        !matches!(self, RuleSet::Japanese2011)
    }

    /// Whether a foul loses the game (第十二条 反則負け). `false` for `japanese-jungo`,
    /// whose remarks B–D make mistakes (suicide, an immediate ko retake) something to
    /// correct rather than a loss; the engine still reports and refuses the move.
    pub const fn fouls_lose(self) -> bool {
        !matches!(self, RuleSet::JapaneseJungo)
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RuleSet {
    type Err = UnknownRuleSet;
    /// Parses a canonical name (case-insensitive), as [`RuleSet::from_name`].
    fn from_str(s: &str) -> Result<RuleSet, UnknownRuleSet> {
        RuleSet::from_name(s).ok_or_else(|| UnknownRuleSet(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in RuleSet::ALL {
            assert_eq!(RuleSet::from_name(r.name()), Some(r));
            assert_eq!(r.name().to_uppercase().parse::<RuleSet>(), Ok(r));
            assert_eq!(r.to_string(), r.name());
            assert_eq!(RuleSet::from_sgf_ru(r.sgf_ru()), Some(r), "{r}");
            assert_eq!(RuleSet::from_sgf_ru(r.name()), Some(r), "{r}");
        }
        assert!("japanese".parse::<RuleSet>().is_err());
        assert_eq!(RuleSet::default(), RuleSet::Japanese2011);
    }

    #[test]
    fn sgf_ru_spellings() {
        for s in ["Japanese", "jp", "JAPANESE", " japanese ", "Japanese 2011", "日本", "Korean", "Japanese rules", "Japanese (2011)"] {
            assert_eq!(RuleSet::from_sgf_ru(s), Some(RuleSet::Japanese2011), "{s}");
        }
        for s in ["Chinese", "cn", "CN", "AGA", "zh", "Chinese rules", "中国ルール"] {
            assert_eq!(RuleSet::from_sgf_ru(s), Some(RuleSet::Chinese), "{s}");
        }
        for s in ["Japanese 1989", "japanese_1989", "jp1989"] {
            assert_eq!(RuleSet::from_sgf_ru(s), Some(RuleSet::Japanese1989), "{s}");
        }
        assert_eq!(RuleSet::from_sgf_ru("純碁"), Some(RuleSet::Jungo));
        assert_eq!(RuleSet::from_sgf_ru("Japanese Jungo"), Some(RuleSet::JapaneseJungo));
        for s in ["GOE", "NZ", "Tromp-Taylor", "", "whatever"] {
            assert_eq!(RuleSet::from_sgf_ru(s), None, "{s}");
        }
    }

    #[test]
    fn komi_by_rule_set_and_size() {
        assert_eq!(RuleSet::Japanese2011.default_komi(19, 19), 6.5);
        assert_eq!(RuleSet::Japanese1989.default_komi(19, 19), 6.5);
        assert_eq!(RuleSet::Japanese2011.default_komi(13, 13), 4.5);
        assert_eq!(RuleSet::Japanese2011.default_komi(9, 9), 3.5);
        assert_eq!(RuleSet::Chinese.default_komi(19, 19), 7.5);
        assert_eq!(RuleSet::Chinese.default_komi(9, 9), 7.5);
        assert_eq!(RuleSet::Japanese2011.default_komi(5, 5), 0.5);
        assert_eq!(RuleSet::Japanese2011.default_komi(21, 21), 6.5);
    }

    #[test]
    fn parameters() {
        assert_eq!(RuleSet::Japanese2011.ko_rule(), KoRule::Basic);
        assert_eq!(RuleSet::Chinese.ko_rule(), KoRule::PositionalSuperko);
        assert!(!RuleSet::Japanese2011.allow_suicide());
        assert!(RuleSet::JapaneseJungo.allow_suicide());
        assert_eq!(RuleSet::Japanese2011.passes_to_stop(), 3);
        assert_eq!(RuleSet::Japanese2011.passes_to_end(), Some(4));
        assert_eq!(RuleSet::Japanese1989.passes_to_stop(), 2);
        assert_eq!(RuleSet::Japanese1989.passes_to_end(), None);
        assert_eq!(RuleSet::Chinese.passes_to_stop(), 2);
        assert_eq!(RuleSet::Jungo.passes_to_end(), Some(2));
        assert_eq!(RuleSet::Chinese.scoring(), Scoring::Area);
        assert_eq!(RuleSet::Japanese1989.scoring(), Scoring::Territory);
        assert_eq!(RuleSet::JapaneseJungo.scoring(), Scoring::JapaneseJungo);
        assert!(RuleSet::Japanese1989.resume_opponent_of_asker());
        assert!(!RuleSet::Japanese2011.resume_opponent_of_asker());
    }
}
