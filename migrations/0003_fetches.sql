-- 0003: the web page archive and the record of every attempt to fetch a page, for checking
-- cited URLs (LLM-Cite) and re-running a check without the network. Forward-only: never edit
-- this file once it has landed.

-- A page body, kept once however often it is fetched.
CREATE TABLE pages (
    content_hash     TEXT PRIMARY KEY,            -- BLAKE3 of body
    media_type       TEXT,                        -- as served; text/plain for MediaWiki extracts
    body             BLOB NOT NULL,               -- the bytes as received
    text             TEXT NOT NULL,               -- the text extracted from them
    title            TEXT,
    first_fetched_at TEXT NOT NULL
);

-- One attempt to get a page: fetched, served from the archive, or failed.
CREATE TABLE fetches (
    id            INTEGER PRIMARY KEY,
    run_id        INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    url           TEXT NOT NULL,                  -- as requested, normalised, no fragment
    final_url     TEXT,                           -- after redirects; canonical for Wikipedia
    status        INTEGER,                        -- HTTP status, when an answer came
    media_type    TEXT,
    title         TEXT,
    content_hash  TEXT REFERENCES pages(content_hash),   -- set exactly when it succeeded
    error_kind    TEXT,                           -- a stable code (forbidden, timeout, …)
    error_message TEXT,
    via_api       INTEGER NOT NULL DEFAULT 0 CHECK (via_api IN (0, 1)),
    from_archive  INTEGER NOT NULL DEFAULT 0 CHECK (from_archive IN (0, 1)),
    fetched_at    TEXT NOT NULL,
    elapsed_ms    INTEGER NOT NULL DEFAULT 0 CHECK (elapsed_ms >= 0),
    CHECK ((content_hash IS NULL) = (error_kind IS NOT NULL)),
    CHECK (from_archive = 0 OR content_hash IS NOT NULL)
);
-- The archive is looked up by the requested or the final URL of the newest successful fetch
-- from the network (serving from the archive is recorded, but is no newer copy).
CREATE INDEX fetches_archive_by_url ON fetches(url, id)
    WHERE content_hash IS NOT NULL AND from_archive = 0;
CREATE INDEX fetches_archive_by_final_url ON fetches(final_url, id)
    WHERE content_hash IS NOT NULL AND from_archive = 0;
CREATE INDEX fetches_by_run ON fetches(run_id);
