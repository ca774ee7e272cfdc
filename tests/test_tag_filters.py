"""Tags as Obsidian users write them, in filters (session 34, issues 2 and 5).

Obsidian's nested tags (``tags: [病害/赤霉病, crops/wheat]``) are a hierarchy read from the
first part: its search's ``tag:#病害`` and Bases' ``file.hasTag("病害")`` find a note tagged
``病害/赤霉病``. ``--where tags=病害`` found none (the filter compared whole values), on every
surface: `kb query`, /api/search's ``where``, the MCP search tool's ``where``, the search
page's ``f.tags`` and a Milvus engine."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hostile import make_repo, mcp_client
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine import expr
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.index.reader import open_index
from kbtools.markdown.inline_tags import inline_tags
from kbtools.markdown.parser import parse_tokens
from kbtools.markdown.tags import parents, wanted_tag
from kbtools.query.filters import meant_values, value_matches
from kbtools.query.search import search
from kbtools.serve.app import create_app
from tests.milvus_server import facts_collection, milvus  # noqa: F401 - fixture

Q = "pump pressure test seal"
KB = str(Path(sys.executable).with_name("kb"))
# name -> the front matter's tags line ("" for none); `good` (make_repo's) has none either
TAGS = {
    "scab": "tags: [病害/赤霉病, Crops/Wheat]",
    "stripe": "tags:\n  - 病害/锈病/条锈病\n  - crops/wheat",
    "pests": "tags: [病害虫]",  # shares 病害's first characters, not its branch
    "hydraulic": 'tags: ["#Urgent", Maintenance/Hydraulics]',  # Obsidian's # kept, quoted
    "alias": "aliases: [PLC/HMI]",  # a / in another key is the value's own
    "plain": "",
    "inline": "",  # its tags are in its text (INLINE)
}
# Obsidian's inline tags, and what is none: in code, a link, after C or a URL, only digits
INLINE = ("Tagged #病害/白粉病 and #Urgent，in text; not `#code`, [#link](good.md), C#, "
          "https://example.org/#anchor, \\#escaped or #2024.\n\n```\n#fence\n```\n")


def _doc(name: str, front: str) -> str:
    return (f"---\ntitle: Pump {name}\ncategory: engineering\nproject: demo\nsource: test\n"
            f"author: alice@example.org\ntimestamp: \"2026-03-14T09:30:00+08:00\"\n"
            f"verified: false\n{front + chr(10) if front else ''}---\n\n# Pump {name}\n\n"
            f"The {name} pump primes before the pressure test and holds its seal.\n"
            + ("\n" + INLINE if name == "inline" else ""))


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("tags"),
                     docs={f"knowledge/{n}.md": _doc(n, fm) for n, fm in TAGS.items()})
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    return repo / "dist"


def _names(results) -> set[str]:
    return {Path(r["doc"]).stem for r in results}


def _cli(dist: Path, *args: str):
    return CliRunner().invoke(main, ["query", Q, "--index", str(dist), "--no-log", *args],
                              prog_name="kb")


ALL = {*TAGS, "good"}
CASES = [
    ("tags=病害", {"scab", "stripe", "inline"}),  # a parent matches the tags nested under it
    ("tags=病害/锈病", {"stripe"}),  # a branch matches only its own
    ("tags=病害/赤霉病", {"scab"}),
    ("tags=病害/锈病/条锈病", {"stripe"}),
    ("tags=#病害", {"scab", "stripe", "inline"}),  # as Obsidian's search writes it: tag:#病害
    ("tags=病害/", {"scab", "stripe", "inline"}),
    ("tags=病害虫", {"pests"}),
    ("tags=赤霉病", set()),  # a later part alone is no branch (Obsidian's search neither)
    ("tags!=病害", ALL - {"scab", "stripe", "inline"}),  # the complement
    ("tags!=病害/锈病", ALL - {"stripe"}),
    ("tags=crops", {"scab", "stripe"}),  # any letter case, as every filter compares
    ("tags=CROPS/wheat", {"scab", "stripe"}),
    ("tags=maintenance", {"hydraulic"}),
    ("tags=urgent", {"hydraulic", "inline"}),  # a front-matter tag written with its #
    ("tags=#URGENT", {"hydraulic", "inline"}),
    ("tags!=urgent", ALL - {"hydraulic", "inline"}),
    ("tags=病害/白粉病", {"inline"}),  # a tag of the text
    ("tags!=病害/白粉病", ALL - {"inline"}),
    ("tags=code", set()), ("tags=link", set()), ("tags=anchor", set()),  # no tags
    ("tags=escaped", set()), ("tags=2024", set()), ("tags=fence", set()),
    ("aliases=PLC", set()),  # only tags are read as nested
    ("aliases=plc/hmi", {"alias"}),
]


@pytest.mark.parametrize(("where", "docs"), CASES)
def test_kb_query_reads_nested_tags_as_obsidian_does(dist, where, docs):
    res = _cli(dist, "--json", "-k", "20", "--where", where)
    assert res.exit_code == 0, res.output
    assert _names(json.loads(res.output)["results"]) == docs


@pytest.mark.parametrize(("where", "docs"), CASES[:9])
def test_the_api_and_the_search_page_read_nested_tags_alike(dist, where, docs):
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        api = client.get("/api/search", params={"q": Q, "k": 20, "where": where}).json()
        assert _names(api["results"]) == docs
        key, op, value = where.partition("!=") if "!=" in where else where.partition("=")
        if op == "=":  # the page's menus choose equal values (f.KEY=VALUE)
            page = client.get("/", params={"q": Q, "f." + key: value, "lang": "en"})
            assert page.status_code == 200
            assert {n for n in ALL if f'data-doc="knowledge/{n}.md"' in page.text} == docs


def test_mcp_search_reads_nested_tags(dist, tmp_path):
    env = {"KB_HOME": str(tmp_path / ".kbhome"), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "PATH": os.environ.get("PATH", "")}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]

    async def scenario(c):
        return [await c.call_tool("search", {"query": Q, "k": 20, "where": [w]})
                for w in ("tags=病害", "tags!=病害", "tags=crops")]

    parent, other, english = mcp_client([KB, "mcp", "--index", str(dist)], tmp_path, env,
                                        scenario)
    assert _names(parent.structured_content["results"]) == {"scab", "stripe", "inline"}
    assert _names(other.structured_content["results"]) == ALL - {"scab", "stripe", "inline"}
    assert _names(english.structured_content["results"]) == {"scab", "stripe"}


def test_results_show_the_tags_as_written(dist):
    res = search(open_index(dist), Q, k=20, where=["tags=病害"], keep_results=True).to_dict()
    shown = {Path(r["doc"]).stem: r["metadata"].get("tags") for r in res["results"]}
    assert shown == {"scab": ["病害/赤霉病", "Crops/Wheat"],
                     "stripe": ["病害/锈病/条锈病", "crops/wheat"],
                     "inline": None}  # the front matter as written: its tags are its text's
    urgent = search(open_index(dist), Q, k=20, where=["tags=urgent"], keep_results=True)
    assert [r["metadata"].get("tags") for r in urgent.to_dict()["results"]] == \
        [["#Urgent", "Maintenance/Hydraulics"], None]


@pytest.mark.parametrize(("typed", "meant"), [
    ("病虫", "tags=病害"),  # a branch no document writes alone is named (病害虫 too)
    ("病害/赤酶病", "tags=病害/赤霉病"),
    ("crop", "tags=crops"),
    ("Maintenence", "tags=Maintenance"),
    ("urgnet", "tags=Urgent"),  # named without the # the front matter gives it
])
def test_a_mistyped_tag_names_the_tag_or_branch_meant(dist, typed, meant):
    assert meant in meant_values(open_index(dist), ("tags", "=", typed))
    res = _cli(dist, "--where", f"tags={typed}")
    assert res.exit_code == 0, res.output
    said = res.output.split("did you mean ", 1)[1].split("?")[0]
    assert meant in said.replace(" or ", ", ").split(", ")


@pytest.mark.parametrize(("want", "branch"), [
    ("病害", "病害"), ("#病害", "病害"), ("病害/", "病害"), ("  #a/b/ ", "a/b"), ("/", "/")])
def test_the_branch_a_value_names(want, branch):
    assert wanted_tag(want) == branch


def test_a_tag_is_nested_under_each_branch_before_its_slashes():
    assert list(parents("a/b/c")) == ["a", "a/b"]
    assert list(parents("a//b")) == ["a", "a/"]
    assert list(parents("plain")) == []


# the engine selects the rows the local mask selects ------------------------------------
FACTS = [
    {"tags": ["病害/赤霉病", "Crops/Wheat"]},
    {"tags": ["病害/锈病/条锈病"]},
    {"tags": ["病害虫", 2024]},
    {"tags": ["#Urgent", "2024/q1"]},
    {"tags": "a//b"},
    {"tags": []},
    {"aliases": ["PLC/HMI"]},
    {},
]
WANTS = ["病害", "病害/锈病", "#病害", "病害/", "赤霉病", "crops", "CROPS/WHEAT", "urgent",
         "#urgent", "2024", "2024.0", "a", "a/", "a//b", "/", "病害虫", "plc"]


@pytest.fixture(scope="module")
def coll(milvus):  # noqa: F811
    with facts_collection(milvus, "tags", "facts", [(f, False) for f in FACTS]) as engine:
        yield engine


@pytest.mark.parametrize("key", ["tags", "aliases"])
@pytest.mark.parametrize("op", ["=", "!="])
@pytest.mark.parametrize("want", WANTS)
def test_the_engine_reads_nested_tags_as_the_local_mask(coll, key, op, want):
    local = [i for i, f in enumerate(FACTS) if value_matches(key, f.get(key), op, want)]
    got = coll.client.query("facts", filter=expr.condition(key, op, want),
                            output_fields=["num"], consistency_level="Strong")
    assert sorted(int(r["num"]) for r in got) == local
    if key == "tags" and op == "=" and want in ("病害", "#病害", "病害/"):
        assert local == [0, 1]  # the rule itself, not only agreement


# inline tags: read from the parser's tokens ---------------------------------------------
@pytest.mark.parametrize(("text", "tags"), [
    ("防治要点 #病害/赤霉病 #小麦 。", ("病害/赤霉病", "小麦")),
    ("#Urgent，先停机。 #检修:液压", ("Urgent", "检修")),  # ends at punctuation
    ("先停机。#检修", ()),  # a # after no whitespace starts none
    ("Line one\n#first-line #snake_case #y1984 #3机组", ("first-line", "snake_case", "y1984",
                                                       "3机组")),  # a non-digit makes a tag
    ("**#重点** and _#focus_", ("重点", "focus")),  # emphasis shows the tag
    ("## 防治 #病害\n\n- #item\n> #quote\n\n| a |\n|---|\n| #cell |", ("病害", "item", "quote",
                                                                        "cell")),
    ("#a #a #b", ("a", "b")),  # each once
    ("C# 和 #3、#1984 or 12#34", ()),  # after a letter, only digits
    ("`#code` [#link](x.md) [[note#heading]] [[a| #b]] $#m$ %%#note%%", ()),
    ("https://example.org/page#anchor <span>#html</span> \\#escaped a**#b**", ()),
    ("```\n#fence\n```\n\n    #indented\n\n<div>\n#block\n</div>", ()),
])
def test_inline_tags_are_read_as_obsidian_reads_them(text, tags):
    assert inline_tags(parse_tokens(text, {})) == tags


def test_the_engine_filters_inline_and_nested_tags_as_the_local_index(dist, milvus):  # noqa: F811
    url = milvus.url("tagrelease")
    engine = connect_url(url, create_db=True)
    try:
        publish(engine, check_release(dist))
    finally:
        engine.close()
    for where in ("tags=病害", "tags!=病害", "tags=urgent", "tags=病害/白粉病", "tags=fence"):
        local = _cli(dist, "--json", "-k", "20", "--where", where)
        remote = CliRunner().invoke(main, ["query", Q, "--engine", url, "--no-log", "--json",
                                           "-k", "20", "--where", where])
        assert remote.exit_code == 0, remote.output
        assert _names(json.loads(remote.output)["results"]) == \
            _names(json.loads(local.output)["results"]), where
