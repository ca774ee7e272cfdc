"""A temperature given in the other scale than its column's (77°F to a ℃ column, 25 ℃ to a °F
one) is converted and said so, on every decision-table path, as ``--where`` converts ℃ and
°F: a question's value (`kb query`, MCP, the API: ``read: 温度(℃) 77°F as 25°C``) and a
value given by name (`kb table eval`, ``evaluate_table``: ``converted: 温度(℃) 77°F =
25°C``). A bound or a range in the other scale is still refused, naming its scale (issue
17 §6, session 45)."""

from __future__ import annotations

import pytest

from kbtools.decision import build_table, match_rules
from kbtools.errors import TableError
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import read_inputs

CELSIUS = build_table(["温度(℃)", "相对湿度(%)", "风险"],
                      [["<20", "*", "低"], [">=20", ">=85", "高"], [">=20", "<85", "中"]],
                      decision="inputs=温度(℃),相对湿度(%); outputs=风险")
FAHRENHEIT = build_table(["Seal temperature (°F)", "Action"],
                         [["<150", "run"], [">=150", "stop"]],
                         decision="inputs=Seal temperature (°F); outputs=Action")


@pytest.mark.parametrize(("value", "read", "risk"), [
    ("77°F", "25°C", "高"), ("77 F", "25°C", "高"), ("华氏77度", "25°C", "高"),
    ("77 degrees Fahrenheit", "25°C", "高"), ("68°F", "20°C", "高"), ("66°F", "18.888889°C", "低"),
])
def test_a_value_given_in_fahrenheit_to_a_celsius_table_is_converted_and_said(value, read, risk):
    assert CELSIUS is not None
    result = match_rules(CELSIUS, {"温度": value, "湿度": "90"})
    assert result.outputs == ({"风险": risk},), result.message
    assert f"converted: 温度(℃) {value} = {read}" in result.message


def test_a_value_given_in_celsius_to_a_fahrenheit_table_is_converted_and_said():
    assert FAHRENHEIT is not None
    result = match_rules(FAHRENHEIT, {"Seal temperature": "70 C"})
    assert result.outputs == ({"Action": "stop"},)  # 158 °F
    assert "converted: Seal temperature (°F) 70 C = 158°F" in result.message


@pytest.mark.parametrize(("question", "typed", "read"), [
    ("温度77°F，湿度90%", "77°F", "25°C"), ("温度华氏77度，湿度90%", "华氏77度", "25°C"),
    ("77°F，湿度90%", "77°F", "25°C"),
    ("temperature 77 F, humidity 90%", "77 F", "25°C"), ("it is 77°F, humidity 90%", "77°F", "25°C"),
])
def test_a_questions_value_in_fahrenheit_is_converted_and_said_in_both_languages(
        question, typed, read):
    """温度77°F was refused (单位是 °F，这一列是 ℃，请换算成 ℃ 后输入) while ``--where`` converts
    ℃ and °F; the answer is now the converted value's, saying it was converted."""
    assert CELSIUS is not None
    given = read_inputs(question, CELSIUS, {"温度": ["temperature"], "相对湿度": ["humidity"]})
    assert given.values == {"温度(℃)": read.removesuffix("°C"), "相对湿度(%)": "90"}, given
    assert given.readings == {"温度(℃)": (typed, read)}
    ev = evaluate_inputs("d.md", 1, CELSIUS, given.values, readings=given.readings,
                         typed=given.typed)
    assert ev.outputs == {"风险": "高"} and f"{typed} as {read}" in ev.message, ev.message
    assert ev.typed["温度(℃)"] == typed


def test_a_bound_in_the_other_scale_is_still_refused_naming_it():
    assert CELSIUS is not None
    with pytest.raises(TableError, match="it is in '°F'"):
        match_rules(CELSIUS, {"温度": "above 70 degrees F", "湿度": "90"})


@pytest.mark.parametrize(("question", "values"), [
    ("25 C and 77 F, humidity 90%", {"温度(℃)": "25", "相对湿度(%)": "90"}),
    ("77 F (25 C), humidity 90%", {"温度(℃)": "25", "相对湿度(%)": "90"}),
    ("temperature 25 C and 77 F, humidity 90%", {"温度(℃)": "25", "相对湿度(%)": "90"}),
    ("temperature 77 F, temperature 25 C, humidity 90%", {"温度(℃)": "25", "相对湿度(%)": "90"}),
    ("温度25度，华氏77度，湿度90%", {"温度(℃)": "25", "相对湿度(%)": "90"}),
    ("温度华氏77度，温度25度，湿度90%", {"温度(℃)": "25", "相对湿度(%)": "90"}),
    ("25℃（77°F），湿度90%", {"温度(℃)": "25", "相对湿度(%)": "90"}),
])
def test_one_temperature_said_in_both_scales_is_one_value(question, values):
    """``25 C and 77 F`` was two conflicting values: equal once converted, it is one."""
    assert CELSIUS is not None
    given = read_inputs(question, CELSIUS, {"温度": ["temperature"], "相对湿度": ["humidity"]})
    assert given.values == values and not given.conflicts, given


@pytest.mark.parametrize("question", ["25 C and 78 F", "温度21度，温度70°F", "temperature 25 C and 78 F"])
def test_two_temperatures_unequal_once_converted_still_conflict(question):
    assert CELSIUS is not None
    given = read_inputs(question, CELSIUS, {"温度": ["temperature"]})
    assert "温度(℃)" in given.conflicts and "温度(℃)" not in given.values, given
