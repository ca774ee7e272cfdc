"""What a page was asked is never quietly changed: a filter of the search address the
knowledge cannot apply is refused or applied as asked (never dropped to "Any", which widened
the search), and said in one line in the page's language; a decision form given a value it
cannot use answers an error status with the form and the message inline."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kbfixtures import SCAB_DOC, TITLED
from starlette.testclient import TestClient

from kbtools.config import MAX_K
from kbtools.serve import ops, pages
from kbtools.serve.app import create_app
from tests.hostile import built_repo_index

BASE = "http://127.0.0.1"
Q = "pump pressure test seal"
TAGS = {"orchard": "apple", "greenhouse": "tomato", "paddy": "rice"}
SCAB = "knowledge/scab.md"


def _doc(tag: str, name: str) -> str:
    text = TITLED.format(title=f"Pump {name}", body=f"The {name} pump primes before the "
                                                    "pressure test and holds its seal.")
    return text.replace("verified: false\n", f"verified: false\ntags: [{tag}]\n")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    docs: dict[str, str] = {f"knowledge/pump-{name}.md": _doc(tag, name)
                            for tag, name in TAGS.items()}
    docs[SCAB] = SCAB_DOC
    dist = built_repo_index(tmp_path_factory.mktemp("asked"), docs, model="test-hash")
    with TestClient(create_app(dist), base_url=BASE) as c:
        yield c


def _results(page: str) -> list[str]:
    return re.findall(r'<article class="result[^"]*" data-doc="([^"]+)"', page)


def _note(page: str) -> str | None:
    found = re.findall(r'<p class="filter-note" role="status">(.*?)</p>', page, re.S)
    assert len(found) <= 1
    return html.unescape(found[0]) if found else None


def _chosen(page: str, key: str) -> str | None:
    """The value the menu of filter `key` shows chosen ("" for Any), None without a menu."""
    menu = re.search(rf'<select name="f\.{re.escape(key)}">(.*?)</select>', page, re.S)
    if menu is None:
        return None
    chosen = re.findall(r'<option value="([^"]*)"\s*selected>', menu.group(1))
    return html.unescape(chosen[0]) if chosen else ""


def test_an_unfiltered_search_finds_the_pumps(client):
    page = client.get("/", params={"q": Q, "lang": "en"})
    assert page.status_code == 200 and len(_results(page.text)) >= 3
    assert _note(page.text) is None


@pytest.mark.parametrize(("lang", "words"), [("en", "No document has tags = vineyard"),
                                             ("zh", "没有文档符合 tags = vineyard")])
def test_a_value_no_document_holds_is_applied_and_said(client, lang, words):
    """``f.tags=vineyard`` (no document's tag) was dropped: the menu said "Any" and the
    search answered with every pump."""
    page = client.get("/", params={"q": Q, "f.tags": "vineyard", "lang": lang})
    assert page.status_code == 200
    assert _results(page.text) == []
    note = _note(page.text)
    assert note is not None and note.startswith(words), note
    assert _chosen(page.text, "tags") == "vineyard"
    # the API and the CLI's --where answer the same filter with nothing found
    api = client.get("/api/search", params={"q": Q, "where": "tags=vineyard"})
    assert api.status_code == 200 and api.json()["results"] == []


def test_a_value_without_a_question_is_said_too(client):
    page = client.get("/", params={"f.tags": "vineyard", "lang": "en"})
    assert page.status_code == 200 and "tags = vineyard" in (_note(page.text) or "")


@pytest.mark.parametrize(("lang", "words"), [("en", "This knowledge has no filter “fruit”"),
                                             ("zh", "知识库没有“fruit”这个筛选项")])
def test_a_key_the_knowledge_lacks_refuses_the_search(client, lang, words):
    """``f.fruit=apple`` was dropped and the search ran without it."""
    page = client.get("/", params={"q": Q, "f.fruit": "apple", "lang": lang})
    assert page.status_code == 400
    assert _results(page.text) == []
    note = _note(page.text)
    assert note is not None and note.startswith(words) and "tags" in note, note
    assert _chosen(page.text, "fruit") == "apple"  # what was asked stays in view
    assert f">{Q}</textarea>" in page.text


def test_the_api_refuses_a_filter_key_the_knowledge_lacks(client):
    for params in ({"q": Q, "where": "fruit=apple"}, {"where": "fruit=apple", "q": "x"}):
        api = client.get("/api/search", params=params)
        assert api.status_code == 400
        assert "unknown 'where' filter key 'fruit'" in api.json()["error"]["message"]
    post = client.post("/api/search", json={"q": Q, "where": ["fruit=apple"]})
    assert post.status_code == 400 and "'fruit'" in post.json()["error"]["message"]


def test_a_value_a_closed_key_never_has_refuses_the_search(client):
    page = client.get("/", params={"q": Q, "f.kind": "banana", "lang": "en"})
    assert page.status_code == 400 and _results(page.text) == []
    assert "no chunk of kind 'banana'" in (_note(page.text) or "")


def test_a_front_matter_key_without_a_menu_filters(client):
    """``f.author=…`` (a key --where takes, no facet menu) was dropped."""
    page = client.get("/", params={"q": Q, "f.author": "alice@example.org", "lang": "en"})
    assert page.status_code == 200 and _results(page.text) and _note(page.text) is None
    assert _chosen(page.text, "author") == "alice@example.org"
    nobody = client.get("/", params={"q": Q, "f.author": "bob@example.org", "lang": "en"})
    assert _results(nobody.text) == [] and "author = bob@example.org" in _note(nobody.text)


def test_a_value_past_the_menus_length_still_filters(client, monkeypatch):
    """A held value the menu did not list (past MAX_FACET_VALUES) was dropped as unknown."""
    monkeypatch.setattr(pages, "MAX_FACET_VALUES", 1)
    page = client.get("/", params={"q": Q, "f.tags": "paddy", "lang": "en"})
    assert page.status_code == 200 and _note(page.text) is None
    assert _results(page.text) == ["knowledge/pump-rice.md"]
    assert _chosen(page.text, "tags") == "paddy"


# --- decision forms -----------------------------------------------------------------------

@pytest.mark.parametrize(("value", "lang", "words"), [
    ("热", "en", "is not a number"), ("热", "zh", "不是数"),
    ("20 kg", "en", "it is in 'kg'"), ("80 kPa", "en", "'kPa'")])
def test_a_value_the_table_cannot_use_is_an_error_status(client, value, lang, words):
    page = client.get(f"/table/{SCAB}", params={"table": "1", "go": "1", "in.0": value,
                                                "in.1": "90", "lang": lang})
    assert page.status_code == 400
    said = re.search(r'<p class="error message"[^>]*>(.*?)</p>', page.text, re.S)
    assert said and words in html.unescape(said.group(1))
    assert f'name="in.0" value="{value}"' in page.text  # the form keeps what was given
    api = client.post("/api/table/evaluate", json={"doc": SCAB, "inputs": {
        "温度(℃)": value, "相对湿度(%)": "90"}})
    assert api.status_code == 400


def test_a_missing_value_is_an_error_status_and_a_good_one_is_not(client):
    missing = client.get(f"/table/{SCAB}", params={"table": "1", "go": "1", "in.0": "20",
                                                   "lang": "en"})
    assert missing.status_code == 400 and 'class="error message"' in missing.text
    fine = client.get(f"/table/{SCAB}", params={"table": "1", "go": "1", "in.0": "20",
                                                "in.1": "90", "lang": "en"})
    assert fine.status_code == 200 and 'class="error message"' not in fine.text
    assert client.get(f"/table/{SCAB}", params={"table": "1"}).status_code == 200


def test_verified_only_is_read_as_the_api_reads_it(client):
    """``verified=true`` (a hand-written link, a script) was taken for "no": every chunk was
    searched, the unverified ones included. The documents here are all unverified."""
    for flag in ("1", "true", "yes", "on"):
        page = client.get("/", params={"q": Q, "verified": flag, "lang": "en"})
        assert page.status_code == 200 and _results(page.text) == [], flag
    assert _results(client.get("/", params={"q": Q, "verified": "0", "lang": "en"}).text)
    for lang, words in (("en", "must be true or false"), ("zh", "只能是 true 或 false")):
        refused = client.get("/", params={"q": Q, "verified": "maybe", "lang": lang})
        assert refused.status_code == 400 and _results(refused.text) == []
        assert words in (_note(refused.text) or ""), refused.text
    api = client.get("/api/search", params={"q": Q, "verified_only": "maybe"})
    assert api.status_code == 400 and "'maybe'" in api.json()["error"]["message"]


def test_a_key_given_twice_applies_both_values_as_where_does(client):
    """``f.tags=orchard&f.tags=paddy`` searched with the first only: the second was dropped."""
    page = client.get("/", params=[("q", Q), ("f.tags", "orchard"), ("f.tags", "paddy"),
                                   ("lang", "en")])
    assert page.status_code == 200 and _results(page.text) == []
    api = client.get("/api/search", params=[("q", Q), ("where", "tags=orchard"),
                                            ("where", "tags=paddy")])
    assert api.json()["results"] == []
    summary = re.search(r"<summary>(.*?)</summary>", page.text, re.S)
    assert summary and "tags = orchard" in summary.group(1) and "tags = paddy" in summary.group(1)
    assert _chosen(page.text, "tags") == "orchard"


def _box(page: str) -> str:
    found = re.search(r'<textarea[^>]* name="q"[^>]*>(.*?)</textarea>', page, re.S)
    assert found, page
    return html.unescape(found.group(1))


@pytest.mark.parametrize(("k", "lang", "shown", "words"), [
    ("abc", "zh", 10, "结果条数（k）必须是 1 到 100 之间的整数，不能是“abc”"),
    ("0", "en", 1, "The number of results (k) must be a whole number from 1 to 100, not “0”"),
    ("-1", "zh", 1, "不能是“-1”"), ("10000", "en", 100, "not “10000”"),
    ("2.6", "en", 3, "not “2.6”"), ("１ｋ", "zh", 10, "不能是“１ｋ”")])
def test_a_number_of_results_the_page_cannot_show_is_said_beside_the_results(
        client, k, lang, shown, words):
    """``/?q=…&k=abc`` (``0``, ``-1``, ``10000``) answered a whole error page and the
    question left the box: the page searches with the nearest number it can show, says so
    in its language above the results, and a next question asked there keeps that number."""
    every = len(_results(client.get("/", params={"q": Q, "k": "100"}).text))
    page = client.get("/", params={"q": Q, "k": k, "lang": lang})
    assert page.status_code == 200 and _box(page.text) == Q
    note = re.findall(r'<p class="k-note" role="status">(.*?)</p>', page.text)
    assert len(note) == 1 and words in html.unescape(note[0]), note
    assert str(shown) in note[0]
    assert len(_results(page.text)) == min(shown, every) > 0
    assert f'<input type="hidden" name="k" value="{shown}">' in page.text
    again = client.post("/", data={"q": "seal", "k": str(shown)}, follow_redirects=False)
    assert again.status_code == 303 and f"k={shown}" in again.headers["location"]


def test_a_number_of_results_the_page_can_show_is_not_remarked(client):
    page = client.get("/", params={"q": Q, "k": "2", "lang": "zh"})
    assert page.status_code == 200 and len(_results(page.text)) == 2
    assert 'class="k-note"' not in page.text
    assert 'name="k"' not in client.get("/", params={"q": Q}).text  # none asked: the default


@pytest.mark.parametrize(("lang", "count"), [("en", "1 result"), ("zh", "1 条结果")])
def test_one_result_is_counted_in_the_singular(client, lang, count):
    """``k=1`` (and ``k=0``, shown as 1) said "1 results"."""
    page = client.get("/", params={"q": Q, "k": "1", "lang": lang})
    said = re.findall(r'<p class="count"[^>]*>(.*?)</p>', page.text)
    assert said == [count], said


@given(st.one_of(st.text(max_size=30), st.integers().map(str),
                 st.floats(allow_nan=True).map(str)))
@settings(max_examples=300, deadline=None)
def test_the_pages_k_is_always_one_it_can_show_and_the_one_asked_when_it_can(asked):
    """Whatever an address's ``k`` is, the page shows from 1 to MAX_K results, the number
    asked when the API takes it (and then says nothing of it); a blank one (an empty
    field) is none asked."""
    try:
        taken: int | None = ops.check_k(asked, pages.SEARCH_K)
    except ops.ApiError:
        taken = None
    shown, changed = ops.nearest_k(asked, pages.SEARCH_K)
    assert 1 <= shown <= MAX_K
    if not asked.strip():
        assert (shown, changed) == (pages.SEARCH_K, False)
        return
    assert changed == (taken is None)
    if taken is not None:
        assert shown == taken
