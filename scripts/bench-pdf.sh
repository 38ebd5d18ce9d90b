#!/usr/bin/env bash
# PDF import throughput: writes PDFs of the first N HaluEval news articles (1,000 by default;
# scripts/make-bench-pdfs.py with PyPI reportlab in a virtual environment of its own,
# ~/.cache/factdesk/pdf-venv; kept in ~/.cache/factdesk/bench-pdf and reused), then imports the
# folder twice into fresh data directories with the release CLI and prints MB/s of PDF read,
# pages and sentences. Prints figures; passes no judgement.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

count="${1:-1000}"
ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" python3-venv
file="$(ensure_halueval)/dataset_halueval_summarization.jsonl"
python="$(ensure_venv pdf-venv reportlab reportlab==5.1.0)"
pdfs="$HOME/.cache/factdesk/bench-pdf/$count"
if [ ! -d "$pdfs" ] || [ "$(ls "$pdfs" | wc -l)" -ne "$count" ]; then
  rm -rf "$pdfs"
  say "writing $count PDFs to $pdfs"
  "$python" scripts/make-bench-pdfs.py "$file" "$count" "$pdfs"
fi

say "building the CLI (release)"
cargo build --quiet --release -p factdesk-cli
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for run in 1 2; do
  rm -rf "$work/data"
  export FACTDESK_DATA_DIR="$work/data"
  "$CARGO_TARGET_DIR/release/factdesk" init >/dev/null
  started=$(date +%s.%N)
  "$CARGO_TARGET_DIR/release/factdesk" import "$pdfs" --corpus pdfs --json >"$work/summary.json"
  ended=$(date +%s.%N)
  python3 - "$work/summary.json" "$started" "$ended" "$run" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
wall, run = float(sys.argv[3]) - float(sys.argv[2]), sys.argv[4]
size, seconds = summary["bytes"], summary["seconds"]
print(f"run {run}: {summary['imported']} PDFs, {summary['sentences']} sentences, "
      f"{summary['failed']} failed, {size / 2**20:.1f} MiB in {seconds:.1f} s "
      f"({wall:.1f} s with start-up): {size / 2**20 / seconds:.2f} MiB/s of PDF, "
      f"{summary['imported'] / seconds:.1f} files/s")
PY
done
