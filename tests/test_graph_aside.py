"""A derivation's vector graphs built in a process of their own (`index.vectors.build_aside`)
while BM25 and the store are built here: the same bytes as built in this process, and the
small ones built here without starting a process."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kbtools.index import vectors

PARAMS = {"metric": "cos", "dtype": "f16", "connectivity": 8, "expansion_add": 32,
          "expansion_search": 32}


def graphs(tmp: Path, tag: str, n: int) -> list[vectors.Graph]:
    rng = np.random.default_rng(3)
    return [(tmp / f"{tag}-{m}.usearch", np.arange(size, dtype=np.uint64),
             rng.standard_normal((size, 16)).astype(np.float16), PARAMS)
            for m, size in (("a", n), ("b", 40))]


def test_big_graphs_are_built_aside_with_the_same_bytes(tmp_path):
    n = vectors.ASIDE_MIN + 100
    aside = vectors.build_aside(graphs(tmp_path, "aside", n))
    assert aside.future is not None  # in a process of its own
    aside.result()
    for path, keys, matrix, params in graphs(tmp_path, "here", n):
        vectors.build(path, keys, matrix, params)
    for m in ("a", "b"):
        assert (tmp_path / f"aside-{m}.usearch").read_bytes() == \
            (tmp_path / f"here-{m}.usearch").read_bytes()


def test_small_graphs_are_built_here(tmp_path):
    pending = vectors.build_aside(graphs(tmp_path, "small", 100))
    assert pending.future is None and not (tmp_path / "small-a.usearch").exists()
    pending.result()
    assert (tmp_path / "small-a.usearch").stat().st_size > 0
