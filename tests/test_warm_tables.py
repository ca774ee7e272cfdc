"""A warm search does once per release what depends on the release alone (session 39): the
synonyms keyed as a decision table's inputs are named (`answers.input_synonyms`), each input
column's names (`input_names.column_names`) and the synonym terms compacted (`compacted.compact_term`)
are made once, not again for every question — on the example knowledge they were a third of
a warm search's CPU, and they grew with the synonyms file (1,000 groups: ~12 ms a search).
The answers stay the definitions' own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from kbfixtures import REPO, corn_table, scab_table

from kbtools.decision import column_key
from kbtools.index.reader import open_index
from kbtools.index.synonyms import parse
from kbtools.query import answers, compacted, inputs, quantities, wording
from kbtools.query import input_names as column_naming
from kbtools.query.answers import input_synonyms
from kbtools.query.inputs import column_names, names_of, read_inputs
from kbtools.query.quantities import input_names, whole_names
from kbtools.query.search import search
from kbtools.query.wording import Terms, with_abbreviations

SYNONYMS = {column_key(t): o for t, o in parse(
    (REPO / "knowledge" / "_synonyms.txt").read_text(encoding="utf-8"))[0].mapping().items()}
# groups that name nothing of the tables: a larger synonyms file, the same answers
MORE = {**SYNONYMS, **{column_key(t): o for n in range(600)
                       for t, o in ((f"无关词{n}", [f"unrelated term {n}"]),
                                    (f"unrelated term {n}", [f"无关词{n}"]))}}
SCAB = scab_table(("小麦赤霉病监测与防控操作规程", "3.2 风险等级判定表"))
CORN = corn_table(("玉米南方锈病识别与防治", "3. 风险判定表"))
VOCABULARY = input_names(["温度(℃)", "相对湿度(%)", "连续降雨天数", "日均温(℃)"], SYNONYMS)
QUESTIONS = ["温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？",
             "wheat scab risk at 24 C after 3 rainy days",
             "air temperature 25 C, humidity 90%, 4 days of rain"]


def test_the_synonyms_are_keyed_once_per_opened_index(example_index, monkeypatch):
    index = open_index(example_index)
    keyed = input_synonyms(index)
    assert keyed["连续降雨天数"] == ("阴雨天数", "雨日", "rainy days", "rain days")
    assert input_synonyms(index) is keyed
    calls: list[str] = []
    key = answers.column_key
    monkeypatch.setattr(answers, "column_key", lambda text: calls.append(text) or key(text))
    question = "气温 22 度，湿度 90%，雨日 4，赤霉病风险多高"
    for _ in range(2):
        top = search(index, question, k=2).results[0]
        assert top.evaluation is not None and top.evaluation["outputs"][0]["风险等级"] == "极高"
    assert calls == []  # keyed when the index was first asked, not by these searches
    assert input_synonyms(open_index(example_index)) is not keyed  # another opened index


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every `compact` call the readers of a table's inputs make (each module's own name
    for it), listed."""
    calls: list[str] = []
    real: Callable[..., str] = compacted.compact

    def counted(text: str, *, fold: bool = True) -> str:
        calls.append(text)
        return real(text, fold=fold)
    for module in (compacted, wording, quantities, inputs, column_naming):
        monkeypatch.setattr(module, "compact", counted)
    return calls


@pytest.mark.parametrize("question", QUESTIONS)
def test_reading_a_tables_inputs_again_does_no_work_the_synonyms_file_decides(
        question, monkeypatch):
    calls = _counted(monkeypatch)
    asked: dict[int, Any] = {}
    for synonyms in (SYNONYMS, MORE):
        first = read_inputs(question, SCAB, dict(synonyms), VOCABULARY)
        calls.clear()
        again = read_inputs(question, SCAB, dict(synonyms), VOCABULARY)  # a new dict: as equal
        assert again == first
        asked[len(synonyms)] = list(calls)
    assert asked[len(SYNONYMS)] == asked[len(MORE)]  # the question's own texts only
    assert read_inputs(question, SCAB, SYNONYMS, VOCABULARY) == first


def test_a_columns_names_are_made_once_for_its_header_and_synonyms(monkeypatch):
    made: list[str] = []
    names = column_naming.names_of
    monkeypatch.setattr(column_naming, "names_of", lambda header, synonyms: made.append(header)
                        or names(header, synonyms))
    column_names.cache_clear()
    for _ in range(3):
        read_inputs(QUESTIONS[0], SCAB, dict(SYNONYMS), VOCABULARY)
    assert sorted(made) == sorted(["温度(℃)", "相对湿度(%)", "连续降雨天数"])  # once each


@pytest.mark.parametrize("table", [SCAB, CORN])
def test_column_names_are_names_of_and_whole_names(table):
    synonyms = with_abbreviations(SYNONYMS)
    for header in (table.header[i] for i in table.inputs):
        assert column_names(header, Terms(synonyms)) == (
            tuple(names_of(header, synonyms)), frozenset(whole_names(header, synonyms)))


def test_terms_are_equal_and_hashed_by_what_they_hold():
    a, b = Terms(SYNONYMS), Terms({k: tuple(v) for k, v in reversed(SYNONYMS.items())})
    assert a == b and hash(a) == hash(b) and dict(a) == {k: tuple(v) for k, v in SYNONYMS.items()}
    assert a != Terms(MORE) and a != SYNONYMS  # (a plain dict is no key of the memory)
    assert a.get("no such term", ()) == () and len(a) == len(SYNONYMS)


def test_compact_term_is_compact():
    for term, group in MORE.items():
        for text in (term, *group, "温度 22 度", "4 days of rain", "二十六度"):
            assert compacted.compact_term(text) == compacted.compact(text)


def reference_noun_names(noun: str, key: str, names: list[str],
                         synonyms: dict[str, list[str]]) -> bool:
    """`wording.noun_names` as it was written before its groups were remembered."""
    if noun in names:
        return True
    if wording.other_script(noun, key):
        for term, group in synonyms.items():
            terms = [compacted.compact(t) for t in (term, *group) if t]
            if any(wording.holds(key, t) for t in terms) and \
                    any(wording._names_by_stem(noun, t) for t in terms):
                return True
        return False
    return wording._names_by_stem(noun, key)


@pytest.mark.parametrize("noun", ["rainy", "rain", "days", "雨", "降雨", "humid", "wet", "温"])
@pytest.mark.parametrize("header", ["连续降雨天数", "相对湿度(%)", "温度(℃)", "Rain days",
                                    "Relative humidity (%)"])
def test_noun_names_is_its_definition_with_a_release_s_synonyms(noun, header):
    synonyms = with_abbreviations(MORE)
    key = quantities.key_text(header)
    names = list(names_of(header, synonyms))
    want = reference_noun_names(noun, key, names, synonyms)
    assert wording.noun_names(noun, key, names, Terms(synonyms)) is want
    assert wording.noun_names(noun, key, names, synonyms) is want


def test_a_count_nouns_groups_are_looked_for_once_per_header(monkeypatch):
    looked: list[str] = []
    scan = wording._groups_held
    monkeypatch.setattr(wording, "_groups_held", lambda key, synonyms: looked.append(key)
                        or scan(key, synonyms))
    wording._held_groups.cache_clear()
    release = Terms(MORE)  # as a search passes them (`answers.input_synonyms`)
    first = read_inputs(QUESTIONS[1], SCAB, release, VOCABULARY)  # ``3 rainy days``
    assert first.values.get("连续降雨天数") == "3"
    assert len(looked) == len(set(looked)) >= 1  # each header's groups looked for once
    looked.clear()
    assert read_inputs(QUESTIONS[1], SCAB, release, VOCABULARY) == first
    assert looked == []
