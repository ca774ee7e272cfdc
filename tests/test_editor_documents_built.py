"""Documents as Obsidian and Typora save them, through `kb check`, `kb build` and `kb query`
(issues 2 and 3, session 34): what the editor shows is found and cited at its lines, and no
result holds what the editor hides or draws (`%% comments %%`, `^block-ids`, a callout's
`[!type]-`, `[TOC]`, a footnote's `[^1]`). A guard: each case was already right when
written; the block references these editors write are tested in test_block_references.py.

The Obsidian notes are saved with the settings docs/knowledge-authoring.md asks for
(standard relative links, a pasted picture's size as `<img width>`), one moved into a
subfolder with the links to it updated as Obsidian updates them (`%20` for a space)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM

PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
       b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
       b"\x00\x00\x00\x00IEND\xaeB`\x82")

SCAB = GOOD_FM.replace("title: Generated", "title: 小麦赤霉病防治").replace(
    "verified: false\n", "verified: false\ntags:\n  - 病害/赤霉病\n  - 小麦\naliases:\n"
    "  - 麦穗枯萎病\n  - Fusarium head blight\n") + """
# 小麦赤霉病防治

赤霉病在抽穗扬花期遇连阴雨易流行 #病害/赤霉病 #小麦 。 ^onset

==扬花初期是防治关键期==，每亩用药 50 克。 ^dose

%%内部备注：药价待核实%%

%%
## 草稿
报价单不要外传。
%%

> [!warning]- 用药安全
> 施药时佩戴口罩和手套。 ^mask
> > [!tip]+ 小技巧
> > 傍晚施药效果更好。

<img src="../../../assets/images/病穗.png" alt="病穗粉红色霉层" width="300">

药剂见 [防治总则 > 药剂选择](../总则/防治%20总则.md#药剂选择)。

## 症状 ^symptom

| 部位 | 症状 |
|---|---|
| 穗部 | 粉红色霉层 |

^symptom-table
"""
RULES = GOOD_FM.replace("title: Generated", "title: 防治总则").replace(
    "verified: false\n", "verified: false\ntags: [病害, 总则]\n") + """
# 防治总则

预防为主，综合防治。

## 药剂选择

优先选用低毒药剂，轮换使用不同作用机理的药剂。
"""
PUMP = GOOD_FM.replace("title: Generated", "title: Irrigation pump").replace(
    "verified: false\n", "verified: false\ntags: [pump, maintenance]\n") + """
# Irrigation pump

> [!warning]+ Lockout
> Cut power before opening the housing. ^lockout
> %% ask the vendor about the torque %%

Replace the ==mechanical seal== every 2000 hours. ^seal
"""
SPRAYER = "\ufeff" + GOOD_FM.replace("title: Generated", "title: 喷雾机使用说明") + """
[TOC]

# 喷雾机使用说明

## 图片

![田间照片](../../assets/images/田间%20照片.png)

<img src="../../assets/images/田间 照片.png" alt="喷头雾化状态" style="zoom:50%;" />

## 公式

当温度$T$升高时，药液蒸发速率$v$增大。

$$
Q = \\frac{q A}{\\eta} \\tag{1}
$$

## 注意

药量按标签执行[^1]。

[^1]: 以农药登记证为准。

- [ ] 检查喷头是否堵塞
- [x] 加注清水试喷

| 命令 | 说明 |
|---|---|
| `ls \\| grep nozzle` | 过滤喷头日志 |
"""
DOCS = {"knowledge/病害/小麦/赤霉病.md": SCAB, "knowledge/病害/总则/防治 总则.md": RULES,
        "knowledge/en/pump.md": PUMP, "knowledge/设备/喷雾机.md": SPRAYER}
# what an editor hides or draws, which no result may hold
HIDDEN = ("药价待核实", "报价单", "不要外传", "torque", "%%", "[!warning]", "[!tip]", "[TOC]",
          "[^1]")
BLOCK_ID = re.compile(r"(?:^|\s)\^[A-Za-z0-9-]+\s*$", re.M)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("editors")
    (root / "assets" / "images").mkdir(parents=True)
    for name in ("病穗.png", "田间 照片.png"):
        (root / "assets" / "images" / name).write_bytes(PNG)
    return make_repo(root, docs=DOCS)


@pytest.fixture(scope="module")
def built(repo: Path) -> Path:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(repo)
        check = CliRunner().invoke(main, ["check", "--no-cache"])
        assert check.exit_code == 0, check.output
        assert [line.split(": ")[2] for line in check.stdout.splitlines()] == [
            "encoding-bom"], check.stdout  # the BOM Typora may save: a warning only
        build = CliRunner().invoke(main, ["build", "-q"])
        assert build.exit_code == 0, build.output
    return repo / "dist"


def query(dist: Path, question: str, *where: str) -> list[dict]:
    args = ["query", "--index", str(dist), "--no-log", "--json", "-k", "5", question]
    for w in where:
        args += ["--where", w]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["results"]


def line_of(doc: str, needle: str) -> int:
    [n] = [i for i, line in enumerate(DOCS[doc].lstrip("\ufeff").split("\n"), 1)
           if needle in line]
    return n


@pytest.mark.parametrize(("question", "doc", "needle"), [
    ("傍晚施药效果更好", "knowledge/病害/小麦/赤霉病.md", "傍晚施药"),  # a folded, nested callout
    ("扬花初期是防治关键期", "knowledge/病害/小麦/赤霉病.md", "扬花初期"),  # a highlight
    ("穗部 粉红色霉层", "knowledge/病害/小麦/赤霉病.md", "| 穗部"),  # a row with a block id below
    ("病穗粉红色霉层 图片", "knowledge/病害/小麦/赤霉病.md", "<img"),  # a picture's alt text
    ("Cut power before opening the housing", "knowledge/en/pump.md", "Cut power"),
    ("mechanical seal 2000 hours", "knowledge/en/pump.md", "mechanical seal"),
    ("以农药登记证为准", "knowledge/设备/喷雾机.md", "[^1]:"),  # a footnote's text
    ("检查喷头是否堵塞", "knowledge/设备/喷雾机.md", "检查喷头"),  # a task list item
    ("喷头雾化状态", "knowledge/设备/喷雾机.md", "喷头雾化"),  # Typora's resized picture
    ("grep nozzle 过滤喷头日志", "knowledge/设备/喷雾机.md", "grep"),  # `\\|` in a cell's code
])
def test_what_the_editor_shows_is_found_at_its_lines(built, question, doc, needle):
    results = query(built, question)
    hit = next((r for r in results if r["doc"] == doc), None)
    assert hit is not None, [r["citation"] for r in results]
    assert hit["line_start"] <= line_of(doc, needle) <= hit["line_end"], hit["citation"]


@pytest.mark.parametrize("question", [
    "药价待核实", "报价单不要外传", "torque vendor", "小麦赤霉病 用药安全 小技巧", "喷雾机 公式 目录",
    "Lockout irrigation pump", "症状 穗部"])
def test_no_result_holds_what_the_editor_hides(built, question):
    for r in query(built, question):
        for hidden in HIDDEN:
            assert hidden not in r["text"], (hidden, r["citation"])
        assert not BLOCK_ID.search(r["text"]), r["text"]
        assert "^symptom" not in " ".join(r["heading_path"])


def test_the_text_reads_as_the_editor_shows_it(built):
    [section] = [r for r in query(built, "小麦赤霉病 用药安全 傍晚施药")
                 if r["kind"] == "section" and r["doc"].endswith("赤霉病.md")][:1]
    assert "> 用药安全\n> 施药时佩戴口罩和手套。\n> > 小技巧\n> > 傍晚施药效果更好。" in section["text"]
    assert "#病害/赤霉病 #小麦 。\n" in section["text"]  # an inline tag as Obsidian shows it
    cell = next(r for r in query(built, "grep nozzle 过滤喷头日志") if r["kind"] == "table_row")
    assert cell["text"] == "命令: ls | grep nozzle\n说明: 过滤喷头日志"


def test_tags_and_aliases_as_obsidian_writes_them(built):
    """A YAML list of nested tags, a one-line list, and `aliases:` naming the note."""
    assert {r["doc"] for r in query(built, "防治", "tags=病害/赤霉病")} == {
        "knowledge/病害/小麦/赤霉病.md"}
    assert {r["doc"] for r in query(built, "防治", "tags=总则")} == {
        "knowledge/病害/总则/防治 总则.md"}
    assert {r["doc"] for r in query(built, "seal", "tags=pump")} == {"knowledge/en/pump.md"}
    args = ["query", "--index", str(built), "--no-log", "--json", "麦穗枯萎病 怎么防"]
    out = json.loads(CliRunner().invoke(main, args).stdout)
    assert out["results"][0]["doc"] == "knowledge/病害/小麦/赤霉病.md"
    assert {"field": "aliases", "value": "麦穗枯萎病", "effect": "boost"} in \
        out["filters"]["routed"]
