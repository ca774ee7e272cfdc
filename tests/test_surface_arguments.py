"""The same arguments read alike on every agent surface: the MCP tools (a real `kb mcp`
server over stdio) and the JSON API (`kb serve`'s app through Starlette's test client), over
one real index built from a small knowledge repository.

What differed: the API dropped a parameter it does not take without a word
(`/api/read?heading=3.2` returned the whole document as if it were the section, where the
MCP tool refuses `heading` by name); the MCP tools refused `k: null`, which agents send for
an optional argument they do not set (the API returns its 5 results); `verified_only` was
read by pydantic's lax rules over MCP (`"t"`, `"y"`, `"n"`) and by the API's own words over
HTTP; and a blank `where` was no filter to the API but a bad filter to the MCP tool.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hostile import mcp_client
from hypothesis import given, settings
from hypothesis import strategies as st
from servefixtures import make_served_repo
from starlette.testclient import TestClient

from kbtools.serve.app import create_app

pytestmark = pytest.mark.slow

KB = str(Path(sys.executable).with_name("kb"))
SCAB = "knowledge/crops/wheat-scab.md"
Q = "赤霉病 用药"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return make_served_repo(tmp_path_factory.mktemp("surfaces") / "kr")


@pytest.fixture(scope="module")
def api(repo):
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        yield client


def mcp_calls(repo: Path, calls: list[tuple[str, dict]]) -> list:
    """Each (tool, arguments) of `calls` sent to a real `kb mcp --index dist` server."""
    env = {"KB_HOME": str(repo / ".kbhome"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PATH": os.environ.get("PATH", "")}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]

    async def scenario(client):
        return [await client.call_tool(tool, args) for tool, args in calls]

    return mcp_client([KB, "mcp", "--index", str(repo / "dist")], repo, env, scenario)


def api_error(resp, status: int = 400) -> str:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"} and body["error"]["status"] == status
    message = body["error"]["message"]
    assert "\n" not in message
    return str(message)


def same_search(mcp: dict, http: dict) -> None:
    """The MCP result and the API's are one answer, citations included (MCP adds a notice)."""
    mcp = json.loads(json.dumps(mcp))
    assert all(r["citation"] for r in mcp["results"])
    for out in (mcp, http):
        out.pop("took_ms", None)
        out.pop("notice", None)
    assert mcp == http


def test_the_api_refuses_a_parameter_it_does_not_take(api):
    """`heading` for `heading_path` read the whole document (200, cited 20-100) as if it were
    section 3.2; `top_k` gave 5 results; a table's `tables` or a diff's `from` did nothing.
    Each is now refused by name, with the parameters the endpoint takes, as MCP refuses it."""
    resp = api.get("/api/read", params={"doc": SCAB, "heading": "3.2"})
    assert api_error(resp) == ("unknown parameter 'heading' (/api/read takes doc, heading_path, "
                               "line_start, line_end, commit, release)")
    section = api.get("/api/read", params={"doc": SCAB, "heading_path": "3.2"})
    assert section.status_code == 200 and section.json()["line_start"] == 60
    for resp in (api.get("/api/search", params={"q": Q, "top_k": 2}),
                 api.post("/api/search", json={"query": Q, "top_k": 2})):
        assert api_error(resp) == ("unknown parameter 'top_k' (/api/search takes q, query, k, "
                                   "where, verified_only, commit, release)")
    resp = api.post("/api/table/evaluate", json={
        "doc": SCAB, "inputs": {"温度": 18, "相对湿度": 90, "连续降雨天数": 2}, "tables": 2})
    assert "unknown parameter 'tables' (/api/table/evaluate takes doc, inputs, table, policy, commit, release)" \
        == api_error(resp)
    assert "unknown parameter 'from'" in api_error(api.get("/api/diff", params={"from": "kb-r1"}))
    # a POST reads its JSON body alone: `?k=3` gave 5 results
    resp = api.post("/api/search?k=3", json={"query": Q})
    assert api_error(resp) == ("'k' is in the query string: a POST to /api/search takes its "
                               "parameters in the JSON body")
    # the server's own `?token=` is no endpoint's parameter to refuse
    assert api.post("/api/search?token=x", json={"query": Q, "k": 1}).status_code == 200
    assert api.get("/api/read", params={"doc": SCAB, "heading_path": "3.2",
                                        "token": "x"}).status_code == 200


def test_null_for_an_optional_argument_is_the_argument_left_out(repo, api):
    """Agents send null for each optional argument they do not set: `k: null` was refused
    ("k: Input should be a valid integer") where the API answers with its 5 results. A null
    for an argument a tool needs is still refused."""
    got = mcp_calls(repo, [
        ("search", {"query": Q, "k": None, "where": None, "verified_only": None}),
        ("read", {"doc": SCAB, "heading_path": "3.2", "line_start": None, "line_end": None}),
        ("evaluate_table", {"doc": SCAB, "inputs": {"温度": 18, "相对湿度": 90,
                                                    "连续降雨天数": 2},
                            "table": None, "policy": None}),
        ("search", {"query": None}),
        ("evaluate_table", {"doc": SCAB, "inputs": None})])
    assert not any(r.is_error for r in got[:3]), [r.content[0].text for r in got[:3]]
    http = api.post("/api/search", json={"query": Q, "k": None, "where": None,
                                         "verified_only": None})
    assert http.status_code == 200 and len(http.json()["results"]) == 5
    same_search(got[0].structured_content, http.json())
    assert got[1].structured_content["line_start"] == 60
    assert got[2].structured_content["outputs"] == [{"风险等级": "中",
                                                     "建议措施": "备足药剂，扬花初期预防喷药一次"}]
    assert "invalid arguments: query: expected a string, not null" in got[3].content[0].text
    assert "invalid arguments: inputs:" in got[4].content[0].text
    assert all(r.is_error for r in got[3:])



def test_an_empty_string_for_an_optional_number_is_the_number_left_out(repo, api):
    """`k: ""` and `line_end: ""` (a form's empty field, an agent's "not set") were refused
    over MCP ("not a valid integer") where the API takes them as not given; a text argument's
    "" keeps its own meaning (an empty `policy` is refused by both)."""
    three = {"doc": SCAB, "inputs": {"温度": 18, "相对湿度": 90, "连续降雨天数": 2}}
    got = mcp_calls(repo, [("search", {"query": Q, "k": ""}),
                           ("read", {"doc": SCAB, "line_start": "60", "line_end": ""}),
                           ("evaluate_table", {**three, "policy": ""})])
    http = api.post("/api/search", json={"query": Q, "k": ""})
    assert not got[0].is_error, got[0].content[0].text
    same_search(got[0].structured_content, http.json())
    read = api.get("/api/read", params={"doc": SCAB, "line_start": "60", "line_end": ""})
    assert not got[1].is_error, got[1].content[0].text
    mcp = dict(got[1].structured_content)
    mcp.pop("notice")
    assert read.json() == mcp and (mcp["line_start"], mcp["line_end"]) == (60, 100)
    assert got[2].is_error and "policy" in got[2].content[0].text
    assert "'policy' must be" in api_error(api.post("/api/table/evaluate",
                                                    json={**three, "policy": ""}))


FLAGS = ["t", "y", "n", "f", 2, 1.0, "yes", " OFF ", "True", 1, 0, "", True, False]
WHERE = ["", " ", [" ", "crop=小麦"], [], ["", ""], "crop=小麦"]


def test_flags_and_filters_are_read_alike(repo, api):
    """`verified_only` and `where` give the same answer, or the same refusal, over MCP and
    the API: MCP took "t", "y" and "n" (pydantic's lax booleans) that the API refuses, and
    refused a blank `where` the API reads as no filter."""
    calls = [("search", {"query": Q, "k": 3, "verified_only": v}) for v in FLAGS]
    calls += [("search", {"query": Q, "k": 3, "where": w}) for w in WHERE]
    got = mcp_calls(repo, calls)
    bodies = [{"verified_only": v} for v in FLAGS] + [{"where": w} for w in WHERE]
    for (_, args), res, extra in zip(calls, got, bodies, strict=True):
        http = api.post("/api/search", json={"query": Q, "k": 3, **extra})
        if http.status_code == 400:
            assert res.is_error, (args, http.json())
            assert "verified_only" in res.content[0].text
            continue
        assert http.status_code == 200, http.text
        assert not res.is_error, (args, res.content[0].text)
        same_search(res.structured_content, http.json())
    refused = {v for v, r in zip(FLAGS, got, strict=False) if r.is_error}
    assert refused == {"t", "y", "n", "f", 2, 1.0}
    where = [r.structured_content["filters"]["where"] for r in got[len(FLAGS):]]
    assert where == [[], [], ["crop=小麦"], [], [], ["crop=小麦"]]


def test_a_heading_path_given_heading_by_heading_is_the_path(repo, api):
    """A client sends a list as a repeated query parameter: `heading_path=3. 发病风险判定&
    heading_path=1.1 田间症状` read the last one alone (section 1.1, under another parent
    than the path said, 200) where the MCP tool given the list says there is no such
    section. Repeated, the headings are the path; a parameter that is one value (`doc`,
    `q`) given twice is refused (the last one was read)."""
    wrong, right = ["3. 发病风险判定", "1.1 田间症状"], ["3. 发病风险判定", "3.2 风险等级判定表"]
    got = mcp_calls(repo, [("read", {"doc": SCAB, "heading_path": wrong}),
                           ("read", {"doc": SCAB, "heading_path": right})])
    resp = api.get("/api/read", params={"doc": SCAB, "heading_path": wrong})
    message = api_error(resp, 404)
    assert message.startswith("no section '3. 发病风险判定 > 1.1 田间症状' in " + SCAB)
    # (MCP says it in Chinese, the headings asked for being Chinese: `kbtools.words`)
    assert got[0].is_error and f"文档 {SCAB} 中没有“3. 发病风险判定 > 1.1 田间症状”这一节" in \
        got[0].content[0].text
    section = api.get("/api/read", params={"doc": SCAB, "heading_path": right})
    assert section.status_code == 200
    mcp = dict(got[1].structured_content)
    mcp.pop("notice")
    assert section.json() == mcp and mcp["line_start"] == 60
    twice = api.get("/api/read", params={"doc": [SCAB, "knowledge/crops/rice-blast.md"]})
    assert api_error(twice) == "'doc' given 2 times; give it once"
    assert api_error(api.get("/api/search", params={"q": ["a", Q]})) == \
        "'q' given 2 times; give it once"
    for resp in (api.get("/api/search", params={"q": "施药步骤", "query": Q}),
                 api.post("/api/search", json={"q": "施药步骤", "query": Q})):
        # a GET searched `q`, a POST `query`: one request, two answers
        assert api_error(resp) == ("the question is given twice, as 'q' and as 'query'; "
                                   "give one")
    filtered = api.get("/api/search", params={"q": Q, "where": ["crop=小麦", "verified=true"]})
    assert filtered.json()["filters"]["where"] == ["crop=小麦", "verified=true"]


FLAG_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True),
    st.sampled_from(["", " ", "1", "0", "true", "FALSE", " Yes ", "no", "on", "OFF", "t", "f",
                     "y", "n", "null", "2", "１", "tru"]),
    st.text(max_size=6), st.lists(st.booleans(), max_size=2))


@settings(max_examples=600, deadline=None)
@given(FLAG_VALUES)
def test_a_flag_is_read_alike_by_the_api_and_the_mcp_schema(value):
    """Whatever an agent sends as `verified_only`, the MCP parameter and the API's check take
    it as the same true/false/absent, or both refuse it."""
    from pydantic import TypeAdapter, ValidationError

    from kbtools.agents.parameters import VerifiedOnly
    from kbtools.serve.ops import ApiError, check_flag

    try:
        http: object = check_flag(value, "verified_only")
    except ApiError:
        http = "refused"
    try:
        mcp: object = TypeAdapter(VerifiedOnly).validate_python(value)
    except ValidationError:
        mcp = "refused"
    assert mcp == http, value


def test_a_line_range_written_backwards_is_read_alike(repo, api, monkeypatch):
    """The field app reads ``?lines=62-60`` as lines 60-62 (w44c); `kb read x.md:62-60`,
    `--lines 62-60`, MCP `read` with line_start 62 and line_end 60 and /api/read refused
    them ("bad line range 62-60 (1-based, start ≤ end)"): each reads lines 60-62."""
    from click.testing import CliRunner

    from kbtools.cli import main

    got = mcp_calls(repo, [("read", {"doc": SCAB, "line_start": 62, "line_end": 60}),
                           ("read", {"doc": f"{SCAB}:62-60"}),
                           ("read", {"doc": SCAB, "line_start": 60, "line_end": 62})])
    forward = dict(got[2].structured_content)
    for res in got[:2]:
        assert not res.is_error, res.content[0].text
        assert dict(res.structured_content) == forward
    assert (forward["line_start"], forward["line_end"]) == (60, 62)
    http = api.get("/api/read", params={"doc": SCAB, "line_start": "62", "line_end": "60"})
    assert http.status_code == 200, http.text
    assert (http.json()["line_start"], http.json()["line_end"]) == (60, 62)
    page = api.get(f"/doc/{SCAB}", params={"lines": "62-60", "lang": "zh"})
    assert "第 60–62 行" in page.text
    monkeypatch.chdir(repo)
    runner = CliRunner()
    want = runner.invoke(main, ["read", SCAB, "--lines", "60-62", "--index", "dist"])
    assert want.exit_code == 0 and want.stdout.startswith(f"{SCAB}:60-62 § ")
    for args in ([f"{SCAB}:62-60"], [SCAB, "--lines", "62-60"], [SCAB, "--lines", "６２－６０"]):
        res = runner.invoke(main, ["read", *args, "--index", "dist"])
        assert (res.exit_code, res.stdout) == (0, want.stdout), (args, res.output)
