#!/usr/bin/env bash
# Trains Factdesk's grounding verifier from all-MiniLM-L6-v2 on HaluEval's training range
# (training/verifier/split.json) with Python and PyTorch from PyPI in a virtual environment of
# its own (~/.cache/factdesk/train-venv). Deterministic for a given seed, thread count and
# processor. Then fits the verifier's premise-size calibration (calibration.json) on the dev
# slice, from the premises `factdesk-bench verifier --dev --dump` judges with the new model.
# The claim-only control (the same recipe without evidence, a column of the verifier
# benchmark) is a run of its own.
#
#   bash scripts/train-verifier.sh            # the verifier (on 2 cores with native bfloat16:
#                                             # under an hour from a clean clone, see the model
#                                             # card): writes assets/models/factdesk-verifier
#                                             # (shipped)
#   bash scripts/train-verifier.sh --control  # the claim-only control (about 10 min more):
#                                             # ~/.cache/factdesk/verifier-control, which
#                                             # scripts/bench-verifier.sh measures beside it
#   bash scripts/train-verifier.sh --smoke    # the short form CI runs: 40 items per dataset,
#                                             # 64 pairs, into a temporary folder
#
# Weights are committed once per release of the model, never per experiment: to try a recipe,
# set FACTDESK_VERIFIER_OUT to a folder outside the repository.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

mode=verifier
case "${1:-}" in
  "") ;;
  --smoke) mode=smoke ;;
  --control) mode=control ;;
  *) echo "usage: bash scripts/train-verifier.sh [--smoke | --control]" >&2; exit 2 ;;
esac

bash "$FACTDESK_ROOT/scripts/fetch-models.sh"
data="$(ensure_halueval)"
base="${FACTDESK_MODELS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/factdesk/models}/all-MiniLM-L6-v2"

work="$HOME/.cache/factdesk/verifier-training"
if [ "$mode" = verifier ]; then
  # The calibration step needs the benchmark in release, without the embedded chat model (it
  # judges with the verifier alone; llama.cpp's C++ build was 7.3 of the 14.9 minutes of a
  # cold build with it). It builds while PyTorch installs and the examples are made, and is waited for
  # before training: PyTorch's two threads sharing the cores with a compiler ran five times
  # slower (2.9 pairs/s instead of 14).
  ensure_rust
  mkdir -p "$work"
  say "building factdesk-bench (release, no embedded model) in the background (log: $work/build.log)"
  setsid -w cargo build --release -p factdesk-bench --no-default-features >"$work/build.log" 2>&1 &
  build=$!
  trap 'kill -- -"$build" 2>/dev/null || true' EXIT
fi

venv="$HOME/.cache/factdesk/train-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import torch, transformers, tokenizers, scipy, sklearn" 2>/dev/null; then
  say "installing the trainer's packages into $venv (PyTorch is large: a few minutes)"
  python3 -m venv "$venv" 2>/dev/null || { ensure_apt_packages python3-venv; python3 -m venv "$venv"; }
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet torch==2.15.0 transformers==5.23.0 tokenizers==0.23.3 safetensors==0.8.0 \
    scipy==1.17.1 scikit-learn==1.9.1
fi
python="$venv/bin/python"

if [ "$mode" = smoke ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  say "smoke run in $work"
  python3 training/verifier/data.py "$data" "$work/train.jsonl" --limit 40
  python3 training/verifier/data.py "$data" "$work/dev.jsonl" --part dev --limit 20
  "$python" training/verifier/train.py "$base" "$work/train.jsonl" "$work/dev.jsonl" "$work/model" \
    --pairs 64 --dev-examples 40
  for file in model.safetensors config.json tokenizer.json training.json; do
    [ -s "$work/model/$file" ] || { echo "error: the smoke run wrote no $file" >&2; exit 1; }
  done
  "$python" training/verifier/score.py "$work/dev.jsonl" "$work/model" --kinds qa,summary 2>&1 | grep -v -i warn
  say "smoke calibration (a few dev items)"
  # The whole workspace, as the tests build it: after scripts/test.sh this only links.
  cargo build --quiet --workspace --all-targets
  "$CARGO_TARGET_DIR/debug/factdesk-bench" verifier "$data" --dev --verifier "$work/model" \
    --qa-items 6 --summary-items 3 --llm-items 0 --dump "$work/dev-premises.jsonl" >/dev/null
  "$python" training/verifier/calibrate.py "$work/dev-premises.jsonl" "$work/model/calibration.json"
  [ -s "$work/model/calibration.json" ] || { echo "error: the smoke run wrote no calibration.json" >&2; exit 1; }
  say "smoke run passed"
  exit 0
fi

out="${FACTDESK_VERIFIER_OUT:-$FACTDESK_ROOT/assets/models/factdesk-verifier}"
control="${FACTDESK_VERIFIER_CONTROL:-$HOME/.cache/factdesk/verifier-control}"
mkdir -p "$work"
examples() {
  say "building training examples (training range only) in $work"
  python3 training/verifier/data.py "$data" "$work/train.jsonl"
  python3 training/verifier/data.py "$data" "$work/dev.jsonl" --part dev
}
plain=qa,summary,qa-swap,summary-swap,summary-perturbed
# Copies a staged model's files into its folder, each file whole (written aside, then renamed).
install_model() {
  mkdir -p "$2"
  for file in "$1"/*; do
    cp "$file" "$2/$(basename "$file").part"
    mv "$2/$(basename "$file").part" "$2/$(basename "$file")"
  done
}

if [ "$mode" = control ]; then
  # Staged too: a run that stops leaves the earlier control as it was.
  stage="$work/control-new"
  rm -rf "$stage"
  examples
  say "training the claim-only control (log: $work/control.log)"
  "$python" training/verifier/train.py "$base" "$work/train.jsonl" "$work/dev.jsonl" "$stage" --claim-only 2>&1 \
    | tee "$work/control.log" | grep -v -i warn
  say "dev figures (training range) of the plain HaluEval kinds and the swaps"
  "$python" training/verifier/score.py "$work/dev.jsonl" "$stage" --kinds "$plain" --claim-only --json "$work/dev-control.json" 2>&1 | grep -v -i warn
  install_model "$stage" "$control"
  say "control: $control. Measure it beside the verifier with: bash scripts/bench-verifier.sh"
  exit 0
fi

# The new model is staged in $work and replaces the one in $out only once it is calibrated, so
# a run that stops leaves the model there as it was.
stage="$work/verifier-new"
rm -rf "$stage"
examples
say "waiting for the build of factdesk-bench"
if ! wait "$build"; then
  trap - EXIT
  tail -n 30 "$work/build.log" >&2
  echo "error: building factdesk-bench failed (log above, whole in $work/build.log); nothing was trained and $out is unchanged: fix the build and run this script again" >&2
  exit 1
fi
trap - EXIT
say "training the verifier (log: $work/verifier.log)"
"$python" training/verifier/train.py "$base" "$work/train.jsonl" "$work/dev.jsonl" "$stage" 2>&1 \
  | tee "$work/verifier.log" | grep -v -i warn
# (train.py's log has the dev figures of 1,200 dev examples, and calibrate.py those of the dev
# premises; the figures of every dev example of the plain kinds are a command of their own,
# printed at the end: 2 minutes more.)
say "fitting the premise-size calibration on the dev slice (premises judged by the new model)"
"$CARGO_TARGET_DIR/release/factdesk-bench" verifier "$data" --dev --verifier "$stage" \
  --qa-items 300 --summary-items 250 --llm-items 0 --dump "$work/dev-premises.jsonl" | tee "$work/dev-bench.txt"
"$python" training/verifier/calibrate.py "$work/dev-premises.jsonl" "$stage/calibration.json" | tee "$work/calibration.log"
install_model "$stage" "$out"
say "verifier: $out. Measure it on the evaluation range with: bash scripts/bench-verifier.sh (the claim-only control beside it: bash scripts/train-verifier.sh --control first)"
say "the dev figures of every dev example of the plain kinds: $python training/verifier/score.py $work/dev.jsonl $out --kinds $plain"
