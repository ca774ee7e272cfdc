"""Values said in a question for a decision table's inputs (session 41): a count with its
measure word right before an input's name (两个星期三次 温度32度, 每天两次 温度30度) says how
often, no thing the name is of; a temperature below zero said with no name (零下5度) is the
table's, as -5℃ is."""

from __future__ import annotations

import pytest

from kbtools.decision import build_table, match_rules
from kbtools.query.inputs import find_inputs

CLIMATE = build_table(["温度(℃)", "相对湿度(%)", "处理"],
                      [[">30", ">80", "通风降湿"], [">30", "<=80", "遮阳"], ["<=30", "*", "不处理"]],
                      decision="inputs=温度,相对湿度; outputs=处理")


@pytest.mark.parametrize(("question", "values"), [
    ("两个星期三次 温度32度", {"温度(℃)": "32"}),  # 三次温度 was another thing's temperature
    ("两个星期三次温度32度", {"温度(℃)": "32"}),
    ("每天两次 温度30度", {"温度(℃)": "30"}),  # the 每 of 每天两次 made 30度 a rate
    ("每天两次温度30度，湿度85%", {"温度(℃)": "30", "相对湿度(%)": "85"}),
    ("一周3次，湿度85%，温度32度", {"温度(℃)": "32", "相对湿度(%)": "85"}),
    ("一天三回 湿度85% 温度32度", {"温度(℃)": "32", "相对湿度(%)": "85"}),
    ("3 times a week, humidity 85%, temperature 32 C", {"温度(℃)": "32", "相对湿度(%)": "85"}),
])
def test_a_count_before_a_name_leaves_the_value_the_names(question, values):
    """A count said with its measure word right before an input's name (两个星期三次 温度32度,
    每天两次 温度30度) made the name another thing's (三次温度, like 油温), or its 每 made the
    value a rate: the temperature was lost."""
    assert CLIMATE is not None
    assert find_inputs(question, CLIMATE) == values


@pytest.mark.parametrize("question", ["两台水泵温度32度", "3号泵温度32度", "每天运行20小时，水泵温度32度"])
def test_a_thing_after_a_count_still_names_another_things_value(question):
    """The count (两台, 3号) says how many things, and the thing after it (水泵) still makes
    the temperature that thing's."""
    assert CLIMATE is not None
    assert find_inputs(question, CLIMATE) == {}


@pytest.mark.parametrize(("question", "values", "want"), [
    ("零下5度，湿度85%", {"温度(℃)": "-5", "相对湿度(%)": "85"}, "不处理"),  # was missing
    ("现在零下5度", {"温度(℃)": "-5"}, None),
    ("零下五度 湿度85%", {"温度(℃)": "-5", "相对湿度(%)": "85"}, "不处理"),
    ("-5℃，湿度85%", {"温度(℃)": "-5", "相对湿度(%)": "85"}, "不处理"),
    ("minus 5 C, humidity 85%", {"温度(℃)": "-5", "相对湿度(%)": "85"}, "不处理"),
])
def test_a_value_below_zero_said_with_no_name_is_the_tables(question, values, want):
    """零下5度 said with no name gave the temperature nothing: the 下 of 零下 was read as the
    word naming the value (a thing's), not the sign."""
    assert CLIMATE is not None
    assert find_inputs(question, CLIMATE) == values
    if want:
        result = match_rules(CLIMATE, values)
        assert [v for out in result.outputs for v in out.values()] == [want]


def test_a_thing_before_below_zero_still_names_it():
    assert CLIMATE is not None
    assert find_inputs("油温零下5度，湿度85%", CLIMATE, vocabulary=("油温",)) == \
        {"相对湿度(%)": "85"}
