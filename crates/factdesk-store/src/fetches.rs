//! The `fetches` and `pages` tables: a record of every attempt to get a web page, and the
//! archive of page bodies (each kept once, by the BLAKE3 hash of its bytes) with the text
//! extracted from them. A successful fetch and its page are written in one transaction; the
//! archive is looked up by the requested or the final URL of the newest successful fetch from
//! the network (a page served from the archive is recorded too, but is not a newer copy).

use factdesk_model::{ArchivedPage, FetchId, FetchRecord, RunId, StoredPage};
use rusqlite::{OptionalExtension, Row, params};

use crate::{Result, Store};

/// A page to archive: the body as received and the text extracted from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPage {
    /// BLAKE3 of `body`, as `factdesk_text::content_hash` gives it.
    pub content_hash: String,
    pub media_type: Option<String>,
    pub body: Vec<u8>,
    pub text: String,
    pub title: Option<String>,
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchOutcome {
    /// Fetched from the network; the page is archived unless the archive already has it.
    Fetched(NewPage),
    /// Served from the archive: the page with this hash.
    Archived { content_hash: String },
    /// A capture of the web that gave a page the archive already has, under another address
    /// (a web archive file's revisit record): counted like a fetch from the network, so an
    /// offline check asking for this address is served that page.
    SamePageAs { content_hash: String },
    /// No page: a stable code for the failure and its message.
    Failed { kind: String, message: String },
}

/// An attempt to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFetch {
    pub run_id: Option<RunId>,
    pub url: String,
    pub final_url: Option<String>,
    pub status: Option<u16>,
    pub media_type: Option<String>,
    pub title: Option<String>,
    pub via_api: bool,
    pub fetched_at: String,
    pub elapsed_ms: u64,
    pub outcome: FetchOutcome,
}

const FETCH_COLUMNS: &str = "f.id, f.run_id, f.url, f.final_url, f.status, f.media_type, f.title,
     f.content_hash, f.error_kind, f.error_message, f.via_api, f.from_archive, f.fetched_at,
     f.elapsed_ms";

const PAGE_COLUMNS: &str =
    "p.content_hash, p.media_type, p.body, p.text, p.title, p.first_fetched_at";

fn fetch_from_row(row: &Row<'_>) -> rusqlite::Result<FetchRecord> {
    Ok(FetchRecord {
        id: FetchId(row.get(0)?),
        run_id: row.get::<_, Option<i64>>(1)?.map(RunId),
        url: row.get(2)?,
        final_url: row.get(3)?,
        status: row.get(4)?,
        media_type: row.get(5)?,
        title: row.get(6)?,
        content_hash: row.get(7)?,
        error_kind: row.get(8)?,
        error_message: row.get(9)?,
        via_api: row.get(10)?,
        from_archive: row.get(11)?,
        fetched_at: row.get(12)?,
        elapsed_ms: row.get::<_, i64>(13)?.max(0) as u64,
    })
}

/// Reads a page from `row`, its columns starting at `at`.
fn page_from_row(row: &Row<'_>, at: usize) -> rusqlite::Result<StoredPage> {
    Ok(StoredPage {
        content_hash: row.get(at)?,
        media_type: row.get(at + 1)?,
        body: row.get(at + 2)?,
        text: row.get(at + 3)?,
        title: row.get(at + 4)?,
        first_fetched_at: row.get(at + 5)?,
    })
}

impl Store {
    /// Records an attempt, archiving its page first when it fetched one, in one transaction.
    pub fn record_fetch(&mut self, fetch: &NewFetch) -> Result<FetchId> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let (content_hash, error_kind, error_message, from_archive) = match &fetch.outcome {
            FetchOutcome::Fetched(page) => {
                tx.execute(
                    "INSERT INTO pages (content_hash, media_type, body, text, title, first_fetched_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT (content_hash) DO NOTHING",
                    params![
                        page.content_hash,
                        page.media_type,
                        page.body,
                        page.text,
                        page.title,
                        fetch.fetched_at
                    ],
                )?;
                (Some(page.content_hash.as_str()), None, None, false)
            }
            FetchOutcome::Archived { content_hash } => {
                (Some(content_hash.as_str()), None, None, true)
            }
            FetchOutcome::SamePageAs { content_hash } => {
                (Some(content_hash.as_str()), None, None, false)
            }
            FetchOutcome::Failed { kind, message } => {
                (None, Some(kind.as_str()), Some(message.as_str()), false)
            }
        };
        tx.execute(
            "INSERT INTO fetches (run_id, url, final_url, status, media_type, title, content_hash,
                 error_kind, error_message, via_api, from_archive, fetched_at, elapsed_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                fetch.run_id.map(|run| run.0),
                fetch.url,
                fetch.final_url,
                fetch.status,
                fetch.media_type,
                fetch.title,
                content_hash,
                error_kind,
                error_message,
                fetch.via_api,
                from_archive,
                fetch.fetched_at,
                fetch.elapsed_ms.min(i64::MAX as u64) as i64,
            ],
        )?;
        let id = FetchId(tx.last_insert_rowid());
        tx.commit()?;
        Ok(id)
    }

    /// The newest capture (a successful fetch from the network, or a page of an imported web
    /// archive, by when it was captured; the later recorded among equals) whose requested or
    /// final URL is `url`, with its page.
    pub fn archived_page_by_url(&self, url: &str) -> Result<Option<ArchivedPage>> {
        let sql = format!(
            "SELECT {FETCH_COLUMNS}, {PAGE_COLUMNS}
             FROM fetches f JOIN pages p ON p.content_hash = f.content_hash
             WHERE f.id = (SELECT id FROM (
                 SELECT id, fetched_at FROM fetches
                 WHERE url = ?1 AND content_hash IS NOT NULL AND from_archive = 0
                 UNION ALL
                 SELECT id, fetched_at FROM fetches
                 WHERE final_url = ?1 AND content_hash IS NOT NULL AND from_archive = 0)
               ORDER BY julianday(fetched_at) DESC, id DESC LIMIT 1)"
        );
        let found = self
            .conn
            .query_row(&sql, [url], |row| {
                Ok(ArchivedPage { fetch: fetch_from_row(row)?, page: page_from_row(row, 14)? })
            })
            .optional()?;
        Ok(found)
    }

    /// Whether the archive has a capture of `url` (a fetch from the network, or a page of an
    /// imported web archive) that gave the page `content_hash`, at any time: an archive file
    /// imported twice, or a library's own export imported back, adds no capture of the same
    /// page again.
    pub fn has_capture(&self, url: &str, content_hash: &str) -> Result<bool> {
        let mut statement = self.conn.prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM fetches
                            WHERE url = ?1 AND content_hash = ?2 AND from_archive = 0)",
        )?;
        Ok(statement.query_row(params![url, content_hash], |row| row.get(0))?)
    }

    /// Every page fetched from the network, once per address and content: the first fetch of
    /// each (its final URL, else the one asked for), with its page, oldest first.
    pub fn pages_to_export(&self) -> Result<Vec<ArchivedPage>> {
        let sql = format!(
            "SELECT {FETCH_COLUMNS}, {PAGE_COLUMNS}
             FROM fetches f JOIN pages p ON p.content_hash = f.content_hash
             WHERE f.id IN (SELECT min(id) FROM fetches
                            WHERE content_hash IS NOT NULL AND from_archive = 0
                            GROUP BY coalesce(final_url, url), content_hash)
             ORDER BY f.id"
        );
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map([], |row| {
            Ok(ArchivedPage { fetch: fetch_from_row(row)?, page: page_from_row(row, 14)? })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The addresses asked for that gave the page of another address (a redirect, a Wikipedia
    /// alias), each once: (final URL, content hash, URL asked for).
    pub fn fetch_aliases(&self) -> Result<Vec<(String, String, String)>> {
        let mut statement = self.conn.prepare(
            "SELECT DISTINCT final_url, content_hash, url FROM fetches
             WHERE content_hash IS NOT NULL AND from_archive = 0
               AND final_url IS NOT NULL AND final_url <> url
             ORDER BY final_url, url",
        )?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The archived page with this content hash.
    pub fn page_by_hash(&self, content_hash: &str) -> Result<Option<StoredPage>> {
        let sql = format!("SELECT {PAGE_COLUMNS} FROM pages p WHERE p.content_hash = ?1");
        Ok(self.conn.query_row(&sql, [content_hash], |row| page_from_row(row, 0)).optional()?)
    }

    /// The attempts of a run, in order.
    pub fn fetches_for_run(&self, run: RunId) -> Result<Vec<FetchRecord>> {
        let sql =
            format!("SELECT {FETCH_COLUMNS} FROM fetches f WHERE f.run_id = ?1 ORDER BY f.id");
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map([run.0], fetch_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every attempt whose requested URL is `url`, in order.
    pub fn fetches_for_url(&self, url: &str) -> Result<Vec<FetchRecord>> {
        let sql = format!("SELECT {FETCH_COLUMNS} FROM fetches f WHERE f.url = ?1 ORDER BY f.id");
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map([url], fetch_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> NewPage {
        NewPage {
            content_hash: format!("hash-of-{body}"),
            media_type: Some("text/html".into()),
            body: body.as_bytes().to_vec(),
            text: format!("text of {body}"),
            title: Some("T".into()),
        }
    }

    fn fetch(url: &str, final_url: &str, at: &str, outcome: FetchOutcome) -> NewFetch {
        NewFetch {
            run_id: None,
            url: url.into(),
            final_url: Some(final_url.into()),
            status: Some(200),
            media_type: Some("text/html".into()),
            title: Some("T".into()),
            via_api: false,
            fetched_at: at.into(),
            elapsed_ms: 7,
            outcome,
        }
    }

    #[test]
    fn pages_are_archived_once_and_found_by_either_url() {
        let mut store = Store::open_in_memory().unwrap();
        let first = store
            .record_fetch(&fetch(
                "http://a/old",
                "http://a/new",
                "t1",
                FetchOutcome::Fetched(page("x")),
            ))
            .unwrap();
        let again = store
            .record_fetch(&fetch(
                "http://a/new",
                "http://a/new",
                "t2",
                FetchOutcome::Fetched(page("x")),
            ))
            .unwrap();
        assert!(again.0 > first.0);
        let stored = store.page_by_hash("hash-of-x").unwrap().unwrap();
        assert_eq!((stored.body.as_slice(), stored.first_fetched_at.as_str()), (&b"x"[..], "t1"));
        assert_eq!(stored.text, "text of x");

        let by_old = store.archived_page_by_url("http://a/old").unwrap().unwrap();
        assert_eq!((by_old.fetch.id, by_old.page.content_hash.as_str()), (first, "hash-of-x"));
        let by_new = store.archived_page_by_url("http://a/new").unwrap().unwrap();
        assert_eq!(by_new.fetch.id, again, "the newest fetch answers");
        assert!(store.archived_page_by_url("http://a/other").unwrap().is_none());
        assert!(store.page_by_hash("nope").unwrap().is_none());

        // Exported once per address and content: the first fetch of it.
        store
            .record_fetch(&fetch("http://b/", "http://b/", "t3", FetchOutcome::Fetched(page("y"))))
            .unwrap();
        store
            .record_fetch(&fetch(
                "http://b/",
                "http://b/",
                "t4",
                FetchOutcome::Archived { content_hash: "hash-of-y".into() },
            ))
            .unwrap();
        let exported: Vec<(String, String)> = store
            .pages_to_export()
            .unwrap()
            .into_iter()
            .map(|archived| (archived.fetch.fetched_at, archived.page.content_hash))
            .collect();
        assert_eq!(
            exported,
            [("t1".to_owned(), "hash-of-x".to_owned()), ("t3".into(), "hash-of-y".into())]
        );
        assert!(store.has_capture("http://b/", "hash-of-y").unwrap());
        assert!(!store.has_capture("http://b/", "hash-of-x").unwrap());
        assert!(!store.has_capture("http://a/old", "hash-of-y").unwrap());

        // The newest capture by time answers, not the last recorded: an old page imported
        // from a web archive today does not replace a newer fetch.
        let at = |time: &str, body: &str| {
            fetch("http://c/", "http://c/", time, FetchOutcome::Fetched(page(body)))
        };
        store.record_fetch(&at("2024-01-01T00:00:00.123456789Z", "new")).unwrap();
        store.record_fetch(&at("2015-01-01T00:00:00Z", "old")).unwrap();
        let served = store.archived_page_by_url("http://c/").unwrap().unwrap();
        assert_eq!(served.page.content_hash, "hash-of-new");
        assert_eq!(
            store.fetch_aliases().unwrap(),
            [("http://a/new".to_owned(), "hash-of-x".to_owned(), "http://a/old".to_owned())]
        );
    }

    #[test]
    fn failures_are_recorded_but_never_archived() {
        let mut store = Store::open_in_memory().unwrap();
        let run = store.create_run("llm-cite", &serde_json::json!({}), None, None).unwrap();
        store
            .record_fetch(&fetch(
                "http://a/p",
                "http://a/p",
                "t1",
                FetchOutcome::Fetched(page("v1")),
            ))
            .unwrap();
        let failed = NewFetch {
            run_id: Some(run),
            final_url: None,
            status: None,
            ..fetch(
                "http://a/p",
                "",
                "t2",
                FetchOutcome::Failed { kind: "timeout".into(), message: "too slow".into() },
            )
        };
        store.record_fetch(&failed).unwrap();
        let served = NewFetch {
            run_id: Some(run),
            ..fetch(
                "http://a/p",
                "http://a/p",
                "t3",
                FetchOutcome::Archived { content_hash: "hash-of-v1".into() },
            )
        };
        store.record_fetch(&served).unwrap();

        let of_run = store.fetches_for_run(run).unwrap();
        assert_eq!(of_run.len(), 2);
        assert_eq!(of_run[0].error_kind.as_deref(), Some("timeout"));
        assert_eq!(of_run[0].error_message.as_deref(), Some("too slow"));
        assert!(!of_run[0].succeeded() && of_run[0].content_hash.is_none());
        assert!(of_run[1].from_archive && of_run[1].succeeded());
        assert_eq!(of_run[1].elapsed_ms, 7);
        // Neither the failure nor the serving from the archive hides the fetch from the web.
        let archived = store.archived_page_by_url("http://a/p").unwrap().unwrap();
        assert_eq!(archived.page.content_hash, "hash-of-v1");
        assert_eq!(
            (archived.fetch.fetched_at.as_str(), archived.fetch.from_archive),
            ("t1", false)
        );
        assert_eq!(store.fetches_for_url("http://a/p").unwrap().len(), 3);
    }

    #[test]
    fn an_archive_hit_must_name_an_archived_page() {
        let mut store = Store::open_in_memory().unwrap();
        let served = fetch(
            "http://a/",
            "http://a/",
            "t",
            FetchOutcome::Archived { content_hash: "missing".into() },
        );
        assert!(store.record_fetch(&served).is_err());
        assert!(store.fetches_for_url("http://a/").unwrap().is_empty());
    }
}
