"""`kb check` on a link whose target was renamed or moved in Git history: the `path-missing`
finding says where the file went, and `--fix` rewrites the link when one chain of renames
ends at an existing file (`kbtools.check.renames`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.renamekb import IDENTITY, check, committed_kb, git, page, short, write


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A committed knowledge base (`committed_kb`): a document in a sub-folder linking the
    guide (twice, with anchors) and the picture."""
    return committed_kb(tmp_path, monkeypatch,
                        "See [the guide](../guide.md), [usage](../guide.md#usage), "
                        "[gone](../guide.md#nowhere-at-all-xyz).\n\n![pump](../../assets/pump.png)\n")


def missing_lines(output: str) -> list[str]:
    return [ln for ln in output.splitlines() if "path-missing" in ln]


def test_a_renamed_document_is_named_relative_to_the_linking_document(kb):
    write(kb, "knowledge/manuals/guide.md", (kb / "knowledge/guide.md").read_text("utf-8"))
    git(kb, "rm", "-q", "knowledge/guide.md")
    git(kb, "add", "knowledge/manuals/guide.md")
    git(kb, "commit", "-qm", "move the guide")
    res = check("knowledge")
    assert res.exit_code == 1
    found = missing_lines(res.output)
    assert len(found) == 3
    assert all(f"renamed to '../manuals/guide.md' in {short(kb)}" in ln for ln in found)
    assert "`kb check --fix` writes '../manuals/guide.md#usage'" in res.output
    # an anchor naming no heading of the renamed file: dropped, as every path fix drops it
    assert "`kb check --fix` writes '../manuals/guide.md' (no heading" in res.output
    fixed = check("--fix", "knowledge")
    assert fixed.exit_code == 0, fixed.output
    text = (kb / "knowledge/faq/pump.md").read_text("utf-8")
    assert "[the guide](../manuals/guide.md), [usage](../manuals/guide.md#usage), " \
        "[gone](../manuals/guide.md)" in text


def test_a_chain_of_renames_ending_at_a_file_is_followed(kb):
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "rename")
    first = short(kb)
    (kb / "knowledge/ops").mkdir()
    git(kb, "mv", "knowledge/handbook.md", "knowledge/ops/使用 手册.md")
    git(kb, "commit", "-qm", "move")
    res = check("knowledge")
    assert f"renamed to '../ops/使用 手册.md' in {short(kb)} (via '../handbook.md' in " \
        f"{first})" in res.output
    assert check("--fix", "knowledge").exit_code == 0
    assert "[usage](../ops/使用%20手册.md#usage)" in (kb / "knowledge/faq/pump.md").read_text("utf-8")


def test_a_moved_picture_under_assets(kb):
    (kb / "assets/images").mkdir()
    git(kb, "mv", "assets/pump.png", "assets/images/pump.png")
    git(kb, "commit", "-qm", "pictures in a folder")
    res = check("knowledge")
    line = next(ln for ln in missing_lines(res.output) if "pump.png" in ln)
    assert f"renamed to '../../assets/images/pump.png' in {short(kb)}" in line
    assert check("--fix", "knowledge").exit_code == 1  # the guide's links: not renamed
    assert "![pump](../../assets/images/pump.png)" in \
        (kb / "knowledge/faq/pump.md").read_text("utf-8")


def test_a_path_renamed_to_two_places_is_not_chosen(kb):
    git(kb, "mv", "knowledge/guide.md", "knowledge/old-guide.md")
    git(kb, "commit", "-qm", "keep the old one")
    write(kb, "knowledge/guide.md", page("Guide 2", "## Usage\n\nNew.\n"))
    git(kb, "add", "knowledge/guide.md")
    git(kb, "commit", "-qm", "a new guide")
    git(kb, "mv", "knowledge/guide.md", "knowledge/new-guide.md")
    git(kb, "commit", "-qm", "rename the new one")
    res = check("knowledge")
    found = missing_lines(res.output)
    assert found and all("renamed more than once" in ln and "'../old-guide.md'" in ln
                         and "'../new-guide.md'" in ln for ln in found)
    before = (kb / "knowledge/faq/pump.md").read_bytes()
    fixed = check("--fix", "knowledge")
    assert "fixed:" not in fixed.output
    assert (kb / "knowledge/faq/pump.md").read_bytes() == before


def test_a_chain_ending_where_no_file_is_says_nothing(kb):
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "rename")
    git(kb, "rm", "-q", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "delete")
    res = check("knowledge")
    assert missing_lines(res.output) and "renamed" not in res.output


def test_no_hint_outside_git(kb):
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "rename")
    plain = kb.parent / "plain"
    subprocess.run(["cp", "-r", str(kb), str(plain)], check=True)
    subprocess.run(["rm", "-rf", str(plain / ".git")], check=True)
    os.chdir(plain)
    res = check("knowledge")
    assert isinstance(res.exception, SystemExit) and res.exit_code == 1
    assert missing_lines(res.output) and "renamed" not in res.output


def test_a_shallow_clone_stops_at_its_boundary(kb, tmp_path):
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "rename")
    write(kb, "knowledge/other.md", page("Other", "Text."))
    git(kb, "add", "knowledge/other.md")
    git(kb, "commit", "-qm", "later")
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{kb}", str(clone)],
                   check=True, env={**os.environ, **IDENTITY})
    os.chdir(clone)
    res = check("knowledge")
    assert isinstance(res.exception, SystemExit) and res.exit_code == 1
    assert missing_lines(res.output) and "renamed" not in res.output


def test_a_cached_check_still_says_it(kb):
    """The hint is no part of a document's cached results (history moves, bytes do not)."""
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "rename")
    first, again = check("knowledge").output, check("knowledge").output
    assert "renamed to '../handbook.md'" in first and first == again


def test_a_knowledge_base_below_the_top_of_the_repository(tmp_path, monkeypatch):
    """In a monorepo the kb root is `docs/kb/`: history paths are read relative to it, and
    a file moved into the kb from elsewhere in the repository is no rename of a kb file."""
    top = tmp_path / "mono"
    root = top / "docs" / "kb"
    write(root, "kb.toml", "")
    write(root, "knowledge/a.md", page("A", "[b](b.md) [c](c.md)"))
    write(root, "knowledge/b.md", page("B", "Text."))
    write(top, "c.md", page("C", "Text."))
    git(top, "init", "-q")
    git(top, "add", ".")
    git(top, "commit", "-qm", "start")
    git(top, "mv", "docs/kb/knowledge/b.md", "docs/kb/knowledge/b2.md")
    git(top, "mv", "c.md", "docs/kb/knowledge/c2.md")
    git(top, "commit", "-qm", "renames")
    monkeypatch.chdir(root)
    out = check("knowledge").output
    assert f"'b.md' does not exist (knowledge/b.md); renamed to 'b2.md' in {short(top)}" in out
    line = next(ln for ln in out.splitlines() if "'c.md' does not exist" in ln)
    assert "renamed" not in line


def test_a_link_differing_in_case_from_a_renamed_file_is_named_not_written(kb):
    """`../Guide.md` never named guide.md where links are compared byte for byte (Linux,
    GitHub): the hint names the renamed file and says how the link differs, and `--fix`
    does not rewrite it to that file."""
    write(kb, "knowledge/faq/pump.md", page("Pump", "[g](../Guide.md#usage)\n"))
    git(kb, "commit", "-qam", "a link in another case")
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "rename")
    res = check("knowledge")
    (line,) = missing_lines(res.output)
    assert "'../Guide.md#usage' does not exist (knowledge/Guide.md); no file was renamed " \
        f"from that path, but '../guide.md' (differing in letter case) was renamed to " \
        f"'../handbook.md' in {short(kb)}" in line
    assert "`kb check --fix` does not write it; link '../handbook.md#usage' by hand" in line
    before = (kb / "knowledge/faq/pump.md").read_bytes()
    fixed = check("--fix", "knowledge")
    assert fixed.exit_code == 1 and "fixed:" not in fixed.output
    assert (kb / "knowledge/faq/pump.md").read_bytes() == before


def test_two_renamed_files_differing_from_a_link_in_case_are_both_named(kb):
    write(kb, "knowledge/faq/pump.md", page("Pump", "[g](../GUIDE.md)\n"))
    write(kb, "knowledge/Guide.md", page("Other guide", "Other."))
    git(kb, "add", "knowledge")
    git(kb, "commit", "-qm", "a second guide")
    git(kb, "mv", "knowledge/guide.md", "knowledge/a.md")
    git(kb, "mv", "knowledge/Guide.md", "knowledge/b.md")
    git(kb, "commit", "-qm", "rename both")
    (line,) = missing_lines(check("knowledge").output)
    assert "'../Guide.md' (differing in letter case) was renamed to '../b.md'" in line
    assert "'../guide.md' (differing in letter case) was renamed to '../a.md'" in line
    assert "link the file meant by hand" in line


def test_a_link_written_in_the_renamed_files_case_is_still_fixed(kb):
    """Another file differing in case alone was renamed too: the link's own is followed."""
    write(kb, "knowledge/Guide.md", page("Other guide", "Other."))
    git(kb, "add", "knowledge")
    git(kb, "commit", "-qm", "a second guide")
    git(kb, "mv", "knowledge/guide.md", "knowledge/a.md")
    git(kb, "mv", "knowledge/Guide.md", "knowledge/b.md")
    git(kb, "commit", "-qm", "rename both")
    check("--fix", "knowledge")
    assert "[the guide](../a.md), [usage](../a.md#usage)" in \
        (kb / "knowledge/faq/pump.md").read_text("utf-8")


@pytest.mark.parametrize("staged", [True, False])
def test_a_rename_staged_for_the_commit_is_named_and_fixed(kb, staged):
    """`git mv` then `git commit`: the pre-commit hook refused the links to the old name with
    "'../guide.md' does not exist" and no new name (the rename was in no history yet)."""
    (kb / "knowledge/手册").mkdir()
    git(kb, "mv", "knowledge/guide.md", "knowledge/手册/使用 指南.md")
    git(kb, "mv", "assets/pump.png", "assets/泵.png")
    args = ("--staged",) if staged else ()
    res = check(*args, "knowledge")
    assert res.exit_code == 1
    found = missing_lines(res.output)
    assert len(found) == 4
    assert sum("renamed to '../手册/使用 指南.md' in the staged changes (not committed yet)"
               in ln for ln in found) == 3
    assert any("renamed to '../../assets/泵.png' in the staged changes" in ln for ln in found)
    assert check("--fix", *args, "knowledge").exit_code == 0
    text = (kb / "knowledge/faq/pump.md").read_text("utf-8")
    assert "[the guide](../手册/使用%20指南.md), [usage](../手册/使用%20指南.md#usage)" in text
    assert "![pump](../../assets/泵.png)" in text


def test_a_staged_rename_continues_a_committed_one(kb):
    git(kb, "mv", "knowledge/guide.md", "knowledge/handbook.md")
    git(kb, "commit", "-qm", "rename")
    first = short(kb)
    git(kb, "mv", "knowledge/handbook.md", "knowledge/manual.md")
    res = check("--staged", "knowledge")
    assert "renamed to '../manual.md' in the staged changes (not committed yet) (via " \
        f"'../handbook.md' in {first})" in res.output
    git(kb, "reset", "-q", "--", "knowledge/manual.md")  # unstaged: the index has no manual.md
    assert "in the staged changes" not in check("--staged", "knowledge").output


def test_a_moved_document_s_links_are_read_from_where_it_was(kb):
    """A document moved one folder down keeps its relative links: `../guide.md` from
    knowledge/faq/深/ names no file, and the finding only guessed a similar name. Read from
    where the document was (its rename in history), the link named the guide, there still."""
    (kb / "knowledge/faq/深").mkdir()
    git(kb, "mv", "knowledge/faq/pump.md", "knowledge/faq/深/pump.md")
    git(kb, "commit", "-qm", "move the page down")
    res = check("knowledge")
    found = missing_lines(res.output)
    assert len(found) == 4 and all(
        f"this document was '../pump.md' before {short(kb)}, where the link named " in ln
        and "which is there; `kb check --fix` writes '../../" in ln for ln in found), found
    assert "where the link named '../../guide.md', which is there; `kb check --fix` writes " \
        "'../../guide.md#usage'" in res.output
    assert check("--fix", "knowledge").exit_code == 0
    text = (kb / "knowledge/faq/深/pump.md").read_text("utf-8")
    assert "[the guide](../../guide.md), [usage](../../guide.md#usage)" in text
    assert "![pump](../../../assets/pump.png)" in text


@pytest.mark.parametrize("staged", [True, False])
def test_a_folder_moved_with_a_file_in_it_renamed(kb, staged):
    """A folder moved (`git mv knowledge/faq knowledge/问答`) in the change that also renames
    the file its document links beside it: the link, unchanged, named neither the old file
    (the folder moved) nor any rename source; "did you mean" guessed a similar name."""
    write(kb, "knowledge/faq/记录-0001.md", page("记录一", "## 观察\n\n叶片黄化。\n"))
    write(kb, "knowledge/faq/记录-0000.md", page("记录零", "见 [下一条](记录-0001.md#观察)。\n"))
    git(kb, "add", "-A")
    git(kb, "commit", "-qm", "records")
    git(kb, "mv", "knowledge/faq", "knowledge/问答")
    git(kb, "mv", "knowledge/问答/记录-0001.md", "knowledge/问答/记录-1.md")
    args = ("--staged",) if staged else ()
    res = check(*args, "knowledge/问答/记录-0000.md")
    assert res.exit_code == 1 and missing_lines(res.output) == [
        "knowledge/问答/记录-0000.md:13:9: error: path-missing: '记录-0001.md#观察' does not "
        "exist (knowledge/问答/记录-0001.md); this document was '../faq/记录-0000.md' before the "
        "staged changes (not committed yet), where the link named '../faq/记录-0001.md', "
        "renamed to '记录-1.md' in the staged changes (not committed yet); `kb check --fix` "
        "writes '记录-1.md#观察'"], res.output
    assert check("--fix", *args, "knowledge/问答/记录-0000.md").exit_code == 0
    assert "见 [下一条](记录-1.md#观察)。" in \
        (kb / "knowledge/问答/记录-0000.md").read_text("utf-8")


@pytest.mark.parametrize("moved", [False, True])
def test_a_commit_holding_the_build_output_is_no_rename_into_it(kb, moved):
    """A commit that removed (or moved) the guide and committed dist/, which holds the
    build's copy of it: git pairs the guide with that copy, and the hint said "renamed to
    '../../dist/data/source/knowledge/guide.md'" (or its "did you mean" named the copy);
    the build output is no place a link goes, and a real move in that commit is named."""
    text = (kb / "knowledge/guide.md").read_text("utf-8")
    write(kb, "dist/data/source/knowledge/guide.md", text)
    if moved:
        write(kb, "knowledge/manuals/guide.md", text)
        git(kb, "add", "knowledge/manuals/guide.md")
    git(kb, "rm", "-q", "knowledge/guide.md")
    git(kb, "add", "-f", "dist")
    git(kb, "commit", "-qm", "remove the guide, commit the build")
    res = check("knowledge")
    assert res.exit_code == 1
    assert "dist/" not in res.output, res.output
    found = missing_lines(res.output)
    assert len(found) == 3
    if moved:
        assert all(f"renamed to '../manuals/guide.md' in {short(kb)}" in ln for ln in found)
