"""A warm search's per-question overhead taken away without changing what it answers
(issue 15 §5, session 32): each cheaper form checked against the form it replaced."""

from __future__ import annotations

import re
from datetime import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.index import store, tokenize
from kbtools.query import compounds, freshness

# the patterns as they were written before: two alternatives, a lone character the second
OLD_LATIN_RUN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-.+#]*[A-Za-z0-9+#]|[A-Za-z0-9]")
OLD_RUN = re.compile(rf"([{tokenize.CJK}·]+)|([a-z0-9][a-z0-9_\-.+#]*[a-z0-9+#]|[a-z0-9])")

# texts made of what the run patterns care about: run characters, ends, CJK, spaces
RUNNY = st.text(alphabet="aZ09_-.+#·中文 ，x", max_size=40)


@settings(max_examples=500, deadline=None)
@given(text=RUNNY)
def test_latin_runs_are_the_two_alternatives_runs(text):
    assert [m.span() for m in compounds.LATIN_RUN.finditer(text)] == \
        [m.span() for m in OLD_LATIN_RUN.finditer(text)]


@settings(max_examples=500, deadline=None)
@given(text=RUNNY.map(str.lower))
def test_tokenizer_runs_are_the_two_alternatives_runs(text):
    assert [(m.span(), m.groups()) for m in tokenize._RUN.finditer(text)] == \
        [(m.span(), m.groups()) for m in OLD_RUN.finditer(text)]


def test_runs_of_passages_as_written():
    text = "TiDB v6.5 的 tidb_gc_life_time 默认 10m0s；C++ 与 C# 写 a-b- 和 x. 及 k8s.io/api"
    assert compounds.LATIN_RUN.findall(text) == OLD_LATIN_RUN.findall(text) == [
        "TiDB", "v6.5", "tidb_gc_life_time", "10m0s", "C++", "C#", "a-b", "x", "k8s.io",
        "api"]


def test_local_today_is_the_local_dates_day():
    before = datetime.now().astimezone().date()
    today = freshness.local_today()
    after = datetime.now().astimezone().date()
    assert today in (before, after)


def test_a_repeated_verdict_is_parsed_once_and_each_row_owns_its_dict():
    text = ('{"reason": "the document is not verified", "review": null, '
            '"status": "unverified", "verified": false}')
    first = store._load_flat(text)
    first["verified"] = True  # a caller changing its row's verdict
    second = store._load_flat(text)
    assert second == {"reason": "the document is not verified", "review": None,
                      "status": "unverified", "verified": False}
    assert second is not first


def test_a_verdict_with_a_review_is_parsed_whole_each_time():
    text = '{"review": {"by": "a", "commit": "c1"}, "status": "verified", "verified": true}'
    first = store._load_flat(text)
    first["review"]["by"] = "someone else"
    assert store._load_flat(text)["review"] == {"by": "a", "commit": "c1"}
    assert store._load_flat("[]") == [] and store._load_flat('{"a": [1]}') == {"a": [1]}


QUESTIONS = ["玉米锈病怎么防治？", "How do I reset the pump after an E17 fault?",
             "小麦 最大 施肥量 是多少", "maximum upload size", "tag-out 步骤", "三十天内 灌溉几次",
             "E 99 是什么故障", "滤芯 filter element 多久换"]


def test_expansion_of_the_tokens_a_search_has_is_the_expansion_of_the_question(example_index):
    from kbtools.index.reader import open_index
    from kbtools.query.expansion import expand

    index = open_index(example_index)
    try:
        for question in QUESTIONS:
            terms, _, unknown = index.bm25.query_terms(question)
            assert expand(index, question, [], terms + unknown) == expand(index, question, [])
    finally:
        index.close()


def test_rescored_candidates_are_what_dataclasses_replace_makes():
    from dataclasses import fields, replace

    import numpy as np

    from kbtools.query.fusion import FusionParams, Ranked, fuse_arrays

    lists = {"bm25": Ranked(np.array([3, 1, 7]), np.array([9.0, 4.0, 1.0], dtype=np.float32)),
             "vector:use": Ranked(np.array([1, 5]), np.array([0.8, 0.6], dtype=np.float32))}
    fused = fuse_arrays(lists, FusionParams())
    scores = fused.scores + 0.5
    got = fused.rescored(scores, ("page", np.full(len(fused), 0.5)))
    want = replace(fused, scores=scores, notes=(("page", got.notes[0][1]),))
    assert type(got) is type(want)
    for f in fields(want):
        a, b = getattr(got, f.name), getattr(want, f.name)
        assert a is b or (np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b)
    assert fused.scores is not scores and fused.notes == ()  # the original unchanged
    assert [h.why for h in got.hits()] == [h.why for h in want.hits()]
