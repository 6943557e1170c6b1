//! Backslash escapes.
