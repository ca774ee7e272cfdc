"""`kb serve`'s pages as a reader without a mouse or without sight meets them: a skip link
past the header on every page, formula pictures said as formulas (not as LaTeX read aloud),
the question's terms marked where the source splits them with characters no reader sees,
and the release page's changed titles read in their own language. Over a real device
serving two real releases."""

from __future__ import annotations

import html as htmllib
import re
import subprocess
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from kbfixtures import copy_example, titled_page
from servefixtures import DOCS, zh_doc
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.markdown.formula_words import formula_words
from kbtools.serve import i18n
from kbtools.serve.app import create_app
from kbtools.serve.marks import highlight_terms
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync
from tests.hostile import make_repo

pytestmark = pytest.mark.slow

BASE = "http://127.0.0.1"
SCAB = "knowledge/crops/wheat-scab.md"
DILUTION = "knowledge/crops/pesticide-dilution-and-phi.md"  # formulas
DEPLOY = "knowledge/engineering/deployment-guide.md"  # English
NOTE = "knowledge/crops/corn-borer-note.md"
NOTE_TEXT = zh_doc("玉米螟田间调查补充说明", "# 玉米螟田间调查补充说明\n\n"
                   "玉米螟幼虫蛀食茎秆，调查时注意赤\u00ad霉病与纹\u200b枯病的混发。",
                   tags="crop: [玉米]\npest: [玉米螟]")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> Path:
    """A device synced to a first release, then to a second adding a Chinese document."""
    base = tmp_path_factory.mktemp("reader")
    root = copy_example(base / "kr", [*DOCS, DEPLOY, "knowledge/engineering/pitfalls-log.md",
                                      "knowledge/engineering/runbook-ingest-5xx.md"])
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    build(load_config(root), BuildOptions(progress=False))
    make_release(root, load_config(root).path("dist"), remote=str(art))
    sync(str(art), base / "device")
    (root / NOTE).write_text(NOTE_TEXT, encoding="utf-8")
    with (root / DEPLOY).open("a", encoding="utf-8") as f:  # an English document edited
        f.write("\nOne more line after review.\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "note")
    build(load_config(root), BuildOptions(progress=False))
    make_release(root, load_config(root).path("dist"), remote=str(art))
    sync(str(art), base / "device")
    return base / "device"


@pytest.fixture(scope="module")
def client(device):
    with TestClient(create_app(device), base_url=BASE) as c:
        yield c


class Focusable(HTMLParser):
    """The page's elements a keyboard reaches, in order, and every id."""

    def __init__(self, text: str):
        super().__init__()
        self.stops: list[tuple[str, dict[str, str]]] = []
        self.ids: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.append(a["id"])
        if (tag == "a" and "href" in a) or tag in ("button", "input", "select", "summary"):
            if a.get("type") != "hidden" and not a.get("tabindex", "0").startswith("-"):
                self.stops.append((tag, a))


PAGES = ["/", "/?" + urlencode({"q": "赤霉病 扬花期"}), f"/doc/{quote(SCAB)}",
         f"/table/{quote(SCAB)}?table=1", "/release", "/no-such-page"]


@pytest.mark.parametrize("url", PAGES)
@pytest.mark.parametrize("lang, words", [("zh", "跳到正文"), ("en", "Skip to content")])
def test_every_page_opens_with_a_skip_link_to_its_content(client, url, lang, words):
    """A keyboard user tabbed through the brand, the menu and the language switch on every
    page before reaching a result or a document's text: the first stop is now a link past
    them to the page's `<main>`, in the page's language."""
    page = client.get(url + ("&" if "?" in url else "?") + "lang=" + lang).text
    found = Focusable(page)
    tag, first = found.stops[0]
    assert tag == "a" and first.get("class") == "skip", found.stops[:2]
    target = first["href"].removeprefix("#")
    assert found.ids.count(target) == 1
    assert re.search(rf'<main id="{target}"[^>]*>', page)
    assert re.search(r'<a class="skip" href="#[^"]+">([^<]+)</a>', page).group(1) == words


@pytest.mark.parametrize("url", PAGES)
def test_the_header_has_one_tab_stop_to_the_search_page(client, url):
    """The brand and the menu's "search" both led to `/`: a keyboard user tabbed through two
    stops to the one page on every page. The brand is left to pointer users (a tap on a phone)
    and screen readers hear the menu's link alone; the header's stops are its menu."""
    page = client.get(url).text
    header = page[page.index("<header"):page.index("</header>")]
    stops = [a["href"] for _, a in Focusable(header).stops]
    assert stops.count("/") == 1 and stops[:2] == ["/", "/release"], stops
    brand = re.search(r'<a class="brand"[^>]*>', header).group()
    assert 'tabindex="-1"' in brand and 'aria-hidden="true"' in brand


@pytest.mark.parametrize("url", PAGES)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_menu_is_named_and_marks_the_page_shown(client, url, lang):
    """A table page has two menus (the header's, its document's tables) and a screen reader
    listed them as "navigation", "navigation"; nothing said which table, or which page of
    the menu, was the one shown. Each `<nav>` is named in the page's language, and the link
    to the page shown carries ``aria-current="page"``."""
    page = client.get(url + ("&" if "?" in url else "?") + "lang=" + lang).text
    navs = re.findall(r"<nav\b([^>]*)>(.*?)</nav>", page, re.S)
    names = [re.search(r'aria-label="([^"]+)"', attrs) for attrs, _ in navs]
    assert navs and all(names) and len({n.group(1) for n in names}) == len(navs), navs
    assert htmllib.unescape(names[0].group(1)) == i18n.translator(lang)("menu")
    current = [a for _, links in navs for a in re.findall(r"<a\b[^>]*>", links)
               if 'aria-current="page"' in a]
    path = url.split("?")[0]
    if path in ("/", "/release"):
        assert current == [a for a in current if f'href="{path}"' in a] and len(current) == 1
    elif path.startswith("/table/"):
        tables = [links for attrs, links in navs if 'class="tables"' in attrs]
        assert len(current) == len(tables) and all('href="?table=1"' in a for a in current)
    else:
        assert current == []


TWO_TABLES = """## 通风 Ventilation

<!-- decision: inputs=温度(℃); outputs=措施 -->
| 温度(℃) | 措施 |
|---|---|
| <20 | 关闭风口 |
| >=20 | 打开风口 |

## 灌溉 Irrigation

<!-- decision: inputs=土壤湿度(%); outputs=灌溉 -->
| 土壤湿度(%) | 灌溉 |
|---|---|
| <30 | 灌溉 |
| >=30 | 不灌溉 |
"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_table_page_names_its_tables_menu_and_marks_the_table_shown(tmp_path, lang):
    doc = "knowledge/shed.md"
    repo = make_repo(tmp_path / "kr", docs={doc: titled_page("大棚 Shed", TWO_TABLES)})
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    with TestClient(create_app(repo / "dist"), base_url=BASE) as shed:
        page = shed.get(f"/table/{doc}", params={"table": "2", "lang": lang}).text
    menu = re.search(r'<nav class="tables" aria-label="([^"]+)">(.*?)</nav>', page, re.S)
    assert menu and htmllib.unescape(menu.group(1)) == i18n.translator(lang)("doc_tables")
    links = re.findall(r"<a\b[^>]*>", menu.group(2))
    assert [a for a in links if 'aria-current="page"' in a] == [
        a for a in links if 'href="?table=2"' in a] and len(links) == 2


def test_the_skip_link_shows_when_it_has_the_focus():
    """Hidden off-screen until focused (a sighted keyboard user sees where the focus is),
    and left off paper."""
    css = files("kbtools.serve").joinpath("static/style.css").read_text(encoding="utf-8")
    rule = re.search(r"a\.skip \{([^}]*)\}", css).group(1)
    focus = re.search(r"a\.skip:focus \{([^}]*)\}", css).group(1)
    assert "top: -" in rule and "top: 0" in focus
    assert re.search(r"@media print \{[^@]*a\.skip[^{]*\{ display: none", css)


@pytest.mark.parametrize("latex, said", [
    (r"P = \frac{n}{N} \times 100\%", "P = n/N × 100%"),
    (r"\text{药剂稀释用量}(\text{mL}) = \frac{\text{药液量}(\text{L}) \times 1000}{\text{稀释倍数}}",
     "药剂稀释用量(mL) = (药液量(L) × 1000)/稀释倍数"),
    (r"x^2 + y_1", "x² + y₁"),
    (r"T \ge 20^\circ\mathrm{C}", "T ≥ 20°C"),
    (r"\sqrt{\alpha + \beta}", "√(α + β)"),
    (r"e^{-x/2}", "e^(-x/2)"),
    (r"\frac12", "1/2"),
    (r"\left( \dfrac{a}{b} \right)", "( a/b )"),
    (r"E = mc^2 \tag{1}", "E = mc² (1)"),  # the number, as the picture shows it
    (r"\tag{2.1} a + b", "(2.1) a + b"),
    (r"a \tag*{A}", "a A"),
    (r"a \tag *{式一}", "a 式一"),
    (r"f = 1 \text{ if $x>0$, } \$5", "f = 1 if x>0, $5"),  # `$…$` in text: math, no `$`
])
def test_a_formula_is_said_as_it_shows(latex, said):
    assert formula_words(latex) == said


def test_formula_words_stay_short_and_end_on_any_input():
    assert len(formula_words(r"\frac{" * 5000 + "x")) <= 300
    assert formula_words("}}}^_&\\") is not None
    assert formula_words("") == ""


@pytest.mark.parametrize("ui", ["zh", "en"])
def test_a_formula_picture_is_said_as_a_formula_not_as_latex(client, ui):
    """A formula's picture had its LaTeX as `alt`: a screen reader read "backslash text
    brace 药剂稀释用量 …". Its text is now the formula as written out, after the word for a
    formula in the document's language (the text around it), with the LaTeX as its title."""
    page = client.get(f"/doc/{quote(DILUTION)}?lang={ui}").text
    formulas = re.findall(r'<img class="formula[^"]*" src="[^"]+" width="\d+" height="\d+" '
                          r'alt="([^"]*)" title="([^"]*)">', page)
    assert formulas and len(formulas) == page.count('<img class="formula')
    for alt, title in map(lambda f: (htmllib.unescape(f[0]), htmllib.unescape(f[1])), formulas):
        assert alt.startswith("公式：") and "\\" not in alt and "{" not in alt, alt
        assert "\\" in title or title.isascii(), title
    assert "公式：药剂稀释用量(mL 或 g) = (药液量(L) × 1000)/稀释倍数" in map(
        htmllib.unescape, (f[0] for f in formulas))
    results = client.get("/?" + urlencode({"q": "稀释倍数 药液量 计算公式", "lang": ui})).text
    alts = [htmllib.unescape(a) for a in re.findall(r'<img class="formula[^"]*" src="[^"]+" '
                                                    r'width="\d+" height="\d+" alt="([^"]*)"',
                                                    results)]
    assert alts and all(a.startswith("公式：") and "\\" not in a for a in alts), alts


@pytest.mark.parametrize("text, terms, marked", [
    ("注意赤\u00ad霉病的混发", ["赤霉病"], "<mark>赤\u00ad霉病</mark>"),
    ("纹\u200b枯病", ["纹枯病"], "<mark>纹\u200b枯病</mark>"),
    ("the temper\u00adature rose", ["temperatur"], "<mark>temper\u00adature</mark>"),
    ("P-\u200b200 pump", ["p-200"], "<mark>P-\u200b200</mark>"),
])
def test_a_term_split_by_an_invisible_character_is_marked(text, terms, marked):
    assert marked in highlight_terms(text, terms)


@pytest.mark.parametrize("ui", ["zh", "en"])
def test_terms_split_in_the_source_are_marked_on_the_results_and_document(client, ui):
    """The search found 赤霉病 in `赤\\u00ad霉病` (search leaves out what no reader sees), but
    the pages marked only 霉病 of it (and nothing of a term split by a zero-width space)."""
    q = "玉米螟 赤霉病 纹枯病 混发"
    results = client.get("/?" + urlencode({"q": q, "lang": ui})).text
    doc = client.get(f"/doc/{quote(NOTE)}?" + urlencode({"q": q, "lines": "14-14"})).text
    for page in (results, doc):  # (a result may show the passage as search read it)
        assert re.search("<mark>赤\u00ad?霉病</mark>", page) and re.search(
            "<mark>纹\u200b?枯病</mark>", page), [ln for ln in page.splitlines() if "枯" in ln]
    assert "<mark>赤\u00ad霉病</mark>" in doc and "<mark>纹\u200b枯病</mark>" in doc


@pytest.mark.parametrize("ui", ["zh", "en"])
def test_the_release_pages_changes_carry_their_titles_language(client, ui):
    """The "what changed" list showed a Chinese title in the English interface (and an
    English one in the Chinese) without its `lang`: a screen reader read it with the
    interface's voice. Each title and section says its own, as results and documents do."""
    page = client.get(f"/release?lang={ui}").text
    changes = page[page.index('<section class="changes">'):]
    added = re.search(r'<p class="added">\+ <a href="/doc/([^"]+)" lang="([^"]+)">([^<]+)</a>',
                      changes)
    assert added and added.group(2, 3) == ("zh-CN", "玉米螟田间调查补充说明"), changes[:600]
    changed = re.search(r'<p class="changed">± <a href="/doc/([^"]+)" lang="([^"]+)">', changes)
    assert changed and changed.group(2) == "en"
    lost = re.search(r'<p class="lost">✗ [^<]*<span lang="([^"]+)">([^<]+)</span>', changes)
    assert lost and lost.group(1) == "en" and "Fieldgate" in lost.group(2)


def test_a_decision_tables_heading_says_its_language(client):
    """The decision-table page's `<h1>` (and its list of the document's tables) named the
    table by its Chinese headings in the English interface's `lang`."""
    page = client.get(f"/table/{quote(SCAB)}?table=1&lang=en").text
    h1 = re.search(r"<h1>Decision table: <span lang=\"([^\"]+)\">([^<]+)</span></h1>", page)
    assert h1 and h1.group(1) == "zh-CN" and "风险等级判定表" in h1.group(2), page[:2000]


@pytest.mark.parametrize("lang, titles", [
    ("zh", ["搜索 · 现场知识库", "赤霉病 扬花期 · 搜索 · 现场知识库",
            "小麦赤霉病监测与防控操作规程 · 现场知识库",
            "决策表: 小麦赤霉病监测与防控操作规程 > 3. 发病风险判定 > 3.2 风险等级判定表 · 现场知识库",
            "发布 · 现场知识库", "出错了 · 现场知识库"]),
    ("en", ["Search · Field knowledge", "赤霉病 扬花期 · Search · Field knowledge",
            "小麦赤霉病监测与防控操作规程 · Field knowledge",
            "Decision table: 小麦赤霉病监测与防控操作规程 > 3. 发病风险判定 > 3.2 风险等级判定表 "
            "· Field knowledge", "Releases · Field knowledge", "Something went wrong · Field knowledge"]),
])
def test_every_page_is_titled_by_what_it_shows(client, lang, titles):
    """Every page but a document's was titled "现场知识库": a screen reader announced the
    same name for the results of any question, any decision table, the releases and an
    error, and a phone's tabs and history could not tell them apart."""
    got = [htmllib.unescape(re.search(r"<title>([^<]*)</title>",
                                      client.get(url + ("&" if "?" in url else "?")
                                                 + "lang=" + lang).text).group(1))
           for url in PAGES]
    assert got == titles
    long = client.get("/?" + urlencode({"q": "小麦赤霉病" * 30, "lang": lang})).text
    assert len(re.search(r"<title>([^<]*)</title>", long).group(1)) < 100


@pytest.mark.parametrize("ui, summary", [
    ("zh", "文档：新增 1 篇，修改 1 篇（1 个章节）；审核：1 个章节失去审核"),
    ("en", "documents: 1 added, 1 changed (1 section); verification: 1 section lost"),
])
def test_the_release_pages_summary_is_in_the_pages_language(client, ui, summary):
    """The Chinese release page said what changed as "documents: 1 added, 1 changed (1
    section); verification: 1 section lost", the library's English, in a Chinese page."""
    page = client.get(f"/release?lang={ui}").text
    assert re.search(r'<p class="summary">([^<]*)</p>', page).group(1) == summary


def test_a_release_without_changes_says_so_in_chinese():
    empty = {"summary": "no changes", "files": [],
             "documents": {"added": [], "removed": [], "changed": []},
             "verification": {"gained": [], "lost": []}}
    assert i18n.changes_summary(empty, "zh") == "没有变化"
    assert i18n.changes_summary(empty, "en") == "no changes"
    files = {**empty, "files": ["assets/a.png", "assets/b.pdf"],
             "verification": {"gained": [{"doc": "a.md"}], "lost": []}}
    assert i18n.changes_summary(files, "zh") == "审核：1 个章节通过审核；文件：2 个有变化"
