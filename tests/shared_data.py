"""Where the project's shared real data is: `shared/data/arimaa` beside the repository (as CI
lays it out), or in the workplace's own /work/shared."""

from pathlib import Path


def arimaa_data() -> Path:
    """The folder with games.jsonl (251 arimaa.com games) and test_positions.jsonl."""
    for base in (Path(__file__).resolve().parents[2] / "shared", Path("/work/shared")):
        if (base / "data" / "arimaa" / "games.jsonl").exists():
            return base / "data" / "arimaa"
    raise FileNotFoundError("shared/data/arimaa beside the repository")


ARIMAA_DATA = arimaa_data()
ARIMAA_GAMES = ARIMAA_DATA / "games.jsonl"
