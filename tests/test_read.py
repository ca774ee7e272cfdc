"""kbtools.agents.read: safe document paths and section reads."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from kbtools.agents.docpath import check_doc_path
from kbtools.agents.read import MAX_LINES, open_knowledge, read_section
from kbtools.errors import KbError, UsageError

DOC = """---
title: 黄瓜霜霉病
verified: true
---

# 黄瓜霜霉病

## 1. 发生条件

温度 15～20℃ 时易流行。

### 1.1 湿度

相对湿度 85% 以上。

## 2. 防治

摘除病叶。

## 3. 记录

### 湿度

记录棚内湿度。
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "kb.toml").write_text("", encoding="utf-8")
    (tmp_path / "knowledge" / "crops").mkdir(parents=True)
    (tmp_path / "knowledge" / "crops" / "cucumber.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "README.md").write_text("# not knowledge\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("doc,needle", [
    ("", "empty"),
    ("../kb.toml.md", "'..' is not allowed"),
    ("knowledge/../../etc/x.md", "'..' is not allowed"),
    ("/etc/passwd", "absolute paths"),
    ("~/notes.md", "absolute paths"),
    ("C:/Users/x.md", "absolute paths"),
    ("C:\\Users\\x.md", "backslashes"),
    ("knowledge\\..\\x.md", "backslashes"),
    ("knowledge/x.md\x00", "NUL"),
    ("knowledge/crops/notes.txt", "only Markdown"),
])
def test_check_doc_path_refuses(doc, needle):
    with pytest.raises(UsageError, match=needle):
        check_doc_path(doc)


def test_check_doc_path_normalises():
    assert check_doc_path(" ./knowledge//crops/x.md ") == "knowledge/crops/x.md"


def test_resolve_inside_and_short_form(repo):
    kn = open_knowledge(repo)
    assert kn.resolve("knowledge/crops/cucumber.md") == repo / "knowledge/crops/cucumber.md"
    assert kn.resolve("crops/cucumber.md") == repo / "knowledge/crops/cucumber.md"
    with pytest.raises(KbError, match="no such document in the repository: crops/none.md"):
        kn.resolve("crops/none.md")


def test_resolve_refuses_files_outside_knowledge(repo):
    with pytest.raises(UsageError, match="outside the knowledge directory"):
        open_knowledge(repo).resolve("README.md")


def test_resolve_refuses_symlink_leaving_knowledge(repo, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.md"
    outside.write_text("# secret\n", encoding="utf-8")
    os.symlink(outside, repo / "knowledge" / "crops" / "link.md")
    os.symlink(outside.parent, repo / "knowledge" / "dirlink")
    kn = open_knowledge(repo)
    for doc in ("knowledge/crops/link.md", "knowledge/dirlink/secret.md"):
        with pytest.raises(UsageError, match="outside the knowledge"):
            kn.resolve(doc)
    with pytest.raises(UsageError, match="outside the knowledge"):
        read_section(kn, "knowledge/crops/link.md")


def test_symlink_within_knowledge_is_fine(repo):
    os.symlink(repo / "knowledge/crops/cucumber.md", repo / "knowledge/alias.md")
    sec = read_section(open_knowledge(repo), "knowledge/alias.md", "2. 防治")
    assert sec.doc == "knowledge/alias.md" and "摘除病叶" in sec.markdown


@pytest.mark.parametrize("heading", ["1. 发生条件", ["黄瓜霜霉病", "1. 发生条件"], "发生条件",
                                     "黄瓜霜霉病 > 1. 发生条件", "1", " 1. 发生条件 "])
def test_read_by_heading(repo, heading):
    sec = read_section(open_knowledge(repo), "knowledge/crops/cucumber.md", heading)
    assert sec.heading_path == ("黄瓜霜霉病", "1. 发生条件")
    assert sec.markdown.startswith("## 1. 发生条件")
    assert "85% 以上" in sec.markdown and "摘除病叶" not in sec.markdown  # subsection included
    assert (sec.line_start, sec.line_end) == (8, 14)
    assert sec.subsections == ("1.1 湿度",)
    assert sec.citation() == "knowledge/crops/cucumber.md:8-14 § 黄瓜霜霉病 > 1. 发生条件"
    assert sec.verified is False and "outside Git" in sec.reason  # no history: no review
    assert sec.to_dict()["markdown"] == sec.markdown


def test_read_heading_errors(repo):
    kn = open_knowledge(repo)
    with pytest.raises(KbError, match="'湿度' matches 2 sections") as info:
        read_section(kn, "knowledge/crops/cucumber.md", "湿度")
    assert "1. 发生条件 > 1.1 湿度" in str(info.value) and "3. 记录 > 湿度" in str(info.value)
    sec = read_section(kn, "knowledge/crops/cucumber.md", ["3. 记录", "湿度"])
    assert sec.markdown.strip().endswith("记录棚内湿度。")
    with pytest.raises(KbError, match="no section '4. 收获'.*2. 防治"):
        read_section(kn, "knowledge/crops/cucumber.md", "4. 收获")


def test_read_line_range(repo):
    kn = open_knowledge(repo)
    sec = read_section(kn, "knowledge/crops/cucumber.md", line_start=16, line_end=18)
    assert sec.markdown == "## 2. 防治\n\n摘除病叶。"
    assert sec.heading_path == ("黄瓜霜霉病", "2. 防治")
    assert sec.citation().startswith("knowledge/crops/cucumber.md:16-18")


@pytest.mark.parametrize("kwargs,needle", [
    ({"line_start": 0, "line_end": 2}, "bad line range 0-2: lines are numbered from 1"),
    ({"line_start": 2, "line_end": 0}, "bad line range 0-2: lines are numbered from 1"),
    ({"line_start": 500}, "past the end"),
    ({"line_start": 1, "line_end": MAX_LINES + 1}, "longer than"),
    ({"heading_path": "2. 防治", "line_start": 1}, "either a heading path or a line range"),
])
def test_read_range_errors(repo, kwargs, needle):
    with pytest.raises(UsageError, match=needle):
        read_section(open_knowledge(repo), "knowledge/crops/cucumber.md", **kwargs)


def test_read_whole_document_and_truncation(repo):
    kn = open_knowledge(repo)
    whole = read_section(kn, "knowledge/crops/cucumber.md")
    assert whole.line_start == 6 and whole.markdown.startswith("# 黄瓜霜霉病")
    assert whole.subsections == ("黄瓜霜霉病",) and whole.markdown.endswith("记录棚内湿度。")
    cut = read_section(kn, "knowledge/crops/cucumber.md", max_chars=20)
    # the cut falls just after line 8's newline: line 9 is not returned, nor cited
    assert cut.truncated and cut.markdown == "# 黄瓜霜霉病\n\n## 1. 发生条件"
    assert cut.line_end == cut.line_start + cut.markdown.count("\n") == 8


def test_index_knowledge_reads_data_source(tmp_path):
    src = tmp_path / "dist" / "data" / "source" / "knowledge" / "crops"
    src.mkdir(parents=True)
    (src / "cucumber.md").write_text(DOC, encoding="utf-8")
    store = SimpleNamespace(span_reason=lambda doc, a, b: None,  # every chunk verified
                            span_provenance=lambda doc, a, b: {"review": None})
    docs = [{"doc": "knowledge/crops/cucumber.md"}, {"doc": "knowledge/a.md"}]
    data = tmp_path / "dist" / "data"
    kn = open_knowledge(idx=SimpleNamespace(root=tmp_path / "dist", store=store,
                                            docs=lambda: docs, manifest={"artifacts": {}},
                                            read_data=lambda rel, limit: (data / rel).read_bytes()))
    assert kn.where == "index"
    sec = read_section(kn, "knowledge/crops/cucumber.md", "2. 防治")
    assert sec.doc == "knowledge/crops/cucumber.md"
    # as in a repository, a path inside the knowledge folder works too (docs/agents.md)
    assert read_section(kn, "crops/cucumber.md", "2. 防治").doc == "knowledge/crops/cucumber.md"
    assert kn.folders == ("knowledge",)
    with pytest.raises(KbError, match="no such document in the index"):
        kn.resolve("knowledge/crops/x.md")
    with pytest.raises(UsageError):
        kn.resolve("../manifest.json.md")


def test_a_repository_read_is_verified_only_where_the_review_still_covers_it(tmp_path):
    """Without an index, `read` took `verified: true` from the front matter alone: lines
    edited after the review (committed or not) were handed to agents as verified."""
    from kbfixtures import copy_example

    doc = "knowledge/crops/wheat-scab.md"
    root = copy_example(tmp_path / "kr", [doc])
    kn = open_knowledge(root)
    whole = read_section(kn, doc)
    assert whole.verified is True and whole.reason is None
    head = read_section(kn, doc, line_start=1, line_end=whole.line_start + 2)
    assert head.verified is False and "front matter" in head.reason  # YAML comments too
    path = root / doc
    lines = path.read_text(encoding="utf-8").split("\n")
    edited = next(i for i in range(whole.line_end - 1, 0, -1) if lines[i].strip()) + 1
    lines[edited - 1] += " 此句为审核后添加。"
    path.write_text("\n".join(lines), encoding="utf-8")
    after = read_section(kn, doc, line_start=edited, line_end=edited)
    assert after.verified is False and after.reason, after
    before = read_section(kn, doc, line_start=whole.line_start, line_end=whole.line_start + 1)
    assert before.verified is True  # lines the review still covers


def test_a_release_asked_for_in_a_repository_with_none_says_what_is_read(repo, monkeypatch):
    """`kb read --commit` where no release is served reads the repository's files, and said
    "this is what the repository's files has": the line names the work tree, in grammar."""
    from click.testing import CliRunner

    from kbtools.cli import main
    monkeypatch.chdir(repo)
    res = CliRunner().invoke(main, ["read", "knowledge/crops/cucumber.md", "--commit", "abcdef1"])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines()[0] == (
        "kb: note: commit abcdef1 is not read here: no release is served, this reads the "
        "repository's work tree; this is what the repository's work tree has at the top of "
        "the document (lines 6-24): do not cite it as the earlier release's text")
    assert "# 黄瓜霜霉病" in res.stdout
