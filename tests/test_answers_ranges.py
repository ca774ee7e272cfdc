"""A range or a bound a search question gives an input (温度22到25度, 25度以上, ``between 20 and
25 C``, ``above 30 degrees``) reaches the decision table as ``kb table eval`` gives it: read by
the one given-value reader (`decision.given.read_given`) and matched by
`decision.matching.match_rules`. One row holding all of it answers; rows each holding part of
it are named (status ``spans_rows``, in the question's language), never one guessed; and the
input is never called missing when the question gave it."""

from __future__ import annotations

import json

import anyio
import pytest
from click.testing import CliRunner
from hostile import make_repo
from kbfixtures import GOOD_FM

from kbtools.agents.mcp_server import build_server
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.decision import build_table
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import read_inputs

T = "温度(℃)"


def query_json(index, question: str) -> dict:
    """The first result's evaluation, as ``kb query --json`` gives it."""
    out = CliRunner().invoke(main, ["query", question, "--index", str(index), "--json", "-k", "3"])
    assert out.exit_code == 0, out.output
    ev = json.loads(out.output)["results"][0].get("evaluation")
    assert ev is not None, question
    return ev


# --- the example knowledge: the wheat-scab table (<15 | 15-20 | >20 by humidity and rain) ---

MATCHED = [
    # (question, the value read for 温度(℃), the row, its risk)
    ("温度22到25度、相对湿度90%、连续降雨4天，小麦赤霉病风险多高？", "22到25度", 7, "极高"),
    ("温度25度以上、湿度90%、连续降雨4天，赤霉病风险？", "25度以上", 7, "极高"),
    ("温度22~25℃，相对湿度90%，连续降雨4天，赤霉病风险", "22~25°C", 7, "极高"),
    ("温度二十二至二十五度，相对湿度90%，连续降雨4天，赤霉病风险", "二十二至二十五度", 7, "极高"),
    ("温度不低于25度，湿度90%，连续降雨4天，赤霉病风险", "不低于25度", 7, "极高"),
    ("温度低于10度，湿度90%，连续降雨4天，赤霉病风险", "低于10度", 1, "低"),
    ("wheat scab risk above 30 degrees, humidity 90%, 4 rainy days", "above 30 degrees", 7,
     "极高"),
    ("wheat scab risk: temperature at least 25 °C, humidity 90%, 4 rainy days",
     "at least 25°C", 7, "极高"),
    ("wheat scab risk: below 10 C, humidity 90%, 4 rainy days", "below 10 C", 1, "低"),
    ("wheat scab risk: temperature between 21 and 25 C, humidity 90%, 4 rainy days",
     "between 21 and 25 C", 7, "极高"),
    ("wheat scab risk at 21-25C, humidity 90%, 4 rainy days", "21-25C", 7, "极高"),
]


@pytest.mark.parametrize(("question", "value", "row", "risk"), MATCHED)
def test_a_range_one_row_holds_answers_on_the_example(example_index, question, value, row,
                                                      risk):
    ev = query_json(example_index, question)
    assert ev["status"] == "match", ev["message"]
    assert ev["inputs"][T] == value and T not in ev["missing"]
    assert ev["row"] == row and ev["outputs"][0]["风险等级"] == risk


SPANNED = [
    ("温度18到25度，相对湿度90%，连续降雨4天，赤霉病风险", "18到25度", "第 4 行", "第 7 行"),
    ("温度十八至二十五度，相对湿度90%，连续降雨4天，赤霉病风险", "十八至二十五度", "第 4 行", "第 7 行"),
    ("wheat scab risk: temperature between 20 and 25 C, humidity 90%, 4 rainy days",
     "between 20 and 25 C", "row 4", "row 7"),
    ("wheat scab risk at 20-25C, humidity 90%, 4 rainy days", "20-25C", "row 4", "row 7"),
]


@pytest.mark.parametrize(("question", "value", "first", "second"), SPANNED)
def test_a_range_rows_split_names_them_in_the_questions_language(example_index, question, value,
                                                                 first, second):
    ev = query_json(example_index, question)
    assert ev["status"] == "spans_rows", ev
    assert ev["inputs"][T] == value and ev["missing"] == []
    assert ev["spans"] == {T: [4, 7]}
    assert ev["row"] is None and ev["outputs"] == [] and ev["rows"] == []  # never a guess
    assert first in ev["message"] and second in ev["message"]
    chinese = first.startswith("第")
    assert ("请给一个确定的值" in ev["message"]) == chinese
    assert ("give one value" in ev["message"]) == (not chinese)


# --- a small repository: an English table, asked in English and in Chinese, and over MCP ---

VENT = GOOD_FM.replace("Generated", "Greenhouse ventilation") + """
# Greenhouse ventilation

Open the vents by the air temperature and the relative humidity inside the greenhouse.

<!-- decision: inputs=Temperature (°C),Humidity (%); outputs=Action -->
| Temperature (°C) | Humidity (%) | Action |
|---|---|---|
| <10 | * | close vents and heat |
| 10-20 | * | keep vents half open |
| >20 | >=80 | open vents fully and run fans |
| >20 | <80 | open vents fully |
"""
SYNONYMS = "Temperature = 温度 = 气温\nHumidity = 湿度 = 相对湿度\n"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/vent.md": VENT, "knowledge/_synonyms.txt": SYNONYMS})
    build(load_config(root), BuildOptions(progress=False))
    return root


def mcp_search(repo, question: str) -> dict:
    async def call():
        return await build_server(index=repo / "dist", root=repo).call_tool(
            "search", {"query": question, "k": 3})

    result = anyio.run(call)
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)["results"][0]["evaluation"]


@pytest.mark.parametrize(("question", "value", "action"), [
    ("greenhouse ventilation: temperature above 25 C, humidity 85%", "above 25 C",
     "open vents fully and run fans"),
    ("greenhouse ventilation: below 5 degrees, humidity 85%", "below 5 degrees",
     "close vents and heat"),
    ("greenhouse ventilation: temperature 12 to 18 C, humidity 85%", "12 to 18 C",
     "keep vents half open"),
    ("greenhouse ventilation: 30 C or more, humidity 85%", "30 C or more",
     "open vents fully and run fans"),
    ("greenhouse ventilation: humidity at least 85%, temperature 25 C", "at least 85%",
     "open vents fully and run fans"),
    ("温室通风：温度12~18度，湿度85%", "12~18度", "keep vents half open"),
    ("温室通风：气温30度以上，湿度不低于85%", "30度以上", "open vents fully and run fans"),
])
def test_a_range_or_bound_answers_through_every_surface(repo, question, value, action):
    ev = query_json(repo / "dist", question)
    assert ev["status"] == "match", ev["message"]
    assert value in ev["inputs"].values() and ev["outputs"] == [{"Action": action}]
    assert mcp_search(repo, question)["outputs"] == [{"Action": action}]


@pytest.mark.parametrize(("question", "said"), [
    ("greenhouse ventilation: temperature between 15 and 25 C, humidity 85%", "row 2"),
    ("温室通风：温度15到25度，湿度85%", "第 2 行"),
    ("greenhouse ventilation: 5-15 C, humidity 85%", "row 1"),
])
def test_a_range_over_rows_is_refused_through_every_surface(repo, question, said):
    for ev in (query_json(repo / "dist", question), mcp_search(repo, question)):
        assert ev["status"] == "spans_rows", ev
        assert said in ev["message"] and ev["row"] is None and ev["outputs"] == []
        assert "missing input" not in ev["message"]


def test_the_cli_text_asks_for_one_value(repo):
    out = CliRunner().invoke(main, ["query", "温室通风：温度15到25度，湿度85%", "--index",
                                    str(repo / "dist"), "-k", "3"])
    assert out.exit_code == 0, out.output
    assert "请给一个确定的值" in out.output and "第 2 行" in out.output


# --- the reader: which words make the range, and what is left as it was ---

RISK = build_table(["温度(℃)", "相对湿度(%)", "风险"],
                   [["<15", "*", "低"], ["≥15", "≥85", "高"], ["≥15", "<85", "中"]],
                   decision="inputs=温度(℃),相对湿度(%); outputs=风险")


@pytest.mark.parametrize(("question", "values"), [
    ("温度22到25度，湿度90%", {T: "22到25度", "相对湿度(%)": "90"}),
    ("温度 22 度到 25 度，湿度 90%", {T: "22度到25度", "相对湿度(%)": "90"}),
    ("湿度90%以上，温度20度", {T: "20", "相对湿度(%)": "90%以上"}),
    ("湿度90%，温度不到15度", {T: "不到15度", "相对湿度(%)": "90"}),
    ("气温已经低于10度，湿度90%", {T: "低于10度", "相对湿度(%)": "90"}),
    ("temperature is not below 20 C, humidity 90%", {T: "not below 20 C",
                                                     "相对湿度(%)": "90"}),
    ("20 C to 24 C, 90% humidity", {T: "20 C to 24 C", "相对湿度(%)": "90"}),
    ("between 20 and 24 degrees, humidity over 85%", {T: "between 20 and 24 degrees",
                                                      "相对湿度(%)": "over 85%"}),
    # the fewest words read the same: not the name glued to the symbol (温度>25度)
    ("温度>25度，湿度90%", {T: ">25度", "相对湿度(%)": "90"}),
    ("温度25度及以上，湿度90%", {T: "25度及以上", "相对湿度(%)": "90"}),  # not 25 exactly
    ("气温在22℃到25℃之间，湿度90%", {T: "22°C到25°C", "相对湿度(%)": "90"}),
    ("humidity 90%, temperature from 22 to 25", {T: "22 to 25", "相对湿度(%)": "90"}),
])
def test_the_range_is_read_as_written(question, values):
    assert RISK is not None
    assert read_inputs(question, RISK, {"温度": ["temperature"], "相对湿度": ["humidity"]}
                       ).values == values


@pytest.mark.parametrize("question", [
    "温度20多度，湿度90%",  # about twenty: no range the table reader takes
    "温度从18度升到25度，湿度90%",  # a change, not a range
    "温度二十来度，湿度90%",
    "温度22或24度，湿度90%",  # either value: which one is not known
])
def test_what_the_table_reader_takes_as_no_range_stays_missing(question):
    assert RISK is not None
    given = read_inputs(question, RISK)
    assert T not in given.values and given.values == {"相对湿度(%)": "90"}
    assert evaluate_inputs("d.md", 1, RISK, given.values).status == "missing_inputs"


@pytest.mark.parametrize("question", ["35-50℃ 油温正常吗", "22到25度的油温正常吗",
                                      "油温22到25度，湿度90%，连续降雨4天",
                                      # a sign after the name: the name is no word of the bound
                                      "油温>25度，湿度90%，连续降雨4天",
                                      "油温≥25℃，湿度90%",
                                      "oil temperature >= 25 C, humidity 90%"])
def test_a_range_said_of_another_thing_is_no_inputs_value(question):
    """"35-50℃ 油温正常吗" asks of the oil: read as the wheat-scab table's 温度(℃) (the
    range's first end was checked for a thing named after it, and 油温 follows the second),
    it made the corn and wheat tables' evaluated rows the first results over the oil
    temperature's own row. A range names its thing after its whole, as an exact value does."""
    assert RISK is not None
    given = read_inputs(question, RISK)
    assert T not in given.values, given.values


def test_the_other_end_of_a_range_is_no_other_inputs_value():
    assert RISK is not None
    # 25 is the range's upper end, not a second temperature (no conflict) nor the humidity
    given = read_inputs("温度22到25度，湿度90%", RISK)
    assert given.conflicts == {} and given.values[T] == "22到25度"


def test_the_web_page_names_the_rows_in_its_language(repo):
    from starlette.testclient import TestClient

    from kbtools.serve.app import create_app

    question = "温室通风：温度15到25度，湿度85%"
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        zh = client.get("/", params={"q": question, "lang": "zh"}).text
        en = client.get("/", params={"q": question, "lang": "en"}).text
    assert "（第 2, 3 行各管其中一部分），请给一个确定的值" in zh
    assert "rows 2, 3 each apply to part of it): give one value" in en
    assert "No rule matches" not in en


FROST = build_table(["气温(℃)", "措施"], [["<0", "防冻"], [">=0", "正常"]],
                    decision="inputs=气温(℃); outputs=措施")


@pytest.mark.parametrize(("question", "value"), [
    ("夜里零下3到5度，要防冻吗", "零下3到5度"), ("气温零下三到五度", "零下三到五度"),
    ("晚上负3至5℃", "负3至5°C"), ("气温零下3到零下5度", "零下3到零下5度")])
def test_below_zero_said_before_a_span_holds_for_both_ends(question, value):
    """零下3到5度 is -3 to -5 degrees, as a forecast says it; it was read as -3 to 5, a
    span over the frost bound (session 42)."""
    assert FROST is not None
    given = read_inputs(question, FROST).values
    assert given == {"气温(℃)": value}
    ev = evaluate_inputs("d.md", 1, FROST, given)
    assert (ev.status, ev.outputs) == ("match", {"措施": "防冻"}), ev.message


def test_a_span_from_below_zero_written_with_a_minus_crosses_zero():
    assert FROST is not None
    ev = evaluate_inputs("d.md", 1, FROST, read_inputs("气温-3~5℃", FROST).values)
    assert ev.status == "spans_rows", ev.message
