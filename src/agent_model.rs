//! The agent model beyond RVO2's disc ([`AgentModel`]): avoidance layers and
//! masks, a body radius for walls apart from the avoidance radius, finite acceleration inside
//! the LP, a moving support and a terrain speed scale. Every part is off by default, and an
//! agent whose model is the default runs exactly RVO2's agent (the same bits). The manual is
//! [`crate::docs::agent_model`].

use crate::domain::{self, check_range, checked_velocity};
use crate::error::SimError;
use crate::math::{Fx, Vec2, fx_div, sqrt_wide, wide_mul};
use serde::{Deserialize, Serialize};

/// The default [`AgentModel::layers`] and [`AgentModel::mask`]: layer 1 (Godot's default).
pub const DEFAULT_LAYERS: u32 = 1;

/// One agent's model beyond RVO2's parameters ([`crate::AgentParams`]); see the
/// [manual](crate::docs::agent_model). [`Default`] is RVO2's agent: every part off.
///
/// Set it with [`Simulator::set_agent_model`](crate::Simulator::set_agent_model) or the
/// [`Command::SetModel`](crate::Command::SetModel) command. It is state: hashed, snapshotted
/// and replayed, and only when some agent's model is not the default (so a simulation that
/// never uses it keeps its hashes and snapshot bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AgentModel {
    /// The avoidance layers this agent is on (a bit set). Default [`DEFAULT_LAYERS`].
    pub layers: u32,
    /// The layers this agent avoids. Default [`DEFAULT_LAYERS`]. Agent A avoids agent B when
    /// `A.mask & B.layers != 0` (Godot's convention); otherwise A builds no ORCA line for B
    /// (B is still found by the neighbour search and still counts against `max_neighbors`).
    /// When A avoids B but B does not avoid A, A takes the whole avoidance (B never moves
    /// for it, however deep they overlap).
    pub mask: u32,
    /// Radius of the body against obstacles, in world units; `None` (the default): the
    /// agent's [`radius`](crate::AgentParams::radius). The obstacle lines use
    /// `min(body_radius, radius)`: the body is never larger than the avoidance disc, the
    /// `radius` every agent pair uses (e.g. body 0.4 inside avoidance 0.5: a guard band against walls).
    /// `0.001 ..= 1,000`.
    pub body_radius: Option<Fx>,
    /// Maximum acceleration relative to the support, units per second²; `None` (the default):
    /// unlimited (RVO2: any velocity in the speed circle is reached in one tick). With a value
    /// `A`, the new velocity lies within `A / k · time_step` of the current one (`k` the
    /// terrain scale): the LP solves within the lens of the speed circle and that reachable
    /// circle. `0 ..= 100,000`, and `A · time_step ≤ 4,096`.
    pub max_accel: Option<Fx>,
    /// Velocity of the ground the agent stands on (a platform, a conveyor, a vehicle deck), in
    /// world units per second. Default zero. The agent's [`velocity`](crate::Agent::velocity),
    /// preferred velocity, max speed and acceleration are relative to it; ORCA compares world
    /// velocities (`support + velocity`) and the position moves by the world velocity.
    /// Components `≤ 1,000`.
    pub support_velocity: Vec2,
    /// Terrain height gradient under the agent (rise per unit of run, x and y). Default zero.
    /// With `k = sqrt(1 + |g|²)` the max speed becomes `max_speed / k` and the acceleration
    /// `max_accel / k`. Components `≤ 1,000`.
    pub slope: Vec2,
    /// The route's speed limit here, units per second; `None` (the default): none. The
    /// effective max speed is `min(max_speed / k, speed_limit)`. `0 ..= 1,000`.
    pub speed_limit: Option<Fx>,
}

impl Default for AgentModel {
    fn default() -> Self {
        Self {
            layers: DEFAULT_LAYERS,
            mask: DEFAULT_LAYERS,
            body_radius: None,
            max_accel: None,
            support_velocity: Vec2::ZERO,
            slope: Vec2::ZERO,
            speed_limit: None,
        }
    }
}

/// Largest accepted [`AgentModel::max_accel`].
pub const MAX_ACCEL: Fx = Fx::lit("100000");
/// Largest accepted slope component ([`AgentModel::slope`]).
pub const MAX_SLOPE: Fx = Fx::lit("1000");

impl AgentModel {
    /// Whether this is the default model (RVO2's agent).
    #[must_use]
    #[inline]
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Checks every field against the domain ([`crate::domain`]) for the given time step.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] or [`SimError::VelocityScale`] naming the first bad field.
    pub fn validate(&self, time_step: Fx) -> Result<(), SimError> {
        if let Some(r) = self.body_radius {
            check_range(
                r,
                domain::MIN_RADIUS,
                domain::MAX_RADIUS,
                "body_radius",
                "0.001 ..= 1,000",
            )?;
        }
        if let Some(a) = self.max_accel {
            check_range(a, Fx::ZERO, MAX_ACCEL, "max_accel", "0 ..= 100,000")?;
            // The reachable circle's radius is a velocity-scale quantity.
            if wide_mul(a, time_step) > wide_mul(Fx::from_num(domain::MAX_VELOCITY_SCALE), Fx::ONE)
            {
                return Err(SimError::VelocityScale {
                    ratio: "max_accel * time_step",
                    limit: domain::MAX_VELOCITY_SCALE,
                });
            }
        }
        checked_velocity(self.support_velocity, "support_velocity")?;
        if self.slope.x == Fx::MIN
            || self.slope.y == Fx::MIN
            || self.slope.max_abs_component() > MAX_SLOPE
        {
            return Err(SimError::OutOfDomain {
                what: "slope",
                allowed: "|x|, |y| <= 1,000",
            });
        }
        if let Some(s) = self.speed_limit {
            check_range(s, Fx::ZERO, domain::MAX_SPEED, "speed_limit", "0 ..= 1,000")?;
        }
        Ok(())
    }

    /// The terrain scale `k = sqrt(1 + |g|²)` ([`AgentModel::slope`]): one exact sum in `i128`
    /// and the crate's floor square root ([`sqrt_wide`]). Exactly 1 on flat ground.
    #[must_use]
    pub fn terrain_scale(&self) -> Fx {
        if self.slope == Vec2::ZERO {
            return Fx::ONE;
        }
        sqrt_wide(wide_mul(Fx::ONE, Fx::ONE) + self.slope.length_squared_wide())
    }

    /// The effective max speed relative to the support: `min(max_speed / k, speed_limit)`
    /// (the division truncates toward zero).
    #[must_use]
    pub fn effective_max_speed(&self, max_speed: Fx) -> Fx {
        let k = self.terrain_scale();
        let v = if k == Fx::ONE {
            max_speed
        } else {
            fx_div(max_speed, k)
        };
        self.speed_limit.map_or(v, |l| v.min(l))
    }

    /// The radius of the reachable-velocity circle for one step, `max_accel / k · time_step`
    /// (each operation truncating), or `None` without an acceleration limit.
    #[must_use]
    pub fn reach(&self, time_step: Fx) -> Option<Fx> {
        let a = self.max_accel?;
        let k = self.terrain_scale();
        let a = if k == Fx::ONE { a } else { fx_div(a, k) };
        Some(Fx::from_bits((wide_mul(a, time_step) >> 32) as i64))
    }

    /// The body radius the obstacle lines use: `min(body_radius, radius)`.
    #[must_use]
    #[inline]
    pub fn body(&self, radius: Fx) -> Fx {
        self.body_radius.map_or(radius, |b| b.min(radius))
    }

    /// Whether an agent with this model avoids one with `other`'s (`mask & other.layers != 0`).
    #[must_use]
    #[inline]
    pub fn avoids(&self, other: &Self) -> bool {
        self.mask & other.layers != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_off_and_valid() {
        let m = AgentModel::default();
        assert!(m.is_default());
        assert!(m.validate(Fx::lit("0.25")).is_ok());
        assert_eq!(m.terrain_scale(), Fx::ONE);
        assert_eq!(m.effective_max_speed(Fx::from_num(2)), Fx::from_num(2));
        assert_eq!(m.reach(Fx::ONE), None);
        assert!(m.avoids(&m));
    }

    #[test]
    fn terrain_scales_speed_and_acceleration() {
        // |g| = 0.75: k = sqrt(1 + 0.5625) = 1.25 exactly.
        let m = AgentModel {
            slope: Vec2::new(Fx::lit("0.75"), Fx::ZERO),
            max_accel: Some(Fx::from_num(5)),
            ..AgentModel::default()
        };
        assert_eq!(m.terrain_scale(), Fx::lit("1.25"));
        // 2 / 1.25 = 1.6, truncated (1.6 is not a binary fraction): within an ulp below.
        let v = m.effective_max_speed(Fx::from_num(2));
        assert!(
            v <= Fx::lit("1.6") && Fx::lit("1.6") - v <= Fx::DELTA,
            "{v}"
        );
        // 5 / 1.25 = 4, times 0.25 s.
        assert_eq!(m.reach(Fx::lit("0.25")), Some(Fx::ONE));
        let limited = AgentModel {
            speed_limit: Some(Fx::ONE),
            ..m
        };
        assert_eq!(limited.effective_max_speed(Fx::from_num(2)), Fx::ONE);
    }

    #[test]
    fn out_of_domain_values_are_refused() {
        let dt = Fx::lit("0.1");
        let bad = [
            AgentModel {
                body_radius: Some(Fx::ZERO),
                ..AgentModel::default()
            },
            AgentModel {
                max_accel: Some(-Fx::ONE),
                ..AgentModel::default()
            },
            AgentModel {
                support_velocity: Vec2::new(Fx::MIN, Fx::ZERO),
                ..AgentModel::default()
            },
            AgentModel {
                slope: Vec2::new(Fx::ZERO, Fx::from_num(1001)),
                ..AgentModel::default()
            },
            AgentModel {
                speed_limit: Some(Fx::from_num(1001)),
                ..AgentModel::default()
            },
        ];
        for m in bad {
            assert!(
                matches!(m.validate(dt), Err(SimError::OutOfDomain { .. })),
                "{m:?}"
            );
        }
        let fast = AgentModel {
            max_accel: Some(Fx::from_num(100_000)),
            ..AgentModel::default()
        };
        assert!(matches!(
            fast.validate(dt),
            Err(SimError::VelocityScale { .. })
        ));
        assert!(fast.validate(Fx::lit("0.01")).is_ok());
    }
}
