"""A value said of another table's input is no value of a table's generic one: 油温80度 (the
oil) or ``bearing temperature 80 C`` is not the greenhouse's 温度(℃). The knowledge's decision
tables say which quantities are other things (`kbtools.query.quantities`): a name (or a
synonym, or a short form) of another table's input leaves the generic input missing, and
the answer asks for it; a word no table takes as an input (气温, 棚内温度) binds as before."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hostile import make_repo
from kbfixtures import GREENHOUSE_PAGE as GREENHOUSE
from kbfixtures import VENT_PAGE as VENT
from kbfixtures import titled_page

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.decision import build_table
from kbtools.query.inputs import find_inputs
from kbtools.query.quantities import input_names, short_forms

PUMP = titled_page("液压站冷却", """液压站按油温调整冷却水。

<!-- decision: inputs=油温(℃); outputs=处理 -->
| 油温(℃) | 处理 |
|---|---|
| <60 | 正常运行 |
| >=60 | 开大冷却水阀 |
""")
FAN = titled_page("Fan motor checks", """Check the fan motor bearings by their temperature.

<!-- decision: inputs=Bearing temperature (°C); outputs=Check -->
| Bearing temperature (°C) | Check |
|---|---|
| <70 | none |
| >=70 | grease the bearing |
""")
SYNONYMS = "水温 = 灌溉水温度 = irrigation water temperature\n"
WATER = titled_page("灌溉水", """灌溉水温度过低时先晒水。

<!-- decision: inputs=灌溉水温度(℃); outputs=处理 -->
| 灌溉水温度(℃) | 处理 |
|---|---|
| <15 | 晒水后再灌 |
| >=15 | 直接灌溉 |
""")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/greenhouse.md": GREENHOUSE, "knowledge/pump.md": PUMP,
        "knowledge/vent.md": VENT, "knowledge/fan.md": FAN, "knowledge/water.md": WATER,
        "knowledge/_synonyms.txt": SYNONYMS})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


def _query(dist, question: str) -> dict:
    out = CliRunner().invoke(main, ["query", question, "--index", str(dist), "--json",
                                    "-k", "3", "--no-log"])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def _evaluation(dist, question: str, doc: str) -> dict:
    got = _query(dist, question)
    top = got["results"][0]
    assert top["doc"] == f"knowledge/{doc}", [r["doc"] for r in got["results"]]
    assert top["evaluation"] is not None, top
    return top["evaluation"]


@pytest.mark.parametrize(("question", "doc", "missing"), [
    # another table's input: its value is the oil's, the bearing's, not the air's
    ("大棚通风怎么办：油温80度，湿度90%", "greenhouse.md", ["温度(℃)"]),
    ("大棚通风怎么办：油温度是80度，湿度90%", "greenhouse.md", ["温度(℃)"]),
    # a few words between that name none of the table's inputs: still the oil's
    ("大棚通风怎么办：油温已经升到80度，湿度90%", "greenhouse.md", ["温度(℃)"]),
    # a synonym of another table's input (水温 = 灌溉水温度)
    ("大棚通风怎么办：水温25度，湿度90%", "greenhouse.md", ["温度(℃)"]),
    ("greenhouse ventilation: bearing temperature 80 C, humidity 90%", "vent.md",
     ["Temperature (°C)"]),
    ("greenhouse ventilation: bearing temp is 80 C, humidity 90%", "vent.md",
     ["Temperature (°C)"]),
    ("greenhouse ventilation: humidity 90%, 80 C bearing temperature", "vent.md",
     ["Temperature (°C)"]),
    ("greenhouse ventilation: irrigation water temperature 25 C, humidity 90%", "vent.md",
     ["Temperature (°C)"]),
])
def test_a_value_of_another_tables_input_is_asked_for_not_bound(dist, question, doc, missing):
    ev = _evaluation(dist, question, doc)
    assert ev["status"] == "missing_inputs", ev
    assert ev["missing"] == missing
    assert ev["inputs"] == {missing[0].replace("温度(℃)", "湿度(%)")
                            .replace("Temperature (°C)", "Humidity (%)"): "90"}


@pytest.mark.parametrize(("question", "doc", "inputs", "outputs"), [
    ("大棚通风怎么办：温度25度，湿度90%", "greenhouse.md", {"温度(℃)": "25", "湿度(%)": "90"},
     {"措施": "打开风口通风排湿"}),
    ("大棚通风怎么办：棚内温度25度，湿度90%", "greenhouse.md", {"温度(℃)": "25", "湿度(%)": "90"},
     {"措施": "打开风口通风排湿"}),
    ("大棚通风怎么办：气温25度，湿度90%", "greenhouse.md", {"温度(℃)": "25", "湿度(%)": "90"},
     {"措施": "打开风口通风排湿"}),
    ("大棚通风怎么办：棚里油温正常气温25度，湿度90%", "greenhouse.md",
     {"温度(℃)": "25", "湿度(%)": "90"}, {"措施": "打开风口通风排湿"}),
    # the other input's value named too: the generic one's still found by its own name
    ("大棚通风怎么办：油温80度，温度25度，湿度90%", "greenhouse.md",
     {"温度(℃)": "25", "湿度(%)": "90"}, {"措施": "打开风口通风排湿"}),
    ("greenhouse ventilation: temperature 25 C, humidity 90%", "vent.md",
     {"Temperature (°C)": "25", "Humidity (%)": "90"}, {"Action": "open the vents"}),
    ("greenhouse ventilation: bearing temperature 80 C, temperature 25 C, humidity 90%",
     "vent.md", {"Temperature (°C)": "25", "Humidity (%)": "90"}, {"Action": "open the vents"}),
    # the other table is still evaluated on its own input's value
    ("液压站冷却：油温80度", "pump.md", {"油温(℃)": "80"}, {"处理": "开大冷却水阀"}),
    ("fan motor bearing temperature 80 C", "fan.md", {"Bearing temperature (°C)": "80"},
     {"Check": "grease the bearing"}),
    # … by a short form of its name too (the knowledge's names hold it: not another's)
    ("fan motor bearing temp 80 C", "fan.md", {"Bearing temperature (°C)": "80"},
     {"Check": "grease the bearing"}),
    ("液压站冷却：油温度80度", "pump.md", {"油温(℃)": "80"}, {"处理": "开大冷却水阀"}),
    # the generic name of another table's input (温度) said of this one's (油的温度)
    ("液压站冷却：油的温度80度", "pump.md", {"油温(℃)": "80"}, {"处理": "开大冷却水阀"}),
])
def test_the_tables_own_inputs_still_bind(dist, question, doc, inputs, outputs):
    ev = _evaluation(dist, question, doc)
    assert (ev["status"], ev["inputs"], ev["outputs"]) == ("match", inputs, [outputs]), ev


def test_the_text_answer_asks_for_the_generic_input(dist):
    out = CliRunner().invoke(main, ["query", "大棚通风怎么办：油温80度，湿度90%", "--index",
                                    str(dist), "-k", "3", "--no-log"])
    assert out.exit_code == 0, out.output
    assert "按问题中的数值判定（湿度(%)=90）：还需要 温度(℃)（80度说的是油温，不是温度(℃)） 才能得出结果" \
        in out.output


def test_input_names_hold_each_name_its_synonyms_and_short_forms():
    names = input_names(["油温(℃)", "Bearing temperature (°C)", "灌溉水温度(℃)", "Humidity (%)"],
                        {"灌溉水温度": ["水温"]})
    assert {"油温", "油温度", "bearing temperature", "bearing temp", "灌溉水温度", "灌溉水温",
            "水温", "水温度", "humidity"} <= names
    assert short_forms("温度") == {"温度"} and short_forms("temperature") == {"temperature"}


def test_without_the_knowledge_vocabulary_a_qualified_name_is_still_another_things():
    """`find_inputs` with no vocabulary (a caller's own table): 油温 is a compound of 温度
    naming the oil (`qualified.Qualified`), so its value fills no 温度 either."""
    table = build_table(["温度(℃)", "措施"], [["<20", "保温"], [">=20", "通风"]],
                        decision="inputs=温度(℃); outputs=措施")
    assert table is not None
    assert find_inputs("油温80度", table) == {}
    assert find_inputs("油温80度", table, vocabulary=input_names(["油温(℃)"])) == {}
    assert find_inputs("温度80度", table, vocabulary=input_names(["油温(℃)"])) == \
        {"温度(℃)": "80"}


@pytest.mark.parametrize(("question", "needs"), [
    ("大棚通风 温度22度，温度23度",
     "决策表，问题中没有可用的输入值：还需要 温度(℃)（问题给了两个值：22度、23度）、湿度(%) 才能得出结果"),
    ("greenhouse ventilation temperature 22 C, temperature 23 C",
     "decision table, no input value taken: give Temperature (°C) (the question gives two "
     "values: 22 C, 23 C), Humidity (%) to get"),
])
def test_the_text_answer_says_what_a_table_needs_when_no_input_is_taken(dist, question, needs):
    """A question giving one input two values and no other printed ``evaluated ():`` before
    what the table needs."""
    out = CliRunner().invoke(main, ["query", question, "--index", str(dist), "-k", "3",
                                    "--no-log"])
    assert out.exit_code == 0, out.output
    assert "evaluated ()" not in out.output and "按问题中的数值判定（）" not in out.output
    assert needs in out.output, out.output


@pytest.mark.parametrize(("question", "doc", "said"), [
    ("大棚通风 温度25度 湿度25度", "greenhouse.md",
     "输入 湿度(%) = “25度”：单位是 度，这一列是 %，请换算成 % 后输入"),
    ("大棚通風 溫度25度 濕度25度", "greenhouse.md", "单位是 度，这一列是 %"),
    ("greenhouse ventilation temperature 25 C humidity 25 degrees", "vent.md",
     "the column in '%'; give the value in %"),
    ("greenhouse ventilation temperature 25 C humidity 25 degrees", "vent.md",
     "='25 degrees': it is in 'degrees'"),
    ("greenhouse ventilation temperature 25 C, humidity is 25 deg", "vent.md", "='25 deg':"),
])
def test_a_value_in_the_wrong_unit_is_said_first_in_the_questions_language(dist, question,
                                                                           doc, said):
    """湿度25度 was answered "no rule matches, needs human review (… it is in '度' …)": the
    rules were never tried, the value's unit was wrong, and a Chinese question heard why in
    English; ``humidity 25 degrees`` was quoted ``'25degrees'``, not as typed."""
    ev = _evaluation(dist, question, doc)
    assert ev["status"] == "no_match" and ev["outputs"] == [], ev
    assert ev["message"].startswith(("输入", "input")) and said in ev["message"], ev
    assert "no rule matches" not in ev["message"]


@pytest.mark.parametrize(("question", "lang", "said"), [
    ("大棚通风 温度25度 湿度25度", "zh", "单位是 度，这一列是 %"),
    ("greenhouse ventilation temperature 25 C humidity 25 degrees", "en", "give the value in %"),
])
def test_the_search_page_says_a_refused_value_alone(dist, question, lang, said):
    """The search page opened a wrong unit's refusal with "没有匹配的规则，需要人工复核" (no
    rule matches, needs human review): no rule was tried, the value's unit was wrong."""
    import html
    import re

    from starlette.testclient import TestClient

    from kbtools.serve.app import create_app

    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        page = client.get("/", params={"q": question, "lang": lang}).text
    shown = [html.unescape(text) for text in re.findall(r'<p class="no-rule[^"]*">(.*?)</p>',
                                                        page, re.S)]
    assert any(said in p for p in shown), shown
    assert not any("需要人工复核" in p or "needs human review" in p for p in shown), shown
