"""companion.geometry: the boards as plain data, checked against the rules' cell names."""

import math

import pytest

from companion.errors import UserError
from companion.geometry import ARANEA_CENTRE, board_geometry, grid_geometry


def polygon_area(points):
    return 0.5 * abs(
        sum(
            x0 * y1 - x1 * y0
            for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True)
        )
    )


def inside(point, polygon):
    x, y = point
    hit = False
    for (x0, y0), (x1, y1) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            hit = not hit
    return hit


def test_grid_cells_are_named_from_the_first_players_side():
    g = grid_geometry(3, 4, 10.0)
    assert g.cell_names()[:5] == ["a1", "b1", "c1", "d1", "a2"]
    assert g.cell("a1").center == (5.0, 25.0)  # bottom-left
    assert g.cell("d3").center == (35.0, 5.0)  # top-right
    assert (g.width, g.height) == (40.0, 30.0)


@pytest.mark.parametrize("rows,cols", [(5, 5), (8, 8), (3, 12)])
def test_arinama_board_follows_its_options(rows, cols):
    g = board_geometry("arinama", {"rows": rows, "cols": cols})
    assert len(g.cells) == rows * cols
    assert g.cell(f"{chr(96 + cols)}{rows}")


def test_arinama_reads_an_options_object():
    class Options:
        rows, cols = 5, 6

    assert len(board_geometry("arinama", Options()).cells) == 30


def test_arimaa_has_its_four_traps():
    g = board_geometry("arimaa")
    assert len(g.cells) == 64
    assert sorted(m.cell for m in g.marks if m.kind == "trap") == ["c3", "c6", "f3", "f6"]


def test_sensei_storm_side_has_pits_from_options():
    assert board_geometry("sensei").marks == ()
    storm = board_geometry("sensei", {"side": "storm"})
    assert sorted(m.cell for m in storm.marks) == ["c3", "c5", "e3", "e5"]
    custom = board_geometry("sensei", {"side": "storm", "pits": "b2, f6"})
    assert sorted(m.cell for m in custom.marks if m.kind == "pit") == ["b2", "f6"]
    assert len(storm.cells) == 49


def test_aranea_web_rings_numbered_clockwise_from_the_top():
    g = board_geometry("aranea")
    names = g.cell_names()
    assert names[:12] == [f"r1-{n}" for n in range(1, 13)]
    assert names[-12:] == [f"c{n}" for n in range(1, 13)]
    assert len(names) == 48
    cx, cy = g.width / 2, g.height / 2

    def clock(name):  # angle clockwise from 12 o'clock, degrees
        x, y = g.cell(name).center
        return math.degrees(math.atan2(x - cx, -(y - cy))) % 360

    assert clock("r1-12") == pytest.approx(0, abs=1e-6)
    assert clock("r2-3") == pytest.approx(90)  # three o'clock: right
    assert clock("r3-6") == pytest.approx(180)
    # ring 1 is the outermost, equal numbers lie on one ray
    dist = [math.dist(g.cell(f"r{k}-5").center, (cx, cy)) for k in (1, 2, 3)]
    assert dist[0] > dist[1] > dist[2]
    assert clock("r1-5") == pytest.approx(clock("r3-5"))


def test_aranea_centre_is_numbered_row_by_row_from_the_top_left():
    g = board_geometry("aranea")
    assert ARANEA_CENTRE[0] == (1, 2, 3, 4)
    c1, c4, c5, c12 = (g.cell(n).center for n in ("c1", "c4", "c5", "c12"))
    assert c1[1] == c4[1] < c5[1] < c12[1]
    assert c1[0] == c5[0] < c4[0] == c12[0]
    # the centre block lies inside the innermost ring
    ring_radius = min(math.dist(p, (g.width / 2, g.height / 2)) for p in g.cell("r3-1").polygon)
    assert all(
        math.dist(p, (g.width / 2, g.height / 2)) < ring_radius for p in g.cell("c1").polygon
    )


@pytest.mark.parametrize("game", ["arinama", "arimaa", "aranea", "sensei"])
def test_cells_tile_without_overlap_and_hold_their_circle(game):
    g = board_geometry(game)
    for cell in g.cells:
        assert inside(cell.center, list(cell.polygon))
        assert cell.radius > 5
        # the inner circle fits: its area is below the polygon's
        assert math.pi * cell.radius**2 < polygon_area(list(cell.polygon))
        for other in g.cells:
            if other is not cell:
                assert not inside(cell.center, list(other.polygon))
        for x, y in cell.polygon:
            assert -1e-6 <= x <= g.width + 1e-6 and -1e-6 <= y <= g.height + 1e-6


def test_translated_moves_everything():
    g = board_geometry("arimaa").translated(10, 20)
    assert g.cell("a8").polygon[0] == (10.0, 20.0)
    assert g.marks[0].polygon == g.cell("c3").polygon


def test_errors_name_the_problem():
    with pytest.raises(UserError, match="unknown game 'chess'"):
        board_geometry("chess")
    with pytest.raises(UserError, match="no cell 'z9'"):
        board_geometry("arimaa").cell("z9")
    with pytest.raises(UserError, match="3..12"):
        board_geometry("arinama", {"rows": 2})
    with pytest.raises(UserError, match="whole number"):
        board_geometry("arinama", {"rows": "many"})
    with pytest.raises(UserError, match="plain.*storm"):
        board_geometry("sensei", {"side": "cloudy"})
    with pytest.raises(UserError, match="no cell 'z9'"):
        board_geometry("sensei", {"side": "storm", "pits": ["z9"]})
