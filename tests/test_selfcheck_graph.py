"""The self-check of a derived index's vector graphs under every `[index]` setting kb.toml
accepts: a graph of integers (`dtype = "i8"`) stores its vectors quantized, and a graph
with few links (`connectivity`, `expansion_*` at their minimums) finds a vector's own chunk
only up to its recall. Neither is damage: a healthy index of those settings passes (a
device that derives it serves it), and a damaged vector is still caught."""

from __future__ import annotations

import numpy as np
import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.layout import ReleaseLayout
from kbtools.index.selfcheck import check_derived
from tests.kbfixtures import copy_example

SETTINGS = {"i8": 'dtype = "i8"',
            "few-links": "connectivity = 2\nexpansion_add = 8\nexpansion_search = 8"}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_a_healthy_graph_of_any_setting_passes_and_damage_is_caught(tmp_path, setting):
    repo = copy_example(tmp_path / "repo")
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        'model = "use"', 'model = "test-hash"\nlanguages = { en = "test-hash" }')
        + f"\n[index]\n{SETTINGS[setting]}\n", encoding="utf-8")
    dist = tmp_path / "dist"
    build(load_config(repo), BuildOptions(out=dist, progress=False, provenance=False))
    assert check_derived(dist) == []

    from usearch.index import Index

    path = ReleaseLayout(dist).usearch("test-hash")
    index = Index.restore(str(path))
    index.remove(np.uint64(2))
    index.add(np.uint64(2), np.ones(index.ndim, dtype=np.float32))
    index.save(str(path))
    assert check_derived(dist) == ["index/vectors-test-hash.usearch: the vector of chunk 2 "
                                   "is not its data/ vector"]
