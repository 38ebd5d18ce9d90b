//! Each migration's checksum: recorded in `schema_migrations` once applied (migration 16
//! onwards), and checked against this build's texts before anything more is applied.

use rusqlite::{Connection, OptionalExtension};

use super::Migration;
use crate::{Result, StoreError};

impl Migration {
    /// BLAKE3 of the migration's text, with line ends read as `\n` (a checkout that writes
    /// `\r\n` holds the same migration).
    pub fn checksum(&self) -> String {
        blake3::hash(self.sql.replace("\r\n", "\n").as_bytes()).to_hex().to_string()
    }
}

/// Whether the database keeps migration checksums (migration 16 has run).
fn keeps_checksums(conn: &Connection) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
            [],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Records the checksum of every applied migration not recorded yet: those just applied, and on
/// the first open with migration 16 those applied before it (taken as this build's texts).
pub(super) fn record_applied(conn: &Connection, migrations: &[Migration]) -> Result<()> {
    if !keeps_checksums(conn)? {
        return Ok(());
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    let now = factdesk_model::now_rfc3339();
    let mut insert = conn.prepare(
        "INSERT OR IGNORE INTO schema_migrations (version, name, checksum, applied_at) \
         VALUES (?1, ?2, ?3, ?4)",
    )?;
    for migration in migrations.iter().filter(|m| m.version <= version) {
        insert.execute(rusqlite::params![
            migration.version,
            migration.name,
            migration.checksum(),
            now
        ])?;
    }
    Ok(())
}

/// Refuses a database whose applied migrations were applied from other texts than this
/// build's.
pub(super) fn check_applied(
    conn: &Connection,
    migrations: &[Migration],
    display_path: &str,
) -> Result<()> {
    if !keeps_checksums(conn)? {
        return Ok(());
    }
    let mut rows =
        conn.prepare("SELECT version, checksum FROM schema_migrations ORDER BY version")?;
    let applied = rows
        .query_map([], |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    for (version, checksum) in applied {
        let Some(migration) = migrations.iter().find(|m| m.version == version) else { continue };
        if migration.checksum() != checksum {
            return Err(StoreError::MigrationChanged {
                path: display_path.to_owned(),
                version,
                name: migration.name,
            });
        }
    }
    Ok(())
}
