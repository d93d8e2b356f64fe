"""The USB sticks (and other removable drives) that are mounted: where games can be exported to
from the touchscreen (`companion.usb_export`).

A drive counts when a block device (`/dev/...`) is mounted whole (not a folder of another
file system bound elsewhere) and either under one of the folders where sticks are mounted
(`/media/...`: `systemd/install.sh`'s udev rule mounts them in /media/tabletop-companion, a
desktop's in /media/USER or /run/media/USER) or from a disk the kernel calls removable
(`/sys/block/<disk>/removable`) anywhere but the system's own places - and it is not a device
the system has mounted in one of those (/, /boot/firmware: a Pi booted from a USB drive). One
mounted read-only is listed too, marked so: the screen says that, rather than "no stick".

Everything read is a parameter (the real paths by default), so the tests hand in a mountinfo
text and a folder of their own.

    >>> text = (
    ...     "27 1 179:2 / / rw,relatime - ext4 /dev/mmcblk0p2 rw\\n"
    ...     "90 27 8:1 / /media/tabletop-companion/sda1 rw,nosuid - vfat /dev/sda1 rw,uid=999\\n"
    ...     "91 27 8:17 / /media/pi/OLD\\\\040STICK ro,nosuid - vfat /dev/sdb1 ro\\n"
    ... )
    >>> [(d.mount.name, d.read_only) for d in parse_mountinfo(text, roots=("/media",))]
    [('OLD STICK', True), ('sda1', False)]
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MOUNTINFO = Path("/proc/self/mountinfo")
SYS_BLOCK = Path("/sys/block")
BY_LABEL = Path("/dev/disk/by-label")
# Where sticks are mounted: install.sh's udev rule (/media/tabletop-companion/sda1), a
# desktop's automounter (/media/USER/LABEL, /run/media/USER/LABEL).
ROOTS = ("/media", "/run/media")
# A removable disk mounted here is the system's own (a Pi booted from a USB drive), never a
# stick to write to.
SYSTEM_PLACES = ("/", "/boot", "/usr", "/var", "/etc", "/opt", "/srv", "/home", "/root")


@dataclass(frozen=True)
class Drive:
    """A mounted removable drive."""

    mount: Path  # where it is mounted: the files go in a folder there
    device: str  # "/dev/sda1"
    fstype: str  # "vfat", "exfat", ...
    read_only: bool  # mounted read-only (its write-protect switch, a damaged file system)
    label: str = ""  # the file system's label ("KINGSTON"), "" when it has none

    @property
    def name(self) -> str:
        """How the screen names it: its label, else its mount folder's name ("sda1")."""
        return self.label or self.mount.name


def removable_drives(
    mountinfo: Path = MOUNTINFO,
    sys_block: Path = SYS_BLOCK,
    by_label: Path = BY_LABEL,
    roots: Iterable[str] = ROOTS,
) -> list[Drive]:
    """The removable drives mounted now (as this process sees its mounts), by mount folder;
    read-only ones too (`Drive.read_only`). Nothing readable: none."""
    try:
        text = mountinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    drives = parse_mountinfo(text, roots=tuple(roots), sys_block=sys_block)
    labels = _labels(by_label)
    return [
        Drive(d.mount, d.device, d.fstype, d.read_only, labels.get(d.device, "")) for d in drives
    ]


def parse_mountinfo(
    text: str, *, roots: tuple[str, ...] = ROOTS, sys_block: Path | None = None
) -> list[Drive]:
    """The drives among the mounts of a /proc/PID/mountinfo text (see `removable_drives`);
    without `sys_block` only those under `roots` count."""
    mounts: dict[str, tuple[str, Drive]] = {}  # mount point -> (device number, drive)
    system = set()  # the devices mounted in the system's places: never a stick
    for line in text.splitlines():
        fields = line.split()
        if "-" not in fields[6:]:
            continue  # not a mountinfo line
        dash = fields.index("-", 6)
        if len(fields) < dash + 3:
            continue
        number, root, point = fields[2], _unescape(fields[3]), _unescape(fields[4])
        fstype, source = fields[dash + 1], _unescape(fields[dash + 2])
        # read-only: this mount ("ro" in its own options) or the whole file system (its
        # superblock's, after the dash) - ReadWritePaths= gives write access to the former only
        options = set(fields[5].split(","))
        if len(fields) > dash + 3:
            options |= set(fields[dash + 3].split(","))
        if _system_place(Path(point)):
            system.add(number)
        drive = Drive(Path(point), source, fstype, "ro" in options)
        # (a later mount on the same folder hides the earlier one; a folder bound elsewhere -
        # ReadWritePaths= makes /media/tabletop-companion one - has a root other than "/")
        whole = root == "/" and source.startswith("/dev/")
        mounts[point] = (number if whole else "", drive)
    found = [
        drive
        for number, drive in mounts.values()
        if number
        and number not in system
        and (_under(drive.mount, roots) or _removable(drive, sys_block))
    ]
    return sorted(found, key=lambda d: str(d.mount))


def _under(path: Path, places: Iterable[str]) -> bool:
    """`path` is a folder inside one of `places` (not one of them itself)."""
    return any(path != Path(p) and path.is_relative_to(p) for p in places)


def _system_place(path: Path) -> bool:
    """The root, or one of the system's folders or a folder inside one (/boot/firmware)."""
    return path == Path("/") or any(
        path == Path(p) or _under(path, [p]) for p in SYSTEM_PLACES if p != "/"
    )


def _removable(drive: Drive, sys_block: Path | None) -> bool:
    """Its disk says it is removable, and it is not mounted in one of the system's places."""
    if sys_block is None or _system_place(drive.mount):
        return False
    name = Path(drive.device).name
    try:
        disks = list(sys_block.iterdir())
    except OSError:
        return False
    for disk in disks:
        if disk.name == name or (disk / name).is_dir():  # the disk, or one of its partitions
            try:
                return (disk / "removable").read_text().strip() == "1"
            except OSError:
                return False
    return False


def _labels(by_label: Path) -> dict[str, str]:
    """Device -> its file system's label, from udev's /dev/disk/by-label links."""
    labels = {}
    try:
        links = list(by_label.iterdir())
    except OSError:
        return {}
    for link in links:
        try:
            device = str(link.resolve())
        except OSError:
            continue
        # (udev writes a space in a label as \x20)
        labels[device] = re.sub(
            r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), link.name
        )
    return labels


def _unescape(field: str) -> str:
    r"""A mountinfo field as it is: the kernel writes a space as \040 (tab \011, newline \012,
    backslash \134)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)
