-- Finding the newest check of a claim by its text (CIBER reads the pages of the newest
-- LLM-Cite check of the same claim, checked alone or in any collection).
CREATE INDEX checks_by_text ON checks(claim_text, method);
