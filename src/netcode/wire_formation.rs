//! A formation move's fields in its slot's `unit` field (wire kind 17,
//! [`PlayerOrder::FormationMove`](super::PlayerOrder::FormationMove)): bits 0–2 the layout,
//! bit 3 the slowest flag, bits 4–15 the facing as two 6-bit two's complement components,
//! bits 16–31 the spacing in 1/64 units. The group and the goal travel as a group move's do.

use super::PlayerOrderError;
use crate::math::Fx;
use crate::orders::formation::{FormationKind, MAX_SPACING};

/// A formation move's spacing on the wire is the Q32.32 bits shifted right by this: units of
/// 1/64, so a `u16` covers the simulator's whole range (1/64 ..= 1,000 as 1 ..= 64,000).
pub const FORMATION_SPACING_SHIFT: u32 = 26;
/// The largest wire spacing: 1,000 in 1/64 units.
const MAX_WIRE_SPACING: u32 = (MAX_SPACING.to_bits() >> FORMATION_SPACING_SHIFT) as u32;
/// The least and largest facing component on the wire (6-bit two's complement).
const FACING_MIN: i8 = -32;
const FACING_MAX: i8 = 31;
/// [`PlayerOrder::FormationMove`](super::PlayerOrder::FormationMove)'s fields in [`WireOrder::unit`](super::WireOrder::unit).
const FORMATION_KIND_MASK: u32 = 0b111;
const FORMATION_SLOWEST: u32 = 1 << 3;
const FORMATION_FACING_X: u32 = 4;
const FORMATION_FACING_Y: u32 = 10;
const FORMATION_SPACING: u32 = 16;

/// Packs a formation move's `unit` field (see [`PlayerOrder::FormationMove`](super::PlayerOrder::FormationMove)).
pub(super) fn pack_formation(
    formation: FormationKind,
    facing: Option<(i8, i8)>,
    spacing: Option<Fx>,
    slowest: bool,
) -> Result<u32, PlayerOrderError> {
    let facing_bits = match facing {
        None => 0,
        Some((0, 0)) => return Err(PlayerOrderError::BadFacing),
        Some((fx, fy)) => {
            let range = FACING_MIN..=FACING_MAX;
            if !range.contains(&fx) || !range.contains(&fy) {
                return Err(PlayerOrderError::BadFacing);
            }
            (u32::from(fx as u8 & 0x3f) << FORMATION_FACING_X)
                | (u32::from(fy as u8 & 0x3f) << FORMATION_FACING_Y)
        }
    };
    let spacing_bits = match spacing {
        None => 0,
        Some(s) => {
            let w = s.to_bits() >> FORMATION_SPACING_SHIFT;
            u32::try_from(w)
                .ok()
                .filter(|w| (1..=MAX_WIRE_SPACING).contains(w))
                .ok_or(PlayerOrderError::BadSpacing(saturate_u16(w)))?
        }
    };
    let slowest_bit = if slowest { FORMATION_SLOWEST } else { 0 };
    Ok(u32::from(formation.canonical_byte())
        | slowest_bit
        | facing_bits
        | (spacing_bits << FORMATION_SPACING))
}

/// A wire spacing for [`PlayerOrderError::BadSpacing`]: negative ones as 0, large ones as
/// `u16::MAX`.
pub(in crate::netcode) fn saturate_u16(w: i64) -> u16 {
    u16::try_from(w.max(0)).unwrap_or(u16::MAX)
}

/// Reads a formation move's `unit` field: `(formation, facing, spacing, slowest)`.
pub(super) type FormationFields = (FormationKind, Option<(i8, i8)>, Option<Fx>, bool);
pub(super) fn unpack_formation(unit: u32) -> Result<FormationFields, PlayerOrderError> {
    let kind_bits = (unit & FORMATION_KIND_MASK) as u8;
    let formation = FormationKind::from_canonical_byte(kind_bits)
        .ok_or(PlayerOrderError::UnknownFormation(kind_bits))?;
    // A 6-bit two's complement component: shifted to the top of an i8 and back.
    let component = |shift: u32| ((((unit >> shift) & 0x3f) as u8) << 2) as i8 >> 2;
    let facing = match (component(FORMATION_FACING_X), component(FORMATION_FACING_Y)) {
        (0, 0) => None,
        f => Some(f),
    };
    let wire_spacing = unit >> FORMATION_SPACING;
    let spacing = match wire_spacing {
        0 => None,
        w if w <= MAX_WIRE_SPACING => Some(Fx::from_bits(i64::from(w) << FORMATION_SPACING_SHIFT)),
        w => return Err(PlayerOrderError::BadSpacing(w as u16)),
    };
    Ok((formation, facing, spacing, unit & FORMATION_SLOWEST != 0))
}
