//! The XML shapes splunkd answers with: Atom feeds of entries whose content is an `s:dict`, and
//! `<response><messages>` for errors (`../shared/SPLUNK.md` §2.1, §2.4).

use std::fmt::Write;

/// `s` in the feeds.
pub const NS_REST: &str = "http://dev.splunk.com/ns/rest";

/// `text` with `& < > " '` escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot carry.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

/// A value in an `s:dict`.
#[derive(Debug, Clone, PartialEq)]
pub enum DictValue {
    /// Text.
    Text(String),
    /// `s:list` of texts.
    List(Vec<String>),
    /// Nested `s:dict`.
    Dict(Vec<(String, DictValue)>),
}

impl From<&str> for DictValue {
    fn from(s: &str) -> DictValue {
        DictValue::Text(s.to_string())
    }
}

impl From<String> for DictValue {
    fn from(s: String) -> DictValue {
        DictValue::Text(s)
    }
}

/// Appends `items` as an `s:dict`.
pub fn write_dict(out: &mut String, items: &[(String, DictValue)]) {
    dict(out, items, 0)
}

fn dict(out: &mut String, items: &[(String, DictValue)], indent: usize) {
    let pad = " ".repeat(indent);
    out.push_str("<s:dict>\n");
    for (k, v) in items {
        let _ = write!(out, "{pad}  <s:key name=\"{}\">", escape(k));
        match v {
            DictValue::Text(t) => out.push_str(&escape(t)),
            DictValue::List(items) => {
                out.push_str("<s:list>");
                for i in items {
                    let _ = write!(out, "<s:item>{}</s:item>", escape(i));
                }
                out.push_str("</s:list>");
            }
            DictValue::Dict(d) => dict(out, d, indent + 2),
        }
        out.push_str("</s:key>\n");
    }
    let _ = write!(out, "{pad}</s:dict>");
}

/// One Atom entry.
pub struct Entry {
    /// `title` (the entity's name, a job's sid).
    pub title: String,
    /// Path of the entity, for `id` and the alternate link.
    pub path: String,
    /// `author`.
    pub author: String,
    /// `updated`, ISO 8601.
    pub updated: String,
    /// The content dictionary.
    pub content: Vec<(String, DictValue)>,
}

/// An Atom feed of `entries` titled `title`, as splunkd writes them.
pub fn feed(title: &str, base: &str, updated: &str, entries: &[Entry]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = write!(
        out,
        "<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:s=\"{NS_REST}\" \
         xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\">\n\
         <title>{}</title>\n<id>{}</id>\n<updated>{}</updated>\n\
         <generator build=\"lode\" version=\"{}\"/>\n<author><name>Lode</name></author>\n\
         <opensearch:totalResults>{}</opensearch:totalResults>\n\
         <opensearch:itemsPerPage>30</opensearch:itemsPerPage>\n\
         <opensearch:startIndex>0</opensearch:startIndex>\n<s:messages/>\n",
        escape(title),
        escape(base),
        escape(updated),
        super::SPLUNK_VERSION,
        entries.len()
    );
    for e in entries {
        let _ = write!(
            out,
            "<entry>\n<title>{}</title>\n<id>{}{}</id>\n<updated>{}</updated>\n\
             <link href=\"{}\" rel=\"alternate\"/>\n<author><name>{}</name></author>\n\
             <content type=\"text/xml\">\n",
            escape(&e.title),
            escape(base),
            escape(&e.path),
            escape(&e.updated),
            escape(&e.path),
            escape(&e.author)
        );
        dict(&mut out, &e.content, 0);
        out.push_str("\n</content>\n</entry>\n");
    }
    out.push_str("</feed>\n");
    out
}

/// `<response><messages><msg type="…">text</msg></messages></response>`.
pub fn messages(kind: &str, text: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<response>\n  <messages>\n    \
         <msg type=\"{kind}\">{}</msg>\n  </messages>\n</response>\n",
        escape(text)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feeds_and_messages_are_escaped() {
        let f = feed(
            "server-info",
            "https://h:8089/services/server/info",
            "2026-01-01T00:00:00+00:00",
            &[Entry {
                title: "server-info".into(),
                path: "/services/server/info/server-info".into(),
                author: "system".into(),
                updated: "2026-01-01T00:00:00+00:00".into(),
                content: vec![
                    ("version".into(), "9.1.0".into()),
                    ("a<b".into(), DictValue::List(vec!["x&y".into()])),
                    (
                        "eai:acl".into(),
                        DictValue::Dict(vec![("owner".into(), "admin".into())]),
                    ),
                ],
            }],
        );
        assert!(f.contains("<s:key name=\"version\">9.1.0</s:key>"), "{f}");
        assert!(f.contains("<s:key name=\"a&lt;b\"><s:list><s:item>x&amp;y</s:item></s:list>"));
        assert!(f.contains("<s:key name=\"owner\">admin</s:key>"));
        assert!(messages("ERROR", "bad <thing>").contains("bad &lt;thing&gt;"));
    }
}
