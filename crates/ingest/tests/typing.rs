//! Typing stage: SEDCMD and TRANSFORMS.

mod common;

use common::*;

const TRANSFORMS: &str = "\
[to_security]\nREGEX = (?i)failed password\nDEST_KEY = _MetaData:Index\nFORMAT = security\n\
[to_st]\nREGEX = ^AUDIT\nDEST_KEY = MetaData:Sourcetype\nFORMAT = sourcetype::audit\n\
[drop_debug]\nREGEX = DEBUG\nDEST_KEY = queue\nFORMAT = nullQueue\n\
[keep_important]\nREGEX = important\nDEST_KEY = queue\nFORMAT = indexQueue\n\
[user_field]\nREGEX = user=(\\w+)\nFORMAT = user::$1\nWRITE_META = true\n\
[mask]\nREGEX = ^(.*)token=\\w+(.*)$\nFORMAT = $1token=****$2\nDEST_KEY = _raw\n";

fn settings(extra: &str) -> lode_ingest::Settings {
    let props = format!("[t]\nSHOULD_LINEMERGE = false\nDATETIME_CONFIG = NONE\n{extra}");
    let (s, w) = settings_with(&props, TRANSFORMS);
    assert!(w.is_empty(), "{w:?}");
    s
}

#[test]
fn sedcmd_masks_raw_in_class_order() {
    let s = settings("SEDCMD-b = s/\\d{12}(\\d{4})/XXXXXXXXXXXX\\1/g\nSEDCMD-a = y/s/S/\n");
    let ev = run(&s, "t", b"card 4111111111111111 ssn\nnothing\n");
    assert_eq!(raws(&ev), ["card XXXXXXXXXXXX1111 SSn", "nothing"]);
}

#[test]
fn transforms_route_index_and_sourcetype() {
    let s = settings("TRANSFORMS-route = to_security, to_st\n");
    let ev = run(&s, "t", b"Failed password for root\nAUDIT ok\nplain\n");
    let meta: Vec<(&str, &str)> = ev
        .iter()
        .map(|e| (e.index.as_str(), e.sourcetype.as_str()))
        .collect();
    assert_eq!(meta, [("security", "t"), ("main", "audit"), ("main", "t")]);
}

#[test]
fn null_queue_drops_and_later_index_queue_keeps() {
    let s = settings("TRANSFORMS-a = drop_debug\nTRANSFORMS-b = keep_important\n");
    let ev = run(&s, "t", b"DEBUG noise\nDEBUG important\nINFO hello\n");
    assert_eq!(raws(&ev), ["DEBUG important", "INFO hello"]);
    // Classes apply in lexicographic order: "a" (keep) before "b" (drop) drops everything DEBUG.
    let s = settings("TRANSFORMS-a = keep_important\nTRANSFORMS-b = drop_debug\n");
    assert_eq!(
        raws(&run(&s, "t", b"DEBUG important\nINFO x\n")),
        ["INFO x"]
    );
}

#[test]
fn write_meta_adds_index_time_fields_and_raw_mask() {
    let s = settings("TRANSFORMS-f = user_field, mask\n");
    let ev = run(&s, "t", b"login user=alice token=abc123 ok\nno user\n");
    assert_eq!(ev[0].fields, [("user".to_string(), "alice".to_string())]);
    assert_eq!(ev[0].raw, "login user=alice token=**** ok");
    assert!(ev[1].fields.is_empty());
}

#[test]
fn sedcmd_runs_before_transforms() {
    // The mask removes "DEBUG" before the nullQueue transform looks for it.
    let s = settings("SEDCMD-m = s/DEBUG/dbg/\nTRANSFORMS-a = drop_debug\n");
    assert_eq!(raws(&run(&s, "t", b"DEBUG x\n")), ["dbg x"]);
}

#[test]
fn syslog_sourcetype_sets_host_from_the_line() {
    let (s, _) = settings_with("", "");
    let ev = run(
        &s,
        "syslog",
        b"Jun 14 15:16:01 combo sshd[19939]: check pass\n",
    );
    assert_eq!(ev[0].host, "combo");
}
