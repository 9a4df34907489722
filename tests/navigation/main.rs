//! Navigation tests: the mesh, the planner, path quality against an independent oracle.

mod buried;
mod crowds;
#[cfg(feature = "scenario")]
mod doors;
mod mesh;
mod mixed_sizes;
mod narrow;
mod one_sided;
mod planner;
mod quality;
mod rebuild;
mod settled;
mod sweep;
#[cfg(feature = "scenario")]
mod traffic;
mod walls;

// f64 only for the scenes' coordinates (user I/O).
#[allow(clippy::float_arithmetic)]
/// A door scene's simulator (`one_sided`, `mixed_sizes`): the door scenes' units (radius 0.5,
/// max speed 1.5, a horizon of 2 s: RVO2's default of 10 s is for open ground), time step
/// `dt`, a wall 1 thick along x = 0 with a door `w` wide centred on y = 0, navigation in the
/// square of half-side `half`.
fn door_in_wall(dt: &str, w: f64, half: f64) -> lockstep_orca::Simulator {
    use lockstep_orca::navigation::NavParams;
    use lockstep_orca::{AgentParams, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2};
    let v = |x: f64, y: f64| Vec2::from_f64(x, y).unwrap();
    let mut sim = Simulator::new(SimulatorParams {
        time_step: Fx::lit(dt),
        agent_defaults: AgentParams {
            neighbor_dist: Fx::from_num(10),
            time_horizon: Fx::from_num(2),
            time_horizon_obst: Fx::from_num(2),
            radius: Fx::lit("0.5"),
            max_speed: Fx::lit("1.5"),
            ..AgentParams::default()
        },
    })
    .unwrap();
    let rect = |x0: f64, y0: f64, x1: f64, y1: f64| {
        ObstacleShape::Polygon(vec![v(x0, y0), v(x1, y0), v(x1, y1), v(x0, y1)])
    };
    sim.add_obstacle(rect(-0.5, -half, 0.5, -w / 2.0)).unwrap();
    sim.add_obstacle(rect(-0.5, w / 2.0, 0.5, half)).unwrap();
    sim.set_navigation(Some(NavParams {
        boundary: Some(vec![
            v(-half, -half),
            v(half, -half),
            v(half, half),
            v(-half, half),
        ]),
        ..NavParams::default()
    }))
    .unwrap();
    sim
}
