-- 0005: the documents waiting for the search index get a table of their own. Marking a document
-- as indexed used to set documents.indexed_at, and SQLite writes a whole row again (raw bytes
-- and text included) to change one column of it; deleting a row here writes a few bytes.
-- Forward-only: never edit this file once it has landed.

DROP INDEX documents_pending_index;

CREATE TABLE documents_pending_index (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE
);

INSERT INTO documents_pending_index (document_id)
    SELECT id FROM documents WHERE indexed_at IS NULL;

ALTER TABLE documents DROP COLUMN indexed_at;
