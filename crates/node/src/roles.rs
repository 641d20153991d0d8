//! Roles, in Splunk's `authorize.conf` form: built-in `admin`, `power` and `user` with Splunk's
//! shipped values, overridden and extended by `$LODE_HOME/etc/system/local/authorize.conf`.
//!
//! ```text
//! [role_web_reader]
//! importRoles = user
//! search = enabled
//! srchIndexesAllowed = web;web_*
//! srchIndexesDefault = web
//! srchJobsQuota = 2
//! srchMaxTime = 3600
//! lode.writeIndexesAllowed = web
//! ```
//!
//! A role has its own capabilities (`<capability> = enabled|disabled`), inherits those of the
//! roles it imports (transitively; cycles are cut), and the same for its search indexes. A
//! user's effective rights ([`Effective`]) are the union over their roles; quotas take the most
//! generous value. Index patterns are `;`-separated and may use `*`; a pattern reaches internal
//! indexes (names starting with `_`) only when it starts with `_` itself.
//!
//! `lode.writeIndexesAllowed` is a Lode extension (Splunk has no per-role write list): the
//! indexes a user may write into (`collect`, `/lode/ingest`, and the indexes of HEC tokens they
//! create). Same patterns, inherited through `importRoles` like `srchIndexesAllowed`. Built-in
//! defaults: `admin` `*;_*`, `power` `*`, `user` none.

use std::collections::BTreeSet;

use lode_conf::{ConfFile, Stanza};

use crate::{Home, NodeError};

/// The file, relative to the home.
pub const AUTHORIZE_CONF: &str = "etc/system/local/authorize.conf";

/// The built-in role names.
pub const BUILTIN_ROLES: [&str; 3] = ["admin", "power", "user"];

/// Keys of a role stanza that are settings, not capabilities.
const SETTINGS: [&str; 16] = [
    "importRoles",
    "srchIndexesAllowed",
    "srchIndexesDefault",
    "srchJobsQuota",
    "srchMaxTime",
    "rtSrchJobsQuota",
    "srchDiskQuota",
    "srchFilter",
    "srchTimeWin",
    "srchTimeEarliest",
    "cumulativeSrchJobsQuota",
    "cumulativeRTSrchJobsQuota",
    "defaultApp",
    "grantableRoles",
    "deleteIndexesAllowed",
    "srchIndexesDisallowed",
];

/// Capabilities of Splunk's `role_user` that mean something in Lode (or that scripts look for).
const USER_CAPS: [&str; 8] = [
    "change_own_password",
    "get_metadata",
    "get_typeahead",
    "list_inputs",
    "rest_properties_get",
    "rest_properties_set",
    "search",
    "schedule_rtsearch",
];
/// What `role_power` adds.
const POWER_CAPS: [&str; 5] = [
    "schedule_search",
    "rtsearch",
    "edit_sourcetypes",
    "embed_report",
    "list_metrics_catalog",
];
/// What `role_admin` adds.
const ADMIN_CAPS: [&str; 14] = [
    "admin_all_objects",
    "edit_user",
    "edit_roles",
    "edit_roles_grantable",
    "edit_token_http",
    "edit_indexes",
    "indexes_edit",
    "edit_server",
    "edit_tcp",
    "list_settings",
    "list_users",
    "list_roles",
    "delete_by_keyword",
    "edit_httpauths",
];

/// The Lode key of a role's writable indexes.
pub const WRITE_INDEXES_KEY: &str = "lode.writeIndexesAllowed";

/// One role as configured (its own settings, not what it imports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    /// Name, without the `role_` stanza prefix.
    pub name: String,
    /// `importRoles`.
    pub imported: Vec<String>,
    /// Capabilities set to `enabled`.
    pub capabilities: Vec<String>,
    /// Capabilities set to `disabled` (they override the same capability imported).
    pub disabled: Vec<String>,
    /// `srchIndexesAllowed` patterns.
    pub srch_indexes_allowed: Vec<String>,
    /// `srchIndexesDefault` patterns.
    pub srch_indexes_default: Vec<String>,
    /// `srchJobsQuota`: concurrent searches (`None`: inherited or the default 3).
    pub srch_jobs_quota: Option<u32>,
    /// `srchMaxTime` in seconds, 0 = unlimited.
    pub srch_max_time: Option<u64>,
    /// `lode.writeIndexesAllowed` patterns (Lode extension).
    pub write_indexes_allowed: Vec<String>,
}

impl Role {
    /// An empty role named `name`.
    pub fn new(name: &str) -> Role {
        Role {
            name: name.to_string(),
            imported: Vec::new(),
            capabilities: Vec::new(),
            disabled: Vec::new(),
            srch_indexes_allowed: Vec::new(),
            srch_indexes_default: Vec::new(),
            srch_jobs_quota: None,
            srch_max_time: None,
            write_indexes_allowed: Vec::new(),
        }
    }

    /// Splunk's shipped values of a built-in role.
    fn builtin(name: &str) -> Role {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut r = Role::new(name);
        match name {
            "user" => {
                r.capabilities = list(&USER_CAPS);
                r.srch_indexes_allowed = list(&["*"]);
                r.srch_indexes_default = list(&["main"]);
                r.srch_jobs_quota = Some(3);
                r.srch_max_time = Some(8_640_000);
            }
            "power" => {
                r.imported = list(&["user"]);
                r.capabilities = list(&POWER_CAPS);
                r.srch_jobs_quota = Some(10);
                r.srch_max_time = Some(8_640_000);
                r.write_indexes_allowed = list(&["*"]);
            }
            _ => {
                r.imported = list(&["power", "user"]);
                r.capabilities = list(&ADMIN_CAPS);
                r.srch_indexes_allowed = list(&["*", "_*"]);
                r.srch_indexes_default = list(&["main", "os"]);
                r.srch_jobs_quota = Some(50);
                r.srch_max_time = Some(8_640_000);
                r.write_indexes_allowed = list(&["*", "_*"]);
            }
        }
        r
    }

    /// Applies the keys of an `authorize.conf` stanza on top of `self`.
    fn apply(&mut self, s: &Stanza, origin: &str) -> Result<(), NodeError> {
        for e in s.entries() {
            let bad = |what: &str| {
                NodeError::Config(format!(
                    "{origin}:{}: [{}] {}: {what} '{}'",
                    e.line, s.name, e.key, e.value
                ))
            };
            match e.key.as_str() {
                "importRoles" => self.imported = split_list(&e.value),
                "srchIndexesAllowed" => self.srch_indexes_allowed = split_list(&e.value),
                "srchIndexesDefault" => self.srch_indexes_default = split_list(&e.value),
                WRITE_INDEXES_KEY => self.write_indexes_allowed = split_list(&e.value),
                "srchJobsQuota" => {
                    self.srch_jobs_quota =
                        Some(e.value.trim().parse().map_err(|_| bad("not a number"))?)
                }
                "srchMaxTime" => {
                    self.srch_max_time =
                        Some(parse_duration(&e.value).ok_or_else(|| bad("not a duration"))?)
                }
                k if SETTINGS.contains(&k) => {}
                cap => {
                    let on = match e.value.trim().to_ascii_lowercase().as_str() {
                        "enabled" => true,
                        "disabled" => false,
                        v => lode_conf::parse_bool(v).ok_or_else(|| bad("not enabled/disabled"))?,
                    };
                    self.capabilities.retain(|c| c != cap);
                    self.disabled.retain(|c| c != cap);
                    if on {
                        self.capabilities.push(cap.to_string());
                    } else {
                        self.disabled.push(cap.to_string());
                    }
                }
            }
        }
        Ok(())
    }

    /// The stanza text of this role.
    fn stanza_text(&self) -> String {
        let mut t = format!("[role_{}]\n", self.name);
        t += &format!("importRoles = {}\n", self.imported.join(";"));
        t += &format!(
            "srchIndexesAllowed = {}\n",
            self.srch_indexes_allowed.join(";")
        );
        t += &format!(
            "srchIndexesDefault = {}\n",
            self.srch_indexes_default.join(";")
        );
        if let Some(q) = self.srch_jobs_quota {
            t += &format!("srchJobsQuota = {q}\n");
        }
        if let Some(m) = self.srch_max_time {
            t += &format!("srchMaxTime = {m}\n");
        }
        t += &format!(
            "{WRITE_INDEXES_KEY} = {}\n",
            self.write_indexes_allowed.join(";")
        );
        for c in &self.capabilities {
            t += &format!("{c} = enabled\n");
        }
        for c in &self.disabled {
            t += &format!("{c} = disabled\n");
        }
        t
    }
}

/// A `;`-separated list (commas accepted too), blanks dropped.
pub fn split_list(v: &str) -> Vec<String> {
    v.split([';', ','])
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Seconds, or a number with a unit (`s`, `m`, `h`, `d`, also spelled out: `100days`).
pub fn parse_duration(v: &str) -> Option<u64> {
    let v = v.trim().to_ascii_lowercase();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let n: u64 = num.parse().ok()?;
    let mult = match unit.trim() {
        "" | "s" | "sec" | "secs" | "second" | "seconds" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600,
        "d" | "day" | "days" => 86_400,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// Whether `name` can name a role: lowercase letters, digits, `_`, `-`, `.`, `@` (Splunk role
/// names are lowercase and cannot hold spaces, colons, semicolons or slashes).
pub fn valid_role_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-' | '.' | '@')
        })
}

/// A user's rights: the union over their roles and everything those import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effective {
    /// Enabled capabilities.
    pub capabilities: BTreeSet<String>,
    /// `srchIndexesAllowed` patterns.
    pub srch_indexes_allowed: Vec<String>,
    /// `srchIndexesDefault` patterns.
    pub srch_indexes_default: Vec<String>,
    /// Concurrent searches allowed (the largest quota; 3 when no role sets one).
    pub srch_jobs_quota: u32,
    /// Longest search run in seconds (the largest; 0 = unlimited).
    pub srch_max_time: u64,
    /// `lode.writeIndexesAllowed` patterns: the indexes the user may write into.
    pub write_indexes_allowed: Vec<String>,
}

impl Effective {
    /// Whether capability `cap` is enabled.
    pub fn has(&self, cap: &str) -> bool {
        self.capabilities.contains(cap)
    }

    /// Whether any of `caps` is enabled.
    pub fn has_any(&self, caps: &[&str]) -> bool {
        caps.iter().any(|c| self.has(c))
    }
}

/// Every role: the built-ins (as configured) then the custom ones in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roles {
    /// All roles.
    pub roles: Vec<Role>,
}

impl Default for Roles {
    fn default() -> Roles {
        Roles {
            roles: BUILTIN_ROLES.iter().map(|n| Role::builtin(n)).collect(),
        }
    }
}

impl Roles {
    /// The file of `home`.
    pub fn path(home: &Home) -> std::path::PathBuf {
        home.root().join(AUTHORIZE_CONF)
    }

    /// The built-in roles overridden and extended by `home`'s `authorize.conf` (a missing file
    /// means the built-ins only). Stanzas other than `[role_*]` (`[default]`, `[capability::…]`,
    /// `[roleMap_…]`) are ignored.
    pub fn load(home: &Home) -> Result<Roles, NodeError> {
        let path = Self::path(home);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Roles::default()),
            Err(e) => return Err(NodeError::Io(format!("reading {}: {e}", path.display()))),
        };
        Self::parse(&text, &path.display().to_string())
    }

    /// [`Roles::load`] from the text of an `authorize.conf`.
    pub fn parse(text: &str, origin: &str) -> Result<Roles, NodeError> {
        let file = ConfFile::parse(text, origin).map_err(|e| NodeError::Config(e.to_string()))?;
        let mut roles = Roles::default();
        for s in file.stanzas() {
            let Some(name) = s.name.strip_prefix("role_") else {
                continue;
            };
            if !valid_role_name(name) {
                return Err(NodeError::Config(format!(
                    "{origin}: [{}]: invalid role name",
                    s.name
                )));
            }
            match roles.roles.iter_mut().find(|r| r.name == name) {
                Some(r) => r.apply(s, origin)?,
                None => {
                    let mut r = Role::new(name);
                    r.apply(s, origin)?;
                    roles.roles.push(r);
                }
            }
        }
        Ok(roles)
    }

    /// Writes every role that differs from Splunk's shipped values (all custom roles) to the
    /// local `authorize.conf`, atomically.
    pub fn save(&self, home: &Home) -> Result<(), NodeError> {
        use std::io::Write;
        let path = Self::path(home);
        let io = |e: std::io::Error| NodeError::Io(format!("writing {}: {e}", path.display()));
        std::fs::create_dir_all(path.parent().expect("has a parent")).map_err(io)?;
        let mut text = String::from("# Lode roles (Splunk authorize.conf form).\n");
        for r in &self.roles {
            if BUILTIN_ROLES.contains(&r.name.as_str()) && *r == Role::builtin(&r.name) {
                continue;
            }
            text += "\n";
            text += &r.stanza_text();
        }
        let tmp = path.with_extension("conf.tmp");
        let mut f = std::fs::File::create(&tmp).map_err(io)?;
        f.write_all(text.as_bytes())
            .and_then(|_| f.sync_all())
            .map_err(io)?;
        std::fs::rename(&tmp, &path).map_err(io)
    }

    /// The role `name`.
    pub fn get(&self, name: &str) -> Option<&Role> {
        self.roles.iter().find(|r| r.name == name)
    }

    /// The role `name`, to change.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Role> {
        self.roles.iter_mut().find(|r| r.name == name)
    }

    /// `role` and every role it imports, transitively, each once (unknown names skipped, cycles
    /// cut), `role` first.
    pub fn closure(&self, names: &[String]) -> Vec<&Role> {
        let mut out: Vec<&Role> = Vec::new();
        let mut stack: Vec<&str> = names.iter().rev().map(String::as_str).collect();
        while let Some(n) = stack.pop() {
            if out.iter().any(|r| r.name == n) {
                continue;
            }
            if let Some(r) = self.get(n) {
                out.push(r);
                stack.extend(r.imported.iter().rev().map(String::as_str));
            }
        }
        out
    }

    /// What a user holding `names` may do. A capability a role disables is off for that role
    /// even when it imports it; another of the user's roles may still grant it.
    pub fn effective(&self, names: &[String]) -> Effective {
        let mut e = Effective::default();
        let mut quota = None::<u32>;
        let mut max_time = None::<u64>;
        for top in names {
            let chain = self.closure(std::slice::from_ref(top));
            let disabled: BTreeSet<&str> = chain
                .first()
                .map(|r| r.disabled.iter().map(String::as_str).collect())
                .unwrap_or_default();
            for r in &chain {
                for c in &r.capabilities {
                    if !disabled.contains(c.as_str()) || r.name == chain[0].name {
                        e.capabilities.insert(c.clone());
                    }
                }
                for p in &r.srch_indexes_allowed {
                    if !e.srch_indexes_allowed.contains(p) {
                        e.srch_indexes_allowed.push(p.clone());
                    }
                }
                for p in &r.srch_indexes_default {
                    if !e.srch_indexes_default.contains(p) {
                        e.srch_indexes_default.push(p.clone());
                    }
                }
                for p in &r.write_indexes_allowed {
                    if !e.write_indexes_allowed.contains(p) {
                        e.write_indexes_allowed.push(p.clone());
                    }
                }
                if let Some(q) = r.srch_jobs_quota {
                    quota = Some(quota.map_or(q, |x| x.max(q)));
                }
                if let Some(m) = r.srch_max_time {
                    max_time = Some(match max_time {
                        Some(0) => 0,
                        _ if m == 0 => 0,
                        Some(x) => x.max(m),
                        None => m,
                    });
                }
            }
        }
        e.srch_jobs_quota = quota.unwrap_or(3);
        e.srch_max_time = max_time.unwrap_or(0);
        e
    }

    /// Checks a role before it is added or changed: a valid name, imported roles that exist and
    /// do not lead back to it.
    pub fn check(&self, role: &Role) -> Result<(), NodeError> {
        if !valid_role_name(&role.name) {
            return Err(NodeError::Config(format!(
                "Invalid role name '{}': use lowercase letters, digits, '_', '-', '.', '@'",
                role.name
            )));
        }
        for i in &role.imported {
            if self.get(i).is_none() {
                return Err(NodeError::Config(format!(
                    "Role={i} is not grantable (no such role)"
                )));
            }
            if *i == role.name
                || self
                    .closure(std::slice::from_ref(i))
                    .iter()
                    .any(|r| r.name == role.name)
            {
                return Err(NodeError::Config(format!(
                    "Role={} cannot import role={i}: that would be a cycle",
                    role.name
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn builtins_match_splunk() {
        let r = Roles::default();
        let user = r.effective(&names(&["user"]));
        assert!(user.has("search") && !user.has("schedule_search") && !user.has("edit_user"));
        assert_eq!(user.srch_indexes_allowed, names(&["*"]));
        assert_eq!(user.srch_indexes_default, names(&["main"]));
        assert_eq!(user.srch_jobs_quota, 3);
        let power = r.effective(&names(&["power"]));
        assert!(power.has("search") && power.has("schedule_search"));
        assert_eq!(power.srch_jobs_quota, 10);
        let admin = r.effective(&names(&["admin"]));
        assert!(admin.has_any(&["edit_roles"]) && admin.has("search") && admin.has("rtsearch"));
        assert_eq!(admin.srch_indexes_allowed, names(&["*", "_*"]));
        assert_eq!(admin.srch_jobs_quota, 50);
        assert_eq!(admin.write_indexes_allowed, names(&["*", "_*"]));
        assert_eq!(power.write_indexes_allowed, names(&["*"]));
        assert!(user.write_indexes_allowed.is_empty());
        assert_eq!(
            r.effective(&names(&["nope"])),
            Effective {
                srch_jobs_quota: 3,
                ..Effective::default()
            }
        );
    }

    #[test]
    fn custom_roles_inherit_and_override() {
        let text = "[role_web]\nimportRoles = user\nsrchIndexesAllowed = web;web_*\n\
                    srchIndexesDefault = web\nsrchJobsQuota = 2\nsrchMaxTime = 1h\n\
                    rtsearch = enabled\nget_typeahead = disabled\n\
                    lode.writeIndexesAllowed = web_summary\n\
                    [role_sub]\nimportRoles = web\nlode.writeIndexesAllowed = sub\n\
                    [role_user]\nsrchIndexesAllowed = main\n[default]\nx = y\n";
        let r = Roles::parse(text, "t").unwrap();
        let web = r.effective(&names(&["web"]));
        assert!(web.has("rtsearch") && web.has("search") && !web.has("get_typeahead"));
        assert_eq!(web.srch_indexes_allowed, names(&["web", "web_*", "main"]));
        assert_eq!(web.srch_indexes_default, names(&["web", "main"]));
        // The largest quota of the chain (user's 3).
        assert_eq!(web.srch_jobs_quota, 3);
        assert_eq!(web.srch_max_time, 8_640_000);
        assert_eq!(r.get("web").unwrap().srch_max_time, Some(3600));
        assert_eq!(web.write_indexes_allowed, names(&["web_summary"]));
        let sub = r.effective(&names(&["sub"]));
        assert_eq!(sub.write_indexes_allowed, names(&["sub", "web_summary"]));
        assert!(Roles::parse("[role_x]\nsrchJobsQuota = many\n", "t").is_err());
        assert!(Roles::parse("[role_Bad Name]\n", "t").is_err());
    }

    #[test]
    fn cycles_are_cut_and_refused() {
        let text = "[role_a]\nimportRoles = b\nsearch = enabled\n[role_b]\nimportRoles = a\n\
                    srchIndexesAllowed = b\n";
        let r = Roles::parse(text, "t").unwrap();
        let e = r.effective(&names(&["a"]));
        assert!(e.has("search"));
        assert_eq!(e.srch_indexes_allowed, names(&["b"]));
        let mut c = Role::new("c");
        c.imported = names(&["a"]);
        assert!(r.check(&c).is_ok());
        let mut a = r.get("a").unwrap().clone();
        a.imported = names(&["a"]);
        assert!(r.check(&a).is_err());
        let mut user = r.get("user").unwrap().clone();
        user.imported = names(&["a"]);
        assert!(r.check(&user).is_ok());
        let mut d = Role::new("d");
        d.imported = names(&["ghost"]);
        assert!(r.check(&d).is_err());
    }

    #[test]
    fn save_load_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        assert_eq!(Roles::load(&home).unwrap(), Roles::default());
        let mut r = Roles::default();
        let mut web = Role::new("web");
        web.imported = names(&["user"]);
        web.capabilities = names(&["edit_token_http"]);
        web.disabled = names(&["rtsearch"]);
        web.srch_indexes_allowed = names(&["web"]);
        web.srch_indexes_default = names(&["web"]);
        web.srch_jobs_quota = Some(1);
        web.srch_max_time = Some(60);
        web.write_indexes_allowed = names(&["web", "summary_*"]);
        r.roles.push(web);
        r.get_mut("power").unwrap().srch_jobs_quota = Some(12);
        r.save(&home).unwrap();
        let text = std::fs::read_to_string(Roles::path(&home)).unwrap();
        assert!(!text.contains("[role_admin]") && text.contains("[role_power]"));
        assert_eq!(Roles::load(&home).unwrap(), r);
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("100days"), Some(8_640_000));
        assert_eq!(parse_duration("90"), Some(90));
        assert_eq!(parse_duration("2h"), Some(7200));
        assert_eq!(parse_duration("soon"), None);
    }
}
