"""Decision inputs as field users type them, Chinese and English (session 29):

- a place and no quantity's name (``inside 24 C, outside 30 C``, 棚内24度，棚外30度): inside
  or the table's own place is the input's value, outside another place's, named in the
  answer (`kbtools.query.places`);
- a running time said with a verb of having (``the pump has 2100 hours on it``) and a
  count of rain days said the Chinese way, the thing counted after the duration (下了4天雨);
- 空气湿度 (no 相对湿度 without a synonym) read alike whether a comma, a space or nothing
  stands before its value, or it stands after the value;
- a Chinese clause typed apart from the name after it (下了4天雨 温度22度) qualifies no name;
- a percentage in Chinese numerals respelled for the search without a unit after it.
"""

from __future__ import annotations

import pytest
from hostile import make_repo
from kbfixtures import (
    GREENHOUSE_PAGE,
    RAIN_TABLE,
    SCAB_DOC,
    VENT_PAGE,
    titled_page,
    top_evaluation,
)

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.decision import build_table
from kbtools.query.digits import numeral_spellings
from kbtools.query.inputs import read_inputs

VENT = build_table(["Temperature (°C)", "Humidity (%)", "Action"],
                   [["<20", "<85", "close"], [">=20", ">=85", "open"], [">=20", "<85", "keep"]],
                   decision="inputs=Temperature (°C),Humidity (%); outputs=Action",
                   heading_path=("Greenhouse ventilation",))
SHED = build_table(["温度(℃)", "湿度(%)", "措施"],
                   [["<20", "*", "保温"], [">=20", ">=85", "通风"], [">=20", "<85", "保持"]],
                   decision="inputs=温度(℃),湿度(%); outputs=措施", heading_path=("大棚通风管理",))
RAIN = build_table(["温度(℃)", "相对湿度(%)", "连续降雨天数", "风险等级"],
                   [["<15", "*", "*", "低"], ["15-20", "<85", "*", "低"],
                    ["15-20", "≥85", "≤3", "中"], ["15-20", "≥85", ">3", "高"],
                    [">20", "<85", "*", "中"], [">20", "≥85", "≤3", "高"],
                    [">20", "≥85", ">3", "极高"]],
                   decision="inputs=温度(℃),相对湿度(%),连续降雨天数; outputs=风险等级")
RAIN_EN = build_table(["Temperature (°C)", "Rain days", "Risk"],
                      [["<15", "*", "low"], [">=15", "<=3", "mid"], [">=15", ">3", "high"]],
                      decision="inputs=Temperature (°C),Rain days; outputs=Risk")
HOURS_EN = build_table(["Running hours", "Action"],
                       [["<2000", "keep the oil"], [">=2000", "change the hydraulic oil"]],
                       decision="inputs=Running hours; outputs=Action",
                       heading_path=("Hydraulic oil change",))
HOURS = build_table(["运行小时", "保养项目"], [["<2000", "继续使用"], ["≥2000", "更换液压油"]],
                    decision="inputs=运行小时; outputs=保养项目", heading_path=("6.2 液压油更换判定",))
SCAB = build_table(["温度(℃)", "相对湿度(%)", "风险"],
                   [["<15", "*", "低"], ["≥15", "≥85", "高"], ["≥15", "<85", "中"]],
                   decision="inputs=温度(℃),相对湿度(%); outputs=风险")
T, H = "Temperature (°C)", "Humidity (%)"


# 1. a place and no quantity's name

@pytest.mark.parametrize(("question", "values", "others"), [
    ("inside 24C, outside 30C", {T: "24"}, {}),
    ("outside 30C, inside 24C", {T: "24"}, {}),
    ("inside 24C", {T: "24"}, {}),
    ("outside 30C", {}, {T: ("30C", "outside")}),
    ("it's 24C inside, 30C outside", {T: "24"}, {}),
    ("24 C inside and 30 C outside", {T: "24"}, {}),
    ("indoors 24C, outdoors 30C", {T: "24"}, {}),
    ("inside it's 24C and outside it's 30C", {T: "24"}, {}),
    ("30C outside", {}, {T: ("30C", "outside")}),
    ("outside it is 30C", {}, {T: ("30C", "outside")}),
    ("humidity 90%, outside 30C", {H: "90"}, {T: ("30C", "outside")}),
    ("30 C outside the greenhouse, humidity 90%", {H: "90"},
     {T: ("30C", "outside the greenhouse")}),
    ("inside 24C, outside 30C, humidity 90%", {T: "24", H: "90"}, {}),
    ("temperature inside 24C, outside 30C", {T: "24"}, {}),
    ("indoor 24C outdoor 30C humidity 88%", {T: "24", H: "88"}, {}),  # labels, no commas
    ("outside temp is 30C and inside is 24C", {T: "24"}, {}),
    ("in the greenhouse it is 24 C", {T: "24"}, {}),  # the table's own place
    ("in march 24C", {}, {}),  # a time: as before, neither filled nor another place
    # a value right after another's unit is said of the same place
    ("inside 24C 85%, outside 30C 60%", {T: "24", H: "85"}, {}),
    ("outside 30 C 60%", {}, {T: ("30C", "outside"), H: ("60%", "outside")}),
])
def test_an_english_place_before_or_after_a_value_says_whose_it_is(question, values, others):
    assert VENT is not None
    got = read_inputs(question, VENT)
    assert (got.values, got.others, got.conflicts) == (values, others, {}), got


@pytest.mark.parametrize(("question", "values", "others"), [
    ("棚内24度，棚外30度", {"温度(℃)": "24"}, {}),
    ("室内24度，室外30度", {"温度(℃)": "24"}, {}),
    ("里面24度，外面30度", {"温度(℃)": "24"}, {}),
    ("外面30度，里面24度", {"温度(℃)": "24"}, {}),
    ("棚里24度", {"温度(℃)": "24"}, {}),
    ("室外30度", {}, {"温度(℃)": ("30度", "室外")}),
    ("外面30度", {}, {"温度(℃)": ("30度", "外面")}),
    ("户外30度，湿度90%", {"湿度(%)": "90"}, {"温度(℃)": ("30度", "户外")}),
    ("棚外30度，湿度90%", {"湿度(%)": "90"}, {"温度(℃)": ("30度", "棚外")}),
    ("另外24度，湿度90%", {"温度(℃)": "24", "湿度(%)": "90"}, {}),  # 另外: besides, no place
    ("这里30度", {"温度(℃)": "30"}, {}),  # here: where the user stands
    ("大棚外面30度", {}, {"温度(℃)": ("30度", "棚外面")}),
    ("南方锈病 外面32度", {}, {"温度(℃)": ("32度", "外面")}),  # 病 is no thing 外面 is of
    ("锅炉里30度，湿度90%", {"湿度(%)": "90"}, {"温度(℃)": ("30度", "锅炉里")}),
    ("箱内30度", {}, {"温度(℃)": ("30度", "箱内")}),
    ("棚外30度 60%，棚内24度 85%", {"温度(℃)": "24", "湿度(%)": "85"}, {}),
])
def test_a_chinese_place_before_a_value_says_whose_it_is(question, values, others):
    assert SHED is not None
    got = read_inputs(question, SHED)
    assert (got.values, got.others, got.conflicts) == (values, others, {}), got


def test_words_that_only_look_like_places_are_none():
    """``in service`` is no place; 其中 (among them) no inside."""
    assert SHED is not None
    assert read_inputs("其中30度", SHED).others == {}
    assert read_inputs("6 years in service", build_table(
        ["Hose age (years)", "Action"], [["<5", "keep"], [">=5", "replace"]],
        decision="inputs=Hose age (years); outputs=Action")).values == \
        {"Hose age (years)": "6"}  # ``in service``: no place


# 2. running hours and rain days as typed

@pytest.mark.parametrize("question", [
    "the pump has 2100 hours on it", "it has 2100 hours on it", "the engine has 2100 hours",
    "it ran 2100 hours", "the machine has had 2100 hours"])
def test_a_verb_of_having_before_a_duration_names_running_hours(question):
    assert HOURS_EN is not None and HOURS is not None
    assert read_inputs(question, HOURS_EN).values == {"Running hours": "2100"}
    assert read_inputs(question, HOURS).values == {"运行小时": "2100"}


def test_having_leaves_other_quantities_and_durations_alone():
    """``has`` before a pressure or a temperature stays a filler word: the tyre's 30 psi is
    no value of a generic Pressure, as ``tyre 30 psi`` is none."""
    table = build_table(["Pressure (psi)", "Action"], [["<30", "inflate"], [">=30", "ok"]],
                        decision="inputs=Pressure (psi); outputs=Action")
    assert table is not None and HOURS_EN is not None
    assert read_inputs("the tyre has 30 psi", table).values == {}
    assert read_inputs("the pressure has reached 30 psi", table).values == \
        {"Pressure (psi)": "30"}
    assert read_inputs("the pump has 30 hours of downtime", HOURS_EN).values == {}


def test_the_engines_hours_are_the_machines_running_hours():
    """Item 4 of the session: 发动机用了2100小时 fills 运行小时 (the machine's running hours,
    read on its panel: `knowledge/equipment/hx260-ch06-maintenance.md`), as 液压油用了 and
    ``the pump ran`` do; a value of no verb of use (停机了) does not."""
    assert HOURS is not None
    assert read_inputs("发动机用了2100小时", HOURS).values == {"运行小时": "2100"}
    assert read_inputs("停机了30小时", HOURS).values == {}


@pytest.mark.parametrize(("question", "days"), [
    ("下了4天雨", "4"), ("下了四天雨", "4"), ("连续下雨4天", "4"), ("连续4天降雨", "4"),
    ("雨下了四天", "4"), ("连续下了四天的雨", "4"), ("下了4天雨了", "4"), ("下了两天雨", "2"),
    ("连着下了3天雨", "3"), ("雨一直下了四天", "4"), ("一直下了4天雨", "4")])
def test_rain_days_said_the_chinese_way_fill_the_count(question, days):
    assert RAIN is not None
    assert read_inputs(question, RAIN).values == {"连续降雨天数": days}
    got = read_inputs(f"温度22度，{question}，湿度90%", RAIN)
    assert got.values == {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": days}


@pytest.mark.parametrize("question", ["刮了4天风", "晴了4天", "下了4天多雨"])
def test_other_days_or_a_bound_fill_no_rain_days(question):
    assert RAIN is not None
    assert "连续降雨天数" not in read_inputs(question, RAIN).values


def test_a_bound_the_table_reads_is_given_as_written():
    assert RAIN is not None  # (not the 雨 the days are of)
    assert read_inputs("下了不到4天雨", RAIN).values == {"连续降雨天数": "不到4天"}


@pytest.mark.parametrize(("question", "values"), [
    ("it rained 4 days", {"Rain days": "4"}), ("it has rained for 4 days", {"Rain days": "4"}),
    ("it's been raining for 4 days", {"Rain days": "4"}), ("4 days of rain", {"Rain days": "4"}),
    ("rained 4 days, 22 C", {"Rain days": "4", T: "22"}),
    ("4 days of wind, 22 C", {T: "22"}), ("4 days of heavy rain", {"Rain days": "4"}),
    ("we had 4 days of rain", {"Rain days": "4"})])
def test_rain_days_said_the_english_way(question, values):
    assert RAIN_EN is not None
    assert read_inputs(question, RAIN_EN).values == values


# 3. 空气湿度 and a space typed between Chinese words

@pytest.mark.parametrize("question", [
    "空气湿度，90%", "空气湿度 90%", "空气湿度90%", "空气湿度、90%", "空气湿度是90%", "90%的空气湿度"])
def test_air_humidity_reads_alike_in_every_form(question):
    """Without a synonym 空气湿度 is no 相对湿度 (test_answers.test_synonyms_name_inputs),
    whatever stands between it and its value; the answer says why. With one, it is."""
    assert SCAB is not None
    got = read_inputs(f"温度22度，{question}", SCAB)
    assert (got.values, got.others) == \
        ({"温度(℃)": "22"}, {"相对湿度(%)": ("90%", "空气湿度")})
    assert read_inputs(question, SCAB, {"相对湿度": ["空气湿度"]}).values == \
        {"相对湿度(%)": "90"}


@pytest.mark.parametrize(("question", "values"), [
    ("下了4天雨 温度22度 湿度90%", {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}),
    ("温度22度 下了3天雨 湿度90%", {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "3"}),
    ("刚下过雨 温度22度", {"温度(℃)": "22"})])
def test_a_clause_typed_apart_qualifies_no_name_after_it(question, values):
    assert RAIN is not None
    got = read_inputs(question, RAIN)
    assert (got.values, got.others) == (values, {})


@pytest.mark.parametrize(("question", "other"), [
    ("土壤 湿度30%", "土壤湿度"), ("下了4天雨 土壤 湿度30%", "土壤湿度"), ("油 温度80度", "油温度")])
def test_a_word_typed_apart_before_a_name_still_qualifies_it(question, other):
    assert RAIN is not None
    got = read_inputs(question, RAIN)
    assert "温度(℃)" not in got.values and "相对湿度(%)" not in got.values
    assert any(other in v[1] for v in got.others.values()), got


# 4. a percentage respelled for the search

@pytest.mark.parametrize(("text", "spelled"), [
    ("百分之一百分之", [("百分之一百", "100%")]),
    ("病穗率百分之五十分别是多少", [("百分之五十", "50%")]),
    ("湿度百分之九十度", [("百分之九十", "90%")]),
    ("温度三十度湿度百分之九十", [("三十度", "30度"), ("百分之九十", "90%")])])
def test_a_percentage_is_respelled_without_a_unit_after_it(text, spelled):
    assert numeral_spellings(text) == spelled


# end to end: `kb query` evaluates the table, or names the input and why

RAIN_PAGE = titled_page("小麦赤霉病风险判定",
                      "按温度、相对湿度和连续降雨天数判定赤霉病风险。\n\n" + RAIN_TABLE)
OIL_PAGE = titled_page("Hydraulic oil change", """Change the hydraulic oil by the running hours
since the last change.

<!-- decision: inputs=Running hours; outputs=Action -->
| Running hours | Action |
|---|---|
| <2000 | keep the oil |
| >=2000 | change the hydraulic oil |
""")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/greenhouse.md": GREENHOUSE_PAGE, "knowledge/vent.md": VENT_PAGE,
        "knowledge/scab.md": SCAB_DOC})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


@pytest.fixture(scope="module")
def counts_dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/rain.md": RAIN_PAGE, "knowledge/oil.md": OIL_PAGE})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


@pytest.mark.parametrize(("question", "doc", "status", "inputs", "said", "outputs"), [
    ("greenhouse ventilation: inside 24C, outside 30C", "vent.md", "missing_inputs",
     {T: "24"}, {}, {}),
    ("greenhouse ventilation: inside 24C, outside 30C, humidity 90%", "vent.md", "match",
     {T: "24", H: "90"}, {}, {"Action": "open the vents"}),
    ("greenhouse ventilation: outside 30C, humidity 90%", "vent.md", "missing_inputs",
     {H: "90"}, {T: "30C is said of outside, not of Temperature (°C)"}, {}),
    ("大棚通风：棚外30度，湿度90%", "greenhouse.md", "missing_inputs", {"湿度(%)": "90"},
     {"温度(℃)": "30度说的是棚外，不是温度(℃)"}, {}),
    ("大棚通风：棚内24度，棚外30度，湿度90%", "greenhouse.md", "match",
     {"温度(℃)": "24", "湿度(%)": "90"}, {}, {"措施": "打开风口通风排湿"}),
    ("小麦赤霉病风险：温度22度，空气湿度，90%", "scab.md", "missing_inputs", {"温度(℃)": "22"},
     {"相对湿度(%)": "90%说的是空气湿度，不是相对湿度(%)"}, {}),
])
def test_kb_query_answers_the_forms_field_users_type(dist, question, doc, status, inputs,
                                                     said, outputs):
    ev = top_evaluation(dist, question, doc)
    assert (ev["status"], ev["inputs"], ev["said_of_other"], ev["outputs"]) == \
        (status, inputs, said, [outputs] if outputs else []), ev
    assert all(note in ev["message"] for note in said.values())


@pytest.mark.parametrize(("question", "doc", "inputs", "outputs"), [
    ("赤霉病风险判定 下了4天雨 温度22度 湿度90%", "rain.md",
     {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}, {"风险等级": "极高"}),
    ("赤霉病风险判定：温度18度，湿度90%，雨下了两天", "rain.md",
     {"温度(℃)": "18", "相对湿度(%)": "90", "连续降雨天数": "2"}, {"风险等级": "中"}),
    ("hydraulic oil change: the pump has 2100 hours on it", "oil.md",
     {"Running hours": "2100"}, {"Action": "change the hydraulic oil"}),
])
def test_kb_query_evaluates_counts_said_as_typed(counts_dist, question, doc, inputs, outputs):
    ev = top_evaluation(counts_dist, question, doc)
    assert (ev["status"], ev["inputs"], ev["outputs"]) == ("match", inputs, [outputs]), ev


def test_a_thing_whose_name_starts_with_a_short_form_is_still_a_thing():
    """``temperature of the tempa``: the ``temp`` inside ``tempa`` is no mention of the
    input's name, so the phrase before the value is still read (hypothesis found it)."""
    table = build_table(["Temperature (°F)", "Action"], [["<40", "none"], [">=40", "vent"]],
                        decision="inputs=Temperature (°F); outputs=Action")
    assert table is not None
    got = read_inputs("temperature of the tempa is 1 F", table)
    assert (got.values, got.others) == \
        ({}, {"Temperature (°F)": ("1F", "temperature of the tempa")})
