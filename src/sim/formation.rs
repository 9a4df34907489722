//! Formation moves in the simulator ([`Command::FormationMove`](crate::Command::FormationMove),
//! [`crate::orders::formation`]): the command, the formation's status and the step's formation
//! events.
//!
//! The command plans the slots from the members present (ascending id, their positions and
//! the largest radius for the default spacing), moves each slot to the nearest walkable place
//! when navigation is on, and orders every member to its slot (`NavigateTo` with navigation,
//! else `MoveTo`), at the slowest member's speed when asked; the [`Formation`] is kept in the
//! groups (state). Everything else is derived: a member's order arrives at its slot by the
//! ordinary arrival rule (its goal is its own, so it comes to rest on it: [`crate::orders::arrival`]),
//! and the formation's status is read from its members' orders
//! ([`FormationStatus`](crate::orders::formation::FormationStatus)).

use super::{NavRecord, Simulator};
use crate::agent::AgentId;
use crate::error::SimError;
use crate::math::{Fx, Vec2};
use crate::navigation::PathStatus;
use crate::orders::formation::{
    self, Formation, FormationEvent, FormationEventKind, FormationKind, FormationProgress,
    SPACING_RADII,
};
use crate::orders::{Order, Orders};
use std::collections::HashMap;

// Moving as a group: the shared path, the march stage and its undo.
#[path = "formation_march.rs"]
mod march;

/// What a formation move replaced, for the undo: every member's old order, and the group's
/// old formation.
pub(super) struct Replaced {
    pub orders: Vec<(AgentId, Option<Order>)>,
    pub formation: Option<Formation>,
}

/// The parameters of a formation move (the fields of the command).
#[derive(Clone, Copy, Debug)]
pub(super) struct FormationOrder {
    pub group: u32,
    pub goal: Vec2,
    pub kind: FormationKind,
    pub facing: Option<Vec2>,
    pub spacing: Option<Fx>,
    pub slowest: bool,
    /// Move together ([`Command::FormationMarch`](crate::Command::FormationMarch)).
    pub together: bool,
}

impl Simulator {
    /// Applies a formation move (see the [module docs](self)); returns what it replaced.
    /// Nothing changes on error.
    pub(super) fn formation_move(&mut self, o: FormationOrder) -> Result<Replaced, SimError> {
        crate::command::Command::FormationMove {
            group: o.group,
            goal: o.goal,
            formation: o.kind,
            facing: o.facing,
            spacing: o.spacing,
            slowest: o.slowest,
        }
        .validate_values(self.time_step)?;
        let members = self.members_present(o.group)?;
        let mut units = Vec::with_capacity(members.len());
        let mut largest = Fx::ZERO;
        for &id in &members {
            let slot = self.slot(id)?;
            units.push((id, self.agents.positions()[slot]));
            largest = largest.max(self.agents.params()[slot].radius);
        }
        let spacing = o.spacing.unwrap_or_else(|| {
            largest
                .saturating_mul(SPACING_RADII)
                .clamp(formation::MIN_SPACING, formation::MAX_SPACING)
        });
        let navigating = self.nav.params.is_some();
        if navigating {
            // The mesh of the current obstacles (an obstacle command earlier in this tick
            // leaves it stale until stage 1a; the undo puts the old mesh back).
            self.sync_nav_mesh();
        }
        // The navigation debt before the group's path is planned: a no-op order gives it
        // back (it changes nothing).
        let debt = self.nav.debt;
        // Moving together: the group's path first (its end is the layout's centre).
        let path = if o.together {
            self.group_path(&units, o.goal, largest)
        } else {
            None
        };
        let centre = path
            .as_ref()
            .and_then(|p| p.last().copied())
            .unwrap_or(o.goal);
        let current = self.orders.groups.formation(o.group);
        let facing = o
            .facing
            .or_else(|| kept_facing(current, &o, &units, spacing));
        let plan = formation::plan(&units, centre, o.kind, spacing, facing)?;
        let mut slots = plan.slots;
        if navigating && let Some(mesh) = self.nav_mesh.mesh.clone() {
            // Every slot placed for the largest radius (any unit may get it after
            // the reassignment), in an order that depends on the layout only (not on which
            // unit the layout's assignment gave each slot).
            let radii = vec![largest; slots.len()];
            let mut canon: Vec<(AgentId, Vec2)> = slots.clone();
            canon.sort_unstable_by_key(|&(_, p)| (p.x.to_bits(), p.y.to_bits()));
            if walkable_slots(&mesh, &mut canon, &radii, spacing, largest) {
                for (k, c) in canon.iter().enumerate() {
                    slots[k].1 = c.1;
                }
                // The units assigned again to the slots where they now are (the layout's
                // assignment was to the places inside the building).
                let mut by_id = units.clone();
                by_id.sort_unstable_by_key(|&(id, _)| id);
                let positions: Vec<Vec2> = by_id.iter().map(|&(_, p)| p).collect();
                let targets: Vec<Vec2> = slots.iter().map(|&(_, q)| q).collect();
                // The layout's own bands for the sweep above 64 units.
                let band = match plan.placed {
                    FormationKind::Keep => formation::ceil_sqrt(targets.len()),
                    placed => formation::layout(placed, targets.len(), spacing).1,
                };
                let picks = formation::assign(&positions, &targets, plan.facing, band);
                for (k, pick) in picks.into_iter().enumerate() {
                    slots[k].1 = targets[pick];
                }
            }
        }
        let speed = if o.slowest {
            Some(self.slowest_speed(&members)?)
        } else {
            None
        };
        if let Some(current) = current
            && self.follows_already(current, &o, &slots, speed)
        {
            // The order the group follows, sent again (a player clicking the same spot, or
            // the spot where it stands): nothing changes, so repeated clicks never restart
            // the move or its march.
            self.nav.debt = debt;
            return Ok(Replaced {
                orders: Vec::new(),
                formation: Some(current.clone()),
            });
        }
        let march = match path {
            Some(path) => self.new_march(
                path,
                centre,
                plan.facing,
                &slots,
                spacing,
                largest,
                o.slowest,
            )?,
            None => None,
        };
        let straight = !navigating || march.is_some();
        // Every slot in the domain before any order is given (a refused order changes
        // nothing: `give_each` puts the orders back, the records are put back here).
        for &(_, q) in &slots {
            crate::domain::checked_point(q, "formation slot")?;
        }
        // The members' records and legs (only theirs: a copy of the whole navigation state cost
        // more than a tick with many units navigating).
        let saved: Vec<_> = slots
            .iter()
            .map(|&(id, _)| (id, self.nav.saved(id)))
            .collect();
        let done = self
            .give_each(slots.iter().copied(), speed, |sim, id, slot| {
                if straight {
                    sim.give_order(id, slot, false)
                        .inspect(|_| sim.nav.forget(id))
                } else {
                    sim.navigate_to(id, slot)
                }
            })
            .inspect_err(|_| {
                for (id, s) in saved {
                    self.nav.put_back(id, s);
                }
            })?;
        let formation = Formation {
            kind: o.kind,
            placed: plan.placed,
            goal: o.goal,
            facing: plan.facing,
            slots,
            march,
        };
        let old = self.orders.groups.set_formation(o.group, Some(formation));
        Ok(Replaced {
            orders: done,
            formation: old,
        })
    }

    /// Whether the group's formation `current` already is what order `o` would place: the
    /// same goal and kind, not a plain move for a march still under way, the
    /// same slot positions (`slots`, as a set), and every member still following the order
    /// it gave (its slot as its goal: for a navigating unit, its request's) at the order
    /// speed `speed`.
    fn follows_already(
        &self,
        current: &Formation,
        o: &FormationOrder,
        slots: &[(AgentId, Vec2)],
        speed: Option<Fx>,
    ) -> bool {
        if current.goal != o.goal
            || current.kind != o.kind
            // A march under way and a plain move are different orders; a march whose frame
            // has reached the goal (its members on their last stretch) is the move it became.
            || (current.march.is_some() && !o.together)
            || current.slots.len() != slots.len()
        {
            return false;
        }
        let navigating = self.nav.params.is_some();
        let key = |p: &Vec2| (p.x.to_bits(), p.y.to_bits());
        let mut old: Vec<_> = current.slots.iter().map(|(_, p)| key(p)).collect();
        let mut new: Vec<_> = slots.iter().map(|(_, p)| key(p)).collect();
        old.sort_unstable();
        new.sort_unstable();
        if old != new {
            return false;
        }
        // The members are the slots' ids (both ascending).
        current
            .slots
            .iter()
            .zip(slots)
            .all(|(&(id, slot), &(member, _))| {
                id == member
                    && self.orders.get(&id).is_some_and(|order| {
                        // A navigating unit's goal is its request's (its order leads to where it
                        // waits for its plan until the plan comes).
                        let goal = self.nav.get(id).map_or(order.goal(), |r| r.goal());
                        goal == slot
                            && order.speed() == speed
                            && order.status() != crate::orders::OrderStatus::GivenUp
                    })
                    // No queued legs (the new order would drop them), and a
                    // navigating member where the new order would navigate.
                    && !self.nav.legs.iter().any(|(i, _)| *i == id)
                    && (!navigating
                        || current.march.is_some()
                        || self.nav.get(id).is_some_and(|r| !r.is_straight()))
            })
    }

    /// Group `group`'s last formation move ([`Command::FormationMove`](crate::Command::FormationMove)):
    /// its layout, facing and every member's slot. `None` when the group never had one.
    #[must_use]
    pub fn formation(&self, group: u32) -> Option<&Formation> {
        self.orders.groups.formation(group)
    }

    /// Every group's last formation move, ascending group id.
    pub fn formations(&self) -> impl ExactSizeIterator<Item = (u32, &Formation)> + '_ {
        self.orders.groups.formations()
    }

    /// Where group `group`'s formation move stands (derived from its members' orders, see
    /// [`FormationStatus`](crate::orders::formation::FormationStatus)); `None` when the group never had one.
    #[must_use]
    pub fn formation_status(&self, group: u32) -> Option<FormationProgress> {
        let f = self.orders.groups.formation(group)?;
        let orders = self.orders.as_slice();
        let (mut attached, mut finished, mut unreachable) = (0u32, 0u32, 0u32);
        for &(id, slot) in &f.slots {
            if let Some((k, nav_done)) = self.member(id, slot) {
                attached += 1;
                unreachable += u32::from(matches!(
                    self.nav.get(id).and_then(NavRecord::status),
                    Some(PathStatus::Unreachable { .. })
                ));
                // A marching group has not arrived, whatever its members' orders say.
                finished +=
                    u32::from(f.march.is_none() && nav_done && orders[k].1.status().is_finished());
            }
        }
        let mut progress = FormationProgress::of_counts(f.slots.len() as u32, attached, finished);
        progress.unreachable = unreachable;
        Some(progress)
    }

    /// The formation status changes of the last [`step`](Self::step) (arrived, moving again),
    /// ascending group id. Reported when a member's order status change completes (or breaks)
    /// its formation; a formation completed by detaching its last moving member (a new order,
    /// a removal) says so in [`formation_status`](Self::formation_status) only. Not state.
    #[must_use]
    pub fn formation_events(&self) -> &[FormationEvent] {
        &self.inputs.formation_events
    }

    /// Member `id` of a formation, slot `slot`: `None` when detached, else the index of its
    /// order and whether its navigation (if any) is settled (not pending, not partial).
    fn member(&self, id: AgentId, slot: Vec2) -> Option<(usize, bool)> {
        let k = order_index(&self.orders, id)?;
        let nav = self.nav.get(id);
        let attached =
            self.orders.as_slice()[k].1.goal() == slot || nav.is_some_and(|r| r.goal() == slot);
        if !attached {
            return None;
        }
        let nav_done =
            nav.is_none_or(|r| !r.is_pending() && !matches!(r.status(), Some(PathStatus::Partial)));
        Some((k, nav_done))
    }

    /// Stage 1b's formation events: for every formation, whether all its attached members were
    /// finished before the step (the old statuses are in the order steps) and are after it.
    /// Only when some order's status changed (else no formation's can have).
    pub(super) fn formation_step_events(&mut self) {
        let mut events = std::mem::take(&mut self.inputs.formation_events);
        events.clear();
        if !self.inputs.order_events.is_empty() {
            for (group, f) in self.orders.groups.formations() {
                let all = |old: bool| {
                    if f.march.is_some() {
                        return false;
                    }
                    let mut attached = false;
                    for &(id, slot) in &f.slots {
                        let Some((k, nav_done)) = self.member(id, slot) else {
                            continue;
                        };
                        attached = true;
                        let status = if old {
                            self.inputs.steered[k].old_status()
                        } else {
                            self.orders.as_slice()[k].1.status()
                        };
                        if !(nav_done && status.is_finished()) {
                            return false;
                        }
                    }
                    attached
                };
                let (before, after) = (all(true), all(false));
                if before != after {
                    events.push(FormationEvent {
                        tick: self.tick,
                        group,
                        kind: if after {
                            FormationEventKind::Arrived
                        } else {
                            FormationEventKind::Moving
                        },
                    });
                }
            }
        }
        self.inputs.formation_events = events;
    }
}

/// The index of agent `id`'s order in the orders (ascending id).
fn order_index(orders: &Orders, id: AgentId) -> Option<usize> {
    orders
        .as_slice()
        .binary_search_by_key(&id, |&(i, _)| i)
        .ok()
}

/// The facing a formation order without one keeps from the group's current formation
/// `current`: its facing, when the order goes to the same goal, or to a goal within half the
/// layout's width (`spacing · ⌈√n⌉ / 2`) of the group's centre, where the direction from the
/// centre to the goal is noise (a click on the spot where the group stands turned it round).
/// `None` otherwise, and for a kept layout (whose facing turns the offsets).
fn kept_facing(
    current: Option<&Formation>,
    o: &FormationOrder,
    units: &[(AgentId, Vec2)],
    spacing: Fx,
) -> Option<Vec2> {
    let current = current?;
    // The same group of units as the formation's (ascending ids both).
    let same = current.slots.len() == units.len()
        && current.slots.iter().zip(units).all(|(s, u)| s.0 == u.0);
    if o.kind == FormationKind::Keep || !same {
        return None;
    }
    if current.goal == o.goal {
        return Some(current.facing);
    }
    let positions: Vec<Vec2> = units.iter().map(|&(_, p)| p).collect();
    let c = formation::centre(&positions)?;
    let width = spacing.saturating_mul_int(formation::ceil_sqrt(units.len()) as i64);
    let half = width / 2;
    let d = o.goal - c;
    (d.length_squared_wide() < crate::math::wide_mul(half, half)).then_some(current.facing)
}

/// Moves every slot of `slots` that is not walkable for its radius (`radii`, aligned; the
/// caller gives every slot the largest radius and the layout's own order) to a walkable place
/// (navigation on), keeping the slots apart: the slots already walkable stay; each other one,
/// in order, goes to the nearest walkable point
/// ([`NavMesh::nearest_walkable`](crate::navigation::NavMesh::nearest_walkable)) when that
/// lies at least `gap = max(spacing, 2.2 · largest radius)` from every slot placed so far, else
/// to the first point of the hexagonal rings of side `gap` around it (up to
/// [`SPREAD_RINGS`] rings, nearest to the layout's slot first, ties in ring order) that is
/// walkable, that far from the others, and reached from the nearest walkable point in a
/// straight line clear for the radius; failing that, the same with `gap = 2.2 · largest
/// radius`; else to the nearest walkable point anyway (only the first [`SPREAD_MAX`] moved
/// slots get the rings; the others go to their nearest walkable points). Without
/// this, slots moved out of a building all landed on one line along its face, 0.1 apart, and
/// their units never came to rest (an army probe: 6 to 12 of 40 units short after 600 s).
/// Returns whether any slot moved (the caller then assigns the units again).
fn walkable_slots(
    mesh: &crate::navigation::NavMesh,
    slots: &mut [(AgentId, Vec2)],
    radii: &[Fx],
    spacing: Fx,
    largest: Fx,
) -> bool {
    // Apart as the layout's own slots are; where no such place is near, 2.2 radii apart.
    let tight = largest.saturating_mul(const { Fx::lit("2.2") });
    let gaps = [spacing.max(tight), tight];
    // The slots placed so far, in a grid of cells `gaps[0]` wide (looked up, never iterated
    // for its order): a distance test reads the 3 × 3 cells around a point.
    let cell = gaps[0].to_bits().max(1);
    let key = |q: Vec2| {
        (
            q.x.to_bits().div_euclid(cell),
            q.y.to_bits().div_euclid(cell),
        )
    };
    let mut taken: HashMap<(i64, i64), Vec<Vec2>> = HashMap::new();
    let far_enough = |q: Vec2, taken: &HashMap<(i64, i64), Vec<Vec2>>, gap: Fx| {
        let (cx, cy) = key(q);
        (-1..=1).all(|dx| {
            (-1..=1).all(|dy| {
                taken.get(&(cx + dx, cy + dy)).is_none_or(|c| {
                    c.iter()
                        .all(|&t| (q - t).length_squared_wide() >= crate::math::wide_mul(gap, gap))
                })
            })
        })
    };
    let moved: Vec<usize> = (0..slots.len())
        .filter(|&k| !mesh.is_walkable(slots[k].1, radii[k]))
        .collect();
    for k in (0..slots.len()).filter(|k| moved.binary_search(k).is_err()) {
        taken.entry(key(slots[k].1)).or_default().push(slots[k].1);
    }
    let inside = |q: Vec2| crate::domain::checked_point(q, "formation slot").is_ok();
    for (n, &k) in moved.iter().enumerate() {
        let (p, r) = (slots[k].1, radii[k]);
        let Some(w) = mesh.nearest_walkable(p, r).filter(|&w| inside(w)) else {
            continue;
        };
        let spread = |gap: Fx| {
            if far_enough(w, &taken, gap) {
                return Some(w);
            }
            // The ring search for the first SPREAD_MAX moved slots only: a group of
            // thousands sent into a building costs `nearest_walkable` per slot, not more.
            if n >= SPREAD_MAX {
                return None;
            }
            let mut ring = hex_rings(w, gap, SPREAD_RINGS);
            ring.sort_by_key(|&(i, q)| ((q - p).length_squared_wide(), i));
            ring.iter().map(|&(_, q)| q).find(|&q| {
                inside(q)
                    && far_enough(q, &taken, gap)
                    && mesh.is_walkable(q, r)
                    && mesh.raycast(w, q, r).clear
            })
        };
        let place = spread(gaps[0]).or_else(|| spread(gaps[1])).unwrap_or(w);
        slots[k].1 = place;
        taken.entry(key(place)).or_default().push(place);
    }
    !moved.is_empty()
}

/// Moved slots that get the ring search ([`walkable_slots`]); the others go to their nearest
/// walkable points.
const SPREAD_MAX: usize = 256;

/// Rings of the hexagonal lattice tried around a slot moved out of a building.
const SPREAD_RINGS: usize = 4;

/// The points of the first `rings` rings of the hexagonal lattice of side `side` around `c`
/// (6, 12, 18, … points), each with its index in that order.
fn hex_rings(c: Vec2, side: Fx, rings: usize) -> Vec<(usize, Vec2)> {
    let h = const { Fx::lit("0.8660254037844386") };
    let half = const { Fx::lit("0.5") };
    // The six lattice directions, counter-clockwise from +x.
    let dirs = [
        Vec2::new(Fx::ONE, Fx::ZERO),
        Vec2::new(half, h),
        Vec2::new(-half, h),
        Vec2::new(-Fx::ONE, Fx::ZERO),
        Vec2::new(-half, -h),
        Vec2::new(half, -h),
    ];
    let mut out = Vec::new();
    for k in 1..=rings {
        let kk = Fx::from_num(k);
        for i in 0..6 {
            let corner = c + dirs[i] * (side * kk);
            let step = dirs[(i + 2) % 6] * side;
            for j in 0..k {
                out.push((out.len(), corner + step * Fx::from_num(j)));
            }
        }
    }
    out
}
