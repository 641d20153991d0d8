//! Whether a search must see events newest first, or may read buckets in any order.

use lode_spl::ast::Command;

/// Event searches stream newest first. A transforming pipeline may read in any (batch) order,
/// unless a command before its first transforming command depends on the order of its input
/// (`head`, `tail`, `dedup`, `sort` ties…): only row-by-row commands are order-free.
pub fn needs_time_order(rest: &[Command], transforming: bool) -> bool {
    if !transforming {
        return true;
    }
    for c in rest {
        match c {
            Command::Stats(_) | Command::Timechart(_) | Command::Top(_) => return false,
            Command::Search(_)
            | Command::Where(_)
            | Command::Eval(_)
            | Command::Fields { .. }
            | Command::Table(_)
            | Command::Rename(_)
            | Command::Rex { .. } => {}
            _ => return true,
        }
    }
    // Transforming, but no transforming command found among these: be safe.
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use lode_spl::ast::Stats;

    fn stats() -> Command {
        Command::Stats(Stats {
            aggs: vec![],
            by: vec![],
        })
    }

    #[test]
    fn event_searches_are_time_ordered() {
        assert!(needs_time_order(&[Command::Head(5)], false));
        assert!(needs_time_order(&[], false));
    }

    #[test]
    fn row_by_row_before_stats_is_batch() {
        let cmds = [Command::Table(vec!["a".into()]), stats(), Command::Head(1)];
        assert!(!needs_time_order(&cmds, true));
    }

    #[test]
    fn head_before_stats_keeps_time_order() {
        assert!(needs_time_order(&[Command::Head(5), stats()], true));
    }
}
