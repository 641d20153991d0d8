//! Data commands: `makeresults`, `gentimes`, `lookup`, `inputlookup`, `outputlookup`, `tstats`,
//! `metadata` (syntax in [`crate::ast::data`]).

use super::stats::parse_span;
use super::{parse_bool, parse_u64, unknown_option, Parser, Result};
use crate::ast::data::{
    Collect, DataCommand, GenTimes, InlineData, InputLookup, Lookup, MetadataType, OutputLookup,
    Tstats,
};
use crate::ast::{Command, SearchExpr, Span, TimeUnit};
use crate::error::ParseError;
use crate::lexer::{Mode, Tok};

const M: Mode = Mode::Args;

impl Parser<'_> {
    /// The data command `name` (already read, at `at`).
    pub(super) fn data_cmd(&mut self, name: &str, at: Span) -> Result<Command> {
        let d = match name {
            "makeresults" => self.makeresults_cmd(at)?,
            "gentimes" => self.gentimes_cmd(at)?,
            "lookup" => self.lookup_cmd(at)?,
            "inputlookup" => DataCommand::InputLookup(self.inputlookup_cmd(at, name)?),
            "outputlookup" => DataCommand::OutputLookup(self.outputlookup_cmd(at, name)?),
            "inputcsv" => DataCommand::InputCsv(self.inputlookup_cmd(at, name)?),
            "outputcsv" => DataCommand::OutputCsv(self.outputlookup_cmd(at, name)?),
            "tstats" => self.tstats_cmd(at)?,
            "fieldsummary" => self.fieldsummary_cmd()?,
            "collect" => self.collect_cmd(at)?,
            _ => self.metadata_cmd(at)?,
        };
        Ok(Command::Data(d))
    }

    fn makeresults_cmd(&mut self, at: Span) -> Result<DataCommand> {
        let mut count = 1;
        let mut annotate = false;
        let mut format: Option<bool> = None;
        let mut text: Option<String> = None;
        while let Some(o) = self.option()? {
            match o.key.as_str() {
                "count" => count = parse_u64(&o.value, o.value_span, "count")?,
                "annotate" => annotate = parse_bool(&o)?,
                "format" => {
                    format = Some(match o.value.to_ascii_lowercase().as_str() {
                        "csv" => false,
                        "json" => true,
                        _ => {
                            return Err(ParseError::new(
                                format!(
                                    "Error in 'makeresults' command: Invalid argument: 'format={}'. Use csv or json.",
                                    o.value
                                ),
                                o.value_span,
                            ))
                        }
                    })
                }
                "data" => text = Some(o.value),
                _ => return Err(unknown_option(&o, "makeresults")),
            }
        }
        self.expect_end(M)?;
        let data = match (format, text) {
            (f, Some(text)) => Some(InlineData {
                json: f.unwrap_or(false),
                text,
            }),
            (Some(_), None) => {
                return Err(ParseError::new(
                    "Error in 'makeresults' command: 'format' needs 'data'.",
                    at,
                ))
            }
            (None, None) => None,
        };
        Ok(DataCommand::MakeResults {
            count,
            annotate,
            data,
        })
    }

    fn gentimes_cmd(&mut self, at: Span) -> Result<DataCommand> {
        let mut start = None;
        let mut end = None;
        let mut increment = GenTimes::DEFAULT_INCREMENT;
        while let Some(o) = self.option()? {
            match o.key.as_str() {
                "start" => start = Some(o.value),
                "end" => end = Some(o.value),
                "increment" => {
                    increment = parse_span(&o.value, o.value_span)?;
                    if !matches!(
                        increment.unit,
                        TimeUnit::Second | TimeUnit::Minute | TimeUnit::Hour | TimeUnit::Day
                    ) {
                        return Err(ParseError::new(
                            format!(
                                "Invalid increment '{}'; use seconds, minutes, hours or days (s, m, h, d).",
                                o.value
                            ),
                            o.value_span,
                        ));
                    }
                }
                _ => return Err(unknown_option(&o, "gentimes")),
            }
        }
        self.expect_end(M)?;
        let Some(start) = start else {
            return Err(ParseError::new(
                "'gentimes' needs start=<MM/DD/YYYY[:HH:MM:SS]> or start=<days>.",
                at,
            ));
        };
        Ok(DataCommand::GenTimes(GenTimes {
            start,
            end,
            increment,
        }))
    }

    /// A lookup table name (definition or file).
    fn table_name(&mut self, cmd: &str, at: Span) -> Result<String> {
        let t = self.peek(M)?;
        match t.kind {
            Tok::Word | Tok::Str(_) => Ok(self.name("a lookup table name")?.0),
            _ => Err(ParseError::new(
                format!("'{cmd}' needs a lookup table name."),
                if t.kind == Tok::Eof { at } else { t.span },
            )),
        }
    }

    /// `f [AS g]` pairs up to the end of the command or the keyword `OUTPUT`/`OUTPUTNEW`.
    fn lookup_pairs(&mut self) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        loop {
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => return Ok(out),
                Tok::Comma if !out.is_empty() => {
                    self.pos = t.span.end;
                    continue;
                }
                Tok::Word if self.is_word(&t, "output") || self.is_word(&t, "outputnew") => {
                    return Ok(out)
                }
                _ => {}
            }
            let (field, _) = self.name("a field name")?;
            let (a, _) = self.peek2(M)?;
            let alias = if self.is_word(&a, "as") {
                self.pos = a.span.end;
                self.name("a field name after 'AS'")?.0
            } else {
                field.clone()
            };
            out.push((field, alias));
        }
    }

    fn lookup_cmd(&mut self, at: Span) -> Result<DataCommand> {
        if let Some(o) = self.option()? {
            return Err(unknown_option(&o, "lookup"));
        }
        let table = self.table_name("lookup", at)?;
        let inputs = self.lookup_pairs()?;
        if inputs.is_empty() {
            return Err(ParseError::new(
                "Error in 'lookup' command: Must specify one or more lookup fields.",
                at,
            ));
        }
        let mut outputs = Vec::new();
        let mut output_new = false;
        let t = self.peek(M)?;
        if t.kind == Tok::Word {
            output_new = self.is_word(&t, "outputnew");
            self.pos = t.span.end;
            outputs = self.lookup_pairs()?;
            if outputs.is_empty() {
                return Err(ParseError::new(
                    format!("Expected output field names after '{}'.", self.text(&t)),
                    t.span,
                ));
            }
        }
        self.expect_end(M)?;
        Ok(DataCommand::Lookup(Lookup {
            table,
            inputs,
            outputs,
            output_new,
            etc_dir: None,
        }))
    }

    fn inputlookup_cmd(&mut self, at: Span, cmd: &str) -> Result<InputLookup> {
        let mut il = InputLookup {
            table: String::new(),
            append: false,
            start: 0,
            max: InputLookup::DEFAULT_MAX,
            filter: None,
            etc_dir: None,
        };
        while let Some(o) = self.option()? {
            match o.key.as_str() {
                "append" => il.append = parse_bool(&o)?,
                "start" => il.start = parse_u64(&o.value, o.value_span, "start")?,
                "max" => il.max = parse_u64(&o.value, o.value_span, "max")?,
                _ => return Err(unknown_option(&o, cmd)),
            }
        }
        il.table = self.table_name(cmd, at)?;
        let t = self.peek(M)?;
        if self.is_word(&t, "where") {
            self.pos = t.span.end;
            il.filter = self.search_clause()?;
            if il.filter.is_none() {
                return Err(ParseError::new(
                    "'where' needs a condition such as field=value.",
                    t.span,
                ));
            }
        }
        self.expect_end(M)?;
        Ok(il)
    }

    fn outputlookup_cmd(&mut self, at: Span, cmd: &str) -> Result<OutputLookup> {
        let mut ol = OutputLookup {
            table: String::new(),
            append: false,
            create_empty: true,
            override_if_empty: true,
            etc_dir: None,
        };
        let mut opts = |p: &mut Self| -> Result<()> {
            while let Some(o) = p.option()? {
                match o.key.as_str() {
                    "append" => ol.append = parse_bool(&o)?,
                    "create_empty" => ol.create_empty = parse_bool(&o)?,
                    "override_if_empty" => ol.override_if_empty = parse_bool(&o)?,
                    _ => return Err(unknown_option(&o, cmd)),
                }
            }
            Ok(())
        };
        opts(self)?;
        let table = self.table_name(cmd, at)?;
        opts(self)?;
        self.expect_end(M)?;
        Ok(OutputLookup { table, ..ol })
    }

    fn collect_cmd(&mut self, at: Span) -> Result<DataCommand> {
        let mut c = Collect {
            index: String::new(),
            sourcetype: "stash".into(),
            source: None,
            host: None,
            marker: None,
            testmode: false,
        };
        while let Some(o) = self.option()? {
            match o.key.as_str() {
                "index" => c.index = o.value,
                "sourcetype" => c.sourcetype = o.value,
                "source" => c.source = Some(o.value),
                "host" => c.host = Some(o.value),
                "marker" => c.marker = Some(o.value),
                "testmode" => c.testmode = parse_bool(&o)?,
                _ => return Err(unknown_option(&o, "collect")),
            }
        }
        self.expect_end(M)?;
        if c.index.is_empty() {
            return Err(ParseError::new(
                "Error in 'collect' command: You must specify an index with index=<name>.",
                at,
            ));
        }
        Ok(DataCommand::Collect(c))
    }

    fn fieldsummary_cmd(&mut self) -> Result<DataCommand> {
        let mut maxvals = 100;
        let mut fields = Vec::new();
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "maxvals" => maxvals = parse_u64(&o.value, o.value_span, "maxvals")?,
                    _ => return Err(unknown_option(&o, "fieldsummary")),
                }
                continue;
            }
            let more = self.field_list(false)?;
            if more.is_empty() {
                break;
            }
            fields.extend(more);
        }
        self.expect_end(M)?;
        Ok(DataCommand::FieldSummary { maxvals, fields })
    }

    fn tstats_cmd(&mut self, at: Span) -> Result<DataCommand> {
        let mut ts = Tstats {
            aggs: Vec::new(),
            filter: None,
            by: Vec::new(),
            span: None,
        };
        if let Some(o) = self.option()? {
            return Err(unknown_option(&o, "tstats"));
        }
        loop {
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma if !ts.aggs.is_empty() => self.pos = t.span.end,
                Tok::Word if self.is_word(&t, "where") || self.is_word(&t, "by") => break,
                _ => ts.aggs.push(self.agg()?),
            }
        }
        if ts.aggs.is_empty() {
            return Err(ParseError::new(
                "'tstats' needs at least one aggregation, such as count.",
                at,
            ));
        }
        let t = self.peek(M)?;
        if self.is_word(&t, "where") {
            self.pos = t.span.end;
            ts.filter = self.clause_before_by()?;
        }
        let t = self.peek(M)?;
        if self.is_word(&t, "by") {
            self.pos = t.span.end;
            ts.by = self.field_list(false)?;
            if ts.by.is_empty() {
                return Err(ParseError::new("Expected field names after 'by'.", t.span));
            }
            while let Some(o) = self.option()? {
                match o.key.as_str() {
                    "span" => ts.span = Some(parse_span(&o.value, o.value_span)?),
                    _ => return Err(unknown_option(&o, "tstats")),
                }
            }
        }
        self.expect_end(M)?;
        if ts.span.is_some() && !ts.by.iter().any(|f| f == "_time") {
            return Err(ParseError::new(
                "'span=' needs _time among the 'by' fields.",
                at,
            ));
        }
        Ok(DataCommand::Tstats(ts))
    }

    /// A search clause that ends at the end of the command or at a `by` outside parentheses
    /// (not in a value position).
    fn clause_before_by(&mut self) -> Result<Option<SearchExpr>> {
        let mut end = self.pos;
        let mut depth = 0u32;
        let mut after_op = false;
        loop {
            let t = crate::lexer::lex(self.src, end, Mode::Search)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::LParen => depth += 1,
                Tok::RParen => depth = depth.saturating_sub(1),
                Tok::Word if depth == 0 && !after_op && self.is_word(&t, "by") => {
                    end = t.span.start;
                    break;
                }
                _ => {}
            }
            after_op = matches!(t.kind, Tok::Op(_));
            end = t.span.end;
        }
        let mut sub = Parser {
            src: &self.src[..end],
            pos: self.pos,
            depth: self.depth,
        };
        let clause = sub.search_clause()?;
        self.pos = sub.pos;
        Ok(clause)
    }

    fn metadata_cmd(&mut self, at: Span) -> Result<DataCommand> {
        let mut kind = None;
        let mut indexes = Vec::new();
        while let Some(o) = self.option()? {
            match o.key.as_str() {
                "type" => {
                    kind = Some(match o.value.to_ascii_lowercase().as_str() {
                        "hosts" => MetadataType::Hosts,
                        "sources" => MetadataType::Sources,
                        "sourcetypes" => MetadataType::Sourcetypes,
                        _ => {
                            return Err(ParseError::new(
                                format!(
                                    "Invalid type '{}' for 'metadata'; expected hosts, sources or sourcetypes.",
                                    o.value
                                ),
                                o.value_span,
                            ))
                        }
                    })
                }
                "index" => indexes.push(o.value),
                _ => return Err(unknown_option(&o, "metadata")),
            }
        }
        self.expect_end(M)?;
        let Some(kind) = kind else {
            return Err(ParseError::new(
                "'metadata' needs type=hosts, type=sources or type=sourcetypes.",
                at,
            ));
        };
        Ok(DataCommand::Metadata { kind, indexes })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cmds, err, last};
    use crate::ast::data::*;
    use crate::ast::{Agg, CmpOp, Command, SearchExpr, TimeSpan, TimeUnit};

    fn data(q: &str) -> DataCommand {
        match last(q) {
            Command::Data(d) => d,
            other => panic!("{q}: {other:?}"),
        }
    }

    #[test]
    fn makeresults_and_gentimes() {
        assert_eq!(
            data("| makeresults"),
            DataCommand::MakeResults {
                count: 1,
                annotate: false,
                data: None
            }
        );
        assert_eq!(
            data("| makeresults count=5 annotate=t"),
            DataCommand::MakeResults {
                count: 5,
                annotate: true,
                data: None
            }
        );
        assert_eq!(
            data(r#"| makeresults format=json data="[{\"a\": 1}]""#),
            DataCommand::MakeResults {
                count: 1,
                annotate: false,
                data: Some(InlineData {
                    json: true,
                    text: r#"[{"a": 1}]"#.into()
                })
            }
        );
        assert!(err("| makeresults format=xml data=x")
            .0
            .contains("Use csv or json"));
        assert!(err("| makeresults format=csv")
            .0
            .contains("'format' needs 'data'"));
        for q in [
            r#"| makeresults format=csv data="a,b
1,\"x \\\"y\\\"\"""#,
            r#"| makeresults count=2 annotate=t format=json data="{\"k\": [1, 2]}""#,
        ] {
            let once = crate::parse(q).unwrap();
            let printed = crate::print(&once);
            assert_eq!(crate::parse(&printed).unwrap(), once, "{printed}");
        }
        assert_eq!(cmds("| makeresults | eval a=1").len(), 2);
        assert_eq!(
            data("| gentimes start=10/1/2020 end=10/5/2020 increment=6h"),
            DataCommand::GenTimes(GenTimes {
                start: "10/1/2020".into(),
                end: Some("10/5/2020".into()),
                increment: TimeSpan {
                    count: 6,
                    unit: TimeUnit::Hour
                }
            })
        );
        assert_eq!(
            err("| gentimes end=1").0,
            "'gentimes' needs start=<MM/DD/YYYY[:HH:MM:SS]> or start=<days>."
        );
        assert!(err("| gentimes start=-3 increment=1w")
            .0
            .starts_with("Invalid increment"));
        assert_eq!(
            err("| makeresults foo=1"),
            ("Unknown option 'foo' for 'makeresults'.".into(), "foo")
        );
    }

    #[test]
    fn lookup_fields_and_outputs() {
        assert_eq!(
            data("x | lookup users uid AS user, dept OUTPUTNEW name AS full_name, email"),
            DataCommand::Lookup(Lookup {
                table: "users".into(),
                inputs: vec![
                    ("uid".into(), "user".into()),
                    ("dept".into(), "dept".into())
                ],
                outputs: vec![
                    ("name".into(), "full_name".into()),
                    ("email".into(), "email".into())
                ],
                output_new: true,
                etc_dir: None,
            })
        );
        assert_eq!(
            data("x | lookup users.csv uid"),
            DataCommand::Lookup(Lookup {
                table: "users.csv".into(),
                inputs: vec![("uid".into(), "uid".into())],
                outputs: vec![],
                output_new: false,
                etc_dir: None,
            })
        );
        assert_eq!(
            err("x | lookup users").0,
            "Error in 'lookup' command: Must specify one or more lookup fields."
        );
        assert_eq!(
            err("x | lookup users a OUTPUT"),
            (
                "Expected output field names after 'OUTPUT'.".into(),
                "OUTPUT"
            )
        );
    }

    #[test]
    fn inputlookup_and_outputlookup() {
        assert_eq!(
            data("| inputlookup append=t max=5 start=1 users.csv where age>30 name=a*"),
            DataCommand::InputLookup(InputLookup {
                table: "users.csv".into(),
                append: true,
                start: 1,
                max: 5,
                filter: Some(SearchExpr::And(vec![
                    SearchExpr::Compare {
                        field: "age".into(),
                        op: CmpOp::Gt,
                        value: "30".into(),
                        quoted: false
                    },
                    SearchExpr::Compare {
                        field: "name".into(),
                        op: CmpOp::Eq,
                        value: "a*".into(),
                        quoted: false
                    },
                ])),
                etc_dir: None,
            })
        );
        assert_eq!(
            data("x | outputlookup out.csv append=t create_empty=f"),
            DataCommand::OutputLookup(OutputLookup {
                table: "out.csv".into(),
                append: true,
                create_empty: false,
                override_if_empty: true,
                etc_dir: None,
            })
        );
        assert_eq!(
            err("| inputlookup").0,
            "'inputlookup' needs a lookup table name."
        );
    }

    #[test]
    fn tstats_where_and_by() {
        let count = Agg {
            func: "count".into(),
            field: None,
            alias: None,
            eval: None,
        };
        assert_eq!(
            data("| tstats count where index=main (host=web* OR host=db) by host, _time span=1h"),
            DataCommand::Tstats(Tstats {
                aggs: vec![count.clone()],
                filter: Some(SearchExpr::And(vec![
                    SearchExpr::Compare {
                        field: "index".into(),
                        op: CmpOp::Eq,
                        value: "main".into(),
                        quoted: false
                    },
                    SearchExpr::Or(vec![
                        SearchExpr::Compare {
                            field: "host".into(),
                            op: CmpOp::Eq,
                            value: "web*".into(),
                            quoted: false
                        },
                        SearchExpr::Compare {
                            field: "host".into(),
                            op: CmpOp::Eq,
                            value: "db".into(),
                            quoted: false
                        },
                    ]),
                ])),
                by: vec!["host".into(), "_time".into()],
                span: Some(TimeSpan {
                    count: 1,
                    unit: TimeUnit::Hour
                }),
            })
        );
        assert_eq!(
            data("| tstats count"),
            DataCommand::Tstats(Tstats {
                aggs: vec![count],
                filter: None,
                by: vec![],
                span: None,
            })
        );
        assert_eq!(
            err("| tstats by host").0,
            "'tstats' needs at least one aggregation, such as count."
        );
        assert_eq!(
            err("| tstats count by host span=1h").0,
            "'span=' needs _time among the 'by' fields."
        );
    }

    #[test]
    fn fieldsummary_and_csv_files() {
        assert_eq!(
            data("x | fieldsummary maxvals=5 status host*"),
            DataCommand::FieldSummary {
                maxvals: 5,
                fields: vec!["status".into(), "host*".into()],
            }
        );
        assert_eq!(
            data("x | fieldsummary"),
            DataCommand::FieldSummary {
                maxvals: 100,
                fields: vec![],
            }
        );
        assert!(matches!(
            data("| inputcsv max=3 results.csv where a=1"),
            DataCommand::InputCsv(InputLookup { max: 3, .. })
        ));
        assert!(matches!(
            data("x | outputcsv append=t results"),
            DataCommand::OutputCsv(OutputLookup { append: true, .. })
        ));
        assert_eq!(
            err("x | outputcsv nope=1 f").0,
            "Unknown option 'nope' for 'outputcsv'."
        );
    }

    #[test]
    fn collect_options() {
        assert_eq!(
            data("x | collect index=summary marker=\"a=1\" testmode=t source=s"),
            DataCommand::Collect(Collect {
                index: "summary".into(),
                sourcetype: "stash".into(),
                source: Some("s".into()),
                host: None,
                marker: Some("a=1".into()),
                testmode: true,
            })
        );
        assert!(err("x | collect").0.contains("You must specify an index"));
    }

    #[test]
    fn metadata_types() {
        assert_eq!(
            data("| metadata type=sourcetypes index=main index=web"),
            DataCommand::Metadata {
                kind: MetadataType::Sourcetypes,
                indexes: vec!["main".into(), "web".into()],
            }
        );
        assert!(err("| metadata type=users").0.starts_with("Invalid type"));
        assert!(err("| metadata").0.starts_with("'metadata' needs type="));
    }
}
