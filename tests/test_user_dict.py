"""The tokenizer's user dictionary (`knowledge/_dict.txt`, kb.toml `bm25.user_dict`): a line
that is not jieba's `word [frequency] [tag]` is a `kb check` finding at FILE:LINE, and the
file is data, not a document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from kbtools.cli import main
from kbtools.index.tokenize import (
    Tokenizer,
    dictionary_terms,
    user_dict_problems,
    user_dict_unused,
)
from tests.kbfixtures import copy_example

jieba = pytest.importorskip("jieba")


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    root = copy_example(tmp_path / "repo", ["knowledge/crops/field-survey-methods.md",
                                            "knowledge/_dict.txt"])
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("line,ok", [
    ("赤霉病", True), ("赤霉病 20", True), ("赤霉病 n", True), ("赤霉病 20 n", True),
    ("赤霉病\t20  n", True), ("赤霉病 20 n  # a comment", True), ("# 赤霉病 x y z", True),
    ("斑马 notanumber n", False), ("斑马 n 5", False), ("液压 油", False),
    ("斑马线 5 n x", False), ("斑马 5 N", False), ("斑马 5.5 n", False),
])
def test_lines_that_are_not_word_frequency_tag(line, ok):
    """`斑马 notanumber n` was taken as the word 斑马 without a word said, while jieba reads
    it as the word '斑马 notanumber': either way the line does not say what was meant."""
    problems = user_dict_problems(f"赤霉病 20 n\n{line}\n")
    assert [number for number, _ in problems] == ([] if ok else [2])
    if not ok:
        assert repr(line.split()[0]) in problems[0][1]  # the word the build takes


@given(st.lists(st.sampled_from(["赤霉病", "液压油", "斑马", "20", "5", "n", "nz", "x", "油",
                                 "N", "5.5"]), min_size=1, max_size=4))
def test_a_line_passes_exactly_when_jieba_and_the_build_read_the_same_word(fields):
    line = " ".join(fields)
    jieba_word = jieba.re_userdict.match(line).group(1)  # as jieba.load_userdict reads it
    assert (user_dict_problems(line) == []) == (jieba_word == dictionary_terms([], line)[0])


def test_kb_check_reports_bad_lines_with_file_and_line(repo):
    (repo / "knowledge" / "_dict.txt").write_text("赤霉病 20 n\n斑马 notanumber n\n穗腐 5 n\n",
                                                  encoding="utf-8")
    res = CliRunner().invoke(main, ["check"])
    assert res.exit_code == 1
    assert ("knowledge/_dict.txt:2:1: error: dict-bad-line: '斑马 notanumber n' is not 'word "
            "[frequency] [tag]': jieba would read the word '斑马 notanumber', the build '斑马'"
            in res.stdout)
    assert "1 document," in res.stderr
    # named alone (pre-commit passes staged files): checked, and not parsed as Markdown
    res = CliRunner().invoke(main, ["check", "knowledge/_dict.txt", "--json"])
    assert res.exit_code == 1, res.output
    assert [(f["line"], f["code"]) for f in json.loads(res.stdout)] == [(2, "dict-bad-line")]
    # a strict build stops on it, naming the line
    res = CliRunner().invoke(main, ["build", "-q"])
    assert res.exit_code == 1 and "_dict.txt:2:1" in res.output
    assert "Traceback" not in res.output


def test_a_dictionary_elsewhere_is_checked_with_the_knowledge(repo):
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '\n[bm25]\nuser_dict = "dict/domain.txt"\n',
                    encoding="utf-8")
    (repo / "dict").mkdir()
    (repo / "dict" / "domain.txt").write_text("石英表 5 n\n液压 油\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["check"])
    assert res.exit_code == 1
    assert "dict/domain.txt:2:1: error: dict-bad-line" in res.stdout
    (repo / "dict" / "domain.txt").write_bytes("石英表 5 n\n".encode() + b"\xff 5\n")
    res = CliRunner().invoke(main, ["check"])
    assert "dict/domain.txt:2:1: error: dict-unreadable" in res.stdout
    assert CliRunner().invoke(main, ["check", "knowledge/crops"]).exit_code == 0


def test_the_bundled_dictionary_is_clean(repo):
    res = CliRunner().invoke(main, ["check", "knowledge/_dict.txt"])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("line,searched", [
    ("PLC模块", "'plc' + '模块'"), ("pH计 5 n", "'ph' + '计'"), ("3号泵", "'3' + '号泵'"),
    ("CAN bus", "'can' (a stop word: dropped, unless written in capitals)"), ("HX-260", "'hx-260'"),
    ("泵", None), ("赤霉病", ""), ("戊唑·咪鲜胺 5", ""), ("乾燥機", ""), ("# PLC模块", ""),
])
def test_words_the_tokenizer_cannot_use_are_named(line, searched):
    """The tokenizer cuts Latin letters and digits from Chinese before jieba sees the text
    (and lower-cases it), so `PLC模块` never stays whole, and a word without Chinese never
    reaches the dictionary: such a line was dropped without a word."""
    found = user_dict_unused(f"赤霉病 20 n\n{line}\n")
    assert [number for number, _ in found] == ([] if searched == "" else [2])
    if searched:
        assert f"searched as {searched}" in found[0][1] and "changes nothing" in found[0][1]
        word = line.split()[0]
        with_it = Tokenizer(words=tuple(dictionary_terms([], line)))
        assert with_it(f"{word}校准") == Tokenizer()(f"{word}校准")  # the line changes nothing
    elif searched is None:
        assert "not 2 to 32 characters" in found[0][1]


def test_kb_check_warns_of_an_unusable_word_with_file_and_line(repo):
    (repo / "knowledge" / "_dict.txt").write_text("赤霉病 20 n\nPLC模块\n穗腐 5 n\n",
                                                  encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--json"])
    assert res.exit_code == 0, res.output  # a warning: the build goes on
    found = [(f["path"], f["line"], f["level"], f["code"]) for f in json.loads(res.stdout)
             if f["path"].endswith("_dict.txt")]
    assert found == [("knowledge/_dict.txt", 2, "warning", "dict-term-unused")]
