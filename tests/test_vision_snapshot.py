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


def test_a_snapshot_of_a_chessboard_says_how_to_calibrate_it_and_that_works(tmp_path):
    """A board without markers: the printed hint names its layout (auto finds markers only),
    and the hint, run as printed, calibrates and reads the position back."""
    made = companion("vision", "snapshot", "sim:chessboard?size=960x540", "-o", "chess.png",
                     "--position", "chess.json", cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    hint = made.stdout.split("Try: ", 1)[1].split()
    assert hint[:7] == ["companion", "vision", "calibrate", "chess.png", "--position",
                        "chess.json", "--layout"]  # fmt: skip
    calibrated = companion(*hint[1:], cwd=tmp_path)
    assert calibrated.returncode == 0, calibrated.stderr
    assert hint[-2:] == ["-o", "chess.cal.json"]  # named after the photo
    read = companion("vision", "read", "chess.png", "--calibration", "chess.cal.json",
                     "--layout", "chessboard", "--json", cwd=tmp_path)  # fmt: skip
    assert read.returncode == 0, read.stderr
    position = json.loads((tmp_path / "chess.json").read_text())["cells"]
    cells = json.loads(read.stdout)["cells"]
    assert {c: k for c, k in cells.items() if k != "empty"} == position
    # a second snapshot beside the first suggests a calibration file that is not there yet
    # (it suggested sim.cal.json every time, and run as printed it was refused)
    again = companion("vision", "snapshot", "sim:chessboard?size=960x540", "-o", "chess.png",
                      "--position", "chess.json", "--force", cwd=tmp_path)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert again.stdout.split("Try: ", 1)[1].split()[-2:] == ["-o", "chess-2.cal.json"]


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
    unknown = companion("vision", "snapshot", "sim:arimaa?foo=1", "-o", "x.png", "--position",
                        "p.json", cwd=tmp_path)  # fmt: skip
    assert unknown.returncode == 2 and "unknown sim option 'foo'" in unknown.stderr
    # every option named whole: the list is not cut to an excerpt as a quoted input would be
    assert "..." not in unknown.stderr and unknown.stderr.rstrip().endswith("says what each does)")
    assert all(name in unknown.stderr for name in ("seed", "tilt", "board", "pieces", "light"))


def test_snapshot_never_writes_over_a_record_database_or_its_script(tmp_path):
    from companion import games
    from companion.records import Records

    with Records(tmp_path / "r.db") as records:
        records.new_game(games.get("arimaa").new({}))
    before = (tmp_path / "r.db").read_bytes()
    for output in (
        ["-o", "p.png", "--position", "r.db"],
        ["-o", "p.png", "--position", "r.db-wal"],
    ):
        done = companion("vision", "snapshot", "sim:arimaa", *output, "--force", cwd=tmp_path)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
        assert "holds game records: give another file name with --position" in done.stderr
    assert (tmp_path / "r.db").read_bytes() == before and not (tmp_path / "p.png").exists()
    script = tmp_path / "s.json"
    script.write_text('[{"a1": "gold", "h8": "silver"}]')
    done = companion("vision", "snapshot", "sim:arimaa?script=s.json", "-o", "p.png",
                     "--position", "s.json", "--force", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "--position and the script name the same file: give two names" in done.stderr
    assert script.read_text() == '[{"a1": "gold", "h8": "silver"}]'
    same = companion("vision", "snapshot", "sim:arimaa", "-o", "p.png", "--position", "./p.png",
                     "--force", cwd=tmp_path)  # fmt: skip
    assert same.returncode == 2 and "-o and --position name the same file" in same.stderr
