"""A search citing one section of a small page (one chunk, `kbtools.query.cited_parts`) says
the trust facts of that section's lines — verified or lapsed, who reviewed, who changed it
last and when — as `kb read` says them, not the chunk's (a sibling section edited after the
review used to lapse and date it). `kb read` of a citation of a section's own text, before
its first subsection, reads that text and names the subsections. Real repositories with a
review (tests/reviewkb.py), real builds, zh and en."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from reviewkb import ALICE, KB, MALLORY, RITA, doc_text

from kbtools.agents.read import open_knowledge, read_section
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine import candidates as engine_candidates
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.engine.remote import EngineReader
from kbtools.index.reader import open_index
from kbtools.query.search import search
from tests.milvus_server import (
    MilvusLite,
    milvus,  # noqa: F401 - fixture
)

PUMP = "knowledge/pump.md"
FAN = "knowledge/fan.md"
PUMP_BODY = """# 离心泵保养

本页说明离心泵的日常保养。

## 更换机械密封

停泵后拆下泵盖，取出旧密封，装入新密封并涂少量润滑脂。

## 轴承加油

每运行500小时给轴承加注锂基润滑脂，每次约15克。

## 叶轮清洗

叶轮结垢时用软毛刷清洗，不得使用钢丝刷。
"""
FAN_BODY = """# Fan care

How to look after the fan.

## Belt tension

Press the belt midway; it should deflect about 10 mm.

## Bearing grease

Grease the bearings every 2000 hours with 5 g of EP2 grease.
"""
REVIEWED = dict(verified=True, by="rita@ex.org", at="2026-02-02T10:00:00+08:00")
WRITTEN = "2026-02-01T10:00:00+08:00"
EDITED = "2026-02-03T10:00:00+08:00"


Edit = tuple[str, str, str, str]  # a page: its path, body, and a text edited after review


def _reviewed(tmp_path_factory: pytest.TempPathFactory, pages: tuple[Edit, ...]) -> KB:
    """Pages written, reviewed, then each edited (`old` to `new`) by Mallory; built."""
    mp = pytest.MonkeyPatch()
    mp.setenv("KB_HOME", str(tmp_path_factory.mktemp("kbhome")))
    kb = KB(tmp_path_factory.mktemp("trust") / "kb")
    try:
        for rel, body, _, _ in pages:
            kb.put(doc_text(body, title=body[2:body.index("\n")]), "add", ALICE, WRITTEN, rel)
            kb.put(doc_text(body, title=body[2:body.index("\n")], **REVIEWED), "review", RITA,
                   "2026-02-02T10:00:00+08:00", rel)
        for rel, body, old, new in pages:
            kb.put(doc_text(body.replace(old, new), title=body[2:body.index("\n")],
                            **REVIEWED), "edit", MALLORY, EDITED, rel)
        build(load_config(kb.root), BuildOptions(progress=False))
    finally:
        mp.undo()
    return kb


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KB:
    """Two small reviewed pages, one section of each edited after the review, built."""
    return _reviewed(tmp_path_factory, (
        (PUMP, PUMP_BODY, "不得使用钢丝刷", "严禁使用钢丝刷"),
        (FAN, FAN_BODY, "about 10 mm", "about 12 mm")))


def _top(kb: KB, question: str) -> dict[str, object]:
    out = CliRunner().invoke(main, ["query", question, "--index", str(kb.root / "dist"),
                                    "--json", "-k", "1"])
    assert out.exit_code == 0, out.output
    top: dict[str, object] = json.loads(out.output)["results"][0]
    return top


def _read(kb: KB, citation: str, *args: str) -> dict[str, object]:
    out = CliRunner().invoke(main, ["read", citation, *args, "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.output)
    read: dict[str, object] = got.get("section", got)
    return read


def _facts(d: dict[str, object]) -> tuple[object, ...]:
    v = d["verification"]
    assert isinstance(v, dict)
    return d["verified"], v["review"], d["last_author"], d["last_changed"]


@pytest.mark.parametrize(("question", "citation", "verified", "author", "changed"), [
    ("轴承加注多少润滑脂", f"{PUMP}:22-24 § 离心泵保养 > 轴承加油", True, ALICE, WRITTEN),
    ("叶轮用什么清洗", f"{PUMP}:26-28 § 离心泵保养 > 叶轮清洗", False, MALLORY, EDITED),
    ("how much grease for the bearings", f"{FAN}:22-24 § Fan care > Bearing grease", True,
     ALICE, WRITTEN),
    ("belt tension deflect", f"{FAN}:18-20 § Fan care > Belt tension", False, MALLORY, EDITED),
])
def test_a_cited_section_says_the_trust_facts_of_its_own_lines(
        kb: KB, monkeypatch: pytest.MonkeyPatch, question: str, citation: str,
        verified: bool, author: object, changed: str) -> None:
    top = _top(kb, question)
    assert top["citation"] == citation
    assert _facts(top) == (verified, top["verification"]["review"],  # type: ignore[index]
                           author.name, changed)  # type: ignore[attr-defined]
    assert top["verification"]["review"]["by"] == "rita@ex.org"  # type: ignore[index]
    assert top["verification"]["status"] == ("verified" if verified else "lapsed")  # type: ignore[index]
    # `kb read` of the citation says the same of those lines, from the index and the files
    assert _facts(_read(kb, citation, "--index", str(kb.root / "dist"))) == _facts(top)
    monkeypatch.chdir(kb.root)
    assert _facts(_read(kb, citation)) == _facts(top)
    from_files = read_section(open_knowledge(kb.root), citation).to_dict()
    assert _facts(from_files) == _facts(top)


@pytest.mark.parametrize(("question", "citation", "intro", "subsections"), [
    ("离心泵的日常保养", f"{PUMP}:14-16 § 离心泵保养", "本页说明离心泵的日常保养。",
     ["更换机械密封", "轴承加油", "叶轮清洗"]),
    ("how to look after the fan", f"{FAN}:14-16 § Fan care", "How to look after the fan.",
     ["Belt tension", "Bearing grease"]),
])
def test_reading_a_citation_of_a_sections_own_text_reads_that_and_names_the_rest(
        kb: KB, monkeypatch: pytest.MonkeyPatch, question: str, citation: str, intro: str,
        subsections: list[str]) -> None:
    top = _top(kb, question)
    assert top["citation"] == citation
    assert top["verified"] is True  # the edits were in subsections, not in the intro
    for args in (("--index", str(kb.root / "dist")), ()):
        monkeypatch.chdir(kb.root)
        read = _read(kb, citation, *args)
        assert read["citation"] == citation
        assert read["markdown"] == f"# {citation.rsplit('§ ', 1)[1]}\n\n{intro}"
        assert read["intro"] is True and read["subsections"] == subsections
        assert read["verified"] is True
    shown = CliRunner().invoke(main, ["read", citation])
    assert shown.exit_code == 0, shown.output
    named = "; ".join(subsections)  # said in the language of the heading cited (kb read)
    assert shown.output.rstrip().endswith(
        f"{intro}\n\n（它的子章节，这里没有读：{named}）" if intro.startswith("本")
        else f"{intro}\n\n(its subsections, not read here: {named})")
    # the section by its heading alone is still the whole section
    whole = _read(kb, f"{citation.split(':')[0]} § {citation.rsplit('§ ', 1)[1]}")
    assert whole["intro"] is False and subsections[-1] in str(whole["markdown"])


def test_two_cited_sections_are_verified_only_when_both_are(kb: KB) -> None:
    """Bearings (kept) and impeller (edited) both answer: the span holds the edited lines,
    so it is lapsed and dated by that edit, as a read of those lines says."""
    top = _top(kb, "轴承加油 叶轮清洗")
    assert top["citation"] == f"{PUMP}:22-28 § 离心泵保养"
    assert _facts(top)[::2] == (False, MALLORY.name)
    assert top["last_changed"] == EDITED
    assert _facts(_read(kb, str(top["citation"]), "--index", str(kb.root / "dist"))) \
        == _facts(top)


def _verified_only(kb: KB, question: str, *args: str) -> list[dict[str, object]]:
    out = CliRunner().invoke(main, ["query", question, "--index", str(kb.root / "dist"),
                                    "--json", *args])
    assert out.exit_code == 0, out.output
    results: list[dict[str, object]] = json.loads(out.output)["results"]
    assert all(r["verified"] is True for r in results)
    return results


@pytest.mark.parametrize(("question", "citation", "edited"), [
    ("轴承加注多少润滑脂", f"{PUMP}:22-24 § 离心泵保养 > 轴承加油", "钢丝刷"),
    ("轴承加油 叶轮清洗", f"{PUMP}:22-24 § 离心泵保养 > 轴承加油", "钢丝刷"),
    ("how much grease for the bearings", f"{FAN}:22-24 § Fan care > Bearing grease", "12 mm"),
])
@pytest.mark.parametrize("only", [("--verified-only",), ("--where", "verified=true")])
def test_verified_only_keeps_a_page_for_its_verified_section_and_cites_that_alone(
        kb: KB, question: str, citation: str, edited: str, only: tuple[str, ...]) -> None:
    """The page's chunk is lapsed (a sibling section was edited after the review), but the
    section answering is verified: kept, cited alone, its text without the edited one's."""
    top = _verified_only(kb, question, *only)[0]
    assert top["citation"] == citation and top["verified"] is True
    assert top["verification"]["status"] == "verified"  # type: ignore[index]
    assert edited not in str(top["text"])


@pytest.mark.parametrize(("question", "doc"), [("叶轮用什么清洗", PUMP),
                                               ("belt tension deflect", FAN)])
def test_verified_only_leaves_out_a_page_whose_answering_section_was_edited(
        kb: KB, question: str, doc: str) -> None:
    for r in _verified_only(kb, question, "--verified-only"):
        assert not str(r["citation"]).startswith(doc), r["citation"]


@pytest.mark.parametrize("exact", [True, False])
def test_verified_only_cites_the_same_verified_section_in_milvus(
        kb: KB, milvus: MilvusLite, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        exact: bool) -> None:
    """Milvus holds the chunk's `verified` (false): its filter is widened to the chunks
    kept for a verified section, so the engine's candidates (BM25, and vectors ranked
    exactly or by its graph) and results are the local ones."""
    if not exact:  # the engine's graph searched with the filter expression
        monkeypatch.setattr(engine_candidates, "EXACT_FILTERED", 0)
        monkeypatch.setattr(engine_candidates, "FEW_VECTORS", 0)
    engine = connect_url(milvus.url("cited"), create_db=True)
    try:
        publish(engine, check_release(kb.root / "dist"))
        local, remote = open_index(kb.root / "dist"), EngineReader(engine).current()
        for question in ("轴承加注多少润滑脂", "how much grease for the bearings", "叶轮用什么清洗"):
            got = [[(r.citation.text(), r.verified, r.text, r.score) for r in search(
                index, question, k=3, verified_only=True).results] for index in (local, remote)]
            assert got[0] == got[1]
        top = search(remote, "轴承加注多少润滑脂", k=1, verified_only=True).results[0]
        assert top.citation.text() == f"{PUMP}:22-24 § 离心泵保养 > 轴承加油" and top.verified
        for question in ("轴承加油 叶轮清洗", "belt tension deflect"):  # verified=false alike
            got = [[(r.citation.text(), r.verified, r.text, r.score) for r in search(
                index, question, k=3, where=["verified=false"]).results]
                for index in (local, remote)]
            assert got[0] == got[1] and not any(v for _, v, _, _ in got[0])
    finally:
        engine.close()


def test_mcp_and_api_verified_only_cite_the_verified_section(kb: KB) -> None:
    """MCP `search` and `/api/search` with `verified_only` answer as `kb query` does."""
    from starlette.testclient import TestClient

    from kbtools.agents.mcp_server import Context, tool_search
    from kbtools.serve.app import create_app

    dist, cited = kb.root / "dist", f"{PUMP}:22-24 § 离心泵保养 > 轴承加油"
    got = tool_search(Context(index=dist, root=kb.root, query_log=False), "轴承加注多少润滑脂",
                      1, verified_only=True)
    assert got["results"][0]["citation"] == cited and got["results"][0]["verified"] is True
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        res = client.get("/api/search", params={"q": "轴承加注多少润滑脂", "k": 1,
                                                "verified_only": "true"})
        assert res.status_code == 200, res.text
        top = res.json()["results"][0]
        assert top["citation"] == cited and "钢丝刷" not in top["text"]
        res = client.get("/api/search", params={"q": "叶轮用什么清洗", "verified_only": "true"})
        assert all(not r["citation"].startswith(PUMP) for r in res.json()["results"])


def _unverified(kb: KB, question: str, *args: str) -> list[dict[str, object]]:
    out = CliRunner().invoke(main, ["query", question, "--index", str(kb.root / "dist"),
                                    "--json", *args])
    assert out.exit_code == 0, out.output
    results: list[dict[str, object]] = json.loads(out.output)["results"]
    assert all(r["verified"] is False for r in results), [r["citation"] for r in results]
    return results


@pytest.mark.parametrize(("question", "citation", "kept"), [
    ("叶轮用什么清洗", f"{PUMP}:26-28 § 离心泵保养 > 叶轮清洗", "锂基润滑脂"),
    ("轴承加油 叶轮清洗", f"{PUMP}:26-28 § 离心泵保养 > 叶轮清洗", "锂基润滑脂"),
    ("belt tension deflect", f"{FAN}:18-20 § Fan care > Belt tension", "EP2"),
])
@pytest.mark.parametrize("where", ["verified=false", "verified!=true", "verified=否"])
def test_unverified_filter_cites_the_pages_edited_section_alone(
        kb: KB, question: str, citation: str, kept: str, where: str) -> None:
    """`verified=false` keeps the lapsed page for its edited section and cites that: never
    the verified section beside it, nor the page whole with the verified text."""
    top = _unverified(kb, question, "--where", where)[0]
    assert top["citation"] == citation
    assert top["verification"]["status"] == "lapsed"  # type: ignore[index]
    assert kept not in str(top["text"])


@pytest.mark.parametrize(("question", "doc"), [("轴承加注多少润滑脂", PUMP),
                                               ("how much grease for the bearings", FAN)])
def test_unverified_filter_leaves_out_a_page_answered_by_its_verified_section(
        kb: KB, question: str, doc: str) -> None:
    """The question's words lie in a section still verified: under `verified=false` the
    page is not cited for it (as its verified section, or whole)."""
    for r in _unverified(kb, question, "--where", "verified=false"):
        assert not str(r["citation"]).startswith(doc), r["citation"]


def test_mcp_and_api_unverified_filter_cite_the_edited_section(kb: KB) -> None:
    """MCP `search` and `/api/search` with `verified_only=false` and `verified=false`
    answer as `kb query --where verified=false` does."""
    from starlette.testclient import TestClient

    from kbtools.agents.mcp_server import Context, tool_search
    from kbtools.serve.app import create_app

    dist, cited = kb.root / "dist", f"{PUMP}:26-28 § 离心泵保养 > 叶轮清洗"
    got = tool_search(Context(index=dist, root=kb.root, query_log=False), "轴承加油 叶轮清洗",
                      1, where="verified=false", verified_only=False)
    assert got["results"][0]["citation"] == cited and got["results"][0]["verified"] is False
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        res = client.get("/api/search", params={"q": "轴承加油 叶轮清洗", "k": 1,
                                                "where": "verified=false",
                                                "verified_only": "false"})
        assert res.status_code == 200, res.text
        top = res.json()["results"][0]
        assert top["citation"] == cited and "锂基润滑脂" not in top["text"]
        res = client.post("/api/search", json={"query": "轴承加注多少润滑脂",
                                               "where": ["verified=false"]})
        assert all(r["verified"] is False for r in res.json()["results"])


TOWER = "knowledge/tower.md"
BOILER = "knowledge/boiler.md"
# a long intro cut into chunks with a one-sentence overlap: its last chunk starts inside the
# paragraph's line and holds the small section after it
TOWER_BODY = "# 冷却塔巡检\n\n" + "".join(
    f"第{i}步检查冷却塔的填料是否结垢并记录水温。" for i in range(1, 70)) + \
    "\n\n## 风机皮带\n\n风机皮带每季度检查一次张紧度，下压十毫米为宜。\n"
BOILER_BODY = "# Boiler rounds\n\n" + " ".join(
    f"Step {i}: check the boiler water gauge and log the level." for i in range(1, 45)) + \
    "\n\n## Nozzle\n\nBrush it each 500 h.\n"


AIR = "knowledge/air.md"
# a small page (one chunk of three sections) whose list items and table rows are chunks too
AIR_BODY = """# 空压机点检

每班开机前点检空压机。

## 点检项目

- 油位应在视窗的三分之二处，低于一半时补加同牌号的压缩机油。
- 排水阀每班打开一次，排出储气罐里的冷凝水，直到只有空气排出。
- 皮带应无裂纹和油污，用手指按压中部下沉约十毫米。

| 部位 | 要求 |
| --- | --- |
| 安全阀 | 每月手动试跳一次 |
| 压力表 | 每年送检 |

## 记录

点检结果写入班组日志。
"""


@pytest.fixture(scope="module")
def long_kb(tmp_path_factory: pytest.TempPathFactory) -> KB:
    """Two reviewed pages whose long intro paragraph (one line) was edited after the review,
    and a small page one table row of which was."""
    return _reviewed(tmp_path_factory, (
        (TOWER, TOWER_BODY, "第2步检查", "第2步仔细检查"),
        (BOILER, BOILER_BODY, "Step 2: check", "Step 2: carefully check"),
        (AIR, AIR_BODY, "每年送检", "每半年送检")))


@pytest.mark.parametrize(("question", "doc", "heading"), [
    ("风机皮带张紧度", TOWER, "冷却塔巡检 > 风机皮带"),
    ("how often to brush the nozzle", BOILER, "Boiler rounds > Nozzle"),
])
def test_a_section_after_a_long_intro_cut_mid_line_is_cited_with_its_own_facts(
        long_kb: KB, question: str, doc: str, heading: str) -> None:
    """The last chunk of a long intro starts inside its paragraph's line (the overlap
    sentence) and holds the small section after it: that section is cited alone, verified
    and last changed by its author, not lapsed and dated by the intro's edit."""
    lines = (long_kb.root / doc).read_text(encoding="utf-8").split("\n")
    first = next(i for i, line in enumerate(lines, 1) if line.startswith("## "))
    top = _top(long_kb, question)
    assert top["citation"] == f"{doc}:{first}-{first + 2} § {heading}"
    assert _facts(top)[::2] == (True, ALICE.name) and top["last_changed"] == WRITTEN
    assert "Step 3" not in str(top["text"]) and "第3步" not in str(top["text"])
    assert _facts(_read(long_kb, str(top["citation"]), "--index", str(long_kb.root / "dist"))) \
        == _facts(top)


@pytest.mark.parametrize("item", ["排水阀每班打开一次", "| 安全阀 |"])
def test_reading_a_list_item_or_row_beside_an_edited_row_says_its_own_lines_facts(
        long_kb: KB, monkeypatch: pytest.MonkeyPatch, item: str) -> None:
    """A list item's or table row's own line, in a section whose other row was edited
    after the review: `kb read` from the index says what git blame and the review say of
    that line (verified, Alice, when she wrote it), as `kb read` in the repository does,
    not the section's newest change."""
    lines = (long_kb.root / AIR).read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines, 1) if item in line)
    citation = f"{AIR}:{at}-{at}"
    read = _read(long_kb, citation, "--index", str(long_kb.root / "dist"))
    assert _facts(read)[::2] == (True, ALICE.name) and read["last_changed"] == WRITTEN
    monkeypatch.chdir(long_kb.root)
    assert _facts(_read(long_kb, citation)) == _facts(read)


def test_a_row_found_by_kind_says_the_facts_kb_read_says(long_kb: KB) -> None:
    """`--where kind=table_row` cites the row itself: its facts are its line's, as `kb
    read` of its lines says them from the index (a read of the citation reads the row's
    section, its header and the edited row with it)."""
    out = CliRunner().invoke(main, ["query", "安全阀多久试跳", "--index",
                                    str(long_kb.root / "dist"), "--json", "-k", "1",
                                    "--where", "kind=table_row"])
    assert out.exit_code == 0, out.output
    top = json.loads(out.output)["results"][0]
    assert "安全阀" in top["text"] and _facts(top)[::2] == (True, ALICE.name)
    lines = str(top["citation"]).split(" § ")[0]
    assert _facts(_read(long_kb, lines, "--index", str(long_kb.root / "dist"))) == _facts(top)
