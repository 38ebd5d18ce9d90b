#!/usr/bin/env bash
# The contrast benchmark: does the offline verifier catch a changed fact? Builds contrast sets
# from HaluEval's news summaries (training/verifier/contrast.py: sentences of right summaries
# with one number, year or date, name, negation, antonym or pair of roles changed, the
# unchanged sentences, and the same sentences against another item's article) into
# ~/.cache/factdesk/contrast/<range>.jsonl, then judges them as the product judges evidence
# (`factdesk-bench contrast`: the installed verifier, calibrated and with fact alignment,
# under the grounding rule; also without fact alignment, and the lexical baseline) and prints,
# per edit kind, the share supported, not supported and refuted, the mean support and pairs/s.
# The default is the evaluation range (summarization items 8000–9999): report-only figures,
# never tuned on. --dev uses the dev slice of the training range (7500–7999), where tuning
# belongs. FACTDESK_CONTRAST_PER_KIND (default 200) caps the cases of each kind.
# FACTDESK_CPU_LOCK, if set, names a lock file that the build and the benchmark hold (flock),
# for machines shared by several jobs.
# Usage: bash scripts/bench-contrast.sh [--dev] [extra `factdesk-bench contrast` arguments,
#        e.g. --limit 50, --json, --verifier DIR, --nli-cache FILE to replay the model's
#        judgements when only the alignment changed]
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

range=eval
if [ "${1:-}" = "--dev" ]; then
  range=dev
  shift
fi

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}"
bash "$FACTDESK_ROOT/scripts/fetch-models.sh"
data="$(ensure_halueval)"
locked=()
if [ -n "${FACTDESK_CPU_LOCK:-}" ]; then
  locked=(flock "$FACTDESK_CPU_LOCK")
fi

sets="$HOME/.cache/factdesk/contrast"
mkdir -p "$sets"
cases="$sets/$range.jsonl"
say "building the $range contrast sets into $cases"
"${locked[@]}" python3 training/verifier/contrast.py "$data" "$cases" --range "$range" \
  --per-kind "${FACTDESK_CONTRAST_PER_KIND:-200}"
say "building the benchmark (release, without the embedded model)"
"${locked[@]}" cargo build --quiet --release -p factdesk-bench --no-default-features
"${locked[@]}" "$CARGO_TARGET_DIR/release/factdesk-bench" contrast "$cases" "$@"
