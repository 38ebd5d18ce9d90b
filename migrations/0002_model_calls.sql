-- 0002: the audit record of every model call, for tracing a verdict to the calls behind it
-- and replaying a run offline. Forward-only: never edit this file once it has landed.

CREATE TABLE model_calls (
    id                INTEGER PRIMARY KEY,
    run_id            INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    request_key       TEXT NOT NULL,              -- hash of what determines the answer
    kind              TEXT NOT NULL CHECK (kind IN ('completion', 'answer_probabilities')),
    provider          TEXT NOT NULL,              -- openai-compatible, embedded, scripted
    model             TEXT NOT NULL,
    template_id       TEXT,
    template_version  INTEGER,
    messages          TEXT NOT NULL CHECK (json_valid(messages)),
    parameters        TEXT NOT NULL CHECK (json_valid(parameters)),   -- sampling, constraint, answers
    seed              INTEGER,
    response          TEXT NOT NULL CHECK (json_valid(response)),     -- choices with logprobs, or probabilities
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms        INTEGER NOT NULL,
    created_at        TEXT NOT NULL
);
CREATE INDEX model_calls_by_key ON model_calls(request_key);
CREATE INDEX model_calls_by_run ON model_calls(run_id);
