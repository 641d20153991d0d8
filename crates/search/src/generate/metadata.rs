//! `metadata type=hosts|sources|sourcetypes [index=…]`: one row per host (source, sourcetype)
//! from the per-value statistics every bucket keeps in its metadata (warm `meta.json`, hot
//! buckets in memory or replayed) — no event is read.
//!
//! Indexes: the `index=` patterns (any of them), selected by [`crate::plan::index`] exactly as a
//! search's `index=` (default `main`). Buckets and values whose times lie outside the search's
//! time range are left out. Columns: `firstTime`, the field, `lastTime`, `recentTime`,
//! `totalCount`, `type`; `recentTime` is the latest event time (Lode keeps no per-value index
//! time).

use std::collections::BTreeMap;
use std::path::Path;

use lode_spl::ast::data::MetadataType;
use lode_store::BucketMeta;

use crate::plan::index;
use crate::plan::time::TimeRange;
use crate::row::Row;
use crate::run::SearchStats;
use crate::scan::source;
use crate::value::Value;
use crate::SearchError;

/// Totals of one value.
struct Totals {
    first: i64,
    last: i64,
    count: u64,
}

/// The rows of `metadata`, sorted by value.
pub fn rows(
    root: &Path,
    kind: MetadataType,
    patterns: &[String],
    access: Option<&index::IndexAccess>,
    range: TimeRange,
    stats: &mut SearchStats,
) -> Result<Vec<Row>, SearchError> {
    let groups = if patterns.is_empty() {
        Vec::new()
    } else {
        vec![patterns.to_vec()]
    };
    // Only the indexes the caller may search; their default ones when none is named.
    let available = index::searchable(root, access)?;
    let indexes = index::select_for(&groups, &available, access);
    let mut totals: BTreeMap<String, Totals> = BTreeMap::new();
    for b in source::list(root, &indexes)? {
        stats.buckets_total += 1;
        if !range.overlaps_secs(b.info.min_time_secs, b.info.max_time_secs) {
            stats.buckets_pruned_time += 1;
            continue;
        }
        let reader = match source::open(&b.info) {
            Ok(r) => r,
            Err(e) => {
                stats.buckets_corrupt += 1;
                stats
                    .warnings
                    .push(format!("skipped bucket {}: {e}", b.label));
                continue;
            }
        };
        stats.buckets_read += 1;
        let meta: &BucketMeta = reader.meta();
        let values = match kind {
            MetadataType::Hosts => &meta.hosts,
            MetadataType::Sources => &meta.sources,
            MetadataType::Sourcetypes => &meta.sourcetypes,
        };
        for v in values {
            if v.count == 0 || !range.overlaps(v.first_time, v.last_time) {
                continue;
            }
            let t = totals.entry(v.name.clone()).or_insert(Totals {
                first: i64::MAX,
                last: i64::MIN,
                count: 0,
            });
            t.first = t.first.min(v.first_time);
            t.last = t.last.max(v.last_time);
            t.count += v.count;
        }
    }
    let secs = |us: i64| Value::Num(us.div_euclid(1_000_000) as f64);
    Ok(totals
        .into_iter()
        .map(|(name, t)| {
            Row::from_fields([
                ("firstTime".to_string(), secs(t.first)),
                (kind.field().to_string(), Value::Str(name)),
                ("lastTime".to_string(), secs(t.last)),
                ("recentTime".to_string(), secs(t.last)),
                ("totalCount".to_string(), Value::Num(t.count as f64)),
                ("type".to_string(), Value::Str(kind.as_str().to_string())),
            ])
        })
        .collect())
}
