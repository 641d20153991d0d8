//! CSV lookup tables: where a table named in a search lives (a `transforms.conf` lookup
//! definition or a `.csv` file under `lookups/`), its match settings, and matching rows.
//!
//! Resolution, given `$LODE_HOME/etc`:
//! - a name ending in `.csv` is a file: the first of `apps/search/lookups/<f>`, the other apps'
//!   `lookups/<f>` (alphabetical), `system/lookups/<f>`;
//! - any other name is a `transforms.conf` stanza with `filename = <f>` (resolved as above) and
//!   the settings `case_sensitive_match`, `match_type = WILDCARD(f), CIDR(g)`, `max_matches`,
//!   `min_matches`, `default_match`. `transforms.conf` layers: `system/default`, `system/local`,
//!   then each app's `default` and `local` (apps later in the alphabet first, `search` last, so
//!   `search` wins).
//!
//! File names must be plain names: no `/`, `\`, `..`, leading `.` or NUL (no path traversal).

pub mod csv;
mod table;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lode_conf::{Conf, ConfFile};

use crate::error::SearchError;
pub use csv::Table;
pub use table::Matcher;

/// The app whose `lookups/` directory `outputlookup` writes to.
pub const DEFAULT_APP: &str = "search";

/// How a lookup column matches event values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchType {
    /// Equal strings (case per [`Definition::case_sensitive`]).
    Exact,
    /// The table cell is a pattern with `*` wildcards.
    Wildcard,
    /// The table cell is a CIDR block (`10.0.0.0/8`), the event value an IP address.
    Cidr,
}

/// A resolved lookup: its file and settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// The name used in the search.
    pub name: String,
    /// The CSV file (may not exist yet, for `outputlookup`).
    pub path: PathBuf,
    /// `case_sensitive_match` (default true).
    pub case_sensitive: bool,
    /// `match_type`: (column, how) for the non-exact columns.
    pub match_types: Vec<(String, MatchType)>,
    /// `max_matches` (default 1000): most table rows used per input row, in file order.
    pub max_matches: usize,
    /// `min_matches` (default 0): with fewer matches, outputs get `default_match`.
    pub min_matches: usize,
    /// `default_match` (default empty).
    pub default_match: String,
}

impl Definition {
    /// How column `c` matches.
    pub fn match_type(&self, c: &str) -> MatchType {
        self.match_types
            .iter()
            .find(|(n, _)| n == c)
            .map_or(MatchType::Exact, |(_, t)| *t)
    }
}

/// Refuses file names that could leave the lookup directory.
pub fn check_file_name(name: &str) -> Result<(), SearchError> {
    let bad = name.is_empty()
        || name.starts_with('.')
        || name.contains(['/', '\\', '\0'])
        || name.contains("..");
    if bad {
        return Err(SearchError::User(format!(
            "Invalid lookup file name '{name}': use a plain file name (no '/', '\\' or '..')."
        )));
    }
    Ok(())
}

/// The `etc` directory, or the error every lookup command gives without one.
pub fn etc_dir<'a>(etc: Option<&'a Path>, cmd: &str) -> Result<&'a Path, SearchError> {
    etc.ok_or_else(|| {
        SearchError::User(format!(
            "'{cmd}' needs the configuration directory ($LODE_HOME/etc), which this search was run without."
        ))
    })
}

/// App names under `etc/apps`, alphabetical.
fn apps(etc: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(etc.join("apps"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| !n.starts_with('.'))
        .collect();
    out.sort();
    out
}

/// `transforms.conf` with search-time precedence (see the module docs).
pub fn transforms(etc: &Path) -> Result<Conf, SearchError> {
    let conf_err = |e: lode_conf::ConfError| SearchError::User(format!("transforms.conf: {e}"));
    let mut conf = Conf::load_layered(etc, "transforms.conf").map_err(conf_err)?;
    let mut apps = apps(etc);
    apps.sort_by_key(|a| (a == DEFAULT_APP, std::cmp::Reverse(a.clone())));
    for app in apps {
        for layer in ["default", "local"] {
            let path = etc
                .join("apps")
                .join(&app)
                .join(layer)
                .join("transforms.conf");
            conf.push_layer(ConfFile::read(&path).map_err(conf_err)?);
        }
    }
    Ok(conf)
}

/// Where an existing lookup file `file` is (see the module docs), or `None`.
fn find_file(etc: &Path, file: &str) -> Option<PathBuf> {
    let mut dirs = vec![etc.join("apps").join(DEFAULT_APP).join("lookups")];
    dirs.extend(
        apps(etc)
            .into_iter()
            .filter(|a| a != DEFAULT_APP)
            .map(|a| etc.join("apps").join(a).join("lookups")),
    );
    dirs.push(etc.join("system").join("lookups"));
    dirs.into_iter().map(|d| d.join(file)).find(|p| p.is_file())
}

fn not_found(name: &str) -> SearchError {
    SearchError::User(format!(
        "The lookup table '{name}' does not exist or is not available."
    ))
}

/// Resolves `name` (a definition or a `.csv` file). With `for_write`, a missing file resolves
/// to `etc/apps/search/lookups/<file>`; otherwise it is an error.
pub fn resolve(etc: &Path, name: &str, for_write: bool) -> Result<Definition, SearchError> {
    let mut def = Definition {
        name: name.to_string(),
        path: PathBuf::new(),
        case_sensitive: true,
        match_types: Vec::new(),
        max_matches: 1000,
        min_matches: 0,
        default_match: String::new(),
    };
    let file = if name.to_ascii_lowercase().ends_with(".csv") {
        name.to_string()
    } else {
        let conf = transforms(etc)?;
        let Some(stanza) = conf.stanza(name) else {
            return Err(not_found(name));
        };
        let Some(file) = stanza.get("filename") else {
            return Err(SearchError::User(format!(
                "The lookup definition '{name}' has no 'filename' (only CSV file lookups are supported)."
            )));
        };
        if let Some(v) = stanza.get("case_sensitive_match") {
            def.case_sensitive = lode_conf::parse_bool(v).ok_or_else(|| {
                SearchError::User(format!(
                    "Invalid case_sensitive_match '{v}' in lookup definition '{name}'."
                ))
            })?;
        }
        if let Some(v) = stanza.get("match_type") {
            def.match_types = parse_match_type(v, name)?;
        }
        let number = |key: &str, default: usize| -> Result<usize, SearchError> {
            match stanza.get(key) {
                None => Ok(default),
                Some(v) => v.trim().parse().map_err(|_| {
                    SearchError::User(format!(
                        "Invalid {key} '{v}' in lookup definition '{name}'; expected a whole number."
                    ))
                }),
            }
        };
        def.max_matches = number("max_matches", 1000)?.clamp(1, 1000);
        def.min_matches = number("min_matches", 0)?;
        if let Some(v) = stanza.get("default_match") {
            def.default_match = v.to_string();
        }
        file.to_string()
    };
    check_file_name(&file)?;
    def.path = match find_file(etc, &file) {
        Some(p) => p,
        None if for_write => etc
            .join("apps")
            .join(DEFAULT_APP)
            .join("lookups")
            .join(&file),
        None => return Err(not_found(name)),
    };
    Ok(def)
}

/// The file of `inputcsv`/`outputcsv`: `$LODE_HOME/var/run/lode/csv/<name>` (home = the parent
/// of `etc`); `.csv` is added to a name without it (when reading, only if the name as written
/// does not exist).
pub fn csv_path(etc: &Path, name: &str, for_write: bool) -> Result<PathBuf, SearchError> {
    check_file_name(name)?;
    let home = etc.parent().unwrap_or(etc);
    let dir = home.join("var").join("run").join("lode").join("csv");
    let with_ext = if name.to_ascii_lowercase().ends_with(".csv") {
        name.to_string()
    } else {
        format!("{name}.csv")
    };
    let written = dir.join(name);
    if for_write {
        return Ok(dir.join(with_ext));
    }
    if written.is_file() {
        return Ok(written);
    }
    let p = dir.join(with_ext);
    if p.is_file() {
        Ok(p)
    } else {
        Err(SearchError::User(format!(
            "Error in 'inputcsv' command: File '{name}' could not be opened for reading."
        )))
    }
}

/// `WILDCARD(a), CIDR(b)`.
fn parse_match_type(v: &str, name: &str) -> Result<Vec<(String, MatchType)>, SearchError> {
    let mut out = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let parsed = part.split_once('(').and_then(|(kind, rest)| {
            let field = rest.strip_suffix(')')?.trim();
            let t = match kind.trim().to_ascii_uppercase().as_str() {
                "WILDCARD" => MatchType::Wildcard,
                "CIDR" => MatchType::Cidr,
                "EXACT" => MatchType::Exact,
                _ => return None,
            };
            Some((field.to_string(), t))
        });
        match parsed {
            Some(p) if !p.0.is_empty() => out.push(p),
            _ => {
                return Err(SearchError::User(format!(
                    "Invalid match_type '{part}' in lookup definition '{name}'; expected WILDCARD(field) or CIDR(field)."
                )))
            }
        }
    }
    Ok(out)
}

/// Tables read recently, by path, size and modification time (the operators of every worker
/// and every search share one parse).
static CACHE: Mutex<Vec<Cached>> = Mutex::new(Vec::new());
/// A cached table: path, size, modification time, rows.
type Cached = (PathBuf, u64, std::time::SystemTime, Arc<Table>);
/// Most tables kept in [`CACHE`].
const CACHE_TABLES: usize = 16;

/// The table of `def` (read once per file version).
pub fn load(def: &Definition) -> Result<Arc<Table>, SearchError> {
    load_path(&def.path).map_err(|e| match e {
        SearchError::Io(_) => not_found(&def.name),
        other => other,
    })
}

/// The table in the CSV file `path` (read once per file version).
pub fn load_path(path: &Path) -> Result<Arc<Table>, SearchError> {
    let def = Definition {
        name: String::new(),
        path: path.to_path_buf(),
        case_sensitive: true,
        match_types: Vec::new(),
        max_matches: 1,
        min_matches: 0,
        default_match: String::new(),
    };
    let meta = std::fs::metadata(&def.path)
        .map_err(|e| SearchError::Io(format!("{}: {e}", def.path.display())))?;
    let (len, mtime) = (meta.len(), meta.modified().unwrap_or(std::time::UNIX_EPOCH));
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, _, _, t)) = cache
        .iter()
        .find(|(p, l, m, _)| *p == def.path && *l == len && *m == mtime)
    {
        return Ok(t.clone());
    }
    let table = Arc::new(csv::read(&def.path)?);
    cache.retain(|(p, ..)| *p != def.path);
    if cache.len() >= CACHE_TABLES {
        cache.remove(0);
    }
    cache.push((def.path.clone(), len, mtime, table.clone()));
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traversal_is_refused() {
        for bad in ["../x.csv", "a/b.csv", "..", ".hidden.csv", "a\\b.csv", ""] {
            assert!(check_file_name(bad).is_err(), "{bad}");
        }
        check_file_name("users.csv").unwrap();
    }

    #[test]
    fn definitions_files_and_precedence() {
        let dir = tempfile::tempdir().unwrap();
        let etc = dir.path();
        let w = |p: &str, text: &str| {
            let p = etc.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w("system/lookups/a.csv", "k,v\n1,sys\n");
        w("apps/other/lookups/a.csv", "k,v\n1,other\n");
        w(
            "apps/search/local/transforms.conf",
            "[users]\nfilename = a.csv\ncase_sensitive_match = false\nmatch_type = WILDCARD(k), CIDR(ip)\nmax_matches = 5\nmin_matches = 1\ndefault_match = none\n",
        );
        w(
            "system/local/transforms.conf",
            "[bad]\nfilename = ../x.csv\n",
        );
        let d = resolve(etc, "users", false).unwrap();
        assert_eq!(d.path, etc.join("apps/other/lookups/a.csv"));
        assert!(!d.case_sensitive);
        assert_eq!(d.match_type("k"), MatchType::Wildcard);
        assert_eq!(d.match_type("ip"), MatchType::Cidr);
        assert_eq!(d.match_type("v"), MatchType::Exact);
        assert_eq!((d.max_matches, d.min_matches), (5, 1));
        assert_eq!(d.default_match, "none");
        assert!(resolve(etc, "bad", false).is_err());
        assert!(resolve(etc, "nope", false)
            .unwrap_err()
            .to_string()
            .contains("does not exist"));
        assert_eq!(
            resolve(etc, "new.csv", true).unwrap().path,
            etc.join("apps/search/lookups/new.csv")
        );
        assert!(resolve(etc, "new.csv", false).is_err());
        w("apps/search/lookups/a.csv", "k,v\n1,search\n");
        let t = load(&resolve(etc, "a.csv", false).unwrap()).unwrap();
        assert_eq!(t.rows[0][1], "search");
    }
}
