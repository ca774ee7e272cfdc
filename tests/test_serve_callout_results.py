"""A search result from inside an Obsidian callout, on `kb serve`'s results page.

The document's page showed callouts as boxes of their kind under their title; the results page
showed a passage from one as a plain quote: a piece starting at the callout's title (its chunk
reads `> 预充压力检查`, the file `> [!tip]- 预充压力检查`) from the chunk's text, with the title
as a line of the quote; a row of a table in a callout, or a piece further down a long one,
without the box or title at all. The passage is now shown in the callout's box under its
title (outer callouts too), only its own lines cited, and the HTML page and `/api/search`
agree on what each passage is (document, lines, words). A row of a table in Typora's
`<details>` box likewise had no box and no summary (its title)."""

from __future__ import annotations

import html as htmllib
import re

import pytest
from servefixtures import app_client

from tests.hostile import built_repo_index
from tests.kbfixtures import titled_page

LEAD = "蓄能器是液压站中储存压力能的部件，检修前要了解它的结构、充气压力和安全阀的设定值。" * 12
RELEASE = "检修蓄能器前，必须先把系统压力完全释放，确认压力表读数为零后才能拆卸。" * 12
ZH = titled_page("液压站维护", f"""## 蓄能器检修

{LEAD}

> [!warning] 蓄能器泄压步骤
> {RELEASE}
>
> 1. 关闭液压泵电机并挂牌上锁，防止他人误启动设备造成高压油喷射伤人。
> 2. 缓慢打开蓄能器截止阀下方的泄压阀，观察压力表直到读数降到零为止。
> 3. 用氮气充气工具检查预充压力，预充压力应为最低工作压力的百分之九十左右。

> [!tip]- 预充压力检查
> {"胶囊式蓄能器的预充压力每三个月用充气工具检查一次，检查时液压侧必须完全泄压。" * 3}

{"蓄能器的更换周期为五年，或者在胶囊破损时立即更换。" * 20}

## 油温

> [!warning] 油温判定表
> <!-- decision: inputs=油温(℃); outputs=处理 -->
> | 油温(℃) | 处理 |
> |---|---|
> | <40 | 正常运行 |
> | 40-60 | 检查冷却水流量 |
> | >60 | 停机检查冷却器 |
""")
BLEED = "Bleed the accumulator through the bleed valve until the gauge reads zero. " * 16
EN = titled_page("Accumulator safety", f"""## Stored energy

> [!caution] Before any work
> Read the whole procedure first.
> > [!danger] Charged accumulator
> > Never open a fitting while the accumulator is charged.
> > {BLEED}
""")
CODES = titled_page("HX-260 故障代码", "> [!info] 代码一览\n> | 代码 | 含义 |\n> |---|---|\n"
                    + "\n".join(f"> | E{n:02d} | 第{n}号故障的复位方法 |" for n in range(1, 41)))

TORQUE = titled_page("螺栓拧紧力矩", """## 泵座

<details>
<summary>泵座螺栓拧紧力矩表</summary>

| 螺栓 | 力矩(N·m) |
|---|---|
| M8 | 25 |
| M10 | 49 |

</details>

## Valve block

> [!note] Torque values
> <details open>
> <summary>Valve block bolts</summary>
>
> | Bolt | Torque (N·m) |
> |---|---|
> | M6 | 10 |
> | M12 | 85 |
>
> </details>
""")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    dist = built_repo_index(tmp_path_factory.mktemp("callout-results") / "kr", {
        "knowledge/zh.md": ZH, "knowledge/en.md": EN, "knowledge/codes.md": CODES,
        "knowledge/torque.md": TORQUE})
    yield from app_client(dist)


def line_of(page: str, text: str) -> int:
    return next(n for n, line in enumerate(page.split("\n"), 1) if text in line)


def passage(client, question: str, doc: str, lines: tuple[int, int], lang: str):
    """The API's result of `doc` at `lines` for `question`, and the passage HTML the results
    page (in `lang`) shows for it."""
    api = client.get("/api/search", params={"q": question, "k": 10}).json()["results"]
    found = [r for r in api if r["doc"] == doc and (r["line_start"], r["line_end"]) == lines]
    assert found, [(r["doc"], r["line_start"], r["line_end"]) for r in api]
    page = client.get("/", params={"q": question, "lang": lang}).text
    articles = re.findall(r'<article class="result[^"]*" data-doc="([^"]+)" '
                          r'data-lines="(\d+)-(\d+)">(.*?)</article>', page, re.S)
    # the page lists the API's passages, in its order
    assert [(d, int(a), int(b)) for d, a, b, _ in articles] == \
        [(r["doc"], r["line_start"], r["line_end"]) for r in api]
    html = next(h for d, a, b, h in articles if (d, int(a), int(b)) == (doc, *lines))
    return found[0], html.split('<div class="passage"', 1)[1]


def words(text: str) -> str:
    """What a reader reads of chunk text or HTML: tags, quote markers and blanks left out."""
    return re.sub(r"[>\s]", "", htmllib.unescape(re.sub(r"<[^>]+>", "", text)))


def cited_words(html: str) -> str:
    return "".join(words(m) for m in re.findall(r'class="cited"[^>]*>(.*?)</(?:p|tr|li)>', html,
                                                 re.S))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_piece_starting_at_a_callout_s_title_is_shown_in_its_box(client, lang):
    first, last = line_of(ZH, "[!tip]- 预充压力检查"), line_of(ZH, "更换周期")
    r, html = passage(client, "胶囊式蓄能器预充压力多久检查一次", "knowledge/zh.md",
                      (first, last), lang)
    assert r["text"].startswith("> 预充压力检查")  # the chunk reads the title, no marker
    box = re.match(r'[^>]*><blockquote class="callout callout-tip cited" '
                   rf'data-lines="{first}-{first + 1}">\n<p[^>]*><span class="callout-title">'
                   r'(.*?)</span>', html)
    assert box and words(box.group(1)) == "预充压力检查", html[:400]
    assert "[!" not in html and cited_words(html) == words(r["text"])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_table_row_in_a_callout_is_shown_in_its_box_under_its_title(client, lang):
    title, row = line_of(ZH, "[!warning] 油温判定表"), line_of(ZH, "| >60 |")
    r, html = passage(client, "油温65度怎么处理", "knowledge/zh.md", (row, row), lang)
    assert r["evaluation"]["status"] == "match"  # a decision table in a callout is one
    box = re.match(r'[^>]*><blockquote class="callout callout-warning" '
                   rf'data-lines="{title}-{row}">\n<p data-lines="{title}-{title}">'
                   r'<span class="callout-title"><mark>油温</mark>判定表</span></p>\n'
                   r'<div class="table-wrap"><table data-lines="(\d+)-', html)
    assert box and int(box.group(1)) == title + 2, html[:400]  # the table at its own line
    assert re.findall(r'<tr data-lines="(\d+)-\d+" class="cited"', html) == [str(row)]
    assert cited_words(html) == "60停机检查冷却器"


def test_a_piece_inside_nested_callouts_is_shown_in_both_boxes(client):
    """A piece cut inside a line of an inner callout (its text starts mid-line, no `>`)."""
    outer, inner, line = (line_of(EN, "[!caution]"), line_of(EN, "[!danger]"),
                          line_of(EN, "> > Bleed"))
    api = client.get("/api/search", params={"q": "bleed valve gauge reads zero",
                                              "k": 10}).json()["results"]
    piece = next(r for r in api if r["doc"] == "knowledge/en.md"
                 and r["line_start"] == r["line_end"] == line)
    assert not piece["text"].startswith(">")  # the precondition: a piece from inside a line
    _, html = passage(client, "bleed valve gauge reads zero", "knowledge/en.md", (line, line),
                      "en")
    assert re.match(rf'[^>]*><blockquote class="callout callout-warning" data-lines="{outer}-'
                    rf'{line}">\n<p data-lines="{outer}-{outer}"><span class="callout-title">'
                    r'Before any work</span></p>\n<blockquote class="callout callout-danger" '
                    rf'data-lines="{inner}-{line}">\n<p data-lines="{inner}-{inner}">'
                    r'<span class="callout-title">Charged accumulator</span></p>\n'
                    rf'<p data-lines="{line}-{line}" class="cited"><mark>Bleed</mark>', html), \
        html[:600]
    assert html.count("</blockquote>") == 2 and cited_words(html) == words(piece["text"])


def test_a_long_table_in_a_callout_keeps_its_note_of_rows_left_out(client):
    title, row = line_of(CODES, "[!info]"), line_of(CODES, "| E25 |")
    r, html = passage(client, "E25 故障的复位方法", "knowledge/codes.md", (row, row), "zh")
    assert r["kind"] == "table_row"
    assert re.match(rf'[^>]*><blockquote class="callout callout-info" data-lines="{title}-',
                    html), html[:300]
    assert re.search(r'<tbody[^>]*>\n<tr class="omitted"><td colspan="2" lang="zh-CN">[^<]*14[^<]*</td>'
                     rf'</tr>\n<tr data-lines="{row - 10}-{row - 10}">', html), html
    assert re.findall(r'<tr data-lines="(\d+)-\d+" class="cited"', html) == [str(row)]
    assert html.count('class="omitted"') == 2  # before the rows shown and after them


@pytest.mark.parametrize(("question", "row", "boxes"), [
    ("M10 螺栓拧紧力矩", "| M10 |", ["<details open", "<summary>"]),
    ("M12 valve block bolt torque", "| M12 |",
     ['<blockquote class="callout callout-note"', '<span class="callout-title">',
      "<details open", "<summary>"]),
], ids=["details", "details-in-callout"])
def test_a_row_of_a_table_in_a_details_box_is_shown_under_its_summary(client, question, row,
                                                                       boxes):
    """Typora's and GitHub's folded box (`<details><summary>…</summary>`): a row of its table
    was shown without the box or its summary, the table's title."""
    line = line_of(TORQUE, row)
    _, html = passage(client, question, "knowledge/torque.md", (line, line), "zh")
    at = [html.find(b) for b in boxes]
    assert -1 not in at and at == sorted(at) and at[-1] < html.index("<table"), html[:600]
    summary = html[html.index("<summary>"):html.index("</summary>")]
    assert words(summary) in ("泵座螺栓拧紧力矩表", "Valveblockbolts"), summary
    assert re.findall(r'<tr data-lines="(\d+)-\d+" class="cited"', html) == [str(line)]
    assert "&lt;" not in html and html.count("<details") == html.count("</details>") == 1
