-- 0014: PDF documents, and the page each sentence is on.
--
-- `documents.format` gains 'pdf', and its list of allowed words leaves the schema (the
-- application writes formats from its own list and refuses an unknown one when it reads), so
-- that the next format needs no rebuild. SQLite cannot drop a CHECK constraint, so the table is
-- rebuilt once more (create, copy, drop, rename; the migration runner turns foreign keys off
-- around this and checks every reference before commit). On a large library this copies every
-- document once. A sentence of a paged document (a PDF) records the
-- page it starts on, 1-based; other documents' sentences have none.
-- Forward-only: never edit this file once it has landed.

CREATE TABLE documents_0014 (
    id           INTEGER PRIMARY KEY,
    corpus_id    INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
    origin       TEXT NOT NULL,                 -- path (with #line=N for JSONL/CSV) or URL
    origin_kind  TEXT NOT NULL CHECK (origin_kind IN ('file', 'url')),
    url          TEXT,                          -- the document's own URL when known
    format       TEXT NOT NULL,                 -- text, markdown, html, jsonl, csv, pdf (checked in Rust)
    title        TEXT,
    published_at TEXT,                          -- calendar date (YYYY-MM-DD) when known
    acquired_at  TEXT NOT NULL,                 -- when it was imported or fetched
    content_hash TEXT NOT NULL,                 -- BLAKE3 of the extracted text
    raw          BLOB NOT NULL,                 -- the bytes as imported
    charset      TEXT,                          -- the encoding the bytes were decoded with
    text         TEXT NOT NULL,                 -- the extracted text that sentences point into
    UNIQUE (corpus_id, content_hash)
);

INSERT INTO documents_0014 (id, corpus_id, origin, origin_kind, url, format, title, published_at,
                            acquired_at, content_hash, raw, charset, text)
    SELECT id, corpus_id, origin, origin_kind, url, format, title, published_at,
           acquired_at, content_hash, raw, charset, text
    FROM documents;

DROP TABLE documents;
ALTER TABLE documents_0014 RENAME TO documents;

ALTER TABLE sentences ADD COLUMN page INTEGER CHECK (page IS NULL OR page >= 1);
