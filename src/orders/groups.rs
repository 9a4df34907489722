//! Groups (control groups, selections) as simulation state, and group orders
//! (issue 26 point 2): one command moves every member.
//!
//! * [`Command::SetGroup`](crate::Command::SetGroup) `{ group, members }` replaces group
//!   `group`'s members (an empty list deletes the group). When applied the members are sorted,
//!   duplicates dropped, and ids that name no present agent (never added yet, or removed)
//!   dropped: the group holds the agents present at that tick. At most [`MAX_GROUPS`] groups
//!   (ids `0 .. 4,096`), each of at most [`MAX_GROUP_MEMBERS`] members; a longer list is
//!   refused when queued.
//! * [`Command::GroupMove`](crate::Command::GroupMove) `{ group, goal, queue, slowest }` gives
//!   every member present, in ascending id, the order [`Command::MoveTo`](crate::Command::MoveTo)
//!   (or [`Command::QueueMove`](crate::Command::QueueMove) with `queue`) to `goal`, all within the
//!   tick: one command moves 1,000 units. With `slowest` every member's order gets the speed of
//!   the slowest member (the least of the members' order speeds: the
//!   [`Steering::speed`](super::Steering::speed), else each one's `max_speed`), so the group
//!   keeps together. Rejected (nothing changes) for a group that does not exist or whose
//!   members are all gone, or when the orders would pass the path-point limits.
//! * [`Command::GroupNavigate`](crate::Command::GroupNavigate) `{ group, goal, queue, slowest }`
//!   is the same order by planned paths: [`Command::NavigateTo`](crate::Command::NavigateTo)
//!   each member (with `queue`, a navigated leg for a member that navigates, the navigation
//!   order, its path replaced, for one that does not), so one command
//!   sends a group round buildings ([`crate::navigation`]); four or more members of one
//!   radius share one search.
//!
//! A member removed later stays listed until the group is set again; group orders skip it
//! (agent ids are never reused). Groups are part of the state: hashed (the order-lifecycle
//! extension of [`crate::hash`]), snapshotted (format 5), carried by replays as the commands,
//! compared by [`snapshot::diff`](crate::snapshot::diff).

use super::formation::Formation;
use crate::agent::AgentId;
use crate::error::SimError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most groups at once; group ids are `0 .. MAX_GROUPS`.
pub const MAX_GROUPS: u32 = 4_096;
/// Most members of one group.
pub const MAX_GROUP_MEMBERS: usize = 65_536;

/// Every group's members, ascending id, by group id, and each group's last formation move
/// ([`super::formation`]). Part of the state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Groups {
    map: BTreeMap<u32, Vec<AgentId>>,
    /// The formation moves, by group id: kept until the group's next formation move (a
    /// formation outlives a change of its group's members; its own slots say who it placed).
    formations: BTreeMap<u32, Formation>,
}

/// Checks a group id and a member count (when queued and on restore).
pub(crate) fn check_group(group: u32, members: usize) -> Result<(), SimError> {
    if group >= MAX_GROUPS {
        return Err(SimError::OutOfDomain {
            what: "group id",
            allowed: "0 ..= 4,095",
        });
    }
    if members > MAX_GROUP_MEMBERS {
        return Err(SimError::OutOfDomain {
            what: "group members",
            allowed: "at most 65,536",
        });
    }
    Ok(())
}

impl Groups {
    pub(crate) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Ascending group id.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = (u32, &[AgentId])> {
        self.map.iter().map(|(&g, m)| (g, m.as_slice()))
    }

    /// Group `group`'s members (ascending id), if it exists.
    pub(crate) fn get(&self, group: u32) -> Option<&[AgentId]> {
        self.map.get(&group).map(Vec::as_slice)
    }

    /// Sets group `group` to `members` (already sorted, unique, present; empty deletes it),
    /// returning the old members.
    pub(crate) fn set(&mut self, group: u32, members: Vec<AgentId>) -> Option<Vec<AgentId>> {
        if members.is_empty() {
            self.map.remove(&group)
        } else {
            self.map.insert(group, members)
        }
    }

    /// The formation moves, ascending group id.
    pub(crate) fn formations(&self) -> impl ExactSizeIterator<Item = (u32, &Formation)> {
        self.formations.iter().map(|(&g, f)| (g, f))
    }

    /// Group `group`'s formation move, if it has one.
    pub(crate) fn formation(&self, group: u32) -> Option<&Formation> {
        self.formations.get(&group)
    }

    /// Sets (or with `None` drops) group `group`'s formation move, returning the old one.
    pub(crate) fn set_formation(
        &mut self,
        group: u32,
        formation: Option<Formation>,
    ) -> Option<Formation> {
        match formation {
            Some(f) => self.formations.insert(group, f),
            None => self.formations.remove(&group),
        }
    }

    /// Adds the formation moves of a snapshot, checking them: ascending group ids below
    /// [`MAX_GROUPS`], each formation valid ([`Formation::validate`]).
    pub(crate) fn restore_formations(
        &mut self,
        records: Vec<(u32, Formation)>,
        next_id: u32,
    ) -> Result<(), SimError> {
        let mut previous = None;
        for (g, f) in records {
            if previous.is_some_and(|p| p >= g) || g >= MAX_GROUPS {
                return Err(SimError::OutOfDomain {
                    what: "formation group ids",
                    allowed: "strictly ascending below 4,096",
                });
            }
            previous = Some(g);
            f.validate(next_id)?;
            self.formations.insert(g, f);
        }
        Ok(())
    }

    /// Builds the groups of a snapshot, checking their invariants: ascending group ids below
    /// [`MAX_GROUPS`], each non-empty, at most [`MAX_GROUP_MEMBERS`] strictly ascending member
    /// ids below `next_id`.
    pub(crate) fn from_records(
        records: Vec<(u32, Vec<AgentId>)>,
        next_id: u32,
    ) -> Result<Self, &'static str> {
        let mut map = BTreeMap::new();
        let mut previous = None;
        for (g, members) in records {
            if previous.is_some_and(|p| p >= g) || g >= MAX_GROUPS {
                return Err("group ids not strictly ascending below 4,096");
            }
            previous = Some(g);
            if members.is_empty() || members.len() > MAX_GROUP_MEMBERS {
                return Err("a group empty or of more than 65,536 members");
            }
            if members.windows(2).any(|w| w[0] >= w[1])
                || members.last().is_some_and(|m| m.0 >= next_id)
            {
                return Err("group members not strictly ascending below the id counter");
            }
            map.insert(g, members);
        }
        Ok(Self {
            map,
            formations: BTreeMap::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_checked() {
        let ok = Groups::from_records(vec![(1, vec![AgentId(0), AgentId(2)])], 3).unwrap();
        assert_eq!(ok.get(1), Some(&[AgentId(0), AgentId(2)][..]));
        assert!(Groups::from_records(vec![(1, vec![AgentId(2), AgentId(0)])], 3).is_err());
        assert!(Groups::from_records(vec![(1, vec![AgentId(3)])], 3).is_err());
        assert!(Groups::from_records(vec![(1, vec![])], 3).is_err());
        assert!(
            Groups::from_records(vec![(2, vec![AgentId(0)]), (1, vec![AgentId(0)])], 3).is_err()
        );
        assert!(Groups::from_records(vec![(MAX_GROUPS, vec![AgentId(0)])], 3).is_err());
        assert!(check_group(MAX_GROUPS - 1, MAX_GROUP_MEMBERS).is_ok());
        assert!(check_group(MAX_GROUPS, 1).is_err());
        assert!(check_group(0, MAX_GROUP_MEMBERS + 1).is_err());
    }
}
