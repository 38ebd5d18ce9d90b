#!/usr/bin/env bash
# Memory and search at a million sentences: makes a JSONL of the HaluEval news articles
# repeated COPIES times (default 4, about 1.2M sentences; each copy's articles open with a
# sentence naming the copy, so none is a duplicate), imports it with factdesk-bench, then
# reports in fresh processes: search latency and resident memory once idle (the core library
# as the CLI and the app hold it), the CLI's peak memory for one search, and, when the desktop
# app is built (target/release/factdesk-app, or the binary FACTDESK_APP names) and Xvfb is
# present, the app's idle memory with its web view. Prints figures; passes no judgement.
source "$(dirname "$0")/lib.sh"
cd "$FACTDESK_ROOT"

copies="${COPIES:-4}"
ensure_rust
ensure_apt_packages "${CORE_PACKAGES[@]}" time
file="$(ensure_halueval)/dataset_halueval_summarization.jsonl"

say "building the benchmark and the CLI (release)"
cargo build --quiet --release -p factdesk-bench -p factdesk-cli
bench="$CARGO_TARGET_DIR/release/factdesk-bench"

work="${FACTDESK_BENCH_DIR:-$(mktemp -d)}"
[ -n "${FACTDESK_BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
say "writing $copies copies of the articles to $work/copies.jsonl"
python3 - "$file" "$work/copies.jsonl" "$copies" <<'EOF'
import json, sys
source, target, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(target, "w", encoding="utf-8") as out:
    for copy in range(copies):
        for line in open(source, encoding="utf-8"):
            item = json.loads(line)
            item["document"] = f"This is copy {copy + 1} of the article. " + item["document"]
            out.write(json.dumps(item) + "\n")
EOF

rm -rf "$work/data"
say "importing"
"$bench" import-search "$work/copies.jsonl" --data-dir "$work/data" --max-file-bytes 4000000000
say "searching in a fresh process"
"$bench" open-search "$work/data" --queries-from "$file"

query="$(python3 -c 'import json,sys; print(" ".join(json.loads(open(sys.argv[1]).readline())["right_summary"].split()[:8]))' "$file")"
peak_kb="$(/usr/bin/time -f %M "$CARGO_TARGET_DIR/release/factdesk" --data-dir "$work/data" \
  search "$query" 2>&1 >/dev/null | tail -1)"
echo "CLI search           peak RSS $((peak_kb / 1024)) MB (factdesk search, one query)"

app="${FACTDESK_APP:-$CARGO_TARGET_DIR/release/factdesk-app}"
if [ -x "$app" ] && command -v xvfb-run >/dev/null 2>&1; then
  say "starting the desktop app under Xvfb for 20 s"
  # Its own session, so that it and everything it starts stop together, and only they count.
  FACTDESK_DATA_DIR="$work/data" setsid xvfb-run -a "$app" >/dev/null 2>&1 &
  session=$!
  sleep 20
  python3 - "$app" "$session" <<'EOF'
import os, sys
app, root = os.path.realpath(sys.argv[1]), int(sys.argv[2])
def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0
def children(pid):
    out = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            out += [int(c) for c in open(f"/proc/{pid}/task/{task}/children").read().split()]
        except OSError:
            pass
    return out
def tree(pid):
    found, stack = [], [pid]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack += children(pid)
    return found
def exe(pid):
    try:
        return os.path.realpath(f"/proc/{pid}/exe")
    except OSError:
        return ""
main = [pid for pid in tree(root) if exe(pid) == app]
if not main:
    print("desktop app          did not start")
    sys.exit(0)
views = [pid for pid in tree(main[0]) if pid != main[0]]
own = rss_kib(main[0])
total = own + sum(rss_kib(pid) for pid in views)
print(f"desktop app idle     RSS {own / 1024:.0f} MB (app process), {total / 1024:.0f} MB "
      f"with its {len(views)} web view processes")
EOF
  kill -- "-$session" 2>/dev/null || true
else
  echo "desktop app          not measured (build it with: cargo build --release -p factdesk-app; needs xvfb-run)"
fi
