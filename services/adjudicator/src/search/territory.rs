//! The ends of a territory's local game (module `safety`).

use super::{links, End, Mode, Region};
use crate::benson::cell;
use goban::Color;

/// The ends of a territory's local game: the defender wins (*alive*) when every point of
/// `area` is in its unconditional area, or, with `pairing` (2011 only), when the pairing of
/// [`links::local_game_paired`] gets it there whatever the attacker does; the attacker wins
/// (*dead*) when it captures a stone of one of the defender's `boundary` chains.
#[derive(Clone, Debug)]
pub(crate) struct Territory {
    pub defender: Color,
    pub boundary: Vec<usize>,
    pub area: Vec<usize>,
    pub pairing: bool,
}

impl Region {
    /// The end of the local game `t` at `cells`: *dead* once a boundary stone is captured,
    /// *alive* once every point of its area is in the defender's unconditional area or (with
    /// `pairing`, 2011 only) [`links::local_game_paired`] holds.
    pub(super) fn territory_end(&mut self, t: &Territory, cells: &[u8]) -> Option<End> {
        let d = cell(t.defender);
        if t.boundary.iter().any(|&s| cells[s] != d) {
            return Some(End::Dead);
        }
        let own = self.area(cells, t.defender);
        let won = t.area.iter().all(|&s| own.get(s))
            || (t.pairing
                && self.mode == Mode::Kiyaku2011
                && links::local_game_paired(&self.scope, cells, &t.area, d, !self.scope.virtual_eye.is_empty()));
        won.then_some(End::Alive)
    }
}
