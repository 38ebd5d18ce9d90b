#!/usr/bin/env bash
# Factdesk's shaped prompts against a real OpenAI-compatible server: llama-cpp-python's server
# (PyPI llama-cpp-python[server] 0.3.36, compiled here the first time: about 15 minutes on two
# cores) serving the embedded model's GGUF (SmolLM2-135M). The demo's work runs twice, with
# shaped answers off (every answer read as free text, as before) and on (each shaped prompt
# sends its GBNF grammar as llama.cpp's `grammar` where it has one, LLM-Cite's URLs, else its
# JSON Schema as response_format): LLM-Cite over the demo claims, RARR over a passage
# of them, and TTS over the demo corpus. It prints, per run, what the answers gave (claims with
# a proposed Wikipedia URL, sentences the model gave RARR a search about and those searched for
# as they are instead, sources whose leave-one-out draft gave claims) and, per prompt template,
# the share of answers in shape and how many were cut at the template's max_tokens. Not run
# by CI: it compiles
# llama.cpp. A benchmark, not a test: SmolLM2-135M is weak, the figures are about shape.
#
#   bash scripts/bench-server.sh            # both runs
#   bash scripts/bench-server.sh on         # shaped answers on only
#   FACTDESK_BIN=target/debug/factdesk bash scripts/bench-server.sh   # no release build
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"
die() { say "$*"; exit 1; }

if [ "$#" -gt 0 ]; then modes=("$@"); else modes=(off on); fi

ensure_rust
bash scripts/fetch-models.sh
models="${FACTDESK_MODELS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/factdesk/models}"
gguf="$models/SmolLM2-135M-Instruct.Q4_1.gguf"
[ -f "$gguf" ] || die "no $gguf (scripts/fetch-models.sh installs it)"
python="$(CMAKE_ARGS="-DGGML_NATIVE=OFF" ensure_venv server-venv "llama_cpp.server" \
  "llama-cpp-python[server]==0.3.36")"

# FACTDESK_BIN: a factdesk binary built before (a debug build serves: the server does the work).
factdesk="${FACTDESK_BIN:-}"
if [ -z "$factdesk" ]; then
  say "building the CLI"
  cargo build --release -p factdesk-cli
  factdesk="$CARGO_TARGET_DIR/release/factdesk"
fi

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
work="$(mktemp -d)"
say "starting llama.cpp's server on 127.0.0.1:$port (log: $work/server.log)"
"$python" -m llama_cpp.server --model "$gguf" --model_alias smollm2 --host 127.0.0.1 \
  --port "$port" --n_ctx 8192 --seed 0 >"$work/server.log" 2>&1 &
server=$!
# The runs' data and the server's log are kept in $work for reading afterwards.
trap 'kill "$server" 2>/dev/null; say "data and the server log kept in $work"' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break
  kill -0 "$server" 2>/dev/null || die "the server stopped: $(tail -5 "$work/server.log")"
  sleep 1
done
curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null || die "the server did not answer in 120 s"

# The demo claims as one passage for RARR, one sentence each.
passage="$(python3 -c 'import csv, sys; print(" ".join(row["claim"].strip().rstrip(".") + "." for row in csv.DictReader(open(sys.argv[1]))))' assets/demo/claims.csv)"

for mode in "${modes[@]}"; do
  case "$mode" in
    off) shaped=false ;;
    on) shaped=true ;;
    *) die "unknown mode '$mode': use off or on" ;;
  esac
  data="$work/$mode"
  export FACTDESK_DATA_DIR="$data"
  say "shaped answers $mode: the demo's work against the server (data in $data)"
  "$factdesk" init >/dev/null
  cat >>"$data/config.toml" <<EOF

[llm]
provider = "openai-compatible"
base_url = "http://127.0.0.1:$port/v1"
model = "smollm2"
max_concurrency = 1
cache = "off"
shaped_answers = $shaped

[fetch]
wikipedia_zim = "$FACTDESK_ROOT/assets/demo/wikipedia.zim"
EOF
  "$factdesk" import assets/demo/corpus --corpus demo >/dev/null
  "$factdesk" claims import assets/demo/claims.csv --collection demo >/dev/null
  FACTDESK_OFFLINE=1 "$factdesk" verify --collection demo --method llm-cite --json \
    >"$work/$mode-llm-cite.json" || say "LLM-Cite failed (see above)"
  "$factdesk" revise "$passage" --method rarr --evidence corpus --corpus demo --no-metrics --json \
    >"$work/$mode-rarr.json" || say "RARR failed (see above)"
  "$factdesk" summarize --question "What are the landmarks and discoveries these documents describe?" \
    --corpus demo --json >"$work/$mode-tts.json" || say "TTS failed (see above)"
  python3 scripts/server_shapes.py "$mode" "$data/factdesk.sqlite3"
  kill -0 "$server" 2>/dev/null || die "the server stopped during the run: $(tail -8 "$work/server.log")"
done
