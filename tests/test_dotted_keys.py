"""A configuration key named with its sections (``raftstore.store-pool-size``) finds where
the documentation defines it: as headings (the section, the key under it), which never
write the dotted key whole. Real builds, the shipped models."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtools.index.reader import open_index
from kbtools.query.identifiers import identifiers, match_level, text_names
from kbtools.query.search import search
from tests.hostile import built_repo_index
from tests.kbfixtures import GOOD_FM


def _keys(section: str, names: list[str]) -> str:
    return "".join(f"### `{n}`\n\n+ The {n.replace('-', ' ')} setting of {section}.\n"
                   f"+ Default value: {i + 2}\n\n" for i, n in enumerate(names))


CONFIG = GOOD_FM.replace("title: Generated", "title: Server configuration file") + f"""
# Server configuration file

## raftstore

{_keys("raftstore", ["store-pool-size", "apply-pool-size", "capacity"])}
## storage.block-cache

{_keys("the block cache", ["capacity", "num-shard-bits"])}
## tikv-client

{_keys("the client", ["grpc-connection-count", "grpc-keepalive-time"])}
"""

CHANGES = GOOD_FM.replace("title: Generated", "title: Release notes 7.3") + """
# Release notes 7.3

## Changed settings

| Setting | Change |
| --- | --- |
| raftstore.store-pool-size | The default value changes from 2 to 4 |
| storage.block-cache.capacity | The default value changes to 45% of memory |
"""


def test_a_dotted_key_is_an_identifier_named_by_its_heading_path():
    assert identifiers("raftstore.store-pool-size 怎么设置") == ["raftstore.store-pool-size"]
    assert identifiers("what is server.port") == ["server.port"]
    assert identifiers("e.g. version 4.3 or node.j") == []  # one letter a side: no key
    path = ("Config", "storage.block-cache")
    assert text_names("storage.block-cache.capacity", "", "capacity", path)
    assert text_names("block-cache.capacity", "", "capacity", path)
    assert text_names("log.file.max-days", "", "max-days 从 v5.4.0 版本开始引入",
                      ("Config", "log.file 从 v5.4.0 版本开始引入"))
    assert text_names("raftstore.capacity", "", "`capacity`", ("Config", "[raftstore]"))
    assert not text_names("raftstore.capacity", "", "capacity", ("Config", "storage"))
    assert not text_names("raftstore.capacity", "", "capacity", ("raftstore 配置说明",))
    # a short first subsection chunked with its section
    assert text_names("performance.max-procs", "## performance\n\n### `max-procs`\n\n+ CPUs",
                      "performance", ("Config",))
    # defined by the heading path: above a row naming the key
    assert match_level(["raftstore.capacity"], "+ 0", "capacity", ("C", "raftstore")) == 5
    assert match_level(["raftstore.capacity"], "Setting: raftstore.capacity") == 3


@pytest.fixture(scope="module")
def config_index(tmp_path_factory) -> Path:
    return built_repo_index(tmp_path_factory.mktemp("dotted") / "repo", {
        "knowledge/config.md": CONFIG, "knowledge/changes.md": CHANGES})


@pytest.mark.parametrize("question, key", [
    ("raftstore.store-pool-size 怎么设置", ("raftstore", "store-pool-size")),
    ("what is the default of storage.block-cache.capacity", ("storage.block-cache", "capacity")),
    ("raftstore.capacity 默认值是多少", ("raftstore", "capacity")),
    # never written whole: no BM25 term, yet no unknown setting
    ("tikv-client.grpc-connection-count 是什么", ("tikv-client", "grpc-connection-count")),
])
def test_a_dotted_key_finds_its_definition_first(config_index, question, key):
    res = search(open_index(config_index), question, k=3)
    assert not res.no_answer and res.results, question
    top = res.results[0]  # the key's section, or the file's chunk its short sections share
    assert top.heading_path[0] == "Server configuration file", [r.heading_path for r in res.results]
    assert f"## {key[0]}" in top.text and f"### `{key[1]}`" in top.text


def test_a_dotted_key_the_knowledge_does_not_define_stays_unknown(config_index):
    for q in ("tikv-client.grpc-foo-limit 是什么", "postgres.shared-buffers 默认值是多少"):
        assert search(open_index(config_index), q, k=3).no_answer, q


def test_a_search_reads_its_hits_identifier_texts_once(config_index, monkeypatch):
    """A dotted key never written whole: the ranked hits' texts, read for the identifier
    levels, are not read again to find the best hit naming it (`keys.named_keys`)."""
    index = open_index(config_index)
    calls: list[list[int]] = []
    texts = type(index.store).identifier_texts
    monkeypatch.setattr(type(index.store), "identifier_texts",
                        lambda store, nums: calls.append(list(nums)) or texts(store, nums))
    res = search(index, "tikv-client.grpc-connection-count 是什么", k=3)
    assert not res.no_answer and not res.filters.unknown_terms
    hits = max(calls, key=len)
    assert all(not set(c) & set(hits) for c in calls[calls.index(hits) + 1:]), calls
