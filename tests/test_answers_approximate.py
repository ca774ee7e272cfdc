"""A value the question gives only roughly (大约90%, 90%左右, ``about 90%``, ``~90%``, ``90% or
so``) is read as that value and marked approximate: the evaluation names it
(`Evaluation.approximate`, the message), and ``kb query`` (text and JSON), the web page and
the MCP search tool say so."""

from __future__ import annotations

import json

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
from kbtools.query.answers import DEPENDS_NOTE, evaluate_inputs
from kbtools.query.compacted import compact
from kbtools.query.inputs import read_inputs
from kbtools.query.values import numbers
from kbtools.serve.app import create_app

RISK = build_table(*SCAB_TABLE[:2], decision=SCAB_TABLE[2])


@pytest.mark.parametrize("question", [
    "温度20度，湿度90%左右", "温度20度，湿度大约90%", "温度20度，湿度约90%", "20 C, about 90%",
    "20 C, ~90%", "20 C, 90% or so", "20 C, rh around 90%", "温度20度，湿度差不多90%",
    # abbreviations with their period, spaced or not, and words after the value
    "20 C, approx. 90%", "20 C, Approx.90%", "20 C, ca. 90%", "20 C, est. 90%",
    "20 C, circa 90%", "20 C, around 90 %", "20 C, roughly 90%", "20 C, some 90%",
    "20 C, 90% approx.", "20 C, 90% approximately", "20 C, humidity 90%ish",
    "温度20度，湿度近90%", "温度20度，湿度约 90%", "温度20度，湿度大约是90%", "温度20度，湿度大概在90%",
    "温度20度，湿度90%前后", "温度20度，湿度大致90%",
])
def test_a_rough_value_is_read_and_marked_approximate(question):
    assert RISK is not None
    given = read_inputs(question, RISK)
    assert given.values == {"温度(℃)": "20", "相对湿度(%)": "90"}
    assert given.approximate == {"相对湿度(%)": "90%"}
    ev = evaluate_inputs("d.md", 1, RISK, given.values, given.conflicts, given.approximate)
    assert ev.status == "match" and ev.row == 2
    assert ev.approximate == {"相对湿度(%)": "90%"}
    assert ev.message == "row 2 matches (approximate value: 相对湿度(%) 90%)"
    assert ev.to_dict()["approximate"] == {"相对湿度(%)": "90%"}


@pytest.mark.parametrize("question", [
    "温度20度，湿度90%", "20 C, 90%", "handsome 20 C, 90%", "温度20~25度，湿度90%",
])
def test_an_exact_value_is_not_approximate(question):
    assert RISK is not None
    assert read_inputs(question, RISK).approximate == {}


@pytest.mark.parametrize(("question", "values"), [
    # a sentence end or a version is no abbreviation: the number after it is read, exactly
    ("it is 20 C. 90% humidity", {"温度(℃)": "20", "相对湿度(%)": "90"}),
    ("version v2. 20 C, 90%", {"温度(℃)": "20", "相对湿度(%)": "90"}),
    ("temperature 20.5 C, humidity 90%", {"温度(℃)": "20.5", "相对湿度(%)": "90"}),
    ("温度20度。湿度90%", {"温度(℃)": "20", "相对湿度(%)": "90"}),
    # 接近, 将近 (``nearly``) stay bounds: the value is missing, not approximate
    ("温度20度，湿度接近90%", {"温度(℃)": "20"}),
    ("温度20度，湿度将近90%", {"温度(℃)": "20"}),
])
def test_a_period_before_a_number_is_no_approximation(question, values):
    assert RISK is not None
    given = read_inputs(question, RISK)
    assert given.values == values
    assert given.approximate == {}


DOC = SCAB_DOC
QUESTION = "小麦赤霉病风险：温度22度，相对湿度90%左右"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={"knowledge/risk.md": DOC})
    build(load_config(root), BuildOptions(progress=False))
    return root


def test_every_surface_says_the_value_is_approximate(repo):
    ev = search(open_index(repo / "dist"), QUESTION, k=3).results[0].evaluation
    assert ev is not None and ev["status"] == "match", ev
    assert ev["approximate"] == {"相对湿度(%)": "90%"} and ev["outputs"] == [{"风险": "高"}]
    out = CliRunner().invoke(main, ["query", QUESTION, "--index", str(repo / "dist"),
                                    "--json", "-k", "3"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["results"][0]["evaluation"]["approximate"] == \
        {"相对湿度(%)": "90%"}
    text, zh, en, mcp = surfaces(repo, QUESTION)
    # (framed in Chinese for a Chinese question, as its message is: session 48)
    assert "近似值：相对湿度(%) 90%，接近规则边界时结果可能不同" in text
    assert "近似值：相对湿度(%) 90%，接近规则边界时结果可能不同" in zh
    assert "approximate value: 相对湿度(%) 90%; near a rule&#39;s bound the answer may differ" in en
    assert mcp["approximate"] == {"相对湿度(%)": "90%"}


def surfaces(repo, question):
    """What `kb query` prints, the web page in Chinese and in English, and the MCP search's
    first evaluation, for `question` on the built `repo`."""
    text = CliRunner().invoke(main, ["query", question, "--index", str(repo / "dist"), "-k", "3"])
    assert text.exit_code == 0, text.output
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        zh = client.get("/", params={"q": question, "lang": "zh"}).text
        en = client.get("/", params={"q": question, "lang": "en"}).text

    async def call():
        return await build_server(index=repo / "dist", root=repo).call_tool(
            "search", {"query": question, "k": 3})

    result = anyio.run(call)
    assert not result.is_error, result.content[0].text
    return text.output, zh, en, json.loads(result.content[0].text)["results"][0]["evaluation"]


SPOTS = build_table(["病叶率(%)", "相对湿度(%)", "风险"],
                    [["<5", ">=85", "中"], [">=5", ">=85", "高"], ["*", "<85", "低"]],
                    decision="inputs=病叶率(%),相对湿度(%); outputs=风险")


@pytest.mark.parametrize("question", ["病叶率3%，湿度近90%", "湿度近90%，病叶率3%",
                                      "leaf spot rate 3%, humidity approx. 90%"])
def test_a_rough_value_is_bound_by_its_name_among_columns_of_one_unit(question):
    assert SPOTS is not None
    given = read_inputs(question, SPOTS, {"病叶率": ["leaf spot rate"], "相对湿度": ["humidity"]})
    assert given.values == {"病叶率(%)": "3", "相对湿度(%)": "90"}
    assert given.approximate == {"相对湿度(%)": "90%"}


@pytest.mark.parametrize("text", ["最近3天下雨", "附近3个", "接近3天"])
def test_a_word_ending_in_near_makes_no_approximate_value(text):
    assert [n.approximate for n in numbers(compact(text))] == [False]


@pytest.mark.parametrize(("question", "row", "near"), [
    ("温度约15度，湿度90%", 2, {"温度(℃)": "≥15"}),  # on the bound
    ("about 15 C, 90%", 2, {"温度(℃)": "≥15"}),
    ("温度约14.5度，湿度90%", 1, {"温度(℃)": "<15"}),  # just below it
    ("温度20度，湿度约86%", 2, {"相对湿度(%)": "≥85"}),
    ("温度约15度，湿度约85%", 2, {"温度(℃)": "≥15", "相对湿度(%)": "≥85"}),
    ("温度20度，湿度约90%", 2, {}),  # 5 points off the bound: the row stands
    ("温度约25度，湿度90%", 2, {}),
])
def test_an_approximate_value_near_the_matched_rows_bound_makes_the_answer_depend_on_it(
        question, row, near):
    assert RISK is not None
    given = read_inputs(question, RISK)
    ev = evaluate_inputs("d.md", 1, RISK, given.values, given.conflicts, given.approximate)
    assert ev.status == "match" and ev.row == row
    assert ev.near_bound == near and ev.to_dict()["near_bound"] == near
    assert (DEPENDS_NOTE in ev.message) == bool(near)
    for column, condition in near.items():
        assert f"{column} {condition}" in ev.message


def test_an_exact_value_on_a_bound_is_not_said_to_depend():
    assert RISK is not None
    given = read_inputs("温度15度，湿度85%", RISK)
    ev = evaluate_inputs("d.md", 1, RISK, given.values, given.conflicts, given.approximate)
    assert ev.status == "match" and ev.near_bound == {} and ev.message == "row 2 matches"


NEAR = "小麦赤霉病风险：温度约15度，相对湿度90%"


def test_every_surface_says_the_answer_depends_on_the_exact_value(repo):
    ev = search(open_index(repo / "dist"), NEAR, k=3).results[0].evaluation
    assert ev is not None and ev["status"] == "match", ev
    assert ev["near_bound"] == {"温度(℃)": "≥15"}
    text, zh, en, mcp = surfaces(repo, NEAR)
    assert "结果取决于确切数值：温度(℃) ≥15 接近所匹配规则的边界" in text
    assert "结果取决于确切数值：温度(℃) ≥15 接近所匹配规则的边界" in zh
    assert "the answer depends on the exact value: 温度(℃) ≥15 near the matched rule" in en
    assert mcp["near_bound"] == {"温度(℃)": "≥15"}


@pytest.mark.parametrize(("question", "line", "typed", "message"), [
    ("小麦赤霉病风险：温度二十五，相对湿度0.9",
     "按问题中的数值判定（温度(℃)=二十五（读作 25）、相对湿度(%)=0.9（读作 90））",
     {"温度(℃)": "二十五", "相对湿度(%)": "0.9"}, "二十五 为 25"),
    ("小麦赤霉病风险 temperature 2 k, humidity 90%", "按问题中的数值判定（温度(℃)=2 k、相对湿度(%)=90）",
     {"温度(℃)": "2 k"}, "“2 k”"),
])
def test_the_inputs_line_quotes_each_value_as_typed_and_what_it_was_read_as(
        repo, question, line, typed, message):
    """`kb query`'s line of inputs showed the values as compacted and read (温度(℃)=2k,
    温度(℃)=25 for 二十五, the reading said nowhere in the text), and a refusal quoted
    ``2 k`` as “2”: each value is quoted as typed, with what it was read as, and the JSON
    (``typed``) and MCP say the same."""
    text, _, _, mcp = surfaces(repo, question)
    assert line in text, text
    out = CliRunner().invoke(main, ["query", question, "--index", str(repo / "dist"),
                                    "--json", "-k", "3"])
    ev = json.loads(out.output)["results"][0]["evaluation"]
    assert ev["typed"] == typed == mcp["typed"] and ev["message"] == mcp["message"], ev
    assert message in ev["message"], ev["message"]
