#!/usr/bin/env bash
# Starts the desktop app from a clean clone: installs the Debian and npm packages it needs and
# the model files, builds the web UI, then builds and runs the app (debug) on your data
# directory (FACTDESK_DATA_DIR, else ~/.local/share/factdesk). Arguments go to cargo run.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" "${APP_PACKAGES[@]}"
bash "$FACTDESK_ROOT/scripts/fetch-models.sh"
build_ui
say "building and starting the desktop app"
cargo run -p factdesk-app "$@"
