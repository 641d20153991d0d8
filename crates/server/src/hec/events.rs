//! The body of `/services/collector[/event]`: JSON event objects, concatenated with or without
//! whitespace, or JSON arrays of them. Every event is checked before any is kept, so a batch is
//! accepted or refused whole.
//!
//! Metric events (`"event":"metric"` with `fields` holding `metric_name:<name>` = value, or
//! `metric_name` and `_value`) become one event per measurement in the requested (event) index:
//! `_raw` is `metric_name=<name> _value=<value> <dimension>=<value>…`, and `metric_name`, `_value`
//! and the dimensions are indexed fields, so `stats`/`tstats` over `_value` by `metric_name` work.
//! A metric event without a name or with a value that is not a number is refused with code 6
//! (invalid data format) and its event number. Lode has no metrics index type (docs/API.md).

use lode_event::Event;
use lode_node::hec::HecToken;
use serde_json::{Map, Value};

use super::reply::{Code, Reply};

/// Largest `_raw` of one event (Splunk's `maxEventSize` default, 5 MB).
pub const MAX_EVENT_BYTES: usize = 5 * 1024 * 1024;

/// What fills in an event's metadata when its envelope does not.
pub struct Defaults<'a> {
    /// The request's token.
    pub token: &'a HecToken,
    /// `host` when neither the event nor the token gives one.
    pub host: &'a str,
    /// Receipt time, µs since the epoch (events without `time`).
    pub now_us: i64,
    /// Whether an index exists on this node.
    pub index_exists: &'a dyn Fn(&str) -> bool,
}

/// Parses `body` into events, each with whether its envelope had no `time` (it has the
/// receipt time); the first bad event decides the error.
pub fn parse(body: &[u8], d: &Defaults<'_>) -> Result<Vec<(Event, bool)>, Reply> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(Code::NoData.into());
    }
    let mut out = Vec::new();
    let mut n = 0usize;
    let stream = serde_json::Deserializer::from_slice(body).into_iter::<Value>();
    for item in stream {
        let v = item.map_err(|_| Reply::at(Code::InvalidDataFormat, n))?;
        match v {
            Value::Array(items) => {
                for v in items {
                    out.extend(event(v, n, d)?);
                    n += 1;
                }
            }
            v => {
                out.extend(event(v, n, d)?);
                n += 1;
            }
        }
    }
    if out.is_empty() {
        return Err(Code::NoData.into());
    }
    Ok(out)
}

/// A string metadata key: absent or null = `None`; anything but a string is malformed.
fn meta(o: &Map<String, Value>, key: &str, n: usize) -> Result<Option<String>, Reply> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Reply::at(Code::InvalidDataFormat, n)),
    }
}

/// `time`: epoch seconds as a number or a numeric string, with an optional fraction.
fn time_us(v: Option<&Value>, now_us: i64, n: usize) -> Result<i64, Reply> {
    let secs = match v {
        None | Some(Value::Null) => return Ok(now_us),
        Some(Value::Number(x)) => x.as_f64(),
        Some(Value::String(s)) if s.trim().is_empty() => return Ok(now_us),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
        Some(_) => None,
    };
    match secs {
        Some(s) if s.is_finite() && (0.0..1e11).contains(&s) => Ok((s * 1e6).round() as i64),
        _ => Err(Reply::at(Code::InvalidDataFormat, n)),
    }
}

/// `fields`: a flat object of indexed fields; values are strings, numbers or booleans, or
/// arrays of them (one field value each).
fn fields(v: Option<&Value>, n: usize) -> Result<Vec<(String, String)>, Reply> {
    let o = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(o)) => o,
        Some(_) => return Err(Reply::at(Code::InvalidDataFormat, n)),
    };
    let scalar = |v: &Value| -> Result<String, Reply> {
        match v {
            Value::String(s) => Ok(s.clone()),
            Value::Number(x) => Ok(x.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            _ => Err(Reply::at(Code::IndexedFields, n)),
        }
    };
    let mut out = Vec::with_capacity(o.len());
    for (k, v) in o {
        if k.is_empty() {
            return Err(Reply::at(Code::IndexedFields, n));
        }
        match v {
            Value::Array(items) => {
                for i in items {
                    out.push((k.clone(), scalar(i)?));
                }
            }
            v => out.push((k.clone(), scalar(v)?)),
        }
    }
    Ok(out)
}

/// A metric value: a finite number, or a string holding one.
fn metric_value(v: &Value) -> Option<String> {
    match v {
        Value::Number(x) if x.as_f64().is_some_and(f64::is_finite) => Some(x.to_string()),
        Value::String(s) if s.trim().parse::<f64>().is_ok_and(f64::is_finite) => {
            Some(s.trim().to_string())
        }
        _ => None,
    }
}

/// `k=v`, quoted when `v` has blanks or quotes.
fn kv(k: &str, v: &str) -> String {
    if v.is_empty() || v.contains([' ', '"', '\t', '=']) {
        format!("{k}=\"{}\"", v.replace('"', "\\\""))
    } else {
        format!("{k}={v}")
    }
}

/// The measurements of a metric event (`None`: not a metric event), each as its own event.
fn metrics(e: &Event, o: &Map<String, Value>, n: usize) -> Result<Option<Vec<Event>>, Reply> {
    if !matches!(o.get("event"), Some(Value::String(s)) if s == "metric") {
        return Ok(None);
    }
    let Some(Value::Object(f)) = o.get("fields") else {
        return Ok(None);
    };
    let is_metric_key = |k: &str| k == "metric_name" || k.starts_with("metric_name:");
    if !f.keys().any(|k| is_metric_key(k)) {
        return Ok(None);
    }
    let bad = || Reply::at(Code::InvalidDataFormat, n);
    let mut measures: Vec<(String, String)> = Vec::new();
    for (k, v) in f {
        if let Some(name) = k.strip_prefix("metric_name:") {
            if name.trim().is_empty() {
                return Err(bad());
            }
            measures.push((name.to_string(), metric_value(v).ok_or_else(bad)?));
        }
    }
    match (f.get("metric_name"), f.get("_value")) {
        (Some(Value::String(name)), Some(v)) if !name.trim().is_empty() => {
            measures.push((name.clone(), metric_value(v).ok_or_else(bad)?));
        }
        (None, None) => {}
        _ => return Err(bad()),
    }
    let dims: Vec<&(String, String)> = e
        .fields
        .iter()
        .filter(|(k, _)| !is_metric_key(k) && k != "_value")
        .collect();
    let out = measures
        .into_iter()
        .map(|(name, value)| {
            let mut raw = format!("{} {}", kv("metric_name", &name), kv("_value", &value));
            for (k, v) in &dims {
                raw.push(' ');
                raw.push_str(&kv(k, v));
            }
            let mut fields = vec![
                ("metric_name".to_string(), name),
                ("_value".to_string(), value),
            ];
            fields.extend(dims.iter().map(|kv| (*kv).clone()));
            Event {
                raw,
                linecount: 1,
                fields,
                ..e.clone()
            }
        })
        .collect();
    Ok(Some(out))
}

fn event(v: Value, n: usize, d: &Defaults<'_>) -> Result<Vec<(Event, bool)>, Reply> {
    let Value::Object(o) = v else {
        return Err(Reply::at(Code::InvalidDataFormat, n));
    };
    let raw = match o.get("event") {
        None | Some(Value::Null) => return Err(Reply::at(Code::EventRequired, n)),
        Some(Value::String(s)) if s.is_empty() => return Err(Reply::at(Code::EventBlank, n)),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    if raw.len() > MAX_EVENT_BYTES {
        return Err(Reply::at(Code::InvalidDataFormat, n));
    }
    let t = d.token;
    let requested = meta(&o, "index", n)?;
    let index = t
        .index_for(requested.as_deref())
        .map_err(|_| Reply::at(Code::IncorrectIndex, n))?;
    if !(d.index_exists)(&index) {
        return Err(Reply::at(Code::IncorrectIndex, n));
    }
    let host = meta(&o, "host", n)?
        .filter(|h| !h.is_empty())
        .or_else(|| t.host.clone())
        .unwrap_or_else(|| d.host.to_string());
    let source = meta(&o, "source", n)?
        .filter(|s| !s.is_empty())
        .or_else(|| t.source.clone())
        .unwrap_or_else(|| format!("http:{}", t.name));
    let sourcetype = meta(&o, "sourcetype", n)?
        .filter(|s| !s.is_empty())
        .or_else(|| t.sourcetype.clone())
        .unwrap_or_else(|| {
            if matches!(o.get("event"), Some(Value::Object(_))) {
                "_json".to_string()
            } else {
                "httpevent".to_string()
            }
        });
    let untimed = matches!(o.get("time"), None | Some(Value::Null))
        || matches!(o.get("time"), Some(Value::String(t)) if t.trim().is_empty());
    let time = time_us(o.get("time"), d.now_us, n)?;
    let fields = fields(o.get("fields"), n)?;
    let linecount = 1 + raw.bytes().filter(|&b| b == b'\n').count() as u32;
    let e = Event {
        time,
        index_time: d.now_us / 1_000_000,
        raw,
        host: host.into(),
        source: source.into(),
        sourcetype: sourcetype.into(),
        index: index.into(),
        linecount,
        fields,
    };
    match metrics(&e, &o, n)? {
        Some(m) => Ok(m.into_iter().map(|e| (e, untimed)).collect()),
        None => Ok(vec![(e, untimed)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults(t: &HecToken) -> Defaults<'_> {
        Defaults {
            token: t,
            host: "lode:8088",
            now_us: 1_700_000_000_000_000,
            index_exists: &|i| i == "main" || i == "web",
        }
    }

    fn code<T: std::fmt::Debug>(r: Result<T, Reply>) -> (u16, Option<usize>) {
        let e = r.unwrap_err();
        (e.code.parts().0, e.event)
    }

    #[test]
    fn stacked_objects_arrays_and_metadata() {
        let t = HecToken::new("app");
        let body = br#"{"event":"a","time":1433188255.5,"host":"h1","index":"web"}
            {"event":{"k":1},"time":"1433188256","fields":{"env":"prod","tags":["x","y"],"n":3}}[{"event":"c"}]"#;
        let parsed = parse(body, &defaults(&t)).unwrap();
        let untimed: Vec<bool> = parsed.iter().map(|p| p.1).collect();
        assert_eq!(untimed, vec![false, false, true]);
        let ev: Vec<Event> = parsed.into_iter().map(|p| p.0).collect();
        assert_eq!(ev.len(), 3);
        assert_eq!(ev[0].raw, "a");
        assert_eq!(ev[0].time, 1_433_188_255_500_000);
        assert_eq!((ev[0].host.as_str(), ev[0].index.as_str()), ("h1", "web"));
        assert_eq!(ev[0].source, "http:app");
        assert_eq!(ev[0].sourcetype, "httpevent");
        assert_eq!(ev[1].raw, r#"{"k":1}"#);
        assert_eq!(ev[1].sourcetype, "_json");
        assert_eq!(ev[1].time, 1_433_188_256_000_000);
        assert_eq!(
            ev[1].fields,
            vec![
                ("env".into(), "prod".into()),
                ("n".into(), "3".into()),
                ("tags".into(), "x".into()),
                ("tags".into(), "y".into())
            ]
        );
        assert_eq!(ev[2].host, "lode:8088");
        assert_eq!(ev[2].time, 1_700_000_000_000_000);
        assert_eq!(ev[2].index, "main");
    }

    #[test]
    fn every_error_code_with_its_event_number() {
        let t = HecToken::new("app");
        let d = defaults(&t);
        assert_eq!(code(parse(b"", &d)), (5, None));
        assert_eq!(code(parse(b"  \n", &d)), (5, None));
        assert_eq!(code(parse(b"[]", &d)), (5, None));
        assert_eq!(code(parse(br#"{"event":"a"}{"event":"#, &d)), (6, Some(1)));
        assert_eq!(code(parse(br#"{"event":"a"} 42"#, &d)), (6, Some(1)));
        assert_eq!(code(parse(br#"{"time":1}"#, &d)), (12, Some(0)));
        assert_eq!(code(parse(br#"{"event":null}"#, &d)), (12, Some(0)));
        assert_eq!(
            code(parse(br#"{"event":"a"}{"event":""}"#, &d)),
            (13, Some(1))
        );
        assert_eq!(
            code(parse(br#"{"event":"a","index":"nope"}"#, &d)),
            (7, Some(0))
        );
        assert_eq!(
            code(parse(br#"{"event":"a","time":"soon"}"#, &d)),
            (6, Some(0))
        );
        assert_eq!(code(parse(br#"{"event":"a","host":5}"#, &d)), (6, Some(0)));
        assert_eq!(
            code(parse(br#"{"event":"a","fields":[1]}"#, &d)),
            (6, Some(0))
        );
        assert_eq!(
            code(parse(br#"{"event":"a","fields":{"x":{"y":1}}}"#, &d)),
            (15, Some(0))
        );
    }

    #[test]
    fn metric_events_become_one_event_per_measurement() {
        let t = HecToken::new("app");
        let d = defaults(&t);
        let body = br#"{"time":1700000000,"event":"metric","host":"h","fields":
            {"metric_name:cpu.idle":95.5,"metric_name:mem.used":"1024","region":"us east"}}
            {"event":"metric","fields":{"metric_name":"disk.free","_value":7,"dev":"sda"}}
            {"event":"metric","fields":{"region":"x"}}"#;
        let ev: Vec<Event> = parse(body, &d).unwrap().into_iter().map(|p| p.0).collect();
        assert_eq!(ev.len(), 4);
        assert_eq!(
            ev[0].raw,
            r#"metric_name=cpu.idle _value=95.5 region="us east""#
        );
        assert_eq!(
            ev[0].fields,
            vec![
                ("metric_name".into(), "cpu.idle".into()),
                ("_value".into(), "95.5".into()),
                ("region".into(), "us east".into())
            ]
        );
        assert_eq!(
            (ev[0].host.as_str(), ev[0].time),
            ("h", 1_700_000_000_000_000)
        );
        assert_eq!(ev[1].fields[0].1, "mem.used");
        assert_eq!(ev[1].fields[1].1, "1024");
        assert_eq!(ev[2].raw, "metric_name=disk.free _value=7 dev=sda");
        // "metric" without metric fields is an ordinary event.
        assert_eq!(ev[3].raw, "metric");
        for bad in [
            r#"{"event":"metric","fields":{"metric_name:cpu":"high"}}"#,
            r#"{"event":"metric","fields":{"metric_name:":1}}"#,
            r#"{"event":"metric","fields":{"metric_name":"cpu"}}"#,
            r#"{"event":"metric","fields":{"metric_name":"cpu","_value":"x"}}"#,
            r#"{"event":"metric","fields":{"metric_name":"","_value":1}}"#,
            r#"{"event":"metric","fields":{"metric_name:cpu":[1,2]}}"#,
        ] {
            let body = format!(r#"{{"event":"ok"}}{bad}"#);
            assert_eq!(code(parse(body.as_bytes(), &d)), (6, Some(1)), "{bad}");
        }
    }

    #[test]
    fn token_index_rules() {
        let mut t = HecToken::new("app");
        t.index = Some("web".into());
        t.indexes = vec!["web".into()];
        let d = defaults(&t);
        assert_eq!(parse(br#"{"event":"a"}"#, &d).unwrap()[0].0.index, "web");
        assert_eq!(
            code(parse(br#"{"event":"a","index":"main"}"#, &d)),
            (7, Some(0))
        );
        t.sourcetype = Some("mytype".into());
        t.host = Some("tokhost".into());
        let d = defaults(&t);
        let e = &parse(br#"{"event":{"a":1}}"#, &d).unwrap()[0].0;
        assert_eq!(
            (e.sourcetype.as_str(), e.host.as_str()),
            ("mytype", "tokhost")
        );
    }
}
