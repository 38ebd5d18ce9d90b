#!/usr/bin/env bash
# Search peers side by side: runs Factdesk's import-and-search benchmark (scripts/bench.sh's)
# twice on the HaluEval news articles, then SQLite FTS5, bm25s and scikit-learn TF-IDF on the
# sentences that import stored and the same queries (Python peers in a virtual environment of
# their own, ~/.cache/factdesk/peers-venv), and prints one table of latencies, ratios and
# recall. Prints figures; passes no judgement.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" python3-venv
file="$(ensure_halueval)/dataset_halueval_summarization.jsonl"

python="$(ensure_venv peers-venv "bm25s, Stemmer, sklearn" bm25s==0.3.16 PyStemmer==3.1.0 \
  scikit-learn==1.9.1 numpy==2.4.6 scipy==1.17.1)"

say "building the benchmark (release)"
cargo build --quiet --release -p factdesk-bench

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for run in 1 2; do
  say "factdesk import and search, run $run"
  rm -rf "$work/data"
  "$CARGO_TARGET_DIR/release/factdesk-bench" import-search "$file" --data-dir "$work/data" \
    --export-queries "$work/queries.jsonl" --json >"$work/factdesk-$run.json"
  cat "$work/factdesk-$run.json" >&2
done
"$python" scripts/bench-peers.py "$work/data/factdesk.sqlite3" "$work/queries.jsonl" \
  "$work/factdesk-1.json" "$work/factdesk-2.json"
