#!/usr/bin/env bash
# The long form of the property tests (the short form runs in CI with proptest's default 256
# cases per property): the decoders, the HTML, Markdown and plain-text extractors, sentence
# segmentation, URL handling, text normalisation (the same text as before it was made one
# pass) and the search index's analyzer (the same tokens as tantivy's en_stem) on generated
# inputs, in release builds; then the claim and corpus readers (CSV, JSONL) in the test
# suite's debug build (factdesk-core links the model runtime, whose release build would take
# longer than the run).
#   bash scripts/fuzz.sh            # 100,000 cases per property
#   CASES=1000000 bash scripts/fuzz.sh
# Prints, per property file, the cases tried and the time; a failure prints proptest's
# minimal failing input and the script exits non-zero.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"
ensure_rust
CASES="${CASES:-100000}"
start=$(date +%s)
for package in factdesk-text factdesk-fetch; do
  say "$package: $CASES cases per property"
  PROPTEST_CASES="$CASES" cargo test --release -p "$package" --test properties -- --test-threads 2
done
for package in factdesk-text factdesk-index; do
  say "$package (properties inside the library): $CASES cases per property"
  PROPTEST_CASES="$CASES" cargo test --release -p "$package" --lib -- --test-threads 2 property_
done
say "factdesk-core (claim and corpus readers): $CASES cases per property"
PROPTEST_CASES="$CASES" cargo test --workspace --all-targets -- --test-threads 2 \
  claims::tests::property_ formats::tests::property_
say "done: $CASES cases per property in $(( $(date +%s) - start )) s"
