-- 0004: checks and reviews. A check is one claim checked by one method in one run: its verdict
-- and confidence as columns (for filters and counts) and the whole result (URLs, sources,
-- premises with NLI probabilities, attribution, tokens) as JSON. A review is what a person
-- decided about a check; it sits beside the machine verdict and never replaces it.
-- Forward-only: never edit this file once it has landed.

CREATE TABLE checks (
    id                INTEGER PRIMARY KEY,
    run_id            INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    claim_id          INTEGER REFERENCES claims(id) ON DELETE CASCADE,   -- NULL: an ad-hoc claim
    claim_text        TEXT NOT NULL,
    method            TEXT NOT NULL,
    verdict           TEXT NOT NULL CHECK (verdict IN
                          ('verified', 'not_verified', 'no_valid_url', 'fetch_failed', 'no_evidence')),
    confidence        REAL CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
    result            TEXT NOT NULL CHECK (json_valid(result)),
    tokens            INTEGER NOT NULL DEFAULT 0,
    checked_at        TEXT NOT NULL,
    UNIQUE (run_id, claim_id)
);
CREATE INDEX checks_by_claim ON checks(claim_id);

-- The model calls behind each check (recorded or replayed).
CREATE TABLE check_model_calls (
    check_id      INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
    model_call_id INTEGER NOT NULL REFERENCES model_calls(id) ON DELETE CASCADE,
    PRIMARY KEY (check_id, model_call_id)
) WITHOUT ROWID;

CREATE TABLE reviews (
    id          INTEGER PRIMARY KEY,
    check_id    INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
    decision    TEXT NOT NULL CHECK (decision IN ('accept', 'override')),
    verdict     TEXT NOT NULL CHECK (verdict IN
                    ('verified', 'not_verified', 'no_valid_url', 'fetch_failed', 'no_evidence')),
    comment     TEXT NOT NULL DEFAULT '',
    reviewer    TEXT,
    created_at  TEXT NOT NULL
);
CREATE INDEX reviews_by_check ON reviews(check_id);
