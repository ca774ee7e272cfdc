"""One citation string on every surface an agent or a technician searches through: `kb query
--json`, `kb query --batch --json`, the JSON API's `/api/search` and the MCP `search` tool give
each result the same ``citation`` (``doc:12-20 § A > B``), and every door that takes a
document takes that string back as it is: `/api/read`, `/api/table/evaluate`, `kb table eval`
and the MCP tools. Before session 32 only MCP gave it, so a CLI or HTTP caller assembled one
from ``doc``, ``line_start``/``line_end`` and ``heading_path`` itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import Context, tool_evaluate_table, tool_read, tool_search
from kbtools.cli import main
from kbtools.serve.app import create_app

pytestmark = pytest.mark.slow

BASE = "http://127.0.0.1"
SCAB_TABLE_Q = "小麦扬花期 温度 22 度 湿度 90% 连续降雨 4 天 风险多高"
QUESTIONS = [SCAB_TABLE_Q, "E17 故障码 含义", "What does fault code E17 mean?",
             "hydraulic oil grade", "稀释倍数 计算公式"]


def expected_citation(r: dict[str, Any]) -> str:
    """The citation a result's own fields spell (what a caller had to assemble)."""
    where = " > ".join(r["heading_path"])
    return f"{r['doc']}:{r['line_start']}-{r['line_end']}" + (f" § {where}" if where else "")


def cli_json(index: Path, *args: str) -> Any:
    res = CliRunner().invoke(main, ["query", "--index", str(index), "--no-log", "--json", *args])
    assert res.exit_code == 0, res.output
    return res.stdout


@pytest.fixture(scope="module")
def client(example_index):
    with TestClient(create_app(example_index), base_url=BASE) as c:
        yield c


@pytest.mark.parametrize("question", QUESTIONS)
def test_cli_api_and_mcp_give_each_result_the_same_citation(example_index, client, question):
    printed = json.loads(cli_json(example_index, "-k", "6", question))
    api = client.get("/api/search", params={"q": question, "k": 6}).json()
    mcp = tool_search(Context(index=example_index, query_log=False), question, k=6)
    assert printed["results"], question
    for surface in (printed, api, mcp):
        assert [r["citation"] for r in surface["results"]] == \
            [expected_citation(r) for r in surface["results"]]
        # additive: every key of the contract is still there, the citation after them
        assert list(surface["results"][0])[:3] == ["rank", "score", "chunk_id"]
        assert list(surface["results"][0])[-1] == "citation"
    by_chunk = {r["chunk_id"]: r["citation"] for r in mcp["results"]}
    assert {r["chunk_id"]: r["citation"] for r in printed["results"]} == by_chunk
    assert {r["chunk_id"]: r["citation"] for r in api["results"]} == by_chunk


def test_batch_lines_carry_the_citation_too(example_index, tmp_path):
    batch = tmp_path / "q.jsonl"
    batch.write_text("".join(json.dumps({"id": n, "query": q}, ensure_ascii=False) + "\n"
                             for n, q in enumerate(QUESTIONS[1:3])), encoding="utf-8")
    lines = [json.loads(x) for x in cli_json(example_index, "--batch", str(batch)).splitlines()]
    assert len(lines) == 2
    for line in lines:
        assert line["results"] and all(r["citation"] == expected_citation(r)
                                       for r in line["results"])


def test_a_printed_citation_reads_back_through_the_api(example_index, client):
    """Each citation `kb query --json` prints, passed as `doc` to `/api/read`, reads the
    section (or lines) holding the cited lines, as MCP `read` reads it."""
    ctx = Context(index=example_index, query_log=False)
    for question in QUESTIONS:
        for r in json.loads(cli_json(example_index, "-k", "4", question))["results"]:
            resp = client.get("/api/read", params={"doc": r["citation"]})
            assert resp.status_code == 200, (r["citation"], resp.text)
            got = resp.json()
            assert got["doc"] == r["doc"]
            assert got["line_start"] <= r["line_start"] and r["line_end"] <= got["line_end"]
            mcp = tool_read(ctx, r["citation"])
            assert (mcp["line_start"], mcp["line_end"], mcp["markdown"]) == \
                (got["line_start"], got["line_end"], got["markdown"])


def test_a_printed_table_citation_evaluates_through_the_api_and_the_cli(example_index,
                                                                        client):
    """The citation of a decision-table result, as printed, is the table to evaluate for
    `/api/table/evaluate`, `kb table eval` and MCP `evaluate_table` alike."""
    results = json.loads(cli_json(example_index, "-k", "3", SCAB_TABLE_Q))["results"]
    cited = next(r["citation"] for r in results if r["kind"] in ("table", "table_row"))
    assert " § " in cited  # the whole citation, heading path and all
    inputs = {"温度": "22", "相对湿度": "90", "连续降雨天数": "4"}
    api = client.post("/api/table/evaluate", json={"doc": cited, "inputs": inputs})
    assert api.status_code == 200, api.text
    assert api.json()["status"] == "match" and api.json()["outputs"][0]["风险等级"] == "极高"
    res = CliRunner().invoke(main, ["table", "eval", "--index", str(example_index), "--json",
                                    cited, *(f"{k}={v}" for k, v in inputs.items())])
    assert res.exit_code == 0, res.output
    cli = json.loads(res.stdout)
    mcp = tool_evaluate_table(Context(index=example_index, query_log=False), cited, inputs)
    assert cli["selected"] == mcp["selected"] == api.json()["selected"]
    assert cli["citation"] == mcp["citation"] == api.json()["citation"]
