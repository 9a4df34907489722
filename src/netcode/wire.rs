//! The wire format: what peers send each other every frame, and how every peer judges it.
//!
//! ggrs serializes a [`NetInput`] with bincode 1: fields in declaration order, fixed-width
//! little-endian integers, no padding, no length prefixes, [`INPUT_WIRE_BYTES`] (68) bytes.
//! [`NetInput::to_bytes`] and [`NetInput::from_bytes`] are the same encoding written out.
//!
//! | bytes | field |
//! | --- | --- |
//! | 4 × 14 ([`MAX_ORDERS`] × [`ORDER_WIRE_BYTES`]) | the order slots ([`WireOrder`]), applied in slot order: kind (`u8`, one of [`kind`]), arg (`u8`), unit (`u32`, an [`AgentId`]), x, y (`i32`, the Q32.32 bits shifted right by [`COORD_SHIFT`]) |
//! | 4 | hash tag: `F + 1` when the next field is the sender's hash of frame `F`, 0 for none |
//! | 8 | hash: the low 64 bits of the sender's checksum of frame `F` |
//!
//! Every byte string of that length is a [`NetInput`] (it holds only integers); a slot is then
//! decoded into a [`PlayerOrder`] by [`WireOrder::decode`], which checks the form (kind, unused
//! fields zero, points inside the coordinate domain), and the adapter checks it against the
//! state of its frame ([`PlayerOrderError`] lists every reason, with the limits
//! [`MAX_WAYPOINTS`], [`MAX_UNITS_PER_PLAYER`], [`GROUPS_PER_PLAYER`] and [`MAX_GROUP_SPAN`]).
//!
//! # Compatibility
//! The peers of a session must agree on all of it: the layout, the kind numbers, the coordinate
//! grid and the validation rules. The input carries no version, so peers that differ in any of
//! it misread each other's orders or skip different ones, and desync. A change here is a new
//! wire format, made only in a release whose changelog says so, like a moved golden;
//! `tests/netcode/wire.rs` pins the bytes of every order kind.

use super::NetError;
use crate::agent::AgentId;
use crate::domain::checked_point;
use crate::error::SimError;
use crate::math::{Fx, Vec2};
use crate::obstacle::ObstacleId;
use crate::orders::formation::FormationKind;
pub use formation::FORMATION_SPACING_SHIFT;
pub(super) use formation::saturate_u16;
use formation::{pack_formation, unpack_formation};
use serde::{Deserialize, Serialize};
use std::fmt;

#[path = "wire_formation.rs"]
mod formation;

/// Orders one player can give in one frame (the slots of a [`NetInput`]).
pub const MAX_ORDERS: usize = 4;
/// Bytes of one [`WireOrder`] on the wire: kind (`u8`), arg (`u8`), unit (`u32`), x, y (`i32`).
pub const ORDER_WIRE_BYTES: usize = 14;
/// Bytes of one [`NetInput`] on the wire (ggrs serializes it with bincode 1, fixed-width
/// little-endian integers, no padding, no length prefixes): [`MAX_ORDERS`] orders, the hash tag
/// (`u32`) and the hash (`u64`). ggrs then delta- and run-length-encodes it against the last
/// acknowledged input, so empty slots cost almost nothing.
pub const INPUT_WIRE_BYTES: usize = MAX_ORDERS * ORDER_WIRE_BYTES + 4 + 8;
/// Waypoints a unit can have queued behind its current goal ([`PlayerOrder::QueueMove`]): the
/// simulator's own path bound ([`MAX_PATH_POINTS`](crate::orders::MAX_PATH_POINTS) points, the
/// goal included), so a path as long as the simulator allows goes on the wire, [`MAX_ORDERS`]
/// points a frame (a 1,025-point path takes 257 frames of one player's input).
pub const MAX_WAYPOINTS: usize = crate::orders::MAX_PATH_POINTS - 1;
/// Units one player may own; a [`PlayerOrder::Spawn`] beyond it is rejected.
pub const MAX_UNITS_PER_PLAYER: usize = 4096;
/// A wire coordinate is the Q32.32 value's bits shifted right by this: units of 1/1024, so an
/// `i32` covers ±2,097,152, the whole coordinate domain (±1,000,000) included.
pub const COORD_SHIFT: u32 = 22;

/// Order kinds on the wire ([`WireOrder::kind`]).
pub mod kind {
    /// An empty slot.
    pub const NONE: u8 = 0;
    /// [`PlayerOrder::MoveTo`](super::PlayerOrder::MoveTo).
    pub const MOVE_TO: u8 = 1;
    /// [`PlayerOrder::QueueMove`](super::PlayerOrder::QueueMove).
    pub const QUEUE_MOVE: u8 = 2;
    /// [`PlayerOrder::Stop`](super::PlayerOrder::Stop).
    pub const STOP: u8 = 3;
    /// [`PlayerOrder::Spawn`](super::PlayerOrder::Spawn).
    pub const SPAWN: u8 = 4;
    /// [`PlayerOrder::Remove`](super::PlayerOrder::Remove).
    pub const REMOVE: u8 = 5;
    /// [`PlayerOrder::SetPriority`](super::PlayerOrder::SetPriority).
    pub const SET_PRIORITY: u8 = 6;
    /// [`PlayerOrder::SpawnType`](super::PlayerOrder::SpawnType).
    pub const SPAWN_TYPE: u8 = 7;
    /// [`PlayerOrder::SetModel`](super::PlayerOrder::SetModel).
    pub const SET_MODEL: u8 = 8;
    /// [`PlayerOrder::PlaceBuilding`](super::PlayerOrder::PlaceBuilding).
    pub const PLACE_BUILDING: u8 = 9;
    /// [`PlayerOrder::RemoveBuilding`](super::PlayerOrder::RemoveBuilding).
    pub const REMOVE_BUILDING: u8 = 10;
    /// [`PlayerOrder::NavigateTo`](super::PlayerOrder::NavigateTo).
    pub const NAVIGATE_TO: u8 = 11;
    /// [`PlayerOrder::SetOrderSpeed`](super::PlayerOrder::SetOrderSpeed).
    pub const SET_ORDER_SPEED: u8 = 12;
    /// [`PlayerOrder::SetGroup`](super::PlayerOrder::SetGroup).
    pub const SET_GROUP: u8 = 13;
    /// [`PlayerOrder::AddToGroup`](super::PlayerOrder::AddToGroup).
    pub const ADD_TO_GROUP: u8 = 14;
    /// [`PlayerOrder::AddMaskToGroup`](super::PlayerOrder::AddMaskToGroup).
    pub const ADD_MASK_TO_GROUP: u8 = 15;
    /// [`PlayerOrder::GroupMove`](super::PlayerOrder::GroupMove).
    pub const GROUP_MOVE: u8 = 16;
    /// [`PlayerOrder::FormationMove`](super::PlayerOrder::FormationMove).
    pub const FORMATION_MOVE: u8 = 17;
    /// The highest kind this wire format knows.
    pub const LAST: u8 = FORMATION_MOVE;
}

/// Control groups each player has on the wire: group `g` (`0 .. GROUPS_PER_PLAYER`) of player
/// `p` is the simulator's group `p × GROUPS_PER_PLAYER + g` ([`sim_group`]), so the
/// [`MAX_PLAYERS`](super::MAX_PLAYERS) players share the simulator's
/// [`MAX_GROUPS`](crate::orders::groups::MAX_GROUPS) without meeting.
pub const GROUPS_PER_PLAYER: u8 = 64;
/// Ids one [`PlayerOrder::SetGroup`] or [`PlayerOrder::AddToGroup`] range may span (the
/// per-player unit bound): the work of one slot is bounded by it and by the sender's units.
pub const MAX_GROUP_SPAN: u32 = MAX_UNITS_PER_PLAYER as u32;
/// The largest order speed on the wire, in wire units (1/1024): the simulator's
/// [`MAX_SPEED`](crate::domain::MAX_SPEED), 1,000.
const MAX_WIRE_SPEED: i32 = 1000 << (32 - COORD_SHIFT);

/// The simulator's group id of `player`'s wire group `group`, or `None` for a group index of
/// [`GROUPS_PER_PLAYER`] or more (or a player the simulator's groups cannot hold).
#[must_use]
pub fn sim_group(player: usize, group: u8) -> Option<u32> {
    if group >= GROUPS_PER_PLAYER {
        return None;
    }
    let id = u32::try_from(player)
        .ok()?
        .checked_mul(u32::from(GROUPS_PER_PLAYER))?
        .checked_add(u32::from(group))?;
    (id < crate::orders::groups::MAX_GROUPS).then_some(id)
}

/// One order slot as it travels: integers only, so every byte pattern is a value and decoding
/// a hostile message cannot fail; [`decode`](Self::decode) then validates it.
///
/// `kind` is one of [`kind`]; `unit` is the addressed [`AgentId`]; `x`, `y` a point in units
/// of 1/1024 ([`COORD_SHIFT`]); `arg` the priority of [`PlayerOrder::SetPriority`]. Fields an order
/// kind does not use must be zero. The catalogue kinds put the catalogue index in `arg`
/// (unit type, building type) and [`PlayerOrder::RemoveBuilding`] the obstacle id in `unit`.
/// [`PlayerOrder::SetOrderSpeed`] puts the speed in `x` (1/1024 units, −1 for none). The group
/// kinds put the group index in `arg`; a range the first id in `unit` and the id count in `x`;
/// a mask the first id in `unit` and 64 id bits in `x` (ids `unit + 0 ..= 31`, bit `i` for
/// `unit + i`) and `y` (ids `unit + 32 ..= 63`); a group move its flags in `unit` (bit 0:
/// queue, bit 1: at the slowest member's speed) and the goal in `x`, `y`. A formation move
/// puts the group index in `arg`, the goal in `x`, `y` and the rest in `unit`
/// ([`PlayerOrder::FormationMove`] lists the bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WireOrder {
    /// The order kind ([`kind`]); 0 is an empty slot.
    pub kind: u8,
    /// The priority of a priority order, the catalogue index of a catalogue order, else 0.
    pub arg: u8,
    /// The addressed unit's id (the obstacle id of a building removal), else 0.
    pub unit: u32,
    /// The point's x in 1/1024 units, else 0.
    pub x: i32,
    /// The point's y in 1/1024 units, else 0.
    pub y: i32,
}

/// An order a player sends, decoded from its [`WireOrder`]: every kind but
/// [`Spawn`](Self::Spawn) addresses one of the sender's units.
///
/// Not to be confused with [`crate::Order`], the move order a unit holds in the simulator:
/// the adapter turns a `PlayerOrder` into a [`Command`](crate::Command) ([`MoveTo`](Self::MoveTo)
/// into [`Command::MoveTo`](crate::Command::MoveTo), which gives the unit its
/// [`Order`](crate::Order)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerOrder {
    /// Walk to `goal`, replacing any earlier goal and waypoints.
    MoveTo {
        /// The unit.
        unit: AgentId,
        /// Where to.
        goal: Vec2,
    },
    /// Append `goal` to the unit's path (a waypoint after the current goal), or walk to it if
    /// the unit has no goal.
    QueueMove {
        /// The unit.
        unit: AgentId,
        /// The waypoint.
        goal: Vec2,
    },
    /// Forget the goal and the path; the preferred velocity becomes zero.
    Stop {
        /// The unit.
        unit: AgentId,
    },
    /// Add a unit owned by the sender at `position`, with the simulator's agent defaults. It
    /// gets the next agent id (after the scene's own additions of that tick).
    Spawn {
        /// Where.
        position: Vec2,
    },
    /// Remove the unit.
    Remove {
        /// The unit.
        unit: AgentId,
    },
    /// Set the unit's avoidance priority ([`AgentParams::priority`](crate::AgentParams)).
    SetPriority {
        /// The unit.
        unit: AgentId,
        /// The new priority.
        priority: u8,
    },
    /// Add a unit owned by the sender at `position`, of the catalogue's unit type `unit_type`
    /// (its parameters and model: [`Catalogue`](super::Catalogue)).
    SpawnType {
        /// Where.
        position: Vec2,
        /// The catalogue's unit type.
        unit_type: u8,
    },
    /// Give the unit the model of the catalogue's unit type `unit_type`.
    SetModel {
        /// The unit.
        unit: AgentId,
        /// The catalogue's unit type whose model it takes.
        unit_type: u8,
    },
    /// Place a building of the catalogue's type `building` with its footprint's origin at
    /// `position`: an obstacle owned by the sender.
    PlaceBuilding {
        /// Where the footprint's origin goes.
        position: Vec2,
        /// The catalogue's building type.
        building: u8,
    },
    /// Remove a building the sender placed.
    RemoveBuilding {
        /// Its obstacle id.
        building: ObstacleId,
    },
    /// Walk to `goal` by a planned path ([`Command::NavigateTo`](crate::Command::NavigateTo)):
    /// replaces any earlier goal and waypoints; without navigation it is a
    /// [`MoveTo`](Self::MoveTo).
    NavigateTo {
        /// The unit.
        unit: AgentId,
        /// Where to.
        goal: Vec2,
    },
    /// Set the speed of the unit's current order
    /// ([`Command::SetOrderSpeed`](crate::Command::SetOrderSpeed)): `0 ..= 1,000` on the
    /// 1/1024 grid, or `None` for the steering's default. The unit needs an order.
    SetOrderSpeed {
        /// The unit.
        unit: AgentId,
        /// The speed; `None` clears it.
        speed: Option<Fx>,
    },
    /// Make the sender's group `group` the sender's units with ids in `first .. first + count`
    /// (`count` at most [`MAX_GROUP_SPAN`]; 0 deletes the group). Ids in the range that are not
    /// a present unit of the sender are skipped and counted
    /// ([`NetGame::skipped_group_members`](super::NetGame::skipped_group_members)).
    SetGroup {
        /// The sender's group index, `0 .. GROUPS_PER_PLAYER`.
        group: u8,
        /// The first id of the range.
        first: AgentId,
        /// The number of ids in the range.
        count: u32,
    },
    /// Add the sender's units with ids in `first .. first + count` to the sender's group
    /// `group` (`count` in `1 ..= MAX_GROUP_SPAN`), as [`SetGroup`](Self::SetGroup) does.
    AddToGroup {
        /// The sender's group index.
        group: u8,
        /// The first id of the range.
        first: AgentId,
        /// The number of ids in the range.
        count: u32,
    },
    /// Add the sender's units with ids `first + i` for every bit `i` set in `mask` to the
    /// sender's group `group`: any selection of 64 neighbouring ids in one slot (`mask` not 0).
    AddMaskToGroup {
        /// The sender's group index.
        group: u8,
        /// The id of bit 0.
        first: AgentId,
        /// The selected ids' bits.
        mask: u64,
    },
    /// Order every unit of the sender's group `group` to `goal`
    /// ([`Command::GroupMove`](crate::Command::GroupMove), or with `navigate`
    /// [`Command::GroupNavigate`](crate::Command::GroupNavigate)): one order, however many
    /// members. On the wire the slot's `unit` field carries the flags: bit 0 `queue`, bit 1
    /// `slowest`, bit 2 `navigate`.
    GroupMove {
        /// The sender's group index.
        group: u8,
        /// Where to.
        goal: Vec2,
        /// Append `goal` to the members' paths (a waypoint, or a navigated leg for a member
        /// that navigates) rather than replace them; with `navigate`, a member that does not
        /// navigate gets the navigation order instead (its path replaced).
        queue: bool,
        /// Every member at the slowest member's speed.
        slowest: bool,
        /// By planned paths ([`Command::GroupNavigate`](crate::Command::GroupNavigate)).
        navigate: bool,
    },
    /// Order the sender's group `group` into a formation around `goal`
    /// ([`Command::FormationMove`](crate::Command::FormationMove)): one slot per member, one
    /// order, however many members.
    ///
    /// On the wire the slot's `unit` field carries everything but the group and the goal:
    /// bits 0–2 the formation ([`FormationKind::canonical_byte`], 0 ..= 4), bit 3 the slowest
    /// flag, bits 4–9 and 10–15 the facing's x and y (6-bit two's complement, `−32 ..= 31`;
    /// both 0 for none), bits 16–31 the spacing in 1/64 units
    /// ([`FORMATION_SPACING_SHIFT`]; 0 for the default). The slot's `arg` carries the group
    /// index in bits 0–6 and the `together` flag in bit 7.
    FormationMove {
        /// The sender's group index.
        group: u8,
        /// Where the formation's centre goes.
        goal: Vec2,
        /// The layout.
        formation: FormationKind,
        /// The facing as a small integer direction (each component in `−32 ..= 31`, not both
        /// 0; the simulator normalises it), or `None`: from the group's centre to the goal.
        facing: Option<(i8, i8)>,
        /// The distance between neighbouring slots, rounded down to the 1/64 grid (`1/64 ..=
        /// 1,000` after rounding), or `None`: 5 radii of the group's largest member.
        spacing: Option<Fx>,
        /// Every member at the slowest member's speed.
        slowest: bool,
        /// Move together ([`Command::FormationMarch`](crate::Command::FormationMarch)): one
        /// shared path, a moving frame, a column through narrow stretches.
        together: bool,
    },
}

/// [`PlayerOrder::GroupMove`]'s flag bits in [`WireOrder::unit`].
const GROUP_QUEUE: u32 = 1;
const GROUP_SLOWEST: u32 = 2;
const GROUP_NAVIGATE: u32 = 4;

/// A point on the wire grid: the Q32.32 bits shifted right by [`COORD_SHIFT`] (rounding toward
/// −∞), or `None` outside the coordinate domain.
fn wire_point(p: Vec2) -> Option<(i32, i32)> {
    checked_point(p, "position").ok()?;
    let x = i32::try_from(p.x.to_bits() >> COORD_SHIFT).ok()?;
    let y = i32::try_from(p.y.to_bits() >> COORD_SHIFT).ok()?;
    Some((x, y))
}

/// Checks a group index and a range's id count (`set`: 0 allowed, deleting the group).
/// Bit 7 of a formation move's `arg`: move together.
const FORMATION_TOGETHER: u8 = 0x80;

fn check_range(group: u8, count: u32, set: bool) -> Result<(), PlayerOrderError> {
    if group >= GROUPS_PER_PLAYER {
        return Err(PlayerOrderError::BadGroup(group));
    }
    if count > MAX_GROUP_SPAN || (count == 0 && !set) {
        return Err(PlayerOrderError::GroupSpan(count));
    }
    Ok(())
}

/// The point of a wire coordinate pair, checked against the domain.
fn point_of_wire(x: i32, y: i32) -> Result<Vec2, PlayerOrderError> {
    let p = Vec2::new(
        Fx::from_bits(i64::from(x) << COORD_SHIFT),
        Fx::from_bits(i64::from(y) << COORD_SHIFT),
    );
    checked_point(p, "order point").map_err(|_| PlayerOrderError::OutOfDomain)?;
    Ok(p)
}

impl PlayerOrder {
    /// The wire form. Points are rounded down to the 1/1024 grid ([`COORD_SHIFT`]): the order
    /// every peer decodes names the rounded point.
    ///
    /// # Errors
    /// [`PlayerOrderError::OutOfDomain`] for a point outside the coordinate domain.
    pub fn encode(&self) -> Result<WireOrder, PlayerOrderError> {
        let point = |p: Vec2| wire_point(p).ok_or(PlayerOrderError::OutOfDomain);
        let unit_only = |kind, unit: AgentId| WireOrder {
            kind,
            unit: unit.0,
            ..WireOrder::default()
        };
        Ok(match *self {
            Self::MoveTo { unit, goal } | Self::QueueMove { unit, goal } => {
                let (x, y) = point(goal)?;
                let kind = if matches!(self, Self::MoveTo { .. }) {
                    kind::MOVE_TO
                } else {
                    kind::QUEUE_MOVE
                };
                WireOrder {
                    kind,
                    arg: 0,
                    unit: unit.0,
                    x,
                    y,
                }
            }
            Self::Stop { unit } => unit_only(kind::STOP, unit),
            Self::Spawn { position } => {
                let (x, y) = point(position)?;
                WireOrder {
                    kind: kind::SPAWN,
                    arg: 0,
                    unit: 0,
                    x,
                    y,
                }
            }
            Self::Remove { unit } => unit_only(kind::REMOVE, unit),
            Self::SetPriority { unit, priority } => WireOrder {
                arg: priority,
                ..unit_only(kind::SET_PRIORITY, unit)
            },
            Self::SpawnType {
                position,
                unit_type,
            } => {
                let (x, y) = point(position)?;
                WireOrder {
                    kind: kind::SPAWN_TYPE,
                    arg: unit_type,
                    unit: 0,
                    x,
                    y,
                }
            }
            Self::SetModel { unit, unit_type } => WireOrder {
                arg: unit_type,
                ..unit_only(kind::SET_MODEL, unit)
            },
            Self::PlaceBuilding { position, building } => {
                let (x, y) = point(position)?;
                WireOrder {
                    kind: kind::PLACE_BUILDING,
                    arg: building,
                    unit: 0,
                    x,
                    y,
                }
            }
            Self::RemoveBuilding { building } => WireOrder {
                kind: kind::REMOVE_BUILDING,
                unit: building.0,
                ..WireOrder::default()
            },
            Self::NavigateTo { unit, goal } => {
                let (x, y) = point(goal)?;
                WireOrder {
                    x,
                    y,
                    ..unit_only(kind::NAVIGATE_TO, unit)
                }
            }
            Self::SetOrderSpeed { unit, speed } => WireOrder {
                x: match speed {
                    None => -1,
                    Some(s) => i32::try_from(s.to_bits() >> COORD_SHIFT)
                        .ok()
                        .filter(|w| (0..=MAX_WIRE_SPEED).contains(w))
                        .ok_or(PlayerOrderError::OutOfDomain)?,
                },
                ..unit_only(kind::SET_ORDER_SPEED, unit)
            },
            Self::SetGroup {
                group,
                first,
                count,
            }
            | Self::AddToGroup {
                group,
                first,
                count,
            } => {
                let set = matches!(self, Self::SetGroup { .. });
                check_range(group, count, set)?;
                WireOrder {
                    kind: if set {
                        kind::SET_GROUP
                    } else {
                        kind::ADD_TO_GROUP
                    },
                    arg: group,
                    unit: first.0,
                    x: count as i32,
                    y: 0,
                }
            }
            Self::AddMaskToGroup { group, first, mask } => {
                check_range(group, u32::from(mask != 0), false)?;
                WireOrder {
                    kind: kind::ADD_MASK_TO_GROUP,
                    arg: group,
                    unit: first.0,
                    x: mask as u32 as i32,
                    y: (mask >> 32) as u32 as i32,
                }
            }
            Self::GroupMove {
                group,
                goal,
                queue,
                slowest,
                navigate,
            } => {
                check_range(group, 1, false)?;
                let (x, y) = point(goal)?;
                WireOrder {
                    kind: kind::GROUP_MOVE,
                    arg: group,
                    unit: u32::from(queue) * GROUP_QUEUE
                        + u32::from(slowest) * GROUP_SLOWEST
                        + u32::from(navigate) * GROUP_NAVIGATE,
                    x,
                    y,
                }
            }
            Self::FormationMove {
                group,
                goal,
                formation,
                facing,
                spacing,
                slowest,
                together,
            } => {
                check_range(group, 1, false)?;
                let (x, y) = point(goal)?;
                WireOrder {
                    kind: kind::FORMATION_MOVE,
                    arg: group | if together { FORMATION_TOGETHER } else { 0 },
                    unit: pack_formation(formation, facing, spacing, slowest)?,
                    x,
                    y,
                }
            }
        })
    }

    /// The unit the order addresses (`None` for the spawns, the building and the group
    /// orders).
    #[must_use]
    pub fn unit(&self) -> Option<AgentId> {
        match *self {
            Self::Spawn { .. }
            | Self::SpawnType { .. }
            | Self::PlaceBuilding { .. }
            | Self::RemoveBuilding { .. }
            | Self::SetGroup { .. }
            | Self::AddToGroup { .. }
            | Self::AddMaskToGroup { .. }
            | Self::GroupMove { .. }
            | Self::FormationMove { .. } => None,
            Self::MoveTo { unit, .. }
            | Self::QueueMove { unit, .. }
            | Self::Stop { unit }
            | Self::Remove { unit }
            | Self::SetPriority { unit, .. }
            | Self::SetModel { unit, .. }
            | Self::NavigateTo { unit, .. }
            | Self::SetOrderSpeed { unit, .. } => Some(unit),
        }
    }
}

impl WireOrder {
    /// Validates the slot's form (not yet against the state): `Ok(None)` for an empty slot.
    ///
    /// # Errors
    /// [`PlayerOrderError::UnknownKind`], [`PlayerOrderError::OutOfDomain`] (a point outside
    /// the coordinate domain), [`PlayerOrderError::Malformed`] (a field the kind does not use is
    /// not zero), the group checks ([`PlayerOrderError::BadGroup`],
    /// [`PlayerOrderError::GroupSpan`]) and a formation move's
    /// ([`PlayerOrderError::UnknownFormation`], [`PlayerOrderError::BadSpacing`]).
    pub fn decode(&self) -> Result<Option<PlayerOrder>, PlayerOrderError> {
        let WireOrder {
            kind,
            arg,
            unit,
            x,
            y,
        } = *self;
        let unit_id = AgentId(unit);
        let no_point = x == 0 && y == 0;
        let order = match kind {
            kind::NONE if arg == 0 && unit == 0 && no_point => return Ok(None),
            kind::MOVE_TO | kind::QUEUE_MOVE if arg == 0 => {
                let goal = point_of_wire(x, y)?;
                if kind == kind::MOVE_TO {
                    PlayerOrder::MoveTo {
                        unit: unit_id,
                        goal,
                    }
                } else {
                    PlayerOrder::QueueMove {
                        unit: unit_id,
                        goal,
                    }
                }
            }
            kind::STOP if arg == 0 && no_point => PlayerOrder::Stop { unit: unit_id },
            kind::SPAWN if arg == 0 && unit == 0 => PlayerOrder::Spawn {
                position: point_of_wire(x, y)?,
            },
            kind::REMOVE if arg == 0 && no_point => PlayerOrder::Remove { unit: unit_id },
            kind::SET_PRIORITY if no_point => PlayerOrder::SetPriority {
                unit: unit_id,
                priority: arg,
            },
            kind::SPAWN_TYPE if unit == 0 => PlayerOrder::SpawnType {
                position: point_of_wire(x, y)?,
                unit_type: arg,
            },
            kind::SET_MODEL if no_point => PlayerOrder::SetModel {
                unit: unit_id,
                unit_type: arg,
            },
            kind::PLACE_BUILDING if unit == 0 => PlayerOrder::PlaceBuilding {
                position: point_of_wire(x, y)?,
                building: arg,
            },
            kind::REMOVE_BUILDING if arg == 0 && no_point => PlayerOrder::RemoveBuilding {
                building: ObstacleId(unit),
            },
            kind::NAVIGATE_TO if arg == 0 => PlayerOrder::NavigateTo {
                unit: unit_id,
                goal: point_of_wire(x, y)?,
            },
            kind::SET_ORDER_SPEED if arg == 0 && y == 0 => PlayerOrder::SetOrderSpeed {
                unit: unit_id,
                speed: match x {
                    -1 => None,
                    0..=MAX_WIRE_SPEED => Some(Fx::from_bits(i64::from(x) << COORD_SHIFT)),
                    _ => return Err(PlayerOrderError::OutOfDomain),
                },
            },
            kind::SET_GROUP | kind::ADD_TO_GROUP if y == 0 => {
                let count = u32::try_from(x).map_err(|_| PlayerOrderError::GroupSpan(x as u32))?;
                let set = kind == kind::SET_GROUP;
                check_range(arg, count, set)?;
                let first = unit_id;
                if set {
                    PlayerOrder::SetGroup {
                        group: arg,
                        first,
                        count,
                    }
                } else {
                    PlayerOrder::AddToGroup {
                        group: arg,
                        first,
                        count,
                    }
                }
            }
            kind::ADD_MASK_TO_GROUP => {
                let mask = u64::from(x as u32) | (u64::from(y as u32) << 32);
                check_range(arg, u32::from(mask != 0), false)?;
                PlayerOrder::AddMaskToGroup {
                    group: arg,
                    first: unit_id,
                    mask,
                }
            }
            kind::GROUP_MOVE if unit <= GROUP_QUEUE | GROUP_SLOWEST | GROUP_NAVIGATE => {
                check_range(arg, 1, false)?;
                PlayerOrder::GroupMove {
                    group: arg,
                    goal: point_of_wire(x, y)?,
                    queue: unit & GROUP_QUEUE != 0,
                    slowest: unit & GROUP_SLOWEST != 0,
                    navigate: unit & GROUP_NAVIGATE != 0,
                }
            }
            kind::FORMATION_MOVE => {
                let together = arg & FORMATION_TOGETHER != 0;
                let arg = arg & !FORMATION_TOGETHER;
                check_range(arg, 1, false)?;
                let (formation, facing, spacing, slowest) = unpack_formation(unit)?;
                PlayerOrder::FormationMove {
                    together,
                    group: arg,
                    goal: point_of_wire(x, y)?,
                    formation,
                    facing,
                    spacing,
                    slowest,
                }
            }
            kind::NONE..=kind::LAST => return Err(PlayerOrderError::Malformed),
            other => return Err(PlayerOrderError::UnknownKind(other)),
        };
        Ok(Some(order))
    }
}

/// One player's input for one frame: the ggrs [`Config::Input`](ggrs::Config::Input).
///
/// [`INPUT_WIRE_BYTES`] (68) bytes: four 14-byte order slots, then the hash tag and the hash.
/// `Default` is "no orders, no hash" (what ggrs uses for a missing or disconnected player).
///
/// The hash fields carry the sender's own state hash for the lockstep hash exchange (ggrs
/// computes no checksums in lockstep mode): `hash_tag = F + 1` and `hash` the low 64 bits of
/// the [checksum](super::NetState::checksum) of the sender's state at frame `F`; `hash_tag = 0`
/// means no hash. The simulation never reads them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NetInput {
    /// The order slots, applied in slot order; empty slots are all zero.
    pub orders: [WireOrder; MAX_ORDERS],
    /// `F + 1` when `hash` is the sender's hash of frame `F`; 0 for no hash.
    pub hash_tag: u32,
    /// The low 64 bits of the sender's checksum of frame `hash_tag - 1`.
    pub hash: u64,
}

impl NetInput {
    /// An input holding `orders` in its first slots.
    ///
    /// # Errors
    /// [`NetError::TooManyOrders`] for more than [`MAX_ORDERS`]; [`NetError::Order`] for an
    /// order that cannot be encoded (a point outside the domain).
    pub fn from_orders(orders: &[PlayerOrder]) -> Result<Self, NetError> {
        if orders.len() > MAX_ORDERS {
            return Err(NetError::TooManyOrders(orders.len()));
        }
        let mut input = Self::default();
        for (slot, order) in input.orders.iter_mut().zip(orders) {
            *slot = order.encode().map_err(NetError::Order)?;
        }
        Ok(input)
    }

    /// This input carrying the hash of the sender's state at `frame` (see the type's docs).
    #[must_use]
    pub fn with_hash(mut self, frame: u32, checksum: u128) -> Self {
        self.hash_tag = frame.saturating_add(1);
        self.hash = checksum as u64;
        self
    }

    /// The reported `(frame, low 64 bits of the checksum)`, if any.
    #[must_use]
    pub fn reported_hash(&self) -> Option<(u32, u64)> {
        self.hash_tag.checked_sub(1).map(|f| (f, self.hash))
    }

    /// The exact bytes ggrs sends for this input (bincode 1's encoding: fields in order,
    /// little-endian, fixed width).
    #[must_use]
    pub fn to_bytes(&self) -> [u8; INPUT_WIRE_BYTES] {
        let mut out = [0; INPUT_WIRE_BYTES];
        let mut at = 0;
        let mut put = |b: &[u8]| {
            out[at..at + b.len()].copy_from_slice(b);
            at += b.len();
        };
        for o in &self.orders {
            put(&[o.kind, o.arg]);
            put(&o.unit.to_le_bytes());
            put(&o.x.to_le_bytes());
            put(&o.y.to_le_bytes());
        }
        put(&self.hash_tag.to_le_bytes());
        put(&self.hash.to_le_bytes());
        out
    }

    /// Reads [`to_bytes`](Self::to_bytes)' form. Every 68-byte string is an input; the orders
    /// are validated when applied.
    ///
    /// # Errors
    /// [`NetError::BadInputLength`] unless `bytes` has exactly [`INPUT_WIRE_BYTES`] bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, NetError> {
        let bytes: &[u8; INPUT_WIRE_BYTES] = bytes
            .try_into()
            .map_err(|_| NetError::BadInputLength(bytes.len()))?;
        let u32_at =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let mut input = Self::default();
        for (k, o) in input.orders.iter_mut().enumerate() {
            let b = k * ORDER_WIRE_BYTES;
            *o = WireOrder {
                kind: bytes[b],
                arg: bytes[b + 1],
                unit: u32_at(b + 2),
                x: u32_at(b + 6) as i32,
                y: u32_at(b + 10) as i32,
            };
        }
        let h = MAX_ORDERS * ORDER_WIRE_BYTES;
        input.hash_tag = u32_at(h);
        input.hash = u64::from(u32_at(h + 4)) | (u64::from(u32_at(h + 8)) << 32);
        Ok(input)
    }
}

/// Why an order was skipped. Deterministic: every peer skips the same orders for the same
/// reason.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlayerOrderError {
    /// The kind byte names no order.
    UnknownKind(u8),
    /// A field the kind does not use is not zero.
    Malformed,
    /// A point lies outside the coordinate domain.
    OutOfDomain,
    /// The unit is not one of the sender's units (unknown, removed, or another player's).
    NotOwner(AgentId),
    /// The unit's waypoint queue already holds [`MAX_WAYPOINTS`] points.
    QueueFull(AgentId),
    /// The player already owns [`MAX_UNITS_PER_PLAYER`] units, or the agent id space is
    /// exhausted.
    UnitLimit,
    /// The scene still adds agents by events: a spawn now would shift their ids.
    SpawnDuringSceneAdds,
    /// The catalogue has no unit or building type of this index (or the rules have no
    /// catalogue).
    UnknownType(u8),
    /// The frame's buildings would exceed [`MAX_FRAME_VERTICES`](super::MAX_FRAME_VERTICES)
    /// vertices (or the world's obstacle vertex bound); the refused building's vertex count.
    VertexBudget(usize),
    /// The building is not one the sender placed (unknown, removed, or another player's).
    NotBuildingOwner(ObstacleId),
    /// A group index of [`GROUPS_PER_PLAYER`] or more.
    BadGroup(u8),
    /// A group range's id count above [`MAX_GROUP_SPAN`], or an empty addition (a range of 0
    /// ids, a mask of no bit).
    GroupSpan(u32),
    /// A group move for a group of the sender's with no unit of the sender's present.
    EmptyGroup(u8),
    /// An order speed for a unit with no order.
    NoOrder(AgentId),
    /// A formation move's formation bits (0 ..= 7) name no [`FormationKind`] (0 ..= 4).
    UnknownFormation(u8),
    /// A formation move's spacing outside `1/64 ..= 1,000` (the wire value in 1/64 units,
    /// saturated to `u16`; 0 for a spacing that rounds to nothing).
    BadSpacing(u16),
    /// A formation move's facing: both components 0, one outside `−32 ..= 31`, or (through
    /// [`Turn::formation_move`](super::Turn::formation_move)) a facing the simulator refuses.
    BadFacing,
    /// The simulator's queue refused the resulting command
    /// ([`Simulator::queue_command`](crate::Simulator::queue_command); e.g. a scene event for a
    /// unit its owner removed). Listed with player `usize::MAX`, not counted in
    /// [`NetGame::rejected_orders`](super::NetGame::rejected_orders).
    Sim(SimError),
}

impl fmt::Display for PlayerOrderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownKind(k) => write!(f, "unknown order kind {k}"),
            Self::Malformed => write!(f, "a field the order kind does not use is not zero"),
            Self::OutOfDomain => write!(f, "point outside the coordinate domain"),
            Self::NotOwner(id) => write!(f, "unit {} is not the sender's", id.0),
            Self::QueueFull(id) => write!(f, "unit {} has {MAX_WAYPOINTS} waypoints queued", id.0),
            Self::UnitLimit => write!(f, "unit limit reached"),
            Self::SpawnDuringSceneAdds => write!(f, "spawn while the scene still adds agents"),
            Self::UnknownType(t) => write!(f, "no catalogue type {t}"),
            Self::VertexBudget(n) => {
                write!(
                    f,
                    "a building of {n} vertices exceeds the frame's vertex budget"
                )
            }
            Self::NotBuildingOwner(id) => write!(f, "building {} is not the sender's", id.0),
            Self::BadGroup(g) => write!(f, "group {g}: a player has {GROUPS_PER_PLAYER} groups"),
            Self::GroupSpan(n) => {
                write!(f, "a group range of {n} ids (1 ..= {MAX_GROUP_SPAN})")
            }
            Self::EmptyGroup(g) => write!(f, "group {g} holds none of the sender's units"),
            Self::NoOrder(id) => write!(f, "unit {} has no order to set the speed of", id.0),
            Self::UnknownFormation(k) => write!(f, "unknown formation kind {k}"),
            Self::BadSpacing(w) => {
                write!(f, "formation spacing {w}/64 outside 1/64 ..= 1,000")
            }
            Self::BadFacing => write!(f, "formation facing zero or out of range"),
            Self::Sim(e) => write!(f, "simulator: {e}"),
        }
    }
}

impl std::error::Error for PlayerOrderError {}
