-- 0008: a check's token use is kept by purpose, as a table of purposes each with its prompt
-- and completion tokens ({"url": {"prompt": 367, "completion": 42}}), instead of LLM-Cite's
-- four fixed fields (url_prompt, url_completion, judge_prompt, judge_completion): methods to
-- come call models for purposes of their own. A purpose that cost nothing is left out, as the
-- new code writes it. The `tokens` column (the total) is unchanged.
-- Forward-only: never edit this file once it has landed.

UPDATE checks SET result = json_set(result, '$.tokens', json_patch(
    CASE WHEN (result ->> '$.tokens.url_prompt') + (result ->> '$.tokens.url_completion') > 0
        THEN json_object('url', json_object(
            'prompt', result ->> '$.tokens.url_prompt',
            'completion', result ->> '$.tokens.url_completion'))
        ELSE json_object() END,
    CASE WHEN (result ->> '$.tokens.judge_prompt') + (result ->> '$.tokens.judge_completion') > 0
        THEN json_object('judge', json_object(
            'prompt', result ->> '$.tokens.judge_prompt',
            'completion', result ->> '$.tokens.judge_completion'))
        ELSE json_object() END))
WHERE json_type(result, '$.tokens.url_prompt') IS NOT NULL;
