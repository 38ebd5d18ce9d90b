#!/usr/bin/env bash
# Installs what the tests need (Debian packages, the model files, the UI's npm packages), builds
# the UI, checks that a wrong argument name fails its type check (ui/type-tests), and runs every
# test of the workspace, the desktop app's and the embedded model's.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" "${APP_PACKAGES[@]}"
bash "$FACTDESK_ROOT/scripts/fetch-models.sh"
build_ui
say "checking that a wrong argument name in the UI fails tsc (ui/type-tests)"
(cd "$FACTDESK_ROOT/ui" && npm run --silent test:types)
# The Python WARC tools that check the WACZ packages Factdesk writes (crates/factdesk-archive).
FACTDESK_WARC_PYTHON="$(ensure_venv warc-venv "warcio, wacz" warcio==1.8.1 wacz==0.6.0)"
export FACTDESK_WARC_PYTHON
say "running the tests"
cargo test --workspace --all-targets "$@"
