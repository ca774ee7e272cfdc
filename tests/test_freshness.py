"""Freshness: `valid_until` in the past marks a result possibly outdated and weights it down
by OUTDATED_WEIGHT; a document that `supersedes:` another outranks it and the older one says
"superseded by". Both fields are checked by `kb check`, and both show in `kb query` (text and
JSON), MCP `search` and the web app. "Today" is injected (`search(…, today=…)`); the
interface tests use dates far in the past, so no test depends on the clock."""

from __future__ import annotations

import json
import os
import sys
from datetime import date
from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from hostile import mcp_client
from starlette.testclient import TestClient

from kbtools.cli import main
from kbtools.index.reader import open_index
from kbtools.query.freshness import OUTDATED_WEIGHT, is_outdated, valid_until
from kbtools.query.search import search
from kbtools.serve.app import create_app
from tests.kbfixtures import REPO

KB = str(Path(sys.executable).with_name("kb"))
KB_TOML = """\
[embedding]
model = "test-hash"          # no model files: fast and deterministic
languages = { en = "test-hash" }
"""
FRONT = """---
title: {title}
category: {category}
source: test
author: alice@example.org
timestamp: "2026-03-14T09:30:00+08:00"
verified: false
{extra}---
"""
CROP = "category: crop-protection\ncrop: [小麦]\ndisease: [赤霉病]\n"
OLD = "knowledge/crops/scab-fungicides-2023.md"
NEW = "knowledge/crops/scab-fungicides-2026.md"
LIMITS = "knowledge/engineering/ingest-rate-limits-v1.md"
DOCS = {
    OLD: ("小麦赤霉病推荐药剂（2023 版）", "crop-protection", "crop: [小麦]\ndisease: [赤霉病]\n",
          "# 推荐药剂\n\n赤霉病防治：扬花初期喷施多菌灵可湿性粉剂，每亩 100 克；多菌灵药剂"
          "兑水 30 公斤均匀喷雾。\n"),
    NEW: ("小麦赤霉病推荐药剂（2026 版）", "crop-protection",
          "crop: [小麦]\ndisease: [赤霉病]\nsupersedes: crops/scab-fungicides-2023.md\n",
          "# 推荐药剂\n\n赤霉病菌对多菌灵抗性普遍，扬花初期改用氰烯菌酯悬浮剂，每亩 100 毫升。\n"),
    LIMITS: ("Ingest API rate limits (v1)", "engineering", "project: fieldgate\n"
             "valid_until: \"2020-01-01\"\n",
             "# Rate limits\n\nThe ingest API accepts 100 requests per minute per device token; "
             "above that it answers 429 Too Many Requests.\n"),
    "knowledge/engineering/ingest-overview.md": (
        "Ingest API overview", "engineering", "project: fieldgate\n",
        "# Overview\n\nThe ingest API receives observations from field devices in batches and "
        "stores them; see the rate limits before raising the request rate.\n"),
}


def make_repo(root: Path, docs: dict[str, tuple[str, str, str, str]] = DOCS) -> Path:
    (root / "kb.toml").parent.mkdir(parents=True, exist_ok=True)
    (root / "kb.toml").write_text(KB_TOML, encoding="utf-8")
    for src in (REPO / "schemas").rglob("*.json"):
        dest = root / "schemas" / src.relative_to(REPO / "schemas")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(src.read_bytes())
    for rel, (title, category, extra, body) in docs.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(FRONT.format(title=title, category=category, extra=extra) + "\n" + body,
                        encoding="utf-8")
    repo = git.Repo.init(root)
    repo.index.add([str(p.relative_to(root)) for p in root.rglob("*")
                    if p.is_file() and ".git" not in p.parts])
    repo.index.commit("knowledge")
    return root


def kb(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("fresh"))
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        mp.setenv("KB_HOME", str(tmp_path_factory.mktemp("kbhome")))
        check = kb("check")
        assert check.exit_code == 0, check.output
        res = kb("build")
        assert res.exit_code == 0, res.output
    return root


# the pure parts ---------------------------------------------------------------------------
def test_valid_until_against_an_injected_today():
    meta = {"valid_until": "2026-06-30"}
    assert valid_until(meta) == date(2026, 6, 30)
    assert not is_outdated(meta, date(2026, 6, 30))  # valid through that day
    assert is_outdated(meta, date(2026, 7, 1))
    assert not is_outdated({}, date(2099, 1, 1)) and valid_until({"valid_until": "soon"}) is None


# search -----------------------------------------------------------------------------------
def test_superseding_document_outranks_the_one_it_supersedes(built):
    index = open_index(built / "dist")
    q = "赤霉病 多菌灵 药剂"
    bm25 = search(index, q, k=2, mode="bm25", today=date(2026, 1, 1))
    # the old text matches the question better; the newer document still comes first
    assert [r.doc for r in bm25.results] == [NEW, OLD]
    assert bm25.results[1].why["bm25_rank"] < bm25.results[0].why["bm25_rank"]
    old = bm25.results[1]
    assert old.superseded_by == (NEW,) and old.why["superseded_by"] == [NEW]
    assert old.to_dict()["superseded_by"] == [NEW] and bm25.results[0].superseded_by == ()
    hybrid = search(index, q, k=2, today=date(2026, 1, 1))
    assert [r.doc for r in hybrid.results] == [NEW, OLD]
    # the superseded document alone is still found, and still says what replaced it
    alone = search(index, q, k=2, where=[f"doc={OLD}"], today=date(2026, 1, 1))
    assert [r.doc for r in alone.results] == [OLD] and alone.results[0].superseded_by == (NEW,)


def test_past_valid_until_marks_and_weights_down_by_the_documented_factor(built):
    index = open_index(built / "dist")
    q = "ingest API requests per minute rate limit 429"
    before = search(index, q, k=2, mode="bm25", today=date(2019, 12, 31))
    after = search(index, q, k=2, mode="bm25", today=date(2020, 1, 2))
    was = next(r for r in before.results if r.doc == LIMITS)
    now = next(r for r in after.results if r.doc == LIMITS)
    assert not was.outdated and now.outdated and now.why["outdated"] is True
    assert now.to_dict()["outdated"] is True and was.to_dict()["outdated"] is False
    assert now.score == pytest.approx(was.score * OUTDATED_WEIGHT, rel=1e-4)
    assert [r.score for r in after.results] == sorted((r.score for r in after.results),
                                                      reverse=True)


# kb check ---------------------------------------------------------------------------------
def test_check_findings_for_both_fields(tmp_path, monkeypatch):
    docs = {
        "knowledge/crops/a.md": ("甲", "crop-protection",
                                 "crop: [小麦]\ndisease: [赤霉病]\nsupersedes: crops/no-such-doc.md\n", "# 甲\n\n正文。\n"),
        "knowledge/crops/b.md": ("乙", "crop-protection",
                                 "crop: [小麦]\ndisease: [赤霉病]\nsupersedes: [knowledge/crops/b.md]\n"
                                 "valid_until: \"2026-02-30\"\n", "# 乙\n\n正文。\n"),
        "knowledge/crops/c.md": ("丙", "crop-protection",
                                 "crop: [小麦]\ndisease: [赤霉病]\nsupersedes: 5\nvalid_until: next spring\n",
                                 "# 丙\n\n正文。\n"),
        "knowledge/crops/d.md": ("丁", "crop-protection",
                                 "crop: [小麦]\ndisease: [赤霉病]\nsupersedes: [crops/a, knowledge/crops/c.md]\n"
                                 "valid_until: \"2027-12-31\"\n", "# 丁\n\n正文。\n"),
    }
    monkeypatch.chdir(make_repo(tmp_path / "r", docs))
    res = kb("check")
    assert res.exit_code == 1
    lines = [ln for ln in res.output.splitlines() if ": error: " in ln]
    assert "knowledge/crops/a.md:10:1: error: supersedes-missing: supersedes " \
           "'crops/no-such-doc.md': no such document" in res.output
    assert "knowledge/crops/b.md:10:1: error: supersedes-missing: supersedes " \
           "'knowledge/crops/b.md': a document cannot supersede itself" in res.output
    assert "knowledge/crops/b.md:11:1: error: fm-value: valid_until: '2026-02-30' is not a " \
           "real date" in res.output
    assert any(ln.startswith("knowledge/crops/c.md:10:1: error: fm-value: supersedes:")
               for ln in lines)
    assert "knowledge/crops/c.md:11:1: error: fm-value: valid_until: 'next spring' is not a " \
           "date (YYYY-MM-DD, e.g. 2026-12-31)" in res.output
    assert not any("crops/d.md" in ln for ln in lines)  # path forms, `.md` optional
    assert "Traceback" not in res.output


# every interface ---------------------------------------------------------------------------
def test_kb_query_text_and_json_show_both(built, monkeypatch):
    monkeypatch.chdir(built)
    res = kb("query", "--no-log", "-k", "3", "赤霉病 多菌灵 药剂")
    assert res.exit_code == 0, res.output
    assert f"superseded by {NEW}" in res.output and "[SUPERSEDED]" in res.output
    res = kb("query", "--no-log", "ingest API requests per minute rate limit 429")
    assert "[POSSIBLY OUTDATED]" in res.output and "valid until 2020-01-01" in res.output
    out = json.loads(kb("query", "--no-log", "--json", "rate limit 429").stdout)
    top = next(r for r in out["results"] if r["doc"] == LIMITS)
    assert top["outdated"] is True and top["superseded_by"] == []


def test_mcp_search_and_web_app_show_both(built):
    async def scenario(c):
        return await c.call_tool("search", {"query": "赤霉病 多菌灵 药剂 rate limit 429", "k": 5})

    env = {"KB_HOME": str(built / ".kbhome"), "HF_HUB_OFFLINE": "1", "PATH": os.environ["PATH"]}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    got = mcp_client([KB, "mcp"], built, env, scenario)
    results = {r["doc"]: r for r in json.loads(got.content[0].text)["results"]}
    assert results[OLD]["superseded_by"] == [NEW] and results[LIMITS]["outdated"] is True
    with TestClient(create_app(built / "dist"), base_url="http://127.0.0.1") as client:
        page = client.get("/", params={"q": "赤霉病 多菌灵 药剂 rate limit 429", "k": 5}).text
    assert page.count('class="badge warn outdated"') == 1
    assert f'class="badge warn superseded">Superseded by {NEW}<' in page \
        or f'class="badge warn superseded">已被替代： {NEW}<' in page


def test_document_page_and_search_agree_on_the_day_also_across_midnight(built, monkeypatch):
    """The web app's document page says "possibly outdated" on the same day as the search
    (the local date, `freshness.local_today`), and a long-lived app turns at midnight: it
    asks the clock on every request."""
    clock = [date(2020, 1, 1)]  # LIMITS is valid through 2020-01-01
    monkeypatch.setattr("kbtools.query.freshness.local_today", lambda: clock[0])
    q = {"q": "ingest API requests per minute rate limit 429", "k": 5}
    badge = 'class="badge warn">可能已过期<'
    with TestClient(create_app(built / "dist"), base_url="http://127.0.0.1") as client:
        for day, outdated in ((date(2020, 1, 1), False), (date(2020, 1, 2), True)):
            clock[0] = day
            doc = client.get(f"/doc/{LIMITS}").text
            page = client.get("/", params=q).text
            api = client.get("/api/search", params=q).json()
            hit = next(r for r in api["results"] if r["doc"] == LIMITS)
            assert (badge in doc, 'badge warn outdated' in page, hit["outdated"]) == \
                (outdated, outdated, outdated), day
