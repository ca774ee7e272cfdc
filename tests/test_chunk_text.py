"""Chunk text is what a reader sees: HTML tags and comments, entities, footnote labels, block
ids, `{#id}`s, `<script>`/`<style>` contents and invisible characters are no chunk text (the
chunker's structure and sizes: tests/test_chunk.py)."""

from __future__ import annotations

from kbtools.build.chunk import chunk_document
from kbtools.errors import INVISIBLE
from kbtools.index.tokenize import Tokenizer
from tests.test_chunk import src_of

HTML_DOC = """# 泵的流量

泵的额定流量是 12 m<sup>3</sup>/h，按 <kbd>Ctrl</kbd>+<kbd>S</kbd> 保存。<!-- 私人注释：待核实 -->

<font color="red">注意</font>：出口压力<br>不得超过 1.6 MPa<span class="x">（表压）</span>。

<!-- 作者的私人备注，不要公开 -->

<div align="center">居中的说明文字</div>

代码 `<sup>x</sup>` 与转义 \\<kbd>y</kbd> 与 气温<10℃或>30℃ 保持原样。

> 引用里的 H<sub>2</sub>O

- 列表项 <b>加粗</b> 的说明文字，足够长以成为一个列表项块
- 第二项 <i>斜体</i> 的说明文字，也足够长以成为一个列表项块

<!-- decision: inputs=压力; outputs=处置 -->
| 压力<br>(MPa) | 处置 |
|---|---|
| `<b>` 1 | <b>停机</b> |

```html
<b>code</b> <!-- kept -->
```
"""


def test_chunk_text_is_what_a_reader_sees_of_html():
    """An author's private `<!-- note -->` was hidden on pages but indexed, cited and
    embedded; tag names were BM25 tokens (`m<sup>3</sup>/h` read `m sup 3 sup h`)."""
    chunks = chunk_document(src_of(HTML_DOC, "knowledge/h.md"))
    section = next(c for c in chunks if c.kind == "section")
    assert "私人" not in section.text and "<!--" not in section.text.split("```html")[0]
    assert "12 m3/h，按 Ctrl+S 保存。" in section.text
    assert "注意：出口压力 不得超过 1.6 MPa（表压）。\n\n居中的说明文字\n\n代码" in section.text
    assert "代码 `<sup>x</sup>` 与转义 \\<kbd>y 与 气温<10℃或>30℃ 保持原样。" in section.text
    assert "> 引用里的 H2O" in section.text
    assert "<b>code</b> <!-- kept -->" in section.text  # a code block is what it shows
    assert section.embed_text.endswith(section.text)
    items = [c.text for c in chunks if c.kind == "list_item"]
    assert items[0].startswith("- 列表项 加粗 的说明") and "<i>" not in items[1]
    table = next(c for c in chunks if c.kind == "table")
    assert table.text.splitlines()[0] == "| 压力 (MPa) | 处置 |"
    assert table.text.splitlines()[2] == "| `<b>` 1 | 停机 |"
    assert [c.text for c in chunks if c.kind == "table_row"] == ["压力 (MPa): <b> 1\n处置: 停机"]


def test_markup_alone_makes_no_chunk():
    """An editor's note before the title (tidb-docs-cn's `<!-- Note: … -->`) and a section
    of `<video>` tags were chunks with no text once their markup was left out."""
    text = "<!-- Note: the lists of this file\nare sorted. -->\n\n# 索引\n\n正文在这里。\n\n## 视频\n\n" \
           '<video src="a.mp4" controls="controls"></video>\n'
    chunks = chunk_document(src_of(text))
    assert [(c.kind, c.line_start, c.text) for c in chunks] == [
        ("section", 4, "# 索引\n\n正文在这里。\n\n## 视频")]


SHOWN_DOC = """# 泄漏

## Leak limits ^limits

漏油不得超过每分钟 3 滴。 ^leak-rule

- 项一 ^item-1
- 指数 2^10 与 x ^ y 与 **粗**^id

价格&nbsp;100 元&lt;200 元 &#8482; R&D `a&lt;b ^c` 见注[^1]。

| 值 ^3 |
|---|
| 2 ^3 |

^table-id

<script>
var secret = "k";
</script>

<style>.warn { color: red }</style>

<div>居中&amp;说明 <style>p{}</style></div>

正文 <script>track()</script>尾。

## 阈值 {#limits-cn}

[^1]: 依据 GB 4285。

```
code &lt; ^blk [^2]:
```
"""


def test_chunk_text_is_what_a_reader_sees_of_ids_entities_footnotes_and_scripts():
    """Obsidian block ids (`^leak-rule`, a heading's `^limits`), a heading's `{#custom-id}`,
    footnote definition labels (`[^1]:`), entities as written (`&nbsp;`, `&lt;`) and the
    contents of `<script>`/`<style>` were chunk text, BM25 tokens and citations, though the
    page shows none of them (and the entity as its character)."""
    chunks = chunk_document(src_of(SHOWN_DOC, "knowledge/s.md"))
    section = next(c for c in chunks if c.kind == "section")
    assert section.text == (
        "# 泄漏\n\n## Leak limits\n\n漏油不得超过每分钟 3 滴。\n\n- 项一\n"
        "- 指数 2^10 与 x ^ y 与 **粗**^id\n\n"
        "价格\xa0100 元<200 元 ™ R&D `a&lt;b ^c` 见注。\n\n| 值 ^3 |\n|---|\n| 2 ^3 |\n\n"
        "居中&说明 \n\n正文 尾。\n\n## 阈值\n\n依据 GB 4285。\n\n"
        "```\ncode &lt; ^blk [^2]:\n```")
    assert [c.text for c in chunks if c.kind == "code"][0].endswith(
        "```\ncode &lt; ^blk [^2]:\n```")  # code is what it shows


def _chunks(body: str, rel: str = "k/seen.md"):
    return chunk_document(src_of(f"---\ntitle: 所见\n---\n\n{body}", rel))


def test_invisible_characters_are_no_chunk_text_nor_split_a_word():
    """A zero-width space, a BOM inside text, a soft hyphen and `&#8203;` were kept in chunk
    text and cut a word in two for BM25 (`data\\u200bbase` read `data`, `base`)."""
    body = ("# 不可见\n\n零宽：数据\u200b库、data&#8203;base、\ufeffBOM、con\u00adnection "
            "与 data\u2060store。\n\n| 列 | 值 |\n|---|---|\n| 压\u200b力 | 3 |\n")
    chunks = _chunks(body)
    section = next(c for c in chunks if c.kind == "section")
    assert "零宽：数据库、database、BOM、connection 与 datastore。" in section.text
    assert not INVISIBLE.search(section.embed_text)
    tokenizer = Tokenizer()
    assert set(tokenizer("database connection datastore")) <= set(tokenizer(section.text))
    row = next(c for c in chunks if c.kind == "table_row")
    assert row.text == "列: 压力\n值: 3"


def test_script_and_style_in_a_heading_or_cell_are_no_text():
    """A `<script>` inside a heading and a `<style>` inside a table cell were left out of the
    section's text but read into the heading path, the anchor and the row chunk."""
    body = ("# 标题带 <script>alert(1)</script>脚本\n\n正文。\n\n"
            "| 列A | 列B |\n|---|---|\n| 第一行<br>第二行 | <style>.x{}</style>单元 |\n")
    chunks = _chunks(body)
    assert {c.heading_path for c in chunks} == {("标题带 脚本",)}
    row = next(c for c in chunks if c.kind == "table_row")
    assert row.text == "列A: 第一行 第二行\n列B: 单元"
    table = next(c for c in chunks if c.kind == "table")
    assert "| 第一行 第二行 | 单元 |" in table.text


def test_escaped_custom_id_is_heading_text():
    """`## 语法 \\{#x}` is text in every editor; the chunker read it as the custom id `x`
    (heading path `语法`, and the section text kept a lone backslash)."""
    body = "# 语法 \\{#x}\n\n正文一。\n\n## 真 {#real}\n\n正文二。\n"
    chunks = _chunks(body)
    assert {c.heading_path[0] for c in chunks} == {"语法 {#x}"}
    assert chunks[0].text.startswith("# 语法 \\{#x}\n\n正文一。\n\n## 真\n")


def test_typora_table_of_contents_is_no_chunk_text():
    """Typora's `[TOC]` (`[toc]` too) is the headings' list where the page is shown (`kb
    serve`), but was chunk text: a snippet and a BM25 token `toc` of every document that
    has one. A `[TOC]` inside a sentence or a code block is text as written."""
    chunks = _chunks("# 目录页\n\n[TOC]\n\n正文。\n\n  [toc]  \n\n见 [TOC] 标记。\n\n"
                     "```\n[TOC]\n```\n")
    section = next(c for c in chunks if c.kind == "section")
    assert section.text == "# 目录页\n\n正文。\n\n见 [TOC] 标记。\n\n```\n[TOC]\n```"
    assert any("[TOC]" in c.text for c in chunks if c.kind == "code")


def test_a_block_nested_in_a_list_item_loses_the_items_indentation():
    """A table or code under a numbered step is shown as written at the margin, not with the
    item's indentation on every line but the first (trim takes it off the first only)."""
    text = ("# 泵的检修\n\n1. 第一步：断电。\n\n   | 列1 | 列2 |\n   | --- | --- |\n   | x | y |\n\n"
            "   ```sh\n   pump stop\n     --force\n   ```\n\n2. 第二步：检查油位。\n")
    chunks = chunk_document(src_of(text))
    table = next(c for c in chunks if c.kind == "table")
    assert table.text == "| 列1 | 列2 |\n| --- | --- |\n| x | y |"
    assert (table.line_start, table.line_end) == (5, 7)
    # a code chunk holds the line after it (the next step at the margin; the table before it
    # is no context): its lines after the first are left as written
    code = next(c for c in chunks if c.kind == "code")
    assert code.text == "```sh\n   pump stop\n     --force\n   ```\n\n2. 第二步：检查油位。"
    steps = [c.text for c in chunks if c.kind == "list_item"]
    assert any(t.startswith("1. 第一步") for t in steps)


def test_the_cells_of_an_html_table_are_apart_in_chunk_text():
    """`<td>k</td><td>v</td>` read `kv`: the words of neighbouring cells, rows and items ran
    into one token (BM25 found neither `html1` nor `灌溉`)."""
    text = ("# 灌溉\n\n<table><tr><th>作物</th><th>水量</th></tr>"
            "<tr><td>小麦</td><td>灌溉 30 m<sup>3</sup></td></tr></table>\n\n"
            "<ul><li>first</li><li>second<br>third</li></ul>\n\n<div>说明</div>\n")
    section = next(c for c in chunk_document(src_of(text)) if c.kind == "section")
    assert section.text == "# 灌溉\n\n作物 水量 小麦 灌溉 30 m3\n\nfirst second third\n\n说明"
    assert {"小麦", "灌溉", "first", "second"} <= set(Tokenizer()(section.text))


def test_a_callout_reads_as_its_title_as_the_page_shows_it():
    """`> [!warning]- 断电挂牌` kept its marker `[!warning]-` in chunk text (a snippet and BM25
    tokens `warning` no reader sees); the page titles the box `断电挂牌`, or the type's name
    (`Tip`, chunk text as written: `TIP`) when the line has no title. A `[!x]` later in a
    quote is text."""
    body = ("# 安全\n\n> [!warning]- 断电挂牌\n> 检修前必须断电。\n\n> [!TIP]+\n> 正文提示\n\n"
            "> 普通引用 [!x]\n\n- 列表\n  > [!note] 嵌套 &amp; 标题\n  > 内容\n")
    section = next(c for c in _chunks(body) if c.kind == "section")
    assert section.text == ("# 安全\n\n> 断电挂牌\n> 检修前必须断电。\n\n> TIP\n> 正文提示\n\n"
                            "> 普通引用 [!x]\n\n- 列表\n  > 嵌套 & 标题\n  > 内容")


def test_an_inline_footnote_reads_as_its_note_in_place():
    """`滴^[依据 GB 4285]` (Obsidian, Pandoc) kept its `^[` and `]` in chunk text and was
    shown raw on the page; both read the note in place between parentheses. An escaped
    `\\^[`, one in code and an empty `^[]` stay text."""
    body = ("# 用量^[每亩]\n\n每亩 5 滴^[依据 GB 4285，**加粗** <b>标签</b>]。\n\n"
            "| 项 | 值 |\n|---|---|\n| 滴数^[注 a] | 5 |\n\n"
            "`^[代码]` 与 \\^[转义] 与 ^[] 与 a^[b^[c]]\n")
    chunks = _chunks(body)
    section = next(c for c in chunks if c.kind == "section")
    assert section.heading_path == ("用量(每亩)",)
    assert section.text.startswith("# 用量(每亩)\n\n每亩 5 滴(依据 GB 4285，**加粗** 标签)。\n\n")
    assert section.text.endswith("`^[代码]` 与 \\^[转义] 与 ^[] 与 a(b(c))")
    row = next(c for c in chunks if c.kind == "table_row")
    assert row.text == "项: 滴数(注 a)\n值: 5"


def test_an_img_tag_in_a_cell_reads_its_alt_text_as_a_markdown_image_does():
    """`kb check --fix` writes Obsidian's `![[图.png|A|120]]` as `<img … alt="A" width="120">`:
    in a table cell the row read nothing of it, where `![A](图.png)` reads `A`."""
    body = ("# 表\n\n| 图 | 说明 |\n|---|---|\n"
            '| <img src="a.png" alt="A &amp; B" width="120"> | ![叶片](b.png) |\n')
    row = next(c for c in _chunks(body) if c.kind == "table_row")
    assert row.text == "图: A & B\n说明: 叶片"


def test_a_heading_s_wikilink_is_its_text_in_heading_paths():
    """`## 参见 [[设备手册|*检修*]]` named its section `参见 [[设备手册|检修]]` in heading
    paths (citations, the text embedded before each chunk), where Obsidian and the chunk's
    own text show `参见 检修`."""
    body = ("# 总\n\n## 参见 [[设备手册]]\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
            "## 再见 [[设备手册#停机|*检修*]] ^b1\n\n| a | b |\n|---|---|\n| 3 | 4 |\n\n"
            "## See [[pump#Stop|the **stop** rule]]\n\n| a | b |\n|---|---|\n| 5 | 6 |\n")
    chunks = chunk_document(src_of(body))
    assert {tuple(c.heading_path) for c in chunks} == {
        ("总",), ("总", "参见 设备手册"), ("总", "再见 检修"), ("总", "See the stop rule")}
    assert all("[[" not in c.embed_text for c in chunks)
