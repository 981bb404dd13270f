//! Deterministic package archives (`.tar.gz`): writing them byte-for-byte reproducibly, and
//! reading them safely into memory.
