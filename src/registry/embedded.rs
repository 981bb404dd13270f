//! The default registry, compiled into the binary from `registry-index/`.
