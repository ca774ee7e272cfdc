"""How long a value held, said with it (``humidity 90% over 3 days``, 湿度90%持续3天,
湿度90%3天): a length of that quantity, no bound and no value of another thing's days; and a
value whose unit only one column takes (36小时 of 时长(小时)) fills that column (issues 17,
5; session 49)."""

from __future__ import annotations

import pytest
from kbfixtures import humidity_days_table

from kbtools.decision import build_table
from kbtools.query.answers import evaluate_inputs, said_of_other_note
from kbtools.query.inputs import read_inputs

RAIN_EN = humidity_days_table("Rain days")
RAIN_ZH = humidity_days_table("降雨天数(天)", "zh")
WET_EN = humidity_days_table("Humidity duration (days)")
WET_ZH = humidity_days_table("高湿持续天数(天)", "zh")


@pytest.mark.parametrize(("table", "question", "days"), [
    # ``over`` between a value and a duration: how long the value held, as ``for`` says
    (WET_EN, "humidity 90% over 3 days", "3"),
    (WET_EN, "Relative humidity 90% over 4 days", "4"),
    (WET_EN, "humidity 90% for 3 days", "3"),
    (WET_EN, "humidity 90% in the last 3 days", "3"),
    (WET_EN, "humidity 90% over the past 3 days", "3"),
    (WET_EN, "humidity 90% over the last 3 days", "3"),
    # a bound on how long: ``for over``, ``more than``, 以上, 超过
    (WET_EN, "humidity 90% for over 3 days", "over 3 days"),
    (WET_EN, "humidity 90% for more than 3 days", "more than 3 days"),
    (WET_ZH, "湿度90%持续3天", "3"),
    (WET_ZH, "湿度90%持续超过3天", "超过3天"),
    # no value before it: ``rain over 3 days`` bounds the rain's days
    (RAIN_EN, "humidity 90%, rain over 3 days", "over 3 days"),
])
def test_over_between_a_value_and_a_duration_is_how_long_it_held(table, question, days):
    """``humidity 90% over 3 days`` read ``over`` as a bound (more than 3 days) where it
    says how long the 90% held (v49b): a duration after a value with only ``over`` between
    is that length; ``over`` before a quantity (``over 30 C``) or after a word of lasting
    (``for over 3 days``) still bounds."""
    assert table is not None
    given = read_inputs(question, table)
    assert given.values.get(table.header[1]) == days, (question, given.values)
    assert given.values.get(table.header[0]) == "90"


def test_over_before_another_quantity_still_bounds():
    assert WET_EN is not None
    assert read_inputs("humidity 90% over 30 C", WET_EN).unused == ("over 30 C",)


@pytest.mark.parametrize(("table", "question", "days", "unused"), [
    # glued to the value, no linking word: how long it held, as 持续 says it
    (RAIN_ZH, "湿度90%3天", None, ()),
    (RAIN_ZH, "湿度90%3天，温度20度", None, ("温度20度",)),
    (WET_ZH, "湿度90%3天", "3", ()),
    (WET_ZH, "湿度90%，持续3天", "3", ()),
    # 有: how long it has been so (湿度90%有3天了)
    (RAIN_ZH, "湿度90%有3天了", None, ()),
    (WET_ZH, "湿度90%已经有3天了", "3", ()),
    # set apart by a space or a mark, or a name of its own: the rain's days
    (RAIN_ZH, "湿度90% 3天", "3", ()),
    (RAIN_ZH, "湿度90%，3天", "3", ()),
    (RAIN_ZH, "湿度90%降雨3天", "3", ()),
])
def test_a_duration_glued_to_a_value_is_said_of_that_value(table, question, days, unused):
    """湿度90%3天 gave its 3 days to the rain-days column though, glued to the 90%, they say
    how long the humidity held (v49b), as 湿度90%持续3天 does."""
    assert table is not None
    given = read_inputs(question, table)
    assert (given.values.get(table.header[1]), given.unused) == (days, unused), question
    assert given.values.get(table.header[0]) == "90"


@pytest.mark.parametrize(("table", "question", "note"), [
    (RAIN_EN, "humidity 90% over 3 days", "(3 days is said of humidity, not of Rain days)"),
    (RAIN_EN, "humidity 90 under 3 days", "(under 3 days is said of humidity, not of Rain days)"),
    (RAIN_ZH, "湿度90%，已经连续3天", "（3天说的是湿度，不是降雨天数(天)）"),
    (RAIN_ZH, "湿度90%3天", "（3天说的是湿度，不是降雨天数(天)）"),
])
def test_the_answer_says_whose_duration_was_kept_from_a_days_column(table, question, note):
    """A duration said of the humidity, kept from the rain-days column, was said not used
    because "the table has no such input", though it has a days column (v49b): the answer
    says whose duration it is, as for 油温80度 on a 温度 column (`Inputs.others`)."""
    assert table is not None
    given = read_inputs(question, table)
    chinese = not question.isascii()
    notes = {k: said_of_other_note(k, given.typed.get(v, v), n, chinese=chinese)
             for k, (v, n) in given.others.items()}
    ev = evaluate_inputs("d.md", 1, table, given.values, {}, {}, notes,
                         lang="zh" if chinese else "en", typed=given.typed)
    assert note in ev.message and given.unused == (), (ev.message, given.unused)


SPRAY = build_table(["时长(小时)", "打药次数", "措施"],
                    [[">=24", ">=3", "停药"], [">=24", "<3", "续药"], ["<24", "*", "观察"]],
                    decision="inputs=时长(小时),打药次数; outputs=措施")


@pytest.mark.parametrize(("question", "values", "unused"), [
    ("36小时 打药3次", {"时长(小时)": "36", "打药次数": "3"}, ()),
    ("36小时打药3次", {"时长(小时)": "36", "打药次数": "3"}, ()),
    ("打药3次 36小时", {"时长(小时)": "36", "打药次数": "3"}, ()),
    ("36个小时，打药三次", {"时长(小时)": "36", "打药次数": "3"}, ()),
    ("36小时 喷了3次药", {"时长(小时)": "36"}, ("喷了3次",)),  # (喷 names no column)
    # an object the hours count, said after them, is still no value of the column
    ("刮了36小时风 打药3次", {"打药次数": "3"}, ("刮了36小时",)),
])
def test_a_duration_before_the_next_values_name_fills_the_one_column_of_its_unit(
        question, values, unused):
    """36小时 打药3次 left 36 hours unused though only 时长(小时) takes hours (v49b): 打药,
    the name of the 3 after it, was read as what the hours counted (as 雨 of 下了4天雨), and
    names no hours column."""
    assert SPRAY is not None
    given = read_inputs(question, SPRAY)
    assert (given.values, given.unused) == (values, unused), question
