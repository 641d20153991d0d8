//! Sourcetype of a file given without one, from its name and first bytes.

use std::sync::OnceLock;

use regex::Regex;

/// LogHub systems (lowercase file-name prefix before `_`) with a built-in `loghub:<name>`
/// sourcetype.
const LOGHUB: &[&str] = &[
    "android",
    "apache",
    "bgl",
    "hdfs",
    "hpc",
    "hadoop",
    "healthapp",
    "linux",
    "mac",
    "openssh",
    "openstack",
    "proxifier",
    "spark",
    "thunderbird",
    "windows",
    "zookeeper",
];

fn access_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"^\S+ \S+ \S+ \[\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] "[^"]*" \d{3} \S+ "[^"]*" "[^"]*""#)
            .expect("constant regex")
    })
}

fn syslog_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(<\d{1,3}>)?[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ \S+")
            .expect("constant regex")
    })
}

/// Guesses a sourcetype: a LogHub sample file name (`HDFS_2k.log` → `loghub:hdfs`); then the
/// first line of `head` (access_combined, syslog, `_json`); then well-known names
/// (`access.log`, `syslog`, `messages`, `*.json`); otherwise the file stem (`app.log` → `app`).
pub fn guess_sourcetype(source: &str, head: &[u8]) -> String {
    let name = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let lower = name.to_ascii_lowercase();
    let system = lower.split(['_', '.']).next().unwrap_or("");
    if lower.contains("_2k") && LOGHUB.contains(&system) {
        return format!("loghub:{system}");
    }
    let first = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let first = String::from_utf8_lossy(first);
    let first = first.trim_end_matches('\r');
    if access_re().is_match(first) {
        return "access_combined".to_string();
    }
    if first.trim_start().starts_with('{') {
        return "_json".to_string();
    }
    if syslog_re().is_match(first) {
        return "syslog".to_string();
    }
    if lower.starts_with("access") && (lower.contains(".log") || lower.contains("_log")) {
        return "access_combined".to_string();
    }
    if lower == "syslog" || lower == "messages" || lower.starts_with("syslog.") {
        return "syslog".to_string();
    }
    if lower.ends_with(".json") || lower.ends_with(".ndjson") {
        return "_json".to_string();
    }
    let stem = match name.find('.') {
        Some(0) | None => name,
        Some(i) => &name[..i],
    };
    if stem.is_empty() {
        "unknown".to_string()
    } else {
        stem.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_name_content_and_stem() {
        assert_eq!(
            guess_sourcetype("/data/loghub/HDFS_2k.log", b""),
            "loghub:hdfs"
        );
        assert_eq!(
            guess_sourcetype("OpenStack_2k.log", b"nova"),
            "loghub:openstack"
        );
        let access = b"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /a.gif HTTP/1.0\" 200 2326 \"-\" \"Mozilla\"\n";
        assert_eq!(guess_sourcetype("/x/web", access), "access_combined");
        assert_eq!(
            guess_sourcetype("/x/app.out", b"Jun 14 15:16:01 combo sshd[1]: hi\n"),
            "syslog"
        );
        assert_eq!(guess_sourcetype("/x/events", b"  {\"a\":1}\n"), "_json");
        assert_eq!(guess_sourcetype("/var/log/messages", b"garbage"), "syslog");
        assert_eq!(guess_sourcetype("/srv/app.2024.log", b"plain text"), "app");
        assert_eq!(guess_sourcetype("stdin", b""), "stdin");
    }
}
