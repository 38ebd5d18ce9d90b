#!/usr/bin/env bash
# The long form of the fault campaigns (crates/factdesk-cli/tests/cli.rs; CI runs each once, short):
# - kills: a batch run and a folder import, each killed with SIGKILL again and again (CYCLES
#   times, default 50) and then finished, checking that nothing is lost or stored twice and that
#   the search index agrees with the database
#   (`the_kill_campaign_loses_nothing_and_repeats_nothing`; CI: 3 kills per part);
# - faults: a model server and a web server misbehaving in every listed way (rate limits, server
#   errors, silence, dripping, huge, cut-off and garbage answers, redirect loops), one claim per
#   fault in a collection run beside a healthy claim, ROUNDS times (default 10; CI: 1); each
#   faulty claim's outcome must name its fault and the run must go on
#   (`the_fault_campaign_names_every_fault_and_the_batch_goes_on`).
# Prints each campaign's summary line (tries, held, failed).
#   bash scripts/campaign.sh
#   CYCLES=200 ROUNDS=50 bash scripts/campaign.sh
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"
ensure_rust
# The same build as the test suite's (scripts/test.sh), so nothing is compiled twice.
log="$(mktemp)"
status=0
FACTDESK_CAMPAIGN_CYCLES="${CYCLES:-50}" FACTDESK_CAMPAIGN_ROUNDS="${ROUNDS:-10}" \
  cargo test --workspace --all-targets -- --test-threads 1 --nocapture \
  the_kill_campaign_loses_nothing_and_repeats_nothing \
  the_fault_campaign_names_every_fault_and_the_batch_goes_on >"$log" 2>&1 || status=$?
grep -E "campaign:|faults:|the_(kill|fault)_campaign .*(ok|FAILED)|panicked|assert" "$log" \
  || tail -20 "$log"
rm -f "$log"
exit "$status"
