//! A game in progress: turns, passes, resignation, handicap, prisoners, ko, fouls, end of
//! play and whole-board repetition.
//!
//! [`Game`] applies moves to a [`Board`] under a [`RuleSet`]:
//!
//! * alternate play and passes (第二条, 第二条2); the first player is given (Black in an
//!   even game, White after handicap stones: 第二条3, [`Game::with_handicap`]);
//! * captures and prisoners (ハマ, 第三条); suicide is a foul (第四条) unless the rule set
//!   allows it ([`RuleSet::allow_suicide`]);
//! * the basic ko rule (第五条): the player whose ko stone was just taken may not retake on
//!   the very next turn; after a move elsewhere or a pass the retake is legal (第五条 解説);
//!   positional superko when the rule set says so ([`RuleSet::ko_rule`]);
//! * fouls (第十二条): an illegal move is *not applied*; [`Game::play`] returns a [`Foul`]
//!   naming the move number, colour, move and the rule broken;
//! * end of play (第九条): consecutive passes stop play ([`Phase::Stopped`]) or end it
//!   ([`Phase::Ended`]) per [`RuleSet::passes_to_stop`] / [`RuleSet::passes_to_end`];
//!   resumption per rule set ([`Game::resume`], [`Game::resume_by`]);
//! * repetition (第十一条 無勝負): after every move the position (stones and player to move)
//!   is looked up by Zobrist hash in a hash → move-number map, and every hit is confirmed by
//!   a full comparison of the stones (so a hash collision is never reported). Each
//!   repetition is reported with the cycle of moves and how many times in a row that cycle
//!   has been played ([`Repetition`]).
//!
//! Replay does not allocate per move (a move log and the hash maps grow amortised; an
//! outcome's capture list allocates only when stones are captured).

use crate::board::{Board, Placed, PlayError};
use crate::point::{Color, Move, Point};
use crate::rules::{KoRule, RuleSet};
use crate::score::GameResult;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

pub use crate::handicap::{handicap_points, HandicapError};
pub use crate::outcome::{Foul, FoulRule, MoveOutcome, Phase, Repetition};

/// Hasher for keys that already are Zobrist hashes (uniformly random 64-bit values).
#[derive(Default, Clone, Copy)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type PosMap = HashMap<u64, u32, BuildHasherDefault<IdHasher>>;

const NO_KO: Point = Point { x: u8::MAX, y: u8::MAX };

/// A game: the board, whose turn it is, prisoners, passes, ko, the phase, the move history
/// and every whole-board repetition so far.
#[derive(Clone)]
pub struct Game {
    board: Board,
    rules: RuleSet,
    superko: bool,
    allow_suicide: bool,
    to_move: Color,
    move_number: u32,
    prisoners: [u32; 2],
    passes: [u32; 2],
    consecutive_passes: u32,
    phase: Phase,
    /// Point forbidden by 第五条 and the colour it is forbidden to (NO_KO if none).
    ko: Point,
    ko_color: Color,
    history: Vec<(Color, Move)>,
    /// Stones removed by each move, flat: move k's are `removed[removed_start[k-1]..removed_start[k]]`.
    removed: Vec<(Point, Color)>,
    removed_start: Vec<u32>,
    /// Position (stones + to move) hash → latest move number after which it occurred.
    positions: PosMap,
    /// Stones hash → latest move number (positional superko only).
    stones_seen: PosMap,
    repetitions: Vec<Repetition>,
    /// Period and run length (moves) of the repetition made by the previous move.
    last_run: Option<(u32, u32)>,
    resigned: Option<Color>,
    scratch: Placed,
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Game")
            .field("rules", &self.rules)
            .field("to_move", &self.to_move)
            .field("move_number", &self.move_number)
            .field("phase", &self.phase)
            .field("prisoners", &self.prisoners)
            .field("board", &self.board)
            .finish_non_exhaustive()
    }
}

#[inline]
fn foul(game_move: u32, color: Color, mv: Move, rule: FoulRule) -> Foul {
    Foul { move_number: game_move + 1, color, mv, rule }
}

impl Game {
    /// A game starting from `board` (empty, or holding setup/handicap stones) with
    /// `to_move` to play first (Black in an even game; White after handicap stones,
    /// 第二条3). The starting position counts as the position after move 0 for repetition.
    pub fn new(board: Board, rules: RuleSet, to_move: Color) -> Game {
        let mut g = Game {
            board,
            rules,
            superko: rules.ko_rule() == KoRule::PositionalSuperko,
            allow_suicide: rules.allow_suicide(),
            to_move,
            move_number: 0,
            prisoners: [0; 2],
            passes: [0; 2],
            consecutive_passes: 0,
            phase: Phase::Playing,
            ko: NO_KO,
            ko_color: Color::Black,
            history: Vec::with_capacity(400),
            removed: Vec::with_capacity(256),
            removed_start: Vec::with_capacity(401),
            positions: PosMap::with_capacity_and_hasher(512, Default::default()),
            stones_seen: PosMap::default(),
            repetitions: Vec::new(),
            last_run: None,
            resigned: None,
            scratch: Placed { captured: Vec::with_capacity(64), suicided: Vec::new(), ko: None },
        };
        g.removed_start.push(0);
        g.reset_positions();
        g
    }

    /// An empty `width × height` board with `handicap` stones at the standard fixed points
    /// ([`handicap_points`]) and White to move (第二条3). `handicap = 0` is an even game
    /// with Black to move.
    ///
    /// # Errors
    /// [`HandicapError`] for a board without fixed placement or a count other than 0, 2..=9.
    pub fn with_handicap(width: u8, height: u8, rules: RuleSet, handicap: u8) -> Result<Game, HandicapError> {
        let mut board = Board::new(width as u32, height as u32).map_err(HandicapError::Board)?;
        let points = handicap_points(width, height, handicap)?;
        for &p in &points {
            board.set(p, Some(Color::Black)).expect("handicap point on the board");
        }
        let first = if points.is_empty() { Color::Black } else { Color::White };
        Ok(Game::new(board, rules, first))
    }

    /// Re-applies `moves` to a new game (`Game::new(board, rules, to_move)`).
    ///
    /// # Errors
    /// The first [`Foul`].
    pub fn replay(board: Board, rules: RuleSet, to_move: Color, moves: &[(Color, Move)]) -> Result<Game, Foul> {
        let mut g = Game::new(board, rules, to_move);
        for &(c, m) in moves {
            g.apply(c, m)?;
        }
        Ok(g)
    }

    fn reset_positions(&mut self) {
        self.positions.clear();
        self.stones_seen.clear();
        self.positions.insert(self.board.hash(self.to_move), self.move_number);
        if self.superko {
            self.stones_seen.insert(self.board.stones_hash(), self.move_number);
        }
        self.last_run = None;
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// The rule set.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }
    /// Whose turn it is.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Sets whose turn it is (SGF `PL[]`). The current position is re-recorded for
    /// repetition with the new player to move.
    pub fn set_to_move(&mut self, c: Color) {
        if c == self.to_move {
            return;
        }
        let old = self.board.hash(self.to_move);
        if self.positions.get(&old) == Some(&self.move_number) {
            self.positions.remove(&old);
        }
        self.to_move = c;
        self.positions.insert(self.board.hash(c), self.move_number);
        self.last_run = None;
    }

    /// Changes stones outside the rules (SGF `AB`/`AW`/`AE` in the middle of a record):
    /// no capture, no legality check, no move number. The ko ban is lifted and repetition
    /// tracking starts again from this position (earlier positions are no longer compared).
    ///
    /// # Errors
    /// [`PlayError::OffBoard`] for a point off the board (changes before it are applied).
    pub fn setup(&mut self, changes: &[(Point, Option<Color>)]) -> Result<(), PlayError> {
        let r = changes.iter().try_for_each(|&(p, s)| self.board.set(p, s));
        self.ko = NO_KO;
        self.reset_positions();
        r
    }

    /// Moves (including passes) applied so far; the next move is `move_number() + 1`.
    pub fn move_number(&self) -> u32 {
        self.move_number
    }
    /// Stones captured by `c` (ハマ held by `c`, 第三条); where suicide is allowed, own
    /// stones removed by a suicide count for the opponent.
    pub fn prisoners(&self, c: Color) -> u32 {
        self.prisoners[c.index()]
    }
    /// Total passes made by `c` (for `japanese-jungo` counting).
    pub fn passes(&self, c: Color) -> u32 {
        self.passes[c.index()]
    }
    /// Passes in a row at the end of the history.
    pub fn consecutive_passes(&self) -> u32 {
        self.consecutive_passes
    }
    /// Playing, stopped for agreement, or ended (第九条).
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// The point where the player to move may not retake a ko on this turn (第五条).
    pub fn ko_point(&self) -> Option<Point> {
        (self.ko != NO_KO && self.ko_color == self.to_move).then_some(self.ko)
    }
    /// Every whole-board repetition found so far, in move order (one per move that
    /// recreated an earlier position; a cycle made only of passes is the end of play, not
    /// a repetition, and is not listed).
    pub fn repetitions(&self) -> &[Repetition] {
        &self.repetitions
    }
    /// The repetition with the most consecutive cycles, if some cycle has been played
    /// twice or more in a row (第十一条 解説: grounds for 無勝負 if neither player gives way).
    pub fn cycling(&self) -> Option<&Repetition> {
        self.repetitions.iter().filter(|r| r.cycles >= 2).max_by_key(|r| r.cycles)
    }
    /// The moves applied, in order.
    pub fn history(&self) -> &[(Color, Move)] {
        &self.history
    }
    /// The player who resigned (第六条), if any.
    pub fn resigned(&self) -> Option<Color> {
        self.resigned
    }
    /// The result known from play alone: 中押勝 after a resignation; `None` otherwise (a
    /// counted result needs [`crate::score::score`]).
    pub fn result(&self) -> Option<GameResult> {
        self.resigned.map(|c| GameResult::Resignation { winner: c.opponent() })
    }
    /// The stones removed by the last move (captures, then suicided own stones).
    pub fn last_removed(&self) -> &[(Point, Color)] {
        let n = self.removed_start.len();
        if n < 2 {
            return &[];
        }
        &self.removed[self.removed_start[n - 2] as usize..self.removed_start[n - 1] as usize]
    }

    /// Resignation (投了, 第六条) by `color`: the game ends, the opponent wins (中押勝).
    ///
    /// # Errors
    /// [`FoulRule::AfterEnd`] if the game has already ended.
    pub fn resign(&mut self, color: Color) -> Result<(), FoulRule> {
        if self.phase == Phase::Ended {
            return Err(FoulRule::AfterEnd);
        }
        self.resigned = Some(color);
        self.phase = Phase::Ended;
        Ok(())
    }

    /// Both players agree on life and death after play stopped (第九条): the game ends.
    /// No effect unless the phase is [`Phase::Stopped`].
    pub fn agree(&mut self) {
        if self.phase == Phase::Stopped {
            self.phase = Phase::Ended;
        }
    }

    /// The players disagree after play stopped: play resumes with the player to move
    /// (第九条: 手番の方が対局を続行する). No effect unless the phase is [`Phase::Stopped`].
    /// Under `japanese-2011` the consecutive-pass count continues (a fourth pass ends the
    /// game, 第九条2); elsewhere it starts again.
    pub fn resume(&mut self) {
        if self.phase == Phase::Stopped {
            self.phase = Phase::Playing;
            if self.rules.resume_resets_passes() {
                self.consecutive_passes = 0;
            }
        }
    }

    /// `asker` asks to resume play after it stopped. Under `japanese-1989` the opponent of
    /// the asker moves first (要請I-\[vi\]); under the other rule sets the player to move
    /// continues, as [`Game::resume`]. No effect unless the phase is [`Phase::Stopped`].
    pub fn resume_by(&mut self, asker: Color) {
        if self.phase != Phase::Stopped {
            return;
        }
        self.resume();
        if self.rules.resume_opponent_of_asker() {
            self.set_to_move(asker.opponent());
        }
    }

    /// Checks whether `color` may play `mv` now, without applying it (same rules as
    /// [`Game::play`]; a move after a stop counts as resuming play).
    ///
    /// # Errors
    /// The [`FoulRule`] the move would break.
    pub fn check(&self, color: Color, mv: Move) -> Result<(), FoulRule> {
        self.check_turn(color)?;
        if let Move::Play(p) = mv {
            self.check_point(color, p)?;
        }
        Ok(())
    }

    #[inline]
    fn check_turn(&self, color: Color) -> Result<(), FoulRule> {
        match self.phase {
            Phase::Ended => Err(FoulRule::AfterEnd),
            Phase::Stopped if self.rules.resume_opponent_of_asker() => Ok(()),
            _ if color != self.to_move => Err(FoulRule::OutOfTurn),
            _ => Ok(()),
        }
    }

    /// Board legality, ko and superko for a stone of `color` on `p` (the turn already
    /// checked).
    fn check_point(&self, color: Color, p: Point) -> Result<(), FoulRule> {
        let ko_applies = p == self.ko && self.ko_color == color;
        if !ko_applies && !self.superko {
            return match self.board.check(color, p) {
                Ok(()) => Ok(()),
                Err(PlayError::Suicide) if self.allow_suicide => Ok(()),
                Err(e) => Err(play_error_rule(e)),
            };
        }
        let pv = self.board.preview(color, p).map_err(play_error_rule)?;
        if ko_applies && pv.captured == 1 {
            return Err(FoulRule::Ko);
        }
        if pv.suicide && !self.allow_suicide {
            return Err(FoulRule::Suicide);
        }
        if self.superko {
            if let Some(&m) = self.stones_seen.get(&pv.stones_hash) {
                let mut after = self.board.clone();
                let _ = after.play(color, p, true);
                if after.cells() == self.cells_at(m) {
                    return Err(FoulRule::Superko);
                }
            }
        }
        Ok(())
    }

    /// Applies one move by `color` (第二条: a stone or a pass).
    ///
    /// A foul is **not applied** (the game is unchanged) and is returned as `Err` with the
    /// move number it would have had. In [`Phase::Stopped`], a legal move resumes play
    /// (under `japanese-1989` either player may move: the other one asked to resume).
    ///
    /// # Errors
    /// [`Foul`] naming the rule: [`FoulRule::AfterEnd`], [`FoulRule::OutOfTurn`],
    /// [`FoulRule::OffBoard`], [`FoulRule::Occupied`], [`FoulRule::Ko`],
    /// [`FoulRule::Suicide`], [`FoulRule::Superko`].
    pub fn play(&mut self, color: Color, mv: Move) -> Result<MoveOutcome, Foul> {
        let ko = self.apply(color, mv)?;
        let mut captured: Vec<Point> = Vec::new();
        let removed = self.last_removed();
        if !removed.is_empty() {
            captured.reserve_exact(removed.len());
            captured.extend(removed.iter().map(|&(p, _)| p));
        }
        let repetition = match self.repetitions.last() {
            Some(r) if r.again == self.move_number => Some(r.clone()),
            _ => None,
        };
        Ok(MoveOutcome { move_number: self.move_number, captured, ko, repetition, phase: self.phase })
    }

    /// As [`Game::play`] without building a [`MoveOutcome`] (for fast replay): returns the
    /// ko point the move created, if any. See [`Game::last_removed`] and
    /// [`Game::repetitions`] for the rest.
    ///
    /// # Errors
    /// As [`Game::play`].
    pub fn apply(&mut self, color: Color, mv: Move) -> Result<Option<Point>, Foul> {
        let n = self.move_number;
        self.check_turn(color).map_err(|r| foul(n, color, mv, r))?;
        let mut new_ko = None;
        match mv {
            Move::Play(p) => {
                if (p == self.ko && self.ko_color == color) || self.superko {
                    self.check_point(color, p).map_err(|r| foul(n, color, mv, r))?;
                }
                let mut placed = std::mem::take(&mut self.scratch);
                let r = self.board.play_into(color, p, self.allow_suicide, &mut placed);
                if let Err(e) = r {
                    self.scratch = placed;
                    return Err(foul(n, color, mv, play_error_rule(e)));
                }
                let opp = color.opponent();
                self.prisoners[color.index()] += placed.captured.len() as u32;
                self.prisoners[opp.index()] += placed.suicided.len() as u32;
                self.removed.extend(placed.captured.iter().map(|&q| (q, opp)));
                self.removed.extend(placed.suicided.iter().map(|&q| (q, color)));
                match placed.ko {
                    Some(k) => {
                        self.ko = k;
                        self.ko_color = opp;
                        new_ko = Some(k);
                    }
                    None => self.ko = NO_KO,
                }
                self.scratch = placed;
                self.consecutive_passes = 0;
                if self.phase == Phase::Stopped {
                    // A move after the stop: play resumed (第九条 / 要請I-[vi]).
                    self.phase = Phase::Playing;
                }
            }
            Move::Pass => {
                if self.phase == Phase::Stopped {
                    self.phase = Phase::Playing;
                    if self.rules.resume_resets_passes() {
                        self.consecutive_passes = 0;
                    }
                }
                self.ko = NO_KO; // 第五条 解説: the ko may be retaken after a pass.
                self.passes[color.index()] += 1;
                self.consecutive_passes += 1;
                if self.rules.passes_to_end().is_some_and(|e| self.consecutive_passes >= e) {
                    self.phase = Phase::Ended;
                } else if self.consecutive_passes >= self.rules.passes_to_stop() {
                    self.phase = Phase::Stopped;
                }
            }
        }
        self.history.push((color, mv));
        self.removed_start.push(self.removed.len() as u32);
        self.move_number += 1;
        self.to_move = color.opponent();
        self.record_position();
        Ok(new_ko)
    }

    /// Records the position after the move just applied and reports a repetition.
    #[inline]
    fn record_position(&mut self) {
        let n = self.move_number;
        if self.superko {
            self.stones_seen.insert(self.board.stones_hash(), n);
        }
        let Some(first) = self.positions.insert(self.board.hash(self.to_move), n) else {
            self.last_run = None;
            return;
        };
        self.found_repetition(first, n);
    }

    #[cold]
    fn found_repetition(&mut self, first: u32, again: u32) {
        // Full comparison: same player to move and the same stones.
        let to_move_then = self.history[first as usize].0;
        let seq = &self.history[first as usize..again as usize];
        if to_move_then != self.to_move || self.cells_at(first) != self.board.cells() || seq.iter().all(|&(_, m)| m == Move::Pass) {
            self.last_run = None;
            return;
        }
        let period = again - first;
        let last_move = self.history[again as usize - 1];
        let run = match self.last_run {
            Some((p, r)) if p == period && again > period && self.history[(again - period) as usize - 1] == last_move => r + 1,
            _ => 1,
        };
        self.last_run = Some((period, run));
        self.repetitions.push(Repetition { first, again, sequence: seq.to_vec(), cycles: 1 + (run - 1) / period });
    }

    /// The stones after move `m` (`m <= move_number`), rebuilt by undoing the move log
    /// from the current position; same layout as [`Board::cells`].
    fn cells_at(&self, m: u32) -> Vec<u8> {
        let w = self.board.width() as usize;
        let idx = |p: Point| p.y as usize * w + p.x as usize;
        let mut cells = self.board.cells();
        for k in (m + 1..=self.move_number).rev() {
            let (_, mv) = self.history[k as usize - 1];
            let lo = self.removed_start[k as usize - 1] as usize;
            let hi = self.removed_start[k as usize] as usize;
            for &(p, c) in &self.removed[lo..hi] {
                cells[idx(p)] = 1 + c.index() as u8;
            }
            if let Move::Play(p) = mv {
                cells[idx(p)] = 0;
            }
        }
        cells
    }
}

fn play_error_rule(e: PlayError) -> FoulRule {
    match e {
        PlayError::OffBoard => FoulRule::OffBoard,
        PlayError::Occupied => FoulRule::Occupied,
        PlayError::Suicide => FoulRule::Suicide,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(s: &str) -> Point {
        Point::from_sgf(s).unwrap()
    }

    /// A hash hit whose stones differ (a Zobrist collision, simulated by planting a false
    /// map entry) is not reported as a repetition: every hit is confirmed by a full
    /// comparison of the stones.
    #[test]
    fn hash_collision_is_not_a_repetition() {
        let mut g = Game::new(Board::new(5, 5).unwrap(), RuleSet::Japanese2011, Color::Black);
        for (c, s) in [(Color::Black, "aa"), (Color::White, "bb"), (Color::Black, "cc"), (Color::White, "dd")] {
            g.apply(c, Move::Play(pt(s))).unwrap();
        }
        let mut ahead = g.clone();
        ahead.apply(Color::Black, Move::Play(pt("ee"))).unwrap();
        let h5 = ahead.board.hash(ahead.to_move);
        // Pretend the position after move 5 already occurred after move 2.
        g.positions.insert(h5, 2);
        let out = g.play(Color::Black, Move::Play(pt("ee"))).unwrap();
        assert_eq!(out.repetition, None);
        assert!(g.repetitions().is_empty());
        // The genuine check: the rebuilt position after move 2 has two stones.
        assert_eq!(g.cells_at(2).iter().filter(|&&c| c != 0).count(), 2);
        assert_eq!(g.cells_at(5), g.board.cells());
    }

    /// Same for positional superko: a planted false hit does not forbid a legal move.
    #[test]
    fn superko_hash_collision_does_not_forbid_a_move() {
        let mut g = Game::new(Board::new(5, 5).unwrap(), RuleSet::Chinese, Color::Black);
        g.apply(Color::Black, Move::Play(pt("aa"))).unwrap();
        let pv = g.board.preview(Color::White, pt("cc")).unwrap();
        g.stones_seen.insert(pv.stones_hash, 0);
        assert_eq!(g.check(Color::White, Move::Play(pt("cc"))), Ok(()));
        g.apply(Color::White, Move::Play(pt("cc"))).unwrap();
    }

    #[test]
    fn preview_matches_play() {
        let mut b = Board::new(4, 4).unwrap();
        for (c, s) in [(Color::White, "aa"), (Color::White, "ba"), (Color::Black, "ca"), (Color::Black, "ab")] {
            b.play(c, pt(s), false).unwrap();
        }
        let pv = b.preview(Color::Black, pt("bb")).unwrap();
        let mut after = b.clone();
        let placed = after.play(Color::Black, pt("bb"), false).unwrap();
        assert_eq!(pv.captured as usize, placed.captured.len());
        assert_eq!(pv.stones_hash, after.stones_hash());
        assert!(!pv.suicide);
        // A suicide preview (allowed play) gives the hash with the chain removed.
        let mut s = Board::new(3, 3).unwrap();
        for (c, q) in [(Color::Black, "ba"), (Color::Black, "bb"), (Color::Black, "ab"), (Color::White, "cc")] {
            s.play(c, pt(q), false).unwrap();
        }
        let pv = s.preview(Color::White, pt("aa")).unwrap();
        assert!(pv.suicide);
        let mut after = s.clone();
        after.play(Color::White, pt("aa"), true).unwrap();
        assert_eq!(pv.stones_hash, after.stones_hash());
        assert_eq!(pv.stones_hash, s.stones_hash());
    }
}
