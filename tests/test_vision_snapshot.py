"""`companion vision snapshot`: a photo of the synthetic table and the position it shows, to
try `vision calibrate` and `vision read` without a camera - all through real processes."""

import json
import subprocess
import sys

import pytest


def companion(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


@pytest.mark.parametrize("source", ["sim:arimaa", "sim:sensei?seed=3&size=960x540"])
def test_snapshot_then_calibrate_then_read_gives_the_position_back(tmp_path, source):
    made = companion("vision", "snapshot", source, "-o", "photo.png", "--position", "start.json",
                     cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert "companion vision calibrate photo.png --position start.json" in made.stdout
    position = json.loads((tmp_path / "start.json").read_text())["cells"]
    assert position and len(set(position.values())) >= 2  # every colour, to learn them all
    calibrated = companion("vision", "calibrate", "photo.png", "--position", "start.json",
                           "-o", "sim.cal.json", cwd=tmp_path)  # fmt: skip
    assert calibrated.returncode == 0, calibrated.stderr
    read = companion("vision", "read", "photo.png", "--calibration", "sim.cal.json", "--json",
                     cwd=tmp_path)  # fmt: skip
    assert read.returncode == 0, read.stderr
    cells = json.loads(read.stdout)["cells"]
    assert {c: k for c, k in cells.items() if k != "empty"} == position


def test_snapshot_keeps_existing_files_and_wants_a_sim_source(tmp_path):
    (tmp_path / "photo.png").write_text("mine")
    kept = companion("vision", "snapshot", "sim:arimaa", "-o", "photo.png", "--position", "p.json",
                     cwd=tmp_path)  # fmt: skip
    assert kept.returncode == 2 and "already exists" in kept.stderr
    assert (tmp_path / "photo.png").read_text() == "mine" and not (tmp_path / "p.json").exists()
    camera = companion("vision", "snapshot", "usb:0", "-o", "x.png", "--position", "p.json",
                       cwd=tmp_path)  # fmt: skip
    assert camera.returncode == 2 and "sim:LAYOUT" in camera.stderr
    assert len(camera.stderr.strip().splitlines()) == 1
