//! The view: unit positions and velocities mirrored into `f32` [`Transform`]s outside the
//! simulation's schedule, interpolated between the last two frames. Nothing here feeds back
//! into the simulation (floats are for display only).

use crate::game::OrcaGame;
use crate::systems::Unit;
use bevy::prelude::*;
use lockstep_orca::Vec2 as FxVec2;
use lockstep_orca::netcode::GameRules;
use std::time::Duration;

/// A point of the simulation in world units as `f32`, for display (rounded).
#[must_use]
pub fn to_bevy(p: FxVec2) -> Vec2 {
    let (x, y) = p.to_f64();
    Vec2::new(x as f32, y as f32)
}

/// A display point as the simulation's exact point (rounded to the nearest 2⁻³²), `None`
/// outside the representable range. For turning a cursor position into an order.
#[must_use]
pub fn from_bevy(p: Vec2) -> Option<FxVec2> {
    FxVec2::from_f64(f64::from(p.x), f64::from(p.y))
}

/// A unit's displayed motion: its positions after the previous and the last frame seen, and
/// its velocity, in `f32` world units. Not rolled back (a view).
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct UnitView {
    /// Position after the frame before the last one seen.
    pub previous: Vec2,
    /// Position after the last frame seen.
    pub current: Vec2,
    /// Velocity after the last frame seen (world units per second).
    pub velocity: Vec2,
}

/// How far the display is between the last two frames: `alpha` in `[0, 1]`, from the real
/// time since the last frame was seen and the frame period (`RollbackFrameRate` with
/// bevy_ggrs, else `Time<Fixed>`'s timestep).
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct Interpolation {
    /// The last frame seen.
    pub frame: u32,
    /// Real time since it was seen.
    pub since: Duration,
    /// 0 at the previous frame's positions, 1 at the last one's.
    pub alpha: f32,
}

/// Reads the simulation into each unit's [`UnitView`] when the frame changed, and sets
/// every unit's `Transform` translation (x, y; z kept) between the two.
pub(crate) fn mirror_units<R: GameRules>(
    mut commands: Commands,
    game: Option<Res<OrcaGame<R>>>,
    time: Res<Time<Real>>,
    fixed: Option<Res<Time<Fixed>>>,
    rate: Option<Res<bevy_ggrs::RollbackFrameRate>>,
    mut interp: ResMut<Interpolation>,
    mut units: Query<(Entity, &Unit, Option<&mut UnitView>, Option<&mut Transform>)>,
) {
    let Some(game) = game else {
        return;
    };
    let sim = game.simulator();
    let new_frame = game.frame() != interp.frame;
    if new_frame {
        interp.frame = game.frame();
        interp.since = Duration::ZERO;
    } else {
        interp.since += time.delta();
    }
    let period = match (rate, fixed) {
        (Some(rate), _) if **rate > 0 => Duration::from_secs(1) / (**rate as u32).max(1),
        (_, Some(fixed)) => fixed.timestep(),
        _ => Duration::from_millis(16),
    };
    interp.alpha = (interp.since.as_secs_f32() / period.as_secs_f32().max(1e-6)).min(1.0);
    for (entity, unit, view, transform) in &mut units {
        let (Ok(p), Ok(v)) = (sim.agent_position(unit.id), sim.agent_velocity(unit.id)) else {
            continue;
        };
        let (p, v) = (to_bevy(p), to_bevy(v));
        let Some(mut view) = view else {
            // A new unit: shown where it is, no motion yet.
            let view = UnitView {
                previous: p,
                current: p,
                velocity: v,
            };
            commands.entity(entity).insert(view);
            if transform.is_none() {
                commands
                    .entity(entity)
                    .insert(Transform::from_translation(p.extend(0.0)));
            }
            continue;
        };
        if new_frame || view.current != p {
            view.previous = view.current;
            view.current = p;
            view.velocity = v;
        }
        if let Some(mut t) = transform {
            let shown = view.previous.lerp(view.current, interp.alpha);
            t.translation.x = shown.x;
            t.translation.y = shown.y;
        }
    }
}
