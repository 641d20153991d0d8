//! Search composition end to end: macros read from `etc/**/macros.conf`, subsearches with the
//! `limits.conf` `[subsearch]` limits, and parse errors pointing into what the user wrote.

mod common;

use std::path::Path;

use common::*;
use lode_search::run::RunOptions;
use lode_search::SearchError;

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// An index of access and syslog events and an `etc` with macros.
fn setup() -> (tempfile::TempDir, tempfile::TempDir) {
    let data = tempfile::tempdir().unwrap();
    let t = 1_700_000_000 * SEC;
    let evs = vec![
        event(t, "web01", "access", "GET / status=200 user=alice"),
        event(t + SEC, "web02", "access", "GET /login status=404 user=bob"),
        event(
            t + 2 * SEC,
            "web01",
            "access",
            "POST /login status=200 user=bob",
        ),
        event(t + 3 * SEC, "db01", "syslog", "ERROR disk full user=carol"),
        event(
            t + 4 * SEC,
            "web02",
            "access",
            "GET /x status=500 user=carol",
        ),
    ];
    write_index(
        data.path(),
        "main",
        &[Chunk {
            events: evs,
            roll: false,
        }],
    );
    let etc = tempfile::tempdir().unwrap();
    put(
        etc.path(),
        "system/default/macros.conf",
        "[web]\ndefinition = sourcetype=access\n\n[status(1)]\nargs = code\ndefinition = status=$code$\nvalidation = isint($code$)\nerrormsg = code must be a number\n",
    );
    put(
        etc.path(),
        "apps/search/local/macros.conf",
        "[web_of(1)]\nargs = u\ndefinition = `web` user=$u$\n\n[limit(1)]\nargs = n\niseval = 1\ndefinition = \"head \" . ($n$ + 1)\n",
    );
    // system/local wins over the app and system/default.
    put(
        etc.path(),
        "apps/search/default/macros.conf",
        "[errs]\ndefinition = nothing_matches_this\n",
    );
    put(
        etc.path(),
        "system/local/macros.conf",
        "[errs]\ndefinition = ERROR\n",
    );
    (data, etc)
}

fn opts(etc: &Path) -> RunOptions {
    RunOptions {
        etc_dir: Some(etc.to_path_buf()),
        ..RunOptions::default()
    }
}

fn users(data: &Path, etc: &Path, q: &str) -> Vec<String> {
    let (mut rows, _) =
        collect_with(data, &request(q, false), &opts(etc)).unwrap_or_else(|e| panic!("{q}: {e}"));
    flatten(&mut rows)
        .into_iter()
        .map(|r| {
            r.into_iter()
                .find_map(|f| f.strip_prefix("user=").map(str::to_string))
                .unwrap_or_default()
        })
        .collect()
}

fn error(data: &Path, etc: &Path, q: &str) -> (String, String) {
    match collect_with(data, &request(q, false), &opts(etc)) {
        Ok(_) => panic!("{q} ran"),
        Err(SearchError::Parse(e)) => (e.message.clone(), q[e.span.start..e.span.end].to_string()),
        Err(e) => (e.to_string(), String::new()),
    }
}

#[test]
fn macros_expand_with_args_nesting_iseval_and_precedence() {
    let (data, etc) = setup();
    let (d, e) = (data.path(), etc.path());
    assert_eq!(users(d, e, "`web` `status(200)`"), ["bob", "alice"]);
    assert_eq!(users(d, e, "`web_of(carol)`"), ["carol"]);
    assert_eq!(users(d, e, "`web` | `limit(1)`"), ["carol", "bob"]);
    assert_eq!(users(d, e, "`errs`"), ["carol"]);
    // A macro may produce a subsearch.
    put(
        e,
        "apps/search/local/macros.conf",
        "[bad_users]\ndefinition = [search status=404 | fields user]\n",
    );
    assert_eq!(users(d, e, "`bad_users`"), ["bob", "bob"]);
}

#[test]
fn macro_errors_point_at_the_call() {
    let (data, etc) = setup();
    let (d, e) = (data.path(), etc.path());
    let (m, at) = error(d, e, "error `nope` | head 1");
    assert!(m.starts_with("The search specifies a macro 'nope' that cannot be found."));
    assert_eq!(at, "`nope`");
    assert_eq!(
        error(d, e, "`status(x)`"),
        (
            "code must be a number".to_string(),
            "`status(x)`".to_string()
        )
    );
    // A parse error inside the expansion points at the call; after it, at the user's text.
    let (m, at) = error(d, e, "`web` | foo");
    assert_eq!(
        (m.as_str(), at.as_str()),
        ("Unknown search command 'foo'.", "foo")
    );
    // Without an etc directory no macro exists.
    let err = collect_with(d, &request("`web`", false), &RunOptions::default()).unwrap_err();
    assert!(err.to_string().contains("'web' that cannot be found"));
}

#[test]
fn subsearches_nest_and_report_errors_in_place() {
    let (data, etc) = setup();
    let (d, e) = (data.path(), etc.path());
    // The inner subsearch picks carol's status; the middle one her users with that status.
    let q = "sourcetype=access [search sourcetype=access [search sourcetype=syslog | fields user] | fields status]";
    assert_eq!(users(d, e, q), ["carol"]);
    let q = "a [search x | foo] b";
    assert_eq!(
        error(d, e, q),
        (
            "Unknown search command 'foo'.".to_string(),
            "foo".to_string()
        )
    );
    assert_eq!(error(d, e, "a [search x").1, "[");
    // Text after the subsearch still maps back.
    let q = "a [search x] | foo";
    assert_eq!(error(d, e, q).1, "foo");
}

#[test]
fn subsearch_limits_truncate_with_warnings() {
    let (data, etc) = setup();
    let (d, e) = (data.path(), etc.path());
    put(e, "system/local/limits.conf", "[subsearch]\nmaxout = 1\n");
    let q = "sourcetype=access [search sourcetype=access status=200 | fields user]";
    let (mut rows, stats) = collect_with(d, &request(q, false), &opts(e)).unwrap();
    // Only the newest subsearch row (bob) survives.
    assert_eq!(flatten(&mut rows).len(), 2);
    assert!(
        stats
            .warnings
            .iter()
            .any(|w| w == "[subsearch]: Subsearch produced 2 results, truncating to maxout 1."),
        "{:?}",
        stats.warnings
    );
    put(e, "system/local/limits.conf", "[subsearch]\nmaxtime = 0\n");
    let (_, stats) = collect_with(d, &request(q, false), &opts(e)).unwrap();
    assert!(
        stats
            .warnings
            .iter()
            .any(|w| w.contains("auto-finalized after time limit (0 seconds)")),
        "{:?}",
        stats.warnings
    );
    put(
        e,
        "system/local/limits.conf",
        "[subsearch]\nmaxout = lots\n",
    );
    let err = collect_with(d, &request(q, false), &opts(e)).unwrap_err();
    assert!(err.to_string().contains("maxout"), "{err}");
}
