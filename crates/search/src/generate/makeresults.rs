//! `makeresults [count=N] [annotate=t]`: N rows holding `_time` = the search start (whole
//! seconds); `annotate=t` adds `splunk_server` (Splunk's other annotation fields are null, and
//! Lode rows hold no null fields).

use crate::ops::Limits;
use crate::row::Row;
use crate::value::Value;
use crate::SearchError;
use lode_event::Micros;

/// The rows of `makeresults`.
pub fn rows(
    count: u64,
    annotate: bool,
    now: Micros,
    limits: Limits,
) -> Result<Vec<Row>, SearchError> {
    if count > limits.max_sort_rows as u64 {
        return Err(SearchError::Limit(format!(
            "makeresults: count={count} is more than max_sort_rows={}; lower the count or raise the limit",
            limits.max_sort_rows
        )));
    }
    let time = Value::Num(now.div_euclid(1_000_000) as f64);
    let row = if annotate {
        Row::from_fields([
            ("_time".to_string(), time),
            ("splunk_server".to_string(), Value::Str("lode".into())),
        ])
    } else {
        Row::from_fields([("_time".to_string(), time)])
    };
    Ok(vec![row; count as usize])
}
