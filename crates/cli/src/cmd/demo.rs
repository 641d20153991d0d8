//! `lode demo`: the quick start. Generates a sample corpus, ingests it into the home, prints a few
//! example searches with their results, then starts the server on the same home.

use std::io;

use lode_gen::GenConfig;
use lode_ingest::SourceMeta;
use lode_node::lock::{self, Holder};
use lode_node::{Home, Node};
use lode_search::run::run as run_search;

use crate::cli::{DemoArgs, OutputFormat};
use crate::exit::{CliError, CliResult, BUSY, FAILURE};
use crate::output::Printer;

/// The example searches shown, with what each demonstrates.
const EXAMPLES: &[(&str, &str)] = &[
    ("events per sourcetype", "index=main | stats count by sourcetype"),
    ("failed SSH logins by user, from the term index", "sourcetype=syslog \"Failed password\" | rex \"for (invalid user )?(?<user>\\S+) from\" | top limit=5 user"),
    ("HTTP status codes of the access log", "sourcetype=access_combined | rex \"\\\" (?<status>\\d{3}) \" | stats count by status | sort -count"),
    ("JSON application errors by service (automatic JSON fields)", "sourcetype=_json level=ERROR | stats count avg(latency_ms) as avg_latency by service"),
    ("events per day and sourcetype", "index=main | timechart span=1d count by sourcetype"),
    (
        "newest Java exceptions (a phrase matches inside terms such as NullPointerException)",
        "sourcetype=log4j ERROR \"Exception\" | head 2 | table _time host _raw",
    ),
];

pub fn run(home: &Home, args: DemoArgs) -> CliResult {
    home.ensure_layout()?;
    let demo_marker = home.root().join("var/demo-loaded");
    if demo_marker.exists() {
        eprintln!(
            "lode demo: sample data already loaded in {} (delete the home to start over)",
            home.root().display()
        );
    } else {
        load(home, args.size)?;
        std::fs::write(&demo_marker, b"")?;
    }
    for (title, query) in EXAMPLES {
        println!("\n# {title}\n$ lode search '{query}'\n");
        show(home, query)?;
    }
    if args.no_serve {
        return Ok(());
    }
    println!();
    super::serve::serve(home, args.listen, None, |url| {
        println!("Lode is running with the sample data at {url}");
        println!("  search over HTTP:  curl -sk -u admin:PASSWORD '{url}/lode/search' --data-urlencode 'q=error | stats count by host' | head");
        println!("  Splunk REST API:   curl -sk -u admin:PASSWORD {url}/services/search/jobs/export -d search='search error | head 3' -d output_mode=json");
        println!(
            "  search from the CLI (another terminal): LODE_HOME={} lode search 'error | head 5'",
            home.root().display()
        );
        println!("Press Ctrl-C to stop.");
    })
}

fn load(home: &Home, size: u64) -> CliResult {
    let corpus = home.root().join("var/demo-corpus");
    eprintln!(
        "lode demo: generating {} of sample machine data…",
        super::add::human_bytes(size)
    );
    let bar = crate::progress::bytes(size, "generating");
    let cfg = GenConfig {
        seed: 42,
        total_bytes: size,
        start_time_secs: start_of_week_ago(),
        ..GenConfig::default()
    };
    lode_gen::write_dir(cfg, &corpus, &mut |n| bar.set_position(n))
        .map_err(|e| CliError::new(FAILURE, format!("generating the corpus failed: {e}")))?;
    bar.finish_and_clear();
    let _lock = match lock::acquire(home)? {
        Holder::Acquired(l) => l,
        Holder::Server(info) => {
            return Err(CliError::new(
                BUSY,
                format!(
                    "a server already runs on this home at {}; stop it first",
                    info.url
                ),
            ))
        }
        Holder::OtherWriter => {
            return Err(CliError::new(
                BUSY,
                "another lode process is writing to this home",
            ))
        }
    };
    let node = Node::open(home).map_err(super::node_error)?;
    let bar = crate::progress::bytes(size, "indexing");
    let mut events = 0;
    for (file, sourcetype, host) in [
        ("syslog.log", "syslog", "gen-syslog"),
        ("access.log", "access_combined", "gen-web"),
        ("app.json", "_json", "gen-app"),
        ("app_java.log", "log4j", "gen-app"),
    ] {
        let path = corpus.join(file);
        let mut f = std::fs::File::open(&path)
            .map_err(|e| CliError::new(FAILURE, format!("{}: {e}", path.display())))?;
        let meta = SourceMeta {
            host: host.into(),
            source: path.display().to_string(),
            sourcetype: sourcetype.into(),
            index: "main".into(),
        };
        let r = node
            .ingest(meta, &mut f, &mut |n| bar.inc(n))
            .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
        events += r.events;
    }
    node.close()
        .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
    bar.finish_and_clear();
    std::fs::remove_dir_all(&corpus).ok();
    eprintln!("lode demo: indexed {events} events into index main");
    Ok(())
}

/// The demo's data covers the last 7 days (the generator's default span), ending now.
fn start_of_week_ago() -> i64 {
    super::search::now_micros() / 1_000_000 - 7 * 86_400
}

fn show(home: &Home, query: &str) -> CliResult {
    let req = super::search::request(query);
    let mut printer = Printer::new(OutputFormat::Table, io::stdout().lock());
    let mut io_err = None;
    let st = run_search(&home.index_root(), &req, &mut |rows| {
        if let Err(e) = printer.rows(rows) {
            io_err = Some(e);
        }
        Ok(())
    })
    .map_err(|e| super::search::search_error(query, e))?;
    if let Some(e) = io_err {
        return Err(e.into());
    }
    printer.finish(st.transforming)?;
    Ok(())
}
