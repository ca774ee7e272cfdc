"""What an Obsidian callout holds, chunked, cited and found as the same content outside one.

Authors put their most important content in callouts (`> [!warning] 安全`). Found in
session 35, reading `kb chunks --json` of callouts holding each kind of block:

- A list in a callout (or any quote) had no list item chunks: the same list outside a
  callout has one per item, cited at the item's lines, embedded after its lead-in.
- A table in a callout took as its caption the section's last short paragraph, even one
  written after the callout (`普通段落结尾。`), not the callout's title (`油温判定表`).
- A list in Typora's or GitHub's `<details><summary>标题</summary>` box had no lead-in:
  the summary, the box's title, is to its list what a paragraph before a list is.

Each test holds Chinese and English cases; the callouts are plain, foldable (`[!tip]-`),
nested, and titled or not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.chunk import ChunkConfig, chunk_document
from kbtools.build.records import Chunk
from kbtools.cli import main
from kbtools.corpus import parse_source
from tests.kbfixtures import GOOD_FM
from tests.test_chunk import SMALL, check_invariants

REL = "knowledge/t/callouts.md"
SMALL_TOML = "[chunk]\ntarget_chars = 60\nmax_chars = 100\nmin_chars = 30\noverlap_chars = 20\n"

LISTS_ZH = """
# 液压站维护

液压站是生产线的核心设备，需要定期维护保养。

> [!warning] 安全注意事项
> - 检修前必须切断主电源并挂牌上锁，防止他人误合闸。
> - 释放蓄能器中的残余压力，确认压力表读数归零后再拆管路。
> - 佩戴防护眼镜和耐油手套，避免高压油喷射伤人。

> [!tip]- 更换滤芯步骤
>
> 1. 关闭液压泵并等待油温降到四十度以下再开始操作。
> 2. 拧下滤芯壳体，取出旧滤芯，检查密封圈是否老化开裂。
>    - 密封圈开裂时必须一并更换，不得继续使用旧件。
> 3. 装入新滤芯，按规定力矩拧紧壳体螺栓。

> [!caution] 油品
> 外层说明文字，关于油品选择的注意事项。
> > [!danger] 禁止混用
> > - 严禁混用不同牌号的液压油，否则会导致油品乳化变质。
> > - 严禁使用过期油品，开封超过一年的油桶整桶报废。

最后一段短文字。
"""
LISTS_EN = """
# Pump service

The pump needs regular service.

> [!WARNING] Lockout before service
> - Switch off the main breaker and lock it with your own padlock.
> - Bleed the accumulator until the gauge reads zero before opening a line.

> [!note]-
> 1. Stop the pump and wait until the casing has cooled below forty degrees.
> 2. Fit the new seal with its lip facing the impeller, then refit the cover.

> Plain quotes hold lists too:
> * Never run the pump dry, not even for a few seconds at start-up.
> * Never close the discharge valve while the motor is running.

A short closing line.
"""


def chunks_of(body: str) -> tuple[list[Chunk], list[str]]:
    text = GOOD_FM + body
    src = parse_source(text, Path("/r") / REL, REL)
    chunks = chunk_document(src)
    check_invariants(src, chunks)
    small = chunk_document(src, SMALL)
    check_invariants(src, small)
    return chunks, text.split("\n")


def line_of(lines: list[str], needle: str) -> int:
    [n] = [i for i, line in enumerate(lines) if needle in line]
    return n + 1


def embedded(chunk: Chunk) -> str:
    """The embedded text less its first line (the heading path)."""
    return chunk.embed_text.split("\n", 1)[1]


@pytest.mark.parametrize(("body", "items"), [
    (LISTS_ZH, [("检修前必须切断主电源", "安全注意事项", 1), ("释放蓄能器", "安全注意事项", 1),
                ("佩戴防护眼镜", "安全注意事项", 1), ("关闭液压泵", "更换滤芯步骤", 1),
                ("拧下滤芯壳体", "更换滤芯步骤", 2), ("装入新滤芯", "更换滤芯步骤", 1),
                ("严禁混用", "油品\n禁止混用", 1), ("严禁使用过期油品", "油品\n禁止混用", 1)]),
    (LISTS_EN, [("Switch off the main", "Lockout before service", 1),
                ("Bleed the accumulator", "Lockout before service", 1),
                ("Stop the pump", "note", 1), ("Fit the new seal", "note", 1),
                ("Never run the pump dry", "Plain quotes hold lists too:", 1),
                ("Never close the discharge", "Plain quotes hold lists too:", 1)]),
], ids=["zh", "en"])
def test_each_item_of_a_list_in_a_callout_is_a_chunk_after_the_callouts_title(body, items):
    """Cited at exactly the item's lines (a sub-item's included), its text the item as
    written, embedded after the callout's title (its lead-in), as a list outside does; in a
    nested callout, after the outer callout's title too (as under a heading and its own)."""
    chunks, lines = chunks_of(body)
    found = [c for c in chunks if c.kind == "list_item"]
    assert len(found) == len(items), [c.text for c in found]
    for chunk, (needle, title, n_lines) in zip(found, items, strict=True):
        first = line_of(lines, needle)
        assert (chunk.line_start, chunk.line_end) == (first, first + n_lines - 1), chunk
        assert needle in chunk.text and needle in lines[chunk.line_start - 1]
        assert embedded(chunk).startswith(f"{title}\n> "), chunk.embed_text


def test_a_list_in_a_callout_chunks_as_the_same_list_outside_one():
    """The items' numbers and order, and their text less the `>` markers, are those of the
    same list written outside a callout after a paragraph holding the title, and so is what
    they embed (but in the nested callout, whose items embed the outer title too)."""
    inside, _ = chunks_of(LISTS_ZH)
    outside_body = """
# 液压站维护

液压站是生产线的核心设备，需要定期维护保养。

安全注意事项
- 检修前必须切断主电源并挂牌上锁，防止他人误合闸。
- 释放蓄能器中的残余压力，确认压力表读数归零后再拆管路。
- 佩戴防护眼镜和耐油手套，避免高压油喷射伤人。

更换滤芯步骤

1. 关闭液压泵并等待油温降到四十度以下再开始操作。
2. 拧下滤芯壳体，取出旧滤芯，检查密封圈是否老化开裂。
   - 密封圈开裂时必须一并更换，不得继续使用旧件。
3. 装入新滤芯，按规定力矩拧紧壳体螺栓。

油品
外层说明文字，关于油品选择的注意事项。

禁止混用
- 严禁混用不同牌号的液压油，否则会导致油品乳化变质。
- 严禁使用过期油品，开封超过一年的油桶整桶报废。

最后一段短文字。
"""
    outside, _ = chunks_of(outside_body)

    def items(chunks: list[Chunk]) -> list[tuple[object, ...]]:
        return [(c.extra["ordered"], c.extra["number"], c.text.replace("> ", "").replace(">", ""),
                 embedded(c).replace("> ", "")) for c in chunks if c.kind == "list_item"]

    assert [i[:3] for i in items(inside)] == [i[:3] for i in items(outside)]
    assert items(inside)[:6] == items(outside)[:6]
    assert [i[3].split("\n")[:2] for i in items(inside)[6:]] == [["油品", "禁止混用"]] * 2
    assert len(items(inside)) == 8


TABLES = {
    "zh": ("""
# 液压油

> [!note] 油温判定表
> | 油温 | 处理 |
> |---|---|
> | 60以下 | 正常运行 |
> | 60以上 | 停机检查冷却器 |

普通段落结尾。
""", "油温判定表", "油温: 60以上\n处理: 停机检查冷却器"),
    "en": ("""
# Seals

> [!tip]- Seal choice by temperature
>
> | Temperature (°C) | Seal |
> |---|---|
> | below 80 | NBR |
> | 80 or above | FKM |

Closing words.
""", "Seal choice by temperature", "Temperature (°C): 80 or above\nSeal: FKM"),
}


@pytest.mark.parametrize("case", TABLES.values(), ids=TABLES.keys())
def test_a_table_in_a_callout_is_captioned_by_the_callouts_title(case):
    body, title, last_row = case
    chunks, lines = chunks_of(body)
    [table] = [c for c in chunks if c.kind == "table"]
    rows = [c for c in chunks if c.kind == "table_row"]
    assert embedded(table).split("\n")[0].lstrip("> ") == title
    assert [embedded(r).split("\n")[0].lstrip("> ") for r in rows] == [title, title]
    assert rows[-1].text == last_row
    last = line_of(lines, last_row.split(": ")[-1])  # the row's own line of the file
    assert rows[-1].line_start == rows[-1].line_end == last
    assert "decision" in table.extra  # a decision table in a callout ships parsed


def test_a_list_in_a_details_box_is_embedded_after_its_summary():
    for body, summary in (
            ("# Pump\n\n<details>\n<summary>Torque values</summary>\n\n"
             "- Cover bolts: tighten to 25 N·m in a star pattern.\n"
             "- Drain plug: tighten to 40 N·m with a new washer.\n\n</details>\n",
             "Torque values"),
            ("# 泵\n\n<details><summary><b>拧紧力矩</b></summary>\n\n"
             "1. 端盖螺栓按对角顺序拧紧到二十五牛米。\n2. 放油螺塞更换新垫圈后拧紧到四十牛米。\n\n"
             "</details>\n", "拧紧力矩")):
        chunks, _ = chunks_of(body)
        found = [c for c in chunks if c.kind == "list_item"]
        assert len(found) == 2
        assert all(embedded(c).split("\n")[0] == summary for c in found), found


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "kb.toml").write_text(SMALL_TOML)
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("body", "question", "needle"), [
    (LISTS_ZH, "安全注意事项 防护眼镜", "佩戴防护眼镜"),
    (LISTS_EN, "lockout accumulator gauge", "Bleed the accumulator"),
], ids=["zh", "en"])
def test_kb_query_finds_a_callouts_item_by_its_title_words_and_cites_its_line(
        repo, body, question, needle):
    """Through `kb build` and `kb query --json`: a question naming the callout's title and
    one item's words gets that item, cited at its own line."""
    text = GOOD_FM + body
    (repo / "knowledge" / "t" / "note.md").write_text(text, encoding="utf-8")
    built = CliRunner().invoke(main, ["build", "-q"])
    assert built.exit_code == 0, built.output
    res = CliRunner().invoke(main, ["query", "--json", question])
    assert res.exit_code == 0, res.output
    top = json.loads(res.stdout)["results"][0]
    lines = text.split("\n")
    needle_line = line_of(lines, needle)
    assert needle in top["text"] and top["line_start"] <= needle_line <= top["line_end"], top
    assert all(lines[n - 1].startswith(">") for n in range(top["line_start"], top["line_end"] + 1))


@pytest.mark.parametrize("body", [LISTS_ZH, LISTS_EN], ids=["zh", "en"])
def test_every_piece_of_a_cut_callout_embeds_its_title(body):
    """A callout cut into several section chunks: each piece after the title's line embeds
    the title first, as each piece of a cut section embeds its heading."""
    src = parse_source(GOOD_FM + body, Path("/r") / REL, REL)
    cfg = ChunkConfig(target_chars=60, max_chars=100, min_chars=30, overlap_chars=20)
    chunks = chunk_document(src, cfg)
    check_invariants(src, chunks)
    lines = src.text.split("\n")
    titled = 0
    for c in chunks:
        first = lines[c.line_start - 1]
        if not first.startswith(">") or "[!" in first:
            continue
        title_line = max(n for n in range(1, c.line_start) if "[!" in lines[n - 1]
                         or not lines[n - 1].startswith(">"))
        opener = lines[title_line - 1]
        if "[!" in opener:  # inside a callout, below its title's line
            titled += 1
            words = opener.split("]", 1)[1].lstrip("-+ ") or opener.split("[!")[1].split("]")[0]
            assert words in embedded(c).split("\n> ")[0], (c.kind, c.embed_text)
    assert titled >= 4


def test_code_formulas_and_diagrams_in_a_callout_are_chunked_as_outside():
    """Guard (already right in session 35): a code block, a formula and a Mermaid diagram in
    a callout have their chunks at their own lines with the callout's title as the line
    before; a PlantUML block is code (its language kept), a Mermaid one read as its graph."""
    body = ("\n# 流程\n\n> [!info] 启动流程\n> ```mermaid\n> graph TD\n>   A[启动泵] --> B{压力正常?}\n"
            ">   B -->|是| C[运行]\n> ```\n\n> [!example]- Start command\n> ```plantuml\n"
            "> @startuml\n> operator -> cabinet: start\n> @enduml\n> ```\n\n> [!note] 压力公式\n"
            "> $$\n> P = \\frac{F}{A}\n> $$\n\n结束。\n")
    chunks, lines = chunks_of(body)
    kinds = {c.kind: c for c in chunks if c.kind != "section"}
    assert sorted(kinds) == ["code", "formula", "mermaid"]
    mermaid, code, formula = kinds["mermaid"], kinds["code"], kinds["formula"]
    assert embedded(mermaid).startswith("启动泵 → 压力正常?\n压力正常? → 运行（是）")
    assert code.extra["language"] == "plantuml"
    for chunk, title in ((mermaid, "启动流程"), (code, "Start command"), (formula, "压力公式")):
        assert lines[chunk.line_start - 1].endswith(title), chunk
        fence = chunk.extra.get("code_lines") or chunk.extra["formula_lines"]
        assert fence[0] == chunk.line_start + 1


def callout_manual(callouts: int) -> str:
    """A manual of `callouts` callouts, every fourth nesting one more (a line in it lies in
    two), each holding a list of two steps."""
    parts = ["\n# 阀组检修\n"]
    for n in range(callouts):
        nested = f"> > [!danger] 内层 {n}\n> > 严禁带压拆卸。\n" if n % 4 == 0 else ""
        parts.append(f"\n> [!warning] 注意 {n}\n> 1. 泄压第 {n} 号阀组。\n> 2. 挂牌上锁。\n"
                     f"{nested}")
    return "".join(parts)


def test_a_manuals_callout_titles_are_each_lines_own_outer_first():
    """`ChunkMaker.titles` of a manual of 800 callouts (looked up by line since session 36:
    it looked through every callout for each chunk, chunks × callouts; the cost is a
    benchmark's, `bench_chunk.py --callouts N`): a line's titles are its callouts', outer
    ones first, and a body opening with a title does not repeat it."""
    from kbtools.build.chunk_text import ChunkMaker
    from kbtools.build.xref import HeadingIndex
    from kbtools.markdown.doctree import parse

    src = parse_source(GOOD_FM + callout_manual(800), Path("/r") / REL, REL)
    doc = parse(src)
    maker = ChunkMaker(doc, ChunkConfig(), HeadingIndex.build([doc]))
    lines = list(doc.lines)
    inner = next(n for n, line in enumerate(lines, 1) if line.startswith("> > 严禁"))
    assert maker.titles(inner, "") == "注意 0\n内层 0\n"
    assert maker.titles(inner, "> 内层 0") == "注意 0\n"  # the body opening with it: once
    assert maker.titles(inner - 3, "") == "注意 0\n"  # the outer callout's list
