//! The Factdesk store: one SQLite database (rusqlite, bundled SQLite) holding corpora,
//! documents, sentences, claim collections, claims, runs, model calls, fetched pages, checks
//! and reviews. This is the only crate that contains SQL. It owns the migrations in `migrations/` and applies them on open; SQLite is
//! the source of truth from which the search index is derived.
//!
//! Each table has its own module with an `impl Store` block of typed reads and writes; a
//! write that must be all-or-nothing runs inside one transaction here, never in a caller.

mod checks;
mod claims;
mod corpora;
mod documents;
mod fetches;
mod leases;
mod migration;
mod model_calls;
mod passages;
mod runs;
mod summaries;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

pub use checks::CheckFilter;
pub use claims::{ClaimFilter, ClaimInsertOutcome};
pub use documents::{DocumentFilter, DocumentInsertOutcome, IndexableSentence, NewDocument};
pub use fetches::{FetchOutcome, NewFetch, NewPage};
pub use leases::LeaseHolder;
pub use migration::{MIGRATIONS, Migration, apply_migrations, latest_version};
pub use model_calls::{ModelCallRow, NewModelCall};
pub use passages::PassageInsertOutcome;
pub use summaries::{SummaryLabelRow, SummaryRow};

/// Errors of the store. Messages name the database and say what to do.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error(
        "the database {path} has schema version {found}, newer than this Factdesk understands \
         (up to {supported}); upgrade Factdesk, or point --data-dir at another folder"
    )]
    DatabaseTooNew { path: String, found: i64, supported: i64 },
    #[error("migration {version:04} ({name}) failed, nothing was changed: {source}")]
    Migration {
        version: i64,
        name: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    #[error(
        "upgrading the database would leave rows of {table} pointing at nothing; nothing was \
         changed (please report this, with the database if you can share it)"
    )]
    MigrationDangling { table: String },
    #[error(
        "the database {path} was upgraded by migration {version:04} ({name}) as another build \
         of Factdesk wrote it, not as this one does; nothing was changed. Open it with the \
         Factdesk that last opened it, or point --data-dir at another folder (for developers: \
         restore migrations/{version:04}_{name}.sql; a landed migration never changes, a change \
         is a new migration)"
    )]
    MigrationChanged { path: String, version: i64, name: &'static str },
    #[error("cannot open the database {path}: {source}")]
    Open {
        path: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{what} not found")]
    NotFound { what: String },
    /// Another process running the same run stored this subject's outcome first.
    #[error("run {run} already holds an outcome for {subject}")]
    AlreadyDone { run: i64, subject: factdesk_model::SubjectId },
    #[error("invalid value stored in {column}: {message}")]
    Corrupt { column: &'static str, message: String },
    /// A method returned a result that cannot be stored as it is (a bug in the method).
    #[error("refusing to store the outcome for \"{subject}\" by {method}: {message}")]
    InconsistentOutcome { subject: String, method: String, message: String },
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// An open Factdesk database.
pub struct Store {
    conn: Connection,
    path: Option<PathBuf>,
    /// The documents per corpus and language as last counted (see [`Store::main_language`]).
    language_counts: std::cell::RefCell<corpora::LanguageCounts>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish_non_exhaustive()
    }
}

/// The page size of a new database. Documents are stored whole (the bytes as read and the
/// text), a few KiB to a few hundred: with SQLite's default 4 KiB pages nearly every document
/// spills over a chain of overflow pages, and an import writes each page twice (to the WAL,
/// then to the database) one system call at a time. With 64 KiB pages a news article lies in
/// one page; measured on HaluEval's news articles (`factdesk-bench import-search`, 5 runs each,
/// alternating, this 2-core machine), the import's median went from 20.6 to 25.0 MB/s, while
/// search latency stayed within the noise between runs.
const PAGE_BYTES: i64 = 65536;

/// WAL bytes after which SQLite copies the log into the database (its default is 1000 pages:
/// 4 MB of 4 KiB pages, 64 MB of 64 KiB ones).
const WAL_CHECKPOINT_BYTES: i64 = 16 << 20;

impl Store {
    /// Opens (creating if needed) the database at `path`, sets WAL, foreign keys and a busy
    /// timeout, and brings the schema up to date in one transaction. A database written by a
    /// newer Factdesk is refused untouched.
    pub fn open(path: &Path) -> Result<Store> {
        let conn = Connection::open(path)
            .map_err(|source| StoreError::Open { path: path.display().to_string(), source })?;
        Self::prepare(conn, Some(path.to_path_buf()))
    }

    /// An in-memory database with the full schema, for tests and throw-away work.
    pub fn open_in_memory() -> Result<Store> {
        Self::prepare(Connection::open_in_memory()?, None)
    }

    fn prepare(mut conn: Connection, path: Option<PathBuf>) -> Result<Store> {
        conn.busy_timeout(Duration::from_secs(10))?;
        // Only a database not yet written takes this; an existing one keeps its page size.
        conn.execute_batch(&format!("PRAGMA page_size = {PAGE_BYTES};"))?;
        // journal_mode answers with a row, so it is queried rather than executed.
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        let page_bytes: i64 = conn.query_row("PRAGMA page_size", [], |row| row.get(0))?;
        conn.execute_batch(&format!(
            "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;
             PRAGMA wal_autocheckpoint = {};",
            // SQLite's pages are 512 bytes to 64 KiB.
            WAL_CHECKPOINT_BYTES / page_bytes
        ))?;
        let display = path.as_ref().map_or(":memory:".to_owned(), |p| p.display().to_string());
        apply_migrations(&mut conn, MIGRATIONS, &display)?;
        Ok(Store { conn, path, language_counts: Default::default() })
    }

    /// The database file, or `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self.conn.query_row("PRAGMA user_version", [], |row| row.get(0))?)
    }
}

fn parse_column<T: std::str::FromStr>(column: &'static str, value: &str) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    value
        .parse()
        .map_err(|error: T::Err| StoreError::Corrupt { column, message: error.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pragma(store: &Store, name: &str) -> i64 {
        store.conn.query_row(&format!("PRAGMA {name}"), [], |row| row.get(0)).unwrap()
    }

    #[test]
    fn a_new_database_has_large_pages_and_a_wal_bounded_in_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("new.sqlite3")).unwrap();
        assert_eq!(pragma(&store, "page_size"), PAGE_BYTES);
        assert_eq!(pragma(&store, "wal_autocheckpoint"), WAL_CHECKPOINT_BYTES / PAGE_BYTES);
        drop(store);
        // Opened again, it is the same.
        let store = Store::open(&dir.path().join("new.sqlite3")).unwrap();
        assert_eq!(pragma(&store, "page_size"), PAGE_BYTES);
    }

    #[test]
    fn an_existing_database_keeps_its_page_size_and_its_data() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite3");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "PRAGMA page_size = 4096; CREATE TABLE kept (x); INSERT INTO kept VALUES (7);",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(pragma(&store, "page_size"), 4096);
        assert_eq!(pragma(&store, "wal_autocheckpoint"), WAL_CHECKPOINT_BYTES / 4096);
        let kept: i64 = store.conn.query_row("SELECT x FROM kept", [], |row| row.get(0)).unwrap();
        assert_eq!(kept, 7);
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.last().unwrap().version);
    }
}
