"""Every text round-trips through data/: JSON Lines shards, docs.jsonl, the dictionary.

A real 705-page corpus crashed `kb build` after 26 minutes of embedding: three pages held
U+2028, `json.dumps(ensure_ascii=False)` wrote it raw, and `str.splitlines()` cut the shard
line there. These tests drive the build's writers and materialize's readers with every
character that any reader may take for a line break (and NUL, BOMs, lone surrogates), and
build, query and sync a real corpus made of them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_release_helpers import git, make_dist, make_knowledge_repo, sample_files

from kbtools.build.embed_stage import seed_cache
from kbtools.build.pipeline import shard_of, write_shards
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import INVISIBLE, IndexLoadError
from kbtools.fsutil import json_line, json_lines, read_json_lines
from kbtools.index.layout import ReleaseLayout
from kbtools.index.manifest import load_manifest, verify_files
from kbtools.index.materialize import read_shards
from kbtools.index.tokenize import dictionary_terms
from kbtools.query.quality import load_questions
from kbtools.review.verification import reviewed_by
from kbtools.ship import device
from kbtools.ship.operate import local_releases
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync

# What str.splitlines, universal newlines or JavaScript take for a line end, and other
# characters a real corpus holds: NUL, a BOM mid-file, lone surrogates, an astral character.
SPECIAL = ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x1f", "\r",
           "\r\n", "\n", "\x00", "\ufeff", "\u3000", "\xa0", "\x7f", "\ud800", "\udfff",
           "\ud83d\ude00", "😀", "\\", '"', "\\u2028"]
BREAKS = {"\x85", "\u2028", "\u2029"}  # the ones JSON itself leaves raw

pieces = st.one_of(st.sampled_from(SPECIAL), st.text(max_size=6),
                   st.characters(categories=["Cs"]))
texts = st.lists(pieces, max_size=10).map("".join)
clean_texts = texts.map(lambda s: "".join(c for c in s if not "\ud800" <= c <= "\udfff"))


def scrub(value: Any) -> Any:
    """What data/ stores for `value`: lone surrogates become U+FFFD (as undecodable bytes in a
    document do); everything else is kept exactly."""
    if isinstance(value, str):
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value)
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    return value


def has_surrogate_or_break(value: Any) -> bool:
    if isinstance(value, str):
        return any(c in BREAKS or "\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, list):
        return any(has_surrogate_or_break(v) for v in value)
    if isinstance(value, dict):
        return any(has_surrogate_or_break(k) or has_surrogate_or_break(v)
                   for k, v in value.items())
    return False


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(clean_texts, inner, max_size=4),
    max_leaves=12)


@settings(deadline=2000, max_examples=200)
@given(json_values)
def test_json_line_is_one_line_and_round_trips(value):
    line = json_line(value)
    assert line.splitlines() == [line] and "\n" not in line  # one line for every reader
    line.encode("utf-8")  # always valid UTF-8
    assert json.loads(line) == scrub(value)
    if not has_surrogate_or_break(value):  # today's bytes: releases stay reproducible
        assert line == json.dumps(value, ensure_ascii=False, sort_keys=True)


chunk_records = st.fixed_dictionaries({
    "doc": st.one_of(texts, st.sampled_from(["a.md", "dir/b.md", "c\u2028d.md"])),
    "id": st.text("0123456789abcdef", min_size=16, max_size=16),
    "kind": st.sampled_from(["section", "table", "row", "code", "formula"]),
    "text": texts,
    "embed_text": texts,
    "heading_path": st.lists(texts, max_size=3),
    "line_start": st.integers(1, 10**6),
    "line_end": st.integers(1, 10**6),
    "links": st.just([]),
    "extra": st.dictionaries(clean_texts, texts, max_size=2),
    "models": st.sampled_from([["use"], ["minilm", "use"], ["minilm"]]),
    "provenance": st.fixed_dictionaries({"last_author": texts, "last_commit": texts}),
})


@settings(deadline=5000, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(chunk_records, min_size=1, max_size=12), st.integers(0, 2**32 - 1))
def test_chunk_records_round_trip_from_the_build_writer_to_materialize(records, seed):
    rng = np.random.default_rng(seed)
    for r in records:
        r["content_hash"] = hashlib.sha256(repr(r["embed_text"]).encode()).hexdigest()
    vectors = {f"{m}:{r['content_hash']}": rng.standard_normal(3).astype(np.float16)
               for r in records for m in r["models"]}
    with tempfile.TemporaryDirectory() as tmp:
        layout = ReleaseLayout(Path(tmp))
        write_shards(layout, records, vectors)
        for shard in layout.chunk_shards():  # any line reader sees one record per line
            text = shard.read_bytes().decode("utf-8")
            assert text.splitlines() == text.split("\n")[:-1]
        chunks, matrices = read_shards(Path(tmp))
    ordered = sorted(records, key=lambda r: shard_of(r["doc"]))  # shard order, stable
    assert chunks == scrub(ordered)
    for model in ("use", "minilm"):
        rows = [vectors[f"{model}:{r['content_hash']}"] for r in ordered if model in r["models"]]
        if rows:
            assert np.array_equal(matrices[model], np.stack(rows).astype(np.float32))
        else:
            assert model not in matrices


@settings(deadline=2000, max_examples=150)
@given(st.lists(st.lists(st.one_of(st.sampled_from(SPECIAL + ["赤霉", "病", " "]),
                                   st.text("赤霉病戊唑 \t", max_size=4)), max_size=6).map("".join),
                max_size=6), st.lists(clean_texts, max_size=3).map("\n".join))
def test_dictionary_terms_are_one_line_each_and_read_back_whole(values, user_dict):
    terms = dictionary_terms(values, user_dict)
    written = "".join(t + "\n" for t in terms).encode("utf-8")  # how the build writes it
    assert written.decode("utf-8").split() == terms  # how materialize and the reader read it


def test_questions_file_with_line_separators_inside_a_query(tmp_path):
    path = tmp_path / "queries.jsonl"
    rows = [{"query": "pump\u2028seal", "gold": ["a.md"]}, {"query": "x\x85y\u2029z", "gold": []}]
    path.write_bytes("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode())
    assert load_questions(path) == rows


def test_json_lines_reader_names_file_and_line_of_a_broken_record(tmp_path):
    path = tmp_path / "00.jsonl"
    path.write_bytes(json_lines([{"a": 1}]) + b'{"a": \n')
    with pytest.raises(IndexLoadError, match=rf"^{re.escape(str(path))}:2: not a JSON record"):
        read_json_lines(path, error=IndexLoadError)


# ---- a real corpus made of these characters: kb build --corpus --lenient, query, sync ----

CORPUS_CHARS = {"ls": "\u2028", "ps": "\u2029", "nel": "\x85", "ff": "\x0c", "vt": "\x0b",
                "fs": "\x1c", "gs": "\x1d", "rs": "\x1e", "us": "\x1f", "nul": "\x00",
                "bom": "\ufeff", "del": "\x7f", "astral": "😀"}


def yaml_quoted(text: str) -> str:
    """A YAML double-quoted scalar with a \\u escape for each character that is not printable
    ASCII (YAML refuses escaped surrogate pairs: astral characters stay raw)."""
    return '"' + "".join(c if c.isascii() and c.isprintable() and c not in '"\\' or ord(c) > 0xFFFF
                         else f"\\u{ord(c):04x}" for c in text) + '"'


def write_corpus(corpus: Path) -> dict[str, tuple[str, str]]:
    """One page per character (in a heading, a sentence, a table cell, the title and a tag);
    returns {marker word: (file name, the character as the chunk text holds it)}."""
    corpus.mkdir()
    expect = {}
    for name, ch in CORPUS_CHARS.items():
        title, tag = yaml_quoted(f"Title {name}{ch}end"), yaml_quoted(f"赤霉{ch}病")
        text = (f"---\ntitle: {title}\ntags: [{tag}]\n---\n# Heading {name}{ch}part\n\n"
                f"The pump{ch}seal marker{name} must be replaced every 2000 hours.{ch}\n\n"
                f"| code | meaning |\n|---|---|\n| E{name} | cell{ch}value |\n")
        (corpus / f"{name}.md").write_bytes(text.encode("utf-8"))
        # an invisible character (a BOM inside text) is no chunk text: the words it stood
        # between are one (`kbtools.errors.INVISIBLE`)
        expect[f"marker{name}"] = (f"{name}.md", "cellvalue" if INVISIBLE.fullmatch(ch) else ch)
    # lone CR and CRLF are line ends: the corpus reader makes them \n
    (corpus / "cr.md").write_bytes(b"---\ntitle: CR\n---\n# Lone CR\r\rThe pump seal markercr\r"
                                   b"goes here.\r\n\r\nAnd markercrlf\r\nafter CRLF.\r\n")
    expect["markercr"] = ("cr.md", "markercr\ngoes")
    expect["markercrlf"] = ("cr.md", "markercrlf\nafter")
    # a BOM at the start (dropped by the reader) and one mid-file (no chunk text either)
    (corpus / "bom2.md").write_bytes("\ufeff---\ntitle: BOMs\n---\n# Two BOMs\n\n"
                                     "Mid\ufefffile markerbom2 text.\n".encode())
    expect["markerbom2"] = ("bom2.md", "Midfile markerbom2")
    # a file name with a line separator (and a table, whose CSV is named after the file)
    (corpus / "name\u2028sep.md").write_bytes(b"---\ntitle: Named\n---\n# Odd name\n\n"
                                              b"The markerfilename page.\n\n## Data\n\n| a | b |\n"
                                              b"|---|---|\n| 1 | 2 |\n")
    expect["markerfilename"] = ("name\u2028sep.md", "markerfilename")
    # a file name that is not UTF-8 (a lone surrogate in Python): skipped, never read
    (corpus / os.fsdecode(b"bad\xff.md")).write_bytes(b"# Bad\n\nThe markerbadname page.\n")
    return expect


def batch_query(index: Path, tmp: Path, markers: list[str]) -> dict[str, dict[str, Any]]:
    questions = tmp / "questions.jsonl"
    questions.write_bytes(json_lines({"id": m, "query": m} for m in markers))
    res = CliRunner().invoke(main, ["query", "--index", str(index), "--batch", str(questions),
                                    "--mode", "bm25", "-k", "3", "--json"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()  # a foreign reader splitting on U+2028 etc. still works
    assert len(lines) == len(markers)
    return {out["id"]: out for out in map(json.loads, lines)}


@pytest.mark.slow
def test_corpus_of_odd_characters_builds_queries_and_syncs(tmp_path, monkeypatch):
    expect = write_corpus(tmp_path / "corpus")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["build", "--corpus", "corpus", "--lenient", "--skip-invalid",
                                    "--out", "dist", "--json", "-q"])
    assert res.exit_code == 0, res.output
    stats = json.loads(res.stdout)
    assert stats["documents"] == len(CORPUS_CHARS) + 3
    assert stats["skipped"] == [{"doc": "bad\ufffd.md", "errors": ["path-not-utf8"]}]
    dist = tmp_path / "dist"
    layout = ReleaseLayout(dist)
    assert (layout.tables / "name_sep-1.csv").is_file()  # a plain file name derived from it
    for line in layout.dictionary.read_text(encoding="utf-8").split("\n")[:-1]:
        assert line.split() == [line]  # no term carries a second line in
    docs = {d["doc"]: d for d in read_json_lines(layout.docs)}
    for name, ch in CORPUS_CHARS.items():
        assert docs[f"{name}.md"]["metadata"]["title"] == f"Title {name}{ch}end"

    def check(index: Path) -> None:
        found = batch_query(index, tmp_path, sorted(expect))
        for marker, (doc, piece) in expect.items():
            results = found[marker]["results"]
            assert results[0]["doc"] == doc, (marker, results[0])
            assert any(piece in r["text"] for r in results), (marker, results)
        for name, ch in CORPUS_CHARS.items():  # the title survives to the citation
            assert found[f"marker{name}"]["results"][0]["title"] == f"Title {name}{ch}end"

    check(dist)
    # a release of it syncs to a device, which re-derives index/ identically and answers
    kr = make_knowledge_repo(tmp_path / "kr")
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    make_release(kr, dist, remote=str(art))
    dev = tmp_path / "device"
    sync(str(art), dev)
    served = device.served_release(dev)
    assert served is not None
    assert verify_files(served, load_manifest(served), derived=True) == []
    check(dev)
    # the vectors of the build seed another machine's cache from the shards
    n_vectors = sum(len(r["models"]) for s in layout.chunk_shards() for r in read_json_lines(s))
    assert seed_cache(load_config(tmp_path), dist) == n_vectors


# ---- git's line-oriented output: a ref name is not a line break ----

def test_a_ref_name_with_a_line_separator_cannot_fake_a_release(tmp_path):
    """A branch named `x<U+2028><sha><U+3000>refs/tags/kb-r99` on the artifacts remote read
    with splitlines() became a second ls-remote line offering a release kb-r99."""
    kr = make_knowledge_repo(tmp_path / "kr")
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    dist = make_dist(tmp_path / "dist", sample_files(1))
    info = make_release(kr, dist, remote=str(art))
    fake = f"refs/heads/x\u2028{info.commit}\u3000refs/tags/kb-r99"
    git(art, "update-ref", fake, info.commit)
    assert "kb-r99" in git(art, "ls-remote", ".")
    res = sync(str(art), tmp_path / "dev")
    assert res.tag == info.tag == "kb-r1"
    assert [r["tag"] for r in local_releases(tmp_path / "dev")] == ["kb-r1"]


def test_reviewed_by_trailers_are_read_on_git_lines_only():
    msg = "Fix the table\n\nSigned-off-by: A <a@x.org>\nNote:\u2028Reviewed-by: Boss <boss@x.org>\n"
    assert reviewed_by(msg) == []
    assert reviewed_by(msg.replace("\u2028", "\n")) == [("Boss", "boss@x.org")]
