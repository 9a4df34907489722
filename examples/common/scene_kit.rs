//! What the navigation soak's and sweep's worlds share (`nav_soak.rs`, `nav_sweep.rs`): a
//! seeded stream of numbers, fixed-point fractions and rectangular buildings.
#![allow(dead_code)]

use lockstep_orca::{Fx, ObstacleShape, Vec2, splitmix64};

/// A deterministic stream of numbers (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..m` (`m > 0`).
    pub fn below(&mut self, m: u64) -> u64 {
        self.0 = splitmix64(self.0);
        self.0 % m
    }

    /// An integer in `lo..hi`.
    pub fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo) as u64) as i32
    }
}

/// `n / d` units.
pub fn fx(n: i32, d: i32) -> Fx {
    Fx::from_num(n) / Fx::from_num(d)
}

/// The rectangle `[x0, x1] × [y0, y1]` (counter-clockwise: a solid block).
pub fn block(x0: Fx, y0: Fx, x1: Fx, y1: Fx) -> ObstacleShape {
    ObstacleShape::Polygon(vec![
        Vec2::new(x0, y0),
        Vec2::new(x1, y0),
        Vec2::new(x1, y1),
        Vec2::new(x0, y1),
    ])
}
