"""English questions evaluating the example knowledge's Chinese decision tables (session 30),
read with the knowledge's own synonyms file (温度 = 气温 = temperature = air temperature …):

- an English name the synonyms make one of 温度/气温 (``temperature``, ``air temperature``,
  ``daily mean temperature``) fills 日均温(℃) as 气温 does in Chinese; a name qualifying it
  (``soil temperature``, ``oil temperature``) is still another thing's, and the answer says so;
- a Chinese place written after its value (30度棚外，24度棚内) is that value's, as one
  written before it is (棚外30度，棚内24度).
"""

from __future__ import annotations

import pytest
from kbfixtures import REPO, bare_table, copy_example, corn_table, scab_table

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.decision import build_table, column_key
from kbtools.index.reader import open_index
from kbtools.index.synonyms import parse
from kbtools.query.inputs import read_inputs
from kbtools.query.quantities import input_names
from kbtools.query.search import search
from kbtools.query.wording import names_subject

# the example knowledge's synonyms, keyed as `kb query` keys them (`answers.input_synonyms`)
SYNONYMS = {column_key(t): o for t, o in parse(
    (REPO / "knowledge" / "_synonyms.txt").read_text(encoding="utf-8"))[0].mapping().items()}
SCAB = scab_table(("小麦赤霉病监测与防控操作规程", "3.2 风险等级判定表"))
CORN = corn_table(("玉米南方锈病识别与防治", "3. 风险判定表"))
VOCABULARY = input_names(["温度(℃)", "相对湿度(%)", "连续降雨天数", "日均温(℃)", "运行小时"],
                         SYNONYMS)


def _read(question, table):
    assert table is not None
    return read_inputs(question, table, SYNONYMS, VOCABULARY)


# 1. an English name of 温度 fills 日均温

@pytest.mark.parametrize("name", [
    "temperature", "air temperature", "daily mean temperature", "average temperature",
    "mean temperature", "the temperature is", "temp", "average daily temperature",
    "daily average air temperature"])
@pytest.mark.parametrize(("table", "column"), [(CORN, "日均温(℃)"), (SCAB, "温度(℃)")])
def test_an_english_name_of_the_temperature_fills_either_crop_table(name, table, column):
    got = _read(f"{name} 28 C, humidity 85%", table)
    assert (got.values, got.others) == ({column: "28", "相对湿度(%)": "85"}, {}), got


@pytest.mark.parametrize("question", ["temperature 28, humidity 85", "temperature 28 degrees",
                                      "air temperature: 28 °C", "the temperature is 28C"])
def test_an_english_name_of_the_temperature_fills_the_daily_mean_without_its_unit_too(question):
    assert _read(question, CORN).values.get("日均温(℃)") == "28"


@pytest.mark.parametrize(("name", "other"), [
    ("soil temperature", "soil temperature"), ("oil temperature", "oil temperature"),
    ("water temperature", "water temperature"), ("soil temp", "soil temp"),
    ("leaf temperature", "leaf temperature"),
    ("the temperature of the soil is", "temperature of the soil")])
@pytest.mark.parametrize(("table", "column"), [(CORN, "日均温(℃)"), (SCAB, "温度(℃)")])
def test_another_things_temperature_in_english_fills_neither(name, other, table, column):
    got = _read(f"{name} 28 C, humidity 85%", table)
    assert column not in got.values and got.others[column] == ("28C", other), got


@pytest.mark.parametrize(("question", "other"), [("土壤温度28度", "土壤温度"), ("地温28度", "地温"),
                                                 ("油温28度", "油温")])
def test_chinese_names_of_another_thing_still_fill_no_daily_mean(question, other):
    got = _read(question, CORN)
    assert got.values == {} and got.others["日均温(℃)"] == ("28度", other), got


# 2. a Chinese place after its value

GREENHOUSE = bare_table("温度(℃)", "大棚通风")


@pytest.mark.parametrize("question", [
    "30度棚外 24度棚内", "30度棚外，24度棚内", "30度棚外24度棚内", "24度棚内 30度棚外",
    "30度室外 24度室内", "30度外面，24度里面", "30度在棚外，24度在棚内", "30℃棚外，24℃棚内",
    "棚外30度，24度棚内", "30度大棚外面，24度大棚里面", "24度室内，30度户外"])
def test_a_chinese_place_after_its_value_is_that_values(question):
    got = read_inputs(question, GREENHOUSE)
    assert got.values == {"温度(℃)": "24"}, got


@pytest.mark.parametrize(("question", "place"), [("30度棚外", "棚外"), ("30度室外", "室外"),
                                                 ("30度外面", "外面"), ("30度户外", "户外")])
def test_a_value_said_only_of_another_place_after_it_asks(question, place):
    got = read_inputs(question, GREENHOUSE)
    assert (got.values, got.others) == ({}, {"温度(℃)": ("30度", place)}), got


@pytest.mark.parametrize("question", ["棚外30度棚内24度", "室外30度室内24度", "外面30度里面24度"])
def test_a_place_before_the_next_value_is_still_the_next_values(question):
    assert read_inputs(question, GREENHOUSE).values == {"温度(℃)": "24"}


@pytest.mark.parametrize("question", ["30度以外", "30度外面很热", "24度棚内湿度85%"])
def test_words_after_a_value_that_are_no_place_of_it(question):
    """以外 (besides) is no place; a place that more words follow is no place said of the
    value (外面很热: a clause of its own; 棚内湿度: the place of the 湿度)."""
    got = read_inputs(question, GREENHOUSE)
    assert got.values.get("温度(℃)") in ("30", "24") and got.others == {}, got


def test_a_place_after_its_value_on_a_table_of_no_greenhouse_is_as_before_it():
    """On the wheat table (no 棚), neither temperature is the field's: the answer asks, as
    for 棚外30度，棚内24度."""
    for question in ("30度棚外 24度棚内", "棚外30度，棚内24度"):
        got = _read(question, SCAB)
        assert "温度(℃)" not in got.values and "温度(℃)" in got.others, (question, got)


# 3. more English questions a technician types against the three tables

HOURS = build_table(["运行小时", "保养项目"], [["<2000", "继续使用"], ["≥2000", "更换液压油"]],
                    decision="inputs=运行小时; outputs=保养项目",
                    heading_path=("第6章 定期保养", "6.2 液压油更换判定"))


@pytest.mark.parametrize(("question", "table", "values"), [
    ("corn southern rust temperature 28 C humidity 85%", CORN,
     {"日均温(℃)": "28", "相对湿度(%)": "85"}),
    ("southern rust risk temperature 28 humidity 85", CORN,
     {"日均温(℃)": "28", "相对湿度(%)": "85"}),
    ("wheat scab risk temperature 22 C humidity 90%", SCAB,
     {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("fusarium head blight temperature 22 C", SCAB, {"温度(℃)": "22"}),
    ("小麦赤霉病风险温度22度湿度90%", SCAB, {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("hydraulic oil 2100 hours", HOURS, {"运行小时": "2100"}),
    ("the hydraulic oil is at 2100 hours", HOURS, {"运行小时": "2100"}),
    ("液压油2100小时", HOURS, {"运行小时": "2100"}),
])
def test_the_tables_own_subject_in_english_qualifies_no_name(question, table, values):
    """Words of the table's subject (southern rust = 南方锈病, hydraulic oil = 液压油 by the
    synonyms) or of what is asked (risk) before a name or a value name no other thing, as
    小麦赤霉病风险温度 does in Chinese: typed without commas, they no longer leave it missing."""
    got = _read(question, table)
    assert (got.values, got.others) == (values, {}), got


@pytest.mark.parametrize(("question", "table", "column", "other"), [
    ("southern rust, soil temperature 28 C", CORN, "日均温(℃)", "soil temperature"),
    ("wheat scab bearing temperature 22 C", SCAB, "温度(℃)", "bearing temperature"),
])
def test_another_thing_after_the_subject_is_still_another(question, table, column, other):
    got = _read(question, table)
    assert column not in got.values and got.others[column][1] == other, got


@pytest.mark.parametrize("question", ["filter element 2100 hours", "滤芯2100小时"])
def test_another_things_hours_fill_no_running_hours(question):
    assert _read(question, HOURS).values == {}


@pytest.mark.parametrize("question", ["it's 28 C outside, humidity 85%",
                                      "28 C outside, RH 85%", "28 C outdoors,humidity 85%"])
def test_a_place_word_before_a_comma_is_the_values(question):
    """``outside,humidity`` (compacted): the place word before the comma is the 28's, as
    without the humidity after it."""
    got = _read(question, CORN)
    assert got.values == {"相对湿度(%)": "85"} and got.others["日均温(℃)"][0] == "28C", got


@pytest.mark.parametrize(("question", "days"), [
    ("22 C, 90%, rain for 5 consecutive days", "5"), ("22 C, 90%, 4 consecutive rainy days", "4"),
    ("22 C with 90% humidity and 4 straight days of rain", "4"),
    ("22 C, 90%, 4 consecutive days of rain", "4"), ("22 C, 90%, rained 4 successive days", "4"),
    ("22 C, 90%, four consecutive days of rain", "4"),
    ("22 C, 90% humidity, rain for the past 4 days", "4"),
    ("22 C, 90%, over the past 3 days it rained", "3"),
    ("22 C, 90%, 4 consecutive days without rain", None),
    ("22 C, 90%, 4 consecutive days of wind", None),
    ("22 C, 90%, it has rained 4 consecutive days or more", None),
    ("22 C, 90%, rain past 4 days", None),  # past: beyond, a bound
])
def test_days_of_rain_said_to_run_unbroken(question, days):
    """``consecutive``, ``straight`` between the number and ``days`` say the rain ran
    unbroken, as 连续 does (the column counts 连续降雨天数); ``the past 4 days`` is a time
    up to now, no bound. A negation, another object or a bound after them still leaves the
    days missing."""
    got = _read(question, SCAB)
    assert (got.values.get("温度(℃)"), got.values.get("连续降雨天数")) == ("22", days), got


@pytest.mark.parametrize(("question", "hours"), [
    ("2,100 hours of operation", "2100"), ("2100 operation hours", "2100"),
    ("1800 hours of operation since the oil change", "1800"),
    ("2100 hours of downtime", None), ("2100 hours of idling", None)])
def test_hours_of_operation_are_running_hours(question, hours):
    """``operation`` shares its stem with ``operating`` (operating hours = 运行小时)."""
    assert _read(question, HOURS).values.get("运行小时") == hours


@pytest.mark.parametrize(("question", "hours"), [
    ("hydraulic oil change HX-260 2100 running hours", "2100"), ("HX-260 2100小时", "2100"),
    ("HX-260 1 200 hours", None)])  # 1 200: 1200, or two numbers
def test_a_value_after_a_machine_code_is_no_group_of_digits(question, hours):
    """The 260 of HX-260 is the code's, no number whose digits the 2100 would continue
    (1 200 is no value: 1200, or two)."""
    assert _read(question, HOURS).values.get("运行小时") == hours


# end to end: `kb query` over the example knowledge's three Chinese tables

DOCS = ["knowledge/_synonyms.txt", "knowledge/crops/wheat-scab.md",
        "knowledge/crops/corn-southern-rust.md", "knowledge/equipment/hx260-ch06-maintenance.md"]


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    repo = copy_example(tmp_path_factory.mktemp("english") / "kb", DOCS)
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))
    return open_index(repo / "dist")


def _evaluation(index, question, doc):
    """The evaluation `kb query` shows on its top result, which must be knowledge/`doc`'s."""
    top = search(index, question, k=3).results[0]
    assert top.doc == f"knowledge/{doc}" and top.evaluation is not None, (question, top)
    return top.evaluation


@pytest.mark.parametrize(("question", "doc", "inputs", "outputs"), [
    ("corn southern rust risk, temperature 28 C, humidity 85%", "crops/corn-southern-rust.md",
     {"日均温(℃)": "28", "相对湿度(%)": "85"}, {"风险等级": "高"}),
    ("southern rust: air temperature 25 C, humidity 70%", "crops/corn-southern-rust.md",
     {"日均温(℃)": "25", "相对湿度(%)": "70"}, {"风险等级": "中"}),
    ("玉米南方锈病 气温28度 湿度85%", "crops/corn-southern-rust.md",
     {"日均温(℃)": "28", "相对湿度(%)": "85"}, {"风险等级": "高"}),
    ("wheat scab: temperature 22 C, RH 90%, it rained 4 days", "crops/wheat-scab.md",
     {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}, {"风险等级": "极高"}),
    # the corn table ranked first for the numbers both tables hold; the question names 赤霉病
    ("wheat scab risk at 22 C and 90% humidity with 4 days of rain", "crops/wheat-scab.md",
     {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}, {"风险等级": "极高"}),
    ("wheat scab: 25 degrees, 80 percent humidity, no rain", "crops/wheat-scab.md",
     {"温度(℃)": "25", "相对湿度(%)": "80"}, {"风险等级": "中"}),
    ("corn southern rust, daily mean temp 31 C, relative humidity 82%",
     "crops/corn-southern-rust.md", {"日均温(℃)": "31", "相对湿度(%)": "82"}, {"风险等级": "高"}),
])
def test_english_questions_evaluate_the_chinese_tables(example, question, doc, inputs, outputs):
    ev = _evaluation(example, question, doc)
    assert (ev["status"], ev["inputs"], ev["said_of_other"]) == ("match", inputs, {}), ev
    assert {k: ev["outputs"][0][k] for k in outputs} == outputs, ev


@pytest.mark.parametrize(("question", "table", "named"), [
    ("wheat scab risk at 22 C", SCAB, True), ("fusarium head blight 22 C", SCAB, True),
    ("小麦赤霉病 22度", SCAB, True), ("烂穗病 22度", SCAB, True), ("wheat scab risk", CORN, False),
    ("southern rust 28 C", CORN, True), ("rusty 28 C", CORN, False), ("temperature 22 C", SCAB, False)])
def test_a_question_names_a_tables_subject_by_the_synonyms(question, table, named):
    assert names_subject(question, table, SYNONYMS) is named


def test_soil_temperature_still_asks_for_the_daily_mean(example):
    ev = _evaluation(example, "corn southern rust, soil temperature 28 C, humidity 85%",
                     "crops/corn-southern-rust.md")
    assert (ev["status"], ev["missing"]) == ("missing_inputs", ["日均温(℃)"]), ev
    assert "soil temperature" in ev["said_of_other"]["日均温(℃)"], ev
