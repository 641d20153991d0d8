//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Lode: collect machine data, index it into time buckets, search it with SPL.
///
/// Everything lives under a home directory, like $SPLUNK_HOME: configuration in etc/
/// (etc/system/default shipped, etc/system/local yours) and index data in var/lib/lode/<index>/.
/// Commands that write work whether or not `lode serve` is running on that home: through the
/// server when one holds it, directly otherwise.
#[derive(Debug, Parser)]
#[command(name = "lode", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// Home directory (default: $LODE_HOME, else ~/.lode).
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Log debug details to stderr (or set LODE_LOG=trace).
    #[arg(long, short, global = true)]
    pub verbose: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add data: `lode add oneshot FILE|DIR|-…`.
    #[command(subcommand)]
    Add(AddCommand),
    /// Run an SPL search and print the results.
    Search(SearchArgs),
    /// Run the server: HTTP search and ingest API on the home's data.
    Serve(ServeArgs),
    /// Write a deterministic, realistic corpus of machine data to a directory.
    Gen(GenArgs),
    /// Generate a corpus, ingest it, run the standard searches and report speed and size.
    Bench(BenchArgs),
    /// Verify every file of every bucket; name what is wrong.
    Fsck(FsckArgs),
    /// Print a summary of one bucket's contents.
    Inspect(InspectArgs),
    /// Roll hot buckets to warm now.
    Roll(RollArgs),
    /// Quick start: generate and ingest a sample corpus, show example searches, start the server.
    Demo(DemoArgs),
    /// Manage HTTP Event Collector tokens (`lode hec create NAME`, `list`, `enable`, …).
    #[command(subcommand)]
    Hec(HecCommand),
}

/// `lode hec …`: tokens of the HTTP Event Collector, kept in
/// etc/apps/splunk_httpinput/local/inputs.conf (a running server picks changes up within a second).
#[derive(Debug, Subcommand)]
pub enum HecCommand {
    /// Create a token and print its value.
    Create(HecCreateArgs),
    /// List the tokens and the collector's settings.
    List,
    /// Delete a token.
    Delete(HecNameArgs),
    /// Enable a token.
    Enable(HecNameArgs),
    /// Disable a token (its requests get 403 "Token disabled").
    Disable(HecNameArgs),
}

#[derive(Debug, Args)]
pub struct HecNameArgs {
    /// The token's name.
    pub name: String,
}

#[derive(Debug, Args)]
pub struct HecCreateArgs {
    /// The token's name (`[http://NAME]`).
    pub name: String,
    /// Use this token value instead of a random GUID.
    #[arg(long)]
    pub token: Option<String>,
    /// Default index of events that name none.
    #[arg(long)]
    pub index: Option<String>,
    /// Indexes the token may write to, comma-separated (default: any).
    #[arg(long, value_delimiter = ',')]
    pub indexes: Vec<String>,
    /// Default sourcetype.
    #[arg(long)]
    pub sourcetype: Option<String>,
    /// Default source (else `http:NAME`).
    #[arg(long)]
    pub source: Option<String>,
    /// Default host (else the server's `hostname:port`).
    #[arg(long)]
    pub host: Option<String>,
    /// Turn on indexer acknowledgement (`useACK`).
    #[arg(long)]
    pub ack: bool,
    /// Accept the token as `?token=` in the URL.
    #[arg(long)]
    pub allow_query_string_auth: bool,
}

#[derive(Debug, Subcommand)]
pub enum AddCommand {
    /// Index files once (like `splunk add oneshot`). Directories are loaded recursively; `-`
    /// reads standard input.
    Oneshot(OneshotArgs),
}

#[derive(Debug, Args)]
pub struct OneshotArgs {
    /// Files, directories (recursively) or `-` for standard input.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Destination index.
    #[arg(long, default_value = "main")]
    pub index: String,
    /// Sourcetype (default: recognised from the file name and content).
    #[arg(long)]
    pub sourcetype: Option<String>,
    /// Host field (default: this machine's host name).
    #[arg(long)]
    pub host: Option<String>,
    /// Source field (default: the file's path; `stdin` for standard input).
    #[arg(long)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum OutputFormat {
    /// Aligned columns.
    Table,
    /// One JSON object per result row and line; values as strings, multivalue fields as arrays.
    Json,
    /// CSV with a header row.
    Csv,
    /// `_raw` of each event (or the row's fields as key=value for statistics).
    Raw,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The search, e.g. 'error host=web* | stats count by status'.
    pub query: String,
    /// Earliest time (inclusive): -24h@h, @d, now, epoch seconds, %m/%d/%Y:%H:%M:%S.
    #[arg(long, allow_hyphen_values = true)]
    pub earliest: Option<String>,
    /// Latest time (exclusive), same syntax as --earliest.
    #[arg(long, allow_hyphen_values = true)]
    pub latest: Option<String>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Show how each part of the search used the index (to stderr), then the results.
    #[arg(long)]
    pub explain: bool,
    /// Print search statistics (buckets, events scanned, time) to stderr.
    #[arg(long)]
    pub stats: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Listen address (default: server.conf [general] listen, shipped as 127.0.0.1:8089).
    #[arg(long)]
    pub listen: Option<String>,
    /// Listen address of the HTTP Event Collector (default: the API's host with the `[http]`
    /// port of etc/apps/splunk_httpinput/local/inputs.conf, 8088).
    #[arg(long)]
    pub hec_listen: Option<String>,
    /// Listen address of the web app (default: web.conf [settings] `server.socket_host` and
    /// `httpport`, 127.0.0.1:8000; `startwebserver = 0` turns it off).
    #[arg(long)]
    pub web_listen: Option<String>,
}

#[derive(Debug, Args)]
pub struct GenArgs {
    /// Output directory (created).
    #[arg(long)]
    pub out: PathBuf,
    /// Corpus size, e.g. 200MB, 1GB.
    #[arg(long, default_value = "100MB", value_parser = parse_size)]
    pub size: u64,
    /// Random seed: the same seed and size give the same bytes.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

/// Benchmark scenarios of `lode bench`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum BenchScenario {
    /// Ingest a generated corpus, then the rare/super-sparse/sparse/dense searches.
    Standard,
    /// Batch-mode searches (stats, timechart) over ≥ 8 buckets with 1 and N search pipelines.
    Batch,
    /// Ingest one corpus with 1, 2 and 4 pipeline sets (parallelIngestionPipelines).
    Pipelines,
    /// A local server; 8 clients send `<1-3 words> | head 10` searches for `--seconds`.
    Service,
    /// Ingest through a local server at full speed while 4 searches run continuously.
    Burst,
    /// HTTP Event Collector: 4 clients send the corpus in batches of 100, without and with acks.
    Hec,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Which benchmark to run.
    #[arg(long, value_enum, default_value_t = BenchScenario::Standard)]
    pub scenario: BenchScenario,
    /// Corpus size to generate and ingest.
    #[arg(long, default_value = "1GB", value_parser = parse_size)]
    pub size: u64,
    /// Runs per search (median and p95 are reported).
    #[arg(long, default_value_t = 7)]
    pub runs: usize,
    /// Random seed of the corpus.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Keep the bench home here instead of a temporary directory.
    #[arg(long)]
    pub keep: Option<PathBuf>,
    /// Standard scenario: search the home an earlier `--keep DIR` run left (its corpus summary
    /// is `DIR/bench-summary.json`) instead of generating and ingesting again.
    #[arg(long, requires = "keep")]
    pub reuse: bool,
    /// Standard scenario: run only the searches of these classes (`rare`, `super_sparse`,
    /// `sparse`, `dense`, `dense+extract`; comma-separated). Default: all.
    #[arg(long, value_delimiter = ',')]
    pub class: Vec<String>,
    /// Measured duration of the `service` scenario, seconds.
    #[arg(long, default_value_t = 20)]
    pub seconds: u64,
    /// Pipelines scenario: the pipeline-set counts to measure, in order (comma-separated);
    /// speed-ups are against the first.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub sets: Vec<u16>,
    /// Pipelines scenario: run N sets on N CPUs (at most the CPUs the process may use), so that
    /// going from 1 to 2 sets shows how ingestion scales with cores even where one set alone
    /// would already keep part of a second core busy.
    #[arg(long)]
    pub pin: bool,
    /// Pipelines scenario: measure every set count this many times, in rounds, and report each
    /// one's median run.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub rounds: u16,
}

#[derive(Debug, Args)]
pub struct FsckArgs {
    /// Only this index (default: all).
    #[arg(long)]
    pub index: Option<String>,
    /// Move corrupt buckets to the index's quarantine/ directory.
    #[arg(long)]
    pub quarantine: bool,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// A bucket directory (var/lib/lode/<index>/db_…).
    pub bucket: PathBuf,
}

#[derive(Debug, Args)]
pub struct RollArgs {
    /// Only this index (default: all).
    #[arg(long)]
    pub index: Option<String>,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Size of the sample corpus.
    #[arg(long, default_value = "200MB", value_parser = parse_size)]
    pub size: u64,
    /// Do not start the server at the end.
    #[arg(long)]
    pub no_serve: bool,
    /// Listen address of the server started at the end.
    #[arg(long)]
    pub listen: Option<String>,
}

/// Parses sizes such as `1GB`, `200MB`, `64KiB`, `1000` (bytes). Decimal and binary units.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("invalid size {s:?}: expected e.g. 200MB or 1GB"))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "kib" => 1024.0,
        "m" | "mb" => 1e6,
        "mib" => 1048576.0,
        "g" | "gb" => 1e9,
        "gib" => 1073741824.0,
        other => {
            return Err(format!(
                "invalid size unit {other:?} in {s:?}: use B, KB, MB, GB, KiB, MiB or GiB"
            ))
        }
    };
    let bytes = n * mult;
    if !(1.0..=1e13).contains(&bytes) {
        return Err(format!("size {s:?} out of range (1 byte to 10 TB)"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1GB").unwrap(), 1_000_000_000);
        assert_eq!(parse_size("200MB").unwrap(), 200_000_000);
        assert_eq!(parse_size("1.5 GiB").unwrap(), 1_610_612_736);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5PB").is_err());
        assert!(parse_size("0").is_err());
    }

    #[test]
    fn help_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
