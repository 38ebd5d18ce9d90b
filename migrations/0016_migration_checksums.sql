-- 0016: what each applied migration's text was. Factdesk records a checksum of every migration
-- it applies (and, on the first open after this one, of those applied before it) and refuses a
-- database whose applied migrations no longer match the texts of the running build: a landed
-- migration that was edited would otherwise leave databases made before and after the edit
-- with different schemas under one version number.
-- Forward-only: never edit this file once it has landed.

CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    checksum   TEXT NOT NULL,             -- BLAKE3 of the migration's text, line ends as \n
    applied_at TEXT NOT NULL               -- when this database first recorded it (RFC 3339)
);
