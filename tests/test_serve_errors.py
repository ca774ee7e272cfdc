"""A library error on a Chinese page of `kb serve` is said in Chinese: the errors a field
user meets (no index, a bad filter, no such document or section) have words in
`i18n.ERRORS` by their `KbError.key`; the English message stays below for whoever looks
after the device, an error without words is shown in English, and the JSON API's messages
are unchanged."""

from __future__ import annotations

import html
import json
import re

import pytest
from kbfixtures import TITLED
from starlette.testclient import TestClient

from kbtools.agents.read import open_knowledge, read_section
from kbtools.decision.documents import as_source, document_tables, evaluate_table
from kbtools.decision.matching import match_rules
from kbtools.decision.model import DecisionTable
from kbtools.engine.milvus import connect_url
from kbtools.errors import EngineError, KbError, TableError, UsageError
from kbtools.index.reader import open_index
from kbtools.query.filters import filter_mask, parse_where
from kbtools.serve import i18n
from kbtools.serve.app import create_app
from kbtools.serve.source import ServedIndex
from tests.hostile import built_repo_index
from tests.ports import refusing_port

SCAB = "knowledge/crops/wheat-scab.md"


def detail_of(page: str) -> tuple[str, str | None]:
    """The error page's detail and its English original (None when not shown)."""
    found = re.search(r'<p class="detail">.*?<span lang="([^"]+)">(.*?)</span>', page, re.S)
    original = re.search(r'<p class="detail original">.*?<span lang="en">(.*?)</span>', page,
                         re.S)
    assert found, page
    return found.group(2), original.group(1) if original else None


@pytest.fixture(scope="module")
def example(example_index):
    return open_index(example_index)


def test_a_missing_index_is_said_in_chinese_with_the_english_below(tmp_path):
    """"no index here: run `kb build` …" under "暂时没有可用的知识库版本" on a Chinese page."""
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    with TestClient(create_app(nothing), base_url="http://127.0.0.1") as client:
        zh = client.get("/", params={"q": "小麦赤霉病", "lang": "zh"})
        assert zh.status_code == 503 and '<html lang="zh-CN">' in zh.text
        detail, original = detail_of(zh.text)
        assert detail == i18n.ERRORS["index_missing"]
        assert original and original.startswith(f"{nothing}: no index here")
        en = client.get("/", params={"q": "wheat scab", "lang": "en"})
        detail, original = detail_of(en.text)
        assert detail.startswith(f"{nothing}: no index here") and original is None
        api = client.get("/api/search", params={"q": "小麦"}).json()["error"]
        assert api["message"].startswith(f"{nothing}: no index here")  # the API's English
        assert "知识库" not in str(api)


@pytest.mark.parametrize("where", ["crop=>小麦", "verified=maybe", "kind=poem",
                                   "timestamp>=yesterday"])
def test_a_bad_filter_is_said_in_chinese_naming_it(example, where):
    with pytest.raises(UsageError) as err:
        filter_mask(example, parse_where([where]), None)
    assert err.value.message.startswith("bad --where")
    said = i18n.error_zh(err.value)
    assert said == i18n.ERRORS["bad_where"].format(where=err.value.values["where"])
    assert where.split("=")[0].rstrip("><!") in said
    with pytest.raises(UsageError) as unknown:
        filter_mask(example, parse_where(["colour=red"]), None)
    assert i18n.error_zh(unknown.value) == "没有“colour”这个筛选项。"


def test_no_such_document_or_section_is_said_in_chinese(example_index):
    kn = open_knowledge(idx=open_index(example_index))
    with pytest.raises(KbError) as doc:
        read_section(kn, "knowledge/crops/none.md")
    assert i18n.error_zh(doc.value) == "本发布版本中没有这个文档：knowledge/crops/none.md"
    with pytest.raises(KbError) as section:
        read_section(kn, SCAB, "没有这一节")
    assert i18n.error_zh(section.value) == f"文档 {SCAB} 中没有“没有这一节”这一节。"
    assert "no section '没有这一节'" in section.value.message  # the English kept as it was


def test_an_error_without_chinese_words_is_shown_in_english():
    assert i18n.error_zh(KbError("something else broke")) is None
    assert i18n.error_zh(KbError("x", key="no_such_key")) is None
    assert i18n.error_zh(KbError("x", key="no_document")) is None  # its value is missing
    long = KbError("x", key="no_document", values={"doc": "a\nb" + "c" * 500})
    said = i18n.error_zh(long)
    assert said is not None and "\n" not in said and len(said) < 250


def test_a_page_served_from_nothing_says_it_in_chinese_not_only_in_english(tmp_path):
    """`ServedIndex.get` keeps the key of what it could not open (a release checkout it
    could not verify says so too)."""
    with pytest.raises(KbError) as err:
        ServedIndex(tmp_path).get()
    assert err.value.key == "index_missing"


@pytest.mark.parametrize("chosen, key", [("99", "no_table_number"),
                                         ("没有这张表", "no_table_named")])
def test_a_decision_table_not_there_is_said_in_chinese_with_the_english_below(
        example_index, chosen, key):
    """The table page said "no decision table 99 (there are 2: …)" in English only."""
    count = str(len(document_tables(as_source(example_index.parent / SCAB))))
    with TestClient(create_app(example_index), base_url="http://127.0.0.1") as client:
        zh = client.get(f"/table/{SCAB}", params={"table": chosen, "lang": "zh"})
        assert zh.status_code == 400 and '<html lang="zh-CN">' in zh.text
        detail, original = detail_of(zh.text)
        assert detail == i18n.ERRORS[key].format(n=chosen, name=chosen, count=count)
        assert chosen in detail and count in detail
        assert original and f"no decision table {'' if key == 'no_table_number' else 'named '}" \
            in original
        en = client.get(f"/table/{SCAB}", params={"table": chosen, "lang": "en"})
        detail, original = detail_of(en.text)
        assert detail.startswith(f"{SCAB}: no decision table") and original is None
        api = client.post("/api/table/evaluate", json={"doc": SCAB, "table": chosen,
                                                        "inputs": {}}).json()["error"]
        assert "no decision table" in api["message"] and "决策表" not in str(api)


BROKEN = """---
title: 坏表
---

## 坏表

<!-- decision: inputs=温度; outputs=风险 -->
| 温度 | 风险 |
|---|---|
| <15 | 低 |
| >20 |

## 好表

<!-- decision: inputs=温度; outputs=风险 -->
| 温度 | 风险 |
|---|---|
| ≥15 | 高 |
"""


def test_choosing_a_malformed_or_ambiguous_table_is_said_in_chinese(tmp_path):
    path = tmp_path / "b.md"
    path.write_text(BROKEN + "\n## 好表\n\n" + BROKEN.split("## 好表\n")[1], encoding="utf-8")
    with pytest.raises(TableError) as malformed:
        evaluate_table(path, "1", {"温度": "3"})
    assert i18n.error_zh(malformed.value) == i18n.ERRORS["malformed_table"].format(line=11)
    with pytest.raises(TableError) as shared:
        evaluate_table(path, "好表", {"温度": "3"})
    assert i18n.error_zh(shared.value) == i18n.ERRORS["table_heading_shared"].format(
        name="好表", count=2)
    with pytest.raises(TableError) as unchosen:
        evaluate_table(path, None, {"温度": "3"})
    assert i18n.error_zh(unchosen.value) == i18n.ERRORS["table_not_chosen"].format(count=3)
    empty = tmp_path / "e.md"
    empty.write_text("---\ntitle: 空\n---\n\n# 空\n\n没有表。\n", encoding="utf-8")
    with pytest.raises(TableError) as none:
        evaluate_table(empty, None, {})
    assert i18n.error_zh(none.value) == i18n.ERRORS["no_decision_table"]


def test_an_unreachable_engine_is_said_in_chinese():
    """`kb serve --engine` with Milvus down: a Chinese page said only "connecting … failed"."""
    with refusing_port() as port, pytest.raises(EngineError) as err:  # nothing listens there
        connect_url(f"milvus://127.0.0.1:{port}/kb")
    assert "is the server running" in err.value.message
    assert i18n.error_zh(err.value) == i18n.ERRORS["engine_unreachable"]
    assert i18n.error_zh(EngineError("anything else")) == i18n.ERRORS["engine_failed"]


def _rebuilt_with_another_model(tmp_path) -> tuple:
    """A small index whose `test-hash` vectors its manifest says came from another build of
    the model than this machine's."""
    dist = built_repo_index(tmp_path, {"knowledge/pump.md": TITLED.format(
        title="Pump", body="The pump primes before the pressure test.")}, model="test-hash")
    path = dist / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["models"]["test-hash"]["fingerprint"] = "test-hash:another-build"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return dist


def test_vectors_of_another_model_are_said_in_chinese_with_what_to_do(tmp_path):
    """An index built with another version of the embedding model than this machine's: a
    Chinese page said only "知识库暂时无法检索" (or the English); its words say what to do."""
    dist = _rebuilt_with_another_model(tmp_path)
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        zh = client.get("/", params={"q": "pump pressure test", "lang": "zh"})
        assert zh.status_code == 503
        detail, original = detail_of(zh.text)
        assert detail == i18n.ERRORS["model_mismatch"].format(model="test-hash")
        assert "kb build" in detail and "模型" in detail
        assert original and "another model version" in original
        api = client.get("/api/search", params={"q": "pump pressure test"})
        assert api.status_code == 503
        message = api.json()["error"]["message"]
        assert "another model version; rebuild the index" in message and "模型" not in message


TWICE = TITLED.format(title="两列同名", body="| 温度 | 温度 | 风险 |\n|---|---|---|\n"
                                                "| <15 | <3 | 低 |\n| ≥15 | ≥3 | 高 |")


def test_inputs_a_table_cannot_match_are_said_in_chinese_on_its_page(tmp_path):
    """A table whose two input columns share a name: `match_rules` refused the page's inputs
    and a Chinese page showed "…: missing input for column(s) 温度; give e.g. 温度=VALUE"."""
    doc = "knowledge/twice.md"
    dist = built_repo_index(tmp_path, {doc: TWICE}, model="test-hash")
    asked = {"table": "1", "go": "1", "in.0": "5", "in.1": "9"}
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        zh = client.get(f"/table/{doc}", params={**asked, "lang": "zh"})
        en = client.get(f"/table/{doc}", params={**asked, "lang": "en"})
    said = re.search(r'<p class="error message"[^>]*>(.*?)</p>', zh.text, re.S)
    assert zh.status_code == 400 and said, zh.text
    assert html.unescape(said.group(1)) == "缺少这些输入列的值：温度。"
    english = re.search(r'<p class="error message"[^>]*>(.*?)</p>', en.text, re.S)
    assert english and "missing input for column(s) 温度" in html.unescape(english.group(1))
    table = document_tables(as_source(dist / "data" / "source" / doc))[0]
    assert isinstance(table, DecisionTable)
    for inputs, words in [
            ({"温度": "5", "温度(℃)": "9"},
             "“温度”这一列给了两个不同的值（温度=5 和 温度(℃)=9），请只给一个。"),
            ({"湿度": "5"}, "决策表没有“湿度”这一列（输入列：温度, 温度）。"),
            ({"风险": "低"}, "“风险”是输出列，不是输入列（输入列：温度, 温度）。")]:
        with pytest.raises(TableError) as err:
            match_rules(table, inputs)
        assert i18n.error_in(err.value, "zh") == words
        assert i18n.error_in(err.value, "en") == err.value.message
    with pytest.raises(TableError) as policy:
        match_rules(table, {"温度": "5"}, policy="best")
    assert i18n.error_in(policy.value, "zh") == "匹配策略只能是 first, all 之一，不能是“best”。"


@pytest.mark.parametrize("lang, words", [("zh", "这个文档没有决策表"),
                                         ("en", "This document has no decision table")])
def test_the_table_page_of_a_document_without_one_is_not_found(example_index, lang, words):
    """The decision-table page of a document holding none (an old or mistyped link: pages
    offer the button only where there is a table) said so with status 200, as a found page."""
    doc = "knowledge/engineering/deployment-guide.md"
    assert document_tables(as_source(example_index.parent / doc)) == []
    with TestClient(create_app(example_index), base_url="http://127.0.0.1") as client:
        page = client.get(f"/table/{doc}", params={"lang": lang})
    assert page.status_code == 404
    assert f'<html lang="{i18n.HTML_LANG[lang]}">' in page.text and words in page.text


MERGED = TITLED.format(title="赤霉病风险（合并单元格）", body=(
    "按温度和相对湿度判定赤霉病风险等级。\n\n"
    "<!-- decision: inputs=温度(℃),相对湿度(%); outputs=风险等级 -->\n"
    "| 温度(℃) | 相对湿度(%) | 风险等级 |\n|---|---|---|\n| 15-20 | <85 | 低 |\n"
    "|  | ≥85 | 中 |\n| >20 | <85 | 中 |\n|  | ≥85 | 高 |"))
MERGED_EN = TITLED.format(title="Blight risk (merged cells)", body=(
    "Blight risk by air temperature and relative humidity.\n\n"
    "<!-- decision: inputs=Temperature (°C),Humidity (%); outputs=Risk -->\n"
    "| Temperature (°C) | Humidity (%) | Risk |\n|---|---|---|\n| <10 | * | none |\n"
    "| 10-18 | <80 | low |\n|  | >=80 | medium |\n| >18 | <80 | medium |\n"
    "|  | >=80 | high |"))


@pytest.mark.parametrize("doc, text, asked, question, zh_words, en_words", [
    ("knowledge/merged.md", MERGED, {"温度(℃)": "25", "相对湿度(%)": "90"},
     "温度 25 度 相对湿度 90% 赤霉病风险等级",
     "第 2 行的“温度(℃)”单元格是空的，上方第 1 行写的是“15-20”：空单元格表示任意值，不表示“同上”，"
     "所以第 2、4 行都匹配。请在第 2 行重新写出这个值（任意值请写 *）。",
     "row 2 leaves 温度(℃) empty under '15-20' (row 1)"),
    ("knowledge/merged-en.md", MERGED_EN, {"Temperature (°C)": "22", "Humidity (%)": "85"},
     "blight risk temperature 22 °C humidity 85%",
     "第 3 行的“Temperature (°C)”单元格是空的，上方第 2 行写的是“10-18”：空单元格表示任意值，"
     "不表示“同上”，所以第 3、5 行都匹配。请在第 3 行重新写出这个值（任意值请写 *）。",
     "row 3 leaves Temperature (°C) empty under '10-18' (row 2)"),
])
def test_an_empty_cell_read_as_as_above_is_refused_in_the_pages_language(
        tmp_path, doc, text, asked, question, zh_words, en_words):
    """A chosen row that matches only through an empty cell under a filled one (an editor's
    merged cell) is refused (session 32), but a Chinese page said the refusal in English:
    the table's form and the search result's evaluation now say it in Chinese, the English
    page and the JSON API as before."""
    dist = built_repo_index(tmp_path, {doc: text}, model="test-hash")
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        form = {"table": "1", "go": "1", **{f"in.{i}": v for i, v in enumerate(asked.values())}}
        pages = {lang: client.get(f"/table/{doc}", params={**form, "lang": lang})
                 for lang in ("zh", "en")}
        found = {lang: client.get("/", params={"q": question, "lang": lang}).text
                 for lang in ("zh", "en")}
        api = client.post("/api/table/evaluate", json={"doc": doc, "inputs": asked})
    said = {lang: re.search(r'<p class="error message"[^>]*>(.*?)</p>', page.text, re.S)
            for lang, page in pages.items()}
    assert pages["zh"].status_code == pages["en"].status_code == 400
    assert said["zh"] and html.unescape(said["zh"].group(1)) == zh_words
    assert said["en"] and en_words in html.unescape(said["en"].group(1))
    no_rule = {lang: re.search(r'<p class="no-rule">(.*?)</p>', page, re.S)
               for lang, page in found.items()}
    assert no_rule["zh"] and zh_words in html.unescape(no_rule["zh"].group(1))
    assert no_rule["en"] and en_words in html.unescape(no_rule["en"].group(1))
    message = api.json()["error"]["message"]
    assert en_words in message and "同上" not in message
