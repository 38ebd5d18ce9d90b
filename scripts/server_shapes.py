"""What the answers of one scripts/bench-server.sh run gave, read from its database.

Usage: server_shapes.py MODE DATABASE

Prints, for the run with shaped answers MODE (off or on): LLM-Cite's claims with at least one
proposed URL, RARR's sentences the model gave a search about (and those whose searches were
all about something else, searched for as they are instead), TTS's sources whose leave-one-out
draft gave claims, and per prompt template the calls, how many carried a JSON Schema or a GBNF
grammar, what became of it (accepted, refused, withheld) and the share of answers in shape: a
JSON object holding the schema's required fields (raw control characters in its strings read
as escaped, as Factdesk reads them), or for LLM-Cite's URL grammar lines that are
each a Wikipedia URL; and how many answers were cut at the template's max_tokens (column
"cut": a free-text answer, such as a TTS draft, is then unfinished, a shaped one may be cut
mid-JSON). Standard library only.
"""

import json
import re
import sqlite3
import sys
from collections import defaultdict


def share(part, whole):
    return f"{part}/{whole} ({100.0 * part / whole:.0f}%)" if whole else "0/0"


def in_shape(text, schema):
    """Whether `text` is (or holds, inside a code fence) a JSON object with the schema's required fields.

    Read as Factdesk reads it (factdesk-methods' shape.rs): a line break or other control
    character written raw inside a string, which llama.cpp's JSON grammar lets through, is
    taken as if escaped."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return False
    try:
        value = json.loads(text[start : end + 1], strict=False)
    except ValueError:
        return False
    return isinstance(value, dict) and all(field in value for field in schema.get("required", []))


def in_url_grammar(text):
    """Whether `text` is lines that are each a Wikipedia article URL (LLM-Cite's grammar)."""
    lines = text.split("\n")
    return bool(text) and all(re.fullmatch(r"https://[a-z]{2,3}\.wikipedia\.org/wiki/\S+", line) for line in lines)


def main():
    mode, database = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(database)
    print(f"\n== shaped answers {mode}")

    checks = [json.loads(row[0]) for row in db.execute("SELECT result FROM checks WHERE method = 'llm-cite'")]
    # LLM-Cite's URLs are in the check's `detail` (before 4ca2913: the check's own `urls`).
    with_url = sum(1 for check in checks if check.get("urls") or (check.get("detail") or {}).get("urls"))
    print(f"LLM-Cite: claims with a proposed URL      {share(with_url, len(checks))}")

    revisions = [json.loads(row[0]) for row in db.execute("SELECT result FROM checks WHERE method = 'rarr'")]
    for revision in revisions:
        text = json.dumps(revision)
        unsearched = text.count("the model gave no searches for this sentence")
        # A sentence whose searches were all off-topic is searched for as it is (RARR's
        # fallback): checked, but not by a search of the model's.
        itself = text.count("the sentence itself was searched for")
        sentences = len([s for s in revision.get("original", "").split(". ") if s.strip()])
        print(f"RARR: sentences with searches              {share(sentences - unsearched - itself, sentences)}")
        print(f"RARR: sentences searched for as they are   {share(itself, sentences)}")

    summaries = [json.loads(row[0]) for row in db.execute("SELECT result FROM checks WHERE method = 'tts'")]
    for summary in summaries:
        sources = len(summary.get("sources", []))
        # The run's notes, one per source whose draft gave no claims, are in its explanation
        # now (they were a `notes` list, which this line read: it counted none once it was gone).
        text = json.dumps(summary)
        empty = sum(
            text.count(f"leave-one-out draft {what}") for what in ("gave no claims", "was empty", "failed")
        )
        print(f"TTS: sources whose draft gave claims       {share(sources - empty, sources)}")

    calls = defaultdict(
        lambda: {"calls": 0, "shaped": 0, "in_shape": 0, "cut": 0, "outcomes": defaultdict(int)}
    )
    for template, parameters, response in db.execute(
        "SELECT template_id, parameters, response FROM model_calls WHERE kind = 'completion'"
    ):
        parameters, response = json.loads(parameters), json.loads(response)
        row = calls[template or "(none)"]
        row["calls"] += 1
        constraint = parameters.get("constraint") or {}
        schema = constraint.get("value") if constraint.get("kind") == "json_schema" else None
        grammar = constraint.get("value") if constraint.get("kind") == "grammar" else None
        if schema is not None or grammar is not None:
            row["shaped"] += 1
        row["outcomes"][response.get("constraint") or "-"] += 1
        choices = response.get("choices") or [{}]
        text = choices[0].get("text", "")
        if choices[0].get("finish_reason") == "length":
            row["cut"] += 1
        if (schema is not None and in_shape(text, schema)) or (grammar is not None and in_url_grammar(text)):
            row["in_shape"] += 1
    print(f"{'template':<28} {'calls':>6} {'shaped':>7}  {'in shape':<14} {'cut':>4}  constraint")
    for template in sorted(calls):
        row = calls[template]
        outcomes = ", ".join(f"{name} {count}" for name, count in sorted(row["outcomes"].items()))
        print(
            f"{template:<28} {row['calls']:>6} {row['shaped']:>7}  "
            f"{share(row['in_shape'], row['shaped']):<14} {row['cut']:>4}  {outcomes}"
        )


if __name__ == "__main__":
    main()
