-- 0011: people's decisions on the edits of a revision (RARR, CoVe): accept or reject each edit,
-- kept beside the machine revision in `checks`, which they never change. One row per decision;
-- the newest row for an edit is the one that counts, and the older ones stay as its history.
-- Forward-only: never edit this file once it has landed.

CREATE TABLE edit_decisions (
    id          INTEGER PRIMARY KEY,
    check_id    INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
    edit_index  INTEGER NOT NULL CHECK (edit_index >= 0),   -- 0-based, in the revision's order
    accepted    INTEGER NOT NULL CHECK (accepted IN (0, 1)),
    reviewer    TEXT,
    decided_at  TEXT NOT NULL
);
CREATE INDEX edit_decisions_by_check ON edit_decisions(check_id, edit_index, id);
