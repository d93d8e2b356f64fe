"""The shared model (companion.games.base), checked the same way for every game."""

import json
import random

import pytest

from companion import games
from companion.dice import Dice
from companion.games.base import game_from_json, game_to_json


def random_game(name: str, seed: int, max_moves: int = 400):
    rng = random.Random(seed)
    dice = Dice(seed=seed)
    pos = games.get(name).new()
    for _ in range(max_moves):
        if pos.is_game_over():
            break
        if pos.awaiting_roll:
            pos.push(pos.roll_move(dice))
        else:
            pos.push(pos.random_move(rng))
    return pos


@pytest.mark.parametrize("name", games.names())
@pytest.mark.parametrize("seed", range(3))
def test_random_game_round_trips_through_json(name, seed):
    pos = random_game(name, seed, max_moves=60)
    record = json.loads(json.dumps(game_to_json(pos)))
    again = game_from_json(record)
    assert again.to_json() == pos.to_json()
    assert [again.move_text(m) for m in again.move_stack] == record["moves"]


@pytest.mark.parametrize("name", games.names())
def test_push_pop_restores_position(name):
    pos = random_game(name, 7, max_moves=30)
    snapshots = []
    board = pos.root()
    for move in pos.move_stack:
        snapshots.append(board.to_json())
        board.push(move)
    for expected in reversed(snapshots):
        board.pop()
        assert board.to_json() == expected


@pytest.mark.parametrize("name", games.names())
def test_position_json_round_trip_and_diagram(name):
    cls = games.get(name)
    pos = random_game(name, 3, max_moves=20)
    data = json.loads(json.dumps(pos.to_json()))
    again = cls.from_json(data)
    assert again.to_json() == data
    assert again.diagram() == pos.diagram()
    assert set(pos.cells()) <= set(pos.cell_names())
    assert set(pos.cells().values()) <= set(cls.cell_classes())


@pytest.mark.parametrize("name", games.names())
def test_move_text_round_trips(name):
    pos = random_game(name, 5, max_moves=10)
    if pos.awaiting_roll:  # Aranea between turns: roll, so there are uses to write and read
        pos.push(pos.roll_move(Dice(seed=5)))
    moves = pos.legal_moves()
    assert not pos.is_game_over() and moves
    for move in moves[:200]:
        assert pos.parse_move(pos.move_text(move)) == move


def outcome_reasons(cls) -> set:
    """The reasons the `Outcome(winner, reason, ...)` calls of a game's module give, read
    from its source: every end `outcome()` can reach, not only those random games reach."""
    import ast
    import inspect
    import sys

    reasons = set()
    for node in ast.walk(ast.parse(inspect.getsource(sys.modules[cls.__module__]))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Outcome":
            given = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "reason")]
            for reason in given:
                assert isinstance(reason, ast.Constant), ast.unparse(node)  # a literal each
                reasons.add(reason.value)
    return reasons


@pytest.mark.parametrize("name", games.names())
def test_rule_reasons_are_the_reasons_the_games_outcome_gives(name):
    cls = games.get(name)
    assert outcome_reasons(cls) == cls.rule_reasons


@pytest.mark.parametrize("name", games.names())
def test_every_end_the_rules_reach_is_among_the_games_rule_reasons(name):
    """`rule_reasons` is what `companion replay` holds a record's stated end against: a reason
    the rules give and the list lacks would let a record claim it where the board shows none."""
    reached = set()
    for seed in range(12):
        pos = random_game(name, seed, max_moves=3000)
        if pos.outcome() is not None:
            reached.add(pos.outcome().reason)
    assert reached, "no random game ended: the check would say nothing"
    assert reached <= games.get(name).rule_reasons


# a non-default option of each game, as a plain dict (JSON, the CLI's -o)
NON_DEFAULT = {
    "arinama": {"rows": 5, "cols": 5},
    "arimaa": {"equipment": "chess"},
    "aranea": {"first": "blue"},
    "sensei": {"movement": "shizukana"},
}


@pytest.mark.parametrize("name", games.names())
def test_new_takes_the_options_as_a_dict_as_every_game_does(name):
    """Found by a helper: `new` took a dict in Arinama and Aranea, failed in Sensei, and kept
    the raw dict in Arimaa (which then failed later, far from the cause)."""
    cls = games.get(name)
    as_dict = cls.new(NON_DEFAULT[name])
    options = cls.options_from(NON_DEFAULT[name])
    assert as_dict.options == options != cls.Options()
    assert as_dict.to_json() == cls.new(options).to_json()
    assert cls.new().options == cls.Options()
    with pytest.raises(ValueError, match="unknown .* option 'nonsense'"):
        cls.new({"nonsense": 1})


@pytest.mark.parametrize("name", games.names())
def test_the_moves_played_are_counted_by_the_labels_the_screens_number_them_with(name):
    """`labels_played` is each move's `move_label` where it was played (the play screen's
    header and the review's titles), and `moves_played` the moves those labels count: an
    Aranea game of 120 entries, rolls and their uses, said "120 moves" at its end where the
    review's last title said "Move 59" (a game's own count: Arinama's and Sensei's moves,
    Arimaa's turns, Aranea's turns)."""
    pos = random_game(name, 5, max_moves=120)
    board, labels = pos.root(), []
    for move in pos.move_stack:
        labels.append(board.move_label)
        board.push(move)
    assert pos.labels_played() == labels
    runs = [label for i, label in enumerate(labels) if i == 0 or label != labels[i - 1]]
    assert pos.moves_played == len(runs) == len(set(labels))
    if name == "aranea":  # a roll and its use are one move: its turn
        assert pos.moves_played < len(pos.move_stack)
        assert pos.moves_played == int(labels[-1])
    else:  # a placement, a turn of steps or actions, a setup: one entry each
        assert pos.moves_played == len(pos.move_stack)


def test_an_arimaa_turn_in_progress_is_not_a_move_played_yet():
    pos = random_game("arimaa", 2, max_moves=6)
    played = pos.moves_played
    pos.push_step(pos.legal_steps()[0])
    assert pos.mid_turn and pos.moves_played == played == len(pos.move_stack)
