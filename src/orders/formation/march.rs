//! Moving as a group (a formation move with `together`): one shared path, a frame that moves
//! along it, every member steered to its slot relative to the frame, a column through narrow
//! stretches and the formation re-formed after them. The pure part: the state ([`March`]),
//! the narrow stretches of a path ([`zones`]), the frame's rule ([`March::advance`]) and each
//! member's target ([`March::target`]). The simulator (`sim::formation`) plans the path, runs
//! the rule every tick and steers the members.
//!
//! # The frame
//! The shared path is a polyline from the group's centre to the formation's centre at the
//! goal; a point of it is named by its arc length `s` (before 0 and past the end the first and
//! last segments are extended). A member whose slot is `(x, y)` in the formation's frame (`x`
//! to the right, `y` forward) has the target `P(s + y) + x · right(s + y)`: the formation is
//! laid along the path (it bends with it) rather than turned as a rigid body.
//!
//! # Column through narrow stretches
//! A **zone** is a stretch of the path where a disc of the formation's half width (the largest
//! `|x|` plus the largest radius) does not fit around the path's centre line (the mesh's
//! clearance, sampled every half spacing); zones closer than the formation's depth plus two
//! spacings are merged. Every member has a **rank** in the column: front rank first, then the
//! centre of each rank first (by `y` descending, then `|x|`, then `x`, then id): the order in
//! which a block funnels into a gap. A zone's column has `files = ⌊(2c − 3r) / s_c⌋ + 1`
//! files (at least 1, at most 64), with `c` the least clearance in the zone, `r` the largest
//! radius and `s_c = 2.5 r` the column's spacing.
//!
//! * **Wide**: the frame's arc `s` is the formation's centre. When its front (`s` plus the
//!   largest `y`) comes within one spacing of the next zone, the group switches to the column:
//!   `held` keeps the centre's arc, `s` becomes the column's head (the front).
//! * **Column**: rank `k` has the column arc `T = s − ⌊k / files⌋ · s_c`, on file
//!   `k mod files` (rows of `files` abreast). A member whose column arc is
//!   still behind its slot as it was at the switch (`T < held + y`) holds that slot (it waits
//!   for its turn: ranks behind it are behind it, so nobody walks through a waiting member); a
//!   member whose column arc is within the zone (plus one spacing) follows the column, on its
//!   file; a member past it has **re-formed**: it takes its slot around the re-forming centre
//!   `s_r = b + s_w − y_min` (the zone's end `b` plus one spacing `s_w`, far enough that the
//!   rear rank stands a spacing past it; at most the path's length). When the last rank has
//!   passed the zone, the group is wide again, its centre at `s_r`.
//! * **Done** when the centre reaches the end of the path, wide (slowing down over the last
//!   `pace · STOP_SECONDS`, [`March::speed`]): the members then walk to
//!   their final slots by their ordinary orders.
//!
//! # Laggards
//! The frame moves `pace · dt` a tick, except while some member it leads (every attached
//! member when wide; the members following the column when narrow) is farther than
//! [`LAG_SPACINGS`] spacings from its target: then the frame waits, at most [`WAIT_SECONDS`]
//! in a row. Once a wait ran out, the frame goes on and does not wait again until no member
//! lags; laggards catch up at their own speed, faster than the pace ([`PACE`]). So the frame
//! never stalls: it advances at least once every `WAIT_SECONDS / dt + 1` ticks.

use crate::agent::AgentId;
use crate::math::{Fx, Vec2};
use serde::{Deserialize, Serialize};

/// The frame's pace as a fraction of the speed it is set from (the slowest member's, by
/// default): `7/8`, so a member pushed back or turned wide can regain its slot.
pub const PACE: Fx = Fx::lit("0.875");
/// How far (in spacings) a member may be from its target before the frame waits for it.
pub const LAG_SPACINGS: i32 = 2;
/// The longest wait in a row for laggards, in seconds.
pub const WAIT_SECONDS: Fx = Fx::lit("5");
/// The column's spacing in radii of the largest member.
pub const COLUMN_SPACING_RADII: Fx = Fx::lit("2.5");
/// The frame's final approach, in seconds: wide, past every zone and within `pace · STOP_SECONDS`
/// of the path's end, the frame moves at the remaining distance over `STOP_SECONDS` (at least
/// an eighth of the pace), so the group slows down together instead of overshooting its slots.
pub const STOP_SECONDS: Fx = Fx::lit("2");
/// Most files a column has.
pub const MAX_COLUMN_FILES: u32 = 64;
/// Most clearance samples taken along a shared path (the sample step grows beyond).
pub const MAX_ZONE_SAMPLES: usize = 1_024;

/// One narrow stretch of the shared path: from arc `a` to arc `b`, passed in `files` files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zone {
    /// Where the stretch begins (arc length along the path).
    pub a: Fx,
    /// Where it ends.
    pub b: Fx,
    /// Files of the column through it.
    pub files: u32,
}

/// One member of a march: its slot in the formation's frame and its rank in the column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// The member.
    pub id: AgentId,
    /// Its slot in the formation's frame (`x` right, `y` forward).
    pub slot: Vec2,
    /// Its rank in the column (0 leads).
    pub rank: u32,
}

/// Where a member's target comes from this tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Its slot around the moving centre (wide).
    Wide,
    /// Its slot as it was at the switch to the column: waiting for its turn.
    Held,
    /// Its place in the column.
    Column,
    /// Its slot around the re-forming centre past the zone.
    Reformed,
}

/// The members of a march in one phase, as drawn ([`March::blocks`]): the stretch of the
/// shared path from arc `rear` to arc `front`, from `left` to `right` across it (offsets to the
/// right of the path, as the slots' `x`), enclosing the members' targets (not their discs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// The members' phase.
    pub phase: Phase,
    /// The least arc of a target.
    pub rear: Fx,
    /// The largest arc of a target.
    pub front: Fx,
    /// The least offset of a target to the right of the path.
    pub left: Fx,
    /// The largest offset.
    pub right: Fx,
}

/// A group's march (state: hashed, snapshotted, diffed), kept in its
/// [`Formation`](super::Formation) while the group moves together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct March {
    /// The shared path: its first point is where the frame starts (the group's centre), its
    /// last the formation's centre at the goal.
    pub path: Vec<Vec2>,
    /// The frame's pace, units per second.
    pub pace: Fx,
    /// The wide spacing (between neighbouring slots).
    pub spacing: Fx,
    /// The column's spacing.
    pub column_spacing: Fx,
    /// The narrow stretches, along the path.
    pub zones: Vec<Zone>,
    /// Every member, ascending id.
    pub members: Vec<Member>,
    /// The frame's arc: the centre when wide, the column's head when narrow.
    pub s: Fx,
    /// In a column through zone [`zone`](Self::zone).
    pub column: bool,
    /// The centre's arc at the switch to the column.
    pub held: Fx,
    /// The next zone (or the current one, in a column).
    pub zone: u32,
    /// Ticks the frame has waited in a row; `u32::MAX` once a wait ran out and laggards remain.
    pub waited: u32,
    /// Whether the frame moved in the last tick.
    pub moved: bool,
    /// The obstacle set the path was planned on: (next obstacle id, obstacle count).
    pub obstacles: (u32, u32),
}

/// `p + dir · s`, each component saturating (`dir` a unit vector).
fn offset(p: Vec2, dir: Vec2, s: Fx) -> Vec2 {
    let v = dir * s;
    Vec2::new(p.x.saturating_add(v.x), p.y.saturating_add(v.y))
}

/// A point of a polyline by arc length (`path[0]` at 0), extended past both ends, with the
/// direction of its segment. A path of one point has the direction `(0, 1)`.
fn at(path: &[Vec2], s: Fx) -> (Vec2, Vec2) {
    let n = path.len();
    if n < 2 {
        return (
            path.first().copied().unwrap_or(Vec2::ZERO),
            Vec2::from_int(0, 1),
        );
    }
    let mut rest = s;
    for k in 0..n - 1 {
        let (a, b) = (path[k], path[k + 1]);
        let Some((len, dir)) = (b - a).length_and_direction() else {
            continue;
        };
        if rest <= len || k + 2 == n {
            return (offset(a, dir, rest), dir);
        }
        rest = rest.saturating_sub(len);
    }
    (path[n - 1], Vec2::from_int(0, 1))
}

/// The length of a polyline (saturating).
#[must_use]
pub fn length(path: &[Vec2]) -> Fx {
    path.windows(2)
        .fold(Fx::ZERO, |l, w| l.saturating_add((w[1] - w[0]).length()))
}

/// The narrow stretches of `path` for a formation of half width `half_width` (see the
/// [module docs](self)): `clearance(p, max)` is the room around `p` (at most `max`), `radius`
/// the largest member's, `merge` the gap under which two stretches are one. At most
/// [`MAX_ZONE_SAMPLES`] + 1 clearance queries.
pub fn zones(
    path: &[Vec2],
    half_width: Fx,
    radius: Fx,
    spacing: Fx,
    column_spacing: Fx,
    merge: Fx,
    mut clearance: impl FnMut(Vec2, Fx) -> Fx,
) -> Vec<Zone> {
    let total = length(path);
    let step = (spacing / 2)
        .max(total / Fx::from_num(MAX_ZONE_SAMPLES as i32))
        .max(const { Fx::lit("0.01") });
    let mut out: Vec<(Fx, Fx, Fx)> = Vec::new();
    let mut s = Fx::ZERO;
    loop {
        let c = clearance(at(path, s).0, half_width);
        if c < half_width {
            let (a, b) = (
                s.saturating_sub(step).max(Fx::ZERO),
                s.saturating_add(step).min(total),
            );
            match out.last_mut() {
                Some(z) if a <= z.1.saturating_add(merge) => {
                    z.1 = b;
                    z.2 = z.2.min(c);
                }
                _ => out.push((a, b, c)),
            }
        }
        if s >= total {
            break;
        }
        s = s.saturating_add(step).min(total);
    }
    out.into_iter()
        .map(|(a, b, c)| {
            let room = c
                .saturating_mul_int(2)
                .saturating_sub(radius.saturating_mul_int(3));
            let files = if room <= Fx::ZERO || column_spacing <= Fx::ZERO {
                1
            } else {
                (room / column_spacing).to_num::<i64>().saturating_add(1)
            };
            Zone {
                a,
                b,
                files: files.clamp(1, i64::from(MAX_COLUMN_FILES)) as u32,
            }
        })
        .collect()
}

/// The column ranks of `slots` (ascending id): by `y` descending, then `|x|`, then `x`, then id.
#[must_use]
pub fn ranks(slots: &[(AgentId, Vec2)]) -> Vec<u32> {
    let mut order: Vec<usize> = (0..slots.len()).collect();
    order.sort_unstable_by_key(|&k| {
        let (id, p) = slots[k];
        (
            -i128::from(p.y.to_bits()),
            i128::from(p.x.to_bits()).abs(),
            p.x.to_bits(),
            id,
        )
    });
    let mut out = vec![0u32; slots.len()];
    for (rank, k) in order.into_iter().enumerate() {
        out[k] = rank as u32;
    }
    out
}

impl March {
    /// The largest and the least `y` of the members' slots (front and rear).
    fn extent(&self) -> (Fx, Fx) {
        self.members.iter().fold((Fx::MIN, Fx::MAX), |(f, r), m| {
            (f.max(m.slot.y), r.min(m.slot.y))
        })
    }

    /// The path's length.
    #[must_use]
    pub fn length(&self) -> Fx {
        length(&self.path)
    }

    /// The re-forming centre past zone `z`.
    fn reform_arc(&self, z: &Zone) -> Fx {
        let (_, rear) = self.extent();
        z.b.saturating_add(self.spacing)
            .saturating_sub(rear.min(Fx::ZERO))
            .min(self.length())
    }

    /// Member `m`'s target, the path's direction there, and its phase (see the
    /// [module docs](self)). `O(n + P)` for `n` members and `P` path points: for every member
    /// at once use [`targets`](Self::targets).
    #[must_use]
    pub fn target(&self, m: &Member) -> (Vec2, Vec2, Phase) {
        self.target_with(m, self.reform_centre())
    }

    /// Every member's target, direction and phase, in member order: `O(n · P)`.
    #[must_use]
    pub fn targets(&self) -> Vec<(Vec2, Vec2, Phase)> {
        let reform = self.reform_centre();
        self.members
            .iter()
            .map(|m| self.target_with(m, reform))
            .collect()
    }

    /// The re-forming centre of the current zone, in a column.
    fn reform_centre(&self) -> Fx {
        match (self.zones.get(self.zone as usize), self.column) {
            (Some(z), true) => self.reform_arc(z),
            _ => Fx::ZERO,
        }
    }

    /// [`target`](Self::target) with the re-forming centre given.
    fn target_with(&self, m: &Member, reform: Fx) -> (Vec2, Vec2, Phase) {
        let (arc, x, phase) = self.local_target(m, reform);
        let (p, dir) = at(&self.path, arc);
        let right = Vec2::new(dir.y, -dir.x);
        (offset(p, right, x), dir, phase)
    }

    /// A point of the shared path by arc length (extended past both ends) and the path's
    /// direction there.
    #[must_use]
    pub fn point_at(&self, s: Fx) -> (Vec2, Vec2) {
        at(&self.path, s)
    }

    /// The march as drawn (`render`, a game's overlay): one [`Block`] per phase that has
    /// members, in the order wide, held, column, re-formed, each the extent of its members'
    /// targets in path coordinates. `O(n + P)`.
    #[must_use]
    pub fn blocks(&self) -> Vec<Block> {
        let reform = self.reform_centre();
        let phases = [Phase::Wide, Phase::Held, Phase::Column, Phase::Reformed];
        let mut out: [Option<Block>; 4] = [None; 4];
        for m in &self.members {
            let (arc, x, phase) = self.local_target(m, reform);
            let k = phases.iter().position(|&p| p == phase).unwrap_or(0);
            let b = out[k].get_or_insert(Block {
                phase,
                rear: arc,
                front: arc,
                left: x,
                right: x,
            });
            b.rear = b.rear.min(arc);
            b.front = b.front.max(arc);
            b.left = b.left.min(x);
            b.right = b.right.max(x);
        }
        out.into_iter().flatten().collect()
    }

    /// Member `m`'s target in path coordinates: its arc, its offset to the right of the path,
    /// and its phase (see the [module docs](self)).
    fn local_target(&self, m: &Member, reform: Fx) -> (Fx, Fx, Phase) {
        let zone = self.zones.get(self.zone as usize);
        let (Some(z), true) = (zone, self.column) else {
            return (self.s.saturating_add(m.slot.y), m.slot.x, Phase::Wide);
        };
        let files = z.files.max(1);
        let t = self.s.saturating_sub(
            self.column_spacing
                .saturating_mul_int(i64::from(m.rank / files)),
        );
        let hold = self.held.saturating_add(m.slot.y);
        if t < hold {
            return (hold, m.slot.x, Phase::Held);
        }
        if t <= z.b.saturating_add(self.spacing) {
            let file = i64::from(m.rank % files);
            // Files centred: (2·file − (files − 1)) · s_c / 2.
            let x = self
                .column_spacing
                .saturating_mul_int(2 * file - i64::from(files) + 1)
                / 2;
            return (t, x, Phase::Column);
        }
        (reform.saturating_add(m.slot.y), m.slot.x, Phase::Reformed)
    }

    /// The frame's speed for its next tick: the pace, except in the final approach (wide, past
    /// every zone, within `pace · STOP_SECONDS` of the path's end), where it is the remaining
    /// distance over [`STOP_SECONDS`], at least an eighth of the pace. A function of the
    /// state, so it needs no state of its own.
    #[must_use]
    pub fn speed(&self) -> Fx {
        if self.column || (self.zone as usize) < self.zones.len() {
            return self.pace;
        }
        let rest = self.length().saturating_sub(self.s).max(Fx::ZERO);
        (rest / STOP_SECONDS).clamp(self.pace / 8, self.pace)
    }

    /// Whether a member in phase `phase` is one the frame leads (waits for, and carries at its
    /// pace).
    #[must_use]
    pub fn leads(phase: Phase) -> bool {
        matches!(phase, Phase::Wide | Phase::Column)
    }

    /// The largest distance at which a member does not lag.
    #[must_use]
    pub fn lag_limit(&self) -> Fx {
        self.spacing.saturating_mul_int(i64::from(LAG_SPACINGS))
    }

    /// One tick of the frame (see the [module docs](self)): `lagging` says whether a member
    /// the frame leads lags, `wait_ticks` is [`WAIT_SECONDS`] in ticks. Returns `true` when
    /// the march is done (the centre at the end of the path, wide).
    pub fn advance(&mut self, lagging: bool, dt: Fx, wait_ticks: u32) -> bool {
        let wait = if !lagging {
            self.waited = 0;
            false
        } else if self.waited < wait_ticks {
            self.waited += 1;
            true
        } else {
            self.waited = u32::MAX;
            false
        };
        self.moved = !wait;
        if !wait {
            // At least one ulp: the final approach ends even at a pace of a few ulps.
            let step = self.speed().saturating_mul(dt).max(Fx::DELTA);
            self.s = self.s.saturating_add(step);
        }
        let total = self.length();
        let (front, _) = self.extent();
        if self.column {
            let z = self.zones[self.zone as usize];
            let last = self.members.iter().map(|m| m.rank).max().unwrap_or(0);
            let row = last / z.files.max(1);
            let tail = self
                .s
                .saturating_sub(self.column_spacing.saturating_mul_int(i64::from(row)));
            if tail > z.b.saturating_add(self.spacing) {
                self.column = false;
                self.s = self.reform_arc(&z);
                self.zone += 1;
                self.waited = 0;
            }
        } else {
            self.s = self.s.min(total);
            if let Some(z) = self.zones.get(self.zone as usize)
                && self.s.saturating_add(front).saturating_add(self.spacing) >= z.a
            {
                self.column = true;
                self.held = self.s;
                self.s = self.s.saturating_add(front.max(Fx::ZERO));
                self.waited = 0;
            }
        }
        !self.column && self.s >= total && self.zone as usize >= self.zones.len()
    }

    /// Checks a decoded march (snapshot restore): members ascending and matching `slots`
    /// (ascending id), a path of 1 ..= `max_points` points, zones and ranks in range.
    pub(crate) fn validate(
        &self,
        slots: &[(AgentId, Vec2)],
        max_points: usize,
    ) -> Result<(), crate::error::SimError> {
        let bad = |what| crate::error::SimError::OutOfDomain {
            what,
            allowed: "a march as the simulator plans it",
        };
        if self.path.is_empty() || self.path.len() > max_points {
            return Err(bad("march path"));
        }
        for &p in &self.path {
            crate::domain::checked_point(p, "march path point")?;
        }
        if self.members.len() != slots.len()
            || self.members.iter().zip(slots).any(|(m, s)| m.id != s.0)
        {
            return Err(bad("march members"));
        }
        let n = self.members.len() as u32;
        let mut seen = vec![false; self.members.len()];
        for m in &self.members {
            crate::domain::checked_point(m.slot, "march slot")?;
            let Some(s) = seen.get_mut(m.rank as usize).filter(|_| m.rank < n) else {
                return Err(bad("march ranks"));
            };
            if std::mem::replace(s, true) {
                return Err(bad("march ranks"));
            }
        }
        let positive = |v: Fx| v > Fx::ZERO && v <= super::MAX_SPACING;
        if !positive(self.spacing)
            || !positive(self.column_spacing)
            || self.pace <= Fx::ZERO
            || self.pace > crate::domain::MAX_SPEED
        {
            return Err(bad("march pace or spacing"));
        }
        if self
            .zones
            .iter()
            .any(|z| z.a > z.b || z.files == 0 || z.files > MAX_COLUMN_FILES)
            || self.zones.windows(2).any(|w| w[0].b > w[1].a)
            || self.zone as usize > self.zones.len()
            || (self.column && self.zone as usize >= self.zones.len())
        {
            return Err(bad("march zones"));
        }
        Ok(())
    }
}
