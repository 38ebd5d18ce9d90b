#!/usr/bin/env bash
# Builds the Debian package of Factdesk: the desktop app (Tauri's bundler), the `factdesk`
# command-line tool and the offline models (the embedded chat model, all-MiniLM-L6-v2 and
# Factdesk's verifier, in /usr/lib/factdesk/models, used when ~/.local/share/factdesk/models
# does not exist). The package is written to
#   $CARGO_TARGET_DIR/release/bundle/deb/Factdesk_<version>_amd64.deb
# and its path printed last. Install it with `sudo apt install ./Factdesk_<version>_amd64.deb`
# (apt brings the libraries it depends on); start `factdesk-app`, or Factdesk from the menu.
#
#   bash scripts/package.sh           build the package
#   bash scripts/package.sh --check   build it, then install it into a fresh Debian chroot
#                                     (debootstrap) and start the app and the CLI there
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

check=false
case "${1:-}" in
  "") ;;
  --check) check=true ;;
  *) echo "usage: bash scripts/package.sh [--check]" >&2; exit 2 ;;
esac

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" "${APP_PACKAGES[@]}"
stage="$CARGO_TARGET_DIR/package"
say "gathering the models into $stage/models"
FACTDESK_MODELS_DIR="$stage/models" bash "$FACTDESK_ROOT/scripts/fetch-models.sh"
build_ui
say "building the command-line tool (release)"
cargo build --release -p factdesk-cli
# Release builds keep line tables for profiles; the packaged programs go without them.
mkdir -p "$stage/bin"
strip -o "$stage/bin/factdesk" "$CARGO_TARGET_DIR/release/factdesk"
config=$(python3 - "$stage/bin/factdesk" "$stage/models" <<'PY'
import json, sys
cli, models = sys.argv[1:3]
print(json.dumps({"bundle": {"linux": {"deb": {"files": {
    "/usr/bin/factdesk": cli,
    "/usr/lib/factdesk/models": models,
}}}}}))
PY
)
say "building the desktop app (release)"
tauri="$FACTDESK_ROOT/ui/node_modules/.bin/tauri"
"$tauri" build --no-bundle --config "$config"
# The bundler packs the program where cargo put it, so it is stripped there (a later release
# build of the app links it again).
strip "$CARGO_TARGET_DIR/release/factdesk-app"
say "packaging (Tauri's bundler)"
"$tauri" bundle --bundles deb --config "$config"
version=$(grep -m1 '^version' "$FACTDESK_ROOT/Cargo.toml" | cut -d'"' -f2)
deb="$CARGO_TARGET_DIR/release/bundle/deb/Factdesk_${version}_amd64.deb"
[ -f "$deb" ] || { echo "error: the bundler wrote no $deb" >&2; exit 1; }

if $check; then
  bash "$FACTDESK_ROOT/scripts/package-check.sh" "$deb"
fi
say "package: $deb ($(du -h "$deb" | cut -f1))"
printf '%s\n' "$deb"
