//! `/services/authentication/users`, as Splunk serves it: users with `edit_user` list, create,
//! edit (password, roles, realname, email) and delete users; every user can see themselves and
//! change their own password (with `oldpassword`). Roles may be built-in or custom
//! ([`super::roles`]); an unknown one is refused with 400.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use lode_node::roles::Effective;
use lode_node::users::{hash_password, User, Users};

use super::listing::{self, Item, Value};
use super::roles::{check_exist, rights};
use super::{error, param, params, RestState, Session};

/// Whether `e` may manage every user (create, delete, set roles and passwords).
fn manages_users(e: &Effective) -> bool {
    e.has_any(&["edit_user", "admin_all_objects"])
}

fn answer(p: &[(String, String)], users: &[&User], status: StatusCode) -> Response {
    let items: Vec<Item> = users
        .iter()
        .map(|u| Item {
            name: u.name.clone(),
            path: format!("/{}", u.name),
            author: "system".into(),
            acl: listing::Acl::System(""),
            content: vec![
                ("realname", u.realname.as_str().into()),
                ("email", u.email.as_str().into()),
                ("roles", Value::List(u.roles.clone())),
                ("defaultApp", "search".into()),
                ("type", "Splunk".into()),
            ],
        })
        .collect();
    listing::answer(p, "users", "/services/authentication/users", &items, status)
}

fn roles_param(p: &[(String, String)]) -> Option<Vec<String>> {
    let roles: Vec<String> = p
        .iter()
        .filter(|(k, _)| k == "roles")
        .flat_map(|(_, v)| v.split([',', ';']))
        .map(|r| r.trim().to_string())
        .filter(|r| !r.is_empty())
        .collect();
    (!roles.is_empty()).then_some(roles)
}

/// `GET` lists users (admins: all; others: themselves); `POST name=&password=&roles=` creates.
pub async fn collection(
    State(st): State<RestState>,
    RawQuery(q): RawQuery,
    s: Session,
    method: Method,
    body: Bytes,
) -> Response {
    let p = params(q.as_deref(), &body);
    let home = st.app.node.home().clone();
    let admin = manages_users(&rights(&home, &s.roles));
    let mut users = match Users::load(&home) {
        Ok(u) => u,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()),
    };
    if method == Method::GET {
        let visible: Vec<&User> = users
            .users
            .iter()
            .filter(|u| admin || u.name == s.user)
            .collect();
        return answer(&p, &visible, StatusCode::OK);
    }
    if !admin {
        return super::roles::forbidden(&s, "create users").into_response();
    }
    let (Some(name), Some(password)) = (param(&p, "name"), param(&p, "password")) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ERROR",
            "Arguments \"name\" and \"password\" are required",
        );
    };
    let roles = roles_param(&p).unwrap_or_else(|| vec!["user".into()]);
    if let Err(r) = check_exist(&home, &roles) {
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
    s: Session,
    method: Method,
    body: Bytes,
) -> Response {
    let name = path.get("name").cloned().unwrap_or_default();
    let p = params(q.as_deref(), &body);
    let home = st.app.node.home().clone();
    let admin = manages_users(&rights(&home, &s.roles));
    let mut users = match Users::load(&home) {
        Ok(u) => u,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()),
    };
    let own = s.user == name;
    if !(admin || own) || users.get(&name).is_none() {
        return error(
            StatusCode::NOT_FOUND,
            "ERROR",
            &format!("Could not find object id={name}"),
        );
    }
    match method {
        Method::DELETE => {
            if !admin || own {
                return error(
                    StatusCode::FORBIDDEN,
                    "ERROR",
                    "Only a user with the edit_user capability may delete users, and not themselves",
                );
            }
            users.users.retain(|u| u.name != name);
        }
        Method::POST => {
            let roles = roles_param(&p);
            if let Some(r) = &roles {
                if !admin {
                    return super::roles::forbidden(&s, "change roles").into_response();
                }
                if let Err(resp) = check_exist(&home, r) {
                    return resp.into_response();
                }
            }
            let old_ok = match (admin, param(&p, "password")) {
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
