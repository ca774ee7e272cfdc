"""A run of the other script in a title or a heading carries its own `lang`, as it does in
the knowledge text below them (`kbtools/serve/scriptruns.py`): a result's title and heading
path, a document page's title, and the release page's "what changed". A title is one string
outside the Markdown, and each was one `lang`: `更换 mechanical seal 的步骤` read its English
phrase with a Chinese voice, `Checking wheat fields for 赤霉病 before spraying` its Han
characters with an English voice that cannot read them."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from kbfixtures import titled_page
from servefixtures import app_client, second_release, synced_device

from kbtools.ship.sync import sync

pytestmark = pytest.mark.slow

SEAL = "knowledge/crops/seal-swap.md"  # a Chinese manual starting at `##`
SEAL_TITLE = "更换 mechanical seal 的步骤"
SEAL_TEXT = titled_page(SEAL_TITLE, "").replace(f"# {SEAL_TITLE}\n", "") + """
## 拆下 pump housing 之前

关闭进水阀，排空泵腔里的积水，再按对角顺序松开泵壳的六个螺栓，取下旧的密封组件。

<!-- decision: inputs=压力(MPa); outputs=措施 -->
| 压力(MPa) | 措施 |
|---|---|
| <0.1 | 可以拆 |
| >=0.1 | 先泄压 |
"""
RUST = "knowledge/crops/rust-check.md"  # an English note titled with a Chinese name
RUST_TITLE = "Checking wheat fields for 赤霉病 before spraying"
RUST_TEXT = titled_page(RUST_TITLE, "Walk the field at flowering and count the bleached "
                        "spikelets in ten places before deciding on a spray.")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root, art, dev = synced_device(tmp_path_factory.mktemp("title-runs"))
    second_release(root, art, {SEAL: SEAL_TEXT, RUST: RUST_TEXT})
    sync(str(art), dev)
    yield from app_client(dev)


def spans(html: str, lang: str) -> list[str]:
    """The text of every `<span lang=…>` of `lang` in `html` (marks left out)."""
    return [re.sub(r"</?mark>", "", s) for s in re.findall(rf'<span lang="{lang}">(.*?)</span>',
                                                             html)]


def result_head(page: str, doc: str) -> str:
    """A result's title and citation line (no passage)."""
    found = re.search(rf'data-doc="{re.escape(doc)}".*?<h2(.*?)class="lines"', page, re.S)
    assert found is not None, page[:3000]
    return found.group(1)


@pytest.mark.parametrize("ui", ["zh", "en"])
def test_a_results_title_and_headings_mark_the_other_scripts_runs(client, ui):
    page = client.get("/", params={"q": "更换 mechanical seal 拆下 pump housing 螺栓",
                                   "lang": ui}).text
    head = result_head(page, SEAL)
    assert head.startswith(' lang="zh-CN">'), head
    assert "mechanical seal" in spans(head, "en"), head
    assert "pump housing" in spans(head, "en"), head
    assert "<mark>" in head  # the question's terms still marked, inside the runs too
    rust = result_head(client.get("/", params={"q": "bleached spikelets flowering spray",
                                               "lang": ui}).text, RUST)
    assert rust.startswith(' lang="en">') and spans(rust, "zh-CN") == ["赤霉病"] * 2, rust


def test_a_document_pages_title_marks_the_other_scripts_runs(client):
    page = client.get(f"/doc/{quote(SEAL)}", params={"lang": "en"}).text
    title = re.search(r'<h1 class="title">(.*?)</h1>', page, re.S)
    assert title is not None and spans(title.group(1), "en") == ["mechanical seal"], page[:3000]


def test_a_decision_tables_form_and_a_mistyped_address_mark_the_other_scripts_runs(client):
    """The form's heading names its table by its heading path; an address naming no
    document lists the documents it most likely meant by their titles."""
    page = client.get(f"/table/{quote(SEAL)}", params={"lang": "en"}).text
    h1 = re.search(r"<h1>(.*?)</h1>", page, re.S)
    assert h1 is not None and spans(h1.group(1), "en") == ["pump housing"], page[:3000]
    missing = client.get(f"/doc/{quote(SEAL.replace('seal-swap', 'seal-swop'))}")
    assert missing.status_code == 404
    listed = re.search(r'<ul class="suggestions">(.*?)</ul>', missing.text, re.S)
    assert listed is not None and "mechanical seal" in spans(listed.group(1), "en"), missing.text


@pytest.mark.parametrize("ui", ["zh", "en"])
def test_what_changed_marks_the_other_scripts_runs_in_titles(client, ui):
    page = client.get("/release", params={"lang": ui}).text
    added = "".join(re.findall(r'<p class="added">.*?</p>', page, re.S))
    assert "mechanical seal" in spans(added, "en"), added
    assert "赤霉病" in spans(added, "zh-CN"), added
    assert "&lt;" not in added and "<script" not in added
