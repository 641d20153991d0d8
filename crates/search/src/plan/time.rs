//! The time range a search reads: the request's modifiers, overridden by `earliest=`/`latest=`
//! written in the search clause's top-level AND. `earliest` is inclusive, `latest` exclusive.

use lode_event::Micros;
use lode_spl::ast::{CmpOp, SearchExpr, TimeBound};
use lode_time::Zone;

use super::conjuncts;
use crate::SearchError;

const MICROS_PER_SEC: i64 = 1_000_000;

/// A half-open range of `_time` values, µs since the epoch; `None` = unbounded on that side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeRange {
    /// First time included (µs), if bounded.
    pub earliest: Option<Micros>,
    /// First time excluded (µs), if bounded.
    pub latest: Option<Micros>,
}

impl TimeRange {
    /// Whether an event at `t` (µs) is in range.
    pub fn contains(&self, t: Micros) -> bool {
        self.earliest.is_none_or(|e| t >= e) && self.latest.is_none_or(|l| t < l)
    }

    /// Whether some time in `min..=max` (µs) is in range.
    pub fn overlaps(&self, min: Micros, max: Micros) -> bool {
        min <= max && self.earliest.is_none_or(|e| max >= e) && self.latest.is_none_or(|l| min < l)
    }

    /// Whether every time in `min..=max` (µs) is in range.
    pub fn covers(&self, min: Micros, max: Micros) -> bool {
        self.contains(min) && self.contains(max)
    }

    /// Whether a bucket named with the whole-second range `min_secs..=max_secs` may hold events in
    /// range. Conservative by one second on each side, whichever way the writer rounded.
    pub fn overlaps_secs(&self, min_secs: i64, max_secs: i64) -> bool {
        let lo = min_secs.saturating_sub(1).saturating_mul(MICROS_PER_SEC);
        let hi = max_secs.saturating_add(2).saturating_mul(MICROS_PER_SEC);
        self.overlaps(lo, hi)
    }

    /// Whether no time can be in range.
    pub fn is_empty(&self) -> bool {
        matches!((self.earliest, self.latest), (Some(e), Some(l)) if e >= l)
    }
}

/// Resolves the search's time range. `req_earliest`/`req_latest` are the request's modifiers as
/// written; an `earliest=`/`latest=` in the clause's top-level AND wins over them (the last one
/// written, when repeated). Modifier syntax: `lode_time::relative::resolve`.
pub fn resolve_range(
    req_earliest: Option<&str>,
    req_latest: Option<&str>,
    clause: Option<&SearchExpr>,
    now: Micros,
    tz: Zone,
) -> Result<TimeRange, SearchError> {
    let mut earliest = req_earliest;
    let mut latest = req_latest;
    for c in conjuncts(clause) {
        if let SearchExpr::TimeBound { bound, value } = c {
            match bound {
                TimeBound::Earliest => earliest = Some(value),
                TimeBound::Latest => latest = Some(value),
            }
        }
    }
    Ok(TimeRange {
        earliest: resolve_one("earliest", earliest, now, tz)?,
        latest: resolve_one("latest", latest, now, tz)?,
    })
}

fn resolve_one(
    which: &str,
    text: Option<&str>,
    now: Micros,
    tz: Zone,
) -> Result<Option<Micros>, SearchError> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    lode_time::relative::resolve(text, now, tz)
        .map(Some)
        .map_err(|e| SearchError::User(format!("invalid {which} time '{text}': {e}")))
}

/// Rewrites `_index_earliest=<t>` and `_index_latest=<t>` anywhere in `clause` into
/// `_indextime>=<secs>` and `_indextime<<secs>` (whole seconds, as `_indextime` is), resolving the
/// modifier like `earliest=`. Iterative: no recursion on user input.
pub fn resolve_index_bounds(
    mut clause: Option<SearchExpr>,
    now: Micros,
    tz: Zone,
) -> Result<Option<SearchExpr>, SearchError> {
    let mut stack: Vec<&mut SearchExpr> = clause.iter_mut().collect();
    while let Some(e) = stack.pop() {
        match e {
            SearchExpr::And(items) | SearchExpr::Or(items) => stack.extend(items.iter_mut()),
            SearchExpr::Not(inner) => stack.push(inner),
            SearchExpr::Compare {
                field,
                op,
                value,
                quoted,
            } if field == "_index_earliest" || field == "_index_latest" => {
                if *op != CmpOp::Eq {
                    return Err(SearchError::User(format!(
                        "'{field}' only takes '=' (as in {field}=-24h)"
                    )));
                }
                let t = resolve_one(field, Some(value), now, tz)?.unwrap_or(0);
                // `_indextime` is whole seconds: t >= e ⟺ t >= ceil(e), t < l ⟺ t < ceil(l).
                let secs =
                    t.div_euclid(MICROS_PER_SEC) + i64::from(t.rem_euclid(MICROS_PER_SEC) != 0);
                *op = if field == "_index_earliest" {
                    CmpOp::Ge
                } else {
                    CmpOp::Lt
                };
                *field = "_indextime".to_string();
                *value = secs.to_string();
                *quoted = false;
            }
            _ => {}
        }
    }
    Ok(clause)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lode_spl::ast::Term;

    const NOW: Micros = 1_700_000_000 * MICROS_PER_SEC;

    fn tb(bound: TimeBound, value: &str) -> SearchExpr {
        SearchExpr::TimeBound {
            bound,
            value: value.into(),
        }
    }

    #[test]
    fn index_bounds_become_indextime_comparisons() {
        let cmp = |field: &str, op, value: &str| SearchExpr::Compare {
            field: field.into(),
            op,
            value: value.into(),
            quoted: false,
        };
        let clause = SearchExpr::And(vec![
            cmp("_index_earliest", CmpOp::Eq, "-1h@h"),
            SearchExpr::Not(Box::new(cmp("_index_latest", CmpOp::Eq, "1700000000.5"))),
            cmp("x", CmpOp::Eq, "1"),
        ]);
        let got = resolve_index_bounds(Some(clause), NOW + 90 * MICROS_PER_SEC, Zone::Utc).unwrap();
        let want = SearchExpr::And(vec![
            cmp("_indextime", CmpOp::Ge, "1699995600"),
            SearchExpr::Not(Box::new(cmp("_indextime", CmpOp::Lt, "1700000001"))),
            cmp("x", CmpOp::Eq, "1"),
        ]);
        assert_eq!(got, Some(want));
        let bad =
            resolve_index_bounds(Some(cmp("_index_latest", CmpOp::Eq, "-1x")), NOW, Zone::Utc);
        assert!(matches!(bad, Err(SearchError::User(m)) if m.contains("_index_latest")));
        let bad = resolve_index_bounds(Some(cmp("_index_latest", CmpOp::Gt, "0")), NOW, Zone::Utc);
        assert!(matches!(bad, Err(SearchError::User(m)) if m.contains("only takes")));
    }

    #[test]
    fn request_modifiers_resolve() {
        let r = resolve_range(Some("-1h"), Some("now"), None, NOW, Zone::Utc).unwrap();
        assert_eq!(r.earliest, Some(NOW - 3600 * MICROS_PER_SEC));
        assert_eq!(r.latest, Some(NOW));
    }

    #[test]
    fn in_search_bounds_win() {
        let clause = SearchExpr::And(vec![
            SearchExpr::Term(Term {
                text: "x".into(),
                quoted: false,
                whole: false,
                case: false,
            }),
            tb(TimeBound::Earliest, "1000"),
        ]);
        let r = resolve_range(Some("-1h"), None, Some(&clause), NOW, Zone::Utc).unwrap();
        assert_eq!(
            r,
            TimeRange {
                earliest: Some(1000 * MICROS_PER_SEC),
                latest: None
            }
        );
    }

    #[test]
    fn bad_modifier_is_a_user_error() {
        let err = resolve_range(Some("yesterday-ish"), None, None, NOW, Zone::Utc).unwrap_err();
        assert!(matches!(err, SearchError::User(m) if m.contains("yesterday-ish")));
    }

    #[test]
    fn earliest_inclusive_latest_exclusive() {
        let r = TimeRange {
            earliest: Some(10),
            latest: Some(20),
        };
        assert!(r.contains(10) && r.contains(19) && !r.contains(20) && !r.contains(9));
        assert!(r.overlaps(0, 10) && !r.overlaps(20, 30) && !r.overlaps(0, 9));
        assert!(r.covers(10, 19) && !r.covers(10, 20));
        assert!(TimeRange {
            earliest: Some(5),
            latest: Some(5)
        }
        .is_empty());
    }

    #[test]
    fn second_ranges_are_conservative() {
        let r = TimeRange {
            earliest: Some(10 * MICROS_PER_SEC + 5),
            latest: None,
        };
        assert!(r.overlaps_secs(0, 10));
        assert!(!r.overlaps_secs(0, 8));
        let hot = TimeRange {
            earliest: Some(0),
            latest: Some(1),
        };
        assert!(hot.overlaps_secs(i64::MIN, i64::MAX));
    }
}
