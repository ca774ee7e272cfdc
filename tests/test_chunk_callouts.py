"""Tables and formulas inside Obsidian callouts and list items, chunked as a reader sees them.

A finding of session 32, read through `kb chunks --json` on a real file (a nested table's
caption is as before: measured, docs/chunking.md):

- A blank line of a callout (`>` alone) counted as a line a reader sees: a formula's "line
  before" was that `>`, and a section piece could start or end (its citation) on it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")  # the body's first line is FM_LINES + 1
SMALL_TOML = "[chunk]\ntarget_chars = 120\nmax_chars = 200\nmin_chars = 30\noverlap_chars = 30\n"

CALLOUT_ZH = """
# 液压系统

> [!warning] 断电挂牌
> 检修前必须断电并挂牌。这一步非常重要，所有人员必须遵守，违者按规定处理。
> 第二句话也很长，说明为什么要断电：液压系统在带电状态下可能意外启动，造成伤害。
>
> 表 1 检修分工：
>
> | 步骤 | 负责人 | 说明 |
> |---|---|---|
> | 断电 | 电工 | 切断主电源并确认无电压 |
> | 挂牌 | 班长 | 在开关处挂禁止合闸牌 |
>
> $$
> P = \\frac{F}{A} \\tag{3.1}
> $$
>
> 完成后签字确认。签字由班长保存，保存期限为三年，供安全检查时查阅。

最后一段短文字。
"""
STEP_EN = """
# Pump service

1. Remove the housing:

   | Screw | Count |
   |---|---|
   | M6 | 4 |

2. Put it back.

> [!note]- Torque
>
> Tighten to the values below.
>
> | Screw | Torque (N·m) |
> |---|---|
> | M6 | 10 |
>
> >
> > $$ T = F \\cdot r $$
> >

A short closing line.
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "kb.toml").write_text(SMALL_TOML)
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def chunks_of(repo: Path, body: str) -> tuple[list[dict], list[str]]:
    text = GOOD_FM + body
    (repo / "knowledge" / "t" / "note.md").write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["chunks", "--json", "knowledge/t/note.md"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), text.split("\n")


def body_of(chunk: dict) -> str:
    """The embedded text less its first line (the heading path)."""
    return chunk["embed_text"].split("\n", 1)[1]


def test_a_table_after_a_paragraph_of_its_section_still_has_its_caption(repo):
    """The caption of a table at the section's top level is as before."""
    chunks, _ = chunks_of(repo, "\n# 保养\n\n表 2 周期：\n\n| 部件 | 周期 |\n|---|---|\n"
                                "| 轴承 | 3 个月 |\n\n结束语。\n")
    [table] = [c for c in chunks if c["kind"] == "table"]
    assert body_of(table).startswith("表 2 周期：\n| 部件 | 周期 |")


QUOTE_BLANK = re.compile(r"^\s*(>\s*)+$")


@pytest.mark.parametrize("body", [CALLOUT_ZH, STEP_EN], ids=["zh", "en"])
def test_no_chunk_starts_or_ends_on_a_blank_callout_line(repo, body):
    chunks, lines = chunks_of(repo, body)
    for c in chunks:
        for n in (c["line_start"], c["line_end"]):
            assert not QUOTE_BLANK.match(lines[n - 1]), (c["kind"], n, c["text"])
        assert not QUOTE_BLANK.match(c["text"].split("\n")[0]), c["text"]
        assert not QUOTE_BLANK.match(c["text"].split("\n")[-1]), c["text"]


def test_a_formula_in_a_callout_has_the_text_lines_around_it(repo):
    chunks, lines = chunks_of(repo, CALLOUT_ZH)
    [formula] = [c for c in chunks if c["kind"] == "formula"]
    first, last = formula["extra"]["formula_lines"]
    assert lines[first - 1] == "> $$" and lines[last - 1] == "> $$"
    # the table row above is half a table, so no line before; after: the next sentence
    assert formula["line_start"] == first
    assert lines[formula["line_end"] - 1].startswith("> 完成后签字确认")
    assert formula["text"].endswith("> 完成后签字确认。签字由班长保存，保存期限为三年，供安全检查时查阅。")


def test_a_callout_tables_row_is_cited_at_its_line_by_kb_query(repo):
    """Through the whole pipeline as a user runs it: `kb build`, then `kb query --json`
    names the row's own line and shows the row."""
    _, lines = chunks_of(repo, CALLOUT_ZH)
    built = CliRunner().invoke(main, ["build", "-q"])
    assert built.exit_code == 0, built.output
    res = CliRunner().invoke(main, ["query", "--json", "挂牌 班长 负责人"])
    assert res.exit_code == 0, res.output
    rows = [r for r in json.loads(res.stdout)["results"] if r["kind"] == "table_row"]
    assert rows, res.stdout
    row = rows[0]
    assert row["line_start"] == row["line_end"] == lines.index("> | 挂牌 | 班长 | 在开关处挂禁止合闸牌 |") + 1
    assert row["text"] == "步骤: 挂牌\n负责人: 班长\n说明: 在开关处挂禁止合闸牌"


BLOCK_THEN_TITLE = """
# 安装

执行以下命令：

```bash
kb build --out dist
```
> [!note] 注意事项
> 构建前先运行检查。

Then the formula:

$$
a + b
$$
> [!warning]- Torque limits
> Never exceed 12 N·m.

```sh
echo done
```
<details><summary>扭矩表</summary>

Folded text.

</details>
"""


def test_a_block_s_line_after_is_never_the_next_callout_s_title(repo):
    """A callout's title (and a folded box's summary) opens the block below it, as a heading
    opens its section: the code or formula above takes no line after, rather than the title
    of what follows as if it were prose about itself."""
    chunks, lines = chunks_of(repo, BLOCK_THEN_TITLE)
    blocks = [c for c in chunks if c["kind"] in ("code", "formula")]
    assert [c["kind"] for c in blocks] == ["code", "formula", "code"]
    for c in blocks:
        last = lines[c["line_end"] - 1]
        assert last in ("```", "$$"), (c["kind"], last)
        assert c["text"].split("\n")[-1] == last
    assert "注意事项" not in blocks[0]["embed_text"]
    assert "Torque" not in blocks[1]["embed_text"]
    assert "扭矩表" not in blocks[2]["embed_text"]
    # the line before is still taken
    assert body_of(blocks[0]).startswith("执行以下命令：")
    assert body_of(blocks[1]).startswith("Then the formula:")


BLOCK_BETWEEN_MARKS = """
# 规则

Intro words.

***

```bash
kb build
```
---

后文。

```sh
echo done
```
- [ ]

[^1]脚注引用开头的句子有字。

```sh
echo three
```
[^1]: 脚注内容在页尾显示。
"""


def test_a_block_s_context_is_never_a_line_without_a_word(repo):
    """A thematic break (`***`, `---`), an empty task item (`- [ ]`) or a footnote
    definition (shown at the page's end) beside a code block was its line before or after:
    markup between blocks, no text about the code. A sentence opening with a footnote
    reference is text as before."""
    chunks, lines = chunks_of(repo, BLOCK_BETWEEN_MARKS)
    codes = [c for c in chunks if c["kind"] == "code"]
    assert len(codes) == 3
    assert lines[codes[2]["line_start"] - 1] == "[^1]脚注引用开头的句子有字。"
    assert lines[codes[0]["line_start"] - 1] == "```bash", codes[0]["text"]
    assert lines[codes[1]["line_start"] - 1] == "后文。"  # a line with words: as before
    for c in codes:
        assert lines[c["line_end"] - 1] == "```", c["text"]
