//! Moving as a group in the simulator ([`Command::FormationMarch`](crate::Command::FormationMarch),
//! [`crate::orders::formation::march`]): the shared path, the march stage and its undo.
//!
//! # The stages (each tick, for every marching formation, ascending group id)
//! * **Before the orders are steered** (stage 1c, after navigation): if the obstacle set
//!   changed since the path was planned (its next id or its count differ), the path is planned
//!   again from the centre of the attached members present to the path's end (one search of
//!   at most [`NavParams::search_cap`](crate::navigation::NavParams::search_cap) expansions,
//!   charged to the navigation budget as debt; a failed plan keeps the old path). Then the
//!   laggard test (every attached member the frame leads, against its target before the frame
//!   moves), then the frame's tick ([`March::advance`]). A march without attached members, or
//!   whose frame reached the goal, ends: with navigation, a member whose straight way to its
//!   slot is not clear for its radius (a building dropped across the group) is then sent with
//!   a [`NavigateTo`](crate::Command::NavigateTo) to its slot (its order's own speed kept);
//!   the others walk on by their order, which becomes their navigation plan (a record of
//!   status `Complete`): pushed off their way for 3 s, or their way closed by a new obstacle,
//!   they plan anew, as any navigating unit.
//! * **After the orders are steered** (stage 1b's preferred velocities overwritten): every
//!   attached member gets `v = f + 2 · (target − position)` per second, clamped to its speed
//!   (the steering's speed, else its `max_speed`), `f` the frame's velocity (pace along the
//!   path) when the frame moved and carries the member; its order's arrival state is kept as a
//!   new order's (moving, no count) and its order events of the step are dropped, so a member
//!   passing near its slot on the way neither arrives nor is blocked.
//!
//! A failed step puts every march back as it was ([`MarchUndo`]); the orders and the
//! navigation records follow the inputs' undo.

use crate::agent::AgentId;
use crate::error::SimError;
use crate::math::{Fx, Vec2, wide_mul};
use crate::navigation::{PathRequest, PathStatus, SearchWork};
use crate::orders::formation::march::{
    self, COLUMN_SPACING_RADII, Member, PACE, WAIT_SECONDS, zones,
};
use crate::orders::formation::{self, Formation, March};
use crate::orders::{Arrival, ticks_for};
use crate::sim::Simulator;

/// The marching formations as they were before the step's march stage (for a failed step).
#[derive(Debug, Default)]
pub(in crate::sim) struct MarchUndo(Vec<(u32, Formation)>);

/// How fast a member closes on its target, per second.
const GAIN: i32 = 2;

impl Simulator {
    /// The obstacle set's stamp: (next obstacle id, obstacle count).
    fn obstacle_stamp(&self) -> (u32, u32) {
        (
            self.obstacles.next_id().0,
            u32::try_from(self.obstacles.len()).unwrap_or(u32::MAX),
        )
    }

    /// A path for the group from `from` to `goal` for radius `radius`: `from` then the planned
    /// points (straight without navigation or a mesh). `None` when the plan has no start or
    /// hit its cap. The search's expansions are charged to the navigation budget.
    fn plan_group_path(&mut self, from: Vec2, goal: Vec2, radius: Fx) -> Option<Vec<Vec2>> {
        let (Some(params), Some(mesh)) = (self.nav.params.as_ref(), self.nav_mesh.mesh.as_ref())
        else {
            return Some(vec![from, goal]);
        };
        let req = PathRequest {
            start: from,
            goal,
            radius,
            cap: params.search_cap,
        };
        let path = mesh.find_path(&req, &mut SearchWork::default());
        self.nav.debt = self.nav.debt.saturating_add(path.expansions);
        match path.status {
            PathStatus::Partial | PathStatus::NoStart => None,
            _ => Some(std::iter::once(from).chain(path.points).collect()),
        }
    }

    /// The shared path of a formation march: from the units' centre to `goal`, for the
    /// largest radius (see [`plan_group_path`](Self::plan_group_path)).
    pub(super) fn group_path(
        &mut self,
        units: &[(AgentId, Vec2)],
        goal: Vec2,
        radius: Fx,
    ) -> Option<Vec<Vec2>> {
        let positions: Vec<Vec2> = units.iter().map(|&(_, p)| p).collect();
        let c = formation::centre(&positions)?;
        self.plan_group_path(c, goal, radius)
    }

    /// The narrow stretches of `path` for `m`'s formation (no mesh: none).
    fn march_zones(&self, m: &March, path: &[Vec2], radius: Fx) -> Vec<march::Zone> {
        let Some(mesh) = self.nav_mesh.mesh.as_ref() else {
            return Vec::new();
        };
        let half = m
            .members
            .iter()
            .fold(Fx::ZERO, |w, k| w.max(k.slot.x.saturating_abs()))
            .saturating_add(radius);
        let (front, rear) = m.members.iter().fold((Fx::ZERO, Fx::ZERO), |(f, r), k| {
            (f.max(k.slot.y), r.min(k.slot.y))
        });
        let merge = front
            .saturating_sub(rear)
            .saturating_add(m.spacing.saturating_mul_int(2));
        zones(
            path,
            half,
            radius,
            m.spacing,
            m.column_spacing,
            merge,
            |p, max| mesh.clearance(p, max),
        )
    }

    /// A new march on `path` for the members' final `slots` around `centre` facing `facing`;
    /// `None` when its pace would be zero (every member with speed zero).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new_march(
        &self,
        path: Vec<Vec2>,
        centre: Vec2,
        facing: Vec2,
        slots: &[(AgentId, Vec2)],
        spacing: Fx,
        radius: Fx,
        slowest: bool,
    ) -> Result<Option<Box<March>>, SimError> {
        let local: Vec<(AgentId, Vec2)> = slots
            .iter()
            .map(|&(id, p)| (id, formation::local_of(p - centre, facing)))
            .collect();
        let ranks = march::ranks(&local);
        let mut pace: Option<Fx> = None;
        for &(id, _) in slots {
            let s = self
                .steering
                .speed
                .unwrap_or(self.agent_params(id)?.max_speed);
            pace = Some(pace.map_or(s, |p| if slowest { p.min(s) } else { p.max(s) }));
        }
        let pace = pace.unwrap_or(Fx::ZERO).saturating_mul(PACE);
        if pace <= Fx::ZERO {
            return Ok(None);
        }
        let mut m = March {
            path: Vec::new(),
            pace,
            spacing,
            column_spacing: radius
                .saturating_mul(COLUMN_SPACING_RADII)
                .clamp(formation::MIN_SPACING, formation::MAX_SPACING),
            zones: Vec::new(),
            members: local
                .iter()
                .zip(ranks)
                .map(|(&(id, slot), rank)| Member { id, slot, rank })
                .collect(),
            s: Fx::ZERO,
            column: false,
            held: Fx::ZERO,
            zone: 0,
            waited: 0,
            moved: false,
            obstacles: self.obstacle_stamp(),
        };
        m.zones = self.march_zones(&m, &path, radius);
        m.path = path;
        Ok(Some(Box::new(m)))
    }

    /// The largest radius of `m`'s members present.
    fn march_radius(&self, m: &March) -> Fx {
        m.members
            .iter()
            .filter_map(|k| self.agent_params(k.id).ok())
            .fold(Fx::ZERO, |r, p| r.max(p.radius))
    }

    /// Plans `m`'s path again after an obstacle change (see the [module docs](self)).
    fn replan_march(&mut self, f: &Formation, m: &mut March) {
        m.obstacles = self.obstacle_stamp();
        let positions: Vec<Vec2> = f
            .slots
            .iter()
            .filter(|&&(id, slot)| self.member(id, slot).is_some())
            .filter_map(|&(id, _)| self.agent_position(id).ok())
            .collect();
        let (Some(c), Some(&end)) = (formation::centre(&positions), m.path.last()) else {
            return;
        };
        let radius = self.march_radius(m);
        if let Some(path) = self.plan_group_path(c, end, radius) {
            m.zones = self.march_zones(m, &path, radius);
            m.path = path;
            m.s = Fx::ZERO;
            m.column = false;
            m.held = Fx::ZERO;
            m.zone = 0;
            m.waited = 0;
        }
    }

    /// Stage 1c: every march's path check, laggard test and frame tick (see the
    /// [module docs](self)). Returns what the step's undo needs.
    pub(in crate::sim) fn march_formations(&mut self) -> MarchUndo {
        let groups: Vec<u32> = self
            .orders
            .groups
            .formations()
            .filter(|(_, f)| f.march.is_some())
            .map(|(g, _)| g)
            .collect();
        let mut undo = MarchUndo::default();
        let dt = self.time_step;
        let wait_ticks = ticks_for(WAIT_SECONDS, dt);
        for g in groups {
            let Some(mut f) = self.orders.groups.set_formation(g, None) else {
                continue;
            };
            let old = f.clone();
            let Some(mut m) = f.march.take() else {
                self.orders.groups.set_formation(g, Some(f));
                continue;
            };
            if m.obstacles != self.obstacle_stamp() {
                self.replan_march(&f, &mut m);
            }
            let limit = m.lag_limit();
            let limit_sq = wide_mul(limit, limit);
            let (mut attached, mut lagging) = (0u32, false);
            for (&(t, _, phase), &(id, slot)) in m.targets().iter().zip(&f.slots) {
                if self.member(id, slot).is_none() {
                    continue;
                }
                let Ok(p) = self.agent_position(id) else {
                    continue;
                };
                attached += 1;
                lagging |= March::leads(phase) && (t - p).length_squared_wide() > limit_sq;
            }
            let done = attached == 0 || m.advance(lagging, dt, wait_ticks);
            if done {
                self.end_march(&f);
            } else {
                f.march = Some(m);
            }
            self.orders.groups.set_formation(g, Some(f));
            undo.0.push((g, old));
        }
        undo
    }

    /// The end of a march: with navigation, attached members whose way to their slot is
    /// blocked navigate there (see the [module docs](self)). (Assigning the slots again from
    /// where the members stand was tried: in formation_cross it lowered the distance
    /// travelled, 1.144× against 1.164× the lower bound, but all came to rest later, 144.25 s
    /// against 129 s, and 338.25 s against 326.5 s in formation_gap200.)
    fn end_march(&mut self, f: &Formation) {
        let at: Vec<usize> = (0..f.slots.len())
            .filter(|&k| self.member(f.slots[k].0, f.slots[k].1).is_some())
            .collect();
        if self.nav.params.is_none() {
            return;
        }
        let Some(mesh) = self.nav_mesh.mesh.clone() else {
            return;
        };
        for &k in &at {
            let (id, slot) = f.slots[k];
            let (Ok(p), Ok(params)) = (self.agent_position(id), self.agent_params(id)) else {
                continue;
            };
            if mesh.raycast(p, slot, params.radius).clear {
                // On by its order, which navigation now watches: pushed into a building on
                // the way, it plans anew.
                self.navigate_as_planned(id, slot);
                continue;
            }
            let speed = self.orders.get(&id).and_then(crate::orders::Order::speed);
            if let Ok(old) = self.navigate_to(id, slot) {
                if let Some(o) = self.orders.get_mut(&id) {
                    o.set_speed(speed);
                }
                self.inputs.log_order(id, old);
            }
        }
    }

    /// Puts the marching formations back as they were before the step (a failed step).
    pub(in crate::sim) fn unmarch(&mut self, undo: MarchUndo) {
        for (g, f) in undo.0.into_iter().rev() {
            self.orders.groups.set_formation(g, Some(f));
        }
    }

    /// Stage 1b's complement: the marching members' preferred velocities, arrival states and
    /// order events (see the [module docs](self)).
    pub(in crate::sim) fn steer_marches(&mut self) {
        let mut steered: Vec<(AgentId, Vec2)> = Vec::new();
        for (_, f) in self.orders.groups.formations() {
            let Some(m) = f.march.as_deref() else {
                continue;
            };
            let speed = m.speed();
            for (&(t, dir, phase), &(id, slot)) in m.targets().iter().zip(&f.slots) {
                if self.member(id, slot).is_none() {
                    continue;
                }
                let (Ok(p), Ok(params)) = (self.agent_position(id), self.agent_params(id)) else {
                    continue;
                };
                let carry = if m.moved && March::leads(phase) {
                    dir * speed
                } else {
                    Vec2::ZERO
                };
                let e = t - p;
                let v = Vec2::new(
                    carry.x.saturating_add(e.x.saturating_mul_int(GAIN.into())),
                    carry.y.saturating_add(e.y.saturating_mul_int(GAIN.into())),
                );
                let speed = self.steering.speed.unwrap_or(params.max_speed);
                let wide = v.x.to_bits().unsigned_abs() > (1 << 50)
                    || v.y.to_bits().unsigned_abs() > (1 << 50);
                let v = if wide || v.length_squared_wide() > wide_mul(speed, speed) {
                    Vec2::new(
                        Fx::from_bits(v.x.to_bits() >> 16),
                        Fx::from_bits(v.y.to_bits() >> 16),
                    )
                    .try_normalize()
                    .map_or(Vec2::ZERO, |d| d * speed)
                } else {
                    v
                };
                steered.push((id, v));
            }
        }
        if steered.is_empty() {
            return;
        }
        for &(id, v) in &steered {
            if let Some(slot) = self.agents.slot(id) {
                self.agents.pref_velocities_mut()[slot] = v;
            }
            if let Some(o) = self.orders.get_mut(&id)
                && o.arrival() != Arrival::default()
            {
                o.set_arrival(Arrival::default());
            }
        }
        steered.sort_unstable_by_key(|&(id, _)| id);
        self.inputs
            .order_events
            .retain(|e| steered.binary_search_by_key(&e.id, |&(id, _)| id).is_err());
    }
}

#[cfg(test)]
mod tests {
    use crate::orders::formation::FormationKind;
    use crate::{AgentId, Command, Fx, Simulator, SimulatorParams, Vec2};

    /// The march is state: a frame moved by one ulp changes the hash and is named by
    /// `snapshot::diff`.
    #[test]
    fn the_march_is_hashed_and_diffed() {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        for k in 0..4 {
            sim.add_agent(Vec2::from_int(2 * k, 0)).unwrap();
        }
        let members = (0..4).map(AgentId).collect();
        sim.apply(&Command::SetGroup { group: 1, members }).unwrap();
        sim.apply(&Command::FormationMarch {
            group: 1,
            goal: Vec2::from_int(30, 0),
            formation: FormationKind::Line,
            facing: None,
            spacing: None,
            slowest: true,
        })
        .unwrap();
        sim.step().unwrap();
        let mut other = sim.clone();
        let mut f = other.orders.groups.set_formation(1, None).unwrap();
        let m = f.march.as_mut().unwrap();
        m.s += Fx::DELTA;
        other.orders.groups.set_formation(1, Some(f));
        assert_ne!(sim.state_hash(), other.state_hash());
        let d = crate::snapshot::diff(&sim, &other).to_string();
        assert!(d.contains("formation[1].march.s"), "{d}");
    }
}
