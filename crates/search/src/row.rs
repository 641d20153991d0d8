//! Result rows: ordered fields, with search-time fields extracted from `_raw` on first demand.

use crate::extract;
use crate::value::Value;
use lode_event::{Event, Micros};

/// Whether the search-time fields of a row have been extracted yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lazy {
    /// `_raw` has not been looked at: a lookup miss extracts.
    Pending,
    /// Extraction ran (or the row is not an event): a miss is a miss.
    Done,
}

/// One result row: named fields in order. Event rows extract `key=value`/JSON fields and `punct`
/// from `_raw` the first time a missing field is asked for ([`Row::get`]); the extracted fields
/// are then cached in the row and listed by [`Row::fields`] after the event's own fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The fields in order; names are unique.
    fields: Vec<(String, Value)>,
    /// Extraction state of `_raw`.
    lazy: Lazy,
}

impl Default for Row {
    fn default() -> Self {
        Row::new()
    }
}

impl Row {
    /// An empty row (no lazy extraction): for transforming commands' output.
    pub fn new() -> Row {
        Row {
            fields: Vec::new(),
            lazy: Lazy::Done,
        }
    }

    /// A row of the given fields (no lazy extraction); later duplicates of a name are dropped.
    pub fn from_fields(fields: impl IntoIterator<Item = (String, Value)>) -> Row {
        let mut row = Row::new();
        for (k, v) in fields {
            if row.find(&k).is_none() {
                row.fields.push((k, v));
            }
        }
        row
    }

    /// Builds a result row from an event: `_raw`, `_time` (seconds with fraction), `host`,
    /// `source`, `sourcetype`, `index`, `linecount`, `_indextime`, `splunk_server` (`lode`), `_cd`
    /// (= `cd`), then the index-time fields; `punct` and search-time fields are computed lazily.
    pub fn from_event(ev: Event, cd: String) -> Row {
        let mut fields = Vec::with_capacity(10 + ev.fields.len());
        fields.push(("_raw".to_string(), Value::Str(ev.raw)));
        fields.push(("_time".to_string(), Value::Num(ev.time as f64 / 1e6)));
        fields.push(("host".to_string(), Value::Str(ev.host.into())));
        fields.push(("source".to_string(), Value::Str(ev.source.into())));
        fields.push(("sourcetype".to_string(), Value::Str(ev.sourcetype.into())));
        fields.push(("index".to_string(), Value::Str(ev.index.into())));
        fields.push(("linecount".to_string(), Value::Num(ev.linecount as f64)));
        fields.push(("_indextime".to_string(), Value::Num(ev.index_time as f64)));
        fields.push(("splunk_server".to_string(), Value::Str("lode".to_string())));
        fields.push(("_cd".to_string(), Value::Str(cd)));
        let mut row = Row {
            fields,
            lazy: Lazy::Pending,
        };
        for (k, v) in ev.fields {
            if row.find(&k).is_none() {
                row.fields.push((k, Value::Str(v)));
            }
        }
        row
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|(n, _)| n == name)
    }

    /// The value of `name`, extracting search-time fields from `_raw` on the first miss.
    pub fn get(&mut self, name: &str) -> Option<&Value> {
        if self.find(name).is_none() {
            self.extract_all();
        }
        self.find(name).map(|i| &self.fields[i].1)
    }

    /// The value of `name` among the fields present now (no extraction).
    pub fn peek(&self, name: &str) -> Option<&Value> {
        self.find(name).map(|i| &self.fields[i].1)
    }

    /// Sets `name` (replacing in place, or appending). Setting [`Value::Null`] removes the field,
    /// as Splunk does for `eval x=null()`.
    pub fn set(&mut self, name: &str, v: Value) {
        if v.is_null() {
            self.extract_all();
            self.remove(name);
            return;
        }
        match self.find(name) {
            Some(i) => self.fields[i].1 = v,
            None => self.fields.push((name.to_string(), v)),
        }
    }

    /// Removes `name` (after extraction, so it cannot reappear from `_raw`); returns its value.
    pub fn remove(&mut self, name: &str) -> Option<Value> {
        self.extract_all();
        self.find(name).map(|i| self.fields.remove(i).1)
    }

    /// Keeps only the fields for which `keep(name)` holds (after extraction).
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.extract_all();
        self.fields.retain(|(n, _)| keep(n));
    }

    /// Renames `from` to `to` (after extraction); an existing `to` is replaced. Returns whether
    /// `from` existed.
    pub fn rename(&mut self, from: &str, to: &str) -> bool {
        self.extract_all();
        let Some(i) = self.find(from) else {
            return false;
        };
        if from == to {
            return true;
        }
        if let Some(j) = self.find(to) {
            let v = self.fields.remove(i).1;
            let j = if j > i { j - 1 } else { j };
            self.fields[j].1 = v;
        } else {
            self.fields[i].0 = to.to_string();
        }
        true
    }

    /// `_time` in microseconds, if the row has a numeric `_time`.
    pub fn time(&self) -> Option<Micros> {
        let secs = self.peek("_time")?.to_num()?;
        Some((secs * 1e6).round() as Micros)
    }

    /// The fields present now, in order (extracted fields included once extracted).
    pub fn fields(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.fields.iter().map(|(n, v)| (n.as_str(), v))
    }

    /// Number of fields present now.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether the row has no fields.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Forces extraction of `punct` and the search-time fields (for event output). Cheap when
    /// already done or when the row has no `_raw`.
    pub fn extract_all(&mut self) {
        if self.lazy == Lazy::Done {
            return;
        }
        self.lazy = Lazy::Done;
        let Some(raw_i) = self.find("_raw") else {
            return;
        };
        let raw = match &mut self.fields[raw_i].1 {
            Value::Str(s) => std::mem::take(s),
            _ => return,
        };
        let sourcetype = self
            .peek("sourcetype")
            .map(|v| v.as_str().into_owned())
            .unwrap_or_default();
        if self.find("punct").is_none() {
            let mut p = String::new();
            lode_event::punct::punct(&raw, &mut p);
            self.fields.push(("punct".to_string(), Value::Str(p)));
        }
        extract::extract(&raw, &sourcetype, &mut self.fields);
        if let Some((_, Value::Str(s))) = self.fields.get_mut(raw_i) {
            *s = raw;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(raw: &str, sourcetype: &str) -> Row {
        let ev = Event {
            time: 1_700_000_000_250_000,
            index_time: 1_700_000_001,
            raw: raw.to_string(),
            host: "web01".into(),
            source: "/var/log/a".into(),
            sourcetype: sourcetype.into(),
            index: "main".into(),
            linecount: 1,
            fields: vec![("env".into(), "prod".into())],
        };
        Row::from_event(ev, "3:17".into())
    }

    #[test]
    fn event_fields_in_order() {
        let row = event("a=1", "x");
        let names: Vec<&str> = row.fields().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            vec![
                "_raw",
                "_time",
                "host",
                "source",
                "sourcetype",
                "index",
                "linecount",
                "_indextime",
                "splunk_server",
                "_cd",
                "env"
            ]
        );
        assert_eq!(row.time(), Some(1_700_000_000_250_000));
        assert_eq!(row.peek("_time").unwrap().to_string(), "1700000000.25");
    }

    #[test]
    fn lazy_extraction_on_miss_only() {
        let mut row = event("user=bob user=eve code=7", "x");
        assert_eq!(row.get("host"), Some(&Value::Str("web01".into())));
        assert!(row.peek("user").is_none());
        assert_eq!(row.get("user"), Some(&Value::Str("bob".into())));
        assert_eq!(row.get("code").and_then(|v| v.to_num()), Some(7.0));
        assert_eq!(row.get("punct").unwrap().as_str(), "=_=_=");
        assert!(row.get("nope").is_none());
        assert_eq!(
            row.peek("_raw").unwrap().as_str(),
            "user=bob user=eve code=7"
        );
    }

    #[test]
    fn extracted_fields_do_not_override_metadata() {
        let mut row = event("host=evil index=x", "x");
        assert_eq!(row.get("host").unwrap().as_str(), "web01");
        row.extract_all();
        assert_eq!(row.peek("index").unwrap().as_str(), "main");
    }

    #[test]
    fn json_event_paths() {
        let mut row = event(r#"{"req":{"path":"/a"},"ids":[1,2]}"#, "x");
        assert_eq!(row.get("req.path").unwrap().as_str(), "/a");
        assert_eq!(row.get("ids{}").unwrap().as_str(), "1\n2");
    }

    #[test]
    fn removed_fields_stay_removed() {
        let mut row = event("user=bob", "x");
        assert!(row.remove("user").is_some());
        assert!(row.get("user").is_none());
        let mut row = event("user=bob", "x");
        assert!(row.rename("user", "who"));
        assert!(row.get("user").is_none());
        assert_eq!(row.get("who").unwrap().as_str(), "bob");
    }

    #[test]
    fn set_null_removes() {
        let mut row = Row::from_fields([("a".to_string(), Value::Num(1.0))]);
        row.set("b", Value::Str("x".into()));
        row.set("a", Value::Null);
        assert_eq!(row.fields().map(|(n, _)| n).collect::<Vec<_>>(), vec!["b"]);
        assert!(row.rename("b", "b"));
        assert!(!row.rename("zz", "b"));
    }
}
