//! Search-time `.conf` files with Splunk's precedence: `system/default` < `apps/*/default` <
//! `apps/*/local` < `system/local`; among apps, the name that sorts first (ASCII) wins.

use std::path::Path;

use crate::SearchError;
use lode_conf::{Conf, ConfFile};

/// Loads every layer of `file_name` under `etc` (missing files and directories are empty).
pub fn load(etc: &Path, file_name: &str) -> Result<Conf, SearchError> {
    let read =
        |p: &Path| ConfFile::read(p).map_err(|e| SearchError::User(format!("{file_name}: {e}")));
    let mut apps: Vec<_> = std::fs::read_dir(etc.join("apps"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    // Lowest precedence first: later layers win, so apps go from the last name to the first.
    apps.sort();
    apps.reverse();
    let mut conf = Conf::new();
    conf.push_layer(read(&etc.join("system/default").join(file_name))?);
    for layer in ["default", "local"] {
        for app in &apps {
            conf.push_layer(read(&app.join(layer).join(file_name))?);
        }
    }
    conf.push_layer(read(&etc.join("system/local").join(file_name))?);
    Ok(conf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn precedence_follows_splunk() {
        let d = tempfile::tempdir().unwrap();
        let etc = d.path();
        put(
            etc,
            "system/default/x.conf",
            "[s]\na = sd\nb = sd\nc = sd\nd = sd\ne = sd\n",
        );
        put(etc, "apps/zeta/default/x.conf", "[s]\nb = zd\n");
        put(etc, "apps/alpha/default/x.conf", "[s]\nb = ad\nc = ad\n");
        put(etc, "apps/zeta/local/x.conf", "[s]\nd = zl\n");
        put(etc, "apps/alpha/local/x.conf", "[s]\nc = al\n");
        put(etc, "system/local/x.conf", "[s]\ne = sl\n");
        let conf = load(etc, "x.conf").unwrap();
        let s = conf.stanza("s").unwrap();
        let got: Vec<_> = ["a", "b", "c", "d", "e"]
            .map(|k| s.get(k).unwrap_or(""))
            .to_vec();
        assert_eq!(got, ["sd", "ad", "al", "zl", "sl"]);
        assert!(load(&etc.join("missing"), "x.conf")
            .unwrap()
            .stanza("s")
            .is_none());
    }
}
