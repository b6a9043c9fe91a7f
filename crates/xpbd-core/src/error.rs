//! The one error type of the workspace's math and input layer.
//!
//! Every variant renders as a single line that names the file, field or element at fault, so the
//! command line can print it after `error:` and exit non-zero without a backtrace.

use std::fmt;
use std::path::PathBuf;

/// The message of a caught panic (`catch_unwind`'s payload, a panic hook's `payload()`): the text `panic!` was
/// given, if it was a string.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied())
}

/// Result alias used across `xpbd-core`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be opened, read or written.
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// A file was read but its content is malformed. `line` is 1-based when known.
    #[error("{}", Located { path, line: *line, msg })]
    Parse { path: PathBuf, line: Option<usize>, msg: String },
    /// Input that parsed but is physically or logically invalid (bad material, degenerate element, ...).
    #[error("{0}")]
    Invalid(String),
    /// A command-line flag that is malformed or out of range: the command exits with status 2, like
    /// clap's own usage errors.
    #[error("{0}")]
    Usage(String),
    /// A backend failed while stepping (for instance a device or driver error): the run stops there
    /// and records it.
    #[error("{backend} backend: {message}")]
    Backend { backend: &'static str, message: String },
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
    pub fn parse(path: impl Into<PathBuf>, line: Option<usize>, msg: impl Into<String>) -> Self {
        Error::Parse { path: path.into(), line, msg: msg.into() }
    }
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::Invalid(msg.into())
    }
    pub fn usage(msg: impl Into<String>) -> Self {
        Error::Usage(msg.into())
    }
    pub fn backend(backend: &'static str, message: impl Into<String>) -> Self {
        Error::Backend { backend, message: message.into() }
    }
}

/// Why a backend cannot run a model under a solver configuration: one line naming the setting or the
/// feature (`Backend::supports`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(pub String);

struct Located<'a> {
    path: &'a PathBuf,
    line: Option<usize>,
    msg: &'a str,
}

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.path.display(), l, self.msg),
            None => write!(f, "{}: {}", self.path.display(), self.msg),
        }
    }
}
