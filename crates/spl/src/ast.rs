//! The syntax tree of a parsed SPL search.
//!
//! This is the contract between the parser (this crate) and the planner/executor (`lode-search`):
//! it holds what the user wrote, already checked for syntax, with defaults filled in, and nothing
//! the optimizer adds. [`crate::print`] renders it back to canonical SPL and
//! `parse(print(ast)) == ast` holds for every tree the parser produces.

pub mod data;
pub mod join;

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
    /// A data command: generating (`makeresults`, `gentimes`, `inputlookup`, `tstats`,
    /// `metadata`) or lookup (`lookup`, `outputlookup`); see [`data::DataCommand`].
    Data(data::DataCommand),
    /// `where <expr>`: keep rows where the expression is true.
    Where(Expr),
    /// `append [options] [subsearch]`: the subsearch's rows after the results.
    Append(join::Append),
    /// `appendcols [override=f] [options] [subsearch]`: row i of the subsearch merged into row i.
    AppendCols(join::Append),
    /// `union [options] <dataset>…`: the datasets' rows after the results.
    Union(join::Union),
    /// `join [type=…] [max=N] [overwrite=t] [fields] [subsearch]`.
    Join(join::Join),
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
        /// `sortby -x +y`: the kept rows are then sorted by these keys (empty: input order).
        sortby: Vec<SortKey>,
    },
    /// `rex [field=f] [max_match=N] [offset_field=o] "regex with (?<name>…) groups"`, or
    /// `rex [field=f] mode=sed "s/regex/replacement/flags"` (or `"y/abc/xyz/"`).
    Rex {
        /// Field to match against (default `_raw`).
        field: String,
        /// The regular expression as written (PCRE-style `(?<name>…)` groups allowed), or the
        /// sed expression with `sed`.
        pattern: String,
        /// Most matches kept per field (default 1; 0 = unlimited, multivalue).
        max_match: u64,
        /// `mode=sed`: `pattern` is a sed expression that rewrites the field.
        sed: bool,
        /// `offset_field=`: a field that receives `group=start-end` (character offsets, end
        /// inclusive) of every group that matched, joined by `&`.
        offset_field: Option<String>,
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
    /// `bin`/`bucket [span=…] [bins=N] [minspan=…] [start=n] [end=n] [aligntime=t] f [AS g]`:
    /// puts a numeric or time field into buckets.
    Bin(Bin),
    /// `chart <agg>… [over x [span=…]] [by y] [limit=N] [useother=t] [otherstr=s] [usenull=t]
    /// [nullstr=s]` (`by x y` = `over x by y`).
    Chart(Chart),
    /// `makemv [delim=s|tokenizer=re] [allowempty=f] [setsv=f] f`: splits a field into values.
    MakeMv {
        /// The field.
        field: String,
        /// Separator (default one space).
        delim: String,
        /// Regular expression whose matches (first group, if any) are the values.
        tokenizer: Option<String>,
        /// Keep empty values (default false).
        allowempty: bool,
        /// Keep the single-value text as well (default false).
        setsv: bool,
    },
    /// `mvexpand f [limit=N]`: one row per value of a multivalue field.
    MvExpand {
        /// The field.
        field: String,
        /// Most values expanded per row (`None` = all).
        limit: Option<u64>,
    },
    /// `mvcombine [delim=s] f`: rows equal except for `f` become one row with `f` multivalue.
    MvCombine {
        /// The field.
        field: String,
        /// Separator of the single-value form (default one space).
        delim: String,
    },
    /// `nomv f`: a multivalue field becomes one value (values joined by newlines).
    NoMv(String),
    /// `filldown [f…]`: missing values take the field's last value in an earlier row (no list:
    /// every field).
    FillDown(Vec<String>),
    /// `autoregress f [AS g] [p=N|p=a-b]`: copies of earlier rows' values.
    AutoRegress {
        /// The field.
        field: String,
        /// Output name (only with a single `p`); default `f_pN`.
        alias: Option<String>,
        /// First offset (default 1).
        from: u64,
        /// Last offset (default = `from`).
        to: u64,
    },
    /// `addtotals [row=t] [col=f] [labelfield=f] [label=s] [fieldname=s] [f…]`.
    AddTotals(AddTotals),
    /// `addcoltotals [labelfield=f] [label=s] [f…]`: appends a row of column sums.
    AddColTotals {
        /// Field that gets `label` in the totals row.
        labelfield: Option<String>,
        /// The label (default `Total`).
        label: String,
        /// Summed fields (wildcards; empty: every numeric field).
        fields: Vec<String>,
    },
    /// `uniq`: drops rows identical to the row before.
    Uniq,
    /// `replace a WITH b[, c WITH d] [IN f…]` (wildcards).
    Replace {
        /// `(pattern, replacement)` pairs, tried in order.
        pairs: Vec<(String, String)>,
        /// Fields to change (wildcards; empty: every field).
        fields: Vec<String>,
    },
    /// `convert [timeformat=s] fn(f) [AS g]…`.
    Convert {
        /// `timeformat=` for ctime/mktime (default `%m/%d/%Y %H:%M:%S`).
        timeformat: String,
        /// The conversions in order.
        items: Vec<Conversion>,
    },
    /// `transaction [f…] [maxspan=…] [maxpause=…] [maxevents=N] [startswith=…] [endswith=…]
    /// [keepevicted=f] [mvlist=f] [delim=s]`: groups events into transactions.
    Transaction(Transaction),
    /// `spath [input=f] [output=o] [path=]p`: one JSON path into a field, or (no path) every
    /// JSON path of the input as fields.
    Spath {
        /// The field holding JSON (default `_raw`).
        input: String,
        /// The output field (default: the path).
        output: Option<String>,
        /// The path (`a.b{0}.c`, `a{}`); `None` extracts everything.
        path: Option<String>,
    },
    /// `extract`/`kv [pairdelim=s] [kvdelim=s]`: `key=value` extraction from `_raw`.
    Extract {
        /// Characters separating pairs (with `kvdelim`: custom delimiters).
        pairdelim: Option<String>,
        /// Characters separating a key from its value.
        kvdelim: Option<String>,
    },
    /// `xmlkv`: `<key>value</key>` pairs of `_raw` as fields.
    XmlKv,
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
    /// `dedup_splitvals=t`: a multivalue `by` field counts each distinct value once per row
    /// (default false: a value repeated in a row counts as often as it occurs).
    pub dedup_splitvals: bool,
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
    /// `time_window=`: only rows whose `_time` is within this span of the current row's count.
    pub time_window: Option<TimeSpan>,
    /// `reset_before="(<eval>)"`: all state is dropped before a row for which it is true.
    pub reset_before: Option<Expr>,
    /// `reset_after="(<eval>)"`: all state is dropped after a row (with its results) for which it
    /// is true.
    pub reset_after: Option<Expr>,
    /// `allnum=t`: numeric aggregations of a field give nothing once one of its values in the
    /// group was not a number (default false).
    pub allnum: bool,
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
    /// `cont=`: whether every time bucket of the range is shown, empty ones too (default true;
    /// false shows only buckets that hold events).
    pub cont: bool,
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
    /// `useother=t`: one more row per group for the combinations beyond `limit` (default false).
    pub useother: bool,
    /// The field value of that row (default `OTHER`).
    pub otherstr: String,
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

/// Arguments of `bin`/`bucket`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bin {
    /// The field.
    pub field: String,
    /// `AS` name (default: overwrite the field).
    pub alias: Option<String>,
    /// `span=` bucket width.
    pub span: Option<BinSpan>,
    /// `bins=` most buckets (used when no span; default 100).
    pub bins: Option<u64>,
    /// `minspan=` smallest automatic span.
    pub minspan: Option<BinSpan>,
    /// `start=` lowest value of the range the automatic span covers.
    pub start: Option<f64>,
    /// `end=` highest value of the range the automatic span covers.
    pub end: Option<f64>,
    /// `aligntime=` (time spans): epoch seconds, `earliest` or `latest`, as written.
    pub aligntime: Option<String>,
}

/// A `bin` span: a number, a time span, or a log span.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BinSpan {
    /// `span=10`, `span=0.5` (positive, finite).
    Num(f64),
    /// `span=5m`.
    Time(TimeSpan),
    /// `span=[coef]log[base]`: buckets `[coef*base^k, coef*base^(k+1))` (default 1 and 10).
    Log {
        /// The coefficient (at least 1, below `base`).
        coef: f64,
        /// The base (above 1).
        base: f64,
    },
}

/// Arguments of `chart`.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The aggregations.
    pub aggs: Vec<Agg>,
    /// Row-split field.
    pub over: Option<String>,
    /// `span=` applied to the row-split field.
    pub span: Option<BinSpan>,
    /// Column-split field.
    pub by: Option<String>,
    /// Most column series kept (default 10; 0 = all).
    pub limit: u64,
    /// Whether dropped series are summed into `otherstr` (default true).
    pub useother: bool,
    /// Name of the other series (default `OTHER`).
    pub otherstr: String,
    /// Whether rows with a null column-split field form a `nullstr` series (default true).
    pub usenull: bool,
    /// Name of the null series (default `NULL`).
    pub nullstr: String,
    /// `limit=bottomN`: keep the series with the smallest totals (default false: `topN`, `N`).
    pub bottom: bool,
}

/// Arguments of `addtotals`.
#[derive(Debug, Clone, PartialEq)]
pub struct AddTotals {
    /// Add a per-row total (default true).
    pub row: bool,
    /// Append a totals row (default false).
    pub col: bool,
    /// Field of the totals row that gets `label`.
    pub labelfield: Option<String>,
    /// The totals row's label (default `Total`).
    pub label: String,
    /// Name of the row-total field (default `Total`).
    pub fieldname: String,
    /// Summed fields (wildcards; empty: every numeric field).
    pub fields: Vec<String>,
}

/// One conversion of `convert`: `func(field) [AS alias]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// `auto`, `ctime`, `dur2sec`, `memk`, `mktime`, `mstime`, `none`, `num`, `rmcomma`,
    /// `rmunit` (lowercase).
    pub func: String,
    /// The field (wildcards allowed).
    pub field: String,
    /// `AS` name.
    pub alias: Option<String>,
}

/// Arguments of `transaction`.
#[derive(Debug, Clone, PartialEq)]
pub struct Transaction {
    /// Events of one transaction share these fields' values (empty: one stream).
    pub fields: Vec<String>,
    /// Most seconds from first to last event (`None`: no limit).
    pub maxspan: Option<u64>,
    /// Most seconds between consecutive events (`None`: no limit).
    pub maxpause: Option<u64>,
    /// Most events per transaction (default 1000).
    pub maxevents: u64,
    /// An event matching this starts a transaction.
    pub startswith: Option<TxnFilter>,
    /// An event matching this ends a transaction.
    pub endswith: Option<TxnFilter>,
    /// Also output incomplete transactions, with `closed_txn=0` (default false).
    pub keepevicted: bool,
    /// Keep every value of merged fields in event order (default false: distinct, sorted).
    pub mvlist: bool,
    /// Separator of merged values (default one space).
    pub delim: String,
}

/// A `startswith`/`endswith` condition.
#[derive(Debug, Clone, PartialEq)]
pub enum TxnFilter {
    /// `startswith="search terms"`.
    Search(SearchExpr),
    /// `startswith=eval(expr)`.
    Eval(Expr),
}
