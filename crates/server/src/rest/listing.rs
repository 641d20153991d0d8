//! The answer of an entity collection (`data/indexes`, `data/inputs/http`,
//! `authentication/users`, `authorization/roles`, `saved/searches`): an Atom feed by default, Splunk's JSON with
//! `output_mode=json`. Each content key has a typed [`Value`], so XML gets splunkd's text ("1"/"0"
//! for booleans) and JSON real booleans, numbers and arrays.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::atom::{self, DictValue};
use super::{now_iso, param};

/// One content value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Text.
    Text(String),
    /// A boolean: `1`/`0` in XML, `true`/`false` in JSON.
    Bool(bool),
    /// A number.
    Num(u64),
    /// A list of texts.
    List(Vec<String>),
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}

impl Value {
    fn xml(&self) -> DictValue {
        match self {
            Value::Text(t) => DictValue::Text(t.clone()),
            Value::Bool(b) => DictValue::Text(if *b { "1" } else { "0" }.into()),
            Value::Num(n) => DictValue::Text(n.to_string()),
            Value::List(l) => DictValue::List(l.clone()),
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            Value::Text(t) => t.as_str().into(),
            Value::Bool(b) => (*b).into(),
            Value::Num(n) => (*n).into(),
            Value::List(l) => l.clone().into(),
        }
    }
}

/// Who shares an entity (its `acl`).
#[derive(Debug, Clone, PartialEq)]
pub enum Acl {
    /// The system's, in the app given: `sharing` system.
    System(&'static str),
    /// Its author's, in the app given: `sharing` user, `modifiable`, read and write perms of the
    /// author only (saved searches).
    User(String),
}

/// One entity of a collection; content keys are `&'static str` or, where users name them
/// (saved searches' keys), `String`.
pub struct Item<K = &'static str> {
    /// Its name (`title` in the feed).
    pub name: String,
    /// Its path under the collection, without the collection (`/<name>` usually).
    pub path: String,
    /// `author` and the ACL's owner.
    pub author: String,
    /// The ACL.
    pub acl: Acl,
    /// The content, in order.
    pub content: Vec<(K, Value)>,
}

impl<K> Item<K> {
    fn acl_json(&self) -> serde_json::Value {
        match &self.acl {
            Acl::System(app) => {
                serde_json::json!({"app": app, "owner": self.author, "sharing": "system"})
            }
            Acl::User(app) => serde_json::json!({
                "app": app, "owner": self.author, "sharing": "user", "modifiable": true,
                "perms": {"read": [self.author], "write": [self.author]}
            }),
        }
    }
}

/// A collection answer: `title` of the feed, `origin` the collection's path
/// (`/services/data/indexes`), the entities and the status.
pub fn answer<K: AsRef<str>>(
    p: &[(String, String)],
    title: &str,
    origin: &str,
    items: &[Item<K>],
    status: StatusCode,
) -> Response {
    let updated = now_iso();
    if param(p, "output_mode") == Some("json") {
        let entries: Vec<serde_json::Value> = items
            .iter()
            .map(|i| {
                let c: serde_json::Map<String, serde_json::Value> = i
                    .content
                    .iter()
                    .map(|(k, v)| (k.as_ref().to_string(), v.json()))
                    .collect();
                serde_json::json!({
                    "name": i.name, "id": format!("{origin}{}", i.path), "updated": updated,
                    "links": {"alternate": format!("{origin}{}", i.path)}, "author": i.author,
                    "acl": i.acl_json(),
                    "content": c,
                })
            })
            .collect();
        let body = serde_json::json!({
            "links": {}, "origin": origin, "updated": updated,
            "generator": {"build": env!("CARGO_PKG_VERSION"), "version": super::SPLUNK_VERSION},
            "entry": entries,
            "paging": {"total": items.len(), "perPage": 30, "offset": 0}, "messages": []
        });
        return (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response();
    }
    let entries: Vec<atom::Entry> = items
        .iter()
        .map(|i| atom::Entry {
            title: i.name.clone(),
            path: format!("{origin}{}", i.path),
            author: i.author.clone(),
            updated: updated.clone(),
            content: i
                .content
                .iter()
                .map(|(k, v)| (k.as_ref().to_string(), v.xml()))
                .collect(),
        })
        .collect();
    (
        status,
        [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
        atom::feed(title, origin, &updated, &entries),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body(r: Response) -> String {
        let b = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
        String::from_utf8(b.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn typed_values_in_both_forms() {
        let items = [Item {
            name: "x".into(),
            path: "/x".into(),
            author: "nobody".into(),
            acl: Acl::System("search"),
            content: vec![
                ("t", "text".into()),
                ("b", Value::Bool(true)),
                ("n", Value::Num(7)),
                ("l", Value::List(vec!["a".into()])),
            ],
        }];
        let json = body(answer(
            &[("output_mode".into(), "json".into())],
            "things",
            "/services/things",
            &items,
            StatusCode::OK,
        ))
        .await;
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let c = &v["entry"][0]["content"];
        assert_eq!(c["b"], true);
        assert_eq!(c["n"], 7);
        assert_eq!(c["l"][0], "a");
        assert_eq!(v["entry"][0]["id"], "/services/things/x");
        let xml = body(answer(
            &[],
            "things",
            "/services/things",
            &items,
            StatusCode::OK,
        ))
        .await;
        assert!(xml.contains("<s:key name=\"b\">1</s:key>"), "{xml}");
        assert!(xml.contains("<s:key name=\"n\">7</s:key>"));
        assert!(xml.contains("<link href=\"/services/things/x\" rel=\"alternate\"/>"));
    }

    #[tokio::test]
    async fn private_entities_have_their_owner_only() {
        let items = [Item {
            name: "s".into(),
            path: "/s".into(),
            author: "ann".into(),
            acl: Acl::User("search".into()),
            content: vec![("display.x".to_string(), Value::Text("y".into()))],
        }];
        let json = body(answer(
            &[("output_mode".into(), "json".into())],
            "savedsearch",
            "/servicesNS/ann/search/saved/searches",
            &items,
            StatusCode::OK,
        ))
        .await;
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let e = &v["entry"][0];
        assert_eq!(e["acl"]["sharing"], "user");
        assert_eq!(e["acl"]["perms"]["write"], serde_json::json!(["ann"]));
        assert_eq!(e["content"]["display.x"], "y");
        assert_eq!(e["id"], "/servicesNS/ann/search/saved/searches/s");
    }
}
