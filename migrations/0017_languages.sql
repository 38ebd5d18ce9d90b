-- 0017: the language of each document and claim, an ISO 639-1 code (`de`, `zh`), detected on
-- import or given by the user. The sentence index analyses a document's sentences, and a
-- search its query, in that language (its stemmer, or characters in pairs for Chinese and
-- Japanese). NULL is unknown: rows stored before this migration, read as the corpus default
-- (`import.language`) until detected. A text too short to tell gets the default on import.
-- Forward-only: never edit this file once it has landed.

ALTER TABLE documents ADD COLUMN language TEXT
    CHECK (language IS NULL OR (length(language) BETWEEN 2 AND 3 AND language = lower(language)));
ALTER TABLE claims ADD COLUMN language TEXT
    CHECK (language IS NULL OR (length(language) BETWEEN 2 AND 3 AND language = lower(language)));
