"""A question that gives one input two values (温度22度…温度23度): the input stays missing and
every surface says why, with both values: `read_inputs`, ``kb query`` (text and JSON), the
web page (Chinese and English) and the MCP search tool."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from hostile import make_repo
from kbfixtures import SCAB_DOC, SCAB_TABLE
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import build_server
from kbtools.api import open_index, search
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.decision import build_table
from kbtools.decision.documents import decision_tables
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import read_inputs
from kbtools.serve.app import create_app

RISK = build_table(*SCAB_TABLE[:2], decision=SCAB_TABLE[2])
SEAL = build_table(["Seal temperature (°F)", "Load (%)", "Action"],
                   [["<150", "*", "run"], ["≥150", "≥80", "stop"], ["≥150", "<80", "watch"]],
                   decision="inputs=Seal temperature (°F),Load (%); outputs=Action")

DOC = SCAB_DOC
QUESTION = "小麦赤霉病风险：温度22度，相对湿度90%，温度23度"


def test_an_input_given_two_values_is_missing_with_both_values_named():
    assert RISK is not None and SEAL is not None
    given = read_inputs("温度22度，湿度90%，温度23度", RISK)
    assert given.values == {"相对湿度(%)": "90"}
    assert given.conflicts == {"温度(℃)": ("22度", "23度")}
    ev = evaluate_inputs("d.md", 1, RISK, given.values, given.conflicts)
    assert ev.status == "missing_inputs" and ev.missing == ("温度(℃)",)
    assert ev.message == "missing input(s): 温度(℃) (two values given: 22度, 23度)"
    assert ev.to_dict()["conflicts"] == {"温度(℃)": ["22度", "23度"]}
    given = read_inputs("the seal temperature is 160 F at 90% load, the seal temperature "
                        "is 140 F", SEAL)
    assert given.values == {"Load (%)": "90"}
    assert given.conflicts == {"Seal temperature (°F)": ("160F", "140F")}
    # one value named twice is one value, not two
    assert read_inputs("温度22度，湿度90%，温度22度", RISK).conflicts == {}


TEMPERATURE = build_table(["Temperature (°C)", "Action"], [["<25", "wait"], [">=25", "spray"]],
                          decision="inputs=Temperature (°C); outputs=Action")


@pytest.mark.parametrize(("table", "question", "values", "conflicts"), [
    (TEMPERATURE, "temperature 22 C, then temperature 23 C", {},
     {"Temperature (°C)": ("22C", "23C")}),
    (TEMPERATURE, "temperature 22 C, later the temperature was 23 C", {},
     {"Temperature (°C)": ("22C", "23C")}),
    (RISK, "温度22度，然后温度23度，湿度90%", {"相对湿度(%)": "90"}, {"温度(℃)": ("22度", "23度")}),
    (RISK, "温度22度，现在温度23度，湿度90%", {"相对湿度(%)": "90"}, {"温度(℃)": ("22度", "23度")}),
    # another thing's temperature is no second value
    (TEMPERATURE, "temperature 22 C, bearing temperature 30 C", {"Temperature (°C)": "22"}, {}),
    (RISK, "温度22度，最低温度15度，湿度90%", {"温度(℃)": "22", "相对湿度(%)": "90"}, {}),
    (RISK, "温度22度，然后湿度90%", {"温度(℃)": "22", "相对湿度(%)": "90"}, {}),
])
def test_a_word_of_time_before_the_name_again_leaves_it_the_same_input(table, question, values,
                                                                      conflicts):
    """``then temperature 23 C`` (然后温度23度) was read as another thing's temperature, as
    ``bearing temperature`` is: the question's second value was dropped and the first
    answered alone."""
    assert table is not None
    given = read_inputs(question, table)
    assert (given.values, given.conflicts) == (values, conflicts)


RUN = build_table(["Run time (h)", "Temperature (°C)", "Action"],
                  [["<8", "*", "ok"], [">=8", "<25", "check"], [">=8", ">=25", "stop"]],
                  decision="inputs=Run time (h),Temperature (°C); outputs=Action")


@pytest.mark.parametrize(("question", "values", "conflicts"), [
    # two numbers found by their unit alone, in the one column of that unit: two values for
    # it, as when it is named twice (both were dropped, and no conflict was said)
    ("温度22度，然后温度24度，运行10小时", {"Run time (h)": "10"},
     {"Temperature (°C)": ("22度", "24度")}),
    ("it ran 5 hours, then 6 hours, 22 C", {"Temperature (°C)": "22"},
     {"Run time (h)": ("5hours", "6hours")}),
    # one value said twice is that value; a list of two is two values (it was dropped
    # unsaid); a value and a bound are two (the bound is given as written:
    # `test_answers_ranges`)
    ("22度，现在还是22度", {"Temperature (°C)": "22"}, {}),
    ("22度或24度", {}, {"Temperature (°C)": ("22度", "24度")}),
    ("22度，不到25度", {}, {"Temperature (°C)": ("22度", "不到25度")}),
])
def test_two_values_found_by_their_unit_for_one_column_are_a_conflict(question, values,
                                                                     conflicts):
    assert RUN is not None
    given = read_inputs(question, RUN)
    assert (given.values, given.conflicts) == (values, conflicts)
    if conflicts:
        ev = evaluate_inputs("d.md", 1, RUN, given.values, given.conflicts)
        assert ev.status == "missing_inputs" and ev.conflicts == conflicts


def test_an_input_given_only_two_values_is_still_answered_with_why():
    assert RISK is not None
    given = read_inputs("温度22度，温度23度", RISK)
    assert given.values == {} and given.conflicts == {"温度(℃)": ("22度", "23度")}
    ev = evaluate_inputs("d.md", 1, RISK, given.values, given.conflicts)
    assert ev.status == "missing_inputs"
    assert ev.missing == ("温度(℃)", "相对湿度(%)")
    assert ev.message == ("missing input(s): 温度(℃) (two values given: 22度, 23度), "
                          "相对湿度(%)")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={"knowledge/risk.md": DOC})
    build(load_config(root), BuildOptions(progress=False))
    return root


def test_kb_query_json_and_text_say_two_values_were_given(repo):
    top = search(open_index(repo / "dist"), QUESTION, k=3).results[0]
    ev = top.evaluation
    assert ev is not None and ev["status"] == "missing_inputs", top
    assert ev["conflicts"] == {"温度(℃)": ["22度", "23度"]}
    out = CliRunner().invoke(main, ["query", QUESTION, "--index", str(repo / "dist"),
                                    "--json", "-k", "3"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["results"][0]["evaluation"]["conflicts"] == \
        {"温度(℃)": ["22度", "23度"]}
    text = CliRunner().invoke(main, ["query", QUESTION, "--index", str(repo / "dist"), "-k", "3"])
    assert text.exit_code == 0, text.output
    assert "还需要 温度(℃)（问题给了两个值：22度、23度） 才能得出结果" \
        in text.output


@pytest.mark.parametrize(("question", "message"), [
    (QUESTION, "缺少输入：温度(℃)（给出了两个值：22度、23度）"),
    ("小麦赤霉病风险：相对湿度90%", "缺少输入：温度(℃)"),
    ("小麦赤霉病风险：温度20度和25度，相对湿度90%", "缺少输入：温度(℃)（给出了两个值：20度、25度）"),
    ("小麦赤霉病风险：温度12度", "第1行匹配；未给出，但接受任意值：相对湿度(%)"),
])
def test_a_chinese_question_is_told_what_is_missing_in_chinese(repo, question, message):
    """The JSON's (and MCP's) ``message`` was ``missing input(s): 温度(℃) (two values given:
    22度, 23度)`` for a Chinese question, as ``row 1 matches; not given, …`` was."""
    out = CliRunner().invoke(main, ["query", question, "--index", str(repo / "dist"),
                                    "--json", "-k", "3", "--no-log"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["results"][0]["evaluation"]["message"] == message


def test_an_english_question_is_told_what_is_missing_in_english(repo):
    ev = search(open_index(repo / "dist"), "wheat scab risk: temperature 12 C", k=3)\
        .results[0].evaluation
    assert ev is not None and ev["message"] == \
        "row 1 matches; not given, but any value is accepted: 相对湿度(%)"


def test_the_web_page_says_two_values_were_given_in_its_language(repo):
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        zh = client.get("/", params={"q": QUESTION, "lang": "zh"}).text
        en = client.get("/", params={"q": QUESTION, "lang": "en"}).text
    assert "问题给了两个值：22度, 23度，无法确定用哪一个" in zh
    assert "the question gives two values: 22度, 23度; which one applies is not known" in en


def test_the_mcp_search_tool_gives_the_conflicts(repo):
    async def call():
        return await build_server(index=repo / "dist", root=repo).call_tool("search", {"query": QUESTION, "k": 3})

    result = anyio.run(call)
    assert not result.is_error, result.content[0].text
    payload = json.loads(result.content[0].text)
    ev = payload["results"][0]["evaluation"]
    assert ev["status"] == "missing_inputs" and ev["conflicts"] == {"温度(℃)": ["22度", "23度"]}


def test_the_bundled_wheat_scab_table_names_both_values():
    table = decision_tables(Path(__file__).resolve().parents[1] / "knowledge" / "crops"
                            / "wheat-scab.md")[0]
    given = read_inputs("温度22度，湿度90%，连续降雨4天，温度23度", table)
    assert given.values == {"相对湿度(%)": "90", "连续降雨天数": "4"}
    ev = evaluate_inputs("wheat-scab.md", 1, table, given.values, given.conflicts)
    assert ev.status == "missing_inputs"
    assert ev.message == "missing input(s): 温度(℃) (two values given: 22度, 23度)"


@pytest.mark.parametrize(("table", "question", "values", "conflicts"), [
    (TEMPERATURE, "temperature 22 C, then 24 C", {}, {"Temperature (°C)": ("22C", "24C")}),
    (TEMPERATURE, "the temperature is 22 C, now it is 24 C", {},
     {"Temperature (°C)": ("22C", "24C")}),
    (RISK, "温度22度，然后24度，湿度90%", {"相对湿度(%)": "90"}, {"温度(℃)": ("22度", "24度")}),
    # the same value again, or another thing's value in the unit, is no conflict
    (TEMPERATURE, "temperature 22 C, still 22 C", {"Temperature (°C)": "22"}, {}),
    (TEMPERATURE, "temperature 22 C, bearing 30 C", {"Temperature (°C)": "22"}, {}),
    (RISK, "温度22度，最低15度，湿度90%", {"温度(℃)": "22", "相对湿度(%)": "90"}, {}),
])
def test_a_named_value_and_a_second_value_in_its_unit_conflict(table, question, values,
                                                               conflicts):
    assert table is not None
    given = read_inputs(question, table)
    assert (given.values, given.conflicts) == (values, conflicts)


@pytest.mark.parametrize(("table", "question", "values", "conflicts"), [
    # two values listed for one input in one phrase: both said (the input was left missing
    # and nothing said why)
    (RISK, "温度20度和25度，湿度90%", {"相对湿度(%)": "90"}, {"温度(℃)": ("20度", "25度")}),
    (RISK, "温度20度和25度", {}, {"温度(℃)": ("20度", "25度")}),
    (RISK, "温度20或25度，湿度90%", {"相对湿度(%)": "90"}, {"温度(℃)": ("20", "25度")}),
    (RISK, "温度20度或者25度，湿度90%", {"相对湿度(%)": "90"}, {"温度(℃)": ("20度", "25度")}),
    (RISK, "温度20、25度，湿度90%", {"相对湿度(%)": "90"}, {"温度(℃)": ("20", "25度")}),
    (RISK, "温度２０度和２５度，湿度９０％", {"相对湿度(%)": "90"}, {"温度(℃)": ("20度", "25度")}),
    (RISK, "20度和25度，湿度90%", {"相对湿度(%)": "90"}, {"温度(℃)": ("20度", "25度")}),
    (RISK, "温度25度，湿度85%和90%", {"温度(℃)": "25"}, {"相对湿度(%)": ("85%", "90%")}),
    (TEMPERATURE, "temperature 20 C and 25 C", {}, {"Temperature (°C)": ("20C", "25C")}),
    (TEMPERATURE, "temperature 20 or 25 C", {}, {"Temperature (°C)": ("20", "25C")}),
    (SEAL, "seal temperature 160 F, load 80% or 90%", {"Seal temperature (°F)": "160"},
     {"Load (%)": ("80%", "90%")}),
    # a range between two values is one value; two things joined are each's
    (RISK, "温度在20和25度之间，湿度90%", {"温度(℃)": "20和25度之间", "相对湿度(%)": "90"}, {}),
    (TEMPERATURE, "temperature between 20 and 25 C", {"Temperature (°C)": "between 20 and 25 C"},
     {}),
    (RISK, "温度20度和湿度90%", {"温度(℃)": "20", "相对湿度(%)": "90"}, {}),
])
def test_two_values_listed_for_one_input_are_a_conflict(table, question, values, conflicts):
    assert table is not None
    given = read_inputs(question, table)
    assert (given.values, given.conflicts) == (values, conflicts)
