//! The project: finding `dotpack.toml`, and editing it in place (comments and order kept).
