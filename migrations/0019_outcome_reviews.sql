-- 0019: a person's review of every outcome kind, kept beside the outcome (which it never
-- changes). A decision on a revision's edit may say why (review mode asks a reason for a
-- rejection), and a summary of several sources gets a review per source: whether the person
-- agrees with what the summary did with it (used, or dropped), and why not. One row per
-- review; the newest row for a source is the one that counts, the older ones stay as its
-- history.
-- Forward-only: never edit this file once it has landed.

ALTER TABLE edit_decisions ADD COLUMN comment TEXT;

CREATE TABLE source_reviews (
    id            INTEGER PRIMARY KEY,
    check_id      INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
    source_index  INTEGER NOT NULL CHECK (source_index >= 0),   -- 0-based, in the summary's order
    accepted      INTEGER NOT NULL CHECK (accepted IN (0, 1)),  -- 1: agrees with used/dropped
    comment       TEXT,
    reviewer      TEXT,
    reviewed_at   TEXT NOT NULL
);
CREATE INDEX source_reviews_by_check ON source_reviews(check_id, source_index, id);
