//! Numbered, forward-only migrations from `migrations/`, applied in one transaction with the
//! schema version kept in `PRAGMA user_version`. Since migration 16 every applied migration's
//! checksum is kept in `schema_migrations`, and a database whose applied migrations differ from
//! this build's texts is refused
//! ([`StoreError::MigrationChanged`](crate::StoreError::MigrationChanged)): a landed migration
//! is never edited (`LANDED` in `tests.rs` holds their checksums).
//!
//! Files, one responsibility each:
//! - `list.rs`: every migration this build knows ([`MIGRATIONS`]) and the version they end at.
//! - `apply.rs`: the pending migrations applied in one transaction, or none.
//! - `checksums.rs`: each migration's checksum, recorded once applied and checked on open.
//! - `tests.rs`: the migrations applied to fresh and older databases, and `LANDED`.

mod apply;
mod checksums;
mod list;
#[cfg(test)]
mod tests;

pub use apply::apply_migrations;
pub use list::{MIGRATIONS, latest_version};

/// One schema migration: its number (the `user_version` after it) and its SQL.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}
