"""What a Milvus server bounds that milvus-lite does not: a JSON field's value is at most
65,536 bytes (``common.JSONMaxLength``). A chunk the chunker keeps whole (a long code block)
must still be published, and read back whole."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.milvus import connect_url
from tests.hostile import make_repo
from tests.milvus_server import milvus, published_repo  # noqa: F401 - fixture

JSON_MAX = 65_536  # a Milvus server's default common.JSONMaxLength
FM = ('---\ntitle: {t}\ncategory: engineering\nproject: demo\nsource: test\n'
      'author: a@example.org\ntimestamp: "2026-03-14T09:30:00+08:00"\nverified: false\n'
      '{extra}---\n\n# {t}\n\n{body}\n')
# one code block of ~130 KB: the chunker never splits a fence, so it is one chunk
DUMP = "```\n" + "\n".join(f"压力 line {i} " + "x" * 60 for i in range(2000)) + "\n```\n"
DOCS = {
    "knowledge/dump.md": FM.format(t="Pump config dump", extra="",
                                   body="The pump controller's configuration dump:\n\n" + DUMP),
    "knowledge/wheat.md": FM.format(t="小麦病害", extra="作物: 小麦\n地区: [华北, 东北]\n",
                                    body="小麦赤霉病在抽穗期喷药。"),
    "knowledge/rice.md": FM.format(t="水稻病害", extra="作物: 水稻\n地区: 华南\n",
                                   body="水稻稻瘟病在抽穗期喷药。"),
}


def _json_bytes(value: object) -> int:
    """A JSON field value's size as pymilvus sends it (compact UTF-8)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


@pytest.fixture(scope="module")
def pair(tmp_path_factory, milvus):  # noqa: F811
    return published_repo(milvus, tmp_path_factory.mktemp("sizes") / "kr", "sizes", DOCS,
                          ("作物", "地区"))


def _results(args: list[str]) -> list[dict[str, object]]:
    res = CliRunner().invoke(main, ["query", "--json", "-k", "5", *args])
    assert res.exit_code == 0, res.output
    return list(json.loads(res.output)["results"])


def test_a_chunk_larger_than_a_json_field_is_published_and_read_whole(pair):
    """A ~145 KB chunk row went into the ``row`` JSON field as it was: milvus-lite took it,
    a Milvus server refuses the insert ("the length of json field exceeds max length") and
    the publish failed there. Now every stored row is within the bound, and the chunk is
    read back from the release's ``__meta`` whole: the engine cites the same text."""
    dist, url = pair
    eng = connect_url(url)
    try:
        name = eng.alias_target()
        rows = eng.client.query(name, filter="num >= 0", output_fields=["num", "row"],
                                consistency_level="Strong")
    finally:
        eng.close()
    assert rows and max(_json_bytes(r["row"]) for r in rows) <= JSON_MAX
    question = ["压力 line 1500 xxxxxxxx"]
    local = _results([*question, "--index", str(dist)])
    remote = _results([*question, "--engine", url])
    assert local[0]["doc"] == "knowledge/dump.md"
    assert len(str(local[0]["text"]).encode("utf-8")) > JSON_MAX
    assert [(r["doc"], r["line_start"], r["text"]) for r in remote] == \
        [(r["doc"], r["line_start"], r["text"]) for r in local]


@pytest.mark.parametrize("where", ["作物=小麦", "地区=华北", "作物!=小麦", "地区=华南",
                                   "作物=小麥", "地区=華北", "作物>=小", "地区<=华南"])
def test_chinese_field_names_filter_alike_in_the_engine(pair, where):
    """(guard) front-matter keys and values written in Chinese (Traditional too) filter in
    Milvus as in the local index."""
    dist, url = pair
    question = ["抽穗期喷药", "--where", where]
    local = sorted(str(r["doc"]) for r in _results([*question, "--index", str(dist)]))
    assert sorted(str(r["doc"]) for r in _results([*question, "--engine", url])) == local


def test_front_matter_too_large_for_a_filter_field_is_one_line_before_anything_is_written(
        milvus, tmp_path):  # noqa: F811
    """Every chunk carries its document's filter fields whole (a filter reads them in the
    engine): a document tagged with thousands of tags makes them more than a Milvus server
    takes, which refused the rows mid-publish (milvus-lite took them). The publish now
    names the document and the key, before anything is written."""
    tags = "".join(f"\n  - 标签{i:05d}-field-note" for i in range(4000))
    repo = make_repo(tmp_path / "kr", docs={"knowledge/tagged.md": FM.format(
        t="Tagged", extra=f"tags:{tags}\n", body="A note with very many tags.")})
    build(load_config(repo), BuildOptions(progress=False))
    url = milvus.url("oversize")
    res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(repo / "dist")])
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "knowledge/tagged.md: its front matter" in lines[0], lines
    assert "filter field f_eq" in lines[0] and "tags" in lines[0] and "nothing was written" \
        in lines[0]
    eng = connect_url(url)
    try:
        assert eng.client.list_collections() == []
    finally:
        eng.close()
