"""A filter's mask is made once per opened index: the search page asks what its filters leave
(`emptying_filters`) and then searches with them (`filter_mask`), the API and MCP ask the
same filters question after question. Kept masks are read-only, equal to a fresh one, and
kept within `MASK_CACHE_BYTES` per index."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient

from kbtools.index.reader import open_index
from kbtools.query import filters
from kbtools.query.filters import condition_mask, emptying_filters, filter_mask
from kbtools.serve.app import create_app

Q = "小麦赤霉病怎么防治"
CONDITIONS = [("crop", "=", "小麦"), ("category", "=", "crop-protection"),
              ("verified", "=", "true"), ("kind", "!=", "table_row")]


@pytest.fixture
def made(monkeypatch) -> list[tuple[str, str, str]]:
    """The filters whose masks are made (not taken as kept) while a test runs."""
    seen: list[tuple[str, str, str]] = []
    make = filters._condition_mask

    def recording(index, condition):
        seen.append(condition)
        return make(index, condition)

    monkeypatch.setattr(filters, "_condition_mask", recording)
    return seen


def test_a_search_page_with_filters_makes_each_mask_once(example_index: Path, made):
    with TestClient(create_app(example_index), base_url="http://127.0.0.1") as client:
        asked = [("q", Q), ("f.crop", "小麦"), ("f.category", "crop-protection"),
                 ("verified", "1")]
        page = client.get("/", params=asked)
        assert page.status_code == 200 and "赤霉病" in page.text
        assert sorted(made) == sorted([("crop", "=", "小麦"),
                                       ("category", "=", "crop-protection"),
                                       ("verified", "=", "true")])
        again = client.get("/", params=[*asked, ("lang", "en")])  # not a reload: asked again
        assert again.status_code == 200 and len(made) == 3


def test_filters_that_leave_nothing_are_named_from_masks_made_once(example_index: Path, made):
    with TestClient(create_app(example_index), base_url="http://127.0.0.1") as client:
        page = client.get("/", params=[("q", Q), ("f.crop", "小麦"), ("f.category", "engineering"),
                                       ("lang", "en")])
    assert page.status_code == 200 and "together" in page.text
    assert sorted(made) == [("category", "=", "engineering"), ("crop", "=", "小麦")]


def test_a_kept_mask_is_read_only_and_as_made(example_index: Path):
    index = open_index(example_index)
    for condition in CONDITIONS:
        mask = condition_mask(index, condition)
        assert condition_mask(index, condition) is mask
        assert not mask.flags.writeable
        with pytest.raises(ValueError):
            mask[0] = not mask[0]
        assert np.array_equal(mask, filters._condition_mask(index, condition))
    combined = filter_mask(index, CONDITIONS[:2], verified_only=True)
    assert combined is not None and combined.flags.writeable  # the search's own, to change
    assert np.array_equal(combined, np.logical_and.reduce(
        [filters._condition_mask(index, c) for c in CONDITIONS[:3]]))
    assert np.array_equal(condition_mask(index, CONDITIONS[0]),
                          filters._condition_mask(index, CONDITIONS[0]))  # not changed by it


def test_each_opened_index_keeps_its_own_masks(example_index: Path):
    one, other = open_index(example_index), open_index(example_index)
    assert condition_mask(one, CONDITIONS[0]) is not condition_mask(other, CONDITIONS[0])


def test_masks_are_kept_within_the_budget(example_index: Path, monkeypatch, made):
    index = open_index(example_index)
    chunks = len(index.chunk_table().doc)
    monkeypatch.setattr(filters, "MASK_CACHE_BYTES", 2 * chunks)  # two masks
    for condition in CONDITIONS:
        condition_mask(index, condition)
    assert len(made) == 4
    condition_mask(index, CONDITIONS[3])  # kept: the one asked last
    condition_mask(index, CONDITIONS[2])  # kept
    assert len(made) == 4
    condition_mask(index, CONDITIONS[0])  # made again: the oldest went
    assert made[4:] == [CONDITIONS[0]]
    assert sum(m.nbytes for m in filters._MASKS[index].values()) <= 2 * chunks
    monkeypatch.setattr(filters, "MASK_CACHE_BYTES", 0)  # the one asked last is still kept
    condition_mask(index, CONDITIONS[1])
    assert list(filters._MASKS[index]) == [CONDITIONS[1]]
    assert emptying_filters(index, [CONDITIONS[0]], verified_only=False) == ([], False)
