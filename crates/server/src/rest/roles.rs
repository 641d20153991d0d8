//! `/services/authorization/roles`, as Splunk serves it, and what a caller's roles let them do.
//!
//! Roles live in `etc/system/local/authorize.conf` ([`lode_node::roles`]). Users with
//! `edit_roles` list, create, edit and delete them; others see the roles they hold (with what
//! those import). Handlers check capabilities with [`require`], and searches get the caller's
//! [`lode_search::plan::index::IndexAccess`] from [`index_access`].

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use lode_node::roles::{
    parse_duration, split_list, Effective, Role, Roles, BUILTIN_ROLES, WRITE_INDEXES_KEY,
};
use lode_node::Home;
use lode_search::plan::index::IndexAccess;

use super::listing::{self, Item, Value};
use super::{error, fail, param, params, Fail, RestState, Session};

const ORIGIN: &str = "/services/authorization/roles";

/// What a holder of `roles` may do, from the home's `authorize.conf`. A file that cannot be read
/// grants nothing (and says why in the log) rather than guessing.
pub fn rights(home: &Home, roles: &[String]) -> Effective {
    match Roles::load(home) {
        Ok(r) => r.effective(roles),
        Err(e) => {
            tracing::warn!(error = %e, "authorize.conf is unusable: no capabilities granted");
            Effective::default()
        }
    }
}

/// The indexes a holder of `e` may search.
pub fn index_access(e: &Effective) -> IndexAccess {
    IndexAccess {
        allowed: e.srch_indexes_allowed.clone(),
        default: e.srch_indexes_default.clone(),
    }
}

/// The indexes a holder of `e` may write into (`lode.writeIndexesAllowed`; same pattern rules
/// as searching, so `*` does not reach internal indexes).
pub fn write_access(e: &Effective) -> IndexAccess {
    IndexAccess {
        allowed: e.write_indexes_allowed.clone(),
        default: Vec::new(),
    }
}

/// 403 in Splunk's message shape: `user` may not write into `index`.
pub fn write_forbidden(user: &str, index: &str) -> Fail {
    fail(StatusCode::FORBIDDEN, "ERROR", &write_refusal(user, index))
}

/// The text of a refused write (also `collect`'s error).
pub fn write_refusal(user: &str, index: &str) -> String {
    format!("You (user={user}) do not have permission to write to index={index}")
}

/// The caller's session and rights when they hold one of `caps`; else 403 saying what
/// they may not do (`what`: "create users").
pub fn require(
    st: &RestState,
    s: Session,
    caps: &[&str],
    what: &str,
) -> Result<(Session, Effective), Fail> {
    let e = rights(st.app.node.home(), &s.roles);
    if e.has_any(caps) {
        return Ok((s, e));
    }
    Err(forbidden(&s, what))
}

/// 403: `s` may not do `what`.
pub fn forbidden(s: &Session, what: &str) -> Fail {
    fail(
        StatusCode::FORBIDDEN,
        "ERROR",
        &format!("You (user={}) do not have permission to {what}", s.user),
    )
}

/// 400 unless every name in `roles` is a role.
pub fn check_exist(home: &Home, roles: &[String]) -> Result<(), Fail> {
    let known = Roles::load(home)
        .map_err(|e| fail(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()))?;
    match roles.iter().find(|r| known.get(r).is_none()) {
        Some(r) => Err(fail(
            StatusCode::BAD_REQUEST,
            "ERROR",
            &format!("Role={r} is not grantable"),
        )),
        None => Ok(()),
    }
}

/// Every value of `key` in `p` (repeated keys and `;`/`,` lists), or `None` when absent.
fn list_param(p: &[(String, String)], key: &str) -> Option<Vec<String>> {
    let mut found = false;
    let mut out = Vec::new();
    for (k, v) in p {
        if k == key {
            found = true;
            for item in split_list(v) {
                if !out.contains(&item) {
                    out.push(item);
                }
            }
        }
    }
    found.then_some(out)
}

fn item(all: &Roles, r: &Role) -> Item {
    let imported = all.closure(&r.imported);
    let mut imp_caps: Vec<String> = imported
        .iter()
        .flat_map(|i| i.capabilities.iter().cloned())
        .filter(|c| !r.disabled.contains(c))
        .collect();
    imp_caps.sort();
    imp_caps.dedup();
    let union = |f: fn(&Role) -> &Vec<String>| -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for i in &imported {
            for p in f(i) {
                if !v.contains(p) {
                    v.push(p.clone());
                }
            }
        }
        v
    };
    let imp_quota = imported.iter().filter_map(|i| i.srch_jobs_quota).max();
    let mut caps = r.capabilities.clone();
    caps.sort();
    Item {
        name: r.name.clone(),
        path: format!("/{}", r.name),
        author: "system".into(),
        acl: listing::Acl::System(""),
        content: vec![
            ("capabilities", Value::List(caps)),
            ("imported_capabilities", Value::List(imp_caps)),
            ("imported_roles", Value::List(r.imported.clone())),
            (
                "srchIndexesAllowed",
                Value::List(r.srch_indexes_allowed.clone()),
            ),
            (
                "srchIndexesDefault",
                Value::List(r.srch_indexes_default.clone()),
            ),
            (
                "imported_srchIndexesAllowed",
                Value::List(union(|i| &i.srch_indexes_allowed)),
            ),
            (
                "imported_srchIndexesDefault",
                Value::List(union(|i| &i.srch_indexes_default)),
            ),
            (
                "srchJobsQuota",
                Value::Num(r.srch_jobs_quota.unwrap_or(0).into()),
            ),
            (
                "imported_srchJobsQuota",
                Value::Num(imp_quota.unwrap_or(0).into()),
            ),
            ("srchMaxTime", Value::Num(r.srch_max_time.unwrap_or(0))),
            (
                WRITE_INDEXES_KEY,
                Value::List(r.write_indexes_allowed.clone()),
            ),
            (
                "imported_lode.writeIndexesAllowed",
                Value::List(union(|i| &i.write_indexes_allowed)),
            ),
            ("defaultApp", "".into()),
        ],
    }
}

fn answer(p: &[(String, String)], all: &Roles, shown: &[&Role], status: StatusCode) -> Response {
    let items: Vec<Item> = shown.iter().map(|r| item(all, r)).collect();
    listing::answer(p, "roles", ORIGIN, &items, status)
}

/// Applies the settings of `p` to `r` (each replaces the role's own value).
fn apply(r: &mut Role, p: &[(String, String)]) -> Result<(), Fail> {
    let bad = |k: &str, v: &str| {
        fail(
            StatusCode::BAD_REQUEST,
            "ERROR",
            &format!("Argument \"{k}\" has an invalid value: '{v}'"),
        )
    };
    if let Some(c) = list_param(p, "capabilities") {
        r.disabled.retain(|d| !c.contains(d));
        r.capabilities = c;
    }
    if let Some(i) = list_param(p, "imported_roles") {
        r.imported = i;
    }
    if let Some(v) = list_param(p, "srchIndexesAllowed") {
        r.srch_indexes_allowed = v;
    }
    if let Some(v) = list_param(p, "srchIndexesDefault") {
        r.srch_indexes_default = v;
    }
    if let Some(v) = list_param(p, WRITE_INDEXES_KEY) {
        r.write_indexes_allowed = v;
    }
    if let Some(v) = param(p, "srchJobsQuota") {
        r.srch_jobs_quota = Some(v.trim().parse().map_err(|_| bad("srchJobsQuota", v))?);
    }
    if let Some(v) = param(p, "srchMaxTime") {
        r.srch_max_time = Some(parse_duration(v).ok_or_else(|| bad("srchMaxTime", v))?);
    }
    Ok(())
}

fn load(home: &Home) -> Result<Roles, Fail> {
    Roles::load(home).map_err(|e| fail(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()))
}

/// Whether `e` may see every role.
fn sees_all(e: &Effective) -> bool {
    e.has_any(&["edit_roles", "list_roles", "admin_all_objects"])
}

/// `GET` lists roles; `POST name=…&capabilities=…&imported_roles=…&srchIndexesAllowed=…`
/// creates one (`edit_roles`).
pub async fn collection(
    State(st): State<RestState>,
    RawQuery(q): RawQuery,
    s: Session,
    method: Method,
    body: Bytes,
) -> Response {
    let home = st.app.node.home().clone();
    let e = rights(&home, &s.roles);
    let p = params(q.as_deref(), &body);
    let mut roles = match load(&home) {
        Ok(r) => r,
        Err(f) => return f.into_response(),
    };
    if method == Method::GET {
        let mine: Vec<String> = roles
            .closure(&s.roles)
            .iter()
            .map(|r| r.name.clone())
            .collect();
        let shown: Vec<&Role> = roles
            .roles
            .iter()
            .filter(|r| sees_all(&e) || mine.contains(&r.name))
            .collect();
        return answer(&p, &roles, &shown, StatusCode::OK);
    }
    if !e.has_any(&["edit_roles", "admin_all_objects"]) {
        return forbidden(&s, "create roles").into_response();
    }
    let Some(name) = param(&p, "name").map(|n| n.trim().to_string()) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ERROR",
            "Argument \"name\" is required",
        );
    };
    if roles.get(&name).is_some() {
        return error(
            StatusCode::CONFLICT,
            "ERROR",
            &format!("Role {name} already exists"),
        );
    }
    let mut r = Role::new(&name);
    if let Err(f) = apply(&mut r, &p) {
        return f.into_response();
    }
    if let Err(e) = roles.check(&r) {
        return error(StatusCode::BAD_REQUEST, "ERROR", &e.to_string());
    }
    roles.roles.push(r);
    if let Err(e) = roles.save(&home) {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string());
    }
    let created = roles.get(&name).expect("just added");
    answer(&p, &roles, &[created], StatusCode::CREATED)
}

/// `GET`, `POST` (edit) and `DELETE` one role.
pub async fn one(
    State(st): State<RestState>,
    Path(path): Path<HashMap<String, String>>,
    RawQuery(q): RawQuery,
    s: Session,
    method: Method,
    body: Bytes,
) -> Response {
    let home = st.app.node.home().clone();
    let e = rights(&home, &s.roles);
    let name = path.get("name").cloned().unwrap_or_default();
    let p = params(q.as_deref(), &body);
    let mut roles = match load(&home) {
        Ok(r) => r,
        Err(f) => return f.into_response(),
    };
    let visible = sees_all(&e) || roles.closure(&s.roles).iter().any(|r| r.name == name);
    if !visible || roles.get(&name).is_none() {
        return error(
            StatusCode::NOT_FOUND,
            "ERROR",
            &format!("Could not find object id={name}"),
        );
    }
    let may_edit = e.has_any(&["edit_roles", "admin_all_objects"]);
    match method {
        Method::DELETE => {
            if !may_edit {
                return forbidden(&s, "delete roles").into_response();
            }
            if BUILTIN_ROLES.contains(&name.as_str()) {
                return error(
                    StatusCode::BAD_REQUEST,
                    "ERROR",
                    &format!("Cannot delete the built-in role {name}"),
                );
            }
            if let Some(u) = roles.roles.iter().find(|r| r.imported.contains(&name)) {
                return error(
                    StatusCode::BAD_REQUEST,
                    "ERROR",
                    &format!("Cannot delete role {name}: role {} imports it", u.name),
                );
            }
            roles.roles.retain(|r| r.name != name);
            if let Err(e) = roles.save(&home) {
                return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string());
            }
            answer(&p, &roles, &[], StatusCode::OK)
        }
        Method::POST => {
            if !may_edit {
                return forbidden(&s, "edit roles").into_response();
            }
            let mut r = roles.get(&name).expect("checked").clone();
            if let Err(f) = apply(&mut r, &p) {
                return f.into_response();
            }
            if let Err(e) = roles.check(&r) {
                return error(StatusCode::BAD_REQUEST, "ERROR", &e.to_string());
            }
            *roles.get_mut(&name).expect("checked") = r;
            if let Err(e) = roles.save(&home) {
                return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string());
            }
            answer(
                &p,
                &roles,
                &[roles.get(&name).expect("kept")],
                StatusCode::OK,
            )
        }
        _ => answer(
            &p,
            &roles,
            &[roles.get(&name).expect("checked")],
            StatusCode::OK,
        ),
    }
}
