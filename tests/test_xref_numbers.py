"""Section numbers as English and full-width digits write them.

An English numbered heading (`## Chapter 5 Fault codes`, `### Section 5.2 Checks`) had no
section number, while `# 第4章 …` had one: "see Section 5.2" and "见5.2节" resolved to no
heading. Full-width digits (`见４.１节`, `# 第４章`), which Chinese input methods type, were
read as no number either. Both are numbered, and read, as ASCII digits are."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.build.chunk import chunk_document
from kbtools.build.xref import HeadingIndex, section_number
from kbtools.corpus import parse_source
from kbtools.markdown.doctree import parse
from tests.kbfixtures import GOOD_FM

REL = "knowledge/eq/manual.md"
WIDE = str.maketrans("0123456789.", "０１２３４５６７８９．")


def _links(body: str) -> dict[str, tuple[str, ...]]:
    src = parse_source(GOOD_FM + body, Path("/r") / REL, REL)
    index = HeadingIndex.build([parse(src)])
    return {link.text: link.heading_path
            for chunk in chunk_document(src, resolver=index) for link in chunk.links}


def test_english_numbered_headings_are_numbered_as_chinese_ones():
    assert section_number("Chapter 5 Fault codes") == "5"
    assert section_number("Section 5.2 Checks") == "5.2"
    assert section_number("§ 3.1 Scope") == "3.1"
    assert section_number("CHAPTER 7: Storage") == "7"
    assert section_number("Chapters and sections") == ""
    assert section_number("Sections 5 and 6") == ""


def test_prose_references_resolve_to_english_numbered_headings():
    body = ("# Pump manual\n\nSee Section 5.2 first, then chapter 6.\n\n"
            "## Chapter 5 Fault codes\n\n先看见5.2节，再看第6章。\n\n"
            "### Section 5.2 Checks\n\nChecks.\n\n## Chapter 6 Storage\n\nDry.\n")
    chapter5 = ("Pump manual", "Chapter 5 Fault codes")
    assert _links(body) == {
        "Section 5.2": (*chapter5, "Section 5.2 Checks"),
        "chapter 6": ("Pump manual", "Chapter 6 Storage"),
        "见5.2节": (*chapter5, "Section 5.2 Checks"),
        "第6章": ("Pump manual", "Chapter 6 Storage"),
    }


def test_full_width_digits_are_read_as_ascii_ones():
    assert section_number("第４章 故障诊断") == "4"
    assert section_number("４．１ 诊断顺序") == "4.1"
    body = ("# 第４章 故障诊断\n\n见４.１节和４．２节，参见第５章。\n\n## 4.1 诊断顺序\n\n先断电。\n\n"
            "## ４.２ 记录\n\n记下。\n\n# 第5章 维护\n\n见第４章。\n")
    assert _links(body) == {
        "见４.１节": ("第４章 故障诊断", "4.1 诊断顺序"),
        "４．２节": ("第４章 故障诊断", "４.２ 记录"),
        "参见第５章": ("第5章 维护",),
        "见第４章": ("第４章 故障诊断",),
    }


NUMBERS = st.lists(st.integers(1, 19), min_size=1, max_size=3).map(
    lambda parts: ".".join(map(str, parts)))
HEADING = st.sampled_from(["{}", "第{}章", "Chapter {}", "Section {}", "section {}", "§{}"])
REFERENCE = st.sampled_from(["见{}节", "参见第{}章", "See section {}", "see Chapter {}",
                             "§ {}", "详见 {} 节"])


@settings(max_examples=200, deadline=None)
@given(NUMBERS, HEADING, REFERENCE, st.booleans(), st.booleans())
def test_a_reference_resolves_to_the_heading_its_number_names(number, heading, reference,
                                                               wide_head, wide_ref):
    """Whatever way the heading and the reference write the number (Chinese or English,
    ASCII or full-width digits), the reference names the heading."""
    if "." not in number and reference.startswith("见{}节"):
        reference = "见第{}节"
    head = heading.format(number.translate(WIDE) if wide_head else number)
    ref = reference.format(number.translate(WIDE) if wide_ref else number)
    body = f"# 手册\n\n正文：{ref}。\n\n## {head} 内容\n\n文字。\n\n## 附录\n\n无。\n"
    links = _links(body)
    assert [path for path in links.values()] == [("手册", f"{head} 内容")], links
