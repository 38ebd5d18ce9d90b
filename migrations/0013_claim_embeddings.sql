-- 0013: sentence embeddings of claims, to find earlier claims that say the same thing as a new
-- one ("checked before"). One row per claim and embedding model; the vector is the model's
-- output as little-endian 32-bit floats, normalised to length 1. A claim's text never changes,
-- so its row never goes stale; it goes with the claim.
-- Forward-only: never edit this file once it has landed.

CREATE TABLE claim_embeddings (
    claim_id    INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
    model       TEXT NOT NULL,
    vector      BLOB NOT NULL,
    PRIMARY KEY (claim_id, model)
);
