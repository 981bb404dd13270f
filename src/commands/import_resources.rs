//! Scanning a host's project resource files for import lives in
//! [`crate::ops::import_resources`].
