//! Navigation: crowds prefer wide ways. A field's choke cost (`FieldKey::choke_cost`) makes
//! its corridors avoid narrow portals when a way round is short enough, once per run of
//! narrow portals; the simulator sets it for a crowd sent to one goal.

// f64 measures the results (lengths, crossing points).
#![allow(clippy::float_arithmetic, clippy::cast_precision_loss)]

use super::quality::{P, build_mesh, fx, path_length};
use lockstep_orca::navigation::{Field, FieldKey, NavMesh, NavPath, SearchWork};
use lockstep_orca::{Fx, Vec2};

/// An axis-aligned box, counter-clockwise.
fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<P> {
    vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
}

/// A wall `thick` thick across the room at x = 50, with a door 1.3 wide at y 50 to 51.3 and
/// a gate 5 wide `gate_at` below it, either of them walled up on request.
fn wall(thick: f64, gate_at: f64, door: bool, gate: bool) -> Vec<Vec<P>> {
    let (x0, x1) = (50.0 - thick / 2.0, 50.0 + thick / 2.0);
    let gate_top = 50.0 - gate_at;
    let mut out = vec![rect(x0, 51.3, x1, 100.0), rect(x0, 0.0, x1, gate_top - 5.0)];
    if door && gate {
        out.push(rect(x0, gate_top, x1, 50.0));
    } else if door {
        out.push(rect(x0, gate_top - 5.0, x1, 50.0));
    } else if gate {
        out.push(rect(x0, gate_top, x1, 51.3));
    }
    out
}

const START: P = (30.0, 51.0);
const GOAL: P = (70.0, 51.0);

fn field_path(mesh: &NavMesh, choke_cost: f64) -> NavPath {
    let key = FieldKey {
        choke_cost: Fx::from_num(choke_cost),
        ..FieldKey::new(fx(GOAL), Fx::lit("0.5"))
    };
    Field::new(mesh, key)
        .path_from(mesh, fx(START), usize::MAX, &mut SearchWork::default())
        .expect("a path")
}

/// Where the path crosses x = 50 (its y).
fn crossing(path: &NavPath) -> f64 {
    let mut prev = START;
    for q in &path.points {
        let q = q.to_f64();
        if (prev.0 - 50.0) * (q.0 - 50.0) <= 0.0 && prev.0 != q.0 {
            return prev.1 + (q.1 - prev.1) * (50.0 - prev.0) / (q.0 - prev.0);
        }
        prev = q;
    }
    panic!("the path does not cross the wall: {:?}", path.points);
}

/// The detour through the gate: its path length minus the door's (each with the other way
/// walled up).
fn detour(thick: f64, gate_at: f64) -> f64 {
    let len = |door, gate| {
        let mesh = build_mesh(&wall(thick, gate_at, door, gate));
        path_length(fx(START), &field_path(&mesh, 0.0))
    };
    len(false, true) - len(true, false)
}

/// Without a choke cost the field's path takes the door (the shortest way, 10.8 shorter than
/// through the gate 14 below it); with a cost of 1.5 times the detour (the door charged
/// `cost · 4 r / 1.3`, the gate `cost · 4 r / 5`) it takes the gate; with 0.6 times, the
/// door. The field's distances are its corridors' funnel lengths from each triangle's exit, not
/// the unit's own path: the switch comes between 1.0 and 1.5 times the detour, not at the
/// 0.88 the charges alone give (and between 0.3 and 0.6 times for gates 4 and 8 below).
/// A door through a wall 3 thick is a run of three narrow portals (two mouths and the
/// diagonal, all narrower than `12 r`), charged once: at 0.6 times the detour the path still
/// takes the door, where a charge per portal (2.55 times the cost against the gate's run)
/// would send it to the gate.
#[test]
fn a_crowds_field_takes_the_gate_when_the_door_costs_more_than_the_detour() {
    for thick in [0.5, 3.0] {
        let d = detour(thick, 14.0);
        assert!(d > 10.0, "thick {thick}: detour {d}");
        let mesh = build_mesh(&wall(thick, 14.0, true, true));
        let at = |k: f64| crossing(&field_path(&mesh, k * d));
        let door = |y: f64| (50.0..=51.3).contains(&y);
        let gate = |y: f64| (31.0..=36.0).contains(&y);
        for (k, through_door) in [(0.0, true), (0.6, true), (1.5, false)] {
            let y = at(k);
            let what = format!("thick {thick}, detour {d:.2}, cost {k} of it: crosses at {y}");
            assert!(if through_door { door(y) } else { gate(y) }, "{what}");
        }
    }
}

/// The field with a choke cost is a function of the mesh and its key, as every field: a fresh
/// field serves a start as one grown by other starts does.
#[test]
fn a_costed_field_answers_as_a_fresh_one() {
    let mesh = build_mesh(&wall(1.0, 6.0, true, true));
    let key = FieldKey {
        choke_cost: Fx::from_num(16),
        ..FieldKey::new(fx(GOAL), Fx::lit("0.5"))
    };
    let mut work = SearchWork::default();
    let mut grown = Field::new(&mesh, key);
    for y in [10, 30, 50, 70, 90] {
        let s = Vec2::from_int(20, y);
        let a = grown.path_from(&mesh, s, usize::MAX, &mut work);
        let b = Field::new(&mesh, key).path_from(&mesh, s, usize::MAX, &mut work);
        assert_eq!(a, b, "start {s:?}");
        assert!(a.is_some());
    }
}

/// A choke cost past `MAX_CHOKE_COST` counts as it: a path through three doors in a row (each
/// a run charged 1.54 times the cost) is still found with the largest cost there is (unclamped,
/// two such charges overflow the field's distance and the start went unserved).
#[test]
fn the_largest_choke_cost_still_serves_a_path_through_three_doors() {
    let mut walls = Vec::new();
    for x in [30.0, 50.0, 70.0] {
        walls.push(rect(x - 0.5, 51.3, x + 0.5, 100.0));
        walls.push(rect(x - 0.5, 0.0, x + 0.5, 50.0));
    }
    let mesh = build_mesh(&walls);
    for cost in [
        Fx::from_num(4),
        lockstep_orca::navigation::MAX_CHOKE_COST,
        Fx::MAX,
    ] {
        let key = FieldKey {
            choke_cost: cost,
            ..FieldKey::new(fx((80.0, 50.65)), Fx::lit("0.5"))
        };
        let path = Field::new(&mesh, key).path_from(
            &mesh,
            fx((20.0, 50.65)),
            usize::MAX,
            &mut SearchWork::default(),
        );
        let path = path.unwrap_or_else(|| panic!("cost {cost}: no path"));
        assert_eq!(
            path.status,
            lockstep_orca::navigation::PathStatus::Complete,
            "cost {cost}"
        );
    }
}

#[path = "../../examples/common/nav_gates.rs"]
mod gates;

mod simulated {
    use super::gates;
    use lockstep_orca::AgentId;
    use lockstep_orca::Simulator;
    use lockstep_orca::orders::OrderStatus;

    /// `examples/nav_gates.rs`'s scene with the gate 6 below the door, from one side: a wall 1
    /// thick at x = 0 with a door 1.3 wide (y 0 to 1.3) and a gate 5 wide (y −11 to −6); `n`
    /// units in a block at x −12 to −22.5 sent to (18, 0).
    fn scene(n: usize, dt: &str) -> (Simulator, Vec<AgentId>) {
        gates::scene(6.0, n, false, dt).unwrap()
    }

    /// Runs until every unit arrived (at most 300 s): the seconds, and how many crossed the
    /// wall by the door and by the gate. A copy restored from a snapshot every 100 ticks
    /// steps beside it bit-identically (the choke cost comes from state: the records).
    fn run(n: usize, dt: &str) -> (f64, usize, usize) {
        let (mut sim, ids) = scene(n, dt);
        let mut copy = Simulator::restore(&sim.snapshot()).unwrap();
        let step: f64 = dt.parse().unwrap();
        let mut prev: Vec<f64> = ids
            .iter()
            .map(|&id| sim.agent_position(id).unwrap().to_f64().0)
            .collect();
        let (mut door, mut gate) = (0, 0);
        for tick in 0..(300.0 / step) as u64 {
            sim.step().unwrap();
            copy.step().unwrap();
            assert_eq!(sim.state_hash(), copy.state_hash(), "tick {tick}");
            if tick % 100 == 99 {
                copy = Simulator::restore(&copy.snapshot()).unwrap();
            }
            for (k, &id) in ids.iter().enumerate() {
                let p = sim.agent_position(id).unwrap().to_f64();
                if prev[k] < 0.0 && p.0 >= 0.0 {
                    if p.1 > -1.0 { door += 1 } else { gate += 1 }
                }
                prev[k] = p.0;
            }
            let arrived =
                |&id: &AgentId| sim.order_status(id).unwrap() == Some(OrderStatus::Arrived);
            if ids.iter().all(arrived) {
                return (sim.tick() as f64 * step, door, gate);
            }
        }
        panic!("{n} units, dt {dt}: not all arrived in 300 s");
    }

    /// 40 units sent through the wall take the gate 5 wide, 6 below the door 1.3 wide on
    /// their straight line: before crowds had a choke cost the last arrived at 147.4 s (time
    /// step 0.1) and 146.8 s (0.25); now all 40 take the gate, the last in at 75.4 s and
    /// 72.8 s.
    /// Three units (too few to share a field) still take the door, the shortest way.
    #[test]
    fn a_crowd_takes_the_wide_gate_and_a_few_units_the_door() {
        for dt in ["0.1", "0.25"] {
            let (t, door, gate) = run(40, dt);
            println!("40 units dt {dt}: all arrived {t:.1} s, door {door}, gate {gate}");
            assert!(
                gate >= 36 && t < 100.0,
                "dt {dt}: {t} s, door {door} gate {gate}"
            );
            let (t, door, gate) = run(3, dt);
            println!("3 units dt {dt}: all arrived {t:.1} s, door {door}, gate {gate}");
            assert_eq!((door, gate), (3, 0), "dt {dt}");
        }
    }
}
