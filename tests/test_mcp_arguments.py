"""`kb mcp`'s tools take a string argument as the text the agent wrote: a real server over
stdio, driven by the SDK's client (as in test_mcp.py)."""

from __future__ import annotations

import json

import pytest
from mcpfixtures import committed_repo, data, error_text, git, session

RISK = "knowledge/crops/risk.md"


def test_text_that_reads_as_json_null_stays_text(tmp_path):
    """The SDK read every string given to a parameter that is not plain `str` as JSON:
    "null" became no argument at all. A draft's location "null" was refused ("pass the
    location argument") and its author "null" became the Git user; a heading_path or a
    table "null" read the whole document or took the first table. Each stays the text it
    is; a list or object written as JSON still reaches a parameter that takes one."""
    repo = committed_repo(tmp_path / "repo")
    head = git(repo, "rev-parse", "main").strip()

    async def scenario(c):
        report = {"category": "field-report", "body": "Seal leaked twice.",
                  "author": "Field Tech"}  # the server's Git may have no identity (CI)
        return [
            await c.call_tool("draft_report", {**report, "title": "Leak A", "location": "null"}),
            await c.call_tool("draft_report", {**report, "title": "Leak B", "location": "p",
                                               "author": "null"}),
            await c.call_tool("read", {"doc": RISK, "heading_path": "null"}),
            await c.call_tool("evaluate_table", {"doc": RISK, "inputs": {"温度": 18,
                                                 "相对湿度": 90}, "table": "null"}),
            await c.call_tool("read", {"doc": RISK, "heading_path": '["霜霉病风险判定", "3. 防治措施"]'}),
            await c.call_tool("evaluate_table", {"doc": RISK,
                                                 "inputs": '{"温度": 18, "相对湿度": 90}'}),
        ]

    located, authored, read, table, listed, inputs = session(repo, "--allow-write",
                                                             scenario=scenario)
    first = data(located)
    assert "location: 'null'" in git(repo, "show", f"{first['branch']}:{first['path']}")
    second = data(authored)
    assert "author: 'null'" in git(repo, "show", f"{second['branch']}:{second['path']}")
    assert "no section 'null'" in error_text(read)
    assert "no decision table named 'null'" in error_text(table)
    assert data(listed)["heading_path"] == ["霜霉病风险判定", "3. 防治措施"]
    assert data(inputs)["outputs"] == [{"风险等级": "高", "建议措施": "立即喷药"}]
    assert git(repo, "rev-parse", "main").strip() == head


def test_a_one_line_draft_field_refuses_line_separators_and_c1_controls(tmp_path):
    """A title, author or location is one line (a file name, a citation, a `kb review`
    listing): NEL (U+0085), U+2028 and U+2029 showed it on two lines, and a C1 control (CSI,
    U+009B) drove the terminal listing it; only C0 controls were refused. Nothing is filed."""
    repo = committed_repo(tmp_path / "repo")
    report = {"category": "field-report", "title": "Pump leak", "body": "Seal leaked.\u2028",
              "location": "Plant 2", "author": "Ann Lee"}
    bad = [("title", "Pump\u2028leak"), ("title", "Pump\x85leak"), ("author", "Ann\u2029Lee"),
           ("location", "Plant\x9b31m 2")]

    async def scenario(c):
        return [await c.call_tool("draft_report", {**report, name: value})
                for name, value in bad] + [await c.call_tool("draft_report", report)]

    *refused, filed = session(repo, "--allow-write", scenario=scenario)
    for (name, _), res in zip(bad, refused, strict=True):
        text = error_text(res)
        assert f"draft {name} contains the control character" in text, text
        assert "one line of text" in text and "\n" not in text
    assert data(filed)["verified"] is False  # a body may hold them: it is many lines
    assert git(repo, "branch", "--list", "draft/*").count("draft/") == 1


def test_an_optional_flag_reads_alike_over_mcp_and_the_json_api(tmp_path):
    """`verified_only: "null"` (the string) was no argument at all over MCP (the SDK read it
    as JSON) where /api/search refuses it: the string "null" is no true/false value on
    either surface, and JSON's null is the argument left out on both. The same holds for
    the other optional arguments that take no text (`k`, `days`, `line_start`)."""
    import anyio
    from mcp.server.mcpserver.exceptions import ToolError
    from starlette.testclient import TestClient

    from kbtools.agents.mcp_server import build_server
    from kbtools.serve.app import create_app
    from tests.hostile import built_repo_index

    dist = built_repo_index(tmp_path / "repo", {}, model="test-hash")
    server = build_server(index=dist, root=tmp_path / "repo")
    calls = {"string": ("search", {"query": "pump seal", "verified_only": "null"}),
             "json-null": ("search", {"query": "pump seal", "verified_only": None}),
             "no": ("search", {"query": "pump seal", "verified_only": "no"}),
             "k": ("search", {"query": "pump seal", "k": "null"}),
             "days": ("recent", {"days": "null"}),
             "line": ("read", {"doc": "knowledge/good.md", "line_start": "null"})}

    async def run():
        got = {}
        for name, (tool, args) in calls.items():
            try:
                got[name] = json.loads((await server.call_tool(tool, args)).content[0].text)
            except ToolError as exc:  # the SDK's client gets it as an error result
                got[name] = str(exc)
        return got

    got = anyio.run(run)
    for name, words in {"string": 'verified_only: expected true or false, not a string ("null")',
                        "k": 'k: must be a whole number from 1 to 100, not "null"',
                        "days": 'days: must be a whole number, 0 or more, not "null"',
                        "line": 'line_start: must be a whole number from 1 to 10000000, not '
                                '"null"'}.items():
        assert isinstance(got[name], str) and words in got[name], (name, got[name])
    for name in ("json-null", "no"):
        assert got[name]["filters"]["verified_only"] is False, name
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as api:
        refused = api.post("/api/search", json={"query": "pump seal", "verified_only": "null"})
        assert refused.status_code == 400 and "not 'null'" in refused.json()["error"]["message"]
        assert api.get("/api/search", params={"q": "pump seal",
                                              "verified_only": "null"}).status_code == 400
        absent = api.post("/api/search", json={"query": "pump seal", "verified_only": None})
        assert absent.status_code == 200
        assert absent.json()["filters"]["verified_only"] is False
        assert api.post("/api/read", json={}).status_code == 405  # read is a GET
        assert api.get("/api/read", params={"doc": "knowledge/good.md",
                                            "line_start": "null"}).status_code == 400


def string_parts(schema):
    """Every string schema inside an argument's schema (its own, a list's items, a union's)."""
    if schema.get("type") == "string" or "string" in (schema.get("type") or []):
        yield schema
    for part in schema.get("anyOf", []):
        yield from string_parts(part)
    if isinstance(schema.get("items"), dict):
        yield from string_parts(schema["items"])
    if isinstance(schema.get("additionalProperties"), dict):
        yield from string_parts(schema["additionalProperties"])


def test_every_free_text_argument_is_bounded_over_mcp_and_the_json_api(tmp_path):
    """`evaluate_table`'s `table` and `read`'s `heading_path` had no bound: a 100,000-character
    table was looked for in every table's name and section (1.7 s). Every text argument of
    every tool has a length its schema says, refused at once naming the argument and the
    limit, as `query` is; /api/read and /api/table/evaluate refuse the same in the same
    words."""
    import anyio
    from mcp.server.mcpserver.exceptions import ToolError
    from starlette.testclient import TestClient

    from kbtools.agents.arguments import MAX_HEADINGS, MAX_LINE_CHARS, MAX_SECTION_CHARS
    from kbtools.agents.mcp_server import build_server
    from kbtools.serve.app import create_app
    from tests.hostile import built_repo_index

    dist = built_repo_index(tmp_path / "repo", {}, model="test-hash")
    server = build_server(index=dist, root=tmp_path / "repo", allow_write=True)
    long, doc = "霜" * (MAX_SECTION_CHARS + 1), "knowledge/good.md"
    report = {"category": "field-report", "title": "Leak", "body": "Seal leaked.",
              "location": "Plant 2", "author": "Ann"}
    calls = {"table": ("evaluate_table", {"doc": doc, "inputs": {"a": 1}, "table": long}),
             "heading_path": ("read", {"doc": doc, "heading_path": long}),
             "heading": ("read", {"doc": doc, "heading_path": ["Pump maintenance", long]}),
             "headings": ("read", {"doc": doc, "heading_path": ["x"] * (MAX_HEADINGS + 1)}),
             "title": ("draft_report", {**report, "title": "t" * (MAX_LINE_CHARS + 1)}),
             "author": ("draft_report", {**report, "author": "a" * (MAX_LINE_CHARS + 1)}),
             "location": ("draft_report", {**report, "location": "l" * (MAX_LINE_CHARS + 1)}),
             "caption": ("draft_report", {**report, "photos": [
                 {"name": "a.png", "data": "iVBO", "caption": "c" * 1001}]})}

    async def run():
        schemas = {t.name: t.input_schema["properties"] for t in await server.list_tools()}
        got = {}
        for name, (tool, args) in calls.items():
            with pytest.raises(ToolError) as exc:
                await server.call_tool(tool, args)
            got[name] = str(exc.value)
        return schemas, got

    schemas, got = anyio.run(run)
    unbounded = [(tool, arg) for tool, props in schemas.items() for arg, schema in props.items()
                 for part in string_parts(schema) if "maxLength" not in part
                 and "enum" not in part and arg != "photos"]
    assert unbounded == []
    over = f"at most {MAX_SECTION_CHARS} characters, not {MAX_SECTION_CHARS + 1}"
    said = {"table": f"table: {over}", "heading_path": f"heading_path: {over}",
            "heading": f"heading_path.1: {over}",
            "headings": f"heading_path: at most {MAX_HEADINGS} items, not {MAX_HEADINGS + 1}",
            "title": f"title: at most {MAX_LINE_CHARS} characters",
            "author": f"author: at most {MAX_LINE_CHARS} characters",
            "location": f"location: at most {MAX_LINE_CHARS} characters",
            "caption": "`caption` is at most 1000 characters, not 1001"}
    for name, words in said.items():
        assert words in got[name], (name, got[name])
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as api:
        table = api.post("/api/table/evaluate", json={"doc": doc, "inputs": {"a": "1"},
                                                      "table": [long]})
        read = api.get("/api/read", params={"doc": doc,  # ASCII: under the URL's bound
                                            "heading_path": "h" * (MAX_SECTION_CHARS + 1)})
        for resp, words in ((table, f"table: {over}"), (read, f"heading_path: {over}")):
            assert resp.status_code == 400 and words in resp.json()["error"]["message"]
    assert not (tmp_path / "repo" / "knowledge" / "field-reports").exists()
