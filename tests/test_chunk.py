"""kbtools.build.chunk: golden output on a rich document, chunking rules, and invariants.

Regenerate the golden file after an intended change:
    KB_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_chunk.py -k golden
and review the diff of tests/golden/chunks-rich.json before committing.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kbtools.build.chunk import ChunkConfig, chunk_document
from kbtools.build.chunk_text import SourceText
from kbtools.build.records import CHUNK_KINDS
from kbtools.build.xref import HeadingIndex
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.corpus import parse_source, read_doc
from kbtools.errors import ConfigError
from kbtools.markdown.doctree import parse

FIX = Path(__file__).parent / "fixtures" / "chunk"
GOLDEN = Path(__file__).parent / "golden" / "chunks-rich.json"
VERBATIM = {"section", "list_item", "table", "code", "formula", "mermaid", "image"}
SMALL = ChunkConfig(target_chars=120, max_chars=200, min_chars=30, overlap_chars=30)


def src_of(text: str, rel: str = "k/doc.md"):
    return parse_source(text, Path("/tmp") / rel, rel)


def corpus():
    return [read_doc(p, FIX) for p in sorted(FIX.rglob("*.md"))]


@pytest.fixture(scope="module")
def rich_chunks():
    docs = corpus()
    index = HeadingIndex.build(docs)
    src = next(d for d in docs if d.rel == "rich.md")
    return src, chunk_document(src, ChunkConfig.from_config(load_config(FIX)), resolver=index)


def test_golden_rich_document(rich_chunks):
    _, chunks = rich_chunks
    got = [c.to_dict() for c in chunks]
    if os.environ.get("KB_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    assert got == json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert {c.kind for c in chunks} == set(CHUNK_KINDS)


def shown_lines(src, first: int, last: int, t: SourceText | None = None) -> str:
    """File lines first..last as a reader sees them (HTML tags and comments left out)."""
    t = t or SourceText(tuple(src.text.split("\n")), parse(src).hidden)
    return t.shown(t.start(first), t.end(last))


def unindented(text: str) -> str:
    return "\n".join(line.lstrip(" \t") for line in text.split("\n"))


def check_invariants(src, chunks):
    lines = src.text.split("\n")
    view = SourceText(tuple(lines), parse(src).hidden)
    covered: set[int] = set()
    for c in chunks:
        assert c.kind in CHUNK_KINDS
        assert src.body_line <= c.line_start <= c.line_end <= len(lines)
        covered.update(range(c.line_start, c.line_end + 1))
        span = "\n".join(lines[c.line_start - 1:c.line_end])
        if c.kind in VERBATIM:  # the text as written, less the HTML markup no reader sees
            shown = shown_lines(src, c.line_start, c.line_end, view)
            # (a block nested in a list item loses the item's indentation: `dedented`)
            assert c.text and unindented(c.text) in unindented(shown), \
                (c.kind, c.line_start, c.text)
        else:  # table_row: every value comes from that row
            for pair in c.text.split("\n"):  # values are plain text: markup is gone
                assert set(re.findall(r"\w", pair.split(": ", 1)[1])) <= set(span)
        assert c.embed_text.startswith(c.embed_text.split("\n", 1)[0])
    for n in range(src.body_line, len(lines) + 1):  # a line of markup alone is no text,
        # nor a quote's blank line (`>`, `> >`: the markers alone)
        if lines[n - 1].replace(">", "").strip() and shown_lines(src, n, n, view).strip():
            assert n in covered, f"line {n} not covered: {lines[n - 1]!r}"
    ids = [c.id for c in chunks]
    assert len(ids) == len(set(ids))
    section_ids = {c.id for c in chunks if c.kind == "section"}
    assert all(c.extra["parent"] in section_ids for c in chunks if c.kind != "section")
    starts = [c.line_start for c in chunks]
    assert starts == sorted(starts)
    check_within_sections(src, chunks)
    check_parts(src, chunks, view)
    return lines


def check_parts(src, chunks, view):
    """The sections a chunk lists (`extra["sections"]`, what a search cites of it) lie in
    order inside its lines, each under its own heading path, its text on its lines."""
    sections = list(parse(src).sections())
    for c in chunks:
        parts = c.extra.get("sections", [])
        assert len(parts) != 1
        for i, part in enumerate(parts):
            a, b = part["line_start"], part["line_end"]
            x, y = part["text"]
            assert c.line_start <= a <= b <= c.line_end and 0 <= x < y <= len(c.text)
            assert i == 0 or (parts[i - 1]["line_end"] < a and parts[i - 1]["text"][1] <= x)
            assert any(list(s.heading_path) == part["heading_path"] and s.line_start <= a
                       and b <= s.line_end for s in sections), (c.line_start, part)
            assert unindented(c.text[x:y]) in unindented(shown_lines(src, a, b, view))


def check_within_sections(src, chunks):
    """A chunk's lines (its citation) lie inside a section of its heading path, but for
    lines no block claims (a link definition joins its neighbour), and hold no heading of a
    section outside it: a code fence or formula at a section's end does not take the next
    section's heading as its line after, two sibling `## Notes` merge under their parent."""
    doc = parse(src)
    sections = list(doc.sections())
    claimed = {n for _, b in doc.blocks() for n in range(b.line_start, b.line_end + 1)}
    claimed |= {n for s in sections if s.heading is not None
                for n in range(s.heading.line_start, s.heading.line_end + 1)}
    for c in chunks:
        path = tuple(c.heading_path)
        held = [n for n in range(c.line_start, c.line_end + 1) if n in claimed]
        assert not held or any(s.heading_path == path and s.line_start <= held[0]
                               and held[-1] <= s.line_end for s in sections), \
            (c.kind, c.line_start, path)
        for s in sections:
            if s.heading is not None and c.line_start <= s.heading.line_end \
                    and s.heading.line_start <= c.line_end:
                assert s.heading_path[:len(path)] == path, (c.kind, c.line_start, s.heading_path)


def atomic_ranges(src):
    from kbtools.markdown.doctree import Code, MathBlock

    doc = parse(src)
    return [(b.line_start, b.line_end) for _, b in doc.blocks()
            if isinstance(b, (Code, MathBlock))], [ln for t in doc.tables() for ln in t.row_lines]


def check_no_cuts(src, chunks, lines):
    ranges, rows = atomic_ranges(src)
    for c in chunks:
        for a, b in ranges:
            if a <= c.line_end and c.line_start <= b:  # overlaps: must hold the whole block
                assert c.line_start <= a and b <= c.line_end, (c.kind, c.line_start, c.line_end, a, b)
        if c.kind in VERBATIM:
            for r in rows:
                if c.line_start <= r <= c.line_end:
                    assert shown_lines(src, r, r).strip() in c.text


def test_invariants_on_fixtures():
    for src in corpus():
        for cfg in (ChunkConfig(), SMALL):
            chunks = chunk_document(src, cfg)
            lines = check_invariants(src, chunks)
            check_no_cuts(src, chunks, lines)


def test_embed_text_starts_with_title_and_heading_path(rich_chunks):
    _, chunks = rich_chunks
    row = next(c for c in chunks if c.kind == "table_row" and "E17" in c.text)
    assert row.embed_text.startswith("喷雾机维护手册 Sprayer Manual › 3 故障处理 › 3.2 故障码表\n")
    assert "下表列出控制器显示的故障码。" in row.embed_text  # the table's caption line
    assert row.text == "故障码: E17\n含义: 喷头堵塞\n处理: 清洗喷头后按【复位】键"
    parent = next(c for c in chunks if c.id == row.extra["parent"])
    assert parent.kind == "section" and parent.line_start <= row.line_start <= parent.line_end
    assert row.extra == {"csv": "hx3-fault-codes.csv", "table_index": 1, "row": 1,
                         "parent": parent.id}
    assert row.metadata["tags"] == ["sprayer", "维护"]


def test_faq_heading_stays_with_its_answer():
    src = read_doc(FIX / "faq.md", FIX)
    for cfg in (ChunkConfig(), SMALL):
        chunks = [c for c in chunk_document(src, cfg) if c.kind == "section"]
        for q, a in (("喷头多久更换一次？", "一般每个作业季更换一次"),
                     ("How often should the filter be cleaned?", "after every working day")):
            assert any(q in c.text and a in c.text for c in chunks)


def test_list_items_keep_sub_items_and_step_numbers(rich_chunks):
    _, chunks = rich_chunks
    items = [c for c in chunks if c.kind == "list_item"]
    assert items[0].text.startswith("1. 检查药箱") and "药箱有裂纹时" in items[0].text
    assert items[1].text.startswith("2. 检查压力")
    assert items[0].extra["number"] == 1 and items[0].extra["ordered"] is True
    assert "开机前按以下步骤检查：" in items[0].embed_text  # the list's lead-in


def test_code_and_formula_carry_context(rich_chunks):
    _, chunks = rich_chunks
    code = next(c for c in chunks if c.kind == "code")
    assert code.text.splitlines()[0] == "### 4.2 Controller code"
    assert code.text.splitlines()[-1] == "The function above returns litres per minute."
    assert code.extra["language"] == "python"
    formula = next(c for c in chunks if c.kind == "formula")
    assert formula.text.startswith("喷雾压力与流量的关系如下：") and "$P_0$ 取 0.3 MPa" in formula.text
    assert re.fullmatch(r"formulas/[0-9a-f]{64}\.svg", formula.extra["svg"])
    # the last formula and the Mermaid diagram end their sections: the next heading is no
    # context (it would put another section's line into the citation)
    last = [c for c in chunks if c.kind == "formula"][-1]
    assert last.text.endswith("```") and (last.line_start, last.line_end) == (53, 57)
    mermaid = next(c for c in chunks if c.kind == "mermaid")
    assert mermaid.text.endswith("```") and "## 5" not in mermaid.text
    assert formula.extra["latex"].startswith("\\text{流量}")


def test_mermaid_edges_and_images(rich_chunks):
    _, chunks = rich_chunks
    mer = next(c for c in chunks if c.kind == "mermaid")
    assert "卵 → 幼虫" in mer.embed_text and "幼虫 → 蛹（化蛹）" in mer.embed_text
    assert ["卵", "幼虫", ""] in mer.extra["edges"]
    img = next(c for c in chunks if c.kind == "image" and c.extra["alt"] == "喷杆结构图")
    assert img.extra == {"src": "../assets/boom.png", "alt": "喷杆结构图", "title": "HX-3 喷杆",
                         "parent": img.extra["parent"]}
    assert "喷杆分为三段" in img.text and "喷杆结构图 HX-3 喷杆" in img.embed_text


def test_cross_references_resolved(rich_chunks):
    _, chunks = rich_chunks
    links = {(lk.text, lk.doc, lk.heading_path[-1] if lk.heading_path else "")
             for c in chunks for lk in c.links}
    assert ("详见 3.2 节", "rich.md", "3.2 故障码表") in links
    assert ("section 4.1", "rich.md", "4.1 Calibration") in links
    assert ("[本手册概述](#1-概述)", "rich.md", "1 概述") in links
    assert ("[安全须知](manual/ch01-safety.md#12-安全联锁)", "manual/ch01-safety.md",
            "1.2 安全联锁") in links
    assert ("见《HX 手册第 1 章》第 1.2 节", "manual/ch01-safety.md", "1.2 安全联锁") in links


REFERENCE_LINKS = """---
title: 参考链接
---
# 参考链接

## 用法

拆卸前阅读[安全须知][safety]，复位见[复位][]与[Reset]，概述见[概述][top]。

未定义的[注意]不是链接，![图][pic] 是图片，[[safety]] 是维基链接。

[safety]: manual/ch01-safety.md#12-安全联锁
[复位]: #用法
[reset]: rich.md#1-概述
[top]: <rich.md#1-概述>
[pic]: ../assets/x.png
"""


def test_reference_links_are_cross_references_as_inline_links_are():
    """`[安全须知][safety]` with `[safety]: manual/….md#…` below was no chunk link (inline
    links were): citations, the web app's passage links and the link graph lacked it."""
    docs = corpus()
    src = src_of(REFERENCE_LINKS, "refs.md")
    chunks = chunk_document(src, resolver=HeadingIndex.build([*docs, src]))
    links = {(lk.text, lk.doc, lk.heading_path[-1] if lk.heading_path else "", lk.line)
             for c in chunks for lk in c.links}
    line = REFERENCE_LINKS.splitlines().index("## 用法") + 3
    assert links == {("[安全须知][safety]", "manual/ch01-safety.md", "1.2 安全联锁", line),
                     ("[复位][]", "refs.md", "用法", line),
                     ("[Reset]", "rich.md", "1 概述", line),  # labels match in any case
                     ("[概述][top]", "rich.md", "1 概述", line)}


def test_without_resolver_only_same_document_resolves():
    src = read_doc(FIX / "rich.md", FIX)
    links = {lk.text: lk.doc for c in chunk_document(src) for lk in c.links}
    assert links["详见 3.2 节"] == "rich.md"
    assert links["[安全须知](manual/ch01-safety.md#12-安全联锁)"] == ""


def test_long_section_splits_at_sentences_with_overlap():
    sentences = [f"第{i}句话讲的是喷雾机保养的第{i}个要点，内容要写得足够长。" for i in range(1, 13)]
    src = src_of("# 保养\n\n" + "".join(sentences) + "\n")
    chunks = [c for c in chunk_document(src, SMALL) if c.kind == "section"]
    assert len(chunks) >= 3
    for c in chunks:
        assert len(c.text) <= SMALL.max_chars + 10
        assert c.text.endswith("。")  # cut at a sentence end, never mid-sentence
        assert c.embed_text.startswith("保养\n")
    assert chunks[0].text.startswith("# 保养")
    # one-sentence overlap: each piece starts with the previous piece's last sentence
    for a, b in zip(chunks, chunks[1:], strict=False):
        last = re.findall(r"[^。]+。", a.text)[-1]
        assert b.text.startswith(last)


def test_english_sentences_and_no_cut_inside_inline_math():
    body = " ".join(f"Sentence {i} says $a. b$ stays whole and more words follow here." for i in range(8))
    chunks = chunk_document(src_of("# E\n\n" + body + "\n"), SMALL)
    for c in chunks:
        assert c.text.count("$") % 2 == 0


def test_small_siblings_merge_under_common_parent():
    text = "# T\n\nintro of the document, long enough to stand alone.\n\n## 1 A\n\n" + "intro sentence. " * 6 + "\n\n### 1.1 B\n\nshort b.\n\n### 1.2 C\n\nshort c.\n\n## 2 D\n\n" + \
        "long text. " * 30 + "\n"
    chunks = [c for c in chunk_document(src_of(text), SMALL) if c.kind == "section"]
    merged = next(c for c in chunks if "short b." in c.text)
    assert "### 1.1 B" in merged.text and "### 1.2 C" in merged.text
    assert merged.heading_path == ("T", "1 A")
    assert merged.text.startswith("## 1 A")
    assert not any(c.text.strip() in ("# T", "## 1 A") for c in chunks)  # no heading-only chunk


def test_sibling_sections_of_one_heading_merge_under_their_parent():
    """Two tiny `### Leaks` side by side merge into one chunk filed under their parent: filed
    under `… > Leaks`, its citation named one section and its lines held both (and `read`
    of that heading path is ambiguous)."""
    lead = "Stop the pump before any check and record the alarm code shown on the panel. "
    src = src_of("---\ntitle: Pump\n---\n# Pump\n\n## Troubleshooting\n\n" + lead * 2
                 + "Then call the shift lead.\n\n### Leaks\n\nWait 30 min.\n\n### Leaks\n\n"
                 "Replace LS-50.\n")
    merged = [c for c in chunk_document(src, SMALL) if "Wait 30 min." in c.text]
    assert [(c.line_start, c.line_end, c.heading_path) for c in merged] == [
        (10, 16, ("Pump", "Troubleshooting"))]
    check_invariants(src, chunk_document(src, SMALL))


def test_huge_table_rows_whole_and_embed_truncated():
    rows = "".join(f"| E{i:03d} | {'原因' * 20} | {'处理步骤' * 10} |\n" for i in range(60))
    src = src_of("# 故障\n\n| 码 | 原因 | 处理 |\n|---|---|---|\n" + rows)
    chunks = chunk_document(src)
    table = next(c for c in chunks if c.kind == "table")
    assert table.text.count("\n") == 61 and len(table.embed_text) < len(table.text)
    assert sum(c.kind == "table_row" for c in chunks) == 60
    sections = [c for c in chunks if c.kind == "section"]
    assert len(sections) > 1 and all(len(c.text) <= ChunkConfig().max_chars for c in sections[1:])
    lines = check_invariants(src, chunks)
    check_no_cuts(src, chunks, lines)


def test_no_near_duplicate_chunks():
    src = src_of("# 单项\n\n- 只有一项的列表，内容足够长但不单独成块，因为章节就是它。\n")
    kinds = [c.kind for c in chunk_document(src)]
    assert kinds == ["section"]


def test_deterministic_and_ids_disambiguated():
    text = "# A\n\n| k |\n|---|\n| same |\n\n| k |\n|---|\n| same |\n"
    first = chunk_document(src_of(text))
    assert [c.to_dict() for c in first] == [c.to_dict() for c in chunk_document(src_of(text))]
    rows = [c for c in first if c.kind == "table_row"]
    assert len(rows) == 2 and rows[0].id != rows[1].id
    assert all(len(c.id) == 16 and len(c.content_hash) == 64 for c in first)


def test_empty_and_heading_free_documents():
    assert chunk_document(src_of("---\ntitle: x\n---\n")) == []
    src = read_doc(FIX / "noheadings.md", FIX)
    (chunk,) = chunk_document(src)
    assert chunk.heading_path == () and chunk.embed_text.startswith("noheadings\n")


def test_chunk_config_from_kb_toml(tmp_path):
    (tmp_path / "kb.toml").write_text("[chunk]\ntarget_chars = 300\nmax_chars = 500\n")
    cfg = ChunkConfig.from_config(load_config(tmp_path))
    assert (cfg.target_chars, cfg.max_chars, cfg.min_chars) == (300, 500, 40)
    with pytest.raises(ConfigError, match="min_chars <= target_chars"):
        ChunkConfig(target_chars=100, max_chars=50)
    with pytest.raises(ConfigError, match="overlap_chars"):
        ChunkConfig(overlap_chars=5000)


@pytest.mark.parametrize(("chunk", "line", "says"), [
    ("target_chars = 1500", 3, "got 40, 1500, 1200 (unset keys take their defaults)"),
    ("max_chars = 500\ntarget_chars = 600", 4, "got 40, 600, 500"),
    ("min_chars = 0", 3, "needs 0 < min_chars"),
    ("overlap_chars = 900", 3, "overlap_chars (900) must be below target_chars (700)"),
])
def test_chunk_sizes_that_do_not_fit_are_refused_at_their_kb_toml_line(tmp_path, chunk, line,
                                                                       says):
    """A [chunk] size that breaks the order was refused only when a document was cut, with
    no file or line (`kb check` passed it; `kb build` said "[chunk] needs …"); the defaults
    take part (a target above the default max_chars)."""
    (tmp_path / "kb.toml").write_text(f"# sizes\n[chunk]\n{chunk}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(says)) as exc:
        load_config(tmp_path)
    assert (exc.value.path, exc.value.line) == (str(tmp_path / "kb.toml"), line)
    res = CliRunner().invoke(main, ["check", str(tmp_path)])
    assert res.exit_code == 1 and res.stderr.startswith(f"kb: error: {tmp_path / 'kb.toml'}:{line}: ")


BLOCKS = st.sampled_from([
    "# 标题一\n", "## Section two\n", "### 3.1 小节\n", "段落一句。第二句！第三句？\n",
    "An English sentence. Another one! A third?\n", "长" * 150 + "。\n", "word " * 60 + "\n",
    "- 项目一\n  - 子项\n- 项目二，写长一点的内容以便成块。\n", "1. 第一步\n2. 第二步，写长一点的内容。\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n", "```python\nx = 1\n\ny = 2\n```\n",
    "```mermaid\ngraph TD\nA-->B\n```\n", "$$\nx^2\n$$\n", "<!-- csv: t.csv -->\n",
    "![图](a.png \"t\")\n", "> 引用\n", "见 3.1 节。see section 2.\n", "[x]: http://a\n", "---\n",
])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(BLOCKS, min_size=1, max_size=25), st.sampled_from([SMALL, ChunkConfig()]))
def test_property_structured_documents(blocks, cfg):
    src = src_of("---\ntitle: P\n---\n" + "\n".join(blocks))
    chunks = chunk_document(src, cfg)
    lines = check_invariants(src, chunks)
    check_no_cuts(src, chunks, lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(BLOCKS, st.text(max_size=40),
                          st.sampled_from(["```", "$$", "|", "\n", " ", "<div>", "-->"])),
                max_size=30))
# a NUL of the file (a lenient build indexes it) read as the mark of hidden markup in the
# spans that held it only: a window after it dropped the line `<A>` left empty, its lines'
# text kept that line
@example(pieces=["\x00", "word " * 60 + "\n", "<A>", "\n", "# 标题一\n"])
@example(pieces=["<A>", "word " * 60 + "\n", "\x00"])  # and took the file's NUL out
def test_property_never_raises_on_any_markdown(pieces):
    src = src_of("".join(pieces).replace("\r", "\n"))
    chunks = chunk_document(src, SMALL)
    check_invariants(src, chunks)


def test_cli_chunks_human_json_and_errors(tmp_path):
    runner = CliRunner()
    f = FIX / "rich.md"
    res = runner.invoke(main, ["chunks", str(f), "--kind", "table_row"])
    assert res.exit_code == 0, res.output
    assert "── table_row · 喷雾机维护手册 Sprayer Manual › 3 故障处理 › 3.2 故障码表 · line 41 ·" \
        in res.output
    assert "csv: hx3-fault-codes.csv" in res.output
    res = runner.invoke(main, ["chunks", str(f), "--json"])
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert {d["kind"] for d in data} == set(CHUNK_KINDS)
    assert set(data[0]) == {"id", "doc", "heading_path", "kind", "line_start", "line_end", "text",
                            "embed_text", "metadata", "content_hash", "links", "extra"}
    res = runner.invoke(main, ["chunks", str(tmp_path / "missing.md")])
    assert res.exit_code == 2 and "no such file" in res.output
    (tmp_path / "kb.toml").write_text("[chunk]\nmin_chars = 900\n")
    (tmp_path / "d.md").write_text("# x\n")
    res = runner.invoke(main, ["chunks", str(tmp_path / "d.md")])
    assert res.exit_code == 1 and "min_chars <= target_chars" in res.output


SHARED = Path(__file__).resolve().parents[2] / "shared"
FOREIGN = [SHARED / "eval/tidb_faq_zh/corpus" / n for n in ("doc_00033.md", "doc_00309.md")] + \
    [SHARED / "eval/cmrc2018/corpus/doc_00000.md", SHARED / "eval/scifact/corpus/doc_00670.md"]


@pytest.mark.parametrize("path", FOREIGN, ids=lambda p: p.parent.parent.name + "/" + p.name)
def test_foreign_corpus_documents(path):
    if not path.is_file():
        pytest.skip(f"{path} not available")
    src = read_doc(path, path.parent)
    for cfg in (ChunkConfig(), SMALL):
        chunks = chunk_document(src, cfg)
        check_no_cuts(src, chunks, check_invariants(src, chunks))
        sections = [c for c in chunks if c.kind == "section"]
        assert sections and max(len(c.text) for c in sections) < 40 * cfg.max_chars


def test_cli_resolves_links_inside_the_knowledge_folder(tmp_path, monkeypatch):
    (tmp_path / "kb.toml").write_text("[paths]\nknowledge = \"knowledge\"\n")
    k = tmp_path / "knowledge" / "manual"
    k.mkdir(parents=True)
    (k / "ch1.md").write_text("---\ntitle: 第1章\n---\n\n# 第1章\n\n## 1.2 联锁\n\n故障时见 4.4 节。\n",
                              encoding="utf-8")
    (k / "ch4.md").write_text("---\ntitle: 第4章\n---\n\n# 第4章\n\n## 4.4 油温过高\n\n检查冷却水。\n",
                              encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["chunks", "knowledge/manual/ch1.md"])
    assert res.exit_code == 0, res.output
    assert "↳ 见 4.4 节 → knowledge/manual/ch4.md › 第4章 › 4.4 油温过高" in res.output


def test_a_run_of_tiny_sections_is_cut_at_max_chars():
    """Tiny pieces (a bare heading) merge past max_chars only once: 2,000 empty sections (a
    careless export: 100,000 made one 600 kB chunk of the whole document) were one chunk."""
    src = src_of("# Glossary\n\n" + "## h\n\n" * 2000)
    chunks = chunk_document(src)
    sections = [c for c in chunks if c.kind == "section"]
    cfg = ChunkConfig()
    assert len(sections) > 1
    assert all(len(c.text) <= cfg.max_chars + cfg.min_chars for c in sections)
    check_invariants(src, chunks)


def test_a_bare_heading_still_joins_the_huge_block_after_it():
    src = src_of("# T\n\n## Code\n\n```\n" + "x = 1\n" * 400 + "```\n\n## Next\n\nA short tail.\n")
    first = next(c for c in chunk_document(src) if c.kind == "section")
    assert first.text.startswith("# T\n\n## Code\n\n```") and first.line_end == 406


def test_context_never_takes_part_of_a_table():
    """A picture, code block or formula next to a table took the table's first or last line
    as its context: a header row alone (`| 端子 | 说明 |`) in the chunk and its citation
    reaching into the table. A table, like a code fence, is never a context line."""
    text = ("# 电机\n\n| 端子 | 说明 |\n| --- | --- |\n| U1 | 红色线 |\n\n"
            "![接线图](wiring.png)\n\n| 项 | 值 |\n| --- | --- |\n| 压力 | 0 |\n\n"
            "```sh\nreset\n```\n\n| 步骤 | 动作 |\n| --- | --- |\n| 1 | 断电 |\n")
    chunks = chunk_document(src_of(text))
    img = next(c for c in chunks if c.kind == "image")
    code = next(c for c in chunks if c.kind == "code")
    assert img.text == "![接线图](wiring.png)" and (img.line_start, img.line_end) == (7, 7)
    assert code.text == "```sh\nreset\n```" and (code.line_start, code.line_end) == (13, 15)
