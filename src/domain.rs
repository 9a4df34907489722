//! The guaranteed numeric domain, and the checks that enforce it at the API boundary.
//!
//! Every value entering the simulator is checked against these limits; inside them no
//! fixed-point operation of the tick can overflow (the test suite runs with overflow checks on
//! and probes the edges). Outside them the call returns [`SimError`] and changes nothing.
//!
//! | quantity | allowed |
//! | --- | --- |
//! | coordinates (positions, goals, obstacle vertices) | `|x|, |y| ≤ 1,000,000` |
//! | `radius` | `0.001 ..= 1,000` |
//! | `max_speed`, `|velocity|`, `|pref_velocity|` | `0 ..= 1,000` (components `≤ 1,000`) |
//! | `neighbor_dist` | `0 ..= 10,000` |
//! | `max_neighbors` | `0 ..= 1,024` |
//! | `time_step` | `0.001 ..= 100` |
//! | `time_horizon`, `time_horizon_obst` | `0.001 ..= 10,000` |
//! | velocity scale: `radius / time_step`, `radius / time_horizon`, `radius / time_horizon_obst`, `neighbor_dist / time_horizon` | `≤ 4,096` units/s |
//! | global time | `0 ..= Fx::MAX` (just under 2³¹ s, 68 years): a step that would pass it fails |
//! | tick | `0 ..= u64::MAX`: a step from `u64::MAX` fails |
//! | agents alive at once | `≤ 1,000,000` ([`MAX_AGENTS`]); ids: 2³² over a simulator's life |
//! | pending commands | `≤ 1,048,576` ([`MAX_PENDING_COMMANDS`]) |
//! | obstacle vertices, all obstacles together | `≤ 1,048,576` ([`MAX_OBSTACLE_VERTICES`]) |
//! | move-order path points | `≤ 1,025` per agent, `≤ 4,194,304` in all ([`crate::orders`]) |
//! | agent model ([`crate::AgentModel`]): `body_radius` | `0.001 ..= 1,000` (obstacle lines use `min(body_radius, radius)`) |
//! | `max_accel` | `0 ..= 100,000` units/s², and `max_accel · time_step ≤ 4,096` units/s |
//! | `support_velocity` components | `≤ 1,000` (world velocities up to 2,000 per component) |
//! | `slope` components | `≤ 1,000` |
//! | `speed_limit` | `0 ..= 1,000` |
//!
//! **One domain for every entry point.** The setters, the commands (when queued and when
//! applied), the scenario format, snapshot restore and replay decoding check the same limits
//! with the same functions. Whatever a sequence of accepted calls and steps can reach, a
//! snapshot of it restores (the bounds above keep every snapshot under
//! [`MAX_PAYLOAD_BYTES`](crate::snapshot::MAX_PAYLOAD_BYTES)), and whatever restores can step
//! (or fails its step with a clear error, leaving the state unchanged).
//!
//! The velocity-scale row bounds every velocity-space quantity ORCA forms (cut-off centres
//! `p/τ`, the overlap term `p/Δt`, projections `u`) by about 2¹⁵, so their squares stay below
//! the scalar's 2³¹. Typical games sit far inside: radius 0.5 at 60 Hz is 30 units/s.
//! Position-scale products (kd-tree distances, obstacle segment tests) are computed exactly in
//! `i128`, so coordinates may span the whole ±10⁶ square.

use crate::error::SimError;
use crate::math::{Fx, Vec2};

/// Largest accepted absolute coordinate.
pub const MAX_COORD: Fx = Fx::lit("1000000");
/// Smallest accepted radius.
pub const MIN_RADIUS: Fx = Fx::lit("0.001");
/// Largest accepted radius.
pub const MAX_RADIUS: Fx = Fx::lit("1000");
/// Largest accepted speed (max speed, velocity and preferred velocity components).
pub const MAX_SPEED: Fx = Fx::lit("1000");
/// Largest accepted neighbor distance.
pub const MAX_NEIGHBOR_DIST: Fx = Fx::lit("10000");
/// Largest accepted `max_neighbors`.
pub const MAX_NEIGHBORS: u32 = 1024;
/// Smallest accepted time step and time horizon.
pub const MIN_TIME: Fx = Fx::lit("0.001");
/// Largest accepted time step.
pub const MAX_TIME_STEP: Fx = Fx::lit("100");
/// Largest accepted time horizon.
pub const MAX_TIME_HORIZON: Fx = Fx::lit("10000");
/// Bound on every length / time ratio the simulator forms, in units per second.
pub const MAX_VELOCITY_SCALE: i32 = 4096;
/// Largest global time ([`Fx::MAX`], just under 2³¹ s).
pub const MAX_GLOBAL_TIME: Fx = Fx::MAX;
/// Most agents alive at once.
pub const MAX_AGENTS: usize = 1_000_000;
/// Most commands pending in a simulator's queue.
pub const MAX_PENDING_COMMANDS: usize = 1 << 20;
/// Most vertices of all obstacles together.
pub const MAX_OBSTACLE_VERTICES: usize = 1 << 20;

pub(crate) fn check_range(
    v: Fx,
    lo: Fx,
    hi: Fx,
    what: &'static str,
    allowed: &'static str,
) -> Result<(), SimError> {
    if v < lo || v > hi {
        Err(SimError::OutOfDomain { what, allowed })
    } else {
        Ok(())
    }
}

/// [`check_point`] for values from outside: `Fx::abs` overflows on `Fx::MIN` (a panic with
/// debug assertions, a wrap to a negative value that passes the check without), so `MIN`
/// components are rejected first.
pub(crate) fn checked_point(v: Vec2, what: &'static str) -> Result<(), SimError> {
    if v.x == Fx::MIN || v.y == Fx::MIN {
        return check_point(Vec2::new(Fx::MAX, Fx::MAX), what);
    }
    check_point(v, what)
}

/// As [`checked_point`], for velocities.
pub(crate) fn checked_velocity(v: Vec2, what: &'static str) -> Result<(), SimError> {
    if v.x == Fx::MIN || v.y == Fx::MIN {
        return check_velocity(Vec2::new(Fx::MAX, Fx::MAX), what);
    }
    check_velocity(v, what)
}

/// Checks a point against the coordinate domain.
pub(crate) fn check_point(p: Vec2, what: &'static str) -> Result<(), SimError> {
    if p.max_abs_component() > MAX_COORD {
        Err(SimError::OutOfDomain {
            what,
            allowed: "|x|, |y| <= 1,000,000",
        })
    } else {
        Ok(())
    }
}

/// Checks a velocity against the speed domain.
pub(crate) fn check_velocity(v: Vec2, what: &'static str) -> Result<(), SimError> {
    if v.max_abs_component() > MAX_SPEED {
        Err(SimError::OutOfDomain {
            what,
            allowed: "|x|, |y| <= 1,000",
        })
    } else {
        Ok(())
    }
}

/// `len / time <= MAX_VELOCITY_SCALE`, checked without division.
pub(crate) fn check_scale(len: Fx, time: Fx, ratio: &'static str) -> Result<(), SimError> {
    let limit = crate::math::wide_mul(time, Fx::from_num(MAX_VELOCITY_SCALE));
    if crate::math::wide_mul(len, Fx::ONE) > limit {
        Err(SimError::VelocityScale {
            ratio,
            limit: MAX_VELOCITY_SCALE,
        })
    } else {
        Ok(())
    }
}

/// Checks the time step.
pub(crate) fn check_time_step(dt: Fx) -> Result<(), SimError> {
    check_range(dt, MIN_TIME, MAX_TIME_STEP, "time_step", "0.001 ..= 100")
}
