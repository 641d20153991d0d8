//! Reading a bucket's candidate events in chunks, as verified rows.

use lode_event::Event;
use lode_spl::ast::SearchExpr;
use lode_store::bucket::IndexedFields;
use lode_store::{BucketRead, EventView, StoreError};

use super::candidates::{is_dense, Opened};
use super::source::{BucketRef, Key};
use crate::matcher;
use crate::row::Row;
use crate::run::SearchStats;
use crate::value::Value;

/// First chunk of candidates read at once: small, so `head 10` reads little.
const FIRST_CHUNK: usize = 64;
/// Largest chunk: amortises slice decompression without holding many rows.
const MAX_CHUNK: usize = 1024;

/// The candidates of one bucket, consumed chunk by chunk in the scan's order.
pub struct Cursor {
    bucket: Box<dyn BucketRead + Send + Sync>,
    /// The bucket this reads.
    pub src: BucketRef,
    /// Candidate event numbers in reading order (newest first when time-ordered, else ascending).
    ids: Vec<u32>,
    /// Next position in `ids`.
    pos: usize,
    /// Candidates in the next chunk (doubles up to [`MAX_CHUNK`]).
    chunk: usize,
    /// Whether `ids` are newest first.
    time_ordered: bool,
    /// Whether the candidates are dense enough to use the whole columns (see [`is_dense`])
    /// rather than per-event lookups.
    dense: bool,
    /// The current chunk's ids in ascending order (reused buffer).
    sorted: Vec<u32>,
    /// An error met while ordering the candidates, reported by the first
    /// [`Cursor::read_chunk`].
    pending: Option<StoreError>,
}

impl Cursor {
    /// A cursor over `opened`'s candidates; when `time_ordered`, newest first (ties: higher event
    /// number first, as [`Key`] orders them).
    pub fn new(src: BucketRef, opened: Opened, time_ordered: bool) -> Cursor {
        let Opened { bucket, mut ids } = opened;
        let mut pending = None;
        let dense = is_dense(ids.len() as u64, bucket.meta().event_count);
        if time_ordered {
            // Sparse: per-event times of the candidates only (warm buckets decode their blocks).
            let keyed: Result<Vec<(i64, u32)>, StoreError> = if dense {
                bucket.prepare().map(|()| {
                    let times = bucket.times();
                    let time = |n: u32| times.get(n as usize).copied().unwrap_or(i64::MIN);
                    ids.iter().map(|&n| (time(n), n)).collect()
                })
            } else {
                ids.iter().map(|&n| Ok((bucket.time(n)?, n))).collect()
            };
            match keyed {
                Ok(mut keyed) => {
                    keyed.sort_unstable_by_key(|&k| std::cmp::Reverse(k));
                    ids.clear();
                    ids.extend(keyed.iter().map(|&(_, n)| n));
                }
                Err(e) => pending = Some(e),
            }
        }
        Cursor {
            bucket,
            src,
            ids,
            pos: 0,
            chunk: FIRST_CHUNK,
            time_ordered,
            dense,
            sorted: Vec::new(),
            pending,
        }
    }

    /// Whether every candidate has been read.
    pub fn is_done(&self) -> bool {
        self.pending.is_none() && self.pos >= self.ids.len()
    }

    /// Reads the next chunk of candidates, appending the rows that satisfy `clause` to `out` with
    /// their keys, in the cursor's order.
    pub fn read_chunk(
        &mut self,
        clause: Option<&SearchExpr>,
        columns_only: bool,
        out: &mut Vec<(Key, Row)>,
        stats: &mut SearchStats,
    ) -> Result<(), StoreError> {
        if let Some(e) = self.pending.take() {
            self.pos = self.ids.len();
            return Err(e);
        }
        let end = (self.pos + self.chunk).min(self.ids.len());
        self.sorted.clear();
        self.sorted.extend_from_slice(&self.ids[self.pos..end]);
        self.pos = end;
        self.chunk = (self.chunk * 2).min(MAX_CHUNK);
        if self.time_ordered {
            self.sorted.sort_unstable();
        }
        let start = out.len();
        let src = &self.src;
        if columns_only {
            self.rows_from_columns(out, stats)?;
        } else {
            self.bucket
                .read_events(&mut self.sorted.iter().copied(), &mut |v| {
                    stats.events_scanned += 1;
                    let key = Key::new(src, v.time, v.num);
                    let mut row = to_row(&v, &src.index, src.info.id);
                    if clause.is_none_or(|c| matcher::matches(c, &mut row)) {
                        stats.events_matched += 1;
                        out.push((key, row));
                    }
                    true
                })?;
        }
        if self.time_ordered {
            out[start..].sort_unstable_by_key(|r| std::cmp::Reverse(r.0));
        }
        Ok(())
    }
}

impl Cursor {
    /// Rows of the current chunk from the columns alone (`_time`, `host`, `source`,
    /// `sourcetype`, `index`, `splunk_server`); every candidate matches (the query is exact).
    fn rows_from_columns(
        &self,
        out: &mut Vec<(Key, Row)>,
        stats: &mut SearchStats,
    ) -> Result<(), StoreError> {
        let b = self.bucket.as_ref();
        let name = |names: &[String], id: u32| -> Result<String, StoreError> {
            names.get(id as usize).cloned().ok_or_else(|| {
                StoreError::corrupt(&self.src.info.path, "dictionary id out of range")
            })
        };
        let empty: (&[i64], &[u32], &[u32], &[u32]) = (&[], &[], &[], &[]);
        let (times, hosts, sources, types) = if self.dense {
            // Reports damage that the whole-column accessors would hide behind empty slices.
            b.prepare()?;
            (b.times(), b.host_ids(), b.source_ids(), b.sourcetype_ids())
        } else {
            // Untouched when sparse: the whole-column accessors would decode every block.
            empty
        };
        let beyond = || StoreError::corrupt(&self.src.info.path, "event number beyond the columns");
        for &num in &self.sorted {
            let n = num as usize;
            let f = if self.dense {
                IndexedFields {
                    time: *times.get(n).ok_or_else(beyond)?,
                    host: *hosts.get(n).ok_or_else(beyond)?,
                    source: *sources.get(n).ok_or_else(beyond)?,
                    sourcetype: *types.get(n).ok_or_else(beyond)?,
                }
            } else {
                // Sparse: decodes only the column blocks of the candidates.
                b.indexed(num)?
            };
            let time = f.time;
            let row = Row::from_fields([
                ("_time".to_string(), Value::Num(time as f64 / 1e6)),
                (
                    "host".to_string(),
                    Value::Str(name(b.host_names(), f.host)?),
                ),
                (
                    "source".to_string(),
                    Value::Str(name(b.source_names(), f.source)?),
                ),
                (
                    "sourcetype".to_string(),
                    Value::Str(name(b.sourcetype_names(), f.sourcetype)?),
                ),
                ("index".to_string(), Value::Str(self.src.index.to_string())),
                ("splunk_server".to_string(), Value::Str("lode".to_string())),
            ]);
            stats.events_scanned += 1;
            stats.events_matched += 1;
            out.push((Key::new(&self.src, time, num), row));
        }
        Ok(())
    }
}

/// The result row of a stored event (`_cd` = `<bucket id>:<event number>`).
pub fn to_row(v: &EventView<'_>, index: &str, bucket_id: u64) -> Row {
    let ev = Event {
        time: v.time,
        index_time: v.index_time,
        raw: v.raw.to_owned(),
        host: v.host.to_owned(),
        source: v.source.to_owned(),
        sourcetype: v.sourcetype.to_owned(),
        index: index.to_owned(),
        linecount: v.linecount,
        fields: v.fields.to_vec(),
    };
    Row::from_event(ev, format!("{bucket_id}:{}", v.num))
}
