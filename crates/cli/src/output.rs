//! Printing result rows as a table, JSON lines, CSV or raw events.

use std::io::{self, Write};

use lode_search::row::Row;
use lode_server::format::{cell, row_json, Cell};

use crate::cli::OutputFormat;

/// A row flattened to its output cells, in column order.
pub type Cells = Vec<Option<Cell>>;

/// Looks up each column in `row`.
pub fn cells(row: &mut Row, columns: &[String]) -> Cells {
    columns
        .iter()
        .map(|c| row.get(c).and_then(|v| cell(c, v)))
        .collect()
}

/// Writes rows in the chosen format. Table and CSV need every row to size columns / name the
/// header, so they buffer; JSON and raw stream.
pub struct Printer<W: Write> {
    format: OutputFormat,
    out: W,
    buffered: Vec<Row>,
}

impl<W: Write> Printer<W> {
    pub fn new(format: OutputFormat, out: W) -> Self {
        Printer {
            format,
            out,
            buffered: Vec::new(),
        }
    }

    /// Accepts a batch of final rows.
    pub fn rows(&mut self, rows: Vec<Row>) -> io::Result<()> {
        match self.format {
            OutputFormat::Table | OutputFormat::Csv => {
                self.buffered.extend(rows);
                Ok(())
            }
            OutputFormat::Json => {
                for mut row in rows {
                    let obj = row_json(&mut row);
                    serde_json::to_writer(&mut self.out, &obj)?;
                    self.out.write_all(b"\n")?;
                }
                Ok(())
            }
            OutputFormat::Raw => {
                for mut row in rows {
                    if let Some(raw) = row.get("_raw").map(|v| v.to_string()) {
                        writeln!(self.out, "{raw}")?;
                    } else {
                        let parts: Vec<String> = row
                            .fields()
                            .filter_map(|(n, v)| {
                                cell(n, v).map(|c| format!("{n}={}", c.joined(",")))
                            })
                            .collect();
                        writeln!(self.out, "{}", parts.join(" "))?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Writes buffered output.
    pub fn finish(mut self, transforming: bool) -> io::Result<()> {
        let mut rows = std::mem::take(&mut self.buffered);
        let columns = lode_search::ops::columns(&rows, transforming);
        match self.format {
            OutputFormat::Table => {
                let table: Vec<Cells> = rows.iter_mut().map(|r| cells(r, &columns)).collect();
                write_table(&mut self.out, &columns, &table)?;
            }
            OutputFormat::Csv => {
                let mut w = CsvWriter { out: &mut self.out };
                w.record(columns.iter().map(|c| c.as_str()))?;
                for r in rows.iter_mut() {
                    let cs = cells(r, &columns);
                    let texts: Vec<String> = cs
                        .iter()
                        .map(|c| c.as_ref().map(|c| c.joined("\n")).unwrap_or_default())
                        .collect();
                    w.record(texts.iter().map(|s| s.as_str()))?;
                }
            }
            OutputFormat::Json | OutputFormat::Raw => {}
        }
        self.out.flush()
    }
}

/// Aligned columns; multivalue cells are joined with ", ", newlines shown as spaces.
pub fn write_table(out: &mut impl Write, columns: &[String], rows: &[Cells]) -> io::Result<()> {
    const MAX_WIDTH: usize = 120;
    let text = |c: &Option<Cell>| {
        c.as_ref()
            .map(|c| c.joined(", ").replace(['\n', '\r'], " "))
            .unwrap_or_default()
    };
    let mut widths: Vec<usize> = columns.iter().map(|c| c.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(text(c).chars().count()).min(MAX_WIDTH);
        }
    }
    let line = |cells: Vec<String>| -> String {
        let n = cells.len();
        let mut s = String::new();
        for (i, c) in cells.into_iter().enumerate() {
            let shown: String = c.chars().take(MAX_WIDTH).collect();
            s.push_str(&shown);
            if i + 1 < n {
                s.push_str(&" ".repeat(widths[i].saturating_sub(shown.chars().count()) + 2));
            }
        }
        s
    };
    writeln!(out, "{}", line(columns.to_vec()))?;
    writeln!(
        out,
        "{}",
        line(widths.iter().map(|w| "-".repeat(*w)).collect())
    )?;
    for r in rows {
        writeln!(out, "{}", line(r.iter().map(text).collect()))?;
    }
    Ok(())
}

/// RFC 4180 CSV: fields quoted when they contain a comma, quote or line break.
struct CsvWriter<'a, W: Write> {
    out: &'a mut W,
}

impl<W: Write> CsvWriter<'_, W> {
    fn record<'s>(&mut self, fields: impl Iterator<Item = &'s str>) -> io::Result<()> {
        let mut first = true;
        for f in fields {
            if !first {
                self.out.write_all(b",")?;
            }
            first = false;
            if f.contains([',', '"', '\n', '\r']) {
                write!(self.out, "\"{}\"", f.replace('"', "\"\""))?;
            } else {
                self.out.write_all(f.as_bytes())?;
            }
        }
        self.out.write_all(b"\r\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quoting() {
        let mut buf = Vec::new();
        CsvWriter { out: &mut buf }
            .record(["a", "b,c", "say \"hi\"", "x\ny"].into_iter())
            .unwrap();
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "a,\"b,c\",\"say \"\"hi\"\"\",\"x\ny\"\r\n"
        );
    }

    #[test]
    fn table_alignment() {
        let mut buf = Vec::new();
        let cols = vec!["host".to_string(), "count".to_string()];
        let rows = vec![vec![
            Some(Cell::One("web-01".into())),
            Some(Cell::One("7".into())),
        ]];
        write_table(&mut buf, &cols, &rows).unwrap();
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "host    count\n------  -----\nweb-01  7\n"
        );
    }
}
