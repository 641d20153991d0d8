//! What this process's hot buckets hold in memory, so that the search caches give way to
//! indexing.
//!
//! Indexing and searching share one machine. A hot bucket holds its term postings, column
//! chunks and compressed slices in memory (~128 MB for a full 128 MB bucket) until its roll has
//! written the warm bucket, and the next bucket fills meanwhile; the search caches would keep
//! their whole budgets on top (about 130 MB at the 1 GB burst's peak). So every hot index an
//! index writer holds reports its heap here after each batch it adds, and withdraws it when
//! the writer lets go of it (after the roll). The process-wide caches (the slice cache and the
//! search crate's bucket cache) shrink their budgets by this figure, down to
//! 1/[`FLOOR_SHARE`] of what is configured ([`yielding`]): while nothing is being indexed
//! they keep their whole budgets.
//!
//! Hot buckets are not all the memory indexing and searching take: a roll's builder, a merge,
//! the ingest queues and each search's buffers come and go beside them. So the caches also
//! give way to the whole process: with a memory target (`[search] process_memory_mb`), a
//! watcher ([`watch`]) reads the resident memory a few times a second, takes what the caches
//! hold from it, and gives the caches what the target leaves ([`room_share`]), again down to
//! their floors.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Once, OnceLock};
use std::time::Duration;

/// Heap bytes of the hot indexes the index writers of this process hold.
static HOT_BYTES: AtomicU64 = AtomicU64::new(0);

/// Rolls and merges running in this process: the two steps of indexing that hold large
/// buffers for a while, reported with a memory peak to tell what met there.
static ROLLS: AtomicU32 = AtomicU32::new(0);
static MERGES: AtomicU32 = AtomicU32::new(0);

/// Counts one running roll or merge while it lives.
pub(crate) struct Running(&'static AtomicU32);

impl Running {
    /// A roll starts (until the guard drops).
    pub(crate) fn roll() -> Running {
        Running::of(&ROLLS)
    }

    /// A merge starts (until the guard drops).
    pub(crate) fn merge() -> Running {
        Running::of(&MERGES)
    }

    fn of(counter: &'static AtomicU32) -> Running {
        counter.fetch_add(1, Ordering::Relaxed);
        Running(counter)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `(rolls, merges)` running in this process now.
pub fn running() -> (u32, u32) {
    (
        ROLLS.load(Ordering::Relaxed),
        MERGES.load(Ordering::Relaxed),
    )
}

/// A cache keeps at least 1/n of its configured budget however much hot buckets hold: a
/// quarter keeps a few buckets' readers and the newest slices for the searches running.
pub const FLOOR_SHARE: u64 = 4;

/// Heap bytes the hot indexes of this process's index writers hold now.
pub fn hot_bytes() -> u64 {
    HOT_BYTES.load(Ordering::Relaxed)
}

/// Records that a hot index that had reported `old` bytes now holds `new`.
pub(crate) fn hot_changed(old: u64, new: u64) {
    if new >= old {
        HOT_BYTES.fetch_add(new - old, Ordering::Relaxed);
    } else {
        HOT_BYTES.fetch_sub(old - new, Ordering::Relaxed);
    }
}

/// A cache's budget now: its configured `budget` less `hot` bytes held by hot buckets, but at
/// least 1/[`FLOOR_SHARE`] of it (0 stays 0: the cache is off).
pub fn yielding(budget: u64, hot: u64) -> u64 {
    budget.saturating_sub(hot).max(budget / FLOOR_SHARE)
}

/// The budget now of a cache configured with `budget` that gives way to what `yield_to`
/// reports ([`hot_bytes`] for the process-wide caches, which also keep within the room the
/// memory watcher leaves them, [`room`]; none: a fixed budget).
pub fn budget_now(budget: u64, yield_to: Option<fn() -> u64>) -> u64 {
    match yield_to {
        Some(bytes) => yielding(budget, bytes()).min(within(budget, room())),
        None => budget,
    }
}

/// A whole share of [`room`]: the caches may hold their whole budgets.
pub const ROOM_WHOLE: u64 = 1 << 16;

/// The share of their budgets the process-wide caches may hold now, in 1/[`ROOM_WHOLE`]ths (set
/// by [`watch`]).
static ROOM: AtomicU64 = AtomicU64::new(ROOM_WHOLE);

/// The share of their budgets the process-wide caches may hold now, in 1/[`ROOM_WHOLE`]ths.
pub fn room() -> u64 {
    ROOM.load(Ordering::Relaxed)
}

/// `share` (in 1/[`ROOM_WHOLE`]ths) of `budget`, but at least 1/[`FLOOR_SHARE`] of it.
pub fn within(budget: u64, share: u64) -> u64 {
    let part =
        (u128::from(budget) * u128::from(share.min(ROOM_WHOLE)) / u128::from(ROOM_WHOLE)) as u64;
    part.max(budget / FLOOR_SHARE)
}

/// The share of their budgets (in 1/[`ROOM_WHOLE`]ths) caches of `budgets` bytes in all may
/// hold in a process whose resident memory is `resident` bytes, `cached` of them in those
/// caches, so that the process stays within `target` bytes: what the rest of the process
/// holds (`resident - cached`) is taken first. A `target` of 0 sets no limit.
pub fn room_share(target: u64, resident: u64, cached: u64, budgets: u64) -> u64 {
    if target == 0 || budgets == 0 {
        return ROOM_WHOLE;
    }
    let rest = resident.saturating_sub(cached);
    let room = target.saturating_sub(rest);
    (u128::from(room) * u128::from(ROOM_WHOLE) / u128::from(budgets)).min(u128::from(ROOM_WHOLE))
        as u64
}

/// How often the watcher reads the resident memory...
const WATCH_EVERY: Duration = Duration::from_millis(250);
/// ... and how often while the process is over its target, giving freed memory back first
/// when enough of it is resident ([`give_back_from`]): searches and rolls free and allocate
/// hundreds of MB a second, and what they freed stays resident until it is given back.
const WATCH_OVER_EVERY: Duration = Duration::from_millis(100);

/// The watcher's target and the caches' budgets, bytes (0: no target).
static TARGET: AtomicU64 = AtomicU64::new(0);
static BUDGETS: AtomicU64 = AtomicU64::new(0);

/// Keeps the process-wide caches within what a memory `target` (bytes; 0: none) leaves them:
/// every [`WATCH_EVERY`] a thread calls `caches()` (which evicts what no longer fits their
/// budgets now and returns what they hold; `budgets` bytes in all are configured), reads this
/// process's resident memory, and sets [`room`] ([`room_share`]). So the caches shrink even
/// while no search touches them. Over the target it looks every [`WATCH_OVER_EVERY`] and
/// gives freed memory back before it measures. The first call starts the thread; later ones
/// change the target and budgets.
pub fn watch(target: u64, budgets: u64, caches: fn() -> u64) {
    TARGET.store(target, Ordering::Relaxed);
    BUDGETS.store(budgets, Ordering::Relaxed);
    static START: Once = Once::new();
    START.call_once(|| {
        let looking = move || loop {
            let target = TARGET.load(Ordering::Relaxed);
            let cached = caches();
            let mut resident = resident_bytes();
            let over = target > 0 && resident.is_some_and(|r| r > target);
            if over && give_back_from(FREED_WORTH_GIVING_BACK) {
                // Pages freed since the last give-back count as resident: they go back before
                // the caches are asked to make room.
                resident = resident_bytes();
            }
            let share = match resident {
                Some(r) if target > 0 => {
                    room_share(target, r, cached, BUDGETS.load(Ordering::Relaxed))
                }
                _ => ROOM_WHOLE,
            };
            ROOM.store(share, Ordering::Relaxed);
            std::thread::sleep(if over { WATCH_OVER_EVERY } else { WATCH_EVERY });
        };
        if let Err(e) = std::thread::Builder::new()
            .name("lode-memory".into())
            .spawn(looking)
        {
            tracing::warn!("cannot start the memory watcher ({e}); the caches keep their budgets");
        }
    });
}

/// The program's way of giving freed memory back to the system ([`on_give_back`]).
static GIVE_BACK: OnceLock<fn()> = OnceLock::new();

/// Registers how freed memory goes back to the system (the `lode` binary: glibc's
/// `malloc_trim`); the first registration stays.
pub fn on_give_back(f: fn()) {
    let _ = GIVE_BACK.set(f);
}

/// Gives freed memory back to the system now, through the registered function (nothing without
/// one). Called where a roll or a merge has just let go of large buffers: a roll frees and
/// allocates tens of MB several times within a second, and what it freed stayed resident
/// until the once-a-second trim while the next buffers took fresh pages (a 10 GB burst's
/// resident memory climbed from 393 to 565 MB during one roll while the heap in use swung
/// between 245 and 378 MB).
pub fn give_back() {
    if let Some(f) = GIVE_BACK.get() {
        let start = std::time::Instant::now();
        f();
        GIVEN_BACK.fetch_add(1, Ordering::Relaxed);
        GIVING_BACK_NANOS.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
}

/// Freed bytes still resident from which they are worth giving back ([`give_back_from`]).
/// A give-back walks every free chunk of the allocator whatever it releases (glibc's
/// `malloc_trim`: 26 ms a call on average in the 10 GB burst), and right after one about 20 MB
/// of the anonymous memory is still not in use (pages partly used, stacks).
pub const FREED_WORTH_GIVING_BACK: u64 = 48 << 20;

/// Gives freed memory back ([`give_back`]) when at least `min` bytes of it are resident, or when
/// that cannot be told ([`freed_resident`]). Returns whether it did.
pub fn give_back_from(min: u64) -> bool {
    let worth = freed_resident().is_none_or(|freed| freed >= min);
    if worth {
        give_back();
    }
    worth
}

/// The program's way of reading the bytes its allocator has handed out and not had back
/// ([`on_heap_in_use`]).
static HEAP_IN_USE: OnceLock<fn() -> u64> = OnceLock::new();

/// Registers how the bytes the allocator has handed out are read (the `lode` binary: glibc's
/// `mallinfo2`); the first registration stays.
pub fn on_heap_in_use(f: fn() -> u64) {
    let _ = HEAP_IN_USE.set(f);
}

/// Freed memory still resident, bytes: the anonymous resident memory less what the allocator
/// has handed out (so stacks and partly used pages count too). None without a registered
/// reader ([`on_heap_in_use`]) or `/proc/self/status`.
pub fn freed_resident() -> Option<u64> {
    let in_use = HEAP_IN_USE.get()?();
    let anon = status_kib(&own_status()?, "RssAnon:")? * 1024;
    Some(anon.saturating_sub(in_use))
}

/// Calls of the registered give-back function, and the time they took in all.
static GIVEN_BACK: AtomicU64 = AtomicU64::new(0);
static GIVING_BACK_NANOS: AtomicU64 = AtomicU64::new(0);

/// How many times freed memory was given back through [`give_back`] in this process, and the
/// nanoseconds that took in all.
pub fn given_back() -> (u64, u64) {
    (
        GIVEN_BACK.load(Ordering::Relaxed),
        GIVING_BACK_NANOS.load(Ordering::Relaxed),
    )
}

/// This process's resident memory (`VmRSS` of `/proc/self/status`), bytes; none where there is
/// no such file.
pub fn resident_bytes() -> Option<u64> {
    Some(status_kib(&own_status()?, "VmRSS:")? * 1024)
}

/// The text of this process's `/proc/self/status`; none where there is no such file.
pub fn own_status() -> Option<String> {
    std::fs::read_to_string("/proc/self/status").ok()
}

/// The figure of `key` (with its colon, `"VmRSS:"`) in the text of a `/proc/<pid>/status`, in
/// kB as the file gives it; none when the line is missing or bad.
pub fn status_kib(status: &str, key: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_guard_counts_while_it_lives() {
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let one = Running::of(&COUNT);
        let two = Running::of(&COUNT);
        assert_eq!(COUNT.load(Ordering::Relaxed), 2);
        drop(one);
        assert_eq!(COUNT.load(Ordering::Relaxed), 1);
        drop(two);
        assert_eq!(COUNT.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn budgets_yield_to_hot_bytes_down_to_a_floor() {
        assert_eq!(yielding(128, 0), 128);
        assert_eq!(yielding(128, 28), 100);
        assert_eq!(yielding(128, 100), 32);
        assert_eq!(yielding(128, u64::MAX), 32);
        assert_eq!(yielding(0, 0), 0);
        assert_eq!(yielding(0, 10), 0);
    }

    #[test]
    fn the_caches_get_what_the_target_leaves_the_rest_of_the_process() {
        const MB: u64 = 1 << 20;
        // No target: whole budgets.
        assert_eq!(room_share(0, 900 * MB, 100 * MB, 160 * MB), ROOM_WHOLE);
        // The rest (300 - 100 = 200 MB) leaves 256 - 200 = 56 of 160 MB: 35 %.
        assert_eq!(
            room_share(256 * MB, 300 * MB, 100 * MB, 160 * MB),
            ROOM_WHOLE * 56 / 160
        );
        // Room to spare: whole budgets, never more.
        assert_eq!(
            room_share(256 * MB, 100 * MB, 60 * MB, 160 * MB),
            ROOM_WHOLE
        );
        // The rest alone over the target: nothing (the floor applies in `within`).
        assert_eq!(room_share(256 * MB, 400 * MB, 10 * MB, 160 * MB), 0);
        assert_eq!(room_share(256 * MB, 100 * MB, 0, 0), ROOM_WHOLE);
        // A share of a budget keeps the floor.
        assert_eq!(within(128, ROOM_WHOLE), 128);
        assert_eq!(within(128, ROOM_WHOLE / 2), 64);
        assert_eq!(within(128, 0), 32);
        assert_eq!(within(128, 2 * ROOM_WHOLE), 128);
        assert_eq!(within(0, 0), 0);
    }

    #[test]
    fn resident_memory_is_read_from_proc() {
        if std::path::Path::new("/proc/self/status").exists() {
            let r = resident_bytes().expect("VmRSS");
            // A running test process holds at least its code and a stack.
            assert!(r > 1 << 20, "{r}");
        }
    }
}
