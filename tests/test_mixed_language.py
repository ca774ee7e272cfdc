"""Questions mixing an English word into Chinese (session 31): a technician types the
English word for what the knowledge writes in Chinese ("玉米 rust 症状" beside a page on
玉米南方锈病). The word is one the knowledge never writes, which weighed as a subject the
knowledge does not cover and made such questions "no answer"; they are judged as questions
read across languages are (`kbtools.query.crosslingual.foreign_words`), while an acronym or
a product's name the knowledge lacks still refuses. Real build of the example, shipped
models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.query.crosslingual import foreign_words


def _ask(index: Path, question: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["query", "--index", str(index), "--no-log", "--json",
                                       "-k", "3", question])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.output)
    return out


@pytest.mark.parametrize("question, doc", [
    ("玉米 rust 症状", "knowledge/crops/corn-southern-rust.md"),
    ("玉米rust症状", "knowledge/crops/corn-southern-rust.md"),
    ("小麦 aphid 怎么防治", "knowledge/crops/wheat-aphids.md"),
    ("E17 报警 怎么 reset", "knowledge/equipment/hx260-ch05-fault-codes.md"),
])
def test_a_chinese_question_with_an_english_word_is_answered(example_index, question, doc):
    out = _ask(example_index, question)
    assert not out["no_answer"], out.get("reason")
    assert out["results"][0]["doc"] == doc


@pytest.mark.parametrize("question", ["玉米 SAML 症状", "注塑机 Elasticsearch 配置",
                                      "液压油 Tesla 型号", "玉米 blockchain 价格"])
def test_a_name_or_subject_the_knowledge_lacks_is_still_no_answer(example_index, question):
    assert _ask(example_index, question)["no_answer"]


def test_which_unknown_words_are_another_languages():
    """Lower-case words of three letters or more in a Chinese question; not a code, a
    setting, an acronym in capitals, a Chinese word, nor any word of an English question."""
    assert foreign_words("玉米 rust 症状", ["rust"], {"rust": "rust"})
    assert foreign_words("E17 报警 怎么 Reset", ["reset"], {"reset": "Reset"})
    assert not foreign_words("玉米 SAML 症状", ["saml"], {"saml": "SAML"})
    assert not foreign_words("E71 复位", ["e71"], {"e71": "e71"})
    assert not foreign_words("怎么设置 max_retries", ["max_retries"], {})
    assert not foreign_words("叉车 rust 症状", ["叉车", "rust"], {})
    assert not foreign_words("corn rust symptoms", ["rust"], {})
    assert not foreign_words("玉米症状", [], {})
