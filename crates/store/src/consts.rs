//! Every on-disk name, magic number, format version and limit of the store, each with its reason.

/// Version of every file format written by this crate. Readers refuse other versions: an older
/// binary must not guess at a newer layout, and a newer binary converts old buckets explicitly.
/// Version 2: the lexicon is `lexicon.dat` (front-coded blocks and a first-term index) instead
/// of one zstd-packed `lexicon.fst` that a reader had to load whole.
pub const FORMAT_VERSION: u32 = 2;

/// Layout version of `columns.dat`, stored at the end of its body (the footer carries
/// [`FORMAT_VERSION`] for every file). Version 1 was one zstd frame of the whole file, which a
/// search had to decode completely to read a single event; version 2 stores independently
/// compressed blocks of [`COLUMNS_BLOCK_EVENTS`] events. Readers refuse any other version.
pub const COLUMNS_VERSION: u32 = 2;
/// Events per independently compressed block of `columns.dat`. Reading one event decodes one
/// block (~15–25 KiB of varints and fields at 1024 events) and walks its columns to the event.
/// Against 4096 (sessions 11–25), on the same 10 GB corpus ingested each way and searched
/// alternately by one build (session 26): super-sparse `head 100` 21–25 → 15–20 ms, its
/// `stats count by host` 12–15 → 10–12 ms, sparse `head 100` 19–24 → 15–21 ms, the 10 GB
/// service 243–282 → 267–292 searches/s; sparse `stats count by host` 112–136 → 125–137 ms
/// and the dense one ~5 % more CPU (four times the frames); `columns.dat` ~6 % larger (0.05 %
/// of raw). The block table costs ~30 bytes per block (~30 KiB per million events). Each file
/// records its block size, so buckets written with 4096 stay readable.
pub const COLUMNS_BLOCK_EVENTS: u32 = 1024;

/// Prefix of a hot bucket directory (`hot_v1_<id>`), as in Splunk so operators recognise it.
pub const HOT_PREFIX: &str = "hot_v1_";
/// Prefix of a warm bucket directory (`db_<maxTimeSecs>_<minTimeSecs>_<id>`): the time range is
/// in the name so search can prune buckets without opening any file.
pub const WARM_PREFIX: &str = "db_";
/// Prefix of the temporary directory a roll builds the warm files in (`tmp_<id>`); a leftover one
/// means the roll was interrupted before its rename and is simply deleted on recovery.
pub const TMP_PREFIX: &str = "tmp_";
/// Directory (inside the index directory) that corrupt buckets are moved to.
pub const QUARANTINE_DIR: &str = "quarantine";
/// The writer's exclusive OS lock file in the index directory.
pub const LOCK_FILE: &str = "writer.lock";

/// Write-ahead log of a hot bucket.
pub const WAL_FILE: &str = "wal.log";
/// A hot bucket's journal frames as they are compressed, so that they are not held in memory
/// (not durable: the WAL is; see `bucket::hot::FramesFile`).
pub const HOT_FRAMES_FILE: &str = "frames.hot";
/// Compressed raw journal: independently compressed zstd slices.
pub const JOURNAL_FILE: &str = "journal.zst";
/// Slice table: where each journal slice starts, its lengths and checksum.
pub const SLICES_FILE: &str = "slices.dat";
/// Per-event columns and the host/source/sourcetype dictionaries.
pub const COLUMNS_FILE: &str = "columns.dat";
/// Lexicon: sorted terms in front-coded zstd blocks, each with its postings value.
pub const LEXICON_FILE: &str = "lexicon.dat";
/// Postings: serialized roaring bitmaps of event numbers.
pub const POSTINGS_FILE: &str = "postings.dat";
/// Bloom filter over every lexicon term.
pub const BLOOM_FILE: &str = "bloom.dat";
/// Bucket metadata (JSON body, binary footer).
pub const META_FILE: &str = "meta.json";
/// Every file of a warm bucket, in the order fsck checks them.
pub const WARM_FILES: [&str; 7] = [
    META_FILE,
    COLUMNS_FILE,
    SLICES_FILE,
    JOURNAL_FILE,
    LEXICON_FILE,
    POSTINGS_FILE,
    BLOOM_FILE,
];

/// Magic of each file (4 bytes, first in the footer) so a file renamed or copied to the wrong
/// place is recognised as such instead of being misparsed.
pub mod magic {
    /// `journal.zst`
    pub const JOURNAL: [u8; 4] = *b"LJNL";
    /// `slices.dat`
    pub const SLICES: [u8; 4] = *b"LSLC";
    /// `columns.dat`
    pub const COLUMNS: [u8; 4] = *b"LCOL";
    /// `lexicon.dat`
    pub const LEXICON: [u8; 4] = *b"LLEX";
    /// `postings.dat`
    pub const POSTINGS: [u8; 4] = *b"LPST";
    /// `bloom.dat`
    pub const BLOOM: [u8; 4] = *b"LBLM";
    /// `meta.json`
    pub const META: [u8; 4] = *b"LMET";
    /// `wal.log` header (8 bytes: the WAL has no footer because it only grows).
    pub const WAL: [u8; 8] = *b"LODEWAL\0";
}

/// Uncompressed size a journal slice is cut at, in bytes. Splunk uses 128 KiB; reading one event
/// decompresses its whole slice, and at 10 GB a super-sparse `head 100` spent half its time
/// there. With the bucket's trained dictionary, 16 KiB frames make a journal ~11 % larger than
/// 128 KiB ones on the generated corpus (32 KiB: ~7 %) for 8× less to decompress per event.
/// Against 32 KiB, 16 KiB served ~12 % more `<words> | head 10` searches per second and a
/// 10 GB super-sparse `head 100` ~1.5 ms faster, for 0.5–0.6 points more stored
/// (PERFORMANCE.md, session 7).
pub const SLICE_TARGET_BYTES: usize = 16 * 1024;
/// Largest zstd dictionary trained for a bucket's journal, bytes. On 128 KiB slices, 64 KiB
/// compressed slightly better than 110 KiB (zstd's default). On 16 KiB slices, where the
/// dictionary carries more of each frame's context, 128 KiB does at [`JOURNAL_LEVEL`] 4: the
/// journal came out 8–15 % smaller than with 64 KiB at level 3 (at level 3 it made no
/// difference), on three 140 MB stretches of the 10 GB corpus.
pub const JOURNAL_DICT_BYTES: usize = 128 * 1024;
/// Uncompressed journal bytes held back to train the dictionary on (the first slices).
/// With 16 KiB slices the dictionary carries much of each frame's context, and the first 2 MiB
/// of a bucket trained one too narrow: on two 140 MB stretches of the 10 GB corpus, training on
/// 8 MiB made the journal 9 % and 2 % smaller than training on 2 MiB (16 MiB: no better), for
/// ~0.1 s more training per bucket (~2 % of its ingest CPU) and 6 MiB more held back raw.
pub const JOURNAL_DICT_TRAIN_BYTES: usize = 8 * 1024 * 1024;
/// Buckets after the one that trained it whose hot journal starts with the same dictionary
/// (each lane passes its last full bucket's dictionary on), before a bucket trains its own
/// again. A merge keeps one copy of identical dictionaries, so a merged bucket of six holds two
/// instead of six, and a search reading a few events of each source digests that many fewer
/// (each ~128 KiB read, checked and digested). On the 10 GB bench, 2 stored 3.9 MB less than 8
/// (an older dictionary compresses newer data a little worse) with the same search latency.
pub const JOURNAL_DICT_REUSE: u32 = 2;
/// A bucket whose journal holds less than this is written without a dictionary, where one
/// would cost more than it saves.
pub const JOURNAL_DICT_MIN_BYTES: usize = 1024 * 1024;
/// Size of the samples the training cuts the held-back slices into, bytes (zstd's trainer
/// wants many small samples, about the size of what one frame will see repeated).
pub const JOURNAL_DICT_SAMPLE: usize = 4096;
/// zstd level of journal slices: level 3 compresses logs ~8–12× at several hundred MB/s.
/// With the journal dictionary, lower levels do not pay on the generated corpus: level 1 ran
/// about as many instructions (zstd compresses 128 KiB frames with a dictionary through its
/// slower external-dictionary match finders at every level) and wrote a 0.5–4.7 % larger
/// journal, level 2 a ~2.6 % larger one (session 6).
pub const ZSTD_LEVEL: i32 = 3;
/// zstd level of postings and lexicon blocks. Both are nearly entropy-bound: on the merged
/// buckets of a 1 GB bench home, a 1 GB `add oneshot` and a 10 GB bench home, level 2 wrote
/// postings 0.3–0.8 % and lexicons 0.2–0.6 % smaller than level 3, at 1.4–1.5 times its speed,
/// decompressing postings ~9 % faster (level 1: twice level 3's speed, but up to 0.8 % larger
/// postings and 3 % larger lexicons; session 14).
pub const INDEX_LEVEL: i32 = 2;
/// zstd's shortest match in postings blocks. Their one-byte gaps are nearly random, so the
/// default (level 2: 5 bytes here) finds many short matches that save little and cost a
/// sequence each to decompress. On the 79 MB of a 10 GB home bucket's postings, in 32 KiB
/// blocks (`zstd -b2 -B32768`): 7 bytes wrote 0.3 % less, compressed at ~385 instead of ~305
/// MB/s and decompressed at ~1,220 instead of ~1,050 MB/s. (Not for lexicon blocks: their
/// sorted terms share short prefixes, and 7 bytes wrote them 10 % larger.)
pub const POSTINGS_MIN_MATCH: u32 = 7;
/// zstd level of journal slices compressed with the bucket's dictionary. On 16 KiB slices with
/// a 128 KiB dictionary, level 4 wrote a journal 8–15 % smaller than level 3 on three 140 MB
/// stretches of the 10 GB corpus (level 6: 15–20 %), compressing at ~250 MB/s instead of ~400
/// (level 6: ~140) and decompressing as fast. It is not free: in a `perf` profile of
/// `lode add oneshot` of 200 MB (session 9), level 4's match finder took 13 % of ingest cycles.
pub const JOURNAL_LEVEL: i32 = 4;
/// Compressed journal bytes a read takes at once when it goes on from one slice to the next in
/// file order (`bucket::journal::ReadAhead`): a dense read took one `pread` per ~1.6 KB slice,
/// 8 % of its cycles; 128 KiB cut the 1 GB dense search's reads from 64,584 to 3,631.
pub const READ_AHEAD_BYTES: usize = 128 * 1024;
/// Bloom filter bits per distinct term: 10 bits and 7 hashes give about 1 % false positives.
pub const BLOOM_BITS_PER_TERM: u64 = 10;
/// Number of bloom hash probes (optimal for 10 bits per term is ln 2 · 10 ≈ 7).
pub const BLOOM_HASHES: u32 = 7;
/// Largest WAL record payload accepted, in bytes. A length field beyond it can only be garbage
/// (a torn or corrupt header), so the reader stops there instead of allocating it.
pub const MAX_WAL_RECORD: usize = 256 * 1024 * 1024;
/// Largest single file body a reader loads into memory at once (columns), in bytes; a
/// length beyond it in a footer is treated as corruption rather than attempted.
pub const MAX_LOADED_FILE: u64 = 4 * 1024 * 1024 * 1024;
/// Uncompressed size a postings block is closed at, in bytes: a rare-term lookup decompresses
/// one block (~20 µs), zstd's ratio on postings is near its best at this size, and entries
/// start below 2^15 so the in-block offset takes 15 bits of the lexicon value.
pub const POSTINGS_BLOCK_BYTES: usize = 32 * 1024;
/// Uncompressed size a lexicon block is closed at, in bytes. A term lookup reads the block
/// index (~40 bytes per block, read once per open bucket) and decompresses one block: 16 KiB
/// (~700 terms) decode in ~15 µs, and zstd over front-coded sorted terms is within a few percent
/// of its whole-file ratio at this size.
pub const LEXICON_BLOCK_BYTES: usize = 16 * 1024;
/// Bit set in the block count of a lexicon's index when its blocks may hold *shared entries*:
/// a stored value `0` followed by the absolute pointer value of an earlier postings entry
/// (docs/format/lexicon.md). Every lexicon written now sets it. A binary from before reads the
/// flagged count as more blocks than the index can hold (`count * 24` overflows) and refuses
/// the file ("block count out of range") instead of misreading the escape as a pointer delta.
pub const SHARED_ENTRIES_FLAG: u64 = 1 << 62;
/// Bit set in the block count of a lexicon's index when its postings may hold *chunked
/// entries* (postings kind 3, docs/format/lexicon.md). Every lexicon written now sets it; a
/// binary from before reads the flagged count as more blocks than the index can hold and
/// refuses the bucket ("block count out of range") instead of calling its postings damaged.
pub const CHUNKED_ENTRIES_FLAG: u64 = 1 << 61;
/// Bit set in the block count of a lexicon's index when each pointer value is followed by its
/// term's *kinds*: the mask of the bucket's sourcetypes whose events hold the term
/// (docs/format/lexicon.md). Every lexicon written now sets it; a binary from before refuses
/// the file ("block count out of range") instead of reading the mask as the next term.
pub const KINDS_FLAG: u64 = 1 << 60;
/// Smallest postings entry, in bytes (kind, length and data), that the terms writer looks for
/// an earlier identical entry to share. Terms that always occur together (the tokens of one
/// user-agent string, the JSON keys of one template) have byte-identical entries: on a 3.2M-event
/// bucket 19 % of the uncompressed postings bytes repeated an earlier entry, and the 1,330
/// repeated entries of at least 64 bytes carried 18.6 of those 18.7 MB. Smaller entries save
/// less than the hash, the map slot and the escape (up to 6 bytes more than a pointer delta)
/// cost them.
pub const SHARED_ENTRY_MIN_BYTES: usize = 64;
/// Postings lists shorter than this are never stored as roaring bitmaps: roaring's fixed
/// overhead (cookie, container headers) exceeds the delta or run encodings there.
pub const ROARING_MIN_LEN: usize = 64;
/// Deepest `TermQuery` nesting evaluated; deeper queries are refused (`StoreError::Limit`)
/// instead of recursing without bound on user input.
pub const MAX_QUERY_DEPTH: usize = 256;
