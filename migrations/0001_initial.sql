-- 0001: the base schema. Forward-only: never edit this file once it has landed; add 0002_….sql.
-- Times are RFC 3339 text in UTC. JSON columns hold compact JSON text.

CREATE TABLE corpora (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE CHECK (length(trim(name)) > 0),
    description TEXT,
    created_at  TEXT NOT NULL
);

-- One imported file (or one JSONL line / CSV row), or one fetched page.
CREATE TABLE documents (
    id           INTEGER PRIMARY KEY,
    corpus_id    INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
    origin       TEXT NOT NULL,                 -- path (with #line=N for JSONL/CSV) or URL
    origin_kind  TEXT NOT NULL CHECK (origin_kind IN ('file', 'url')),
    url          TEXT,                          -- the document's own URL when known
    format       TEXT NOT NULL CHECK (format IN ('text', 'markdown', 'html', 'jsonl', 'csv')),
    title        TEXT,
    published_at TEXT,                          -- calendar date (YYYY-MM-DD) when known
    acquired_at  TEXT NOT NULL,                 -- when it was imported or fetched
    content_hash TEXT NOT NULL,                 -- BLAKE3 of the extracted text
    raw          BLOB NOT NULL,                 -- the bytes as imported
    charset      TEXT,                          -- the encoding the bytes were decoded with
    text         TEXT NOT NULL,                 -- the extracted text that sentences point into
    indexed_at   TEXT,                          -- NULL until its sentences are in the search index
    UNIQUE (corpus_id, content_hash)
);
CREATE INDEX documents_pending_index ON documents(id) WHERE indexed_at IS NULL;

-- A sentence is a span of its document's text; the text itself is not repeated here.
CREATE TABLE sentences (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL CHECK (ordinal >= 0),
    start_char  INTEGER NOT NULL,               -- Unicode scalar offsets, end exclusive
    end_char    INTEGER NOT NULL CHECK (end_char > start_char),
    start_byte  INTEGER NOT NULL,               -- UTF-8 byte offsets of the same span
    end_byte    INTEGER NOT NULL CHECK (end_byte > start_byte),
    UNIQUE (document_id, ordinal)
);

CREATE TABLE claim_collections (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE CHECK (length(trim(name)) > 0),
    description TEXT,
    created_at  TEXT NOT NULL
);

CREATE TABLE claims (
    id            INTEGER PRIMARY KEY,
    collection_id INTEGER NOT NULL REFERENCES claim_collections(id) ON DELETE CASCADE,
    text          TEXT NOT NULL CHECK (length(trim(text)) > 0),
    origin        TEXT,                         -- file and line, URL, or "manual"
    notes         TEXT,
    status        TEXT NOT NULL DEFAULT 'unchecked'
                  CHECK (status IN ('unchecked', 'checked', 'reviewed')),
    gold_label    TEXT CHECK (gold_label IN ('supported', 'refuted', 'not_enough_info')),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    UNIQUE (collection_id, text)
);

CREATE TABLE claim_tags (
    claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
    tag      TEXT NOT NULL CHECK (length(trim(tag)) > 0),
    PRIMARY KEY (claim_id, tag)
) WITHOUT ROWID;
CREATE INDEX claim_tags_by_tag ON claim_tags(tag);

-- One run of a method over a claim or a collection.
CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    method        TEXT NOT NULL,
    parameters    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(parameters)),
    model         TEXT,
    collection_id INTEGER REFERENCES claim_collections(id) ON DELETE SET NULL,
    status        TEXT NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
    created_at    TEXT NOT NULL,
    started_at    TEXT,
    finished_at   TEXT,
    error         TEXT
);
