//! Which indexes a search reads: `index=` at the top-level AND of the search clause.
//!
//! Each top-level conjunct that names indexes (`index=web`, or an OR of such, `(index=a OR
//! index=b)`) is one constraint group; an index is read when it matches some pattern of every
//! group. Patterns may use `*`, compare case-insensitively, and reach internal indexes (names
//! starting with `_`) only when the pattern itself starts with `_` (so `index=*` means every
//! non-internal index). No group: the default index `main`. The matcher still checks `index` per
//! event, so a selection only has to be a superset.
//!
//! [`IndexAccess`] is the caller's right to read (Splunk's `srchIndexesAllowed` and
//! `srchIndexesDefault` of their roles): an index it does not allow is never a candidate, so it is
//! never read whatever the search names (`index=*`, `index=_*`, or the name itself: no results,
//! not an error, as in Splunk), and a search without `index=` reads the default indexes instead of
//! `main`. Everything that picks indexes goes through [`searchable`] and [`select_for`].

use std::path::Path;

use lode_spl::ast::{CmpOp, SearchExpr};

use super::conjuncts;
use crate::SearchError;

/// The index searched when the clause names none.
pub const DEFAULT_INDEX: &str = "main";

/// The `index=` constraint groups of the clause's top-level AND.
pub fn index_groups(clause: Option<&SearchExpr>) -> Vec<Vec<String>> {
    let mut groups = Vec::new();
    for c in conjuncts(clause) {
        if let Some(g) = index_group(c) {
            groups.push(g);
        }
    }
    groups
}

/// Patterns of one conjunct, when it is only about the index.
fn index_group(e: &SearchExpr) -> Option<Vec<String>> {
    match e {
        SearchExpr::Compare {
            field,
            op: CmpOp::Eq,
            value,
            ..
        } if field == "index" => Some(vec![value.clone()]),
        SearchExpr::Or(items) => {
            let mut all = Vec::new();
            for i in items {
                all.extend(index_group(i)?);
            }
            Some(all)
        }
        _ => None,
    }
}

/// Which indexes a caller may search: patterns as in `index=` (`*`, case-insensitive, internal
/// names only through a pattern starting with `_`). `None` in [`crate::run::RunOptions`] means
/// unrestricted (the local CLI).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexAccess {
    /// `srchIndexesAllowed`: the indexes that may be read at all.
    pub allowed: Vec<String>,
    /// `srchIndexesDefault`: read when the search names no index (only those also allowed).
    pub default: Vec<String>,
}

impl IndexAccess {
    /// Whether index `name` may be read.
    pub fn allows(&self, name: &str) -> bool {
        self.allowed.iter().any(|p| index_matches(p, name))
    }

    /// Whether index `name` is read by a search that names none.
    pub fn is_default(&self, name: &str) -> bool {
        self.allows(name) && self.default.iter().any(|p| index_matches(p, name))
    }
}

/// The indexes under `root` that `access` lets the caller read (all with `None`), sorted.
pub fn searchable(root: &Path, access: Option<&IndexAccess>) -> Result<Vec<String>, SearchError> {
    let mut names = list_indexes(root)?;
    if let Some(a) = access {
        names.retain(|n| a.allows(n));
    }
    Ok(names)
}

/// [`select`] for a caller with `access`: only allowed indexes, and the caller's default indexes
/// when the clause names none.
pub fn select_for(
    groups: &[Vec<String>],
    available: &[String],
    access: Option<&IndexAccess>,
) -> Vec<String> {
    let Some(a) = access else {
        return select(groups, available);
    };
    let allowed: Vec<String> = available.iter().filter(|n| a.allows(n)).cloned().collect();
    if groups.is_empty() {
        return allowed.into_iter().filter(|n| a.is_default(n)).collect();
    }
    select(groups, &allowed)
}

/// The indexes to read among `available` (sorted by name).
pub fn select(groups: &[Vec<String>], available: &[String]) -> Vec<String> {
    let mut out: Vec<String> = if groups.is_empty() {
        available
            .iter()
            .filter(|n| *n == DEFAULT_INDEX)
            .cloned()
            .collect()
    } else {
        available
            .iter()
            .filter(|name| {
                groups
                    .iter()
                    .all(|g| g.iter().any(|p| index_matches(p, name)))
            })
            .cloned()
            .collect()
    };
    out.sort();
    out
}

/// Whether index `name` is selected by `pattern`.
pub fn index_matches(pattern: &str, name: &str) -> bool {
    if name.starts_with('_') && !pattern.starts_with('_') {
        return false;
    }
    glob_match(pattern.as_bytes(), name.as_bytes())
}

/// Case-insensitive `*` glob over whole strings: the matcher's wildcard rule, so index names
/// match exactly as field values do.
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    crate::matcher::wildcard_match(pattern, text, true)
}

/// Names of the index directories under `root` (a missing root has none).
pub fn list_indexes(root: &Path) -> Result<Vec<String>, SearchError> {
    let entries = match std::fs::read_dir(root) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SearchError::Io(format!("{}: {e}", root.display()))),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| SearchError::Io(format!("{}: {e}", root.display())))?;
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        if let (true, Some(name)) = (is_dir, entry.file_name().to_str()) {
            if !name.starts_with('.') {
                names.push(name.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(field: &str, value: &str) -> SearchExpr {
        SearchExpr::Compare {
            field: field.into(),
            op: CmpOp::Eq,
            value: value.into(),
            quoted: false,
        }
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    const AVAILABLE: [&str; 5] = ["_internal", "main", "web", "web2", "db"];

    fn pick(clause: &SearchExpr) -> Vec<String> {
        select(&index_groups(Some(clause)), &names(&AVAILABLE))
    }

    #[test]
    fn default_is_main() {
        assert_eq!(
            select(&index_groups(None), &names(&AVAILABLE)),
            names(&["main"])
        );
        assert!(select(&[], &names(&["web"])).is_empty());
    }

    #[test]
    fn top_level_and_index() {
        let e = SearchExpr::And(vec![cmp("index", "WEB"), cmp("host", "a")]);
        assert_eq!(pick(&e), names(&["web"]));
    }

    #[test]
    fn several_via_or() {
        let e = SearchExpr::Or(vec![cmp("index", "web"), cmp("index", "db")]);
        assert_eq!(pick(&e), names(&["db", "web"]));
    }

    #[test]
    fn or_mixed_with_other_conditions_does_not_select() {
        let e = SearchExpr::Or(vec![cmp("index", "web"), cmp("host", "a")]);
        assert_eq!(pick(&e), names(&["main"]));
    }

    #[test]
    fn star_skips_internal_indexes() {
        assert_eq!(
            pick(&cmp("index", "*")),
            names(&["db", "main", "web", "web2"])
        );
        assert_eq!(pick(&cmp("index", "_*")), names(&["_internal"]));
        assert_eq!(pick(&cmp("index", "web*")), names(&["web", "web2"]));
    }

    #[test]
    fn groups_intersect() {
        let e = SearchExpr::And(vec![cmp("index", "web*"), cmp("index", "*2")]);
        assert_eq!(pick(&e), names(&["web2"]));
    }

    #[test]
    fn access_limits_every_selection() {
        let a = IndexAccess {
            allowed: names(&["web*"]),
            default: names(&["web", "main"]),
        };
        let av = names(&AVAILABLE);
        let sel = |e: Option<&SearchExpr>| select_for(&index_groups(e), &av, Some(&a));
        assert_eq!(sel(Some(&cmp("index", "*"))), names(&["web", "web2"]));
        assert!(sel(Some(&cmp("index", "_*"))).is_empty());
        assert!(sel(Some(&cmp("index", "main"))).is_empty());
        assert!(sel(Some(&cmp("index", "_internal"))).is_empty());
        assert_eq!(sel(Some(&cmp("index", "WEB2"))), names(&["web2"]));
        // No index named: the defaults that are allowed.
        assert_eq!(sel(None), names(&["web"]));
        // `*` never reaches internal indexes; `_*` does.
        let all = IndexAccess {
            allowed: names(&["*"]),
            default: names(&["*"]),
        };
        assert!(!all.allows("_internal") && all.allows("db"));
        let admin = IndexAccess {
            allowed: names(&["*", "_*"]),
            default: names(&["main"]),
        };
        assert_eq!(
            select_for(&index_groups(Some(&cmp("index", "_*"))), &av, Some(&admin)),
            names(&["_internal"])
        );
        assert_eq!(select_for(&[], &av, None), names(&["main"]));
        let dir = tempfile::tempdir().unwrap();
        for n in ["main", "web", "_internal"] {
            std::fs::create_dir(dir.path().join(n)).unwrap();
        }
        assert_eq!(searchable(dir.path(), Some(&a)).unwrap(), names(&["web"]));
        assert_eq!(searchable(dir.path(), None).unwrap().len(), 3);
    }

    #[test]
    fn glob_cases() {
        assert!(glob_match(b"a*c", b"abbc"));
        assert!(glob_match(b"*", b""));
        assert!(!glob_match(b"a*c", b"abcd"));
        assert!(glob_match(b"*b*", b"abc"));
    }

    #[test]
    fn lists_directories_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("main")).unwrap();
        std::fs::create_dir(dir.path().join(".tmp")).unwrap();
        std::fs::write(dir.path().join("file"), b"x").unwrap();
        assert_eq!(list_indexes(dir.path()).unwrap(), names(&["main"]));
        assert!(list_indexes(&dir.path().join("none")).unwrap().is_empty());
    }
}
