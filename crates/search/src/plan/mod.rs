//! Planning: from a parsed pipeline to what the scan needs — which indexes, which time range,
//! which term query (a superset of the matching events), which terms a bucket must contain, and
//! the commands left for the executor.
//!
//! Stages, each in its own module: [`lower`] (search clause → [`TermQuery`]), [`index`] (index
//! selection), [`time`] (time range), [`order`] (time-ordered or batch reading), [`explain`]
//! (rendering for `explain`).

pub mod columns;
pub mod explain;
pub mod index;
pub mod lower;
pub mod order;
pub mod terms;
pub mod time;

use lode_event::Micros;
use lode_spl::ast::{Command, Pipeline, SearchExpr};
use lode_store::TermQuery;
use lode_time::Zone;

use crate::SearchError;
use time::TimeRange;

/// What the planner needs besides the pipeline.
#[derive(Debug, Clone, Copy)]
pub struct PlanOptions<'a> {
    /// Request `earliest` modifier as written.
    pub earliest: Option<&'a str>,
    /// Request `latest` modifier as written.
    pub latest: Option<&'a str>,
    /// Search start time (µs), the reference of relative modifiers.
    pub now: Micros,
    /// Zone for snapping relative modifiers.
    pub tz: Zone,
    /// Naive twin: no index use (term query `All`, no required terms).
    pub force_scan: bool,
    /// The caller's index access ([`index::IndexAccess`]); `None` = unrestricted.
    pub access: Option<&'a index::IndexAccess>,
}

/// A planned search.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The leading search clause, verified per event by the matcher (`None`: every event).
    pub clause: Option<SearchExpr>,
    /// The commands after the leading clause, run by the executor.
    pub rest: Vec<Command>,
    /// Indexes to read, sorted by name.
    pub indexes: Vec<String>,
    /// Time range of `_time`.
    pub range: TimeRange,
    /// Candidate events (a superset of the matches).
    pub query: TermQuery,
    /// What candidates are checked against when `exact` is false ([`lower::residual`]): the
    /// clause without the conjuncts the term query already decides.
    pub residual: Option<SearchExpr>,
    /// Terms every match contains (for bloom checks).
    pub required: Vec<Vec<u8>>,
    /// `query` selects exactly the matching events (with the time range and index selection):
    /// the matcher need not re-check candidates.
    pub exact: bool,
    /// Rows can be built from the bucket columns alone ([`columns`]): no raw slice is read.
    pub columns_only: bool,
    /// The clause needs the events (not exact) but the commands after it read only the column
    /// fields ([`columns::reads_only_columns`]): matching events are handed on as rows of just
    /// these column fields ([`columns::fields_read`]), without raw text or search-time fields.
    pub slim_rows: Option<Vec<&'static str>>,
    /// The count pushdown applies ([`columns::counts_suffice`]): the id columns to count by
    /// (`None`: it does not apply).
    pub counted: Option<Vec<String>>,
}

/// Plans `pipeline` over the indexes named in `available`.
pub fn plan(
    pipeline: Pipeline,
    opts: &PlanOptions<'_>,
    available: &[String],
) -> Result<Plan, SearchError> {
    let mut commands = pipeline.commands;
    let clause =
        match commands.first() {
            Some(Command::Search(_)) => match commands.remove(0) {
                Command::Search(expr) => expr,
                _ => None,
            },
            Some(_) => return Err(SearchError::User(
                "a search must start with a search clause (generating commands are not supported)"
                    .into(),
            )),
            None => None,
        };
    let range = time::resolve_range(
        opts.earliest,
        opts.latest,
        clause.as_ref(),
        opts.now,
        opts.tz,
    )?;
    let clause = time::resolve_index_bounds(clause, opts.now, opts.tz)?;
    let indexes = index::select_for(
        &index::index_groups(clause.as_ref()),
        available,
        opts.access,
    );
    let (query, exact) = if opts.force_scan {
        (TermQuery::All, false)
    } else {
        let lowered = lower::lower(clause.as_ref());
        (lowered.query, lowered.exact)
    };
    let residual = if exact {
        None
    } else {
        lower::residual(clause.as_ref())
    };
    // Rows from columns: the index decides the clause, or the clause reads only column fields
    // (then checked on the column rows, as `tstats` needs).
    let columns_only = (exact
        || (!opts.force_scan && columns::clause_reads_only_columns(clause.as_ref())))
        && columns::reads_only_columns(&commands);
    let slim_rows = (!columns_only && columns::reads_only_columns(&commands))
        .then(|| columns::fields_read(&commands));
    // Counting per id combination: of the candidates when the index decides the clause, of the
    // candidates verified in place when the commands read only column fields (slim rows).
    let counts =
        ((exact && columns_only) || slim_rows.is_some()) && columns::counts_suffice(&commands);
    let counted = counts.then(|| columns::counted_columns(&commands));
    let mut required = Vec::new();
    lower::required_terms(&query, &mut required);
    Ok(Plan {
        clause,
        rest: commands,
        indexes,
        range,
        query,
        residual,
        required,
        exact,
        columns_only,
        slim_rows,
        counted,
    })
}

/// The conjuncts of a clause's top-level AND (nested ANDs flattened; a non-AND clause is its own
/// single conjunct). Iterative: no recursion on user input.
pub fn conjuncts(clause: Option<&SearchExpr>) -> Vec<&SearchExpr> {
    let mut out = Vec::new();
    let mut stack: Vec<&SearchExpr> = clause.into_iter().collect();
    while let Some(e) = stack.pop() {
        match e {
            SearchExpr::And(items) => stack.extend(items.iter().rev()),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lode_spl::ast::{CmpOp, Term};

    fn word(s: &str) -> SearchExpr {
        SearchExpr::Term(Term {
            text: s.into(),
            quoted: false,
            whole: false,
            case: false,
        })
    }

    fn opts(force_scan: bool) -> PlanOptions<'static> {
        PlanOptions {
            earliest: None,
            latest: None,
            now: 0,
            tz: Zone::Utc,
            force_scan,
            access: None,
        }
    }

    #[test]
    fn conjuncts_flatten_nested_and_in_order() {
        let e = SearchExpr::And(vec![word("a"), SearchExpr::And(vec![word("b"), word("c")])]);
        assert_eq!(
            conjuncts(Some(&e)),
            vec![&word("a"), &word("b"), &word("c")]
        );
        assert_eq!(conjuncts(Some(&word("x"))), vec![&word("x")]);
    }

    #[test]
    fn plan_splits_clause_and_rest() {
        let clause = SearchExpr::And(vec![
            word("error"),
            SearchExpr::Compare {
                field: "index".into(),
                op: CmpOp::Eq,
                value: "web".into(),
                quoted: false,
            },
        ]);
        let p = Pipeline {
            commands: vec![Command::Search(Some(clause)), Command::Head(3)],
        };
        let available = vec!["main".to_string(), "web".to_string()];
        let planned = plan(p.clone(), &opts(false), &available).unwrap();
        assert_eq!(planned.indexes, vec!["web".to_string()]);
        assert_eq!(planned.query, TermQuery::Term(b"error".to_vec()));
        assert_eq!(planned.required, vec![b"error".to_vec()]);
        assert_eq!(planned.rest, vec![Command::Head(3)]);

        let naive = plan(p, &opts(true), &available).unwrap();
        assert_eq!(naive.query, TermQuery::All);
        assert!(naive.required.is_empty());
    }

    #[test]
    fn generating_commands_are_rejected() {
        let p = Pipeline {
            commands: vec![Command::Head(3)],
        };
        assert!(matches!(
            plan(p, &opts(false), &[]),
            Err(SearchError::User(_))
        ));
    }
}
