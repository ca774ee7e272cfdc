"""A question asked while the alias moves (`kb publish --engine` of a new release, `kb
rollback --engine`): answered wholly from the release it was asked of, or — that release
dropped by the publish meanwhile (``keep``) — one retryable line, never rows of two.
A real `milvus-lite server` (`tests.milvus_server`)."""

from __future__ import annotations

import pytest

from kbtools.engine.milvus import ALIAS
from kbtools.engine.publish import check_release, publish, rollback
from kbtools.engine.remote import EngineReader
from kbtools.errors import EngineError
from kbtools.index.reader import open_index
from kbtools.query.search import search
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.test_engine_failures import QUESTION, _engine, _rel, signed  # noqa: F401 - fixture


def _moving(engine, move):
    """`engine.call` running `move` once, right after the question's first search."""
    real = engine.call
    done: list[bool] = []

    def call(doing, method, *args, **kwargs):
        got = real(doing, method, *args, **kwargs)
        if method == "search" and not done:
            done.append(True)
            move()
        return got
    return call


NOTE = "how often to flush the drip irrigation lines"  # note2.md: kb-r2 on, not in kb-r1


def _ids(response) -> list[str]:
    return [r.chunk_id for r in response.results]


@pytest.mark.parametrize("question", [QUESTION, NOTE])
def test_a_question_asked_as_a_publish_moves_the_alias_is_its_releases(
        signed, milvus, monkeypatch, question):  # noqa: F811
    """kb-r2 published (the alias moved to it) between the question's first search and its
    row reads: the question is answered by kb-r1 alone, as kb-r1's local files answer it
    (never note2's chunk, which only kb-r2 holds); the next question is kb-r2's."""
    dev, _ = signed
    db = f"moving{len(question)}"
    eng = _engine(milvus, db)
    publish(eng, check_release(_rel(dev, 1)))
    reader = EngineReader(eng)
    asked = reader.current()
    monkeypatch.setattr(eng, "call", _moving(eng, lambda: publish(
        _engine(milvus, db), check_release(_rel(dev, 2)))))
    got = search(asked, question, k=5, keep_results=True)
    monkeypatch.undo()
    r1, r2 = (open_index(_rel(dev, n)) for n in (1, 2))
    assert got.release.tag == "kb-r1"
    assert _ids(got) == _ids(search(r1, question, k=5, keep_results=True))
    assert got.no_answer == search(r1, question, k=5).no_answer
    after = search(reader.current(), question, k=5, keep_results=True)
    assert after.release.tag == "kb-r2"
    assert _ids(after) == _ids(search(r2, question, k=5, keep_results=True))
    if question == NOTE:  # the two releases answer it apart: the test tells them apart
        assert _ids(after) != _ids(got)


def test_a_question_asked_as_a_rollback_moves_the_alias_is_its_releases(
        signed, milvus, monkeypatch):  # noqa: F811
    dev, _ = signed
    eng = _engine(milvus, "rolling")
    publish(eng, check_release(_rel(dev, 1)))
    publish(eng, check_release(_rel(dev, 2)))
    reader = EngineReader(eng)
    asked = reader.current()
    monkeypatch.setattr(eng, "call", _moving(eng, lambda: rollback(
        _engine(milvus, "rolling"), "kb-r1")))
    got = search(asked, NOTE, k=5, keep_results=True)
    monkeypatch.undo()
    assert got.release.tag == "kb-r2"
    assert _ids(got) == _ids(search(open_index(_rel(dev, 2)), NOTE, k=5, keep_results=True))
    assert search(reader.current(), NOTE, k=5).release.tag == "kb-r1"


def test_a_question_whose_release_a_publish_drops_meanwhile_is_one_retryable_line(
        signed, milvus, monkeypatch):  # noqa: F811
    """kb-r2 published with ``keep 1`` during the question drops kb-r1, which the question
    was reading: one line saying so and to ask again (the next question is kb-r2's)."""
    dev, _ = signed
    eng = _engine(milvus, "dropping")
    publish(eng, check_release(_rel(dev, 1)))
    reader = EngineReader(eng)
    asked = reader.current()
    monkeypatch.setattr(eng, "call", _moving(eng, lambda: publish(
        _engine(milvus, "dropping"), check_release(_rel(dev, 2)), keep=1)))
    with pytest.raises(EngineError, match="dropped from the engine meanwhile") as exc:
        search(asked, NOTE, k=5, keep_results=True)
    monkeypatch.undo()
    assert exc.value.key == "engine_release_gone" and "ask again" in exc.value.message
    assert "\n" not in exc.value.message
    assert eng.alias_target(ALIAS) != asked.collection
    assert search(reader.current(), NOTE, k=5).release.tag == "kb-r2"
