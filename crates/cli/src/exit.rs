//! Exit codes, documented in `docs/CLI.md`, and the error type that carries one.

/// Success (also when the output pipe was closed by the reader, e.g. `lode search … | head`).
pub const OK: i32 = 0;
/// A runtime failure: I/O, a server that answered with an error, corrupt data.
pub const FAILURE: i32 = 1;
/// Bad command-line usage (clap also exits with 2).
pub const USAGE: i32 = 2;
/// The search text is not valid SPL.
pub const SPL_SYNTAX: i32 = 3;
/// A configuration file is malformed.
pub const CONFIG: i32 = 4;
/// `lode fsck` found problems.
pub const FSCK_PROBLEMS: i32 = 5;
/// The home is held by another writer that is not a server.
pub const BUSY: i32 = 6;

/// An error with the exit code it maps to.
#[derive(Debug)]
pub struct CliError {
    /// Exit code.
    pub code: i32,
    /// Message printed to stderr (already includes context).
    pub message: String,
}

impl CliError {
    pub fn new(code: i32, message: impl Into<String>) -> CliError {
        CliError {
            code,
            message: message.into(),
        }
    }

    /// Prints the message and returns the exit code.
    pub fn report(&self) -> i32 {
        if !self.message.is_empty() {
            eprintln!("lode: {}", self.message);
        }
        self.code
    }
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> CliError {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::BrokenPipe {
                return CliError::new(OK, "");
            }
        }
        CliError::new(FAILURE, format!("{e:#}"))
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> CliError {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return CliError::new(OK, "");
        }
        CliError::new(FAILURE, e.to_string())
    }
}

pub type CliResult<T = ()> = Result<T, CliError>;
