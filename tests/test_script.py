"""Traditional and Simplified Chinese match each other: BM25 tokens are made of the text in
Simplified script (OpenCC t2s), while stored text, citations and highlighting keep the
characters written; an index derived by another tokenizer version is refused or rebuilt."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import IndexLoadError
from kbtools.index.layout import ReleaseLayout
from kbtools.index.reader import open_index
from kbtools.index.tokenize import (
    TOKENS_VERSION,
    Tokenizer,
    other_spellings,
    to_simplified,
    tokenizer_fingerprint,
)
from kbtools.query.search import search
from kbtools.serve.marks import highlight_terms
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM

DOC = GOOD_FM.replace("Generated", "{title}") + "\n# {title}\n\n{body}\n"
HANT_TITLE = "資料庫遷移"
HANT_BODY = "遷移資料庫之前，請先備份資料並檢查磁碟空間；遷移完成後重新建立索引。"
HANS_TITLE = "灌溉水泵维护"
HANS_BODY = "水泵的机械密封每运行两千小时更换一次，更换后检查轴承温度与振动。"


def test_traditional_and_simplified_make_the_same_tokens():
    tok = Tokenizer()
    assert tok("遷移資料庫之前請先備份") == tok("迁移资料库之前请先备份")
    assert tok("機械密封與軸承溫度") == tok("机械密封与轴承温度")
    assert "轴承" in tok("機械密封與軸承溫度")  # segmented as words, not single characters
    assert tok("Configure the TiKV 節點") == ["configur", "tikv", "节点"]


def test_dictionary_terms_hold_in_either_script():
    hant = Tokenizer(words=("赤黴病", "戊唑·咪鮮胺"))
    hans = Tokenizer(words=("赤霉病", "戊唑·咪鲜胺"))
    for tok in (hant, hans):
        assert "赤霉病" in tok("小麥赤黴病")
        assert "赤霉病" in tok("小麦赤霉病")
        assert "戊唑·咪鲜胺" in tok("噴施戊唑·咪鮮胺")
    # the recorded dictionary is the terms as written
    assert hant.fingerprint()["dictionary_sha256"] != hans.fingerprint()["dictionary_sha256"]


def test_to_simplified_leaves_other_text_alone():
    assert to_simplified("plain English, 123") == "plain English, 123"
    assert to_simplified("迁移资料库") == "迁移资料库"
    assert to_simplified("遷移資料庫") == "迁移资料库"


def test_other_spellings_are_the_written_characters():
    assert other_spellings("遷移資料庫之前備份資料", ["迁移", "资料库", "资料"]) == \
        ["遷移", "資料庫", "資料"]
    assert other_spellings("迁移资料库之前备份资料", ["迁移", "资料"]) == []  # as written
    assert other_spellings("Configure 節點", ["configur", "节点"]) == ["節點"]
    assert other_spellings("遷移", ["备份"]) == []


def test_fingerprint_names_script_and_version():
    fp = tokenizer_fingerprint("rjieba", [])
    assert "opencc==" in fp["version"] and ":t2s;" in fp["version"]
    assert fp["version"].endswith(f";{TOKENS_VERSION}")


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("script"), docs={
        "knowledge/db.md": DOC.format(title=HANT_TITLE, body=HANT_BODY),
        "knowledge/pump.md": DOC.format(title=HANS_TITLE, body=HANS_BODY)})
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False))
    return out


@pytest.mark.parametrize(("question", "doc"), [
    ("迁移资料库前要备份什么？", "knowledge/db.md"),  # Simplified question, Traditional document
    ("水泵機械密封多久更換？", "knowledge/pump.md"),  # Traditional question, Simplified document
    ("遷移資料庫前要備份什麼？", "knowledge/db.md"),  # same script both sides still works
])
def test_bm25_matches_across_scripts(index_dir, question, doc):
    res = search(open_index(index_dir), question, k=3, mode="bm25", keep_results=True)
    assert res.results and res.results[0].citation.doc == doc


def test_display_citation_and_highlighting_keep_traditional(index_dir):
    res = search(open_index(index_dir), "迁移资料库前要备份什么？", k=3, mode="bm25",
                 keep_results=True)
    top = res.results[0]
    data = top.to_dict()
    assert HANT_BODY in data["text"] and data["title"] == HANT_TITLE
    source = (index_dir.parent / top.citation.doc).read_text(encoding="utf-8").split("\n")
    lines = source[top.citation.line_start - 1:top.citation.line_end]
    assert HANT_BODY in "\n".join(lines)  # the cited lines are the Traditional original
    terms = data["why"]["matched_terms"]
    assert {"迁移", "资料库"} <= set(terms) and {"遷移", "資料庫"} <= set(terms)
    marked = highlight_terms(HANT_BODY, terms)
    assert "<mark>遷移</mark>" in marked and "<mark>資料庫</mark>" in marked


def test_cli_query_finds_traditional_with_simplified(index_dir):
    res = CliRunner().invoke(main, ["query", "--index", str(index_dir), "--json", "--mode",
                                    "bm25", "机械密封"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["results"][0]["doc"] == "knowledge/pump.md"


def _forget_tokens_version(dist: Path) -> None:
    """Make index/ look derived by a kbtools before TOKENS_VERSION (no version recorded, as
    such stores are), and the manifest record an older tokenizer."""
    layout = ReleaseLayout(dist)
    con = sqlite3.connect(layout.store)
    con.execute("DELETE FROM info WHERE key = 'tokens'")
    con.commit()
    con.close()
    manifest = json.loads(layout.manifest.read_text(encoding="utf-8"))
    manifest["tokenizer"]["version"] = manifest["tokenizer"]["version"].rsplit(";", 1)[0] + ";v2"
    layout.manifest.write_text(json.dumps(manifest), encoding="utf-8")


def test_old_tokens_are_refused_then_rebuilt(tmp_path):
    repo = make_repo(tmp_path / "repo", docs={
        "knowledge/db.md": DOC.format(title=HANT_TITLE, body=HANT_BODY)})
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False))
    assert open_index(out).store.info("tokens") == TOKENS_VERSION
    _forget_tokens_version(out)
    with pytest.raises(IndexLoadError, match="tokenizer v2 or older.*kb build"):
        open_index(out)
    res = CliRunner().invoke(main, ["query", "--index", str(out), "资料库"])
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert "tokenizer" in res.output and len(res.output.strip().splitlines()) == 1
    stats = build(load_config(repo), BuildOptions(out=out, progress=False))
    assert stats.derivation == "full"  # the old terms are not reused
    index = open_index(out)
    assert index.store.info("tokens") == TOKENS_VERSION
    hit = search(index, "迁移资料库", k=1, mode="bm25", keep_results=True).results
    assert hit and hit[0].citation.doc == "knowledge/db.md"


RULES_TITLE = "設備保固規定"
_PAD = "本規定適用於本公司售出之灌溉設備，買方應妥善保存驗收單與發票，以備查核。" * 9
RULES_BODY = f"""## 4.2 節 一般零件

一般零件的保固期限為一年。保固期限自驗收日起算，保固期限內免費更換，詳見 4.3 節。{_PAD}

## 4.3 節 液壓零件

液壓泵與油缸自驗收日起保用兩年。{_PAD}

## 4.4 節 電氣零件

電氣零件的保固期限為半年。保固期限屆滿後依 4.3 節與第 12 條之規定收費，保固期限不得延長。{_PAD}

### 第 11 條 報修

報修須於保固期限內提出，保固期限以第 12 條計算，逾保固期限不予受理。{_PAD}

### 第 12 條 起算日

自設備驗收合格之日起算。{_PAD}
"""


@pytest.fixture(scope="module")
def rules_index(tmp_path_factory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("rules"), docs={
        "knowledge/rules.md": DOC.format(title=RULES_TITLE, body=RULES_BODY)})
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False))
    return out


@pytest.mark.parametrize(("question", "heading"), [
    ("4.3 節的保固期限是多久？", "4.3 節 液壓零件"),  # Traditional, as the text writes it
    ("4.3 节的保固期限是多久？", "4.3 節 液壓零件"),  # Simplified question, Traditional text
    ("第 12 條 保固期限怎麼算？", "第 12 條 起算日"),
    ("第12条保固期限怎么算", "第 12 條 起算日"),
])
def test_traditional_section_and_article_numbers_are_identifiers(rules_index, question, heading):
    """節/條 name a section as 节/条 do: the section *about* the number comes first although
    other sections say the question's words more often and mention the number too."""
    for mode in ("hybrid", "bm25"):
        res = search(open_index(rules_index), question, k=3, mode=mode, keep_results=True)
        assert res.results[0].citation.heading_path[-1] == heading, (mode, res.results[0])
