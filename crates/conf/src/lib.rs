//! Splunk-style `.conf` files: stanzas, keys, layering of default and local.
//!
//! Given the text of a `.conf` file, [`ConfFile::parse`] returns its stanzas and keys in file
//! order, each key remembering the file and line it came from so that callers can print
//! `path:line: message` diagnostics. [`Conf::load_layered`] reads `etc/system/default/<file>` and
//! then `etc/system/local/<file>`; local values win key by key, as in Splunk.
//!
//! Syntax accepted (a subset of Splunk's, the one its own files use):
//! * `[stanza name]` headers; keys before any header belong to `[default]`;
//! * `key = value` lines (whitespace around key and value is trimmed, the value may be empty);
//! * lines whose first non-blank character is `#` are comments; blank lines are ignored;
//! * a line ending with `\` continues on the next line (the backslash is replaced by a newline).
//!
//! Anything else (a line without `=`, an empty key, an unterminated header) is a
//! [`ConfError::Syntax`] naming the file and line.

mod error;
mod file;
mod layer;

pub use error::{ConfError, Warning};
pub use file::{ConfFile, Entry, Stanza};
pub use layer::Conf;

/// Name of the stanza that receives keys written before any `[stanza]` header.
pub const DEFAULT_STANZA: &str = "default";

/// Splunk booleans: true/false, t/f, yes/no, y/n, 1/0, case-insensitive, surrounding blanks
/// ignored; `None` for anything else.
pub fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "t" | "yes" | "y" | "1" => Some(true),
        "false" | "f" | "no" | "n" | "0" => Some(false),
        _ => None,
    }
}
