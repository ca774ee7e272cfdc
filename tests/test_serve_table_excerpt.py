"""A search result on a row of a large table shows the table's header and the rows around the
cited one, with a note where rows are left out: the search page once rendered the whole
parent table for every row hit (a 20,000-row table made 2.7 MB of HTML per result). The cited
row stays marked on its own file line, a small table renders whole as before, and a decision
table's button and evaluation keep working."""

from __future__ import annotations

import re

import git
import pytest
from kbfixtures import PAGE, copy_example
from servefixtures import app_client

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext
from kbtools.serve.results import TABLE_ROWS_AROUND, table_excerpt

pytestmark = pytest.mark.slow

BASE = "http://127.0.0.1"
FAULTS = "knowledge/equipment/hx260-ch05-fault-codes.md"  # small tables
BIG = "knowledge/engineering/part-codes.md"
ROWS = 3000
HEADER = "| 部件代码 | 现象 | 处理 |"
DECIDE_ROWS = 120


def _big_doc() -> str:
    rows = "\n".join(f"| K{i:04d} | 部件 {i} 阀门压力 {i % 97} kPa | 更换密封圈 S-{i} |"
                     for i in range(1, ROWS + 1))
    rules = "\n".join(f"| {i}.0~{i}.5 | 档位{i} |" for i in range(DECIDE_ROWS))
    body = (f"下表列出全部部件代码。\n\n{HEADER}\n|---|:--:|---|\n{rows}\n\n## 油温档位\n\n"
            "按油温查档位。\n\n<!-- decision: inputs=油温(℃); outputs=档位 -->\n"
            f"| 油温(℃) | 档位 |\n|---|---|\n{rules}\n")
    return PAGE.format(title="部件代码总表", source="test", body=body)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = copy_example(tmp_path_factory.mktemp("excerpt") / "kr", [FAULTS])
    (root / BIG).parent.mkdir(parents=True, exist_ok=True)
    (root / BIG).write_text(_big_doc(), encoding="utf-8")
    r = git.Repo(root)
    r.index.add([BIG])
    r.index.commit("a large table")
    build(load_config(root), BuildOptions(progress=False))
    return root


@pytest.fixture(scope="module")
def client(repo):
    yield from app_client(repo / "dist", BASE)


def results(page: str) -> list[tuple[str, str, int, str]]:
    """Each result as (kind, document, first cited line, its HTML)."""
    return [(m.group(1), m.group(2), int(m.group(3)), m.group(4)) for m in re.finditer(
        r'<article class="result kind-(\w+)" data-doc="([^"]+)" data-lines="(\d+)-\d+">'
        r"(.*?)</article>", page, re.S)]


def shown_rows(passage: str) -> list[tuple[int, str, str]]:
    """Each body row of a passage's table: (file line, its class, first cell)."""
    return [(int(m.group(1)), m.group(2) or "", m.group(3)) for m in re.finditer(
        r'<tr data-lines="(\d+)-\d+"(?: class="([^"]+)")?(?: id="cited")?>\s*<td[^>]*>(.*?)</td>',
        passage, re.S)]


def row_hit(client, q: str, lang: str | None = None) -> tuple[int, str]:
    params = {"q": q, **({"lang": lang} if lang else {})}
    page = client.get("/", params=params).text
    client.cookies.clear()
    hits = [(line, body) for kind, doc, line, body in results(page)
            if kind == "table_row" and doc == BIG]
    assert hits, page[-3000:]
    return hits[0]


@pytest.mark.parametrize("code", [1, 1742, ROWS - 2])
def test_a_row_hit_shows_its_header_and_neighbours_with_its_own_lines(client, repo, code):
    file_lines = (repo / BIG).read_text(encoding="utf-8").split("\n")
    page = client.get("/", params={"q": f"K{code:04d} 部件代码"})
    assert page.status_code == 200
    assert len(page.content) < 60_000  # the whole table is over 250 kB
    line, body = row_hit(client, f"K{code:04d} 部件代码")
    assert f"K{code:04d}" in file_lines[line - 1]
    assert [re.sub("<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", body)] == \
        ["部件代码", "现象", "处理"]
    assert '<th style="text-align:center">现象</th>' in body  # its alignment row kept
    rows = shown_rows(body)
    assert len(rows) == 2 * TABLE_ROWS_AROUND + 1
    for n, cls, cell in rows:  # every row shown on its own file line, only the hit marked
        assert f"| {re.sub('<[^>]+>', '', cell)} |" in file_lines[n - 1]
        assert ("cited" in cls.split()) == (n == line)
    assert [n for n, _, _ in rows] == list(range(rows[0][0], rows[0][0] + len(rows)))
    left = [int(n) for n in re.findall(
        r'<tr class="omitted"><td colspan="3" lang="zh-CN">⋯ 此处省略 (\d+) 行', body)]
    assert sum(left) + len(rows) == ROWS and len(left) == (1 if code in (1, ROWS - 2) else 2)


def test_the_note_is_in_the_pages_language(client):
    """... and marked so: inside the Chinese table of the passage (`lang="zh-CN"`), the
    English note was read with a Chinese voice."""
    _, en = row_hit(client, "K1500 部件代码", lang="en")
    assert re.search(r'<tr class="omitted"><td colspan="3" lang="en">⋯ \d+ rows not shown', en)
    assert "此处省略" not in en
    _, zh = row_hit(client, "K1500 部件代码")
    assert "此处省略" in zh and "rows not shown" not in zh


def test_a_small_table_renders_whole_as_before(client, repo):
    page = client.get("/", params={"q": "HX260 故障码 E17 报警", "k": 10}).text
    small = [body for kind, doc, _, body in results(page)
             if kind in ("table", "table_row") and doc == FAULTS]
    assert small
    faults = (repo / FAULTS).read_text(encoding="utf-8").split("\n")
    for body in small:
        assert 'class="omitted"' not in body
        rows = shown_rows(body)
        first, last = rows[0][0], rows[-1][0]
        assert [n for n, _, _ in rows] == list(range(first, last + 1))
        assert not faults[first - 4].startswith("|") and not faults[last].startswith("|")


def test_a_decision_table_row_keeps_its_button_and_evaluation(client, repo):
    page = client.get("/", params={"q": "油温 77.2℃ 档位是多少"}).text
    hit = [(line, body) for kind, doc, line, body in results(page)
           if kind == "table_row" and doc == BIG and "档位" in body]
    assert hit, page[-3000:]
    line, body = hit[0]
    assert '<a class="button small" href="/table/' in body
    assert "档位77" in body and 'class="evaluation status-match"' in body
    assert "77.0~77.5" in (repo / BIG).read_text(encoding="utf-8").split("\n")[line - 1]
    assert [n for n, cls, _ in shown_rows(body) if "cited" in cls.split()] == [line]
    assert 'class="omitted"' in body


def test_the_document_page_marks_a_row_deep_in_the_table(client, repo):
    file_lines = (repo / BIG).read_text(encoding="utf-8").split("\n")
    line = next(n for n, text in enumerate(file_lines, 1) if text.startswith("| K2718 |"))
    page = client.get(f"/doc/{BIG}", params={"lines": f"{line}"}).text
    assert f'<tr data-lines="{line}-{line}" class="cited" id="cited">' in page


def test_a_whole_table_passage_shows_its_first_rows_and_every_line_is_right():
    rows = [f"| r{i} | {i} |" for i in range(1, 41)]
    text = "\n".join(["| a | b |", "|---|---|", *rows])
    whole = table_excerpt(text, 10, 51, 0)
    assert whole is not None and whole.omitted == {23: 40 - 21}
    ctx = RenderContext(doc="t.md", line_offset=9, cited=(10, 51),
                        line_map=whole.line_map, omitted={23: "…"})
    html = render_markdown(whole.text, ctx)
    assert '<table data-lines="10-51" class="cited">' in html
    assert '<tbody data-lines="12-51">' in html  # the rows left out are the table's
    assert html.count('class="cited"') == 3 + 21  # table, thead, header row, rows
    assert '<tr data-lines="32-32" class="cited">\n<td>r21</td>' in html
    assert html.endswith('<tr class="omitted"><td colspan="2">…</td></tr>\n</tbody>\n</table>\n</div>\n')


@pytest.mark.parametrize("rows", [1, 2 * TABLE_ROWS_AROUND + 1, 2 * TABLE_ROWS_AROUND + 3])
def test_a_table_no_longer_than_the_window_is_shown_whole(rows):
    text = "\n".join(["| a |", "|---|", *(f"| {i} |" for i in range(rows))])
    for focus in range(1, rows + 3):
        assert table_excerpt(text, 1, rows + 2, focus) is None
    assert table_excerpt(text, 1, rows + 3, 5) is None  # not the table's lines: whole


@pytest.mark.parametrize("lang, one, many, cited, source", [
    ("zh", r"第 (\d+) 行", r"第 (\d+)–(\d+) 行", "引用位置：第 {} 行", "(源文件第 {} 行)"),
    ("en", r"line (\d+)", r"lines (\d+)–(\d+)", "Cited line {}", "(line {})")])
def test_line_numbers_read_as_the_pages_language_writes_them(client, repo, lang, one, many,
                                                              cited, source):
    """Chinese pages said "行 12–20" and "引用位置 12" (English word order): a file line is
    "第 12–20 行" there, and a decision table's matching row names its source line apart from
    its row number ("第 3 行 (源文件第 40 行)", not "第 3 行 (行 40)")."""
    page = client.get("/", params={"q": "K1500 部件代码 油温档位", "k": 10, "lang": lang}).text
    spans = re.findall(r'<span class="lines">([^<]*)</span>', page)
    assert spans and all(re.fullmatch(f"{one}|{many}", s) for s in spans), spans
    line = next(n for _, doc, n, _ in results(page) if doc == BIG)
    doc_page = client.get(f"/doc/{BIG}", params={"lines": f"{line}", "lang": lang}).text
    assert cited.format(line) + "</a>" in doc_page
    table = client.get(f"/table/{BIG}", params={"in.0": "77.2", "go": "1", "lang": lang}).text
    client.cookies.clear()
    rows = (repo / BIG).read_text(encoding="utf-8").split("\n")
    row_line = next(n for n, text in enumerate(rows, 1) if text.startswith("| 77.0~77.5 |"))
    label = re.findall(r"<p class=\"row-label\">([^<]*)</p>", table)
    assert label and label[0].endswith(source.format(row_line)), (label, row_line)
