//! The `ggrs_input` target's material (see [`crate::targets`]): a player's message of one
//! frame, the orders a fuzz tuple names (every wire kind), the decoding checks on the way, and
//! the two-player games it runs on.

use ggrs::InputStatus;
use lockstep_orca::netcode::{
    Catalogue, FORMATION_SPACING_SHIFT, INPUT_WIRE_BYTES, MAX_ORDERS, NetError, NetGame, NetInput,
    ORDER_WIRE_BYTES, Orders, PlayerOrder, PlayerOrderError, kind,
};
use lockstep_orca::orders::formation::FormationKind;
use lockstep_orca::scenario::Scenario;
use lockstep_orca::{
    AgentId, AgentModel, AgentParams, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2,
};

/// One player's message of one frame: `(mode, bytes, orders)`. Mode bit 0 set: the bytes, read
/// as the wire message ([`NetInput::from_bytes`]; a wrong length is refused, then the bytes are
/// padded or cut to [`INPUT_WIRE_BYTES`]); clear: the orders, built as [`PlayerOrder`]s and encoded
/// ([`NetInput::from_orders`]). Bit 1: the input is a prediction (its hash report is not
/// checked). Bit 2 (bytes): each slot's kind byte is taken modulo `kind::LAST + 2`, so that the
/// bytes name the order kinds (and one unknown kind) often.
pub(crate) type NetMessage = (u8, Vec<u8>, Vec<(u8, u8, i16, i16, u8)>);

/// An order from a fuzz tuple (kind, unit, x, y, arg): units 0..8 (the games have 4 or 5, and
/// spawn more), points within ±2048 on the wire grid, or up to ±8,388,608 (outside the domain)
/// when `arg`'s high bit is set. Every kind of the wire: the navigate order, order speeds, group
/// selections by range and mask (naming other players' units and absent ids), group moves and
/// formation moves (every layout; facings with components up to ±39, past the wire's
/// `−32 ..= 31`, and (0, 0); spacings on the 1/64 grid, zero, negative and past 1,000).
pub(crate) fn net_order(kind: u8, unit: u8, x: i16, y: i16, arg: u8) -> PlayerOrder {
    let unit = AgentId(u32::from(unit % 8));
    let shift = if arg & 0x80 == 0 { 28 } else { 40 };
    let point = Vec2::new(
        Fx::from_bits(i64::from(x) << shift),
        Fx::from_bits(i64::from(y) << shift),
    );
    let index = arg & 3; // catalogue indices 0..=3: 2 and 3 name nothing
    // Group indices 0..=3, or 64..=67 (past a player's groups) when bit 6 is set; range counts
    // 0..=15, or up to 65,535 (past `MAX_GROUP_SPAN`) when bit 5 is set.
    let group = index | (arg & 0x40);
    let count = if arg & 0x20 == 0 {
        u32::from(x as u16 & 15)
    } else {
        u32::from(x as u16)
    };
    match kind % 17 {
        0 => PlayerOrder::MoveTo { unit, goal: point },
        1 => PlayerOrder::QueueMove { unit, goal: point },
        2 => PlayerOrder::Stop { unit },
        3 => PlayerOrder::Spawn { position: point },
        4 => PlayerOrder::Remove { unit },
        5 => PlayerOrder::SetPriority {
            unit,
            priority: arg,
        },
        6 => PlayerOrder::SpawnType {
            position: point,
            unit_type: index,
        },
        7 => PlayerOrder::SetModel {
            unit,
            unit_type: index,
        },
        8 => PlayerOrder::PlaceBuilding {
            position: point,
            building: index,
        },
        9 => PlayerOrder::RemoveBuilding {
            building: lockstep_orca::ObstacleId(unit.0 % 4),
        },
        10 => PlayerOrder::NavigateTo { unit, goal: point },
        // On the wire grid (the round trip is exact); negative is out of the domain.
        11 => PlayerOrder::SetOrderSpeed {
            unit,
            speed: (arg & 1 == 0).then(|| Fx::from_bits(i64::from(x) << 22)),
        },
        12 => PlayerOrder::SetGroup {
            group,
            first: unit,
            count,
        },
        13 => PlayerOrder::AddToGroup {
            group,
            first: unit,
            count,
        },
        14 => PlayerOrder::AddMaskToGroup {
            group,
            first: unit,
            mask: u64::from(x as u16) | u64::from(y as u16) << 32,
        },
        15 => PlayerOrder::GroupMove {
            group,
            goal: point,
            queue: arg & 1 != 0,
            slowest: arg & 2 != 0,
            navigate: arg & 4 != 0,
        },
        _ => PlayerOrder::FormationMove {
            group,
            goal: point,
            formation: FormationKind::from_canonical_byte(y as u8 % 5).unwrap_or_default(),
            facing: (arg & 0x10 != 0).then_some(((x % 40) as i8, (y % 40) as i8)),
            spacing: (arg & 8 != 0).then(|| {
                let w = if arg & 0x20 == 0 {
                    i64::from(x)
                } else {
                    i64::from(x as u16)
                };
                Fx::from_bits(w << FORMATION_SPACING_SHIFT)
            }),
            slowest: arg & 2 != 0,
            together: arg & 0x40 != 0,
        },
    }
}

/// The input of one message, checking the decoding on the way: the wire form round-trips, a
/// slot that decodes re-encodes to itself, an encoding error is the documented one.
pub(crate) fn net_input(message: &NetMessage) -> (NetInput, InputStatus) {
    let (mode, bytes, orders) = message;
    let input = if mode & 1 != 0 {
        let mut bytes = bytes.clone();
        if bytes.len() != INPUT_WIRE_BYTES {
            assert_eq!(
                NetInput::from_bytes(&bytes),
                Err(NetError::BadInputLength(bytes.len()))
            );
            bytes.resize(INPUT_WIRE_BYTES, 0);
        }
        if mode & 4 != 0 {
            // Kinds that name an order (the new ones 11-17 included) or one past the last.
            for slot in 0..MAX_ORDERS {
                bytes[slot * ORDER_WIRE_BYTES] %= kind::LAST + 2;
            }
        }
        let input = NetInput::from_bytes(&bytes).expect("every 68-byte string is an input");
        assert_eq!(input.to_bytes()[..], bytes[..]);
        for wire in &input.orders {
            if let Ok(Some(order)) = wire.decode() {
                assert_eq!(order.encode(), Ok(*wire));
            }
        }
        input
    } else {
        let mut orders: Vec<PlayerOrder> = orders
            .iter()
            .map(|&(kind, unit, x, y, arg)| net_order(kind, unit, x, y, arg))
            .collect();
        if orders.len() > MAX_ORDERS {
            assert_eq!(
                NetInput::from_orders(&orders),
                Err(NetError::TooManyOrders(orders.len()))
            );
            orders.truncate(MAX_ORDERS);
        }
        match NetInput::from_orders(&orders) {
            Ok(input) => {
                // The points are on the wire grid already: every slot decodes to its order,
                // the rest are empty.
                for (k, wire) in input.orders.iter().enumerate() {
                    assert_eq!(wire.decode(), Ok(orders.get(k).copied()));
                }
                input
            }
            Err(NetError::Order(
                e @ (PlayerOrderError::OutOfDomain
                | PlayerOrderError::BadGroup(_)
                | PlayerOrderError::GroupSpan(_)
                | PlayerOrderError::BadFacing
                | PlayerOrderError::BadSpacing(_)),
            )) => {
                assert!(orders.iter().any(|o| o.encode() == Err(e.clone())));
                NetInput::default()
            }
            Err(e) => panic!("from_orders: {e}"),
        }
    };
    let status = if mode & 2 != 0 {
        InputStatus::Predicted
    } else {
        InputStatus::Confirmed
    };
    (input, status)
}

/// The scene of `ggrs_input`'s second game: four agents (owned alternately by the two
/// players), and events that add an agent (id 4) at tick 3, remove agent 1 at tick 2 and give
/// agent 4 a new goal at tick 5.
pub(crate) const NET_SCENE: &str = r#"
time_step = 0.25
max_ticks = 100

[[agent]]
start = [-6, 0]
goal = [6, 0]

[[agent]]
start = [6, 0]
goal = [-6, 0]

[[agent]]
start = [0, -6]
goal = [0, 6]

[[agent]]
start = [0, 6]
goal = [0, -6]

[[event]]
tick = 2
remove_agent = 1

[[event]]
tick = 3
add_agent = { start = [10, 10], goal = [-10, -10] }

[[event]]
tick = 5
set_goal = { id = 4, goal = [10, -10] }
"#;

/// The catalogue of `ggrs_input`'s open game: two unit types (a fast one, and a model with
/// layers), a 4 × 4 building and a 700-vertex wall (over the frame's vertex budget twice).
pub(crate) fn net_catalogue() -> Catalogue {
    let fast = AgentParams {
        max_speed: Fx::from_num(4),
        ..AgentParams::default()
    };
    let layered = AgentModel {
        layers: 2,
        mask: 3,
        ..AgentModel::default()
    };
    let square = (0..4)
        .map(|k| Vec2::from_int([0, 4, 4, 0][k], [0, 0, 4, 4][k]))
        .collect();
    Catalogue {
        unit_types: vec![
            (fast, AgentModel::default()),
            (AgentParams::default(), layered),
        ],
        buildings: vec![
            ObstacleShape::Polygon(square),
            ObstacleShape::Polyline((0..700).map(|k| Vec2::from_int(k, k % 2)).collect()),
        ],
    }
}

/// A two-player game: the scene (default rules, no catalogue), or four agents in the open (0
/// and 2 player 0's, 1 and 3 player 1's) with no driver and the catalogue.
pub(crate) fn net_game(scene: Option<&Scenario>) -> NetGame {
    let mut game = match scene {
        Some(s) => NetGame::from_scenario(s, 2).unwrap(),
        None => {
            let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
            let ids: Vec<_> = [(-6, 0), (6, 0), (0, -6), (0, 6)]
                .into_iter()
                .map(|(x, y)| sim.add_agent(Vec2::from_int(x, y)).unwrap())
                .collect();
            let mut game =
                NetGame::with_rules(sim, 2, Orders::with_catalogue(net_catalogue())).unwrap();
            for (i, id) in ids.into_iter().enumerate() {
                game.assign(id, i % 2).unwrap();
            }
            game
        }
    };
    game.set_hash_interval(2);
    game
}
