//! Progress bars on a terminal, nothing when stderr is piped.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// A byte-count progress bar of `total` bytes (0 = unknown), hidden unless stderr is a terminal.
pub fn bytes(total: u64, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = if total > 0 {
        ProgressBar::new(total)
    } else {
        ProgressBar::new_spinner()
    };
    let template = if total > 0 {
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}"
    } else {
        "{msg} {spinner} {bytes} {bytes_per_sec}"
    };
    bar.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}
