//! Formations: where each unit of a group goes when the group is sent somewhere (issue 27).
//!
//! A formation move ([`Command::FormationMove`](crate::Command::FormationMove)) turns one
//! destination into one **slot** per unit: a layout around the goal, turned to a facing, and
//! a one-to-one assignment of units to slots. This module is the pure part: given the units'
//! ids and positions, the goal, the [`FormationKind`], the spacing and an optional facing, it
//! computes the slots ([`plan`]), in fixed point, identically on every machine, from nothing
//! but its inputs. The simulator then gives each unit its slot as its goal (`sim::formation`)
//! and keeps the [`Formation`] as state. A group sent with
//! [`Command::FormationMarch`](crate::Command::FormationMarch) moves together: one shared path,
//! a moving frame, a column through narrow stretches ([`march`]).
//!
//! # Facing and frame
//! The facing `f` is the given direction (normalised), else the direction from the group's
//! centre (the mean of the positions, floored) to the goal, else `(0, 1)` when they coincide.
//! A layout is written in the formation's frame, `x` to the right of the facing and `y` along
//! it, and placed at `goal + x·right + y·f` with `right = (f.y, −f.x)`. The goal is the
//! layout's centre.
//!
//! # Layouts ([`FormationKind`])
//! With `n` units, spacing `s` (centre to centre) and `⌈√n⌉` the integer ceiling root:
//!
//! * **Box**: ranks of `w = ⌈√n⌉` files; **Line**: `d = ⌈⌈√n⌉ / 3⌉` ranks (about nine times
//!   as wide as deep); **Column**: `w = ⌈⌈√n⌉ / 3⌉` files (about nine times as deep as wide).
//!   Ranks run front to back, `s` apart, centred on the goal; each rank's files are `s` apart
//!   and centred, the last rank holding the remainder.
//! * **Spread** ("spread around the point", no formation): the `n` points of a hexagonal
//!   lattice of side `s` nearest to the goal, chosen exactly by the lattice norm
//!   `i² + ij + j²` (ties by `j`, then `i`): distinct resting places packed around the point.
//! * **Keep** (the group's current layout): each unit keeps its offset from the group's centre,
//!   turned from the heading (centre to goal) to the given facing if one is given, translated
//!   otherwise. RTS "magic box": the layout is kept only when the selection is compact (every
//!   offset within `s·(1 + √n)`, about twice the radius of the same units packed) and the goal
//!   lies outside the selection's bounding box; otherwise the units converge into a **Box**.
//!   Units sharing a position (so their slots would coincide) also fall back to the box.
//!
//! # Assignment ([`assign`])
//! Each unit gets a distinct slot; the aim is the least total travelled distance (each
//! distance the fixed-point length, a floored root). Units are taken in ascending id and
//! slots in layout order, and every tie below is broken by that index, so the result depends
//! on the set of (id, position) pairs only, never on the order they are given in.
//!
//! * `n ≤` [`EXACT_MAX`] (64): the **Hungarian** method (Kuhn–Munkres with potentials,
//!   `O(n³)`, integer costs, `i128` potentials): the exact optimum of the rounded distances.
//!   At 64 units: 4,096 distances and at most 64³ ≈ 262,000 relaxations.
//! * Above: a **sweep by bands** then **bounded pair swaps**. Units and slots are sorted
//!   front to back along the facing (`p · f`, exact), cut into bands of the layout's rank
//!   width (`⌈√n⌉` for Spread and Keep), and within a band paired left to right (`p · right`).
//!   Then [`SWAP_PASSES`] passes go over the slots in that order and swap two units' slots
//!   whenever that strictly lowers the total, each slot tried against the next
//!   [`SWAP_WINDOW`] slots and the slot one band behind. Cost: two sorts (`O(n log n)`) and at
//!   most `SWAP_PASSES · (SWAP_WINDOW + 1) · n` swap tests of two distances each (2 passes,
//!   window 4): 100,000 units cost 2 M distances, 1,000 units 20,000. Quality against the
//!   exact optimum is measured in the tests (`assignment_quality`) and in docs/formations.md.
//!
//! With sum-of-distance costs an optimal assignment has no two crossing paths (swapping the
//! ends of two crossing segments shortens both by the triangle inequality), which is what
//! keeps a group from cutting through itself on the way.

use crate::agent::AgentId;
use crate::domain::checked_point;
use crate::error::SimError;
use crate::math::{Fx, Vec2, isqrt_u128, sqrt};
use serde::{Deserialize, Serialize};

mod assign;
pub mod march;
pub use assign::{EXACT_MAX, SWAP_PASSES, SWAP_WINDOW, assign};
pub use march::March;

/// Most units one formation places (a group's largest size,
/// [`MAX_GROUP_MEMBERS`](super::groups::MAX_GROUP_MEMBERS)).
pub const MAX_FORMATION_UNITS: usize = super::groups::MAX_GROUP_MEMBERS;

/// The least and the largest spacing a formation accepts: `0.01 ..= 1,000`.
pub const MIN_SPACING: Fx = Fx::lit("0.01");
/// See [`MIN_SPACING`].
pub const MAX_SPACING: Fx = Fx::lit("1000");

/// The default spacing, in radii of the group's largest unit: `5` (a gap of one and a half
/// diameters between neighbours at rest). Tighter formations jam under ORCA while they form:
/// 100 units of radius 0.5 sent in a box at spacings of 2.5 and 3 radii still had 75 and 42
/// units short of their slots after 300 s, at 4 radii all arrived in 138 s, at 5 in 101 s
/// (docs/formations.md).
pub const SPACING_RADII: Fx = Fx::lit("5");

/// `√3 / 2`, the row height of the hexagonal lattice in units of its side.
const SQRT3_HALF: Fx = Fx::lit("0.8660254037844386");

/// The shape of a formation (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FormationKind {
    /// Keep the group's current layout (offsets from its centre), "magic box" rules.
    Keep,
    /// A wide formation: few ranks.
    Line,
    /// A square formation (the default).
    #[default]
    Box,
    /// A deep formation: few files.
    Column,
    /// No formation: distinct resting places packed around the goal.
    Spread,
}

impl FormationKind {
    /// The tag of the canonical encoding: 0 keep, 1 line, 2 box, 3 column, 4 spread.
    #[must_use]
    pub fn canonical_byte(self) -> u8 {
        match self {
            Self::Keep => 0,
            Self::Line => 1,
            Self::Box => 2,
            Self::Column => 3,
            Self::Spread => 4,
        }
    }

    /// The kind of a canonical byte.
    #[must_use]
    pub fn from_canonical_byte(b: u8) -> Option<Self> {
        Some(match b {
            0 => Self::Keep,
            1 => Self::Line,
            2 => Self::Box,
            3 => Self::Column,
            4 => Self::Spread,
            _ => return None,
        })
    }

    /// The kind named in a scenario file: `keep`, `line`, `box`, `column`, `spread`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "keep" => Self::Keep,
            "line" => Self::Line,
            "box" => Self::Box,
            "column" => Self::Column,
            "spread" => Self::Spread,
            _ => return None,
        })
    }
}

/// A group's formation move as kept by the simulator (state: hashed, snapshotted, diffed):
/// the layout placed and every unit's slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Formation {
    /// The kind asked for.
    pub kind: FormationKind,
    /// The layout actually placed (a `Keep` that fell back to the box says `Box` here).
    pub placed: FormationKind,
    /// The goal (the layout's centre).
    pub goal: Vec2,
    /// The facing (a unit vector, or as close as fixed point gets).
    pub facing: Vec2,
    /// Each unit's slot, ascending id.
    pub slots: Vec<(AgentId, Vec2)>,
    /// The march while the group moves together ([`march`]); `None` otherwise and once the
    /// frame has reached the goal. Stored in snapshots of format 9 beside the formation (not
    /// in its serde form, which format 7 fixes).
    #[serde(skip)]
    pub march: Option<Box<March>>,
}

impl Formation {
    /// The slot of unit `id`, if it has one.
    #[must_use]
    pub fn slot(&self, id: AgentId) -> Option<Vec2> {
        self.slots
            .binary_search_by_key(&id, |&(i, _)| i)
            .ok()
            .map(|k| self.slots[k].1)
    }

    /// Checks a decoded formation (snapshot restore): the layout placed as the kind allows, ascending unique ids below
    /// `next_id`, at most [`MAX_FORMATION_UNITS`] slots, every point in the domain, and its
    /// march, if any ([`March::validate`](march::March)).
    pub(crate) fn validate(&self, next_id: u32) -> Result<(), SimError> {
        let bad = |what| SimError::OutOfDomain {
            what,
            allowed: "a formation as the simulator places it",
        };
        if self.slots.is_empty() || self.slots.len() > MAX_FORMATION_UNITS {
            return Err(bad("formation slots"));
        }
        if self.slots.windows(2).any(|w| w[0].0 >= w[1].0)
            || self.slots.last().is_some_and(|s| s.0.0 >= next_id)
        {
            return Err(bad("formation slot ids"));
        }
        // A kept layout falls back to the box only; every other kind is placed as asked.
        let placed_ok = match self.kind {
            FormationKind::Keep => matches!(self.placed, FormationKind::Keep | FormationKind::Box),
            kind => self.placed == kind,
        };
        if !placed_ok {
            return Err(bad("formation layout"));
        }
        checked_point(self.goal, "formation goal")?;
        check_facing(self.facing)?;
        for &(_, p) in &self.slots {
            checked_point(p, "formation slot")?;
        }
        match &self.march {
            // The shared path: the start and at most a plan's 1,025 points.
            Some(m) => m.validate(&self.slots, crate::orders::MAX_PATH_POINTS + 1),
            None => Ok(()),
        }
    }
}

/// Where a formation move stands ([`Simulator::formation_status`](crate::Simulator::formation_status)),
/// derived from its members' orders every time it is read (nothing of it is stored but the
/// [`Formation`]).
///
/// A member is **attached** while it still follows the order the formation gave it: it has an
/// order and that order's goal, or its navigation request's goal, is its slot. A later order
/// (a `MoveTo`, a `Stop`, another group order) or its removal detaches it. An attached member
/// is **finished** when its order is (arrived or given up) and, if it navigates, its plan is
/// neither pending nor partial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormationStatus {
    /// Some attached member is not finished.
    Moving,
    /// Every attached member is finished: the group has arrived.
    Arrived,
    /// No member is attached any more (every one has a new order or is gone).
    Dissolved,
}

/// A formation move's progress: its status and the counts behind it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FormationProgress {
    /// Where it stands.
    pub status: FormationStatus,
    /// Units given a slot.
    pub slots: u32,
    /// Units still following their slot order.
    pub attached: u32,
    /// Attached units whose navigation found no way to their slot
    /// ([`PathStatus::Unreachable`](crate::navigation::PathStatus::Unreachable)): they go,
    /// and come to rest, at the reachable point nearest it. Their order still finishes there,
    /// so a group whose goal is walled off arrives, `Arrived` with this count above zero.
    pub unreachable: u32,
    /// Attached units whose order is finished.
    pub finished: u32,
}

impl FormationProgress {
    /// The progress of `slots` slots of which `attached` are attached and `finished` finished.
    #[must_use]
    pub fn of_counts(slots: u32, attached: u32, finished: u32) -> Self {
        let status = if attached == 0 {
            FormationStatus::Dissolved
        } else if finished == attached {
            FormationStatus::Arrived
        } else {
            FormationStatus::Moving
        };
        Self {
            status,
            slots,
            attached,
            unreachable: 0,
            finished,
        }
    }
}

/// What happened to a formation move in a step ([`Simulator::formation_events`](crate::Simulator::formation_events)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormationEventKind {
    /// Its last attached member finished: the group has arrived.
    Arrived,
    /// It had arrived, and a member is on its way again (pushed off its slot).
    Moving,
}

/// One formation's status change in a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FormationEvent {
    /// The tick of the step (the tick it started from).
    pub tick: u64,
    /// The group whose formation move it is.
    pub group: u32,
    /// What happened.
    pub kind: FormationEventKind,
}

/// Checks a facing: non-zero, each component within `±1,000`.
///
/// # Errors
/// [`SimError::OutOfDomain`] (`what: "facing"`).
pub fn check_facing(f: Vec2) -> Result<(), SimError> {
    if f == Vec2::ZERO || f.max_abs_component() > crate::domain::MAX_SPEED {
        return Err(SimError::OutOfDomain {
            what: "facing",
            allowed: "non-zero, each component within ±1,000",
        });
    }
    Ok(())
}

/// Checks a spacing: [`MIN_SPACING`] `..=` [`MAX_SPACING`].
///
/// # Errors
/// [`SimError::OutOfDomain`] (`what: "formation spacing"`).
pub fn check_spacing(s: Fx) -> Result<(), SimError> {
    crate::domain::check_range(
        s,
        MIN_SPACING,
        MAX_SPACING,
        "formation spacing",
        "0.01 ..= 1,000",
    )
}

/// A planned formation: the facing, the layout placed, every unit's slot (ascending id), and
/// the band width the assignment used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormationPlan {
    /// The layout actually placed ([`FormationKind::Keep`] falls back to `Box`).
    pub placed: FormationKind,
    /// The facing.
    pub facing: Vec2,
    /// Each unit's slot, ascending id.
    pub slots: Vec<(AgentId, Vec2)>,
}

/// `⌈√n⌉`.
#[must_use]
pub(crate) fn ceil_sqrt(n: usize) -> usize {
    let r = isqrt_u128(n as u128) as usize;
    if r * r < n { r + 1 } else { r }
}

/// The mean of `points` (each component floored), `None` when empty.
#[must_use]
pub fn centre(points: &[Vec2]) -> Option<Vec2> {
    let n = i128::try_from(points.len()).ok().filter(|&n| n > 0)?;
    let (mut x, mut y) = (0i128, 0i128);
    for p in points {
        x += i128::from(p.x.to_bits());
        y += i128::from(p.y.to_bits());
    }
    // The mean of in-range values is in range.
    Some(Vec2::from_bits(
        x.div_euclid(n) as i64,
        y.div_euclid(n) as i64,
    ))
}

/// The facing of a formation (see the [module docs](self)): `given` normalised, else the
/// direction from `centre` to `goal`, else `(0, 1)`.
#[must_use]
pub fn facing(centre: Vec2, goal: Vec2, given: Option<Vec2>) -> Vec2 {
    given
        .and_then(Vec2::try_normalize)
        .or_else(|| (goal - centre).try_normalize())
        .unwrap_or(Vec2::from_int(0, 1))
}

/// Ranks of `w` files for `n` units of kind `kind` (Line, Box, Column).
fn files(kind: FormationKind, n: usize) -> usize {
    let root = ceil_sqrt(n);
    let w = match kind {
        FormationKind::Line => n.div_ceil(root.div_ceil(3).max(1)),
        FormationKind::Column => root.div_ceil(3),
        _ => root,
    };
    w.max(1)
}

/// `k · s / 2` for a small integer `k` (floored on the raw bits).
fn half_steps(k: i64, s: Fx) -> Fx {
    Fx::from_bits(((i128::from(k) * i128::from(s.to_bits())) >> 1) as i64)
}

/// The layout of `n` units in the formation's frame (`x` right, `y` forward), in layout order:
/// ranks front to back, files left to right; for Spread, nearest the centre first. Returns
/// the layout and the band width of the assignment. `kind` must not be `Keep`.
#[must_use]
pub fn layout(kind: FormationKind, n: usize, spacing: Fx) -> (Vec<Vec2>, usize) {
    if kind == FormationKind::Spread {
        return (spread(n, spacing), ceil_sqrt(n).max(1));
    }
    let w = files(kind, n);
    let d = n.div_ceil(w);
    let mut out = Vec::with_capacity(n);
    for k in 0..d {
        let m = if k + 1 == d { n - k * w } else { w };
        let y = half_steps((d as i64 - 1) - 2 * k as i64, spacing);
        for j in 0..m {
            let x = half_steps(2 * j as i64 - (m as i64 - 1), spacing);
            out.push(Vec2::new(x, y));
        }
    }
    (out, w)
}

/// The `n` points of the hexagonal lattice of side `s` nearest to the origin (see the
/// [module docs](self)).
fn spread(n: usize, s: Fx) -> Vec<Vec2> {
    // Every lattice point with max(|i|, |j|) > r has norm i² + ij + j² >= 3/4 · r² > n, and
    // at least n points have a norm <= n / 3 + 1: the n nearest are all inside the square.
    let r = ceil_sqrt(n) as i64 + 1;
    let mut cand: Vec<(i64, i64, i64)> = Vec::with_capacity(((2 * r + 1) * (2 * r + 1)) as usize);
    for j in -r..=r {
        for i in -r..=r {
            cand.push((i * i + i * j + j * j, j, i));
        }
    }
    cand.sort_unstable();
    cand.truncate(n);
    let row = s * SQRT3_HALF;
    cand.into_iter()
        .map(|(_, j, i)| Vec2::new(half_steps(2 * i + j, s), row * Fx::from_num(j)))
        .collect()
}

/// `goal + x·right + y·f` for a local point `(x, y)`, or `None` out of the Q32.32 range.
fn place(goal: Vec2, f: Vec2, local: Vec2) -> Option<Vec2> {
    // right = (f.y, −f.x): x·right + y·f = (x·f.y + y·f.x, y·f.y − x·f.x), each an exact i128
    // sum shifted once.
    let dx = (crate::math::wide_mul(local.x, f.y) + crate::math::wide_mul(local.y, f.x)) >> 32;
    let dy = (crate::math::wide_mul(local.y, f.y) - crate::math::wide_mul(local.x, f.x)) >> 32;
    let x = i128::from(goal.x.to_bits()) + dx;
    let y = i128::from(goal.y.to_bits()) + dy;
    Some(Vec2::from_bits(
        i64::try_from(x).ok()?,
        i64::try_from(y).ok()?,
    ))
}

/// The local coordinates of `v` in the frame of facing `f`: `(v · right, v · f)`.
pub(crate) fn local_of(v: Vec2, f: Vec2) -> Vec2 {
    let right = Vec2::new(f.y, -f.x);
    Vec2::new(v.dot(right), v.dot(f))
}

fn out_of_domain() -> SimError {
    SimError::OutOfDomain {
        what: "formation slot",
        allowed: "every slot within the domain (|x|, |y| <= 1,000,000)",
    }
}

/// Plans a formation move: the facing, the layout placed and every unit's slot, ascending id
/// (the rules of the [module docs](self)). `units` may come in any order; the result depends
/// only on its set of pairs.
///
/// # Errors
/// [`SimError::OutOfDomain`] for no unit, more than [`MAX_FORMATION_UNITS`], a repeated id, a
/// spacing outside [`check_spacing`], a bad facing, a goal outside the domain, or a slot that
/// would leave the domain (`what: "formation slot"`).
pub fn plan(
    units: &[(AgentId, Vec2)],
    goal: Vec2,
    kind: FormationKind,
    spacing: Fx,
    given: Option<Vec2>,
) -> Result<FormationPlan, SimError> {
    if units.is_empty() || units.len() > MAX_FORMATION_UNITS {
        return Err(SimError::OutOfDomain {
            what: "formation units",
            allowed: "1 ..= 65,536",
        });
    }
    check_spacing(spacing)?;
    checked_point(goal, "goal")?;
    if let Some(f) = given {
        check_facing(f)?;
    }
    let mut units = units.to_vec();
    units.sort_unstable_by_key(|&(id, _)| id);
    if units.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(SimError::OutOfDomain {
            what: "formation units",
            allowed: "distinct ids",
        });
    }
    let positions: Vec<Vec2> = units.iter().map(|&(_, p)| p).collect();
    let c = centre(&positions).ok_or_else(out_of_domain)?;
    let f = facing(c, goal, given);
    let n = units.len();
    if kind == FormationKind::Keep
        && let Some(slots) = keep(&positions, c, goal, f, given.is_some(), spacing)
    {
        return Ok(FormationPlan {
            placed: FormationKind::Keep,
            facing: f,
            slots: units.iter().map(|&(id, _)| id).zip(slots).collect(),
        });
    }
    let placed = if kind == FormationKind::Keep {
        FormationKind::Box
    } else {
        kind
    };
    let (local, band) = layout(placed, n, spacing);
    let slots = local
        .iter()
        .map(|&l| place(goal, f, l).filter(|&p| checked_point(p, "slot").is_ok()))
        .collect::<Option<Vec<Vec2>>>()
        .ok_or_else(out_of_domain)?;
    let to = assign(&positions, &slots, f, band);
    Ok(FormationPlan {
        placed,
        facing: f,
        slots: units
            .iter()
            .zip(&to)
            .map(|(&(id, _), &s)| (id, slots[s]))
            .collect(),
    })
}

/// The kept layout's slots (in the units' order), or `None` when the magic-box rule sends the
/// group into a box instead (or a slot would leave the domain or coincide with another).
fn keep(
    positions: &[Vec2],
    c: Vec2,
    goal: Vec2,
    f: Vec2,
    turn: bool,
    spacing: Fx,
) -> Option<Vec<Vec2>> {
    let n = positions.len();
    let reach = spacing.saturating_mul(Fx::ONE + sqrt(Fx::saturating_from_num(n)));
    let reach_sq = crate::math::wide_mul(reach, reach);
    if positions
        .iter()
        .any(|&p| (p - c).length_squared_wide() > reach_sq)
    {
        return None;
    }
    let (mut lo, mut hi) = (positions[0], positions[0]);
    for p in positions {
        lo = Vec2::new(lo.x.min(p.x), lo.y.min(p.y));
        hi = Vec2::new(hi.x.max(p.x), hi.y.max(p.y));
    }
    if (lo.x..=hi.x).contains(&goal.x) && (lo.y..=hi.y).contains(&goal.y) {
        return None;
    }
    // The heading the offsets are read in: centre to goal (the goal is outside the box, so
    // not at the centre).
    let h = facing(c, goal, None);
    let mut slots = Vec::with_capacity(n);
    for &p in positions {
        let o = p - c;
        let slot = if turn {
            place(goal, f, local_of(o, h))?
        } else {
            Vec2::from_bits(
                goal.x.to_bits().checked_add(o.x.to_bits())?,
                goal.y.to_bits().checked_add(o.y.to_bits())?,
            )
        };
        checked_point(slot, "slot").ok()?;
        slots.push(slot);
    }
    let mut sorted = slots.clone();
    sorted.sort_unstable_by_key(|p| (p.x.to_bits(), p.y.to_bits()));
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    Some(slots)
}

#[cfg(test)]
mod tests;
