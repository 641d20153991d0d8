//! Which fields a pipeline can read: lets the scan skip extraction. The answer is `None` (all)
//! unless some command limits the output to named fields (`stats`, `timechart`, `top`/`rare`,
//! `table`, `fields` without wildcards).

use crate::eval::fields_of;
use lode_spl::ast::{Command, SearchExpr, StreamStats};

fn search_fields(e: &SearchExpr, out: &mut Vec<String>) {
    match e {
        SearchExpr::And(v) | SearchExpr::Or(v) => v.iter().for_each(|x| search_fields(x, out)),
        SearchExpr::Not(x) => search_fields(x, out),
        SearchExpr::Compare { field, .. } => out.push(field.clone()),
        SearchExpr::Term(_) | SearchExpr::TimeBound { .. } => out.push("_raw".into()),
    }
}

/// The fields `commands` may read, `None` = all. Lists include `_time` and `_raw`.
pub fn required_fields(commands: &[Command]) -> Option<Vec<String>> {
    let mut out: Vec<String> = vec!["_time".into(), "_raw".into()];
    let mut closed = false;
    for c in commands {
        let names: Vec<String> = match c {
            Command::Search(e) => {
                let mut v = Vec::new();
                if let Some(e) = e {
                    search_fields(e, &mut v);
                }
                v
            }
            // Lookups read their input fields and add others; keep every field.
            Command::Data(_) => return None,
            Command::Where(e) => {
                let mut v = Vec::new();
                fields_of(e, &mut v);
                v
            }
            // The subsearch may bring any field; joined fields are read from the rows.
            Command::Append(_) | Command::AppendCols(_) | Command::Union(_) | Command::Join(_) => {
                return None
            }
            // They read whatever fields the rows have.
            Command::Format(_) | Command::Return(_) | Command::AppendPipe(_) => return None,
            Command::Eval(a) => {
                let mut v = Vec::new();
                a.iter().for_each(|(_, e)| fields_of(e, &mut v));
                v
            }
            Command::Fields { remove: true, .. }
            | Command::Head(_)
            | Command::Tail(_)
            | Command::Reverse => Vec::new(),
            Command::FillNull { fields, .. } => fields.clone(),
            Command::Accum { field, .. } | Command::Delta { field, .. } => vec![field.clone()],
            Command::EventStats(s) | Command::StreamStats(StreamStats { stats: s, .. }) => s
                .aggs
                .iter()
                .filter_map(|a| a.field.clone())
                .chain(s.by.iter().cloned())
                .collect(),
            Command::Fields {
                remove: false,
                fields,
            }
            | Command::Table(fields) => {
                if fields.iter().any(|f| f.contains('*')) {
                    return None;
                }
                closed = true;
                fields.clone()
            }
            Command::Rename(p) => {
                if p.iter().any(|(a, _)| a.contains('*')) {
                    return None;
                }
                p.iter().map(|(a, _)| a.clone()).collect()
            }
            Command::Sort { keys, .. } => keys.iter().map(|k| k.field.clone()).collect(),
            Command::Dedup { fields, sortby, .. } => fields
                .iter()
                .cloned()
                .chain(sortby.iter().map(|k| k.field.clone()))
                .collect(),
            Command::Rex { field, .. } | Command::Regex { field, .. } => vec![field.clone()],
            Command::Stats(s) => {
                closed = true;
                s.aggs
                    .iter()
                    .filter_map(|a| a.field.clone())
                    .chain(s.by.iter().cloned())
                    .collect()
            }
            Command::Timechart(t) => {
                closed = true;
                t.aggs
                    .iter()
                    .filter_map(|a| a.field.clone())
                    .chain(t.by.iter().cloned())
                    .collect()
            }
            Command::Top(t) => {
                closed = true;
                t.fields.iter().chain(t.by.iter()).cloned().collect()
            }
            Command::Chart(c) => {
                closed = true;
                c.aggs
                    .iter()
                    .filter_map(|a| a.field.clone())
                    .chain(c.over.iter().cloned())
                    .chain(c.by.iter().cloned())
                    .collect()
            }
            Command::Bin(lode_spl::ast::Bin { field, .. })
            | Command::MakeMv { field, .. }
            | Command::MvExpand { field, .. }
            | Command::NoMv(field)
            | Command::AutoRegress { field, .. } => vec![field.clone()],
            // These read every field (or fields named by wildcards).
            Command::MvCombine { .. }
            | Command::FillDown(_)
            | Command::AddTotals(_)
            | Command::AddColTotals { .. }
            | Command::Uniq
            | Command::Replace { .. }
            | Command::Convert { .. }
            | Command::Transaction(_)
            | Command::Spath { .. }
            | Command::Extract { .. }
            | Command::XmlKv => return None,
        };
        for n in names {
            if !out.contains(&n) {
                out.push(n);
            }
        }
        if closed {
            return Some(out);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use lode_spl::ast::{Agg, Stats};

    #[test]
    fn stats_closes_the_list() {
        let cmds = vec![
            Command::Rex {
                field: "msg".into(),
                pattern: "(?<a>x)".into(),
                max_match: 1,
                sed: false,
                offset_field: None,
            },
            Command::Stats(Stats {
                aggs: vec![Agg {
                    func: "avg".into(),
                    field: Some("bytes".into()),
                    alias: None,
                    eval: None,
                }],
                by: vec!["host".into()],
                dedup_splitvals: false,
            }),
            Command::Table(vec!["other".into()]),
        ];
        assert_eq!(
            required_fields(&cmds),
            Some(vec![
                "_time".into(),
                "_raw".into(),
                "msg".into(),
                "bytes".into(),
                "host".into()
            ])
        );
        assert_eq!(required_fields(&[Command::Head(3)]), None);
        assert_eq!(required_fields(&[Command::Table(vec!["a*".into()])]), None);
    }
}
