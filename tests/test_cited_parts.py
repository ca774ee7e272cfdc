"""A small page is one chunk (its H1 and the H2s below it): a search cites the section of it
that answers, heading path and lines, and shows that section's text; `kb read` of the citation
returns it. Real builds, real queries (`kbtools.query.cited_parts`,
`kbtools.build.chunk_sections.section_parts`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kbtools.agents.read import Knowledge, read_section
from kbtools.build.chunk import chunk_document
from kbtools.build.chunk_text import SourceText
from kbtools.cli import main
from kbtools.corpus import read_doc
from kbtools.markdown.doctree import parse
from kbtools.query.cited_parts import cited_part, judged_part, verified_part
from tests.hostile import built_repo_index
from tests.kbfixtures import GOOD_FM, titled_page
from tests.test_chunk import shown_lines, src_of, unindented
from tests.test_citations import FILL, HOSTILE, cited_problems

PUMP = titled_page("离心泵保养", """本页说明离心泵的日常保养。

## 更换机械密封

停泵后拆下泵盖，取出旧密封，装入新密封并涂少量润滑脂。

## 轴承加油

每运行500小时给轴承加注锂基润滑脂，每次约15克。

## 叶轮清洗

叶轮结垢时用软毛刷清洗，不得使用钢丝刷。
""")
FAN = titled_page("Fan care", """How to look after the fan.

## Belt tension

Press the belt midway; it should deflect about 10 mm.

## Bearing grease

Grease the bearings every 2000 hours with 5 g of EP2 grease.
""")
# a title unlike the H1, a numbered heading with inline code, a link and emphasis
MEM = GOOD_FM.replace("Generated", "内存参数手册") + """
# TiDB 内存

## 3.2 `tidb_mem_quota` 参数

单条 SQL 的内存上限，超过后按 oom-action 处理。

## 3.3 [oom-action](https://example.org) *取值*

可选 cancel 或 log，默认 cancel。
"""
SETEXT = GOOD_FM.replace("Generated", "阀门检修") + """
阀门检修
========

本文说明阀门检修。

填料更换
--------

拆下压盖，更换石墨填料环。

阀座研磨
--------

用研磨膏研磨阀座密封面。
"""
# one heading twice, under two parents
TWICE = titled_page("风机", """## 日常检查

看皮带张紧。

### 注意

日常检查不要触碰叶片。

## 季度保养

更换轴承润滑脂。

### 注意

季度保养必须断电挂牌。
""")
# a question whose words two sections hold: the symptoms asked about, and what to do
SAFETY = titled_page("施药安全", """施药前阅读标签。

## 防护装备

戴防渗手套和口罩，穿长袖衣裤。

## 中毒急救

### 早期症状

头晕、恶心、多汗、视物模糊。

### 现场处置

立即把中毒者移到通风处，脱去污染衣物。
""")
DOCS = {"knowledge/safety.md": SAFETY, "knowledge/pump.md": PUMP, "knowledge/fan.md": FAN, "knowledge/mem.md": MEM,
        "knowledge/setext.md": SETEXT, "knowledge/twice.md": TWICE}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_repo_index(tmp_path_factory.mktemp("parts") / "repo", DOCS, model="test-hash")


def _top(dist: Path, question: str) -> dict[str, object]:
    out = CliRunner().invoke(main, ["query", question, "--index", str(dist), "--json", "-k", "1"])
    assert out.exit_code == 0, out.output
    results = json.loads(out.output)["results"]
    assert results, question
    top: dict[str, object] = results[0]
    return top


@pytest.mark.parametrize(("question", "citation", "shown"), [
    ("轴承加注多少润滑脂", "knowledge/pump.md:19-21 § 离心泵保养 > 轴承加油",
     "## 轴承加油\n\n每运行500小时给轴承加注锂基润滑脂，每次约15克。"),
    ("叶轮用什么清洗", "knowledge/pump.md:23-25 § 离心泵保养 > 叶轮清洗",
     "## 叶轮清洗\n\n叶轮结垢时用软毛刷清洗，不得使用钢丝刷。"),
    ("how much grease for the bearings", "knowledge/fan.md:19-21 § Fan care > Bearing grease",
     "## Bearing grease\n\nGrease the bearings every 2000 hours with 5 g of EP2 grease."),
    ("tidb_mem_quota 内存上限", "knowledge/mem.md:13-15 § TiDB 内存 > 3.2 tidb_mem_quota 参数",
     "## 3.2 `tidb_mem_quota` 参数\n\n单条 SQL 的内存上限，超过后按 oom-action 处理。"),
    ("oom-action 取值", "knowledge/mem.md:17-19 § TiDB 内存 > 3.3 oom-action 取值",
     "## 3.3 [oom-action](https://example.org) *取值*\n\n可选 cancel 或 log，默认 cancel。"),
    ("石墨填料环", "knowledge/setext.md:16-19 § 阀门检修 > 填料更换", "填料更换\n\n拆下压盖，更换石墨填料环。"),
    ("季度保养 注意 断电", "knowledge/twice.md:25-27 § 风机 > 季度保养 > 注意",
     "### 注意\n\n季度保养必须断电挂牌。"),
    ("日常检查 注意 叶片", "knowledge/twice.md:17-19 § 风机 > 日常检查 > 注意",
     "### 注意\n\n日常检查不要触碰叶片。"),
])
def test_a_question_one_section_of_a_small_page_answers_cites_that_section(
        dist: Path, question: str, citation: str, shown: str) -> None:
    """Each page is one chunk; the citation was the page's H1 and all its lines
    (`knowledge/pump.md:11-25 § 离心泵保养`) whichever section answered."""
    top = _top(dist, question)
    assert (top["citation"], top["text"]) == (citation, shown)
    assert top["kind"] == "section" and "sections" not in top["extra"]  # type: ignore[operator]
    read = CliRunner().invoke(main, ["read", citation, "--index", str(dist), "--json"])
    assert read.exit_code == 0, read.output
    got = json.loads(read.output)
    assert got["citation"] == citation
    assert shown.split("\n")[-1] in got["markdown"]  # the twice.md read picks its own 注意


def test_a_question_two_sections_answer_cites_both_under_their_heading(dist: Path) -> None:
    """The symptoms are in one section, what to do in the next: the one holding more of
    the words alone (`早期症状`) left out the answer asked for."""
    top = _top(dist, "打药的人头晕恶心，现场先做什么")
    assert top["citation"] == "knowledge/safety.md:21-27 § 施药安全 > 中毒急救"
    assert top["text"] == ("### 早期症状\n\n头晕、恶心、多汗、视物模糊。\n\n### 现场处置\n\n"
                           "立即把中毒者移到通风处，脱去污染衣物。")
    assert top["why"]["chunk_lines"] == [11, 27]  # type: ignore[index]


def test_words_every_section_holds_alike_cite_the_page_whole(dist: Path) -> None:
    """The page's title is in every section's heading path: nothing tells its sections
    apart, so the chunk is cited as it is."""
    top = _top(dist, "离心泵保养")
    assert top["citation"] == "knowledge/pump.md:11-25 § 离心泵保养"
    assert top["text"].startswith("# 离心泵保养")  # type: ignore[union-attr]
    assert "chunk_lines" not in top["why"]  # type: ignore[operator]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_every_section_of_a_small_page_cites_lines_that_hold_it(tmp_path: Path,
                                                                 name: str) -> None:
    """The hostile documents of test_citations made small (each is then one chunk or a
    few): every section a chunk lists holds its text on its lines, under the headings above
    them, and reads back as cited (CRLF, CR, BOM, setext, headings in lists and quotes,
    footnotes, tabs, zero-width and separator characters)."""
    root = tmp_path / "repo"
    (root / "knowledge").mkdir(parents=True)
    raw = HOSTILE[name].replace(FILL.encode(), b"")
    path = root / "knowledge" / name
    path.write_bytes(raw)
    kn = Knowledge(root, root / "knowledge", "repository")
    problems, listed = [], 0
    for c in chunk_document(read_doc(path, root)):
        listed += len(c.extra.get("sections", []))
        for part in c.extra.get("sections", []):
            a, b = part["line_start"], part["line_end"]
            text = c.text[part["text"][0]:part["text"][1]]
            problems += [f"{a}-{b}: {p}" for p in cited_problems(
                raw, "section", text, part["heading_path"], a, b)]
            got = read_section(kn, f"knowledge/{name}", line_start=a, line_end=b)
            if (got.line_start, got.line_end, list(got.heading_path)) != \
                    (a, b, part["heading_path"]):
                problems.append(f"{a}-{b} read back as {got.citation()}")
    assert problems == []
    # one section, or one too long to be merged with another: nothing to list
    assert listed >= 2 or name in ("no-heading.md", "long-line.md")


WORDS = ("轴承", "润滑脂", "密封", "叶轮", "bearing", "grease", "seal", "E17", "`tidb_mem_quota`")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.lists(st.sampled_from(WORDS), min_size=1,
                                                      max_size=3),
                          st.lists(st.sampled_from(WORDS), max_size=6)), min_size=1, max_size=6),
       st.lists(st.sampled_from([*WORDS, "", " ", "Grease"]), max_size=5))
# two sections of one heading, both holding the word: cited under their parent (the page),
# not under the heading they share, which names either one alone
@example(sections=[(1, ["轴承"], []), (1, ["轴承", "轴承"], ["润滑脂"]),
                   (1, ["轴承", "轴承"], ["润滑脂"])], matched=["润滑脂"])
@example(sections=[(1, ["叶轮"], []), (2, ["密封"], []), (3, ["E17"], ["grease"]),
                   (3, ["E17"], ["grease"]), (2, ["seal"], ["轴承"])], matched=["grease"])
def test_property_what_a_result_shows_of_a_chunk_lies_on_the_lines_it_cites(
        sections: list[tuple[int, list[str], list[str]]], matched: list[str]) -> None:
    """Any page of small sections (any levels, any words) and any matched words: the
    cited text is the chunk's or the span of its sections, shown on the cited lines, under
    the heading path all of them lie under."""
    body = "\n\n".join(f"{'#' * level} {' '.join(head)}\n\n{' '.join(words)}。"
                       for level, head, words in sections)
    src = src_of(GOOD_FM + "\n" + body + "\n")
    view = SourceText(tuple(src.text.split("\n")), parse(src).hidden)
    doc_sections = list(parse(src).sections())
    for c in chunk_document(src):
        if c.kind != "section":
            continue
        part = cited_part(c.to_dict(), matched)  # a chunk as the store gives it back
        a, b = part.citation.line_start, part.citation.line_end
        assert c.line_start <= a <= b <= c.line_end and part.text and part.text in c.text
        assert unindented(part.text) in unindented(shown_lines(src, a, b, view))
        path = part.citation.heading_path
        assert path[:len(c.heading_path)] == c.heading_path
        assert any(s.heading_path == path and s.line_start <= a and b <= s.line_end
                   for s in doc_sections)
        assert ("chunk_lines" in part.why) == ((a, b) != (c.line_start, c.line_end))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.lists(st.sampled_from(WORDS), min_size=1,
                                                      max_size=3),
                          st.lists(st.sampled_from(WORDS), max_size=6)), min_size=2, max_size=6),
       st.lists(st.sampled_from(WORDS), max_size=5), st.lists(st.booleans(), min_size=6,
                                                                max_size=6))
def test_property_verified_only_shows_verified_sections_alone(
        sections: list[tuple[int, list[str], list[str]]], matched: list[str],
        ok: list[bool]) -> None:
    """Any page of small sections, any of them edited after the review (`ok`: each
    section's verdict, as the build writes it), any matched words: a verified-only citation
    lies on verified sections' lines alone, and a chunk whose citation would be verified
    is cited so under the filter too; an unverified-only one (`verified=false`) says
    unverified, and a section it cites alone is an edited one."""
    body = "\n\n".join(f"{'#' * level} {' '.join(head)}\n\n{' '.join(words)}。"
                       for level, head, words in sections)
    for c in chunk_document(src_of(GOOD_FM + "\n" + body + "\n")):
        row = c.to_dict()
        parts = row["extra"].get("sections")
        if not parts:
            continue
        judged = [{**p, "verification": {"verified": v, "status": "verified" if v else "lapsed",
                                         "reason": None if v else "edited"}}
                  for p, v in zip(parts, ok, strict=False)]
        verified = all(ok[:len(parts)])
        row = {**row, "extra": {**row["extra"], "sections": judged}, "verified": verified,
               "verification": {"verified": verified, "reason": None if verified else "edited"}}
        shown = verified_part(row, matched)
        if cited_part(row, matched).facts["verified"]:
            assert shown == cited_part(row, matched)
        if shown is not None:
            a, b = shown.citation.line_start, shown.citation.line_end
            assert shown.facts["verified"] is True
            assert all(p["verification"]["verified"] for p in judged
                       if p["line_start"] <= b and p["line_end"] >= a), (a, b)
        # under `verified=false`: unverified facts; a part cited alone has no verified line
        unverified = judged_part(row, matched, False)
        assert unverified is None or not verified
        if unverified is not None:
            a, b = unverified.citation.line_start, unverified.citation.line_end
            assert unverified.facts["verified"] is False
            assert "chunk_lines" not in unverified.why or not any(
                p["verification"]["verified"] for p in judged
                if p["line_start"] <= b and p["line_end"] >= a), (a, b)
