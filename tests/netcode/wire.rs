//! The wire format (`lockstep_orca::netcode`'s `wire` module): the size against bincode 1, the
//! exact bytes of every order kind, and the grid rounding.

use lockstep_orca::netcode::{INPUT_WIRE_BYTES, NetInput, PlayerOrder};
use lockstep_orca::{AgentId, Fx, Vec2};

#[test]
fn the_input_is_68_bytes_on_the_wire() {
    let order = PlayerOrder::MoveTo {
        unit: AgentId(7),
        goal: Vec2::from_int(-3, 1000),
    };
    let input = NetInput::from_orders(&[order, PlayerOrder::Stop { unit: AgentId(2) }])
        .unwrap()
        .with_hash(120, 0x0123_4567_89ab_cdef_0011_2233_4455_6677);
    let wire = bincode1::serialize(&input).unwrap();
    assert_eq!(wire.len(), INPUT_WIRE_BYTES);
    assert_eq!(INPUT_WIRE_BYTES, 68);
    assert_eq!(wire, input.to_bytes());
    assert_eq!(bincode1::deserialize::<NetInput>(&wire).unwrap(), input);
    assert_eq!(input.reported_hash(), Some((120, 0x0011_2233_4455_6677)));
    assert_eq!(input.orders[0].decode().unwrap(), Some(order));
    assert_eq!(NetInput::default().reported_hash(), None);
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every order kind's bytes, pinned: a change here is a new wire format, which peers of the
/// old one cannot talk to.
#[test]
fn every_order_kind_has_its_pinned_bytes() {
    // Off the 1/1024 grid and negative: rounded toward −∞.
    let off_grid = Vec2::from_bits(-(3 << 32) - 1, (1000 << 32) + 5);
    let first = NetInput::from_orders(&[
        PlayerOrder::MoveTo {
            unit: AgentId(7),
            goal: off_grid,
        },
        PlayerOrder::QueueMove {
            unit: AgentId(0x0102_0304),
            goal: Vec2::from_int(-1_000_000, 1_000_000),
        },
        PlayerOrder::Stop { unit: AgentId(2) },
        PlayerOrder::Spawn {
            position: Vec2::new(Fx::lit("0.5"), Fx::lit("-0.25")),
        },
    ])
    .unwrap()
    .with_hash(120, 0x0123_4567_89ab_cdef_0011_2233_4455_6677);
    let second = NetInput::from_orders(&[
        PlayerOrder::Remove { unit: AgentId(9) },
        PlayerOrder::SetPriority {
            unit: AgentId(u32::MAX),
            priority: 200,
        },
    ])
    .unwrap();
    // Per slot: kind, arg, unit (u32), x, y (i32), little-endian; then hash tag and hash.
    let first_bytes = [
        "01 00 07000000 fff3ffff 00a00f00", // MoveTo 7 to (-3073, 1024000) / 1024
        "02 00 04030201 0000f7c2 0000093d", // QueueMove to (-1e6, 1e6)
        "03 00 02000000 00000000 00000000", // Stop 2
        "04 00 00000000 00020000 00ffffff", // Spawn at (512, -256) / 1024
        "79000000 7766554433221100",        // frame 120, the checksum's low 64 bits
    ];
    let second_bytes = [
        "05 00 09000000 00000000 00000000", // Remove 9
        "06 c8 ffffffff 00000000 00000000", // SetPriority u32::MAX 200
        "00 00 00000000 00000000 00000000", // empty
        "00 00 00000000 00000000 00000000", // empty
        "00000000 0000000000000000",        // no hash
    ];
    let third = NetInput::from_orders(&[
        PlayerOrder::SpawnType {
            position: Vec2::from_int(2, -1),
            unit_type: 3,
        },
        PlayerOrder::SetModel {
            unit: AgentId(5),
            unit_type: 1,
        },
        PlayerOrder::PlaceBuilding {
            position: Vec2::from_int(-4, 8),
            building: 2,
        },
        PlayerOrder::RemoveBuilding {
            building: lockstep_orca::ObstacleId(0x0a0b),
        },
    ])
    .unwrap();
    let third_bytes = [
        "07 03 00000000 00080000 00fcffff", // SpawnType 3 at (2, -1)
        "08 01 05000000 00000000 00000000", // SetModel of unit 5 to type 1
        "09 02 00000000 00f0ffff 00200000", // PlaceBuilding 2 at (-4, 8)
        "0a 00 0b0a0000 00000000 00000000", // RemoveBuilding 0x0a0b
        "00000000 0000000000000000",        // no hash
    ];
    for (input, expected) in [
        (first, first_bytes),
        (second, second_bytes),
        (third, third_bytes),
    ] {
        assert_eq!(hex(&input.to_bytes()), expected.concat().replace(' ', ""));
        assert_eq!(NetInput::from_bytes(&input.to_bytes()).unwrap(), input);
    }
    // The decoded point is the grid point below the sent one.
    let decoded = first.orders[0].decode().unwrap();
    assert_eq!(
        decoded,
        Some(PlayerOrder::MoveTo {
            unit: AgentId(7),
            goal: Vec2::from_bits(-(3073 << 22), 1000 << 32),
        })
    );
    // Every catalogue order decodes back to itself.
    for wire in third.orders {
        assert_eq!(wire.decode().unwrap().unwrap().encode(), Ok(wire));
    }
}

/// The navigation, order-speed and group kinds (11–16), pinned like the others; kinds 0–10
/// above are unchanged by them.
#[test]
fn the_group_navigate_and_speed_kinds_have_their_pinned_bytes() {
    let fourth = NetInput::from_orders(&[
        PlayerOrder::NavigateTo {
            unit: AgentId(7),
            goal: Vec2::from_int(3, -2),
        },
        PlayerOrder::SetOrderSpeed {
            unit: AgentId(5),
            speed: Some(Fx::lit("1.5")),
        },
        PlayerOrder::SetOrderSpeed {
            unit: AgentId(5),
            speed: None,
        },
        PlayerOrder::SetGroup {
            group: 3,
            first: AgentId(0x100),
            count: 1000,
        },
    ])
    .unwrap();
    let fourth_bytes = [
        "0b 00 07000000 000c0000 00f8ffff", // NavigateTo 7 to (3, -2)
        "0c 00 05000000 00060000 00000000", // SetOrderSpeed 5: 1.5 (1536 / 1024)
        "0c 00 05000000 ffffffff 00000000", // SetOrderSpeed 5: none (-1)
        "0d 03 00010000 e8030000 00000000", // SetGroup 3: ids 256 .. 256 + 1000
        "00000000 0000000000000000",        // no hash
    ];
    let fifth = NetInput::from_orders(&[
        PlayerOrder::AddToGroup {
            group: 63,
            first: AgentId(2000),
            count: 4096,
        },
        PlayerOrder::AddMaskToGroup {
            group: 1,
            first: AgentId(64),
            mask: 0x8000_0001_0000_0005,
        },
        PlayerOrder::GroupMove {
            group: 2,
            goal: Vec2::from_int(-1, 4),
            queue: true,
            slowest: true,
            navigate: false,
        },
        PlayerOrder::GroupMove {
            group: 0,
            goal: Vec2::ZERO,
            queue: false,
            slowest: true,
            navigate: true,
        },
    ])
    .unwrap();
    let fifth_bytes = [
        "0e 3f d0070000 00100000 00000000", // AddToGroup 63: ids 2000 .. 2000 + 4096
        "0f 01 40000000 05000000 01000080", // AddMaskToGroup 1: ids 64 + {0, 2, 32, 63}
        "10 02 03000000 00fcffff 00100000", // GroupMove 2 to (-1, 4), queued, slowest
        "10 00 06000000 00000000 00000000", // GroupMove 0 to (0, 0), slowest, navigated
        "00000000 0000000000000000",        // no hash
    ];
    for (input, expected) in [(fourth, fourth_bytes), (fifth, fifth_bytes)] {
        assert_eq!(hex(&input.to_bytes()), expected.concat().replace(' ', ""));
        assert_eq!(NetInput::from_bytes(&input.to_bytes()).unwrap(), input);
        // Every new order decodes back to itself (the points and the speed are on the grid).
        for wire in input.orders {
            assert_eq!(wire.decode().unwrap().unwrap().encode(), Ok(wire));
        }
    }
    assert_eq!(lockstep_orca::netcode::kind::FORMATION_MOVE, 17);
}

/// The formation move (kind 17), pinned: everything but the group and the goal is packed in
/// the `unit` field (formation bits 0–2, slowest bit 3, facing bits 4–15, spacing 16–31 in
/// 1/64 units); kinds 0–16 above are unchanged by it.
#[test]
fn the_formation_move_kind_has_its_pinned_bytes() {
    use lockstep_orca::orders::formation::FormationKind;
    let sixth = NetInput::from_orders(&[
        PlayerOrder::FormationMove {
            group: 5,
            goal: Vec2::from_int(2, -3),
            formation: FormationKind::Line,
            facing: Some((1, -1)),
            spacing: Some(Fx::lit("2.5")),
            slowest: true,
            together: false,
        },
        PlayerOrder::FormationMove {
            group: 63,
            goal: Vec2::ZERO,
            formation: FormationKind::Spread,
            facing: Some((-32, 31)),
            spacing: Some(Fx::from_num(1000)),
            slowest: false,
            together: false,
        },
        PlayerOrder::FormationMove {
            group: 0,
            goal: Vec2::from_int(-1, 1),
            formation: FormationKind::Keep,
            facing: None,
            spacing: None,
            slowest: false,
            together: false,
        },
        PlayerOrder::FormationMove {
            group: 1,
            goal: Vec2::from_int(7, 0),
            formation: FormationKind::Box,
            facing: Some((0, 5)),
            spacing: Some(Fx::from_bits(1 << 26)),
            slowest: false,
            together: false,
        },
    ])
    .unwrap();
    let sixth_bytes = [
        "11 05 19fca000 00080000 00f4ffff", // group 5 to (2, -3): line, slowest, facing (1, -1), spacing 160/64
        "11 3f 047e00fa 00000000 00000000", // group 63 to (0, 0): spread, facing (-32, 31), spacing 64000/64
        "11 00 00000000 00fcffff 00040000", // group 0 to (-1, 1): keep, defaults
        "11 01 02140100 001c0000 00000000", // group 1 to (7, 0): box, facing (0, 5), spacing 1/64
        "00000000 0000000000000000",        // no hash
    ];
    assert_eq!(
        hex(&sixth.to_bytes()),
        sixth_bytes.concat().replace(' ', "")
    );
    assert_eq!(NetInput::from_bytes(&sixth.to_bytes()).unwrap(), sixth);
    for wire in sixth.orders {
        assert_eq!(wire.decode().unwrap().unwrap().encode(), Ok(wire));
    }
    assert_eq!(lockstep_orca::netcode::kind::LAST, 17);
}

/// A formation move with `together` (a `FormationMarch`) sets bit 7 of its slot's `arg` and
/// decodes back; a group index of 64 or more is still refused.
#[test]
fn a_formation_march_travels_in_bit_7_of_the_group() {
    use lockstep_orca::orders::formation::FormationKind;
    let order = PlayerOrder::FormationMove {
        group: 1,
        goal: Vec2::from_int(7, 0),
        formation: FormationKind::Box,
        facing: None,
        spacing: None,
        slowest: true,
        together: true,
    };
    let input = NetInput::from_orders(&[order]).unwrap();
    let bytes = input.to_bytes();
    assert_eq!(&hex(&bytes[..2]), "1181");
    assert_eq!(input.orders[0].decode().unwrap(), Some(order));
    let bad = PlayerOrder::FormationMove {
        group: 64,
        goal: Vec2::from_int(7, 0),
        formation: FormationKind::Box,
        facing: None,
        spacing: None,
        slowest: true,
        together: false,
    };
    assert!(NetInput::from_orders(&[bad]).is_err());
}
