//! Whether a search must see events newest first, or may read buckets in any order; and where
//! the pipeline splits into a part every worker runs and a part run once at the end.
//!
//! Each command has a [`Role`]: *streaming* commands work row by row and may run on any worker
//! (and later on any indexer); the *transforming* commands stats/chart/timechart/top/rare keep a
//! mergeable partial state, so each worker runs their partial half and one final step merges
//! them; every other command is *centralized* (it needs all rows, in order: head, tail, sort,
//! dedup). A pipeline whose commands before its first transforming command are all streaming can
//! be split there ([`split_point`]) and read in batch order.

use lode_spl::ast::data::DataCommand;
use lode_spl::ast::Command;

/// Where a command may run when a search is spread over several workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Row by row, independent of order: runs on every worker.
    Streaming,
    /// Mergeable partial state: partial half on every worker, final half once.
    Transforming,
    /// Needs every row in search order: runs once, after the merge.
    Centralized,
}

/// The role of `c`.
pub fn role(c: &Command) -> Role {
    match c {
        Command::Search(_)
        | Command::Where(_)
        | Command::Eval(_)
        | Command::Fields { .. }
        | Command::Table(_)
        | Command::Rename(_)
        | Command::Rex { .. }
        | Command::Regex { .. } => Role::Streaming,
        // Nested searches: they run once, after the merge of batch workers.
        Command::Append(_) | Command::AppendCols(_) | Command::Union(_) | Command::Join(_) => {
            Role::Centralized
        }
        // `lookup` works row by row; `outputlookup` and `inputlookup append=t` need every row
        // (generating commands never reach the executor).
        Command::Data(DataCommand::Lookup(_)) => Role::Streaming,
        Command::Data(_) => Role::Centralized,
        Command::Stats(_) | Command::Timechart(_) | Command::Top(_) | Command::Chart(_) => {
            Role::Transforming
        }
        // One row built from all rows, in order.
        Command::Format(_) | Command::Return(_) | Command::AppendPipe(_) => Role::Centralized,
        // Listed fields are filled row by row; without a list, only fields seen in all rows.
        Command::FillNull { fields, .. } if !fields.is_empty() => Role::Streaming,
        // With a span, each value is binned on its own; otherwise the span needs every value.
        Command::Bin(b) if b.span.is_some() => Role::Streaming,
        Command::AddTotals(a) if !a.col => Role::Streaming,
        Command::MakeMv { .. }
        | Command::MvExpand { .. }
        | Command::NoMv(_)
        | Command::Replace { .. }
        | Command::Convert { .. }
        | Command::Spath { .. }
        | Command::Extract { .. }
        | Command::XmlKv => Role::Streaming,
        Command::Sort { .. }
        | Command::Head(_)
        | Command::Tail(_)
        | Command::Dedup { .. }
        | Command::EventStats(_)
        | Command::StreamStats(_)
        | Command::Accum { .. }
        | Command::Delta { .. }
        | Command::Reverse
        | Command::FillNull { .. }
        | Command::Bin(_)
        | Command::AddTotals(_)
        | Command::MvCombine { .. }
        | Command::FillDown(_)
        | Command::AutoRegress { .. }
        | Command::AddColTotals { .. }
        | Command::Uniq
        | Command::Transaction(_) => Role::Centralized,
    }
}

/// The position of the first transforming command of `rest` when every command before it is
/// streaming: the pipeline splits there into a distributable prefix, the partial/final command
/// and the centralized rest. `None`: no split (event search, or an order-dependent command
/// comes first).
pub fn split_point(rest: &[Command]) -> Option<usize> {
    for (i, c) in rest.iter().enumerate() {
        match role(c) {
            Role::Streaming => {}
            Role::Transforming => return Some(i),
            Role::Centralized => return None,
        }
    }
    None
}

/// Event searches stream newest first. A transforming pipeline may read in any (batch) order,
/// unless a command before its first transforming command depends on the order of its input
/// (`head`, `tail`, `dedup`, `sort` ties…): only streaming commands are order-free.
pub fn needs_time_order(rest: &[Command], transforming: bool) -> bool {
    !transforming || split_point(rest).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lode_spl::ast::Stats;

    fn stats() -> Command {
        Command::Stats(Stats {
            aggs: vec![],
            by: vec![],
            dedup_splitvals: false,
        })
    }

    #[test]
    fn event_searches_are_time_ordered() {
        assert!(needs_time_order(&[Command::Head(5)], false));
        assert!(needs_time_order(&[], false));
        assert_eq!(split_point(&[Command::Head(5)]), None);
    }

    #[test]
    fn row_by_row_before_stats_is_batch() {
        let cmds = [Command::Table(vec!["a".into()]), stats(), Command::Head(1)];
        assert!(!needs_time_order(&cmds, true));
        assert_eq!(split_point(&cmds), Some(1));
    }

    #[test]
    fn head_before_stats_keeps_time_order() {
        assert!(needs_time_order(&[Command::Head(5), stats()], true));
        assert_eq!(split_point(&[Command::Head(5), stats()]), None);
    }

    #[test]
    fn roles() {
        assert_eq!(role(&stats()), Role::Transforming);
        assert_eq!(role(&Command::Head(1)), Role::Centralized);
        assert_eq!(role(&Command::Rename(vec![])), Role::Streaming);
        let es = Command::EventStats(Stats {
            aggs: vec![],
            by: vec![],
            dedup_splitvals: false,
        });
        assert_eq!(role(&es), Role::Centralized);
        assert_eq!(split_point(&[es, stats()]), None);
        assert_eq!(role(&Command::Reverse), Role::Centralized);
        let fill = |fields: Vec<String>| Command::FillNull {
            value: "0".into(),
            fields,
        };
        assert_eq!(role(&fill(vec!["a".into()])), Role::Streaming);
        assert_eq!(role(&fill(vec![])), Role::Centralized);
    }
}
