#!/usr/bin/env bash
# Installs a Factdesk .deb into a fresh Debian 12 chroot and starts it there: the CLI (init,
# the models the package brings, an offline check with the packaged verifier) and the desktop
# app under Xvfb, with a screenshot. Needs root (chroot, mounts). The base system is made once
# with debootstrap and kept as a tarball; each check unpacks a fresh copy and removes it after.
#
#   bash scripts/package-check.sh PATH/TO/Factdesk_<version>_amd64.deb
source "$(dirname "$0")/lib.sh"

deb="${1:?usage: bash scripts/package-check.sh PACKAGE.deb}"
deb="$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"
[ -f "$deb" ] || { echo "error: no such package: $deb" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "error: the check needs root (chroot and mounts)" >&2; exit 2; }
ensure_apt_packages debootstrap xvfb x11-apps imagemagick

work="$CARGO_TARGET_DIR/package"
base="$work/bookworm-base.tar"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
if [ ! -s "$base" ]; then
  say "making a minimal Debian 12 system with debootstrap (once; kept in $base)"
  rm -rf "$work/bookworm-base"
  debootstrap --variant=minbase bookworm "$work/bookworm-base" "$mirror" >/dev/null
  tar -C "$work/bookworm-base" -cf "$base.part" .
  mv "$base.part" "$base"
  rm -rf "$work/bookworm-base"
fi

root="$work/check-root"
display=":$((90 + RANDOM % 9))"
xvfb_pid=""
app_pid=""
cleanup() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  for mount in tmp/.X11-unix dev/pts dev sys proc; do
    mountpoint -q "$root/$mount" 2>/dev/null && umount -l "$root/$mount"
  done
  rm -rf "$root"
}
trap cleanup EXIT
cleanup
mkdir -p "$root"
tar -C "$root" -xf "$base"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
# Unmounting them again must not reach the host's own mounts below /sys and /dev.
mount --make-rslave "$root/sys"
mount --make-rslave "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
in_root() { chroot "$root" env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

say "installing $(basename "$deb") with apt in the fresh system"
cp "$deb" "$root/tmp/factdesk.deb"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  /tmp/factdesk.deb >/dev/null
in_root dpkg -s factdesk | grep -E '^(Package|Version|Status|Depends):'

say "the CLI, offline, with the models the package brings"
in_root factdesk --version
in_root factdesk init >/dev/null
in_root factdesk models list
mkdir -p "$root/tmp/corpus"
cat > "$root/tmp/corpus/everest.txt" <<'TEXT'
Mount Everest is Earth's highest mountain above sea level. Edmund Hillary and Tenzing Norgay
made the first ascent of Mount Everest in 1953.
TEXT
in_root factdesk import /tmp/corpus --corpus check >/dev/null
in_root env FACTDESK_OFFLINE=1 factdesk verify "Mount Everest was first climbed in 1953." \
  --method corpus-nli --json >"$root/tmp/verdict.json"
python3 - "$root/tmp/verdict.json" <<'PY'
import json, sys
check = json.load(open(sys.argv[1]))["check"]
print(f"verdict: {check['verdict']} (NLI {check.get('nli_model')}), confidence {check['confidence']:.2f}")
assert check["nli_model"] == "factdesk-verifier", check["nli_model"]
assert check["verdict"] == "supported", check["verdict"]
PY

say "the desktop app under Xvfb ($display)"
Xvfb "$display" -screen 0 1280x900x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
sleep 2
kill -0 "$xvfb_pid" 2>/dev/null || { echo "error: Xvfb did not start on $display:" >&2; cat "$work/xvfb.log" >&2; exit 1; }
mkdir -p "$root/tmp/.X11-unix"
mount --bind /tmp/.X11-unix "$root/tmp/.X11-unix"
chroot "$root" env -i HOME=/root PATH=/usr/bin:/bin LANG=C.UTF-8 DISPLAY="$display" \
  WEBKIT_DISABLE_COMPOSITING_MODE=1 factdesk-app >"$work/app.log" 2>&1 &
app_pid=$!
sleep 20
if ! kill -0 "$app_pid" 2>/dev/null; then
  echo "error: the app exited; its output:" >&2
  cat "$work/app.log" >&2
  exit 1
fi
shot="$work/installed-app.png"
xwd -display "$display" -root -silent | convert xwd:- "$shot"
kill "$app_pid" 2>/dev/null || true
wait "$app_pid" 2>/dev/null || true
say "the installed app ran for 20 s; its window: $shot"
