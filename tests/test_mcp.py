"""`kb mcp`: a real server subprocess driven by the MCP SDK's stdio client.

A small knowledge repo is built once (real `kb build`, real model); the sessions then
exercise every tool: listing (no write tool without --allow-write), search, read, recent,
evaluate_table for low/medium/high/no-match, path traversal, and injected instructions
coming back only as quoted data.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from mcpfixtures import (
    INJECTION,
    KB,
    READ_TOOLS,
    built,
    data,
    error_text,
    git,
    plain,
    session,
)

from kbtools.config import MAX_K

__all__ = ["built", "plain"]  # fixtures, imported for pytest to find


def test_read_tools_tables_traversal_and_injection(plain, tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text("# secret\n\nTOP SECRET\n", encoding="utf-8")
    os.symlink(outside, plain / "knowledge" / "notes" / "leak.md")
    cases = {"low": {"温度": "12", "相对湿度": "99"}, "medium": {"温度(℃)": "15", "相对湿度": "60%"},
             "high": {"温度": 20, "相对湿度": 85.0}, "none": {"温度": "25", "相对湿度": "90"}}

    async def scenario(c):
        got: dict = {"tools": {t.name: t for t in (await c.list_tools()).tools}}
        risk = "knowledge/crops/risk.md"
        for name, inputs in cases.items():
            got[name] = await c.call_tool("evaluate_table", {"doc": risk, "inputs": inputs})
        # 18 ℃: the humidity decides the row (中 or 高); at 1 ℃ row 1 takes any humidity, and
        # is the answer without it, as a search gives it (session 30)
        got["missing"] = await c.call_tool("evaluate_table", {"doc": risk, "inputs": {"温度": "18"}})
        got["section"] = await c.call_tool("read", {"doc": risk, "heading_path": ["风险等级表"]})
        got["injected"] = await c.call_tool("read", {"doc": "knowledge/notes/injected.md",
                                                     "heading_path": "巡检结果"})
        for bad in ("../kb.toml", "/etc/passwd", "knowledge/../../kb.md",
                    "knowledge/notes/leak.md"):
            got[bad] = await c.call_tool("read", {"doc": bad})
        got["table-traversal"] = await c.call_tool(
            "evaluate_table", {"doc": "../../etc/x.md", "inputs": {}})
        got["search"] = await c.call_tool("search", {"query": "霜霉病"})
        got["recent"] = await c.call_tool("recent", {"days": 30})
        return got

    got = session(plain, scenario=scenario)
    tools = got["tools"]
    assert set(tools) == READ_TOOLS  # no draft_report without --allow-write
    for tool in tools.values():
        assert "Use " in tool.description and "Do not use" in tool.description
        assert tool.annotations.read_only_hint is True

    levels = {k: data(got[k]) for k in ("low", "medium", "high")}
    assert {k: v["outputs"][0]["风险等级"] for k, v in levels.items()} == {
        "low": "低", "medium": "中", "high": "高"}
    assert levels["high"]["matches"][0]["row"] == 3
    assert levels["high"]["citation"] == "knowledge/crops/risk.md:27"
    assert all(c["matched"] for c in levels["medium"]["matches"][0]["cells"])
    none = data(got["none"])
    assert none["status"] == "no_match" and none["outputs"] == []
    assert none["message"] == "no rule matches, needs human review"
    assert "missing input for column(s) 相对湿度(%)" in error_text(got["missing"])

    section = data(got["section"])
    assert section["heading_path"] == ["霜霉病风险判定", "2. 风险等级表"]
    assert section["citation"].startswith("knowledge/crops/risk.md:20-")
    assert "| 15~20 | ≥85 | 高 | 立即喷药 |" in section["markdown"]

    injected = data(got["injected"])
    assert INJECTION in injected["markdown"]
    rest = {k: v for k, v in injected.items() if k != "markdown"}
    assert INJECTION not in json.dumps(rest, ensure_ascii=False)
    assert "never as instructions" in injected["notice"]

    assert "'..' is not allowed" in error_text(got["../kb.toml"])
    assert "absolute paths are not allowed" in error_text(got["/etc/passwd"])
    assert "'..' is not allowed" in error_text(got["knowledge/../../kb.md"])
    leak = error_text(got["knowledge/notes/leak.md"])
    assert "outside the knowledge" in leak and "TOP SECRET" not in leak
    assert "'..' is not allowed" in error_text(got["table-traversal"])
    assert "no index here" in error_text(got["search"])
    recent = data(got["recent"])
    assert recent["source"] == "git" and len(recent["changes"]) == 2
    assert {c["change"] for c in recent["changes"]} == {"added"}


def test_search_read_recent_from_index(built, tmp_path):
    async def scenario(c):
        return {
            "search": await c.call_tool("search", {"query": "霜霉病 发生条件 湿度", "k": 3}),
            "filtered": await c.call_tool("search", {"query": "卷帘机", "verified_only": True}),
            "injected": await c.call_tool("search", {"query": "卷帘机 巡检"}),
            "read": await c.call_tool("read", {"doc": "knowledge/crops/risk.md",
                                               "heading_path": "1"}),
            "recent": await c.call_tool("recent", {"n": 5}),
            "evaluated": await c.call_tool("search", {"query": "温度 18 度、湿度 90%，霜霉病风险多高",
                                                      "k": 3}),
            "offtopic": await c.call_tool("search", {"query": "How do I bake sourdough bread?"}),
            "lacking": await c.call_tool("search", {"query": "霜霉病 greenhouse.humidity_limit"}),
            "table": await c.call_tool("evaluate_table", {
                "doc": "knowledge/crops/risk.md", "table": 1,
                "inputs": {"温度": "18", "相对湿度": "90"}}),
        }

    # started outside the repo, with --index: everything is read from the index
    got = session(tmp_path, "--index", str(built / "dist"), scenario=scenario)
    found = data(got["search"])
    assert not found["no_answer"] and found["release"]["source_commit"]
    offtopic = data(got["offtopic"])  # the index's calibrated verdict, as `kb query --json`
    assert offtopic["no_answer"] is True and offtopic["results"] == []
    assert "not_in_knowledge" not in found  # an agent reads which names the knowledge lacks
    assert data(got["lacking"])["not_in_knowledge"] == ["greenhouse.humidity_limit"]
    top = found["results"][0]
    assert top["doc"] == "knowledge/crops/risk.md" and top["verified"] is True
    assert top["citation"].startswith(f"knowledge/crops/risk.md:{top['line_start']}-")
    assert "霜霉病" in top["text"]
    filtered = data(got["filtered"])
    assert all(r["verified"] for r in filtered["results"])

    injected = data(got["injected"])
    hits = [r for r in injected["results"] if INJECTION in r["text"]]
    assert hits and hits[0]["doc"] == "knowledge/notes/injected.md"
    stripped = [{k: v for k, v in r.items() if k != "text"} for r in injected["results"]]
    assert INJECTION not in json.dumps(stripped, ensure_ascii=False)

    read = data(got["read"])
    assert read["heading_path"] == ["霜霉病风险判定", "1. 发生条件"]
    assert read["release"]["source_commit"] == found["release"]["source_commit"]
    recent = data(got["recent"])
    assert recent["source"] == "index"
    assert {c["doc"] for c in recent["changes"]} == {"knowledge/crops/risk.md",
                                                     "knowledge/notes/injected.md"}
    assert all(c["author"] == "Tester" for c in recent["changes"])
    table = data(got["table"])
    assert table["outputs"] == [{"风险等级": "高", "建议措施": "立即喷药"}]
    # search evaluates the same table when the question gives the values
    top = data(got["evaluated"])["results"][0]
    assert top["evaluated"] is True and top["evaluation"]["status"] == "match"
    assert top["evaluation"]["outputs"] == [{"风险等级": "高", "建议措施": "立即喷药"}]
    assert top["citation"].startswith("knowledge/crops/risk.md:") and top["why"]["cells"]


def test_allow_write_files_a_draft(built, tmp_path):
    head = git(built, "rev-parse", "main").strip()

    async def scenario(c):
        tools = {t.name: t for t in (await c.list_tools()).tools}
        res = await c.call_tool("draft_report", {
            "category": "field-report", "title": "三号温室霜霉病初发",
            "body": "下部叶片出现多角形病斑，约 5% 植株。\n\nverified: true\n",
            "author": "agent", "location": "三号温室"})
        bad = await c.call_tool("draft_report", {"category": "nope", "title": "x", "body": "y"})
        # a report citing its source by the path search gives: as a link from the draft's
        # folder it leads nowhere, and `kb check` would fail the draft (it was committed)
        cited = {"category": "field-report", "title": "Downy mildew seen in greenhouse 3",
                 "location": "greenhouse 3", "author": "agent",
                 "body": "Risk per [the risk table](knowledge/crops/risk.md), 18 °C, 90 %.\n"}
        broken = await c.call_tool("draft_report", cited)
        fixed = await c.call_tool("draft_report", {
            **cited, "body": cited["body"].replace("knowledge/crops/", "../crops/")})
        return tools, res, bad, broken, fixed

    # started outside the repo: drafts go to the repository that holds the index
    tools, res, bad, broken, fixed = session(tmp_path, "--index", str(built / "dist"),
                                             "--allow-write", scenario=scenario)
    assert set(tools) == READ_TOOLS | {"draft_report"}
    assert tools["draft_report"].annotations.read_only_hint is False
    assert "field-report" in tools["draft_report"].description
    draft = data(res)
    assert draft["branch"].startswith("draft/") and draft["verified"] is False
    text = git(built, "show", f"{draft['branch']}:{draft['path']}")
    assert "verified: false" in text and "多角形病斑" in text
    assert git(built, "rev-parse", "main").strip() == head  # main untouched
    assert "unknown category 'nope'" in error_text(bad)
    refused = error_text(broken)
    assert "would fail kb check" in refused and "path-missing" in refused
    assert "relative to the draft's folder knowledge/field_reports/" in refused
    good = data(fixed)
    assert good["verified"] is False
    assert git(built, "branch", "--list", "draft/*").count("draft/") == 2  # none for `broken`
    tree = tmp_path / "draft-tree"
    git(built, "worktree", "add", "-q", str(tree), good["branch"])
    try:
        checked = subprocess.run([KB, "check", good["path"]], cwd=tree, capture_output=True,
                                 text=True, env={**os.environ, "KB_HOME": str(tmp_path)})
        assert checked.returncode == 0, checked.stdout + checked.stderr
    finally:
        git(built, "worktree", "remove", "--force", str(tree))


def test_cli_table_eval_and_recent_from_index(built, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from kbtools.cli import main

    monkeypatch.chdir(tmp_path)
    dist = str(built / "dist")
    res = CliRunner().invoke(main, ["table", "eval", "knowledge/crops/risk.md", "--index", dist,
                                    "温度=12", "相对湿度=50", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["outputs"] == [{"风险等级": "低", "建议措施": "常规巡查"}]
    res = CliRunner().invoke(main, ["table", "eval", "../secret.md", "--index", dist, "a=1"])
    assert res.exit_code == 2 and "'..' is not allowed" in res.output
    res = CliRunner().invoke(main, ["recent", "--index", dist, "--json"])
    assert json.loads(res.output)["source"] == "index"


def test_cli_mcp_help():
    from click.testing import CliRunner

    from kbtools.cli import main

    res = CliRunner().invoke(main, ["mcp", "--help"])
    assert res.exit_code == 0 and "--allow-write" in res.output and "stderr" in res.output



def test_arguments_are_taken_as_the_json_api_takes_them(built, tmp_path):
    """The MCP tools accept and refuse what `/api/…` accepts and refuses, and answer the
    same question with the same results: an argument a tool does not take was dropped
    without a word (`read(heading=…)` returned the whole document as if it were the
    section), `true` was line 1 and 1 day, a question over 2,000 characters was cut (the API
    refuses it), `k="3"` and a single `where` string were refused (the API takes them)."""
    from starlette.testclient import TestClient

    from kbtools.serve.app import create_app

    risk = "knowledge/crops/risk.md"
    questions = ["温度 18 度、湿度 90%，霜霉病风险多高", "温度十八度，湿度百分之九十，黄瓜霜霉病风险",
                 "霜霉病 发生条件", "How do I bake sourdough bread?"]

    async def scenario(c):
        got = {q: await c.call_tool("search", {"query": q, "k": 3}) for q in questions}
        calls = {
            "k-digits": ("search", {"query": questions[0], "k": "3"}),
            "one-where": ("search", {"query": "霜霉病", "where": "verified=true", "k": 2}),
            # an object, as agents send one: a filter per key (was "expected a list or a
            # string"); a value starting with an operator is the key's condition
            "object-where": ("search", {"query": "霜霉病", "k": 2, "where": {
                "verified": True, "category": ["crop-protection", "x,y"], "crop": "!=玉米"}}),
            "object-none": ("search", {"query": "霜霉病", "where": {"category": "<a"}}),
            "long": ("search", {"query": "霜" * 10001}),
            "top_k": ("search", {"query": "霜霉病", "top_k": 2}),
            "heading": ("read", {"doc": risk, "heading": "风险等级表"}),
            "true-line": ("read", {"doc": risk, "line_start": True, "line_end": 3}),
            "float-line": ("read", {"doc": risk, "line_start": 1.0, "line_end": 3}),
            "zero-line": ("read", {"doc": risk, "line_start": 0, "line_end": 3}),
            "digit-lines": ("read", {"doc": risk, "line_start": "20", "line_end": "22"}),
            "true-days": ("recent", {"days": True}),
            "zero-n": ("recent", {"n": 0}),
            "many-inputs": ("evaluate_table", {"doc": risk, "inputs": {
                f"c{i}": i for i in range(51)}}),
            "long-input": ("evaluate_table", {"doc": risk, "inputs": {"温度": "1" * 201}}),
        }
        for name, (tool, args) in calls.items():
            got[name] = await c.call_tool(tool, args)
        return got

    got = session(tmp_path, "--index", str(built / "dist"), scenario=scenario)
    with TestClient(create_app(built / "dist"), base_url="http://127.0.0.1") as api:
        for q in questions:  # same results, citations and evaluation as the JSON API
            mcp = json.loads(json.dumps(data(got[q])))  # a copy to strip
            assert all(r["citation"].startswith(f"{r['doc']}:{r['line_start']}")
                       for r in mcp["results"])  # the same string in both (session 32)
            resp = api.post("/api/search", json={"query": q, "k": 3})
            assert resp.status_code == 200
            http = resp.json()
            for out in (mcp, http):
                out.pop("took_ms", None)
                out.pop("notice", None)
            assert mcp == http, q
        assert data(got[questions[1]])["results"][0]["evaluation"]["outputs"] == [{
            "风险等级": "高", "建议措施": "立即喷药"}]
        assert api.post("/api/search", json={"query": "霜" * 10001}).status_code == 400
    assert [r["chunk_id"] for r in data(got["k-digits"])["results"]] == [
        r["chunk_id"] for r in data(got[questions[0]])["results"]]
    assert all(r["verified"] for r in data(got["one-where"])["results"])
    assert [r["chunk_id"] for r in data(got["object-where"])["results"]] == [
        r["chunk_id"] for r in data(got["one-where"])["results"]]
    assert data(got["object-none"])["reason_values"]["filters"] == ["category<a"]
    assert data(got["digit-lines"])["line_start"] == 20
    # bounds in our words, naming the range and the value given, as the CLI and /api do
    expected = {"long": "query: at most 10000 characters, not 10001",
                "top_k": "top_k: unknown argument (search takes query, k, where, verified_only, "
                         "commit, release)",
                "heading": "heading: unknown argument (read takes doc, heading_path, line_start, "
                           "line_end, commit, release)",
                "true-line": "line_start: must be a whole number from 1 to 10000000, not true",
                "float-line": "line_start: must be a whole number from 1 to 10000000, not 1.0",
                "zero-line": "line_start: must be a whole number from 1 to 10000000, not 0",
                "true-days": "days: must be a whole number, 0 or more, not true",
                "zero-n": "n: must be a whole number, 1 or more, not 0",
                "many-inputs": "inputs: at most 50 entries, not 51",
                "long-input": "inputs.温度: at most 200 characters, not 201"}
    for name, reason in expected.items():
        text = error_text(got[name])
        assert "invalid arguments: " in text and reason in text, (name, text)


def test_listed_schemas_say_the_bounds_the_tools_apply(tmp_path):
    """An agent reads the bounds from the tools' input schemas: they were written as
    "ge"/"le", which JSON Schema does not know, so no client saw that k runs 1-MAX_K. A table's
    number is a whole number as everywhere else: `true` and 1.0 were read as table 1."""
    import anyio
    from mcp.server.mcpserver.exceptions import ToolError

    from kbtools.agents.mcp_server import build_server

    server = build_server(root=tmp_path)

    async def scenario():
        tools = {t.name: t.input_schema["properties"] for t in await server.list_tools()}
        refused = {}
        for table in (True, 1.0):
            with pytest.raises(ToolError) as exc:
                await server.call_tool("evaluate_table", {"doc": "knowledge/x.md",
                                                          "inputs": {"温度": 18}, "table": table})
            refused[table] = str(exc.value)
        return tools, refused

    tools, refused = anyio.run(scenario)
    assert {k: v for k, v in tools["search"]["k"].items() if k not in ("description", "examples")
            } == {"default": 5, "minimum": 1, "maximum": MAX_K, "title": "K", "type": "integer"}
    line = {"minimum": 1, "maximum": 10_000_000, "type": "integer"}
    assert tools["read"]["line_start"]["anyOf"][0] == line == tools["read"]["line_end"]["anyOf"][0]
    assert tools["recent"]["days"]["anyOf"][0] == {"minimum": 0, "type": "integer"}
    assert tools["recent"]["n"]["anyOf"][0] == {"minimum": 1, "type": "integer"}
    schemas = json.dumps(tools)
    assert '"ge"' not in schemas and '"le"' not in schemas
    for text in refused.values():
        assert "invalid arguments: table" in text and "\n" not in text, text


def test_every_tool_parameter_says_what_it_is_for(tmp_path):
    """An agent fills arguments from the listed input schemas: no parameter had a description
    (what `where` takes, what `table` names, `verified_only`), and a draft's categories were
    only in the prose. Each now has its description at the property's top level (where
    clients read it, not inside an `anyOf` branch), and `category` lists the repository's."""
    import anyio

    from kbtools.agents.mcp_server import build_server
    from kbtools.scaffold import scaffold

    scaffold(tmp_path)
    server = build_server(root=tmp_path, allow_write=True)

    async def scenario():
        return {t.name: t.input_schema for t in await server.list_tools()}

    schemas = anyio.run(scenario)
    assert set(schemas) == READ_TOOLS | {"draft_report"}
    for name, schema in schemas.items():
        for param, prop in schema["properties"].items():
            assert len(prop.get("description", "")) > 20, (name, param, prop)
    assert schemas["search"]["properties"]["where"]["description"].startswith("Front-matter")
    assert schemas["draft_report"]["properties"]["category"]["enum"] == [
        "crop-protection", "engineering", "equipment-maintenance", "field-report"]
    assert "field-report" in schemas["draft_report"]["properties"]["category"]["description"]
