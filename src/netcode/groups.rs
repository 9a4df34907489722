//! Control groups on the wire: the [`Turn`] methods behind the group orders
//! ([`PlayerOrder::SetGroup`](super::PlayerOrder::SetGroup),
//! [`AddToGroup`](super::PlayerOrder::AddToGroup),
//! [`AddMaskToGroup`](super::PlayerOrder::AddMaskToGroup),
//! [`GroupMove`](super::PlayerOrder::GroupMove),
//! [`FormationMove`](super::PlayerOrder::FormationMove)).
//!
//! Each player has [`GROUPS_PER_PLAYER`](super::GROUPS_PER_PLAYER) groups, kept by the simulator
//! as its own groups ([`crate::orders::groups`]: hashed, snapshotted, replayed) under the ids
//! [`sim_group`](super::sim_group) gives. A group holds only its owner's units: an id a group
//! order names that is not a present unit of the sender (another player's unit, a removed one,
//! an id no unit has, a unit spawned in the same frame) is skipped, the same way on every peer,
//! and counted in the state ([`NetGame::skipped_group_members`](super::NetGame::skipped_group_members));
//! the order itself applies to the rest. A group move gives one
//! [`Command::GroupMove`] (with its `navigate` flag one [`Command::GroupNavigate`]: planned
//! paths), however many members: one order moves 1,000 units in its frame; a
//! formation move likewise one [`Command::FormationMove`] (every member to its own slot).

use super::turn::Turn;
use super::wire::{MAX_GROUP_SPAN, MAX_WAYPOINTS, PlayerOrderError, sim_group};
use crate::agent::AgentId;
use crate::command::Command;
use crate::domain::checked_point;
use crate::math::{Fx, Vec2};
use crate::orders::formation::{FormationKind, check_facing, check_spacing};
use crate::orders::groups::MAX_GROUP_MEMBERS;

/// The shape of a formation move ([`Turn::formation_move`]): the fields of
/// [`Command::FormationMove`] besides the group and the goal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FormationShape {
    /// The layout.
    pub formation: FormationKind,
    /// The facing (`None`: from the group's centre to the goal); non-zero, each component
    /// within `±1,000`.
    pub facing: Option<Vec2>,
    /// The distance between neighbouring slots, `0.01 ..= 1,000` (`None`: 5 radii of the
    /// group's largest member).
    pub spacing: Option<Fx>,
    /// Every member at the slowest member's speed.
    pub slowest: bool,
    /// Move together: [`Command::FormationMarch`] instead of [`Command::FormationMove`].
    pub together: bool,
}

impl Turn<'_> {
    /// Sets `player`'s group `group` to the sender's units among `ids` (with `add`: adds them
    /// to the group). Ids that are not a present unit of the sender are skipped and counted
    /// ([`NetGame::skipped_group_members`](super::NetGame::skipped_group_members)); an empty
    /// selection without `add` deletes the group. One [`Command::SetGroup`]. What the group
    /// orders do, for a game with its own selection encoding.
    ///
    /// # Errors
    /// [`PlayerOrderError::BadGroup`] for a group index of
    /// [`GROUPS_PER_PLAYER`](super::GROUPS_PER_PLAYER) or more; [`PlayerOrderError::GroupSpan`]
    /// for a group that would pass the simulator's
    /// [`MAX_GROUP_MEMBERS`](crate::orders::groups::MAX_GROUP_MEMBERS).
    pub fn select(
        &mut self,
        player: usize,
        group: u8,
        ids: &[AgentId],
        add: bool,
    ) -> Result<(), PlayerOrderError> {
        let selected = ids
            .iter()
            .copied()
            .filter(|&id| self.owns(player, id))
            .collect();
        self.commit_group(player, group, selected, ids.len() as u64, add)
    }

    /// [`select`](Self::select) with the ids `first .. first + count` (at most
    /// [`MAX_GROUP_SPAN`]), walked through the sender's units rather than id by id.
    pub(super) fn select_range(
        &mut self,
        player: usize,
        group: u8,
        first: AgentId,
        count: u32,
        add: bool,
    ) -> Result<(), PlayerOrderError> {
        if count > MAX_GROUP_SPAN {
            return Err(PlayerOrderError::GroupSpan(count));
        }
        let end = u64::from(first.0) + u64::from(count);
        let selected = self
            .adapter
            .units
            .range(first..)
            .take_while(|(id, _)| u64::from(id.0) < end)
            .filter(|(id, u)| usize::from(u.owner) == player && self.sim.contains_agent(**id))
            .map(|(&id, _)| id)
            .collect();
        self.commit_group(player, group, selected, u64::from(count), add)
    }

    /// The sender's units among the ids `first + i` of the bits `i` set in `mask`.
    pub(super) fn select_mask(
        &mut self,
        player: usize,
        group: u8,
        first: AgentId,
        mask: u64,
    ) -> Result<(), PlayerOrderError> {
        if mask == 0 {
            return Err(PlayerOrderError::GroupSpan(0));
        }
        let selected = (0..64u32)
            .filter(|i| mask >> i & 1 != 0)
            .filter_map(|i| first.0.checked_add(i).map(AgentId))
            .filter(|&id| self.owns(player, id))
            .collect();
        self.commit_group(player, group, selected, u64::from(mask.count_ones()), true)
    }

    /// Orders every unit of `player`'s group `group` to `goal`: one [`Command::GroupMove`]
    /// (`queue`: a waypoint appended to each member's path; `slowest`: every member at the
    /// slowest member's speed). Members that are no longer the sender's (given to another
    /// player by [`NetGame::assign`](super::NetGame::assign)) are dropped from the group first
    /// (a [`Command::SetGroup`]) and counted as skipped. Group commands are world commands: in
    /// the tick they apply before the frame's unit commands ([`crate::command`]'s canonical
    /// order), so a unit ordered alone in the same frame keeps its own order.
    ///
    /// # Errors
    /// [`PlayerOrderError::BadGroup`]; [`PlayerOrderError::OutOfDomain`] for a goal outside
    /// the domain; [`PlayerOrderError::EmptyGroup`] when the group holds no present unit of the
    /// sender; [`PlayerOrderError::QueueFull`] (the first such member) when `queue` would pass
    /// a member's path bound. Nothing is queued then.
    pub fn group_move(
        &mut self,
        player: usize,
        group: u8,
        goal: Vec2,
        queue: bool,
        slowest: bool,
    ) -> Result<(), PlayerOrderError> {
        self.group_order(player, group, goal, queue, slowest, false)
    }

    /// Orders every unit of `player`'s group `group` to `goal` by planned paths: one
    /// [`Command::GroupNavigate`] (`queue`: a navigated leg for each member that navigates, the
    /// navigation order for the others; `slowest`: every member at the slowest member's
    /// speed). Members are checked, dropped and counted as in
    /// [`group_move`](Self::group_move).
    ///
    /// # Errors
    /// As [`group_move`](Self::group_move). Nothing is queued then.
    pub fn group_navigate(
        &mut self,
        player: usize,
        group: u8,
        goal: Vec2,
        queue: bool,
        slowest: bool,
    ) -> Result<(), PlayerOrderError> {
        self.group_order(player, group, goal, queue, slowest, true)
    }

    /// [`group_move`](Self::group_move), or with `navigate`
    /// [`group_navigate`](Self::group_navigate).
    pub(super) fn group_order(
        &mut self,
        player: usize,
        group: u8,
        goal: Vec2,
        queue: bool,
        slowest: bool,
        navigate: bool,
    ) -> Result<(), PlayerOrderError> {
        let gid = sim_group(player, group).ok_or(PlayerOrderError::BadGroup(group))?;
        checked_point(goal, "goal").map_err(|_| PlayerOrderError::OutOfDomain)?;
        let (members, foreign) = self.members_of(player, gid);
        if members.is_empty() {
            return Err(PlayerOrderError::EmptyGroup(group));
        }
        // A queued order appends to a member's path, but a navigated one only to a member
        // that navigates: any other member's path is replaced by the navigation order.
        let appends = |t: &Self, id| queue && (!navigate || t.navigates(id));
        if let Some(&full) = members
            .iter()
            .find(|&&id| appends(self, id) && self.path_len_of(id) > MAX_WAYPOINTS)
        {
            return Err(PlayerOrderError::QueueFull(full));
        }
        self.take_members(gid, &members, foreign);
        for &id in &members {
            let len = if appends(self, id) {
                self.path_len_of(id) + 1
            } else {
                1
            };
            self.path_len.insert(id, len);
        }
        self.groups.insert(gid, members);
        self.out.push(if navigate {
            Command::GroupNavigate {
                group: gid,
                goal,
                queue,
                slowest,
            }
        } else {
            Command::GroupMove {
                group: gid,
                goal,
                queue,
                slowest,
            }
        });
        Ok(())
    }

    /// Orders `player`'s group `group` into a formation around `goal`: one
    /// [`Command::FormationMove`] that gives every member its own slot
    /// ([`crate::orders::formation`]). Members that are no longer the sender's are dropped
    /// from the group first and counted as skipped, as in [`group_move`](Self::group_move);
    /// every member's path becomes its slot alone.
    ///
    /// # Errors
    /// [`PlayerOrderError::BadGroup`]; [`PlayerOrderError::OutOfDomain`] for a goal outside
    /// the domain; [`PlayerOrderError::BadFacing`] and [`PlayerOrderError::BadSpacing`] for a
    /// facing or spacing the simulator refuses; [`PlayerOrderError::EmptyGroup`] when the
    /// group holds no present unit of the sender. Nothing is queued then.
    pub fn formation_move(
        &mut self,
        player: usize,
        group: u8,
        goal: Vec2,
        shape: FormationShape,
    ) -> Result<(), PlayerOrderError> {
        let gid = sim_group(player, group).ok_or(PlayerOrderError::BadGroup(group))?;
        checked_point(goal, "goal").map_err(|_| PlayerOrderError::OutOfDomain)?;
        if let Some(f) = shape.facing {
            check_facing(f).map_err(|_| PlayerOrderError::BadFacing)?;
        }
        if let Some(s) = shape.spacing {
            check_spacing(s).map_err(|_| {
                let w = s.to_bits() >> super::wire::FORMATION_SPACING_SHIFT;
                PlayerOrderError::BadSpacing(super::wire::saturate_u16(w))
            })?;
        }
        let (members, foreign) = self.members_of(player, gid);
        if members.is_empty() {
            return Err(PlayerOrderError::EmptyGroup(group));
        }
        self.take_members(gid, &members, foreign);
        for &id in &members {
            self.path_len.insert(id, 1);
        }
        self.groups.insert(gid, members);
        self.out.push(Command::formation(
            shape.together,
            gid,
            goal,
            shape.formation,
            shape.facing,
            shape.spacing,
            shape.slowest,
        ));
        Ok(())
    }

    /// Commits a group move's or formation move's `members` (the present units of the sender
    /// in `gid`, not empty): each is marked commanded; with `foreign` members the group is
    /// cut to `members` (a [`Command::SetGroup`]) and they are counted as skipped.
    fn take_members(&mut self, gid: u32, members: &[AgentId], foreign: u64) {
        if foreign > 0 {
            self.adapter.skipped_members += foreign;
            self.out.push(Command::SetGroup {
                group: gid,
                members: members.to_vec(),
            });
        }
        for id in members {
            if let Some(u) = self.adapter.units.get_mut(id) {
                u.commanded = true;
            }
        }
    }

    /// The present units of `player` in the simulator's group `gid` as this frame's orders so
    /// far left it, and how many present members are not the sender's.
    fn members_of(&self, player: usize, gid: u32) -> (Vec<AgentId>, u64) {
        let listed = match self.groups.get(&gid) {
            Some(m) => m.as_slice(),
            None => self.sim.group(gid).unwrap_or_default(),
        };
        let mut foreign = 0;
        let mut members = Vec::with_capacity(listed.len());
        for &id in listed {
            if self.owns(player, id) {
                members.push(id);
            } else if self.sim.contains_agent(id) {
                foreign += 1;
            }
        }
        (members, foreign)
    }

    /// Queues group `group`'s new members: `selected` (the sender's units among `named` ids),
    /// added to the group's present members with `add`.
    fn commit_group(
        &mut self,
        player: usize,
        group: u8,
        mut selected: Vec<AgentId>,
        named: u64,
        add: bool,
    ) -> Result<(), PlayerOrderError> {
        let gid = sim_group(player, group).ok_or(PlayerOrderError::BadGroup(group))?;
        let mut skipped = named.saturating_sub(selected.len() as u64);
        if add {
            let (mut members, foreign) = self.members_of(player, gid);
            skipped += foreign;
            members.append(&mut selected);
            selected = members;
        }
        selected.sort_unstable();
        selected.dedup();
        if selected.len() > MAX_GROUP_MEMBERS {
            return Err(PlayerOrderError::GroupSpan(
                u32::try_from(selected.len()).unwrap_or(u32::MAX),
            ));
        }
        self.adapter.skipped_members += skipped;
        self.out.push(Command::SetGroup {
            group: gid,
            members: selected.clone(),
        });
        self.groups.insert(gid, selected);
        Ok(())
    }
}
