"""More forms of a value said of another thing than a table's generic input, and of forms
that only look so (`kbtools.query.qualified.Qualified`), English and Chinese alike:

- a comma between the name and its value (``temperature of the oil, 80 C``, 油温，80度): the
  oil's still, as without it; a name ending a clause before the comma (油温正常，25度) is not;
- the value before a possessive (``80 C oil's temperature``, ``30 psi tyres' pressure``):
  the oil's, as ``80 C oil temperature`` is;
- a room or indoors (室温, 室内温度, ``room temperature``, ``temperature in the room``, ``the
  room's temperature``): the surroundings the quantity is measured in, as 气温 and ``air
  temperature`` are, whether or not the table's heading names a room; 室外, ``outdoor``
  name another place;
- a verb of change before a short form (升温到80度, 加压至3MPa): no thing; a thing before the
  verb (油升温到80度) still is one.
"""

from __future__ import annotations

import pytest
from hostile import make_repo
from hypothesis import given, settings
from hypothesis import strategies as st
from kbfixtures import (
    GREENHOUSE_PAGE,
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
from kbtools.query.fillers import EN_NUMERALS
from kbtools.query.inputs import find_inputs, read_inputs
from kbtools.query.quantities import AMBIENT, CHANGES, EN_PLAIN, ROOMS, input_names
from kbtools.query.wording import ABBREVIATIONS

BARE = build_table(["温度(℃)", "湿度(%)", "措施"],
                   [["<20", "*", "保温"], [">=20", ">=85", "通风"], [">=20", "<85", "保持"]],
                   decision="inputs=温度(℃),湿度(%); outputs=措施")
VENT = build_table(["Temperature (°C)", "Humidity (%)", "Action"],
                   [["<20", "<85", "close"], [">=20", ">=85", "open"], [">=20", "<85", "keep"]],
                   decision="inputs=Temperature (°C),Humidity (%); outputs=Action",
                   heading_path=("Greenhouse ventilation",))


# 1. a comma between a name and its value

@pytest.mark.parametrize(("question", "value", "other"), [
    ("temperature of the oil, 80 C, humidity 90%", "80C", "temperature of the oil"),
    ("the temperature of the oil in the tank, 80 C, humidity 90%", "80C",
     "temperature of the oil in the tank"),
    ("oil temperature, 80 C, humidity 90%", "80C", "oil temperature"),
    ("the oil's temperature, 80 C, humidity 90%", "80C", "oil's temperature"),
    ("the oil temperature is, 80 C, humidity 90%", "80C", "oil temperature"),
    ("humidity 90%, oil temp, 80 C", "80C", "oil temp"),
])
def test_an_english_name_a_comma_parts_from_its_value_keeps_it(question, value, other):
    assert VENT is not None
    got = read_inputs(question, VENT)
    assert (got.values, got.others) == \
        ({"Humidity (%)": "90"}, {"Temperature (°C)": (value, other)})


@pytest.mark.parametrize(("question", "value", "other"), [
    ("油温，80度，湿度90%", "80度", "油温"),
    ("油的温度，80度，湿度90%", "80度", "油的温度"),
    ("油温是，80度，湿度90%", "80度", "油温"),
    ("湿度90%，水温，25℃", "25°C", "水温"),
])
def test_a_chinese_name_a_comma_parts_from_its_value_keeps_it(question, value, other):
    assert BARE is not None
    got = read_inputs(question, BARE)
    assert (got.values, got.others) == ({"湿度(%)": "90"}, {"温度(℃)": (value, other)})


def test_a_pressure_a_comma_parts_from_its_value_is_judged_alike():
    for question, table, other in (("oil pressure, 30 psi", bare_table("Pressure (psi)"),
                                    "oil pressure"),
                                   ("油压，1.2MPa", bare_table("压力(MPa)"), "油压")):
        got = read_inputs(question, table)
        assert got.values == {} and got.others[table.header[0]][1] == other, question


def test_another_tables_input_a_comma_parts_from_its_value_keeps_it():
    """The knowledge's names (`Others`): 油温 of a pump table, across a comma as without."""
    table = bare_table("温度(℃)")
    vocabulary = input_names(["油温(℃)"])
    assert find_inputs("油温，80度", table, vocabulary=vocabulary) == {}
    assert find_inputs("温度，80度", table, vocabulary=vocabulary) == {"温度(℃)": "80"}


@pytest.mark.parametrize(("question", "table"), [
    ("temperature, 22 C, humidity 90%", VENT), ("the temperature of the air, 22 C, humidity 90%",
                                                 VENT),
    ("air temperature, 22 C, humidity 90%", VENT), ("温度，22度，湿度90%", BARE),
    ("室内温度，22度，湿度90%", BARE), ("气温，22度，湿度90%", BARE),
    # a clause that ends before the comma names no value after it
    ("油温正常，22度，湿度90%", BARE), ("the oil temperature is normal, 22 C, humidity 90%", VENT),
    ("oil temperature fine, 22 C, humidity 90%", VENT),
    # a name whose value is before it: the number after the comma is none of its
    ("80 C oil temperature, 22 C, humidity 90%", VENT), ("80度的油温，22度，湿度90%", BARE),
    ("oil temperature 80 C, 22 C air temperature, humidity 90%", VENT),
])
def test_the_inputs_own_name_or_a_whole_clause_before_a_comma_still_fills(question, table):
    assert table is not None
    got = read_inputs(question, table)
    assert set(got.values) == set(table.header[i] for i in table.inputs), (question, got)
    assert table.header[0] in got.values and got.values[table.header[0]] == "22"
    assert all(not value.startswith("22") for value, _ in got.others.values()), got.others


# 2. the value before a possessive

@pytest.mark.parametrize(("question", "value", "other"), [
    ("80 C oil's temperature, humidity 90%", "80C", "oil's temperature"),
    ("humidity 90%, 80 C oil\u2019s temperature", "80C", "oil\u2019s temperature"),
    ("humidity 90%, 22 C water's temp", "22C", "water's temp"),
])
def test_a_value_before_a_possessive_name_is_that_things(question, value, other):
    assert VENT is not None
    got = read_inputs(question, VENT)
    assert (got.values, got.others) == \
        ({"Humidity (%)": "90"}, {"Temperature (°C)": (value, other)})


@pytest.mark.parametrize(("question", "other"), [
    ("30 psi tyre's pressure", "tyre's pressure"), ("30 psi tyres' pressure", "tyres' pressure"),
    ("30 psi tyres\u2019 pressure", "tyres\u2019 pressure"),
])
def test_a_pressure_before_a_possessive_name_is_that_things(question, other):
    got = read_inputs(question, bare_table("Pressure (psi)"))
    assert (got.values, got.others) == ({}, {"Pressure (psi)": ("30psi", other)})



@pytest.mark.parametrize("question", [
    "30 psi weekend's pressure", "the monday's pressure, 30 psi", "30 psi Wed's pressure",
])
def test_a_days_pressure_is_the_tables(question):
    """A day before a name says when, not whose: the value is the table's own."""
    got = read_inputs(question, bare_table("Pressure (psi)"))
    assert (got.values, got.others) == ({"Pressure (psi)": "30"}, {})

_PLAIN = EN_PLAIN | set(AMBIENT) | set(ROOMS) | \
    {w for g in ABBREVIATIONS for t in g for w in t.split()}
# (a day is when, not whose: ``1 psi weekend's pressure`` is the pressure at the weekend)
_WORD = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9) \
    .filter(lambda w: w not in _PLAIN and w + "s" not in _PLAIN and not EN_NUMERALS.match(w)
            and not days_said(w, w)
            and w not in {"plant", "checks", "pressure", "flow", "temperature", "psi", "gpm",
                          "action", "inside", "within"})  # (doe + s' is ``does'``: a verb)
_HEADERS = [("Pressure (psi)", "pressure", "psi"), ("Flow (gpm)", "flow", "gpm"),
            ("Temperature (°F)", "temperature", "F")]


@settings(max_examples=200, deadline=None)
@given(header=st.sampled_from(_HEADERS), heading=st.sampled_from(["", "Plant checks"]),
       thing=_WORD, value=st.integers(min_value=1, max_value=99),
       mark=st.sampled_from(["'s", "\u2019s", "s'", "s\u2019"]))
def test_any_english_possessive_after_a_value_or_before_a_comma_keeps_it(
        header, heading, thing, value, mark):
    """``N psi X's pressure``, ``the X's pressure, N psi``, ``pressure of the X, N psi``:
    whatever thing X is, N is its pressure, not the table's."""
    column, name, unit = header
    table = bare_table(column, heading)
    owner = thing + mark
    for question, other in ((f"{value} {unit} {owner} {name}", f"{owner} {name}"),
                            (f"the {owner} {name}, {value} {unit}", f"{owner} {name}"),
                            (f"{name} of the {thing}, {value} {unit}", f"{name} of the {thing}")):
        got = read_inputs(question, table)
        assert (got.values, got.others.get(column, ("", ""))[1]) == ({}, other), question
    assert read_inputs(f"{name}, {value} {unit}", table).values == {column: str(value)}


@settings(max_examples=200, deadline=None)
@given(modifier=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5)
       .filter(lambda ch: not names_no_thing(ch)),
       value=st.integers(min_value=0, max_value=120))
def test_any_chinese_thing_before_a_comma_keeps_its_value(modifier, value):
    """X温，N度: whatever thing X is, N is its temperature; 温度，N度 the table's."""
    assert BARE is not None
    got = read_inputs(f"{modifier}温，{value}度，湿度90%", BARE)
    assert (got.values, got.others) == \
        ({"湿度(%)": "90"}, {"温度(℃)": (f"{value}度", f"{modifier}温")})
    assert read_inputs(f"温度，{value}度，湿度90%", BARE).values == \
        {"温度(℃)": str(value), "湿度(%)": "90"}


# 3. a room or indoors: the surroundings, on any table

_ROOM_EN = ["room temperature 22 C", "the room temperature is 22 C",
            "temperature in the room 22 C", "the temperature in the room is 22 C",
            "the room's temperature is 22 C", "indoor temperature 22 C",
            "the temperature inside the room is 22 C", "temperature in the living room 22 C",
            "the temperature indoors is 22 C", "the room temperature, 22 C"]
_ROOM_ZH = ["室温22度", "室内温度22度", "室内的温度22度", "温室温度22度", "屋里温度22度"]


@pytest.mark.parametrize("heading", ["", "Room climate", "室内环境调控", "Greenhouse ventilation"])
@pytest.mark.parametrize("question", _ROOM_EN + _ROOM_ZH)
def test_a_room_or_indoors_fills_the_generic_input_with_or_without_a_room_heading(heading,
                                                                                  question):
    """English and Chinese agree: ``temperature in the room`` was another thing's on a
    table whose heading names no room, though 室内温度 filled any table's 温度."""
    for header in ("Temperature (°C)", "温度(℃)"):
        got = read_inputs(question, bare_table(header, heading))
        assert (got.values, got.others) == ({header: "22"}, {}), (header, heading)


@pytest.mark.parametrize(("question", "other"), [
    ("outdoor temperature 22 C", "outdoor temperature"),
    ("the temperature outside is 22 C", ""),
    ("室外温度22度", "室外温度"),
])
def test_outdoors_is_another_place(question, other):
    got = read_inputs(question, bare_table("Temperature (°C)", "Greenhouse ventilation"))
    assert got.values == {}
    if other:
        assert got.others == {"Temperature (°C)": ("22" + ("C" if "C" in question else "度"),
                                                   other)}


# 4. a verb of change before a short form

@pytest.mark.parametrize(("question", "header", "value"), [
    ("升温到25度，湿度90%", "温度(℃)", "25"), ("升温至25度", "温度(℃)", "25"),
    ("降温到18度", "温度(℃)", "18"), ("加温到25度", "温度(℃)", "25"),
    ("大棚升温到25度", "温度(℃)", "25"), ("已经升温到25度了", "温度(℃)", "25"),
    ("加压至3MPa", "压力(MPa)", "3"), ("加压到3MPa", "压力(MPa)", "3"),
    ("降压到1.2MPa", "压力(MPa)", "1.2"), ("增压至2MPa", "压力(MPa)", "2"),
    ("减压到0.8MPa", "压力(MPa)", "0.8"), ("泄压到0.5MPa", "压力(MPa)", "0.5"),
])
def test_a_verb_of_change_is_no_thing(question, header, value):
    got = read_inputs(question, bare_table(header, "大棚" if "大棚" in question else ""))
    assert got.values == {header: value} and got.others == {}, got


@pytest.mark.parametrize(("question", "header", "value", "other"), [
    ("油升温到80度", "温度(℃)", "80度", "油温"),
    ("水加温到30度", "温度(℃)", "30度", "水温"),
    ("轮胎加压至0.3MPa", "压力(MPa)", "0.3MPa", "轮胎压"),
    # a name the verb's word goes on into is no verb of change: a valve's pressure
    ("减压阀3MPa", "压力(MPa)", "3MPa", "减压"),
])
def test_a_thing_before_a_verb_of_change_still_qualifies(question, header, value, other):
    got = read_inputs(question, bare_table(header))
    assert (got.values, got.others) == ({}, {header: (value, other)})


@settings(max_examples=200, deadline=None)
@given(verb=st.sampled_from(CHANGES), short=st.sampled_from([("温", "度", "温度(℃)"),
                                                             ("压", "MPa", "压力(MPa)")]),
       to=st.sampled_from(["", "到", "至", "已经到"]), value=st.integers(min_value=0,
                                                                        max_value=99),
       thing=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5)
       .filter(lambda ch: not names_no_thing(ch) and ch not in "压力"))  # 压力's own: no thing
def test_any_verb_of_change_fills_and_a_thing_before_it_keeps_its_value(verb, short, to,
                                                                      value, thing):
    name, unit, header = short
    table = bare_table(header)
    got = read_inputs(f"{verb}{name}{to}{value}{unit}", table)
    assert (got.values, got.others) == ({header: str(value)}, {}), (verb, to)
    got = read_inputs(f"{thing}{verb}{name}{to}{value}{unit}", table)
    assert (got.values, got.others) == ({}, {header: (f"{value}{unit}", thing + name)})


# end to end: the evaluation and the note naming the phrase

ROOM = titled_page("室内环境调控", """按室内温度开空调。

<!-- decision: inputs=温度(℃); outputs=空调 -->
| 温度(℃) | 空调 |
|---|---|
| <26 | 关闭 |
| >=26 | 制冷 |
""")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/greenhouse.md": GREENHOUSE_PAGE, "knowledge/vent.md": VENT_PAGE,
        "knowledge/room.md": ROOM})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


@pytest.mark.parametrize(("question", "doc", "column", "inputs", "note"), [
    ("大棚通风怎么办：油温，80度，湿度90%", "greenhouse.md", "温度(℃)", {"湿度(%)": "90"},
     "80度说的是油温，不是温度(℃)"),
    ("greenhouse ventilation: temperature of the oil, 80 C, humidity 90%", "vent.md",
     "Temperature (°C)", {"Humidity (%)": "90"},
     "80 C is said of temperature of the oil, not of Temperature (°C)"),
    ("greenhouse ventilation: 80 C oil's temperature, humidity 90%", "vent.md",
     "Temperature (°C)", {"Humidity (%)": "90"},
     "80 C is said of oil's temperature, not of Temperature (°C)"),
    ("大棚通风怎么办：油升温到80度，湿度90%", "greenhouse.md", "温度(℃)", {"湿度(%)": "90"},
     "80度说的是油温，不是温度(℃)"),
])
def test_the_answer_asks_for_the_input_naming_the_phrase(dist, question, doc, column, inputs,
                                                         note):
    assert_asks_naming(dist, question, doc, column, inputs, note)


@pytest.mark.parametrize(("question", "doc", "inputs", "outputs"), [
    ("大棚通风怎么办：升温到25度，湿度90%", "greenhouse.md", {"温度(℃)": "25", "湿度(%)": "90"},
     {"措施": "打开风口通风排湿"}),
    ("greenhouse ventilation: temperature in the room 25 C, humidity 90%", "vent.md",
     {"Temperature (°C)": "25", "Humidity (%)": "90"}, {"Action": "open the vents"}),
    ("室内环境调控：室温28度", "room.md", {"温度(℃)": "28"}, {"空调": "制冷"}),
    ("室内环境调控：室内温度28度", "room.md", {"温度(℃)": "28"}, {"空调": "制冷"}),
    ("室内环境调控：the room's temperature is 28 C", "room.md", {"温度(℃)": "28"},
     {"空调": "制冷"}),
])
def test_a_room_or_a_verb_of_change_evaluates_the_table(dist, question, doc, inputs, outputs):
    ev = top_evaluation(dist, question, doc)
    assert (ev["status"], ev["inputs"], ev["outputs"], ev["said_of_other"]) == \
        ("match", inputs, [outputs], {}), ev


@pytest.mark.parametrize(("header", "question"), [
    ("Oil temperature (°C)", "temperature of the oil, 80 C"),
    ("Oil temperature (°C)", "oil temperature, 80 C"),
    ("Oil temperature (°C)", "80 C oil's temperature"),
    ("油温(℃)", "油温，80度"), ("油温(℃)", "油升温到80度"), ("油温(℃)", "升温到80度"),
])
def test_a_table_of_the_thing_takes_its_value_in_each_form(header, question):
    """What is another thing's on a generic table is the own input of that thing's table."""
    assert read_inputs(question, bare_table(header)).values == {header: "80"}
