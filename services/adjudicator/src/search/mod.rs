//! Hypothetical play (想定着手) inside one region: the state, the end conditions, forced
//! proofs ([`Prover`]) and the exact avoidance search ([`Trap`]) that settles seki and
//! cycles. See the crate documentation for the formalisation.

use crate::benson::{cell, unconditional, Bits, Safe, Scope, EMPTY, NONE, OUT};
use goban::{Color, Move};
use std::collections::HashMap as StdMap;

pub(crate) use links::territory_pairing;
pub(crate) use moves::ordered_moves;
pub(crate) use territory::Territory;

/// Hash maps of search states: foldhash's fixed-seed hasher (fast, deterministic; the
/// states are ours, not adversarial input, so SipHash's DoS resistance buys nothing here).
type HashMap<K, V> = StdMap<K, V, foldhash::fast::FixedState>;

/// The cache of unconditional analyses (pass-alive stones and area) by cells: hashbrown's map,
/// whose `entry_ref` finds or inserts an entry in one probe and copies the key only when it
/// inserts.
type AreaCache = hashbrown::HashMap<Vec<u8>, [Option<Safe>; 2], foldhash::fast::FixedState>;

/// Which reading of the rules drives hypothetical play.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// 2011 draft (第五条 basic ko; a cycle is seki; the examined side moves first).
    Kiyaku2011,
    /// 1989 rules (a ko may be retaken only after a pass for it, 要請II-\[iv\]; the
    /// opponent moves first; a cycle means the attacker failed).
    Kiyaku1989,
}

/// The state of hypothetical play, restricted to one region (everything outside is
/// pass-alive and never changes).
#[derive(Clone, Debug)]
pub(crate) struct State {
    /// Cells of the region (0 empty, 1 black, 2 white), by local index.
    pub cells: Vec<u8>,
    pub to_move: Color,
    /// 2011: the local point `to_move` may not play on at once (第五条), or [`NONE`].
    pub ko: u32,
    /// 1989: per colour, the kos it may not retake before passing once: `(q, s)` =
    /// retaking at `q` the single stone at `s` (local indices), sorted.
    pub bans: [Vec<(u32, u32)>; 2],
    /// 2011: how many of its ko threats outside the region ([`Region::ko_threats`]) the
    /// colour that has them has used.
    pub threats_used: u16,
    /// The hash of `cells` ([`State::cells_key`]), computed once when the cells are set
    /// ([`State::new`], [`Region::play`]): the tables of a search hash a state many times, and
    /// equality compares it before the cells.
    key: u64,
}

impl State {
    /// The state with `cells`, `to_move` to play, no 第五条 ban and no 1989 ko-pass ban.
    pub fn new(cells: Vec<u8>, to_move: Color) -> State {
        let key = State::cells_key(&cells);
        State { cells, to_move, ko: NONE, bans: [Vec::new(), Vec::new()], threats_used: 0, key }
    }

    /// This state with the 第五条 ban `ko` (a local point, or [`NONE`]).
    pub fn with_ko(mut self, ko: u32) -> State {
        self.ko = ko;
        self
    }

    /// This state with `to_move` to play.
    pub fn with_to_move(mut self, to_move: Color) -> State {
        self.to_move = to_move;
        self
    }

    /// The hash of a state's cells (foldhash's fixed seed: deterministic).
    fn cells_key(cells: &[u8]) -> u64 {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::default().hash_one(cells)
    }
}

impl PartialEq for State {
    fn eq(&self, other: &State) -> bool {
        self.key == other.key
            && self.to_move == other.to_move
            && self.ko == other.ko
            && self.cells == other.cells
            && self.bans == other.bans
            && self.threats_used == other.threats_used
    }
}

impl Eq for State {}

impl std::hash::Hash for State {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        debug_assert_eq!(self.key, State::cells_key(&self.cells), "the cells changed after their key was taken");
        self.key.hash(h);
        self.to_move.hash(h);
        self.ko.hash(h);
        self.bans.hash(h);
        self.threats_used.hash(h);
    }
}

/// Outcome of hypothetical play for the examined stones.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// The examined stones (part of them) are the opponent's for good.
    Dead,
    /// The examined stones are in their owner's unconditional area for good.
    Alive,
}

impl End {
    /// The status a proof of this end gives the examined stones (第七条).
    pub fn status(self) -> crate::Status {
        match self {
            End::Dead => crate::Status::Dead,
            End::Alive => crate::Status::Alive,
        }
    }
}

/// Budget exhausted.
#[derive(Debug)]
pub(crate) struct OutOfBudget;

/// Search context shared by every chain of one region.
pub(crate) struct Region {
    pub scope: Scope,
    pub mode: Mode,
    /// States expanded at most (all chains of the region together).
    pub budget: u64,
    /// States expanded so far.
    pub nodes: u64,
    /// The unconditional analyses of black and white by cells (each computed when first asked
    /// for): `U_black`, `U_white` and the pass-alive stones that make them.
    ucache: AreaCache,
    /// When set, the ends are those of a territory's local game (see `safety`), not of a
    /// chain: set once, on a fresh region, for the region's life.
    pub territory: Option<Territory>,
    /// Reused buffers of [`Region::play`] (chain members, captured stones).
    scratch: std::cell::RefCell<(Vec<u32>, Vec<u32>)>,
    /// The whole board (outside the region it never changes), for [`Region::safe_end`].
    pub base: Option<goban::Board>,
    /// When set, territories proved safe end a line too, by this proof (see
    /// [`Region::safe_end`]); the caller supplies it (module `safety`), which keeps this module
    /// free of the proofs that search with it.
    pub safety_end: Option<SafetyProof>,
    /// Whether an enclosure with private pairs of links ends a line as *dead* (module
    /// `links`); on by default, off only to check that end against the search without it.
    pub links_end: bool,
    /// The whole board (outside the region it never changes), when a *sealed territory* the
    /// opponent wins ends a line as *dead* ([`Region::sealed_dead`]); `None` by default.
    pub sealed_board: Option<goban::Board>,
    /// The local games of sealed territories played so far ([`Region::sealed_dead`]), by the
    /// territory's local points and their cells: whether the territory's owner won.
    sealed_games: HashMap<Vec<u32>, bool>,
    /// The nodes the local games of sealed territories have used so far.
    sealed_nodes: u64,
    /// Under the 2011 draft, a colour `c` and its number `k` of ko threats outside the region:
    /// `c` may retake a ko its 第五条 ban forbids while it has a threat left, and each retake
    /// uses one ([`State::threats_used`]); each pass of `c`'s opponent takes one away. A
    /// dispute's region sets it for the colour whose opponent's walls are kept by two links
    /// (module `dispute`), one threat per wall: `c`'s move on one link is answered on the
    /// other (which joins the wall to one that stays), and those two moves outside the region
    /// lift `c`'s ban; the opponent can instead join the wall with a move of its own on a
    /// link when it has nothing better to play (its pass in the region), which leaves `c` no
    /// more options than a bare pass. Only `c`'s *dead* ends are taken from such a search
    /// (its opponent must answer there). `None` by default.
    /// [`UNLIMITED_THREATS`] gives the colour a threat for every retake, never used up.
    pub ko_threats: Option<(Color, u16)>,
    /// Whether moves outside the examined chain's sealed area (module `seal`) are left out,
    /// under the 2011 draft; on by default, off only to check the searches against those
    /// without it.
    pub sealing: bool,
    /// Whether the deepening's proofs of *dead* carry relevance zones and answer the
    /// defender's moves outside them by its pass (module `zone`), under the 2011 draft; on by
    /// default, off only to check the searches against those without them.
    pub zoning: bool,
    /// The end [`crate::decision::decide`] tries first for the chain it decides, when the
    /// caller knows a better order than the region's shape suggests (a narrower search of the
    /// same dispute found it); `None`: by the shape. It changes the order, and with it the
    /// shares of the budget each end gets (`decision::INVADER_DEAD_SHARE`), never an answer.
    pub first_end: Option<End>,
    /// The only end the caller takes (a walled region's search, module `walled`): `decide`
    /// searches for no other and no seki, and leaves the chain undecided when that end is not
    /// forced. `None`: every status is wanted.
    pub only_end: Option<End>,
    /// Per cells and colour: the stones kept alive and the safe area (board indices).
    scache: HashMap<Vec<u8>, [Option<KeptAndSafe>; 2]>,
    /// The answers of [`Region::end`] without safe territories as ends, by cells, for one
    /// examined chain (its stones and owner) or the region's territory game (a region holds
    /// one for its life): a search asks at every state it generates, the same cells come back
    /// with the other side to move or another ko, and the deepening generates the same states
    /// again in each iteration.
    end_memo: EndMemo,
    /// When the search stops before its budget (cancelled, deadline, memory cap), polled by
    /// [`Region::halted`].
    pub halt: crate::halt::Halt,
    /// Proofs of the region's decided chains, lent to its other chains ([`Prover::follow`]):
    /// at most [`LENT_MAX_STATES`] proved states in all.
    lent: Vec<Lent>,
    /// By chain (its stones): how many of the proofs of [`Region::lent`] it has followed
    /// already (a retry follows only those lent since).
    followed: HashMap<Vec<usize>, usize>,
}

/// The most proved states [`Region::lend`] keeps for a region: a proof's states are a share of
/// the states its search cached, within the memory estimate of [`Region::halted`].
const LENT_MAX_STATES: usize = 200_000;

/// [`Region::end_memo`]: the examined chain's stones and owner, whether the links rule was on,
/// and the answers.
type EndMemo = (Vec<usize>, Color, bool, HashMap<Vec<u8>, Option<End>>);

/// By board index: the stones the territory proofs keep alive, and their safe area.
type KeptAndSafe = (Vec<bool>, Vec<bool>);

/// A territory safety proof taken as an end ([`Region::safe_end`]): on the whole board with
/// the region's cells, for colour `c` under `mode`, with at most `limit` nodes per local game,
/// the paired territories with `pairing` (the region's [`Region::links_end`]): by board index,
/// the stones it keeps alive and its safe area, and the nodes it used.
pub(crate) type SafetyProof = fn(board: &goban::Board, c: Color, mode: Mode, limit: u64, pairing: bool) -> (Vec<bool>, Vec<bool>, u64);

/// Nodes per local game of the safety proofs taken as an end ([`Region::safe_end`]).
const SAFE_END_LOCAL: u64 = 2_000;

/// [`Region::ko_threats`] for a colour with a threat for every retake (its opponent's
/// territories proved safe answer each of its moves there: module `walled`).
pub(crate) const UNLIMITED_THREATS: u16 = u16::MAX;

/// Regions of at most this many local points mark chains in a stack buffer.
const STACK_MARKS: usize = 512;

/// A chain of cells: its members and whether it has a liberty (an outside pass-alive
/// stone of the same colour counts as one that never goes), with its liberties counted up
/// to two (two when it has such an outside stone).
///
/// The walk stops as soon as `enough` liberties are known (`enough` 1: does it have one;
/// 2: is it in atari): `members` then holds only the stones walked so far (all of them are
/// marked). Pass `u32::MAX` for every member.
fn chain_of(sc: &Scope, cells: &[u8], start: usize, members: &mut Vec<u32>, mark: &mut [bool], enough: u32) -> (bool, u32) {
    let col = cells[start];
    members.clear();
    members.push(start as u32);
    mark[start] = true;
    let mut k = 0;
    let mut safe = false;
    let mut libs: [u32; 2] = [NONE; 2];
    let mut nlibs = 0u32;
    while k < members.len() {
        let l = members[k] as usize;
        k += 1;
        for &g in &sc.nbrs[l] {
            if g == NONE {
                continue;
            }
            if g >= OUT {
                let v = sc.ext[(g - OUT) as usize].0;
                if v == col || v == EMPTY {
                    safe = true;
                }
                continue;
            }
            let v = cells[g as usize];
            if v == EMPTY {
                if nlibs < 2 && !libs[..nlibs as usize].contains(&g) {
                    libs[nlibs as usize] = g;
                    nlibs += 1;
                }
            } else if v == col && !mark[g as usize] {
                mark[g as usize] = true;
                members.push(g);
            }
        }
        if safe || nlibs >= enough {
            break;
        }
    }
    if safe {
        nlibs = 2;
    }
    (nlibs > 0, nlibs)
}

impl Region {
    pub fn new(scope: Scope, mode: Mode, budget: u64) -> Region {
        Region {
            scope,
            mode,
            budget,
            nodes: 0,
            ucache: Default::default(),
            territory: None,
            scratch: Default::default(),
            base: None,
            safety_end: None,
            links_end: true,
            sealed_board: None,
            sealed_games: HashMap::default(),
            sealed_nodes: 0,
            ko_threats: None,
            sealing: true,
            zoning: true,
            first_end: None,
            only_end: None,
            scache: Default::default(),
            end_memo: (Vec::new(), Color::Black, true, Default::default()),
            halt: crate::halt::Halt::none(),
            lent: Vec::new(),
            followed: HashMap::default(),
        }
    }

    /// Whether the search must stop now although its budget is not spent ([`crate::halt`]):
    /// the conditions are checked every [`crate::halt::POLL_NODES`] calls, at the points
    /// where nodes are counted; a search that stops returns [`OutOfBudget`].
    #[inline]
    pub fn halted(&mut self) -> bool {
        let Region { halt, ucache, scache, end_memo, scope, base, nodes, .. } = self;
        halt.poll(|| Region::table_bytes(ucache, scache, &end_memo.3, scope.len(), base.as_ref().map_or(0, |b| b.points().count()), *nodes))
    }

    /// Keeps `proof`, a chain's proof of one of its ends, for the region's other chains
    /// ([`Prover::follow`]), unless the proofs kept would then hold more than
    /// [`LENT_MAX_STATES`] states.
    pub fn lend(&mut self, proof: Lent) {
        if self.lent.iter().map(Lent::len).sum::<usize>() + proof.len() <= LENT_MAX_STATES {
            self.lent.push(proof);
        }
    }

    /// The proofs kept by [`Region::lend`], taken out (to follow them with the region
    /// borrowed); [`Region::restore_lent`] puts them back.
    pub fn take_lent(&mut self) -> Vec<Lent> {
        std::mem::take(&mut self.lent)
    }

    /// How many of the proofs kept by [`Region::lend`] the chain `stones` has followed already
    /// (recorded by [`Region::mark_followed`]).
    pub fn followed(&self, stones: &[usize]) -> usize {
        self.followed.get(stones).copied().unwrap_or(0)
    }

    /// Records that the chain `stones` has followed the first `n` proofs kept.
    pub fn mark_followed(&mut self, stones: &[usize], n: usize) {
        self.followed.insert(stones.to_vec(), n);
    }

    /// Puts back what [`Region::take_lent`] took, before any proof lent since.
    pub fn restore_lent(&mut self, mut lent: Vec<Lent>) {
        lent.append(&mut self.lent);
        self.lent = lent;
    }

    /// An estimate in bytes of the memory of the search's tables, from their entries
    /// (`n` local points, `board` points of the whole board, `nodes` counted): the caches of
    /// unconditional areas and territory proofs by cells (capacity, keys and both values of
    /// every entry), the ends by cells (capacity and keys), and for the proof, disproof and
    /// avoidance tables ([`Prover`], [`Trap`]: one chain's, and the df-pn tables of chains
    /// left for the region's retry), three states per four cached cell states (at most per
    /// node). Against the process's peak resident memory on kakunin 4 and on an
    /// open 6x6 board (2,000,000 to 20,000,000 nodes) it is up to a fifth low for the smaller
    /// searches and up to two thirds high for the larger ones, where a memory cap matters.
    fn table_bytes(
        ucache: &AreaCache,
        scache: &HashMap<Vec<u8>, [Option<KeptAndSafe>; 2]>,
        ends: &HashMap<Vec<u8>, Option<End>>,
        n: usize,
        board: usize,
        nodes: u64,
    ) -> u64 {
        // A heap block of `b` bytes with room for an allocator's header, rounded to 16.
        let heap = |b: usize| (b + 8).div_ceil(16).max(2) as u64 * 16;
        let slot = |entry: usize, cap: usize| cap as u64 * (entry as u64 + 1);
        let key = heap(n);
        let bits = heap(n.div_ceil(64).max(1) * 8);
        let u = slot(std::mem::size_of::<(Vec<u8>, [Option<Safe>; 2])>(), ucache.capacity()) + ucache.len() as u64 * (key + 4 * bits);
        let s = slot(std::mem::size_of::<(Vec<u8>, [Option<KeptAndSafe>; 2])>(), scache.capacity())
            + scache.len() as u64 * (key + 4 * heap(board));
        let state = std::mem::size_of::<State>() as u64 + 16 + key;
        let l = slot(std::mem::size_of::<(Vec<u8>, Option<End>)>(), ends.capacity()) + ends.len() as u64 * key;
        u + s + l + 3 * state * (ucache.len() as u64).min(nodes) / 4
    }

    /// The cache slot of `cells`: its unconditional analyses, each computed when first needed
    /// (one lookup for both colours).
    fn slot<'a>(ucache: &'a mut AreaCache, cells: &[u8]) -> &'a mut [Option<Safe>; 2] {
        ucache.entry_ref(cells).or_insert([None, None])
    }

    /// `U_c` for `cells` (cached).
    pub fn area(&mut self, cells: &[u8], c: Color) -> &Bits {
        &self.scoped_safe(cells, c).1.area
    }

    /// The unconditional analysis of `c` for `cells`, `U_c` and `c`'s pass-alive stones
    /// (cached), with the region's scope borrowed alongside (for the certificates of module
    /// `zone`).
    pub fn scoped_safe(&mut self, cells: &[u8], c: Color) -> (&Scope, &Safe) {
        let Region { ucache, scope, .. } = self;
        let safe = Region::slot(ucache, cells)[c.index()].get_or_insert_with(|| unconditional(cells, c, scope));
        (scope, safe)
    }

    /// Whether every stone of `stones` (local indices of a chain of `c`) is in `U_c` of
    /// `cells` — after the quick necessary test of [`crate::benson::may_be_in_area`], which
    /// spares most area computations when the answer is no; then from the cached area if
    /// there is one, else by Benson's iteration over the chains the chain's life depends on
    /// ([`crate::benson::chain_in_area`], exact), and only when that cannot tell (a chain
    /// of one or two stones that is not pass-alive) by the whole area.
    pub fn holds_all(&mut self, cells: &[u8], c: Color, stones: &[usize]) -> bool {
        if !crate::benson::may_be_in_area(cells, c, &self.scope, stones) {
            return false;
        }
        if let Some(Some(a)) = self.ucache.get(cells).map(|slot| &slot[c.index()]) {
            return stones.iter().all(|&s| a.area.get(s));
        }
        match crate::benson::chain_in_area(cells, c, &self.scope, stones) {
            Some(held) => held,
            None => stones.iter().all(|&s| self.area(cells, c).get(s)),
        }
    }

    /// Both unconditional areas of `cells`.
    fn areas(&mut self, cells: &[u8]) -> [&Bits; 2] {
        let Region { ucache, scope, .. } = self;
        let slot = Region::slot(ucache, cells);
        for c in [Color::Black, Color::White] {
            if slot[c.index()].is_none() {
                slot[c.index()] = Some(unconditional(cells, c, scope));
            }
        }
        let [b, w] = &*slot;
        [&b.as_ref().expect("computed").area, &w.as_ref().expect("computed").area]
    }

    /// The points where a move can matter: empty and outside both unconditional areas
    /// (a move inside an unconditional area changes nothing outside it and counts, for
    /// the region, as a pass — see the crate documentation).
    pub fn playable(&mut self, cells: &[u8]) -> Vec<bool> {
        if let Some(d) = self.territory.as_ref().map(|t| t.defender) {
            // A territory's local game: only the defender's area is computed (its end needs
            // it); the attacker's is almost always empty there, and a move in it is only a
            // wasted node, never a wrong one.
            let own = self.area(cells, d);
            return (0..cells.len()).map(|i| cells[i] == EMPTY && !own.get(i)).collect();
        }
        let a = self.areas(cells);
        (0..cells.len()).map(|i| cells[i] == EMPTY && !a[0].get(i) && !a[1].get(i)).collect()
    }

    /// Whether the opponent of `owner` forces the dead end of the chain `stones` from
    /// `cells` through an enclosure with private pairs of links (module `links`), when that
    /// end is on. Under the 2011 draft only, where it is an end of every line: under 1989 a
    /// ko-pass ban (要請II-\[iv\]) the cells do not show could bar a link (see
    /// [`Region::dead_at_once_line`]).
    pub fn dead_at_once(&mut self, cells: &[u8], stones: &[usize], owner: Color) -> bool {
        if !self.links_end || self.mode != Mode::Kiyaku2011 || stones.is_empty() {
            return false;
        }
        links::dead_by_links(&self.scope, cells, stones, owner)
    }

    /// The rule of [`Region::dead_at_once`] at the state `st`, with the line that shows it: the
    /// owner passes and the opponent fills one link of each paired point, which reaches
    /// Benson's dead end. Under 1989 only when no ko-pass ban binds the opponent in `st`: the
    /// bans that arise later name points where `owner` captured an opponent stone that was not
    /// fixed, never a link of the pairing.
    pub fn dead_at_once_line(&self, st: &State, stones: &[usize], owner: Color) -> Option<Vec<(Color, Move)>> {
        let bans_clear = self.mode == Mode::Kiyaku2011 || st.bans[owner.opponent().index()].is_empty();
        if !self.links_end || !bans_clear {
            return None;
        }
        let links = links::links_line(&self.scope, &st.cells, stones, owner)?;
        Some(links.into_iter().flat_map(|l| [(owner, Move::Pass), (owner.opponent(), self.move_at(Some(l)))]).collect())
    }

    /// End condition for the stones at local indices `stones` of `owner`, or of the
    /// region's territory game ([`Region::territory`], whose boundary and defender the
    /// caller passes) — kept by cells per chain or game, [`Region::end_memo`], but for the
    /// ends of safe territories.
    pub fn end(&mut self, cells: &[u8], stones: &[usize], owner: Color) -> Option<End> {
        let memo = &mut self.end_memo;
        if memo.0 != stones || memo.1 != owner || memo.2 != self.links_end {
            // Cleared, not replaced: the next chain's table grows into the memory this one
            // already holds, instead of fresh pages the system must zero.
            memo.0.clear();
            memo.0.extend_from_slice(stones);
            memo.1 = owner;
            memo.2 = self.links_end;
            memo.3.clear();
        }
        let plain = match memo.3.get(cells) {
            Some(&e) => e,
            None => {
                let e = match self.territory.take() {
                    Some(t) => {
                        let e = self.territory_end(&t, cells);
                        self.territory = Some(t);
                        e
                    }
                    None => self.plain_end(cells, stones, owner),
                };
                self.end_memo.3.insert(cells.to_vec(), e);
                e
            }
        };
        if plain.is_some() || self.territory.is_some() {
            return plain;
        }
        if let (Some(proof), true) = (self.safety_end, self.base.is_some()) {
            return self.safe_end(proof, cells, stones, owner);
        }
        None
    }

    /// [`Region::end`] without territories proved safe as ends: Benson's ends, the links
    /// rule and sealed territories ([`Region::sealed_dead`]).
    fn plain_end(&mut self, cells: &[u8], stones: &[usize], owner: Color) -> Option<End> {
        // The opponent's area only when the quick necessary test allows a point of the chain
        // in it; the owner's only when the chain is not dead, and by the chain's own closure
        // while it stands on the board (`holds_all`).
        if self.benson_dead(cells, stones, owner) {
            return Some(End::Dead);
        }
        let standing = stones.iter().all(|&s| cells[s] == cell(owner));
        let alive = if standing {
            self.holds_all(cells, owner, stones)
        } else {
            let own = self.area(cells, owner);
            stones.iter().all(|&s| own.get(s))
        };
        if alive {
            return Some(End::Alive);
        }
        if self.dead_at_once(cells, stones, owner) || self.sealed_dead(cells, stones, owner) {
            return Some(End::Dead);
        }
        None
    }

    /// Benson's *dead* end (crate docs): a point of the stones `stones` of `owner` lies in the
    /// opponent's unconditional area in `cells`.
    pub fn benson_dead(&mut self, cells: &[u8], stones: &[usize], owner: Color) -> bool {
        let o = owner.opponent();
        crate::benson::may_reach_area(cells, o, &self.scope, stones) && {
            let opp = self.area(cells, o);
            stones.iter().any(|&s| opp.get(s))
        }
    }

    /// The whole board `base` with the region's points holding `cells`.
    fn board_with(&self, base: &goban::Board, cells: &[u8]) -> goban::Board {
        let mut board = base.clone();
        for (k, p) in self.scope.points.iter().enumerate() {
            let v = match cells[k] {
                EMPTY => None,
                v if v == cell(Color::Black) => Some(Color::Black),
                _ => Some(Color::White),
            };
            board.set(*p, v).expect("a point of the board");
        }
        board
    }

    /// The safety proof (module `safety`) of colour `c` on the board with the region's
    /// cells `cells`: (stones kept alive, safe area), by board index. The local games'
    /// nodes count against the region's budget.
    fn safety_of(&mut self, proof: SafetyProof, cells: &[u8], c: Color) -> &(Vec<bool>, Vec<bool>) {
        if !self.scache.contains_key(cells) {
            self.scache.insert(cells.to_vec(), [None, None]);
        }
        if self.scache[cells][c.index()].is_none() {
            let b = self.board_with(self.base.as_ref().expect("base board"), cells);
            let (alive, area, nodes) = proof(&b, c, self.mode, SAFE_END_LOCAL, self.links_end);
            self.nodes += nodes + 1;
            self.scache.get_mut(cells).expect("slot")[c.index()] = Some((alive, area));
        }
        self.scache[cells][c.index()].as_ref().expect("computed")
    }

    /// Territories proved safe as an end (crate docs, Engine step 4): a stone of the chain
    /// in a territory the opponent's safety proof holds -> dead; every stone of the chain
    /// in a chain the owner's safety proof keeps alive -> alive. Either proof is a strategy
    /// that reaches the Benson end whatever the other side does and whoever moves next (a
    /// defender to move passes first, which lifts any ko ban), so it is a forced win of that
    /// end: taking it as an end changes no status, it only shortens the lines.
    fn safe_end(&mut self, proof: SafetyProof, cells: &[u8], stones: &[usize], owner: Color) -> Option<End> {
        let w = self.scope.width;
        let gis: Vec<usize> = stones
            .iter()
            .map(|&s| {
                let p = self.scope.points[s];
                p.y as usize * w + p.x as usize
            })
            .collect();
        let (_, area) = self.safety_of(proof, cells, owner.opponent());
        if gis.iter().any(|&g| area[g]) {
            return Some(End::Dead);
        }
        if stones.iter().any(|&s| cells[s] != cell(owner)) {
            return None;
        }
        let (alive, _) = self.safety_of(proof, cells, owner);
        gis.iter().all(|&g| alive[g]).then_some(End::Alive)
    }

    /// Whether the side to move would retake the ko `(q, s)` by playing `q`.
    fn is_retake(&self, st: &State, q: u32, s: u32) -> bool {
        let opp = cell(st.to_move.opponent());
        if st.cells[s as usize] != opp {
            return false;
        }
        let mut libs = 0;
        for &g in &self.scope.nbrs[s as usize] {
            if g == NONE {
                continue;
            }
            if g >= OUT {
                let v = self.scope.ext[(g - OUT) as usize].0;
                if v == opp || v == EMPTY {
                    return false;
                }
                continue;
            }
            match st.cells[g as usize] {
                EMPTY => {
                    if g != q {
                        return false;
                    }
                    libs += 1;
                }
                v if v == opp => return false,
                _ => {}
            }
        }
        libs == 1
    }

    /// The board move of the local move `mv` (a local point index, `None` = pass).
    pub fn move_at(&self, mv: Option<u32>) -> Move {
        match mv {
            Some(i) => Move::Play(self.scope.points[i as usize]),
            None => Move::Pass,
        }
    }

    /// The local move of the board move `m` (the inverse of [`Region::move_at`]; a point
    /// outside the region gives [`NONE`], which no state can play).
    pub fn local_move(&self, m: Move) -> Option<u32> {
        match m {
            Move::Play(p) => Some(self.scope.local_of(p)),
            Move::Pass => None,
        }
    }

    /// The state after `mv` by the side to move, or `None` if it is not legal
    /// (occupied, suicide 第四条, ko 第五条 / 1989 ko-pass rule).
    pub fn play(&self, st: &State, mv: Option<u32>) -> Option<State> {
        let me = st.to_move;
        let mut next = State {
            cells: st.cells.clone(),
            to_move: me.opponent(),
            ko: NONE,
            bans: st.bans.clone(),
            threats_used: st.threats_used,
            key: st.key,
        };
        match mv {
            None => {
                // A pass lifts the 第五条 ban; under 1989 it renounces retaking every ko
                // the passer was barred from.
                next.bans[me.index()].clear();
                // The opponent of the colour with ko threats spends a pass on taking one away
                // (it joins a kept wall to its anchor outside the region), which leaves the
                // other side fewer options than a bare pass.
                if let Some((c, k)) = self.ko_threats {
                    if c != me && st.threats_used < k && k != UNLIMITED_THREATS {
                        next.threats_used += 1;
                    }
                }
            }
            Some(i) => {
                let iu = i as usize;
                if st.cells[iu] != EMPTY {
                    return None;
                }
                let n = st.cells.len();
                let mycell = cell(me);
                let oppcell = cell(me.opponent());
                next.cells[iu] = mycell;
                let (mut stack, mut heap) = ([false; STACK_MARKS], Vec::new());
                let mark: &mut [bool] = if n <= STACK_MARKS {
                    &mut stack[..n]
                } else {
                    heap.resize(n, false);
                    &mut heap
                };
                let mut scratch = self.scratch.borrow_mut();
                let (members, captured) = &mut *scratch;
                captured.clear();
                for &g in &self.scope.nbrs[iu] {
                    if g == NONE || g >= OUT || next.cells[g as usize] != oppcell || mark[g as usize] {
                        continue;
                    }
                    // Walk only until a liberty shows; a chain walked in part is unmarked
                    // again, so another neighbour in it is walked afresh (a partial mark
                    // would cut the walk off from the liberty already seen).
                    let (has, _) = chain_of(&self.scope, &next.cells, g as usize, members, mark, 1);
                    if has {
                        for &m in members.iter() {
                            mark[m as usize] = false;
                        }
                    } else {
                        for &m in members.iter() {
                            next.cells[m as usize] = EMPTY;
                            captured.push(m);
                        }
                    }
                }
                // 劫 (第五条): retaking at once the single stone that has just taken a
                // single stone is forbidden; a move there that captures more is not a ko
                // recapture. 1989: the same retake is barred until the player has passed.
                let retake = captured.len() == 1;
                match self.mode {
                    Mode::Kiyaku2011 => {
                        if retake && st.ko == i {
                            // Barred, unless `me` has a ko threat left outside the region:
                            // its opponent answers it, and the ban is lifted.
                            match self.ko_threats {
                                Some((c, UNLIMITED_THREATS)) if c == me => {}
                                Some((c, k)) if c == me && st.threats_used < k => next.threats_used += 1,
                                _ => return None,
                            }
                        }
                    }
                    Mode::Kiyaku1989 => {
                        if retake && st.bans[me.index()].iter().any(|&(q, s)| q == i && s == captured[0]) {
                            return None;
                        }
                    }
                }
                mark.fill(false);
                let (has, nlibs) = chain_of(&self.scope, &next.cells, iu, members, mark, 2);
                if !has {
                    return None; // suicide (第四条)
                }
                if captured.len() == 1 && members.len() == 1 && nlibs == 1 {
                    match self.mode {
                        Mode::Kiyaku2011 => next.ko = captured[0],
                        Mode::Kiyaku1989 => next.bans[me.opponent().index()].push((captured[0], i)),
                    }
                }
            }
        }
        if self.mode == Mode::Kiyaku1989 {
            // Bans whose ko shape no longer stands can never apply again (a new capture
            // creates a new ban): drop them so equal positions compare equal.
            for c in [Color::Black, Color::White] {
                let mut bans = std::mem::take(&mut next.bans[c.index()]);
                let probe = State { to_move: c, ..next.clone() };
                bans.retain(|&(q, s)| next.cells[q as usize] == EMPTY && self.is_retake(&probe, q, s));
                bans.sort_unstable();
                bans.dedup();
                next.bans[c.index()] = bans;
            }
        }
        if mv.is_some() {
            next.key = State::cells_key(&next.cells);
        }
        Some(next)
    }
}

mod links;
mod moves;
mod prover;
mod seal;
mod sealed;
mod territory;
#[cfg(test)]
mod tests;
mod trap;
mod zone;

pub(crate) use prover::{forced, Lent, Prover};
pub(crate) use sealed::SEALED_MAX_EMPTY;
pub(crate) use trap::Trap;
