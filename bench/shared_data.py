"""Where the project's shared real data is, for the tests and the benchmarks: the folder named
by $TABLETOP_SHARED_DIR, else `shared/` beside the repository (as CI lays it out: `../shared`
from the clone). Nothing else: a test must find the same data on any machine, or say where it
looked."""

import os
from pathlib import Path

ENV = "TABLETOP_SHARED_DIR"


def shared_dir() -> Path:
    """The shared folder (with data/arimaa/games.jsonl in it)."""
    if os.environ.get(ENV):
        candidates = [Path(os.environ[ENV])]
    else:
        candidates = [Path(__file__).resolve().parents[2] / "shared"]
    for base in candidates:
        if (base / "data" / "arimaa" / "games.jsonl").exists():
            return base
    raise FileNotFoundError(
        f"the shared data is not in {candidates[0]} (no data/arimaa/games.jsonl there): put the "
        f"shared folder beside the repository, or set {ENV} to it"
    )


def real_data() -> Path:
    """The labelled real photos (data/real: manifest.json and the photos, see its README)."""
    real = shared_dir() / "data" / "real"
    if not (real / "manifest.json").exists():
        raise FileNotFoundError(
            f"no labelled real photos in {real} (no manifest.json there): the shared folder is "
            "incomplete - take it whole from the project"
        )
    return real


def arimaa_data() -> Path:
    """The folder with games.jsonl (251 arimaa.com games) and test_positions.jsonl."""
    return shared_dir() / "data" / "arimaa"


def __getattr__(name: str) -> Path:
    """ARIMAA_DATA and ARIMAA_GAMES (the tests' names), looked up when asked for: importing
    the functions alone looks for nothing, so a benchmark can say where it looked."""
    if name == "ARIMAA_DATA":
        return arimaa_data()
    if name == "ARIMAA_GAMES":
        return arimaa_data() / "games.jsonl"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
