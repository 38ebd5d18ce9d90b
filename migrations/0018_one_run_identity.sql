-- 0018: every run's parameters are one identity, {"method", "config", "models"} and, for a run
-- over inputs no collection holds, "inputs" (the core's identity.rs builds it for every
-- method). The verdict methods and RARR/CoVe stored this shape already (0006); summaries (TTS
-- and its baselines), summaries written again by hand, SGSS labelling and single prompts each
-- stored a shape of their own. They are rewritten to exactly what the new code computes for
-- the same request, so an unfinished summary still resumes across this upgrade.
-- Numbers and nested values are copied as the JSON they were written as (`->`).
-- Forward-only: never edit this file once it has landed.

-- TTS and its baselines: {"method", "config", "question", "documents", "model"}. The verifier
-- is named as the stance judge where it judged (TTS and the majority-claims baseline ask for
-- stances; `stance_judge = "verifier"`).
UPDATE runs SET parameters = json_object(
    'method', method,
    'config', parameters -> '$.config',
    'models', CASE
        WHEN method IN ('tts', 'majority-claims')
             AND parameters ->> '$.config.stance_judge' = 'verifier'
        THEN json_object('chat', parameters ->> '$.model', 'nli', 'factdesk-verifier')
        ELSE json_object('chat', parameters ->> '$.model')
    END,
    'inputs', json_object(
        'question', parameters ->> '$.question',
        'documents', parameters -> '$.documents'))
WHERE method IN ('tts', 'all-sources', 'majority-prompt', 'majority-claims')
  AND json_valid(parameters)
  AND json_type(parameters, '$.model') IS NOT NULL
  AND json_type(parameters, '$.models') IS NULL;

-- A summary written again by hand: {"from_summary", "used"}.
UPDATE runs SET parameters = json_object(
    'method', method,
    'config', json_object('used', parameters -> '$.used'),
    'models', json_object('chat', model),
    'inputs', json_object('from_summary', parameters -> '$.from_summary'))
WHERE method = 'tts-by-hand'
  AND json_valid(parameters)
  AND json_type(parameters, '$.from_summary') IS NOT NULL;

-- SGSS labels from the chat model: {"summaries", "documents", "question", "template"}.
UPDATE runs SET parameters = json_object(
    'method', method,
    'config', json_object('template', parameters ->> '$.template'),
    'models', json_object('chat', model),
    'inputs', json_object(
        'summaries', parameters -> '$.summaries',
        'documents', parameters -> '$.documents',
        'question', parameters ->> '$.question'))
WHERE method = 'score'
  AND json_valid(parameters)
  AND json_type(parameters, '$.template') IS NOT NULL;

-- A single prompt: {"max_tokens", "temperature", "seed"}.
UPDATE runs SET parameters = json_object(
    'method', method,
    'config', json_object(
        'max_tokens', parameters -> '$.max_tokens',
        'temperature', parameters -> '$.temperature',
        'seed', parameters -> '$.seed'),
    'models', json_object('chat', model))
WHERE method = 'ask'
  AND json_valid(parameters)
  AND json_type(parameters, '$.method') IS NULL;
