"""A cold `kb query` (a fresh process) pays for nothing it need not (issue 15 §1): a manifest
checked against its schema once is remembered under KB_HOME by its bytes, so the next
process neither imports jsonschema nor validates it again, and answers the same; a manifest
whose bytes changed since is checked again, and refused when invalid."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kbtools.errors import IndexLoadError
from kbtools.index.manifest import dumps, load_manifest

QUESTIONS = ["How do I reset the E17 fault code?", "回油滤芯多久更换一次？"]


def cold_query(dist: Path, question: str) -> tuple[dict[str, object], set[str]]:
    """`kb query --json` in a new process: its answer (timings dropped) and the top-level
    packages it imported."""
    answer, modules = cold_modules(dist, question)
    return answer, {name.split(".")[0] for name in modules}


def cold_modules(dist: Path, question: str) -> tuple[dict[str, object], set[str]]:
    """`kb query --json` in a new process: its answer (timings dropped) and the modules it
    imported."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "kbtools", "query",
                           question, "--index", str(dist), "--json"],
                          capture_output=True, text=True, env=os.environ.copy(), check=True)
    answer = json.loads(proc.stdout)
    answer.pop("took_ms", None)
    imported = {line.rsplit("|", 1)[1].strip()
                for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return answer, imported


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_second_cold_query_does_not_validate_the_manifest_again(
        example_index: Path, tmp_path: Path, question: str) -> None:
    dist = shutil.copytree(example_index, tmp_path / "dist")
    first, imported_first = cold_query(dist, question)
    assert "jsonschema" in imported_first  # this KB_HOME never saw the manifest
    second, imported_second = cold_query(dist, question)
    assert "jsonschema" not in imported_second
    assert second == first
    assert first["results"]


def test_a_manifest_edited_after_it_was_remembered_is_refused(
        example_index: Path, tmp_path: Path) -> None:
    dist = shutil.copytree(example_index, tmp_path / "dist")
    manifest = load_manifest(dist)  # checked, and remembered
    assert load_manifest(dist) == manifest
    manifest["source"]["commit"] = 7  # the schema wants a string
    (dist / "manifest.json").write_bytes(dumps(manifest))
    with pytest.raises(IndexLoadError, match=r"manifest invalid at source\.commit"):
        load_manifest(dist)
    proc = subprocess.run([sys.executable, "-m", "kbtools", "query", QUESTIONS[0], "--index",
                           str(dist), "--json"], capture_output=True, text=True,
                          env=os.environ.copy())
    assert proc.returncode != 0
    assert "manifest invalid at source.commit" in proc.stderr + proc.stdout


def test_the_manifest_memo_keeps_those_used_last(example_index: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The memo keeps `MEMO_KEEP` manifests: the ones used last, not remembered last. A
    device's release, checked once and read by every question since, stayed checked only
    until `MEMO_KEEP` other manifests (other releases, test builds) had been remembered."""
    from kbtools.index import manifest as manifest_module

    monkeypatch.setattr(manifest_module, "MEMO_KEEP", 3)
    dist = shutil.copytree(example_index, tmp_path / "dist")
    data = (dist / "manifest.json").read_bytes()
    memos = tmp_path / "memos"
    monkeypatch.setenv("KB_HOME", str(memos))

    def age() -> None:  # every memo 10 s older, in the same order: what comes next is newest
        for memo in (memos / "cache" / "manifests").glob("*.valid"):
            st = memo.stat()
            os.utime(memo, ns=(st.st_atime_ns, st.st_mtime_ns - 10**10))

    load_manifest(dist)  # checked and remembered first
    for n in range(6):  # a question on it, then another manifest remembered, six times
        age()
        assert manifest_module._known_valid(data), n  # the question: found, marked used now
        other = json.loads(data)
        other["source"]["commit"] = f"{n:040x}"
        (dist / "manifest.json").write_bytes(dumps(other))
        age()
        load_manifest(dist)
        (dist / "manifest.json").write_bytes(data)
    assert len(list((memos / "cache" / "manifests").glob("*.valid"))) == 3


def test_a_manifest_the_build_wrote_is_remembered(example_index: Path, tmp_path: Path) -> None:
    """`kb build` validated what it wrote: the first question after it validates nothing."""
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config

    repo = example_index.parent
    out = tmp_path / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False))
    _, imported = cold_query(out, QUESTIONS[0])
    assert "jsonschema" not in imported


def test_a_cold_query_imports_neither_bm25s_nor_scipy(example_index: Path) -> None:
    answer, imported = cold_query(example_index, QUESTIONS[0])
    assert answer["results"]
    assert not imported & {"bm25s", "scipy"}


def test_our_bm25_scores_are_bm25s_own(example_index: Path) -> None:
    """Scored from the matrix without bm25s: the same floats bm25s's lucene method sums, for
    every term alone and for many together (repeats counted twice, as bm25s counts them)."""
    import bm25s
    import numpy as np

    from kbtools.index.bm25 import Bm25
    from kbtools.index.layout import ReleaseLayout

    path = ReleaseLayout(example_index).bm25
    ours = Bm25(path, tok=None)  # type: ignore[arg-type]  # no question tokenized
    theirs = bm25s.BM25.load(str(path), mmap=True, load_vocab=False, show_progress=False)
    ids = [i for i in sorted(ours.vocab.values()) if i < len(theirs.scores["indptr"]) - 1]
    assert len(ids) > 1000
    rng = np.random.default_rng(41)
    sets = [[i] for i in ids] + [rng.choice(ids, size=int(n)).tolist()
                                 for n in rng.integers(2, 12, 200)]
    for terms in sets:
        got = ours.scores(terms)
        assert got is not None
        want = theirs.get_scores_from_ids(terms)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), terms
    beyond = len(theirs.scores["indptr"]) - 1  # a term without postings: both refuse it
    for scorer in (ours.scores, theirs.get_scores_from_ids):
        with pytest.raises(ValueError):
            scorer([beyond])


TABLE_CODE = {"kbtools.query.answers", "kbtools.query.inputs", "kbtools.decision.conditions",
              "kbtools.decision.column_units",
              "kbtools.decision.matching", "kbtools.decision.model"}


@pytest.mark.parametrize("question", ["How do I reset the E17 fault code?", "E17 报警后怎么复位？",
                                      "喷雾机如何校准？"])
def test_a_question_no_decision_table_answers_imports_no_table_code(
        example_index: Path, question: str) -> None:
    """None of these questions' best candidates is a decision table's chunk (the example
    knowledge has three such tables): the table-answering code stays unimported."""
    answer, imported = cold_modules(example_index, question)
    assert answer["results"]
    assert not [r for r in answer["results"] if r.get("evaluation")]  # type: ignore[attr-defined]
    assert not TABLE_CODE & imported, sorted(TABLE_CODE & imported)
    assert "kbtools.decision.units" in imported  # a question's values still read its units


@pytest.mark.parametrize("question", ["小麦抽穗期，温度22度，湿度90%，连续降雨3天，赤霉病风险多大？",
                                      "wheat scab risk at 22 C and 90% humidity for 3 rainy days"])
def test_a_question_giving_a_tables_inputs_is_still_evaluated(example_index: Path,
                                                               question: str) -> None:
    answer, imported = cold_modules(example_index, question)
    first = answer["results"][0]  # type: ignore[index]
    assert first["evaluation"]["doc"] == "knowledge/crops/wheat-scab.md"
    assert first["evaluation"]["status"] == "match", first["evaluation"]
    assert TABLE_CODE <= imported


SEGMENTERS = """
import json, rjieba
from kbtools.index.tokenize import Tokenizer
first = Tokenizer(words=("油滤芯多",))
cut_first = first("回油滤芯多久更换一次")
second = Tokenizer(words=("换一次性",))
cut_second = second("回油滤芯多久更换一次")
print(json.dumps({"first_is_rjiebas_own": first._seg is rjieba._DEFAULT_JIEBA,
                  "second_is_its_own": second._seg not in (first._seg, rjieba._DEFAULT_JIEBA),
                  "second_holds_firsts_word": second._seg.has_word("油滤芯多"),
                  "cuts": [cut_first, cut_second]}, ensure_ascii=False))
"""


def test_a_process_builds_jiebas_dictionary_once() -> None:
    """rjieba's import builds a segmenter with jieba's dictionary (a cold Chinese question's
    largest single cost); the first Tokenizer cuts with that one instead of building the
    same dictionary a second time. A second dictionary of terms in the process still gets a
    segmenter of its own, holding only its terms, and both cut as they would alone."""
    proc = subprocess.run([sys.executable, "-c", SEGMENTERS], capture_output=True, text=True,
                          env=os.environ.copy(), check=True)
    got = json.loads(proc.stdout)
    assert got["first_is_rjiebas_own"]
    assert got["second_is_its_own"]
    assert not got["second_holds_firsts_word"]
    from kbtools.index.tokenize import Tokenizer

    alone = [Tokenizer(words=(w,))("回油滤芯多久更换一次") for w in ("油滤芯多", "换一次性")]
    assert got["cuts"] == alone
    assert "油滤芯多" in alone[0] and "油滤芯多" not in alone[1]


def test_the_chunk_table_reads_the_chunks_once(example_index: Path) -> None:
    """Every question's index open builds the per-chunk arrays. A chunk's row holds its
    texts, so each scan of the chunks reads the whole store (0.1 s at tidb's 54k chunks):
    `verified` comes in the same scan as the other columns, not a second."""
    from kbtools.index.layout import ReleaseLayout
    from kbtools.index.reader import KbIndex, load_release_info

    layout = ReleaseLayout(example_index)
    manifest = load_manifest(example_index)
    index = KbIndex(layout, manifest, load_release_info(layout, manifest))
    try:
        statements: list[str] = []
        index.store.con.set_trace_callback(statements.append)
        table = index.chunk_table()
        index.store.con.set_trace_callback(None)
        scans = [s for s in statements if "FROM chunks" in s and "ORDER BY num" in s]
        assert len(scans) == 1, scans
        stored = index.store.con.execute(
            "SELECT doc, kind, models, verified, num - shares FROM chunks ORDER BY num").fetchall()
    finally:
        index.close()
    docs = [d["doc"] for d in index.docs()]
    assert [docs[i] for i in table.doc] == [r[0] for r in stored]
    assert table.kind.tolist() == [r[1] for r in stored]
    assert table.models.tolist() == [r[2] for r in stored]
    assert table.verified.tolist() == [bool(r[3]) for r in stored]
    assert any(table.verified) and not all(table.verified)
    assert table.parent.tolist() == [-1 if r[4] is None else r[4] for r in stored]


HEAVY = {"torch", "sentence_transformers", "transformers", "jsonschema", "bm25s", "scipy"}


@pytest.mark.parametrize("question", [*QUESTIONS, "Why use SQLite on devices?"])
def test_a_cold_question_imports_no_heavy_library(example_index: Path, tmp_path: Path,
                                                  question: str) -> None:
    """A cold question (its manifest seen before) imports no torch, transformers or
    sentence-transformers (a question MiniLM embeds, as the last may be, runs it in numpy
    over safetensors), and builds jieba's dictionary only for Chinese text."""
    dist = shutil.copytree(example_index, tmp_path / "dist")
    cold_query(dist, question)  # the manifest checked and remembered
    answer, imported = cold_query(dist, question)
    assert answer["results"]
    assert not imported & HEAVY, sorted(imported & HEAVY)
    assert ("rjieba" in imported) == any("\u4e00" <= ch <= "\u9fff" for ch in question)
