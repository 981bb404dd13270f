//! Golden tests over a corpus of realistic host files.
