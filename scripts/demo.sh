#!/usr/bin/env bash
# The main job on the bundled demo, with the embedded default model (installed by
# scripts/fetch-models.sh): builds the factdesk CLI, imports the demo corpus (one file in each
# format) and the demo claims, checks every claim end to end against the corpus (corpus-NLI:
# retrieval + NLI with Factdesk's trained verifier, fully offline), writes reports (Markdown, HTML, ClaimReview), scores the
# verdicts against the claims' labels, and checks one claim with LLM-Cite offline (the model
# proposes Wikipedia URLs, read from the demo's tiny Wikipedia, assets/demo/wikipedia.zim,
# made of the demo corpus by scripts/make-demo-zim.py; no network).
# Data goes to .factdesk/demo in the repository (or FACTDESK_DATA_DIR); run it again at will:
# a finished run is answered from the model-call record, an interrupted one continues.
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

say "the embedded model (SmolLM2-135M: small enough to try Factdesk offline, weak at judging, so evidence is judged by the trained verifier)"
"$factdesk" models check

say "checking every demo claim against the demo corpus (corpus-NLI, judged by factdesk-verifier)"
"$factdesk" verify --collection demo --method corpus-nli --corpus demo

reports="$FACTDESK_DATA_DIR/reports"
mkdir -p "$reports"
say "writing reports to $reports"
for format in md html csv; do
  "$factdesk" report --collection demo --format "$format" -o "$reports/demo.$format"
done
# ClaimReview is published by a newsroom ([publish] in the settings); no one has reviewed the
# demo's verdicts, so they are published as the machine's, marked as such.
config="$("$factdesk" config --path)"
if ! grep -q '^\[publish\]' "$config" 2>/dev/null; then
  printf '\n[publish]\nnewsroom = "Factdesk demo"\n' >> "$config"
fi
"$factdesk" report --collection demo --format claimreview --machine-verdicts -o "$reports/demo.claimreview"
sed -n '1,40p' "$reports/demo.md"

say "scoring the verdicts against the claims' labels"
"$factdesk" eval --collection demo

say "one claim with LLM-Cite, offline: the model's Wikipedia URLs read from assets/demo/wikipedia.zim"
config="$("$factdesk" config --path)"
if ! grep -q '^wikipedia_zim' "$config"; then
  if grep -q '^\[fetch\]' "$config"; then
    say "note: $config has its own [fetch] section; add wikipedia_zim = \"$FACTDESK_ROOT/assets/demo/wikipedia.zim\" to it"
  else
    printf '\n[fetch]\nwikipedia_zim = "%s"\n' "$FACTDESK_ROOT/assets/demo/wikipedia.zim" >>"$config"
  fi
fi
FACTDESK_OFFLINE=1 "$factdesk" verify "Mount Everest was first climbed in 1953." --method llm-cite

say "checking that the search index matches the database"
"$factdesk" reindex --check
say "done: open $reports/demo.html in a browser"
