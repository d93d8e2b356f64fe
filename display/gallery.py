"""Every screen with example content, at any size: what the screenshot tests check and what
`python -m display.gallery DIR` writes (docs/screenshots/ holds the committed ones).

    python -m display.gallery docs/screenshots            # 800x480 and 720x1280
    python -m display.gallery --language de docs/screenshots/de   # the same, in German

The examples' words come from the message catalogue, like the app's: in German they are the
German the table shows.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pygame

from companion import games, i18n
from companion.games.base import Outcome
from companion.geometry import board_geometry
from companion.i18n import _, ngettext, pgettext
from companion.option_words import button_name, colour_name_label, option_label, option_value
from companion.referee import phrases
from companion.referee.outcomes import outcome_text, result_text
from companion.referee.protocol import FLIP, REMOVE, TARGET, TO, Instruction
from companion.usb_drives import Drive
from companion.usb_export import GameFiles, StickExport
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
        games=[(cls.name, cls.title) for cls in games.classes()],
        selected="arinama",
        recognised="arinama",
        options_text=_("{rows} x {cols} board").format(rows=8, cols=8),
        unfinished=[(12, _("#{id} {game}, move {number}").format(id=12, game="Arimaa", number=23))],
        status=_("camera: {state}").format(state="sim"),
    )
    return home.draw, model


def setup_example() -> tuple[Callable, object]:
    """Setting up Arinama: the camera sees all four markers; the players still have to put a
    white stone on d4, and a stone lies on e3 that is not part of the start position."""
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
    # What is wrong, in the referee's words: the stone to take off, the one to put back.
    text = phrases.join_sentences(
        phrases.fix_sentences(
            start,
            on_the_board,
            name_at=lambda cell, cls, n=1: phrases.piece_phrase("stone", cls, n),
        )
    )
    model = setup.SetupModel(
        title=_("Set up {game}").format(game="Arinama"),
        geometry=geometry,
        start_cells=start,
        wrong=wrong,
        frame=image,
        markers=markers,
        grid=grid,
        text=text,
        detail=_("Put the pieces as shown, then press DONE"),
        status=ngettext("{count} marker seen", "{count} markers seen", len(markers)).format(
            count=len(markers)
        ),
        ready=False,
    )
    return setup.draw, model


def play_example() -> tuple[Callable, object]:
    flipped = ["d4", "e5"]
    instruction = Instruction(  # in the words of companion.referee.arinama
        text=_("Turn {cells} to {colour}").format(
            cells=phrases.cell_list(flipped), colour=i18n.colour_noun("black")
        ),
        kind="flip",
        player="black",
        highlights={"d4": FLIP, "e5": FLIP, "f6": TO},
        detail=ngettext(
            "The {rival} stone on {cells} touches exactly three {mover} stones now",
            "The {rival} stones on {cells} each touch exactly three {mover} stones now",
            len(flipped),
        ).format(
            rival=i18n.colour_adj("white"),
            cells=phrases.cell_list(flipped),
            mover=i18n.colour_adj("black"),
        ),
    )
    cells = _arinama_cells() | {"f6": "black"}
    model = play.PlayModel(
        title="Arinama",
        geometry=board_geometry("arinama"),
        cells=cells,
        instruction=instruction,
        turn="black",
        move_label="6",
        hands=True,
        camera=_("camera: {state}").format(state=pgettext("camera state", "hands")),
    )
    return play.draw, model


def play_covered_example() -> tuple[Callable, object]:
    """The play screen while something has lain over the board for a while (a lamp's shadow
    across the mat's edge): the players may say the board is clear."""
    draw, model = play_example()
    covered = dataclasses.replace(
        model,
        covered=True,
        covered_near="h4",
        camera=_("camera: {state}").format(state=pgettext("camera state", "covered")),
    )
    return draw, covered


def dice_example() -> tuple[Callable, object]:
    model = dice.DiceModel(
        dice=(3, 4),
        value=1,
        rule=_("A 3 and a 4 count as 1"),
        title=_("{game} · dice").format(game="Aranea"),
        who=_("{player} rolls").format(player=i18n.player("amber")),
        continue_label=_("Play"),
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
        headline=_("{player} wins").format(player=i18n.player(winner)),
        detail=outcome_text(
            Outcome(winner, "full-board", f"the board is full: {black} black, {white} white")
        ),
        winner=winner,
        moves=60,
    )
    return gameover.draw, model


def review_list_example() -> tuple[Callable, object]:
    model = review.ReviewListModel(
        games=[
            (14, "#14 Aranea", _review_line("playing", 9, "2026-11-22 03:10")),
            (
                13,
                "#13 Arinama",
                _review_line(
                    "finished",
                    60,
                    result_text(
                        Outcome("white", "full-board", "the board is full: 27 black, 37 white"),
                        short=True,
                    ),
                ),
            ),
            (12, "#12 Arimaa", _review_line("playing", 23)),
            (
                11,
                "#11 Sensei",
                _review_line(
                    "finished", 31, result_text(Outcome("green", "character-home"), short=True)
                ),
            ),
            (10, "#10 Arinama", _review_line("abandoned", 4)),
        ]
    )
    return review.draw_list, model


def _review_line(status: str, moves: int, end: str = "") -> str:
    """A line of the review list, as the app writes it."""
    parts = [
        pgettext("game status", status),
        ngettext("{count} move", "{count} moves", moves).format(count=moves),
    ]
    return " · ".join([*parts, end] if end else parts)


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


def _exported(game_ids: list[int], skipped: list[int]) -> StickExport:
    """An export to a USB stick labelled KINGSTON that has written `game_ids` and not
    `skipped` (their records do not replay)."""
    drive = Drive(Path("/media/tabletop-companion/sda1"), "/dev/sda1", "vfat", False, "KINGSTON")
    job = StickExport(drive, [*game_ids, *skipped], find=lambda: [drive])
    stem = "game-{}-arinama-2026-12-07"
    job.done = [
        GameFiles(i, (Path(stem.format(i) + ".html"), Path(stem.format(i) + ".json")), 2)
        for i in game_ids
    ]
    job.skipped = list(skipped)
    return job


def review_list_exported_example() -> tuple[Callable, object]:
    """All to USB done: four games written, one not (the longest thing it says)."""
    draw, model = review_list_example()
    model.note = _exported([14, 13, 12, 11], [10]).note()
    return draw, model


def review_game_exported_example() -> tuple[Callable, object]:
    """Export to USB done, at the game's last move: its result and the note share the room."""
    draw, model = review_game_example()
    model.ply = len(model.boards) - 1
    model.result = result_text(
        Outcome("white", "full-board", "the board is full: 27 black, 37 white")
    )
    model.note = _exported([13], []).note()
    return draw, model


def settings_example() -> tuple[Callable, object]:
    colours = _("Colour names")
    options = _("{game} options").format(game="Arinama")
    rows = [
        settings.SettingRow(
            _("Screen"), _("Language"), i18n.LANGUAGE_NAMES[i18n.language()], "language"
        ),
        settings.SettingRow(_("Screen"), _("Rotation"), "0°", "rotation"),
        settings.SettingRow(_("Speech"), _("Spoken instructions"), option_value(True), "speech"),
        settings.SettingRow(_("Speech"), _("Volume"), "80 %", "volume"),
        settings.SettingRow(
            colours,
            colour_name_label("black", stones=True),
            i18n.colour_noun("black", False),
            "colour:black",
        ),
        settings.SettingRow(
            colours,
            colour_name_label("white", stones=True),
            i18n.colour_noun("white", False),
            "colour:white",
        ),
        settings.SettingRow(options, option_label("rows"), "8", "option:rows"),
        settings.SettingRow(
            options,
            option_label("flip_check"),
            option_value("simultaneous"),
            "option:flip_check",
        ),
        settings.SettingRow(
            _("Pins (BCM, after a restart)"),
            _("{button} pin").format(button=button_name("done")),
            "17",
            "pin:done",
        ),
    ]
    return settings.draw, settings.SettingsModel(rows)


EXAMPLES: dict[str, Callable[[], tuple[Callable, object]]] = {
    "home": home_example,
    "setup": setup_example,
    "play": play_example,
    "play-covered": play_covered_example,
    "dice": dice_example,
    "gameover": gameover_example,
    "review-list": review_list_example,
    "review-game": review_game_example,
    "review-list-exported": review_list_exported_example,
    "review-game-exported": review_game_exported_example,
    "settings": settings_example,
}


def render(name: str, size: tuple[int, int]) -> tuple[pygame.Surface, Painter, object]:
    """One example screen drawn on a fresh surface of `size`."""
    draw, model = EXAMPLES[name]()
    surface = pygame.Surface(size)
    painter = Painter(surface, Metrics(size))
    draw(painter, model)
    return surface, painter, model


def write_all(folder: str | Path, language: str = "en") -> list[Path]:
    """Every example at both sizes as PNGs, in `language` (the table's language is restored)."""
    before = i18n.language()
    i18n.set_language(language)
    try:
        return _write_all(Path(folder))
    finally:
        i18n.set_language(before)


def _write_all(folder: Path) -> list[Path]:
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
    parser = argparse.ArgumentParser(
        prog="python -m display.gallery",
        description="Draw every touchscreen screen with example content at "
        + " and ".join(f"{w}x{h}" for w, h in SIZES)
        + " and write them as PNGs named SCREEN-WxH.png.",
    )
    parser.add_argument(
        "folder", nargs="?", default="docs/screenshots", help="where (default: docs/screenshots)"
    )
    parser.add_argument("--language", choices=i18n.LANGUAGES, default="en")
    args = parser.parse_args(argv)
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    pygame.display.init()
    pygame.font.init()
    for path in write_all(args.folder, args.language):
        print(path)


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
