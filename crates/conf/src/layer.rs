//! Layering of several files (default, then local) into one configuration.

use std::path::Path;

use crate::{ConfError, ConfFile, Stanza};

/// A configuration made of one or more [`ConfFile`] layers: later layers win key by key, stanzas
/// keep the order in which they first appeared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conf {
    stanzas: Vec<Stanza>,
}

impl Conf {
    /// An empty configuration.
    pub fn new() -> Conf {
        Conf::default()
    }

    /// Loads `<etc_dir>/system/default/<file_name>` then `<etc_dir>/system/local/<file_name>`.
    /// Missing files are empty layers.
    pub fn load_layered(etc_dir: &Path, file_name: &str) -> Result<Conf, ConfError> {
        let mut conf = Conf::new();
        for layer in ["default", "local"] {
            let path = etc_dir.join("system").join(layer).join(file_name);
            conf.push_layer(ConfFile::read(&path)?);
        }
        Ok(conf)
    }

    /// Builds a configuration from layers, lowest precedence first.
    pub fn from_layers(layers: impl IntoIterator<Item = ConfFile>) -> Conf {
        let mut conf = Conf::new();
        for layer in layers {
            conf.push_layer(layer);
        }
        conf
    }

    /// Adds a layer on top: its keys override the same keys of the same stanza.
    pub fn push_layer(&mut self, file: ConfFile) {
        for stanza in file.into_stanzas() {
            match self.stanzas.iter_mut().find(|s| s.name == stanza.name) {
                Some(existing) => {
                    for entry in stanza.entries() {
                        existing.set(entry.clone());
                    }
                }
                None => self.stanzas.push(stanza),
            }
        }
    }

    /// The stanza named `name`, if any layer has it.
    pub fn stanza(&self, name: &str) -> Option<&Stanza> {
        self.stanzas.iter().find(|s| s.name == name)
    }

    /// All stanzas in order of first appearance across layers.
    pub fn stanzas(&self) -> impl Iterator<Item = &Stanza> {
        self.stanzas.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_wins_key_by_key() {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path().join("system");
        std::fs::create_dir_all(sys.join("default")).unwrap();
        std::fs::create_dir_all(sys.join("local")).unwrap();
        std::fs::write(
            sys.join("default/props.conf"),
            "[a]\nx = 1\ny = 2\n[b]\nz = 3\n",
        )
        .unwrap();
        std::fs::write(
            sys.join("local/props.conf"),
            "[a]\ny = 20\nw = 4\n[c]\nq = 5\n",
        )
        .unwrap();
        let conf = Conf::load_layered(dir.path(), "props.conf").unwrap();
        let a = conf.stanza("a").unwrap();
        assert_eq!(a.get("x"), Some("1"));
        assert_eq!(a.get("y"), Some("20"));
        assert_eq!(a.get("w"), Some("4"));
        assert!(a.entry("y").unwrap().origin.ends_with("local/props.conf"));
        let names: Vec<_> = conf.stanzas().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
    }

    #[test]
    fn missing_files_are_empty() {
        let dir = tempfile::tempdir().unwrap();
        let conf = Conf::load_layered(dir.path(), "props.conf").unwrap();
        assert_eq!(conf.stanzas().count(), 0);
    }

    #[test]
    fn malformed_local_file_is_an_error_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let local = dir.path().join("system/local");
        std::fs::create_dir_all(&local).unwrap();
        std::fs::write(local.join("props.conf"), "[a]\n\nbroken\n").unwrap();
        let err = Conf::load_layered(dir.path(), "props.conf")
            .unwrap_err()
            .to_string();
        assert!(err.contains("local/props.conf:3:"), "{err}");
    }
}
