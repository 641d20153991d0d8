//! `lode search`: runs a search directly on the home's indexes (readers need no lock, so this
//! works while a server is writing) and prints the results.

use std::io::{self, Write};

use lode_node::Home;
use lode_search::run::{run_with, RunOptions, SearchRequest};
use lode_search::SearchError;

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
    let opts = RunOptions {
        batch_search_max_pipeline: server.search_batch_max_pipeline,
        etc_dir: Some(home.etc()),
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
