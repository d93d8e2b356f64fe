"""Every screen with example content, at any size: what the screenshot tests check and what
`python -m display.gallery DIR` writes (docs/screenshots/ holds the committed ones).

    python -m display.gallery docs/screenshots            # 800x480 and 720x1280
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pygame

from companion.geometry import board_geometry
from companion.referee.protocol import FLIP, REMOVE, TARGET, TO, Instruction
from display.paint import Painter
from display.screens import dice, gameover, home, play, review, settings, setup
from display.theme import Metrics

SIZES = ((800, 480), (720, 1280))


def _arinama_cells() -> dict[str, str]:
    return {
        "d4": "white",
        "e5": "white",
        "d5": "black",
        "e4": "black",
        "c3": "black",
        "c4": "white",
    }


def home_example() -> tuple[Callable, object]:
    model = home.HomeModel(
        games=[
            ("arinama", "Arinama"),
            ("arimaa", "Arimaa"),
            ("aranea", "Aranea"),
            ("sensei", "Sensei"),
        ],
        selected="arinama",
        recognised="arinama",
        options_text="8 x 8 board, Black first",
        unfinished=[(12, "#12 Arimaa, move 23")],
        status="camera: sim",
    )
    return home.draw, model


def setup_example() -> tuple[Callable, object]:
    """Setting up Arinama: the camera sees all four markers; the players still have to put a
    white stone on d4, and a stone lies on e3 that is not part of the start position."""
    import numpy as np

    geometry = board_geometry("arinama")
    start = {"d4": "white", "e5": "white", "d5": "black", "e4": "black"}
    on_the_board = {"e5": "white", "d5": "black", "e4": "black", "e3": "black"}
    wrong = {
        cell: (TARGET if cell in start else REMOVE)
        for cell in sorted(set(start) | set(on_the_board))
        if start.get(cell) != on_the_board.get(cell)
    }
    image = np.full((360, 640, 3), (70, 90, 110), np.uint8)  # a plain grey-blue "photo"
    image[40:320, 180:460] = (200, 215, 225)
    grid = []
    for cell in geometry.cells:
        grid.append(
            [
                (190 + x * 260 / geometry.width, 50 + y * 260 / geometry.height)
                for x, y in cell.polygon
            ]
        )
    markers = [  # one in each corner of the mat
        [(x, y), (x + 26, y), (x + 26, y + 26), (x, y + 26)] for x in (150, 464) for y in (14, 320)
    ]
    put = [f"a {start[c]} stone on {c}" for c, role in wrong.items() if role == TARGET]
    take = [c for c, role in wrong.items() if role == REMOVE]
    text = "Put " + " and ".join(put)
    if take:
        text += " and take the stone off " + " and ".join(take)
    model = setup.SetupModel(
        title="Set up Arinama",
        geometry=geometry,
        start_cells=start,
        wrong=wrong,
        frame=image,
        markers=markers,
        grid=grid,
        text=text,
        detail="Then press DONE",
        status=f"{len(markers)} markers seen",
        ready=False,
    )
    return setup.draw, model


def play_example() -> tuple[Callable, object]:
    instruction = Instruction(
        text="Turn d4 and e5 to black",
        kind="flip",
        player="black",
        highlights={"d4": FLIP, "e5": FLIP, "f6": TO},
        detail="The white stones on d4 and e5 each touch exactly three black stones now",
    )
    cells = _arinama_cells() | {"f6": "black"}
    model = play.PlayModel(
        title="Arinama",
        geometry=board_geometry("arinama"),
        cells=cells,
        instruction=instruction,
        turn="black",
        move_number=5,
        hands=True,
        camera="hands",
    )
    return play.draw, model


def dice_example() -> tuple[Callable, object]:
    model = dice.DiceModel(
        dice=(3, 4),
        value=1,
        rule="A 3 and a 4 count as 1",
        title="Aranea · dice",
        who="Amber rolls",
        continue_label="Play",
    )
    return dice.draw, model


def gameover_example() -> tuple[Callable, object]:
    cells = {
        f"{f}{r}": ("white" if (ord(f) + r) % 3 else "black")
        for f in "abcdefgh"
        for r in range(1, 9)
    }
    white = sum(1 for piece in cells.values() if piece == "white")
    black = sum(1 for piece in cells.values() if piece == "black")
    winner = "white" if white > black else "black"
    model = gameover.GameOverModel(
        title="Arinama",
        geometry=board_geometry("arinama"),
        cells=cells,
        headline=f"{winner.capitalize()} wins",
        detail=f"The board is full: {max(white, black)} {winner} stones to {min(white, black)}",
        winner=winner,
        moves=60,
    )
    return gameover.draw, model


def review_list_example() -> tuple[Callable, object]:
    model = review.ReviewListModel(
        games=[
            (14, "#14 Aranea", "playing · 9 moves · 22 Nov 03:10"),
            (13, "#13 Arinama", "finished · 60 moves · white wins (full-board)"),
            (12, "#12 Arimaa", "playing · 23 moves"),
            (11, "#11 Sensei", "finished · 31 moves · green wins"),
            (10, "#10 Arinama", "abandoned · 4 moves"),
        ]
    )
    return review.draw_list, model


def review_game_example() -> tuple[Callable, object]:
    boards = [{"d4": "white", "e5": "white", "d5": "black", "e4": "black"}]
    boards.append(boards[-1] | {"c4": "black", "d4": "black"})
    boards.append(boards[-1] | {"c5": "white", "d5": "white"})
    model = review.ReviewGameModel(
        title="#13 Arinama",
        geometry=board_geometry("arinama"),
        boards=boards,
        moves=["c4", "c5"],
        ply=1,
        highlights={"c4": TO},
    )
    return review.draw_game, model


def settings_example() -> tuple[Callable, object]:
    rows = [
        settings.SettingRow("Screen", "Rotation", "0°", "rotation"),
        settings.SettingRow("Colour names", "black pieces are called", "black", "colour:black"),
        settings.SettingRow("Colour names", "white pieces are called", "white", "colour:white"),
        settings.SettingRow("Arinama options", "rows", "8", "option:rows"),
        settings.SettingRow("Arinama options", "flip check", "simultaneous", "option:flip_check"),
        settings.SettingRow("Buttons (BCM, after a restart)", "DONE pin", "17", "pin:done"),
    ]
    return settings.draw, settings.SettingsModel(rows)


EXAMPLES: dict[str, Callable[[], tuple[Callable, object]]] = {
    "home": home_example,
    "setup": setup_example,
    "play": play_example,
    "dice": dice_example,
    "gameover": gameover_example,
    "review-list": review_list_example,
    "review-game": review_game_example,
    "settings": settings_example,
}


def render(name: str, size: tuple[int, int]) -> tuple[pygame.Surface, Painter, object]:
    """One example screen drawn on a fresh surface of `size`."""
    draw, model = EXAMPLES[name]()
    surface = pygame.Surface(size)
    painter = Painter(surface, Metrics(size))
    draw(painter, model)
    return surface, painter, model


def write_all(folder: str | Path) -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in EXAMPLES:
        for size in SIZES:
            surface, _, _ = render(name, size)
            path = folder / f"{name}-{size[0]}x{size[1]}.png"
            pygame.image.save(surface, str(path))
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> None:  # pragma: no cover
    import argparse
    import os

    parser = argparse.ArgumentParser(
        prog="python -m display.gallery",
        description="Draw every touchscreen screen with example content at "
        + " and ".join(f"{w}x{h}" for w, h in SIZES)
        + " and write them as PNGs named SCREEN-WxH.png.",
    )
    parser.add_argument(
        "folder", nargs="?", default="docs/screenshots", help="where (default: docs/screenshots)"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    pygame.display.init()
    pygame.font.init()
    for path in write_all(args.folder):
        print(path)


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
