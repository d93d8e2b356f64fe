"""The boot service: the real unit file checked by systemd's own tools, and install.sh."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "tabletop-companion.service"
INSTALL = ROOT / "systemd" / "install.sh"
EXPOSURE_LIMIT = 2.5  # systemd's scale: 0 (locked down) .. 10 (unprotected); "OK" is below 4.5


def analyze(*args, cwd):
    exe = shutil.which("systemd-analyze")
    assert exe, "systemd-analyze is missing: `./dev test` installs the systemd package"
    return subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


@pytest.fixture
def verifiable_unit(tmp_path):
    """The real unit with ExecStart pointed at a program that exists on this machine (verify
    checks that it is executable); everything else byte for byte."""
    text = UNIT.read_text()
    assert "ExecStart=/opt/tabletop-companion/.venv/bin/companion run" in text
    text = text.replace("/opt/tabletop-companion/.venv/bin/companion", shutil.which("true"))
    text = text.replace(
        "WorkingDirectory=/var/lib/tabletop-companion", f"WorkingDirectory={tmp_path}"
    )
    path = tmp_path / UNIT.name
    path.write_text(text)
    return path


def test_unit_passes_systemd_analyze_verify_silently(verifiable_unit):
    result = analyze("verify", f"./{verifiable_unit.name}", cwd=verifiable_unit.parent)
    assert result.returncode == 0
    assert result.stdout == "" and result.stderr == "", result.stdout + result.stderr


def test_unit_exposure_score_is_below_the_threshold(verifiable_unit):
    result = analyze(
        "security",
        "--offline=yes",
        "--no-pager",
        f"./{verifiable_unit.name}",
        cwd=verifiable_unit.parent,
    )
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert match, result.stdout[-2000:] + result.stderr
    assert float(match.group(1)) <= EXPOSURE_LIMIT, result.stdout[-3000:]


def test_unit_has_what_the_pi_needs():
    settings = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    assert settings["Type"] == ["notify"]
    assert int(settings["WatchdogSec"][0]) > 0
    assert settings["Restart"] == ["on-failure"]
    assert set(settings["SupplementaryGroups"][0].split()) == {
        "video",
        "render",
        "input",
        "gpio",
        "audio",
    }
    assert settings["StateDirectory"] == ["tabletop-companion"]
    assert "SDL_VIDEODRIVER=kmsdrm" in settings["Environment"]
    assert settings["ProtectSystem"] == ["strict"]
    assert settings["NoNewPrivileges"] == ["yes"]
    assert settings["ProtectHome"] == ["yes"]
    assert "PrivateDevices" not in settings  # it would hide the camera
    # The app comes up without a camera too (READY, the watchdog, a message on the screen).
    assert settings["ExecStart"][0].endswith("companion run --fullscreen --wait-for-camera")
    # lgpio makes its notification pipes in the working directory: it must be writable.
    assert settings["WorkingDirectory"] == ["/var/lib/tabletop-companion"]


def test_install_script_is_valid_bash_and_does_every_step():
    assert subprocess.run(["bash", "-n", str(INSTALL)]).returncode == 0
    result = subprocess.run(
        ["bash", str(INSTALL), "--dry-run"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert re.search(r"apt-get install .*python3-picamera2.*python3-lgpio.*python3-venv", out)
    assert re.search(r"apt-get install .*espeak-ng", out)  # the spoken instructions
    assert "-m companion.i18n" in out  # the catalogues compiled while /opt is writable
    assert "useradd --system" in out
    for group in ("video", "render", "input", "gpio", "audio"):
        assert f"usermod -a -G {group}" in out
    assert "venv --system-site-packages" in out
    # apt's numpy is kept (picamera2 is built against it), or the script says it is missing.
    assert "--constraint" in out or "apt's numpy was not found" in result.stderr
    assert "--wait-for-camera" in INSTALL.read_text()
    assert "systemctl enable tabletop-companion.service" in out


def test_install_script_refuses_unknown_options():
    result = subprocess.run(["bash", str(INSTALL), "--bogus"], capture_output=True, text=True)
    assert result.returncode == 2
    assert "unknown option --bogus" in result.stderr
