//! The one error type of the crate, by fault: a bad format string, an unknown zone, a bad time
//! modifier or a bad `TIME_PREFIX` regex. All are user-input faults and name the offending text.

/// Errors of `lode-time`. Each variant carries the text the user gave.
#[derive(Debug, thiserror::Error)]
pub enum TimeError {
    /// A strptime/strftime format string could not be compiled.
    #[error("bad time format {format:?}: {reason}")]
    BadFormat {
        /// The format as given.
        format: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A zone name or offset that is neither UTC/GMT, `±hh[:]mm` nor an IANA name.
    #[error("unknown time zone {0:?} (expected UTC, +hhmm, -hh:mm or an IANA name such as Europe/Paris)")]
    BadZone(String),
    /// A time modifier (`earliest=`/`latest=` value) that cannot be resolved.
    #[error("bad time modifier {text:?}: {reason}")]
    BadRelative {
        /// The modifier as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `TIME_PREFIX` that is not a valid regular expression.
    #[error("bad TIME_PREFIX regex {pattern:?}: {reason}")]
    BadPrefix {
        /// The regex as given.
        pattern: String,
        /// The regex compiler's message.
        reason: String,
    },
}

impl TimeError {
    pub(crate) fn relative(text: &str, reason: impl Into<String>) -> TimeError {
        TimeError::BadRelative {
            text: text.to_string(),
            reason: reason.into(),
        }
    }
}
