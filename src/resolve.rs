//! Resolution: pubgrub over the registry index, one version per package name.
