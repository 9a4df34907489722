//! replay
pub struct Replay;
pub struct VerifyReport;
