//! `/services/data/inputs/http`: HTTP Event Collector tokens over REST, as Splunk serves them
//! (entries named `http://<name>`), for scripts that create tokens. Changes go to the same
//! `inputs.conf` the `lode hec` commands edit; the collector picks them up within a second.
//! Only users with the `edit_token_http` capability may list or change tokens.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use lode_node::hec::{HecConfig, HecToken};

use super::listing::{self, Item, Value};
use super::roles::{require, write_access, write_forbidden};
use super::{error, fail, param, params, Fail, RestState, Session};
use lode_node::roles::Effective;

/// The answer listing `tokens` in the requested form.
fn answer(p: &[(String, String)], tokens: &[&HecToken], status: StatusCode) -> Response {
    let o = |x: &Option<String>| Value::Text(x.clone().unwrap_or_default());
    let items: Vec<Item> = tokens
        .iter()
        .map(|t| Item {
            name: format!("http://{}", t.name),
            path: format!("/{}", t.name),
            author: "nobody".into(),
            acl: listing::Acl::System("splunk_httpinput"),
            content: vec![
                ("token", t.token.as_str().into()),
                ("index", o(&t.index)),
                ("indexes", Value::List(t.indexes.clone())),
                ("sourcetype", o(&t.sourcetype)),
                ("source", o(&t.source)),
                ("host", o(&t.host)),
                ("useACK", Value::Bool(t.use_ack)),
                ("disabled", Value::Bool(t.disabled)),
                (
                    "allowQueryStringAuth",
                    Value::Bool(t.allow_query_string_auth),
                ),
            ],
        })
        .collect();
    listing::answer(p, "http", "/services/data/inputs/http", &items, status)
}

/// The caller when they have the `edit_token_http` capability; else the refusal (403).
fn admin(st: &RestState, s: Session) -> Result<(Session, Effective), Fail> {
    require(
        st,
        s,
        &["edit_token_http", "admin_all_objects"],
        "manage HTTP Event Collector tokens",
    )
}

/// 403 unless the caller may write into every index `t` may write into: its `indexes` and its
/// default `index` (a token without an index list may write anywhere, so its creator must be
/// allowed `*` and `_*`). A token never grants more than its creator has.
fn check_writable(s: &Session, e: &Effective, t: &HecToken) -> Result<(), Fail> {
    let w = write_access(e);
    if t.indexes.is_empty() {
        let everywhere = ["*", "_*"].iter().all(|p| w.allowed.iter().any(|a| a == p));
        if !everywhere {
            return Err(fail(
                StatusCode::FORBIDDEN,
                "ERROR",
                &format!(
                    "You (user={}) do not have permission to create a token for every index: give \"indexes\"",
                    s.user
                ),
            ));
        }
    }
    let named = t.indexes.iter().chain(t.index.iter());
    match named.into_iter().find(|i| !w.allows(i)) {
        Some(i) => Err(write_forbidden(&s.user, i)),
        None => Ok(()),
    }
}

/// A Splunk boolean parameter ([`lode_conf::parse_bool`]).
fn bool_param(p: &[(String, String)], k: &str) -> Result<Option<bool>, Fail> {
    match param(p, k) {
        None => Ok(None),
        Some(v) if lode_conf::parse_bool(v).is_some() => Ok(lode_conf::parse_bool(v)),
        Some(v) => Err(fail(
            StatusCode::BAD_REQUEST,
            "ERROR",
            &format!("Argument \"{k}\" must be a boolean, not '{v}'"),
        )),
    }
}

/// Applies the editable settings of `p` to `t`.
fn apply(t: &mut HecToken, p: &[(String, String)]) -> Result<(), Fail> {
    let text = |k: &str| param(p, k).map(|v| v.trim().to_string());
    if let Some(v) = text("token") {
        t.token = v;
    }
    for (k, slot) in [
        ("index", &mut t.index),
        ("sourcetype", &mut t.sourcetype),
        ("source", &mut t.source),
        ("host", &mut t.host),
    ] {
        if let Some(v) = text(k) {
            *slot = (!v.is_empty()).then_some(v);
        }
    }
    if let Some(v) = text("indexes") {
        t.indexes = v
            .split(',')
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .map(str::to_string)
            .collect();
    }
    if let Some(b) = bool_param(p, "useACK")? {
        t.use_ack = b;
    }
    if let Some(b) = bool_param(p, "disabled")? {
        t.disabled = b;
    }
    if let Some(b) = bool_param(p, "allowQueryStringAuth")? {
        t.allow_query_string_auth = b;
    }
    Ok(())
}

fn config_error(e: lode_node::NodeError) -> Response {
    error(StatusCode::BAD_REQUEST, "ERROR", &e.to_string())
}

/// `GET` lists the tokens; `POST name=…` creates one.
pub async fn collection(
    State(st): State<RestState>,
    RawQuery(q): RawQuery,
    s: Session,
    method: axum::http::Method,
    body: Bytes,
) -> Response {
    let (s, e) = match admin(&st, s) {
        Ok(x) => x,
        Err(r) => return r.into_response(),
    };
    let p = params(q.as_deref(), &body);
    let home = st.app.node.home();
    let mut cfg = match HecConfig::load(home) {
        Ok(c) => c,
        Err(e) => return config_error(e),
    };
    if method == axum::http::Method::GET {
        return answer(&p, &cfg.tokens.iter().collect::<Vec<_>>(), StatusCode::OK);
    }
    let Some(name) = param(&p, "name").map(|n| n.trim_start_matches("http://").to_string()) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ERROR",
            "Argument \"name\" is required",
        );
    };
    let mut t = HecToken::new(&name);
    if let Err(r) = apply(&mut t, &p).and_then(|_| check_writable(&s, &e, &t)) {
        return r.into_response();
    }
    if let Err(e) = cfg.add(t.clone()).and_then(|_| cfg.save(home)) {
        let status = if e.to_string().contains("exists already") {
            StatusCode::CONFLICT
        } else {
            StatusCode::BAD_REQUEST
        };
        return error(status, "ERROR", &e.to_string());
    }
    answer(&p, &[&t], StatusCode::CREATED)
}

/// `GET` one token, `POST` edits it, `DELETE` removes it; `…/enable` and `…/disable`.
pub async fn one(
    State(st): State<RestState>,
    Path(path): Path<HashMap<String, String>>,
    RawQuery(q): RawQuery,
    s: Session,
    method: axum::http::Method,
    body: Bytes,
) -> Response {
    let (s, e) = match admin(&st, s) {
        Ok(x) => x,
        Err(r) => return r.into_response(),
    };
    let p = params(q.as_deref(), &body);
    let name = path
        .get("name")
        .map(|n| {
            n.trim_start_matches("http:")
                .trim_start_matches("//")
                .to_string()
        })
        .unwrap_or_default();
    let action = path.get("action").map(String::as_str);
    let home = st.app.node.home();
    let mut cfg = match HecConfig::load(home) {
        Ok(c) => c,
        Err(e) => return config_error(e),
    };
    let not_found = || {
        error(
            StatusCode::NOT_FOUND,
            "ERROR",
            &format!("Could not find object id=http://{name}"),
        )
    };
    if method == axum::http::Method::DELETE {
        return match cfg.remove(&name).and_then(|_| cfg.save(home)) {
            Ok(()) => answer(&p, &[], StatusCode::OK),
            Err(_) => not_found(),
        };
    }
    let Ok(t) = cfg.by_name_mut(&name) else {
        return not_found();
    };
    if method == axum::http::Method::POST {
        let r = match action {
            Some("enable") => {
                t.disabled = false;
                Ok(())
            }
            Some("disable") => {
                t.disabled = true;
                Ok(())
            }
            Some(other) => {
                return error(
                    StatusCode::NOT_FOUND,
                    "ERROR",
                    &format!("Unknown action: {other}"),
                )
            }
            None => apply(t, &p).and_then(|_| check_writable(&s, &e, t)),
        };
        if let Err(r) = r {
            return r.into_response();
        }
        if let Err(e) = cfg.save(home) {
            return config_error(e);
        }
    }
    match cfg.tokens.iter().find(|t| t.name == name) {
        Some(t) => answer(&p, &[t], StatusCode::OK),
        None => not_found(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_take_every_splunk_spelling() {
        let p = |v: &str| vec![("useACK".to_string(), v.to_string())];
        for (v, want) in [
            ("1", true),
            ("Y", true),
            ("yes", true),
            ("n", false),
            ("F", false),
        ] {
            assert_eq!(bool_param(&p(v), "useACK").unwrap(), Some(want), "{v}");
        }
        assert!(bool_param(&p("maybe"), "useACK").is_err());
        assert_eq!(bool_param(&[], "useACK").unwrap(), None);
    }
}
