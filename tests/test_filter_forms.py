"""``--where`` on dates and numbers as people also write them, with the same meaning on the
local mask and in Milvus: dates with ``/`` or one-digit months and days (``2024/03/01``,
``2024-3-1``), months (``2024-03``, ``2024年3月``: their first day), full-width digits from a
Chinese input method (``２．１``, ``２０２４－０３－０１``, ``ｖ２``). Before, each compared as
text: ``shipped>=2024-03`` put ``2024/03/01`` before March and ``fw=２．１`` found nothing.
And the decision kept for a plain number beside a version (``firmware=2`` matches
``2.0.0``): ``=`` holds where ``>=`` and ``<=`` both hold."""

from __future__ import annotations

import datetime as dt
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.errors import FilterError
from kbtools.index.reader import open_index
from kbtools.query.filter_checks import _check_order
from kbtools.query.filter_kinds import instant_text, member_class, version_text
from kbtools.query.filters import _compare
from kbtools.query.search import search
from tests.kbfixtures import built_pages
from tests.milvus_server import (  # noqa: F401 - milvus: a fixture
    engine_rows,
    facts_collection,
    local_rows,
    milvus,
)

FORMS = [
    {"shipped": "2024/03/01", "fw": "２．１", "equipment": "HX-260"},  # 0: 2024-03-01; 2.1
    {"shipped": "2024-3-15", "fw": "2.0.0", "equipment": "ＨＸ－２６０", "tags": ["ＰＵＭＰ/seal"]},  # 1
    {"shipped": "2024年3月", "fw": "ｖ２．１．０", "equipment": ["hx-260", "Ｐｕｍｐ"],  # 2: March 2024
     "tags": "pump"},  # is 2024-03-01; v2.1.0
    {"shipped": "2024-02", "fw": "1.10"},  # 3: 2024-02-01; the number 1.1
    {"shipped": "２０２４－０３－０２", "fw": "2.1.0"},  # 4
    {"shipped": "2024/3/1 20:00", "fw": "１０"},  # 5: the number 10
    {"shipped": dt.date(2024, 2, 29), "fw": 2.1},  # 6: YAML's date and number
]


@pytest.fixture(scope="module")
def coll(milvus):  # noqa: F811
    with facts_collection(milvus, "forms", "forms", [(f, False) for f in FORMS]) as engine:
        yield engine


def _local(key: str, op: str, want: str, facts: list[dict] = FORMS) -> list[int]:
    return local_rows(facts, key, op, want)


def _remote(engine, key: str, op: str, want: str, name: str = "forms",
            facts: list[dict] = FORMS) -> list[int]:
    return engine_rows(engine, name, key, op, want, facts)


@pytest.mark.parametrize(("key", "op", "want", "rows"), [
    ("shipped", ">=", "2024-03", [0, 1, 2, 4, 5]),  # from March: its first day on
    ("shipped", "<", "2024年3月", [3, 6]),
    ("shipped", "=", "2024-03-01", [0, 5]),  # the whole day; March is no day of it (session 40)
    ("shipped", ">", "2024/3/1", [1, 4]),  # after the day: 20:00 that day is not
    ("shipped", "<=", "２０２４－０２－２９", [3, 6]),
    ("shipped", ">=", "2024-03-01T12:00:00Z", [1, 4, 5]),
    ("shipped", "!=", "2024年3月1日", [1, 2, 3, 4, 6]),
    ("fw", "=", "2.1", [0, 2, 4, 6]), ("fw", "=", "２．１", [0, 2, 4, 6]),
    ("fw", ">=", "2", [0, 1, 2, 4, 5, 6]),  # 2.0.0 is 2 beside a plain 2
    ("fw", "<", "ｖ２", [3]),  # 1.10 beside a version is the version 1.10
    ("fw", ">", "９", [5]),
    ("equipment", "=", "ＨＸ－２６０", [0, 1, 2]), ("equipment", "=", "hx-260", [0, 1, 2]),
    ("equipment", "!=", "ｐｕｍｐ", [0, 1, 3, 4, 5, 6]), ("tags", "=", "Pump", [1, 2]),
    ("tags", "=", "ｐｕｍｐ/ＳＥＡＬ", [1]),  # text as an input method's full-width forms  # the number 10 alone: 2.1, and the versions 2.x and 9 (9.0.0)
])
def test_other_written_dates_and_digits_filter_alike_locally_and_in_milvus(coll, key, op, want,
                                                                           rows):
    assert _local(key, op, want) == rows
    assert _remote(coll, key, op, want) == rows


def test_what_each_form_reads_as():
    assert [member_class(t) for t in (
        "2024/03/01", "2024-3-1", "2024-03", "2024/3", "2024年3月", "2024 年 3 月 1 号",
        "２０２４－０３－０１", "2024/03/01 08:00", "２．１", "１０", "ｖ２", "2024.03.01",
        "2024-13", "2024-03/01", "2024年13月", "2024", "x²")] == [
        "d", "d", "d", "d", "d", "d", "d", "d", "m", "m", "v", "v", "t", "t", "t", "y", "t"]
    march = instant_text("2024-03-01")
    assert instant_text("2024-03") == instant_text("2024年3月") == instant_text("2024/3") == march
    assert instant_text("2024-02-30") is None and instant_text("2024/2/29") is not None
    assert version_text("2024.03.01") == version_text("2024.3.1")  # calendar versioning
    assert version_text("ｖ２．１") == version_text("v2.1") and instant_text("2024-3-1") == march
    assert instant_text("2024/3/1 8:00") == instant_text("2024-03-01T08:00:00Z") == instant_text(
        "２０２４/３/１ １６:００+０８:００")


def test_a_dotted_date_on_a_date_key_is_named():
    """``2024.03.01`` is a version (calendar versioning), not a date: ordering a key whose
    every value is a date by it would compare text, so it is an error naming what to give,
    for the dates written otherwise too."""
    for held in (["2024-03-01", "2024-02-01"], ["2024/03/01", "2024年2月1日", "2024-3"]):
        with pytest.raises(FilterError, match=r"shipped>=2024\.03\.01: shipped is a date in "
                                              "this index .* compare it with a date"):
            _check_order("shipped", ">=", "2024.03.01", held)
    _check_order("shipped", ">=", "2024年3月", ["2024/03/01"])  # a month: a date


plain = st.one_of(st.integers(0, 12).map(str), st.sampled_from(["1.9", "1.10", "2.0", "２", "7"]))
dotted = st.builds(lambda v, nums: v + ".".join(map(str, nums)), st.sampled_from(["", "v", "V"]),
                   st.lists(st.integers(0, 12), min_size=1, max_size=3))


@settings(max_examples=300, deadline=None)
@given(value=dotted, want=st.one_of(plain, dotted))
def test_equal_is_both_orders_for_numbers_and_versions(value, want):
    """The decision on ``=`` between a plain number and a version (``code=7`` matches
    ``v7``, ``firmware=2`` matches ``2.0.0``): kept, since ``firmware>=2`` and
    ``firmware<=2`` both hold for ``2.0.0`` (``version>1.9`` must find ``1.10.2``), and an
    ``=`` that left out what both orders keep would contradict them."""
    both = _compare(value, ">=", want) and _compare(value, "<=", want)
    assert _compare(value, "=", want) == both, (value, want)
    assert _compare(value, "!=", want) == (not both)


FORM_ROWS = [{"k": v} for v in [
    "2024/03/01", "2024-3-15", "2024年3月", "2024-02", "２０２４－０３－０２", "2024.03.01", "２．１",
    "ｖ２．１．０", "1.10", "１０", ["2024/2/29 23:00", "v1.9"], dt.date(2024, 3, 1), "2024-13",
    "小麦", "7", "v7", "2024", "ＨＸ－２６０", ["hx-260", "Ｖ７"]]]
forms = st.one_of(
    st.builds(lambda y, m, d, sep: f"{y}{sep}{m}{sep}{d}", st.integers(2023, 2025),
              st.integers(1, 13), st.integers(1, 31), st.sampled_from(["-", "/", "."])),
    st.builds(lambda y, m, fmt: fmt.format(y=y, m=m), st.integers(2023, 2025),
              st.integers(1, 12), st.sampled_from(["{y}-{m:02d}", "{y}/{m}", "{y}年{m}月"])),
    st.sampled_from(["２．１", "ｖ２", "２０２４－０３－０１", "１０", "2024", "7", "v7", "2.0.0",
                     "2024.03.01", "小麦", "٢", "HX-260", "ｈｘ－２６０", "ｖ７"]))


@pytest.fixture(scope="module")
def form_coll(milvus):  # noqa: F811
    with facts_collection(milvus, "forms", "mixedforms",
                          [(f, False) for f in FORM_ROWS]) as engine:
        yield engine


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=forms, op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]))
def test_any_written_form_filters_alike_locally_and_in_milvus(form_coll, want, op):
    assert _remote(form_coll, "k", op, want, "mixedforms", FORM_ROWS) == \
        _local("k", op, want, FORM_ROWS)


# A value copied on macOS arrives decomposed (NFD: ``e`` + U+0301, ``か`` + U+3099) while a
# document holds it composed (NFC), or the other way round: the two are one value.
COMPOSED = "Café crème が"
DECOMPOSED = unicodedata.normalize("NFD", COMPOSED)
TITLES = [{"title": COMPOSED}, {"title": DECOMPOSED}, {"title": "Cafe creme か"},
          {"title": "小麦赤霉病"}]


@pytest.fixture(scope="module")
def title_coll(milvus):  # noqa: F811
    with facts_collection(milvus, "forms", "composed", [(f, False) for f in TITLES]) as engine:
        yield engine


@pytest.mark.parametrize(("op", "want", "rows"), [
    ("=", COMPOSED, [0, 1]), ("=", DECOMPOSED, [0, 1]), ("=", DECOMPOSED.upper(), [0, 1]),
    ("!=", DECOMPOSED, [2, 3]), ("=", unicodedata.normalize("NFD", "が"), []),
])
def test_a_decomposed_value_filters_as_the_composed_one_locally_and_in_milvus(
        title_coll, op, want, rows):
    assert DECOMPOSED != COMPOSED
    assert _local("title", op, want, TITLES) == rows
    assert _remote(title_coll, "title", op, want, "composed", TITLES) == rows


def test_a_decomposed_document_path_or_title_finds_the_document(tmp_path):
    """``--where doc=knowledge/café-0.md`` pasted from macOS (decomposed) was "no document
    … in this index", and ``title=Café …`` matched nothing; both find the document now."""
    dist = built_pages(tmp_path / "kb", [("Café crème", "The café crème pump is primed daily."),
                                         ("Pump seals", "Replace the pump seals yearly.")],
                       stem="café")
    idx = open_index(dist)
    try:
        for where in (["doc=" + unicodedata.normalize("NFD", "knowledge/café-0.md")],
                      ["doc=" + unicodedata.normalize("NFD", "CAFÉ-0.md")],
                      ["title=" + unicodedata.normalize("NFD", "Café crème")]):
            res = search(idx, "pump primed daily", k=3, where=where)
            docs = {r.citation.doc for r in res.results}
            assert docs == {"knowledge/café-0.md"}, (where, docs, res.no_answer)
        res = search(idx, "pump seals", k=3,
                     where=["doc!=" + unicodedata.normalize("NFD", "knowledge/café-0.md")])
        docs = {r.citation.doc for r in res.results}
        assert "knowledge/café-1.md" in docs and "knowledge/café-0.md" not in docs, docs
    finally:
        idx.close()
