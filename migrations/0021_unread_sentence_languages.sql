-- 0021: the documents whose sentences were never read for another language than the
-- document's. An import finds such sentences since migration 0020 (sentences.language); a
-- document stored with a language (migration 0017) before 0020 was applied kept every sentence
-- in its document's language. Those are listed here; the core reads their sentences when the
-- data directory is opened (factdesk_text::sentence_languages, as an import does), indexes the
-- documents where it found one again, and removes each from this table in the same
-- transaction. Documents without a language are not listed: the rebuild that detects their
-- language reads their sentences too. A document stored after 0020 was applied (its
-- acquired_at not before 0020's applied_at) was read on import; when 0020 is applied in the
-- same run as this one, it has no row yet and every document with a language is listed.
-- Forward-only: never edit this file once it has landed.

CREATE TABLE documents_unread_sentence_languages (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE
);

INSERT INTO documents_unread_sentence_languages (document_id)
    SELECT d.id FROM documents d
    WHERE d.language IS NOT NULL
      AND NOT EXISTS (
          SELECT 1 FROM schema_migrations m
          WHERE m.version = 20 AND julianday(m.applied_at) <= julianday(d.acquired_at)
      );
