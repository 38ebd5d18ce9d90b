#!/usr/bin/env bash
# The long form of the kill campaign: a batch run and a folder import, each killed with
# SIGKILL again and again (CYCLES times, default 50) and then finished, checking that nothing is
# lost or stored twice and that the search index agrees with the database
# (crates/factdesk-cli/tests/cli.rs, `the_kill_campaign_loses_nothing_and_repeats_nothing`; CI
# runs it with 3 kills per part). Prints the campaign's summary line.
#   bash scripts/campaign.sh
#   CYCLES=200 bash scripts/campaign.sh
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"
ensure_rust
# The same build as the test suite's (scripts/test.sh), so nothing is compiled twice.
log="$(mktemp)"
status=0
FACTDESK_CAMPAIGN_CYCLES="${CYCLES:-50}" cargo test --workspace --all-targets -- \
  the_kill_campaign_loses_nothing_and_repeats_nothing --nocapture >"$log" 2>&1 || status=$?
grep -E "campaign:|the_kill_campaign .*(ok|FAILED)|panicked|assert" "$log" || tail -20 "$log"
rm -f "$log"
exit "$status"
