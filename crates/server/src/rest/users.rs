//! `/services/authentication/users` and `/services/authorization/roles`, as Splunk serves them:
//! admins list, create, edit (password, roles, realname, email) and delete users; every user can
//! see themselves and change their own password (with `oldpassword`).

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use lode_node::users::{hash_password, User, Users, BUILTIN_ROLES};

use super::atom::{self, DictValue};
use super::{authenticate, error, fail, now_iso, param, params, Fail, RestState, Session};

fn is_admin(s: &Session) -> bool {
    s.roles.iter().any(|r| r == "admin")
}

fn user_content(u: &User) -> Vec<(String, DictValue)> {
    vec![
        ("realname".into(), DictValue::Text(u.realname.clone())),
        ("email".into(), DictValue::Text(u.email.clone())),
        ("roles".into(), DictValue::List(u.roles.clone())),
        ("defaultApp".into(), DictValue::Text("search".into())),
        ("type".into(), DictValue::Text("Splunk".into())),
    ]
}

fn answer(p: &[(String, String)], users: &[&User], status: StatusCode) -> Response {
    if param(p, "output_mode") == Some("json") {
        let entries: Vec<serde_json::Value> = users
            .iter()
            .map(|u| {
                serde_json::json!({
                    "name": u.name, "id": format!("/services/authentication/users/{}", u.name),
                    "author": "system",
                    "content": {"realname": u.realname, "email": u.email, "roles": u.roles,
                                "defaultApp": "search", "type": "Splunk"}
                })
            })
            .collect();
        let body = serde_json::json!({
            "origin": "/services/authentication/users", "updated": now_iso(), "entry": entries,
            "paging": {"total": users.len(), "perPage": 30, "offset": 0}, "messages": []
        });
        return (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response();
    }
    let entries: Vec<atom::Entry> = users
        .iter()
        .map(|u| atom::Entry {
            title: u.name.clone(),
            path: format!("/services/authentication/users/{}", u.name),
            author: "system".into(),
            updated: now_iso(),
            content: user_content(u),
        })
        .collect();
    (
        status,
        [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
        atom::feed(
            "users",
            "/services/authentication/users",
            &now_iso(),
            &entries,
        ),
    )
        .into_response()
}

fn roles_param(p: &[(String, String)]) -> Option<Vec<String>> {
    let roles: Vec<String> = p
        .iter()
        .filter(|(k, _)| k == "roles")
        .flat_map(|(_, v)| v.split(','))
        .map(|r| r.trim().to_string())
        .filter(|r| !r.is_empty())
        .collect();
    (!roles.is_empty()).then_some(roles)
}

fn check_roles(roles: &[String]) -> Result<(), Fail> {
    match roles.iter().find(|r| !BUILTIN_ROLES.contains(&r.as_str())) {
        Some(r) => Err(fail(
            StatusCode::BAD_REQUEST,
            "ERROR",
            &format!("Role={r} is not grantable"),
        )),
        None => Ok(()),
    }
}

/// `GET` lists users (admins: all; others: themselves); `POST name=&password=&roles=` creates.
pub async fn collection(
    State(st): State<RestState>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    method: Method,
    body: Bytes,
) -> Response {
    let s = match authenticate(&st, &headers) {
        Ok(s) => s,
        Err(f) => return f.into_response(),
    };
    let p = params(q.as_deref(), &body);
    let home = st.app.node.home().clone();
    let mut users = match Users::load(&home) {
        Ok(u) => u,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()),
    };
    if method == Method::GET {
        let visible: Vec<&User> = users
            .users
            .iter()
            .filter(|u| is_admin(&s) || u.name == s.user)
            .collect();
        return answer(&p, &visible, StatusCode::OK);
    }
    if !is_admin(&s) {
        return error(
            StatusCode::FORBIDDEN,
            "ERROR",
            "You do not have the capability to create users",
        );
    }
    let (Some(name), Some(password)) = (param(&p, "name"), param(&p, "password")) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ERROR",
            "Arguments \"name\" and \"password\" are required",
        );
    };
    let roles = roles_param(&p).unwrap_or_else(|| vec!["user".into()]);
    if let Err(r) = check_roles(&roles) {
        return r.into_response();
    }
    let (name, password) = (name.to_string(), password.to_string());
    // Hashing is slow by design: off the reactor.
    let n = name.clone();
    let Ok((mut users, res)) = tokio::task::spawn_blocking(move || {
        let role_refs: Vec<&str> = roles.iter().map(String::as_str).collect();
        let r = users.add(&n, &password, &role_refs);
        (users, r)
    })
    .await
    else {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", "hashing failed");
    };
    if let Err(e) = res {
        let status = if e.to_string().contains("exists already") {
            StatusCode::CONFLICT
        } else {
            StatusCode::BAD_REQUEST
        };
        return error(status, "ERROR", &e.to_string());
    }
    if let Some(u) = users.users.last_mut() {
        u.realname = param(&p, "realname").unwrap_or_default().to_string();
        u.email = param(&p, "email").unwrap_or_default().to_string();
    }
    if let Err(e) = users.save(&home) {
        return error(StatusCode::BAD_REQUEST, "ERROR", &e.to_string());
    }
    let created = users.get(&name).cloned();
    answer(&p, &created.iter().collect::<Vec<_>>(), StatusCode::CREATED)
}

/// `GET`, `POST` (edit) and `DELETE` one user.
pub async fn one(
    State(st): State<RestState>,
    Path(path): Path<HashMap<String, String>>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    method: Method,
    body: Bytes,
) -> Response {
    let s = match authenticate(&st, &headers) {
        Ok(s) => s,
        Err(f) => return f.into_response(),
    };
    let name = path.get("name").cloned().unwrap_or_default();
    let p = params(q.as_deref(), &body);
    let home = st.app.node.home().clone();
    let mut users = match Users::load(&home) {
        Ok(u) => u,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()),
    };
    let own = s.user == name;
    if !(is_admin(&s) || own) || users.get(&name).is_none() {
        return error(
            StatusCode::NOT_FOUND,
            "ERROR",
            &format!("Could not find object id={name}"),
        );
    }
    match method {
        Method::DELETE => {
            if !is_admin(&s) || own {
                return error(
                    StatusCode::FORBIDDEN,
                    "ERROR",
                    "Only an admin may delete users, and not themselves",
                );
            }
            users.users.retain(|u| u.name != name);
        }
        Method::POST => {
            let roles = roles_param(&p);
            if let Some(r) = &roles {
                if !is_admin(&s) {
                    return error(
                        StatusCode::FORBIDDEN,
                        "ERROR",
                        "Only an admin may change roles",
                    );
                }
                if let Err(resp) = check_roles(r) {
                    return resp.into_response();
                }
            }
            let old_ok = match (is_admin(&s), param(&p, "password")) {
                (false, Some(_)) => {
                    let old = param(&p, "oldpassword").unwrap_or_default().to_string();
                    let hash = users.get(&name).map(|u| u.password_hash.clone());
                    tokio::task::spawn_blocking(move || {
                        hash.is_some_and(|h| lode_node::users::check_password(&h, &old))
                    })
                    .await
                    .unwrap_or(false)
                }
                _ => true,
            };
            if !old_ok {
                return error(
                    StatusCode::BAD_REQUEST,
                    "ERROR",
                    "The old password is wrong",
                );
            }
            let new_hash = match param(&p, "password") {
                Some(pw) if pw.len() < 8 => {
                    return error(
                        StatusCode::BAD_REQUEST,
                        "ERROR",
                        "a password needs at least 8 characters",
                    )
                }
                Some(pw) => {
                    let pw = pw.to_string();
                    match tokio::task::spawn_blocking(move || hash_password(&pw)).await {
                        Ok(Ok(h)) => Some(h),
                        _ => {
                            return error(
                                StatusCode::INTERNAL_SERVER_ERROR,
                                "ERROR",
                                "hashing the password failed",
                            )
                        }
                    }
                }
                None => None,
            };
            let u = users
                .users
                .iter_mut()
                .find(|u| u.name == name)
                .expect("checked above");
            if let Some(h) = new_hash {
                u.password_hash = h;
            }
            if let Some(r) = roles {
                u.roles = r;
            }
            if let Some(v) = param(&p, "realname") {
                u.realname = v.to_string();
            }
            if let Some(v) = param(&p, "email") {
                u.email = v.to_string();
            }
        }
        _ => {
            let u = users.get(&name).cloned();
            return answer(&p, &u.iter().collect::<Vec<_>>(), StatusCode::OK);
        }
    }
    if let Err(e) = users.save(&home) {
        return error(StatusCode::BAD_REQUEST, "ERROR", &e.to_string());
    }
    let u = users.get(&name).cloned();
    answer(&p, &u.iter().collect::<Vec<_>>(), StatusCode::OK)
}

/// `GET /services/authorization/roles`: the built-in roles.
pub async fn roles(
    State(st): State<RestState>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Response {
    if let Err(f) = authenticate(&st, &headers) {
        return f.into_response();
    }
    let p = params(q.as_deref(), b"");
    let caps = |r: &str| -> Vec<String> {
        let mut c = vec!["search", "rest_properties_get", "change_own_password"];
        if r != "user" {
            c.push("schedule_search");
        }
        if r == "admin" {
            c.extend([
                "admin_all_objects",
                "edit_user",
                "edit_token_http",
                "edit_indexes",
            ]);
        }
        c.into_iter().map(str::to_string).collect()
    };
    if param(&p, "output_mode") == Some("json") {
        let entries: Vec<serde_json::Value> = BUILTIN_ROLES
            .iter()
            .map(|r| {
                serde_json::json!({"name": r, "content": {
                    "capabilities": caps(r), "srchIndexesAllowed": ["*"],
                    "srchIndexesDefault": ["main"], "imported_roles": []}})
            })
            .collect();
        let body = serde_json::json!({"entry": entries, "paging": {"total": entries.len()}});
        return (
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response();
    }
    let entries: Vec<atom::Entry> = BUILTIN_ROLES
        .iter()
        .map(|r| atom::Entry {
            title: r.to_string(),
            path: format!("/services/authorization/roles/{r}"),
            author: "system".into(),
            updated: now_iso(),
            content: vec![
                ("capabilities".into(), DictValue::List(caps(r))),
                (
                    "srchIndexesAllowed".into(),
                    DictValue::List(vec!["*".into()]),
                ),
                (
                    "srchIndexesDefault".into(),
                    DictValue::List(vec!["main".into()]),
                ),
            ],
        })
        .collect();
    (
        [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
        atom::feed(
            "roles",
            "/services/authorization/roles",
            &now_iso(),
            &entries,
        ),
    )
        .into_response()
}
