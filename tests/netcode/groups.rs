//! Group orders on the default wire (kinds 13–16), `NavigateTo` (11) and the order speed (12):
//! one wire order moves a group of 1,000 units in the frame it is given (issue 26's acceptance
//! line), ownership (a group holds only its sender's units; foreign ids skipped and counted),
//! each player's own groups, waypoints and the slowest member's speed, and every refusal.

use super::{both, confirmed, idle};
use ggrs::{InputStatus, SessionBuilder};
use lockstep_orca::netcode::{
    GROUPS_PER_PLAYER, GameRules, INPUT_WIRE_BYTES, MAX_GROUP_SPAN, MAX_WAYPOINTS, NetConfig,
    NetGame, NetInput, PlayerOrder, PlayerOrderError, StateWriter, Turn, WireOrder, kind,
    sim_group,
};
use lockstep_orca::{AgentId, AgentParams, Fx, Simulator, SimulatorParams, Vec2};

/// A game of `n` units on a grid (spacing 4: radius 1.5, not touching), unit `i` owned by
/// player `i % players`.
pub(super) fn army(n: u32, players: usize) -> NetGame {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let ids: Vec<_> = (0..n as i32)
        .map(|i| {
            sim.add_agent(Vec2::from_int(i % 40 * 4, i / 40 * 4))
                .unwrap()
        })
        .collect();
    let mut game = NetGame::new(sim, players).unwrap();
    for (i, id) in ids.into_iter().enumerate() {
        game.assign(id, i % players).unwrap();
    }
    game
}

pub(super) fn goal_of<R: GameRules>(game: &NetGame<R>, id: AgentId) -> Option<Vec2> {
    game.simulator()
        .agent_order(id)
        .unwrap()
        .map(lockstep_orca::Order::goal)
}

/// Issue 26: "one wire order moves a group of 1,000 units in the frame it is given". The
/// group is assigned by one slot (an id range), then ONE group move: after that frame every
/// one of the 1,000 units holds the new order. Every input is the fixed 68 bytes, one slot
/// used; two peers agree, and a SyncTest at check distance 7 over the same frames passes.
#[test]
fn one_wire_order_moves_a_group_of_1000_units_in_its_frame() {
    let goal = Vec2::from_int(300, -40);
    let select = PlayerOrder::SetGroup {
        group: 3,
        first: AgentId(0),
        count: 1000,
    };
    let go = PlayerOrder::GroupMove {
        group: 3,
        goal,
        queue: false,
        slowest: false,
        navigate: false,
    };
    for order in [select, go] {
        let input = NetInput::from_orders(&[order]).unwrap();
        assert_eq!(input.to_bytes().len(), INPUT_WIRE_BYTES);
        assert_eq!(NetInput::from_bytes(&input.to_bytes()).unwrap(), input);
        assert_eq!(input.orders[1..], [WireOrder::default(); 3]);
    }
    let (mut a, mut b) = (army(1000, 1), army(1000, 1));
    both(&mut a, &mut b, &[confirmed(&[select])]);
    let gid = sim_group(0, 3).unwrap();
    assert_eq!(a.simulator().group(gid).map(<[_]>::len), Some(1000));
    assert!((0..1000).all(|i| goal_of(&a, AgentId(i)).is_none()));
    both(&mut a, &mut b, &[confirmed(&[go])]);
    assert!((0..1000).all(|i| goal_of(&a, AgentId(i)) == Some(goal)));
    assert_eq!(a.last_commands().len(), 1, "{:?}", a.last_commands());
    assert!(a.last_rejections().is_empty());
    assert_eq!((a.rejected_orders(), a.skipped_group_members()), (0, 0));
    // They walk: every unit moved toward the goal in that frame's step.
    let c = army(1000, 1);
    for i in 0..1000 {
        let (p0, p1) = (
            c.simulator().agent_position(AgentId(i)).unwrap(),
            a.simulator().agent_position(AgentId(i)).unwrap(),
        );
        assert!(
            (goal - p1).length_squared_wide() < (goal - p0).length_squared_wide(),
            "unit {i}"
        );
    }

    // The same two frames in a SyncTest session (check distance 7), then idle frames.
    let mut game = army(1000, 1);
    let mut session = SessionBuilder::<NetConfig>::new()
        .with_num_players(1)
        .unwrap()
        .with_check_distance(7)
        .start_synctest_session()
        .unwrap();
    for frame in 0..12 {
        let input = match frame {
            1 => NetInput::from_orders(&[select]).unwrap(),
            2 => NetInput::from_orders(&[go]).unwrap(),
            _ => NetInput::default(),
        };
        session.add_local_input(0, input).unwrap();
        game.handle_requests(session.advance_frame().unwrap())
            .unwrap();
        if frame == 2 {
            assert!((0..1000).all(|i| goal_of(&game, AgentId(i)) == Some(goal)));
        }
    }
    assert_eq!(game.frame(), 12);
}

/// Interleaved owners (unit `i` is player `i % 2`'s): a range names both players' units; the
/// sender's are selected, the other player's skipped and counted, the same on both peers.
/// Groups are per player: player 1's group 0 is not player 0's.
#[test]
fn a_group_holds_only_the_senders_units_and_foreign_ids_are_counted() {
    let (mut a, mut b) = (army(40, 2), army(40, 2));
    let range = |group, first, count| PlayerOrder::SetGroup {
        group,
        first: AgentId(first),
        count,
    };
    // Player 0: ids 0..20 (10 own, 10 player 1's); player 1: ids 10..14 (2 own, 2 foreign).
    both(
        &mut a,
        &mut b,
        &[confirmed(&[range(0, 0, 20)]), confirmed(&[range(0, 10, 4)])],
    );
    let own0: Vec<_> = (0..20).step_by(2).map(AgentId).collect();
    assert_eq!(a.simulator().group(sim_group(0, 0).unwrap()).unwrap(), own0);
    assert_eq!(
        a.simulator().group(sim_group(1, 0).unwrap()).unwrap(),
        [AgentId(11), AgentId(13)]
    );
    assert_eq!(a.skipped_group_members(), 12);
    assert_eq!(a.rejected_orders(), 0);
    // A mask adds ids 30, 31 and 33 to player 0's group: 31 and 33 are player 1's; an id past
    // the units (100) names nothing, skipped too.
    let mask = PlayerOrder::AddMaskToGroup {
        group: 0,
        first: AgentId(30),
        mask: 0b1011,
    };
    let add = PlayerOrder::AddToGroup {
        group: 0,
        first: AgentId(100),
        count: 1,
    };
    both(&mut a, &mut b, &[confirmed(&[mask, add]), idle()]);
    let mut expected = own0.clone();
    expected.push(AgentId(30));
    assert_eq!(
        a.simulator().group(sim_group(0, 0).unwrap()).unwrap(),
        expected
    );
    assert_eq!(a.skipped_group_members(), 12 + 2 + 1);
    // Player 1 moves its group 0: only its two units get the order.
    let goal = Vec2::from_int(-20, 5);
    let go = PlayerOrder::GroupMove {
        group: 0,
        goal,
        queue: false,
        slowest: false,
        navigate: false,
    };
    both(&mut a, &mut b, &[idle(), confirmed(&[go])]);
    for i in 0..40 {
        let moved = goal_of(&a, AgentId(i)) == Some(goal);
        assert_eq!(moved, i == 11 || i == 13, "unit {i}");
    }
    // A unit given to player 1 after the selection is dropped from player 0's group when the
    // group moves, and counted; the others move.
    a.assign(AgentId(2), 1).unwrap();
    b.assign(AgentId(2), 1).unwrap();
    let go0 = PlayerOrder::GroupMove {
        group: 0,
        goal,
        queue: false,
        slowest: false,
        navigate: false,
    };
    both(&mut a, &mut b, &[confirmed(&[go0]), idle()]);
    assert_eq!(goal_of(&a, AgentId(2)), None);
    assert_eq!(goal_of(&a, AgentId(4)), Some(goal));
    assert_eq!(a.skipped_group_members(), 16);
    assert!(
        !a.simulator()
            .group(sim_group(0, 0).unwrap())
            .unwrap()
            .contains(&AgentId(2))
    );
    // A set of 0 ids deletes the group; moving it then is `EmptyGroup`.
    both(&mut a, &mut b, &[confirmed(&[range(0, 0, 0), go0]), idle()]);
    assert_eq!(a.simulator().group(sim_group(0, 0).unwrap()), None);
    assert_eq!(a.last_rejections().len(), 1);
    assert_eq!(
        a.last_rejections()[0].error,
        PlayerOrderError::EmptyGroup(0)
    );
    assert_eq!(a.last_rejections()[0].slot, 1);
}

/// Waypoints through the group (a queued group move), the slowest member's speed, the order
/// speed of one unit and its reset, `NavigateTo` without navigation (a move).
#[test]
fn group_waypoints_slowest_speed_order_speed_and_navigate() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for k in 0..4 {
        let params = AgentParams {
            max_speed: Fx::from_num(1 + k),
            ..AgentParams::default()
        };
        sim.add_agent_with(Vec2::from_int(k * 3, 0), params)
            .unwrap();
    }
    let mut game = NetGame::new(sim, 1).unwrap();
    for k in 0..4 {
        game.assign(AgentId(k), 0).unwrap();
    }
    let (p, q) = (Vec2::from_int(10, 10), Vec2::from_int(-10, 10));
    let orders = [
        PlayerOrder::SetGroup {
            group: GROUPS_PER_PLAYER - 1,
            first: AgentId(0),
            count: 4,
        },
        PlayerOrder::GroupMove {
            group: GROUPS_PER_PLAYER - 1,
            goal: p,
            queue: false,
            slowest: true,
            navigate: false,
        },
        PlayerOrder::GroupMove {
            group: GROUPS_PER_PLAYER - 1,
            goal: q,
            queue: true,
            slowest: false,
            navigate: false,
        },
    ];
    game.advance(&[confirmed(&orders)]).unwrap();
    assert!(
        game.last_rejections().is_empty(),
        "{:?}",
        game.last_rejections()
    );
    for k in 0..4 {
        let order = game.simulator().agent_order(AgentId(k)).unwrap().unwrap();
        assert_eq!(order.path(), [p, q], "unit {k}");
        // The slowest member's max speed (1) for every member.
        assert_eq!(order.speed(), Some(Fx::from_num(1)), "unit {k}");
    }
    let half = Fx::lit("0.5");
    let speed = |speed| PlayerOrder::SetOrderSpeed {
        unit: AgentId(3),
        speed,
    };
    game.advance(&[confirmed(&[speed(Some(half))])]).unwrap();
    let order = |g: &NetGame, k| {
        g.simulator()
            .agent_order(AgentId(k))
            .unwrap()
            .unwrap()
            .clone()
    };
    assert_eq!(order(&game, 3).speed(), Some(half));
    game.advance(&[confirmed(&[speed(None)])]).unwrap();
    assert_eq!(order(&game, 3).speed(), None);
    // NavigateTo without navigation: a move order to the goal, the speed reset.
    let nav = PlayerOrder::NavigateTo {
        unit: AgentId(3),
        goal: q,
    };
    game.advance(&[confirmed(&[nav])]).unwrap();
    assert_eq!(order(&game, 3).goal(), q);
    assert_eq!(order(&game, 3).speed(), None);
    // Group orders apply before unit orders in a frame, whatever the slots: unit 0 moved alone
    // before its group's move keeps its own goal, and the speed sent before the move applies
    // to unit 1's new order.
    let r = Vec2::from_int(5, -5);
    let frame = [
        PlayerOrder::MoveTo {
            unit: AgentId(0),
            goal: r,
        },
        PlayerOrder::SetOrderSpeed {
            unit: AgentId(1),
            speed: Some(half),
        },
        PlayerOrder::GroupMove {
            group: GROUPS_PER_PLAYER - 1,
            goal: p,
            queue: false,
            slowest: false,
            navigate: false,
        },
    ];
    game.advance(&[confirmed(&frame)]).unwrap();
    assert_eq!(order(&game, 0).goal(), r);
    assert_eq!(
        (order(&game, 1).goal(), order(&game, 1).speed()),
        (p, Some(half))
    );
    assert_eq!(order(&game, 2).goal(), p);
    assert_eq!(game.rejected_orders(), 0);
}

/// Every refusal of the new kinds, by the rejecting slot and reason; a refused order leaves
/// the state as an idle frame does (only the count moves).
#[test]
fn invalid_group_speed_and_navigate_orders_are_rejected_for_their_reason() {
    let (mut a, mut b) = (army(6, 2), army(6, 2));
    let wire = |kind, arg, unit, x, y| WireOrder {
        kind,
        arg,
        unit,
        x,
        y,
    };
    let raw = |slots: [WireOrder; 4]| {
        (
            NetInput {
                orders: slots,
                ..NetInput::default()
            },
            InputStatus::Confirmed,
        )
    };
    let cases: Vec<(WireOrder, PlayerOrderError)> = vec![
        // Group index 64: player 0 has groups 0..64.
        (
            wire(kind::SET_GROUP, GROUPS_PER_PLAYER, 0, 2, 0),
            PlayerOrderError::BadGroup(GROUPS_PER_PLAYER),
        ),
        (
            wire(kind::GROUP_MOVE, 200, 0, 0, 0),
            PlayerOrderError::BadGroup(200),
        ),
        // Spans: past the bound, negative, an empty addition, an empty mask.
        (
            wire(kind::SET_GROUP, 0, 0, MAX_GROUP_SPAN as i32 + 1, 0),
            PlayerOrderError::GroupSpan(MAX_GROUP_SPAN + 1),
        ),
        (
            wire(kind::ADD_TO_GROUP, 0, 0, -1, 0),
            PlayerOrderError::GroupSpan(u32::MAX),
        ),
        (
            wire(kind::ADD_TO_GROUP, 0, 0, 0, 0),
            PlayerOrderError::GroupSpan(0),
        ),
        (
            wire(kind::ADD_MASK_TO_GROUP, 0, 0, 0, 0),
            PlayerOrderError::GroupSpan(0),
        ),
        // Unused fields, unknown flags.
        (
            wire(kind::SET_GROUP, 0, 0, 2, 1),
            PlayerOrderError::Malformed,
        ),
        (
            wire(kind::GROUP_MOVE, 0, 8, 0, 0),
            PlayerOrderError::Malformed,
        ),
        (
            wire(kind::NAVIGATE_TO, 1, 0, 0, 0),
            PlayerOrderError::Malformed,
        ),
        (
            wire(kind::SET_ORDER_SPEED, 0, 0, 5, 7),
            PlayerOrderError::Malformed,
        ),
        // Out of the domain: a speed over 1,000, a negative one but −1, a far goal.
        (
            wire(kind::SET_ORDER_SPEED, 0, 0, 1000 * 1024 + 1, 0),
            PlayerOrderError::OutOfDomain,
        ),
        (
            wire(kind::SET_ORDER_SPEED, 0, 0, -2, 0),
            PlayerOrderError::OutOfDomain,
        ),
        (
            wire(kind::NAVIGATE_TO, 0, 0, i32::MAX, 0),
            PlayerOrderError::OutOfDomain,
        ),
        (
            wire(kind::GROUP_MOVE, 1, 3, 0, i32::MIN),
            PlayerOrderError::OutOfDomain,
        ),
        // State: another player's unit, a unit without an order, a group that does not exist.
        (
            wire(kind::NAVIGATE_TO, 0, 1, 0, 0),
            PlayerOrderError::NotOwner(AgentId(1)),
        ),
        (
            wire(kind::SET_ORDER_SPEED, 0, 3, 1024, 0),
            PlayerOrderError::NotOwner(AgentId(3)),
        ),
        (
            wire(kind::SET_ORDER_SPEED, 0, 2, 1024, 0),
            PlayerOrderError::NoOrder(AgentId(2)),
        ),
        (
            wire(kind::GROUP_MOVE, 5, 0, 1024, 1024),
            PlayerOrderError::EmptyGroup(5),
        ),
    ];
    for chunk in cases.chunks(4) {
        let mut slots = [WireOrder::default(); 4];
        for (slot, (w, _)) in slots.iter_mut().zip(chunk) {
            *slot = *w;
        }
        let (before, twin) = (a.rejected_orders(), b.checksum());
        a.advance(&[raw(slots), idle()]).unwrap();
        b.advance(&[idle(), idle()]).unwrap();
        let got: Vec<_> = a
            .last_rejections()
            .iter()
            .map(|r| (r.player, r.slot, r.error.clone()))
            .collect();
        let want: Vec<_> = (chunk.iter().enumerate())
            .map(|(slot, (_, e))| (0, slot, e.clone()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(a.rejected_orders(), before + chunk.len() as u64);
        assert_ne!(a.checksum(), twin, "the rejection count is in the checksum");
        assert_eq!(a.simulator().state_hash(), b.simulator().state_hash());
        for e in &want {
            assert!(!e.2.to_string().is_empty());
        }
    }
    assert_eq!(a.skipped_group_members(), 0);
    // Encoding refuses what decoding would: a bad group, a span, a speed out of range.
    let set = PlayerOrder::SetGroup {
        group: GROUPS_PER_PLAYER,
        first: AgentId(0),
        count: 1,
    };
    assert_eq!(
        set.encode(),
        Err(PlayerOrderError::BadGroup(GROUPS_PER_PLAYER))
    );
    let add = PlayerOrder::AddToGroup {
        group: 0,
        first: AgentId(0),
        count: MAX_GROUP_SPAN + 1,
    };
    assert_eq!(
        add.encode(),
        Err(PlayerOrderError::GroupSpan(MAX_GROUP_SPAN + 1))
    );
    let fast = PlayerOrder::SetOrderSpeed {
        unit: AgentId(0),
        speed: Some(Fx::from_num(1001)),
    };
    assert_eq!(fast.encode(), Err(PlayerOrderError::OutOfDomain));
    assert_eq!(sim_group(0, GROUPS_PER_PLAYER), None);
    assert_eq!(sim_group(63, 63), Some(4095));
    assert_eq!(sim_group(64, 0), None);
}

/// A game's own rules with its own input, naming units by id: `Turn::select` and
/// `Turn::group_move` (the same checks as the wire's group orders), on a scene under
/// `from_scenario_with_rules`, in a SyncTest at check distance 7.
#[derive(Clone, Debug, Default)]
struct Picker {
    moves: u32,
}

impl GameRules for Picker {
    /// Ids to select into group 1 (`id + 1`; 0 for none), and 1 to move the group.
    type Input = ([u32; 4], u8);

    fn step(&mut self, turn: &mut Turn<'_>, inputs: &[(([u32; 4], u8), InputStatus)]) {
        for (player, ((ids, go), _)) in inputs.iter().enumerate() {
            let ids: Vec<AgentId> = (ids.iter().filter_map(|&i| i.checked_sub(1)))
                .map(AgentId)
                .collect();
            if !ids.is_empty()
                && let Err(e) = turn.select(player, 1, &ids, false)
            {
                turn.reject(player, 0, e);
            }
            if *go == 1 {
                match turn.group_move(player, 1, Vec2::from_int(0, -8), false, false) {
                    Ok(()) => self.moves += 1,
                    Err(e) => turn.reject(player, 1, e),
                }
            }
        }
    }

    fn write_state(&self, out: &mut StateWriter<'_>) {
        out.u32(self.moves);
    }
}

#[test]
fn a_games_own_input_selects_and_moves_through_the_turn_on_a_scene() {
    let path = std::path::Path::new(super::ROOT).join("fixtures/navigation/rooms_one_route.toml");
    let scenario = lockstep_orca::scenario::Scenario::load(path).unwrap();
    let mut game = NetGame::from_scenario_with_rules(&scenario, 2, Picker::default()).unwrap();
    let mut session = SessionBuilder::<NetConfig<Picker>>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(7)
        .start_synctest_session()
        .unwrap();
    for frame in 0..30 {
        // Player 0 names its units 0 and 2 (2 twice) and player 1's unit 1: skipped, counted.
        let p0 = match frame {
            3 => ([1, 2, 3, 3], 0),
            4 => ([0; 4], 1),
            _ => Default::default(),
        };
        // Player 1 moves a group it never selected: `EmptyGroup`.
        let p1 = if frame == 4 {
            ([0; 4], 1)
        } else {
            Default::default()
        };
        session.add_local_input(0, p0).unwrap();
        session.add_local_input(1, p1).unwrap();
        game.handle_requests(session.advance_frame().unwrap())
            .unwrap();
    }
    let goal = Vec2::from_int(0, -8);
    assert_eq!(game.rules().moves, 1);
    assert_eq!(game.skipped_group_members(), 1);
    assert_eq!(game.rejected_orders(), 1);
    assert_eq!(goal_of(&game, AgentId(0)), Some(goal));
    assert_eq!(goal_of(&game, AgentId(2)), Some(goal));
    // Unit 4 (player 0's, not selected) keeps the scene's goal.
    assert_eq!(goal_of(&game, AgentId(4)), Some(Vec2::from_int(15, 1)));
}

/// A queued navigated group move replaces the path of a member that does not navigate (its
/// order becomes the navigation order), so the adapter does not count it as appended: a unit
/// whose plain path is full (1 + `MAX_WAYPOINTS` points) is not refused as `QueueFull`, and
/// the same queued move without `navigate` (a waypoint appended) still is.
#[test]
fn a_queued_navigated_group_move_replaces_a_full_plain_path() {
    let mut game = army(2, 1);
    let u = AgentId(0);
    game.advance(&[confirmed(&[
        PlayerOrder::SetGroup {
            group: 0,
            first: u,
            count: 1,
        },
        PlayerOrder::MoveTo {
            unit: u,
            goal: Vec2::from_int(-50, 0),
        },
    ])])
    .unwrap();
    let mut n = 1;
    while n < MAX_WAYPOINTS + 1 {
        let k = (MAX_WAYPOINTS + 1 - n).min(4);
        let orders: Vec<_> = (0..k)
            .map(|i| PlayerOrder::QueueMove {
                unit: u,
                goal: Vec2::from_int(-50, ((n + i) % 20) as i32),
            })
            .collect();
        game.advance(&[confirmed(&orders)]).unwrap();
        n += k;
    }
    assert!(game.last_rejections().is_empty());
    let path = |g: &NetGame| g.simulator().agent_order(u).unwrap().unwrap().path().len();
    assert_eq!(path(&game), MAX_WAYPOINTS + 1);
    let go = |navigate| PlayerOrder::GroupMove {
        group: 0,
        goal: Vec2::from_int(30, 0),
        queue: true,
        slowest: false,
        navigate,
    };
    game.advance(&[confirmed(&[go(false)])]).unwrap();
    assert!(matches!(
        game.last_rejections().first().map(|r| r.error.clone()),
        Some(PlayerOrderError::QueueFull(id)) if id == u
    ));
    game.advance(&[confirmed(&[go(true)])]).unwrap();
    assert!(
        game.last_rejections().is_empty(),
        "{:?}",
        game.last_rejections()
    );
    assert_eq!(path(&game), 1);
    assert_eq!(
        game.simulator().nav_status(u).unwrap().unwrap().goal(),
        Vec2::from_int(30, 0)
    );
}
