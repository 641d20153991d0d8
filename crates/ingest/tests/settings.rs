//! props.conf resolution: precedence, warnings, errors.

mod common;

use common::*;
use lode_conf::{Conf, ConfFile};
use lode_ingest::{Settings, SettingsError, SourceMeta};

fn resolve(settings: &Settings, sourcetype: &str, source: &str, host: &str) -> usize {
    let m = SourceMeta {
        host: host.into(),
        source: source.into(),
        sourcetype: sourcetype.into(),
        index: "main".into(),
    };
    settings.resolve(&m).truncate
}

#[test]
fn source_beats_host_beats_sourcetype_beats_default() {
    let props = "[default]\nTRUNCATE = 1\n[st]\nTRUNCATE = 2\n[host::web*]\nTRUNCATE = 3\n\
                 [source::/var/log/.../*.log]\nTRUNCATE = 4\n";
    let (s, w) = settings_with(props, "");
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(resolve(&s, "other", "/tmp/x", "db"), 1);
    assert_eq!(resolve(&s, "st", "/tmp/x", "db"), 2);
    assert_eq!(resolve(&s, "st", "/tmp/x", "WEB-01"), 3);
    assert_eq!(resolve(&s, "st", "/var/log/a/b/c.log", "web-01"), 4);
    assert_eq!(resolve(&s, "st", "/var/log/c.txt", "web-01"), 3);
}

#[test]
fn layering_is_key_by_key_and_literal_source_wins_over_patterns() {
    let props = "[st]\nTRUNCATE = 2\nLINE_BREAKER_LOOKBEHIND = 7\n[source::/a/*]\nTRUNCATE = 5\n\
                 [source::/a/b]\nTRUNCATE = 6\n[source::/a/...]\nTRUNCATE = 9\n";
    let (s, _) = settings_with(props, "");
    let m = SourceMeta {
        source: "/a/b".into(),
        sourcetype: "st".into(),
        ..SourceMeta::default()
    };
    let r = s.resolve(&m);
    assert_eq!((r.truncate, r.lookbehind), (6, 7));
    // Two matching patterns: the lexicographically first ("/a/*" < "/a/...") wins.
    assert_eq!(resolve(&s, "st", "/a/c", "h"), 5);
}

#[test]
fn source_stanza_assigns_sourcetype_when_input_gives_none() {
    let (s, _) = settings_with(
        "[source::/logs/*.app]\nsourcetype = myapp\n[myapp]\nTRUNCATE = 42\n",
        "",
    );
    let m = SourceMeta {
        source: "/logs/x.app".into(),
        ..SourceMeta::default()
    };
    let r = s.resolve(&m);
    assert_eq!((r.sourcetype.as_str(), r.truncate), ("myapp", 42));
    let guessed = s.resolve(&SourceMeta {
        source: "/srv/OpenSSH_2k.log".into(),
        ..SourceMeta::default()
    });
    assert_eq!(guessed.sourcetype, "loghub:openssh");
}

#[test]
fn unknown_keys_are_reported_with_file_and_line() {
    let props =
        "[st]\nTRUNCATE = 5\nTRUNCTAE = 6\nEXTRACT-user = user=(?<user>\\w+)\nKV_MODE = none\n\
                 MAX_DIFF_SECS_AGO = 10\nTRANSFORMS-x = t\n";
    let (_, w) = settings_with(
        props,
        "[t]\nREGEX = a\nFORMAT = b::c\nWRITE_META = true\nBOGUS = 1\n",
    );
    let text: Vec<String> = w.iter().map(|w| w.to_string()).collect();
    assert_eq!(text.len(), 3, "{text:?}");
    assert_eq!(
        text[0],
        "local/props.conf:3: [st] unknown props.conf key `TRUNCTAE`; ignored"
    );
    assert!(text[1].starts_with("local/props.conf:6: [st] MAX_DIFF_SECS_AGO is not supported"));
    assert_eq!(
        text[2],
        "local/transforms.conf:5: [t] unknown transforms.conf key `BOGUS`"
    );
}

#[test]
fn shipped_defaults_load_without_warnings() {
    let (_, warnings) = Settings::builtin().unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn malformed_props_is_an_error_with_line_number() {
    let err = ConfFile::parse(
        "[st]\nTRUNCATE = 5\nSHOULD_LINEMERGE false\n",
        "local/props.conf",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "local/props.conf:3: expected `key = value` or `[stanza]`"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("system/local")).unwrap();
    std::fs::write(dir.path().join("system/local/props.conf"), "[a]\n\n[b\n").unwrap();
    let err = Settings::load(dir.path()).err().unwrap();
    assert!(matches!(err, SettingsError::Conf(_)));
    assert!(
        err.to_string()
            .ends_with("local/props.conf:3: stanza header without closing `]`"),
        "{err}"
    );
}

fn compile_err(props: &str, transforms: &str) -> String {
    let p = Conf::from_layers([ConfFile::parse(props, "props.conf").unwrap()]);
    let t = Conf::from_layers([ConfFile::parse(transforms, "transforms.conf").unwrap()]);
    Settings::from_confs(&p, &t).err().unwrap().to_string()
}

#[test]
fn bad_values_name_stanza_and_key() {
    assert!(compile_err("[st]\nBREAK_ONLY_BEFORE = (oops\n", "")
        .starts_with("props.conf:2: [st] BREAK_ONLY_BEFORE: bad regex"));
    assert!(compile_err("[st]\n\nLINE_BREAKER = \\n\n", "")
        .starts_with("props.conf:3: [st] LINE_BREAKER: LINE_BREAKER needs a capturing group"));
    assert!(compile_err("[st]\nTRUNCATE = lots\n", "").contains("[st] TRUNCATE: not a number"));
    assert!(compile_err("[st]\nTZ = Mars/Base\n", "").contains("[st] TZ: unknown time zone"));
    assert!(compile_err("[st]\nTIME_PREFIX = [\n", "").contains("[st] TIME_PREFIX: bad regex"));
    assert!(compile_err("[st]\nSEDCMD-a = s/(/x/g\n", "").contains("[st] SEDCMD-a: bad regex"));
    assert!(compile_err("[st]\nTRANSFORMS-a = nope\n", "")
        .contains("[st] TRANSFORMS-a: no stanza [nope]"));
    assert!(compile_err(
        "[st]\nTRANSFORMS-a = t\n",
        "[t]\nREGEX = (\nDEST_KEY = queue\n"
    )
    .starts_with("transforms.conf:2: [t] REGEX: bad regex"));
}

#[test]
fn load_uses_builtin_defaults_when_the_default_layer_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("system/local")).unwrap();
    std::fs::write(
        dir.path().join("system/local/props.conf"),
        "[loghub:hdfs]\nTRUNCATE = 77\n",
    )
    .unwrap();
    let (s, w) = Settings::load(dir.path()).unwrap();
    assert!(w.is_empty(), "{w:?}");
    let r = s.resolve(&SourceMeta {
        sourcetype: "loghub:hdfs".into(),
        ..SourceMeta::default()
    });
    assert_eq!(r.truncate, 77);
    assert_eq!(r.time.time_format.as_deref(), Some("%y%m%d %H%M%S"));
    assert!(r.merge.is_none());
}
