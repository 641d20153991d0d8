//! The threaded pipeline against its naive twin, reports, sink errors, backpressure.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use common::*;
use lode_event::Event;
use lode_ingest::{
    guess_sourcetype, process_bytes, IngestError, Pipeline, PipelineConfig, Settings, Sink,
    SinkError, SourceMeta, StreamReport,
};

/// Collects every batch.
struct Collect(Arc<Mutex<Vec<Event>>>);

impl Sink for Collect {
    fn write(&mut self, batch: Vec<Event>) -> Result<(), SinkError> {
        self.0.lock().unwrap().extend(batch);
        Ok(())
    }
}

/// Fails every batch that contains an event whose raw text contains `poison`.
struct Poisoned(&'static str);

impl Sink for Poisoned {
    fn write(&mut self, batch: Vec<Event>) -> Result<(), SinkError> {
        match batch.iter().any(|e| e.raw.contains(self.0)) {
            true => Err(SinkError::new("disk full")),
            false => Ok(()),
        }
    }
}

fn start(settings: Settings, sink: Box<dyn Sink>, cap: usize, batch: usize) -> Pipeline {
    let cfg = PipelineConfig {
        settings: Arc::new(settings),
        queue_capacity: cap,
        batch_events: batch,
    };
    Pipeline::start_with_clock(cfg, sink, Arc::new(|| NOW))
}

/// Sourcetype `t`: one event per line, no timestamp extraction.
fn line_settings() -> Settings {
    settings_with(
        "[t]\nSHOULD_LINEMERGE = false\nDATETIME_CONFIG = NONE\n",
        "",
    )
    .0
}

/// A pipeline of [`line_settings`] whose events are collected into the returned vector.
fn collect_lines(cap: usize, batch: usize) -> (Pipeline, Arc<Mutex<Vec<Event>>>) {
    let out = Arc::new(Mutex::new(Vec::new()));
    let pipeline = start(line_settings(), Box::new(Collect(out.clone())), cap, batch);
    (pipeline, out)
}

fn loghub_inputs() -> Vec<(SourceMeta, Vec<u8>)> {
    let mut inputs = Vec::new();
    for entry in std::fs::read_dir(loghub_dir()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if !name.ends_with("_2k.log") {
            continue;
        }
        let data = std::fs::read(format!("{}{name}", loghub_dir())).unwrap();
        let sourcetype = guess_sourcetype(&name, &data);
        inputs.push((
            SourceMeta {
                host: "h".into(),
                source: name,
                sourcetype,
                index: "main".into(),
            },
            data,
        ));
    }
    let java =
        b"2017-12-30 10:00:01,500 ERROR x\n\tat a.B(B.java:1)\n2017-12-30 10:00:02,000 INFO y"
            .to_vec();
    inputs.push((
        SourceMeta {
            source: "app.log".into(),
            sourcetype: "log4j".into(),
            ..SourceMeta::default()
        },
        java,
    ));
    inputs
}

#[test]
fn interleaved_streams_give_the_same_events_as_the_naive_twin() {
    let (settings, _) = Settings::builtin().unwrap();
    let inputs = loghub_inputs();
    let expected: HashMap<String, Vec<Event>> = inputs
        .iter()
        .map(|(m, d)| (m.source.clone(), process_bytes(&settings, m, d, NOW)))
        .collect();
    let out = Arc::new(Mutex::new(Vec::new()));
    let pipeline = start(settings, Box::new(Collect(out.clone())), 4, 500);
    let mut handles: Vec<_> = inputs
        .iter()
        .map(|(m, _)| pipeline.open_stream(m.clone()))
        .collect();
    // Round-robin chunks of odd, varying sizes so that every stream is cut mid-line.
    let mut offsets = vec![0usize; inputs.len()];
    let mut round = 0;
    while offsets.iter().zip(&inputs).any(|(o, (_, d))| *o < d.len()) {
        for (i, (_, data)) in inputs.iter().enumerate() {
            let size = 97 + (round * 31 + i * 17) % 4000;
            let end = (offsets[i] + size).min(data.len());
            handles[i].send(&data[offsets[i]..end]).unwrap();
            offsets[i] = end;
        }
        round += 1;
    }
    for (h, (meta, data)) in handles.drain(..).zip(&inputs) {
        let report = h.finish().unwrap();
        let want = &expected[&meta.source];
        assert_eq!(
            report,
            StreamReport {
                events: want.len() as u64,
                bytes: data.len() as u64,
                dropped: 0,
                truncated: 0
            }
        );
    }
    pipeline.shutdown().unwrap();
    let mut got: HashMap<String, Vec<Event>> = HashMap::new();
    for e in out.lock().unwrap().drain(..) {
        got.entry(e.source.to_string()).or_default().push(e);
    }
    assert_eq!(got.len(), expected.len());
    for (source, events) in &expected {
        assert!(
            &got[source] == events,
            "{source} differs from process_bytes"
        );
    }
}

#[test]
fn report_counts_drops_and_truncation() {
    let props = "[t]\nSHOULD_LINEMERGE = false\nDATETIME_CONFIG = NONE\nTRUNCATE = 6\nTRANSFORMS-n = setnull\n";
    let (settings, _) = settings_with(props, "");
    let out = Arc::new(Mutex::new(Vec::new()));
    let pipeline = start(settings, Box::new(Collect(out.clone())), 2, 2);
    let mut h = pipeline.open_stream(meta("t"));
    h.send(b"DEBUG one\nabcdefgh\nok\n").unwrap();
    let report = h.finish().unwrap();
    assert_eq!(
        report,
        StreamReport {
            events: 2,
            bytes: 22,
            dropped: 1,
            truncated: 2
        }
    );
    assert_eq!(raws(&out.lock().unwrap()), ["abcdef", "ok"]);
    pipeline.shutdown().unwrap();
}

#[test]
fn sink_error_reaches_the_stream_whose_events_failed() {
    let settings = line_settings();
    let pipeline = start(settings, Box::new(Poisoned("poison")), 4, 1);
    let mut good = pipeline.open_stream(meta("t"));
    good.send(b"fine\nalso fine\n").unwrap();
    assert_eq!(good.finish().unwrap().events, 2);
    let mut bad = pipeline.open_stream(meta("t"));
    bad.send(b"poison\nfine\n").unwrap();
    assert_eq!(
        bad.finish(),
        Err(IngestError::Sink(SinkError::new("disk full")))
    );
    assert_eq!(
        pipeline.shutdown(),
        Err(IngestError::Sink(SinkError::new("disk full")))
    );
}

#[test]
fn tiny_queues_apply_backpressure_without_losing_events() {
    let (pipeline, out) = collect_lines(1, 1);
    let mut h = pipeline.open_stream(meta("t"));
    for i in 0..5000 {
        h.send(format!("line {i}\n").as_bytes()).unwrap();
    }
    assert_eq!(h.finish().unwrap().events, 5000);
    pipeline.shutdown().unwrap();
    let got = out.lock().unwrap();
    assert!(got
        .iter()
        .enumerate()
        .all(|(i, e)| e.raw == format!("line {i}")));
}

/// A stream that trickles events more often than the idle flush still gets them written
/// without waiting for a whole batch: a partial batch has a maximum age.
#[test]
fn a_trickling_stream_is_written_before_its_batch_fills() {
    let (pipeline, out) = collect_lines(4, 1_000_000);
    let mut h = pipeline.open_stream(meta("t"));
    let mut sent = 0;
    // Up to 20 s at one line per 5 ms; the first write ends it.
    while sent < 4000 && out.lock().unwrap().is_empty() {
        h.send(format!("line {sent}\n").as_bytes()).unwrap();
        sent += 1;
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let written_early = out.lock().unwrap().len();
    assert_eq!(h.finish().unwrap().events, sent);
    pipeline.shutdown().unwrap();
    assert!(
        written_early > 0,
        "nothing written while {sent} lines trickled in"
    );
    assert_eq!(out.lock().unwrap().len() as u64, sent);
}

#[test]
fn dropped_handle_and_shutdown_still_flush_partial_data() {
    let (pipeline, out) = collect_lines(4, 100);
    let mut dropped = pipeline.open_stream(meta("t"));
    dropped.send(b"a\nb-without-newline").unwrap();
    drop(dropped);
    let mut open = pipeline.open_stream(SourceMeta {
        source: "other".into(),
        ..meta("t")
    });
    open.send(b"still open").unwrap();
    pipeline.shutdown().unwrap();
    assert_eq!(
        raws(&out.lock().unwrap()),
        ["a", "b-without-newline", "still open"]
    );
    assert_eq!(open.send(b"late"), Err(IngestError::Closed));
}

#[test]
fn pipeline_types_can_be_shared_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Pipeline>();
    send_sync::<Settings>();
    send::<lode_ingest::StreamHandle>();
}

mod chunking {
    use super::*;
    use proptest::prelude::*;

    fn arb_text() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"2017-12-30 10:00:01,500 ERROR x\n".to_vec()),
            Just(b"\tat a.B(B.java:1)\n".to_vec()),
            Just(b"Dec 29 06:55:46 host sshd[1]: y\r\n".to_vec()),
            Just(b"no date here".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\xc3\xa9\xff".to_vec()),
        ];
        prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Any chunking through the threaded pipeline gives the events of `process_bytes`, for
        /// the merging default, log4j and a line-per-event sourcetype.
        #[test]
        fn pipeline_equals_naive_twin(data in arb_text(), cuts in prop::collection::vec(0usize..1500, 0..6)) {
            let (settings, _) = Settings::builtin().unwrap();
            let metas = [meta("custom"), meta("log4j"), meta("syslog")];
            let want: Vec<Vec<Event>> = metas.iter().map(|m| process_bytes(&settings, m, &data, NOW)).collect();
            let out = Arc::new(Mutex::new(Vec::new()));
            let pipeline = start(settings, Box::new(Collect(out.clone())), 2, 7);
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
            cuts.sort();
            for (i, m) in metas.iter().enumerate() {
                let mut h = pipeline.open_stream(SourceMeta { source: format!("s{i}"), ..m.clone() });
                let mut last = 0;
                for &c in cuts.iter().chain([data.len()].iter()) {
                    h.send(&data[last..c]).unwrap();
                    last = c;
                }
                prop_assert_eq!(h.finish().unwrap().events, want[i].len() as u64);
            }
            pipeline.shutdown().unwrap();
            let got = out.lock().unwrap();
            for (i, w) in want.iter().enumerate() {
                let mine: Vec<Event> = got.iter().filter(|e| e.source == format!("s{i}")).cloned()
                    .map(|mut e| { e.source = "/var/log/test.log".into(); e }).collect();
                prop_assert_eq!(&mine, w);
            }
        }
    }
}
