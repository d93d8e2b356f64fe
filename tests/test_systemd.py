"""The boot service: the real unit file checked by systemd's own tools, and install.sh."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "tabletop-companion.service"
INSTALL = ROOT / "systemd" / "install.sh"
USB_RULES = ROOT / "systemd" / "90-tabletop-companion-usb.rules"
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
    # the groups come from the user (install.sh's usermod): SupplementaryGroups= with one
    # group the system lacks stops the service from starting at all (216/GROUP)
    assert "SupplementaryGroups" not in settings
    assert "PYTHONFAULTHANDLER=1" in settings["Environment"]  # a hang leaves its stacks
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
    # Export to USB: the sticks the udev rule mounts stay writable under ProtectSystem=strict
    assert settings["ReadWritePaths"] == ["-/media/tabletop-companion"]


def install(*args, env=None, path_dir=None):
    """install.sh as a real subprocess. The service user is one that does not exist (unless
    `env` names one), so the output does not depend on whether this machine ran the install."""
    environ = {**os.environ, "SERVICE_USER": f"tc-test-{os.getpid()}-none", **(env or {})}
    if path_dir is not None:
        environ["PATH"] = f"{path_dir}:{environ['PATH']}"
    return subprocess.run(
        ["bash", str(INSTALL), *args], capture_output=True, text=True, timeout=60, env=environ
    )


def test_install_script_is_valid_bash_and_does_every_step():
    assert subprocess.run(["bash", "-n", str(INSTALL)]).returncode == 0
    result = install("--dry-run")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    apt = re.search(r"apt-get install .*", out).group(0).split()
    for package in ("python3-picamera2", "python3-lgpio", "python3-venv", "python3-numpy"):
        assert package in apt
    assert "espeak-ng" in apt  # the spoken instructions
    # the catalogues compiled while /opt is writable - into the install, not the checkout
    assert re.search(r"/opt/tabletop-companion/\.venv/bin/python -P -m companion\.i18n", out)
    # pygame-ce's SDL loads these at run time for the KMSDRM screen; its wheel lacks them.
    for package in ("libdrm2", "libgbm1", "libegl1", "libgles2", "libegl-mesa0", "libgl1-mesa-dri"):
        assert package in apt
    assert "useradd --system --user-group --home-dir /var/lib/tabletop-companion" in out
    for group in ("video", "render", "input", "gpio", "audio"):
        assert f"usermod -a -G {group}" in out
    assert "venv --system-site-packages" in out
    # apt's numpy is kept (picamera2 is built against it): the numpy that step 1 installs, not
    # a warning that it is not there yet.
    assert "apt's numpy was not found" not in result.stderr
    assert re.search(r"constraints\.txt \(numpy==(\d[\d.]*|VERSION): apt's python3-numpy", out)
    assert re.search(r"pip install --quiet --constraint \S+constraints\.txt /opt/", out)
    assert "--wait-for-camera, GPIOZERO" in out
    assert "systemctl enable tabletop-companion.service" in out


def test_install_script_runs_the_service_as_the_user_and_from_the_place_it_was_given():
    """SERVICE_USER and PREFIX were taken for the user and the copy but not for the unit,
    which kept User=tabletop-companion and /opt (a maintainer's reading)."""
    result = install("--dry-run", env={"SERVICE_USER": "root", "PREFIX": "/srv/tc"})
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if "write" in x and "00-install.conf" in x)
    assert "ExecStart=/srv/tc/.venv/bin/companion run" in line
    assert "User=root, Group=root" in line
    assert "Documentation=file:/srv/tc/docs/raspberry-pi.md" in line


def test_install_script_leaves_an_existing_user_alone():
    result = install("--dry-run", env={"SERVICE_USER": "root"})
    assert result.returncode == 0, result.stderr
    assert "useradd" not in result.stdout
    assert "usermod -a -G video root" in result.stdout


def test_install_script_without_the_pi_camera():
    result = install("--dry-run", "--no-camera")
    assert result.returncode == 0, result.stderr
    apt = re.search(r"apt-get install .*", result.stdout).group(0).split()
    assert "python3-picamera2" not in apt and "python3-numpy" not in apt
    assert "python3-lgpio" in apt and "libdrm2" in apt and "libgbm1" in apt
    assert "--constraint" not in result.stdout  # nothing pins numpy: pip's newest, as in tests
    assert "--wait-for-camera --source usb:0, GPIOZERO" in result.stdout


@pytest.fixture
def fake_apt(tmp_path):
    """apt-get and apt-cache of a Debian without Raspberry Pi's repository, and `id -u` of
    root: the real script runs up to where it must stop, and changes nothing."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # Anything but `update` fails as the real one would, so a script that went on stops there.
    (bin_dir / "apt-get").write_text(
        '#!/bin/sh\necho "apt-get $*" >>"$0.log"\n[ "$1" = update ] || exit 100\n'
    )
    (bin_dir / "apt-cache").write_text(
        '#!/bin/sh\ncase "$*" in *picamera2*|*lgpio*) echo "E: No packages found" >&2; exit 100;;'
        '\nesac\necho "Package: $2"\n'
    )
    (bin_dir / "id").write_text(
        f'#!/bin/sh\n[ "$1" = -u ] && {{ echo 0; exit 0; }}\nexec {shutil.which("id")} "$@"\n'
    )
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("option", [[], ["--no-camera"]])
def test_install_script_says_why_it_stops_without_raspberry_pis_repository(fake_apt, option):
    result = install(*option, path_dir=fake_apt)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    missing = "python3-lgpio" if option else "python3-picamera2 python3-lgpio"
    assert lines[0].startswith(f"install.sh: {missing} not found:")
    assert "only from Raspberry Pi's apt repository" in lines[0]
    assert "Raspberry Pi OS" in result.stderr and "docs/raspberry-pi.md" in result.stderr
    assert ("--no-camera" in result.stderr) == (not option)
    assert "Traceback" not in result.stderr
    # It stopped after `apt-get update`, before installing anything.
    assert (fake_apt / "apt-get.log").read_text() == "apt-get update\n"


def test_install_script_offline_says_it_was_the_network(fake_apt):
    """Found by a review: offline, the install stopped with the tool's own message alone
    (pip's "ResolutionImpossible"), which does not say the Pi has no network."""
    (fake_apt / "apt-get").write_text(
        '#!/bin/sh\necho "apt-get $*" >>"$0.log"\n'
        'echo "E: Failed to fetch http://deb.debian.org/ (Temporary failure resolving)" >&2\n'
        "exit 100\n"
    )
    result = install(path_dir=fake_apt)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith("E: Failed to fetch")  # the tool's own message first
    assert lines[1].startswith("install.sh: apt-get update failed (its message is above)")
    assert "check that the Pi is online" in result.stderr and "run this again" in result.stderr
    assert (fake_apt / "apt-get.log").read_text() == "apt-get update\n"  # nothing after it


def test_install_script_dry_run_notes_where_the_real_install_would_stop(fake_apt):
    result = install("--dry-run", path_dir=fake_apt)
    assert result.returncode == 0, result.stderr
    assert "the real install would stop here" in result.stderr
    assert "apt-get install" in result.stdout
    assert not (fake_apt / "apt-get.log").exists()


def test_install_script_refuses_unknown_options():
    result = install("--bogus")
    assert result.returncode == 2
    assert "unknown option --bogus" in result.stderr and "--no-camera" in result.stderr


def test_install_script_refuses_a_prefix_the_service_could_not_run_from():
    """Found by a review: a PREFIX with a space broke the unit's ExecStart=, and one under
    /home is hidden from the service (ProtectHome=yes)."""
    for prefix, said in (
        ("/opt/table top", "holds a space"),
        ("/home/pi/tc", "cannot see (ProtectHome=yes)"),
        ("opt/tc", "must be an absolute path"),
        ("/home", "cannot see (ProtectHome=yes)"),  # a review: rsync --delete into /home
        ("/", "a system folder that the install would replace"),
        ("/opt", "a system folder that the install would replace"),
        ("/usr/local", "a system folder that the install would replace"),
        ("/tmp/tc", "own empty folders (PrivateTmp=yes)"),  # a trial: accepted, never started
        ("/var/tmp/tc", "own empty folders (PrivateTmp=yes)"),
        ("/var/tmp", "a system folder that the install would replace"),
        # a review: rsync --delete into the records' own folder, or another system one
        ("/var/lib/tabletop-companion", "a system folder that the install would replace"),
        ("/var/lib/dpkg", "a system folder that the install would replace"),
        ("/proc/x", "a system folder that the install would replace"),
        ("/opt/../tmp/x", "own empty folders (PrivateTmp=yes)"),
    ):
        result = install("--dry-run", env={"PREFIX": prefix})
        assert result.returncode == 2 and said in result.stderr, (prefix, result.stderr)


def test_install_script_takes_a_prefix_with_a_trailing_slash_as_the_folder():
    """A trial: the default typed with tab completion's slash (/opt/tabletop-companion/) was
    refused as "a system folder that the install would replace"."""
    result = install("--dry-run", env={"PREFIX": "/opt/tabletop-companion/"})
    assert result.returncode == 0, result.stderr
    assert "ExecStart=/opt/tabletop-companion/.venv/bin/companion run" in result.stdout
    assert "tabletop-companion//" not in result.stdout


def test_install_script_starts_the_service_before_the_console_goes_and_keeps_a_user_drop_in():
    """Found by a review: run from tty1 (the Pi's own screen), `disable --now getty@tty1`
    hung up the install before the service was enabled; and the install's drop-in, named
    local.conf, sorted after the players' own (language.conf) and undid their ExecStart=."""
    out = install("--dry-run").stdout
    order = [out.index(x) for x in ("enable tabletop", "restart tabletop", "getty@tty1")]
    assert order == sorted(order)
    assert "rm -f /etc/systemd/system/tabletop-companion.service.d/local.conf" in out
    assert "write /etc/systemd/system/tabletop-companion.service.d/00-install.conf" in out


# -- USB sticks: the udev rule that mounts them for the review's Export to USB ----------------------
UDEV_KEY = re.compile(
    r'(?P<key>[A-Z_]+)(\{(?P<attr>[^}]+)\})?(?P<op>==|!=|\+=|-=|:=|=)"(?P<value>[^"]*)"'
)
UDEV_KEYS = {"ACTION", "SUBSYSTEM", "SUBSYSTEMS", "ENV", "PROGRAM", "RUN", "GOTO", "LABEL"}


def udev_rules():
    """The rule file's rules: each a list of (key, attribute, operator, value)."""
    rules = []
    for line in USB_RULES.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        items = [item.strip() for item in re.split(r",\s*(?=[A-Z_]+[{!=+:-])", line)]
        parsed = [UDEV_KEY.fullmatch(item) for item in items]
        assert all(parsed), (line, items)
        rules.append([(m["key"], m["attr"], m["op"], m["value"]) for m in parsed])
    return rules


def test_the_usb_rule_is_well_formed_udev():
    """No `udevadm verify` before systemd 254 (Bookworm has 252): the rule is read here as
    udev reads it - KEY{attr}OP"value" items, known keys, matches with == / !=, assignments
    with = / +=, every GOTO's label there - and verified by udevadm where it can."""
    rules = udev_rules()
    labels = {value for rule in rules for key, _, _, value in rule if key == "LABEL"}
    for rule in rules:
        for key, attr, op, value in rule:
            assert key in UDEV_KEYS, key
            if key in ("RUN", "GOTO", "LABEL"):
                assert op in ("=", "+="), (key, op)
            else:
                assert op in ("==", "!="), (key, op)
            if key == "GOTO":
                assert value in labels
            if key in ("RUN", "PROGRAM"):
                assert value.startswith("/usr/bin/"), value  # (udev runs programs by path)
            if key == "RUN":
                assert attr == "program"
    assert labels == {"tabletop_companion_end"}
    udevadm = shutil.which("udevadm")
    if (
        udevadm
        and subprocess.run([udevadm, "verify", "--help"], capture_output=True).returncode == 0
    ):
        result = subprocess.run(
            [udevadm, "verify", str(USB_RULES)], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stdout + result.stderr


def mounts():
    """The rule's systemd-mount commands, as argument lists."""
    return [
        value.split()
        for rule in udev_rules()
        for key, _, _, value in rule
        if key == "RUN" and value.startswith("/usr/bin/systemd-mount ")
    ]


def test_the_usb_rule_mounts_sticks_where_the_service_may_write_and_finds_them():
    from companion.usb_drives import ROOTS
    from companion.usb_export import FOLDER

    commands = mounts()
    assert len(commands) == 2  # FAT32 / exFAT owned by the service's user, the others as they are
    for command in commands:
        what, where = command[-2:]
        assert what == "$devnode" and where == "/media/tabletop-companion/%k"
        assert "--no-block" in command  # udev must not wait for the mount
        options = next(a for a in command if a.startswith("--options=")).split("=", 1)[1]
        assert {"nosuid", "nodev", "noexec"} <= set(options.split(","))
    owned = [c for c in commands if "--owner=tabletop-companion" in c]
    assert len(owned) == 1 and "fmask=0133" in " ".join(owned[0])
    # the service may write there (ReadWritePaths=), and the app looks for sticks there
    assert "ReadWritePaths=-/media/tabletop-companion" in UNIT.read_text()
    assert any(Path("/media/tabletop-companion/sda1").is_relative_to(root) for root in ROOTS)
    assert FOLDER == "tabletop-companion"
    # install.sh writes its SERVICE_USER over the owner: one place, with a space after it
    assert USB_RULES.read_text().count("--owner=tabletop-companion ") == 1


def test_the_usb_rule_gives_systemd_mount_only_options_it_takes():
    exe = shutil.which("systemd-mount")
    assert exe, "systemd-mount is missing: `./dev test` installs the systemd package"
    known = set(
        re.findall(
            r"(--[a-z-]+)",
            subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60).stdout,
        )
    )
    for command in mounts():
        assert command[0] == "/usr/bin/systemd-mount"
        given = {a.split("=", 1)[0] for a in command[1:] if a.startswith("--")}
        assert given <= known, given - known


def test_the_usb_rule_leaves_the_system_s_own_file_systems_alone(tmp_path):
    """A review: at boot udev sees a USB-booted Pi's boot partition before it is mounted, so
    "mounted already" missed it, and it would have been mounted again, owned by the service's
    user. The rule skips what is mounted or in fstab, before it mounts anything - with findmnt
    options this findmnt takes, matching a device named in a table by its path."""
    exe = shutil.which("findmnt")
    assert exe
    rules = udev_rules()
    first_mount = next(i for i, r in enumerate(rules) if any(k == "RUN" for k, *_ in r))
    checks = [
        value.split()
        for rule in rules[:first_mount]
        for key, _, _, value in rule
        if key == "PROGRAM" and value.startswith("/usr/bin/findmnt ")
    ]
    assert ["--fstab", "--evaluate"] == [a for a in checks[-1] if a in ("--fstab", "--evaluate")]
    assert len(checks) == 2 and all(c[-2:] == ["--source", "$devnode"] for c in checks)
    table = tmp_path / "fstab"
    table.write_text("/dev/sdz1 /boot/firmware vfat defaults 0 2\n")
    found = [exe, "--tab-file", str(table), "--evaluate", "--noheadings", "--source"]
    assert subprocess.run([*found, "/dev/sdz1"], capture_output=True).returncode == 0
    assert subprocess.run([*found, "/dev/sdz2"], capture_output=True).returncode == 1


def test_install_script_installs_the_usb_rule_for_its_user():
    result = install("--dry-run", env={"SERVICE_USER": "root"})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "install -d -m 0755 /media/tabletop-companion" in out
    # a system without udev yet has no rules folder (pi-check's bare Debian: the install
    # stopped there, "No such file or directory")
    assert out.index("install -d -m 0755 /etc/udev/rules.d") < out.index("write /etc/udev")
    assert (
        "write /etc/udev/rules.d/90-tabletop-companion-usb.rules "
        "(systemd/90-tabletop-companion-usb.rules, --owner=root)" in out
    )
    assert "udevadm control --reload" in out
    # before the service is (re)started: a stick is writable from its first start
    assert out.index("90-tabletop-companion-usb.rules") < out.index("restart tabletop")
