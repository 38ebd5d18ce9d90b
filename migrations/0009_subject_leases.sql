-- 0009: leases on the subjects of a run, so that two processes running the same run (the CLI
-- and the desktop app, or two terminals) work on disjoint claims and passages instead of both
-- asking the models about the same one. A lease names its holder (a batch of one process,
-- with that process's id) and when it expires; a lease whose process is gone, or that has
-- expired, may be taken over. Leases are released as soon as the subject's outcome is stored
-- or its run failed.
-- Forward-only: never edit this file once it has landed.

CREATE TABLE subject_leases (
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    subject     TEXT NOT NULL,         -- claim:<id> or passage:<id>
    holder      TEXT NOT NULL,         -- <process id>:<batch nonce>
    pid         INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,      -- seconds since the Unix epoch
    PRIMARY KEY (run_id, subject)
) WITHOUT ROWID;
