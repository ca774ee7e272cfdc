"""What the tokenizer said of a text, kept for the self-check (`kbtools.index.token_cache`).

A derivation keeps the tokens it made of the texts the self-check samples; the self-check reads them instead of tokenizing the
checked chunks again, still catches a damaged index, and a damaged entry costs a
tokenization, never a false alarm.
"""

from __future__ import annotations

import json
import shutil
import sqlite3

from kbtools.index.layout import ReleaseLayout, shard_of
from kbtools.index.materialize import materialize
from kbtools.index.selfcheck import check_derived, sampled_shards
from kbtools.index.token_cache import TokenCache
from kbtools.index.tokenize import shared_tokenizer
from tests.test_incremental import _npy, base  # noqa: F401  (a fixture)


def _tokenizer(dist):
    manifest = json.loads((dist / "manifest.json").read_text(encoding="utf-8"))
    words = ReleaseLayout(dist).dictionary.read_text(encoding="utf-8").split()
    return shared_tokenizer(manifest["config"]["values"]["bm25"]["tokenizer"], tuple(words))


def test_the_self_check_reads_what_the_derivation_tokenized(base, tmp_path):  # noqa: F811
    _, dist0 = base
    dist = tmp_path / "dist"
    shutil.copytree(dist0, dist)
    materialize(dist)  # derived here: this test's cache holds the sampled chunks' tokens
    shared_tokenizer.cache_clear()
    assert check_derived(dist) == []
    assert _tokenizer(dist)._seg is None  # no Chinese text was cut again

    _npy(ReleaseLayout(dist).bm25_tokens)  # the stored term ids of half the chunks reordered
    assert check_derived(dist) != []


def test_a_damaged_entry_is_tokenized_again_and_repaired(base, tmp_path):  # noqa: F811
    _, dist0 = base
    dist = tmp_path / "dist"
    shutil.copytree(dist0, dist)
    materialize(dist)
    cache = TokenCache(_tokenizer(dist))
    assert cache.con is not None
    texts = [t for (t,) in sqlite3.connect(ReleaseLayout(dist).store).execute(
        "SELECT embed_text FROM chunks ORDER BY num")]
    right = cache.get_many(texts)
    assert 0 < len(right) < len(set(texts))  # the sampled shards' texts
    with cache.con:
        cache.con.execute("UPDATE tokens SET tokens = '[\"damaged\"]'")
    cache.close()
    assert check_derived(dist) == []
    cache = TokenCache(_tokenizer(dist))
    repaired = cache.get_many(texts)
    cache.close()
    # the checked chunks' entries hold the tokens again, the others are still damaged
    fixed = {t for t in right if repaired[t] == right[t]}
    assert fixed and all(repaired[t] == ["damaged"] for t in set(right) - fixed)


def test_a_full_derivation_keeps_the_tokens_of_the_sampled_shards_only(base, tmp_path):  # noqa: F811
    """At 54k chunks keeping every text's tokens cost a full derivation +1.2 s and 51 MB;
    the check reads the even sample of shards (and the shards a sync changed, which an
    incremental derivation tokenizes and keeps), so only the sample is kept."""
    _, dist0 = base
    dist = tmp_path / "dist"
    shutil.copytree(dist0, dist)
    materialize(dist)
    con = sqlite3.connect(ReleaseLayout(dist).store)
    rows = con.execute("SELECT doc, embed_text FROM chunks").fetchall()
    con.close()
    shards = sorted({shard_of(d) for d, _ in rows})
    sample = sampled_shards(shards)
    assert sample and sample < set(shards)
    cache = TokenCache(_tokenizer(dist))
    kept = cache.get_many(t for _, t in rows)
    cache.close()
    assert set(kept) == {t for d, t in rows if shard_of(d) in sample}
