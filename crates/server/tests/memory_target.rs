//! The process's memory target (`[search] process_memory_mb`): while the process is over it,
//! freed memory still resident is given back, and the two process-wide search caches keep
//! within what the target leaves them, down to a quarter of their budgets; they get their
//! whole budgets back when the target allows it. A test binary of its own: the caches, the
//! watcher and the give-back function are process-wide.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lode_node::{Home, Node};
use lode_server::AppState;
use lode_store::memory;

const MIB: u64 = 1024 * 1024;

/// An app whose server.conf sets `[search] process_memory_mb = target_mb`.
fn app_with_target(target_mb: u64) -> (tempfile::TempDir, AppState) {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::new(dir.path());
    home.ensure_layout().expect("layout");
    std::fs::write(
        home.etc_local().join("server.conf"),
        format!(
            "[search]\nbucket_cache_mb = 128\nslice_cache_mb = 32\n\
             process_memory_mb = {target_mb}\n"
        ),
    )
    .expect("server.conf");
    let node = Arc::new(Node::open(&home).expect("open node"));
    let root = dir.path().join("var/lib/lode");
    (dir, AppState::new(node, root))
}

/// Waits (at most a minute: the watcher looks four times a second) until the room is `want`.
fn room_becomes(want: impl Fn(u64) -> bool) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let room = memory::room();
        if want(room) || Instant::now() > deadline {
            return room;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Calls of the give-back function registered below.
static GIVEN_BACK: AtomicU64 = AtomicU64::new(0);

fn count_give_back() {
    GIVEN_BACK.fetch_add(1, Ordering::Relaxed);
}

/// What the registered allocator reader says is in use: 0 makes all the anonymous resident
/// memory freed memory, `u64::MAX` none of it.
static IN_USE: AtomicU64 = AtomicU64::new(0);

fn in_use() -> u64 {
    IN_USE.load(Ordering::Relaxed)
}

/// Give-backs over `ms` milliseconds.
fn given_back_over(ms: u64) -> u64 {
    let before = GIVEN_BACK.load(Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(ms));
    GIVEN_BACK.load(Ordering::Relaxed) - before
}

/// Waits (at most a minute: over its target the watcher looks ten times a second) for `n`
/// more give-backs; returns how many came.
fn given_back_at_least(n: u64) -> u64 {
    let before = GIVEN_BACK.load(Ordering::Relaxed);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let more = GIVEN_BACK.load(Ordering::Relaxed) - before;
        if more >= n || Instant::now() > deadline {
            return more;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn caches_give_way_to_the_process_memory_target_and_take_it_back() {
    memory::on_give_back(count_give_back);
    memory::on_heap_in_use(in_use);
    // Resident memory the reader above calls freed: more than is worth giving back.
    let ballast = vec![1u8; 2 * memory::FREED_WORTH_GIVING_BACK as usize];
    // A 1 MiB target: the test process alone is far above it, so the caches get their floors.
    let (_a, _app) = app_with_target(1);
    let room = room_becomes(|r| r == 0);
    assert_eq!(room, 0);
    // Over the target, the watcher gives freed memory back at each look...
    let over = given_back_at_least(3);
    assert!(over >= 3, "{over} give-backs over the target in a minute");
    assert_eq!(memory::given_back().0, GIVEN_BACK.load(Ordering::Relaxed));
    // ... while enough of it is resident.
    IN_USE.store(u64::MAX, Ordering::Relaxed);
    given_back_over(300);
    assert_eq!(given_back_over(600), 0);
    assert_eq!(memory::room(), 0);
    IN_USE.store(0, Ordering::Relaxed);
    assert!(memory::give_back_from(memory::FREED_WORTH_GIVING_BACK));
    drop(ballast);
    assert_eq!(lode_search::cache::global().budget(), 128 * MIB / 4);
    assert_eq!(
        lode_store::slice_cache::global().stats().budget,
        32 * MIB / 4
    );

    // No target: whole budgets again.
    let (_b, _app) = app_with_target(0);
    let room = room_becomes(|r| r == memory::ROOM_WHOLE);
    assert_eq!(room, memory::ROOM_WHOLE);
    assert_eq!(lode_search::cache::global().budget(), 128 * MIB);
    assert_eq!(lode_store::slice_cache::global().stats().budget, 32 * MIB);

    // A roomy target (far above what this process holds): whole budgets too.
    let (_c, _app) = app_with_target(64 * 1024);
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(memory::room(), memory::ROOM_WHOLE);
    assert_eq!(lode_search::cache::global().budget(), 128 * MIB);
    // Within the target, the watcher gives nothing back.
    assert_eq!(given_back_over(600), 0);
}
