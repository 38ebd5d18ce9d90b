#!/usr/bin/env bash
# Model-layer benchmarks; prints figures, passes no judgement.
#  1. The embedded model's prompt-processing and generation speed (tokens/s) from two builds of
#     factdesk-bench: portable (llama.cpp for plain x86-64) and `-C target-cpu=native` (which
#     makes llama-cpp-sys-2 build llama.cpp with GGML_NATIVE). The native build lives in its own
#     target folder, so the shared one is untouched.
#  2. llama.cpp's own llama-bench, built natively (from llama-cpp-python's copy of llama.cpp, as
#     the crate ships none of llama.cpp's tools), as the figure to approach (skip with
#     --no-llama-bench).
#  3. HTTP throughput of the OpenAI-compatible provider against a loopback mock server that
#     answers after 500 ms, against the bound its concurrency limit allows.
# AMX stays off in native builds: ggml's AMX kernels crashed on this machine's CPU once.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}"
bash "$FACTDESK_ROOT/scripts/fetch-models.sh"
model="${FACTDESK_MODELS_DIR:-$HOME/.local/share/factdesk/models}/SmolLM2-135M-Instruct.Q4_1.gguf"
llama_bench=1
[ "${1:-}" = "--no-llama-bench" ] && llama_bench=0

no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"

say "building factdesk-bench (release, portable)"
cargo build --quiet --release -p factdesk-bench
portable="$CARGO_TARGET_DIR/release/factdesk-bench"

native_dir="${CARGO_TARGET_DIR}-native"
say "building factdesk-bench (release, -C target-cpu=native) in $native_dir"
RUSTFLAGS="-C target-cpu=native" CFLAGS="$no_amx" CXXFLAGS="$no_amx" \
  CARGO_TARGET_DIR="$native_dir" cargo build --quiet --release -p factdesk-bench
native="$native_dir/release/factdesk-bench"

say "embedded model speed"
"$portable" model-speed --model "$model" --build portable
echo
"$native" model-speed --model "$model" --build native
echo

if [ "$llama_bench" = 1 ]; then
  # llama-cpp-sys-2 ships llama.cpp without its tools/, so llama-bench comes from the llama.cpp
  # copy inside the llama-cpp-python source package on PyPI (pinned; ggml 0.25.3, one minor
  # version behind the crate's 0.26.0).
  sdist_version=0.3.36
  sources="$HOME/.cache/factdesk/llama-cpp-python"
  source_dir="$sources/llama_cpp_python-$sdist_version/vendor/llama.cpp"
  if [ ! -f "$source_dir/tools/llama-bench/llama-bench.cpp" ]; then
    say "downloading llama-cpp-python $sdist_version (source) from PyPI for llama.cpp's llama-bench"
    mkdir -p "$sources"
    python3 -m pip download --quiet --no-deps --no-binary :all: \
      "llama-cpp-python==$sdist_version" -d "$sources"
    tar -xzf "$sources/llama_cpp_python-$sdist_version.tar.gz" -C "$sources"
  fi
  build_dir="$HOME/.cache/factdesk/llama-bench"
  if [ ! -x "$build_dir/bin/llama-bench" ]; then
    say "building llama.cpp's llama-bench (native, AMX off) from $source_dir"
    CFLAGS="$no_amx" CXXFLAGS="$no_amx" cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
      -DGGML_NATIVE=ON -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
      -DLLAMA_BUILD_SERVER=OFF -DBUILD_SHARED_LIBS=OFF >/dev/null
    cmake --build "$build_dir" --target llama-bench -j "$(nproc)" >/dev/null
  fi
  say "llama.cpp llama-bench (native)"
  "$build_dir/bin/llama-bench" -m "$model" -p 512 -n 128 -r 5 -t "$(nproc)"
  echo
fi

say "HTTP throughput against a 500 ms mock server"
"$portable" http-throughput --latency-ms 500
