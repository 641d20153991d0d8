//! A node with `parallelIngestionPipelines = 2`: two concurrent streams go through different
//! sets, and each set's hot bucket of the index receives data.

use std::io::Read;
use std::sync::{Arc, Barrier};

use lode_ingest::SourceMeta;
use lode_node::{Home, Node};
use lode_store::{list_buckets, open_bucket, BucketKind};

/// A reader that waits at a barrier before its first byte, so that every stream is open before
/// any data flows.
struct Gate {
    barrier: Arc<Barrier>,
    waited: bool,
    data: std::io::Cursor<Vec<u8>>,
}

impl Read for Gate {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.waited {
            self.barrier.wait();
            self.waited = true;
        }
        self.data.read(buf)
    }
}

fn lines(tag: &str, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("2024-03-01T10:00:{:02}Z stream={tag} n={i}\n", i % 60))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn two_sets_two_streams_two_hot_buckets() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::new(dir.path());
    home.ensure_layout().unwrap();
    std::fs::write(
        home.etc_local().join("server.conf"),
        "[general]\nparallelIngestionPipelines = 2\n",
    )
    .unwrap();
    let node = Node::open(&home).unwrap();
    assert_eq!(node.pipeline_sets(), 2);
    let barrier = Arc::new(Barrier::new(2));
    let reports: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|tag| {
                let (node, barrier) = (&node, barrier.clone());
                s.spawn(move || {
                    let mut input = Gate {
                        barrier,
                        waited: false,
                        data: std::io::Cursor::new(lines(tag, 3000)),
                    };
                    let meta = SourceMeta {
                        host: "h".into(),
                        source: format!("/tmp/{tag}.log"),
                        sourcetype: "sets_test".into(),
                        index: "main".into(),
                    };
                    node.ingest(meta, &mut input, &mut |_| {}).unwrap().events
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(reports, [3000, 3000]);

    let main = home.index_root().join("main");
    let hot: Vec<_> = list_buckets(&main)
        .unwrap()
        .into_iter()
        .filter(|b| b.kind == BucketKind::Hot)
        .collect();
    assert_eq!(hot.len(), 2, "one hot bucket per set: {hot:?}");
    for b in &hot {
        let bucket = open_bucket(b).unwrap();
        let sources = bucket.source_names();
        assert_eq!(bucket.meta().event_count, 3000, "{b:?}");
        assert_eq!(sources.len(), 1, "a stream stays in one set: {sources:?}");
    }
    let metrics = node.queue_metrics();
    assert_eq!(metrics.len(), 8);
    assert!(metrics.iter().all(|m| m.largest_size <= m.max_size));
    node.close().unwrap();
    let buckets = list_buckets(&main).unwrap();
    assert_eq!(buckets.len(), 2);
    assert!(buckets.iter().all(|b| b.kind == BucketKind::Warm));
}
