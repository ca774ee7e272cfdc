"""Each cell's reason says the value as the table read it, in the language it is asked in:
`CellMatch.reason_in` (the web table page) from the number `match_rules` read, and a
question's evaluation in the question's language on every surface (issue 17, session 48)."""

from __future__ import annotations

import pytest

from kbtools.decision import build_table, match_rules


@pytest.mark.parametrize(("header", "cells", "value", "en", "zh"), [
    ("Humidity", [">=85%", "<85%"], "一半", "50 is < 85", "50 满足 < 85"),
    ("Humidity", [">=85%", "<85%"], "九成", "90 is ≥ 85", "90 满足 ≥ 85"),
    ("Temp", ["<20℃", ">=20℃"], "77°F", "25 is ≥ 20", "25 满足 ≥ 20"),
])
def test_a_reason_in_either_language_says_the_value_as_read(header, cells, value, en, zh):
    """A column whose unit only its cells write (``>=85%``, ``<20℃``): the value was read
    in it (一半 as 50, 77°F as 25), but `reason_in` read it again without it and said
    ``1 is < 85`` and ``77 is ≥ 20`` on the table page."""
    table = build_table([header, "Act"], [[c, f"r{n}"] for n, c in enumerate(cells)],
                        decision=f"inputs={header}; outputs=Act")
    cell = match_rules(table, {header: value}).matches[0].cells[0]
    assert (cell.reason, cell.reason_in("en"), cell.reason_in("zh")) == (en, en, zh)
    assert "number" not in match_rules(table, {header: value}).to_dict()["matches"][0]["cells"][0]
