"""Synonyms and aliases: the file format and its findings, `kb check` and `kb build` on it,
the release shipping it, and questions that name things only by a synonym or an alias
(Chinese agricultural and equipment terms, English) finding their documents — and not
finding them without the file."""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.engine.remote import EngineReader
from kbtools.index.layout import ReleaseLayout
from kbtools.index.reader import open_index
from kbtools.index.synonyms import Synonyms, normalize, parse
from kbtools.query.answers import input_synonyms
from kbtools.query.search import search
from tests.kbfixtures import REPO, copy_example
from tests.milvus_server import milvus  # noqa: F401 - fixture

DOCS = ["knowledge/crops/wheat-scab.md", "knowledge/crops/wheat-aphids.md",
        "knowledge/crops/fall-armyworm.md", "knowledge/crops/corn-southern-rust.md",
        "knowledge/crops/sprayer-calibration.md", "knowledge/crops/rice-blast.md",
        "knowledge/equipment/hx260-ch03-operation.md",
        "knowledge/equipment/hx260-ch05-fault-codes.md",
        "knowledge/field_reports/2026-03-machine3-e17.md",
        "knowledge/_dict.txt", "knowledge/_synonyms.txt"]
# question → the document that answers it; each names its subject only by a synonym
SYNONYM_QUESTIONS = {
    "烂麦头怎么防治？": "knowledge/crops/wheat-scab.md",
    "秋粘虫用什么药": "knowledge/crops/fall-armyworm.md",
    "秋黏虫怎么防治": "knowledge/crops/fall-armyworm.md",
    "fall armyworm 怎么防治": "knowledge/crops/fall-armyworm.md",
    "啤机炮筒温度怎么点检": "knowledge/equipment/hx260-ch03-operation.md",
}


# the format ------------------------------------------------------------------------------
def test_groups_and_every_kind_of_bad_line():
    text = ("# 注释\n赤霉病 = 烂麦头 = 麦穗枯  # 俗名\nHydraulic  Oil = hydraulic fluid\n\n"
            "单独一个词\n温度 = \n烂麦头 = 麦头枯\n滤芯 = 滤芯\n" + "长" * 65 + " = 短\n")
    syn, problems = parse(text)
    assert syn.groups == (("赤霉病", "烂麦头", "麦穗枯"), ("Hydraulic Oil", "hydraulic fluid"))
    assert [(line, code) for line, code, _ in problems] == [
        (5, "synonyms-not-a-group"), (6, "synonyms-empty-term"), (7, "synonyms-duplicate"),
        (8, "synonyms-repeated"), (8, "synonyms-not-a-group"), (9, "synonyms-term-too-long")]
    assert "line 2" in problems[2][2]  # names the group the term is already in
    # matching: NFKC + casefold, Latin terms as whole words, longest first
    assert syn.found_in("ＨＹＤＲＡＵＬＩＣ oil 和 烂麦头") == ["Hydraulic Oil", "烂麦头"]
    assert syn.found_in("hydraulic oily") == [] and syn.others("麦穗枯") == ["赤霉病", "烂麦头"]
    assert normalize(" Hydraulic\tOIL ") == "hydraulic oil"
    assert parse("\ufeff温度 = 气温\r\n")[0].groups == (("温度", "气温"),)


def regex_found_in(syn: Synonyms, text: str) -> list[str]:
    """found_in as one alternation of every term, longest first (the reference)."""
    def pattern(term: str) -> str:
        body = re.escape(term).replace(r"\ ", r"\s+")
        head = r"(?<![0-9a-z_])" if term[:1].isascii() and term[:1].isalnum() else ""
        tail = r"(?![0-9a-z_])" if term[-1:].isascii() and term[-1:].isalnum() else ""
        return head + body + tail
    written = {normalize(t): t for g in reversed(syn.groups) for t in reversed(g)}
    alts = "|".join(pattern(t) for t in sorted(written, key=len, reverse=True))
    out = dict.fromkeys(written[m.group(0)] for m in re.finditer(alts, normalize(text)))
    return list(out)


def test_found_in_equals_the_alternation_of_every_term():
    rnd = random.Random(7)
    pieces = ["油", "液压", "液压油", "oil", "boil", "hydraulic", "a", "_", "1", "x2", "锈病",
              "南方锈病", "Ｏｉｌ", "Oil Filter", "-", "c++", "ä", "β"]
    for _ in range(300):
        terms = list(dict.fromkeys(
            "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 3))) for _ in range(8)))
        lines = [" = ".join(terms[k:k + 2]) for k in range(0, len(terms) - 1, 2)]
        syn = parse("\n".join(lines))[0]
        for _ in range(10):
            text = rnd.choice(["", " "]).join(rnd.choice(pieces + [" ", "的"])
                                              for _ in range(rnd.randint(0, 12)))
            assert syn.found_in(text) == regex_found_in(syn, text), (lines, text)


def test_many_groups_compile_no_pattern(monkeypatch):
    # 4,000 groups made a 16,000-way alternation every process reading the release compiled
    # (seconds, growing faster than the file): the groups are looked up by length instead
    text = "".join(f"术语{i} = 别名{i}甲 = alias{i}x\n" for i in range(4000))
    syn, problems = parse(text)
    assert not problems

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("re.compile")

    monkeypatch.setattr(re, "compile", refuse)
    monkeypatch.setattr(re, "finditer", refuse)
    syn = Synonyms(syn.groups)
    assert syn.found_in("别名3999甲和 ALIAS12X 与 alias12xy") == ["别名3999甲", "alias12x"]


# kb check / kb build ----------------------------------------------------------------------
@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    root = copy_example(tmp_path / "repo", ["knowledge/crops/field-survey-methods.md"])
    monkeypatch.chdir(root)
    return root


def test_kb_check_reports_bad_lines_with_file_and_line(repo):
    (repo / "knowledge" / "_synonyms.txt").write_text(
        "赤霉病 = 烂麦头\n草地贪夜蛾\n秋粘虫 = 烂麦头\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["check"])
    assert res.exit_code == 1
    assert "knowledge/_synonyms.txt:2:1: error: synonyms-not-a-group" in res.output
    assert "knowledge/_synonyms.txt:3:1: error: synonyms-duplicate: term '烂麦头' is already " \
           "in the group on line 1" in res.output
    assert "1 document," in res.output  # the synonyms file is no knowledge document
    # named alone (pre-commit passes staged files): checked, and not parsed as Markdown
    res = CliRunner().invoke(main, ["check", "knowledge/_synonyms.txt", "--json"])
    assert res.exit_code == 1, res.output
    codes = [f["code"] for f in json.loads(res.stdout)]
    assert codes == ["synonyms-not-a-group", "synonyms-duplicate"]
    # a strict build stops on them, naming the line
    res = CliRunner().invoke(main, ["build"])
    assert res.exit_code == 1 and "_synonyms.txt:2:1" in res.output and "Traceback" not in res.output


def test_not_utf8_is_one_finding(repo):
    (repo / "knowledge" / "_synonyms.txt").write_bytes("温度 = 气温\n".encode() + b"\xff = x\n")
    res = CliRunner().invoke(main, ["check"])
    assert res.exit_code == 1
    assert "knowledge/_synonyms.txt:2:1: error: synonyms-unreadable" in res.output


def test_release_ships_groups_and_dictionary_holds_their_terms(repo):
    (repo / "knowledge" / "_synonyms.txt").write_text(
        "# 俗名\n赤霉病 = 烂麦头 = fusarium head blight\n", encoding="utf-8")
    cfg = load_config(repo)
    cfg.data["embedding"] = {**cfg.data["embedding"], "model": "test-hash",
                             "languages": {"en": "test-hash"}}
    build(cfg, BuildOptions(out=repo / "dist", progress=False, lenient=True))
    layout = ReleaseLayout(repo / "dist")
    assert layout.synonyms.read_text(encoding="utf-8") == \
        "赤霉病 = 烂麦头 = fusarium head blight\n"
    manifest = json.loads(layout.manifest.read_text(encoding="utf-8"))
    assert "data/synonyms.txt" in manifest["artifacts"]  # hashed, signed with the release
    assert "烂麦头" in layout.dictionary.read_text(encoding="utf-8").split()
    index = open_index(repo / "dist")
    assert index.bm25.tok("烂麦头怎么办")[0] == "烂麦头"  # one token, not 烂 + 麦头
    assert {d["doc"] for d in index.docs()} == {"knowledge/crops/field-survey-methods.md"}
    # no file: nothing shipped, the release is as before
    (repo / "knowledge" / "_synonyms.txt").unlink()
    build(cfg, BuildOptions(out=repo / "dist2", progress=False, lenient=True))
    assert not ReleaseLayout(repo / "dist2").synonyms.exists()


# questions by synonym and alias (real models, part of the example knowledge) ----------------
@pytest.fixture(scope="module")
def indexes(tmp_path_factory) -> tuple[Path, Path]:
    """The same documents built with the example's _synonyms.txt and without it."""
    root = copy_example(tmp_path_factory.mktemp("syn"), DOCS)
    rice = root / "knowledge" / "crops" / "rice-blast.md"  # an alias found nowhere in the text
    rice.write_text(rice.read_text(encoding="utf-8").replace(
        "aliases: [稻热病, 穗颈瘟, 叶瘟]", "aliases: [稻热病, 穗颈瘟, 叶瘟, 火烧瘟]"), encoding="utf-8")
    build(load_config(root), BuildOptions(out=root / "with", progress=False, lenient=True))
    shutil.move(root / "knowledge" / "_synonyms.txt", root / "synonyms.bak")
    build(load_config(root), BuildOptions(out=root / "without", progress=False, lenient=True))
    return root / "with", root / "without"


def test_example_synonyms_file_is_valid():
    _, problems = parse((REPO / "knowledge" / "_synonyms.txt").read_text(encoding="utf-8"))
    assert problems == []


@pytest.mark.parametrize("question", sorted(SYNONYM_QUESTIONS))
def test_question_by_synonym_finds_the_document_only_with_the_file(indexes, question):
    with_file, without = (open_index(p) for p in indexes)
    gold = SYNONYM_QUESTIONS[question]
    res = search(with_file, question, k=3)
    assert not res.no_answer and res.results[0].doc == gold, [r.doc for r in res.results]
    assert res.filters.expanded and res.filters.expanded[0]["from"] == "synonyms"
    assert res.filters.unknown_terms == ()  # the synonym is understood, not unknown
    # BM25 alone cannot find it without the file; with it, it can
    assert search(with_file, question, k=1, mode="bm25").results[0].doc == gold
    bare = search(without, question, k=1, mode="bm25", keep_results=True)
    assert not bare.results or bare.results[0].doc != gold


def test_expanded_terms_weigh_less_than_the_question_own(indexes):
    index = open_index(indexes[0])
    own = search(index, "赤霉病 药剂", k=1, mode="bm25").results[0]
    syn = search(index, "烂麦头 药剂", k=1, mode="bm25").results[0]
    assert own.doc == syn.doc == "knowledge/crops/wheat-scab.md"
    assert syn.why["bm25_score"] < own.why["bm25_score"]
    assert "赤霉病" in syn.why["matched_terms"]  # shown (and highlighted) as matched


def test_english_question_expands_to_the_chinese_terms(indexes):
    """An English question over Chinese knowledge, understood through the synonyms file:
    answered (its words are not "unknown"), the right document first."""
    with_file, without = (open_index(p) for p in indexes)
    res = search(with_file, "sprayer calibration", k=3)
    assert not res.no_answer and res.results[0].doc == "knowledge/crops/sprayer-calibration.md"
    assert res.filters.expanded[0]["term"] == "sprayer"
    assert search(without, "sprayer calibration", k=3, mode="bm25").results == ()


def test_alias_routes_to_its_document(indexes):
    with_file, without = (open_index(p) for p in indexes)
    res = search(with_file, "火烧瘟怎么防治", k=3)
    assert res.results[0].doc == "knowledge/crops/rice-blast.md"
    assert {"field": "aliases", "value": "火烧瘟", "effect": "boost"} in res.filters.routed
    assert any(e["from"] == "aliases" for e in res.filters.expanded)
    assert res.results[0].why.get("boost")


def test_synonyms_name_decision_table_inputs(indexes):
    with_file, without = (open_index(p) for p in indexes)
    q = "气温 22 度，湿度 90%，雨日 4，赤霉病风险多高"
    assert input_synonyms(with_file)["连续降雨天数"] == ("阴雨天数", "雨日", "rainy days",
                                                          "rain days")
    top = search(with_file, q, k=2).results[0]
    assert top.evaluation is not None and top.evaluation["status"] == "match"
    assert top.evaluation["inputs"]["连续降雨天数"] == "4" and top.evaluation["outputs"][0]["风险等级"] == "极高"
    bare = search(without, q, k=2).results[0].evaluation
    assert bare is not None and bare["status"] == "missing_inputs"


def test_an_english_question_gives_the_inputs_of_the_chinese_table(indexes):
    """The bundled synonyms name the scab table's inputs in English (humidity, rainy days):
    a value in % is bound by its unit only where the word before it names the column."""
    with_file, without = (open_index(p) for p in indexes)
    q = "wheat scab risk: humidity 90%, 4 rainy days, 22 degrees"
    top = search(with_file, q, k=2).results[0]
    assert top.doc == "knowledge/crops/wheat-scab.md" and top.evaluation is not None
    assert top.evaluation["inputs"] == {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}
    assert top.evaluation["outputs"][0]["风险等级"] == "极高"


def test_kb_query_explain_shows_the_expansion(indexes):
    res = CliRunner().invoke(main, ["query", "--index", str(indexes[0]), "--no-log", "--explain",
                                    "烂麦头怎么防治"])
    assert res.exit_code == 0, res.output
    assert "expanded: 烂麦头 → 赤霉病 / 麦穗枯 / 烂穗病 / fusarium head blight / wheat scab " \
        "(synonyms)" in res.output


def test_milvus_expands_like_the_local_files(indexes, milvus):  # noqa: F811
    """`kb publish` ships the groups; the engine's sparse query carries the same weights."""
    engine = connect_url(milvus.url("synonyms"), create_db=True)
    try:
        publish(engine, check_release(indexes[0]))
        local, remote = open_index(indexes[0]), EngineReader(engine).current()
        assert remote.synonyms() == local.synonyms()
        for q in ["烂麦头怎么防治？", "sprayer calibration", "火烧瘟怎么防治"]:
            a, b = search(local, q, k=3), search(remote, q, k=3)
            assert [r.chunk_id for r in a.results] == [r.chunk_id for r in b.results], q
            assert a.filters.expanded == b.filters.expanded and a.filters.expanded
    finally:
        engine.close()


@pytest.mark.parametrize("question", ["南方锈病 southern rust", "southern rust 南方型锈病",
                                      "烂麦头 fusarium head blight 赤霉病"])
def test_a_question_naming_two_terms_of_one_group_is_answered(indexes, question):
    """With every other term of the group already in the question there is nothing left
    to expand, and its English words were once counted unknown: a false "no answer"."""
    res = search(open_index(indexes[0]), question, k=3)
    assert not res.no_answer, res.reason
    assert res.filters.unknown_terms == ()
    assert res.results[0].doc in ("knowledge/crops/corn-southern-rust.md",
                                  "knowledge/crops/wheat-scab.md")
