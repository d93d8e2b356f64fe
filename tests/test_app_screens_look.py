"""What a player saw on the demo's screens and found wrong: each test is one thing seen on a
screenshot (a board drawn without what the other screens show, a setting named in the
program's words, ...), checked on the page's model or its drawing."""

import dataclasses
import random

import pygame
import pytest
from test_records import play_recorded

from companion import games
from companion.app import App, Settings
from companion.records import Records
from companion.referee import Referee
from display.device import HeadlessScreen, init_pygame
from display.fonts import font
from display.paint import Painter, wrap


@pytest.fixture
def screen():
    init_pygame(headless=True)
    return HeadlessScreen((800, 480))


def arimaa_referee(records: Records) -> Referee:
    """An Arimaa game after both setups (random, seeded)."""
    from companion.games.arimaa import GOLD, SILVER, random_setup

    referee = Referee(games.get("arimaa").new(), records=records)
    rng = random.Random(3)
    referee._accept(random_setup(GOLD, rng))
    referee._accept(random_setup(SILVER, rng))
    return referee


def test_the_game_over_board_writes_arimaa_s_piece_types_as_play_and_review_do(screen, tmp_path):
    """The play screen and the review write E, M, H, D, C, R on Arimaa's pieces; the game-over
    screen between them drew the final board as plain discs."""
    records = Records(tmp_path / "r.sqlite3")
    app = App(screen, Settings(game="arimaa"), records=records)
    app.referee = arimaa_referee(records)
    app.go("gameover")
    _, model = app.page_model()
    assert model.piece_labels == app.referee.position.piece_labels()
    assert sorted(set(model.piece_labels.values())) == ["C", "D", "E", "H", "M", "R"]
    draw, model = app.page_model()
    draw(Painter(screen.canvas, app.metrics), model)
    with_types = pygame.surfarray.array3d(screen.canvas).copy()
    draw(Painter(screen.canvas, app.metrics), dataclasses.replace(model, piece_labels={}))
    assert (with_types != pygame.surfarray.array3d(screen.canvas)).any()


def test_sensei_s_settings_offer_names_for_the_two_colours_not_for_the_characters(screen):
    """Settings -> Colour names showed "green-character pieces are called: green-character"
    (in German "Die Steine von green-character heißen"): the characters' camera classes, in
    the program's words. A character is named by its player's colour, so only the two
    colours have a row."""
    app = App(screen, Settings(game="sensei", language="de"))
    app.act("settings")
    keys = [row.key for row in app.pages.settings.rows() if row.key.startswith("colour:")]
    assert keys == ["colour:green", "colour:red"]
    for number in range(4):
        app.act("page", number)
        app.render(force=True)
        assert not [t for t in app.painter.texts if "character" in t], app.painter.texts


def test_the_colour_names_rows_read_as_sentences_in_english(screen):
    """A trial: the English Settings page said "black pieces are called", in lower case, among
    rows that begin with a capital; the table's colour word starts the line."""
    app = App(screen, Settings(game="arinama", language="en"))
    app.act("settings")
    labels = {row.key: row.label for row in app.pages.settings.rows()}
    assert labels["colour:black"] == "Black stones are called"
    assert labels["colour:white"] == "White stones are called"


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_colour_names_rows_say_the_game_s_word_for_its_pieces(screen, language):
    """A trial: German Settings called Arimaa's figures "Steine", as the one message had it for
    every game; Arinama's and Aranea's stones were "pieces" in English."""
    from companion import i18n

    words = {
        "en": {"arinama": "Black stones", "aranea": "Amber stones", "arimaa": "Gold pieces"},
        "de": {
            "arinama": "Die Steine von Schwarz",
            "aranea": "Die Steine von Bernstein",
            "arimaa": "Die Figuren von Gold",
        },
    }
    i18n.set_language(language)
    try:
        for game, said in words[language].items():
            app = App(screen, Settings(game=game, language=language))
            app.act("settings")
            labels = [
                row.label for row in app.pages.settings.rows() if row.key.startswith("colour:")
            ]
            assert labels[0].startswith(said), labels
    finally:
        i18n.set_language("en")


def test_every_game_option_on_the_settings_screen_is_named_in_the_table_s_words():
    """Settings -> Arimaa options showed "equipment: mat" in German too: the option's name and
    values as the program spells them. Every option a Settings row steps through (and every
    value of a choice) is named in OPTION_NAMES / OPTION_VALUES, so it is translated."""
    import typing

    from companion import i18n
    from companion.option_words import OPTION_NAMES, OPTION_VALUES, option_label, option_value

    for cls in games.classes():
        hints = typing.get_type_hints(cls.Options)
        for f in dataclasses.fields(cls.Options):
            if f.name in ("rows", "cols", "pits"):
                continue  # numbers, and the settings file's lists
            assert f.name in OPTION_NAMES, (cls.name, f.name)
            if typing.get_origin(hints[f.name]) is typing.Literal:
                for value in typing.get_args(hints[f.name]):
                    assert value in OPTION_VALUES or value in i18n.COLOUR_NOUNS, (cls.name, value)
    i18n.set_language("de")
    try:
        assert option_label("equipment") == "Spielmaterial"
        assert (option_value("mat"), option_value("chess")) == ("Spielmatte", "Schachspiel")
    finally:
        i18n.set_language("en")


def test_the_review_marks_a_sensei_character_move_as_from_and_to_not_as_turned_over(screen):
    """Reviewing Sensei, "@g2-g7" (the character moved from the stone on g2 to the one on g7)
    was marked on both cells with the orange stripes of "turn over"; Arinama's turned stones
    keep them."""
    from types import SimpleNamespace

    app = App(screen, Settings())
    page = app.pages.review_game
    before = {"g2": "green-character", "g7": "green", "c3": "black", "d4": "black"}
    after = {"g2": "green", "g7": "green-character", "c3": "white", "e5": "black"}
    page.review = SimpleNamespace(boards=[before, after], ply=1)
    page.turns_over = True  # (c3 as in a game whose stones turn over: Arinama)
    assert page._highlights() == {"g2": "from", "g7": "to", "c3": "flip", "d4": "from", "e5": "to"}


def test_the_review_s_list_of_moves_never_ends_a_line_with_a_move_s_number(screen):
    """Reviewing Arimaa, the moves around the one shown wrapped as "... 56g Md4n De5s Ha6e
    Hb6s   56s" / "rd2s rf7e rg7e": the last turn's label ended one line, its steps began
    the next. A label and its move are kept together."""
    from companion.geometry import board_geometry
    from display.screens import review

    moves = ["rc2e", "Md4n De5s Ha6e Hb6s", "rd2s rf7e rg7e"]
    model = review.ReviewGameModel(
        title="#1 Arimaa",
        geometry=board_geometry("arimaa", games.get("arimaa").new().options),
        boards=[{}] * 4,
        moves=moves,
        ply=3,
        move_labels=["55s", "56g", "56s"],
    )
    metrics = App(screen, Settings()).metrics
    painter = Painter(screen.canvas, metrics)
    review.draw_game(painter, model)
    (text,) = [t for t in painter.texts if "rc2e" in t and "Hb6s" in t]
    body = font(metrics.font_body)
    for width in range(80, body.size(text)[0], 7):  # wrapped at any width
        lines = wrap(text, body, width)
        assert not [line for line in lines if line.endswith(("55s", "56g", "56s"))], lines


def test_the_review_says_aranea_s_rolls_and_a_pass_in_the_table_s_language(screen):
    """The German review listed Aranea's rolls as "137. roll 4-4" (the notation's English word,
    where the play screen says "Wurf 5 und 1"); the dice were "4-4", like the cell "r4-4"."""
    from companion import i18n
    from companion.app.pages.review import shown_move

    assert shown_move("roll 4-4") == "roll 4 and 4 = 8" and shown_move("r3-7") == "r3-7"
    assert shown_move("roll 3-4") == "roll 3 and 4 = 1"  # (the value the review did not say)
    i18n.set_language("de")
    try:
        assert shown_move("roll 1-4") == "Wurf 1 und 4 = 5"
        assert shown_move("pass") == "aussetzen"
        assert shown_move("place") == "einsetzen"  # (a review: the German page said "place")
        assert shown_move("d2-d6 b7-c7 @a3-a4") == "d2-d6 b7-c7 @a3-a4"
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("size", [(800, 480), (720, 1280)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_arimaa_s_play_screen_says_what_the_letters_on_the_pieces_mean(language, size, tmp_path):
    """A trial: a German table read "H" on a piece as Hund (dog) - it is the horse (Pferd);
    the letters are the notation's in both languages, and nothing said so. A key under the
    instruction names the letters shown, in the table's words; with a step to put back (a
    highlight key too) it still fits, clear of the buttons."""
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from test_display import text_overlaps

    from companion.observation import Observation

    init_pygame(headless=True)
    screen = HeadlessScreen(size)
    records = Records(tmp_path / "r.sqlite3")
    app = App(screen, Settings(game="arimaa", language=language), records=records)
    app.referee = arimaa_referee(records)
    app.position = app.referee.position
    app.go("play")
    cells = app.referee.position.cells()
    board = dict.fromkeys(app.referee.position.cell_names(), "empty")
    moved = {**cells}
    first = sorted(c for c in cells if c.endswith("2"))[0]  # a gold piece steps two ranks
    moved[first.replace("2", "4")] = moved.pop(first)
    for shown in (cells, moved):
        app.on_observation(Observation({**board, **shown}, frame=len(app.events) + 1))
        app.render(force=True)
        painter = app.painter
        key = [t for t in painter.texts if "\u00a0" in t]
        horse = "H\u00a0Pferd" if language == "de" else "H\u00a0horse"
        assert any(horse in t for t in key), painter.texts
        assert painter.cut == [] and text_overlaps(painter) == []
        for text, rect in painter.drawn:
            assert screen.canvas.get_rect().contains(rect), text
    assert app.referee.instruction.highlights  # the second board: two steps marked
    pygame.image.save(screen.canvas, str(tmp_path / "arimaa-play.png"))


@pytest.mark.parametrize("game", ["arinama", "aranea", "sensei"])
def test_two_colours_of_a_game_are_never_called_by_one_name(screen, game):
    """Found by a review: one + on "Black pieces are called" gave "white" - and both players
    read "White to play"."""
    from companion.i18n import set_colour_names

    app = App(screen, Settings(game=game, language="en"))
    app.act("settings")
    keys = [row.key for row in app.pages.settings.rows() if row.key.startswith("colour:")]
    try:
        for key in keys:
            for step in (1, 1, -1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1):
                app.pages.settings.change(key, step)
                names = [app.settings.colour_names.get(k[7:], k[7:]) for k in keys]
                assert len(set(names)) == len(names), names
        # a colour renamed away, the other given its word, then the first stepped round:
        # its own word is taken now too (a review found it offered)
        first, second = (k[7:] for k in keys[:2])
        app.settings.colour_names.update({first: "dark", second: first})
        for step in [1] * 12 + [-1] * 12:
            app.pages.settings.change(keys[0], step)
            names = [app.settings.colour_names.get(k[7:], k[7:]) for k in keys]
            assert len(set(names)) == len(names), names
    finally:
        set_colour_names({})


@pytest.mark.parametrize("size", [(800, 480), (720, 1280)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_home_s_options_opens_the_settings_at_the_game_s_options(size):
    """Found by a review: Options on the home screen opened Settings at the language page;
    the game's options lay two pages further."""
    init_pygame(headless=True)
    app = App(HeadlessScreen(size), Settings(game="arinama", language="en"))
    app.act("options")
    app.render(force=True)
    option_labels = [r.label for r in app.pages.settings.rows() if r.key.startswith("option:")]
    assert option_labels[0] in app.painter.texts  # (portrait: on the first page, with Language)
    assert size[1] > size[0] or "Language" not in app.painter.texts
    app.act("back")
    app.act("settings")  # Settings itself opens at the first page
    app.render(force=True)
    assert "Language" in app.painter.texts


def test_arranging_an_arimaa_setup_on_a_chess_set_says_which_chess_piece_is_which(screen):
    """Found by a review: the arranging screen keyed E, M, H ... with the players holding
    chess pieces, and no word of which is which; its buttons were in lower case beside Menu."""
    app = App(
        screen, Settings(game="arimaa", language="en", options={"arimaa": {"equipment": "chess"}})
    )
    app.start_game("arimaa")
    app.act("choose", "arrange")
    app.render(force=True)
    assert any("king = elephant" in t for t in app.painter.texts), app.painter.texts
    labels = {t.label for t in app.painter.targets}
    assert {"Use this", "Back", "Menu"} <= labels


def test_on_a_chess_set_the_play_screen_names_the_letters_as_chess_pieces(screen, tmp_path):
    """Found by a review: with a chess set the key said "H Pferd" - and a German player
    reads Pferd as the knight, which plays Arimaa's cat; H is the rook (Turm)."""
    from companion.games.arimaa import ArimaaPosition

    app = App(screen, Settings(game="arimaa", language="de"))
    position = ArimaaPosition.new({"equipment": "chess"})
    app.referee = arimaa_referee(Records(tmp_path / "r.sqlite3"))
    app.referee.position.options = position.options
    app.go("play")
    app.render(force=True)
    key = next(t for t in app.painter.texts if "\u00a0" in t)
    assert "H\u00a0Turm" in key and "Pferd" not in key


def test_arimaa_s_diagram_writes_no_letter_the_camera_cannot_vouch_for(screen):
    """A trial: asked "Which gold piece is on a1 now?", the diagram still wrote the pieces'
    letters where they stood before the steps - a "C" on an empty square, and the letter of
    one of the two pieces asked about on a1, which the answer is to say."""
    from companion.games.arimaa import ArimaaPosition
    from companion.observation import Observation

    far = {"a8": "r", "h8": "r", "d7": "e", "e7": "m"}  # Silver's pieces, far from the steps
    position = ArimaaPosition.from_board({**far, "a1": "D", "b1": "C", "h1": "R"}, side="gold")
    app = App(screen, Settings(game="arimaa"))
    app.referee = Referee(position.copy())
    app.position = app.referee.position
    app.go("play")
    empty = dict.fromkeys(position.cell_names(), "empty")
    board = {**empty, **position.cells()}
    app.on_observation(Observation(board, frame=1))
    letters = {"a1": "D", "b1": "C", "h1": "R", "a8": "R", "h8": "R", "d7": "E", "e7": "M"}
    assert app.pages.play.piece_labels() == letters
    board.pop("b1")
    board["a2"] = "gold"  # Da1n Cb1w, or Cb1n Cb2w: the colours are the same
    app.on_observation(Observation({**empty, **board}, frame=2))
    assert app.referee.instruction.text == "Which gold piece is on a1 now?"
    labels = app.pages.play.piece_labels()
    assert "b1" not in labels and "a1" not in labels and "a2" not in labels
    assert labels["h1"] == "R" and labels["d7"] == "E"
    app.act("choose", "cat")
    assert app.pages.play.piece_labels()["a1"] == "C"


def test_aranea_s_turns_are_numbered_as_one_roll_and_its_use(screen, tmp_path):
    """A trial: the header said "move 28" after 14 turns - each roll counted as a move, the
    opening rolls too. A roll and its use are one turn, the opening rolls belong to the
    first; the play screen's header and the review number them alike."""
    records = Records(tmp_path / "r.sqlite3")
    game_id, position = play_recorded(records, "aranea", seed=2, max_moves=12)
    texts = [m.text for m in records.game(game_id).moves]
    app = App(screen, Settings(game="aranea"), records=records)
    app.pages.review_game.open(game_id)
    labels = app.pages.review_game.review.move_labels
    turn, expected = 1, []
    for text in texts:
        expected.append(str(turn))
        turn += not text.startswith("roll ")
    assert labels == expected and labels[:3] == ["1", "1", "1"]  # two opening rolls, a roll
    assert position.move_label == str(turn)
    app.referee = Referee(position)
    app.position = position
    app.go("play")
    app.render(force=True)
    assert f"Aranea · move {turn}" in app.painter.texts


def test_the_settings_header_says_saved_then_the_page_again(screen):
    """A trial: after one change, "Saved" stood in the header instead of "page 2 of 4" on every
    page turned to after, and the players could not tell where they were."""
    app = App(screen, Settings(game="arinama", language="en"))
    app.act("settings")
    app.act("setting-up", "rotation")
    app.act("setting-down", "rotation")
    app.render(force=True)
    assert "Saved" in app.painter.texts
    app.act("page", 1)
    app.render(force=True)
    assert "Saved" not in app.painter.texts
    assert any(t.startswith("page 2 of ") for t in app.painter.texts), app.painter.texts


def test_aranea_offers_no_roll_while_the_calibration_stones_are_still_to_come_off(screen):
    """A trial: while the screen asked to take the calibration's stones off, Roll (and Done)
    stood there as usual and did nothing. Roll is offered once a roll can be made."""
    from companion.observation import Observation

    position = games.get("aranea").new({"first": "amber"})
    app = App(screen, Settings(game="aranea"))
    app.referee = Referee(position.copy(), clear_first=True)
    app.position = app.referee.position
    app.go("play")
    empty = dict.fromkeys(position.cell_names(), "empty")
    app.on_observation(Observation({**empty, "r1-5": "amber", "r2-11": "blue"}, frame=1))
    assert app.referee.calibration_pieces
    app.render(force=True)
    labels = [t.label for t in app.painter.targets]
    assert "Roll" not in labels and "Done" not in labels
    app.on_observation(Observation(empty, frame=2))
    assert app.referee.instruction.text == "Amber: press ROLL"
    app.render(force=True)
    labels = [t.label for t in app.painter.targets]
    assert "Roll" in labels and "Done" in labels


def test_the_review_header_counts_positions_and_its_title_the_game_s_moves(screen, tmp_path):
    """A trial: an Aranea review said "move 128 of 128" in the header over "Move 63" in the
    title. The header counts the positions stepped through, the title the game's moves."""
    records = Records(tmp_path / "r.sqlite3")
    game_id, _position = play_recorded(records, "aranea", seed=2, max_moves=12)
    app = App(screen, Settings(game="aranea"), records=records)
    app.pages.review_game.open(game_id)
    app.render(force=True)
    assert "position 12 of 12" in app.painter.texts
    assert not [t for t in app.painter.texts if t.startswith("move 12")]
