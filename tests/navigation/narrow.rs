//! Navigation: two units whose goals lie in one street too narrow to pass in, each beyond the
//! other (the rule "Behind a unit at rest" of `lockstep_orca::orders::arrival`). Before it, the
//! one on its way shoved the one at rest on past its own goal, arrived, and was shoved back past
//! the other's goal in turn, for ever (sweep seed 779).

// f64 measures the results (distances, speeds).
#![allow(clippy::float_arithmetic)]

use lockstep_orca::navigation::NavParams;
use lockstep_orca::orders::{OrderEventKind, OrderStatus};
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2,
};

fn v(x: f64, y: f64) -> Vec2 {
    Vec2::from_f64(x, y).unwrap()
}

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> ObstacleShape {
    ObstacleShape::Polygon(vec![v(x0, y0), v(x1, y0), v(x1, y1), v(x0, y1)])
}

/// Units of radius 0.5 and speed 1.5 with 2 s horizons.
fn unit() -> AgentParams {
    AgentParams {
        neighbor_dist: Fx::from_num(10),
        max_neighbors: 10,
        time_horizon: Fx::from_num(2),
        time_horizon_obst: Fx::from_num(2),
        radius: Fx::lit("0.5"),
        max_speed: Fx::lit("1.5"),
        ..AgentParams::default()
    }
}

/// What became of the units at the end of a run.
struct Outcome {
    /// The last tick at which an order's status changed (but to `Blocked`).
    last_event: u64,
    /// Each unit's status and distance from its goal at the end.
    end: Vec<(Option<OrderStatus>, f64)>,
    /// The fastest unit's speed at the end.
    speed: f64,
    /// The deepest a disc went into a building (negative: inside by that much).
    wall: f64,
}

/// One unit of a scene: where it starts, its goal, and when (seconds) it gets its order.
type Unit = ((f64, f64), (f64, f64), f64);

/// Runs `units` among `buildings` (boxes `(x0, y0, x1, y1)`) for `seconds`: with `navigate`,
/// planned orders in a bounded map; else plain moves.
fn run(
    buildings: &[(f64, f64, f64, f64)],
    units: &[Unit],
    navigate: bool,
    dt: &str,
    seconds: f64,
) -> Outcome {
    let mut sim = Simulator::new(SimulatorParams {
        time_step: Fx::lit(dt),
        agent_defaults: unit(),
    })
    .unwrap();
    for &(x0, y0, x1, y1) in buildings {
        sim.add_obstacle(rect(x0, y0, x1, y1)).unwrap();
    }
    if navigate {
        sim.set_navigation(Some(NavParams {
            boundary: Some(vec![
                v(-12.0, -24.0),
                v(12.0, -24.0),
                v(12.0, 24.0),
                v(-12.0, 24.0),
            ]),
            ..NavParams::default()
        }))
        .unwrap();
    }
    let ids: Vec<AgentId> = units
        .iter()
        .map(|&((x, y), _, _)| sim.add_agent_with(v(x, y), unit()).unwrap())
        .collect();
    let order = |id: AgentId, goal: Vec2| {
        if navigate {
            Command::NavigateTo { id, goal }
        } else {
            Command::MoveTo { id, goal }
        }
    };
    let dt_s = sim.time_step().to_num::<f64>();
    let (mut last_event, mut wall) = (0, f64::MAX);
    while (sim.tick() as f64) * dt_s < seconds {
        for (&id, &(_, (gx, gy), at)) in ids.iter().zip(units) {
            if (sim.tick() as f64) * dt_s >= at && sim.agent_order(id).unwrap().is_none() {
                sim.apply(&order(id, v(gx, gy))).unwrap();
            }
        }
        sim.step().unwrap();
        if sim
            .order_events()
            .iter()
            .any(|e| e.kind != OrderEventKind::Blocked)
        {
            last_event = sim.tick();
        }
        for &id in &ids {
            let (x, y) = sim.agent_position(id).unwrap().to_f64();
            for &(x0, y0, x1, y1) in buildings {
                let dx = (x0 - x).max(x - x1).max(0.0);
                let dy = (y0 - y).max(y - y1).max(0.0);
                wall = wall.min(dx.hypot(dy) - 0.5);
            }
        }
    }
    let end = ids
        .iter()
        .zip(units)
        .map(|(&id, &(_, (gx, gy), _))| {
            let (x, y) = sim.agent_position(id).unwrap().to_f64();
            (sim.order_status(id).unwrap(), (x - gx).hypot(y - gy))
        })
        .collect();
    let speed = ids
        .iter()
        .map(|&id| {
            let (x, y) = sim.agent_velocity(id).unwrap().to_f64();
            x.hypot(y)
        })
        .fold(0.0, f64::max);
    Outcome {
        last_event,
        end,
        speed,
        wall,
    }
}

/// A street `width` wide along y (two buildings from y = -10 to 10, beside it open ground):
/// unit A, sent to (0, 0) from (0, 1), arrives first; unit B, from (0, 14), is sent at 5 s to
/// (0, -2.2), beyond A in the street.
fn street(width: f64, navigate: bool, dt: &str) -> Outcome {
    let h = width / 2.0;
    run(
        &[(-6.0, -10.0, -h, 10.0), (h, -10.0, 6.0, 10.0)],
        &[
            ((0.0, 1.0), (0.0, 0.0), 0.0),
            ((0.0, 14.0), (0.0, -2.2), 5.0),
        ],
        navigate,
        dt,
        240.0,
    )
}

/// Asserts that every unit of `o` arrived, none changed status after `by` seconds (at time
/// step `dt`), all are at rest and none went into a wall.
fn assert_at_rest(o: &Outcome, dt: f64, by: f64) {
    let last = o.last_event as f64 * dt;
    assert!(
        o.end.iter().all(|e| e.0 == Some(OrderStatus::Arrived)),
        "not all arrived: {:?}",
        o.end
    );
    assert!(last <= by, "still swapping: a status change at {last} s");
    assert!(o.speed < 0.01, "not at rest: {}", o.speed);
    assert!(o.wall >= -0.001, "into a wall: {}", o.wall);
}

/// Asserts that every unit of `o` arrived on its goal (within its radius, 0.5).
fn assert_all_on_goals(o: &Outcome) {
    assert!(
        o.end
            .iter()
            .all(|e| e.0 == Some(OrderStatus::Arrived) && e.1 <= 0.5),
        "not all on their goals: {:?}",
        o.end
    );
}

fn check_narrow(navigate: bool, dt: &str) {
    let o = street(2.0, navigate, dt);
    println!(
        "street 2 wide, navigate {navigate}, dt {dt}: last status change at {:.1} s, end {:?}, \
         speed {:.4}, wall {:.4}",
        o.last_event as f64 * dt.parse::<f64>().unwrap(),
        o.end,
        o.speed,
        o.wall
    );
    assert_at_rest(&o, dt.parse().unwrap(), 90.0);
    // One rests on its goal; the other stopped short of its own, behind it.
    assert!(o.end.iter().any(|e| e.1 <= 0.5), "{:?}", o.end);
    assert!(o.end.iter().any(|e| e.1 > 1.0), "{:?}", o.end);
}

#[test]
fn two_units_whose_goals_lie_in_a_street_too_narrow_to_pass_come_to_rest() {
    for navigate in [true, false] {
        for dt in ["0.1", "0.25"] {
            check_narrow(navigate, dt);
        }
    }
}

/// Where the street leaves room to pass (4 wide), nothing stops short: each rests on its goal.
#[test]
fn in_a_street_wide_enough_to_pass_both_rest_on_their_goals() {
    for navigate in [true, false] {
        let o = street(4.0, navigate, "0.1");
        println!(
            "street 4 wide, navigate {navigate}: end {:?}, speed {:.4}",
            o.end, o.speed
        );
        assert_all_on_goals(&o);
        assert!(o.speed < 0.01, "not at rest: {}", o.speed);
    }
}

/// A unit at rest in one street 2 wide and a unit sent through it to a goal in another street
/// 2 wide, beyond open ground 8 across: there is room to pass on the way, so the unit at rest
/// gives way there and walks back, and both rest on their goals. Checked only at the unit at
/// rest and at the goal (the first version of the rule), the unit on its way stopped behind
/// the other, 16.9 from its goal, for good (found by a review).
#[test]
fn room_to_pass_on_the_way_lets_both_reach_their_goals() {
    let buildings = [
        (-8.0, -4.0, -1.0, 4.0),
        (1.0, -4.0, 8.0, 4.0),
        (-8.0, -20.0, -1.0, -12.0),
        (1.0, -20.0, 8.0, -12.0),
    ];
    let units = [
        ((0.0, 1.0), (0.0, 0.0), 0.0),
        ((0.0, 14.0), (0.0, -16.0), 5.0),
    ];
    for navigate in [true, false] {
        let o = run(&buildings, &units, navigate, "0.1", 120.0);
        println!(
            "two streets, navigate {navigate}: end {:?}, speed {:.4}, wall {:.4}",
            o.end, o.speed, o.wall
        );
        assert_all_on_goals(&o);
        assert!(o.wall >= -0.001, "into a wall: {}", o.wall);
    }
}

/// Three units whose goals lie in one street 2 wide, each sent from the north past the ones
/// before: all come to rest (with the rule off, they swap places for good).
#[test]
fn three_units_in_a_street_too_narrow_to_pass_come_to_rest() {
    let units = [
        ((0.0, 1.0), (0.0, 0.0), 0.0),
        ((0.0, 14.0), (0.0, -2.2), 5.0),
        ((0.0, 18.0), (0.0, -4.4), 8.0),
    ];
    for navigate in [true, false] {
        let o = run(
            &[(-6.0, -10.0, -1.0, 10.0), (1.0, -10.0, 6.0, 10.0)],
            &units,
            navigate,
            "0.1",
            240.0,
        );
        println!(
            "three in a street, navigate {navigate}: last status change at {:.1} s, end {:?}, \
             speed {:.4}, wall {:.4}",
            o.last_event as f64 * 0.1,
            o.end,
            o.speed,
            o.wall
        );
        assert_at_rest(&o, 0.1, 120.0);
    }
}
