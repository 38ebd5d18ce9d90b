-- 0012: structured summaries kept in the library for scoring with SGSS, each with the question
-- it answers, and the labels of their elements (overview, headings, statements, and for Comp
-- their relevance to other summaries' sections), each saying who or what gave it. One row per
-- label given; the newest row for an element is the one that counts (a NULL grade clears it),
-- and the older ones stay as its history.
-- Forward-only: never edit this file once it has landed.

CREATE TABLE structured_summaries (
    id          INTEGER PRIMARY KEY,
    question    TEXT NOT NULL,
    name        TEXT NOT NULL,
    body        TEXT NOT NULL,          -- the parsed summary as JSON
    created_at  TEXT NOT NULL
);
CREATE INDEX structured_summaries_by_question ON structured_summaries(question, id);

CREATE TABLE summary_labels (
    id          INTEGER PRIMARY KEY,
    summary_id  INTEGER NOT NULL REFERENCES structured_summaries(id) ON DELETE CASCADE,
    element     TEXT NOT NULL,          -- e.g. overview.sufficiency, s1.2.relevance, pool.7.1
    grade       REAL CHECK (grade IS NULL OR (grade >= 0 AND grade <= 1)),
    labeller    TEXT NOT NULL,          -- person:<name> or model:<name>
    why         TEXT,
    labelled_at TEXT NOT NULL
);
CREATE INDEX summary_labels_by_summary ON summary_labels(summary_id, element, id);
