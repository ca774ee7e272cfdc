"""Per-unit rates in decision tables (session 40): a value said per area (25公斤每亩, 25 kg/亩,
``250 kg per ha``) against a column of a rate (施肥量(kg/ha)) is the same rate or converted
by the exact factor of both its parts (a hectare is 15 mu; a jin half a kilogram), in a
value given to the table and in a question; never read as a bare number of the column's."""

from __future__ import annotations

import pytest

from kbtools.decision import build_table, match_rules
from kbtools.errors import TableError
from kbtools.query.inputs import read_inputs

PER_HA = build_table(["施肥量(kg/ha)", "措施"], [["<200", "少"], [">=200", "多"]],
                     decision="inputs=施肥量(kg/ha); outputs=措施")
PER_MU = build_table(["施肥量(kg/亩)", "措施"], [["<20", "少"], [">=20", "多"]],
                     decision="inputs=施肥量(kg/亩); outputs=措施")
EN = build_table(["Rate (kg/ha)", "Action"], [["<200", "low"], [">=200", "high"]],
                 decision="inputs=Rate (kg/ha); outputs=Action")


def _answer(table, value):
    result = match_rules(table, {table.header[0]: value})
    return [v for out in result.outputs for v in out.values()]


@pytest.mark.parametrize(("table", "value", "want"), [
    (PER_HA, "25公斤每亩", ["多"]),  # 375 kg/ha: was read as 25 kg/ha, 少
    (PER_HA, "25斤每亩", ["少"]),  # 187.5 kg/ha
    (PER_HA, "25kg/亩", ["多"]),  # was refused: "'kg/亩' multiplies the number"
    (PER_HA, "375kg/ha", ["多"]),
    (PER_MU, "25斤/亩", ["少"]),  # 12.5 kg/亩: was read as 25
    (PER_MU, "25公斤每亩", ["多"]),
    (PER_MU, "18千克/亩", ["少"]),  # was refused: 千 "multiplies the number"
    (EN, "25 kg/mu", ["high"]),
])
def test_a_rate_is_compared_in_the_columns_rate(table, value, want):
    assert _answer(table, value) == want


def test_a_rate_of_other_units_is_refused_not_read_as_the_column():
    with pytest.raises(TableError, match="it is in 'l/亩', the column in 'kg/ha'"):
        match_rules(PER_HA, {"施肥量(kg/ha)": "25l/亩"})


@pytest.mark.parametrize(("table", "question", "given", "want"), [
    (PER_HA, "施肥量25公斤每亩够吗", "25公斤/亩", ["多"]),
    (PER_MU, "施肥量25斤每亩够吗", "25斤/亩", ["少"]),
    (EN, "rate 25 kg per mu, enough?", "25kg/mu", ["high"]),
    (EN, "rate 250 kg/ha", "250", ["high"]),
    (PER_MU, "施肥量25公斤够吗", "25", ["多"]),  # no rate said: the column's own
])
def test_a_rate_said_in_a_question_keeps_its_per_unit(table, question, given, want):
    values = read_inputs(question, table).values
    assert values == {table.header[0]: given}
    assert _answer(table, given) == want
