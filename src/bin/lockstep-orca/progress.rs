//! Progress on stderr, only when stderr is a terminal: non-interactive output never changes.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// A progress bar or spinner, or nothing when stderr is not a terminal.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    fn enabled() -> bool {
        std::io::stderr().is_terminal()
    }

    /// A bar of `len` ticks (the tick limit; a run that stops early finishes it).
    pub fn bar(len: u64, what: &str) -> Self {
        if !Self::enabled() {
            return Self(None);
        }
        let bar = ProgressBar::new(len);
        if let Ok(style) = ProgressStyle::with_template(&format!(
            "{what} {{bar:40}} tick {{pos}}/{{len}} {{per_sec}} eta {{eta}}"
        )) {
            bar.set_style(style);
        }
        Self(Some(bar))
    }

    /// A spinner with a message, for work that reports no position.
    pub fn spinner(message: String) -> Self {
        if !Self::enabled() {
            return Self(None);
        }
        let bar = ProgressBar::new_spinner();
        bar.set_message(message);
        bar.enable_steady_tick(Duration::from_millis(120));
        Self(Some(bar))
    }

    /// Sets the position (ticks done).
    pub fn set(&self, pos: u64) {
        if let Some(b) = &self.0 {
            b.set_position(pos);
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
