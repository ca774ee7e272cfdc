"""A draft citing a section by a heading its document does not have (`kb draft new`, MCP
`draft_report`): refused like a citation past the document's end, naming the heading and
the closest one the document has (`kbtools.agents.draft_anchors`)."""

from __future__ import annotations

from pathlib import Path

import git
import pytest
from click.testing import CliRunner

from kbtools.agents.draft import create_draft
from kbtools.agents.mcp_server import Context, tool_draft
from kbtools.cli import main
from kbtools.errors import UsageError

PUMP = """---
title: 水泵维护
---

# 水泵维护

## 1. 日常检查

每天检查密封。

## 3.2 风险等级判定表 {#risk-table}

| 温度 | 风险 |
|---|---|
| >20 | 高 |
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("anchors") / "kb"
    r = git.Repo.init(root, initial_branch="main")
    (root / "kb.toml").write_text("")
    (root / "knowledge" / "equipment").mkdir(parents=True)
    (root / "knowledge" / "equipment" / "pump.md").write_text(PUMP, encoding="utf-8")
    r.index.add(["kb.toml", "knowledge/equipment/pump.md"])
    r.index.commit("init")
    return root


def draft(root: Path, body: str, title: str = "密封泄漏") -> str:
    """The branch of a field report of `body`, or the one line refusing it."""
    try:
        return create_draft(root, "field-report", title, body, author="Tech Wu",
                            location="二号泵房").branch
    except UsageError as exc:
        return str(exc)


@pytest.mark.parametrize("cited, closest", [
    ("knowledge/equipment/pump.md#不存在", "#水泵维护 (水泵维护)"),
    ("knowledge/equipment/pump.md#风险等级", "#32-风险等级判定表 (3.2 风险等级判定表)"),
    ("pump.md#日常检", "#1-日常检查 (1. 日常检查)"),
    ("knowledge/equipment/pump.md＃风险判定表", "#32-风险等级判定表 (3.2 风险等级判定表)"),
    ("[表](../equipment/pump.md#检查表)", "#1-日常检查 (1. 日常检查)"),  # a link
])
def test_a_heading_the_document_lacks_is_refused_naming_the_closest(root, cited, closest):
    said = draft(root, f"泵体漏水，按 {cited} 处理。", title=f"漏水 {cited[-4:]}")
    heading = cited.split("#")[-1].split("＃")[-1].rstrip(")")
    assert said.startswith("the draft cites "), said
    assert f"no heading '#{heading}'" in said and f"the closest it has: {closest}" in said
    assert "knowledge/equipment/pump.md has no heading" in said and "\n" not in said


@pytest.mark.parametrize("cited", [
    "knowledge/equipment/pump.md#32-风险等级判定表",  # its anchor
    "knowledge/equipment/pump.md#risk-table",  # its {#custom-id}
    "knowledge/equipment/pump.md#1-日常检查。",  # a sentence's end after it
    "knowledge/equipment/pump.md#风险等级判定表中高风险一行",  # its text, then running text
    "knowledge/equipment/pump.md#3.2",  # its number
    "knowledge/equipment/pump.md#%E6%97%A5%E5%B8%B8%E6%A3%80%E6%9F%A5",  # URL-escaped
    "knowledge/equipment/pump.md#L10-L12",  # lines, as a code host writes them
    "knowledge/equipment/other.md#不存在",  # a document the base lacks: for the reviewer
])
def test_a_heading_the_document_has_is_filed(root, cited):
    assert draft(root, f"按 {cited} 处理。", title=f"已处理 {abs(hash(cited))}").startswith(
        "draft/")


def test_mcp_and_the_cli_refuse_it_alike(root, monkeypatch):
    body = "见 knowledge/equipment/pump.md#不存在"
    with pytest.raises(UsageError, match=r"no heading '#不存在' at its base [0-9a-f]{12}; "
                                         r"the closest it has: #"):
        tool_draft(Context(root=root), "field-report", "MCP 报告", body, author="A",
                   location="泵房")
    monkeypatch.chdir(root)
    res = CliRunner().invoke(main, ["draft", "new", "--category", "field-report", "--title",
                                    "CLI 报告", "--location", "泵房", "--author", "A",
                                    "--from", "-"], input=body + "\n")
    assert res.exit_code == 2 and "no heading '#不存在'" in res.stderr
    assert not [h for h in git.Repo(root).heads if "mcp" in h.name or "cli" in h.name]
