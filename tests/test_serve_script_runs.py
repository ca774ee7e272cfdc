"""A phrase of the other script inside knowledge text carries its own `lang`
(`kbtools/serve/scriptruns.py`): an English phrase in a Chinese sentence (`ground station`,
`flow calibration` in the drone field report), a Chinese run in an English one; a code, a unit
or a lone word does not (a voice switched for each would stutter). On the document page and in
a search result's passage, over a real build of the example knowledge."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from kbfixtures import copy_example
from servefixtures import app_client, en_doc, git

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.scriptruns import other_script_runs

REPORT = "knowledge/field_reports/2026-04-drone-calibration-rice.md"
NOTE = "knowledge/engineering/scab-table-note.md"
NOTE_TEXT = en_doc("Reading the scab risk table", "# Reading the scab risk table\n\nCheck the "
                   "小麦赤霉病 risk table before spraying, and note the pump code SKU-12.\n")


@pytest.mark.parametrize("text, own, runs", [
    ("更换 mechanical seal assembly 之前关闭阀门", "zh-CN", ["mechanical seal assembly"]),
    ("型号 SKU-12 的泵", "zh-CN", []),  # a code
    ("每 2000 小时更换，浓度 5 mg/L", "zh-CN", []),  # numbers and a unit
    ("照片在 app 里", "zh-CN", []),  # a lone word
    ("TiDB、TiKV、Placement Driver (PD) 的作用", "zh-CN", ["Placement Driver"]),
    ("更换 seal kit SKU-12 and O-ring 后", "zh-CN", ["seal kit SKU-12 and O-ring"]),
    ("Check the 小麦赤霉病 risk table", "en", ["小麦赤霉病"]),
    ("Apply 多菌灵 · 戊唑醇 at flowering", "en", ["多菌灵 · 戊唑醇"]),
    ("Check the pump SKU-12", "en", []),
    ("Check the pump seal", "ja", []),  # neither language: left alone
])
def test_the_runs_of_the_other_script(text, own, runs):
    assert [text[a:b] for a, b, _ in other_script_runs(text, own)] == runs


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = copy_example(tmp_path_factory.mktemp("runs") / "kr", [REPORT])
    (root / NOTE).parent.mkdir(parents=True, exist_ok=True)
    (root / NOTE).write_text(NOTE_TEXT, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "note")
    build(load_config(root), BuildOptions(progress=False))
    yield from app_client(root / "dist")


def spans(page: str, lang: str) -> list[str]:
    """The text of every `<span lang=…>` of `lang` on `page` (marks left out)."""
    found = re.findall(rf'<span lang="{lang}">(.*?)</span>', page)
    return [re.sub(r"</?mark>", "", s) for s in found]


@pytest.mark.slow
def test_an_english_phrase_in_a_chinese_report_says_its_language(client):
    """The drone field report's Chinese sentences hold English phrases ("ground station",
    "flow calibration", "not yet synced"): the whole sentence was `zh-CN`, read by a Chinese
    voice. The phrases now say `en`; the codes and units (75%, 12.0 L) and the lone word
    "app" stay in the sentence."""
    page = client.get(f"/doc/{quote(REPORT)}", params={"lang": "en"}).text
    body = page[page.index('class="body"'):]
    shown = spans(body, "en")
    assert {"ground station", "flow calibration", "not yet synced"} <= set(shown), shown
    assert not {"app", "L", "B"} & set(shown), shown
    # in a search result's passage too, the question's terms marked inside
    results = client.get("/", params={"q": "flow calibration 偏差", "lang": "zh"}).text
    assert "flow calibration" in spans(results, "en"), spans(results, "en")


@pytest.mark.slow
def test_a_chinese_run_in_english_text_says_its_language(client):
    page = client.get(f"/doc/{quote(NOTE)}", params={"lang": "zh"}).text
    body = page[page.index('class="body"'):]
    assert spans(body, "zh-CN") == ["小麦赤霉病"]
    assert "SKU-12" not in "".join(spans(body, "zh-CN") + spans(body, "en"))
