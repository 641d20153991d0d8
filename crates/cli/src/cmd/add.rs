//! `lode add oneshot`: index files, directories and standard input once.
//!
//! Through the server when one holds the home, directly otherwise. Binary files (a NUL byte in
//! their first 8 KiB, as Splunk's own check) are skipped with a message; empty files add nothing.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use lode_ingest::SourceMeta;
use lode_node::lock::{self, Holder};
use lode_node::{Home, Node};

use crate::cli::OneshotArgs;
use crate::client;
use crate::exit::{CliError, CliResult, BUSY, FAILURE, USAGE};
use crate::progress;

/// Bytes looked at to recognise binary files and sourcetypes.
const HEAD_BYTES: usize = 8192;

/// One input to add.
struct Input {
    path: Option<PathBuf>,
    source: String,
    size: u64,
}

/// Totals over all inputs.
#[derive(Default)]
struct Totals {
    events: u64,
    bytes: u64,
    dropped: u64,
    truncated: u64,
    skipped: Vec<String>,
}

pub fn oneshot(home: &Home, args: OneshotArgs) -> CliResult {
    let inputs = collect_inputs(&args)?;
    home.ensure_layout().map_err(|e| {
        CliError::new(
            FAILURE,
            format!("cannot create {}: {e}", home.root().display()),
        )
    })?;
    let host = args.host.clone().unwrap_or_else(local_host);
    let total_bytes: u64 = inputs.iter().map(|i| i.size).sum();
    let bar = progress::bytes(total_bytes, "indexing");
    let mut totals = Totals::default();
    match lock::acquire(home)? {
        Holder::Acquired(_lock) => {
            let node = Node::open(home).map_err(super::node_error)?;
            super::print_warnings(node.warnings());
            for input in &inputs {
                let Some((head, reader)) = open_input(input, &mut totals)? else {
                    continue;
                };
                let meta = meta_for(&args, input, &host, &head);
                let mut reader = io::Cursor::new(head).chain(reader);
                let report = node
                    .ingest(meta, &mut reader, &mut |n| bar.inc(n))
                    .map_err(|e| CliError::new(FAILURE, format!("{}: {e}", input.source)))?;
                totals.events += report.events;
                totals.bytes += report.bytes;
                totals.dropped += report.dropped;
                totals.truncated += report.truncated;
            }
            node.close()
                .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
        }
        Holder::Server(info) => {
            for input in &inputs {
                let Some((head, reader)) = open_input(input, &mut totals)? else {
                    continue;
                };
                let meta = meta_for(&args, input, &host, &head);
                let params = [
                    ("index", meta.index.as_str()),
                    ("sourcetype", meta.sourcetype.as_str()),
                    ("host", meta.host.as_str()),
                    ("source", meta.source.as_str()),
                ];
                let reader = bar.wrap_read(io::Cursor::new(head).chain(reader));
                let reply = client::ingest(&info, &params, reader)?;
                totals.events += reply.events;
                totals.bytes += reply.bytes;
                totals.dropped += reply.dropped;
                totals.truncated += reply.truncated;
            }
        }
        Holder::OtherWriter => {
            return Err(CliError::new(
                BUSY,
                format!(
                    "another lode process is writing to {}; try again when it has finished",
                    home.root().display()
                ),
            ))
        }
    }
    bar.finish_and_clear();
    for s in &totals.skipped {
        eprintln!("lode: skipped {s}");
    }
    let mut line = format!(
        "Added {} events ({}) to index {}",
        totals.events,
        human_bytes(totals.bytes),
        args.index
    );
    if totals.dropped > 0 {
        line.push_str(&format!(
            ", {} dropped by nullQueue transforms",
            totals.dropped
        ));
    }
    if totals.truncated > 0 {
        line.push_str(&format!(", {} truncated at TRUNCATE", totals.truncated));
    }
    println!("{line}.");
    if totals.events == 0 && !totals.skipped.is_empty() && totals.skipped.len() == inputs.len() {
        return Err(CliError::new(FAILURE, "nothing was indexed"));
    }
    Ok(())
}

fn collect_inputs(args: &OneshotArgs) -> CliResult<Vec<Input>> {
    let mut out = Vec::new();
    for p in &args.paths {
        if p.as_os_str() == "-" {
            out.push(Input {
                path: None,
                source: args.source.clone().unwrap_or_else(|| "stdin".into()),
                size: 0,
            });
            continue;
        }
        let meta = std::fs::metadata(p)
            .map_err(|e| CliError::new(USAGE, format!("cannot read {}: {e}", p.display())))?;
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(p, &mut files)
                .map_err(|e| CliError::new(FAILURE, format!("cannot list {}: {e}", p.display())))?;
            files.sort();
            for f in files {
                let size = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
                out.push(Input {
                    source: source_name(args, &f),
                    path: Some(f),
                    size,
                });
            }
        } else {
            out.push(Input {
                source: source_name(args, p),
                path: Some(p.clone()),
                size: meta.len(),
            });
        }
    }
    Ok(out)
}

fn source_name(args: &OneshotArgs, path: &Path) -> String {
    args.source.clone().unwrap_or_else(|| {
        std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf())
            .display()
            .to_string()
    })
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let ty = entry.file_type()?;
        if ty.is_dir() {
            walk(&entry.path(), out)?;
        } else if ty.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// An opened input: the bytes already read from its head, and a reader of the rest.
type Opened = (Vec<u8>, Box<dyn Read>);

/// Opens an input and reads its head; `None` when it is skipped (binary).
fn open_input(input: &Input, totals: &mut Totals) -> CliResult<Option<Opened>> {
    let mut reader: Box<dyn Read> = match &input.path {
        None => Box::new(io::stdin().lock()),
        Some(p) => Box::new(
            File::open(p)
                .map_err(|e| CliError::new(FAILURE, format!("cannot open {}: {e}", p.display())))?,
        ),
    };
    let mut head = Vec::with_capacity(HEAD_BYTES);
    (&mut reader)
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| CliError::new(FAILURE, format!("cannot read {}: {e}", input.source)))?;
    if head.contains(&0) {
        totals.skipped.push(format!(
            "{}: binary file (NUL bytes in the first 8 KiB), not indexed",
            input.source
        ));
        return Ok(None);
    }
    Ok(Some((head, reader)))
}

fn meta_for(args: &OneshotArgs, input: &Input, host: &str, head: &[u8]) -> SourceMeta {
    SourceMeta {
        host: host.to_string(),
        source: input.source.clone(),
        sourcetype: args
            .sourcetype
            .clone()
            .unwrap_or_else(|| lode_ingest::guess_sourcetype(&input.source, head)),
        index: args.index.clone(),
    }
}

/// This machine's host name, for the `host` field.
pub fn local_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// `1.5 MB`-style sizes for messages.
pub fn human_bytes(n: u64) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.2} GB", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1} MB", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1} KB", n / 1e3)
    } else {
        format!("{n} bytes")
    }
}
