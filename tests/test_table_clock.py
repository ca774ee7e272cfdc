"""Times of day in decision tables (issue 17, session 39): cells ``<9:00``, ``08:00-17:30`` and
``22:00-6:00`` (across midnight) read as times, inputs said as a field user says them (``上午9
点``, ``9点半``, ``下午3点``, ``21时``, ``9:05 pm``) compared as times, and a time and a duration
never taken for each other."""

from __future__ import annotations

import pytest

from kbtools.decision import build_table, match_rules
from kbtools.errors import TableError

DAY = build_table(["时间", "措施"], [["<9:00", "早班前"], ["9:00-17:30", "白天"], [">17:30", "下班后"]],
                  decision="inputs=时间; outputs=措施")
SHIFTS = build_table(["时间", "班次"], [["08:00-17:30", "白班"], ["22:00-6:00", "夜班"]],
                     decision="inputs=时间; outputs=班次")
HOURS = build_table(["时长(小时)", "措施"], [["<1", "短时"], ["≥1", "长时"]],
                    decision="inputs=时长; outputs=措施")


def _answer(table, value):
    assert table is not None
    result = match_rules(table, {table.header[0]: value})
    return [v for out in result.outputs for v in out.values()]


@pytest.mark.parametrize(("value", "want"), [
    ("8:30", "早班前"), ("上午9点", "白天"), ("9点半", "白天"), ("九点一刻", "白天"),
    ("下午3点", "白天"), ("21时", "下班后"), ("9:05 pm", "下班后"), ("9:05", "白天"),
    ("9pm", "下班后"), ("晚上8点", "下班后"), ("17:31", "下班后"), ("17:30", "白天"),
])
def test_a_time_of_day_is_compared_as_one(value, want):
    """Every cell of a column of times was text: 8:30 against <9:00 was refused as "not a
    value this column takes"; 下午3点 and 9:05 pm were no value at all."""
    assert _answer(DAY, value) == [want]


@pytest.mark.parametrize(("value", "want"), [
    ("23:00", ["夜班"]), ("2:00", ["夜班"]), ("凌晨2点", ["夜班"]), ("晚上11点", ["夜班"]),
    ("12:00", ["白班"]), ("20:00", []),  # between the shifts: no row
])
def test_a_range_across_midnight_holds_the_night(value, want):
    assert _answer(SHIFTS, value) == want


def test_the_reason_shows_the_time_not_its_minutes():
    assert DAY is not None
    row = match_rules(DAY, {"时间": "9:05 pm"}).to_dict()["matches"][0]
    assert row["cells"][0]["reason"] == "21:05 is > 17:30"


@pytest.mark.parametrize(("table", "value", "says"), [
    (HOURS, "9:00", "'9:00': it is a time of day; the column holds 小时"),
    (HOURS, "下午3点", "it is a time of day"),
    (DAY, "3小时", "the column holds times of day"),
    (DAY, "9", "the column holds times of day"),  # no 9 minutes after midnight
    (DAY, "25:00", "is not a number"),
])
def test_a_time_and_a_duration_are_not_taken_for_each_other(table, value, says):
    assert table is not None
    with pytest.raises(TableError, match=says) as caught:
        match_rules(table, {table.header[0]: value})
    assert "\n" not in str(caught.value)


def test_a_duration_column_still_reads_hours_said_with_shi():
    assert _answer(HOURS, "21时") == ["长时"]  # 21 hours there, no time of day
    assert _answer(HOURS, "半小时") == ["短时"]


def test_a_ratio_is_no_time():
    table = build_table(["稀释比", "用途"], [["1:100", "喷雾"], ["1:500", "灌根"]],
                        decision="inputs=稀释比; outputs=用途")
    assert _answer(table, "1:500") == ["灌根"]


# a question asked against a table with a column of times (session 40): its times of day are
# read by the reader the inputs use, never as the numbers 8 and 30
ARRIVAL = build_table(["到达时间", "温度(℃)", "措施"],
                      [["<9:00", "<20", "先预热"], ["<9:00", ">=20", "直接作业"], [">=9:00", "*", "改到次日"]],
                      decision="inputs=到达时间,温度(℃); outputs=措施")
SHIFT_EN = build_table(["Time", "Crew"], [["08:00-17:30", "day"], ["22:00-6:00", "night"]],
                       decision="inputs=Time; outputs=Crew")
START_END = build_table(["开始时间", "结束时间", "结论"],
                        [["<12:00", "<12:00", "上午班"], ["<12:00", ">=12:00", "全天班"],
                         [">=12:00", "*", "下午班"]],
                        decision="inputs=开始时间,结束时间; outputs=结论")


def _asked(table, question):
    from kbtools.query.inputs import read_inputs

    inputs = read_inputs(question, table)
    return inputs.values, inputs.conflicts


@pytest.mark.parametrize(("table", "question", "values", "want"), [
    (SHIFTS, "时间8:30是什么班", {"时间": "8:30"}, ["白班"]),
    (SHIFTS, "早上8点半到的算哪个班", {"时间": "早上8点半"}, ["白班"]),
    (SHIFTS, "晚上10点上岗是什么班", {"时间": "晚上10点"}, ["夜班"]),
    (SHIFTS, "凌晨2点是哪个班？", {"时间": "凌晨2点"}, ["夜班"]),
    (SHIFTS, "２２：３０是什么班次", {"时间": "22:30"}, ["夜班"]),  # full-width, NFKC
    (SHIFTS, "21:30是什么班次", {"时间": "21:30"}, []),  # between the shifts: no row
    (SHIFT_EN, "which crew works at 9:05 pm?", {"Time": "9:05 pm"}, []),
    (SHIFT_EN, "crew for time 23:15", {"Time": "23:15"}, ["night"]),
    (SHIFT_EN, "who is on at 9am", {"Time": "9am"}, ["day"]),
    (ARRIVAL, "早上8点半到的，温度22度怎么办", {"到达时间": "早上8点半", "温度(℃)": "22"},
     ["直接作业"]),
    (ARRIVAL, "下午3点，温度28度怎么办", {"到达时间": "下午3点", "温度(℃)": "28"}, ["改到次日"]),
    (ARRIVAL, "到达时间8点30分，温度十八度", {"到达时间": "8点30分", "温度(℃)": "18"}, ["先预热"]),
    (ARRIVAL, "温度25度，晚上8点到", {"到达时间": "晚上8点", "温度(℃)": "25"}, ["改到次日"]),
    (START_END, "开始时间8:00，结束时间17:00", {"开始时间": "8:00", "结束时间": "17:00"},
     ["全天班"]),
])
def test_a_time_said_in_a_question_is_read_as_one(table, question, values, want):
    """Before: 时间8:30 gave the column the number 8 (refused: "the column holds times of
    day"); 早上8点半, 晚上10点, 21:30 and ``at 9:05 pm`` gave it nothing."""
    got, conflicts = _asked(table, question)
    assert (got, conflicts) == (values, {})
    if want is not None:
        result = match_rules(table, got)
        assert [v for out in result.outputs for v in out.values()] == want


@pytest.mark.parametrize(("table", "question", "values"), [
    (HOURS, "时长3小时怎么办", {"时长(小时)": "3"}),  # a column of hours: no time read
    (HOURS, "下午3点时长2小时", {"时长(小时)": "2"}),
    (SHIFTS, "温度高一点是什么班", {}),  # 一点: a little, no one o'clock
    (SHIFTS, "比例1:100是什么班", {}),
])
def test_no_time_is_read_where_none_is_said_or_the_column_holds_numbers(table, question, values):
    assert _asked(table, question) == (values, {})


def test_two_times_for_one_column_are_a_conflict_not_a_guess():
    assert _asked(SHIFTS, "8点到的，还是9点到的？") == ({}, {"时间": ("8点", "9点")})


DUTY = """设备巡检按到达时间安排班次。

<!-- decision: inputs=到达时间; outputs=班次 -->
| 到达时间 | 班次 |
|---|---|
| 08:00-17:30 | 白班 |
| 22:00-6:00 | 夜班 |
"""


@pytest.fixture(scope="module")
def duty_index(tmp_path_factory):
    from tests.kbfixtures import built_pages

    return built_pages(tmp_path_factory.mktemp("duty"), [("值班安排", DUTY)], stem="duty")


@pytest.mark.parametrize(("question", "row", "given"), [
    ("早上8点半到的算什么班次", 1, "早上8点半"), ("晚上10点到达是什么班次", 2, "晚上10点"),
    ("到达时间21:30是什么班次", None, "21:30"),
])
def test_search_evaluates_a_table_on_a_time_the_question_says(duty_index, question, row, given):
    """`kb query`: the table was answered "missing input 到达时间" (or refused 8)."""
    from tests.kbfixtures import top_evaluation

    ev = top_evaluation(duty_index, question, "duty-0.md")
    assert (ev["inputs"], ev["row"]) == ({"到达时间": given}, row)
    assert ev["status"] == ("match" if row else "no_match")


@pytest.mark.parametrize(("value", "want"), [
    ("23:00-1:00", ["夜班"]), ("23:00~2:00", ["夜班"]), ("1:00-3:00", ["夜班"]),
    ("22:00-6:00", ["夜班"]), ("9:00-10:00", ["白班"]),
])
def test_a_range_of_times_given_is_read_round_midnight(value, want):
    """A range given across midnight was turned round (23:00-1:00 read as 1:00-23:00, "row 1
    holds part of it") and a range inside a cell's across-midnight part matched no row
    (1:00-3:00 against 22:00-6:00)."""
    assert _answer(SHIFTS, value) == want


@pytest.mark.parametrize(("table", "value", "why"), [
    (SHIFTS, "21:00-23:00", "only part of which a rule holds"),
    (SHIFTS, "17:00-23:00", "over more than one rule"),
    (SHIFTS, "8-9", "holds times of day"),  # minutes 8 to 9 answered no row
    (HOURS, "8:00-9:00", "it is a time of day"),
])
def test_a_range_of_times_refused_says_why(table, value, why):
    with pytest.raises(TableError) as refused:
        _answer(table, value)
    assert why in str(refused.value)
