#!/usr/bin/env bash
# The main job on the bundled demo: builds the factdesk CLI, imports the demo corpus (one file
# in each format), imports the demo claims, searches the corpus for evidence on each claim, and
# asks the embedded default model (installed by scripts/fetch-models.sh) a question.
# Data goes to .factdesk/demo in the repository (or FACTDESK_DATA_DIR); run it again at will.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}"
bash "$FACTDESK_ROOT/scripts/fetch-models.sh"
say "building the factdesk CLI"
cargo build --quiet -p factdesk-cli
factdesk="$CARGO_TARGET_DIR/debug/factdesk"
export FACTDESK_DATA_DIR="${FACTDESK_DATA_DIR:-$FACTDESK_ROOT/.factdesk/demo}"

say "data directory: $FACTDESK_DATA_DIR"
"$factdesk" init
say "importing the demo corpus"
"$factdesk" import assets/demo/corpus --corpus demo
say "importing the demo claims"
"$factdesk" claims import assets/demo/claims.csv --collection demo
"$factdesk" claims list --collection demo

say "searching the corpus for evidence on each claim"
tail -n +2 assets/demo/claims.csv | while IFS=, read -r claim _label _tags; do
  printf '\n\033[1mClaim:\033[0m %s\n' "$claim"
  "$factdesk" search "$claim" --corpus demo --limit 2
done

say "the embedded model (SmolLM2-135M, a small model for trying Factdesk offline)"
"$factdesk" models check
"$factdesk" ask "In one sentence: who discovered penicillin?" --max-tokens 40 --seed 1

say "checking that the search index matches the database"
"$factdesk" reindex --check
