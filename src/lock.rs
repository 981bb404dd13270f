//! `dotpack.lock`: what it means (resolved packages) and its on-disk shape (deterministic TOML).
