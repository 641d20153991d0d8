//! XML as `spath` reads it (Splunk's paths): an element's text is the field named by the
//! element names from the root (`a.b.c`), an attribute is `a.b{@attr}`, an element (or
//! attribute) met several times gives a multivalue in document order. A path step may select
//! the n-th element of that name (`a.b{2}`, from 1 as in XPath; JSON arrays count from 0); an
//! element with child elements gives its inner XML text.
//!
//! Parsing is roxmltree's (well-formed XML only; DTDs allowed, entities expanded); the walk is
//! iterative, so deep documents cannot overflow the stack.

use roxmltree::{Document, Node, ParsingOptions};

use crate::error::SearchError;

/// Whether `text` looks like an XML document (its first non-blank character is `<`): the test
/// `spath` uses to choose between XML and JSON.
pub fn looks_like_xml(text: &str) -> bool {
    text.trim_start().starts_with('<')
}

/// Deepest element nesting read: roxmltree builds its tree recursively, so deeper documents are
/// treated as not XML rather than risking the stack.
const MAX_DEPTH: usize = 256;

/// Whether the element nesting of `text` stays within [`MAX_DEPTH`] (counted from tags alone:
/// an upper bound good enough for a limit).
fn shallow(text: &str) -> bool {
    let b = text.as_bytes();
    let (mut depth, mut max) = (0usize, 0usize);
    for i in 0..b.len() {
        match (b[i], b.get(i + 1)) {
            (b'<', Some(b'/')) | (b'/', Some(b'>')) => depth = depth.saturating_sub(1),
            (b'<', Some(b'?' | b'!')) => {}
            (b'<', _) => {
                depth += 1;
                max = max.max(depth);
            }
            _ => {}
        }
    }
    max <= MAX_DEPTH
}

fn parse(text: &str) -> Option<Document<'_>> {
    if !shallow(text) {
        return None;
    }
    let opts = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    Document::parse_with_options(text.trim(), opts).ok()
}

/// The element's name as written (`prefix:name` when it has a namespace prefix).
fn name_of(n: Node<'_, '_>) -> String {
    let tag = n.tag_name();
    match tag.namespace().and_then(|ns| n.lookup_prefix(ns)) {
        Some(p) if !p.is_empty() => format!("{p}:{}", tag.name()),
        _ => tag.name().to_string(),
    }
}

/// The text directly inside `n` (its text children joined), trimmed; `None` when blank.
fn own_text(n: Node<'_, '_>) -> Option<String> {
    let mut s = String::new();
    for c in n.children().filter(|c| c.is_text()) {
        s.push_str(c.text().unwrap_or_default());
    }
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The value of element `n` at the end of a path: its text, or with child elements the XML
/// between its start and end tags.
fn value_of<'a>(n: Node<'a, '_>, src: &'a str) -> Option<String> {
    if !n.children().any(|c| c.is_element()) {
        return own_text(n);
    }
    let (first, last) = (n.first_child()?, n.last_child()?);
    let inner = src.get(first.range().start..last.range().end)?.trim();
    (!inner.is_empty()).then(|| inner.to_string())
}

/// Every field of the document (auto-extract), in document order: `(path, values)`. `None` when
/// `text` is not well-formed XML.
pub fn extract_all(text: &str) -> Option<Vec<(String, Vec<String>)>> {
    let doc = parse(text)?;
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut add = |k: String, v: String| match out.iter_mut().find(|(n, _)| *n == k) {
        Some((_, vals)) => vals.push(v),
        None => out.push((k, vec![v])),
    };
    // (element, its path), children pushed in reverse so they pop in document order.
    let mut stack = vec![(doc.root_element(), name_of(doc.root_element()))];
    while let Some((n, path)) = stack.pop() {
        if let Some(t) = own_text(n) {
            add(path.clone(), t);
        }
        for a in n.attributes() {
            add(format!("{path}{{@{}}}", a.name()), a.value().to_string());
        }
        let kids: Vec<Node<'_, '_>> = n.children().filter(|c| c.is_element()).collect();
        for c in kids.into_iter().rev() {
            let p = format!("{path}.{}", name_of(c));
            stack.push((c, p));
        }
    }
    Some(out)
}

/// One step of a path: an element name, then optionally a position (from 1) and an attribute
/// (`name{2}{@id}`; the attribute ends the path).
#[derive(Debug, PartialEq)]
struct Step<'p> {
    name: &'p str,
    nth: Option<usize>,
    attr: Option<&'p str>,
}

fn steps(path: &str) -> Result<Vec<Step<'_>>, SearchError> {
    let bad = || {
        SearchError::User(format!(
            "Error in 'spath' command: invalid XML path '{path}'."
        ))
    };
    let mut out: Vec<Step<'_>> = Vec::new();
    for part in path.split('.') {
        if out.last().is_some_and(|s| s.attr.is_some()) {
            return Err(bad());
        }
        let i = part.find('{').unwrap_or(part.len());
        let mut step = Step {
            name: &part[..i],
            nth: None,
            attr: None,
        };
        let mut rest = &part[i..];
        while let Some(r) = rest.strip_prefix('{') {
            let end = r.find('}').ok_or_else(bad)?;
            let inner = &r[..end];
            if step.attr.is_some() {
                return Err(bad());
            }
            if let Some(a) = inner.strip_prefix('@') {
                step.attr = Some(a);
            } else if !inner.is_empty() {
                step.nth = Some(inner.parse::<usize>().map_err(|_| bad())?);
            }
            rest = &r[end + 1..];
        }
        if step.name.is_empty() || !rest.is_empty() {
            return Err(bad());
        }
        out.push(step);
    }
    Ok(out)
}

/// The values at `path` (`a.b{2}.c{@id}`), in document order; `Ok(None)` when `text` is not
/// well-formed XML, an empty list when nothing is there.
pub fn at_path(text: &str, path: &str) -> Result<Option<Vec<String>>, SearchError> {
    let steps = steps(path)?;
    let Some(doc) = parse(text) else {
        return Ok(None);
    };
    let src = doc.input_text();
    let mut nodes: Vec<Node<'_, '_>> = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let matched: Vec<Node<'_, '_>> = if i == 0 {
            let r = doc.root_element();
            if name_of(r) == s.name {
                vec![r]
            } else {
                Vec::new()
            }
        } else {
            nodes
                .iter()
                .flat_map(|n| {
                    n.children()
                        .filter(|c| c.is_element() && name_of(*c) == s.name)
                })
                .collect()
        };
        nodes = match s.nth {
            None => matched,
            Some(k) => matched
                .into_iter()
                .nth(k.wrapping_sub(1))
                .into_iter()
                .collect(),
        };
    }
    let values = match steps.last().and_then(|s| s.attr) {
        Some(a) => nodes
            .iter()
            .filter_map(|n| n.attribute(a).map(str::to_string))
            .collect(),
        None => nodes.iter().filter_map(|n| value_of(*n, src)).collect(),
    };
    Ok(Some(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"<?xml version="1.0"?>
<vendorProductSet vendor="acme">
  <product id="1"><desc><locDesc locale="en">Widget</locDesc><locDesc locale="fr">Machin</locDesc></desc></product>
  <product id="2"><desc><locDesc locale="de">Ding</locDesc></desc><price>3.50</price></product>
</vendorProductSet>"#;

    fn vals(path: &str) -> Vec<String> {
        at_path(DOC, path).unwrap().unwrap()
    }

    #[test]
    fn paths_attributes_and_positions() {
        assert_eq!(
            vals("vendorProductSet.product.desc.locDesc"),
            ["Widget", "Machin", "Ding"]
        );
        assert_eq!(
            vals("vendorProductSet.product.desc.locDesc{@locale}"),
            ["en", "fr", "de"]
        );
        assert_eq!(vals("vendorProductSet{@vendor}"), ["acme"]);
        assert_eq!(vals("vendorProductSet.product{2}.price"), ["3.50"]);
        assert_eq!(vals("vendorProductSet.product{2}{@id}"), ["2"]);
        assert_eq!(
            vals("vendorProductSet.product{1}.desc.locDesc{@locale}"),
            ["en", "fr"]
        );
        assert!(vals("vendorProductSet.product{3}").is_empty());
        assert!(vals("other.product").is_empty());
        assert_eq!(
            vals("vendorProductSet.product{2}.desc"),
            [r#"<locDesc locale="de">Ding</locDesc>"#]
        );
        assert!(at_path("not xml", "a").unwrap().is_none());
        assert!(at_path("<a><b></a>", "a").unwrap().is_none());
        assert!(at_path(DOC, "a{x}").is_err());
        assert!(at_path(DOC, "a..b").is_err());
        assert!(at_path(DOC, "a{@x}.b").is_err());
        assert!(at_path(DOC, "a{1}x").is_err());
    }

    #[test]
    fn every_field_in_document_order() {
        let all = extract_all(DOC).unwrap();
        let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "vendorProductSet{@vendor}",
                "vendorProductSet.product{@id}",
                "vendorProductSet.product.desc.locDesc",
                "vendorProductSet.product.desc.locDesc{@locale}",
                "vendorProductSet.product.price",
            ]
        );
        assert_eq!(all[1].1, ["1", "2"]);
        assert_eq!(all[2].1, ["Widget", "Machin", "Ding"]);
        assert!(extract_all("{\"a\": 1}").is_none());
    }

    #[test]
    fn deep_documents_are_refused_not_overflowing() {
        let nest = |depth: usize| format!("{}x{}", "<a>".repeat(depth), "</a>".repeat(depth));
        let ok = nest(MAX_DEPTH);
        assert_eq!(extract_all(&ok).unwrap().len(), 1);
        assert_eq!(at_path(&ok, "a.a").unwrap().unwrap().len(), 1);
        let deep = nest(MAX_DEPTH + 1);
        assert!(extract_all(&deep).is_none());
        assert!(at_path(&deep, "a.a.a").unwrap().is_none());
        assert!(extract_all(&nest(100_000)).is_none());
    }
}
