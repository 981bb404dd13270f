//! The concept table: every field a canonical server may carry, which hosts can express it and
//! under what name, whether dropping it loses meaning, and whether it matters for security.
//! One table, read by validation, translation and lossy checks alike.
