//! The shell's errors as values, and the words bash uses for the system's.

/// An expansion error: printed by the caller, and the command fails with status 1.
#[derive(Debug)]
pub struct ExpandError(pub String);

/// An `io::Error` as bash words it (`No such file or directory`), without Rust's suffix.
pub fn error_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
