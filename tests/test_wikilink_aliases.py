"""Obsidian resolves `[[泵手册]]` to the note whose front matter lists `aliases: [泵手册]`
(`kbtools.check.aliases`): `kb check` said "no file '泵手册'" and `--fix` could not help,
and a device's page showed the wikilink as text. Now the finding names the note, `--fix`
writes the standard link, and a page links the note."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from click.testing import CliRunner
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.check import aliases
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.serve.app import create_app
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM

MANUAL = GOOD_FM.replace("verified: false", "verified: false\naliases: [泵手册, Pump Manual]") \
    + "\n# 水泵维护手册\n\n## 停机\n\n先断电。\n"
OLD = GOOD_FM.replace("verified: false", "verified: false\nalias: 旧手册") + "\n# 旧\n\n旧文。\n"
BODY = "\n# 巡检\n\n见 [[泵手册]]、[[pump manual#停机|停机步骤]]、[[旧手册]] 与 [[两处]]。\n"


def _repo(root: Path) -> Path:
    two = GOOD_FM.replace("verified: false", "verified: false\naliases: [两处]") + "\n# T\n\nx\n"
    return make_repo(root, docs={"knowledge/设备/水泵手册.md": MANUAL, "knowledge/旧/old.md": OLD,
                                 "knowledge/a.md": two, "knowledge/b.md": two,
                                 "knowledge/巡检/日常.md": GOOD_FM + BODY})


def test_a_wikilink_to_an_alias_is_named_and_fixed(tmp_path, monkeypatch):
    repo = _repo(tmp_path / "kb")
    monkeypatch.chdir(repo)
    out = CliRunner().invoke(main, ["check", "--no-cache", "knowledge/巡检/日常.md"]).stdout
    said = [line.split("plain text to kbtools (the link is not followed or checked); ")[1]
            for line in out.splitlines() if "link-wikilink" in line]
    assert said[0].startswith("'泵手册' is an alias (front matter `aliases`) of "
                              "'../设备/水泵手册.md': `kb check --fix` writes "
                              "'[泵手册](../设备/水泵手册.md)'"), said
    assert said[1].startswith("'pump manual' is an alias (front matter `aliases`) of "
                              "'../设备/水泵手册.md': `kb check --fix` writes "
                              "'[停机步骤](../设备/水泵手册.md#停机)'"), said
    assert said[2].startswith("'旧手册' is an alias (front matter `aliases`) of '../旧/old.md'")
    assert said[3].startswith("'两处' is an alias (front matter `aliases`) of 2 documents "
                              "('../a.md', '../b.md'): write a standard relative link"), said
    CliRunner().invoke(main, ["check", "--no-cache", "--fix", "knowledge/巡检/日常.md"])
    assert (repo / "knowledge/巡检/日常.md").read_text(encoding="utf-8").endswith(
        "见 [泵手册](../设备/水泵手册.md)、[停机步骤](../设备/水泵手册.md#停机)、"
        "[旧手册](../旧/old.md) 与 [[两处]]。\n")


def test_a_page_links_a_wikilink_to_an_alias(tmp_path):
    repo = _repo(tmp_path / "kb")
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        page = client.get("/doc/" + quote("knowledge/巡检/日常.md")).text
    manual = "/doc/" + quote("knowledge/设备/水泵手册.md")
    assert f'<a href="{manual}" data-print="/doc/knowledge/设备/水泵手册.md">泵手册</a>' in page
    assert f'href="{manual}#{quote("停机")}"' in page and ">停机步骤</a>" in page
    assert f'href="/doc/{quote("knowledge/旧/old.md")}"' in page
    assert "与 两处。" in page  # two notes: its text


EMBEDS = ("\n# 汇总\n\n![[泵手册]]\n\n![[Pump Manual#停机]]\n\n**[[泵手册]]** 与 ==[[pump manual|手册]]==\n"
          "\n![[两处]]\n")


def test_a_note_embedded_by_its_alias_is_named_fixed_and_linked(tmp_path, monkeypatch):
    """`![[泵手册]]` (a note embedded by its front matter alias, at a heading too) was "no file
    '泵手册'" to `kb check` and its text on the page, where `[[泵手册]]` was named, fixed and
    linked: an embedded note is a link to its page, named by its alias as by its name. The
    alias inside emphasis (`**[[泵手册]]**`, `==[[…|手册]]==`) is read so too."""
    repo = _repo(tmp_path / "kb")
    (repo / "knowledge/巡检/汇总.md").write_text(GOOD_FM + EMBEDS, encoding="utf-8")
    monkeypatch.chdir(repo)
    out = CliRunner().invoke(main, ["check", "--no-cache", "knowledge/巡检/汇总.md"]).stdout
    said = [line.split(": error: link-wikilink: ")[1] for line in out.splitlines()
            if "link-wikilink" in line]
    where = [line.split(": error:")[0] for line in out.splitlines() if "link-wikilink" in line]
    assert where == ["knowledge/巡检/汇总.md:13:1", "knowledge/巡检/汇总.md:15:1",
                     "knowledge/巡检/汇总.md:17:3", "knowledge/巡检/汇总.md:17:17",
                     "knowledge/巡检/汇总.md:19:1"], out
    assert "'泵手册' is an alias (front matter `aliases`) of '../设备/水泵手册.md': " \
           "`kb check --fix` writes '[泵手册](../设备/水泵手册.md)', a link" in said[0]
    assert "writes '[Pump Manual > 停机](../设备/水泵手册.md#停机)', a link" in said[1]
    assert "'两处' is an alias (front matter `aliases`) of 2 documents" in said[4]
    CliRunner().invoke(main, ["check", "--no-cache", "--fix", "knowledge/巡检/汇总.md"])
    assert (repo / "knowledge/巡检/汇总.md").read_text(encoding="utf-8").endswith(
        "\n[泵手册](../设备/水泵手册.md)\n\n[Pump Manual > 停机](../设备/水泵手册.md#停机)\n\n"
        "**[泵手册](../设备/水泵手册.md)** 与 ==[手册](../设备/水泵手册.md)==\n\n![[两处]]\n")


def test_a_page_links_a_note_embedded_by_its_alias(tmp_path):
    repo = _repo(tmp_path / "kb")
    (repo / "knowledge/巡检/汇总.md").write_text(GOOD_FM + EMBEDS, encoding="utf-8")
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        page = client.get("/doc/" + quote("knowledge/巡检/汇总.md")).text
    manual = "/doc/" + quote("knowledge/设备/水泵手册.md")
    assert f'<a href="{manual}" data-print="/doc/knowledge/设备/水泵手册.md">泵手册</a>' in page
    assert f'href="{manual}#{quote("停机")}"' in page  # (an English phrase: its own lang)
    assert '><span lang="en">Pump Manual</span> &gt; 停机</a>' in page
    assert "<strong><a href" in page and ">手册</a></mark>" in page
    assert "两处" in page and "![[两处]]" not in page


def test_a_warm_check_reads_no_front_matter_again_for_aliases(tmp_path, monkeypatch):
    """A check with one wikilink naming no file read and parsed every document's front
    matter again to look for aliases (1,222 documents: ~0.2 s of a ~0.7 s warm check). The
    aliases now come with each document's check result (cached with it): a warm check
    parses none again, and says the same."""
    repo = _repo(tmp_path / "kb")
    monkeypatch.chdir(repo)
    first = CliRunner().invoke(main, ["check", "knowledge"]).stdout
    parsed: list[str] = []
    real = aliases.parse_source

    def counting(text, path, rel, *args):
        parsed.append(rel)
        return real(text, path, rel, *args)

    monkeypatch.setattr(aliases, "parse_source", counting)
    assert CliRunner().invoke(main, ["check", "knowledge"]).stdout == first
    assert "'泵手册' is an alias (front matter `aliases`) of '../设备/水泵手册.md'" in first
    assert parsed == []
    one = CliRunner().invoke(main, ["check", "knowledge/巡检/日常.md"]).stdout
    assert one.splitlines() == [line for line in first.splitlines()
                                if line.startswith("knowledge/巡检/日常.md:")]


# a block of the aliased note (`^leak-rule`, under 停机) linked by its alias, session 41
BLOCKED = MANUAL.replace("先断电。", "先断电。 ^leak-rule")
THROUGH = ("\n# 记录\n\n见 [[泵手册#^leak-rule]]。\n\n![[Pump Manual#^leak-rule]]\n\n"
           "[[泵手册#^nope]] 与 [[泵手册#没有的标题|标题]]\n")


def test_a_block_reference_through_an_alias_names_the_note_and_its_block(tmp_path,
                                                                         monkeypatch):
    """`[[泵手册#^leak-rule]]`, 泵手册 an alias of another note, said "no file '泵手册'": a
    block reference got its hint before aliases were looked up. It is named as a block
    reference to the note by its file is (the block's line and the heading it stands
    under, the link to write by hand), a block the note lacks is its own finding, and a
    heading the note lacks is never written by `--fix` (it wrote `#没有的标题`)."""
    repo = _repo(tmp_path / "kb")
    (repo / "knowledge/设备/水泵手册.md").write_text(BLOCKED, encoding="utf-8")
    doc = "knowledge/巡检/记录.md"
    (repo / doc).write_text(GOOD_FM + THROUGH, encoding="utf-8")
    monkeypatch.chdir(repo)
    out = CliRunner().invoke(main, ["check", "--no-cache", doc]).stdout.splitlines()
    block = 1 + BLOCKED.split("\n").index("先断电。 ^leak-rule")
    alias = "is an alias (front matter `aliases`) of '../设备/水泵手册.md'; a block reference " \
        "(#^…) has no Markdown equivalent, and GitHub's page gives a block no anchor; "
    under = f"the block (line {block} of knowledge/设备/水泵手册.md) stands under the heading " \
        "'停机': write "
    assert [line.split(" (so that Obsidian")[0] for line in out] == [
        f"{doc}:13:3: error: link-wikilink: Obsidian wikilink '[[泵手册#^leak-rule]]' is plain "
        f"text to kbtools (the link is not followed or checked); '泵手册' {alias}{under}"
        "'[泵手册 > 停机](../设备/水泵手册.md#停机)'",
        f"{doc}:15:1: error: link-wikilink: Obsidian embed '![[Pump Manual#^leak-rule]]' is "
        f"plain text to kbtools (nothing is embedded); 'Pump Manual' {alias}{under}"
        "'[Pump Manual > 停机](../设备/水泵手册.md#停机)'",
        f"{doc}:17:1: error: link-wikilink: Obsidian wikilink '[[泵手册#^nope]]' is plain text "
        f"to kbtools (the link is not followed or checked); '泵手册' {alias}"
        "knowledge/设备/水泵手册.md has no block '^nope': write a standard link to the note or "
        "one of its headings",
        f"{doc}:17:17: error: link-wikilink: Obsidian wikilink '[[泵手册#没有的标题|标题]]' is "
        "plain text to kbtools (the link is not followed or checked); '泵手册' is an alias "
        "(front matter `aliases`) of '../设备/水泵手册.md'; no heading '#没有的标题' in "
        "knowledge/设备/水泵手册.md, and no heading is the one closest: linked to the document, "
        "without an anchor: `kb check --fix` writes '[标题](../设备/水泵手册.md)'"]
    CliRunner().invoke(main, ["check", "--no-cache", "--fix", doc])
    assert (repo / doc).read_text(encoding="utf-8") == GOOD_FM + THROUGH.replace(
        "[[泵手册#没有的标题|标题]]", "[标题](../设备/水泵手册.md)")  # a block's: by hand


def test_a_page_links_a_block_reference_through_an_alias(tmp_path):
    repo = _repo(tmp_path / "kb")
    (repo / "knowledge/设备/水泵手册.md").write_text(BLOCKED, encoding="utf-8")
    (repo / "knowledge/巡检/记录.md").write_text(GOOD_FM + THROUGH, encoding="utf-8")
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        page = client.get("/doc/" + quote("knowledge/巡检/记录.md")).text
        note = client.get("/doc/" + quote("knowledge/设备/水泵手册.md")).text
    manual = "/doc/" + quote("knowledge/设备/水泵手册.md")
    assert f'href="{manual}#{quote("^leak-rule")}"' in page, page
    assert 'id="^leak-rule"' in note
