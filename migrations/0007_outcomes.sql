-- 0007: outcomes beside verdicts, passages beside claims, and three-way verdicts.
--
-- A row of `checks` is now one outcome of one method on one subject: a verdict on a claim, or
-- a revision, a scored summary or a score table of a passage (`kind`; the whole outcome, tagged
-- by its kind, stays in `result`). Passages are the new subjects: a text with its kind, the
-- question it answers and the corpus documents it came from, in a collection beside its claims.
--
-- Verdicts become three-way (supported / refuted / not_enough_info), the vocabulary of gold
-- labels, and why a method could not decide (no_valid_url, fetch_failed, no_evidence) moves to
-- a column of its own, `undecided`. The lists of allowed words leave the schema: the
-- application validates an outcome before it writes it, so a new method's verdict, reason or
-- kind needs no table rebuild.
-- Old verdicts map as: verified -> supported; not_verified -> not_enough_info (those methods
-- never found a claim false, only no evidence that entails it); no_valid_url, fetch_failed,
-- no_evidence -> not_enough_info with that word as the reason. The same mapping rewrites the
-- verdict inside each stored result (which also gains `"kind": "verdict"`) and each review's
-- verdict.
-- SQLite cannot drop a CHECK constraint, so both tables are rebuilt (create, copy, drop,
-- rename). The migration runner turns foreign keys off around this (dropping `checks` would
-- otherwise cascade into its model-call links and reviews) and checks them before commit.
-- Forward-only: never edit this file once it has landed.

CREATE TABLE passages (
    id             INTEGER PRIMARY KEY,
    collection_id  INTEGER NOT NULL REFERENCES claim_collections(id) ON DELETE CASCADE,
    kind           TEXT NOT NULL,       -- summary, structured_summary, answer, text (checked in Rust)
    text           TEXT NOT NULL,
    question       TEXT,
    sources        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(sources)),  -- document ids
    created_at     TEXT NOT NULL
);
-- One passage per text, kind and question in a collection: "Yes." may answer two questions.
CREATE UNIQUE INDEX passages_unique
    ON passages(collection_id, kind, text, ifnull(question, ''));
CREATE INDEX passages_by_collection ON passages(collection_id);

CREATE TABLE checks_0007 (
    id                INTEGER PRIMARY KEY,
    run_id            INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    claim_id          INTEGER REFERENCES claims(id) ON DELETE CASCADE,   -- NULL: ad hoc, or a passage
    passage_id        INTEGER REFERENCES passages(id) ON DELETE CASCADE,
    claim_text        TEXT NOT NULL,        -- the subject's text (the claim, or the passage)
    method            TEXT NOT NULL,
    kind              TEXT NOT NULL DEFAULT 'verdict',  -- verdict, revision, summary, scores
    verdict           TEXT,                 -- supported, refuted, not_enough_info; NULL unless a verdict
    undecided         TEXT,                 -- why no verdict could be reached; NULL when judged
    confidence        REAL CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
    result            TEXT NOT NULL CHECK (json_valid(result)),
    tokens            INTEGER NOT NULL DEFAULT 0,
    checked_at        TEXT NOT NULL,
    UNIQUE (run_id, claim_id),
    UNIQUE (run_id, passage_id)
);

INSERT INTO checks_0007 (id, run_id, claim_id, claim_text, method, verdict, undecided,
                         confidence, result, tokens, checked_at)
SELECT id, run_id, claim_id, claim_text, method,
       CASE verdict WHEN 'verified' THEN 'supported' ELSE 'not_enough_info' END,
       CASE WHEN verdict IN ('no_valid_url', 'fetch_failed', 'no_evidence') THEN verdict END,
       confidence,
       CASE
           WHEN verdict IN ('no_valid_url', 'fetch_failed', 'no_evidence')
               THEN json_set(result, '$.kind', 'verdict', '$.verdict', 'not_enough_info',
                             '$.undecided', verdict)
           WHEN verdict = 'verified'
               THEN json_set(result, '$.kind', 'verdict', '$.verdict', 'supported')
           ELSE json_set(result, '$.kind', 'verdict', '$.verdict', 'not_enough_info')
       END,
       tokens, checked_at
FROM checks;

DROP TABLE checks;
ALTER TABLE checks_0007 RENAME TO checks;
CREATE INDEX checks_by_claim ON checks(claim_id);
CREATE INDEX checks_by_passage ON checks(passage_id);

CREATE TABLE reviews_0007 (
    id          INTEGER PRIMARY KEY,
    check_id    INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
    decision    TEXT NOT NULL CHECK (decision IN ('accept', 'override')),
    verdict     TEXT NOT NULL,              -- supported, refuted, not_enough_info (checked in Rust)
    comment     TEXT NOT NULL DEFAULT '',
    reviewer    TEXT,
    created_at  TEXT NOT NULL
);

INSERT INTO reviews_0007 (id, check_id, decision, verdict, comment, reviewer, created_at)
SELECT id, check_id, decision,
       CASE verdict WHEN 'verified' THEN 'supported' ELSE 'not_enough_info' END,
       comment, reviewer, created_at
FROM reviews;

DROP TABLE reviews;
ALTER TABLE reviews_0007 RENAME TO reviews;
CREATE INDEX reviews_by_check ON reviews(check_id);
