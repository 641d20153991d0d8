//! CSV files as Splunk reads and writes lookup tables: RFC 4180 quoting, a header row, cells
//! with line breaks allowed inside quotes (a multivalue cell holds its values one per line).

use std::io::Write;
use std::path::Path;

use crate::error::SearchError;

/// A table: the header and the rows (each as long as the header; short rows are padded).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Cells, row by row.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The column index of `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// Parses CSV text (a UTF-8 byte order mark is skipped). An empty text is an empty table.
pub fn parse(text: &str) -> Table {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut records = records(text).into_iter();
    let header = records.next().unwrap_or_default();
    let width = header.len();
    let rows = records
        .filter(|r| !(r.len() == 1 && r[0].is_empty()))
        .map(|mut r| {
            r.resize(width, String::new());
            r
        })
        .collect();
    Table { header, rows }
}

/// The records of CSV text.
fn records(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut record = Vec::new();
    let mut cell = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    let mut any = false;
    while let Some(c) = chars.next() {
        any = true;
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    cell.push('"');
                } else {
                    quoted = false;
                }
            } else {
                cell.push(c);
            }
            continue;
        }
        match c {
            '"' if cell.is_empty() => quoted = true,
            ',' => record.push(std::mem::take(&mut cell)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                record.push(std::mem::take(&mut cell));
                out.push(std::mem::take(&mut record));
                any = false;
            }
            _ => cell.push(c),
        }
    }
    if any {
        record.push(cell);
        out.push(record);
    }
    out
}

/// Reads a CSV file.
pub fn read(path: &Path) -> Result<Table, SearchError> {
    let bytes = std::fs::read(path)
        .map_err(|e| SearchError::Io(format!("cannot read {}: {e}", path.display())))?;
    Ok(parse(&String::from_utf8_lossy(&bytes)))
}

/// One cell, quoted when it holds a comma, quote, line break or surrounding spaces.
pub fn cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The CSV text of a table.
pub fn render(t: &Table) -> String {
    let mut out = String::new();
    if t.header.is_empty() && t.rows.is_empty() {
        return out;
    }
    let line = |out: &mut String, cells: &[String]| {
        let joined: Vec<String> = cells.iter().map(|c| cell(c)).collect();
        out.push_str(&joined.join(","));
        out.push('\n');
    };
    line(&mut out, &t.header);
    for r in &t.rows {
        line(&mut out, r);
    }
    out
}

/// Writes `t` to `path` atomically: a temporary file in the same directory, synced, then
/// renamed over the target (readers see the old or the new table, never half of one).
pub fn write_atomic(path: &Path, t: &Table) -> Result<(), SearchError> {
    let io = |e: std::io::Error| SearchError::Io(format!("cannot write {}: {e}", path.display()));
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.tmp.{}.{seq}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(render(t).as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_cells_line_breaks_and_padding() {
        let t = parse("\u{feff}a,b,c\r\n1,\"x, \"\"y\"\"\",\"l1\nl2\"\n2\n\n");
        assert_eq!(t.header, ["a", "b", "c"]);
        assert_eq!(
            t.rows,
            vec![
                vec!["1".to_string(), "x, \"y\"".into(), "l1\nl2".into()],
                vec!["2".to_string(), String::new(), String::new()],
            ]
        );
        assert_eq!(parse(&render(&t)), t);
        assert_eq!(parse(""), Table::default());
    }
}
