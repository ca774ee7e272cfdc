"""A question with no word to search (session 31): one Latin letter or digit, a few of them
apart, or marks alone (``E``, ``x``, ``5``, ``？！。``, ``/ - /``) matched any chunk that
happens to hold the letter as a token (``E`` answered with the token-rotation page, through
its "e-mail"). It is refused in one line, as an empty question is; a word of one Chinese
character, a code, a number of two digits or a stop word is searched as before. Real build
of the example knowledge."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.query.question import has_words

REFUSAL = "the question has no word to search"


def _ask(index, question):
    return CliRunner().invoke(main, ["query", "--index", str(index), "--no-log", "-k", "2",
                                     *question])


@pytest.mark.parametrize("question", ["E", "x", "T", "5", "？！。", "/ - /", "E ?", "a b",
                                      "Ｅ"])
def test_a_letter_or_marks_alone_is_refused_in_one_line(example_index, question):
    result = _ask(example_index, [question])
    assert result.exit_code == 0
    assert result.output.count("\n") == 1 and REFUSAL in result.output, result.output
    out = json.loads(_ask(example_index, ["--json", question]).output)
    assert out["no_answer"] and out["results"] == [] and out["reason"] == REFUSAL


@pytest.mark.parametrize("question", ["E17", "锈", "HX-260", "rust", "17"])
def test_a_word_a_code_or_a_character_is_searched(example_index, question):
    out = json.loads(_ask(example_index, ["--json", question]).output)
    assert out.get("reason") != REFUSAL


def test_has_words():
    assert not has_words("E") and not has_words("？") and not has_words("x y 5")
    assert has_words("锈") and has_words("E17") and has_words("ok") and has_words("E 17")
