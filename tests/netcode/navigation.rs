//! SyncTest at check distance 7 on the navigation scenes (`fixtures/navigation/`), with
//! `NavigateTo` orders on the wire beside the scene's own navigating agents: the planner's
//! requests, budget, replans (the building dropped across the path) and traffic state are
//! saved, loaded and re-simulated bit-identically through every rollback.

use super::ROOT;
use ggrs::SessionBuilder;
use lockstep_orca::netcode::{NetConfig, NetGame, NetInput, PlayerOrder};
use lockstep_orca::scenario::Scenario;
use lockstep_orca::{AgentId, Fx, Vec2};
use std::path::Path;

/// Runs `frames` frames of a SyncTest session (check distance 7, two players) over the scene,
/// with `script(frame, player)`'s orders.
fn synctest_scene(
    file: &str,
    frames: i32,
    script: impl Fn(i32, usize) -> Vec<PlayerOrder>,
) -> NetGame {
    let scenario = Scenario::load(Path::new(ROOT).join(file)).unwrap();
    let mut game = NetGame::from_scenario(&scenario, 2).unwrap();
    assert!(game.simulator().navigation().is_some(), "{file}");
    let mut session = SessionBuilder::<NetConfig>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(7)
        .start_synctest_session()
        .unwrap();
    for frame in 0..frames {
        for player in 0..2 {
            let input = NetInput::from_orders(&script(frame, player)).unwrap();
            session.add_local_input(player, input).unwrap();
        }
        let requests = session
            .advance_frame()
            .unwrap_or_else(|e| panic!("{file}, frame {frame}: {e}"));
        game.handle_requests(requests)
            .unwrap_or_else(|e| panic!("{file}, frame {frame}: {e}"));
    }
    assert_eq!(game.frame(), frames as u32);
    game
}

/// Navigate orders for `units` (at most four) to `goal`.
fn navigate(units: impl IntoIterator<Item = u32>, goal: Vec2) -> Vec<PlayerOrder> {
    units
        .into_iter()
        .map(|u| PlayerOrder::NavigateTo {
            unit: AgentId(u),
            goal,
        })
        .collect()
}

/// Asserts `units` hold a navigation record toward `goal` that has been planned.
fn navigating(game: &NetGame, units: &[u32], goal: Vec2) {
    for &u in units {
        let record = game.simulator().nav_status(AgentId(u)).unwrap();
        let record = record.unwrap_or_else(|| panic!("unit {u} is not navigating"));
        assert_eq!(record.goal(), goal, "unit {u}");
        assert!(record.status().is_some(), "unit {u} was never planned");
    }
}

/// `building_drop`: player 0 sends four of its units by navigation to the north-east before the
/// building drops across their way (tick 20), so they replan around it; player 1 selects its
/// units by one id range (player 0's eight skipped and counted), gives one of them a new
/// navigate goal and another a straight move at an order speed of 1.
#[test]
fn synctest_on_building_drop_with_navigate_orders() {
    let ne = Vec2::from_int(24, 9);
    let se = Vec2::from_int(22, -9);
    let game = synctest_scene(
        "fixtures/navigation/building_drop.toml",
        150,
        |f, p| match (f, p) {
            (10, 0) => navigate([0, 2, 4, 6], ne),
            (12, 1) => vec![PlayerOrder::SetGroup {
                group: 0,
                first: AgentId(0),
                count: 16,
            }],
            (30, 1) => {
                let mut o = navigate([1], se);
                o.push(PlayerOrder::MoveTo {
                    unit: AgentId(3),
                    goal: se,
                });
                o.push(PlayerOrder::SetOrderSpeed {
                    unit: AgentId(3),
                    speed: Some(Fx::ONE),
                });
                o
            }
            _ => Vec::new(),
        },
    );
    assert_eq!(game.rejected_orders(), 0, "{:?}", game.last_rejections());
    assert_eq!(game.skipped_group_members(), 8);
    navigating(&game, &[0, 2, 4, 6], ne);
    navigating(&game, &[1], se);
    let order = game.simulator().agent_order(AgentId(3)).unwrap().unwrap();
    assert_eq!((order.goal(), order.speed()), (se, Some(Fx::ONE)));
    // The building is there, and the redirected units went around it: past its east face.
    assert_eq!(game.simulator().obstacles().len(), 1);
    let past = (0..4).filter(|k| {
        let p = game.simulator().agent_position(AgentId(2 * k)).unwrap();
        p.x > Fx::from_num(2)
    });
    assert!(past.count() > 0);
}

/// `rooms_one_route`: player 0 sends its four units by navigation to the middle hall (up
/// through the top passage), player 1 one of its units to the east room's north-east corner;
/// later player 1 stops that unit and sends it, with another, by navigation again.
#[test]
fn synctest_on_rooms_one_route_with_navigate_orders() {
    let hall = Vec2::from_int(0, -4);
    let corner = Vec2::from_int(17, 9);
    let game = synctest_scene(
        "fixtures/navigation/rooms_one_route.toml",
        200,
        |f, p| match (f, p) {
            (5, 0) => navigate([0, 2, 4, 6], hall),
            (8, 1) => navigate([1], corner),
            (60, 1) => vec![PlayerOrder::Stop { unit: AgentId(1) }],
            (61, 1) => navigate([1, 3], corner),
            _ => Vec::new(),
        },
    );
    assert_eq!(game.rejected_orders(), 0, "{:?}", game.last_rejections());
    navigating(&game, &[0, 2, 4, 6], hall);
    navigating(&game, &[1, 3], corner);
    // The scene's own navigating units keep their goals.
    let record = game.simulator().nav_status(AgentId(5)).unwrap().unwrap();
    assert_eq!(record.goal(), Vec2::new(Fx::lit("13.5"), Fx::ONE));
    // Through the top passage: the hall's units are past the west wall (x = -6).
    let in_hall = [0, 2, 4, 6].iter().filter(|&&u| {
        let p = game.simulator().agent_position(AgentId(u)).unwrap();
        p.x > Fx::from_num(-6)
    });
    assert!(in_hall.count() > 0);
}

/// `rooms_one_route` with navigated legs on the wire: player 0 sends two units by navigation to
/// the middle hall and queues the east room's corner behind it (`QueueMove` to a navigating
/// unit: a leg), so their legs are taken, planned and restored through every rollback.
#[test]
fn synctest_on_rooms_one_route_with_queued_legs() {
    let hall = Vec2::from_int(0, -4);
    let corner = Vec2::from_int(17, 9);
    let queue = |u: u32| PlayerOrder::QueueMove {
        unit: AgentId(u),
        goal: corner,
    };
    let game = synctest_scene(
        "fixtures/navigation/rooms_one_route.toml",
        400,
        |f, p| match (f, p) {
            (5, 0) => {
                let mut o = navigate([0, 2], hall);
                o.extend([queue(0), queue(2)]);
                o
            }
            _ => Vec::new(),
        },
    );
    assert_eq!(game.rejected_orders(), 0, "{:?}", game.last_rejections());
    // Both took their second leg: the corner is their goal, no leg is left.
    navigating(&game, &[0, 2], corner);
    for u in [0, 2] {
        assert!(game.simulator().nav_legs(AgentId(u)).unwrap().is_empty());
    }
}

/// `building_drop` with navigated group orders (the `navigate` flag: one `GroupNavigate` per
/// order): each player selects group 0 by one id range (the other player's eight units
/// skipped), player 0 sends its units by one order round the building that drops at tick 20,
/// player 1 its units by one order to the south-east and later one queued order (a navigated
/// leg each) to the north-east; requests, legs and replans are saved, loaded and re-simulated
/// bit-identically through every rollback.
#[test]
fn synctest_on_building_drop_with_navigated_group_orders() {
    let ne = Vec2::from_int(24, 9);
    let se = Vec2::from_int(22, -9);
    let select = PlayerOrder::SetGroup {
        group: 0,
        first: AgentId(0),
        count: 16,
    };
    let go = |goal, queue| PlayerOrder::GroupMove {
        group: 0,
        goal,
        queue,
        slowest: true,
        navigate: true,
    };
    let game = synctest_scene(
        "fixtures/navigation/building_drop.toml",
        150,
        |f, p| match (f, p) {
            (10, _) => vec![select],
            (11, 0) => vec![go(ne, false)],
            (11, 1) => vec![go(se, false)],
            (40, 1) => vec![go(ne, true)],
            _ => Vec::new(),
        },
    );
    assert_eq!(game.rejected_orders(), 0, "{:?}", game.last_rejections());
    assert_eq!(game.skipped_group_members(), 16);
    let evens: Vec<u32> = (0..16).step_by(2).collect();
    navigating(&game, &evens, ne);
    // Player 1's units: on their way south-east with the north-east leg queued, or on it.
    let sim = game.simulator();
    for u in (1..16).step_by(2) {
        let record = sim.nav_status(AgentId(u)).unwrap().unwrap();
        let legs = sim.nav_legs(AgentId(u)).unwrap();
        assert!(
            (record.goal() == se && legs == [ne]) || (record.goal() == ne && legs.is_empty()),
            "unit {u}: goal {:?}, legs {legs:?}",
            record.goal()
        );
    }
    // Past the building's east face, as with the single orders.
    let past = evens.iter().filter(|&&u| {
        let p = sim.agent_position(AgentId(u)).unwrap();
        p.x > Fx::from_num(2)
    });
    assert!(past.count() > 0);
}

/// `gap_default_horizons` (twenty-eighth session): 16 units a side through a gap 3 wide with
/// RVO2's default horizons. Since the twenty-ninth session the gap is a door crossed two
/// abreast: traffic control reserves it for one side at a time (state in the snapshot) and
/// caps the obstacle horizon of the units going through (found again from the state at every
/// step; before, the cap near lane portals). Player 0 sends two of
/// its units (even ids) of the east side back east, player 1 two of its units (odd ids) of
/// the west side to another point beyond the gap, while the crowd is in the gap; every
/// rollback re-simulates it bit-identically.
#[test]
fn synctest_on_the_gap_with_default_horizons() {
    let east = Vec2::from_int(11, 6);
    let west = Vec2::from_int(-11, -6);
    let game = synctest_scene(
        "fixtures/navigation/gap_default_horizons.toml",
        200,
        |f, p| match (f, p) {
            (20, 0) => navigate([16, 18], east),
            (24, 1) => navigate([1, 3], west),
            _ => Vec::new(),
        },
    );
    assert_eq!(game.rejected_orders(), 0, "{:?}", game.last_rejections());
    navigating(&game, &[16, 18], east);
    navigating(&game, &[1, 3], west);
    // The crowd crossed while the rollbacks ran: west-side units (ids 4 to 15) are east of
    // the wall.
    let through = (4..16)
        .filter(|&u| game.simulator().agent_position(AgentId(u)).unwrap().x > Fx::ONE)
        .count();
    assert!(through >= 2, "{through} through by frame 200");
}
