//! Syntax of the data commands: generating commands (`makeresults`, `gentimes`, `inputlookup`,
//! `tstats`, `metadata`) and the lookup commands (`lookup`, `outputlookup`).

use std::path::PathBuf;

use super::{Agg, SearchExpr, TimeSpan, TimeUnit};

/// One data command (see [`super::Command::Data`]).
#[derive(Debug, Clone, PartialEq)]
pub enum DataCommand {
    /// `makeresults [count=1] [annotate=f]`: `count` rows holding `_time` = search start.
    MakeResults {
        /// How many rows (default 1).
        count: u64,
        /// Add Splunk's annotation fields (`splunk_server`, …).
        annotate: bool,
        /// `format=csv|json data="…"`: rows from inline data instead of `count` empty rows.
        data: Option<InlineData>,
    },
    /// `gentimes start=<time> [end=<time>] [increment=<n>(s|m|h|d)]`.
    GenTimes(GenTimes),
    /// `lookup <table> f [AS g] … [OUTPUT|OUTPUTNEW a [AS b] …]`.
    Lookup(Lookup),
    /// `inputlookup [append=t] [start=N] [max=N] <table> [where <expr>]`.
    InputLookup(InputLookup),
    /// `outputlookup [append=t] [create_empty=t] [override_if_empty=t] <table>`.
    OutputLookup(OutputLookup),
    /// `tstats <agg>… [where <clause>] [by f… [span=…]]`.
    Tstats(Tstats),
    /// `metadata type=hosts|sources|sourcetypes [index=…]…`.
    Metadata {
        /// Which field's values are listed.
        kind: MetadataType,
        /// `index=` patterns as written (empty: the default index).
        indexes: Vec<String>,
    },
    /// `fieldsummary [maxvals=N] [f1 f2*…]`: one row of statistics per field.
    FieldSummary {
        /// Most values listed per field (default 100; 0 = all).
        maxvals: u64,
        /// Fields (wildcards allowed); empty: every field.
        fields: Vec<String>,
    },
    /// `inputcsv [append=t] [start=N] [max=N] <file> [where <clause>]`: like `inputlookup`, from
    /// `$LODE_HOME/var/run/lode/csv/`.
    InputCsv(InputLookup),
    /// `outputcsv [append=t] [create_empty=t] [override_if_empty=t] <file>`: like
    /// `outputlookup`, into `$LODE_HOME/var/run/lode/csv/`.
    OutputCsv(OutputLookup),
    /// `collect index=<name> [sourcetype=stash] [source=] [host=] [marker=] [testmode=t]`.
    Collect(Collect),
}

/// Arguments of `collect`.
#[derive(Debug, Clone, PartialEq)]
pub struct Collect {
    /// The (existing) index written to.
    pub index: String,
    /// `sourcetype=` (default `stash`).
    pub sourcetype: String,
    /// `source=` (default `collect`).
    pub source: Option<String>,
    /// `host=` (default `lode`).
    pub host: Option<String>,
    /// `marker=`: `key=value` text appended to every event.
    pub marker: Option<String>,
    /// `testmode=t`: write nothing; the results show the `_raw` that would be written.
    pub testmode: bool,
}

impl DataCommand {
    /// Whether this command produces rows of its own and must start the search.
    pub fn is_generating(&self) -> bool {
        match self {
            DataCommand::InputLookup(i) | DataCommand::InputCsv(i) => !i.append,
            DataCommand::Lookup(_)
            | DataCommand::OutputLookup(_)
            | DataCommand::OutputCsv(_)
            | DataCommand::Collect(_)
            | DataCommand::FieldSummary { .. } => false,
            _ => true,
        }
    }

    /// The command's name as written in SPL.
    pub fn name(&self) -> &'static str {
        match self {
            DataCommand::MakeResults { .. } => "makeresults",
            DataCommand::GenTimes(_) => "gentimes",
            DataCommand::Lookup(_) => "lookup",
            DataCommand::InputLookup(_) => "inputlookup",
            DataCommand::OutputLookup(_) => "outputlookup",
            DataCommand::Tstats(_) => "tstats",
            DataCommand::Metadata { .. } => "metadata",
            DataCommand::FieldSummary { .. } => "fieldsummary",
            DataCommand::InputCsv(_) => "inputcsv",
            DataCommand::OutputCsv(_) => "outputcsv",
            DataCommand::Collect(_) => "collect",
        }
    }
}

/// Arguments of `gentimes`.
#[derive(Debug, Clone, PartialEq)]
pub struct GenTimes {
    /// `start=`: `MM/DD/YYYY[:HH:MM:SS]` or a whole number of days relative to today.
    pub start: String,
    /// `end=` (same forms); `None`: midnight before the search start.
    pub end: Option<String>,
    /// `increment=` (default `1d`); only seconds, minutes, hours and days.
    pub increment: TimeSpan,
}

impl GenTimes {
    /// The default increment, one day.
    pub const DEFAULT_INCREMENT: TimeSpan = TimeSpan {
        count: 1,
        unit: TimeUnit::Day,
    };
}

/// Arguments of `lookup`.
#[derive(Debug, Clone, PartialEq)]
pub struct Lookup {
    /// Lookup definition name (`transforms.conf`) or a `.csv` file name.
    pub table: String,
    /// Match fields: (lookup column, event field).
    pub inputs: Vec<(String, String)>,
    /// Output fields: (lookup column, event field); empty: every other column, same name.
    pub outputs: Vec<(String, String)>,
    /// `OUTPUTNEW`: only fill fields the row lacks (and leave rows whose outputs all exist).
    pub output_new: bool,
    /// `$LODE_HOME/etc` the table is resolved under: never written in SPL (the parser leaves it
    /// `None`, the printer ignores it); `lode-search` fills it from its run options before
    /// building the operators, which read the table then.
    pub etc_dir: Option<PathBuf>,
}

/// Arguments of `inputlookup`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputLookup {
    /// Lookup definition name or `.csv` file name.
    pub table: String,
    /// `append=t`: add the rows after the incoming results (then it need not start the search).
    pub append: bool,
    /// `start=`: first row (0-based) read.
    pub start: u64,
    /// `max=`: most rows read (default 1000000000).
    pub max: u64,
    /// `where <search clause>`: keep rows matching it (comparisons, wildcards, AND/OR/NOT).
    pub filter: Option<SearchExpr>,
    /// `$LODE_HOME/etc` the table is resolved under: never written in SPL (the parser leaves it
    /// `None`, the printer ignores it); `lode-search` fills it from its run options before
    /// building the operators, which read the table then.
    pub etc_dir: Option<PathBuf>,
}

impl InputLookup {
    /// Splunk's default `max=`.
    pub const DEFAULT_MAX: u64 = 1_000_000_000;
}

/// Arguments of `outputlookup`.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputLookup {
    /// Lookup definition name or `.csv` file name.
    pub table: String,
    /// `append=t`: add rows to the existing file instead of replacing it.
    pub append: bool,
    /// `create_empty=` (default true): write a file even when there are no results.
    pub create_empty: bool,
    /// `override_if_empty=` (default true): replace an existing file with an empty result.
    pub override_if_empty: bool,
    /// `$LODE_HOME/etc` the table is resolved under: never written in SPL (the parser leaves it
    /// `None`, the printer ignores it); `lode-search` fills it from its run options before
    /// building the operators, which read the table then.
    pub etc_dir: Option<PathBuf>,
}

/// Arguments of `tstats`.
#[derive(Debug, Clone, PartialEq)]
pub struct Tstats {
    /// The aggregations (`count`, `sum(f)`, …).
    pub aggs: Vec<Agg>,
    /// `where <search clause>` over indexed fields.
    pub filter: Option<SearchExpr>,
    /// Group-by fields.
    pub by: Vec<String>,
    /// `span=` for `_time` in `by`.
    pub span: Option<TimeSpan>,
}

/// `metadata type=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataType {
    /// `type=hosts`.
    Hosts,
    /// `type=sources`.
    Sources,
    /// `type=sourcetypes`.
    Sourcetypes,
}

impl MetadataType {
    /// The `type=` value.
    pub fn as_str(self) -> &'static str {
        match self {
            MetadataType::Hosts => "hosts",
            MetadataType::Sources => "sources",
            MetadataType::Sourcetypes => "sourcetypes",
        }
    }

    /// The field whose values are listed (`host`, `source`, `sourcetype`).
    pub fn field(self) -> &'static str {
        match self {
            MetadataType::Hosts => "host",
            MetadataType::Sources => "source",
            MetadataType::Sourcetypes => "sourcetype",
        }
    }
}

/// `makeresults format=… data=…`: inline rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineData {
    /// `format=json` (a JSON array of objects, or one object); otherwise CSV with a header line.
    pub json: bool,
    /// The `data=` text.
    pub text: String,
}
