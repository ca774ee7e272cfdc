"""Values a question says in words, and each quoted as the user wrote it (issues 17 §1 and 5;
session 44): a decimal in Chinese numerals (湿度零点八五, 温度二十五点五), a share said 百分之
before a range or a rough pair (百分之八十到九十, 百分之八十到百分之九十, 百分之八九十: the range,
never its first end), a rough value quoted as typed (晚上十度左右: 十度, not 10度; 兩三天 in
Traditional script, not 两三天), and a value of the table's quantity said at a part of the day
it has no column for (白天25度 by a table of 夜温: said so, in the search's answer too)."""

from __future__ import annotations

import pytest
from hostile import make_repo
from kbfixtures import scab_table, titled_page, top_evaluation

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.decision import build_table, column_key
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import read_inputs

SHARE = build_table(["相对湿度(%)", "措施"], [["<60", "观察"], [">=60", "喷药"]],
                    decision="inputs=相对湿度(%); outputs=措施")
TEMP = build_table(["温度(℃)", "措施"], [["<0", "防冻"], ["0-25", "正常"], [">25", "降温"]],
                   decision="inputs=温度(℃); outputs=措施")
NIGHT = build_table(["夜温(℃)", "措施"], [["<5", "覆盖"], [">=5", "正常"]],
                    decision="inputs=夜温(℃); outputs=措施")
RAIN = build_table(["连续降雨天数", "措施"], [["<5", "观察"], [">=5", "喷药"]],
                   decision="inputs=连续降雨天数; outputs=措施")


def evaluated(question: str, table):
    given = read_inputs(question, table)
    return given, evaluate_inputs("d.md", 1, table, given.values, given.conflicts,
                                  given.approximate, readings=given.readings)


@pytest.mark.parametrize(("question", "table", "value", "typed"), [
    ("湿度零点八五", SHARE, "85", "零点八五"), ("濕度零點八五", SHARE, "85", "零點八五"),
    ("湿度零点五五怎么办", SHARE, "55", "零点五五"),
])
def test_a_fraction_in_chinese_numerals_is_read_and_said(question, table, value, typed):
    """湿度零点八五 gave the table nothing (a Chinese numeral with no unit after it was no
    number), though 湿度0.85 was read as 85 %."""
    given, ev = evaluated(question, table)
    column = table.header[0]
    assert given.values == {column: value}, given
    assert given.readings == {column: (typed, f"{value} %")}
    assert f"(read: {column} {typed} as {value} %)" in ev.message


@pytest.mark.parametrize(("question", "value"), [
    ("温度二十五点五", "25.5"), ("温度零下二点五度", "-2.5"), ("温度十五点五度", "15.5"),
])
def test_a_decimal_in_chinese_numerals_is_a_value(question, value):
    assert read_inputs(question, TEMP).values == {"温度(℃)": value}


@pytest.mark.parametrize("question", ["十点零五分温度20度", "八点五分温度20度"])
def test_a_time_of_day_in_numerals_is_no_decimal(question):
    assert read_inputs(question, TEMP).values == {"温度(℃)": "20"}


@pytest.mark.parametrize(("question", "rows"), [
    ("湿度百分之八十到九十", "match"), ("湿度百分之八十到百分之九十", "match"),
    ("湿度百分之八十至九十", "match"), ("湿度百分之五十到百分之七十", "spans_rows"),
    ("湿度百分之五十到七十", "spans_rows"),
])
def test_a_range_of_shares_said_in_words_is_the_range(question, rows):
    """湿度百分之八十到百分之九十 was read as 80 (its first end: a guess), and 百分之八十到九十
    not at all; 百分之五十到百分之七十 spans both rows and must say so."""
    given, ev = evaluated(question, SHARE)
    assert ev.status == rows, ev
    assert "到" in given.values["相对湿度(%)"] or "至" in given.values["相对湿度(%)"]


@pytest.mark.parametrize(("question", "said"), [
    ("湿度百分之八九十", "百分之八九十"), ("濕度百分之八九十", "百分之八九十"),
    ("湿度百分之七八十左右", "百分之七八十"), ("湿度八九十%", "八九十%"),
])
def test_a_rough_share_in_words_is_read_and_quoted_as_said(question, said):
    given, ev = evaluated(question, SHARE)
    assert ev.outputs == {"措施": "喷药"} and given.approximate == {"相对湿度(%)": said}, ev
    assert f"approximate value: 相对湿度(%) {said}" in ev.message


@pytest.mark.parametrize(("question", "table", "said"), [
    ("晚上十度左右", NIGHT, "十度"), ("夜溫十度左右", NIGHT, "十度"), ("夜溫大約十度", NIGHT, "十度"),
    ("濕度百分之八十左右", SHARE, "百分之八十"), ("連續降雨兩天左右", RAIN, "兩天"),
    ("連續降雨兩三天", RAIN, "兩三天"), ("下了兩三天雨", RAIN, "兩三天"),
    ("晚上零下三度左右", NIGHT, "零下三度"), ("夜温负三度左右", NIGHT, "负三度"),
    ("夜温大约零下3度", NIGHT, "零下3度"),
])
def test_a_rough_value_is_quoted_as_the_user_wrote_it(question, table, said):
    """晚上十度左右 was quoted 10度, Traditional 兩三天 in Simplified (两三天), and 零下三度
    左右 as 三度 (its sign word left out of the quote)."""
    given = read_inputs(question, table)
    assert given.approximate == {table.header[0]: said}, given


NIGHT_EN = build_table(["Night temperature (°C)", "Action"], [["<5", "cover"], [">=5", "normal"]],
                       decision="inputs=Night temperature (°C); outputs=Action")


@pytest.mark.parametrize(("question", "table", "said"), [
    ("白天25度", NIGHT, ("25度", "白天")), ("中午气温25度", NIGHT, ("25度", "中午")),
    ("daytime 25 C", NIGHT_EN, ("25 C", "daytime")), ("day temp 25 C", NIGHT_EN, ("25 C", "day")),
])
def test_a_value_said_at_a_part_of_the_day_the_table_lacks_is_noted(question, table, said):
    """白天25度 on a table of 夜温 alone left the input missing with no word of the 25度."""
    given = read_inputs(question, table)
    column = table.header[0]
    assert given.values == {} and given.others == {column: said}, given
    assert given.other_times == {column}


FROST_PAGE = titled_page("大棚夜间防冻", """夜间按夜温决定是否覆盖保温被。

<!-- decision: inputs=夜温(℃); outputs=措施 -->
| 夜温(℃) | 措施 |
|---|---|
| <5 | 覆盖保温被 |
| >=5 | 正常管理 |
""")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={"knowledge/frost.md": FROST_PAGE})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


def test_a_search_says_the_day_value_is_no_night_value(dist):
    ev = top_evaluation(dist, "白天25度，夜间要覆盖保温被吗", "frost.md")
    assert (ev["status"], ev["missing"]) == ("missing_inputs", ["夜温(℃)"]), ev
    assert ev["said_of_other"] == {"夜温(℃)": "25度说的是白天，不是夜温(℃)"}


def test_a_search_reads_a_night_value_said_roughly_in_numerals(dist):
    ev = top_evaluation(dist, "晚上零下三度左右，夜间要覆盖保温被吗", "frost.md")
    assert (ev["status"], ev["outputs"]) == ("match", [{"措施": "覆盖保温被"}]), ev
    assert ev["approximate"] == {"夜温(℃)": "零下三度"}


@pytest.mark.parametrize("question", ["humidity 25 degrees", "humidity 25°", "湿度25度"])
def test_a_value_in_degrees_named_for_a_percent_column_is_refused_saying_so(question):
    """``humidity 25 degrees`` left the input missing with no word (湿度25度 was refused,
    naming the unit), and the table took ``25 degrees`` in a % column as 25 %."""
    given, ev = evaluated(question, SHARE)
    assert ev.status == "no_match" and ev.outputs == {}, ev
    assert "the column in '%'; give the value in %" in ev.message


def test_a_table_refuses_bare_degrees_in_a_percent_column_and_reads_them_in_a_temperature_one():
    assert evaluate_inputs("d.md", 1, SHARE, {"相对湿度(%)": "25 degrees"}).status == "no_match"
    assert evaluate_inputs("d.md", 1, TEMP, {"温度(℃)": "30 degrees"}).outputs == {"措施": "降温"}


@pytest.mark.parametrize(("question", "said"), [
    ("温度是二十五度", "(read: 温度(℃) 二十五 as 25)"),
    ("温度零下三度", "(read: 温度(℃) 零下三 as -3)"), ("溫度負三度", "(read: 温度(℃) 負三 as -3)"),
    ("温度二十五点五度", "(read: 温度(℃) 二十五点五 as 25.5)"),
])
def test_a_value_in_chinese_numerals_is_said_as_read(question, said):
    """温度是二十五度 was read as 25 with no word of it: a value not as typed is said so."""
    _, ev = evaluated(question, TEMP)
    assert ev.status == "match" and said in ev.message, ev


@pytest.mark.parametrize("question", ["赤霉病风险 晚上气温10度", "小麦赤霉病风险晚上气温10度",
                                      "赤霉病风险 早上气温10度"])
def test_a_time_word_after_the_tables_subject_qualifies_no_thing(question):
    """赤霉病风险 晚上气温10度 said the 10度 was of 上气温 (晚 read as the time, 上 as a thing)."""
    # (the example knowledge's synonyms file: 温度 = 气温 = temperature)
    group = ("温度", "气温", "temperature", "air temperature")
    synonyms = {column_key(t): tuple(o for o in group if o != t) for t in group}
    given = read_inputs(question, scab_table(("小麦赤霉病",)), synonyms,
                        vocabulary={"日均温", "气温", "温度", "相对湿度"})
    assert given.values == {"温度(℃)": "10"} and not given.others, given


BOTH = build_table(["温度(℃)", "相对湿度(%)", "措施"],
                   [["<=25", "<80", "观察"], ["<=25", ">=80", "通风"], [">25", "any", "降温"]],
                   decision="inputs=温度(℃),相对湿度(%); outputs=措施")


@pytest.mark.parametrize(("question", "table", "value", "typed"), [
    ("湿度八十五", SHARE, "85", "八十五"), ("濕度八十五", SHARE, "85", "八十五"),
    ("湿度八十五怎么办", SHARE, "85", "八十五"), ("湿度是八十五了吗", SHARE, "85", "八十五"),
    ("温度二十五", TEMP, "25", "二十五"), ("溫度二十五，要不要降溫", TEMP, "25", "二十五"),
    ("温度零下三", TEMP, "-3", "零下三"), ("连续降雨五", RAIN, "5", "五"),
])
def test_a_whole_numeral_with_no_unit_after_the_name_is_read_and_said(question, table, value,
                                                                     typed):
    """湿度八十五 (what dictation on a tablet writes) gave the table nothing while 湿度85 was
    read: a whole Chinese numeral no unit followed was no number."""
    given, ev = evaluated(question, table)
    column = table.header[0]
    assert given.values == {column: value}, given
    assert given.readings[column][0] == typed
    assert f"(read: {column} {typed} as " in ev.message


@pytest.mark.parametrize("question", ["温度二十五 湿度八十五", "温度二十五，湿度八十五",
                                      "湿度八十五 温度二十五", "溫度二十五濕度八十五"])
def test_two_numerals_dictated_with_no_units_are_each_inputs_value(question):
    given, ev = evaluated(question, BOTH)
    assert given.values == {"温度(℃)": "25", "相对湿度(%)": "85"}, given
    assert ev.status == "match" and "row 2 matches" in ev.message, ev


@pytest.mark.parametrize(("question", "table"), [
    ("湿度八十多", SHARE), ("湿度八十几", SHARE), ("温度二十来度", TEMP), ("温度一", TEMP),
])
def test_a_rough_numeral_is_no_bare_value(question, table):
    assert read_inputs(question, table).values == {}
