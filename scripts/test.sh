#!/usr/bin/env bash
# Installs what the tests need (Debian packages, the UI's npm packages), builds the UI, and runs
# every test of the workspace, the desktop app's included.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" "${APP_PACKAGES[@]}"
build_ui
say "running the tests"
cargo test --workspace --all-targets "$@"
