//! Aggregations of `stats`, `timechart` and `top`: one file per family, each a partial state with
//! `update`, `merge` (so partial results of several workers or time buckets combine) and a result.
//! [`AggState`] dispatches over them for one [`lode_spl::ast::Agg`].

pub mod count;
pub mod distinct;
pub mod extreme;
pub mod list;
pub mod mode;
pub mod perc;
pub mod rate;
pub mod stat;
pub mod sum;
pub mod time;

use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::Agg;

/// Which aggregation a state computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `count` (rows).
    CountRows,
    /// `count(f)`.
    Count,
    /// `dc(f)`.
    Dc,
    /// `values(f)`.
    Values,
    /// `sum(f)`.
    Sum,
    /// `avg(f)`.
    Avg,
    /// `min(f)`.
    Min,
    /// `max(f)`.
    Max,
    /// `earliest(f)`.
    Earliest,
    /// `latest(f)`.
    Latest,
    /// `earliest_time(f)`, `latest_time(f)` (`true`).
    Time(bool),
    /// `stdev`, `stdevp`, `var`, `varp`, `sumsq`, `range`.
    Stat(stat::Func),
    /// `median(f)`.
    Median,
    /// `perc<X>(f)` and its spellings: how, and X in thousandths.
    Perc(perc::Mode, u32),
    /// `mode(f)`.
    Mode,
    /// `list(f)`.
    List,
    /// `first(f)`, `last(f)` (`true`).
    Pick(bool),
    /// `rate(f)`.
    Rate,
}

impl Kind {
    /// The kind for an aggregation as parsed, or a user error naming an unsupported function or
    /// a missing field argument.
    pub fn of(agg: &Agg) -> Result<Kind, SearchError> {
        if let (Some((mode, milli)), true) = (perc::parse_name(&agg.func), agg.field.is_some()) {
            return Ok(Kind::Perc(mode, milli));
        }
        let k = match (agg.func.as_str(), agg.field.is_some()) {
            ("count", false) => Kind::CountRows,
            ("count", true) => Kind::Count,
            ("dc" | "distinct_count" | "estdc", true) => Kind::Dc,
            ("values", true) => Kind::Values,
            ("sum", true) => Kind::Sum,
            ("avg" | "mean", true) => Kind::Avg,
            ("min", true) => Kind::Min,
            ("max", true) => Kind::Max,
            ("earliest", true) => Kind::Earliest,
            ("latest", true) => Kind::Latest,
            ("earliest_time", true) => Kind::Time(false),
            ("latest_time", true) => Kind::Time(true),
            ("stdev", true) => Kind::Stat(stat::Func::Stdev),
            ("stdevp", true) => Kind::Stat(stat::Func::Stdevp),
            ("var", true) => Kind::Stat(stat::Func::Var),
            ("varp", true) => Kind::Stat(stat::Func::Varp),
            ("sumsq", true) => Kind::Stat(stat::Func::Sumsq),
            ("range", true) => Kind::Stat(stat::Func::Range),
            ("median", true) => Kind::Median,
            ("mode", true) => Kind::Mode,
            ("list", true) => Kind::List,
            ("first", true) => Kind::Pick(false),
            ("last", true) => Kind::Pick(true),
            ("rate", true) => Kind::Rate,
            ("per_second" | "per_minute" | "per_hour" | "per_day", true) => {
                return Err(SearchError::User(format!(
                    "'{}' is only valid in timechart",
                    agg.func
                )))
            }
            (f, false) => {
                return Err(SearchError::User(format!(
                    "the aggregation '{f}' needs a field argument"
                )))
            }
            (f, true) => {
                return Err(SearchError::User(format!(
                    "unsupported aggregation function '{f}'"
                )))
            }
        };
        Ok(k)
    }

    /// Whether an empty bucket shows 0 (timechart fill) rather than null.
    pub fn zero_when_empty(self) -> bool {
        matches!(self, Kind::CountRows | Kind::Count | Kind::Dc | Kind::Sum)
    }
}

/// The partial state of one aggregation.
#[derive(Debug, Clone, PartialEq)]
pub enum AggState {
    /// `count`, `count(f)`.
    Count(count::Count),
    /// `dc`, `values`.
    Distinct(distinct::Distinct),
    /// `sum`, `avg`.
    Sum(sum::Sum),
    /// `min`, `max`.
    Extreme(extreme::Extreme),
    /// `earliest`, `latest`, `earliest_time`, `latest_time`.
    Time(time::TimeSel),
    /// `stdev`, `stdevp`, `var`, `varp`, `sumsq`, `range`.
    Moments(stat::Moments),
    /// `median`, percentiles.
    Sample(perc::Sample),
    /// `mode`.
    Mode(mode::Mode),
    /// `list`.
    List(list::List),
    /// `first`, `last`.
    Pick(list::Pick),
    /// `rate`.
    Rate(rate::Rate),
}

impl AggState {
    /// An empty state for `kind`.
    pub fn new(kind: Kind) -> AggState {
        match kind {
            Kind::CountRows | Kind::Count => AggState::Count(count::Count::default()),
            Kind::Dc | Kind::Values => AggState::Distinct(distinct::Distinct::default()),
            Kind::Sum | Kind::Avg => AggState::Sum(sum::Sum::default()),
            Kind::Min => AggState::Extreme(extreme::Extreme::new(false)),
            Kind::Max => AggState::Extreme(extreme::Extreme::new(true)),
            Kind::Earliest => AggState::Time(time::TimeSel::new(false)),
            Kind::Latest => AggState::Time(time::TimeSel::new(true)),
            Kind::Time(latest) => AggState::Time(time::TimeSel::new(latest)),
            Kind::Stat(_) => AggState::Moments(stat::Moments::default()),
            Kind::Median | Kind::Perc(..) => AggState::Sample(perc::Sample::default()),
            Kind::Mode => AggState::Mode(mode::Mode::default()),
            Kind::List => AggState::List(list::List::default()),
            Kind::Pick(last) => AggState::Pick(list::Pick::new(last)),
            Kind::Rate => AggState::Rate(rate::Rate::default()),
        }
    }

    /// Feeds the value `v` of the aggregated field (`None` for `count` of rows) from a row at
    /// time `t` (microseconds; used by earliest/latest).
    pub fn update(&mut self, v: Option<&Value>, t: Option<lode_event::Micros>) {
        match (self, v) {
            (AggState::Count(c), None) => c.update_row(),
            (AggState::Count(c), Some(v)) => c.update(v),
            (AggState::Distinct(d), Some(v)) => d.update(v),
            (AggState::Sum(s), Some(v)) => s.update(v),
            (AggState::Extreme(e), Some(v)) => e.update(v),
            (AggState::Time(s), Some(v)) => {
                if let Some(t) = t {
                    s.update(t, v)
                }
            }
            (AggState::Moments(m), Some(v)) => m.update(v),
            (AggState::Sample(s), Some(v)) => s.update(v),
            (AggState::Mode(m), Some(v)) => m.update(v),
            (AggState::List(l), Some(v)) => l.update(v, t),
            (AggState::Pick(p), Some(v)) => p.update(v, t),
            (AggState::Rate(r), Some(v)) => {
                if let Some(t) = t {
                    r.update(t, v)
                }
            }
            _ => {}
        }
    }

    /// Feeds the same value `v` from `w` rows at once (a counted row of the count pushdown,
    /// [`crate::plan::columns::counts_suffice`]): counts add `w`, sets and extremes see the value
    /// once (as they would `w` times). Other states get `w` single updates — exact, but the
    /// planner never pushes them down.
    pub fn update_counted(&mut self, v: Option<&Value>, t: Option<lode_event::Micros>, w: u64) {
        match self {
            AggState::Count(c) => c.update_counted(v, w),
            AggState::Distinct(_) | AggState::Extreme(_) => {
                if w > 0 {
                    self.update(v, t)
                }
            }
            _ => (0..w).for_each(|_| self.update(v, t)),
        }
    }

    /// Merges another partial state of the same aggregation (states of different kinds are
    /// left unchanged).
    pub fn merge(&mut self, other: AggState) {
        match (self, other) {
            (AggState::Count(a), AggState::Count(b)) => a.merge(b),
            (AggState::Distinct(a), AggState::Distinct(b)) => a.merge(b),
            (AggState::Sum(a), AggState::Sum(b)) => a.merge(b),
            (AggState::Extreme(a), AggState::Extreme(b)) => a.merge(b),
            (AggState::Time(a), AggState::Time(b)) => a.merge(b),
            (AggState::Moments(a), AggState::Moments(b)) => a.merge(b),
            (AggState::Sample(a), AggState::Sample(b)) => a.merge(b),
            (AggState::Mode(a), AggState::Mode(b)) => a.merge(b),
            (AggState::List(a), AggState::List(b)) => a.merge(b),
            (AggState::Pick(a), AggState::Pick(b)) => a.merge(b),
            (AggState::Rate(a), AggState::Rate(b)) => a.merge(b),
            _ => {}
        }
    }

    /// The final value for `kind`.
    pub fn result(&self, kind: Kind) -> Value {
        match (self, kind) {
            (AggState::Count(c), _) => c.result(),
            (AggState::Distinct(d), Kind::Dc) => d.count(),
            (AggState::Distinct(d), _) => d.values(),
            (AggState::Sum(s), Kind::Avg) => s.avg(),
            (AggState::Sum(s), _) => s.sum(),
            (AggState::Extreme(e), _) => e.result(),
            (AggState::Time(s), Kind::Time(_)) => s
                .best
                .as_ref()
                .map_or(Value::Null, |(t, _)| Value::Num(*t as f64 / 1e6)),
            (AggState::Time(s), _) => s.result(),
            (AggState::Moments(m), Kind::Stat(f)) => m.result(f),
            (AggState::Sample(s), Kind::Perc(mode, milli)) => s.percentile(mode, milli),
            (AggState::Sample(s), _) => s.median(),
            (AggState::Mode(m), _) => m.result(),
            (AggState::List(l), _) => l.result(),
            (AggState::Pick(p), _) => p.result(),
            (AggState::Rate(r), _) => r.result(),
            (AggState::Moments(_), _) => Value::Null,
        }
    }
}

/// One aggregation of a command: its kind, field and output column.
#[derive(Debug, Clone)]
pub struct AggSpec {
    /// What it computes.
    pub kind: Kind,
    /// The aggregated field (`None` for `count`).
    pub field: Option<String>,
    /// Output column name.
    pub column: String,
}

impl AggSpec {
    /// Checks and compiles a parsed aggregation.
    pub fn new(agg: &Agg) -> Result<AggSpec, SearchError> {
        if agg.eval.is_some() {
            // `crate::compose` lowers these to hidden eval fields before planning.
            return Err(SearchError::User(format!(
                "'{}(eval(…))' is only supported in a whole search",
                agg.func
            )));
        }
        Ok(AggSpec {
            kind: Kind::of(agg)?,
            field: agg.field.clone(),
            column: agg.column(),
        })
    }

    /// Feeds `row` into `state`.
    pub fn update(&self, state: &mut AggState, row: &mut Row) {
        self.update_counted(state, row, 1);
    }

    /// Feeds `row`, standing for `w` identical rows, into `state` (see
    /// [`AggState::update_counted`]).
    pub fn update_counted(&self, state: &mut AggState, row: &mut Row, w: u64) {
        let t = row.time();
        let v = match &self.field {
            None => None,
            Some(f) => match row.get(f) {
                Some(v) => Some(v),
                None => return,
            },
        };
        if w == 1 {
            state.update(v, t);
        } else {
            state.update_counted(v, t, w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_errors() {
        let a = |f: &str, field: Option<&str>| Agg {
            func: f.into(),
            field: field.map(str::to_string),
            alias: None,
            eval: None,
        };
        assert_eq!(Kind::of(&a("count", None)).unwrap(), Kind::CountRows);
        assert_eq!(Kind::of(&a("mean", Some("x"))).unwrap(), Kind::Avg);
        assert!(Kind::of(&a("sum", None))
            .unwrap_err()
            .to_string()
            .contains("sum"));
        assert!(Kind::of(&a("nosuch", Some("x")))
            .unwrap_err()
            .to_string()
            .contains("nosuch"));
        assert_eq!(
            Kind::of(&a("p99.5", Some("x"))).unwrap(),
            Kind::Perc(perc::Mode::Interpolate, 99_500)
        );
        assert_eq!(Kind::of(&a("estdc", Some("x"))).unwrap(), Kind::Dc);
        assert!(Kind::of(&a("p101", Some("x"))).is_err());
    }

    #[test]
    fn counted_updates_equal_repeated_ones() {
        let v = Value::Multi(vec![Value::Str("b".into()), Value::Str("a".into())]);
        for kind in [
            Kind::CountRows,
            Kind::Count,
            Kind::Dc,
            Kind::Values,
            Kind::Sum,
            Kind::Min,
            Kind::Max,
        ] {
            let arg = (kind != Kind::CountRows).then_some(&v);
            for w in [0, 1, 5] {
                let mut counted = AggState::new(kind);
                counted.update_counted(arg, Some(1), w);
                let mut repeated = AggState::new(kind);
                (0..w).for_each(|_| repeated.update(arg, Some(1)));
                assert_eq!(counted.result(kind), repeated.result(kind), "{kind:?} x{w}");
            }
        }
    }

    #[test]
    fn states_merge_like_one_pass() {
        let vals: Vec<Value> = ["3", "x", "10", "3"]
            .iter()
            .map(|s| Value::Str(s.to_string()))
            .collect();
        for kind in [
            Kind::Count,
            Kind::Dc,
            Kind::Values,
            Kind::Sum,
            Kind::Avg,
            Kind::Min,
            Kind::Max,
            Kind::Latest,
            Kind::Time(false),
            Kind::Time(true),
            Kind::Stat(stat::Func::Stdev),
            Kind::Stat(stat::Func::Range),
            Kind::Median,
            Kind::Perc(perc::Mode::Interpolate, 90_000),
            Kind::Perc(perc::Mode::Upper, 50_000),
            Kind::Mode,
            Kind::List,
            Kind::Pick(false),
            Kind::Pick(true),
            Kind::Rate,
        ] {
            let mut whole = AggState::new(kind);
            let mut left = AggState::new(kind);
            let mut right = AggState::new(kind);
            for (i, v) in vals.iter().enumerate() {
                whole.update(Some(v), Some(i as i64));
                if i < 2 {
                    left.update(Some(v), Some(i as i64))
                } else {
                    right.update(Some(v), Some(i as i64))
                }
            }
            left.merge(right);
            assert_eq!(left.result(kind), whole.result(kind), "{kind:?}");
        }
    }
}
