//! Writes the files of a warm bucket from a hot bucket's in-memory index or from its WAL.

use std::path::{Path, PathBuf};

use hashbrown::HashTable;
use xxhash_rust::xxh3::xxh3_128;

use crate::bloom::{Bloom, BloomWriter};
use crate::bucket::build::{Builder, SliceSink};
use crate::bucket::hot::{read_slice, SharedSlices, SliceBytes};
use crate::bucket::journal::{encode_slices, Dicts, JournalSink};
use crate::bucket::kinds::{EventKinds, SOURCETYPE_PREFIX};
use crate::bucket::slice_table::encode_slices_file;
use crate::consts::{
    magic, BLOOM_FILE, COLUMNS_FILE, HOT_FRAMES_FILE, INDEX_LEVEL, JOURNAL_FILE, LEXICON_FILE,
    POSTINGS_FILE, POSTINGS_MIN_MATCH, SHARED_ENTRY_MIN_BYTES, SLICES_FILE,
};
use crate::error::StoreError;
use crate::footer::{append_footer, write_file, FooterWriter};
use crate::meta::BucketMeta;
use crate::postings;
use crate::terms::lexicon::LexiconWriter;
use crate::terms::TermIndex;
use crate::wal;

/// Builds every warm file of bucket `id` in `dir` (which must exist and be empty) from the valid
/// records of the WAL at `wal_path` (recovery). Each file is fsynced; the caller fsyncs and
/// renames `dir`.
pub(crate) fn write_warm(dir: &Path, id: u64, wal_path: &Path) -> Result<BucketMeta, StoreError> {
    let mut builder = Builder::new(id);
    let mut sink = JournalSink::with_dictionary(&dir.join(JOURNAL_FILE), magic::JOURNAL)?;
    wal::for_each_event(wal_path, |e| builder.push(e, &mut sink))?;
    write_rest(dir, &builder, sink)
}

/// Builds every warm file in `dir` (which must exist and be empty) from `builder`, whose
/// completed slices are `slices` (the one being filled is the builder's). Slices already in
/// their journal form are copied as they are, with their dictionary; slices still held back raw
/// (a bucket smaller than the dictionary's training bytes) are trained on and compressed here.
/// Each file is fsynced; the caller fsyncs and renames `dir`.
pub(crate) fn write_builder(
    dir: &Path,
    builder: &Builder,
    slices: &SharedSlices,
) -> Result<BucketMeta, StoreError> {
    let path = dir.join(JOURNAL_FILE);
    let mut sink = match slices.dict() {
        Some(d) => JournalSink::with_trained_dictionary(&path, magic::JOURNAL, d.bytes.clone())?,
        None => JournalSink::with_dictionary(&path, magic::JOURNAL)?,
    };
    let file = slices.file().map(|f| &**f);
    let mut buf = Vec::new();
    for (n, hs) in slices.list().iter().enumerate() {
        match read_slice(hs, file, &mut buf) {
            Ok(SliceBytes::Frame(ulen, frame)) => sink.put_compressed(ulen, frame)?,
            Ok(SliceBytes::Raw(raw)) => sink.put(n as u32, raw)?,
            Err(e) => return Err(StoreError::io(HOT_FRAMES_FILE, e)),
        }
    }
    write_rest(dir, builder, sink)
}

/// The files after the completed slices: last slice, slice table, columns, terms, metadata.
fn write_rest(
    dir: &Path,
    builder: &Builder,
    mut sink: JournalSink,
) -> Result<BucketMeta, StoreError> {
    builder.finish_slices(&mut sink)?;
    let (terms, meta) = (&builder.terms, builder.meta());
    let (journal_len, slices, dict) = sink.finish()?;
    debug_assert_eq!(
        slices.iter().map(|s| s.clen as u64).sum::<u64>(),
        journal_len
    );

    let mut buf = Vec::new();
    let dicts = Dicts {
        dicts: vec![dict],
        of_slice: Vec::new(),
    };
    encode_slices_file(&slices, &dicts, &mut buf);
    append_footer(&mut buf, magic::SLICES);
    write_file(&dir.join(SLICES_FILE), &buf)?;

    buf.clear();
    builder
        .encode_columns(&mut buf)
        .map_err(|e| StoreError::io(dir.join(COLUMNS_FILE), e))?;
    append_footer(&mut buf, magic::COLUMNS);
    write_file(&dir.join(COLUMNS_FILE), &buf)?;
    // Let the columns' bytes go before the terms, the roll's largest part.
    drop(buf);
    crate::memory::give_back();

    write_terms(dir, terms, event_kinds(builder))?;
    crate::memory::give_back();

    meta.write(dir)?;
    Ok(meta)
}

/// The kind of each event of `builder`, from its `sourcetype::…` terms.
fn event_kinds(builder: &Builder) -> EventKinds {
    let mut st: Vec<Vec<u8>> = builder.names[2]
        .iter()
        .map(|name| {
            let mut t = Vec::new();
            lode_event::field_term(lode_event::META_FIELDS[2], name, &mut t);
            debug_assert!(t.starts_with(SOURCETYPE_PREFIX));
            t
        })
        .collect();
    // Names that differ in case only are one term.
    st.sort_unstable();
    st.dedup();
    let mut kinds = EventKinds::new(builder.len() as u32);
    for (kind, t) in st.iter().enumerate() {
        kinds.mark(kind, builder.terms.get(t).into_iter().flatten());
    }
    kinds.seal()
}

/// Writes lexicon, postings and bloom filter.
fn write_terms(dir: &Path, terms: &TermIndex, kinds: EventKinds) -> Result<(), StoreError> {
    let sorted = terms.sorted();
    let mut w = TermsWriter::create(dir, sorted.len() as u64, kinds)?;
    let mut list = Vec::new();
    for (term, postings) in sorted.iter() {
        list.clear();
        postings.append_to(&mut list);
        w.add(term, &list)?;
    }
    drop(sorted);
    w.finish().map(|_| ())
}

/// Whether `term` is a host, source or sourcetype term (`host::web01`): the count pushdown reads
/// their postings whole.
fn is_metadata_term(term: &[u8]) -> bool {
    [&b"host::"[..], b"source::", b"sourcetype::"]
        .iter()
        .any(|p| term.starts_with(p))
}

/// Writes `lexicon.dat`, `postings.dat` and `bloom.dat` of a bucket from terms given in
/// ascending order with their postings (a roll's sorted term index, or a merge's k-way walk).
///
/// Shared entries: a postings entry of at least [`SHARED_ENTRY_MIN_BYTES`] that is
/// byte-identical to an earlier entry of the bucket (terms that always occur together: the
/// tokens of one user-agent string, the keys of one JSON template) is not written again; the
/// term gets the earlier entry's value ([`LexiconWriter::insert_shared`]). The writer keeps
/// `xxh3_128(entry) → (value, length)` of every distinct entry of that size and, on a match,
/// compares the bytes before sharing (a hash is no proof): the earlier entry is in the block
/// being filled, or in one written already, which is read back from the file (the last block
/// read back stays decoded). Memory: one 32-byte slot (and hashbrown's control byte) per
/// distinct entry of at least 64 bytes, so at worst (every entry 64 bytes, the table just
/// grown) about as many bytes as the uncompressed postings; in practice far fewer: the
/// 4M-event merged bucket of `lode bench --size 1GB` had 57,664 such entries among 670,000
/// (a table of ~4 MB). Naive twin: writing every entry (readers see the same lists).
pub(crate) struct TermsWriter {
    dir: PathBuf,
    bloom: BloomWriter,
    lex: LexiconWriter,
    /// The postings block being filled.
    post: Vec<u8>,
    blocks: JournalSink,
    /// Number of the block being filled.
    block_no: u32,
    /// The entry being added, encoded before it is placed (appended or shared).
    entry: Vec<u8>,
    /// Every distinct entry of at least [`SHARED_ENTRY_MIN_BYTES`] written so far.
    seen: HashTable<Seen>,
    /// A written block read back to compare an entry with: its number, and its compressed and
    /// decompressed bytes.
    back: Option<usize>,
    back_comp: Vec<u8>,
    back_out: Vec<u8>,
    terms: u64,
    /// Terms given an earlier entry instead of one of their own.
    shared: u64,
    /// The bucket's event kinds, from which each pointer's kinds mask is made.
    kinds: EventKinds,
}

/// A postings entry written, found again by its hash.
struct Seen {
    /// xxh3-128 of the entry's bytes; its low 64 bits are the table hash.
    hash: u128,
    /// Its lexicon value.
    value: u64,
    /// Its length in bytes.
    len: usize,
}

impl TermsWriter {
    /// Creates the files in `dir`, with a bloom filter sized for `capacity` terms, for a bucket
    /// whose events have `kinds`.
    pub fn create(dir: &Path, capacity: u64, kinds: EventKinds) -> Result<TermsWriter, StoreError> {
        Ok(TermsWriter {
            dir: dir.to_path_buf(),
            bloom: Bloom::with_capacity(capacity).writer(),
            lex: LexiconWriter::create(&dir.join(LEXICON_FILE))?,
            post: Vec::new(),
            blocks: JournalSink::create(&dir.join(POSTINGS_FILE), magic::POSTINGS, INDEX_LEVEL)?
                .min_match(POSTINGS_MIN_MATCH)?,
            block_no: 0,
            entry: Vec::new(),
            seen: HashTable::new(),
            back: None,
            back_comp: Vec::new(),
            back_out: Vec::new(),
            terms: 0,
            shared: 0,
            kinds,
        })
    }

    /// Adds `term` (greater than the previous one) with its event numbers `list` (ascending,
    /// not empty).
    pub fn add(&mut self, term: &[u8], list: &[u32]) -> Result<(), StoreError> {
        if self.post.len() >= postings::BLOCK_TARGET_BYTES {
            self.blocks.put(self.block_no, &self.post)?;
            self.post.clear();
            self.block_no += 1;
        }
        match postings::encode(list, &mut self.entry, is_metadata_term(term)) {
            // An inline posting has no kinds: its one event is known.
            Some(value) => self.lex.insert(term, value, 0)?,
            None => {
                let kinds = self.kinds.mask(list);
                match self.place()? {
                    (value, false) => self.lex.insert(term, value, kinds)?,
                    (value, true) => {
                        self.lex.insert_shared(term, value, kinds)?;
                        self.shared += 1;
                    }
                }
            }
        }
        self.bloom.insert(term);
        self.terms += 1;
        Ok(())
    }

    /// Places the encoded entry: returns the value of an identical earlier entry and `true`,
    /// or appends it to the block and returns its own value and `false`.
    fn place(&mut self) -> Result<(u64, bool), StoreError> {
        let value = postings::entry_value(self.block_no as u64, self.post.len());
        let len = self.entry.len();
        if len >= SHARED_ENTRY_MIN_BYTES {
            let hash = xxh3_128(&self.entry);
            match self.seen.find(hash as u64, |s| s.hash == hash) {
                Some(s) if s.len == len => {
                    let earlier = s.value;
                    if self.written_equals(earlier)? {
                        return Ok((earlier, true));
                    }
                    // Another entry with the same hash: written again, unremembered.
                }
                Some(_) => {}
                None => {
                    self.seen
                        .insert_unique(hash as u64, Seen { hash, value, len }, |s| s.hash as u64);
                }
            }
        }
        self.post.extend_from_slice(&self.entry);
        Ok((value, false))
    }

    /// Whether the entry written at `value` holds the same bytes as the entry being added.
    fn written_equals(&mut self, value: u64) -> Result<bool, StoreError> {
        let postings::Value::Entry { block, offset } = postings::decode_value(value) else {
            return Ok(false);
        };
        let block = block as usize;
        let bytes = if block == self.block_no as usize {
            &self.post
        } else {
            if self.back != Some(block) {
                self.back = None;
                self.blocks
                    .read_back(block, &mut self.back_comp, &mut self.back_out)?;
                self.back = Some(block);
            }
            &self.back_out
        };
        Ok(bytes.get(offset..offset + self.entry.len()) == Some(self.entry.as_slice()))
    }

    /// Writes the last postings block, the block table, the lexicon index and the bloom
    /// filter, each fsynced. Returns the number of terms.
    pub fn finish(mut self) -> Result<u64, StoreError> {
        if !self.post.is_empty() {
            self.blocks.put(self.block_no, &self.post)?;
        }
        let mut table = Vec::new();
        encode_slices(&self.blocks.slices, &mut table);
        let table_len = table.len() as u64;
        table.extend_from_slice(&table_len.to_le_bytes());
        self.blocks.out.write(&table)?;
        self.blocks.out.finish()?;
        self.lex.finish()?;
        tracing::debug!(
            dir = %self.dir.display(),
            terms = self.terms,
            shared = self.shared,
            remembered = self.seen.len(),
            "terms written"
        );
        let bloom = self.bloom.finish();
        let mut out = FooterWriter::create(&self.dir.join(BLOOM_FILE), magic::BLOOM)?;
        bloom.encode_with(|b| out.write(b))?;
        drop(bloom);
        out.finish()?;
        Ok(self.terms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::lexicon::{LexScratch, Lexicon};

    /// `n` event numbers from `start`, `step` apart.
    fn list(start: u32, step: u32, n: u32) -> Vec<u32> {
        (0..n).map(|k| start + k * step).collect()
    }

    /// Pretends an entry of `list` was written at `value`, as a hash collision would.
    fn forge(w: &mut TermsWriter, list: &[u32], value: u64) -> usize {
        let mut entry = Vec::new();
        postings::encode(list, &mut entry, false);
        let hash = xxh3_128(&entry);
        let len = entry.len();
        w.seen
            .insert_unique(hash as u64, Seen { hash, value, len }, |s| s.hash as u64);
        len
    }

    #[test]
    fn identical_entries_are_shared_only_when_their_bytes_are_equal() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = TermsWriter::create(dir.path(), 1000, EventKinds::new(0).seal()).unwrap();
        let a = list(0, 3, 200);
        let (b, c) = (list(1, 3, 200), list(2, 3, 200));
        w.add(b"a1", &a).unwrap();
        // Same block, being filled.
        w.add(b"a2", &a).unwrap();
        // The hash says "as a1" (value 0, same length), the bytes differ.
        let a_len = forge(&mut w, &b, 0);
        assert!(a_len >= SHARED_ENTRY_MIN_BYTES);
        w.add(b"b1", &b).unwrap();
        assert_eq!(w.shared, 1);
        // Enough distinct entries that a1's block is written before the next ones.
        for i in 0..400 {
            w.add(format!("f{i:04}").as_bytes(), &list(i, 7, 100))
                .unwrap();
        }
        assert!(w.block_no > 0);
        // Read back from the file (still in the writer's buffer), compared, shared.
        w.add(b"g1", &a).unwrap();
        w.add(b"g1f", &list(5, 7, 100)).unwrap();
        assert_eq!(w.shared, 3);
        // b's hash still names a1, so b is written again.
        w.add(b"g2", &b).unwrap();
        assert_eq!(w.shared, 3);
        assert_eq!(forge(&mut w, &c, 0), a_len);
        w.add(b"h1", &c).unwrap();
        // Below SHARED_ENTRY_MIN_BYTES: each written.
        w.add(b"s1", &[5, 9]).unwrap();
        w.add(b"s2", &[5, 9]).unwrap();
        assert_eq!(w.shared, 3);
        assert_eq!(w.finish().unwrap(), 409);

        let lex = Lexicon::open(&dir.path().join(LEXICON_FILE)).unwrap();
        let mut s = LexScratch::default();
        let mut get = |t: &[u8]| lex.get(t, &mut s).unwrap().unwrap();
        assert_eq!(get(b"a1"), 0);
        assert_eq!(get(b"a2"), 0);
        assert_eq!(get(b"g1"), 0);
        assert_eq!(get(b"g1f"), get(b"f0005"));
        assert_ne!(get(b"b1"), 0);
        assert_ne!(get(b"g2"), get(b"b1"));
        assert_ne!(get(b"h1"), 0);
        assert_ne!(get(b"s1"), get(b"s2"));
    }

    /// The one warm bucket of an index of 100 events in `dir`, event `i` with `_raw` and
    /// sourcetype `of(i)`.
    fn bucket_of_100(dir: &Path, of: impl Fn(i64) -> (String, &'static str)) -> crate::BucketInfo {
        let (w, _) = crate::IndexWriter::open(dir, crate::IndexConfig::default()).unwrap();
        let events: Vec<lode_event::Event> = (0..100)
            .map(|i| {
                let (raw, sourcetype) = of(i);
                lode_event::Event {
                    time: 1_700_000_000_000_000 + i * 1_000_000,
                    index_time: 1_700_000_000,
                    linecount: 1,
                    raw,
                    host: "h".into(),
                    source: "s".into(),
                    sourcetype: sourcetype.into(),
                    index: "main".into(),
                    fields: Vec::new(),
                }
            })
            .collect();
        w.append(&events).unwrap();
        w.close().unwrap();
        crate::list_buckets(dir).unwrap().remove(0)
    }

    /// A bucket whose postings name an event past its count (terms written for another bucket,
    /// or damage the checksums cannot see) gives an error for each term that does, and answers
    /// the others.
    #[test]
    fn postings_naming_a_missing_event_are_an_error() {
        use crate::query::{eval, TermQuery};
        let dir = tempfile::tempdir().unwrap();
        let bucket = bucket_of_100(dir.path(), |i| (format!("event {i}"), "st"));
        // The bucket's terms written again, with lists past its 100 events.
        for f in [LEXICON_FILE, POSTINGS_FILE, BLOOM_FILE] {
            std::fs::remove_file(bucket.path.join(f)).unwrap();
        }
        let mut w = TermsWriter::create(&bucket.path, 10, EventKinds::new(100).seal()).unwrap();
        let far: Vec<u32> = (0..2000).map(|k| k * 40).collect();
        w.add(b"chunked", &far).unwrap();
        w.add(b"chunked2", &list(1, 40, 2000)).unwrap();
        w.add(b"ghost", &[3, 105]).unwrap();
        w.add(b"good", &[1, 5]).unwrap();
        w.add(b"inline", &[100]).unwrap();
        w.finish().unwrap();
        let b = crate::WarmBucket::open(&bucket.path).unwrap();
        let t = |s: &str| TermQuery::Term(s.as_bytes().to_vec());
        assert_eq!(eval(&b, &t("good")).unwrap().len(), 2);
        for q in [
            t("ghost"),
            t("inline"),
            t("chunked"),
            TermQuery::And(vec![t("good"), t("ghost")]),
            TermQuery::And(vec![t("chunked"), t("chunked2")]),
        ] {
            match eval(&b, &q) {
                Err(StoreError::Corrupt { reason, .. }) => {
                    assert!(reason.contains("missing event"), "{q:?}: {reason}")
                }
                other => panic!("{q:?}: {other:?}"),
            }
        }
    }

    /// `fsck` recomputes each kinds mask from the term's events: a bucket whose masks were made
    /// from the wrong kinds (every event of one) is reported, the bucket as written is not.
    #[test]
    fn fsck_finds_a_kinds_mask_its_events_do_not_make() {
        let dir = tempfile::tempdir().unwrap();
        let bucket = bucket_of_100(dir.path(), |i| {
            (format!("event w{}", i % 3), ["even", "odd"][i as usize % 2])
        });
        assert!(crate::fsck::check_warm(&bucket.path).is_empty());
        // The same terms and lists, their masks made as if every event were of one kind.
        let mut terms = Vec::new();
        {
            let b = crate::WarmBucket::open(&bucket.path).unwrap();
            let mut scratch = crate::bucket::warm::BlockScratch::default();
            b.lexicon()
                .unwrap()
                .walk(b"", &mut LexScratch::default(), &mut |t, v| {
                    let list: Vec<u32> = b.postings_at(v, &mut scratch)?.iter().collect();
                    terms.push((t.to_vec(), list));
                    Ok(true)
                })
                .unwrap();
        }
        for f in [LEXICON_FILE, POSTINGS_FILE, BLOOM_FILE] {
            std::fs::remove_file(bucket.path.join(f)).unwrap();
        }
        let mut w = TermsWriter::create(&bucket.path, 100, EventKinds::new(100).seal()).unwrap();
        for (t, list) in &terms {
            w.add(t, list).unwrap();
        }
        w.finish().unwrap();
        let problems = crate::fsck::check_warm(&bucket.path);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].problem.contains("kinds mask"), "{problems:?}");
    }
}
