"""A second process that embeds questions while the search does its lexical work.

A warm search (`kb serve`, `kb mcp`) spends ~1.2 ms of its ~3 ms embedding the question with
USE (4-8 ms with MiniLM), while routing, the question's terms, BM25 and the identifier
look-ups need no vector. A second thread cannot overlap the two: the embedding's products and
the lexical stages both hold the GIL (benchmarks/README.md). So a long-lived process keeps one
worker process (`QuestionWorker`) that has loaded the release's models: a search sends it the
question first (`QuestionWorker.begin`) and reads the vector when its vector retriever needs
it (`Batch.vector`).

The worker runs the same code as the search on the same machine, on one BLAS thread as a
search does, so its vectors are the same bits as those embedded in process (tested): answers
do not depend on where the question was embedded. Only built-in backends go to the worker
(`registry.is_builtin`): a backend registered in this process does not exist in the worker.
Whenever the worker is not ready yet, is busy with another search, has died, or does not
answer within `ANSWER_TIMEOUT`, the question is embedded in process as before; a worker that
failed is stopped and not asked again.

The wire format is length-prefixed bytes over the worker's stdin and stdout: a request is
two little-endian uint32 lengths then the model name and the question (UTF-8); an answer is
an int32 dimension then that many float32s, or a negative int32 -n then an n-byte message.
The worker exits when its stdin closes, so it ends with the process that started it.
``KB_QUESTION_WORKER=0`` turns it off; it is off on one core, where nothing can overlap.
"""

from __future__ import annotations

import atexit
import os
import select
import struct
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from kbtools.embed.base import Vectors, blas_threads, embed_question
from kbtools.embed.registry import get_embedder, is_builtin

READY = b"R"
START_TIMEOUT = 60.0  # seconds the worker may take to load its models before it is given up
ANSWER_TIMEOUT = 5.0  # seconds an answer may take (a question takes milliseconds)
WARM_UP = "warm-up question 预热问题"
_HEADER = struct.Struct("<II")
_ANSWER = struct.Struct("<i")
# one BLAS thread in the worker, as `query.search.search` runs its products
_ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                      "MKL_NUM_THREADS")}


class WorkerError(Exception):
    """The worker failed to answer (it died, timed out or reported an error)."""


def enabled() -> bool:
    """Whether a long-lived process should start a worker: not when KB_QUESTION_WORKER=0,
    and not with one usable core."""
    if os.environ.get("KB_QUESTION_WORKER", "") == "0":
        return False
    return len(os.sched_getaffinity(0)) >= 2 if hasattr(os, "sched_getaffinity") \
        else (os.cpu_count() or 1) >= 2


class QuestionWorker:
    """One worker process and the pipe to it. Used by one search at a time (`begin` takes
    it; a second search at the same moment embeds in process)."""

    def __init__(self, models: Iterable[str]):
        self.models = frozenset(models)
        kbtools_root = str(Path(__file__).resolve().parents[2])
        path = os.pathsep.join(p for p in (kbtools_root, os.environ.get("PYTHONPATH")) if p)
        env = dict(os.environ, PYTHONPATH=path, **_ONE_THREAD)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "kbtools.embed.question_worker", *sorted(self.models)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._out = self._proc.stdin.fileno()
        self._in = self._proc.stdout.fileno()
        self._lock = threading.Lock()
        self._ready = False
        self.failed: str | None = None

    def begin(self, models: list[str], text: str) -> Batch | None:
        """Send `text` to be embedded by each of `models` and return the batch to read the
        vectors from; None (nothing sent) when the worker cannot take it now."""
        if self.failed or not self.models.issuperset(models) or not models:
            return None
        if not self._lock.acquire(blocking=False):
            return None
        try:
            if not self._ready and not self._became_ready():
                self._lock.release()
                return None
            payload = text.encode("utf-8")
            self._write(b"".join(_HEADER.pack(len(m.encode()), len(payload)) + m.encode()
                                 + payload for m in models))
        except (OSError, WorkerError) as exc:
            self._fail(f"could not send a question: {exc}")
            self._lock.release()
            return None
        return Batch(self, models, text)

    def _became_ready(self) -> bool:
        if not select.select([self._in], [], [], 0)[0]:
            if self._proc.poll() is not None:
                raise WorkerError(f"exited with status {self._proc.returncode} while loading")
            return False
        if os.read(self._in, 1) != READY:
            try:
                status = self._proc.wait(START_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise WorkerError("did not start") from None
            raise WorkerError(f"exited with status {status} while loading")
        self._ready = True
        return True

    def answer(self) -> Vectors:
        """The next answer: one vector (shape (dim,), float32). WorkerError if it fails."""
        try:
            (n,) = _ANSWER.unpack(self._read(_ANSWER.size, ANSWER_TIMEOUT))
            if n < 0:
                raise WorkerError(self._read(-n, ANSWER_TIMEOUT).decode("utf-8", "replace"))
            return np.frombuffer(self._read(4 * n, ANSWER_TIMEOUT), dtype=np.float32)
        except OSError as exc:
            raise WorkerError(str(exc)) from exc

    def release(self) -> None:
        self._lock.release()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._out, view):]

    def _read(self, n: int, timeout: float) -> bytes:
        parts: list[bytes] = []
        while n:
            if not select.select([self._in], [], [], timeout)[0]:
                raise WorkerError(f"no answer within {timeout:g} s")
            part = os.read(self._in, n)
            if not part:
                raise WorkerError("the worker exited")
            parts.append(part)
            n -= len(part)
        return b"".join(parts)

    def _fail(self, why: str) -> None:
        """Stop the worker for good after a failure: later searches embed in process."""
        self.failed = why
        print(f"kb: the question worker stopped ({why}); questions are embedded in this "
              "process", file=sys.stderr)
        self.stop()

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                stream.close()


class Batch:
    """The answers one search has asked for, read in the order asked."""

    def __init__(self, worker: QuestionWorker, models: list[str], text: str):
        self.worker, self.text = worker, text
        self._pending = list(models)
        self._vectors: dict[str, Vectors] = {}
        self._done = False

    def vector(self, model: str, text: str) -> Vectors | None:
        """The vector of `text` under `model` if this batch asked for it, reading answers up
        to it; None when it did not, or when the worker failed (then embed in process)."""
        if text != self.text or (model not in self._vectors and model not in self._pending):
            return None
        while model not in self._vectors and not self._done:
            try:
                self._vectors[self._pending.pop(0)] = self.worker.answer()
            except WorkerError as exc:
                self._finish_failed(str(exc))
        return self._vectors.get(model)

    def finish(self) -> None:
        """Read the answers not read yet and give the worker back (a search's last step)."""
        if self._done:
            return
        try:
            while self._pending:
                self._pending.pop(0)
                self.worker.answer()
        except WorkerError as exc:
            self._finish_failed(str(exc))
            return
        self._done = True
        self.worker.release()

    def _finish_failed(self, why: str) -> None:
        self._done = True
        self._pending.clear()
        self.worker._fail(why)
        self.worker.release()


_WORKER: QuestionWorker | None = None
_START = threading.Lock()


def ensure(models: Iterable[str]) -> None:
    """Have a worker for the built-in ones of `models` (a long-lived process calls this when
    it keeps a release warm); a worker that lacks one of them is replaced."""
    global _WORKER
    wanted = {m for m in models if is_builtin(m)}
    if not wanted or not enabled():
        return
    with _START:
        if _WORKER is not None and (_WORKER.failed or not _WORKER.models.issuperset(wanted)):
            wanted |= _WORKER.models if not _WORKER.failed else set()
            old, _WORKER = _WORKER, None
            if not old.failed:
                _stop_when_free(old)
        if _WORKER is None:
            _WORKER = QuestionWorker(wanted)


def _stop_when_free(worker: QuestionWorker) -> None:
    """Stop a replaced worker once no search is using it."""
    with worker._lock:
        worker.stop()


def current() -> QuestionWorker | None:
    """The worker, when one was started (and has not failed)."""
    worker = _WORKER
    return worker if worker is not None and not worker.failed else None


def shutdown() -> None:
    """Stop the worker (at exit, and in tests)."""
    global _WORKER
    with _START:
        if _WORKER is not None:
            _WORKER.stop()
            _WORKER = None


atexit.register(shutdown)


def serve(models: list[str]) -> None:
    """The worker's loop: load `models`, say READY, answer until stdin closes."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    with blas_threads(1):
        try:
            for model in models:
                embed_question(get_embedder(model), WARM_UP)
        except Exception as exc:  # the one line the operator sees; searches embed in process
            print(f"kb: the question worker could not load its models: {exc}", file=sys.stderr)
            sys.exit(1)
        stdout.write(READY)
        stdout.flush()
        while header := stdin.read(_HEADER.size):
            if len(header) < _HEADER.size:
                return
            n_model, n_text = _HEADER.unpack(header)
            model = stdin.read(n_model).decode("utf-8")
            text = stdin.read(n_text).decode("utf-8")
            try:
                vec = np.ascontiguousarray(embed_question(get_embedder(model), text)[0],
                                           dtype=np.float32)
                stdout.write(_ANSWER.pack(len(vec)) + vec.tobytes())
            except Exception as exc:  # reported to the search, which embeds in process
                message = f"{type(exc).__name__}: {exc}".encode()
                stdout.write(_ANSWER.pack(-len(message)) + message)
            stdout.flush()


if __name__ == "__main__":
    serve(sys.argv[1:])
