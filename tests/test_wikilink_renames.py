"""`kb check` on an Obsidian wikilink or embed whose note or picture was renamed or moved in
Git history: its `link-wikilink` finding says where the file went, as a standard link's
`path-missing` finding does, and one `kb check --fix` run rewrites it as the standard link a
wikilink naming the file becomes (its heading, label and size kept; the text of one without
a label names the file as Obsidian would: a bare name when Obsidian finds the file by that
name alone, else the shortest path ending the file's that names it alone)"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from tests.renamekb import check, committed_kb, git, page, short, write


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A committed knowledge base (`committed_kb`): a document in a sub-folder naming the
    guide and the picture by wikilinks, written every way Obsidian writes them."""
    return committed_kb(tmp_path, monkeypatch,
                        "See [[guide]], [[guide#Usage]], [[guide|the guide]], [[guide.md#Setup|set]] "
                        "and [[../guide]].\n\n![[pump.png|300]]\n\n"
                        "| a | b |\n|---|---|\n| x | [[guide\\|in a cell]] |\n")


def wikilink_lines(output: str) -> list[str]:
    return [ln for ln in output.splitlines() if "link-wikilink" in ln]


def pump(kb: Path) -> str:
    return (kb / "knowledge/faq/pump.md").read_text("utf-8")


def test_a_renamed_note_and_picture_are_named_and_fixed_in_one_run(kb):
    """One `--fix` writes the standard link the wikilink naming the renamed file becomes
    (a wikilink is a finding of its own: written as one, it took a second run)."""
    (kb / "knowledge/manuals").mkdir()
    (kb / "assets/images").mkdir()
    git(kb, "mv", "knowledge/guide.md", "knowledge/manuals/handbook.md")
    git(kb, "mv", "assets/pump.png", "assets/images/pump-1.png")
    git(kb, "commit", "-qm", "move the guide and the picture")
    res = check("knowledge")
    assert res.exit_code == 1
    found = wikilink_lines(res.output)
    assert len(found) == 7
    assert all(f"in {short(kb)}" in ln and "renamed to " in ln for ln in found), found
    assert "renamed to '../manuals/handbook.md'" in found[0]
    assert "`kb check --fix` writes '[handbook > Usage](../manuals/handbook.md#usage)'" \
        in res.output
    assert "`kb check --fix` writes '[set](../manuals/handbook.md#setup)'" in res.output
    assert "renamed to '../../assets/images/pump-1.png'" in res.output
    assert "`kb check --fix` writes '<img src=\"../../assets/images/pump-1.png\" " \
        "alt=\"pump-1\" width=\"300\">'" in res.output
    fixed = check("--fix", "knowledge")
    assert fixed.exit_code == 0, fixed.output
    text = pump(kb)
    assert "See [handbook](../manuals/handbook.md), " \
        "[handbook > Usage](../manuals/handbook.md#usage), " \
        "[the guide](../manuals/handbook.md), [set](../manuals/handbook.md#setup) and " \
        "[../manuals/handbook](../manuals/handbook.md)." in text, text
    assert '<img src="../../assets/images/pump-1.png" alt="pump-1" width="300">' in text
    assert "| x | [in a cell](../manuals/handbook.md) |" in text
    assert "renamed" not in fixed.output and "[[" not in text
    again = check("--fix", "knowledge")
    assert again.exit_code == 0 and "fixed:" not in again.output
    assert pump(kb) == text


def test_renamed_wikilinks_and_standard_links_of_one_document_in_one_run(kb):
    """A renamed wikilink, embed and standard link on one line, and a wikilink's heading
    the renamed note lacks (the closest heading written, as every wikilink fix does)."""
    write(kb, "knowledge/faq/pump.md", page(
        "Pump", "[[guide#Usag|u]] [g](../guide.md#setup) ![[pump.png]] [[guide]]\n"))
    git(kb, "add", "knowledge/faq/pump.md")
    git(kb, "commit", "-qm", "links on one line")
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "mv", "assets/pump.png", "assets/pump-1.png")
    git(kb, "commit", "-qm", "rename")
    res = check("knowledge")
    assert "`kb check --fix` writes '[u](../handbook.md#usage)' (no heading '#usag' in " \
        "knowledge/handbook.md; linked to '#usage', the one closest heading)" in res.output
    fixed = check("--fix", "knowledge")
    assert fixed.exit_code == 0, fixed.output
    assert fixed.output.count("fixed:") == 4
    assert "[u](../handbook.md#usage) [g](../handbook.md#setup) " \
        "![pump-1](../../assets/pump-1.png) [handbook](../handbook.md)\n" in pump(kb)


def test_a_name_two_files_share_is_written_with_the_path_that_names_one(kb):
    write(kb, "knowledge/old/handbook.md", page("Old handbook", "Old."))
    (kb / "knowledge/manuals").mkdir()
    git(kb, "mv", "knowledge/guide.md", "knowledge/manuals/handbook.md")
    git(kb, "add", "knowledge/old/handbook.md")
    git(kb, "commit", "-qm", "a handbook in manuals, another in old")
    res = check("knowledge")
    assert "`kb check --fix` writes '[manuals/handbook > Usage]" \
        "(../manuals/handbook.md#usage)'" in res.output
    check("--fix", "knowledge")
    assert "See [manuals/handbook](../manuals/handbook.md), " \
        "[manuals/handbook > Usage](../manuals/handbook.md#usage)" in pump(kb)


def test_two_renamed_notes_of_that_name_are_not_chosen(kb):
    write(kb, "knowledge/other/guide.md", page("Other guide", "Other."))
    git(kb, "add", "knowledge/other/guide.md")
    git(kb, "commit", "-qm", "a second guide")
    git(kb, "mv", "knowledge/guide.md", "knowledge/first.md")
    git(kb, "mv", "knowledge/other/guide.md", "knowledge/other/second.md")
    git(kb, "commit", "-qm", "rename both")
    res = check("knowledge")
    line = next(ln for ln in wikilink_lines(res.output) if "'[[guide]]'" in ln)
    assert "'../first.md'" in line and "'../other/second.md'" in line
    assert "kb does not choose" in line
    check("--fix", "knowledge")
    text = pump(kb)
    assert "See [[guide]], [[guide#Usage]], [[guide|the guide]], [[guide.md#Setup|set]]" in text
    # a relative path names one of them: the one renamed to first.md
    assert "and [../first](../first.md)." in text


def test_a_wikilink_that_still_names_a_file_gets_no_rename_hint(kb):
    """Moved into another folder, the note keeps its name, which Obsidian still finds."""
    (kb / "knowledge/manuals").mkdir()
    git(kb, "mv", "knowledge/guide.md", "knowledge/manuals/guide.md")
    git(kb, "commit", "-qm", "move")
    res = check("knowledge")
    line = next(ln for ln in wikilink_lines(res.output) if "'[[guide]]'" in ln)
    assert "renamed" not in line
    assert "`kb check --fix` writes '[guide](../manuals/guide.md)'" in line


def test_a_note_moved_out_of_the_searched_folders_is_named_not_written(kb):
    """A wikilink finds files of the knowledge and assets folders only: one moved out is
    said, and left for a standard link by hand."""
    (kb / "archive").mkdir()
    git(kb, "mv", "knowledge/guide.md", "archive/guide.md")
    git(kb, "commit", "-qm", "archive the guide")
    res = check("knowledge")
    line = next(ln for ln in wikilink_lines(res.output) if "'[[guide]]'" in ln)
    assert "renamed to '../../archive/guide.md'" in line
    assert "no wikilink names it" in line
    check("--fix", "knowledge")
    text = pump(kb)
    assert "See [[guide]], [[guide#Usage]]" in text
    # a relative path is followed wherever it leads, as Obsidian follows it
    assert "and [../../archive/guide](../../archive/guide.md)." in text


def test_no_hint_outside_git(kb, tmp_path):
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "rename")
    (kb / ".git").rename(tmp_path / "git-away")
    res = check("knowledge")
    assert wikilink_lines(res.output) and "renamed" not in res.output


def test_a_relative_wikilink_in_another_case_follows_the_file_obsidian_finds(kb):
    """Obsidian finds `[[../Guide]]`'s note in any letter case, as `--fix` does a file on
    disk: the rename is followed, and the finding says how the wikilink differs."""
    write(kb, "knowledge/faq/pump.md", page("Pump", "[[../Guide#Usage]]\n"))
    git(kb, "commit", "-qam", "a wikilink in another case")
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "rename")
    (line,) = wikilink_lines(check("knowledge").output)
    assert f"renamed to '../handbook.md' in {short(kb)} (the file was '../guide.md', " \
        "differing in letter case, which Obsidian finds)" in line
    assert check("--fix", "knowledge").exit_code == 0
    assert "[../handbook > Usage](../handbook.md#usage)\n" in pump(kb)


def _shapes() -> list[str]:
    """Wikilinks and embeds to the guide and the picture, every way Obsidian writes them."""
    notes = [f"{'!' if embed else ''}[[{target}{heading}{label}]]"
             for embed in (False, True) for target in ("guide", "../guide", "guide.md")
             for heading in ("", "#Usage", "#Usag", "#Nothing Like It Zzz")
             for label in ("", "|text")]
    pictures = [f"![[{target}{label}]]" for target in ("pump.png", "../../assets/pump.png")
                for label in ("", "|alt", "|300", "|alt|300x200")]
    return notes + pictures


def test_every_wikilink_shape_is_fixed_by_one_run(kb):
    """In text and in table cells: after one `--fix` nothing is left to fix or report, and a
    second run writes nothing."""
    shapes = _shapes()
    cells = "".join(f"| {n} | {s.replace('|', chr(92) + '|')} |\n"
                    for n, s in enumerate(shapes))
    write(kb, "knowledge/faq/pump.md", page(
        "Pump", "\n\n".join(shapes) + "\n\n| n | link |\n|---|---|\n" + cells))
    git(kb, "commit", "-qam", "every shape")
    (kb / "knowledge/manuals").mkdir()
    git(kb, "mv", "knowledge/guide.md", "knowledge/manuals/handbook.md")
    git(kb, "mv", "assets/pump.png", "assets/pump-1.png")
    git(kb, "commit", "-qm", "rename")
    # every finding in --json (the report shows 20 of one code in a file, then how many more)
    found = json.loads(check("--json", "knowledge").stdout)
    assert sum(f["code"] == "link-wikilink" for f in found) == 2 * len(shapes)
    fixed = check("--fix", "--json", "knowledge")  # (--json: every change listed)
    assert fixed.exit_code == 0, fixed.output
    assert fixed.stderr.count("fixed:") == 2 * len(shapes)
    text = pump(kb)
    assert "[[" not in text and text.count("](../manuals/handbook.md") == 2 * 48
    again = check("--fix", "knowledge")
    assert again.exit_code == 0 and "fixed:" not in again.output and pump(kb) == text


def test_a_file_renamed_in_letter_case_alone_is_followed_and_the_finding_says_so(kb):
    """`git mv guide.md Guide.md`: a wikilink `[[guide]]` still finds the note (by name, in
    any case, as Obsidian does) and `--fix` links the file as it is on disk, but the finding
    said nothing of the difference: it names it, the file it resolves to, and what `--fix`
    writes, on one line; a wikilink naming the file in its own case says nothing of case."""
    write(kb, "knowledge/faq/pump.md", page(
        "Pump", "[[guide]] [[guide#Usage|u]]\n\n[[../guide]] [[Guide]]\n\n![[pump.png|300]]\n"))
    git(kb, "commit", "-qam", "wikilinks")
    git(kb, "mv", "knowledge/guide.md", "knowledge/Guide.md")
    git(kb, "mv", "assets/pump.png", "assets/Pump.png")
    git(kb, "commit", "-qm", "capitals")
    res = check("knowledge")
    assert res.exit_code == 1
    lines = wikilink_lines(res.output)
    assert [ln.split(": error:")[0] for ln in lines] == [
        "knowledge/faq/pump.md:13:1", "knowledge/faq/pump.md:13:11",
        "knowledge/faq/pump.md:15:1", "knowledge/faq/pump.md:15:14",
        "knowledge/faq/pump.md:17:1"]
    case = ("differs in letter case from the file it resolves to, {}, which Obsidian finds "
            "(Linux and GitHub compare links byte for byte); `kb check --fix` writes {}")
    assert "; 'guide' " + case.format("'../Guide.md'", "'[guide](../Guide.md)'") in lines[0]
    assert "; 'guide' " + case.format("'../Guide.md'", "'[u](../Guide.md#usage)'") in lines[1]
    assert "; '../guide' " + case.format("'../Guide.md'", "'[../guide](../Guide.md)'") \
        in lines[2]
    assert "letter case" not in lines[3] and "writes '[Guide](../Guide.md)'" in lines[3]
    assert "; 'pump.png' " + case.format("'../../assets/Pump.png'", "'<img src=\"../../"
                                         "assets/Pump.png\" alt=\"pump\" width=\"300\">'") \
        in lines[4]
    assert "renamed" not in res.output
    assert check("--fix", "knowledge").exit_code == 0
    assert "[guide](../Guide.md) [u](../Guide.md#usage)\n\n[../guide](../Guide.md) " \
        "[Guide](../Guide.md)\n\n<img src=\"../../assets/Pump.png\"" in pump(kb)


def test_a_wikilink_naming_a_renamed_file_in_another_case_says_so(kb):
    """`[[Guide]]` found guide.md (in any case, as Obsidian finds it) renamed to
    handbook.md: the hint said where it went but not that the wikilink named the old file
    in another case, as it says for a relative wikilink."""
    write(kb, "knowledge/faq/pump.md", page("Pump", "[[Guide]] [[GUIDE#Usage]]\n"))
    git(kb, "commit", "-qam", "wikilinks in capitals")
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "rename")
    first, second = wikilink_lines(check("knowledge").output)
    said = (f"renamed to '../handbook.md' in {short(kb)} (the file was '../guide.md', "
            "differing in letter case, which Obsidian finds)")
    assert said in first and said in second
    assert "`kb check --fix` writes '[handbook](../handbook.md)'" in first
    assert check("--fix", "knowledge").exit_code == 0
    assert "[handbook](../handbook.md) [handbook > Usage](../handbook.md#usage)\n" in pump(kb)


def test_a_wikilink_naming_its_file_in_another_unicode_form_says_so(kb):
    """A note whose name a Mac wrote decomposed (NFD), named by a wikilink typed composed:
    found (as Obsidian finds it), and the finding says how the two differ."""
    decomposed = unicodedata.normalize("NFD", "café")
    write(kb, f"knowledge/{decomposed}.md", page("Café", "Coffee.\n"))
    write(kb, "knowledge/faq/pump.md", page("Pump", "[[café]]\n"))
    git(kb, "add", "knowledge")
    git(kb, "commit", "-qm", "a decomposed name")
    (line,) = wikilink_lines(check("knowledge").output)
    assert f"; 'café' differs in Unicode form from the file it resolves to, '../{decomposed}.md'" \
        in line


def test_an_embed_of_a_picture_named_in_another_unicode_form_keeps_the_name_as_typed(kb):
    """`![[résumé.png|200]]` typed composed, the picture a Mac named decomposed: `--fix`
    links the file as it is named, and its alt text is the name as the author typed it."""
    decomposed = unicodedata.normalize("NFD", "résumé")
    (kb / f"assets/{decomposed}.png").write_bytes((kb / "assets/pump.png").read_bytes())
    write(kb, "knowledge/faq/pump.md", page("Pump", "![[résumé.png|200]] ![[résumé.png]]\n"))
    git(kb, "add", "knowledge", "assets")
    git(kb, "commit", "-qm", "a decomposed picture")
    check("--fix", "knowledge")
    assert (f'<img src="../../assets/{decomposed}.png" alt="résumé" width="200"> '
            f"![résumé](../../assets/{decomposed}.png)\n") in pump(kb)
