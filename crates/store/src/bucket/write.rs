//! Writes the files of a warm bucket from a hot bucket's in-memory index or from its WAL.

use std::path::{Path, PathBuf};

use crate::bloom::Bloom;
use crate::bucket::build::{Builder, SliceSink};
use crate::bucket::hot::{HotSlice, SharedSlices};
use crate::bucket::journal::{encode_slices, Dicts, JournalSink};
use crate::bucket::slice_table::encode_slices_file;
use crate::consts::{
    magic, BLOOM_FILE, COLUMNS_FILE, JOURNAL_FILE, LEXICON_FILE, META_FILE, POSTINGS_FILE,
    SLICES_FILE,
};
use crate::error::{IoContext, StoreError};
use crate::footer::{append_footer, write_file};
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
    for (n, hs) in slices.list().iter().enumerate() {
        match hs {
            HotSlice::Frame { ulen, data } => sink.put_compressed(*ulen, data)?,
            HotSlice::Raw(raw) => sink.put(n as u32, raw)?,
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

    write_terms(dir, terms)?;

    buf.clear();
    serde_json::to_writer_pretty(&mut buf, &meta)
        .map_err(|e| StoreError::io(dir.join(META_FILE), e.into()))?;
    append_footer(&mut buf, magic::META);
    write_file(&dir.join(META_FILE), &buf)?;
    Ok(meta)
}

/// Writes lexicon, postings and bloom filter.
fn write_terms(dir: &Path, terms: &TermIndex) -> Result<(), StoreError> {
    let sorted = terms.sorted();
    let mut w = TermsWriter::create(dir, sorted.len() as u64)?;
    let mut list = Vec::new();
    for (term, postings) in sorted.iter() {
        list.clear();
        list.extend(postings);
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
pub(crate) struct TermsWriter {
    dir: PathBuf,
    bloom: Bloom,
    lex: LexiconWriter,
    /// The postings block being filled.
    post: Vec<u8>,
    post_path: PathBuf,
    blocks: JournalSink,
    block_no: u32,
    /// The entry being added, encoded before it is placed.
    entry: Vec<u8>,
    scratch: Vec<u8>,
    terms: u64,
}

impl TermsWriter {
    /// Creates the files in `dir`, with a bloom filter sized for `capacity` terms.
    pub fn create(dir: &Path, capacity: u64) -> Result<TermsWriter, StoreError> {
        let post_path = dir.join(POSTINGS_FILE);
        Ok(TermsWriter {
            dir: dir.to_path_buf(),
            bloom: Bloom::with_capacity(capacity),
            lex: LexiconWriter::create(&dir.join(LEXICON_FILE))?,
            post: Vec::new(),
            blocks: JournalSink::create(&post_path, magic::POSTINGS)?,
            post_path,
            block_no: 0,
            entry: Vec::new(),
            scratch: Vec::new(),
            terms: 0,
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
        let inline = postings::encode(
            list,
            &mut self.entry,
            &mut self.scratch,
            is_metadata_term(term),
        )
        .at(&self.post_path)?;
        let value = inline.unwrap_or_else(|| {
            let value = postings::entry_value(self.block_no as u64, self.post.len());
            self.post.extend_from_slice(&self.entry);
            value
        });
        self.lex.insert(term, value)?;
        self.bloom.insert(term);
        self.terms += 1;
        Ok(())
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
        let mut b = Vec::new();
        self.bloom.encode(&mut b);
        append_footer(&mut b, magic::BLOOM);
        write_file(&self.dir.join(BLOOM_FILE), &b)?;
        Ok(self.terms)
    }
}
