//! Writes the files of a warm bucket from a hot bucket's in-memory index or from its WAL.

use std::path::Path;

use crate::bloom::Bloom;
use crate::bucket::build::{Builder, SliceSink};
use crate::bucket::hot::HotSlice;
use crate::bucket::journal::{encode_slices, encode_slices_file, JournalSink};
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
/// completed slices are `slices` (in order; the one being filled is the builder's). Each file is
/// fsynced; the caller fsyncs and renames `dir`.
pub(crate) fn write_builder(
    dir: &Path,
    builder: &Builder,
    slices: &[HotSlice],
) -> Result<BucketMeta, StoreError> {
    let mut sink = JournalSink::with_dictionary(&dir.join(JOURNAL_FILE), magic::JOURNAL)?;
    let mut raw = Vec::new();
    for (n, hs) in slices.iter().enumerate() {
        hs.decompress_into(&mut raw)
            .map_err(|e| StoreError::corrupt(dir, format!("hot slice {n}: {e}")))?;
        sink.put(n as u32, &raw)?;
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
    encode_slices_file(&slices, &dict, &mut buf);
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
    let mut bloom = Bloom::with_capacity(sorted.len() as u64);
    let mut post = Vec::new();
    let mut lex = LexiconWriter::create(&dir.join(LEXICON_FILE))?;
    let mut scratch = Vec::new();
    let mut list = Vec::new();
    let post_path = dir.join(POSTINGS_FILE);
    let mut blocks = JournalSink::create(&post_path, magic::POSTINGS)?;
    let mut block_no = 0u32;
    for (term, postings) in sorted.iter() {
        list.clear();
        list.extend(postings);
        if post.len() >= postings::BLOCK_TARGET_BYTES {
            blocks.put(block_no, &post)?;
            post.clear();
            block_no += 1;
        }
        let value = postings::encode_in_block(&list, block_no as u64, &mut post, &mut scratch)
            .at(&post_path)?;
        lex.insert(term, value)?;
        bloom.insert(term);
    }
    if !post.is_empty() {
        blocks.put(block_no, &post)?;
    }
    let mut table = Vec::new();
    encode_slices(&blocks.slices, &mut table);
    let table_len = table.len() as u64;
    table.extend_from_slice(&table_len.to_le_bytes());
    blocks.out.write(&table)?;
    blocks.out.finish()?;
    drop(sorted);
    lex.finish()?;
    let mut b = Vec::new();
    bloom.encode(&mut b);
    append_footer(&mut b, magic::BLOOM);
    write_file(&dir.join(BLOOM_FILE), &b)
}
