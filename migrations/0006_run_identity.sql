-- 0006: a run's parameters become its identity, {"method", "config", "models"}: the method's
-- own configuration and the models it asks, instead of one flat object holding every method's
-- settings. A run of one method then no longer changes identity when another method's settings
-- change, and unfinished runs stay resumable across this upgrade: each old object is rewritten
-- to exactly what the new code computes for the same settings. Runs of other kinds (`ask`) and
-- rows already in the new shape are left alone.
-- Numbers are copied as the JSON text they were written as (`->`, not `->>`), so a float
-- such as a temperature keeps its exact spelling and still compares equal.
-- Forward-only: never edit this file once it has landed.

-- corpus-NLI runs judged by a cross-encoder name the judge, not the chat model they never asked.
UPDATE runs SET model = parameters ->> '$.nli'
WHERE method = 'corpus-nli' AND json_type(parameters, '$.urls') IS NOT NULL
  AND parameters ->> '$.nli' IS NOT 'llm';

UPDATE runs SET parameters = json_object(
    'method', 'llm-cite',
    'config', json_remove(
        json_object(
            'urls', parameters ->> '$.urls',
            'm', parameters -> '$.m',
            'r', parameters -> '$.r',
            'temperature', parameters -> '$.temperature',
            'l', parameters -> '$.l',
            'threshold', parameters -> '$.threshold',
            'premises', parameters -> '$.premises',
            'seed', parameters -> '$.seed',
            'nli_samples', parameters -> '$.nli_samples'),
        -- The judge's samples count only when the chat model judges.
        CASE WHEN parameters ->> '$.nli' = 'llm' THEN '$.kept' ELSE '$.nli_samples' END),
    'models', json_object('chat', parameters ->> '$.model', 'nli', parameters ->> '$.nli'))
WHERE method = 'llm-cite' AND json_type(parameters, '$.urls') IS NOT NULL;

UPDATE runs SET parameters = json_object(
    'method', 'p-true',
    'config', json_object(
        'samples', parameters -> '$.p_true_samples',
        'seed', parameters -> '$.seed'),
    'models', json_object('chat', parameters ->> '$.model'))
WHERE method = 'p-true' AND json_type(parameters, '$.urls') IS NOT NULL;

UPDATE runs SET parameters = json_object(
    'method', 'corpus-nli',
    'config', json_remove(
        json_object(
            'documents', parameters -> '$.m',
            'l', parameters -> '$.l',
            'retrieve', parameters -> '$.corpus_retrieve',
            'threshold', parameters -> '$.threshold',
            'corpora', parameters -> '$.corpora',
            'nli_samples', parameters -> '$.nli_samples'),
        CASE WHEN parameters ->> '$.nli' = 'llm' THEN '$.kept' ELSE '$.nli_samples' END),
    'models', json_remove(
        json_object('chat', parameters ->> '$.model', 'nli', parameters ->> '$.nli'),
        -- The chat model is asked only when it is the judge.
        CASE WHEN parameters ->> '$.nli' = 'llm' THEN '$.kept' ELSE '$.chat' END))
WHERE method = 'corpus-nli' AND json_type(parameters, '$.urls') IS NOT NULL;
