-- 0015: the date a claim was made, when known (a calendar date, YYYY-MM-DD). Evidence published
-- long before it is flagged as possibly out of date when the claim's checks are read; nothing
-- about a check is stored for it. Existing claims have no date.
-- Forward-only: never edit this file once it has landed.

ALTER TABLE claims ADD COLUMN claimed_on TEXT
    CHECK (claimed_on IS NULL OR (length(claimed_on) = 10 AND date(claimed_on) = claimed_on));
