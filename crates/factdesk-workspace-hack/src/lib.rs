//! No code: this crate exists for the dependencies in its manifest (see its Cargo.toml).
