//! The pending migrations applied in one transaction with foreign keys off, every reference
//! checked before it commits; a database too new, or whose applied migrations changed, is
//! refused untouched.

use rusqlite::{Connection, OptionalExtension};

use super::Migration;
use super::checksums::{check_applied, record_applied};
use super::list::latest_version;
use crate::{Result, StoreError};

/// Brings `conn` up to the last of `migrations`: all pending ones in one transaction, or none.
/// A database whose version is above the last known one is refused without being touched.
///
/// Foreign keys are off while migrations run, so a migration may rebuild a table that others
/// point at (SQLite's way to change a constraint) without cascading deletes; every reference
/// is checked before the transaction commits, and the setting is restored afterwards.
pub fn apply_migrations(
    conn: &mut Connection,
    migrations: &[Migration],
    display_path: &str,
) -> Result<()> {
    let keys: bool = conn.query_row("PRAGMA foreign_keys", [], |row| row.get(0))?;
    if keys {
        conn.execute_batch("PRAGMA foreign_keys = OFF")?;
    }
    let outcome = apply_pending(conn, migrations, display_path);
    if keys {
        conn.execute_batch("PRAGMA foreign_keys = ON")?;
    }
    outcome
}

fn apply_pending(
    conn: &mut Connection,
    migrations: &[Migration],
    display_path: &str,
) -> Result<()> {
    let supported = latest_version(migrations);
    let found: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if found > supported {
        return Err(StoreError::DatabaseTooNew { path: display_path.to_owned(), found, supported });
    }
    // What was applied must be what this build holds before anything more is applied.
    check_applied(conn, migrations, display_path)?;
    let pending: Vec<&Migration> = migrations.iter().filter(|m| m.version > found).collect();
    if pending.is_empty() {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    // Another process may have migrated between the read above and the lock.
    let found: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    for migration in pending.into_iter().filter(|m| m.version > found) {
        tx.execute_batch(migration.sql).map_err(|source| StoreError::Migration {
            version: migration.version,
            name: migration.name,
            source,
        })?;
        tx.pragma_update(None, "user_version", migration.version)?;
        tracing::info!(version = migration.version, name = migration.name, "applied migration");
    }
    let dangling: Option<String> = tx
        .query_row("SELECT \"table\" FROM pragma_foreign_key_check LIMIT 1", [], |row| row.get(0))
        .optional()?;
    if let Some(table) = dangling {
        return Err(StoreError::MigrationDangling { table });
    }
    record_applied(&tx, migrations)?;
    tx.commit()?;
    Ok(())
}
