"""`kb mcp`'s tools take a string argument as the text the agent wrote: a real server over
stdio, driven by the SDK's client (as in test_mcp.py)."""

from __future__ import annotations

from tests.test_mcp import committed_repo, data, error_text, git, session

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
        report = {"category": "field-report", "body": "Seal leaked twice."}
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
