-- 0022: documents by corpus and language. A search whose query names no language is analysed
-- in the language most of the searched corpora's documents are in; the store counts them from
-- this index alone (it holds both columns) rather than reading every document's row.
-- Forward-only: never edit this file once it has landed.

CREATE INDEX documents_by_corpus_language ON documents(corpus_id, language);
