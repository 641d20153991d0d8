//! `lode search`: runs a search directly on the home's indexes (readers need no lock, so this
//! works while a server is writing) and prints the results.

use std::io::{self, Write};

use lode_node::lock::{self, Holder, ServerInfo};
use lode_node::{Home, Node};
use lode_search::generate::collect::{CollectHandle, CollectSink};
use lode_search::run::{run_with, RunOptions, SearchRequest};
use lode_search::SearchError;
use lode_spl::ast::data::DataCommand;
use lode_spl::ast::Command;

use crate::cli::SearchArgs;
use crate::exit::{CliError, CliResult, FAILURE, SPL_SYNTAX};
use crate::output::Printer;

/// A search over all time, starting now, in UTC, using the index.
pub fn request(query: &str) -> SearchRequest {
    SearchRequest {
        query: query.to_string(),
        earliest: None,
        latest: None,
        now: now_micros(),
        tz: lode_time::Zone::Utc,
        explain: false,
        force_scan: false,
    }
}

pub fn run(home: &Home, args: SearchArgs) -> CliResult {
    let req = SearchRequest {
        earliest: args.earliest.clone(),
        latest: args.latest.clone(),
        explain: args.explain,
        ..request(&args.query)
    };
    let stdout = io::stdout();
    let mut printer = Printer::new(args.output, io::BufWriter::new(stdout.lock()));
    // server.conf [search] applies to CLI searches too (missing files mean the defaults).
    let (server, _) = lode_node::config::load_server(&home.etc())
        .map_err(|e| CliError::new(crate::exit::CONFIG, e.to_string()))?;
    // `collect` writes: directly when no server holds the home, else through the server.
    let writer = collect_writer(home, &args.query)?;
    let opts = RunOptions {
        batch_search_max_pipeline: server.search_batch_max_pipeline,
        etc_dir: Some(home.etc()),
        collect: writer.as_ref().map(CollectWriter::handle),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let mut io_err: Option<io::Error> = None;
    let result = run_with(&home.index_root(), &req, &opts, &mut |rows| {
        if let Err(e) = printer.rows(rows) {
            io_err = Some(e);
            return Err(SearchError::User("output closed".into()));
        }
        Ok(())
    });
    drop(opts);
    if let Some(CollectWriter::Direct(node, _lock)) = writer {
        if let Ok(node) = std::sync::Arc::try_unwrap(node) {
            node.close()
                .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
        }
    }
    if let Some(e) = io_err {
        return Err(e.into());
    }
    let stats = result.map_err(|e| search_error(&args.query, e))?;
    if args.explain {
        let mut err = io::stderr().lock();
        for line in &stats.explain {
            let _ = writeln!(err, "explain: {line}");
        }
    }
    printer.finish(stats.transforming)?;
    if args.stats || args.explain {
        eprintln!(
            "lode: {} rows in {:.1} ms; buckets: {} total, {} pruned by time, {} skipped by bloom, {} read; events: {} candidates, {} scanned, {} matched",
            stats.rows_out,
            started.elapsed().as_secs_f64() * 1e3,
            stats.buckets_total,
            stats.buckets_pruned_time,
            stats.buckets_skipped_bloom,
            stats.buckets_read,
            stats.events_candidate,
            stats.events_scanned,
            stats.events_matched
        );
    }
    Ok(())
}

/// How a search's `collect` writes.
enum CollectWriter {
    /// This process holds the home: through its own node (closed after the search).
    Direct(std::sync::Arc<Node>, lode_node::lock::HomeLock),
    /// A server holds it: through its ingest endpoint.
    Server(ServerInfo),
}

impl CollectWriter {
    fn handle(&self) -> CollectHandle {
        match self {
            CollectWriter::Direct(node, _) => lode_server::collect::handle(node.clone(), None),
            CollectWriter::Server(info) => {
                CollectHandle(std::sync::Arc::new(ServerSink(info.clone())))
            }
        }
    }
}

/// The writer for a search that uses `collect` (`None` for any other search: readers take no
/// lock).
fn collect_writer(home: &Home, query: &str) -> CliResult<Option<CollectWriter>> {
    let uses_collect = lode_spl::parse(query).is_ok_and(|p| {
        p.commands
            .iter()
            .any(|c| matches!(c, Command::Data(DataCommand::Collect(_))))
    });
    if !uses_collect {
        return Ok(None);
    }
    match lock::acquire(home)? {
        Holder::Acquired(l) => {
            let node = Node::open(home).map_err(super::node_error)?;
            Ok(Some(CollectWriter::Direct(std::sync::Arc::new(node), l)))
        }
        Holder::Server(info) => Ok(Some(CollectWriter::Server(info))),
        Holder::OtherWriter => Err(CliError::new(
            crate::exit::BUSY,
            format!(
                "another lode process is writing to {}; try again when it has finished",
                home.root().display()
            ),
        )),
    }
}

/// `collect` through a running server: the events' text goes to its ingest endpoint (one
/// request per batch; the text starts with its timestamp, which ingest finds again).
struct ServerSink(ServerInfo);

impl CollectSink for ServerSink {
    fn write(&self, events: Vec<lode_event::Event>) -> Result<u64, String> {
        let Some(first) = events.first() else {
            return Ok(0);
        };
        let params = [
            ("index", first.index.clone()),
            ("sourcetype", first.sourcetype.clone()),
            ("host", first.host.clone()),
            ("source", first.source.clone()),
        ];
        let params: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut body = String::new();
        for e in &events {
            body.push_str(&e.raw);
            body.push('\n');
        }
        crate::client::ingest(&self.0, &params, body.as_bytes())
            .map(|r| r.events)
            .map_err(|e| e.message)
    }
}

/// Renders a search failure: syntax errors with a caret under the position, exit code 3.
pub fn search_error(query: &str, e: SearchError) -> CliError {
    match e {
        SearchError::Parse(p) => {
            CliError::new(SPL_SYNTAX, format!("error in search:\n{}", p.render(query)))
        }
        SearchError::User(m) => CliError::new(SPL_SYNTAX, m),
        other => CliError::new(FAILURE, other.to_string()),
    }
}

/// Wall-clock now in microseconds.
pub fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}
