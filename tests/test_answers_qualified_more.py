"""Further forms of a value said of another thing than a table's generic input, and of forms
that only look so (`kbtools.query.qualified.Qualified`), English and Chinese alike:

- 、 and ; (；) between a name and its value part them as a comma does (油温、80度);
- a full-width comma after a number is no decimal or thousands comma (湿度84.9，26℃);
- a trailing part of a name right after a number's unit names its input (温度26度湿度84.9);
- a place word after a thing (锅炉内压力) leaves the thing qualifying the quantity, as
  ``pressure in the boiler`` does: the boiler's, unless the table is about a boiler;
- the note names the whole phrase the author wrote (室外温度, not 外温度);
- the value before a possessive phrase (``80 C the oil's temperature``) and an adverb of
  another place after the name (``the temperature outdoors``);
- an English verb of change before a value (``heated to 80 C``) names no thing, as 升温到
  does; a thing before it (``oil heated to 80 C``) still is one.
"""

from __future__ import annotations

import pytest
from hostile import make_repo
from hypothesis import given, settings
from hypothesis import strategies as st
from kbfixtures import (
    GREENHOUSE_PAGE,
    SCAB_DOC,
    VENT_PAGE,
    assert_asks_naming,
    bare_table,
    titled_page,
    top_evaluation,
)
from test_answers_qualified import names_no_thing

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.decision import build_table
from kbtools.decision.weekdays import days_said
from kbtools.query.changes import EN_CHANGES
from kbtools.query.fillers import EN_NUMERALS, FILLERS
from kbtools.query.inputs import read_inputs
from kbtools.query.quantities import AMBIENT, EN_PLAIN, ROOMS
from kbtools.query.wording import ABBREVIATIONS

BARE = build_table(["温度(℃)", "湿度(%)", "措施"],
                   [["<20", "*", "保温"], [">=20", ">=85", "通风"], [">=20", "<85", "保持"]],
                   decision="inputs=温度(℃),湿度(%); outputs=措施")
VENT = build_table(["Temperature (°C)", "Humidity (%)", "Action"],
                   [["<20", "<85", "close"], [">=20", ">=85", "open"], [">=20", "<85", "keep"]],
                   decision="inputs=Temperature (°C),Humidity (%); outputs=Action",
                   heading_path=("Greenhouse ventilation",))
SCAB = build_table(["温度(℃)", "相对湿度(%)", "风险"],
                   [["<15", "*", "低"], ["≥15", "≥85", "高"], ["≥15", "<85", "中"]],
                   decision="inputs=温度(℃),相对湿度(%); outputs=风险")
SCAB_HEADED = build_table(["温度(℃)", "相对湿度(%)", "风险"],
                          [["<15", "*", "低"], ["≥15", "≥85", "高"], ["≥15", "<85", "中"]],
                          decision="inputs=温度(℃),相对湿度(%); outputs=风险",
                          heading_path=("小麦赤霉病风险",))  # its own subject: 赤霉病


# 1. 、 and ; part a name from its value as a comma does

@pytest.mark.parametrize("mark", ["、", "；", ";", "，"])
def test_a_chinese_name_any_pause_parts_from_its_value_keeps_it(mark):
    assert BARE is not None
    got = read_inputs(f"油温{mark}80度，湿度90%", BARE)
    assert (got.values, got.others) == ({"湿度(%)": "90"}, {"温度(℃)": ("80度", "油温")})
    got = read_inputs(f"温度{mark}22度，湿度90%", BARE)
    assert (got.values, got.others) == ({"温度(℃)": "22", "湿度(%)": "90"}, {})


@pytest.mark.parametrize("mark", [";", "；"])
def test_an_english_name_a_semicolon_parts_from_its_value_keeps_it(mark):
    assert VENT is not None
    got = read_inputs(f"oil temperature{mark} 80 C, humidity 90%", VENT)
    assert (got.values, got.others) == \
        ({"Humidity (%)": "90"}, {"Temperature (°C)": ("80C", "oil temperature")})
    got = read_inputs(f"temperature{mark} 22 C{mark} humidity 90%", VENT)
    assert got.values == {"Temperature (°C)": "22", "Humidity (%)": "90"}


# 2. 湿度84.9 (no %) is the 相对湿度 in every place of a question

@pytest.mark.parametrize("question", [
    "湿度84.9", "温度26度湿度84.9", "湿度84.9，温度26度", "湿度84.9，26℃", "26℃，湿度84.9",
    "温度26度，湿度84.9", "温度26℃湿度84.9", "温度二十六度湿度84.9",
])
def test_a_trailing_name_without_its_unit_fills_its_input(question):
    assert SCAB is not None
    got = read_inputs(question, SCAB)
    assert got.values.get("相对湿度(%)") == "84.9", got
    assert got.values.get("温度(℃)", "26") == "26", got


@pytest.mark.parametrize("question", [
    "temperature 26 C humidity 84.9", "26 C humidity 84.9", "temperature 26 C relative humidity 84.9",
])
def test_an_english_trailing_name_right_after_a_unit_fills_its_input(question):
    table = build_table(["Temperature (°C)", "Relative humidity (%)", "Risk"],
                        [["<15", "*", "low"], [">=15", ">=85", "high"], [">=15", "<85", "mid"]],
                        decision="inputs=Temperature (°C),Relative humidity (%); outputs=Risk")
    assert table is not None
    assert read_inputs(question, table).values == \
        {"Temperature (°C)": "26", "Relative humidity (%)": "84.9"}
    assert "Relative humidity (%)" not in read_inputs("26 C soil humidity 84.9", table).values


def test_a_full_width_comma_is_no_thousands_or_decimal_comma():
    """温度26，800小时: two values (the ，of a sentence), not 26800 nor an unread list."""
    table = build_table(["温度(℃)", "运行小时(h)", "措施"],
                        [["<30", "<1000", "a"], [">=30", "*", "b"], ["<30", ">=1000", "c"]],
                        decision="inputs=温度(℃),运行小时(h); outputs=措施")
    assert table is not None
    assert read_inputs("温度26，800小时", table).values == {"温度(℃)": "26", "运行小时(h)": "800"}
    assert read_inputs("温度26, 800小时", table).values == {"温度(℃)": "26", "运行小时(h)": "800"}


def test_a_trailing_name_after_another_thing_still_names_another():
    """绝对湿度, 土壤湿度: no 相对湿度, as before, after a number's unit or not."""
    assert SCAB is not None
    for question in ("土壤湿度84.9", "温度26度土壤湿度84.9", "绝对湿度84.9"):
        assert "相对湿度(%)" not in read_inputs(question, SCAB).values, question


# 3. 锅炉内压力 and ``pressure in the boiler`` agree: the boiler's, unless the table's

@pytest.mark.parametrize(("question", "header", "value", "other"), [
    ("锅炉内压力1.2MPa", "压力(MPa)", "1.2MPa", "锅炉内压力"),
    ("锅炉里的压力1.2MPa", "压力(MPa)", "1.2MPa", "锅炉里的压力"),
    ("锅炉内压力是1.2MPa", "压力(MPa)", "1.2MPa", "锅炉内压力"),
    ("1.2MPa的锅炉内压力", "压力(MPa)", "1.2MPa", "锅炉内压力"),
    ("1.2MPa的锅炉里的压力", "压力(MPa)", "1.2MPa", "锅炉里的压力"),
    ("水中温度25度", "温度(℃)", "25度", "水中温度"),
    ("箱内温度25度", "温度(℃)", "25度", "箱内温度"),
    ("pressure in the boiler 1.2 MPa", "Pressure (MPa)", "1.2MPa", "pressure in the boiler"),
])
def test_a_place_inside_another_thing_is_that_things(question, header, value, other):
    got = read_inputs(question, bare_table(header))
    assert (got.values, got.others) == ({}, {header: (value, other)})


@pytest.mark.parametrize(("question", "header", "heading", "value"), [
    ("锅炉内压力1.2MPa", "压力(MPa)", "锅炉巡检", "1.2"),
    ("pressure in the boiler 1.2 MPa", "Pressure (MPa)", "Boiler checks", "1.2"),
    ("棚内温度25度", "温度(℃)", "大棚通风", "25"), ("大棚里的温度25度", "温度(℃)", "大棚通风", "25"),
    ("屋里温度25度", "温度(℃)", "", "25"), ("房间里的温度25度", "温度(℃)", "", "25"),
    ("室内温度25度", "温度(℃)", "", "25"), ("空气中的温度25度", "温度(℃)", "", "25"),
    ("环境中温度25度", "温度(℃)", "", "25"), ("温室内温度25度", "温度(℃)", "", "25"),
    ("中温25度", "温度(℃)", "", "25"),
])
def test_a_place_inside_the_tables_own_thing_or_the_surroundings_fills(question, header,
                                                                     heading, value):
    got = read_inputs(question, bare_table(header, heading))
    assert (got.values, got.others) == ({header: value}, {}), got


@pytest.mark.parametrize("question", [
    "夜间温度25度", "晚间温度25度", "夜里温度25度", "冬天里的温度25度", "一天中温度25度", "白天温度25度",
    "晚上温度25度", "中午温度25度", "夏季温度25度", "花期温度25度", "实时温度25度",
])
def test_a_time_before_a_name_qualifies_nothing(question):
    """夜间温度 is the night-time temperature, as ``night temperature`` is: the input's (the
    time before 间, 里, 中 is no thing in which it is measured)."""
    got = read_inputs(question, bare_table("温度(℃)"))
    assert (got.values, got.others) == ({"温度(℃)": "25"}, {})


@settings(max_examples=200, deadline=None)
@given(thing=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5)
       .filter(lambda ch: not names_no_thing(ch) and ch not in "压力"),
       place=st.sampled_from(["内", "里", "中", "里的", "内的"]),
       value=st.integers(min_value=1, max_value=99))
def test_any_thing_before_a_place_word_keeps_its_value(thing, place, value):
    """X内压力N MPa: whatever thing X is, N is the pressure in it, not the table's 压力, as
    ``pressure in the X`` is; the note names the phrase as written."""
    table = bare_table("压力(MPa)")
    got = read_inputs(f"{thing}{place}压力{value}MPa", table)
    assert (got.values, got.others) == \
        ({}, {"压力(MPa)": (f"{value}MPa", f"{thing}{place}压力")})


# 4. the note names the whole phrase the author wrote

@pytest.mark.parametrize(("question", "other"), [
    ("室外温度22度", "室外温度"), ("室外的温度22度", "室外的温度"), ("22度的室外温度", "室外温度"),
    ("气缸温度22度", "气缸温度"), ("气缸内温度22度", "气缸内温度"), ("中缸温度22度", "中缸温度"),
])
def test_the_note_names_the_whole_phrase_the_author_wrote(question, other):
    got = read_inputs(question, bare_table("温度(℃)", "室内环境调控"))
    assert (got.values, got.others) == ({}, {"温度(℃)": ("22度", other)})


# 5. a value before a possessive phrase, an adverb of another place after the name

@pytest.mark.parametrize(("question", "other"), [
    ("80 C the oil's temperature, humidity 90%", "oil's temperature"),
    ("humidity 90%, 80 C the oil's temperature", "oil's temperature"),
    ("humidity 90%, 80 C for the oil's temperature", "oil's temperature"),
    ("80 C: the tyres' temperature, humidity 90%", "tyres' temperature"),
])
def test_a_value_before_a_possessive_phrase_is_that_things(question, other):
    assert VENT is not None
    got = read_inputs(question, VENT)
    assert (got.values, got.others) == \
        ({"Humidity (%)": "90"}, {"Temperature (°C)": ("80C", other)})


@pytest.mark.parametrize("heading", ["", "Greenhouse ventilation"])
@pytest.mark.parametrize(("question", "other"), [
    ("the temperature outdoors is 22 C", "temperature outdoors"),
    ("temperature outdoors 22 C", "temperature outdoors"),
    ("the temperature outside is 22 C", "temperature outside"),
    ("the temperature outside the tank is 22 C", "temperature outside the tank"),
    ("22 C temperature outdoors", "temperature outdoors"),
])
def test_an_adverb_of_another_place_after_the_name_is_another_places(heading, question, other):
    got = read_inputs(question, bare_table("Temperature (°C)", heading))
    assert (got.values, got.others) == ({}, {"Temperature (°C)": ("22C", other)})


# 6. English verbs of change

@pytest.mark.parametrize(("question", "header", "value"), [
    ("heated to 80 C", "Temperature (°C)", "80"), ("cooled to 5 C", "Temperature (°C)", "5"),
    ("raised to 30 psi", "Pressure (psi)", "30"), ("it was heated to 80 C", "Temperature (°C)",
                                                  "80"),
    ("the temperature rose to 80 C", "Temperature (°C)", "80"),
    ("temperature was lowered to 5 C", "Temperature (°C)", "5"),
    ("we cooled the room down to 5 C", "Temperature (°C)", "5"),
    ("the pressure has been raised to 30 psi", "Pressure (psi)", "30"),
    ("pressurized to 30 psi", "Pressure (psi)", "30"),
    ("after it dropped to about 5 C", "Temperature (°C)", "5"),
])
def test_an_english_verb_of_change_is_no_thing(question, header, value):
    got = read_inputs(question, bare_table(header))
    assert (got.values, got.others) == ({header: value}, {}), got


@pytest.mark.parametrize(("question", "header", "value", "other"), [
    ("oil heated to 80 C", "Temperature (°C)", "80C", "oil"),
    ("the oil was heated to 80 C", "Temperature (°C)", "80C", "oil"),
    ("the hydraulic oil has been cooled to 5 C", "Temperature (°C)", "5C", "hydraulic oil"),
    ("we heated the oil to 80 C", "Temperature (°C)", "80C", "oil"),
    ("tyre raised to 30 psi", "Pressure (psi)", "30psi", "tyre"),
    ("the oil temperature rose to 80 C", "Temperature (°C)", "80C", "oil temperature"),
])
def test_a_thing_before_an_english_verb_of_change_still_qualifies(question, header, value,
                                                                 other):
    got = read_inputs(question, bare_table(header))
    assert (got.values, got.others) == ({}, {header: (value, other)})


def test_a_change_by_an_amount_or_up_to_a_bound_is_no_value():
    """``rose by 5 C`` is a change: the input stays missing. ``heated up to 80 C`` is a bound
    (at most 80 ℃, which the table reads as it reads ``up to 80 C``), never the value 80 nor a
    value said of a thing named ``up``."""
    table = bare_table("Temperature (°C)")
    assert read_inputs("the temperature rose by 5 C", table).values == {}
    got = read_inputs("heated up to 80 C", table)
    assert got.values == {"Temperature (°C)": "up to 80 C"} and got.others == {}


# a thing: no word of a closed class, filler, verb of change, numeral or name of the input
_THINGS = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9).filter(
    lambda w: w not in EN_PLAIN | EN_CHANGES | set(FILLERS) | set(AMBIENT) | set(ROOMS) |
    {t for group in ABBREVIATIONS for t in group} |  # soc names a quantity, not a thing
    {"pressure", "temperature", "temp", "action", "down", "back", "outdoors", "outside",
     "outdoor"} and not EN_NUMERALS.match(w)
    and not days_said(w, w))  # a day is when, not a thing: ``the weekend adjust to 1 psi``


@pytest.mark.parametrize("question", [
    "the weekend adjust to 30 psi", "the monday raise to 30 psi", "the Wed set to 30 psi",
])
def test_a_day_before_a_verb_of_change_is_when_the_value_is_the_tables(question):
    """A day before a verb of change says when, not which thing: the value is the table's."""
    got = read_inputs(question, bare_table("Pressure (psi)"))
    assert (got.values, got.others) == ({"Pressure (psi)": "30"}, {})


@settings(max_examples=200, deadline=None)
@given(verb=st.sampled_from(sorted(EN_CHANGES)), value=st.integers(min_value=1, max_value=99),
       thing=_THINGS, header=st.sampled_from([("Pressure (psi)", "psi"),
                                              ("Temperature (°F)", "F")]))
def test_any_english_verb_of_change_fills_and_a_thing_before_it_keeps_its_value(
        verb, value, thing, header):
    column, unit = header
    table = bare_table(column)
    got = read_inputs(f"{verb} to {value} {unit}", table)
    assert (got.values, got.others) == ({column: str(value)}, {}), verb
    got = read_inputs(f"the {thing} {verb} to {value} {unit}", table)
    assert (got.values, got.others) == ({}, {column: (f"{value}{unit}", thing)}), verb


# end to end: `kb query` evaluates the table, or asks for the input naming the phrase

ROOM = titled_page("室内环境调控", """按室内温度和湿度开空调。

<!-- decision: inputs=温度(℃),湿度(%); outputs=空调 -->
| 温度(℃) | 湿度(%) | 空调 |
|---|---|---|
| <26 | * | 关闭 |
| >=26 | >=70 | 除湿 |
| >=26 | <70 | 制冷 |
""")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/greenhouse.md": GREENHOUSE_PAGE, "knowledge/vent.md": VENT_PAGE,
        "knowledge/room.md": ROOM, "knowledge/scab.md": SCAB_DOC})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


@pytest.mark.parametrize(("question", "doc", "column", "inputs", "note"), [
    ("室内环境调控：室外温度30度，湿度60%", "room.md", "温度(℃)", {"湿度(%)": "60"},
     "30度说的是室外温度，不是温度(℃)"),
    ("大棚通风怎么办：油温、80度，湿度90%", "greenhouse.md", "温度(℃)", {"湿度(%)": "90"},
     "80度说的是油温，不是温度(℃)"),
    ("greenhouse ventilation: the oil was heated to 80 C, humidity 90%", "vent.md",
     "Temperature (°C)", {"Humidity (%)": "90"}, "80 C is said of oil, not of Temperature (°C)"),
    ("greenhouse ventilation: humidity 90%, 80 C the oil's temperature", "vent.md",
     "Temperature (°C)", {"Humidity (%)": "90"},
     "80 C is said of oil's temperature, not of Temperature (°C)"),
])
def test_the_answer_asks_for_the_input_naming_the_phrase(dist, question, doc, column, inputs,
                                                         note):
    assert_asks_naming(dist, question, doc, column, inputs, note)


@pytest.mark.parametrize(("question", "doc", "inputs", "outputs"), [
    ("小麦赤霉病风险：温度26度湿度84.9", "scab.md", {"温度(℃)": "26", "相对湿度(%)": "84.9"},
     {"风险": "中"}),
    ("小麦赤霉病风险：湿度84.9，温度26℃", "scab.md", {"温度(℃)": "26", "相对湿度(%)": "84.9"},
     {"风险": "中"}),
    # as typed in the field: the search cleans the question (NFKC made ， a "," that joined
    # 84.9 and 26 into one number), and a space before a part of a name is no qualifier
    ("小麦赤霉病风险：湿度84.9，26℃", "scab.md", {"温度(℃)": "26", "相对湿度(%)": "84.9"},
     {"风险": "中"}),
    ("赤霉病 湿度90% 温度26度", "scab.md", {"温度(℃)": "26", "相对湿度(%)": "90"},
     {"风险": "高"}),
    ("赤霉病 22度 90%", "scab.md", {"温度(℃)": "22", "相对湿度(%)": "90"}, {"风险": "高"}),
    ("室内环境调控：室内温度28度，湿度60%", "room.md", {"温度(℃)": "28", "湿度(%)": "60"},
     {"空调": "制冷"}),
    ("greenhouse ventilation: heated to 25 C, humidity 90%", "vent.md",
     {"Temperature (°C)": "25", "Humidity (%)": "90"}, {"Action": "open the vents"}),
    ("大棚通风怎么办：棚内温度25度，湿度90%", "greenhouse.md", {"温度(℃)": "25", "湿度(%)": "90"},
     {"措施": "打开风口通风排湿"}),
])
def test_the_forms_that_name_the_input_evaluate_the_table(dist, question, doc, inputs, outputs):
    ev = top_evaluation(dist, question, doc)
    assert (ev["status"], ev["inputs"], ev["outputs"], ev["said_of_other"]) == \
        ("match", inputs, [outputs], {}), ev


@pytest.mark.parametrize(("question", "value"), [
    ("赤霉病湿度85%", "85"), ("小麦赤霉病湿度85%", "85"), ("今天湿度85%", "85"),
    ("赤霉病 湿度 88%", "88"), ("赤霉病湿度是90%", "90")])
def test_a_part_of_a_name_after_the_tables_own_thing_or_a_time_fills(question, value):
    """湿度 (a part of 相对湿度) after a word that qualifies nothing (the table's own subject,
    a time) names the input, as 温度 there does."""
    given = read_inputs(question, SCAB_HEADED)
    assert (given.values, given.others) == ({"相对湿度(%)": value}, {})


@pytest.mark.parametrize(("question", "other"), [
    ("土壤湿度30%", "土壤湿度"), ("叶面湿度90%", "叶面湿度"), ("籽粒湿度20%", "籽粒湿度")])
def test_a_part_of_a_name_after_another_thing_is_that_things(question, other):
    given = read_inputs(question, SCAB)
    assert given.values == {} and given.others["相对湿度(%)"][1] == other


@pytest.mark.parametrize(("question", "values"), [
    ("22度 90%", {"温度(℃)": "22", "相对湿度(%)": "90"}),  # no 22.90 said the spoken way
    ("湿度 90% 温度 22 度", {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("小麦赤霉病风险 22度", {"温度(℃)": "22"}),  # the table's own subject names no quantity
    ("赤霉病22度，湿度86%", {"温度(℃)": "22", "相对湿度(%)": "86"}),
    ("病叶率 3%", {}), ("病叶率3%", {}), ("土壤湿度 30%", {})])  # other quantities still
def test_values_typed_apart_by_spaces_are_read_apart(question, values):
    assert read_inputs(question, SCAB_HEADED).values == values


@pytest.mark.parametrize(("question", "value"), [
    ("液压油多久换 已经用了2100小时", "2100"), ("液压油用了2100小时", "2100"),
    ("已经跑了300小时", "300"), ("液压油运转了2100小时", "2100")])
def test_a_verb_of_use_names_the_time_a_column_of_running_counts(question, value):
    """用了, 跑了, 运转了 before an amount of time name 运行小时, as 运行了 does."""
    table = build_table(["运行小时", "保养项目"], [["<2000", "继续使用"], ["≥2000", "更换液压油"]],
                        decision="inputs=运行小时; outputs=保养项目",
                        heading_path=("6.2 液压油更换判定",))
    assert table is not None
    assert read_inputs(question, table).values == {"运行小时": value}
    assert read_inputs("停机了30小时", table).values == {}  # no verb of use: not its time


@pytest.mark.parametrize(("question", "values"), [
    ("南方锈病 这几天平均气温28度左右 湿度85", {"温度(℃)": "28", "相对湿度(%)": "85"}),
    ("28度左右湿度85%", {"温度(℃)": "28", "相对湿度(%)": "85"}),  # a name after 左右 is its own
    ("扬花期 温度22℃ RH 90%", {"温度(℃)": "22", "相对湿度(%)": "90"}),  # no "c rh" of 22°c
    ("22°C RH 90%", {"温度(℃)": "22", "相对湿度(%)": "90"})])
def test_a_name_after_a_values_unit_and_its_approximation_is_its_own(question, values):
    assert read_inputs(question, SCAB_HEADED).values == values


@pytest.mark.parametrize(("question", "values"), [
    ("greenhouse is at 24C and 88% humidity", {"Temperature (°C)": "24", "Humidity (%)": "88"}),
    ("the greenhouse is 24 C, humidity 88%", {"Temperature (°C)": "24", "Humidity (%)": "88"}),
    ("soil is at 24C and 88% humidity", {"Humidity (%)": "88"})])  # another thing's 24C
def test_the_tables_own_subject_before_a_value_names_no_quantity(question, values):
    assert VENT is not None
    assert read_inputs(question, VENT).values == values
