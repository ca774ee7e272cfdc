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


@pytest.mark.parametrize(("table", "question", "given", "want"), [
    (PER_HA, "每亩施了25公斤，施肥量够吗", "25公斤/亩", ["多"]),  # the per-unit first, a verb between
    (PER_HA, "施肥量每亩25公斤够吗", "25公斤/亩", ["多"]),
    (PER_HA, "每公顷用量375千克", "375", ["多"]),  # the column's own rate: its number
    (PER_MU, "施肥量每公顷用量375千克", "375千克/公顷", ["多"]),  # 25 kg a mu
    (PER_MU, "施肥每亩施了15斤", "15斤/亩", ["少"]),
    (PER_MU, "每亩地施了二十五公斤", "25", ["多"]),  # the column's own rate
    (EN, "25 kg per mu, is that high?", "25kg/mu", ["high"]),
    (EN, "per mu we applied 25 kg", "25kg/mu", ["high"]),
    (EN, "we applied 150 kg per hectare", "150", ["low"]),
    # a comma after the per-unit said first ends no rate (session 42)
    (EN, "per mu, we applied 25 kg", "25kg/mu", ["high"]),
    (EN, "Per hectare, we spread 150 kg", "150", ["low"]),
    (EN, "per ha , 150 kg of urea", "150", ["low"]),
    (PER_HA, "每亩，施了25公斤", "25公斤/亩", ["多"]), (PER_MU, "每公顷，用量375千克", "375千克/公顷", ["多"]),
])
def test_a_rate_is_read_whatever_the_order_of_its_parts(table, question, given, want):
    """每亩施了25公斤 and ``per mu we applied 25 kg`` gave nothing: the per-unit before the
    number was not read, and a rate column took no number by its unit, named or not."""
    values = read_inputs(question, table).values
    assert values == {table.header[0]: given}
    assert _answer(table, given) == want


@pytest.mark.parametrize(("table", "question"), [
    (PER_HA, "每天运行20小时，施肥量多少"),  # per a time: how often, no rate
    (PER_HA, "施了25公斤，够吗"),  # no per-unit said: the rate is not known
    (PER_HA, "每亩施用一次，共25公斤"),  # a clause apart: 25 kg is no rate per mu
])
def test_no_rate_is_made_of_words_that_say_none(table, question):
    assert read_inputs(question, table).values == {}


@pytest.mark.parametrize(("table", "question", "given", "want"), [
    (PER_HA, "亩施25公斤，施肥量够吗", "25公斤/亩", ["多"]),  # 375 kg/ha
    (PER_MU, "施肥量亩施尿素10公斤", "10", ["少"]),
    (PER_MU, "亩施2斤", "2斤/亩", ["少"]),
    (PER_MU, "公顷施375千克", "375千克/公顷", ["多"]),  # 25 kg a mu
    (PER_HA, "我家3亩地，亩施25公斤", "25公斤/亩", ["多"]),  # the 3亩 is no per-unit
    (PER_MU, "平均亩施二十五公斤", "25", ["多"]),
])
def test_a_land_area_said_alone_as_the_per_unit_is_a_rate(table, question, given, want):
    """亩施25公斤, 公顷施375千克 (the agronomist's rate, no 每) gave nothing: only 每 or
    ``per`` before the area made it the per-unit."""
    values = read_inputs(question, table).values
    assert values == {table.header[0]: given}
    assert _answer(table, given) == want


@pytest.mark.parametrize(("table", "question"), [
    (PER_MU, "10亩地施了25公斤"),  # a total spread on 10 mu: no rate said
    (PER_MU, "十亩地施了25公斤，施肥量够吗"),
    (PER_HA, "半亩地施了10公斤"),
    (PER_MU, "几亩地施了25公斤"),
    (PER_MU, "3公亩施了25公斤"),
])
def test_an_area_with_its_number_is_no_per_unit(table, question):
    assert read_inputs(question, table).values == {}
