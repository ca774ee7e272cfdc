"""A folder of documents symlinked into knowledge/ (`ln -s ~/notes knowledge/notes`): kb
follows no symlinked folder, so `kb check` passed and the build released none of them. Each
such link is one `path-symlink-folder` error at the link (`kbtools.check.unreleased`)."""

from __future__ import annotations

from pathlib import Path

import git
import pytest
from click.testing import CliRunner

from kbtools.check.unreleased import markdown_in
from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

DOC = GOOD_FM + "\n# 水稻\n\n迁飞性害虫。\n"
TAIL = ("kb follows no symlinked folder, so its documents are neither checked nor released: "
        "put the folder itself here in place of the link (move it, then git add it)")


def check(*args: str) -> tuple[int, list[str]]:
    res = CliRunner().invoke(main, ["check", "--no-cache", *args])
    return res.exit_code, res.stdout.splitlines()


def notes(folder: Path, name: str = "笔记 一.md") -> Path:
    (folder / "子 目录").mkdir(parents=True)
    (folder / "子 目录" / name).write_text(DOC, encoding="utf-8")
    return folder


def test_a_folder_outside_the_repository_linked_in_is_an_error_at_the_link(kb, tmp_path_factory):
    outside = notes(tmp_path_factory.mktemp("elsewhere") / "my notes")
    (kb / "knowledge" / "a.md").write_text(DOC, encoding="utf-8")
    (kb / "knowledge" / "外部 笔记").symlink_to(outside, target_is_directory=True)
    before = {p: p.read_bytes() for p in outside.rglob("*.md")}
    assert check() == (1, [
        f"knowledge/外部 笔记:1:1: error: path-symlink-folder: a symlink to a folder "
        f"({str(outside)!r}, outside the repository) holding Markdown ('子 目录/笔记 一.md'): "
        + TAIL])
    assert check("--fix")[0] == 1
    assert {p: p.read_bytes() for p in outside.rglob("*.md")} == before


def test_a_folder_elsewhere_in_the_repository_linked_in_is_an_error(kb):
    notes(kb / "notes", "Guide.MD")
    (kb / "knowledge" / "a.md").write_text(DOC, encoding="utf-8")
    (kb / "knowledge" / "sub").mkdir()
    (kb / "knowledge" / "sub" / "notes").symlink_to("../../notes")
    assert check() == (1, [
        "knowledge/sub/notes:1:1: error: path-symlink-folder: a symlink to a folder "
        "('../../notes') holding Markdown ('子 目录/Guide.MD'): " + TAIL])


def test_a_folder_of_images_or_one_inside_the_knowledge_folder_is_no_finding(kb):
    (kb / "assets" / "shots").mkdir(parents=True)
    (kb / "assets" / "shots" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (kb / "knowledge" / "real").mkdir()
    (kb / "knowledge" / "real" / "a.md").write_text(DOC, encoding="utf-8")
    (kb / "knowledge" / "shots").symlink_to("../assets/shots")
    (kb / "knowledge" / "alias").symlink_to("real")
    (kb / "knowledge" / ".hidden").mkdir()
    (kb / "knowledge" / ".hidden" / "far").symlink_to(kb)
    assert check() == (0, [])


def test_with_staged_only_a_link_in_the_git_index_counts(kb, tmp_path_factory):
    outside = notes(tmp_path_factory.mktemp("elsewhere"))
    (kb / "knowledge" / "a.md").write_text(DOC, encoding="utf-8")
    repo = git.Repo.init(kb)
    repo.git.add(A=True)
    repo.git.commit("-qm", "start", author="A <a@example.org>")
    (kb / "knowledge" / "linked").symlink_to(outside)
    assert check("--staged") == (0, [])
    repo.git.add("knowledge/linked")
    code, lines = check("--staged")
    assert code == 1 and [ln.split(": ")[:3] for ln in lines] == [
        ["knowledge/linked:1:1", "error", "path-symlink-folder"]]


def test_the_search_of_a_huge_linked_tree_is_bounded(tmp_path):
    for i in range(30):
        (tmp_path / f"d{i:02}").mkdir()
        for j in range(30):
            (tmp_path / f"d{i:02}" / f"f{j}.png").write_bytes(b"")
    (tmp_path / "d29" / "deep.md").write_text(DOC, encoding="utf-8")
    assert markdown_in(str(tmp_path)) == "d29/deep.md"
    assert markdown_in(str(tmp_path), limit=200) is None


@pytest.mark.parametrize("name", ["note.markdown", "NOTE.MD", "a.md"])
def test_every_markdown_name_counts(tmp_path, name):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / name).write_text("x")
    assert markdown_in(str(tmp_path)) == f"x/{name}"


OUTSIDE = ("warning: path-outside-knowledge: not in the knowledge folder (knowledge/, kb.toml "
           "[paths] knowledge): checked, but kb build leaves it out of the release, and the "
           "pre-commit hook and CI do not check it: move it into knowledge/ to publish it")


@pytest.mark.parametrize("rel", ["笔记 草稿.md", "notes/Guide.md", "docs/深 层/a b.md"])
def test_a_document_named_outside_the_knowledge_folder_is_told_so(kb, monkeypatch, rel):
    path = kb / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DOC, encoding="utf-8")
    (kb / "knowledge" / "a.md").write_text(DOC, encoding="utf-8")
    assert check(rel, "knowledge/a.md") == (0, [f"{rel}:1:1: {OUTSIDE}"])
    monkeypatch.chdir(kb / "knowledge")  # named from another folder, with `..`
    assert check(f"../{rel}", "a.md", "../knowledge/a.md") == (0, [f"{rel}:1:1: {OUTSIDE}"])


def test_inside_the_knowledge_folder_through_a_link_or_without_one_is_no_finding(kb, tmp_path):
    (kb / "knowledge" / "a.md").write_text(DOC, encoding="utf-8")
    (kb / "notes").mkdir()
    (kb / "notes" / "b.md").write_text(DOC, encoding="utf-8")
    (kb / "knowledge" / "b.md").symlink_to("../notes/b.md")  # a document, read where it leads
    (tmp_path / "k").symlink_to(kb / "knowledge")
    assert check("knowledge/a.md", "knowledge/b.md", str(tmp_path / "k" / "a.md")) == (0, [])


def test_a_folder_of_foreign_markdown_without_a_knowledge_folder_is_no_finding(tmp_path,
                                                                               monkeypatch):
    (tmp_path / "a.md").write_text(DOC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert check("a.md") == (0, [])


@pytest.mark.parametrize("where", ["inside", "outside"])
def test_a_document_named_through_a_link_leading_out_is_one_finding(kb, tmp_path_factory,
                                                                     monkeypatch, where):
    """`kb check kb/knowledge/ext/a.md`, `ext` a link to a folder outside the repository:
    the file is not read (`path-symlink-escape`), and that is all that is said of it (not
    also that it lies outside the knowledge folder, which it was named inside of)."""
    outside = tmp_path_factory.mktemp("elsewhere")
    (outside / "a.md").write_text(DOC, encoding="utf-8")
    (kb / "knowledge" / "ext").symlink_to(outside, target_is_directory=True)
    escape = ("knowledge/ext/a.md:1:1: error: path-symlink-escape: document is a symlink "
              "leading outside the repository; not read")
    if where == "outside":  # named from the repository's parent folder
        monkeypatch.chdir(kb.parent)
        assert check(f"{kb.name}/knowledge/ext/a.md") == (1, [f"{kb.name}/{escape}"])
    else:
        assert check("knowledge/ext/a.md") == (1, [escape])


def test_a_document_named_through_a_folder_link_inside_the_repository_names_the_link(kb):
    """`kb check knowledge/notes/b.md`, `notes` a link to the repository's `notes/`: the
    warning told the author to move into knowledge/ a file they had named inside it; it
    names the symlinked folder the build does not follow, and what to do."""
    (kb / "notes" / "深 层").mkdir(parents=True)
    (kb / "notes" / "深 层" / "b.md").write_text(DOC, encoding="utf-8")
    (kb / "knowledge" / "笔记").symlink_to("../notes", target_is_directory=True)
    assert check("knowledge/笔记/深 层/b.md", "notes/深 层/b.md") == (0, [
        "knowledge/笔记/深 层/b.md:1:1: warning: path-outside-knowledge: reached through the "
        "symlinked folder knowledge/笔记 ('../notes'): checked, but kb follows no symlinked "
        "folder, so kb build leaves it out of the release, and the pre-commit hook and CI do "
        "not check it: put the folder itself there in place of the link (move it, then git "
        "add it)", f"notes/深 层/b.md:1:1: {OUTSIDE}"])
