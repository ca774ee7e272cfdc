"""A question's values read in the forms a field user types them: compatibility forms of
letters, digits and punctuation (full-width from a Chinese input method, superscripts) read
as the plain characters they stand for (`compacted.plain`, NFKC as the rest of the project
reads them)."""

from __future__ import annotations

import pytest
from kbfixtures import vent_table, zh_vent_table

from kbtools.decision import build_table
from kbtools.query import input_names
from kbtools.query.input_names import kind_short_forms
from kbtools.query.inputs import read_inputs

VENT, BARE = vent_table(), zh_vent_table()


@pytest.mark.parametrize(("table", "question", "values"), [
    # full-width letters, digits and punctuation, glued or apart
    (VENT, "ｔｅｍｐ２５．５Ｃ，ＲＨ８５％", {"Temperature (°C)": "25.5", "Humidity (%)": "85"}),
    (VENT, "ＴＥＭＰ：２５℃　ＲＨ＝８５％", {"Temperature (°C)": "25", "Humidity (%)": "85"}),
    (BARE, "ＲＨ８５％，温度２５．５度", {"温度(℃)": "25.5", "湿度(%)": "85"}),
    (BARE, "溫度２５度，濕度８４．９％", {"温度(℃)": "25", "湿度(%)": "84.9"}),
    # other compatibility forms of a short form's letters or its digits (a formatted
    # report's superscripts, mathematical letters pasted): the hand table of full-width
    # Latin letters left these glued to the short form, and the value unread
    (VENT, "temp 25 C, RH⁸⁵%", {"Temperature (°C)": "25", "Humidity (%)": "85"}),
    (BARE, "温度25度，𝐑𝐇85%", {"温度(℃)": "25", "湿度(%)": "85"}),
])
def test_compatibility_forms_of_a_questions_values_read_as_plain_ones(table, question, values):
    assert table is not None
    assert read_inputs(question, table).values == values


def test_a_full_width_comma_still_ends_a_clause_and_a_thin_space_groups_thousands():
    """Read before compacting as `compact` reads them: 84.9，26 is two values, not 84.9,26."""
    assert BARE is not None
    assert read_inputs("湿度84.9，温度26℃", BARE).values == {"湿度(%)": "84.9", "温度(℃)": "26"}
    got = read_inputs("温度1\u2009200度", BARE)
    assert got.values == {"温度(℃)": "1200"} and got.readings == {}


def test_the_short_forms_of_a_kind_are_compacted_once_not_per_column(monkeypatch):
    """`kind_short_forms` compacted each abbreviation group's terms again for every column
    whose names were made; the groups are compacted once, and each column only compared."""
    assert kind_short_forms(["humidity"]) == {"rh"}  # (the groups made, as by any search)
    calls: list[str] = []
    monkeypatch.setattr(input_names, "compact", lambda text, **kw: calls.append(text) or text)
    assert kind_short_forms(["humidity"]) == {"rh"}
    assert kind_short_forms(["湿度", "temperature"]) == {"rh"}
    assert kind_short_forms(["absolute humidity"]) == set() and calls == []


@pytest.mark.parametrize(("table", "question", "values"), [
    (BARE, "温度20度和20度，湿度90%", {"温度(℃)": "20", "湿度(%)": "90"}),
    (BARE, "温度20度或20度，湿度90%", {"温度(℃)": "20", "湿度(%)": "90"}),
    (BARE, "温度20和20度，湿度90%", {"温度(℃)": "20", "湿度(%)": "90"}),
    (BARE, "湿度90%和90%，温度20度", {"温度(℃)": "20", "湿度(%)": "90"}),
    (VENT, "temperature 20 C and 20 C, humidity 90%",
     {"Temperature (°C)": "20", "Humidity (%)": "90"}),
    (VENT, "humidity 90% or 90%, temperature 20 C",
     {"Temperature (°C)": "20", "Humidity (%)": "90"}),
])
def test_one_value_said_twice_is_that_value_not_two(table, question, values):
    """温度20度和20度 was read as two values listed, neither the one meant, and as the two are
    the same no conflict was said either: the temperature was dropped unsaid."""
    assert table is not None
    got = read_inputs(question, table)
    assert (got.values, got.conflicts, got.unused) == (values, {}, ())


@pytest.mark.parametrize(("table", "question", "column", "two"), [
    (BARE, "温度20度和25度，湿度90%", "温度(℃)", ("20度", "25度")),
    (VENT, "temperature 20 C or 25 C, humidity 90%", "Temperature (°C)", ("20C", "25C")),
])
def test_two_different_values_listed_are_still_a_conflict(table, question, column, two):
    assert table is not None
    got = read_inputs(question, table)
    assert column not in got.values and got.conflicts[column] == two


RAIN = build_table(["温度(℃)", "连续降雨天数", "风险"],
                   [["<15", "*", "低"], [">=15", ">=2", "高"], [">=15", "<2", "中"]],
                   decision="inputs=温度(℃),连续降雨天数; outputs=风险")


@pytest.mark.parametrize(("table", "question", "values", "read"), [
    (BARE, "温度25度半，湿度90%", {"温度(℃)": "25.5", "湿度(%)": "90"}, ("25度半", "25.5")),
    (BARE, "湿度90%，温度二十五度半", {"温度(℃)": "25.5", "湿度(%)": "90"},
     ("二十五度半", "25.5")),
    (RAIN, "温度20度，连续降雨1天半", {"温度(℃)": "20", "连续降雨天数": "1.5"}, ("1天半", "1.5")),
])
def test_a_half_said_after_the_unit_is_read_and_said(table, question, values, read):
    """温度25度半 and 1天半 were left inexact (25 is not the value) and no input took
    them: the input was dropped unsaid and the table asked for it."""
    assert table is not None
    got = read_inputs(question, table)
    assert got.values == values and got.unused == ()
    assert next(iter(v for k, v in got.readings.items() if k not in ("湿度(%)",))) == read


@pytest.mark.parametrize(("question", "value"), [
    ("温度25度半以上", "25.5度以上"), ("温度25度半以下", "25.5度以下"), ("温度超过25度半", "超过25.5度"),
    # in numerals, as digits (v49: no value, or 超过二十五度 with its half dropped)
    ("温度二十五度半以上", "25.5度以上"), ("温度超过二十五度半", "超过25.5度"),
    ("温度不低于两度半", "不低于2.5度"), ("温度-5度半以下", "-5.5度以下"),
    ("温度零下五度半以下", "零下5.5度以下"),  # a half below zero is further below (not -4.5)
])
def test_a_half_inside_a_bound_is_the_bounds_value(question, value):
    """25度半以上 gave no value and was not said unused (25度以上 was no exact 25, so the
    half was left out); 超过25度半 was read as 超过25度, its half dropped (v48c)."""
    assert BARE is not None
    got = read_inputs(question, BARE)
    assert (got.values.get("温度(℃)"), got.unused) == (value, ())


@pytest.mark.parametrize(("question", "value"), [
    ("连续降雨1天半12小时", "2"), ("连续降雨两天半3小时", "2.625"), ("连续降雨2小时半30分钟", "0.125"),
])
def test_a_half_before_more_time_is_one_length_in_the_columns_unit(question, value):
    """1天半3小时 gave no value and was said unused as 半3小时: 1.5 days and 3 hours are
    one length, in the column's days (v48c, v49; a tenth said after the unit, 26度5, is
    none: `tests/test_answers_field_values.py`)."""
    assert RAIN is not None
    got = read_inputs(question, RAIN)
    assert (got.values.get("连续降雨天数"), got.unused) == (value, ())
    assert got.readings["连续降雨天数"] == (question.removeprefix("连续降雨"), value)


@pytest.mark.parametrize(("question", "said"), [
    ("3#泵温度80", "3#泵温度80"), ("3号泵温度80", "3号泵温度80"), ("三号泵温度80", "三号泵温度80"),
])
def test_a_value_said_not_used_names_the_numbered_machine_it_is_of(question, said):
    """3#泵 (3号泵 written in a hurry): the 3 is no value, and the 80 said of the pump's
    temperature was said not used as 泵温度80, the pump's number left out (3号泵 kept it)."""
    assert BARE is not None
    got = read_inputs(question, BARE)
    assert got.values == {} and got.unused == (said,)


WET = build_table(["湿润时长(小时)", "措施"], [["<24", "观察"], [">=24", "喷药"]],
                  decision="inputs=湿润时长(小时); outputs=措施")
WET_EN = build_table(["Leaf wetness (h)", "Action"], [["<24", "watch"], [">=24", "spray"]],
                     decision="inputs=Leaf wetness (h); outputs=Action")


@pytest.mark.parametrize(("table", "question", "value", "unused"), [
    (WET, "湿润时长1天3小时", "27", ()), (WET, "湿润时长1小时30分钟", "1.5", ()),
    (WET, "湿润时长1天3小时30分钟", "27.5", ()), (WET, "湿润时长1小时20分钟", "80分钟", ()),
    (WET_EN, "leaf wetness 2 days 6 hours", "54", ()),
    (WET, "湿润时长1天半3次", "1.5天", ("3次",)), (WET, "湿润时长1天半，打药3次", "1.5天", ("打药3次",)),
])
def test_a_length_said_in_parts_is_one_length_in_the_columns_unit(table, question, value, unused):
    """1天3小时 read 1天 and 3小时 as two values of one input (a conflict), as did ``2 days 6
    hours`` and 1小时30分钟; 1天半3次 gave no value and was said unused as 半3 (v49). A sum
    the column's unit cannot hold exactly (80 minutes in hours) stays in its own unit."""
    assert table is not None
    got = read_inputs(question, table)
    assert (got.values, got.unused, got.conflicts) == ({table.header[0]: value}, unused, {})


def test_a_half_of_a_value_below_zero_is_further_below():
    """零下5度半 was read as -4.5: the half was added to -5; and its reading was said as of
    5度半, without the 零下 that makes it negative (v49)."""
    assert BARE is not None
    for question, said in (("温度零下5度半", "零下5度半"), ("温度零下五度半", "零下五度半")):
        got = read_inputs(question, BARE)
        assert (got.values, got.readings) == ({"温度(℃)": "-5.5"}, {"温度(℃)": (said, "-5.5")})
