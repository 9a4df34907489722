//! The spatial lookups of traffic control ([`super::traffic`]), in square cells of the
//! coordinates' bits: the cores of crowds at rest (which units on their way touch one on
//! another goal) and the units not at rest (which units at rest near a portal they reach).
//! Built each tick from the state, never kept.

use crate::agent::{AgentId, AgentParams};
use crate::math::{Fx, Vec2, wide_mul};

/// A unit of the core of a crowd at rest: its position, radius and goal.
pub(super) type CoreUnit = (Vec2, Fx, Vec2);

/// The units of the cores of crowds at rest (position, radius, goal), bucketed by square
/// cells at least as wide as the farthest a unit on its way can be from one it touches: a
/// unit on its way reads the 3 × 3 cells round its own.
pub(super) struct CoreGrid {
    /// The cell's side as a shift of the coordinates' bits.
    shift: u32,
    /// Each unit's cell, then the unit, sorted.
    cells: Vec<((i64, i64), CoreUnit)>,
}

impl CoreGrid {
    pub(super) fn new(core: Vec<CoreUnit>, passers: &[(AgentId, Vec2, Fx, Vec2)]) -> Self {
        let rc = core.iter().map(|c| c.1).max().unwrap_or(Fx::ZERO);
        let rp = passers.iter().map(|p| p.2).max().unwrap_or(Fx::ZERO);
        // The farthest touch: a passer's radius and half of it, and the core unit's radius.
        let reach = rp.saturating_add(rp / 2).saturating_add(rc);
        let bits = reach.to_bits().unsigned_abs().max(1);
        let shift = (u64::BITS - bits.leading_zeros()).min(62);
        let mut cells: Vec<((i64, i64), CoreUnit)> = core
            .into_iter()
            .map(|c| ((c.0.x.to_bits() >> shift, c.0.y.to_bits() >> shift), c))
            .collect();
        // By cell; the order within a cell is never read (`touches` asks whether any
        // touches).
        cells.sort_unstable_by_key(|c| c.0);
        Self { shift, cells }
    }

    /// Whether a unit on its way at `p` (radius `r`, to `goal`) touches a unit of a core at
    /// rest on another goal: their discs within `r / 2`.
    pub(super) fn touches(&self, p: Vec2, r: Fx, goal: Vec2) -> bool {
        any_around(&self.cells, self.shift, p, |&(q, rc, g)| {
            let reach = r.saturating_add(r / 2).saturating_add(rc);
            g != goal && (q - p).length_squared_wide() <= wide_mul(reach, reach)
        })
    }
}

/// A unit not at rest: its position, its reach ([`MoverGrid::reach`]) and its order's goal
/// (`None`: no order).
pub(super) type Mover = (Vec2, Fx, Option<Vec2>);

/// The navigating units not at rest ([`Simulator::control_traffic`]; units on plain orders or
/// steered by the game are not among them), bucketed by square cells at least as wide as
/// twice the farthest reach (a traffic radius is not assumed: the reach is each mover's own).
pub(super) struct MoverGrid {
    /// The cell's side as a shift of the coordinates' bits.
    shift: u32,
    /// The reach is too long for cells (beyond the domain): every mover is checked.
    scan: bool,
    /// Each mover's cell, then the mover, sorted.
    cells: Vec<((i64, i64), Mover)>,
}

impl MoverGrid {
    /// How far a unit not at rest reaches a unit at rest that should yield to it: its radius
    /// and the distance it covers at full speed in its time horizon (saturating), the range in
    /// which ORCA makes the two avoid each other. The resting unit's radius is added per pair.
    pub(super) fn reach(p: &AgentParams) -> Fx {
        p.radius
            .saturating_add(p.max_speed.saturating_mul(p.time_horizon))
    }

    pub(super) fn new(movers: Vec<Mover>) -> Self {
        // Cells as wide as the farthest reach and a radius of the same size (a unit at rest
        // larger than that is looked up in the same 3 × 3 cells: see `reaches`).
        let far = movers.iter().map(|m| m.1).max().unwrap_or(Fx::ZERO);
        let bits = far.saturating_mul_int(2).to_bits().unsigned_abs().max(1);
        let wanted = u64::BITS - bits.leading_zeros();
        let (shift, scan) = (wanted.min(62), wanted > 62);
        let mut cells: Vec<_> = movers
            .into_iter()
            .map(|m| ((m.0.x.to_bits() >> shift, m.0.y.to_bits() >> shift), m))
            .collect();
        // By cell; the order within a cell is never read (`reaches` asks whether any does).
        cells.sort_unstable_by_key(|c| c.0);
        Self { shift, scan, cells }
    }

    /// Whether a unit not at rest reaches a unit at rest at `p` of radius `r`: their centres
    /// within the mover's reach and `r`. With `except`, movers whose order has that goal do not
    /// count. Cells hold the movers within `2^shift`; a unit at rest larger than the farthest
    /// reach is checked against every mover.
    pub(super) fn reaches(&self, p: Vec2, r: Fx, except: Option<Vec2>) -> bool {
        let near = |&(q, reach, goal): &Mover| {
            if except.is_some() && goal == except {
                return false;
            }
            let d = reach.saturating_add(r);
            (q - p).length_squared_wide() <= wide_mul(d, d)
        };
        let side = Fx::from_bits(1i64 << self.shift.min(62)) / 2;
        if self.scan || r > side {
            return self.cells.iter().any(|c| near(&c.1));
        }
        any_around(&self.cells, self.shift, p, near)
    }
}

/// Whether any entry of `cells` (sorted by cell: the coordinates' bits shifted right by
/// `shift`) in the 3 × 3 cells around `p`'s passes `f`. The order read within a cell never
/// matters (`any`).
fn any_around<T>(cells: &[((i64, i64), T)], shift: u32, p: Vec2, f: impl Fn(&T) -> bool) -> bool {
    let (cx, cy) = (p.x.to_bits() >> shift, p.y.to_bits() >> shift);
    (cx - 1..=cx + 1).any(|x| {
        let lo = cells.partition_point(|c| c.0 < (x, cy - 1));
        cells[lo..]
            .iter()
            .take_while(|c| c.0 <= (x, cy + 1))
            .any(|c| f(&c.1))
    })
}
