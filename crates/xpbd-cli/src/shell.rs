//! Command lines printed for the user to paste back into a POSIX shell (the resume commands of `run` and
//! `batch`).

/// The words as one shell command line, each quoted where it needs to be.
pub fn line<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    words.into_iter().map(|w| word(w.as_ref())).collect::<Vec<_>>().join(" ")
}

/// The name this program was started by (`xpbd` when the system gives none).
pub fn program() -> String {
    std::env::args_os().next().map_or_else(|| "xpbd".into(), |p| p.to_string_lossy().into_owned())
}

/// `s` as one POSIX shell word: as it is when it holds only characters a shell leaves alone, else in
/// single quotes.
fn word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
