#!/usr/bin/env bash
# Writes the UI's TypeScript types (ui/src/bindings/) again from the Rust types the desktop
# commands take and give (src-tauri/src/bindings.rs), after a Rust type at the boundary changed.
# The test suite fails while the committed files differ from what this writes.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"
ensure_rust
# Only the desktop crate holds the types and the test that writes them.
FACTDESK_WRITE_UI_TYPES=1 cargo test -p factdesk-app --lib -- bindings::tests::ui_bindings_match_the_rust_types
say "wrote $(ls ui/src/bindings | wc -l) files in ui/src/bindings"
