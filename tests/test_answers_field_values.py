"""Decision inputs as field users type them, Chinese and English (session 30):

- another table's name for the same quantity measured the same way (日均温 on a table of 温度,
  气温 and 日平均气温 on a table of 日均温: the daily mean air temperature each means) is no
  other thing's; a name of another thing (油温, 地温) still is;
- rain or snow before a name (今天下雨 温度22度, 下雨温度22度) says what the weather is when it
  is measured, as a time does, not whose temperature it is (雨水温度 still is the rainwater's);
- a number right after another's unit (24度85%, 24℃85%) is a value of its own, not the
  tenths of a spoken decimal (26度5 still is one);
- two values each said of its place (``30 C outside and 24 C inside``) are no span 30–24;
- English number words followed by a unit are numbers (``four days of rain``, ``two thousand
  one hundred hours``, ``eighty percent``), as Chinese numerals are; alone they name none.
"""

from __future__ import annotations

import pytest
from hostile import make_repo
from hypothesis import given, settings
from hypothesis import strategies as st
from kbfixtures import (
    SCAB_DOC,
    VENT_PAGE,
    assert_asks_naming,
    bare_table,
    corn_table,
    scab_table,
    titled_page,
    top_evaluation,
)

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.decision import build_table
from kbtools.decision.numerals import english_number
from kbtools.query.compacted import compact
from kbtools.query.inputs import read_inputs
from kbtools.query.quantities import input_names
from kbtools.query.values import numbers

SCAB = scab_table(("小麦赤霉病", "3. 发生条件与风险判定"))
CORN = corn_table(("玉米南方锈病", "3. 发生条件与风险判定"))
VENT = build_table(["Temperature (°C)", "Humidity (%)", "Rain days", "Action"],
                   [["<20", "*", "*", "close"], [">=20", ">=85", "*", "open"],
                    [">=20", "<85", "<=3", "keep"], [">=20", "<85", ">3", "open"]],
                   decision="inputs=Temperature (°C),Humidity (%),Rain days; outputs=Action",
                   heading_path=("Greenhouse ventilation",))
HOURS = build_table(["运行小时", "保养项目"], [["<2000", "继续使用"], ["≥2000", "更换液压油"]],
                    decision="inputs=运行小时; outputs=保养项目",
                    heading_path=("6.2 液压油更换判定",))
EN_HOURS = build_table(["Running hours", "Action"], [["<2000", "keep"], [">=2000", "change"]],
                       decision="inputs=Running hours; outputs=Action")
# the knowledge's input names, as `kb query` reads them: both crop tables and an oil one,
# with the synonym group 温度 = 气温 the example knowledge has
SYNONYMS = {"温度": ["气温"], "气温": ["温度"]}
VOCABULARY = input_names(["温度(℃)", "相对湿度(%)", "连续降雨天数", "日均温(℃)", "运行小时",
                          "油温(℃)", "地温(℃)"], SYNONYMS)


def _read(question, table):
    assert table is not None
    return read_inputs(question, table, SYNONYMS, VOCABULARY)


# 1. another table's name for the same quantity

@pytest.mark.parametrize("name", ["日均温", "日均温度", "日平均气温", "日平均温度", "平均温度",
                                  "平均气温", "日均气温", "气温", "温度", "白天平均气温"])
@pytest.mark.parametrize(("table", "column"), [(SCAB, "温度(℃)"), (CORN, "日均温(℃)")])
def test_a_name_of_the_daily_mean_temperature_fills_either_crop_table(name, table, column):
    got = _read(f"{name}22度，湿度90%", table)
    assert (got.values.get(column), got.others) == ("22", {}), got


@pytest.mark.parametrize(("name", "other"), [("油温", "油温"), ("地温", "地温"),
                                             ("日均油温", "油温"), ("水温", "水温")])
@pytest.mark.parametrize(("table", "column"), [(SCAB, "温度(℃)"), (CORN, "日均温(℃)")])
def test_a_name_of_another_things_temperature_still_fills_neither(name, other, table, column):
    got = _read(f"{name}22度，湿度90%", table)
    assert column not in got.values and got.others[column] == ("22度", other), got


# 2. the weather qualifies no temperature

@pytest.mark.parametrize("question", [
    "今天下雨 温度22度", "下雨 温度22度", "昨天下了雨 温度22度", "一直在下雨 温度 22 度",
    "下雨，温度22度", "今天下雨温度22度", "下雪 气温22度", "阴雨 温度22度", "小雨 温度22度",
    "下雨天温度22度", "雨后温度22度", "今天下大雨 22度", "下着小雨温度22度", "天晴温度22度",
    "多云 温度22度", "刮风温度22度", "下过雨 气温22度",
])
def test_rain_before_a_separate_temperature_leaves_it_the_airs(question):
    got = _read(question, SCAB)
    assert (got.values.get("温度(℃)"), got.others) == ("22", {}), got


@pytest.mark.parametrize(("question", "other"), [
    ("下雨 油温22度", "油温"), ("今天下雨 水的温度22度", "水的温度"), ("雨水温度22度", "雨水温度"),
    ("下雨了 水温22度", "水温"), ("雪地温度22度", "雪地温度"), ("热风温度22度", "热风温度"),
    ("进风温度22度", "进风温度"), ("喷雾温度22度", "喷雾温度")])
def test_a_thing_after_the_weather_still_qualifies_its_name(question, other):
    got = read_inputs(question, bare_table("温度(℃)"))
    assert got.values == {} and other in got.others["温度(℃)"][1], got


@pytest.mark.parametrize(("question", "header"), [("下雨湿度90%", "相对湿度(%)"),
                                                  ("下雨天 湿度90%", "相对湿度(%)"),
                                                  ("下雨压力1MPa", "压力(MPa)")])
def test_the_weather_before_any_name_qualifies_none(question, header):
    assert header in read_inputs(question, bare_table(header)).values


# 3. a number right after another's unit

@pytest.mark.parametrize("question", [
    "24度85%", "24度 85%", "24℃85%", "24°C85%", "温度24湿度85", "温度24度湿度85%", "24℃ 85%",
    "24摄氏度85%", "赤霉病 24度85% 下雨4天", "湿度85%24度", "85%24℃", "24°85%", "24°",
    "24度85%下了四天雨", "24度/85%",
])
def test_a_temperature_then_a_humidity_unseparated_are_two_values(question):
    got = _read(question, SCAB)
    assert (got.values.get("温度(℃)"), got.values.get("相对湿度(%)", "85")) == ("24", "85"), got
    if "%" in question or "湿度" in question:
        assert got.values["相对湿度(%)"] == "85", got


@pytest.mark.parametrize(("question", "days"), [("85%下了四天雨", "4"), ("85%下了4天雨", "4"),
                                                ("85%连续下了三天雨", "3")])
def test_a_fraction_before_an_amount_in_numerals_is_said_of_no_noun(question, days):
    """85%下了四天雨: the clause after 85% counts days of rain; it is no noun 85% is a share
    of, as it is not when the days are written in digits."""
    assert _read(question, SCAB).values == {"相对湿度(%)": "85", "连续降雨天数": days}


@pytest.mark.parametrize("question", ["温度26度5，湿度90%", "温度二十六度五，湿度90%", "温度26度5"])
def test_a_single_digit_after_degrees_is_still_a_spoken_decimal(question):
    assert "温度(℃)" not in _read(question, SCAB).values


def test_a_value_after_degrees_is_its_own_number():
    found = numbers("24度85%")
    assert [(x.value, x.written, x.exact) for x in found] == \
        [("24", "24度", True), ("85", "85%", True)]


# 4. each value belongs to its place

@pytest.mark.parametrize("question", [
    "it is 30 C outside and 24 C inside", "30C outside, 24C inside", "30 C outside and 24 C in",
    "outside 30 C and inside 24 C", "it's 30 C outdoors and 24 C inside the greenhouse",
    "24 C inside and 30 C outside", "30 degrees outside and 24 degrees inside",
    "inside 24 C, outside it is 30 C",
])
def test_values_each_said_of_its_place_are_no_span(question):
    got = _read(question, VENT)
    assert got.values == {"Temperature (°C)": "24"}, got


@pytest.mark.parametrize("question", ["室外30度，室内24度", "外面30度 棚内24度", "室外30度和棚内24度",
                                      "棚外30度棚内24度", "棚外30度 棚内24度"])
def test_chinese_values_each_said_of_its_place(question):
    got = _read(question, bare_table("温度(℃)", "大棚通风"))
    assert got.values == {"温度(℃)": "24"}, got


@pytest.mark.parametrize("question", ["棚外30度棚内24度", "棚外30度 棚内24度"])
def test_a_place_after_another_value_is_named_without_its_unit(question):
    """On a table of no 棚, 棚内 is another thing's inside; the note names 棚内, not 度棚内 (the
    度 of the 30 before it)."""
    got = _read(question, bare_table("温度(℃)"))
    assert (got.values, got.others) == ({}, {"温度(℃)": ("24度", "棚内")}), got


@pytest.mark.parametrize(("question", "values"), [
    ("between 20 and 24 C", {"Temperature (°C)": "between 20 and 24 C"}),
    ("20 C to 24 C", {"Temperature (°C)": "20 C to 24 C"}),
    ("from 20 to 24 C", {"Temperature (°C)": "20 to 24 C"}),  # the words read the same
    ("20 C and 24 C", {}),  # two values, no span the table reads
])
def test_a_span_is_no_one_value_but_the_span(question, values):
    """Neither end is the value: the span is, as written (`test_answers_ranges`)."""
    assert read_inputs(question, bare_table("Temperature (°C)")).values == values


# 5. English number words

@pytest.mark.parametrize(("question", "values"), [
    ("four days of rain, 24 C, 90% humidity",
     {"Rain days": "4", "Temperature (°C)": "24", "Humidity (%)": "90"}),
    ("it rained for four days, 24 C", {"Rain days": "4", "Temperature (°C)": "24"}),
    ("five rainy days", {"Rain days": "5"}),
    ("eighty percent humidity and 24 C", {"Humidity (%)": "80", "Temperature (°C)": "24"}),
    ("humidity eighty-five percent", {"Humidity (%)": "85"}),
    ("temperature twenty-four degrees", {"Temperature (°C)": "24"}),
    ("twenty four degrees and ninety percent humidity",
     {"Temperature (°C)": "24", "Humidity (%)": "90"}),
    ("Twenty-Two C inside", {"Temperature (°C)": "22"}),
])
def test_english_number_words_with_a_unit_are_values(question, values):
    assert _read(question, VENT).values == values


@pytest.mark.parametrize(("question", "value"), [
    ("two thousand one hundred hours", "2100"), ("ran for two thousand hours", "2000"),
    ("running hours two thousand one hundred and fifty", None),  # no unit: not read
    ("a hundred hours", "100"), ("one hundred and twenty hours", "120"),
    ("twenty five hundred hours", "2500"), ("running hours: twelve hundred hours", "1200"),
])
def test_english_number_words_count_hours(question, value):
    assert EN_HOURS is not None
    assert read_inputs(question, EN_HOURS).values.get("Running hours") == value


@pytest.mark.parametrize(("question", "value"), [
    ("液压油 two thousand one hundred hours", "2100"), ("液压油two thousand hours", "2000"),
    ("液压油用了 twelve hundred hours", "1200"), ("液压油 two one hundred hours", None)])
def test_english_number_words_after_chinese(question, value):
    """A Chinese word glued to the words (compacted, 液压油two …) leaves them a number; the
    rest of words that are no number (two one hundred) is none (not one hundred)."""
    assert HOURS is not None
    assert read_inputs(question, HOURS).values.get("运行小时") == value


@pytest.mark.parametrize("question", [
    "four or five days of rain", "about four or more days of rain", "no rain for four days"])
def test_english_number_words_that_are_no_exact_value_stay_missing(question):
    assert "Rain days" not in _read(question, VENT).values


def test_english_number_words_in_a_bound_give_the_bound():
    assert _read("more than four days of rain", VENT).values == {"Rain days": "more than 4 days"}


@pytest.mark.parametrize(("question", "values"), [
    ("it is 24 C, one vent is open", {"Temperature (°C)": "24"}),
    ("it is 24 C and twenty of the plants wilted", {"Temperature (°C)": "24"}),
    ("temperature twenty, humidity 90%", {"Humidity (%)": "90"}),  # named, not read: asked
    ("humidity ninety", {}), ("one a day, 24 C", {"Temperature (°C)": "24"})])
def test_number_words_without_a_unit_are_no_values(question, values):
    assert _read(question, VENT).values == values


# end to end: `kb query` on pages as the example knowledge writes them

CORN_PAGE = titled_page("玉米南方锈病", """以近 7 天的日均温和平均相对湿度查表。

<!-- decision: inputs=日均温(℃),相对湿度(%); outputs=风险等级 -->
| 日均温(℃) | 相对湿度(%) | 风险等级 |
|---|---|---|
| <20 | * | 低 |
| 20~32 | <80 | 中 |
| 20~32 | ≥80 | 高 |
| >32 | * | 中 |
""")
OIL_PAGE = titled_page("液压油温度报警", """按油温判定。

<!-- decision: inputs=油温(℃); outputs=处理 -->
| 油温(℃) | 处理 |
|---|---|
| <60 | 正常 |
| >=60 | 停机检查 |
""")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/scab.md": SCAB_DOC, "knowledge/corn.md": CORN_PAGE,
        "knowledge/oil.md": OIL_PAGE, "knowledge/vent.md": VENT_PAGE})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


@pytest.mark.parametrize(("question", "doc", "inputs", "outputs"), [
    ("小麦赤霉病风险 日均温22度 湿度90%", "scab.md", {"温度(℃)": "22", "相对湿度(%)": "90"},
     {"风险": "高"}),
    ("玉米南方锈病 日平均气温22度 湿度85%", "corn.md", {"日均温(℃)": "22", "相对湿度(%)": "85"},
     {"风险等级": "高"}),
    ("小麦赤霉病风险 今天下雨 温度22度 湿度90%", "scab.md", {"温度(℃)": "22", "相对湿度(%)": "90"},
     {"风险": "高"}),
    ("小麦赤霉病风险 24度85%", "scab.md", {"温度(℃)": "24", "相对湿度(%)": "85"}, {"风险": "高"}),
    ("greenhouse ventilation: it is 30 C outside and 24 C inside, humidity 90%", "vent.md",
     {"Temperature (°C)": "24", "Humidity (%)": "90"}, {"Action": "open the vents"}),
    ("greenhouse ventilation: twenty-four degrees, eighty percent humidity", "vent.md",
     {"Temperature (°C)": "24", "Humidity (%)": "80"}, {"Action": "keep as is"}),
])
def test_field_forms_evaluate_the_table(dist, question, doc, inputs, outputs):
    ev = top_evaluation(dist, question, doc)
    assert (ev["status"], ev["inputs"], ev["outputs"], ev["said_of_other"]) == \
        ("match", inputs, [outputs], {}), ev


def test_another_things_temperature_still_asks(dist):
    assert_asks_naming(dist, "小麦赤霉病风险 油温22度 湿度90%", "scab.md", "温度(℃)",
                       {"相对湿度(%)": "90"}, "22度说的是油温，不是温度(℃)")


# beyond the cases reported: forms of the same classes a field user types

@pytest.mark.parametrize(("question", "values"), [
    ("30C outside 24C inside", {"Temperature (°C)": "24"}),  # each place after its value
    ("24 C inside 30 C outside", {"Temperature (°C)": "24"}),
    ("indoor 24 C outdoor 30 C", {"Temperature (°C)": "24"}),  # each before its value
    ("the temperature is 30 C outside and 24 C inside", {"Temperature (°C)": "24"}),
    ("80 percent humidity and 24 C", {"Humidity (%)": "80", "Temperature (°C)": "24"}),
    ("90% humidity with 24 C", {"Humidity (%)": "90", "Temperature (°C)": "24"}),
])
def test_each_value_goes_to_what_is_said_of_it(question, values):
    assert _read(question, VENT).values == values


def test_a_named_value_said_of_another_place_asks():
    got = _read("temperature 30 C outside", VENT)
    assert (got.values, got.others) == ({}, {"Temperature (°C)": ("30C", "outside")})


@pytest.mark.parametrize(("question", "values"), [
    ("2 days ago it was 24 C", {"Temperature (°C)": "24"}),
    ("two days ago it was 24 C, rained 3 days", {"Temperature (°C)": "24", "Rain days": "3"}),
    ("3 days later 24 C", {"Temperature (°C)": "24"}),
    ("3 days of rain and 80 percent humidity", {"Rain days": "3", "Humidity (%)": "80"}),
    ("4 days of rain or more", {}), ("4 days of heavy rain or more, 24 C", {"Temperature (°C)": "24"}),
    ("four days of rain at least", {}),
    ("4 days of rain at night, 24 C", {"Rain days": "4", "Temperature (°C)": "24"}),
])
def test_a_time_ago_counts_no_days_and_a_bound_after_the_rain_is_one(question, values):
    assert _read(question, VENT).values == values


@pytest.mark.parametrize(("question", "values"), [
    ("2天前温度24度", {"温度(℃)": "24"}), ("三天前 24度", {"温度(℃)": "24"}),
    ("下了4天雨，2天前温度24度", {"温度(℃)": "24", "连续降雨天数": "4"}),
    ("一周前 湿度90%", {"相对湿度(%)": "90"}), ("昨天之前温度22度", {"温度(℃)": "22"}),
    ("3天后 24度", {"温度(℃)": "24"}), ("晴了4天 温度22度", {"温度(℃)": "22"}),
])
def test_days_before_a_value_are_a_time_not_a_count(question, values):
    assert _read(question, SCAB).values == values


def test_a_place_word_before_another_thing_is_still_that_things():
    got = read_inputs("炉前温度22度", bare_table("温度(℃)"))
    assert (got.values, got.others) == ({}, {"温度(℃)": ("22度", "炉前温度")})


@pytest.mark.parametrize(("words", "value"), [
    ("four", "4"), ("twenty four", "24"), ("twenty-four", "24"), ("a hundred", "100"),
    ("one hundred and twenty", "120"), ("twenty five hundred", "2500"), ("zero", "0"),
    ("two thousand one hundred", "2100"), ("ten thousand", "10000"),
    ("two four", None), ("hundred", None), ("a", None), ("twenty ten", None),
    ("one hundred and", None), ("two thousand three thousand", None), ("and five", None),
])
def test_english_number_reads_only_a_number_said_so(words, value):
    assert english_number(words.replace("-", " ").split()) == value


_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _said(n: int, *, joined: bool) -> str:
    """`n` (0 ≤ n < 10⁶) in English words, with ``and`` after a hundred when `joined`."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + \
            ((" and " if joined else " ") + _said(rest, joined=joined) if rest else "")
    rest = n % 1000
    return _said(n // 1000, joined=joined) + " thousand" + \
        (" " + _said(rest, joined=joined) if rest else "")


@settings(max_examples=300, deadline=None)
@given(n=st.integers(min_value=0, max_value=999_999), joined=st.booleans())
def test_every_number_said_in_words_reads_back_before_a_unit(n, joined):
    said = _said(n, joined=joined)
    assert english_number(said.replace("-", " ").split()) == str(n)
    assert compact(f"{said} hours") == f"{n} hours"
    assert compact(f"{said} of the vents") == f"{said} of the vents"  # no unit: as written


@pytest.mark.parametrize("question", ["ninety-nine point five percent humidity",
                                      "humidity twenty point five percent"])
def test_a_decimal_said_in_words_is_no_value(question):
    assert "Humidity (%)" not in _read(question, VENT).values


DAILY = build_table(["Daily mean temperature (°C)", "Action"], [["<20", "a"], [">=20", "b"]],
                    decision="inputs=Daily mean temperature (°C); outputs=Action")
GENERIC = build_table(["Temperature (°C)", "Action"], [["<20", "a"], [">=20", "b"]],
                      decision="inputs=Temperature (°C); outputs=Action")
EN_VOCABULARY = input_names(["Temperature (°C)", "Daily mean temperature (°C)",
                             "Oil temperature (°C)", "Soil temperature (°C)"])


@pytest.mark.parametrize("name", ["daily mean temperature", "mean temperature", "temperature",
                                  "air temperature", "the air temperature is",
                                  "average daily temperature is", "ambient temperature"])
@pytest.mark.parametrize("table", [DAILY, GENERIC])
def test_an_english_name_of_the_same_quantity_fills_either_table(name, table):
    assert table is not None
    got = read_inputs(f"{name} 22 C", table, {}, EN_VOCABULARY)
    assert (got.values, got.others) == ({table.header[0]: "22"}, {}), got


@pytest.mark.parametrize("name", ["oil temperature", "soil temperature", "bearing temperature"])
@pytest.mark.parametrize("table", [DAILY, GENERIC])
def test_an_english_name_of_another_things_temperature_fills_neither(name, table):
    assert table is not None
    got = read_inputs(f"{name} 22 C", table, {}, EN_VOCABULARY)
    assert (got.values, got.others) == ({}, {table.header[0]: ("22C", name)}), got
