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
