#!/usr/bin/env bash
# Set a Raspberry Pi (Raspberry Pi OS Lite, Bookworm or later) up from scratch to boot into the
# companion: system packages, a dedicated user, the app in /opt with a venv, the boot service.
#
#   sudo systemd/install.sh             install (or update) and start the service
#   sudo systemd/install.sh --no-camera the same for a USB webcam: no picamera2 (--source usb:0)
#   systemd/install.sh --dry-run        print every command instead of running it
#
# Options (environment): PREFIX=/opt/tabletop-companion  SERVICE_USER=tabletop-companion
# Safe to run again: it updates the app and keeps the game records in /var/lib/tabletop-companion.
set -euo pipefail

PREFIX="${PREFIX:-/opt/tabletop-companion}"
SERVICE_USER="${SERVICE_USER:-tabletop-companion}"
UNIT=tabletop-companion.service
SRC="$(cd "$(dirname "$0")/.." && pwd)"
DRY=0
CAMERA=1
for arg in "$@"; do
  case "$arg" in
    --dry-run|-n) DRY=1 ;;
    --no-camera) CAMERA=0 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $arg (use --dry-run, --no-camera or nothing)" >&2; exit 2 ;;
  esac
done

run() {
  if [ "$DRY" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}

# A step that downloads and failed (no network, a mirror down, apt's lock held by an update)
# ends the install with what to do, under the tool's own message (pip's "ResolutionImpossible"
# alone does not say it was the network).
fetch() {
  local what=$1; shift
  if ! run "$@"; then
    echo "install.sh: $what failed (its message is above). Where that is about downloading" \
      "(no network, a name not resolved), check that the Pi is online (ping -c1 pypi.org);" \
      "where apt's lock is held, wait for the other install to end. Then run this again: it" \
      "goes on from where it stopped (the service is set up only once every package is in)." >&2
    exit 1
  fi
}

# The unit runs ExecStart= and names Documentation= unquoted, ProtectHome=yes hides /home,
# /root and /run/user from the service and PrivateTmp=yes gives it a /tmp and /var/tmp of its
# own: a PREFIX there could never start. A trailing slash (tab completion's) is dropped.
while [ "$PREFIX" != / ] && [ "${PREFIX%/}" != "$PREFIX" ]; do PREFIX="${PREFIX%/}"; done
case "$PREFIX" in
  /*) PREFIX="$(realpath -m -- "$PREFIX")" ;;  # /opt/../tmp/x is /tmp/x: judged as that
esac
case "$PREFIX" in
  *[[:space:]]*)
    echo "install.sh: PREFIX '$PREFIX' holds a space: choose a path without one" >&2; exit 2 ;;
  /home|/home/*|/root|/root/*|/run/user|/run/user/*)
    echo "install.sh: PREFIX $PREFIX is under /home, /root or /run/user, which the service" \
      "cannot see (ProtectHome=yes): choose one like /opt/tabletop-companion" >&2; exit 2 ;;
  /tmp/*|/var/tmp/*)
    echo "install.sh: PREFIX $PREFIX is under /tmp or /var/tmp, which the service sees as its" \
      "own empty folders (PrivateTmp=yes): choose one like /opt/tabletop-companion" >&2; exit 2 ;;
  /|/*/|/bin|/boot|/dev|/dev/*|/etc|/etc/*|/lib|/lib64|/media|/mnt|/opt|/proc|/proc/*|/run|/sbin|\
  /srv|/sys|/sys/*|/tmp|/usr|/usr/*|/var|/var/lib|/var/lib/*|/var/log|/var/log/*|/var/tmp)
    # (/var/lib/*: the records' own folder, /var/lib/tabletop-companion, among others)
    # rsync --delete makes PREFIX a copy of the checkout: a system folder would be wiped
    echo "install.sh: PREFIX $PREFIX is a system folder that the install would replace" \
      "(rsync --delete): choose a folder of its own, like /opt/tabletop-companion" >&2; exit 2 ;;
  /*) ;;
  *) echo "install.sh: PREFIX must be an absolute path, not '$PREFIX'" >&2; exit 2 ;;
esac

if [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
  echo "install.sh: run as root (sudo $0), or with --dry-run to see what it would do" >&2
  exit 1
fi

# 1. System packages: the camera stack and GPIO come from apt (they match the kernel), espeak-ng
#    speaks the instructions (offline), the rest from pip inside the venv. python3-picamera2 and
#    python3-lgpio are only in Raspberry Pi's own apt repository (Raspberry Pi OS has it), not in
#    Debian's. The SDL inside pygame-ce's wheel loads the KMSDRM screen's libraries at run time
#    and the wheel does not ship them: libdrm2 and libgbm1, and EGL with GLES2 (SDL's KMSDRM
#    window is always an EGL one) with Mesa's driver for the Pi's GPU. python3-numpy is the numpy
#    apt's picamera2 is built against.
pi_only=(python3-lgpio)
debian=(python3-venv python3-pip rsync espeak-ng libdrm2 libgbm1 libegl1 libgles2 libegl-mesa0
  libgl1-mesa-dri)
if [ "$CAMERA" = 1 ]; then
  pi_only=(python3-picamera2 "${pi_only[@]}")
  debian+=(python3-numpy)
fi
fetch "apt-get update" apt-get update
missing=()
if command -v apt-cache >/dev/null 2>&1; then
  for package in "${pi_only[@]}"; do
    apt-cache show "$package" >/dev/null 2>&1 || missing+=("$package")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  {
    if [ "$DRY" = 1 ]; then
      echo "install.sh: note: the real install would stop here on this system:"
    fi
    echo "install.sh: ${missing[*]} not found: python3-picamera2 and python3-lgpio come only" \
      "from Raspberry Pi's apt repository, which this system does not use."
    echo "  What to do: install Raspberry Pi OS (Bookworm) on the Pi, or add Raspberry Pi's" \
      "repository (docs/raspberry-pi.md shows how) and run this again."
    if [ "$CAMERA" = 1 ]; then
      echo "  With a USB webcam instead of the Pi camera: sudo $0 --no-camera (no picamera2;" \
        "the buttons still need python3-lgpio)."
    fi
  } >&2
  [ "$DRY" = 1 ] || exit 1
fi
fetch "installing the system packages" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
  --no-install-recommends "${pi_only[@]}" "${debian[@]}"

# 2. The service user: no login, no home beyond its state directory; may use the camera (video),
#    the GPU (render), the touchscreen (input), the buttons (gpio) and the sound card (audio).
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
  run useradd --system --user-group --home-dir /var/lib/tabletop-companion --no-create-home \
    --shell /usr/sbin/nologin "$SERVICE_USER"
fi
for group in video render input gpio audio; do
  if getent group "$group" >/dev/null 2>&1 || [ "$DRY" = 1 ]; then
    run usermod -a -G "$group" "$SERVICE_USER"
  else
    echo "install.sh: warning: no group $group on this system (not a Raspberry Pi OS image?)" >&2
  fi
done

# 3. The app: a copy of this checkout in $PREFIX and a venv that also sees apt's picamera2/lgpio.
run mkdir -p "$PREFIX"
run rsync -a --delete --chown=root:root --exclude .git --exclude '.venv*' --exclude '__pycache__' \
  --exclude .pytest_cache --exclude .mypy_cache --exclude .ruff_cache --exclude .hypothesis \
  --exclude .benchmarks "$SRC/" "$PREFIX/"
if [ ! -x "$PREFIX/.venv/bin/python" ] || [ "$DRY" = 1 ]; then
  run python3 -m venv --system-site-packages "$PREFIX/.venv"
fi
fetch "upgrading pip" "$PREFIX/.venv/bin/python" -m pip install --quiet --upgrade pip
# apt's picamera2 (and its simplejpeg) are built against Debian's numpy: the venv must keep that
# numpy - a newer one from PyPI would shadow it and picamera2 would fail to import ("numpy.dtype
# size changed") - and pip then picks an OpenCV built for it. Without the Pi camera nothing pins
# numpy, and pip picks the newest numpy and OpenCV (the versions `./dev test` runs).
if [ "$CAMERA" = 1 ]; then
  constraints="$PREFIX/.venv/constraints.txt"
  if [ "$DRY" = 1 ]; then
    # Step 1 has not run: name the numpy it would install.
    numpy_version="$(apt-cache policy python3-numpy 2>/dev/null \
      | sed -n 's/^ *Candidate: \([0-9]*:\)\{0,1\}\([0-9.]*\).*/\2/p' || true)"
    echo "+ write $constraints (numpy==${numpy_version:-VERSION}: apt's python3-numpy, which" \
      "step 1 installs and picamera2 is built for)"
  else
    numpy_version="$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true)"
    if [ -z "$numpy_version" ]; then
      echo "install.sh: apt's python3-numpy does not import (python3 -c 'import numpy');" \
        "reinstall it (apt-get install --reinstall python3-numpy) and run this again" >&2
      exit 1
    fi
    echo "numpy==$numpy_version" >"$constraints"
  fi
  fetch "installing the companion's Python packages" \
    "$PREFIX/.venv/bin/python" -m pip install --quiet --constraint "$constraints" "$PREFIX"
else
  fetch "installing the companion's Python packages" \
    "$PREFIX/.venv/bin/python" -m pip install --quiet "$PREFIX"
fi
# The message catalogues (English, German) compiled once here: /opt is read-only to the service.
# -P: the installed package, not the checkout this script may be run from (python -m would
# import ./companion first, and compile into the checkout).
run "$PREFIX/.venv/bin/python" -P -m companion.i18n
# gpiozero must use lgpio (the Pi 5 and Bookworm's kernel drop the old sysfs/RPi.GPIO paths).
run install -m 0644 "$SRC/systemd/$UNIT" "/etc/systemd/system/$UNIT"
run mkdir -p "/etc/systemd/system/$UNIT.d"
source_option=""
[ "$CAMERA" = 1 ] || source_option=" --source usb:0"
# The unit names the defaults; PREFIX and SERVICE_USER are written over them here.
service_group="$(id -gn "$SERVICE_USER" 2>/dev/null || echo "$SERVICE_USER")"
# 00-install.conf: drop-ins apply in the order of their names, so a file of the players' own
# (language.conf, camera.conf, systemctl edit's override.conf) comes after it and wins.
# (local.conf: its name before, which sorted after most of theirs and undid their ExecStart=.)
run rm -f "/etc/systemd/system/$UNIT.d/local.conf"
if [ "$DRY" = 1 ]; then
  echo "+ write /etc/systemd/system/$UNIT.d/00-install.conf (ExecStart=$PREFIX/.venv/bin/companion run --fullscreen --wait-for-camera$source_option, GPIOZERO_PIN_FACTORY=lgpio, User=$SERVICE_USER, Group=$service_group, Documentation=file:$PREFIX/docs/raspberry-pi.md)"
else
  cat >"/etc/systemd/system/$UNIT.d/00-install.conf" <<CONF
# Written by install.sh: where this Pi has the app, and who runs it. Add your own settings in
# another file here.
[Unit]
Documentation=
Documentation=file:$PREFIX/docs/raspberry-pi.md

[Service]
Environment=GPIOZERO_PIN_FACTORY=lgpio
User=$SERVICE_USER
Group=$service_group
ExecStart=
ExecStart=$PREFIX/.venv/bin/companion run --fullscreen --wait-for-camera$source_option
CONF
fi

# 4. USB sticks for the review's Export to USB: Raspberry Pi OS Lite mounts none, and the
#    hardened service may not. A udev rule has systemd mount a stick's file system in
#    /media/tabletop-companion/<kernel name>, owned by the service's user (FAT32, exFAT), which
#    the unit keeps writable (ReadWritePaths=). A stick in now is mounted once it is plugged in
#    again (or at the next boot).
rules=/etc/udev/rules.d/90-tabletop-companion-usb.rules
run install -d -m 0755 /media/tabletop-companion
# (a system without udev yet - pi-check's bare Debian - has no such folder: the rule waits there)
run install -d -m 0755 "$(dirname "$rules")"
if [ "$DRY" = 1 ]; then
  echo "+ write $rules (systemd/90-tabletop-companion-usb.rules, --owner=$SERVICE_USER)"
else
  sed "s/--owner=tabletop-companion /--owner=$SERVICE_USER /" \
    "$SRC/systemd/90-tabletop-companion-usb.rules" >"$rules"
  chmod 0644 "$rules"
fi
if [ -d /run/udev ] || [ "$DRY" = 1 ]; then
  run udevadm control --reload
fi

# 5. The console on tty1 would fight the app for the screen: the companion owns it now.
#    Where systemd is not running (a chroot, an SD card image being prepared) the service is
#    only enabled: it starts at the next boot. Run from tty1 itself (the Pi's own screen and
#    keyboard), stopping its console now would hang up this very session mid-install: there
#    it is only disabled, last, and goes at the next boot.
if [ -d /run/systemd/system ] || [ "$DRY" = 1 ]; then
  run systemctl daemon-reload
  run systemctl enable "$UNIT"
  run systemctl restart "$UNIT"
  if [ "$(tty 2>/dev/null || true)" = /dev/tty1 ]; then
    run systemctl disable getty@tty1.service
    echo "install.sh: done; this console (tty1) gives way to the companion at the next boot" \
      "(sudo reboot). Status: systemctl status $UNIT; logs: journalctl -u $UNIT -f"
  else
    run systemctl disable --now getty@tty1.service
    echo "install.sh: done. Status: systemctl status $UNIT; logs: journalctl -u $UNIT -f"
  fi
else
  run systemctl disable getty@tty1.service
  run systemctl enable "$UNIT"
  echo "install.sh: done; systemd is not running here (a chroot?): the companion starts at the next boot"
fi
