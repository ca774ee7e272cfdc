"""The bounds and ranges a field user writes in a question, read by the one value reader
`kb table eval` uses (`decision.words`, `decision.given.read_given`), so a search answers them
as the table does: one vocabulary of bound words for the question's numbers and the reader
(已超20度, 在20度之上, ``>= 25C``, ``25+ C``), Chinese ranges between two numbers
(介于22和25度之间), a unit spelled in words (``above 30 degrees F``: refused in a ℃ column,
never compared as 30 ℃), Traditional script (溫度超過20度), and a bound on a column counting
whole days (<4天 is ≤3 days). A bound word after a number is never taken for its unit
(20度之上 is no 20)."""

from __future__ import annotations

import pytest
from test_answers_ranges import query_json

from kbtools.decision import build_table
from kbtools.decision.matching import match_rules
from kbtools.errors import TableError
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import read_inputs

T, H, D = "温度(℃)", "相对湿度(%)", "连续降雨天数"
# the wheat-scab table of the example knowledge
SCAB = build_table([T, H, D, "风险等级"], [
    ["<15", "*", "*", "低"], ["15-20", "<85", "*", "低"], ["15-20", "≥85", "≤3", "中"],
    ["15-20", "≥85", ">3", "高"], [">20", "<85", "*", "中"], [">20", "≥85", "≤3", "高"],
    [">20", "≥85", ">3", "极高"]], decision=f"inputs={T},{H},{D}; outputs=风险等级")
SYNONYMS = {"温度": ["气温", "temperature"], "相对湿度": ["humidity"],
            "连续降雨天数": ["rainy days", "rain days"]}


def evaluate(question: str):
    assert SCAB is not None
    given = read_inputs(question, SCAB, SYNONYMS)
    return given, evaluate_inputs("d.md", 1, SCAB, given.values, given.conflicts)


@pytest.mark.parametrize(("question", "value", "row"), [
    ("温度已超20度，湿度90%，连续降雨4天", "超20度", 7),
    ("温度在20度之上，湿度90%，连续降雨4天", "20度之上", 7),
    ("温度14度之下，湿度90%，连续降雨4天", "14度之下", 1),
    ("温度介于22和25度之间，湿度90%，连续降雨4天", "介于22和25度", 7),
    ("温度在22和25度之间，湿度90%，连续降雨4天", "22和25度之间", 7),
    ("温度22与25度之间，湿度90%，连续降雨4天", "22与25度之间", 7),
    ("温度介于16度和18度之间，湿度90%，连续降雨4天", "介于16度和18度", 4),
    ("温度在22到25度之间，湿度90%，连续降雨4天", "22到25度", 7),
    ("温度大于或等于25度，湿度90%，连续降雨4天", "大于或等于25度", 7),
    ("温度２５度以上，湿度９０％，连续降雨４天", "25度以上", 7),  # full-width digits and signs
    ("溫度超過20度，濕度90%，連續降雨4天", "超过20度", 7),  # Traditional script
    ("溫度介於22和25度之間，濕度90%，連續降雨4天", "介于22和25度", 7),
    ("temperature 25+ C, humidity 90%, 4 rainy days", "25+C", 7),
    ("temperature >= 25C, humidity 90%, 4 rainy days", ">=25C", 7),
    ("temperature at least 25 degrees, humidity 90%, 4 rainy days", "at least 25 degrees", 7),
    ("a temperature of at least 25 degrees, humidity 90%, 4 rainy days",
     "at least 25 degrees", 7),
    ("temperature equal to or greater than 21 C, humidity 90%, 4 rainy days",
     "equal to or greater than 21 C", 7),
    ("温度低于零下5度，湿度90%，连续降雨4天", "低于零下5度", 1),
    # two bounds of one range, each with its word
    ("温度高于20度低于25度，湿度90%，连续降雨4天", "高于20度低于25度", 7),
    ("温度超过20度但不到25度，湿度90%，连续降雨4天", "超过20度但不到25度", 7),
    ("temperature over 20 and under 25 C, humidity 90%, 4 rainy days",
     "over 20 and under 25 C", 7),
    # a unit on both ends, the second after a letter (°C-25): was the value 21
    ("温度21℃-25℃，湿度90%，连续降雨4天", "21°C-25°C", 7),
    ("temperature 21°C-25°C, humidity 90%, 4 rainy days", "21°C-25°C", 7),
])
def test_a_bound_or_range_answers_from_the_row_holding_it(question, value, row):
    given, ev = evaluate(question)
    assert given.values[T] == value, given
    assert ev.status == "match" and ev.row == row, ev.message


@pytest.mark.parametrize(("question", "value"), [
    # 15 or more is no one row's: >= is a bound, never the value 15
    ("temperature >= 15C, humidity 90%, 4 rainy days", ">=15C"),
    ("温度20度之下，湿度90%，连续降雨4天", "20度之下"),
    ("温度不超过25度，湿度90%，连续降雨4天", "不超过25度"),
    ("温度18℃-25℃，湿度90%，连续降雨4天", "18°C-25°C"),  # was 18: the 15-20 row
])
def test_a_bound_over_rows_names_them_never_one(question, value):
    given, ev = evaluate(question)
    assert given.values[T] == value and ev.status == "spans_rows", ev.message


@pytest.mark.parametrize(("question", "value", "row"), [
    ("温度25度，湿度90%，连续降雨<4天", "<4天", 6),
    ("温度25度，湿度90%，连续降雨不到4天", "不到4天", 6),
    ("温度25度，湿度90%，连续降雨超过3天", "超过3天", 7),
    ("temperature 25 C, humidity 90%, rain for less than 4 days", "less than 4 days", 6),
    ("temperature 25 C, humidity 90%, fewer than 4 days of rain", "fewer than 4 days", 6),
    ("temperature 25 C, humidity 90%, less than 4 rainy days", "less than 4 days", 6),
    ("温度不低于二十一度，湿度不少于百分之八十五，连续降雨不到四天", "不到四天", 6),
    ("rain for 4 days or longer, temperature 25 C, humidity 90%", "4 days or longer", 7),
    ("rain for 3 days or shorter, temperature 25 C, humidity 90%", "3 days or shorter", 6),
])
def test_a_bound_on_a_count_of_days_is_read_in_whole_days(question, value, row):
    """连续降雨天数 counts days: <4 is ≤3, the ≤3 row's, not a range over ≤3 and >3."""
    given, ev = evaluate(question)
    assert given.values[D] == value, given
    assert ev.status == "match" and ev.row == row, ev.message


def test_bounds_of_two_inputs_are_no_one_range():
    given, ev = evaluate("温度超过20度湿度低于85，连续降雨4天")
    assert given.values == {T: "超过20度", H: "低于85", D: "4"} and ev.row == 5, given


def test_a_value_in_fahrenheit_is_never_compared_as_celsius():
    given, ev = evaluate("temperature above 30 degrees F, humidity 90%, 4 rainy days")
    assert given.values[T] == "above 30 degrees F"
    assert ev.status == "no_match" and ev.row is None and ev.outputs == {}
    assert "°F" in ev.message and "°C" in ev.message, ev.message


@pytest.mark.parametrize("question", [
    "温度20多度，湿度90%，连续降雨4天",  # twenty-odd: no interval, no value
    "温度22和24度，湿度90%，连续降雨4天",  # two values
    "温度22与24度，湿度90%，连续降雨4天",
])
def test_what_is_no_value_nor_range_stays_missing(question):
    given, ev = evaluate(question)
    assert T not in given.values and ev.status == "missing_inputs", given


# --- the table's own reader, as `kb table eval` and MCP ``evaluate_table`` give it values ---

RISK = build_table([T, "风险"], [["<15", "低"], ["15-20", "中"], [">20", "高"]],
                   decision=f"inputs={T}; outputs=风险")
COUNTS = build_table(["喷药次数", "Rain days", "建议"], [["≤2", "≤3", "a"], [">2", "≤3", "b"],
                                                      ["*", ">3", "c"]],
                     decision="inputs=喷药次数,Rain days; outputs=建议")


@pytest.mark.parametrize(("value", "row"), [
    ("20度之上", 3), ("14度之下", 1), ("超20度", 3), ("介于16和18度之间", 2), ("在16到18度之间", 2),
    ("25+ C", 3), ("25 or more degrees", 3), ("over 22 degrees celsius", 3),
    ("16 to 18 degrees Celsius", 2),
])
def test_the_table_reads_the_bound_words_as_the_question_does(value, row):
    """20度之上 was read as the number 20 with the unit 度之上, and answered from the 15-20 row."""
    assert RISK is not None
    result = match_rules(RISK, {T: value})
    assert result.status == "match" and result.selected == (row,), result.message


def test_a_percentage_said_in_words_is_read_with_its_bound():
    given, ev = evaluate("温度25度，湿度百分之八十五以上，连续降雨4天")
    assert given.values[H] == "百分之八十五以上" and ev.row == 7, given
    hum = build_table([H, "风险"], [["<85", "低"], ["≥85", "高"]], decision=f"inputs={H}; outputs=风险")
    assert hum is not None and match_rules(hum, {H: "百分之八十五"}).selected == (2,)


@pytest.mark.parametrize(("value", "said"), [
    ("20多度", "not a number"),  # was 20: the 15-20 row
    ("15°C+", "a range over more than one rule"),  # was 15: the 15-20 row
    ("20度以內", "not a number"),  # Traditional script: was 20, the 15-20 row
    ("30 kPa", "it is in 'kPa'"),  # (30 degrees F is converted: -1.11 °C, session 45)
    ("above 30 degrees F", "it is in '°F'"),  # a bound in the other scale: not converted
])
def test_the_table_refuses_what_it_cannot_answer(value, said):
    assert RISK is not None
    with pytest.raises(TableError, match=said):
        match_rules(RISK, {T: value})


@pytest.mark.parametrize(("inputs", "row"), [
    ({"喷药次数": "<3", "Rain days": "2"}, 1), ({"喷药次数": "fewer than 3", "Rain days": "2"}, 1),
    ({"喷药次数": "3", "Rain days": "less than 4"}, 2), ({"喷药次数": "1", "Rain days": ">3"}, 3),
])
def test_counted_columns_take_bounds_in_whole_numbers(inputs, row):
    assert COUNTS is not None
    result = match_rules(COUNTS, inputs)
    assert result.status == "match" and result.selected == (row,), result.message


@pytest.mark.parametrize(("value", "row"), [("1.5-2.5", 1),  # 2 sprays: the ≤2 row's
                                            ("2.2-2.8", 2)])  # no whole number: as given
def test_a_range_on_a_count_holds_its_whole_numbers(value, row):
    assert COUNTS is not None
    result = match_rules(COUNTS, {"喷药次数": value, "Rain days": "2"})
    assert result.selected == (row,), result.message


# --- through the search, on the example knowledge ---

@pytest.mark.parametrize(("question", "value", "row"), [
    ("溫度超過20度，濕度90%，連續降雨4天，赤黴病風險", "超过20度", 7),  # was 20: row 4
    ("温度介于22和25度之间，湿度90%，连续降雨不到4天，赤霉病风险", "介于22和25度", 6),
])
def test_the_search_answers_them(example_index, question, value, row):
    ev = query_json(example_index, question)
    assert ev["status"] == "match" and ev["row"] == row, ev["message"]
    assert value in ev["inputs"].values()
