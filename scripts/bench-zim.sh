#!/usr/bin/env bash
# Wikipedia from a ZIM file, measured: writes a made-up Wikipedia ZIM of N articles (100,000 by
# default; scripts/make-bench-zim.py with PyPI libzim in a virtual environment of its own,
# ~/.cache/factdesk/zim-venv; the file is kept in ~/.cache/factdesk/bench-zim and reused),
# runs `factdesk-bench zim` on it twice (lookup p50/p95, the product's path, memory), then
# the same kinds of lookups against kiwix-serve (Debian kiwix-tools) serving the same file on
# loopback, the out-of-process alternative. Prints figures; passes no judgement.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

articles="${1:-100000}"
ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" python3-venv kiwix-tools

python="$(ensure_venv zim-venv libzim libzim==3.13.1)"
dir="$HOME/.cache/factdesk/bench-zim"
zim="$dir/bench-$articles.zim"
mkdir -p "$dir"
if [ ! -f "$zim" ] || [ ! -f "$zim.titles" ]; then
  say "writing $zim"
  "$python" scripts/make-bench-zim.py "$articles" "$zim"
fi

say "building the benchmark (release)"
cargo build --quiet --release -p factdesk-bench
for run in 1 2; do
  say "factdesk, run $run"
  "$CARGO_TARGET_DIR/release/factdesk-bench" zim "$zim"
done

port=18734
say "kiwix-serve on 127.0.0.1:$port"
kiwix-serve --address=127.0.0.1 --port=$port "$zim" >/dev/null 2>&1 &
kiwix=$!
trap 'kill $kiwix 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
  sleep 0.2
done
python3 scripts/bench-zim-kiwix.py "$zim.titles" "$port" "bench-$articles" "$kiwix" 2000
