//! Helpers shared by the store's integration tests.
#![allow(dead_code)]

use lode_event::Event;
use lode_store::{BucketRead, EventView};

/// A varied event `i`: a few hosts and sourcetypes, some with index-time fields, multi-line ones.
pub fn event(i: u64) -> Event {
    let raw = if i.is_multiple_of(7) {
        format!(
            "2024-01-01 ERROR seq={i} user=U{} failed\n  at frame {}",
            i % 5,
            i % 3
        )
    } else {
        format!(
            "2024-01-01 INFO seq={i} GET /api/v{}/items?id={} 200 ok",
            i % 3,
            i * 31 % 1000
        )
    };
    Event {
        time: 1_700_000_000_000_000 + (i as i64 % 1000) * 1_000_003,
        index_time: 1_700_000_100 + i as i64,
        linecount: Event::count_lines(&raw),
        raw,
        host: format!("web-{:02}", i % 4).into(),
        source: format!("/var/log/app{}.log", i % 2).into(),
        sourcetype: if i.is_multiple_of(3) {
            "app:json".into()
        } else {
            "access".into()
        },
        index: "main".into(),
        fields: if i.is_multiple_of(5) {
            vec![("env".into(), "Prod".into()), ("seq".into(), i.to_string())]
        } else {
            Vec::new()
        },
    }
}

/// Converts a view back to an owned event (index name = "main").
pub fn owned(v: &EventView<'_>) -> Event {
    Event {
        time: v.time,
        index_time: v.index_time,
        raw: v.raw.to_string(),
        host: v.host.into(),
        source: v.source.into(),
        sourcetype: v.sourcetype.into(),
        index: "main".into(),
        linecount: v.linecount,
        fields: v.fields.to_vec(),
    }
}

/// Reads every event of a bucket.
pub fn read_all(b: &dyn BucketRead) -> Vec<Event> {
    let mut out = Vec::new();
    let n = b.meta().event_count as u32;
    b.read_events(&mut (0..n), &mut |v| {
        out.push(owned(&v));
        true
    })
    .unwrap();
    out
}
