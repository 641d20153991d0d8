//! HTTP Event Collector settings and tokens, stored where Splunk keeps them:
//! `$LODE_HOME/etc/apps/splunk_httpinput/local/inputs.conf`, with the listener's `[http]`
//! stanza and one `[http://<name>]` stanza per token:
//!
//! ```text
//! [http]
//! port = 8088
//! enableSSL = 1
//!
//! [http://my-app]
//! token = 6f1a9c52-0d2b-4f7e-9a51-3b1c2d4e5f60
//! index = main
//! indexes = main, web
//! sourcetype = _json
//! useACK = 1
//! disabled = 0
//! ```
//!
//! Lode writes this file itself (`lode hec` commands, the REST API) and rewrites it whole, so
//! comments in it are not kept; a running server notices changes by the file's modification
//! time.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use lode_conf::{ConfFile, Stanza};

use crate::{Home, NodeError};

/// The file, relative to the home.
pub const INPUTS_CONF: &str = "etc/apps/splunk_httpinput/local/inputs.conf";
/// The HEC port Splunk uses.
pub const DEFAULT_PORT: u16 = 8088;

/// The `[http]` stanza: the collector's listener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HecSettings {
    /// `disabled`: no collector listener at all.
    pub disabled: bool,
    /// `port` (default 8088).
    pub port: u16,
    /// `enableSSL` (default on).
    pub enable_ssl: bool,
    /// `serverCert`: PEM certificate chain; empty = the generated self-signed one.
    pub server_cert: String,
    /// `privKeyPath`: PEM private key of `serverCert`.
    pub priv_key_path: String,
    /// `max_content_length`: largest request body in bytes (default 800 MiB, Splunk's).
    pub max_content_length: u64,
}

impl Default for HecSettings {
    fn default() -> Self {
        HecSettings {
            disabled: false,
            port: DEFAULT_PORT,
            enable_ssl: true,
            server_cert: String::new(),
            priv_key_path: String::new(),
            max_content_length: 800 * 1024 * 1024,
        }
    }
}

/// One token (`[http://<name>]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HecToken {
    /// The stanza name after `http://`.
    pub name: String,
    /// `token`: the secret clients send.
    pub token: String,
    /// `index`: where events naming no index go (`main` when unset).
    pub index: Option<String>,
    /// `indexes`: the indexes events may name; empty = any.
    pub indexes: Vec<String>,
    /// `sourcetype` default.
    pub sourcetype: Option<String>,
    /// `source` default (else `http:<name>`).
    pub source: Option<String>,
    /// `host` default (else the client's address).
    pub host: Option<String>,
    /// `useACK`: indexer acknowledgement.
    pub use_ack: bool,
    /// `disabled`.
    pub disabled: bool,
    /// `allowQueryStringAuth`: accept `?token=`.
    pub allow_query_string_auth: bool,
}

impl HecToken {
    /// A new enabled token named `name` with a random GUID.
    pub fn new(name: &str) -> HecToken {
        HecToken {
            name: name.to_string(),
            token: new_guid(),
            index: None,
            indexes: Vec::new(),
            sourcetype: None,
            source: None,
            host: None,
            use_ack: false,
            disabled: false,
            allow_query_string_auth: false,
        }
    }

    /// The index of an event that names `requested` (or none): `Err` when the token may not
    /// write there.
    pub fn index_for(&self, requested: Option<&str>) -> Result<String, String> {
        let index = requested
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .or_else(|| self.index.clone())
            .unwrap_or_else(|| "main".to_string());
        let allowed = self.indexes.is_empty()
            || self.indexes.iter().any(|i| i == &index)
            || (requested.is_none_or(str::is_empty) && self.index.as_deref() == Some(&index));
        if allowed {
            Ok(index)
        } else {
            Err(index)
        }
    }
}

/// A random version-4 GUID, lowercase, as Splunk generates tokens.
pub fn new_guid() -> String {
    uuid::Uuid::new_v4().hyphenated().to_string()
}

/// The collector's configuration: listener settings and tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HecConfig {
    /// `[http]`.
    pub settings: HecSettings,
    /// `[http://…]`, in file order.
    pub tokens: Vec<HecToken>,
}

fn bool_value(s: &Stanza, key: &str, default: bool) -> Result<bool, String> {
    match s.get(key) {
        None => Ok(default),
        Some(v) => lode_conf::parse_bool(v)
            .ok_or_else(|| format!("[{}] {key} = {}: expected a boolean", s.name, v.trim())),
    }
}

fn opt(s: &Stanza, key: &str) -> Option<String> {
    s.get(key)
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// Checks that a value can be written on one line of a `.conf` file.
fn one_line(what: &str, v: &str) -> Result<(), NodeError> {
    if v.contains(['\n', '\r']) {
        return Err(NodeError::Config(format!(
            "{what} must not contain a line break"
        )));
    }
    Ok(())
}

/// Checks a token name: non-empty, no brackets, no line breaks, no leading/trailing spaces.
pub fn check_name(name: &str) -> Result<(), NodeError> {
    if name.is_empty() || name.trim() != name || name.contains([']', '[', '\n', '\r']) {
        return Err(NodeError::Config(format!(
            "invalid token name '{name}': use letters, digits, '-', '_' or '.'"
        )));
    }
    Ok(())
}

impl HecConfig {
    /// The file of `home`.
    pub fn path(home: &Home) -> PathBuf {
        home.root().join(INPUTS_CONF)
    }

    /// Parses the text of the file (`origin` names it in errors).
    pub fn parse(text: &str, origin: &str) -> Result<HecConfig, NodeError> {
        let file = ConfFile::parse(text, origin).map_err(|e| NodeError::Config(e.to_string()))?;
        let bad = |m: String| NodeError::Config(format!("{origin}: {m}"));
        let mut cfg = HecConfig::default();
        for s in file.stanzas() {
            if s.name == "http" {
                let d = HecSettings::default();
                cfg.settings = HecSettings {
                    disabled: bool_value(s, "disabled", d.disabled).map_err(bad)?,
                    port: match s.get("port") {
                        None => d.port,
                        Some(p) => p
                            .trim()
                            .parse()
                            .map_err(|_| bad(format!("[http] port = {p}: expected 1-65535")))?,
                    },
                    enable_ssl: bool_value(s, "enableSSL", d.enable_ssl).map_err(bad)?,
                    server_cert: opt(s, "serverCert").unwrap_or_default(),
                    priv_key_path: opt(s, "privKeyPath").unwrap_or_default(),
                    max_content_length: match s.get("max_content_length") {
                        None => d.max_content_length,
                        Some(v) => v.trim().parse().map_err(|_| {
                            bad(format!("[http] max_content_length = {v}: expected bytes"))
                        })?,
                    },
                };
            } else if let Some(name) = s.name.strip_prefix("http://") {
                let token =
                    opt(s, "token").ok_or_else(|| bad(format!("[{}] has no token", s.name)))?;
                cfg.tokens.push(HecToken {
                    name: name.to_string(),
                    token,
                    index: opt(s, "index"),
                    indexes: s
                        .get("indexes")
                        .map(|v| {
                            v.split(',')
                                .map(str::trim)
                                .filter(|i| !i.is_empty())
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default(),
                    sourcetype: opt(s, "sourcetype"),
                    source: opt(s, "source"),
                    host: opt(s, "host"),
                    use_ack: bool_value(s, "useACK", false).map_err(bad)?,
                    disabled: bool_value(s, "disabled", false).map_err(bad)?,
                    allow_query_string_auth: bool_value(s, "allowQueryStringAuth", false)
                        .map_err(bad)?,
                });
            }
        }
        let mut seen = std::collections::HashSet::new();
        for t in &cfg.tokens {
            if !seen.insert(t.token.as_str()) {
                return Err(bad(format!("token of [http://{}] is used twice", t.name)));
            }
        }
        Ok(cfg)
    }

    /// Loads the file of `home`; a missing file is the default (no tokens).
    pub fn load(home: &Home) -> Result<HecConfig, NodeError> {
        Self::load_path(&Self::path(home))
    }

    /// Loads `path`; a missing file is the default (no tokens).
    pub fn load_path(path: &Path) -> Result<HecConfig, NodeError> {
        match std::fs::read_to_string(path) {
            Ok(text) => HecConfig::parse(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HecConfig::default()),
            Err(e) => Err(NodeError::Io(format!("reading {}: {e}", path.display()))),
        }
    }

    /// The file's text.
    pub fn render(&self) -> String {
        let s = &self.settings;
        let d = HecSettings::default();
        let b = |v: bool| if v { "1" } else { "0" };
        let mut out = String::from(
            "# Written by Lode (lode hec …, REST API); edits are kept, comments are not.\n[http]\n",
        );
        out += &format!(
            "disabled = {}\nport = {}\nenableSSL = {}\n",
            b(s.disabled),
            s.port,
            b(s.enable_ssl)
        );
        if !s.server_cert.is_empty() {
            out += &format!("serverCert = {}\n", s.server_cert);
        }
        if !s.priv_key_path.is_empty() {
            out += &format!("privKeyPath = {}\n", s.priv_key_path);
        }
        if s.max_content_length != d.max_content_length {
            out += &format!("max_content_length = {}\n", s.max_content_length);
        }
        for t in &self.tokens {
            out += &format!("\n[http://{}]\ntoken = {}\n", t.name, t.token);
            let mut kv = |k: &str, v: &Option<String>| {
                if let Some(v) = v {
                    out.push_str(&format!("{k} = {v}\n"));
                }
            };
            kv("index", &t.index);
            kv("sourcetype", &t.sourcetype);
            kv("source", &t.source);
            kv("host", &t.host);
            if !t.indexes.is_empty() {
                out += &format!("indexes = {}\n", t.indexes.join(", "));
            }
            out += &format!(
                "useACK = {}\ndisabled = {}\nallowQueryStringAuth = {}\n",
                b(t.use_ack),
                b(t.disabled),
                b(t.allow_query_string_auth)
            );
        }
        out
    }

    /// Writes the file of `home` atomically (temporary file, fsync, rename).
    pub fn save(&self, home: &Home) -> Result<(), NodeError> {
        for t in &self.tokens {
            check_name(&t.name)?;
            for (what, v) in [
                ("token", Some(&t.token)),
                ("index", t.index.as_ref()),
                ("sourcetype", t.sourcetype.as_ref()),
                ("source", t.source.as_ref()),
                ("host", t.host.as_ref()),
            ] {
                if let Some(v) = v {
                    one_line(what, v)?;
                }
            }
        }
        let path = Self::path(home);
        let io = |e: std::io::Error| NodeError::Io(format!("writing {}: {e}", path.display()));
        let dir = path.parent().expect("the path has a parent");
        std::fs::create_dir_all(dir).map_err(io)?;
        let tmp = path.with_extension("conf.tmp");
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp).map_err(io)?;
            f.write_all(self.render().as_bytes()).map_err(io)?;
            f.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, &path).map_err(io)?;
        Ok(())
    }

    /// The token whose secret is `token`.
    pub fn by_token(&self, token: &str) -> Option<&HecToken> {
        self.tokens.iter().find(|t| t.token == token)
    }

    /// The token named `name`.
    pub fn by_name_mut(&mut self, name: &str) -> Result<&mut HecToken, NodeError> {
        self.tokens
            .iter_mut()
            .find(|t| t.name == name)
            .ok_or_else(|| NodeError::Config(format!("no HEC token named '{name}'")))
    }

    /// Adds `token`; its name and secret must be new.
    pub fn add(&mut self, token: HecToken) -> Result<(), NodeError> {
        check_name(&token.name)?;
        if self.tokens.iter().any(|t| t.name == token.name) {
            return Err(NodeError::Config(format!(
                "a HEC token named '{}' exists already",
                token.name
            )));
        }
        if self.tokens.iter().any(|t| t.token == token.token) {
            return Err(NodeError::Config(
                "that token value is in use already".into(),
            ));
        }
        self.tokens.push(token);
        Ok(())
    }

    /// Removes the token named `name`.
    pub fn remove(&mut self, name: &str) -> Result<HecToken, NodeError> {
        let i = self
            .tokens
            .iter()
            .position(|t| t.name == name)
            .ok_or_else(|| NodeError::Config(format!("no HEC token named '{name}'")))?;
        Ok(self.tokens.remove(i))
    }
}

/// Modification time of the file of `home` (`None` when absent), to notice changes.
pub fn modified(home: &Home) -> Option<SystemTime> {
    std::fs::metadata(HecConfig::path(home))
        .and_then(|m| m.modified())
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_then_parse_round_trips() {
        let mut cfg = HecConfig::default();
        cfg.settings.port = 18088;
        cfg.settings.enable_ssl = false;
        let mut t = HecToken::new("app");
        t.index = Some("web".into());
        t.indexes = vec!["web".into(), "main".into()];
        t.use_ack = true;
        t.sourcetype = Some("_json".into());
        cfg.add(t).unwrap();
        cfg.add(HecToken::new("other")).unwrap();
        let back = HecConfig::parse(&cfg.render(), "x").unwrap();
        assert_eq!(back, cfg);
    }

    #[test]
    fn splunk_written_stanzas_parse() {
        let text = "[http]\ndisabled = 0\nport = 8088\nenableSSL = 1\n\n\
                    [http://vector]\ntoken = 11111111-2222-3333-4444-555555555555\nuseACK = true\n\
                    indexes = main,web\nindex = main\n";
        let cfg = HecConfig::parse(text, "inputs.conf").unwrap();
        assert_eq!(cfg.tokens.len(), 1);
        let t = &cfg.tokens[0];
        assert_eq!(t.name, "vector");
        assert!(t.use_ack && !t.disabled && !t.allow_query_string_auth);
        assert_eq!(t.indexes, vec!["main", "web"]);
    }

    #[test]
    fn bad_values_are_errors_naming_the_key() {
        let e = HecConfig::parse("[http://a]\ntoken = x\nuseACK = maybe\n", "f").unwrap_err();
        assert!(e.to_string().contains("useACK = maybe"), "{e}");
        let e = HecConfig::parse("[http://a]\nindex = main\n", "f").unwrap_err();
        assert!(e.to_string().contains("has no token"), "{e}");
        let e = HecConfig::parse("[http]\nport = 99999\n", "f").unwrap_err();
        assert!(e.to_string().contains("port"), "{e}");
    }

    #[test]
    fn index_rules() {
        let mut t = HecToken::new("a");
        assert_eq!(t.index_for(None), Ok("main".into()));
        assert_eq!(t.index_for(Some("web")), Ok("web".into()));
        t.index = Some("web".into());
        t.indexes = vec!["web".into()];
        assert_eq!(t.index_for(None), Ok("web".into()));
        assert_eq!(t.index_for(Some("main")), Err("main".into()));
    }

    #[test]
    fn names_and_duplicates_are_checked() {
        let mut cfg = HecConfig::default();
        cfg.add(HecToken::new("a")).unwrap();
        assert!(cfg.add(HecToken::new("a")).is_err());
        assert!(cfg.add(HecToken::new("bad]name")).is_err());
        assert!(cfg.remove("a").is_ok());
        assert!(cfg.remove("a").is_err());
    }

    #[test]
    fn save_and_load() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        assert_eq!(HecConfig::load(&home).unwrap(), HecConfig::default());
        let mut cfg = HecConfig::default();
        cfg.add(HecToken::new("a")).unwrap();
        cfg.save(&home).unwrap();
        assert_eq!(HecConfig::load(&home).unwrap(), cfg);
        assert!(modified(&home).is_some());
    }
}
