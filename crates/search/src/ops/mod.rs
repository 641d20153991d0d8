//! The commands after the leading search clause, one file per command, driven by [`Executor`].
//!
//! Rows flow in batches, push-based: the scan hands each batch (newest first for event
//! searches) to [`Executor::push`], which passes it through every operator in order; whatever
//! leaves the last operator is final output. Streaming commands emit at once, transforming ones
//! (stats, timechart, top/rare, sort, tail) keep state and emit in [`Executor::finish`]. An
//! operator that wants no more input (`head` satisfied) returns [`Flow::Stop`]; the executor then
//! answers `Stop` to the scan and drops anything later offered to that operator.

mod accum;
mod addtotals;
mod append;
mod appendcols;
mod appendpipe;
mod autoregress;
mod bin;
mod chart;
mod collect;
mod convert;
mod data;
mod dedup;
mod delta;
mod eval;
mod eventstats;
mod extract;
mod fields;
mod fieldsummary;
mod filldown;
mod fillnull;
mod format;
mod glob;
mod head;
pub(crate) mod inputlookup;
mod join;
mod limits;
mod lookup;
mod makemv;
mod mvcombine;
mod mvexpand;
mod nomv;
mod outputlookup;
mod partial;
mod regex_;
mod rename;
mod replace;
mod required;
mod return_;
mod reverse;
mod rex;
mod search;
mod sort;
pub(crate) mod span;
mod spath;
mod split;
mod stats;
mod streamstats;
mod table;
mod tail;
pub(crate) mod timechart;
mod top;
mod transaction;
mod union;
mod uniq;
mod where_;
mod xmlkv;

pub use limits::Limits;
pub use partial::Partial;
pub use split::{FinalExec, PartialExec, Split};

use crate::compose::runner::SubsearchRunner;
use crate::error::SearchError;
use crate::row::Row;
use lode_event::Micros;
use lode_spl::ast::data::DataCommand;
use lode_spl::ast::Command;

/// What a search run knows about its context.
#[derive(Debug, Clone, Copy)]
pub struct ExecContext {
    /// Search start time (`now()`), microseconds since the epoch.
    pub now: Micros,
    /// Resolved start of the searched time range (inclusive), microseconds; `None` = all time.
    pub earliest: Option<Micros>,
    /// Resolved end of the searched time range (exclusive), microseconds; `None` = up to now/all.
    pub latest: Option<Micros>,
    /// The user's time zone (timechart day/month buckets, strftime).
    pub tz: lode_time::Zone,
}

/// Whether an operator (or the whole pipeline) wants more input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Keep pushing.
    Continue,
    /// No more input wanted (e.g. `head` satisfied); call `finish` next.
    Stop,
}

/// One command's processor. `push` consumes a batch it owns and appends output rows to `out`
/// (a buffer owned by the caller); `finish` flushes state at the end of input.
pub(crate) trait Op: Send {
    /// Processes one batch.
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError>;
    /// End of input: emits what was held back.
    fn finish(&mut self, _out: &mut Vec<Row>) -> Result<(), SearchError> {
        Ok(())
    }
}

/// Runs the commands AFTER the leading search clause (the leading `Command::Search` is handled
/// by the scan and [`crate::matcher`]).
pub struct Executor {
    /// The operators in pipeline order.
    ops: Vec<Box<dyn Op>>,
    /// `done[i]`: operator `i` returned `Stop`; rows offered to it are dropped.
    done: Vec<bool>,
    /// Whether some command is transforming.
    transforming: bool,
    /// What [`Executor::required_fields`] answers.
    required: Option<Vec<String>>,
}

impl Executor {
    /// Builds the operators with default [`Limits`].
    pub fn new(commands: &[Command], ctx: ExecContext) -> Result<Executor, SearchError> {
        Executor::with_limits(commands, ctx, Limits::default())
    }

    /// Builds the operators with explicit memory limits.
    pub fn with_limits(
        commands: &[Command],
        ctx: ExecContext,
        limits: Limits,
    ) -> Result<Executor, SearchError> {
        Executor::with_runner(commands, ctx, limits, None)
    }

    /// Builds the operators with explicit memory limits and the runner of nested searches
    /// (`append`, `join`, … and a mid-pipeline `collect` need one; `None` makes them fail).
    pub fn with_runner(
        commands: &[Command],
        ctx: ExecContext,
        limits: Limits,
        runner: Option<&SubsearchRunner>,
    ) -> Result<Executor, SearchError> {
        let mut ops: Vec<Box<dyn Op>> = Vec::with_capacity(commands.len());
        for c in commands {
            ops.push(build(c, ctx, limits, runner)?);
        }
        Ok(Executor::from_ops(
            ops,
            commands.iter().any(is_transforming),
            required::required_fields(commands),
        ))
    }

    /// An executor over operators already built.
    fn from_ops(
        ops: Vec<Box<dyn Op>>,
        transforming: bool,
        required: Option<Vec<String>>,
    ) -> Executor {
        let done = vec![false; ops.len()];
        Executor {
            ops,
            done,
            transforming,
            required,
        }
    }

    /// Pushes a batch (in the order the scan produced it: newest first for event searches);
    /// appends any rows that are final output to `out`.
    pub fn push(&mut self, batch: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        self.run_from(0, batch, out)?;
        Ok(if self.done.iter().any(|&d| d) {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }

    /// Passes `rows` through operators `start..`, appending the final output to `out`.
    fn run_from(
        &mut self,
        start: usize,
        rows: Vec<Row>,
        out: &mut Vec<Row>,
    ) -> Result<(), SearchError> {
        let mut cur = rows;
        for i in start..self.ops.len() {
            if self.done[i] {
                return Ok(());
            }
            if cur.is_empty() {
                return Ok(());
            }
            let mut next = Vec::new();
            if self.ops[i].push(cur, &mut next)? == Flow::Stop {
                self.done[i] = true;
            }
            cur = next;
        }
        out.append(&mut cur);
        Ok(())
    }

    /// End of input: flushes every operator in order, feeding each one's held rows to the rest.
    pub fn finish(mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        for i in 0..self.ops.len() {
            let mut held = Vec::new();
            self.ops[i].finish(&mut held)?;
            self.done[i] = true;
            if i + 1 == self.ops.len() {
                out.append(&mut held);
            } else {
                self.run_from(i + 1, held, out)?;
            }
        }
        Ok(())
    }

    /// True when some command is transforming (stats, timechart, top, rare): the scan may then
    /// read buckets in any order.
    pub fn is_transforming(&self) -> bool {
        self.transforming
    }

    /// Fields the pipeline may read, `None` = all (lets the scan skip extraction it does not
    /// need). `_time` and `_raw` are always included when a list is given.
    pub fn required_fields(&self) -> Option<Vec<String>> {
        self.required.clone()
    }
}

/// Whether `c` is a transforming command (stats, timechart, top, rare).
fn is_transforming(c: &Command) -> bool {
    matches!(
        c,
        Command::Stats(_) | Command::Timechart(_) | Command::Top(_) | Command::Chart(_)
    )
}

/// The operator of one command (`runner` runs the nested searches of those that have one).
fn build(
    c: &Command,
    ctx: ExecContext,
    limits: Limits,
    runner: Option<&SubsearchRunner>,
) -> Result<Box<dyn Op>, SearchError> {
    // A `collect` that is not the last command (the last one wraps the output instead).
    if let Command::Data(DataCommand::Collect(col)) = c {
        return Ok(Box::new(collect::CollectOp::new(col, runner)?));
    }
    let op: Box<dyn Op> = match c {
        Command::Search(expr) => Box::new(search::SearchOp::new(expr.clone())),
        Command::Data(d) => data::build(d, limits)?,
        Command::Where(e) => Box::new(where_::WhereOp::new(e.clone(), ctx)?),
        Command::Append(a) => Box::new(append::AppendOp::new(a, runner)),
        Command::AppendCols(a) => Box::new(appendcols::AppendColsOp::new(a, runner)),
        Command::Union(u) => Box::new(union::UnionOp::new(u, runner)),
        Command::Join(j) => Box::new(join::JoinOp::new(j, limits, runner)?),
        Command::Format(f) => Box::new(format::FormatOp::new(f.clone(), limits)),
        Command::Return(r) => Box::new(return_::ReturnOp::new(r.clone())),
        Command::AppendPipe(sub) => {
            Box::new(appendpipe::AppendPipeOp::new(sub, ctx, limits, runner)?)
        }
        Command::Eval(a) => Box::new(eval::EvalOp::new(a.clone(), ctx)?),
        Command::Fields { remove, fields } => {
            Box::new(fields::FieldsOp::new(*remove, fields.clone()))
        }
        Command::Table(f) => Box::new(table::TableOp::new(f.clone())),
        Command::Rename(p) => Box::new(rename::RenameOp::new(p.clone())),
        Command::Sort { limit, keys } => Box::new(sort::SortOp::new(*limit, keys.clone(), limits)?),
        Command::Head(n) => Box::new(head::HeadOp::new(*n)),
        Command::Tail(n) => Box::new(tail::TailOp::new(*n, limits)?),
        Command::Dedup {
            count,
            fields,
            keepempty,
            consecutive,
            sortby,
        } => Box::new(
            dedup::DedupOp::new(*count, fields.clone(), *keepempty, *consecutive, limits)
                .sorted_by(sortby, limits)?,
        ),
        Command::Rex {
            field,
            pattern,
            max_match,
            sed: false,
            offset_field,
        } => Box::new(
            rex::RexOp::new(field.clone(), pattern, *max_match)?.with_offsets(offset_field.clone()),
        ),
        Command::Rex {
            field,
            pattern,
            sed: true,
            ..
        } => Box::new(rex::SedOp::new(field.clone(), pattern)?),
        Command::Stats(_) | Command::Timechart(_) | Command::Top(_) => {
            Partial::build(c, ctx, limits)?.into_op()
        }
        Command::EventStats(s) => Box::new(eventstats::EventStatsOp::new(s.clone(), limits)?),
        Command::StreamStats(s) => Box::new(streamstats::StreamStatsOp::new(s.clone(), ctx)?),
        Command::Accum { field, alias } => {
            Box::new(accum::AccumOp::new(field.clone(), alias.clone()))
        }
        Command::Delta { field, alias, p } => {
            Box::new(delta::DeltaOp::new(field.clone(), alias.clone(), *p)?)
        }
        Command::Regex {
            field,
            negate,
            pattern,
        } => Box::new(regex_::RegexOp::new(field.clone(), *negate, pattern)?),
        Command::Reverse => Box::new(reverse::ReverseOp::new(limits)),
        Command::FillNull { value, fields } => Box::new(fillnull::FillNullOp::new(
            value.clone(),
            fields.clone(),
            limits,
        )),
        Command::Bin(b) => Box::new(bin::BinOp::new(b.clone(), ctx, limits)?),
        Command::Chart(_) => Partial::build(c, ctx, limits)?.into_op(),
        Command::MakeMv {
            field,
            delim,
            tokenizer,
            allowempty,
            setsv,
        } => Box::new(makemv::MakeMvOp::new(
            field.clone(),
            delim.clone(),
            tokenizer.as_deref(),
            *allowempty,
            *setsv,
        )?),
        Command::MvExpand { field, limit } => {
            Box::new(mvexpand::MvExpandOp::new(field.clone(), *limit))
        }
        Command::MvCombine { field, .. } => {
            Box::new(mvcombine::MvCombineOp::new(field.clone(), limits))
        }
        Command::NoMv(field) => Box::new(nomv::NoMvOp::new(field.clone())),
        Command::FillDown(fields) => Box::new(filldown::FillDownOp::new(fields.clone())),
        Command::AutoRegress {
            field,
            alias,
            from,
            to,
        } => Box::new(autoregress::AutoRegressOp::new(
            field.clone(),
            alias.clone(),
            *from,
            *to,
        )?),
        Command::AddTotals(a) => Box::new(addtotals::AddTotalsOp::new(
            a.row,
            a.col,
            a.labelfield.clone(),
            a.label.clone(),
            a.fieldname.clone(),
            &a.fields,
            limits,
        )),
        Command::AddColTotals {
            labelfield,
            label,
            fields,
        } => Box::new(addtotals::AddTotalsOp::new(
            false,
            true,
            labelfield.clone(),
            label.clone(),
            String::new(),
            fields,
            limits,
        )),
        Command::Uniq => Box::<uniq::UniqOp>::default(),
        Command::Replace { pairs, fields } => Box::new(replace::ReplaceOp::new(pairs, fields)),
        Command::Convert { timeformat, items } => {
            Box::new(convert::ConvertOp::new(timeformat, items, ctx)?)
        }
        Command::Transaction(t) => {
            Box::new(transaction::TransactionOp::new(t.clone(), ctx, limits)?)
        }
        Command::Spath {
            input,
            output,
            path,
        } => Box::new(spath::SpathOp::new(
            input.clone(),
            output.clone(),
            path.clone(),
            ctx,
        )),
        Command::Extract { pairdelim, kvdelim } => Box::new(extract::ExtractOp::new(
            pairdelim.as_deref(),
            kvdelim.as_deref(),
        )),
        Command::XmlKv => Box::new(xmlkv::XmlKvOp::new()),
    };
    Ok(op)
}

/// Output columns in Splunk's order for a set of result rows (for table/csv output).
///
/// Tabular results (transforming searches, or rows without `_raw` after `table`/`fields -
/// _raw`) list every field in order of first appearance. Event results list `_time`, then the
/// visible fields (not starting with `_`) in order of first appearance, then `_raw`.
pub fn columns(rows: &[Row], transforming: bool) -> Vec<String> {
    let tabular = transforming || !rows.iter().any(|r| r.peek("_raw").is_some());
    let mut seen: Vec<String> = Vec::new();
    for r in rows {
        for (n, _) in r.fields() {
            if !seen.iter().any(|s| s == n) {
                seen.push(n.to_string());
            }
        }
    }
    if tabular {
        return seen;
    }
    let mut cols = Vec::with_capacity(seen.len());
    if seen.iter().any(|s| s == "_time") {
        cols.push("_time".to_string());
    }
    cols.extend(seen.iter().filter(|s| !s.starts_with('_')).cloned());
    cols.push("_raw".to_string());
    cols
}

#[cfg(test)]
pub(crate) mod tests;
