"""The search page's conditions beyond the menus' ``=`` (`kbtools.serve.whereform`): a key, an
operator (``≠ ≥ ≤ > <``) and a value typed, read as ``kb query --where`` reads them, dates and
versions compared as such; a posted form lands on the API's ``where=`` address; a refused
condition is said in the CLI's words and kept in its box to be mended; and on a phone in a
real Chromium, a row filled with a finger finds what the CLI finds."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest
from browserfixtures import SIDEWAYS, browser, needs_chromium, page, serve
from selenium.webdriver.support.ui import Select
from servefixtures import navigate
from starlette.testclient import TestClient

from kbtools.errors import FilterError
from kbtools.index.reader import open_index
from kbtools.query.filters import parse_where
from kbtools.query.search import search
from kbtools.serve import whereform
from kbtools.serve.app import create_app

__all__ = ["browser", "page"]  # fixtures this module's browser test uses

BASE = "http://127.0.0.1"
QUESTION = "赤霉病 防治"
SINCE = "timestamp>=2026-03-01"


@pytest.fixture(scope="module")
def client(example_index):
    with TestClient(create_app(example_index), base_url=BASE) as c:
        yield c


def shown_results(page: str) -> list[tuple[str, str]]:
    return re.findall(r'<article class="result[^"]*" data-doc="([^"]+)" data-lines="([^"]+)"',
                      page)


def cli_results(index, where: list[str]) -> list[tuple[str, str]]:
    found = search(open_index(index), QUESTION, k=10, where=where)
    return [(r.doc, f"{r.line_start}-{r.line_end}") for r in found.results]


@pytest.mark.parametrize("rows, where", [
    ([("timestamp", ">=", "2026-03-01")], [SINCE]),
    ([("category", "!=", "crop-protection")], ["category!=crop-protection"]),
    # no key chosen: the box holds a whole condition, a full-width operator as a Chinese
    # input method types it
    ([("", "=", "timestamp≥2026-02-01"), ("timestamp", "<", "2026-03-01")],
     ["timestamp≥2026-02-01", "timestamp<2026-03-01"]),
])
def test_a_posted_condition_finds_what_kb_query_where_finds(client, example_index, rows, where):
    """The menus asked `=` only; `--where` and /api/search take `!=`, `>=`, `<`, dates and
    versions. A row of the form asks them, its address is the API's `where=`, and it finds
    exactly what `kb query --where` finds (an empty row more is sent and ignored)."""
    form = [("q", QUESTION), ("f.crop", "")]
    for key, op, value in [*rows, ("", "=", "")]:
        form += [("wk", key), ("wo", op), ("wv", value)]
    posted = client.post("/", content=urlencode(form), follow_redirects=False,
                         headers={"content-type": "application/x-www-form-urlencoded"})
    assert posted.status_code == 303
    asked = parse_qs(urlsplit(posted.headers["location"]).query)
    assert asked["where"] == where and not {"wk", "wo", "wv"} & set(asked)
    got = client.get(posted.headers["location"])
    assert got.status_code == 200
    expected = cli_results(example_index, where)
    assert expected != cli_results(example_index, [])  # the condition narrows the answer
    assert shown_results(got.text) == expected
    api = client.get("/api/search", params={"q": QUESTION, "k": 10, "where": where}).json()
    assert [(r["doc"], f'{r["line_start"]}-{r["line_end"]}') for r in api["results"]] == expected
    # read back into its rows (and one empty row), named in the filters' summary
    assert got.text.count('name="wv"') == len(where) + 1
    summary = html.unescape(re.search(r'<span class="chosen">(.*?)</span>', got.text).group(1))
    for text in where:
        assert text.replace("≥", ">=") in summary


@pytest.mark.parametrize("typed", ["timestamp==2026", "timestamp>=", "crop=>小麦", "no operator"])
def test_a_refused_condition_is_said_in_the_clis_words_and_kept_to_mend(client, typed):
    with pytest.raises(FilterError) as cli:
        parse_where([typed])
    got = client.get("/", params={"q": QUESTION, "where": typed, "lang": "en"})
    assert got.status_code == 400 and "<article" not in got.text
    note = html.unescape(re.search(r'<p class="filter-note"[^>]*>(.*?)</p>', got.text, re.S)
                         .group(1))
    assert cli.value.rest in note
    assert f'name="wv" value="{html.escape(typed)}"' in got.text


def test_an_unknown_key_typed_is_refused_naming_the_keys(client):
    got = client.get("/", params={"q": QUESTION, "where": "timestmp>=2026-01-01", "lang": "en"})
    assert got.status_code == 400 and "<article" not in got.text
    assert "timestmp" in html.unescape(got.text)


def test_the_operators_are_said_in_the_pages_language(client):
    zh = client.get("/", params={"lang": "zh"}).text
    en = client.get("/", params={"lang": "en"}).text
    assert "≥ 不小于" in zh and "≠ 不等于" in zh and "更多条件" in zh
    assert "≥ at least" in en and "≠ is not" in en and "More conditions" in en
    # each row's fields are labelled, the help tied to the value
    assert re.search(r'<label><span class="part">值</span>\s*<input type="text" name="wv"[^>]*'
                     r'aria-describedby="kb-where-help"', zh)


@pytest.fixture(scope="module")
def server(example_index):
    yield from serve(example_index)


@needs_chromium
def test_a_condition_chosen_on_a_phone(page, server, example_index):
    """390×844, Chinese browser: the filters opened, a row filled with the menus and a date
    typed, searched with the button: the results are the CLI's, the address the API's, the
    row kept as chosen, and nothing scrolls sideways."""
    page.set_window_size(390, 844)
    try:
        page.get(server + "/?q=" + quote(QUESTION))
        page.find_element("css selector", "details.facets summary").click()
        Select(page.find_element("css selector", "select[name=wk]")).select_by_value("timestamp")
        Select(page.find_element("css selector", "select[name=wo]")).select_by_value(">=")
        page.find_element("css selector", "input[name=wv]").send_keys("2026-03-01")
        heights = page.execute_script(
            "return [...document.querySelectorAll('.condition select, .condition input')]"
            ".map(e => e.getBoundingClientRect().height)")
        assert heights and min(heights) >= 44, heights
        navigate(page, "form.search button[type=submit]")
        assert parse_qs(urlsplit(page.current_url).query)["where"] == [SINCE]
        docs = [(e.get_attribute("data-doc"), e.get_attribute("data-lines"))
                for e in page.find_elements("css selector", "article.result")]
        assert docs == cli_results(example_index, [SINCE])
        assert Select(page.find_element("css selector", "select[name=wk]")) \
            .first_selected_option.get_attribute("value") == "timestamp"
        width, shown = page.execute_script(SIDEWAYS)
        assert width <= shown
    finally:
        page.set_window_size(1024, 768)


def test_a_pasted_log_too_long_for_an_address_keeps_its_conditions(client, example_index):
    """A question too long for an address is held under a key (`held`): its rows are folded
    into the held fields as a short one's are into its address."""
    question = QUESTION + " " + "扬花期 降雨 " * 900
    form = [("q", question), ("wk", "timestamp"), ("wo", ">="), ("wv", "2026-03-01"),
            ("wk", ""), ("wo", "="), ("wv", "")]
    posted = client.post("/", content=urlencode(form), follow_redirects=False,
                         headers={"content-type": "application/x-www-form-urlencoded"})
    assert posted.status_code == 303 and "held=" in posted.headers["location"]
    got = client.get(posted.headers["location"])
    assert got.status_code == 200
    docs = {d for d, _ in shown_results(got.text)}
    stamps = {d["doc"]: str(d["metadata"]["timestamp"]) for d in open_index(example_index).docs()}
    assert docs and all(stamps[d] >= "2026-03-01" for d in docs), docs
    assert any(stamp < "2026-03-01" for stamp in stamps.values())
    assert 'name="wv" value="2026-03-01"' in got.text


@pytest.mark.parametrize(("key", "op", "value", "parsed"), [
    ("pH (水)", "<", "7", ("pH (水)", "<", "7")),  # a key the bare form cannot name
    ("施药 时间", ">=", "2024-05", ("施药 时间", ">=", "2024-05")),
    ("crop", "=", "小麦，玉米", ("crop", "=", ("小麦", "玉米"))),  # values a comma apart
    ("title", "=", '"a, b"', ("title", "=", "a, b")),
])
def test_a_row_with_its_key_chosen_reads_as_that_key(key, op, value, parsed):
    """A row whose key menu names a front-matter key with other characters (``pH (水)``) was
    written ``pH (水)<7``, refused as no filter; the key is written so it reads back, and a
    shown row's value reads back the same (session 40)."""
    text = whereform.row_text(key, op, value)
    assert parse_where([text]) == [parsed]
    [row, _] = whereform.rows([text])
    assert parse_where([whereform.row_text(row.key, row.op, row.value)]) == [parsed]
