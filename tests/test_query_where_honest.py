"""`kb query --where` says what a filter did (session 31): a value no document has is named
with the values it may be a typo of ("did you mean crop=玉米") or a synonym of (session 33:
"did you mean disease=赤霉病" for disease=wheat scab), an unknown key with the keys it may
be, and a search the filters leave without a relevant passage is not "no answer in the
knowledge" when the knowledge answers it without them. Real build of the example
knowledge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kbtools.cli import main


def _run(index: Path, *args: str) -> Any:
    return CliRunner().invoke(main, ["query", "--index", str(index), "--no-log", "-k", "2",
                                     *args])


@pytest.mark.parametrize("where, question, meant", [
    ("crop=玉木", "锈病 症状", "crop=玉米"),
    ("equipment=HX260 注塑机", "E17 复位", "equipment=HX-260 注塑机"),
    ("category=crop protection", "赤霉病", "category=crop-protection"),
    ("lang=EN ", "token rotation", None),  # case and spaces aside it is a value: it matches
    # a synonym of a value documents give (knowledge/_synonyms.txt): the other language's
    # name, a field name, written in any case (session 33)
    ("disease=wheat scab", "防治", "disease=赤霉病"),
    ("disease=Fusarium Head Blight", "防治", "disease=赤霉病"),
    ("disease=烂麦头", "防治", "disease=赤霉病"),
    ("disease=爛麥頭", "防治", "disease=赤霉病"),
    ("pest=fall armyworm", "防治", "pest=草地贪夜蛾"),
    ("equipment=spray drone", "作业参数", "equipment=植保无人机"),
])
def test_a_value_no_document_has_is_named_with_what_was_meant(example_index, where,
                                                               question, meant):
    result = _run(example_index, "--where", where, question)
    assert result.exit_code == 0, result.output
    if meant is None:
        assert "did you mean" not in result.output and "1. " in result.output
        return
    assert not result.output.startswith("No answer in the knowledge")
    assert f"did you mean {meant}" in result.output
    out = json.loads(_run(example_index, "--json", "--where", where, question).output)
    assert out["no_answer"] and out["reason"] == "no chunk matches the filters"
    assert meant in out["reason_values"]["did_you_mean"]


def test_a_value_like_none_is_named_without_a_guess(example_index):
    result = _run(example_index, "--where", "crop=香蕉", "锈病")
    assert result.exit_code == 0
    assert "no document has crop=香蕉" in result.output
    assert "did you mean" not in result.output


@pytest.mark.parametrize("key, meant", [("crops", "crop"), ("fault_code", "fault_codes"),
                                        ("Tags", "tags")])
def test_an_unknown_key_is_refused_naming_the_key_meant(example_index, key, meant):
    result = _run(example_index, "--where", f"{key}=x", "E17")
    assert result.exit_code == 2
    assert f"did you mean {meant}?" in result.output


@pytest.mark.parametrize("where, question", [
    ("crop=小麦", "E17 复位"),
    ("lang=en", "玉米南方锈病 症状"),
    ("category=engineering", "HX-260 fault code E17 reset"),
])
def test_filters_that_keep_no_relevant_passage_say_so(example_index, where, question):
    """The knowledge answers the question outside the filters: the filters, not the
    knowledge, left it without an answer, and the output says that."""
    result = _run(example_index, "--where", where, question)
    assert result.exit_code == 0
    assert not result.output.startswith("No answer in the knowledge"), result.output
    assert f"No answer among the documents with {where}" in result.output
    assert "without the filters the knowledge answers it" in result.output
    out = json.loads(_run(example_index, "--json", "--where", where, question).output)
    assert out["no_answer"] and out["results"] == []
    assert out["reason"] == "nothing relevant among the documents the filters keep"


def test_a_question_the_knowledge_cannot_answer_is_still_no_answer(example_index):
    result = _run(example_index, "--where", "crop=小麦", "E71 复位")
    assert result.output.startswith("No answer in the knowledge")
