"""`kb serve` over a foreign corpus read with ``--lenient`` (issue 13), as a field user meets
it: documents whose front-matter `title` is a number, a list, blank or missing; a long manual
of many tables opened section by section; and the JSON API's refusal of a method an endpoint
does not take."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from servefixtures import app_client, error_of

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.decision import documents
from kbtools.ship.changes import diff_dirs

pytestmark = pytest.mark.slow

# doc → (front matter's title line, a word only it holds, the title shown)
DOCS = {
    "year.md": ("title: 2024", "zebraflyx", "2024"),
    "list.md": ("title: [alpha, beta]", "quokkaflyx", "list.md"),
    "blank.md": ('title: "   "', "grommetflyx", "blank.md"),
    "null.md": ("title:", "wombatflyx", "null.md"),
    "padded.md": ('title: "  Dryer belt  "', "belterflyx", "Dryer belt"),
}


MANUAL = "manual.md"  # 40 sections of a range table each


def manual() -> str:
    parts = ["---\ntitle: 设备检修手册\n---\n\n# 设备检修手册\n"]
    for n in range(1, 41):
        parts.append(f"## 第{n}章 子系统 {n}\n\n| 温度 (℃) | 振动 (mm/s) | 处理 |\n|---|---|---|\n"
                     + "".join(f"| {a}-{a + 5} | ≤{b} | 检查零件 {n}-{a} |\n"
                               for a in range(20, 60, 5) for b in (4,)) + "\n")
    return "\n".join(parts)


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    base = tmp_path_factory.mktemp("titles")
    corpus = base / "corpus"
    corpus.mkdir()
    for name, (title, word, _shown) in DOCS.items():
        (corpus / name).write_text(f"---\n{title}\n---\n\nThe {word} chain tensioner is checked "
                                   "every morning before the line starts.\n", encoding="utf-8")
    (corpus / MANUAL).write_text(manual(), encoding="utf-8")
    build(load_config(base), BuildOptions(corpus=corpus, out=base / "dist", lenient=True,
                                          progress=False))
    return base / "dist"


@pytest.fixture(scope="module")
def client(dist):
    yield from app_client(dist)


@pytest.mark.parametrize("doc", list(DOCS))
def test_a_documents_title_is_shown_as_text_or_its_path(client, doc):
    """A title YAML reads as a number (``title: 2024``) failed the results page with a 500
    (the highlighter took it for text); a list was shown as Python's ``['alpha', 'beta']``
    and a blank one as an empty heading (an empty link on the results page, an empty
    ``<h1>`` and ``<title>`` on the document's). The title is its text, else the path."""
    _title, word, shown = DOCS[doc]
    page = client.get("/", params={"q": f"{word} chain tensioner"})
    assert page.status_code == 200, page.text[-500:]
    article = re.search(rf'data-doc="{re.escape(doc)}".*?</article>', page.text, re.S)
    assert article is not None
    assert re.search(rf"<h2 lang=\"[^\"]+\">{re.escape(shown)}</h2>", article.group())
    api = client.get("/api/search", params={"q": f"{word} chain tensioner"}).json()
    assert api["results"][0]["title"] == shown  # a string, as `kb query --json` gives it
    doc_page = client.get(f"/doc/{quote(doc)}").text
    assert f"<title>{shown} · " in doc_page
    assert "<h1" in doc_page and '<h1 class="title"></h1>' not in doc_page


def test_kb_query_json_gives_the_title_as_text(dist):
    res = CliRunner().invoke(main, ["query", "--json", "--index", str(dist), "zebraflyx chain"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["results"][0]["title"] == "2024"


@pytest.mark.parametrize(("method", "path", "allow"), [
    ("GET", "/api/table/evaluate", "POST"), ("DELETE", "/api/search", "GET, HEAD, POST"),
    ("PUT", "/api/read", "GET, HEAD")])
def test_a_method_an_endpoint_does_not_take_is_405_with_allow(client, method, path, allow):
    """The API's 405 had no ``Allow`` header (HTTP requires one) and its message did not say
    what the endpoint takes."""
    resp = client.request(method, path)
    message = error_of(resp, 405)
    assert sorted(resp.headers["allow"].split(", ")) == sorted(allow.split(", "))
    assert message.startswith(f"{method} is not allowed here") and path in message


def test_a_manuals_pages_read_its_tables_once(client, monkeypatch):
    """The document page read every table of the document as a decision table on every
    request, to know whether to offer one: a 2,000-line manual of 87 tables spent most of
    its page's time there (0.8 s of 1.1 s on a loaded 2-core machine), section after
    section. They are read once per opened release, for its pages and its table forms."""
    reads: list[int] = []
    real = documents.table_from_markdown

    def counted(table, lines=()):  # type: ignore[no-untyped-def]
        reads.append(table.line_start)
        return real(table, lines)

    monkeypatch.setattr(documents, "table_from_markdown", counted)
    for lines in ("10-16", "40-46", "200-206"):
        page = client.get(f"/doc/{MANUAL}", params={"lines": lines})
        assert page.status_code == 200 and 'id="cited"' in page.text
        assert f"/table/{MANUAL}?table=1" in page.text  # its decision tables offered
    form = client.get(f"/table/{MANUAL}", params={"table": 3, "in.0": "27", "in.1": "3",
                                                  "go": 1})
    assert form.status_code == 200 and "检查零件 3-25" in form.text
    assert len(reads) == len(set(reads)) <= 40, len(reads)  # each of its tables once at most


def test_what_changed_names_a_document_by_its_title_as_text(dist):
    """The release page's "what changed" (and `kb diff`) named a document with a list title
    ``['alpha', 'beta']`` and one with a blank title as an empty link; they are named by
    their path (an empty title), a number as written."""
    titles = diff_dirs(None, dist).titles
    assert titles["year.md"] == "2024" and titles["padded.md"] == "Dryer belt"
    assert titles["list.md"] == titles["blank.md"] == titles["null.md"] == ""
