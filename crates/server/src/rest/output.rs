//! Result sets in the `output_mode`s of Splunk's search endpoints (`../shared/SPLUNK.md` §2.7):
//! `json` (one line), `csv`, and `xml` (the default).

use std::fmt::Write;

use crate::format::Cell;

/// One result row: field name and value, in the row's order.
pub type Fields = Vec<(String, Cell)>;

/// The output modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `output_mode=json`.
    Json,
    /// `output_mode=csv`.
    Csv,
    /// `output_mode=xml` (Splunk's default).
    Xml,
}

impl Mode {
    /// Parses `output_mode` (absent = xml); `Err` names the unsupported value.
    pub fn parse(v: Option<&str>) -> Result<Mode, String> {
        match v.unwrap_or("xml") {
            "json" => Ok(Mode::Json),
            "csv" => Ok(Mode::Csv),
            "xml" => Ok(Mode::Xml),
            other => Err(format!(
                "output_mode={other} is not supported (use json, csv or xml)"
            )),
        }
    }

    /// The Content-Type of the body.
    pub fn content_type(self) -> &'static str {
        match self {
            Mode::Json => "application/json; charset=UTF-8",
            Mode::Csv => "text/csv; charset=UTF-8",
            Mode::Xml => "text/xml; charset=UTF-8",
        }
    }
}

/// Field names in order of first appearance.
pub fn field_order(rows: &[Fields]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for r in rows {
        for (k, _) in r {
            if seen.insert(k.as_str()) {
                out.push(k.clone());
            }
        }
    }
    out
}

fn json_cell(c: &Cell) -> serde_json::Value {
    match c {
        Cell::One(s) => s.as_str().into(),
        Cell::Many(v) => v.clone().into(),
    }
}

/// The row as a JSON object.
pub fn json_row(r: &Fields) -> serde_json::Map<String, serde_json::Value> {
    r.iter().map(|(k, c)| (k.clone(), json_cell(c))).collect()
}

/// A whole result set (`preview` false) in `mode`, starting at `offset`.
pub fn render(mode: Mode, rows: &[Fields], offset: usize) -> String {
    let fields = field_order(rows);
    match mode {
        Mode::Json => {
            let v = serde_json::json!({
                "preview": false,
                "init_offset": offset,
                "messages": [],
                "fields": fields.iter().map(|f| serde_json::json!({"name": f})).collect::<Vec<_>>(),
                "results": rows.iter().map(json_row).collect::<Vec<_>>(),
                "highlighted": {},
            });
            v.to_string()
        }
        Mode::Csv => {
            let mut out = fields
                .iter()
                .map(|f| csv_cell(f))
                .collect::<Vec<_>>()
                .join(",");
            out.push('\n');
            for r in rows {
                let line: Vec<String> = fields
                    .iter()
                    .map(|f| {
                        r.iter()
                            .find(|(k, _)| k == f)
                            .map(|(_, c)| csv_cell(&c.joined("\n")))
                            .unwrap_or_default()
                    })
                    .collect();
                out.push_str(&line.join(","));
                out.push('\n');
            }
            out
        }
        Mode::Xml => {
            let e = super::atom::escape;
            let mut out = String::from(
                "<?xml version='1.0' encoding='UTF-8'?>\n<results preview='0'>\n<meta>\n<fieldOrder>\n",
            );
            for f in &fields {
                let _ = writeln!(out, "<field>{}</field>", e(f));
            }
            out.push_str("</fieldOrder>\n</meta>\n");
            for (i, r) in rows.iter().enumerate() {
                let _ = writeln!(out, "<result offset='{}'>", offset + i);
                for (k, c) in r {
                    if k == "_raw" {
                        let _ = writeln!(
                            out,
                            "<field k='_raw'><v xml:space='preserve' trunc='0'>{}</v></field>",
                            e(&c.joined("\n"))
                        );
                        continue;
                    }
                    let _ = write!(out, "<field k='{}'>", e(k));
                    let values: Vec<&str> = match c {
                        Cell::One(s) => vec![s.as_str()],
                        Cell::Many(v) => v.iter().map(String::as_str).collect(),
                    };
                    for v in values {
                        let _ = write!(out, "<value><text>{}</text></value>", e(v));
                    }
                    out.push_str("</field>\n");
                }
                out.push_str("</result>\n");
            }
            out.push_str("</results>\n");
            out
        }
    }
}

/// One CSV line (with its newline) of `cells`.
pub fn csv_line<'a>(cells: impl Iterator<Item = &'a str>) -> String {
    let mut out = cells.map(csv_cell).collect::<Vec<_>>().join(",");
    out.push('\n');
    out
}

/// RFC 4180 quoting when needed.
fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `body` (a [`render`] answer) with `messages` (`(type, text)`: `WARN`, `INFO`…) in it: the JSON
/// `messages` list, or `<messages><msg type=…>` after the XML `<meta>`, as splunkd puts them.
/// CSV has no place for them.
pub fn with_messages(mode: Mode, body: String, messages: &[(&str, String)]) -> String {
    if messages.is_empty() {
        return body;
    }
    match mode {
        Mode::Json => match serde_json::from_str::<serde_json::Value>(&body) {
            Ok(mut v) => {
                v["messages"] = messages
                    .iter()
                    .map(|(t, m)| serde_json::json!({"type": t, "text": m}))
                    .collect::<Vec<_>>()
                    .into();
                v.to_string()
            }
            Err(_) => body,
        },
        Mode::Xml => {
            let mut m = String::from("<messages>\n");
            for (t, text) in messages {
                let _ = writeln!(
                    m,
                    "<msg type=\"{}\">{}</msg>",
                    super::atom::escape(t),
                    super::atom::escape(text)
                );
            }
            m.push_str("</messages>\n");
            body.replacen("</meta>\n", &format!("</meta>\n{m}"), 1)
        }
        Mode::Csv => body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Fields> {
        vec![
            vec![
                ("host".into(), Cell::One("a".into())),
                ("count".into(), Cell::One("2".into())),
            ],
            vec![
                ("host".into(), Cell::One("b,c".into())),
                ("tags".into(), Cell::Many(vec!["x".into(), "y".into()])),
            ],
        ]
    }

    #[test]
    fn json_is_one_line_with_string_values() {
        let j = render(Mode::Json, &rows(), 0);
        assert!(!j.contains('\n'));
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["preview"], false);
        assert_eq!(v["results"][0]["count"], "2");
        assert_eq!(v["results"][1]["tags"][1], "y");
        assert_eq!(v["fields"][2]["name"], "tags");
    }

    #[test]
    fn csv_and_xml() {
        let c = render(Mode::Csv, &rows(), 0);
        assert_eq!(c, "host,count,tags\na,2,\n\"b,c\",,\"x\ny\"\n");
        let x = render(Mode::Xml, &rows(), 5);
        assert!(x.contains("<results preview='0'>"));
        assert!(x.contains("<result offset='6'>"));
        assert!(x.contains("<value><text>x</text></value><value><text>y</text></value>"));
        assert_eq!(
            Mode::parse(Some("raw")).unwrap_err(),
            "output_mode=raw is not supported (use json, csv or xml)"
        );
    }
}
