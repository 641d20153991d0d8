//! The syntax tree of a parsed SPL search.
//!
//! This is the contract between the parser (this crate) and the planner/executor (`lode-search`):
//! it holds what the user wrote, already checked for syntax, with defaults filled in, and nothing
//! the optimizer adds. [`crate::print`] renders it back to canonical SPL and
//! `parse(print(ast)) == ast` holds for every tree the parser produces.

/// Byte range in the search text, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// A whole search: commands joined by `|`. The first command is a [`Command::Search`] (explicit
/// or implicit) unless the search starts with `|` and a generating command.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    /// The commands in order.
    pub commands: Vec<Command>,
}

/// One command of the pipeline.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `search <expr>`; the leading command, or a filter later in the pipeline. `None` = no
    /// condition (matches everything), as in a bare `*` or an empty search.
    Search(Option<SearchExpr>),
    /// `where <expr>`: keep rows where the expression is true.
    Where(Expr),
    /// `format [mvsep=…] [maxresults=N] ["(" "(" "AND" ")" "OR" ")"] [emptystr=…]`: the results
    /// as one row whose `search` field is a boolean search string (what a subsearch expands to).
    Format(Format),
    /// `return [N] [alias=field…] [field…] [$field…]`: the first N rows as one row whose `search`
    /// field is `field="value"` pairs (or bare values for `$field`).
    Return(Return),
    /// `appendpipe [cmd | cmd…]`: passes the results on, then runs the sub-pipeline over them and
    /// appends its output.
    AppendPipe(Vec<Command>),
    /// `eval a=<expr>, b=<expr>`: assignments in order.
    Eval(Vec<(String, Expr)>),
    /// `fields [+|-] f1, f2*`: keep (remove = false) or drop the listed fields (wildcards allowed).
    Fields {
        /// `true` for `fields -`.
        remove: bool,
        /// Field names or wildcard patterns.
        fields: Vec<String>,
    },
    /// `table f1, f2*`: keep these fields, in this order.
    Table(Vec<String>),
    /// `rename a AS b, c* AS d*`.
    Rename(Vec<(String, String)>),
    /// `sort [limit] [+|-]field…`; `limit` defaults to 10000, `0` = unlimited.
    Sort {
        /// Most rows kept (`sort 0 …` = `Some(0)` = unlimited). `None` = default (10000).
        limit: Option<u64>,
        /// Sort keys in priority order.
        keys: Vec<SortKey>,
    },
    /// `head [N]` (default 10).
    Head(u64),
    /// `tail [N]` (default 10): the last N rows, in reverse order.
    Tail(u64),
    /// `dedup [N] f1 f2 [keepempty=t] [consecutive=t]`.
    Dedup {
        /// Keep this many rows per combination (default 1).
        count: u64,
        /// The fields whose value combination must be unique.
        fields: Vec<String>,
        /// Keep rows lacking one of the fields (default false: they are dropped).
        keepempty: bool,
        /// Only remove consecutive duplicates.
        consecutive: bool,
    },
    /// `rex [field=f] [max_match=N] "regex with (?<name>…) groups"`.
    Rex {
        /// Field to match against (default `_raw`).
        field: String,
        /// The regular expression as written (PCRE-style `(?<name>…)` groups allowed).
        pattern: String,
        /// Most matches kept per field (default 1; 0 = unlimited, multivalue).
        max_match: u64,
    },
    /// `stats <agg>… [by f1, f2]`.
    Stats(Stats),
    /// `timechart [span=…] <agg>… [by f] [limit=N] [useother=t]`.
    Timechart(Timechart),
    /// `top [limit=N] f1 [f2] [by g]` (`rare` = same with `rare: true`).
    Top(Top),
    /// `eventstats <agg>… [by f1, f2]`: like `stats`, but adds the results to every input row
    /// (of its group) instead of replacing the rows.
    EventStats(Stats),
    /// `streamstats [window=N] [current=t] [global=t] [reset_on_change=f] <agg>… [by f…]`.
    StreamStats(StreamStats),
    /// `accum f [AS g]`: running total of a numeric field.
    Accum {
        /// The summed field.
        field: String,
        /// Output field (`None`: overwrite `field`).
        alias: Option<String>,
    },
    /// `delta f [AS g] [p=N]`: difference to the value N rows earlier.
    Delta {
        /// The field.
        field: String,
        /// Output field (`None`: `delta(f)`).
        alias: Option<String>,
        /// How many rows back (default 1, at least 1).
        p: u64,
    },
    /// `regex [f=|f!=]"re"`: keep rows whose field (default `_raw`) matches (or, with `!=`,
    /// does not match) the regular expression.
    Regex {
        /// The matched field.
        field: String,
        /// `!=`: keep rows that do not match.
        negate: bool,
        /// The regular expression as written.
        pattern: String,
    },
    /// `reverse`: the rows in the opposite order.
    Reverse,
    /// `fillnull [value=v] [f1 f2…]`: sets missing/empty fields to `value` (default `0`); without
    /// a field list, every field present in some row.
    FillNull {
        /// The fill value (default `0`).
        value: String,
        /// The fields to fill (empty: all fields seen in the results).
        fields: Vec<String>,
    },
}

/// Arguments of `format` (defaults as in Splunk).
#[derive(Debug, Clone, PartialEq)]
pub struct Format {
    /// Joins the values of a multivalue field (default `OR`).
    pub mvsep: String,
    /// Most rows formatted (default 0 = all).
    pub maxresults: u64,
    /// Row prefix, column prefix, column separator, column end, row separator, row end (default
    /// `(` `(` `AND` `)` `OR` `)`).
    pub parts: [String; 6],
    /// The text when there are no rows (default `NOT ()`).
    pub emptystr: String,
}

impl Default for Format {
    fn default() -> Self {
        Format {
            mvsep: "OR".into(),
            maxresults: 0,
            parts: ["(", "(", "AND", ")", "OR", ")"].map(String::from),
            emptystr: "NOT ()".into(),
        }
    }
}

/// Arguments of `return`.
#[derive(Debug, Clone, PartialEq)]
pub struct Return {
    /// How many rows are used (default 1).
    pub count: u64,
    /// What each row contributes, in order.
    pub items: Vec<ReturnItem>,
}

/// One argument of `return`.
#[derive(Debug, Clone, PartialEq)]
pub enum ReturnItem {
    /// `field`: `field="value"`.
    Field(String),
    /// `alias=field`: `alias="value"`.
    Alias(String, String),
    /// `$field`: the value alone.
    Value(String),
}

/// Arguments of `stats`.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// The aggregations, in output column order.
    pub aggs: Vec<Agg>,
    /// Group-by fields (empty: one total row).
    pub by: Vec<String>,
}

/// Arguments of `streamstats`.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamStats {
    /// The aggregations and by-fields.
    pub stats: Stats,
    /// Only the last N rows count (default 0 = all rows so far).
    pub window: u64,
    /// Whether the current row is included in its own results (default true).
    pub current: bool,
    /// With `window` and `by`: one window over all rows (true, default) or one per group.
    pub global: bool,
    /// Whether all state is reset when the by-field values change from one row to the next
    /// (default false).
    pub reset_on_change: bool,
}

/// Arguments of `timechart`.
#[derive(Debug, Clone, PartialEq)]
pub struct Timechart {
    /// `span=` if given; otherwise the executor chooses from the time range and `bins`.
    pub span: Option<TimeSpan>,
    /// `bins=` (default 100).
    pub bins: u32,
    /// The aggregations (one, when `by` is used).
    pub aggs: Vec<Agg>,
    /// Split-by field.
    pub by: Option<String>,
    /// Most series kept with `by` (default 10; 0 = all).
    pub limit: u32,
    /// Whether the series beyond `limit` are summed into `OTHER` (default true).
    pub useother: bool,
    /// Whether rows whose split-by field is null form a `NULL` series (default true).
    pub usenull: bool,
}

/// Arguments of `top` and `rare`.
#[derive(Debug, Clone, PartialEq)]
pub struct Top {
    /// `rare` instead of `top`.
    pub rare: bool,
    /// The fields whose value combinations are counted.
    pub fields: Vec<String>,
    /// Group-by fields.
    pub by: Vec<String>,
    /// Most rows per group (default 10; 0 = all).
    pub limit: u64,
    /// Name of the count column (default `count`).
    pub countfield: String,
    /// Name of the percentage column (default `percent`).
    pub percentfield: String,
    /// Whether the count column is output (default true).
    pub showcount: bool,
    /// Whether the percentage column is output (default true).
    pub showperc: bool,
}

/// A time span such as `5m` or `1h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeSpan {
    /// How many units.
    pub count: u64,
    /// Which unit.
    pub unit: TimeUnit,
}

/// Units of [`TimeSpan`] (`s`, `m`, `h`, `d`, `w`, `mon`, `y` and their long spellings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds.
    Second,
    /// Minutes.
    Minute,
    /// Hours.
    Hour,
    /// Days.
    Day,
    /// Weeks.
    Week,
    /// Calendar months.
    Month,
    /// Calendar years.
    Year,
}

/// One aggregation: `fn(field) [AS alias]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Agg {
    /// Function name, lowercased and kept as written (`dc`, `distinct_count`, `avg`, `mean`,
    /// `p95`, …; only `c` becomes `count`), so the default column is named as the user wrote it.
    pub func: String,
    /// The field argument (`None` only for `count`).
    pub field: Option<String>,
    /// `AS` name; `None` means the default column name (`count`, `avg(bytes)`, …).
    pub alias: Option<String>,
    /// `func(eval(<expr>)) AS name`: the argument is an expression evaluated per row (then
    /// `field` is `None` and `alias` is set, as Splunk requires).
    pub eval: Option<Expr>,
}

impl Agg {
    /// The output column name: the alias, or `func(field)`, or `count`.
    pub fn column(&self) -> String {
        match (&self.alias, &self.field) {
            (Some(a), _) => a.clone(),
            (None, Some(f)) => format!("{}({})", self.func, f),
            (None, None) => self.func.clone(),
        }
    }
}

/// One key of `sort`.
#[derive(Debug, Clone, PartialEq)]
pub struct SortKey {
    /// The field.
    pub field: String,
    /// `-field`: descending.
    pub descending: bool,
    /// `num(f)`, `str(f)`, or automatic.
    pub mode: SortMode,
}

/// How `sort` compares values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortMode {
    /// Numbers numerically before strings lexicographically (Splunk's default).
    Auto,
    /// `num(f)`.
    Num,
    /// `str(f)`.
    Str,
}

/// The boolean condition of a `search` command.
#[derive(Debug, Clone, PartialEq)]
pub enum SearchExpr {
    /// All must hold (implicit AND between terms, or `AND`).
    And(Vec<SearchExpr>),
    /// At least one must hold.
    Or(Vec<SearchExpr>),
    /// `NOT x`.
    Not(Box<SearchExpr>),
    /// A bare word or quoted phrase matched against `_raw`.
    Term(Term),
    /// `field <op> value`, including `index=`, `sourcetype=`, `host=`, `source=`.
    Compare {
        /// Field name (case-sensitive).
        field: String,
        /// The comparison.
        op: CmpOp,
        /// The value as written (quotes removed), may contain `*` wildcards for `=` and `!=`.
        value: String,
        /// Whether the value was quoted.
        quoted: bool,
    },
    /// `earliest=<time>` or `latest=<time>` written inside the search (applies to the whole
    /// search's time range, not a per-event condition). The value is kept as written (`-24h@h`,
    /// `now`, `0`, epoch seconds, `%m/%d/%Y:%H:%M:%S`).
    TimeBound {
        /// Which end.
        bound: TimeBound,
        /// As written.
        value: String,
    },
}

/// The ends of a time range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeBound {
    /// `earliest=` (inclusive).
    Earliest,
    /// `latest=` (exclusive).
    Latest,
}

/// A search term.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    /// The text (quotes removed; `*` is a wildcard unless `quoted`).
    pub text: String,
    /// `"quoted phrase"`: all words, in order, as a phrase.
    pub quoted: bool,
    /// `TERM(x)`: `x` must be one whole indexed term (bounded by major breakers).
    pub whole: bool,
    /// `CASE(x)`: the term matches with its case as written (never together with `whole`).
    pub case: bool,
}

/// Comparison operators of the search clause and of `where`/`eval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `=` (also `==` in eval).
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// An `eval`/`where` expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `"string"` literal.
    Str(String),
    /// Number literal (integers are kept as written in `f64`; `exact` formatting is the
    /// executor's concern).
    Num(f64),
    /// `true()`/`false()` results are calls; this is for parser-produced constants only.
    Bool(bool),
    /// `null()` literal.
    Null,
    /// A field reference: bare name or `'quoted name'`.
    Field(String),
    /// Unary operator.
    Unary(UnaryOp, Box<Expr>),
    /// Binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Function call, name lowercased.
    Call(String, Vec<Expr>),
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `NOT x` / `!x`.
    Not,
    /// `-x`.
    Neg,
}

/// Binary operators, in eval precedence from loosest: `OR`, `XOR`, `AND`, comparisons, `+ - .`,
/// `* / %`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `OR`.
    Or,
    /// `XOR`.
    Xor,
    /// `AND`.
    And,
    /// A comparison.
    Cmp(CmpOp),
    /// `+` (numbers add; strings concatenate when both are strings).
    Add,
    /// `-`.
    Sub,
    /// `.` string concatenation.
    Concat,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
}
