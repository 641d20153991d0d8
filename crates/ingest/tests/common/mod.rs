//! Helpers shared by the integration tests.
#![allow(dead_code)]

use lode_conf::{Conf, ConfFile, Warning};
use lode_event::{Event, Micros};
use lode_ingest::{process_bytes, Settings, SourceMeta, DEFAULT_PROPS, DEFAULT_TRANSFORMS};

/// 2017-12-31T00:00:00Z, the fixed ingest time of the tests.
pub const NOW: Micros = 1_514_678_400_000_000;

/// Settings from the shipped defaults plus `props`/`transforms` as the local layer.
pub fn settings_with(props: &str, transforms: &str) -> (Settings, Vec<Warning>) {
    let p = Conf::from_layers([
        ConfFile::parse(DEFAULT_PROPS, "default/props.conf").unwrap(),
        ConfFile::parse(props, "local/props.conf").unwrap(),
    ]);
    let t = Conf::from_layers([
        ConfFile::parse(DEFAULT_TRANSFORMS, "default/transforms.conf").unwrap(),
        ConfFile::parse(transforms, "local/transforms.conf").unwrap(),
    ]);
    Settings::from_confs(&p, &t).unwrap()
}

pub fn meta(sourcetype: &str) -> SourceMeta {
    SourceMeta {
        host: "h1".into(),
        source: "/var/log/test.log".into(),
        sourcetype: sourcetype.into(),
        index: "main".into(),
    }
}

pub fn run(settings: &Settings, sourcetype: &str, data: &[u8]) -> Vec<Event> {
    process_bytes(settings, &meta(sourcetype), data, NOW)
}

pub fn raws(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.raw.as_str()).collect()
}

pub fn loghub_dir() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/loghub/")
}
