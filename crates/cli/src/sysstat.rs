//! Process figures from `/proc`: CPU time used, peak resident memory and I/O counters; and the
//! process's CPU affinity.

use rustix::thread::CpuSet;

/// Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ, 100 on every Linux platform
/// Lode targets).
const USER_HZ: f64 = 100.0;

/// User + system CPU seconds used so far by this process (all threads).
pub fn cpu_seconds() -> f64 {
    stat_cpu_seconds("/proc/self/stat")
}

/// User + system CPU seconds used so far by the calling thread alone.
pub fn thread_cpu_seconds() -> f64 {
    stat_cpu_seconds("/proc/thread-self/stat")
}

fn stat_cpu_seconds(path: &str) -> f64 {
    let Ok(stat) = std::fs::read_to_string(path) else {
        return 0.0;
    };
    // Fields after the command name (which is in parentheses and may contain spaces).
    let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the full line, 12 and 13 after the name.
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / USER_HZ
}

/// Peak resident set size of this process in bytes (VmHWM).
pub fn peak_rss_bytes() -> u64 {
    status_kib("VmHWM:") * 1024
}

fn status_kib(key: &str) -> u64 {
    use lode_store::memory::{own_status, status_kib};
    own_status().and_then(|s| status_kib(&s, key)).unwrap_or(0)
}

/// I/O counters of this process (all threads) from `/proc/self/io`; zeros where unavailable.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct IoCounters {
    /// Read system calls (`read`, `pread`, …) made.
    pub syscr: u64,
    /// Write system calls made.
    pub syscw: u64,
    /// Bytes the storage layer fetched for this process (page-cache hits excluded), bytes.
    pub read_bytes: u64,
    /// Bytes this process caused to be sent to storage, bytes.
    pub write_bytes: u64,
}

impl IoCounters {
    /// Counters now.
    pub fn now() -> IoCounters {
        std::fs::read_to_string("/proc/self/io")
            .map(|s| IoCounters::parse(&s))
            .unwrap_or_default()
    }

    /// Parses the text of `/proc/<pid>/io`; missing or bad lines count 0.
    pub fn parse(text: &str) -> IoCounters {
        let mut c = IoCounters::default();
        for line in text.lines() {
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let v = v.trim().parse().unwrap_or(0);
            match k.trim() {
                "syscr" => c.syscr = v,
                "syscw" => c.syscw = v,
                "read_bytes" => c.read_bytes = v,
                "write_bytes" => c.write_bytes = v,
                _ => {}
            }
        }
        c
    }

    /// Counts since `earlier` (saturating: counters never go back).
    pub fn since(&self, earlier: &IoCounters) -> IoCounters {
        IoCounters {
            syscr: self.syscr.saturating_sub(earlier.syscr),
            syscw: self.syscw.saturating_sub(earlier.syscw),
            read_bytes: self.read_bytes.saturating_sub(earlier.read_bytes),
            write_bytes: self.write_bytes.saturating_sub(earlier.write_bytes),
        }
    }
}

/// Resident memory of this process and its anonymous (heap, stacks) and file-backed (the
/// program's own code and data mapped from its file) parts, bytes, from one reading (zeros
/// where unavailable).
pub fn rss_parts() -> (u64, u64, u64) {
    use lode_store::memory::{own_status, status_kib};
    let status = own_status().unwrap_or_default();
    let bytes = |key| status_kib(&status, key).unwrap_or(0) * 1024;
    (bytes("VmRSS:"), bytes("RssAnon:"), bytes("RssFile:"))
}

/// What the C allocator holds, bytes: in use by the program, free but kept in its arenas, and
/// mapped separately for large allocations (glibc's `mallinfo2`, summed over every arena).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Heap {
    /// Bytes the program has allocated from the arenas and not freed.
    pub in_use: u64,
    /// Free bytes the arenas keep (resident only where pages were touched and not trimmed).
    pub free_kept: u64,
    /// Bytes of allocations too large for the arenas, mapped on their own.
    pub mapped: u64,
}

/// The allocator's figures now; zeros where the allocator is not glibc's.
#[allow(unsafe_code)] // A read-only libc query, like the allocator knobs in main.rs.
pub fn heap() -> Heap {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 takes each arena's lock and only reads its counters.
        let m = unsafe { libc::mallinfo2() };
        Heap {
            in_use: m.uordblks as u64,
            free_kept: m.fordblks as u64,
            mapped: m.hblkhd as u64,
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    Heap::default()
}

/// The 1, 5 and 15 minute load averages as `/proc/loadavg` writes them ("3.64 3.95 4.26").
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Total size of the files under `dir`, in bytes.
pub fn dir_bytes(dir: &std::path::Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.filter_map(|e| e.ok())
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}

/// The CPUs the calling thread may run on, in increasing order.
pub fn allowed_cpus() -> std::io::Result<Vec<usize>> {
    let set = rustix::thread::sched_getaffinity(None)?;
    Ok((0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect())
}

/// Confines every thread of this process to `cpus` (threads started later inherit their
/// starter's set, so the whole process stays there). A thread that ends meanwhile is skipped.
pub fn confine_to(cpus: &[usize]) -> std::io::Result<()> {
    let invalid = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, m);
    if cpus.is_empty() {
        return Err(invalid("no CPU to run on".into()));
    }
    let mut set = CpuSet::new();
    for &c in cpus {
        if c >= CpuSet::MAX_CPU {
            return Err(invalid(format!("CPU {c} is beyond the affinity mask")));
        }
        set.set(c);
    }
    for task in std::fs::read_dir("/proc/self/task")? {
        let tid = task?
            .file_name()
            .to_str()
            .and_then(|t| t.parse().ok())
            .and_then(rustix::thread::Pid::from_raw);
        let Some(tid) = tid else {
            continue;
        };
        match rustix::thread::sched_setaffinity(Some(tid), &set) {
            Err(rustix::io::Errno::SRCH) | Ok(()) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn figures_are_read() {
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        assert!(x > 0);
        assert!(super::peak_rss_bytes() > 0);
        assert!(super::cpu_seconds() >= 0.0);
        let (rss, anon, _) = super::rss_parts();
        assert!(rss > 0 && anon > 0 && anon <= rss, "{rss} {anon}");
        assert!(super::thread_cpu_seconds() <= super::cpu_seconds() + 0.01);
    }

    #[test]
    fn io_counters_parse_and_subtract() {
        let text = "rchar: 10\nwchar: 20\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n";
        let c = super::IoCounters::parse(text);
        assert_eq!(
            (c.syscr, c.syscw, c.read_bytes, c.write_bytes),
            (3, 4, 4096, 8192)
        );
        let d = c.since(&super::IoCounters {
            syscr: 1,
            syscw: 9,
            ..Default::default()
        });
        assert_eq!((d.syscr, d.syscw, d.read_bytes), (2, 0, 4096));
        assert_eq!(
            super::IoCounters::parse("garbage"),
            super::IoCounters::default()
        );
        // Writing a file makes at least one write system call.
        let before = super::IoCounters::now();
        let f = std::env::temp_dir().join(format!("lode-sysstat-{}", std::process::id()));
        std::fs::write(&f, b"x").unwrap();
        std::fs::remove_file(&f).unwrap();
        assert!(super::IoCounters::now().syscw > before.syscw);
    }

    /// A process confined to one CPU runs its running and new threads there, and can be let
    /// out again.
    #[test]
    fn confining_moves_every_thread() {
        let all = super::allowed_cpus().unwrap();
        assert!(!all.is_empty());
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let waiting = std::thread::spawn(move || {
            started_tx.send(()).unwrap();
            rx.recv().unwrap();
            super::allowed_cpus().unwrap()
        });
        started_rx.recv().unwrap();
        super::confine_to(&all[..1]).unwrap();
        let fresh = std::thread::spawn(|| super::allowed_cpus().unwrap())
            .join()
            .unwrap();
        tx.send(()).unwrap();
        let running = waiting.join().unwrap();
        let mine = super::allowed_cpus().unwrap();
        super::confine_to(&all).unwrap();
        assert_eq!(
            (mine, fresh, running),
            (all[..1].to_vec(), all[..1].to_vec(), all[..1].to_vec())
        );
        assert_eq!(super::allowed_cpus().unwrap(), all);
        assert!(super::confine_to(&[]).is_err());
        assert!(super::confine_to(&[1 << 20]).is_err());
    }
}
