#!/usr/bin/env bash
# Judges of evidence on HaluEval's evaluation range (QA 5000–9999, summarization 8000–9999),
# with the evidence given: the trained verifier (assets/models/factdesk-verifier, installed by
# fetch-models.sh) with its premise-size calibration and, from the same model calls, its model
# alone, the lexical baseline (the share of a claim's content words found in the evidence), the
# claim-only control (if scripts/train-verifier.sh --control has trained one) and LLM-instructed NLI with
# the embedded model (on a few items: it is slow). Prints balanced
# accuracy, ROC AUC, precision and recall of "not supported", calibration error, the share of
# swapped-evidence claims judged not supported, pairs/s and the model's load time.
# Extra arguments go to `factdesk-bench verifier` (e.g. --qa-items 1000 --llm-items 0 --json).
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}"
bash "$FACTDESK_ROOT/scripts/fetch-models.sh"
data="$(ensure_halueval)"
control="${FACTDESK_VERIFIER_CONTROL:-$HOME/.cache/factdesk/verifier-control}"
control_args=()
if [ -s "$control/model.safetensors" ]; then
  control_args=(--control "$control")
else
  say "no claim-only control in $control (bash scripts/train-verifier.sh --control trains one); measuring without it"
fi
say "building the benchmark (release)"
cargo build --quiet --release -p factdesk-bench
"$CARGO_TARGET_DIR/release/factdesk-bench" verifier "$data" "${control_args[@]}" "$@"
