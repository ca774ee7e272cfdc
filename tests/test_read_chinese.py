"""`kb read` and MCP `read` say their refusals and notes in Chinese to a Chinese asker: the
path, citation or heading path typed holds Chinese (as `kb query` follows its question's
language); to anyone else in English, as before. Only the sentences change: the exit code,
the error's key and values, and the JSON fields stay (`kbtools.words`)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from kbtools.agents.cited_read import edited_note
from kbtools.agents.mcp_server import Context, tool_read
from kbtools.agents.read import Knowledge
from kbtools.cli import main
from kbtools.commands.read import format_read
from kbtools.errors import KbError, UsageError
from kbtools.serve.error_words import error_zh
from kbtools.words.error_words import said_to

DOC = """---
title: 黄瓜霜霉病
---

# 黄瓜霜霉病

## 1. 发生条件

温度 15～20℃ 时易流行。

## 2. 防治

摘除病叶。
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kb")
    (root / "kb.toml").write_text("", encoding="utf-8")
    (root / "knowledge" / "crops").mkdir(parents=True)
    for name in ("cucumber.md", "黄瓜.md"):
        (root / "knowledge" / "crops" / name).write_text(DOC, encoding="utf-8")
    return root


def kb_read(repo: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(repo)
    res = CliRunner().invoke(main, ["read", *args])
    return res.exit_code, res.stderr


@pytest.mark.parametrize("args,code,said", [
    (["knowledge/crops/白菜.md"], 1, "kb: error: 仓库的知识目录中没有这个文档：knowledge/crops/白菜.md\n"),
    (["knowledge/黄瓜.md"], 1, "kb: error: 仓库的知识目录中没有这个文档：knowledge/黄瓜.md；"
     "仓库的其他文件夹中有这个文件名的文档：knowledge/crops/黄瓜.md。若所指的是其中一个，请按那个路径阅读和引用\n"),
    (["knowledge/crops/cabbage.md"], 1,
     "kb: error: no such document in the repository: knowledge/crops/cabbage.md\n"),
    (["knowledge/crops/黄瓜.md", "--lines", "900"], 2,
     "kb: error: 第 900 行超出了 knowledge/crops/黄瓜.md 的末尾（共 13 行）。\n"),
    (["knowledge/crops/cucumber.md", "--lines", "900"], 2,
     "kb: error: line 900 is past the end of knowledge/crops/cucumber.md (13 lines)\n"),
    (["knowledge/crops/cucumber.md", "--heading", "3. 记录"], 1,
     "kb: error: 文档 knowledge/crops/cucumber.md 中没有“3. 记录”这一节。（它的章节：黄瓜霜霉病; "
     "黄瓜霜霉病 > 1. 发生条件; 黄瓜霜霉病 > 2. 防治）\n"),
    (["knowledge/crops/cucumber.md", "--heading", "9.9 Records"], 1,
     "kb: error: no section '9.9 Records' in knowledge/crops/cucumber.md (sections: 黄瓜霜霉病; "
     "黄瓜霜霉病 > 1. 发生条件; 黄瓜霜霉病 > 2. 防治)\n"),
    (["knowledge/crops/黄瓜.md:8-9", "--heading", "防治"], 2,
     "kb: error: “knowledge/crops/黄瓜.md:8-9”是一条引用或链接，本身已指明章节或行号：请只给出文档路径，"
     "另用 heading_path 或 line_start/line_end 指明章节或行号；或者只给出这条引用或链接。\n"),
    (["knowledge/crops/cucumber.md:8-9", "--lines", "1-2"], 2,
     "kb: error: 'knowledge/crops/cucumber.md:8-9' is a citation, which names its section or "
     "lines itself: give the document path alone with heading_path or line_start/line_end, or "
     "the citation alone\n"),
    (["knowledge/crops/黄瓜.md @ 3f2a9c1d0b7e", "--commit", "abcdef1"], 2,
     "kb: error: 引用中指明的 commit 是 3f2a9c1d0b7e，而参数“commit”是 abcdef1：请只给出一个。\n"),
])
def test_kb_read_refuses_in_the_askers_language(repo, monkeypatch, args, code, said):
    assert kb_read(repo, monkeypatch, *args) == (code, said)


def test_mcp_read_refuses_in_the_askers_language(repo):
    ctx = Context(root=repo)
    with pytest.raises(KbError) as zh:
        tool_read(ctx, "knowledge/crops/黄瓜.md", "3. 记录")
    assert zh.value.message.startswith("文档 knowledge/crops/黄瓜.md 中没有“3. 记录”这一节。")
    assert zh.value.key == "no_section" and zh.value.values["section"] == "3. 记录"
    with pytest.raises(UsageError) as en:
        tool_read(ctx, "knowledge/crops/cucumber.md", line_start=900)
    assert en.value.message == "line 900 is past the end of knowledge/crops/cucumber.md (13 lines)"


def test_a_chinese_refusal_keeps_its_class_key_values_and_exit_code():
    exc = UsageError("bad line range 0-3: lines are numbered from 1", key="bad_line_range",
                     values={"first": "0", "last": "3"})
    said = said_to(exc, ["knowledge/黄瓜.md"])
    assert type(said) is UsageError and said.exit_code == 2 and said.key == exc.key
    assert said.values == exc.values and str(said) == "行号范围 0-3 无效：行号从 1 开始。"
    assert said_to(exc, ["knowledge/cucumber.md", None]) is exc
    assert said_to(KbError("no words for this one"), ["黄瓜"]).message == "no words for this one"


def test_moved_and_kept_clauses_are_said_to_a_reader_not_on_a_page():
    exc = KbError("no such document in the index: knowledge/黄瓜.md; …", key="no_document",
                  values={"doc": "knowledge/黄瓜.md", "moved": "; …", "moved_in": "knowledge/a.md",
                          "moved_section": "黄瓜 > 防治", "kept": "kb-r1"})
    said = said_to(exc, ["knowledge/黄瓜.md"]).message
    assert "其中的 knowledge/a.md 有“黄瓜 > 防治”这一节" in said and "较早发布版本 kb-r1" in said
    assert error_zh(exc) == "本发布版本中没有这个文档：knowledge/黄瓜.md"  # a page: as before


def test_the_edited_note_and_the_read_notes_follow_the_asker(repo, tmp_path):
    built = tmp_path / "source"
    (built / "knowledge" / "crops").mkdir(parents=True)
    (built / "knowledge" / "crops" / "黄瓜.md").write_text("# 旧\n", encoding="utf-8")
    kn = Knowledge(built, built, "index", SimpleNamespace(root=tmp_path))  # type: ignore[arg-type]
    cfg = SimpleNamespace(root=repo)
    zh = edited_note(kn, "knowledge/crops/黄瓜.md", cfg, chinese=True)  # type: ignore[arg-type]
    en = edited_note(kn, "knowledge/crops/黄瓜.md", cfg)  # type: ignore[arg-type]
    assert zh is not None and zh.startswith("本仓库工作区中的 knowledge/crops/黄瓜.md 与所读索引")
    assert en is not None and en.startswith("knowledge/crops/黄瓜.md in this repository's work tree")
    section = SimpleNamespace(verified=False, reason=None, truncated=True, line_end=40,
                              intro=False, subsections=(), markdown="x",
                              citation=lambda: "knowledge/crops/黄瓜.md:1-40")
    read = SimpleNamespace(section=section, release=None, served=None)
    assert format_read(read, chinese=True).splitlines()[1:3] == [  # type: ignore[arg-type]
        "未审核", "（已截断：请从第 41 行接着读）"]
    assert format_read(read).splitlines()[1:3] == [  # type: ignore[arg-type]
        "unverified", "(truncated: read on from line 41)"]
