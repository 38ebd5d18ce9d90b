-- 0020: the language of a sentence in another language than its document's (a German
-- paragraph in English news), an ISO 639-1 code found on import when the document's language
-- was not told for sure or the sentence looks unlike the rest (factdesk_text::sentence_languages).
-- The index analyses such a sentence in its own language. NULL, nearly always: the document's.
-- Forward-only: never edit this file once it has landed.

ALTER TABLE sentences ADD COLUMN language TEXT
    CHECK (language IS NULL OR (length(language) BETWEEN 2 AND 3 AND language = lower(language)));
