#!/usr/bin/env bash
# Set a Raspberry Pi (Raspberry Pi OS Lite, Bookworm or later) up from scratch to boot into the
# companion: system packages, a dedicated user, the app in /opt with a venv, the boot service.
#
#   sudo systemd/install.sh             install (or update) and start the service
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
case "${1:-}" in
  --dry-run|-n) DRY=1 ;;
  "") ;;
  -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
  *) echo "install.sh: unknown option $1 (use --dry-run or nothing)" >&2; exit 2 ;;
esac

run() {
  if [ "$DRY" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}

if [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
  echo "install.sh: run as root (sudo $0), or with --dry-run to see what it would do" >&2
  exit 1
fi

# 1. System packages: the camera stack and GPIO come from apt (they match the kernel), espeak-ng
#    speaks the instructions (offline), the rest from pip inside the venv.
run apt-get update
run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  python3-picamera2 python3-lgpio python3-venv python3-pip rsync espeak-ng

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
run rsync -a --delete --exclude .git --exclude .venv --exclude '__pycache__' "$SRC/" "$PREFIX/"
if [ ! -x "$PREFIX/.venv/bin/python" ] || [ "$DRY" = 1 ]; then
  run python3 -m venv --system-site-packages "$PREFIX/.venv"
fi
run "$PREFIX/.venv/bin/python" -m pip install --quiet --upgrade pip
# apt's picamera2 (and its simplejpeg) are built against Debian's numpy: the venv must keep that
# numpy - a newer one from PyPI would shadow it and picamera2 would fail to import ("numpy.dtype
# size changed") - and pip then picks an OpenCV built for it.
numpy_version="$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true)"
if [ -n "$numpy_version" ]; then
  constraints="$PREFIX/.venv/constraints.txt"
  if [ "$DRY" = 1 ]; then
    echo "+ write $constraints (numpy==$numpy_version, the version apt's picamera2 was built for)"
  else
    echo "numpy==$numpy_version" >"$constraints"
  fi
  run "$PREFIX/.venv/bin/python" -m pip install --quiet --constraint "$constraints" "$PREFIX"
else
  echo "install.sh: warning: apt's numpy was not found; picamera2 may not import" >&2
  run "$PREFIX/.venv/bin/python" -m pip install --quiet "$PREFIX"
fi
# The message catalogues (English, German) compiled once here: /opt is read-only to the service.
run "$PREFIX/.venv/bin/python" -m companion.i18n
# gpiozero must use lgpio (the Pi 5 and Bookworm's kernel drop the old sysfs/RPi.GPIO paths).
run install -m 0644 "$SRC/systemd/$UNIT" "/etc/systemd/system/$UNIT"
run mkdir -p "/etc/systemd/system/$UNIT.d"
if [ "$DRY" = 1 ]; then
  echo "+ write /etc/systemd/system/$UNIT.d/local.conf (ExecStart in $PREFIX, GPIOZERO_PIN_FACTORY=lgpio)"
else
  cat >"/etc/systemd/system/$UNIT.d/local.conf" <<CONF
# Written by install.sh: where this Pi has the app. Add your own settings in another file here.
[Service]
Environment=GPIOZERO_PIN_FACTORY=lgpio
ExecStart=
ExecStart=$PREFIX/.venv/bin/companion run --fullscreen --wait-for-camera
CONF
fi

# 4. The console on tty1 would fight the app for the screen: the companion owns it now.
run systemctl disable --now getty@tty1.service
run systemctl daemon-reload
run systemctl enable "$UNIT"
run systemctl restart "$UNIT"
echo "install.sh: done. Status: systemctl status $UNIT; logs: journalctl -u $UNIT -f"
