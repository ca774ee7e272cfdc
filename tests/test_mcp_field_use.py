"""`kb mcp` used as an agent uses it (session 30): a long document read in pieces, each piece
citing exactly the lines it returns, and field reports filed as drafts that `kb check`
passes without a word. A real server process over stdio (the SDK's client), a real repo."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from mcpfixtures import KB, committed_repo, data, error_text, git, session

LONG = "knowledge/notes/long-log.md"
HEAD = """---
title: {title}
category: field-report
source: 测试
author: 测试
timestamp: "2026-01-02T00:00:00+08:00"
verified: false
location: 三号温室
---

# {title}
"""


def long_doc(words: str, n: int) -> str:
    """A document whose paragraphs are one long line each (a pasted log, a paragraph an
    editor never wrapped): 12,000 characters end inside one of them."""
    parts = [HEAD.format(title="长文档")]
    for i in range(1, n + 1):
        parts.append(f"\n## 第 {i} 步 step {i}\n\n" + f"{words} {i}。" * 40 + "\n")
        if i % 5 == 0:
            parts.append("\n| 列 a | 列 b |\n|---|---|\n" + "".join(
                f"| 行 {j} {words} | {j * i} |\n" for j in range(12)))
    return "".join(parts)


@pytest.mark.parametrize("words", [
    "液压油温度偏高时先检查冷却水阀和冷却器",
    "check the cooling water valve and the cooler when the oil runs hot",
])
def test_a_cut_read_returns_whole_lines_and_the_next_read_continues_it(tmp_path, words):
    """A read cut at 12,000 characters ended inside a line, yet its `line_end` and citation
    named that line as returned: the rest of the line was in no read (the next one starts at
    `line_end + 1`), and a table row or a sentence came back half. Each piece is now whole
    lines, exactly the lines it cites, and the pieces together are the document."""
    repo = committed_repo(tmp_path / "kb")
    text = long_doc(words, 40)
    (repo / LONG).write_text(text, encoding="utf-8")
    lines = text.split("\n")
    first_body_line = lines.index("# 长文档") + 1

    async def scenario(c):
        pieces = [await c.call_tool("read", {"doc": LONG})]
        while data(pieces[-1])["truncated"]:
            start = data(pieces[-1])["line_end"] + 1
            pieces.append(await c.call_tool("read", {"doc": LONG, "line_start": start}))
        return pieces

    pieces = [data(p) for p in session(repo, scenario=scenario)]
    assert len(pieces) > 2  # the document is several reads long
    for got in pieces:
        cited = "\n".join(lines[got["line_start"] - 1:got["line_end"]])
        assert got["markdown"] == cited, got["citation"]
        assert len(got["markdown"]) <= 12_000
        assert got["citation"].startswith(f"{LONG}:{got['line_start']}-{got['line_end']}")
    assert pieces[0]["line_start"] == first_body_line
    assert all(b["line_start"] == a["line_end"] + 1 for a, b in zip(pieces, pieces[1:], strict=False))
    joined = "\n".join(p["markdown"] for p in pieces)
    assert joined == "\n".join(lines[first_body_line - 1:]).rstrip("\n")


def test_a_single_line_longer_than_a_read_is_returned_cut_as_said(tmp_path):
    """A line longer than one read holds has no whole-line cut: the read before it stops
    at the line before it, and the read of the line itself returns it cut within itself
    (`truncated`), never as nothing."""
    repo = committed_repo(tmp_path / "kb")
    line = "日志 " * 7000
    (repo / LONG).write_text(HEAD.format(title="一行日志") + "\n" + line + "\n", encoding="utf-8")

    async def scenario(c):
        first = await c.call_tool("read", {"doc": LONG, "heading_path": "一行日志"})
        start = data(first)["line_end"] + 1
        return first, await c.call_tool("read", {"doc": LONG, "line_start": start})

    first, rest = (data(r) for r in session(repo, scenario=scenario))
    assert first["truncated"] is True and first["markdown"] == "# 一行日志"
    lines = (repo / LONG).read_text(encoding="utf-8").split("\n")
    assert lines[rest["line_end"] - 1] == line  # the read reaches into the long line,
    assert rest["truncated"] is True and len(rest["markdown"]) == 12_000  # cut within it
    assert rest["markdown"].strip() == line[:12_000 - 1].strip()


@pytest.mark.parametrize("body,lines", [
    ("下部叶片出现多角形病斑。\r约 5% 植株发病。\r\r- 已摘除病叶\r- 通风 2 小时\r",
     ["下部叶片出现多角形病斑。", "约 5% 植株发病。", "", "- 已摘除病叶", "- 通风 2 小时"]),
    ("Lesions on the lower leaves.\rAbout 5% of plants.\r\r- removed the leaves\r\n- aired 2 h\n",
     ["Lesions on the lower leaves.", "About 5% of plants.", "", "- removed the leaves",
      "- aired 2 h"]),
])
def test_a_report_with_carriage_return_line_breaks_files_a_draft_kb_check_passes(
        tmp_path, body, lines):
    """A client that ends lines with a bare carriage return (old Mac text, some web forms
    and terminals) filed a draft whose lines `kb check` warned of ("CR line endings; use
    LF"), and whose lines every other tool read as one. The draft now has LF lines."""
    repo = committed_repo(tmp_path / "kb")
    (repo / "knowledge" / "field_reports").mkdir()

    async def scenario(c):
        return await c.call_tool("draft_report", {
            "category": "field-report", "title": "三号温室霜霉病 CR", "body": body,
            "author": "agent", "location": "三号温室"})

    draft = data(session(repo, "--allow-write", scenario=scenario))
    text = git(repo, "show", f"{draft['branch']}:{draft['path']}")
    assert text.split("\n---\n", 1)[1] == "\n".join(lines) + "\n"
    tree = tmp_path / "draft-tree"
    git(repo, "worktree", "add", "-q", str(tree), draft["branch"])
    checked = subprocess.run([KB, "check", draft["path"]], cwd=tree, capture_output=True,
                             text=True, env={**os.environ, "KB_HOME": str(tmp_path)})
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "0 errors, 0 warnings" in checked.stdout + checked.stderr


def test_the_same_report_with_crlf_cr_or_lf_lines_is_one_draft(tmp_path):
    """A retry whose client sent the body's line breaks otherwise is the same report: the
    draft filed first is returned (`existing`), not a second one."""
    repo: Path = committed_repo(tmp_path / "kb")
    base = {"category": "field-report", "title": "Pump noise", "author": "agent",
            "location": "Field 7"}

    async def scenario(c):
        return [await c.call_tool("draft_report", {**base, "body": f"line one{eol}line two"})
                for eol in ("\n", "\r\n", "\r")]

    first, *again = (data(r) for r in session(repo, "--allow-write", scenario=scenario))
    assert first["existing"] is False
    assert [d["existing"] for d in again] == [True, True]
    assert {d["branch"] for d in again} == {first["branch"]}


@pytest.mark.parametrize("doc", [
    "knowledge/crops/risk.md:21-27 § 霜霉病风险判定 > 2. 风险等级表",
    "knowledge/crops/risk.md:21-27",
    "knowledge/crops/risk.md:27",
    "knowledge/crops/risk.md § 2. 风险等级表",
])
def test_a_citation_given_as_evaluate_tables_doc_evaluates_its_table(tmp_path, doc):
    """An agent passes a result's citation back as evaluate_table's `doc`: it was refused
    and told to give the section as `table` (session 30); it now evaluates the table at
    the cited lines (or in the cited section), as `kb table eval` does (session 31)."""
    repo = committed_repo(tmp_path / "kb")
    inputs = {"温度": 18, "相对湿度": 90}

    async def scenario(c):
        return await c.call_tool("evaluate_table", {"doc": doc, "inputs": inputs})

    got = data(session(repo, scenario=scenario))
    assert got["doc"] == "knowledge/crops/risk.md"
    assert got["outputs"] == [{"风险等级": "高", "建议措施": "立即喷药"}]


def test_a_link_given_as_evaluate_tables_doc_evaluates_its_sections_table(tmp_path):
    """A link with an anchor names the section whose table is evaluated, as `read` reads
    that section (session 35; it was refused, telling to give the section as `table`)."""
    repo = committed_repo(tmp_path / "kb")

    async def scenario(c):
        return await c.call_tool("evaluate_table", {"doc": "knowledge/crops/risk.md#2-风险等级表",
                                                    "inputs": {"温度": 18, "相对湿度": 90}})

    got = data(session(repo, scenario=scenario))
    assert got["doc"] == "knowledge/crops/risk.md" and got["table"]["index"] == 1
    assert got["outputs"] == [{"风险等级": "高", "建议措施": "立即喷药"}]


def test_a_citation_given_as_reads_doc_reads_its_section(tmp_path):
    """`read` given a citation reads the cited section (session 31; it was refused with a
    hint to give heading_path or line_start/line_end). Lines its heading path's section no
    longer holds (an earlier release's, moved since) read that section, as table evaluation
    reads such a citation (session 36: they read the lines now there, another section's);
    lines under a heading no section has any more read the lines."""
    repo = committed_repo(tmp_path / "kb")

    async def scenario(c):
        return [await c.call_tool("read", {"doc": doc}) for doc in (
            "knowledge/crops/risk.md:21-27 § 2. 风险等级表",
            "knowledge/crops/risk.md:16-18 § 2. 风险等级表",
            "knowledge/crops/risk.md:16-18 § 2. 旧的标题")]

    section, moved, lines = (data(r) for r in session(repo, scenario=scenario))
    assert section["heading_path"] == ["霜霉病风险判定", "2. 风险等级表"]
    assert "| 15~20 | ≥85 | 高 | 立即喷药 |" in section["markdown"]
    assert moved["markdown"] == section["markdown"]
    assert (lines["line_start"], lines["line_end"]) == (16, 18)
    assert lines["markdown"].startswith("## 1. 发生条件")


def test_evaluate_table_answers_a_row_the_inputs_not_given_cannot_change(tmp_path):
    """evaluate_table refused {温度: 12} ("missing input 相对湿度") although row 1 (<15, *)
    is the answer whatever the humidity, and search answers it so; it still asks when the
    humidity decides (15-20: 中 or 高)."""
    repo = committed_repo(tmp_path / "kb")
    risk = "knowledge/crops/risk.md"

    async def scenario(c):
        return [await c.call_tool("evaluate_table", {"doc": risk, "inputs": inputs})
                for inputs in ({"温度": 12}, {"温度": "18"}, {"相对湿度": "90"})]

    low, middle, humid = session(repo, scenario=scenario)
    got = data(low)
    assert (got["status"], got["selected"], got["outputs"]) == (
        "match", [1], [{"风险等级": "低", "建议措施": "常规巡查"}])
    assert got["message"] == "row 1 matches; not given, but any value is accepted: 相对湿度(%)"
    assert got["inputs"] == {"温度(℃)": "12"}
    assert got["matches"][0]["cells"][1]["reason"].startswith("not given")
    assert "missing input for column(s) 相对湿度(%)" in error_text(middle)
    assert "missing input for column(s) 温度(℃)" in error_text(humid)


def test_a_refused_draft_names_the_line_of_the_body_the_agent_sent(tmp_path):
    """A report whose photo is not in the repository was refused "line 13: path-missing":
    line 13 of the draft the call would have written, front matter and all, while the agent
    had sent four lines. The error names the body's line (its own front matter and blank
    lines before the text counted, CRLF or not) beside the draft's."""
    repo = committed_repo(tmp_path / "kb")
    (repo / "knowledge" / "field_reports").mkdir()
    bodies = ["# 卷帘机异响\n\n电机有异响，见照片：\n![照片](photo.jpg)\n",
              "\n\n# 卷帘机异响\r\n\r\n电机有异响，见照片：\r\n![照片](photo.jpg)\r\n",
              "---\ncrop: [黄瓜]\n---\n\n# 卷帘机异响\n\n电机有异响：\n![照片](photo.jpg)\n"]

    async def scenario(c):
        return [await c.call_tool("draft_report", {
            "category": "field-report", "title": "三号温室卷帘机异响", "body": body,
            "author": "agent", "location": "三号温室"}) for body in bodies]

    said = [error_text(res) for res in session(repo, "--allow-write", scenario=scenario)]
    for message, line in zip(said, (4, 6, 8), strict=True):
        assert f"would fail kb check: line {line} of the body (line " in message, message
        assert "of the draft): path-missing: 'photo.jpg' does not exist" in message, message
    assert not git(repo, "branch", "--list", "draft/*")


def test_evaluate_table_reads_a_relative_humidity_written_with_rh(tmp_path):
    """A field agent copies a hygrometer's reading, "90 % RH": refused as "not a number"
    while "90%RH" glued was read. RH after a percentage says only what the percentage is
    of, in any spelling; anything else after the number is still refused. Text glued after a
    unit's symbol (``90%ABC``, ``22℃abc``) was ignored and the value read as 90 % (session
    40); it is refused, naming the text that is no unit."""
    repo = committed_repo(tmp_path / "kb")
    risk = "knowledge/crops/risk.md"
    said = ("90 % RH", "90 %RH", "90％ RH", "88.5 % r.h.", "90%RH")
    glued = (("90%ABC", "18", "ABC"), ("90 %x", "18", "x"), ("90％湿", "18", "湿"),
             ("85-95%abc", "18", "abc"), ("90", "22℃abc", "abc"))

    async def scenario(c):
        return [await c.call_tool("evaluate_table", {"doc": risk, "inputs": {
            "温度": t, "相对湿度": humidity}}) for humidity, t in (
                *((h, "18 ℃") for h in said), ("90 % 左右 RH2", "18"),
                *((h, t) for h, t, _ in glued))]

    answers = session(repo, scenario=scenario)
    read, other, refused = answers[:len(said)], answers[len(said)], answers[len(said) + 1:]
    for humidity, res in zip(said, read, strict=True):
        got = data(res)
        assert (got["selected"], got["outputs"][0]["风险等级"]) == ([3], "高"), humidity
        assert got["inputs"]["相对湿度(%)"] == humidity.replace("％", "%")  # as read
    assert "is not a number" in error_text(other)
    for (humidity, t, rest), res in zip(glued, refused, strict=True):
        text = error_text(res)
        said_as = (humidity if t == "18" else t).replace("％", "%")  # the value as read
        assert f"='{said_as}': '{rest}' after " in text, text
        assert "names no unit" in text and "\n" not in text, text


def test_a_list_field_given_as_text_is_refused_saying_the_list_to_send(tmp_path):
    """A report's front matter gave `crop: 黄瓜、番茄` and was refused "'黄瓜、番茄' is not of
    type 'array'": the agent had to guess the YAML. The line now says the list it reads as."""
    repo = committed_repo(tmp_path / "kb")
    (repo / "knowledge" / "field_reports").mkdir()

    async def scenario(c):
        return [await c.call_tool("draft_report", {
            "category": "field-report", "title": "温室巡查", "location": "三号温室",
            "body": f"---\n{field}\n---\n# 温室巡查\n\n叶片有病斑。\n"})
            for field in ("crop: 黄瓜、番茄", "tags: 巡查, 病害", "crop: 3")]

    crops, tags, number = (error_text(r) for r in session(repo, "--allow-write",
                                                          scenario=scenario))
    assert crops.endswith("crop: '黄瓜、番茄' is not of type 'array' (write it as a list: "
                          "`crop: [黄瓜, 番茄]`)"), crops
    assert tags.endswith("(write it as a list: `tags: [巡查, 病害]`)"), tags
    assert number.endswith("crop: 3 is not of type 'array'"), number
    assert not git(repo, "branch", "--list", "draft/*")
