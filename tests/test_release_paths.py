"""Path rules of a release and what `kb release` records: every listed path stays inside its
section, and a release commit holds only regular files (mode 100644) its manifest lists."""

from __future__ import annotations

import os
import posixpath
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_release_helpers import git, make_dist, make_knowledge_repo, sample_files, tree_files

from kbtools.errors import ReleaseError
from kbtools.index.manifest import manifest_path_problems, path_problem
from kbtools.ship.git import TreeEntry
from kbtools.ship.release import make_release
from kbtools.ship.verify import tree_problems

SEG = st.one_of(st.sampled_from(["data", "..", ".", "", ".git", "a\\b", "A", "a", "é",
                                 "e\u0301", "/", "\x00", "\n"]),
                st.text(min_size=0, max_size=6))


@settings(max_examples=300, deadline=2000)
@given(st.lists(SEG, min_size=1, max_size=5).map("/".join))
def test_an_accepted_path_is_normalized_and_stays_inside(rel: str):
    if path_problem(rel) is not None:
        return
    assert posixpath.normpath(rel) == rel and not rel.startswith("/")
    assert ".." not in rel.split("/") and "\\" not in rel and "\x00" not in rel
    root = Path("/device/releases/kb-r1")
    assert os.path.normpath(root / rel).startswith(f"{root}/")
    rel.encode("utf-8")  # no lone surrogates


@settings(max_examples=200, deadline=2000)
@given(st.lists(st.text(alphabet="aAbB\u00e9e\u0301/", min_size=1, max_size=5), max_size=6))
def test_no_two_accepted_paths_collide_when_folded(names):
    listed = {f"data/{n}": {"sha256": "0" * 64, "size": 0} for n in names}
    problems = manifest_path_problems({"artifacts": listed, "derived": {}})
    bad = {p.split(": ", 1)[0] for p in problems}
    ok = [p for p in listed if p not in bad]
    folded = [unicodedata.normalize("NFC", p).casefold() for p in ok]
    assert len(set(folded)) == len(folded)
    for f in folded:  # and no accepted file is another's parent directory
        assert not any(g.startswith(f + "/") for g in folded)


def test_tree_problems_name_each_kind_of_entry():
    manifest = {"artifacts": {"data/a": {"sha256": "0" * 64, "size": 3},
                              "data/b": {"sha256": "0" * 64, "size": 1}}, "derived": {}}
    entries = [TreeEntry("100644", "blob", "0" * 40, 10, "manifest.json"),
               TreeEntry("100644", "blob", "0" * 40, 4, "data/a"),
               TreeEntry("120000", "blob", "0" * 40, 4, "data/link"),
               TreeEntry("100755", "blob", "0" * 40, 1, "data/b"),
               TreeEntry("160000", "commit", "0" * 40, None, "data/sub"),
               TreeEntry("100644", "blob", "0" * 40, 1, "data/../x"),
               TreeEntry("100644", "blob", "0" * 40, 1, "data/\udcff"),
               TreeEntry("100644", "blob", "0" * 40, 1, "manifest.json")]
    assert tree_problems(entries, manifest) == [
        "data/a: size 4 != 3",
        "data/link: symbolic link (a release holds only regular files, mode 100644)",
        "data/b: executable file (a release holds only regular files, mode 100644)",
        "data/sub: submodule (a release holds only regular files, mode 100644)",
        "data/../x: empty, '.' or '..' path segment",
        "'data/\\udcff': not valid UTF-8",
        "manifest.json: appears twice in the tree"]


@pytest.fixture
def kr(tmp_path: Path) -> Path:
    return make_knowledge_repo(tmp_path / "kr")


def test_release_refuses_a_dist_with_links(kr: Path, tmp_path: Path):
    files = sample_files(1, n=3)
    dist = make_dist(tmp_path / "dist", files)
    victim = dist / "data" / "chunks" / "01.jsonl"
    (tmp_path / "same").write_bytes(victim.read_bytes())
    victim.unlink()
    os.symlink(tmp_path / "same", victim)  # same bytes, but a link
    with pytest.raises(ReleaseError, match="data/chunks/01.jsonl: symbolic link"):
        make_release(kr, dist)
    victim.unlink()
    victim.write_bytes((tmp_path / "same").read_bytes())
    os.symlink("/etc", dist / "data" / "etc")  # an unlisted link
    with pytest.raises(ReleaseError, match="data/etc: symbolic link"):
        make_release(kr, dist)


def test_release_records_regular_files_even_when_dist_files_are_executable(kr: Path,
                                                                          tmp_path: Path):
    dist = make_dist(tmp_path / "dist", sample_files(1, n=2))
    for p in (dist / "data").rglob("*"):
        if p.is_file():
            p.chmod(0o755)
    info = make_release(kr, dist)
    modes = {line.split()[0] for line in
             git(kr, "ls-tree", "-r", info.commit).splitlines()}
    assert modes == {"100644"}


def test_release_records_the_bytes_whatever_the_git_attributes(kr: Path, tmp_path: Path,
                                                               monkeypatch):
    """Attributes of this machine's git settings (core.attributesFile, info/attributes)
    and core.autocrlf would turn a CSV's CRLF into LF on `git add`: the tree then no longer
    matched the manifest and the release was refused. Blobs hold the bytes as they are."""
    files = {**sample_files(1, n=2), "tables/t.csv": b"\xef\xbb\xbfa,b\r\n1,2\r\n",
             "source/knowledge/a.md": b"# A\r\n\r\nhello\r\n"}
    dist = make_dist(tmp_path / "dist", files)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitattributes").write_text("* text=auto eol=lf\n")
    (home / ".gitconfig").write_text(f"[core]\n\tattributesFile = {home / '.gitattributes'}\n"
                                     "\tautocrlf = true\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    (Path(git(kr, "rev-parse", "--absolute-git-dir").strip()) / "info" / "attributes"
     ).write_text("*.csv text\n")
    info = make_release(kr, dist)
    recorded = tree_files(kr, info.commit)
    assert recorded["data/tables/t.csv"] == files["tables/t.csv"]
    assert recorded["data/source/knowledge/a.md"] == files["source/knowledge/a.md"]
    assert recorded["manifest.json"] == (dist / "manifest.json").read_bytes()
