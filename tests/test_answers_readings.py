"""Values a question gives as field users type them, and every reading that is not the number
as typed said in the answer (issues 17 §1 and 5; session 43): thousands grouped by a space,
a thin space or dots (``1 200``, ``1 200``, ``1.200.000``) and a dot that may group them or
be a decimal point (``1.200``: asked, not guessed), a share in words inside a bound (湿度一半以上),
a fraction of one for a percent column (湿度0.85), two neighbouring numerals (三四天, 二十五六度:
a rough range), ``4d``, a part of the day naming its column (晚上3度 → 夜温), another
thing's time named after its number (``2100 operating hours``), and notes quoting a value as
typed (``2100 hours``, not ``2100hours``)."""

from __future__ import annotations

import pytest
from hostile import make_repo
from hypothesis import given as drawn
from hypothesis import settings
from hypothesis import strategies as st
from kbfixtures import RAIN_TABLE, scab_table, titled_page, top_evaluation

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.decision import build_table
from kbtools.decision.given import read_given
from kbtools.query.answers import ambiguous_note, evaluate_inputs
from kbtools.query.inputs import read_inputs

SCAB = scab_table(("小麦赤霉病",))
FLOW = build_table(["流量(L/h)", "措施"], [["<1200", "低"], [">=1200", "高"]],
                   decision="inputs=流量(L/h); outputs=措施")
SHARE = build_table(["相对湿度(%)", "措施"], [["<60", "观察"], [">=60", "喷药"]],
                    decision="inputs=相对湿度(%); outputs=措施")
FINE = build_table(["含水率(%)", "措施"], [["<0.5", "合格"], [">=0.5", "烘干"]],
                   decision="inputs=含水率(%); outputs=措施")
RAIN = build_table(["连续降雨天数", "措施"], [["<3", "观察"], [">=3", "喷药"]],
                   decision="inputs=连续降雨天数; outputs=措施")
RAIN_EN = build_table(["Rain days", "Action"], [["<3", "watch"], [">=3", "spray"]],
                      decision="inputs=Rain days; outputs=Action")
NIGHT = build_table(["夜温(℃)", "措施"], [["<5", "覆盖"], [">=5", "正常"]],
                    decision="inputs=夜温(℃); outputs=措施")
DAY_NIGHT = build_table(["白天温度(℃)", "夜间温度(℃)", "措施"],
                        [["<25", "<5", "覆盖"], ["*", ">=5", "正常"], [">=25", "<5", "通风"]],
                        decision="inputs=白天温度(℃),夜间温度(℃); outputs=措施")


def evaluated(question: str, table):
    given = read_inputs(question, table)
    notes = {k: ambiguous_note(*v, chinese=True) for k, v in given.ambiguous.items()}
    return given, evaluate_inputs("d.md", 1, table, given.values, given.conflicts,
                                  given.approximate, notes, readings=given.readings,
                                  typed=given.typed)


@pytest.mark.parametrize("question", ["流量1\u2009200L/h", "流量 1\u202f200 L/h", "flow 1\u2009200 L/h"])
def test_thousands_grouped_by_a_thin_space_are_one_number(question):
    """A thin space (or a narrow no-break space) groups thousands as SI writes them: 1200."""
    given, ev = evaluated(question, FLOW)
    assert given.values == {"流量(L/h)": "1200"} and ev.outputs == {"措施": "高"}, ev


@pytest.mark.parametrize(("question", "typed"), [
    ("流量 1 200 L/h 怎么办", "1 200"), ("flow 1 200 L/h", "1 200"), ("流量1 250L/H", "1 250"),
])
def test_thousands_grouped_by_a_space_are_one_number_and_said_so(question, typed):
    """``1 200`` in free text gave the table nothing (two numbers, neither a value); it is
    1200 now, and the answer says it read it so (not after a code: ``HX-260 1 200``)."""
    given, ev = evaluated(question, FLOW)
    assert ev.status == "match" and ev.outputs == {"措施": "高"}, ev
    value = given.values["流量(L/h)"]
    assert ev.readings == {"流量(L/h)": f"{typed} as {value}"}
    assert f"(read: 流量(L/h) {typed} as {value})" in ev.message


@settings(deadline=None)
@drawn(st.integers(1, 999), st.integers(0, 999), st.sampled_from([" ", "\u2009", "\u202f"]))
def test_any_number_grouped_by_a_space_is_its_value(high, low, space):
    value = high * 1000 + low
    given, ev = evaluated(f"流量{high}{space}{low:03d} L/h", FLOW)
    assert given.values == {"流量(L/h)": str(value)}, given
    assert ev.outputs == {"措施": "低" if value < 1200 else "高"}


@settings(deadline=None)
@drawn(st.integers(1, 999), st.integers(0, 999))
def test_a_dotted_number_is_asked_exactly_when_its_readings_select_other_rows(high, low):
    typed = f"{high}.{low:03d}"
    given = read_inputs(f"流量{typed}L/h", FLOW)
    differ = (float(typed) < 1200) != (high * 1000 + low < 1200)
    assert (given.values == {}) == differ and bool(given.ambiguous) == differ, given


def test_two_dots_group_thousands():
    given, ev = evaluated("流量1.200.000 L/h", FLOW)
    assert given.values == {"流量(L/h)": "1200000"} and ev.outputs == {"措施": "高"}
    assert ev.readings == {"流量(L/h)": "1.200.000 as 1200000"}


@pytest.mark.parametrize("question", ["流量1.200L/h怎么办", "流量 2.500 L/h", "flow 1.500 L/h"])
def test_a_dot_that_may_group_thousands_is_asked_when_the_rows_differ(question):
    """``1.200`` was read as 1.2 (row <1200) although a European writes 1200 so (row >=1200):
    the input is missing now, its note naming both readings."""
    given, ev = evaluated(question, FLOW)
    assert given.values == {} and ev.status == "missing_inputs", ev
    typed, one, other = given.ambiguous["流量(L/h)"]
    assert other == typed.replace(".", "") and float(one) == float(typed)
    assert f"{typed}可读作{one}或{other}" in ev.message


def test_a_dot_read_either_way_into_one_row_is_taken_as_written():
    given, ev = evaluated("流量1.100L/h", FLOW)
    assert given.values == {"流量(L/h)": "1.100"} and not given.ambiguous
    assert ev.outputs == {"措施": "低"} and ev.readings == {}


SHARE_30 = build_table(["病叶率(%)", "措施"], [["<30", "观察"], [">=30", "喷药"]],
                      decision="inputs=病叶率(%); outputs=措施")


@pytest.mark.parametrize(("question", "given_as", "output"), [
    ("病叶率一半以上", "一半以上", "喷药"), ("病叶率一半以下", "一半以下", None),  # 0-50: both rows
    ("病叶率三分之二以上", "三分之二以上", "喷药"),
    ("病叶率超过一半", "超过一半", "喷药"), ("病叶率不到一半", "不到一半", None),
])
def test_a_share_in_words_inside_a_bound_is_that_percentage(question, given_as, output):
    """病叶率一半以上 gave nothing, and 超过一半 was read by the table as 超过1半 (over 1 %)."""
    given, ev = evaluated(question, SHARE_30)
    assert given.values == {"病叶率(%)": given_as}, given
    if output is None:
        assert ev.status == "spans_rows", ev
    else:
        assert ev.status == "match" and ev.outputs == {"措施": output}, ev


@pytest.mark.parametrize(("value", "low", "high"), [
    ("一半以上", 50, None), ("超过三分之二", 66.666667, None), ("不到一半", None, 50),
    ("1/2到2/3", 50, 66.666667), ("一半", None, None)])
def test_the_given_value_reader_reads_shares_in_a_percent_column(value, low, high):
    given = read_given(value, True, "%")
    if low is None and high is None:
        assert given.text == "50%"
        return
    assert given.span is not None
    assert (given.span.lo if low is not None else None) == low
    assert (given.span.hi if high is not None else None) == high


def test_a_share_outside_a_percent_column_is_not_a_percentage():
    assert "50%" not in read_given("一半以上", True, "小时").text


@pytest.mark.parametrize(("question", "typed", "output"), [
    ("湿度0.85", "0.85", "喷药"), ("humidity 0.85", "0.85", "喷药"), ("湿度0.5怎么办", "0.5", "观察"),
])
def test_a_fraction_of_one_for_a_percent_column_is_read_as_its_percentage_and_said(
        question, typed, output):
    """湿度0.85 was refused as 0.85 % on a table whose bounds are whole percentages."""
    given, ev = evaluated(question, SHARE)
    assert ev.status == "match" and ev.outputs == {"措施": output}, ev
    assert ev.readings == {"相对湿度(%)": f"{typed} as {given.values['相对湿度(%)']} %"}


def test_a_fraction_for_a_table_that_tells_fractions_of_a_percent_apart_is_as_written():
    given, ev = evaluated("含水率0.3", FINE)
    assert given.values == {"含水率(%)": "0.3"} and ev.outputs == {"措施": "合格"}
    assert ev.readings == {}


@pytest.mark.parametrize(("question", "typed"), [("湿度一半", "一半"), ("湿度九成", "九成")])
def test_a_share_said_in_words_is_said_as_read(question, typed):
    given, ev = evaluated(question, SHARE)
    assert ev.readings == {"相对湿度(%)": f"{typed} as {given.values['相对湿度(%)']} %"}


@pytest.mark.parametrize(("question", "table", "column", "value", "rough"), [
    ("下了三四天雨", RAIN, "连续降雨天数", "三到四天", "三四天"),
    ("连续降雨三四天", RAIN, "连续降雨天数", "三到四天", "三四天"),
    ("连续降了两三天雨", RAIN, "连续降雨天数", "两到三天", "两三天"),
    ("下了一两天雨", RAIN, "连续降雨天数", "一到两天", "一两天"),  # (一 alone: 一度 is "once")
    ("溫度二十五六度，濕度九成，下了五六天雨", SCAB, "温度(℃)", "二十五到二十六度", "二十五六度"),
    ("湿度七八成", SHARE, "相对湿度(%)", "七到八成", "七八成"),
])
def test_two_neighbouring_numerals_are_a_rough_range(question, table, column, value, rough):
    """下了三四天雨 gave nothing: 三四 (three or four) is no standard numeral."""
    given, ev = evaluated(question, table)
    assert given.values[column] == value and given.approximate[column] == rough, given
    assert ev.status in ("match", "spans_rows") and rough in ev.message, ev


def test_a_rough_range_across_rows_names_them():
    given, ev = evaluated("连续降了两三天雨", RAIN)
    assert ev.status == "spans_rows" and "两三天" in ev.message


@pytest.mark.parametrize(("question", "typed"), [
    ("連續降雨兩三天", "兩三天"), ("下了两三天雨", "两三天"), ("下雨二三天", "二三天"),
])
def test_a_rough_range_across_rows_is_quoted_as_typed(question, typed):
    """兩三天 across two rows was refused quoting the reading, “两到三天”, a value the user
    never typed."""
    given, ev = evaluated(question, RAIN)
    assert ev.status == "spans_rows" and ev.message.startswith(f"input 连续降雨天数='{typed}'")
    assert "到" not in ev.message, ev.message


@pytest.mark.parametrize(("question", "table", "column"), [
    ("rain for 4d", RAIN_EN, "Rain days"), ("4d of rain", RAIN_EN, "Rain days"),
    ("下了4d雨", RAIN, "连续降雨天数"),
])
def test_a_d_after_a_number_is_days(question, table, column):
    assert read_inputs(question, table).values == {column: "4"}


@pytest.mark.parametrize(("question", "values"), [
    ("晚上3度", {"夜温(℃)": "3"}), ("晚上零下3度", {"夜温(℃)": "-3"}),
    ("半夜3度", {"夜温(℃)": "3"}), ("白天25度", {}),
])
def test_a_part_of_the_day_names_the_column_of_that_part(question, values):
    """晚上3度 gave 夜温(℃) nothing (夜里3度 did)."""
    assert read_inputs(question, NIGHT).values == values


@pytest.mark.parametrize("question", ["白天25度，晚上3度", "中午25度，夜里3度",
                                      "白天温度25度，夜间温度3度", "白天25度，夜间温度3度"])
def test_day_and_night_readings_fill_their_own_columns(question):
    """白天温度25度，夜间温度3度 was two values of 白天温度 (the 温度 of 夜间温度 taken for its
    name again)."""
    given = read_inputs(question, DAY_NIGHT)
    assert given.values == {"白天温度(℃)": "25", "夜间温度(℃)": "3"} and not given.conflicts


DAY_NIGHT_SHORT = build_table(["白天温度(℃)", "夜温(℃)", "措施"],
                              [["<25", "<5", "覆盖"], ["*", ">=5", "正常"], [">=25", "<5", "通风"]],
                              decision="inputs=白天温度(℃),夜温(℃); outputs=措施")
DAY_NIGHT_EN = build_table(["Day temperature (°C)", "Night temperature (°C)", "Action"],
                           [["<25", "<5", "cover"], ["*", ">=5", "normal"], [">=25", "<5", "vent"]],
                           decision="inputs=Day temperature (°C),Night temperature (°C); "
                                    "outputs=Action")


@pytest.mark.parametrize(("question", "values"), [
    ("night temp 3 C", {"Night temperature (°C)": "3"}),
    ("nighttime temperature 3 C", {"Night temperature (°C)": "3"}),
    ("daytime 25 C, night 3 C", {"Day temperature (°C)": "25", "Night temperature (°C)": "3"}),
    ("白天气温25度，夜间温度3度", {"Day temperature (°C)": "25", "Night temperature (°C)": "3"}),
])
def test_a_reading_at_night_is_never_the_days_in_english(question, values):
    """``night temp 3 C`` gave Day temperature the 3 (``temp`` read as its name)."""
    given = read_inputs(question, DAY_NIGHT_EN)
    assert given.values == values and not given.conflicts, given


@pytest.mark.parametrize(("question", "values"), [
    ("25 C in the day, 3 C at night",
     {"Day temperature (°C)": "25", "Night temperature (°C)": "3"}),
    ("25 C during the day and 3 C at night",
     {"Day temperature (°C)": "25", "Night temperature (°C)": "3"}),
    ("3 C at night", {"Night temperature (°C)": "3"}),
    ("25 C in the daytime", {"Day temperature (°C)": "25"}),
])
def test_a_part_of_the_day_said_after_the_value_is_its_time(question, values):
    """``25 C in the day, 3 C at night`` gave neither input (two temperatures, no name nor
    time before either), though ``daytime 25 C, night 3 C`` gave both."""
    given = read_inputs(question, DAY_NIGHT_EN)
    assert given.values == values and not given.conflicts, given


DAY, NIGHT_EN = "Day temperature (°C)", "Night temperature (°C)"


@pytest.mark.parametrize(("question", "table", "values"), [
    ("25 C daytime, 3 C overnight", DAY_NIGHT_EN, {DAY: "25", NIGHT_EN: "3"}),
    ("25 C at midday, 3 C at midnight", DAY_NIGHT_EN, {DAY: "25", NIGHT_EN: "3"}),
    ("overnight 3 C", DAY_NIGHT_EN, {NIGHT_EN: "3"}),
    ("last night 3 C", DAY_NIGHT_EN, {NIGHT_EN: "3"}),
    ("then 3 C overnight", DAY_NIGHT_EN, {NIGHT_EN: "3"}),
    ("25度白天，3度晚上", DAY_NIGHT, {"白天温度(℃)": "25", "夜间温度(℃)": "3"}),
    ("25度白天3度晚上", DAY_NIGHT_SHORT, {"白天温度(℃)": "25", "夜温(℃)": "3"}),
    ("25℃白天，3℃夜間", DAY_NIGHT_SHORT, {"白天温度(℃)": "25", "夜温(℃)": "3"}),
    ("二十五度在白天，三度在晚上", DAY_NIGHT, {"白天温度(℃)": "25", "夜间温度(℃)": "3"}),
    ("3度夜里的时候", DAY_NIGHT_SHORT, {"夜温(℃)": "3"}),
    ("25 C daytime, 3 C overnight", DAY_NIGHT_SHORT, {"白天温度(℃)": "25", "夜温(℃)": "3"}),
])
def test_any_part_of_the_day_after_the_value_is_its_time(question, table, values):
    """``25 C daytime, 3 C overnight``, ``overnight 3 C`` and 25度白天，3度晚上 gave the night
    column nothing: ``overnight``, ``midnight`` named no ``Night temperature`` (only the word
    ``night`` did), and a Chinese time said after the value was read as none."""
    given = read_inputs(question, table)
    assert given.values == values and not given.conflicts, given


@pytest.mark.parametrize(("question", "table", "values"), [
    ("25度（白天），3度（夜间），湿度85%", DAY_NIGHT, {"白天温度(℃)": "25", "夜间温度(℃)": "3"}),
    ("25度(白天) 3度(晚上)", DAY_NIGHT_SHORT, {"白天温度(℃)": "25", "夜温(℃)": "3"}),
    ("25度【白天】3度【夜里的时候】", DAY_NIGHT, {"白天温度(℃)": "25", "夜间温度(℃)": "3"}),
    ("3度（夜里）", DAY_NIGHT_SHORT, {"夜温(℃)": "3"}),
    ("25°C (daytime), 3°C (night)", DAY_NIGHT_EN, {DAY: "25", NIGHT_EN: "3"}),
    ("25 C (in the day) 3 C [overnight]", DAY_NIGHT_EN, {DAY: "25", NIGHT_EN: "3"}),
    ("3 C (at night)", DAY_NIGHT_EN, {NIGHT_EN: "3"}),
])
def test_a_part_of_the_day_in_brackets_after_the_value_is_its_time(question, table, values):
    """25度（白天）, ``25 °C (daytime)``: a part of the day in brackets after a value gave no
    column (the bracket stood between the value and its time); it is the value's time, as
    unbracketed."""
    given = read_inputs(question, table)
    assert {k: v for k, v in given.values.items() if "湿度" not in k} == values, given
    assert not given.conflicts, given


MEAN = build_table(["日均温(℃)", "措施"], [["<5", "覆盖"], [">=5", "正常"]],
                   decision="inputs=日均温(℃); outputs=措施")
MEAN_EN = build_table(["Daily mean temperature (°C)", "Action"], [["<5", "cover"], [">=5", "ok"]],
                      decision="inputs=Daily mean temperature (°C); outputs=Action")


@pytest.mark.parametrize(("question", "table", "said"), [
    ("昨晚3度", MEAN, ("3度", "昨晚")), ("3度（夜里）", MEAN, ("3度", "夜里")),
    ("白天25度", MEAN, ("25度", "白天")),
    ("it was 3 C overnight", MEAN_EN, ("3 C", "overnight")),
    ("night 3 C", MEAN_EN, ("3 C", "night")), ("daytime 25 C", MEAN_EN, ("25 C", "daytime")),
])
def test_a_reading_at_a_part_of_the_day_is_said_to_a_table_of_daily_means(question, table, said):
    """昨晚3度, ``it was 3 C overnight`` against a table of a daily mean only: dropped with
    nothing said. A reading at one part of the day is no day's mean: it is said (as v44
    says 白天25度 to a table of 夜温 alone), and a plain value still is the mean's."""
    given = read_inputs(question, table)
    column = table.header[0]
    assert given.values == {} and given.others == {column: said}, given
    assert column in given.other_times
    assert read_inputs(said[0], table).values == {column: said[0].split()[0].rstrip("度")}


@pytest.mark.parametrize(("question", "table", "values", "others"), [
    ("玉米南方锈病 昨晚3度", MEAN, {}, {"日均温(℃)": ("3度", "昨晚")}),
    ("大棚昨晚3度", NIGHT, {"夜温(℃)": "3"}, {}),
    ("番茄昨晚3度，白天25度", DAY_NIGHT, {"白天温度(℃)": "25", "夜间温度(℃)": "3"}, {}),
])
def test_a_time_said_after_the_tables_subject_is_the_readings(question, table, values, others):
    """玉米南方锈病 昨晚3度 (the subject glued before the time, as a search's question writes
    it): the 3 was judged by the word 玉米南方锈病昨晚, no time, and dropped unsaid."""
    given = read_inputs(question, table)
    assert given.values == values and given.others == others, given


@drawn(st.integers(0, 40), st.integers(0, 40),
       st.sampled_from(["daytime", "in the day", "at midday", "during the day", "at noon"]),
       st.sampled_from(["overnight", "at night", "at midnight", "in the evening", "tonight"]),
       st.booleans())
@settings(max_examples=40)
def test_any_value_before_its_part_of_the_day_is_that_columns(day, night, said_day,
                                                              said_night, night_first):
    """Each value said before its part of the day, in either order, is that part's column."""
    parts = [f"{day} C {said_day}", f"{night} C {said_night}"]
    question = ", ".join(reversed(parts) if night_first else parts)
    given = read_inputs(question, DAY_NIGHT_EN)
    assert given.values == {DAY: str(day), NIGHT_EN: str(night)}, (question, given)


TEMPERATURE_EN = build_table(["Temperature (°C)", "Action"], [["<5", "cover"], [">=5", "ok"]],
                             decision="inputs=Temperature (°C); outputs=Action")
DAILY_MEAN_EN = build_table(["Daily mean temperature (°C)", "Action"],
                            [["<5", "cover"], [">=5", "ok"]],
                            decision="inputs=Daily mean temperature (°C); outputs=Action")


@pytest.mark.parametrize(("question", "table", "values"), [
    ("3 C at night", TEMPERATURE_EN, {"Temperature (°C)": "3"}),
    ("night 3 C", TEMPERATURE_EN, {"Temperature (°C)": "3"}),
    ("overnight 3 C, what now", TEMPERATURE_EN, {"Temperature (°C)": "3"}),
    ("night 3 C", DAILY_MEAN_EN, {}),
    ("3 C at night", DAILY_MEAN_EN, {}),
])
def test_a_reading_at_a_part_of_the_day_is_a_plain_columns(question, table, values):
    """``3 C at night`` gave a table of one ``Temperature`` nothing (the time said after it was
    read as a name no header has), as 3度晚上 gives 温度 the 3; a daily mean's column still
    takes no reading at night, as 日均温 takes no 夜里3度."""
    given = read_inputs(question, table)
    assert given.values == values and not given.conflicts, given


@pytest.mark.parametrize(("question", "values"), [
    ("白天气温25度，夜间温度3度", {"白天温度(℃)": "25", "夜温(℃)": "3"}),
    ("白天气温25度，夜里气温3度", {"白天温度(℃)": "25", "夜温(℃)": "3"}),
    ("晚上的温度3度，白天温度25度", {"白天温度(℃)": "25", "夜温(℃)": "3"}),
    ("夜间温度3度", {"夜温(℃)": "3"}), ("夜间气温3度", {"夜温(℃)": "3"}),
    ("白天气温25度", {"白天温度(℃)": "25"}),
])
def test_a_reading_at_night_is_never_the_days(question, values):
    """夜间温度3度 on a table of 白天温度 and 夜温 gave 白天温度 the 3 (the 温度 of 夜间温度 read
    as a name of 白天温度's), a wrong row; 白天气温25度 gave nothing (25度 fit both columns)."""
    given = read_inputs(question, DAY_NIGHT_SHORT)
    assert given.values == values and not given.conflicts, given


@pytest.mark.parametrize(("question", "table", "column", "said"), [
    ("2100 operating hours", RAIN, "连续降雨天数", ("2100hours", "operating hours")),
    ("the pump has 2100 operating hours", RAIN_EN, "Rain days",
     ("2100hours", "operating hours")),
    ("4 windy days", RAIN_EN, "Rain days", ("4days", "windy days")),
])
def test_another_things_time_named_after_it_is_noted(question, table, column, said):
    """``2100 operating hours`` left a table of rain days missing its input with no word."""
    given = read_inputs(question, table)
    assert given.values == {} and given.others == {column: said}


@pytest.mark.parametrize(("question", "said"), [
    ("the machine ran 2100 hours", "2100 hours"), ("机器运行了2100 小时", "2100小时"),
    ("the pump logged 300 hrs", "300 hrs"), ("泵已经运转了300个小时", "300个小时"),
])
def test_a_note_quotes_the_value_as_typed(question, said):
    """The note said ``2100hours is said of machine ran``."""
    given = read_inputs(question, RAIN)
    value = given.others["连续降雨天数"][0]
    assert given.typed.get(value, value) == said


SCAB_PAGE = titled_page("小麦赤霉病风险", "按温度、相对湿度和连续降雨天数判定。\n\n" + RAIN_TABLE)
PUMP_PAGE = titled_page("Pump flow check", """Check the flow.

<!-- decision: inputs=Flow (L/h); outputs=Action -->
| Flow (L/h) | Action |
|---|---|
| <1200 | clean the strainer |
| >=1200 | normal |
""")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/scab.md": SCAB_PAGE, "knowledge/pump.md": PUMP_PAGE})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


def test_a_search_says_how_it_read_each_value(dist):
    ev = top_evaluation(dist, "小麦赤霉病风险 温度22度 湿度0.9 下了四五天雨", "scab.md")
    assert (ev["status"], ev["outputs"]) == ("match", [{"风险等级": "极高"}]), ev
    assert ev["readings"] == {"相对湿度(%)": "0.9 as 90 %"}
    assert ev["approximate"] == {"连续降雨天数": "四五天"}
    assert "0.9 为 90 %" in ev["message"] and "四五天" in ev["message"]  # (a Chinese question's)


def test_a_search_notes_another_things_time_as_typed(dist):
    ev = top_evaluation(dist, "小麦赤霉病风险 温度22度 湿度90% the machine ran 2100 hours",
                        "scab.md")
    assert ev["status"] == "missing_inputs" and ev["missing"] == ["连续降雨天数"], ev
    assert ev["said_of_other"] == {"连续降雨天数": "2100 hours说的是machine ran，不是连续降雨天数"}


def test_a_search_asks_which_reading_of_a_dotted_value_is_meant(dist):
    ev = top_evaluation(dist, "pump flow check: flow 1.200 L/h", "pump.md")
    assert (ev["status"], ev["missing"]) == ("missing_inputs", ["Flow (L/h)"]), ev
    assert ev["said_of_other"] == {"Flow (L/h)": ambiguous_note("1.200", "1.2", "1200",
                                                                chinese=False)}
