"""The question worker (`kbtools.embed.question_worker`): the same vectors and answers as
embedding in process, and a search that never depends on the worker being alive."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from kbtools.embed import question_worker, registry
from kbtools.embed.base import blas_threads, embed_question
from kbtools.embed.registry import get_embedder, is_builtin
from kbtools.embed.use import UseEmbedder
from kbtools.index.reader import open_index
from kbtools.query import pages
from kbtools.query.quality import load_questions
from kbtools.query.search import clean_query, keep_warm, search

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def fresh_worker(monkeypatch):
    """Each test starts without a worker, with the worker allowed, and stops its own."""
    monkeypatch.delenv("KB_QUESTION_WORKER", raising=False)
    question_worker.shutdown()
    yield
    question_worker.shutdown()


def ready_worker(models: list[str]) -> question_worker.QuestionWorker:
    question_worker.ensure(models)
    worker = question_worker.current()
    assert worker is not None
    deadline = time.monotonic() + 60
    while not worker._ready:  # begin() reads the READY byte once it is there
        batch = worker.begin(sorted(worker.models)[:1], "probe")
        if batch is not None:
            batch.finish()
        assert worker.failed is None and time.monotonic() < deadline
        time.sleep(0.05)
    return worker


def texts() -> list[str]:
    """A few hundred questions and lines of the example knowledge, Chinese and English, short
    and long."""
    lines = [line.strip("#-*> ").strip()
             for path in sorted((REPO / "knowledge").rglob("*.md"))
             for line in path.read_text(encoding="utf-8").splitlines()]
    lines = [line for line in lines if len(line) > 3][::5]
    asked = [q["query"] for q in load_questions(REPO / "tests" / "data" / "known_answers.jsonl")]
    return asked + lines[:200]


@pytest.mark.parametrize("model", ["use", "minilm"])
def test_worker_vectors_are_the_same_bits_as_in_process(model):
    worker = ready_worker([model])
    asked = texts()
    assert len(asked) >= 250
    with blas_threads(1):  # as a search embeds (`search.search`)
        for text in asked:
            batch = worker.begin([model], text)
            assert batch is not None
            got = batch.vector(model, text)
            batch.finish()
            want = np.asarray(embed_question(get_embedder(model), text)[0], dtype=np.float32)
            assert got is not None and got.tobytes() == want.tobytes(), text


def answers(index, questions: list[str]) -> list[dict]:
    out = []
    for q in questions:
        got = search(index, q, k=5).to_dict()
        got.pop("took_ms", None)
        out.append(got)
    return out


def test_searches_answer_the_same_with_the_worker(example_index, monkeypatch):
    index = open_index(example_index)
    questions = [q["query"] for q in
                 load_questions(REPO / "tests" / "data" / "known_answers.jsonl")][::2]
    alone = answers(index, questions)
    keep_warm(index)  # a long-lived process: starts the worker with the release's models
    worker = ready_worker([])
    assert worker.models == set(index.manifest["models"])
    asked = []
    real_begin = worker.begin
    monkeypatch.setattr(worker, "begin", lambda models, text: asked.append(text) or
                        real_begin(models, text))
    assert answers(index, questions) == alone
    assert asked == [clean_query(q) for q in questions] and worker.failed is None


def test_a_dead_worker_leaves_searches_answering_in_process(example_index, capfd):
    index = open_index(example_index)
    question = "小麦赤霉病施药步骤是什么"
    alone = answers(index, [question])
    worker = ready_worker(sorted(index.manifest["models"]))
    worker._proc.send_signal(signal.SIGKILL)
    worker._proc.wait()
    assert answers(index, [question]) == alone
    assert worker.failed is not None and question_worker.current() is None
    assert "question worker stopped" in capfd.readouterr().err
    assert answers(index, [question]) == alone  # not asked again


def test_a_worker_that_cannot_load_its_model_is_given_up(example_index):
    question_worker._WORKER = question_worker.QuestionWorker(["no-such-model"])
    worker = question_worker._WORKER
    deadline = time.monotonic() + 60
    while worker.failed is None:
        assert worker.begin(["no-such-model"], "question") is None
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert "exited with status" in worker.failed
    assert question_worker.current() is None


def test_a_busy_worker_is_not_waited_for():
    worker = ready_worker(["test-hash"])
    first = worker.begin(["test-hash"], "first question")
    assert first is not None
    got: list[object] = []
    thread = threading.Thread(target=lambda: got.append(worker.begin(["test-hash"], "second")))
    thread.start()
    thread.join()
    assert got == [None]  # the second search embeds in process
    first.finish()
    later = worker.begin(["test-hash"], "second")
    assert later is not None
    assert later.vector("test-hash", "another question") is None  # not what it asked
    assert later.vector("test-hash", "second") is not None
    later.finish()


def test_the_vector_comes_from_the_batch_inside_embedding_ahead():
    worker = ready_worker(["test-hash"])
    with pages.embedding_ahead(["test-hash"], "what the worker embeds"):
        batch = pages._AHEAD.batch
        assert batch is not None and batch.worker is worker
        vec = pages.question_vector("test-hash", "what the worker embeds")
        assert not vec.flags.writeable
        assert vec.tobytes() == batch.vector("test-hash", "what the worker embeds").tobytes()
    assert pages._AHEAD.batch is None
    assert worker.begin(["test-hash"], "free again") is not None  # finished and released


def test_only_built_in_backends_go_to_the_worker(monkeypatch):
    assert is_builtin("use") and is_builtin("test-hash")
    assert not is_builtin("sentence-transformers/all-mpnet-base-v2")
    monkeypatch.setitem(registry._FACTORIES, "use", lambda name: UseEmbedder())
    assert not is_builtin("use")  # registered in this process: the worker would not have it
    question_worker.ensure(["use"])
    assert question_worker.current() is None


def test_the_worker_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("KB_QUESTION_WORKER", "0")
    question_worker.ensure(["test-hash"])
    assert question_worker.current() is None


def test_a_worker_lacking_a_model_is_replaced_by_one_with_both():
    first = ready_worker(["test-hash"])
    question_worker.ensure(["use"])
    second = question_worker.current()
    assert second is not first and second.models == {"test-hash", "use"}
    assert first._proc.poll() is not None  # the replaced worker was stopped


def test_the_worker_ends_with_the_process_that_started_it(tmp_path):
    script = ("import sys, time\n"
              "from kbtools.embed import question_worker\n"
              "question_worker.ensure(['test-hash'])\n"
              "print(question_worker.current()._proc.pid, flush=True)\n"
              "time.sleep(60)\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              text=True, env=env)
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and "Z" not in _state(pid):
        assert time.monotonic() < deadline, "the worker outlived its parent"
        time.sleep(0.05)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return "Z"
