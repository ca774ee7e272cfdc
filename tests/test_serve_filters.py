"""The search page's filter menus choose a front-matter value as it is: the page passes each
choice to the search as (key, op, value), never as ``KEY=VALUE`` text parsed again, so a value
that starts like an operator (``<1 ha``, ``=> 5``, ``!x``) can be chosen (it was a parse
error) and a value in quotes keeps them (``"A"`` filtered as ``A``). A filter a response
shows (`where_text`) reads back through the text syntax of ``where`` (CLI, API) as the same
filter: a value in quotes is taken as it is inside."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kbfixtures import TITLED
from starlette.testclient import TestClient

from kbtools.errors import UsageError
from kbtools.index.reader import open_index
from kbtools.query.filters import OPERATORS, checked_conditions, parse_where, where_text
from kbtools.query.search import search
from kbtools.serve.app import create_app
from tests.hostile import built_repo_index

BASE = "http://127.0.0.1"
# tag (a facet) → the document holding it; "A" and '"A"' are two different values
TAGS = {"<1 ha": "small", "=> 5": "arrow", "!urgent": "bang", '"A"': "quoted", "A": "plain",
        ">= 10 L": "volume"}


def _doc(tag: str, name: str) -> str:
    text = TITLED.format(title=f"Pump {name}", body=f"The {name} pump primes before the "
                                                    "pressure test and holds its seal.")
    return text.replace("verified: false\n", f"verified: false\ntags: [{tag!r}]\n")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    docs = {f"knowledge/pump-{name}.md": _doc(tag, name) for tag, name in TAGS.items()}
    return built_repo_index(tmp_path_factory.mktemp("filters"), docs, model="test-hash")


@pytest.fixture(scope="module")
def client(dist):
    with TestClient(create_app(dist), base_url=BASE) as c:
        yield c


def _result_docs(page: str) -> set[str]:
    return set(re.findall(r'href="/doc/(knowledge/pump-[a-z]+\.md)', page))


@pytest.mark.parametrize("tag", sorted(TAGS))
def test_each_value_a_document_holds_can_be_chosen_on_the_search_page(client, tag):
    index_page = client.get("/", params={"lang": "en"}).text
    assert tag in {html.unescape(v) for v in re.findall(r'<option value="([^"]*)"', index_page)}
    page = client.get("/", params={"q": "pump pressure test seal", "f.tags": tag, "lang": "en"})
    assert page.status_code == 200, page.text
    assert _result_docs(page.text) == {f"knowledge/pump-{TAGS[tag]}.md"}


def test_the_where_text_syntax_is_unchanged(dist):
    """`parse_where` still reads operators and quotes in text (as the CLI and API take it)."""
    assert parse_where(['tags="A"']) == [("tags", "=", "A")]
    with pytest.raises(UsageError, match="is not an operator"):
        parse_where(["tags=<1 ha"])
    index = open_index(dist)
    quoted = search(index, "pump pressure test seal", k=10, where=['tags="A"'])
    assert {r.citation.doc for r in quoted.results} == {"knowledge/pump-plain.md"}
    chosen = search(index, "pump pressure test seal", k=10, conditions=[("tags", "=", '"A"')])
    assert {r.citation.doc for r in chosen.results} == {"knowledge/pump-quoted.md"}


@pytest.mark.parametrize("condition", [("tags", "==", "x"), ("tags", "=", ""),
                                       ("", "=", "x"), ("tags", "=", " ")])
def test_a_malformed_condition_is_a_usage_error_naming_it(condition):
    with pytest.raises(UsageError) as err:
        checked_conditions([condition])
    assert err.value.key == "bad_where" and err.value.message.startswith("bad filter")


# --- filters shown back: `where_text` reads back through `parse_where` -------------------

KEYS = st.from_regex(r"[A-Za-z_][\w.-]{0,20}", fullmatch=True)
# what a `where` text can hold: anything but a line break (the parser reads one line) and
# a lone surrogate (made U+FFFD on the way in); not only space
VALUES = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\n"),
                 min_size=1, max_size=40).filter(lambda v: v.strip())


@given(KEYS, st.sampled_from(OPERATORS), VALUES)
@settings(max_examples=400, deadline=None)
def test_a_filter_shown_as_text_reads_back_as_the_same_filter(key, op, value):
    assert parse_where([where_text(key, op, value)]) == [(key, op, value)]


@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=40))
@settings(max_examples=400, deadline=None)
def test_whatever_the_parser_accepts_it_shows_so_that_it_reads_back(text):
    try:
        parsed = parse_where([text])
    except UsageError:
        return
    assert parse_where([where_text(*parsed[0])]) == parsed


@pytest.mark.parametrize("tag", sorted(TAGS))
def test_the_filters_a_response_shows_can_be_pasted_back_as_where(client, dist, tag):
    """A value chosen on the page (``<1 ha``, ``=> 5``, ``"A"``) came back in the JSON's
    ``filters`` as ``tags=<1 ha``, which `where` refused or read as another value."""
    chosen = search(open_index(dist), "pump pressure test seal", k=10,
                    conditions=[("tags", "=", tag)])
    shown = chosen.to_dict()["filters"]["where"]
    assert parse_where(shown) == [("tags", "=", tag)]
    api = client.get("/api/search", params={"q": "pump pressure test seal", "k": 10,
                                            "where": shown})
    assert api.status_code == 200, api.text
    body = api.json()
    assert body["filters"]["where"] == shown
    assert {r["doc"] for r in body["results"]} == {f"knowledge/pump-{TAGS[tag]}.md"}


def test_a_value_in_quotes_is_taken_as_it_is_inside():
    assert parse_where(['size="<1 ha"', "n=' a b '", 'tags=""A""']) == [
        ("size", "=", "<1 ha"), ("n", "=", " a b "), ("tags", "=", '"A"')]
    for bad in ('tags=" "', 'tags=""'):
        with pytest.raises(UsageError, match="no value"):
            parse_where([bad])
    with pytest.raises(UsageError, match='in quotes: size="<1 ha"'):
        parse_where(["size=<1 ha"])
