//! [`GroupOrders`], rules for an RTS: the core crate's four wire order slots plus one group
//! order a frame ([`GroupWire`]): box-select the sender's units into a control group, and move
//! a control group, in straight lines ([`Command::GroupMove`]) or by planned paths around the
//! buildings ([`FLAG_NAVIGATE`]: one [`Command::GroupNavigate`], a [`Command::NavigateTo`] per
//! member). One input moves any
//! number of units in the frame it arrives.
//!
//! The groups are the core's ([`Turn::select`], [`Turn::group_move`], [`Turn::group_navigate`]): player `p`'s group `g`
//! is the simulator's group [`sim_group`](lockstep_orca::netcode::sim_group)`(p, g)`, the same one the core's slot orders name,
//! and holds only `p`'s units.
//!
//! Everything on the wire is integers (points in 1/1024 units, [`COORD_SHIFT`]), and every
//! byte string decodes: a group order that does not fit is skipped through [`Turn::reject`]
//! (slot [`GROUP_SLOT`]), identically on every peer.

use bevy_ggrs::ggrs::InputStatus;
#[cfg(doc)]
use lockstep_orca::Command;
use lockstep_orca::domain::MAX_COORD;
use lockstep_orca::netcode::{
    COORD_SHIFT, GameRules, MAX_ORDERS, Orders, PlayerOrderError, StateWriter, Turn, WireOrder,
};
use lockstep_orca::{AgentId, Fx, Vec2};
use serde::{Deserialize, Serialize};

/// Control groups per player on [`GroupWire`] (0–9, as on a keyboard). Player `p`'s group `g`
/// is the simulator's group [`sim_group`](lockstep_orca::netcode::sim_group)`(p, g)` (the core's numbering, 64 a player).
pub const GROUPS_PER_PLAYER: u32 = 10;
/// The slot index a refused group order is listed with ([`lockstep_orca::netcode::Rejection`]).
pub const GROUP_SLOT: usize = MAX_ORDERS;

/// Group order kinds ([`GroupWire::kind`]).
pub mod group_kind {
    /// No group order.
    pub const NONE: u8 = 0;
    /// The sender's units inside the rectangle become the group (positions at the frame's
    /// start; an empty selection empties the group).
    pub const SELECT: u8 = 1;
    /// The group moves to the goal.
    pub const MOVE: u8 = 2;
    /// Both, in that order.
    pub const SELECT_AND_MOVE: u8 = 3;
}

/// [`GroupWire::flags`]: append the goal to the members' paths instead of replacing them.
pub const FLAG_QUEUE: u8 = 1;
/// [`GroupWire::flags`]: move at the slowest member's speed.
pub const FLAG_SLOWEST: u8 = 2;
/// [`GroupWire::flags`]: by planned paths around the buildings: one
/// [`Command::GroupNavigate`] gives each member of the group a [`Command::NavigateTo`] (a
/// straight move when the simulator has no navigation), in ascending id. Not with
/// [`FLAG_QUEUE`] (a planned move replaces the path). With [`FLAG_SLOWEST`], every member at
/// the slowest member's speed.
pub const FLAG_NAVIGATE: u8 = 4;
/// Every flag [`GroupWire::flags`] may hold.
const FLAGS: u8 = FLAG_QUEUE | FLAG_SLOWEST | FLAG_NAVIGATE;

/// One group order on the wire: 27 bytes with bincode 1. The constructors give straight moves;
/// [`navigate`](Self::navigate) turns a move into planned paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GroupWire {
    /// [`group_kind`].
    pub kind: u8,
    /// The sender's control group, below [`GROUPS_PER_PLAYER`].
    pub group: u8,
    /// [`FLAG_QUEUE`], [`FLAG_SLOWEST`].
    pub flags: u8,
    /// Selection rectangle: min x, min y, max x, max y (1/1024 units).
    pub rect: [i32; 4],
    /// Goal x, y (1/1024 units).
    pub goal: [i32; 2],
}

/// Why a point cannot go on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfDomain;

impl std::fmt::Display for OutOfDomain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("point outside the coordinate domain")
    }
}

impl std::error::Error for OutOfDomain {}

/// A point as wire coordinates (rounded toward −∞ to 1/1024).
///
/// # Errors
/// [`OutOfDomain`] outside ±[`MAX_COORD`].
pub fn wire_point(p: Vec2) -> Result<[i32; 2], OutOfDomain> {
    let c = |v: Fx| {
        if v.abs() > MAX_COORD {
            return Err(OutOfDomain);
        }
        i32::try_from(v.to_bits() >> COORD_SHIFT).map_err(|_| OutOfDomain)
    };
    Ok([c(p.x)?, c(p.y)?])
}

fn point_of_wire([x, y]: [i32; 2]) -> Result<Vec2, PlayerOrderError> {
    let c = |v: i32| {
        let f = Fx::from_bits(i64::from(v) << COORD_SHIFT);
        if f.abs() > MAX_COORD {
            Err(PlayerOrderError::OutOfDomain)
        } else {
            Ok(f)
        }
    };
    Ok(Vec2::new(c(x)?, c(y)?))
}

impl GroupWire {
    /// Select the sender's units inside the rectangle with corners `a` and `b` into `group`,
    /// and move them to `goal`.
    ///
    /// # Errors
    /// [`OutOfDomain`] for a point outside the domain.
    pub fn select_and_move(group: u8, a: Vec2, b: Vec2, goal: Vec2) -> Result<Self, OutOfDomain> {
        let (a, b) = (wire_point(a)?, wire_point(b)?);
        Ok(Self {
            kind: group_kind::SELECT_AND_MOVE,
            group,
            flags: 0,
            rect: [
                a[0].min(b[0]),
                a[1].min(b[1]),
                a[0].max(b[0]),
                a[1].max(b[1]),
            ],
            goal: wire_point(goal)?,
        })
    }

    /// Select the sender's units inside the rectangle with corners `a` and `b` into `group`.
    ///
    /// # Errors
    /// [`OutOfDomain`] for a point outside the domain.
    pub fn select(group: u8, a: Vec2, b: Vec2) -> Result<Self, OutOfDomain> {
        let mut w = Self::select_and_move(group, a, b, Vec2::ZERO)?;
        w.kind = group_kind::SELECT;
        Ok(w)
    }

    /// Move `group` to `goal`.
    ///
    /// # Errors
    /// [`OutOfDomain`] for a point outside the domain.
    pub fn move_to(group: u8, goal: Vec2) -> Result<Self, OutOfDomain> {
        Ok(Self {
            kind: group_kind::MOVE,
            group,
            goal: wire_point(goal)?,
            ..Self::default()
        })
    }

    /// The same order with its move by planned paths ([`FLAG_NAVIGATE`]; the queue flag
    /// cleared, since a planned move replaces the path).
    #[must_use]
    pub fn navigate(mut self) -> Self {
        self.flags = (self.flags & !FLAG_QUEUE) | FLAG_NAVIGATE;
        self
    }
}

/// One player's input for one frame of [`GroupOrders`]: the core's order slots (move, queue,
/// stop, spawn, …; see the core's `docs/netcode.md`) and one group order. 83 bytes with
/// bincode 1, mostly zeros (ggrs run-length encodes them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OrcaInput {
    /// The core crate's order slots, applied in slot order after the group order.
    pub orders: [WireOrder; MAX_ORDERS],
    /// The frame's group order.
    pub group: GroupWire,
}

/// RTS rules: [`OrcaInput`]'s group order ([`GroupWire`]), then its order slots with the
/// core's default mapping ([`Orders::apply_slots`], with its catalogue). No state of its own
/// but the catalogue: the groups live in the simulator.
#[derive(Clone, Debug, Default)]
pub struct GroupOrders {
    /// The core's default rules (and their catalogue of unit and building types).
    pub orders: Orders,
}

impl GroupOrders {
    fn apply_group(turn: &mut Turn<'_>, player: usize, w: &GroupWire) {
        if let Err(e) = Self::try_group(turn, player, w) {
            turn.reject(player, GROUP_SLOT, e);
        }
    }

    /// The group order `w` of `player`, or why it is skipped. Checked whole before anything is
    /// queued, except that a selection stands when its move is refused (as two orders would).
    fn try_group(
        turn: &mut Turn<'_>,
        player: usize,
        w: &GroupWire,
    ) -> Result<(), PlayerOrderError> {
        if w.kind == group_kind::NONE {
            return if *w == GroupWire::default() {
                Ok(())
            } else {
                Err(PlayerOrderError::Malformed)
            };
        }
        if w.kind > group_kind::SELECT_AND_MOVE {
            return Err(PlayerOrderError::UnknownKind(w.kind));
        }
        let navigate = w.flags & FLAG_NAVIGATE != 0;
        let queue = w.flags & FLAG_QUEUE != 0;
        if u32::from(w.group) >= GROUPS_PER_PLAYER || w.flags & !FLAGS != 0 || (navigate && queue) {
            return Err(PlayerOrderError::Malformed);
        }
        let select = w.kind & group_kind::SELECT != 0;
        let moves = w.kind & group_kind::MOVE != 0;
        // Fields the kind does not use must be zero (so each meaning has one encoding).
        if (!select && w.rect != [0; 4]) || (!moves && (w.goal != [0, 0] || w.flags != 0)) {
            return Err(PlayerOrderError::Malformed);
        }
        let rect = if select {
            let lo = point_of_wire([w.rect[0], w.rect[1]])?;
            let hi = point_of_wire([w.rect[2], w.rect[3]])?;
            Some((lo, hi))
        } else {
            None
        };
        let goal = if moves {
            Some(point_of_wire(w.goal)?)
        } else {
            None
        };
        if let Some((lo, hi)) = rect {
            let sim = turn.sim();
            // The sender's units inside the rectangle, ascending id (the ownership map's
            // order).
            let inside: Vec<AgentId> = turn
                .units()
                .filter(|&(id, owner)| {
                    owner == player
                        && sim
                            .agent_position(id)
                            .is_ok_and(|p| p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y)
                })
                .map(|(id, _)| id)
                .collect();
            turn.select(player, w.group, &inside, false)?;
        }
        let Some(goal) = goal else {
            return Ok(());
        };
        let slowest = w.flags & FLAG_SLOWEST != 0;
        if navigate {
            turn.group_navigate(player, w.group, goal, false, slowest)
        } else {
            turn.group_move(player, w.group, goal, queue, slowest)
        }
    }
}

impl GameRules for GroupOrders {
    type Input = OrcaInput;

    fn step(&mut self, turn: &mut Turn<'_>, inputs: &[(OrcaInput, InputStatus)]) {
        for (player, (input, _)) in inputs.iter().enumerate() {
            Self::apply_group(turn, player, &input.group);
            self.orders.apply_slots(turn, player, &input.orders);
        }
    }

    fn write_state(&self, out: &mut StateWriter<'_>) {
        self.orders.write_state(out);
    }
}
