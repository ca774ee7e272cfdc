"""A value said of a more specific thing than a table's generic input is not that input's,
even when no table in the knowledge names the thing: 油温80度, 80度的油温, 水温, 地温, ``oil
temperature 80 C`` and ``bearing temp 80 C`` leave 温度 / Temperature missing
(`kbtools.query.qualified.Qualified`), and the answer says what the value was said of, in
the question's language. Forms that name the input itself (气温, 室内温度, 棚内温度 on a 大棚
table, 当前温度, ``the temperature is``, ``air temperature``) still bind."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hostile import make_repo
from hypothesis import given, settings
from hypothesis import strategies as st
from kbfixtures import GREENHOUSE_PAGE as GREENHOUSE
from kbfixtures import VENT_PAGE, bare_table, top_evaluation
from test_answers_approximate import surfaces

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.decision import build_table
from kbtools.decision.weekdays import days_said
from kbtools.index.tokenize import to_simplified
from kbtools.query.answers import missing_message, said_of_other_note
from kbtools.query.fillers import EN_NUMERALS
from kbtools.query.inputs import read_inputs
from kbtools.query.quantities import AMBIENT, CHANGES, EN_PLAIN, ROOMS, TIMES, WEATHER
from kbtools.query.wording import ABBREVIATIONS

BARE = build_table(["温度(℃)", "湿度(%)", "措施"],
                   [["<20", "*", "保温"], [">=20", ">=85", "通风"], [">=20", "<85", "保持"]],
                   decision="inputs=温度(℃),湿度(%); outputs=措施")
CROP = build_table(["作物", "温度(℃)", "措施"], [["小麦", ">=20", "喷药"], ["玉米", ">=20", "观察"]],
                   decision="inputs=作物,温度(℃); outputs=措施")
VENT = build_table(["Temperature (°C)", "Humidity (%)", "Action"],
                   [["<20", "<85", "close"], [">=20", ">=85", "open"], [">=20", "<85", "keep"]],
                   decision="inputs=Temperature (°C),Humidity (%); outputs=Action",
                   heading_path=("Greenhouse ventilation",))
PUMP = build_table(["Vibration (in/s)", "Action"], [["<0.3", "none"], [">=0.3", "balance"]],
                   decision="inputs=Vibration (in/s); outputs=Action",
                   heading_path=("Centrifugal pump checks",))


@pytest.mark.parametrize(("question", "value", "other"), [
    ("油温80度，湿度90%", "80度", "油温"),
    ("水温25度，湿度90%", "25度", "水温"),
    ("地温25度，湿度90%", "25度", "地温"),
    ("油温是80度，湿度90%", "80度", "油温"),
    ("油温度80度，湿度90%", "80度", "油温度"),
    ("土壤温度20度，湿度90%", "20度", "土壤温度"),
    ("棚里油温80度，湿度90%", "80度", "油温"),  # the place before the thing is no part of it
    ("水的温度25度，湿度90%", "25度", "水的温度"),
    ("油温已经升到80度，湿度90%", "80度", "油温"),  # a few words between
    ("水温升高到30度，湿度90%", "30度", "水温"),
    # a Chinese name after the number
    ("80度的油温，湿度90%", "80度", "油温"),
    ("湿度90%，水温25℃", "25°C", "水温"),
])
def test_a_value_of_a_qualified_name_fills_no_generic_input(question, value, other):
    assert BARE is not None
    got = read_inputs(question, BARE)
    assert got.values == {"湿度(%)": "90"}
    assert got.others == {"温度(℃)": (value, other)}


@pytest.mark.parametrize("question", [
    "温度25度，湿度90%", "温度是25度，湿度90%", "当前温度25度，湿度90%", "气温25度，湿度90%",
    "空气温度25度，湿度90%", "室内温度25度，湿度90%", "25度，湿度90%",
    "25度的温度，湿度为90%", "湿度为90%的空气，25度", "小麦赤霉病温度25度，湿度90%",
    "连续降雨3天温度25度湿度90%", "25℃，90%", "棚里油温正常气温25度，湿度90%",
    "高温25度，湿度90%", "湿度90%，25度的低温",
])
def test_names_of_the_input_itself_still_bind(question):
    assert BARE is not None
    got = read_inputs(question, BARE)
    assert got.values == {"温度(℃)": "25", "湿度(%)": "90"}, got
    assert got.others == {}


def test_a_table_of_a_qualified_quantity_takes_its_own_compounds():
    """日均温 is a 温度 of its own: 地温 is another one's, 日均温度 and 平均温度 its own."""
    table = build_table(["日均温(℃)", "措施"], [["<25", "观察"], [">=25", "喷药"]],
                        decision="inputs=日均温(℃); outputs=措施")
    assert table is not None
    assert read_inputs("地温26度", table).others == {"日均温(℃)": ("26度", "地温")}
    for question in ("日均温26度", "平均温度26度", "气温26度", "26度"):
        assert read_inputs(question, table).values == {"日均温(℃)": "26"}, question


def test_a_value_of_another_input_before_the_name_qualifies_nothing():
    """小麦温度: 小麦 is a value of the table's 作物, not a thing other than its 温度."""
    assert CROP is not None
    assert read_inputs("小麦温度25度", CROP).values == {"作物": "小麦", "温度(℃)": "25"}


@pytest.mark.parametrize(("question", "value", "other"), [
    ("oil temperature 80 C, humidity 90%", "80C", "oil temperature"),
    ("bearing temp 80 C, humidity 90%", "80C", "bearing temp"),
    ("bearing temp is 80 C, humidity 90%", "80C", "bearing temp"),
    ("humidity 90%, 80 C oil temperature", "80C", "oil temperature"),
    ("water temp reads 22 C, humidity 90%", "22C", "water temp"),
])
def test_an_english_qualified_name_fills_no_generic_input(question, value, other):
    assert VENT is not None
    got = read_inputs(question, VENT)
    assert got.values == {"Humidity (%)": "90"}
    assert got.others == {"Temperature (°C)": (value, other)}


@pytest.mark.parametrize("question", [
    "temperature 22 C, humidity 90%", "the temperature is 22 C, humidity 90%",
    "current temperature 22 C, humidity 90%", "air temperature 22 C, humidity 90%",
    "temp 22 C, humidity 90%", "greenhouse temperature 22 C, humidity 90%",
    "22 C and 90% relative humidity", "at 22 C, 90% humidity",
    "night temperature 22 C, humidity 90%", "the morning temperature is 22 C, humidity 90%",
])
def test_english_names_of_the_input_itself_still_bind(question):
    assert VENT is not None
    assert read_inputs(question, VENT).values == {"Temperature (°C)": "22", "Humidity (%)": "90"}


@pytest.mark.parametrize(("question", "value", "other"), [
    ("temperature of the oil is 80 C, humidity 90%", "80C", "temperature of the oil"),
    ("the temperature of oil is 80 C, humidity 90%", "80C", "temperature of oil"),
    ("the temperature of the hydraulic oil is 80 C, humidity 90%", "80C",
     "temperature of the hydraulic oil"),
    ("the temperature of the oil in the tank reads 80 C, humidity 90%", "80C",
     "temperature of the oil in the tank"),
    ("temperature of the oil 80 C and humidity 90%", "80C", "temperature of the oil"),
    ("the oil's temperature is 80 C, humidity 90%", "80C", "oil's temperature"),
    ("the oil\u2019s temperature is 80 C, humidity 90%", "80C", "oil\u2019s temperature"),
    ("humidity 90%, 80 C temperature of the oil", "80C", "temperature of the oil"),
    ("humidity 90%, the water's temp is 22 C", "22C", "water's temp"),
])
def test_an_english_possessive_name_fills_no_generic_input(question, value, other):
    """``temperature of the oil``, ``the oil's temperature``: the oil's, as ``oil
    temperature`` is (the value filled Temperature, or left it missing without saying why)."""
    assert VENT is not None
    got = read_inputs(question, VENT)
    assert (got.values, got.others) == \
        ({"Humidity (%)": "90"}, {"Temperature (°C)": (value, other)})


@pytest.mark.parametrize("question", [
    "the temperature of 22 C, humidity 90%", "a temperature of 22 C, humidity 90%",
    "temperature of the air is 22 C, humidity 90%", "the temperature of the air 22 C, 90% rh",
    "the temperature in the greenhouse is 22 C, humidity 90%",
    "the greenhouse's temperature is 22 C, humidity 90%",
    "the temperature in the morning is 22 C, humidity 90%",
    "humidity 90%, 22 C temperature of the air", "the temperature of about 22 C, humidity 90%",
    "the temperature in greenhouse 2 is 22 C, humidity 90%",
])
def test_english_phrases_naming_no_other_thing_still_fill(question):
    """No thing named (``a temperature of``), the surroundings (``of the air``), the table's
    own heading (``in the greenhouse``) or a time (``in the morning``): the input's value."""
    assert VENT is not None
    got = read_inputs(question, VENT)
    assert (got.values, got.others) == ({"Temperature (°C)": "22", "Humidity (%)": "90"}, {})


@pytest.mark.parametrize("heading", ["", "Boiler checks"])
@pytest.mark.parametrize(("question", "other"), [
    ("the pressure of the tyre is 30 psi", "pressure of the tyre"),
    ("the tyre's pressure is 30 psi", "tyre's pressure"),
    ("the tyres' pressure is 30 psi", "tyres' pressure"),
    ("pressure inside the tyre 30 psi", "pressure inside the tyre"),
    ("what to do if the pressure of the water is 30 psi", "pressure of the water"),
])
def test_an_english_possessive_pressure_is_judged_with_or_without_a_heading(
        heading, question, other):
    got = read_inputs(question, bare_table("Pressure (psi)", heading))
    assert (got.values, got.others) == ({}, {"Pressure (psi)": ("30psi", other)})


def test_a_phrase_naming_the_inputs_own_thing_names_the_input():
    """``the temperature of the seal is 140`` on a seal table's Temperature names it (a
    number without a unit, read only after its name), as ``seal temperature 140`` does;
    ``of the oil`` names another thing's, and ``in tank 2`` says which one, not its value."""
    seal = bare_table("Temperature (°F)", "Seal checks")
    assert read_inputs("the temperature of the seal is 140", seal).values == \
        {"Temperature (°F)": "140"}
    assert read_inputs("the temperature of the oil is 140", seal).values == {}
    assert read_inputs("the temperature in seal 2 is 140 F", seal).values == \
        {"Temperature (°F)": "140"}


def test_a_phrase_naming_the_thing_a_heading_names_qualifies_nothing_only_under_it():
    """``pressure in the boiler``, ``the boiler's pressure``: the boiler table's own
    pressure; on a table that says nothing of a boiler, another thing's."""
    for question, other in (("pressure in the boiler 30 psi", "pressure in the boiler"),
                            ("the boiler's pressure is 30 psi", "boiler's pressure")):
        assert read_inputs(question, bare_table("Pressure (psi)", "Boiler checks")).values == \
            {"Pressure (psi)": "30"}, question
        assert read_inputs(question, bare_table("Pressure (psi)")).others == \
            {"Pressure (psi)": ("30psi", other)}, question


def test_the_thing_a_table_is_about_qualifies_nothing():
    """``pump vibration`` on a pump table's Vibration: the heading names the pump."""
    assert PUMP is not None
    assert read_inputs("pump vibration is 0.5 in/s", PUMP).values == {"Vibration (in/s)": "0.5"}
    assert read_inputs("motor vibration is 0.5 in/s", PUMP).values == {}
    seal = build_table(["Seal temperature (°F)", "Action"], [["<160", "none"], [">=160", "stop"]],
                       decision="inputs=Seal temperature (°F); outputs=Action",
                       heading_path=("Mixer checks",))
    assert seal is not None  # a name of words says which thing it is: the pump's seal's
    assert read_inputs("pump seal temperature 170 F", seal).values == \
        {"Seal temperature (°F)": "170"}
    assert read_inputs("oil temperature 170 F", seal).values == {}


@pytest.mark.parametrize("heading", ["", "Boiler checks"])
@pytest.mark.parametrize(("question", "other"), [
    ("oil pressure 30 psi", "oil pressure"), ("oil pressure is 30 psi", "oil pressure"),
    ("oil pressure reads 30 psi", "oil pressure"), ("30 psi oil pressure", "oil pressure"),
    ("what to do if the water pressure is 30 psi", "water pressure"),
    ("Oil Pressure 30 psi", "oil pressure"),
])
def test_any_english_name_qualified_by_a_noun_is_judged_with_or_without_a_heading(
        heading, question, other):
    """``oil pressure`` on a table of Pressure: another thing's pressure, whether or not a
    heading names what the table is about (only temperature-like names were judged on a
    table without one: the value filled Pressure)."""
    got = read_inputs(question, bare_table("Pressure (psi)", heading))
    assert (got.values, got.others) == ({}, {"Pressure (psi)": ("30psi", other)})


@pytest.mark.parametrize("heading", ["", "Boiler checks"])
@pytest.mark.parametrize("question", [
    "pressure 30 psi", "the pressure is 30 psi", "Pressure 30 psi", "30 psi",
    "what if pressure is 30 psi", "at a pressure of 30 psi", "current pressure 30 psi",
    "air pressure 30 psi", "when pressure reads 30 psi", "pressure: 30 psi",
    # how high it is, or which of its values over time: still the table's quantity
    "max pressure 30 psi", "the average pressure is 30 psi", "peak pressure 30 psi",
    "daily minimum pressure 30 psi",
])
def test_a_question_saying_the_inputs_own_quantity_fills_it(heading, question):
    assert read_inputs(question, bare_table("Pressure (psi)", heading)).values == \
        {"Pressure (psi)": "30"}


@pytest.mark.parametrize(("header", "question", "value", "other"), [
    ("Vibration (in/s)", "motor vibration is 0.5 in/s", "0.5in/s", "motor vibration"),
    ("Flow (gpm)", "water flow 30 gpm", "30gpm", "water flow"),
    ("Level (%)", "oil level 30%", "30%", "oil level"),
    ("Voltage (V)", "battery voltage 48 V", "48V", "battery voltage"),
])
def test_other_english_quantities_on_a_bare_table_are_judged_alike(header, question, value,
                                                                   other):
    got = read_inputs(question, bare_table(header))
    assert (got.values, got.others) == ({}, {header: (value, other)})
    assert read_inputs(question.split(" ", 1)[1], bare_table(header)).values == \
        {header: value.rstrip("in/s%gpmV")}


def test_the_thing_a_heading_names_qualifies_nothing_only_under_it():
    """``boiler pressure``: the boiler table's own pressure; on a table that says nothing of
    a boiler, another thing's."""
    assert read_inputs("boiler pressure 30 psi", bare_table("Pressure (psi)", "Boiler checks")) \
        .values == {"Pressure (psi)": "30"}
    assert read_inputs("boiler pressure 30 psi", bare_table("Pressure (psi)")).others == \
        {"Pressure (psi)": ("30psi", "boiler pressure")}


@pytest.mark.parametrize(("header", "question", "value", "other"), [
    ("压力(MPa)", "油压1.2MPa", "1.2MPa", "油压"),
    ("压力(MPa)", "水压是1.2MPa", "1.2MPa", "水压"),
    ("压力(MPa)", "1.2MPa的油压", "1.2MPa", "油压"),
    ("压力(MPa)", "油压力1.2MPa", "1.2MPa", "油压力"),
    ("压力(MPa)", "湿度90%，胎压0.25MPa", "0.25MPa", "胎压"),
])
def test_a_chinese_name_cut_short_in_a_compound_is_another_things(header, question, value,
                                                                  other):
    """油压 is 油压力 as 油温 is 油温度: the oil's pressure, not the table's 压力."""
    got = read_inputs(question, bare_table(header))
    assert (got.values, got.others) == ({}, {header: (value, other)})


@pytest.mark.parametrize("question", ["压力1.2MPa", "压力是1.2MPa", "气压1.2MPa", "高压1.2MPa",
                                      "1.2MPa", "最大压力1.2MPa", "平均压力1.2MPa",
                                      "最小压力是1.2MPa"])
def test_chinese_names_of_the_pressure_itself_still_bind(question):
    assert read_inputs(question, bare_table("压力(MPa)")).values == {"压力(MPa)": "1.2"}


@pytest.mark.parametrize("question", ["电压380V", "变压器输出380V", "380V"])
def test_a_name_ending_in_a_cut_form_is_not_that_quantity(question):
    """电压 ends with the 压 of 油压 but is no 压力: the 压 of 变压器 qualifies nothing of it."""
    assert read_inputs(question, bare_table("电压(V)")).values == {"电压(V)": "380"}


def test_the_note_is_in_the_language_of_the_question():
    zh = said_of_other_note("温度(℃)", "80度", "油温", chinese=True)
    en = said_of_other_note("Temperature (°C)", "80C", "oil temperature", chinese=False)
    assert zh == "80度说的是油温，不是温度(℃)"
    assert en == "80C is said of oil temperature, not of Temperature (°C)"
    assert missing_message(["温度(℃)"], {}, {"温度(℃)": zh}) == \
        "missing input(s): 温度(℃) (80度说的是油温，不是温度(℃))"




@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """Knowledge in which no table names 油温, 水温 or ``oil temperature``."""
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/greenhouse.md": GREENHOUSE, "knowledge/vent.md": VENT_PAGE})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


@pytest.mark.parametrize(("question", "doc", "column", "inputs", "note"), [
    ("大棚通风怎么办：油温80度，湿度90%", "greenhouse.md", "温度(℃)", {"湿度(%)": "90"},
     "80度说的是油温，不是温度(℃)"),
    ("大棚通风怎么办：80度的油温，湿度90%", "greenhouse.md", "温度(℃)", {"湿度(%)": "90"},
     "80度说的是油温，不是温度(℃)"),
    ("greenhouse ventilation: oil temperature 80 C, humidity 90%", "vent.md",
     "Temperature (°C)", {"Humidity (%)": "90"},
     "80 C is said of oil temperature, not of Temperature (°C)"),
    ("greenhouse ventilation: the temperature of the oil is 80 C, humidity 90%", "vent.md",
     "Temperature (°C)", {"Humidity (%)": "90"},
     "80 C is said of temperature of the oil, not of Temperature (°C)"),
    ("greenhouse ventilation: the oil's temperature is 80 C, humidity 90%", "vent.md",
     "Temperature (°C)", {"Humidity (%)": "90"},
     "80 C is said of oil's temperature, not of Temperature (°C)"),
])
def test_the_answer_says_what_the_value_was_said_of(dist, question, doc, column, inputs, note):
    ev = top_evaluation(dist, question, doc)
    assert (ev["status"], ev["inputs"], ev["missing"]) == ("missing_inputs", inputs, [column])
    assert ev["said_of_other"] == {column: note}
    assert note in ev["message"]
    text = CliRunner().invoke(main, ["query", question, "--index", str(dist), "-k", "3",
                                     "--no-log"])
    asked = f"还需要 {column}（{note}） 才能得出结果" if not question.isascii() else \
        f"give {column} ({note}) to get the answer"  # (in the question's language)
    assert asked in text.output


@pytest.mark.parametrize("question", ["大棚通风：油温80度怎么办", "大棚 80度的油温 怎么办",
                                      "greenhouse ventilation: oil temperature 80 C"])
def test_a_question_giving_only_another_quantitys_value_evaluates_no_table(dist, question):
    """A value said only of another quantity is no value for the table: evaluating it
    anyway (every input missing) put the table first, as if the question were about it,
    over the passages about that quantity."""
    out = CliRunner().invoke(main, ["query", question, "--index", str(dist), "--json",
                                    "-k", "3", "--no-log"])
    assert out.exit_code == 0, out.output
    assert all(r.get("evaluation") is None for r in json.loads(out.output)["results"])


def test_a_named_value_still_answers(dist):
    ev = top_evaluation(dist, "大棚通风怎么办：气温25度，湿度90%", "greenhouse.md")
    assert (ev["status"], ev["outputs"], ev["said_of_other"]) == \
        ("match", [{"措施": "打开风口通风排湿"}], {})


# characters that are no modifier before 温: the input's own, a place, the surroundings, a
# joiner, clause lead or filler word, a numeral, a unit, a degree (高温), a room (室温:
# `ROOMS`), a verb of change (升温: `CHANGES`), a time (夜温: `TIMES`), and those of the
# built-in names (`ABBREVIATIONS`: 相对湿度), which count as the table's own (`Qualified.of`)
NOT_MODIFIERS = set("温度湿的内里中间气空环境和与及跟同并且又再而但是为约在达到了已有共都均近负"
                     "零一二三四五六七八九十百千万两几多余来摄氏华℃高低常恒大小均") | \
    {ch for w in (*ROOMS, *CHANGES, *TIMES, *WEATHER) for ch in w
     if "\u4e00" <= ch <= "\u9fff"} | \
    {ch for g in ABBREVIATIONS for t in g for ch in t if "\u4e00" <= ch <= "\u9fff"}


def names_no_thing(ch: str) -> bool:
    """Whether `ch` is one of `NOT_MODIFIERS`, in either script: a question is read in
    Simplified script, so 並 is 并 (and), 溫 is 温."""
    return ch in NOT_MODIFIERS or to_simplified(ch) in NOT_MODIFIERS


@settings(max_examples=200, deadline=None)
@given(modifier=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5)
       .filter(lambda ch: not names_no_thing(ch)),
       value=st.integers(min_value=0, max_value=120))
def test_any_thing_qualifying_the_short_form_keeps_its_value(modifier, value):
    """X温N度, N度的X温: whatever thing X is, N is its temperature, not the table's."""
    assert BARE is not None
    for question in (f"{modifier}温{value}度，湿度90%", f"{value}度的{modifier}温，湿度90%"):
        got = read_inputs(question, BARE)
        assert "温度(℃)" not in got.values, question
        assert got.others == {"温度(℃)": (f"{value}度", f"{modifier}温")}, question


@settings(max_examples=200, deadline=None)
@given(modifier=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5)
       .filter(lambda ch: not names_no_thing(ch) and ch not in "压力"),
       value=st.integers(min_value=1, max_value=99))
def test_any_thing_qualifying_a_cut_pressure_keeps_its_value(modifier, value):
    """X压N MPa, N MPa的X压: whatever thing X is, N is its pressure, not the table's 压力."""
    table = bare_table("压力(MPa)")
    for question in (f"{modifier}压{value}MPa", f"{value}MPa的{modifier}压"):
        got = read_inputs(question, table)
        assert (got.values, got.others) == \
            ({}, {"压力(MPa)": (f"{value}MPa", f"{modifier}压")}), question


# English words that name no thing before a quantity, or are the table's own: see
# `quantities.EN_PLAIN`, `AMBIENT`, the built-in names (`ABBREVIATIONS`), numerals
_PLAIN = EN_PLAIN | set(AMBIENT) | set(ROOMS) | {w for g in ABBREVIATIONS for t in g for w in t.split()}
_HEADERS = [("Pressure (psi)", "pressure", "psi"), ("Vibration (in/s)", "vibration", "in/s"),
            ("Flow (gpm)", "flow", "gpm"), ("Temperature (°F)", "temperature", "F")]


@settings(max_examples=200, deadline=None)
@given(header=st.sampled_from(_HEADERS), heading=st.sampled_from(["", "Plant checks"]),
       modifier=st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)
       .filter(lambda w: w not in _PLAIN and not EN_NUMERALS.match(w)
               and not days_said(w)  # a time, as ``night`` (``weekend pressure``: the table's)
               and w not in {"plant", "checks", "pressure", "vibration", "flow", "temperature",
                             "psi", "gpm", "ips", "action"}),
       value=st.integers(min_value=1, max_value=99))
def test_any_english_noun_qualifying_a_name_keeps_its_value(header, heading, modifier, value):
    """``X pressure N psi``, ``N psi X pressure``: whatever thing X is, with or without a
    heading, N is its pressure, not the table's; ``pressure N psi`` and ``the pressure is N
    psi`` fill the table's."""
    column, name, unit = header
    table = bare_table(column, heading)
    for question in (f"{modifier} {name} {value} {unit}", f"{value} {unit} {modifier} {name}"):
        got = read_inputs(question, table)
        assert got.values == {} and got.others[column][1] == f"{modifier} {name}", question
    for question in (f"{name} {value} {unit}", f"the {name} is {value} {unit}"):
        assert read_inputs(question, table).values == {column: str(value)}, question


_WORD = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9) \
    .filter(lambda w: w not in _PLAIN and not EN_NUMERALS.match(w)
            and w not in {"plant", "checks", "pressure", "vibration", "flow", "temperature",
                          "psi", "gpm", "ips", "action", "inside", "within"})


@settings(max_examples=200, deadline=None)
@given(header=st.sampled_from(_HEADERS), heading=st.sampled_from(["", "Plant checks"]),
       thing=_WORD, value=st.integers(min_value=1, max_value=99))
def test_any_english_noun_a_name_is_said_of_keeps_its_value(header, heading, thing, value):
    """``pressure of the X is N psi``, ``the X's pressure is N psi``, ``N psi pressure of the
    X``: whatever thing X is, N is its pressure, not the table's; ``a pressure of N psi`` and
    ``the pressure of the air is N psi`` fill the table's."""
    column, name, unit = header
    table = bare_table(column, heading)
    for question, other in ((f"{name} of the {thing} is {value} {unit}", f"{name} of the {thing}"),
                            (f"the {thing}'s {name} is {value} {unit}", f"{thing}'s {name}"),
                            (f"{value} {unit} {name} of the {thing}", f"{name} of the {thing}")):
        got = read_inputs(question, table)
        assert (got.values, got.others[column][1]) == ({}, other), question
    for question in (f"a {name} of {value} {unit}", f"the {name} of the air is {value} {unit}"):
        assert read_inputs(question, table).values == {column: str(value)}, question


def test_the_web_page_and_mcp_say_what_the_value_was_said_of(dist):
    text, zh, en, mcp = surfaces(dist.parent, "大棚通风怎么办：油温80度，湿度90%")
    note = "80度说的是油温，不是温度(℃)"
    assert note in text and note in zh and note in en
    assert mcp["said_of_other"] == {"温度(℃)": note}
