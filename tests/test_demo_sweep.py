"""The demo must finish every game it starts: its simulated players against the referee, over
several seeds of every game (the cheap half of the demo - no camera, no screen; the whole demo
with vision is in test_app.py, and bench/bench_demo_sweep.py sweeps many more seeds)."""

import pytest

from companion.app import simulate_game
from companion.commands.run import DEMO_GAMES

SEEDS = (1, 2, 3)


@pytest.mark.parametrize("game", sorted(DEMO_GAMES))
def test_every_demo_game_ends_on_every_seed(game):
    for seed in SEEDS:
        moves, outcome = simulate_game(game, options=DEMO_GAMES[game] or None, seed=seed)
        assert outcome != "unfinished", f"{game} seed {seed}: no result after {moves} moves"


def test_the_arimaa_seeds_that_stalled_now_end():
    """Seeds 1 and 2 stalled on a push whose pusher stepped back (moves 26 and 57)."""
    for seed, stalled_at in ((1, 26), (2, 57)):
        moves, outcome = simulate_game("arimaa", seed=seed)
        assert moves > stalled_at and outcome != "unfinished"
