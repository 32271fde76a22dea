//! Replaying a [`Record`] into a [`goban::Game`].
//!
//! ## Records that continue after the players passed
//!
//! A record is what the players did. When play has stopped for agreement (`japanese-2011`:
//! three consecutive passes, 第九条; `japanese-1989`/`chinese`: two) and the record goes on,
//! the players did not agree and play resumed: the engine ([`goban::Game::play`]) takes a move
//! in [`Phase::Stopped`] as resuming play, with the player to move continuing under
//! `japanese-2011` (第九条: 手番の方が対局を続行する) and either player under `japanese-1989` (the
//! opponent of whoever asked to resume moves first, 要請I-\[vi\]; the record does not say who
//! asked). [`Replayed::resumed`] lists where that happened.
//!
//! Once the game has *ended* (`japanese-2011`: four consecutive passes, 第九条2; the 純碁 rule
//! sets: two), life and death is settled by the rules and a further stone is the foul
//! [`FoulRule::AfterEnd`]. A further *pass* changes nothing on the board and is skipped (a
//! server writing one pass too many has not committed a foul).

use crate::error::SgfError;
use crate::record::Record;
use goban::{Board, Color, Foul, FoulRule, Game, Move, Phase, Point, RuleSet};

/// A record replayed into a game.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The game after the last legal move of the record (before the foul, if any).
    pub game: Game,
    /// The first illegal move (第十二条): it was not applied and the replay stopped there —
    /// a foul loses the game (反則負け), so nothing after it counts.
    pub foul: Option<Foul>,
    /// Move numbers (1-based) of the stones that resumed play after it had stopped
    /// (第九条).
    pub resumed: Vec<u32>,
    /// What the reader did that a referee should know, one sentence each: setup after the
    /// first move ([`crate::LaterSetup`]) that changed a stone, with the move number it
    /// followed and the points. Empty for an ordinary record.
    pub warnings: Vec<String>,
}

impl Record {
    /// The rule set named by `RU`, if recognised (`goban::RuleSet::from_sgf_ru`).
    pub fn rule_set(&self) -> Option<RuleSet> {
        self.info.rules.as_deref().and_then(RuleSet::from_sgf_ru)
    }

    /// Komi for scoring: `KM` if present, else the rule set's default for the board size.
    pub fn komi_or_default(&self, rules: RuleSet) -> f64 {
        self.info.komi.unwrap_or_else(|| rules.default_komi(self.width, self.height))
    }

    /// The position before the first move, under `rules`:
    /// * `AB`/`AW` setup stones are placed (free handicap placement, 第二条3);
    /// * `HA[n]` (n ≥ 2) without any setup stones: the fixed placement for 19/13/9
    ///   (`goban::Game::with_handicap`);
    /// * who moves first: `PL` if given; else White in a handicap game (`HA` ≥ 2, 第二条3);
    ///   else, for a setup position (stones but no `HA`), the colour of the record's first
    ///   move; else Black (第二条3).
    ///
    /// # Errors
    /// [`SgfError::Handicap`] if `HA` asks for a fixed placement the board does not have.
    pub fn initial_game(&self, rules: RuleSet) -> Result<Game, SgfError> {
        let has_stones = !self.setup.black.is_empty() || !self.setup.white.is_empty();
        let handicap = self.info.handicap;
        let mut game = if handicap >= 2 && !has_stones {
            Game::with_handicap(self.width, self.height, rules, handicap).map_err(|e| SgfError::Handicap {
                handicap,
                width: self.width,
                height: self.height,
                message: e.to_string(),
            })?
        } else {
            let mut board = Board::new(self.width as u32, self.height as u32)
                .map_err(|_| SgfError::BadSize { value: format!("{}:{}", self.width, self.height) })?;
            for (list, c) in [(&self.setup.black, Color::Black), (&self.setup.white, Color::White)] {
                for &p in list {
                    // Points were checked against the board when the record was read.
                    board.set(p, Some(c)).map_err(|_| SgfError::BadSize { value: format!("{}:{}", self.width, self.height) })?;
                }
            }
            let to_move = if handicap >= 2 {
                Color::White
            } else if has_stones {
                self.moves.first().map_or(Color::Black, |m| m.color)
            } else {
                Color::Black
            };
            Game::new(board, rules, to_move)
        };
        if let Some(c) = self.to_play {
            game.set_to_move(c);
        }
        Ok(game)
    }

    /// Replays the main line under `rules` and returns the game, stopping at the first foul
    /// (see [`Replayed`] and the module notes on resumption).
    ///
    /// # Errors
    /// As [`Record::initial_game`].
    pub fn to_game(&self, rules: RuleSet) -> Result<Replayed, SgfError> {
        self.replay_with(rules, |_, _| {})
    }

    /// As [`Record::to_game`], calling `each(index, &game)` after every applied move
    /// (`index` 0-based into [`Record::moves`]), e.g. to compare positions move by move.
    ///
    /// # Errors
    /// As [`Record::initial_game`].
    pub fn replay_with(&self, rules: RuleSet, mut each: impl FnMut(usize, &Game)) -> Result<Replayed, SgfError> {
        let mut game = self.initial_game(rules)?;
        let mut resumed = Vec::new();
        let mut warnings = Vec::new();
        for (index, m) in self.moves.iter().enumerate() {
            self.apply_later_setup(index, &mut game, &mut warnings);
            let stopped = game.phase() == Phase::Stopped;
            match game.apply(m.color, m.mv) {
                Ok(_) => {
                    if stopped && m.mv != Move::Pass {
                        resumed.push(game.move_number());
                    }
                    each(index, &game);
                }
                // One more pass after the end: nothing happens on the board.
                Err(foul) if m.mv == Move::Pass && foul.rule == FoulRule::AfterEnd => {}
                Err(foul) => return Ok(Replayed { game, foul: Some(foul), resumed, warnings }),
            }
        }
        self.apply_later_setup(self.moves.len(), &mut game, &mut warnings);
        Ok(Replayed { game, foul: None, resumed, warnings })
    }

    /// Applies the setup that comes before move `index` ([`crate::LaterSetup`]) to `game`
    /// (`goban::Game::setup`), adding a warning for each one that changed a stone.
    fn apply_later_setup(&self, index: usize, game: &mut Game, warnings: &mut Vec<String>) {
        for l in self.later_setup.iter().filter(|l| l.before_move == index) {
            let s = &l.setup;
            let changes: Vec<(Point, Option<Color>)> = s
                .black
                .iter()
                .map(|&p| (p, Some(Color::Black)))
                .chain(s.white.iter().map(|&p| (p, Some(Color::White))))
                .chain(s.empty.iter().map(|&p| (p, None)))
                .filter(|&(p, c)| game.board().get(p) != c)
                .collect();
            if changes.is_empty() {
                continue;
            }
            let text: Vec<String> = changes
                .iter()
                .map(|&(p, c)| format!("{}[{}]", c.map_or("AE", |c| if c == Color::Black { "AB" } else { "AW" }), p.to_sgf()))
                .collect();
            // The points were checked against the board when the record was read.
            let _ = game.setup(&changes);
            warnings.push(format!(
                "setup after move {} changed the board outside the rules (no capture, no legality check): {}",
                game.move_number(),
                text.join(" ")
            ));
        }
    }
}
