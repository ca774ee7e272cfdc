"""Further forms of a value said of another thing than a table's generic input, and of forms
that only look so (`kbtools.query.quantities.Qualified`), English and Chinese alike:

- 、 and ; (；) between a name and its value part them as a comma does (油温、80度);
- a full-width comma after a number is no decimal or thousands comma (湿度84.9，26℃);
- a trailing part of a name right after a number's unit names its input (温度26度湿度84.9);
- a place word after a thing (锅炉内压力) leaves the thing qualifying the quantity, as
  ``pressure in the boiler`` does: the boiler's, unless the table is about a boiler;
- the note names the whole phrase the author wrote (室外温度, not 外温度);
- the value before a possessive phrase (``80 C the oil's temperature``) and an adverb of
  another place after the name (``the temperature outdoors``);
- an English verb of change before a value (``heated to 80 C``) names no thing, as 升温到
  does; a thing before it (``oil heated to 80 C``) still is one.
"""

from __future__ import annotations

import pytest

from kbtools.decision import build_table
from kbtools.query.inputs import read_inputs

BARE = build_table(["温度(℃)", "湿度(%)", "措施"],
                   [["<20", "*", "保温"], [">=20", ">=85", "通风"], [">=20", "<85", "保持"]],
                   decision="inputs=温度(℃),湿度(%); outputs=措施")
VENT = build_table(["Temperature (°C)", "Humidity (%)", "Action"],
                   [["<20", "<85", "close"], [">=20", ">=85", "open"], [">=20", "<85", "keep"]],
                   decision="inputs=Temperature (°C),Humidity (%); outputs=Action",
                   heading_path=("Greenhouse ventilation",))
SCAB = build_table(["温度(℃)", "相对湿度(%)", "风险"],
                   [["<15", "*", "低"], ["≥15", "≥85", "高"], ["≥15", "<85", "中"]],
                   decision="inputs=温度(℃),相对湿度(%); outputs=风险")


def _bare(header: str, heading: str = ""):
    """A table of one input `header`, under `heading` when given."""
    table = build_table([header, "Action"], [["<40", "none"], [">=40", "vent"]],
                        decision=f"inputs={header}; outputs=Action",
                        heading_path=(heading,) if heading else ())
    assert table is not None
    return table


# 1. 、 and ; part a name from its value as a comma does

@pytest.mark.parametrize("mark", ["、", "；", ";", "，"])
def test_a_chinese_name_any_pause_parts_from_its_value_keeps_it(mark):
    assert BARE is not None
    got = read_inputs(f"油温{mark}80度，湿度90%", BARE)
    assert (got.values, got.others) == ({"湿度(%)": "90"}, {"温度(℃)": ("80度", "油温")})
    got = read_inputs(f"温度{mark}22度，湿度90%", BARE)
    assert (got.values, got.others) == ({"温度(℃)": "22", "湿度(%)": "90"}, {})


@pytest.mark.parametrize("mark", [";", "；"])
def test_an_english_name_a_semicolon_parts_from_its_value_keeps_it(mark):
    assert VENT is not None
    got = read_inputs(f"oil temperature{mark} 80 C, humidity 90%", VENT)
    assert (got.values, got.others) == \
        ({"Humidity (%)": "90"}, {"Temperature (°C)": ("80C", "oil temperature")})
    got = read_inputs(f"temperature{mark} 22 C{mark} humidity 90%", VENT)
    assert got.values == {"Temperature (°C)": "22", "Humidity (%)": "90"}


# 2. 湿度84.9 (no %) is the 相对湿度 in every place of a question

@pytest.mark.parametrize("question", [
    "湿度84.9", "温度26度湿度84.9", "湿度84.9，温度26度", "湿度84.9，26℃", "26℃，湿度84.9",
    "温度26度，湿度84.9", "温度26℃湿度84.9", "温度二十六度湿度84.9",
])
def test_a_trailing_name_without_its_unit_fills_its_input(question):
    assert SCAB is not None
    got = read_inputs(question, SCAB)
    assert got.values.get("相对湿度(%)") == "84.9", got
    assert got.values.get("温度(℃)", "26") == "26", got


def test_a_full_width_comma_is_no_thousands_or_decimal_comma():
    """温度26，800小时: two values (the ，of a sentence), not 26800 nor an unread list."""
    table = build_table(["温度(℃)", "运行小时(h)", "措施"],
                        [["<30", "<1000", "a"], [">=30", "*", "b"], ["<30", ">=1000", "c"]],
                        decision="inputs=温度(℃),运行小时(h); outputs=措施")
    assert table is not None
    assert read_inputs("温度26，800小时", table).values == {"温度(℃)": "26", "运行小时(h)": "800"}
    assert read_inputs("温度26, 800小时", table).values == {"温度(℃)": "26", "运行小时(h)": "800"}


def test_a_trailing_name_after_another_thing_still_names_another():
    """绝对湿度, 土壤湿度: no 相对湿度, as before, after a number's unit or not."""
    assert SCAB is not None
    for question in ("土壤湿度84.9", "温度26度土壤湿度84.9", "绝对湿度84.9"):
        assert "相对湿度(%)" not in read_inputs(question, SCAB).values, question
