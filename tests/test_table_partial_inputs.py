"""A decision table answered without every input, the same on every surface (session 30).

A search evaluates a question's values and answers a row when each input the question left
out is one the row takes any value of (``*``): "温度 16 度、湿度 80%" is row 2 of the wheat
scab table whatever the rain days. `kb table eval`, the MCP tool, `/api/table/evaluate` and
the table form refused the same values ("missing input"), so the results page said "row 2"
and its *Decision table* button led to a form that decided nothing. A real build, the app
through Starlette's client, the CLI through click's runner."""

from __future__ import annotations

import html
import json
import re

import pytest
from click.testing import CliRunner
from kbfixtures import VENT_PAGE, copy_example
from servefixtures import git
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.serve.app import create_app

pytestmark = pytest.mark.slow

SCAB = "knowledge/crops/wheat-scab.md"
RUST = "knowledge/crops/corn-southern-rust.md"
VENT = "knowledge/engineering/greenhouse-vent.md"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = copy_example(tmp_path_factory.mktemp("partial") / "kb")  # the example knowledge
    (root / VENT).parent.mkdir(parents=True, exist_ok=True)
    (root / VENT).write_text(VENT_PAGE, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "vent")
    build(load_config(root), BuildOptions(progress=False))
    return root


@pytest.fixture(scope="module")
def client(repo):
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as c:
        yield c


def top_evaluation(client, question: str) -> tuple[str, dict]:
    got = client.get("/api/search", params={"q": question, "k": 1}).json()
    top = got["results"][0]
    assert top.get("evaluated"), (question, top["doc"])
    return top["doc"], top["evaluation"]


def table_eval(repo, doc: str, inputs: dict[str, str], monkeypatch) -> tuple[int, str]:
    monkeypatch.chdir(repo)
    res = CliRunner().invoke(main, ["table", "eval", "--json", doc,
                                    *(f"{k}={v}" for k, v in inputs.items())])
    return res.exit_code, res.output


@pytest.mark.parametrize("question,doc,row,left_out", [
    ("小麦赤霉病风险 温度 16 度 湿度 80%", SCAB, 2, ["连续降雨天数"]),
    ("小麦扬花期气温 10 度，赤霉病风险多高？", SCAB, 1, ["相对湿度(%)", "连续降雨天数"]),
    ("玉米南方锈病风险 日均温 35 度", RUST, 4, ["相对湿度(%)"]),
    ("greenhouse ventilation: temperature 12 °C, what should I do with the vents?", VENT, 1,
     ["Humidity (%)"]),
])
def test_a_row_the_left_out_inputs_cannot_change_is_answered_everywhere(
        repo, client, monkeypatch, question, doc, row, left_out):
    found, ev = top_evaluation(client, question)
    assert found == doc and ev["status"] == "match" and ev["row"] == row
    assert ev["missing"] == [] and not set(left_out) & set(ev["inputs"])

    code, out = table_eval(repo, doc, ev["inputs"], monkeypatch)
    assert code == 0, out
    cli = json.loads(out)
    assert (cli["status"], cli["selected"], cli["outputs"]) == ("match", [row], ev["outputs"])
    assert ", ".join(left_out) in cli["message"]
    # the search's message is in the question's language; kb table eval's, given no question,
    # in English
    chinese = any("\u4e00" <= ch <= "\u9fff" for ch in question)
    assert ev["message"] == (f"第{row}行匹配；未给出，但接受任意值：{'、'.join(left_out)}"
                             if chinese else cli["message"])
    cells = {c["column"]: c for c in cli["matches"][0]["cells"]}
    assert all(cells[c]["reason"].startswith("not given") for c in left_out)

    api = client.post("/api/table/evaluate", json={"doc": doc, "inputs": ev["inputs"]})
    assert api.status_code == 200, api.text
    assert api.json()["selected"] == [row]

    # the results page's Decision table button opens the form decided as the result says
    page = client.get("/", params={"q": question, "lang": "en"}).text
    link = html.unescape(re.search(r'href="(/table/[^"]+)"', page).group(1))
    assert "go=1" in link
    form = client.get(link + "&lang=en")
    assert form.status_code == 200
    text = html.unescape(re.sub(r"<[^>]+>", " ", form.text))
    assert f"row {row}" in text and "not given; any value accepted" in text
    assert all(value in text for value in ev["outputs"][0].values())


@pytest.mark.parametrize("question,doc,inputs,asks", [
    ("温度 18 度时小麦赤霉病风险等级", SCAB, {"温度": "18"}, "相对湿度(%), 连续降雨天数"),
    ("玉米南方锈病 日均温 25 度 风险", RUST, {"日均温": "25"}, "相对湿度(%)"),
    ("greenhouse ventilation at 25 °C, open the vents?", VENT, {"Temperature": "25"},
     "Humidity (%)"),
])
def test_an_answer_a_left_out_input_decides_is_still_asked_for_everywhere(
        repo, client, monkeypatch, question, doc, inputs, asks):
    found, ev = top_evaluation(client, question)
    assert found == doc and ev["status"] == "missing_inputs"
    code, out = table_eval(repo, doc, inputs, monkeypatch)
    assert code == 1 and f"missing input for column(s) {asks}" in out
    api = client.post("/api/table/evaluate", json={"doc": doc, "inputs": inputs})
    assert api.status_code == 400 and "missing input" in api.json()["error"]["message"]


def test_the_table_form_decides_what_it_can_from_the_values_given(client):
    """The form required every input (the browser would not send it without them); it now
    answers from those given when the others cannot change the row, and names the ones
    that can when they do."""
    form = client.get(f"/table/{SCAB}", params={"table": 1})
    assert "required" not in re.findall(r"<input[^>]*name=\"in\.\d\"[^>]*>", form.text)[0]
    decided = client.get(f"/table/{SCAB}", params={"table": 1, "in.0": "10", "go": 1, "lang": "zh"})
    assert decided.status_code == 200
    assert "第 1 行" in html.unescape(decided.text)
    assert "未给出；接受任意值" in html.unescape(decided.text)
    asked = client.get(f"/table/{SCAB}", params={"table": 1, "in.0": "18", "go": 1, "lang": "zh"})
    assert asked.status_code == 400 and "连续降雨天数" in html.unescape(asked.text)
    nothing = client.get(f"/table/{SCAB}", params={"table": 1, "go": 1})
    assert nothing.status_code == 400
