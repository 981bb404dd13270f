//! `dotpack registry build`: turn a folder of package manifests into an append-only index.
