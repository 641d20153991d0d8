//! Syntax of the commands that combine the results with those of a nested search: `append`,
//! `appendcols`, `union` and `join`.
//!
//! A subsearch is kept as the text written between its brackets: it runs as a search of its own
//! (macros, nested subsearches, generating commands and index access rules included), so the
//! executor hands that text to the search runner. The parser still checks its syntax when it can
//! (no nested `[ … ]`), so errors point at the place in the outer search.

/// The text of a `[ … ]` subsearch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subsearch {
    /// What stands between the brackets, without the surrounding white space.
    pub text: String,
}

/// The subsearch options `maxtime=`, `maxout=`, `timeout=` and `extendtimerange=`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubOptions {
    /// `maxtime=` seconds before the subsearch is finalized with the rows it has (default 60).
    pub maxtime: Option<u64>,
    /// `maxout=` most rows kept from the subsearch (default 50000).
    pub maxout: Option<u64>,
    /// `timeout=` seconds (accepted; Lode finalizes at `maxtime`).
    pub timeout: Option<u64>,
    /// `extendtimerange=` (accepted; the subsearch runs over the outer time range).
    pub extendtimerange: Option<bool>,
}

/// `append [options] [subsearch]` and `appendcols [override=f] [options] [subsearch]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Append {
    /// Subsearch options.
    pub options: SubOptions,
    /// `appendcols` only: `override=t` lets subsearch values replace the row's own.
    pub override_: bool,
    /// The nested search.
    pub sub: Subsearch,
}

/// One input of `union`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dataset {
    /// `[ … ]`.
    Subsearch(Subsearch),
    /// `index=<name>` (read as the subsearch `search index=<name>`).
    Index(String),
}

/// `union [options] <dataset> <dataset>…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Union {
    /// Subsearch options (applied to every dataset).
    pub options: SubOptions,
    /// The datasets in order.
    pub datasets: Vec<Dataset>,
}

/// `join` type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JoinType {
    /// Only rows with a match (the default).
    #[default]
    Inner,
    /// Every row; matched ones get the subsearch's fields (`type=outer` is the same).
    Left,
    /// `type=outer`, written back as such.
    Outer,
}

/// `join [type=inner|left|outer] [max=1] [overwrite=t] [f1, f2…] [subsearch]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Join {
    /// `type=`.
    pub kind: JoinType,
    /// `max=`: most subsearch rows joined to one row (default 1; 0 = all).
    pub max: u64,
    /// `overwrite=`: subsearch values replace the row's own (default true).
    pub overwrite: bool,
    /// The join fields; empty = every field the two result sets have in common.
    pub fields: Vec<String>,
    /// The nested search.
    pub sub: Subsearch,
}
