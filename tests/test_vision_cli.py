"""`companion mat` and `companion vision` through the real CLI entry point."""

import json

import cv2

from companion.cli import main
from vision.sim import SimTable


def test_mat_writes_pdf_png_and_json_and_keeps_existing_files(tmp_path, capsys):
    pdf, png = tmp_path / "m.pdf", tmp_path / "m.png"
    assert main(["mat", "arimaa", "-o", str(pdf), "--dpi", "60"]) == 0
    assert pdf.read_bytes().startswith(b"%PDF-1.4")
    assert (
        main(["mat", "sensei", "-o", str(png), "--dpi", "60", "--markers-only", "--paper", "A4"])
        == 0
    )
    assert cv2.imread(str(png)) is not None
    before = pdf.read_bytes()
    assert main(["mat", "aranea", "-o", str(pdf)]) == 2
    assert pdf.read_bytes() == before
    assert "already exists" in capsys.readouterr().err
    assert main(["mat", "arimaa", "-o", str(tmp_path / "m.txt")]) == 2
    assert main(["mat", "arimaa", "--layout-json"]) == 0
    assert json.loads(capsys.readouterr().out)["layout"] == "arimaa"


def test_vision_calibrate_and_read(tmp_path, capsys):
    table = SimTable("arimaa", seed=3, size=(800, 450))
    start = {"a1": "gold", "b1": "gold", "g8": "silver", "h8": "silver"}
    cv2.imwrite(str(tmp_path / "start.png"), table.render(start))
    (tmp_path / "pos.json").write_text(json.dumps({"cells": start}))
    later = {"a2": "gold", "h7": "silver"}
    cv2.imwrite(str(tmp_path / "later.png"), table.render(later))
    cal = str(tmp_path / "cal.json")
    assert (
        main(
            [
                "vision",
                "calibrate",
                str(tmp_path / "start.png"),
                "--position",
                str(tmp_path / "pos.json"),
                "-o",
                cal,
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert (
        main(["vision", "read", str(tmp_path / "later.png"), "--calibration", cal, "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"cells", "confidence", "markers_seen", "occluded"}
    assert data["markers_seen"] == 4 and data["occluded"] is False
    assert {c: v for c, v in data["cells"].items() if v != "empty"} == later
    # A hand over the board: nothing is guessed, and the reader says why.
    hand = table.hand_towards(table.cell_pixel("d4"))
    cv2.imwrite(str(tmp_path / "hand.png"), table.render(later, hand))
    assert main(["vision", "read", str(tmp_path / "hand.png"), "--calibration", cal, "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["occluded"] is True and set(data["cells"].values()) == {"unknown"}
    assert "something is over the board" in err
    assert main(["vision", "read", str(tmp_path / "hand.png"), "--calibration", cal]) == 0
    out, err = capsys.readouterr()
    assert "?" in out and "something is over the board" in err
    (tmp_path / "bad.png").write_text("not an image")
    assert main(["vision", "read", str(tmp_path / "bad.png"), "--calibration", cal]) == 2
    assert "cannot read image" in capsys.readouterr().err
