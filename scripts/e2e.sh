#!/usr/bin/env bash
# End-to-end tests of the desktop window (ui/e2e/app.test.mjs): installs what they need
# (Debian packages, a virtual X display, WebKitWebDriver, tauri-driver, the model files and
# the test's npm packages), builds the UI and the debug app, and runs the tests under xvfb-run.
# Screenshots and tauri-driver's log go to ui/e2e/screenshots/ (or FACTDESK_E2E_SCREENSHOTS).
# Arguments are passed to `node --test` (e.g. --test-name-pattern=hostile).
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

TAURI_DRIVER_VERSION=2.1.0

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" "${APP_PACKAGES[@]}" xvfb xauth webkit2gtk-driver
ensure_node

# tauri-driver speaks WebDriver to the test and starts WebKitWebDriver, which starts the app.
if ! tauri-driver --help >/dev/null 2>&1 \
  || ! cargo install --list | grep -q "^tauri-driver v${TAURI_DRIVER_VERSION}:"; then
  say "installing tauri-driver ${TAURI_DRIVER_VERSION}"
  # Its own build folder: the shared one would rebuild it from scratch for every clone.
  CARGO_TARGET_DIR="$HOME/.cache/factdesk/tauri-driver-target" \
    cargo install tauri-driver --version "$TAURI_DRIVER_VERSION" --locked
fi
export PATH="$HOME/.cargo/bin:$PATH"

# The Settings test asks the embedded model to answer.
bash "$FACTDESK_ROOT/scripts/fetch-models.sh"

build_ui
say "building the desktop app (debug) and the scripted model the tests talk to"
cargo build -p factdesk-app
cargo build -p factdesk-testkit --bin factdesk-scripted-world

say "installing the end-to-end test's npm packages (ui/e2e)"
(cd ui/e2e && npm install --no-audit --no-fund --loglevel=error)

export FACTDESK_APP_BINARY="$CARGO_TARGET_DIR/debug/factdesk-app"
export FACTDESK_SCRIPTED_WORLD="$CARGO_TARGET_DIR/debug/factdesk-scripted-world"
export FACTDESK_E2E_REQUIRE_MODEL=1
say "running the end-to-end tests in a virtual display"
cd ui/e2e
# -a: a free display number; the screen is larger than the 1200x800 window.
xvfb-run -a --server-args="-screen 0 1280x900x24" \
  node --test --test-concurrency=1 --test-reporter=spec "$@" app.test.mjs
say "screenshots: ${FACTDESK_E2E_SCREENSHOTS:-$FACTDESK_ROOT/ui/e2e/screenshots}"
