"""File names from authors' macOS and Windows laptops, checked on Linux: decomposed Unicode
(NFD) names that composed links do not find, names that differ only in case or Unicode form
(one file on those laptops), names Git for Windows cannot check out, and long paths."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.check.engine import check_paths
from kbtools.check.names import disk_key, too_long, windows_problem
from kbtools.cli import main
from kbtools.config import load_config
from tests.kbfixtures import GOOD_FM

PNG = b"\x89PNG\r\n\x1a\n" + bytes(32)  # the signature is what kb check looks at


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "assets").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(root: Path, rel: str, body: str = "# T\n\ntext\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(GOOD_FM + body, encoding="utf-8")
    return path


def findings(root: Path) -> list[tuple[str, int, str, str, str]]:
    return [(f.path, f.line, f.level, f.code, f.message)
            for f in check_paths([root / "knowledge"], load_config(root))]


def codes(root: Path) -> set[tuple[str, str]]:
    return {(path, code) for path, _, _, code, _ in findings(root)}


def test_composed_link_to_a_decomposed_name_names_the_file_and_the_cure(repo):
    """macOS wrote `café.md`, `가이드.md`, `がいど.md` and `résumé.png` decomposed; the author
    typed the links composed. Linux does not find them: one error per link naming the file
    (not "does not exist"), and a warning on the decomposed document's own name."""
    for name in ("café.md", "가이드.md", "がいど.md"):
        write(repo, nfd(f"knowledge/{name}"), f"# {name}\n\ntext\n")
    (repo / nfd("assets/résumé.png")).write_bytes(b"png")
    write(repo, "knowledge/links.md",
          "# L\n\n[a](café.md) [b](가이드.md) [c](がいど.md#がいどmd)\n\n![i](../assets/résumé.png)\n")
    found = findings(repo)
    links = [f for f in found if f[0] == "knowledge/links.md"]
    assert [(line, level, code) for _, line, level, code, _ in links] == \
        [(12, "error", "path-unicode")] * 3 + [(14, "error", "path-unicode")]
    assert links[0][4].startswith(f"'café.md' does not exist as written: {nfd('knowledge/café.md')}"
                                  " is named in decomposed Unicode (NFD")
    assert links[0][4].endswith("rename the file to its composed spelling (git mv), or "
                                "`kb check --fix` writes the link as it is named")
    assert nfd("assets/résumé.png") in links[3][4]
    own = {(path, level, code) for path, _, level, code, _ in found if path != "knowledge/links.md"}
    assert own == {(nfd(f"knowledge/{n}"), "warning", "path-unicode")
                   for n in ("café.md", "가이드.md", "がいど.md")}


def test_decomposed_link_to_a_composed_name_is_fixed_in_the_link(repo):
    write(repo, "knowledge/café.md")
    write(repo, "knowledge/links.md", "# L\n\n[a](" + nfd("café.md") + ")\n")
    assert codes(repo) == {("knowledge/links.md", "path-unicode")}
    result = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert "[a](café.md)" in (repo / "knowledge/links.md").read_text(encoding="utf-8")
    assert result.exit_code == 0, result.output
    assert codes(repo) == set()


def test_a_link_written_as_the_file_is_named_is_fine_in_either_form(repo):
    write(repo, nfd("knowledge/café.md"))
    write(repo, "knowledge/links.md", "# L\n\n[a](" + nfd("café.md") + ")\n")
    assert codes(repo) == {(nfd("knowledge/café.md"), "path-unicode")}  # its own name only


def test_names_one_file_on_macos_and_windows_collide(repo):
    write(repo, "knowledge/Pump.md")
    write(repo, "knowledge/pump.md")
    write(repo, "knowledge/café.md")
    write(repo, nfd("knowledge/café.md"))
    (repo / "assets/img.png").write_bytes(b"a")
    (repo / "assets/IMG.png").write_bytes(b"b")
    write(repo, "knowledge/links.md", "# L\n\n![i](../assets/img.png) [p](Pump.md)\n")
    found = {(path, code): message for path, _, _, code, message in findings(repo)
             if code == "path-collision"}
    assert set(found) == {("knowledge/Pump.md", "path-collision"),
                          ("knowledge/pump.md", "path-collision"),
                          ("knowledge/café.md", "path-collision"),
                          (nfd("knowledge/café.md"), "path-collision"),
                          ("knowledge/links.md", "path-collision")}  # the image, not Pump.md
    assert found[("knowledge/Pump.md", "path-collision")].startswith(
        "knowledge/Pump.md and knowledge/pump.md differ only in letter case: they are one "
        "file on Windows and macOS")
    assert "differ only in Unicode form" in found[("knowledge/café.md", "path-collision")]
    assert found[("knowledge/links.md", "path-collision")].startswith(
        "'../assets/img.png': assets/img.png and assets/IMG.png differ only in letter case")


def test_a_folder_differing_in_case_collides_only_where_the_paths_do(repo):
    write(repo, "knowledge/Crops/a.md")
    write(repo, "knowledge/crops/b.md")
    assert codes(repo) == set()  # one folder on a Mac, two files in it
    write(repo, "knowledge/crops/a.md")
    assert codes(repo) == {("knowledge/Crops/a.md", "path-collision"),
                           ("knowledge/crops/a.md", "path-collision")}


@pytest.mark.parametrize("name", ["CON.md", "con.md", "Aux.txt.md", "nul .md", "a:b.md",
                                  "q?.md", "st*r.md", 'say"hi".md', "a|b.md", "a<b>.md",
                                  "a\\b.md", "tab\t.md", "lpt9.md", "CONIN$.md"])
def test_names_windows_cannot_hold_are_errors(repo, name):
    write(repo, f"knowledge/{name}")
    ((path, line, level, code, message),) = findings(repo)
    assert (path, line, level, code) == (f"knowledge/{name}".replace("\t", "\\t"), 1, "error",
                                         "path-windows")
    assert "Git for Windows cannot check the repository out" in message


def test_a_folder_ending_in_a_dot_and_linked_assets_windows_cannot_hold(repo):
    write(repo, "knowledge/v1./notes.md")
    (repo / "assets/aux.png").write_bytes(PNG)
    (repo / "assets/ok.png").write_bytes(PNG)
    write(repo, "knowledge/links.md", "# L\n\n![a](../assets/aux.png) ![b](../assets/ok.png)\n")
    found = findings(repo)
    assert [(p, level, code) for p, _, level, code, _ in found] == [
        ("knowledge/links.md", "error", "path-windows"),
        ("knowledge/v1./notes.md", "error", "path-windows")]
    assert "Windows reserves the name 'aux.png' for a device" in found[0][4]
    assert "'v1.' ends with a dot, which Windows drops" in found[1][4]


def test_names_windows_and_linux_both_hold_pass(repo):
    for name in ("wheat scab.md", "a.b.c.md", "console.md", "com10.md", "小麦 赤霉病.md",
                 "trail. x.md", "lpt.md"):
        write(repo, f"knowledge/{name}")
    assert findings(repo) == []


def test_a_long_path_warns(repo):
    rel = "knowledge/" + "a" * 90 + "/" + "b" * 100 + ".md"
    write(repo, rel)
    assert [(p, level, code) for p, _, level, code, _ in findings(repo)] == [
        (rel, "warning", "path-long")]
    assert not too_long("knowledge/" + "水" * 180 + ".md")  # 193 UTF-16 units
    assert too_long("knowledge/" + "😀" * 96 + ".md")  # 2 units each on Windows


def test_rules():
    assert disk_key("Café.md") == disk_key(nfd("café.md"))
    assert windows_problem("knowledge/ok/name.md") is None
    assert windows_problem("knowledge/aux/name.md") == \
        "Windows reserves the name 'aux' for a device"


def test_a_renamed_collision_is_seen_by_a_cached_check(repo):
    write(repo, "knowledge/Pump.md")
    assert CliRunner().invoke(main, ["check"]).exit_code == 0
    write(repo, "knowledge/pump.md")
    result = CliRunner().invoke(main, ["check", "knowledge/Pump.md"])
    assert result.exit_code == 1
    assert "knowledge/Pump.md:1:1: error: path-collision: knowledge/Pump.md and " \
        "knowledge/pump.md differ only in letter case" in result.output


def test_fix_writes_links_and_obsidian_wikilinks_as_a_decomposed_file_is_named(repo):
    """Obsidian on a Mac finds `[[café]]` for a decomposed `café.md`; so does `kb check`,
    and `--fix` writes standard links in the file's own spelling, which Linux finds (the
    text and alt text as typed, composed)."""
    write(repo, nfd("knowledge/café.md"))
    (repo / nfd("assets/résumé.png")).write_bytes(PNG)
    write(repo, "knowledge/links.md",
          "# L\n\n[[café]] ![[résumé.png]] [x](café.md#t)\n")
    found = [f for f in findings(repo) if f[0] == "knowledge/links.md"]
    assert [(line, code) for _, line, _, code, _ in found] \
        == [(12, "link-wikilink")] * 2 + [(12, "path-unicode")]
    assert "`kb check --fix` writes '[café](" + nfd("café.md") + ")'" in found[0][4]
    result = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert result.exit_code == 0, result.output
    assert (repo / "knowledge/links.md").read_text(encoding="utf-8").endswith(
        f"[café]({nfd('café.md')}) ![résumé](../assets/{nfd('résumé.png')}) "
        f"[x]({nfd('café.md')}#t)\n")


def test_a_hash_in_a_file_name_written_encoded_names_the_file(repo):
    """`x#y.png` linked as `x%23y.png` (how `kb check --fix` and Typora write it, and how the
    build reads it) names that file: the `#` was taken as the fragment's start after
    decoding (`assets/x` does not exist); a real fragment after it is still an anchor."""
    (repo / "assets/x#y.png").write_bytes(PNG)
    write(repo, "knowledge/a#b.md", "# T\n\n## 步骤\n\ntext\n")
    write(repo, "knowledge/links.md", "# L\n\n![p](../assets/x%23y.png)\n\n"
          "[b](a%23b.md#步骤) [c](a%23b.md#%E6%AD%A5%E9%AA%A4)\n")
    assert findings(repo) == []
    write(repo, "knowledge/links.md", "# L\n\n[b](a%23b.md#nowhere)\n")
    assert {code for _, _, _, code, _ in findings(repo)} == {"link-anchor"}


@pytest.mark.parametrize("heading", ["Réglage", "가이드", "がいど"])
def test_an_anchor_written_decomposed_says_so_and_is_composed_by_fix(repo, heading):
    """`[x](café.md#réglage)` with the anchor pasted decomposed (NFD) from a Mac: a browser
    compares it with the heading's composed anchor byte for byte and opens the page's top.
    `kb check` said "no heading '#réglage'; did you mean '#réglage'?" (the same letters on
    screen) and `--fix` left it; it now says why, and `--fix` writes the anchor composed."""
    write(repo, "knowledge/café.md", f"# Café\n\n## {heading}\n\ntext\n")
    slug = heading.lower()
    page = write(repo, "knowledge/links.md",
                 f"# L\n\n[x](café.md#{nfd(slug)}) [y](#{nfd('l')}) [z](#{nfd(slug)}-1)\n")
    (line,) = [f for f in findings(repo) if f[4].startswith(f"no heading '#{nfd(slug)}'")]
    assert line[:4] == ("knowledge/links.md", 12, "error", "link-anchor")
    assert line[4].endswith(f"did you mean '#{slug}'? (it is written in decomposed Unicode, "
                            "NFD, as a Mac writes a name: an anchor is composed, NFC, and a "
                            f"browser compares them byte for byte); `kb check --fix` links to "
                            f"'#{slug}'")
    result = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert result.exit_code == 1  # `#…-1` names no heading composed either: left, said
    assert page.read_text(encoding="utf-8").endswith(
        f"[x](café.md#{slug}) [y](#l) [z](#{nfd(slug)}-1)\n")


def test_the_build_resolves_a_link_in_either_unicode_form(repo):
    """A link typed composed to a document a Mac named decomposed, and one whose anchor was
    pasted decomposed, name that document and heading in the chunks' links (what a device's
    page links and a citation's references name), as Obsidian and a Mac open them: they
    were unresolved (`kb check` flags both, for GitHub and Linux)."""
    from kbtools.build.chunk import chunk_document
    from kbtools.build.xref import HeadingIndex
    from kbtools.corpus import parse_source
    guide = nfd("knowledge/Café guide.md")
    note = parse_source(GOOD_FM + "# Café guide\n\n## Réglage\n\ntext\n", repo / guide, guide)
    links = parse_source(GOOD_FM + "# L\n\n[a](Café%20guide.md#réglage) "
                         f"[b](<{nfd('Café guide.md')}#{nfd('réglage')}>) [c](Café%20guide.md)\n",
                         repo / "knowledge/l.md", "knowledge/l.md")
    index = HeadingIndex.build([note, links])
    found = {(lk.text[:3], lk.doc, lk.heading_path, lk.anchor)
             for c in chunk_document(links, resolver=index) for lk in c.links}
    assert found == {("[a]", guide, ("Café guide", "Réglage"), "réglage"),
                     ("[b]", guide, ("Café guide", "Réglage"), "réglage"),
                     ("[c]", guide, (), "")}


def test_a_file_name_two_documents_share_warns_on_both_naming_the_other(repo):
    """`knowledge/crops/wheat.md` and then `knowledge/pests/wheat.md`: legal, but a citation,
    `kb read` or a page address naming `wheat.md` alone no longer opens one (it lists both),
    and `kb check` said nothing when the second was added. Each now warns at its line 1,
    naming the other at its line 1; a folder's `index.md`/`README.md` does not."""
    write(repo, "knowledge/crops/wheat.md")
    write(repo, "knowledge/crops/README.md")
    assert CliRunner().invoke(main, ["check"]).exit_code == 0  # one of each: nothing said
    write(repo, "knowledge/pests/Wheat.md")
    write(repo, "knowledge/pests/readme.md")
    result = CliRunner().invoke(main, ["check"])  # the cached result of the first re-read
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if "path-shared-name" in line]
    assert said == [
        "knowledge/crops/wheat.md:1:1: warning: path-shared-name: knowledge/pests/Wheat.md:1 "
        "has this file name too: a citation, `kb read` or page address naming wheat.md alone "
        "lists both instead of opening one; rename one (git mv) if they should be told apart "
        "by name",
        "knowledge/pests/Wheat.md:1:1: warning: path-shared-name: knowledge/crops/wheat.md:1 "
        "has this file name too: a citation, `kb read` or page address naming Wheat.md alone "
        "lists both instead of opening one; rename one (git mv) if they should be told apart "
        "by name"], result.output
