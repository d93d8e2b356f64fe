#!/usr/bin/env bash
# The nearest thing to a Raspberry Pi without one: a fresh Debian 12 (bookworm) arm64 system,
# run under qemu's user-mode emulation, set up the way docs/raspberry-pi.md says.
#
#   sudo systemd/pi-check.sh            build the system, install, check; prints a summary
#
# It builds the system with debootstrap (kept as a tarball in $PI_CHECK_DIR: the next run starts
# from a fresh copy of it without the download), then in that system:
#   1. systemd/install.sh without Raspberry Pi's repository: must stop with its message;
#   2. systemd/install.sh for real, with python3-picamera2 and python3-lgpio stood in for by empty
#      packages (they are only in Raspberry Pi's repository), and `systemd-analyze verify` of
#      the installed unit;
#   3. `companion --help`, the libraries the KMSDRM screen loads (libdrm, libgbm, EGL, GLES2),
#      the versions pip chose;
#   4. the headless demo (`companion run --headless`);
#   5. the test suite, in a venv with the same numpy and OpenCV as the installed app.
# pip there trusts this machine's certificate authorities (/etc/ssl/certs/ca-certificates.crt).
# Needs root, Debian's packages (qemu-user-static, debootstrap, binfmt-support: installed if
# missing), PyPI, and a kernel that lets binfmt_misc be registered. It takes about 50 minutes
# on 2 shared cores (emulated: these are not a Pi's times). Not part of `./dev test`.
# Environment: PI_CHECK_DIR (default /var/tmp/tabletop-pi-check), PI_CHECK_MIRROR (a Debian
# mirror for debootstrap; default: debootstrap's own), PI_CHECK_SHARED (the shared data;
# default: ../shared beside the repository), PI_CHECK_TESTS (pytest arguments; default all),
# PI_CHECK_TIMEOUT (seconds one test may take; default 1800: the project's 300 s is for native
# speed, and emulation on a shared machine is 20-30 times slower).
set -euo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${PI_CHECK_DIR:-/var/tmp/tabletop-pi-check}"
ROOT="$WORK/rootfs"
BASE="$WORK/bookworm-arm64-base.tar"
SHARED="${PI_CHECK_SHARED:-$SRC/../shared}"
RESULTS="$WORK/results.txt"
APP=/root/tabletop-companion  # the checkout inside the emulated system

say() { printf 'pi-check: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (sudo $0): it builds a system with debootstrap and chroot"
[ "$(uname -m)" != aarch64 ] || say "note: this machine is arm64 already; no emulation needed"

# -- the tools, from Debian's packages --------------------------------------------------------
need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
command -v update-binfmts >/dev/null || need+=(binfmt-support)
command -v rsync >/dev/null || need+=(rsync)
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ "$(uname -m)" != aarch64 ]; then
  if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null ||
      die "cannot mount binfmt_misc (/proc/sys/fs/binfmt_misc): this kernel or container does" \
        "not let arm64 programs be run through qemu; run this on a machine or VM that does"
  fi
  update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null ||
    die "qemu-aarch64 is not registered with binfmt_misc (update-binfmts --enable qemu-aarch64" \
      "failed): arm64 programs cannot run here"
fi
[ -f "$SHARED/data/arimaa/games.jsonl" ] ||
  die "the shared data is not at $SHARED (shared/data/arimaa/games.jsonl beside the repository);" \
    "set PI_CHECK_SHARED to its folder"

# -- a fresh arm64 system ---------------------------------------------------------------------
unmount_all() {
  local m
  for m in "$ROOT/dev/pts" "$ROOT/dev" "$ROOT/sys" "$ROOT/proc"; do
    if mountpoint -q "$m" 2>/dev/null; then umount -l "$m"; fi
  done
}
trap unmount_all EXIT
mkdir -p "$WORK"
unmount_all
if [ ! -f "$BASE" ]; then
  say "debootstrap: Debian bookworm arm64 into $WORK/base (second stage under emulation)"
  rm -rf "$WORK/base"
  start=$SECONDS
  # What a Raspberry Pi OS Lite image has before install.sh: python3, systemd, certificates.
  debootstrap --arch=arm64 --variant=minbase \
    --include=systemd,systemd-sysv,python3,ca-certificates,passwd,procps \
    bookworm "$WORK/base" ${PI_CHECK_MIRROR:+"$PI_CHECK_MIRROR"} >"$WORK/debootstrap.log" 2>&1 ||
    die "debootstrap failed (log: $WORK/debootstrap.log)"
  tar -C "$WORK/base" -cf "$BASE" . && rm -rf "$WORK/base"
  say "debootstrap took $((SECONDS - start)) s"
fi
rm -rf "$ROOT" && mkdir -p "$ROOT" && tar -C "$ROOT" -xf "$BASE"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# pip there trusts the certificate authorities this machine trusts (a network that inspects TLS
# has its own in this machine's bundle, not in a fresh Debian's).
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/host-ca-certificates.crt"
  printf '[global]\ncert = /etc/ssl/certs/host-ca-certificates.crt\n' >"$ROOT/etc/pip.conf"
fi
mount -t proc proc "$ROOT/proc"
mount --rbind /sys "$ROOT/sys" && mount --make-rslave "$ROOT/sys"
mount --bind /dev "$ROOT/dev" && mount --bind /dev/pts "$ROOT/dev/pts"

# -- the checkout and the shared data, as a clone and CI lay them out -------------------------
rsync -a --exclude .git --exclude '.venv*' --exclude __pycache__ --exclude .pytest_cache \
  --exclude .hypothesis "$SRC/" "$ROOT$APP/"
rsync -a "$SHARED/" "$ROOT/root/shared/"
version="$(git -C "$SRC" describe --always --dirty 2>/dev/null || echo unknown)"

# -- stand-ins for Raspberry Pi's packages: empty packages in a local apt repository ----------
standins="$ROOT/opt/pi-standins"
mkdir -p "$standins"
for package in python3-picamera2 python3-lgpio; do
  dir="$WORK/standin-$package"
  rm -rf "$dir" && mkdir -p "$dir/DEBIAN"
  depends=""
  # The real python3-picamera2 brings apt's numpy, which the install pins in the venv.
  [ "$package" = python3-picamera2 ] && depends="Depends: python3-numpy"
  cat >"$dir/DEBIAN/control" <<CONTROL
Package: $package
Version: 0.0~pi-check
Architecture: all
Maintainer: pi-check <nobody@localhost>
${depends:+$depends
}Description: empty stand-in for Raspberry Pi's $package (systemd/pi-check.sh)
CONTROL
  dpkg-deb --build --root-owner-group "$dir" "$standins/${package}_0.0_all.deb" >/dev/null
done
(
  cd "$standins"
  for deb in *.deb; do
    dpkg-deb -f "$deb"
    printf 'Filename: ./%s\nSize: %s\nSHA256: %s\n\n' "$deb" "$(stat -c %s "$deb")" \
      "$(sha256sum "$deb" | cut -d' ' -f1)"
  done >Packages
)

# -- the checks -------------------------------------------------------------------------------
: >"$RESULTS"
failed=0
installed=1
step() {  # step NAME COMMAND...: run COMMAND in the arm64 system, log it, time it
  local name="$1" log rc start
  shift
  log="$WORK/$(echo "$name" | tr -c 'a-zA-Z0-9\n' - | tr A-Z a-z).log"
  if [ "$installed" = 0 ]; then
    printf '%-44s %-16s\n' "$name" "not run (no install)" | tee -a "$RESULTS" >&2
    return
  fi
  say "$name ..."
  start=$SECONDS
  set +e
  chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -ec "$*" \
    >"$log" 2>&1
  rc=$?
  set -e
  local result="ok"
  if [ $rc != 0 ]; then result="FAILED (exit $rc)"; failed=1; fi
  printf '%-44s %-16s %5d s  (%s)\n' "$name" "$result" $((SECONDS - start)) "$log" |
    tee -a "$RESULTS" >&2
  tail -n 3 "$log" | sed 's/^/    /' >&2
}

step "install.sh without Raspberry Pi's repository" "
  cd $APP
  set +e; systemd/install.sh; rc=\$?; set -e
  echo \"exit \$rc\"
  [ \$rc = 1 ]"
grep -q "come only from Raspberry Pi's apt repository" "$WORK/install-sh-without-raspberry-pi-s-repository.log" ||
  { say "  ... but not with the message that says why"; failed=1; }

echo "deb [trusted=yes] file:/opt/pi-standins ./" >"$ROOT/etc/apt/sources.list.d/pi-standins.list"
step "install.sh (Pi packages stood in for)" "cd $APP && systemd/install.sh"
[ -x "$ROOT/opt/tabletop-companion/.venv/bin/companion" ] || installed=0
step "systemd-analyze verify the installed unit" "
  ls -l /etc/systemd/system/multi-user.target.wants/ /etc/systemd/system/tabletop-companion.service.d/
  cat /etc/systemd/system/tabletop-companion.service.d/00-install.conf
  id tabletop-companion
  systemd-analyze verify /etc/systemd/system/tabletop-companion.service"
step "companion --help; KMSDRM libraries; versions" "
  /opt/tabletop-companion/.venv/bin/companion --help | head -n 5
  /opt/tabletop-companion/.venv/bin/python -c '
import ctypes, platform, cv2, numpy, pygame
for lib in (\"libdrm.so.2\", \"libgbm.so.1\", \"libEGL.so.1\", \"libGLESv2.so.2\"):
    ctypes.CDLL(lib)
print(platform.machine(), \"python\", platform.python_version(), \"numpy\", numpy.__version__,
      \"opencv\", cv2.__version__, \"pygame-ce\", pygame.version.ver, \"SDL\", pygame.get_sdl_version())'"
step "headless demo" "
  cd /tmp && /opt/tabletop-companion/.venv/bin/companion run --headless --moves 30 \
    --screenshots /tmp/demo-shots --db /tmp/demo.sqlite
  ls /tmp/demo-shots | head -n 3"
step "test suite (numpy and OpenCV as installed)" "
  python3 -m venv --system-site-packages /root/venv-test
  /root/venv-test/bin/python -m pip install --quiet --upgrade pip
  /root/venv-test/bin/python -m pip install --quiet \
    --constraint /opt/tabletop-companion/.venv/constraints.txt -e '$APP[dev]'
  /root/venv-test/bin/python -c 'import cv2, numpy; print(\"numpy\", numpy.__version__, \"opencv\", cv2.__version__)'
  cd $APP && /root/venv-test/bin/python -m pytest -q -n 2 -p no:cacheprovider \
    -o timeout=${PI_CHECK_TIMEOUT:-1800} ${PI_CHECK_TESTS:-}"

{
  echo "checked: $version, $(date -u '+%Y-%m-%d %H:%M UTC'), on $(uname -m) with qemu-user-static"
  grep -h "^aarch64 python" "$WORK"/companion---help*.log || true
  grep -h " after [0-9]* moves" "$WORK/headless-demo.log" || true
  tail -n 1 "$WORK/test-suite--numpy-and-opencv-as-installed-.log" || true
} >>"$RESULTS"
echo >&2
cat "$RESULTS" >&2
[ "$failed" = 0 ] || { say "some checks FAILED: see the logs in $WORK"; exit 1; }
say "all checks passed"
