//! Formation moves on the default wire (kind 17): one wire order puts a group of 100 units
//! into a formation in its frame, foreign members are skipped and counted, every malformed
//! formation order is refused for its reason, and a SyncTest at check distance 7 passes with
//! a formation move on the wire.

use super::groups::{army, goal_of};
use super::{both, confirmed, idle};
use ggrs::{InputStatus, SessionBuilder};
use lockstep_orca::netcode::{
    FORMATION_SPACING_SHIFT, FormationShape, GameRules, NetConfig, NetGame, NetInput, PlayerOrder,
    PlayerOrderError, StateWriter, Turn, WireOrder, kind, sim_group,
};
use lockstep_orca::orders::formation::FormationKind;
use lockstep_orca::{AgentId, Fx, Simulator, SimulatorParams, Vec2};
use std::collections::BTreeSet;

fn select(group: u8, count: u32) -> PlayerOrder {
    PlayerOrder::SetGroup {
        group,
        first: AgentId(0),
        count,
    }
}

fn formation(group: u8, goal: Vec2) -> PlayerOrder {
    PlayerOrder::FormationMove {
        group,
        goal,
        formation: FormationKind::Box,
        facing: Some((0, 1)),
        spacing: Some(Fx::from_num(3)),
        slowest: false,
        together: false,
    }
}

/// Issue 27: one wire order (one 14-byte slot) sends a group of 100 units into a box in the
/// frame it is given: every member's goal is its own slot of the formation, the slots are
/// distinct and 3 apart on a 10 × 10 grid centred on the goal, facing +y. Two peers agree.
#[test]
fn one_wire_order_moves_a_group_of_100_units_into_a_formation_in_its_frame() {
    let goal = Vec2::from_int(200, 100);
    let go = formation(7, goal);
    let input = NetInput::from_orders(&[go]).unwrap();
    assert_eq!(input.orders[0].kind, kind::FORMATION_MOVE);
    assert_eq!(input.orders[1..], [WireOrder::default(); 3]);
    assert_eq!(input.orders[0].decode(), Ok(Some(go)));
    let (mut a, mut b) = (army(100, 1), army(100, 1));
    both(&mut a, &mut b, &[confirmed(&[select(7, 100)])]);
    both(&mut a, &mut b, &[confirmed(&[go])]);
    assert!(a.last_rejections().is_empty(), "{:?}", a.last_rejections());
    assert_eq!(a.last_commands().len(), 1, "{:?}", a.last_commands());
    let gid = sim_group(0, 7).unwrap();
    let f = a.simulator().formation(gid).expect("the formation is kept");
    assert_eq!(
        (f.kind, f.placed, f.goal),
        (FormationKind::Box, FormationKind::Box, goal)
    );
    assert_eq!(f.slots.len(), 100);
    let mut goals = BTreeSet::new();
    for i in 0..100 {
        let id = AgentId(i);
        let g = goal_of(&a, id).unwrap_or_else(|| panic!("unit {i} has no order"));
        assert_eq!(Some(g), f.slot(id), "unit {i}");
        goals.insert((g.x.to_bits(), g.y.to_bits()));
    }
    assert_eq!(goals.len(), 100, "every slot distinct");
    // A 10 × 10 box 3 apart: x and y each take 10 values, centred on the goal.
    let xs: BTreeSet<_> = f.slots.iter().map(|s| s.1.x.to_bits()).collect();
    let ys: BTreeSet<_> = f.slots.iter().map(|s| s.1.y.to_bits()).collect();
    assert_eq!((xs.len(), ys.len()), (10, 10));
    let (x0, x9) = (*xs.first().unwrap(), *xs.last().unwrap());
    assert_eq!(x9 - x0, Fx::from_num(27).to_bits());
    assert_eq!(x0 + x9, 2 * goal.x.to_bits());
    assert_eq!((a.rejected_orders(), a.skipped_group_members()), (0, 0));
    assert_eq!(a.checksum(), b.checksum());
}

/// Interleaved owners: player 0's group holds its own units only; a unit given to player 1
/// after the selection is dropped from the group when it is sent into formation, counted as
/// skipped, and keeps no order; the formation has a slot for each remaining member.
#[test]
fn a_foreign_member_is_skipped_and_counted() {
    let (mut a, mut b) = (army(40, 2), army(40, 2));
    both(&mut a, &mut b, &[confirmed(&[select(0, 40)]), idle()]);
    assert_eq!(a.skipped_group_members(), 20);
    for g in [&mut a, &mut b] {
        g.assign(AgentId(2), 1).unwrap();
    }
    let goal = Vec2::from_int(-50, 20);
    let go = PlayerOrder::FormationMove {
        group: 0,
        goal,
        formation: FormationKind::Line,
        facing: None,
        spacing: None,
        slowest: true,
        together: false,
    };
    both(&mut a, &mut b, &[confirmed(&[go]), idle()]);
    assert!(a.last_rejections().is_empty(), "{:?}", a.last_rejections());
    assert_eq!(a.skipped_group_members(), 21);
    assert_eq!(goal_of(&a, AgentId(2)), None);
    let gid = sim_group(0, 0).unwrap();
    assert!(!a.simulator().group(gid).unwrap().contains(&AgentId(2)));
    let f = a.simulator().formation(gid).unwrap();
    let ids: Vec<_> = f.slots.iter().map(|s| s.0).collect();
    let want: Vec<_> = (0..40)
        .step_by(2)
        .filter(|&i| i != 2)
        .map(AgentId)
        .collect();
    assert_eq!(ids, want);
    for &id in &ids {
        assert_eq!(goal_of(&a, id), f.slot(id));
    }
    // Player 1's units are untouched.
    assert!(
        (1..40)
            .step_by(2)
            .all(|i| goal_of(&a, AgentId(i)).is_none())
    );
    assert_eq!(a.checksum(), b.checksum());
}

/// Every refusal of kind 17 on the wire, by slot and reason, the same on every peer (only the
/// rejection count moves), and the encoder refuses what the decoder would.
#[test]
fn bad_formation_orders_are_refused_for_their_reason() {
    let (mut a, mut b) = (army(6, 1), army(6, 1));
    both(&mut a, &mut b, &[confirmed(&[select(2, 6)])]);
    let wire = |arg, unit, x, y| WireOrder {
        kind: kind::FORMATION_MOVE,
        arg,
        unit,
        x,
        y,
    };
    let cases = [
        // Formation bits 5, 7: no such kind.
        (wire(2, 5, 0, 0), PlayerOrderError::UnknownFormation(5)),
        (wire(2, 7 | 8, 0, 0), PlayerOrderError::UnknownFormation(7)),
        // Spacing 64,001 / 64 is past 1,000.
        (
            wire(2, 64_001 << 16, 0, 0),
            PlayerOrderError::BadSpacing(64_001),
        ),
        (wire(64, 0, 0, 0), PlayerOrderError::BadGroup(64)),
        (wire(2, 2, i32::MAX, 0), PlayerOrderError::OutOfDomain),
        (wire(3, 2, 0, 0), PlayerOrderError::EmptyGroup(3)),
    ];
    for chunk in cases.chunks(4) {
        let mut slots = [WireOrder::default(); 4];
        for (slot, (w, _)) in slots.iter_mut().zip(chunk) {
            *slot = *w;
        }
        let input = NetInput {
            orders: slots,
            ..NetInput::default()
        };
        let before = a.rejected_orders();
        a.advance(&[(input, InputStatus::Confirmed)]).unwrap();
        b.advance(&[idle()]).unwrap();
        let got: Vec<_> = (a.last_rejections().iter())
            .map(|r| (r.slot, r.error.clone()))
            .collect();
        let want: Vec<_> = (chunk.iter().enumerate())
            .map(|(slot, (_, e))| (slot, e.clone()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(a.rejected_orders(), before + chunk.len() as u64);
        assert_eq!(a.simulator().state_hash(), b.simulator().state_hash());
        assert!(want.iter().all(|(_, e)| !e.to_string().is_empty()));
    }
    assert!((0..6).all(|i| goal_of(&a, AgentId(i)).is_none()));
    // The encoder: a zero or out-of-range facing, a spacing that rounds to nothing or passes
    // 1,000, a bad group.
    let with = |facing, spacing| PlayerOrder::FormationMove {
        group: 0,
        goal: Vec2::ZERO,
        formation: FormationKind::Column,
        facing,
        spacing,
        slowest: false,
        together: false,
    };
    assert_eq!(
        with(Some((0, 0)), None).encode(),
        Err(PlayerOrderError::BadFacing)
    );
    assert_eq!(
        with(Some((32, 1)), None).encode(),
        Err(PlayerOrderError::BadFacing)
    );
    assert_eq!(
        with(Some((1, -33)), None).encode(),
        Err(PlayerOrderError::BadFacing)
    );
    assert_eq!(
        with(None, Some(Fx::lit("0.01"))).encode(),
        Err(PlayerOrderError::BadSpacing(0))
    );
    assert_eq!(
        with(None, Some(Fx::lit("1000.02"))).encode(),
        Err(PlayerOrderError::BadSpacing(64_001))
    );
    assert_eq!(
        with(None, Some(-Fx::ONE)).encode(),
        Err(PlayerOrderError::BadSpacing(0))
    );
    assert_eq!(
        formation(64, Vec2::ZERO).encode(),
        Err(PlayerOrderError::BadGroup(64))
    );
    // The finest spacing on the wire is 1/64, on the simulator's range.
    let fine = with(None, Some(Fx::from_bits(1 << FORMATION_SPACING_SHIFT)));
    assert_eq!(fine.encode().unwrap().decode(), Ok(Some(fine)));
}

/// A SyncTest at check distance 7 over 160 frames: the group is selected on frame 2, sent
/// into a column facing −x on frame 5 and into a spread on frame 80; every rollback resimulates
/// the formation moves bit-identically (ggrs compares the checksums), and at the end every
/// member holds its slot of the spread.
#[test]
fn a_synctest_passes_with_a_formation_move_on_the_wire() {
    let mut game = army(60, 1);
    let mut session = SessionBuilder::<NetConfig>::new()
        .with_num_players(1)
        .unwrap()
        .with_check_distance(7)
        .start_synctest_session()
        .unwrap();
    let column = PlayerOrder::FormationMove {
        group: 4,
        goal: Vec2::from_int(-30, 10),
        formation: FormationKind::Column,
        facing: Some((-1, 0)),
        spacing: Some(Fx::lit("2.5")),
        slowest: true,
        together: false,
    };
    let spread = PlayerOrder::FormationMove {
        group: 4,
        goal: Vec2::from_int(-10, -20),
        formation: FormationKind::Spread,
        facing: None,
        spacing: None,
        slowest: false,
        together: false,
    };
    for frame in 0..160 {
        let input = match frame {
            2 => NetInput::from_orders(&[select(4, 60)]).unwrap(),
            5 => NetInput::from_orders(&[column]).unwrap(),
            80 => NetInput::from_orders(&[spread]).unwrap(),
            _ => NetInput::default(),
        };
        session.add_local_input(0, input).unwrap();
        game.handle_requests(session.advance_frame().unwrap())
            .unwrap();
        if frame == 5 {
            let f = game
                .simulator()
                .formation(sim_group(0, 4).unwrap())
                .unwrap();
            assert_eq!(f.placed, FormationKind::Column);
        }
    }
    assert_eq!(game.frame(), 160);
    assert_eq!(game.rejected_orders(), 0);
    let f = game
        .simulator()
        .formation(sim_group(0, 4).unwrap())
        .unwrap();
    assert_eq!((f.placed, f.slots.len()), (FormationKind::Spread, 60));
    assert!((0..60).all(|i| goal_of(&game, AgentId(i)) == f.slot(AgentId(i))));
}

/// A game's own rules with its own input: `Turn::formation_move` takes any facing and spacing
/// the simulator accepts (off the wire's grids), and refuses a zero facing, a spacing out of
/// range and an empty group for their reasons, queueing nothing then.
#[derive(Clone, Debug, Default)]
struct Shaper {
    results: Vec<Result<(), PlayerOrderError>>,
}

impl GameRules for Shaper {
    /// 1: select units 0..8 into group 2; 2: four formation moves of group 2 (one good, three
    /// refused); 3: one of group 9 (empty).
    type Input = u8;

    fn step(&mut self, turn: &mut Turn<'_>, inputs: &[(u8, InputStatus)]) {
        let shape = |facing, spacing| FormationShape {
            formation: FormationKind::Line,
            facing,
            spacing,
            slowest: false,
            together: false,
        };
        let goal = Vec2::from_int(-40, 30);
        let ids: Vec<_> = (0..8).map(AgentId).collect();
        match inputs[0].0 {
            1 => self.results.push(turn.select(0, 2, &ids, false)),
            2 => {
                let tilted = Vec2::new(Fx::lit("3.7"), Fx::lit("-1.2"));
                for s in [
                    shape(Some(Vec2::ZERO), None),
                    shape(None, Some(Fx::lit("0.001"))),
                    shape(None, Some(Fx::from_num(1001))),
                    shape(Some(tilted), Some(Fx::lit("2.3"))),
                ] {
                    self.results.push(turn.formation_move(0, 2, goal, s));
                }
            }
            3 => (self.results).push(turn.formation_move(0, 9, goal, FormationShape::default())),
            _ => {}
        }
    }

    fn write_state(&self, out: &mut StateWriter<'_>) {
        out.u32(self.results.len() as u32);
    }
}

#[test]
fn a_games_own_input_sends_a_formation_through_the_turn() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for i in 0..8 {
        sim.add_agent(Vec2::from_int(i * 4, 0)).unwrap();
    }
    let mut game = NetGame::with_rules(sim, 1, Shaper::default()).unwrap();
    for i in 0..8 {
        game.assign(AgentId(i), 0).unwrap();
    }
    for input in [1, 2, 3] {
        game.advance(&[(input, InputStatus::Confirmed)]).unwrap();
    }
    assert_eq!(
        game.rules().results,
        [
            Ok(()),
            Err(PlayerOrderError::BadFacing),
            Err(PlayerOrderError::BadSpacing(0)),
            Err(PlayerOrderError::BadSpacing(64_064)),
            Ok(()),
            Err(PlayerOrderError::EmptyGroup(9)),
        ]
    );
    let f = game
        .simulator()
        .formation(sim_group(0, 2).unwrap())
        .unwrap();
    assert_eq!(f.slots.len(), 8);
    // The facing the simulator placed is the tilted one, normalised: off the wire's grid.
    assert!(f.facing.x > Fx::lit("0.9") && f.facing.y < Fx::lit("-0.3"));
    let xs: Vec<_> = f.slots.iter().map(|s| s.1).collect();
    assert!((0..8).all(|i| goal_of(&game, AgentId(i)) == Some(xs[i as usize])));
}
